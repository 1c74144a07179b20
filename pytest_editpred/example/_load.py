"""Load examples from files: ``.md``, ``.json`` and ``.jsonl``, as Zed's ``ep read`` does.

An example file is written by someone else, so its size is checked before it is
read: a ``.md`` or ``.json`` file over ``max_bytes`` (``--editpred-max-example-bytes``,
default :data:`~pytest_editpred._limits.DEFAULT_LIMITS`) is refused unread, with one
:class:`FormatError` naming the file, its size, the limit and the option; the read
itself stops one byte past the limit, so a file that grows cannot get round the
check; a FIFO, socket or device is refused unopened or unread (a FIFO opened for
reading would wait for a writer forever). A ``.jsonl`` file holds one example a line, so the limit applies to
each line (a corpus of 10,000 examples is legitimately bigger than one example):
the file is read line by line and an oversized line becomes its own error, in its
place, without being kept in memory.
"""

from __future__ import annotations

import os
from pathlib import Path

from .._exceptions import EditPredError, FormatError
from .._files import NotRegularFile, open_regular
from .._limits import DEFAULT_LIMITS
from ._example import Example

__all__ = ["load_examples", "EXTENSIONS", "too_big"]

EXTENSIONS = (".md", ".json", ".jsonl")
_OPTION = "--editpred-max-example-bytes"
_FIX_SPECIAL = "Name an example file; a pipe, socket or device is never read."


def too_big(
    path: Path, size: int | None, limit: int, *, line: int | None = None, what: str = "the example file"
) -> FormatError:
    """The one message for an example over the size limit (``size`` None: not known,
    the read stopped past the limit)."""
    shown = f"{size:,} bytes, over" if size is not None else "larger than"
    return FormatError(
        f"{what} is {shown} the limit of {limit:,} bytes for an example; it was not read",
        fix=f"Split it into smaller examples, or raise the limit with {_OPTION} (ini editpred_max_example_bytes).",
        path=path,
        line=line,
    )


def load_examples(
    path: str | Path, *, max_bytes: int = DEFAULT_LIMITS.max_example_bytes
) -> list[Example | EditPredError]:
    """Every example in ``path``; a broken one comes back as its error, in its place.

    A ``.md`` or ``.json`` file holds one example, a ``.jsonl`` file one per line;
    ``max_bytes`` bounds a file (``.md``, ``.json``) or a line (``.jsonl``).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        return [
            FormatError(
                f"{path.name} has invalid example extension '{path.suffix}'",
                fix="Name example files *.md, *.json or *.jsonl.",
                path=path,
            )
        ]
    try:
        if suffix == ".jsonl":
            return _load_jsonl(path, max_bytes)
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                return [too_big(path, size, max_bytes)]
            data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:  # it grew
            return [too_big(path, None, max_bytes)]
    except NotRegularFile as error:
        return [FormatError(f"{error.strerror}; it was not read", fix=_FIX_SPECIAL, path=path)]
    except OSError as error:
        return [FormatError(f"cannot read the file: {error.strerror}", path=path)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return [FormatError("the file is not valid UTF-8", fix="Save it as UTF-8.", path=path, line=line)]
    try:
        if suffix == ".md":
            from ._markdown import from_markdown

            return [from_markdown(text, path)]
        from ._json import from_json

        return [from_json(text, path)]
    except EditPredError as error:
        return [error]


def _load_jsonl(path: Path, max_bytes: int) -> list[Example | EditPredError]:
    """A ``.jsonl`` file line by line: lines over ``max_bytes`` are errors in their
    place (and blanked, so every other line keeps its number)."""
    from ._json import from_jsonl

    kept: list[bytes] = []
    refused: dict[int, FormatError] = {}
    with open_regular(path) as handle:
        number = 0
        while True:
            line = handle.readline(max_bytes + 2)  # a line, its newline, one byte more
            if not line:
                break
            number += 1
            if len(line.rstrip(b"\r\n")) > max_bytes:
                refused[number] = too_big(path, None, max_bytes, line=number, what=f"line {number}")
                while line and not line.endswith(b"\n"):  # skip the rest of the line unread
                    line = handle.readline(1 << 20)
                kept.append(b"\n")
            else:
                kept.append(line if line.endswith(b"\n") else line + b"\n")
    data = b"".join(kept)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = data[: error.start].count(b"\n") + 1
        return [FormatError("the file is not valid UTF-8", fix="Save it as UTF-8.", path=path, line=bad)]
    try:
        loaded: list[Example | EditPredError] = list(from_jsonl(text, path))
    except EditPredError as error:
        return [error]
    if not refused:
        return loaded

    def line_of(entry: Example | EditPredError) -> int:
        return (entry.line if isinstance(entry, EditPredError) else entry.source.line) or 0

    merged = loaded + list(refused.values())
    return sorted(merged, key=line_of)
