"""Importing public next-edit data sets as Zed-format examples (``datasets.md``).

None of the sources carries a repository Zed could check out, so every imported
example is drawn on the same blank canvas (§0): the ``octocat/hello-world``
repository at a fixed revision, the files created by the ``## Uncommitted Diff``
(``--- /dev/null``), the user's typing replayed by the ``## Edit History``. The
canvas ships with the package, so the examples run offline with nothing to map.

One bad fixture or row never stops an import: it becomes a :class:`Skipped` with a
one-line reason and fix, and the next one is read. The format modules
(:mod:`._import_copilot`, :mod:`._import_nep`, :mod:`._import_crosscodeeval`,
chosen by :func:`~._import.import_examples`) turn
their source into :class:`Imported` and :class:`Skipped` values; the helpers they
share (diffs, the cursor block, paths, languages, JSONL reading) live here, so every
format writes the same diffs the same way.

Counting, in the summary of ``editpred import``:

* **skipped**: a fixture or row that could not become an example at all (bad JSON,
  missing or mistyped fields, no next edit, an unsafe path...), each reported;
* **dropped**: a piece of a source item that *did* become an example but that the
  example has no place for: Copilot's ``valid``, ``unscored`` and ``null`` scored
  edits (§1: neither right nor wrong), ``nextEdit`` edits that change nothing,
  ``bad`` edits after the first (an example has one Rejected Patch; the others still
  fail the item, since they match no expected patch) or equal to an expected one,
  and CrossCodeEval's retrieved chunks (§3: the markdown has no place for them).
  Dropped pieces are expected losses, not problems: they do not change the exit
  status.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .._exceptions import EditPredError
from .._languages import language_of
from .._limits import DEFAULT_LIMITS
from .._safe_json import loads_bounded
from .._text import change_between, normalize_line_endings, normalized_offset
from .._textdiff import diff_texts
from ..example import Example, format_cursor_excerpt

__all__ = [
    "CANVAS_REVISION",
    "CANVAS_URL",
    "FORMATS",
    "Imported",
    "ImportSourceError",
    "Skipped",
]

CANVAS_URL = "https://github.com/octocat/hello-world"
CANVAS_REVISION = "7fd1a60b01f91b314f59955a4e4d4e80d8edf11d"
#: The only file at the canvas revision: an imported file of that name cannot be created.
CANVAS_FILES = frozenset({"README"})
FORMATS = ("copilot-nes", "nep", "crosscodeeval")
#: A JSONL line or a recording file larger than this is skipped unread: an example
#: file may not exceed it either (``Limits.max_example_bytes``).
MAX_ITEM_BYTES = DEFAULT_LIMITS.max_example_bytes
#: Lines of context around the cursor in the Cursor Position block, doubled until the
#: excerpt occurs once in the file.
CURSOR_CONTEXT = 3

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class ImportSourceError(Exception):
    """The source as a whole cannot be read (missing, not a file/directory of the
    format): a usage error, exit status 2, as opposed to one bad item in it."""

    def __init__(self, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.message, self.fix = message, fix


class ItemError(Exception):
    """One fixture or row cannot become an example: raised inside a format module,
    turned into a :class:`Skipped` by it (with its file and line)."""

    def __init__(self, message: str, fix: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message, self.fix, self.line = message, fix, line


@dataclass(frozen=True)
class Imported:
    """An example made from the item at ``where`` (``line`` for a JSONL row);
    ``dropped`` pieces of the item have no place in it (see the module docstring)."""

    example: Example
    where: str
    line: int | None = None
    dropped: int = 0


@dataclass(frozen=True)
class Skipped:
    """An item that could not become an example: where, why, and what to do."""

    where: str
    line: int | None
    message: str
    fix: str | None = None


Item = Imported | Skipped


# --------------------------------------------------------------------------- reading


def import_rows(source: Path, make: Callable[[object, int], tuple[Example, int]]) -> Iterator[Item]:
    """Every row of a JSONL data set made an example by ``make`` (the example and how
    many of the row's pieces it dropped), or a skip naming the row's line."""
    where = str(source)
    for number, row in json_rows(source):
        try:
            if isinstance(row, ItemError):
                raise row
            example, dropped = make(row, number)
            yield Imported(example, where, number, dropped=dropped)
        except ItemError as error:
            yield Skipped(where, number, error.message, error.fix)


def json_rows(source: Path) -> Iterator[tuple[int, object | ItemError]]:
    """``(1-based line number, decoded value or the line's error)`` for each non-blank
    line of a JSONL file. A line is read with a bound (``MAX_ITEM_BYTES``), decoded as
    strict UTF-8 and parsed with a bound on its nesting, so a huge, binary or
    ``[[[[...`` line is one error and the next line is read."""
    if not source.is_file():
        raise ImportSourceError(f"{source} is not a file", fix="Give the path of a .jsonl file.")
    try:
        handle = open(source, "rb")
    except OSError as error:
        raise ImportSourceError(f"{source} cannot be read: {error.strerror or error}") from None
    with handle:
        number = 0
        while True:
            raw = handle.readline(MAX_ITEM_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_ITEM_BYTES and not raw.endswith(b"\n"):
                while (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
                    pass
                yield (
                    number,
                    ItemError(
                        f"the line is longer than {MAX_ITEM_BYTES} bytes", fix="Split the row or drop it from the file."
                    ),
                )
                continue
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                yield (
                    number,
                    ItemError(f"the line is not UTF-8 (byte {error.start + 1})", fix="Save the file as UTF-8."),
                )
                continue
            if number == 1 and text.startswith("\ufeff"):
                text = text[1:]
            try:
                yield number, loads_bounded(text)
            except ValueError as error:  # JSONDecodeError and JSONDepthError
                yield (
                    number,
                    ItemError(f"the line is not JSON: {_json_reason(error)}", fix="Each line must be one JSON object."),
                )


def read_json_file(path: Path) -> object:
    """A whole JSON file (a Copilot recording), bounded in size and nesting;
    :class:`ItemError` naming the line of a syntax error otherwise."""
    try:
        size = path.stat().st_size
        if size > MAX_ITEM_BYTES:
            raise ItemError(f"the file is {size} bytes, more than {MAX_ITEM_BYTES}", fix="Import a smaller recording.")
        data = path.read_bytes()
    except OSError as error:
        raise ItemError(f"cannot be read: {error.strerror or error}") from None
    try:
        text = codecs.decode(data, "utf-8-sig")
    except UnicodeDecodeError as error:
        raise ItemError(f"the file is not UTF-8 (byte {error.start + 1})", fix="Save it as UTF-8.") from None
    try:
        return loads_bounded(text)
    except ValueError as error:
        line = getattr(error, "lineno", None)
        raise ItemError(f"not JSON: {_json_reason(error)}", fix="Repair or re-export the file.", line=line) from None


def _json_reason(error: ValueError) -> str:
    message = getattr(error, "msg", None) or str(error)
    column = getattr(error, "colno", None)
    return f"{message} (column {column})" if column is not None else str(message)


def field(row: dict[str, object], key: str, kind: type, where: str = "") -> object:
    """``row[key]``, which must be a ``kind`` (bool is no int): :class:`ItemError` naming
    the field otherwise."""
    name = f"{where}{key}"
    if key not in row:
        raise ItemError(f"missing field '{name}'", fix=f"Every row needs '{name}'.")
    value = row[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ItemError(
            f"field '{name}' must be {_KIND_NAMES.get(kind, kind.__name__)}, not {json_type(value)}",
            fix=f"Correct '{name}'.",
        )
    return value


_KIND_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "a list"}


def json_type(value: object) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


# --------------------------------------------------------------------------- writing


def check_path(path: str, what: str = "path") -> str:
    """A repository-relative path the scene will accept (``scene.split_path``'s rule),
    normalised (``./``, doubled ``/``), and not the canvas's own ``README``."""
    from ..scene import split_path

    try:
        parts = split_path(path)
    except EditPredError as error:
        raise ItemError(f"{what}: {error.reason}", fix="Only paths inside the repository can be imported.") from None
    normal = "/".join(parts)
    if normal in CANVAS_FILES:
        raise ItemError(
            f"{what} {normal!r} is a file of the canvas repository already", fix="Rename the file in the source."
        )
    return normal


def language(path: str) -> str | None:
    """The tag of a path's language (the one table of languages), None when unknown.

    A ``.h`` header is ``c`` here, though Zed reads it as C++: the tag names the
    header's own language, which only its neighbours tell (the Copilot import makes it
    ``cpp`` among C++ files)."""
    if PurePosixPath(path).suffix.lower() == ".h":
        return "c"
    found = language_of(path)
    return found.tag if found is not None else None


def creation_diff(path: str, text: str) -> str:
    """The Uncommitted Diff section creating ``path`` with ``text``, byte for byte."""
    if not text:
        raise ItemError(
            f"{path} is empty, and an empty file cannot be created by a diff",
            fix="Drop the item or give the file some text.",
        )
    # Every line added: written directly, as difflib would (a third of the import's time
    # went to aligning nothing against the text).
    lines = text.split("\n")
    last = lines.pop()
    body = "".join(f"+{line}\n" for line in lines)
    if last:
        body += f"+{last}\n\\ No newline at end of file\n"
    count = len(lines) + (1 if last else 0)
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1{'' if count == 1 else f',{count}'} @@\n{body}"


def edit_diff(path: str, before: str, after: str) -> str:
    """A unified diff of ``path`` from ``before`` to ``after`` ("" when equal)."""
    return diff_texts(before, after, f"a/{path}", f"b/{path}").text


def cursor_block(path: str, text: str, offset: int) -> str:
    """The Cursor Position block: a few lines around ``offset`` with the marker line,
    grown until the excerpt occurs exactly once in ``text`` (the scene finds the
    cursor by a unique match). It is matched in a buffer, so it is cut from the text
    as a buffer holds it (``\\n`` line endings): its rows, and the marker's column,
    are the buffer's."""
    text, offset = normalize_line_endings(text), normalized_offset(text, offset)
    row_start = text.rfind("\n", 0, offset) + 1
    row_end = text.find("\n", offset)
    row_end = len(text) if row_end < 0 else row_end
    radius = CURSOR_CONTEXT
    while True:
        start = row_start
        for _ in range(radius):
            if start == 0:
                break
            start = text.rfind("\n", 0, start - 1) + 1
        end = row_end
        for _ in range(radius):
            if end >= len(text):
                break
            newline = text.find("\n", end + 1)
            end = len(text) if newline < 0 else newline
        excerpt = text[start:end]
        seen = excerpt.rstrip("\n")  # what the reader keeps of it
        whole = start == 0 and end == len(text)
        if whole or (text.find(seen) == start and text.find(seen, start + max(len(seen), 1)) < 0):
            break
        radius *= 2
    # Past the excerpt's last newline (the empty last row) there is no column the
    # reader keeps: the cursor goes to the end of its line's text there.
    at = min(offset - start, len(seen))
    found = language_of(path)
    prefix = found.comment if found is not None else "//"
    return format_cursor_excerpt(excerpt, at, prefix)


def history_cursor(before: str, after: str) -> int:
    """The end of the last line the change ``before`` → ``after`` touched, in ``after``
    (NEP's cursor, §2)."""
    change = change_between(before, after)
    last = change.after_end - 1 if change.after_end > change.start else change.start
    end = after.find("\n", min(last, len(after)))
    return len(after) if end < 0 else end


def canvas_example(
    name: str,
    tags: tuple[str, ...],
    files: list[tuple[str, str]],
    history: list[str],
    cursor: tuple[str, str, int],
    expected: list[str],
    rejected: str | None = None,
) -> Example:
    """An example on the canvas: ``files`` created, ``history`` typed, the cursor at
    ``(path, text, offset)``. Texts that cannot be written as UTF-8 (a lone UTF-16
    surrogate from JSON) are refused here, before anything is written."""
    path, text, offset = cursor
    example = Example(
        name=name,
        repository_url=CANVAS_URL,
        revision=CANVAS_REVISION,
        cursor_path=path,
        cursor_position=cursor_block(path, text, offset),
        edit_history="".join(history),
        expected_patches=tuple(expected),
        rejected_patch=rejected,
        tags=tags,
        uncommitted_diff="".join(creation_diff(p, t) for p, t in files),
    )
    for value in (example.uncommitted_diff, example.edit_history, example.cursor_position, *expected):
        if _LONE_SURROGATE.search(value):
            raise ItemError(
                "the text holds a lone UTF-16 surrogate, which is no character", fix="Repair the text in the source."
            )
    return example
