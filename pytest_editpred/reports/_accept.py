"""``--editpred-accept``: make a failing item's prediction one more expected patch.

A reviewer who judges a "failed" prediction correct should not have to copy a diff
by hand. The prediction is added to the example's markdown file as a new fenced
block of the ``## Expected Patch`` section; everything else in the file stays byte
for byte, so the change is a clean, reviewable insertion in ``git diff``.

Where the block goes:

* after the last fenced block of the ``## Expected Patch`` section(s);
* under the ``## Expected Patch`` heading, if it has no block yet;
* in a new ``## Expected Patch`` section before ``## Rejected Patch`` (which
  must stay last, where Zed's ``to_markdown`` puts it), or at the end of the file.

The file is written atomically (a temporary file in the same directory, then
``os.replace``), and only after the new text has been parsed back and found to be
the old example plus this one patch: an example file is never left half-written
or silently changed in another way.

Accepting is safe against the corpus and against itself:

* **One writer at a time.** The read-modify-write holds a lock per example file
  (:mod:`filelock`), so two runs, or two xdist workers running trials of one
  example, never lose each other's patch. The lock file lives in a per-user
  directory of the system's temporary directory, keyed by the file's real path:
  never in the corpus, where pytest would collect it or a user would commit it.
* **No stray files.** The temporary file must sit in the example's directory (an
  atomic ``os.replace`` cannot cross file systems), so it is named
  ``.<name>.<random>.editpred-tmp``: hidden, and a suffix no collector takes. It is
  removed in ``finally`` on any error; a SIGKILL between writing it and replacing
  the example can leave one, which the next accept into that file removes (under
  the lock, so never one in flight).
* **Nothing but a plain file is replaced.** A symlink (replacing it would cut the
  link), a file with several hard links (the other names would keep the old text)
  and a read-only file (someone meant it not to change) are refused with the
  reason; so is a file that changes on disk while it is being accepted.
* **Only safe paths.** A patch that names a path the cursor-path rules refuse
  (absolute, ``..``, ``.git``, NUL, backslash or control characters: the rule of
  :func:`pytest_editpred.scene._urls.split_path`) is never written into a corpus.

* **Only what reads back.** The new example must load as the old one plus exactly
  this patch. A fenced block cannot hold a carriage return (CommonMark reads it as a
  line break, alone or before a newline) or a NUL (CommonMark makes it U+FFFD), and
  UTF-8 cannot hold a lone surrogate: such an answer is refused, naming the
  character and its line. Other control and invisible characters (U+2028, U+0085,
  form feed, ESC, ...) read back exactly (markdown, Zed and this loader split lines
  at ``\n`` only) and are written as they are, but each is *said*: ``notes`` gets
  a sentence naming it and its line, since Python's ``str.splitlines`` and some
  editors take several of them for line breaks.

Every refusal is a :class:`ConfigError` whose reason says which rule and whose fix
says what to do; the plugin shows it in the terminal summary, with the notes of
every acceptance.

Only markdown is edited: a ``.json``/``.jsonl`` example holds its patches in JSON
strings, and rewriting JSON would reformat the whole file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tempfile
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from .._disk import describe, remedy
from .._exceptions import ConfigError, EditPredError
from ..example import (
    MARKER,
    Example,
    expected_patch_insertion_point,
    fence,
    from_markdown,
)

__all__ = ["LOCK_TIMEOUT", "TEMP_SUFFIX", "accept_prediction", "cursor_marker_line", "with_cursor_line"]

#: The suffix of accept's temporary files: no collector of pytest or of this plugin
#: takes it, and the leading dot hides the file from ``ls`` and most globs.
TEMP_SUFFIX = ".editpred-tmp"
#: Seconds to wait for another accept into the same file. One accept takes
#: milliseconds, so this only ends a wait on a lock holder that hangs.
LOCK_TIMEOUT = 120.0
_BY_HAND = "Add the expected patch to the example by hand."


def cursor_marker_line(column: int) -> str:
    """The ``#  ^[CURSOR_POSITION]`` line for a byte ``column`` of the line above.

    The ``#`` stands in for the diff line's one-character prefix, so the ``^``
    sits at byte ``column + 1`` of the marker line (zed-format.md §4.1 step 2).
    """
    if column < 0:
        raise ValueError(f"a cursor column cannot be negative, got {column}")
    return "#" + " " * column + "^" + MARKER


def with_cursor_line(patch: str, after_line: int, column: int) -> str:
    """``patch`` with a cursor line inserted after its 0-based line ``after_line``.

    That line must be a context or ``+`` line (Zed anchors the cursor to the last
    such line above the marker); ``column`` is a UTF-8 byte column of its content
    (without the diff prefix).
    """
    if MARKER in patch:
        raise ValueError("the patch already has a cursor line")
    lines = patch.split("\n")
    if patch.endswith("\n"):
        lines.pop()
    if not 0 <= after_line < len(lines):
        raise ValueError(f"line {after_line} is outside the patch's {len(lines)} lines")
    anchor = lines[after_line]
    header = anchor.startswith("+++") and anchor[3:4].isspace()
    if not (anchor[:1] in (" ", "") or (anchor[:1] == "+" and not header)):
        raise ValueError(f"the cursor must follow a context or '+' line, not {anchor!r}")
    content = anchor[1:]
    if column > len(content.encode()):
        raise ValueError(f"column {column} is past the end of {anchor!r}")
    lines.insert(after_line + 1, cursor_marker_line(column))
    return "\n".join(lines) + ("\n" if patch.endswith("\n") else "")


def _refuse(path: Path, reason: str, fix: str | None = None) -> ConfigError:
    return ConfigError(
        reason,
        fix=fix or "Add the expected patch to the example by hand (only markdown examples are edited).",
        path=path,
    )


def _check_paths(where: Path, patch: str) -> None:
    """Refuse a patch naming a path the cursor-path rules refuse.

    Checked on the patch as it would be stored (its parsed ``---``/``+++`` paths),
    so whatever produced it (a hostile answer, a library caller) cannot put
    ``../../x`` into a corpus that later runs, or that Zed's tools later apply.
    """
    from .._diff import DEV_NULL, parse_diff
    from ..scene import split_path

    try:
        sections = parse_diff(patch)
    except EditPredError as error:
        raise _refuse(where, f"the prediction is not a diff that can be stored: {error.reason}", _BY_HAND) from None
    names = [name for section in sections for name in (section.old_path, section.new_path)]
    # The header as written, too: our parser reads an unquoted backslash as an escape
    # (``src\..\x`` is ``src..x``), but another reader of the corpus (Zed's) may not.
    # Only a ``---`` line followed by a ``+++`` line is a header: a removed ``-- x``
    # line of SQL or Lua also starts with ``--- ``.
    lines = patch.split("\n")
    for old, new in zip(lines, lines[1:], strict=False):  # each line with the next one
        if not (old.startswith("--- ") and new.startswith("+++ ")):
            continue
        for line in (old, new):
            if not line[4:].startswith('"'):
                raw = line[4:].split("\t")[0].rstrip()
                names.append(raw[2:] if raw.startswith(("a/", "b/")) else raw)
    for name in names:
        if name == DEV_NULL:
            continue
        try:
            split_path(name)
        except EditPredError as error:
            raise _refuse(
                where,
                f"the prediction names an {error.reason}; it is never written into a corpus",
                "Review the model's answer: a patch may only name files inside the repository.",
            ) from None


#: What a fenced block cannot hold as it is, and why (see the module's docstring).
_UNWRITABLE = {
    "\r": "a carriage return (U+000D), which markdown reads as a line break",
    "\x00": "a NUL (U+0000), which markdown reads as U+FFFD",
}
#: Line breaks to Python's ``str.splitlines`` (and to some editors), not to markdown.
_SPLITLINES_BREAKS = frozenset("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_NO_CHARACTER_FIX = (
    "A markdown example cannot hold this character: if the answer is right, write the example "
    "as ep JSON (.json), whose strings can, or add the patch by hand without it."
)


#: Names of the control characters unicodedata has none for.
_CONTROL_NAMES = {
    "\x08": "BACKSPACE",
    "\x0b": "LINE TABULATION",
    "\x0c": "FORM FEED",
    "\x1b": "ESCAPE",
    "\x1c": "FILE SEPARATOR",
    "\x1d": "GROUP SEPARATOR",
    "\x1e": "RECORD SEPARATOR",
    "\x7f": "DELETE",
    "\x85": "NEXT LINE",
}


def _character(c: str) -> str:
    name = unicodedata.name(c, "") or _CONTROL_NAMES.get(c, "")
    return f"U+{ord(c):04X}" + (f" {name}" if name else "")


def _check_characters(where: Path, patch: str) -> None:
    """Refuse a patch a fenced block cannot hold as it is (it would read back changed)."""
    for index, line in enumerate(patch.split("\n")):
        for c in line:
            if c in _UNWRITABLE:
                raise _refuse(
                    where,
                    f"the prediction holds {_UNWRITABLE[c]}, on line {index + 1} of its patch; "
                    "the example would not read back as the answer",
                    _NO_CHARACTER_FIX,
                )
            if "\ud800" <= c <= "\udfff":
                raise _refuse(
                    where,
                    f"the prediction holds a lone surrogate (U+{ord(c):04X}), on line {index + 1} of its patch, "
                    "which UTF-8 cannot encode",
                    _NO_CHARACTER_FIX,
                )


def _unusual_characters(patch: str, first_line: int) -> list[str]:
    """A sentence for each control or invisible character written as it is (one per
    character, at its first line in the file; the patch starts at ``first_line``)."""
    seen: dict[str, int] = {}
    for index, line in enumerate(patch.split("\n")):
        if line.isprintable():
            continue
        for c in line:
            if c != "\t" and not c.isprintable() and c not in seen:
                seen[c] = first_line + index
    notes = []
    for c, number in seen.items():
        what = (
            "a line break to Python's str.splitlines() and some editors, a character to markdown, Zed and this loader"
            if c in _SPLITLINES_BREAKS
            else "a control or invisible character"
        )
        notes.append(f"{_character(c)} on line {number} written as it is ({what})")
    return notes


def _first_difference(written: str, wanted: str) -> int:
    """The 1-based line of ``wanted`` where ``written`` first differs."""
    for index, (a, b) in enumerate(zip(written.split("\n"), wanted.split("\n")), start=1):
        if a != b:
            return index
    return min(written.count("\n"), wanted.count("\n")) + 1


def accept_prediction(
    path: str | os.PathLike[str],
    predicted_patch: str,
    cursor_line: tuple[int, int] | None = None,
    *,
    lock_dir: str | os.PathLike[str] | None = None,
    notes: list[str] | None = None,
) -> int | None:
    """Add ``predicted_patch`` to the example at ``path`` as a new expected patch.

    ``cursor_line`` is ``(index, column)``: put a cursor line after the patch's
    0-based line ``index`` (a context or ``+`` line), at UTF-8 byte ``column`` of
    that line's content (see :func:`with_cursor_line`). Pass None to write the patch
    as it is, e.g. one that already carries its ``#  ^[CURSOR_POSITION]`` line, or
    none (then the cursor is not scored for this candidate).

    ``lock_dir`` is where the per-file lock lives (default: a per-user directory
    in the system's temporary directory). Every process accepting into one file
    must use the same one.

    ``notes``, when given, gets a sentence for every control or invisible character
    the new block holds (written as it is, since it reads back exactly), so the
    caller can say what was written.

    Returns the 1-based line of the new block's opening fence, or None when the
    example already has exactly this expected patch (nothing is written).
    Raises :class:`ConfigError` for a path that is not a markdown example, a
    symlink, a hard-linked or read-only file, an unsafe path in the patch, a lock
    that cannot be taken or a file that cannot be written (each with its reason),
    and the example's own errors when the file does not parse; a patch holding a
    character a fenced block cannot hold (a carriage return, a NUL, a lone
    surrogate) is refused naming it.
    """
    where = Path(path)
    if where.suffix.lower() != ".md":
        raise _refuse(where, f"cannot accept a prediction into {where.name}: only .md examples are edited")
    _check_paths(where, predicted_patch)
    patch = predicted_patch if cursor_line is None else with_cursor_line(predicted_patch, *cursor_line)
    _check_characters(where, patch)
    with _locked(where, lock_dir):
        before = _check_file(where)
        _clear_leftovers(where)
        text = _read(where, before).decode("utf-8")
        example = from_markdown(text, where)
        content = patch if patch.endswith("\n") or not patch else patch + "\n"  # as a fence holds it
        if content in example.expected_patches:
            return None

        at, heading = expected_patch_insertion_point(text)
        block = fence(patch, "diff")
        head, tail = text[:at], text[at:]
        lead = "" if not head or head.endswith("\n") else "\n"
        if head and not head.endswith("\n\n") and head.strip():
            lead += "\n"
        insert = lead + ("## Expected Patch\n\n" if heading else "") + block
        if tail and not tail.startswith("\n"):
            insert += "\n"
        new_text = head + insert + tail
        fence_line = (head + lead + ("## Expected Patch\n\n" if heading else "")).count("\n") + 1

        written = from_markdown(new_text, where)
        same_rest = _without_patches(written) == _without_patches(example)
        if written.expected_patches[: len(example.expected_patches)] != example.expected_patches or not same_rest:
            raise _refuse(where, "adding the expected patch would change the example in another way")
        if written.expected_patches[len(example.expected_patches) :] != (content,):
            read = "".join(written.expected_patches[len(example.expected_patches) :])
            raise _refuse(
                where,
                "the new expected patch would read back differently from the answer "
                f"(from line {_first_difference(read, content)} of its patch on)",
            )
        _replace_file(where, new_text.encode("utf-8"), before)
    if notes is not None:
        notes.extend(_unusual_characters(content, fence_line + 1))
    return fence_line


def _without_patches(example: Example) -> Example:
    return replace(example, expected_patches=())


# ------------------------------------------------------------------ file safety


def _default_lock_dir() -> Path:
    """A per-user directory in the temporary directory, made private (0700).

    Not the pytest cache (a library caller has none, and two rootdirs may share a
    corpus) and not the corpus. On a shared machine another user could create the
    directory first, so it is used only if it is a real directory owned by us.
    """
    user = str(os.getuid()) if hasattr(os, "getuid") else re.sub(r"\W", "_", os.environ.get("USERNAME", "user"))
    folder = Path(tempfile.gettempdir()) / f"pytest-editpred-accept-{user}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise OSError(f"{folder} is not a directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise PermissionError(f"{folder} belongs to another user (uid {info.st_uid})")
    return folder


@contextlib.contextmanager
def _locked(where: Path, lock_dir: str | os.PathLike[str] | None) -> Iterator[None]:
    """Hold the lock of ``where``, keyed by its real path (two spellings of one
    file are one lock); a lock that cannot be made or taken is a refusal."""
    from filelock import FileLock, Timeout

    key = hashlib.sha256(os.path.realpath(where).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    lock_file: Path | None = None
    try:
        folder = Path(lock_dir) if lock_dir is not None else _default_lock_dir()
        folder.mkdir(parents=True, exist_ok=True)
        lock_file = folder / f"{key}.lock"
        lock = FileLock(lock_file, timeout=LOCK_TIMEOUT)
        lock.acquire()
    except Timeout:
        raise _refuse(
            where,
            f"another --editpred-accept held the lock {lock_file} for over {LOCK_TIMEOUT:g} s",
            "If no other run is accepting into this file, delete that lock file and run again.",
        ) from None
    except OSError as error:
        place = lock_file or lock_dir or "the temporary directory"
        raise _refuse(
            where,
            f"cannot take the accept lock ({place}): {describe(error)}",
            remedy(error, "the lock's directory", "set TMPDIR to a writable directory"),
        ) from None
    try:
        yield
    finally:
        lock.release()


def _check_file(where: Path) -> os.stat_result:
    """The file's ``lstat``, if it is a plain, writable, singly linked file."""
    try:
        info = os.lstat(where)
    except OSError as error:
        raise _refuse(where, f"cannot read {where.name}: {describe(error)}", _BY_HAND) from None
    if stat.S_ISLNK(info.st_mode):
        raise _refuse(
            where,
            f"{where.name} is a symlink (to {os.readlink(where)}); accepting would replace the link with a file",
            f"Run with the file it points to ({os.path.realpath(where)}), or add the expected patch by hand.",
        )
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(where, f"{where.name} is not a regular file", _BY_HAND)
    if info.st_nlink > 1:
        raise _refuse(
            where,
            f"{where.name} has {info.st_nlink} hard links; replacing it would leave the other names with the old text",
            f"If this name may change alone, break the link (cp {where.name} {where.name}.new && "
            f"mv {where.name}.new {where.name}); else add the expected patch by hand.",
        )
    if not info.st_mode & 0o222 or not os.access(where, os.W_OK):
        raise _refuse(
            where,
            f"{where.name} is read-only (mode {stat.S_IMODE(info.st_mode):o}); it is not rewritten",
            "Make it writable (chmod u+w) if it may change, or add the expected patch by hand.",
        )
    return info


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) == (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns)


def _read(where: Path, before: os.stat_result) -> bytes:
    """The file's bytes, read without following a symlink swapped in since the check."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(where, flags)
    except OSError as error:
        raise _refuse(where, f"cannot read {where.name}: {describe(error)}", _BY_HAND) from None
    with os.fdopen(fd, "rb") as handle:
        if not _same_file(os.fstat(handle.fileno()), before):
            raise _refuse(where, f"{where.name} changed while it was being accepted", "Run again.")
        return handle.read()


def _leftover(name: str) -> re.Pattern[str]:
    """The names :func:`tempfile.mkstemp` gives our temporary files of ``name``."""
    return re.compile(rf"\.{re.escape(name)}\.[A-Za-z0-9_]{{8}}{re.escape(TEMP_SUFFIX)}")


def _clear_leftovers(where: Path) -> None:
    """Remove what a killed accept into ``where`` left; under the lock none is live."""
    pattern = _leftover(where.name)
    with contextlib.suppress(OSError):
        for entry in os.scandir(where.parent):
            if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


def _write_refusal(where: Path, what: str, error: OSError) -> ConfigError:
    """A write that failed in the example's directory: what, why, and the remedy."""
    return _refuse(
        where,
        f"{what}: {describe(error)}",
        remedy(error, f"the directory {where.parent}", "add the expected patch by hand"),
    )


def _replace_file(where: Path, data: bytes, before: os.stat_result) -> None:
    """Replace ``where`` with ``data`` in one step, keeping its mode and owner.

    The temporary file is removed in ``finally``: after an error, and (as a no-op)
    after the rename took its name.
    """
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{where.name}.", suffix=TEMP_SUFFIX, dir=where.parent)
    except OSError as error:
        raise _write_refusal(where, f"cannot write next to {where.name}", error) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, stat.S_IMODE(before.st_mode))
        if hasattr(os, "chown"):
            with contextlib.suppress(OSError):  # only root may give a file away
                os.chown(temporary, before.st_uid, before.st_gid)
        try:
            now = os.lstat(where)
        except OSError:
            now = None
        if now is None or not _same_file(now, before):
            raise _refuse(where, f"{where.name} changed while it was being accepted", "Run again.")
        os.replace(temporary, where)
    except OSError as error:
        raise _write_refusal(where, f"cannot write {where.name}", error) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
