"""Examples read with the bytes they came in, and written where ``-o`` says: the
input and output of the commands that rewrite or filter a corpus example by example
(``truncate-patch``, ``filter-languages``).

An input is any number of example files (``.md``, ``.json``, ``.jsonl``) and folders
(walked as ``editpred lint`` walks them), or ``-``: JSONL on standard input. Every example is loaded by the plugin's own
loader, so a broken one is one :class:`Problem` with its file, line and fix, never
written out; the others keep their raw form, so an example that goes out unchanged
goes out as it came in when the formats agree (a ``.md`` file byte for byte, a JSONL
line as it was, with every field Zed's pipeline put in it), and is only rendered
across formats. A JSONL example the command changed keeps its other fields too.

The output is JSONL on standard output (no ``-o``, as Zed prints), a ``.jsonl`` file,
or a folder of ``.md`` files (any other name). An output that exists (a file, or a
folder that is not empty) is refused before anything is read, unless ``force``, and
so is a symbolic link; with ``force`` a folder is replaced whole at the end, and
refused when it is, holds or lies inside an input. A JSONL file is written whole at
the end, atomically, so it may be one of the inputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from ..example import Example

__all__ = ["STDIN", "Item", "Output", "Problem", "read_items"]

#: How standard input is named in messages (the path ``-``).
STDIN = "<stdin>"


@dataclass(frozen=True)
class Problem:
    """An input that is no example: its file, line (None: the file as a whole),
    what is wrong, the fix."""

    where: str
    line: int | None
    message: str
    fix: str | None = None


@dataclass(frozen=True)
class Item:
    """One example as read: ``raw`` is the ``.md`` or ``.json`` file's bytes or the
    JSONL line; ``fields`` the decoded JSON object (None for ``.md``); ``relative``
    the name a ``.md`` file keeps in a folder output (its path below the folder
    given); ``changed`` when the command rewrote it (it is then rendered)."""

    example: Example
    path: Path
    line: int | None
    relative: str
    raw: bytes
    fields: dict[str, Any] | None
    changed: bool = False

    def json_fields(self) -> dict[str, Any]:
        """The example as ep JSON: the object read (with every field it had), or the
        ``.md`` example rendered."""
        from ..example import to_json

        return dict(self.fields) if self.fields is not None else to_json(self.example)

    def with_expected_patches(self, patches: Sequence[str]) -> Item:
        """The item with other expected patches (in its fields too, when it has them)."""
        fields = None
        if self.fields is not None:
            fields = dict(self.fields)
            fields["expected_patches"] = list(patches)
        return replace(
            self, example=replace(self.example, expected_patches=tuple(patches)), fields=fields, changed=True
        )

    def json_line(self) -> str:
        if self.line is not None and not self.changed:
            return self.raw.decode("utf-8").rstrip("\r")
        return json.dumps(self.json_fields(), ensure_ascii=False)

    def markdown(self) -> bytes | str:
        from ..example import to_markdown

        if self.fields is None and not self.changed:
            return self.raw
        return to_markdown(self.example)


def _files(path: Path) -> list[tuple[Path, str]]:
    """The example files under ``path`` with their names below it."""
    from ._lint import example_files

    files, _ = example_files([path])
    if path.is_dir():
        return [(file, file.relative_to(path).as_posix()) for file in files]
    return [(file, file.name) for file in files]


def read_items(paths: Sequence[Path], stdin: BinaryIO | None = None) -> Iterator[Item | Problem]:
    """Every example of ``paths``, in order, each file once (``-``: JSONL on
    ``stdin``); a path that does not exist, a file that cannot be read and an example
    that does not load are each one :class:`Problem`, in their place."""
    from .._exceptions import EditPredError
    from ..example import load_examples

    seen: set[Path] = set()
    for path in paths:
        if str(path) == "-":
            yield from _stdin_items(stdin.read() if stdin is not None else b"")
            continue
        from .._files import special_kind

        kind = special_kind(path)
        if kind is not None:  # never opened: a FIFO would wait for a writer forever
            yield Problem(str(path), None, f"it is {kind}, not a file or folder", "Give example files or folders.")
            continue
        if not path.exists():
            yield Problem(str(path), None, "no such file or folder", "Give .md, .json or .jsonl examples, or folders.")
            continue
        for file, relative in _files(path):
            key = file.resolve()
            if key in seen:
                continue
            seen.add(key)
            suffix = file.suffix.lower()
            entries = load_examples(file)  # within the size limits, or refused unread
            data = b""
            if any(isinstance(entry, Example) for entry in entries):
                try:  # read again for the bytes of what loaded
                    data = file.read_bytes()
                except OSError as error:
                    yield Problem(str(file), None, f"cannot read it: {error.strerror or error}")
                    continue
            lines = data.split(b"\n") if suffix == ".jsonl" else []
            for entry in entries:
                if isinstance(entry, EditPredError):
                    yield Problem(entry.path or str(file), entry.line, entry.reason, entry.fix)
                elif suffix == ".md":
                    yield Item(entry, file, None, relative, data, None)
                else:
                    line = entry.source.line if suffix == ".jsonl" else None
                    raw = lines[line - 1] if line is not None else data
                    yield Item(entry, file, line, relative, raw, json.loads(raw))


def _stdin_items(data: bytes) -> Iterator[Item | Problem]:
    from ..example import from_jsonl

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        yield Problem(STDIN, line, "the input is not valid UTF-8", "Give UTF-8 JSONL.")
        return
    lines = text.split("\n")
    for entry in from_jsonl(text, STDIN):
        if isinstance(entry, Example):
            line = entry.source.line
            raw = lines[line - 1].encode("utf-8")
            yield Item(entry, Path(STDIN), line, STDIN, raw, json.loads(raw))
        else:
            yield Problem(STDIN, entry.line, entry.reason, entry.fix)


class Output:
    """Where the examples go: ``out`` None is JSONL on ``stdout``; a name ending in
    ``.jsonl`` is a JSONL file; any other a folder of ``.md`` files, made (or, with
    ``force``, replaced whole) as :class:`~._write.OutputFolder` makes it: never
    through a symbolic link, never half-made."""

    def __init__(self, out: Path | None, stdout: TextIO, *, force: bool = False, inputs: Sequence[Path] = ()) -> None:
        from ._write import OutputFolder

        self.out = out
        self.stdout = stdout
        self.force = force
        self.inputs = tuple(path for path in inputs if str(path) != "-")
        self.count = 0
        self._lines: list[str] = []
        self._names: set[str] = set()
        self._folder = None if out is None or self.jsonl else OutputFolder(out, force=force, inputs=self.inputs)

    @property
    def jsonl(self) -> bool:
        return self.out is None or self.out.suffix.lower() == ".jsonl"

    def refusal(self) -> tuple[str, str] | None:
        """Why the output cannot be written, and the fix; None when it can."""
        from ._write import output_refusal

        out = self.out
        if out is None:
            return None
        if not out.is_symlink():
            if not self.jsonl and out.exists() and not out.is_dir():
                return "it is a file, not a folder for .md examples", "Name a folder, or a .jsonl file."
            if self.jsonl and out.is_dir():
                return "it is a folder, not a .jsonl file", "Name a .jsonl file, or a folder without the .jsonl suffix."
            if out.exists() and not self.force and (self.jsonl or any(out.iterdir())):
                return "it exists", "Name a new output, or pass --force to write over it."
        return output_refusal(out, folder=not self.jsonl, force=self.force, inputs=self.inputs)

    def add(self, item: Item) -> None:
        self.count += 1
        if self.out is None:
            self.stdout.write(item.json_line() + "\n")
        elif self._folder is None:
            self._lines.append(item.json_line())
        else:
            self._folder.write(self._name(item), item.markdown())

    def _name(self, item: Item) -> str:
        """The ``.md`` file's name in the folder: a ``.md`` input keeps its own, a
        JSON one is named after the example; a name taken already gets ``-2``, ..."""
        from ._write import file_stem

        if item.fields is None:
            stem = item.relative.removesuffix(item.path.suffix)
        else:
            stem = file_stem(item.example.name) or f"example-{item.line or 1}"
        name, n = f"{stem}.md", 2
        while name.lower() in self._names:
            name, n = f"{stem}-{n}.md", n + 1
        self._names.add(name.lower())
        return name

    def close(self) -> None:
        from .._files import write_atomic

        if self._folder is not None:
            self._folder.close()  # an empty selection is an empty folder
        elif self.out is not None:
            write_atomic(self.out, "".join(line + "\n" for line in self._lines))

    def abort(self) -> None:
        """The command failed: a folder being made is removed, an old one kept."""
        if self._folder is not None:
            self._folder.abort()
