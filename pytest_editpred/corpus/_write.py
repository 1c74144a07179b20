"""Writing examples out: one readable ``.md`` per example (Zed's layout, loadable by
``ep`` unchanged), or ep JSONL lines; atomically, never over an existing example
unless asked, never through a symbolic link, never a half-made folder.

The output path comes from the user, and the names inside it from data sets written
by others, so both are hostile until checked:

* ``-o`` that is a symbolic link is refused (a link to a system folder would have the
  examples written there), and an entry of the folder that is a link is never
  written through: without ``--force`` it counts as an existing example, with it the
  whole folder is replaced.
* A new folder is made beside its final place (``.NAME.*.tmp``) and renamed into
  place when the work is done, so a command that fails leaves no folder, empty or
  half-made. With ``--force`` an existing folder is replaced the same way, swapped in
  whole: the old examples go, none survive beside the new ones. It is refused when
  the folder holds anything but example files (``*.md``, ``*.jsonl``), which the swap
  would delete, and when it is, holds or lies inside an input.
* A file name is the example's name made safe (:func:`file_stem`): bounded in
  length, with a hash of the whole name when cut, so two long names never meet.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from .._files import write_atomic
from ..example import Example, safe_id, to_json, to_markdown

__all__ = ["ExampleWriter", "Format", "OutputFolder", "OutputRefused", "file_stem", "output_refusal"]

Format = Literal["markdown", "jsonl"]

#: Bytes of a file name's stem: far below every file system's 255, with room for
#: ``-2``, ``.md`` and the ``.NAME.XXXXXXXX.tmp`` of an atomic write.
MAX_STEM_BYTES = 120
#: What a folder replaced by ``--force`` may hold: the files this tool writes.
_OURS = (".md", ".jsonl")


class OutputRefused(OSError):
    """``-o`` cannot be written as it is; ``strerror`` says why and what to do."""

    def __init__(self, path: Path, message: str, fix: str) -> None:
        super().__init__(0, f"{message}; {fix[:1].lower()}{fix[1:]}", str(path))
        self.message = message
        self.fix = fix


def file_stem(name: str) -> str:
    """``name`` as a file name's stem: what pytest cannot show back (:func:`safe_id`)
    and path separators made ``-``; empty when nothing usable is left (``..``);
    past :data:`MAX_STEM_BYTES` cut, ending in 10 hex digits of the whole name's
    SHA-256 so that two long names sharing a beginning stay two files."""
    stem = _clean(name)
    if not _too_long(stem):
        return stem
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    cut = stem.encode("utf-8", "surrogatepass")[: MAX_STEM_BYTES - 11].decode("utf-8", "ignore")
    return f"{cut.rstrip('-')}-{digest}"


def _clean(name: str) -> str:
    return safe_id(name.replace("/", "-").replace("\\", "-").replace("\0", "-"))


def _too_long(stem: str) -> bool:
    return len(stem.encode("utf-8", "surrogatepass")) > MAX_STEM_BYTES


def _inside(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def _foreign(folder: Path) -> list[str]:
    """What in ``folder`` is no example file (links and special files included),
    as paths below it, sorted; subfolders are looked into, never followed."""
    found = []
    for where, dirs, names in os.walk(folder):  # a link to a folder is listed, never entered
        for name in names + [d for d in dirs if os.path.islink(os.path.join(where, d))]:
            path = os.path.join(where, name)
            kind = os.lstat(path).st_mode
            if not (name.endswith(_OURS) and (stat.S_ISREG(kind) or stat.S_ISLNK(kind))):
                found.append(os.path.relpath(path, folder))
    return sorted(found)


def output_refusal(out: Path, *, folder: bool, force: bool, inputs: Sequence[Path] = ()) -> tuple[str, str] | None:
    """Why ``out`` cannot receive the examples (message, fix), or None; nothing is
    created or opened. ``folder``: a folder of ``.md`` files, else one file."""
    if out.is_symlink():
        target = os.readlink(out)
        return (
            f"it is a symbolic link (to {target}); examples are never written through a link",
            "Give -o a real folder, not a link." if folder else "Give -o a real file path, not a link.",
        )
    if folder and out.exists() and not out.is_dir():
        return "it is a file, not a folder", "Give -o a folder (it is made if missing)."
    if not folder and out.is_dir():
        return "it is a folder, not a file", "Name a file, or a folder without the file suffix."
    if force and folder and out.is_dir():
        here = Path(os.path.abspath(out))
        for given in inputs:
            source = Path(os.path.abspath(given))
            if _inside(here, source) or _inside(source, here):
                return (
                    f"--force would replace it, and it is, holds or lies inside the input {given}",
                    "Give -o a folder apart from the inputs.",
                )
        foreign = _foreign(out)
        if foreign:
            more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
            return (
                f"--force replaces the folder whole, and it holds {foreign[0]!r}{more}, which is no example file",
                "Give -o a folder of its own, or move the other files out of it.",
            )
    return None


class OutputFolder:
    """A folder of examples being written: made beside ``out`` and renamed into place
    at :meth:`close` when ``out`` is new, or replaced whole with ``force``; written
    file by file into ``out`` when it exists and ``force`` is off (an existing entry,
    a link included, is then never touched: :meth:`taken`).

    Nothing is created before the first :meth:`write` (or :meth:`close`); the
    staging folder is removed when the command ends without :meth:`close`.
    """

    def __init__(self, out: Path, *, force: bool = False, inputs: Sequence[Path] = ()) -> None:
        self.out = out
        self.force = force
        self.inputs = tuple(inputs)
        self._staging: Path | None = None
        self._started = False
        self._cleanup: weakref.finalize[..., OutputFolder] | None = None

    def refusal(self) -> tuple[str, str] | None:
        return output_refusal(self.out, folder=True, force=self.force, inputs=self.inputs)

    @property
    def staged(self) -> bool:
        """Whether files go to a staging folder (a new ``out``, or ``force``)."""
        self._start()
        return self._staging is not None

    def taken(self, name: str) -> bool:
        """Whether ``name`` exists in ``out`` and would be written over (never when
        staging); a symbolic link counts, dangling or not."""
        return not self.staged and os.path.lexists(self.out / name)

    def write(self, name: str, data: str | bytes) -> Path:
        """Write the file ``name`` (a relative path) atomically; its final path."""
        self._start()
        folder = self._staging or self.out
        target = folder / name
        if target.parent != folder:
            target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data, sync=False)  # made again by running again
        return self.out / name

    def close(self) -> None:
        """Put the folder in place: the staging folder renamed to ``out`` (the old
        ``out``, with ``force``, renamed aside first and then deleted)."""
        self._start()
        staging = self._staging
        if staging is None:
            return
        old = None
        if os.path.lexists(self.out):
            old = Path(tempfile.mkdtemp(prefix=f".{staging.name}.", suffix=".old", dir=staging.parent))
            os.replace(self.out, old)  # an empty directory is replaced
        try:
            os.replace(staging, self.out)
        except BaseException:
            if old is not None:
                os.replace(old, self.out)
            raise
        self._staging = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        if self._cleanup is not None:
            self._cleanup.detach()

    def abort(self) -> None:
        """Remove what was staged: ``out`` stays as it was."""
        if self._cleanup is not None:
            self._cleanup()
        self._staging = None

    def _start(self) -> None:
        if self._started:
            return
        refused = self.refusal()
        if refused is not None:
            raise OutputRefused(self.out, *refused)
        self._started = True
        if self.out.is_dir() and not self.force:
            return
        where = Path(os.path.abspath(self.out))
        where.parent.mkdir(parents=True, exist_ok=True)
        self._staging = Path(tempfile.mkdtemp(prefix=f".{where.name}.", suffix=".tmp", dir=where.parent))
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._staging, True)


class ExampleWriter:
    """Collects examples for ``out``: a folder of ``.md`` files (:class:`OutputFolder`),
    or, with ``jsonl``, the file ``out`` itself (a folder gets ``examples.jsonl``).

    Without ``force``, an example whose file exists already in ``out`` is refused
    (``exists``). One whose file name an earlier example of the same run took is
    refused too (``clashes``), unless ``rename``: it is then written as ``NAME-2``
    (``-3``, ...) and listed in ``renamed`` with the reason, as is an example whose
    name gives no usable file name (``..``) or one too long (:func:`file_stem`).
    JSONL is written once, at :meth:`close`, so a crash leaves no half file. Call
    :meth:`refusal` before any work: the same refusal raises :class:`OutputRefused`
    (an :class:`OSError`) at the first write otherwise.
    """

    def __init__(
        self,
        out: Path,
        fmt: Format = "markdown",
        *,
        force: bool = False,
        rename: bool = False,
        inputs: Sequence[Path] = (),
    ) -> None:
        self.out = out
        self.fmt = fmt
        self.force = force
        self.rename = rename
        self.written: list[Path] = []
        self.exists: list[Path] = []
        self.clashes: list[Path] = []
        #: ``(example, the path it was written to, why not under its own name)``
        self.renamed: list[tuple[Example, Path, str]] = []
        self.folder = OutputFolder(out, force=force, inputs=inputs)
        self._lines: list[str] = []
        self._names: dict[str, str] = {}  # lower-cased: one file on a case-insensitive file system

    def refusal(self) -> tuple[str, str] | None:
        """Why ``out`` cannot receive the examples (message, fix), or None."""
        if self.fmt == "markdown":
            return self.folder.refusal()
        return output_refusal(self.out, folder=bool(not self.out.suffix), force=False)

    def path_for(self, example: Example) -> Path:
        """The file an example goes to: its name made safe for a file name."""
        return self.out / f"{file_stem(example.name) or 'example'}.md"

    def write(self, example: Example, *, fallback: str = "example") -> bool:
        """Write (or queue) ``example``; False when its file exists and ``force`` is
        off, or its name was taken by this run and ``rename`` is off. ``fallback``
        names the file when the example's name gives none."""
        if self.fmt == "jsonl":
            self._lines.append(json.dumps(to_json(example), ensure_ascii=False))
            return True
        stem = file_stem(example.name)
        why = None
        if not stem:
            stem, why = file_stem(fallback) or "example", f"its name {example.name!r} is no usable file name"
        elif _too_long(_clean(example.name)):
            why = "its name is too long for a file name (cut, with a hash of the whole name)"
        name = f"{stem}.md"
        if name.lower() in self._names:
            if not self.rename:
                self.clashes.append(self.out / name)
                return False
            n = 2
            while f"{stem}-{n}.md".lower() in self._names:
                n += 1
            why, name = f"an earlier example of this run is written as {self._names[name.lower()]}", f"{stem}-{n}.md"
        if self.folder.taken(name) and not self.force:
            self.exists.append(self.out / name)
            return False
        self._names[name.lower()] = name
        target = self.folder.write(name, to_markdown(example))
        self.written.append(target)
        if why is not None:
            self.renamed.append((example, target, why))
        return True

    def close(self) -> None:
        if self.fmt == "markdown":
            self.folder.close()
            return
        if self._lines:
            refused = self.refusal()
            if refused is not None:
                raise OutputRefused(self.out, *refused)
            target = self.out / "examples.jsonl" if self.out.is_dir() or not self.out.suffix else self.out
            if os.path.lexists(target) and not self.force:  # a link too: replaced, never written through
                self.exists.append(target)
                return
            write_atomic(target, "\n".join(self._lines) + "\n")
            self.written.append(target)

    def abort(self) -> None:
        """The command failed: nothing it staged is left behind."""
        self.folder.abort()
