"""The tolerant unified-diff engine, with Zed's semantics (zed-format.md §2).

Zed's examples carry diffs a strict tool rejects: ``@@`` counts that do not match the
body, bogus headers, stray lines, no headers at all. Zed reads them like this, and so
do we:

* every line is classified on its own (:func:`classify`); a line that is not diff
  syntax is *garbage* and ends the current file section;
* a hunk is its **context** (context and ``-`` lines) plus edits inside it; it is
  placed by searching that text, not by the header. The header's line number only
  breaks ties between several matches, and the counts are never read;
* the edit history applies file section by file section, every hunk of a section
  located in the text as it was before the section (:func:`apply_sections`);
* patches apply hunk by hunk, each in the text the previous hunks left
  (:func:`apply_hunks`);
* the text a hunk matches and inserts is what a buffer holds: lines are split as
  Rust's ``lines()`` splits them (one ``\\r`` before a ``\\n`` dropped), and a lone
  ``\\r`` left inside a line's content is a ``\\n``
  (:func:`~pytest_editpred._text.normalize_line_endings`), so a diff written from
  a CRLF file applies to its buffer, and one line's ``\\r`` never makes the rest of
  that line a garbage line of the diff.

Placing a hunk means searching the whole text for its context (every match counts, to
tell a unique context from a repeated one), so a patch costs its hunk count times the
text's length. That product is bounded by :data:`MAX_PLACING_CHARS`: a patch of
100,000 hunks on a 3 MB file would search 300 G characters (minutes), and is refused
at once instead (:class:`PlacingBudget`), with a :class:`DiffError` that says so (an ERROR for an example's
diff, a FAILED for a predicted patch). Everything else here is linear in the diff.

Offsets are character offsets into ``str``; matching a string inside a string gives
the same places as Zed's byte search, so only columns need converting, elsewhere.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from itertools import chain, islice
from typing import NamedTuple

from ._exceptions import (
    ContextNotFoundError,
    ContextNotUniqueError,
    DiffError,
    DiffParseError,
    NoSuchPathError,
)

__all__ = [
    "Kind",
    "DiffLine",
    "Edit",
    "Hunk",
    "FileSection",
    "classify",
    "parse_diff",
    "apply_hunks",
    "apply_sections",
    "apply_to_string",
    "reverse_diff",
    "undo_diff",
    "path_candidates",
    "quote_path",
    "resolve_path",
    "named_paths",
    "MAX_PLACING_CHARS",
    "PlacingBudget",
]

DEV_NULL = "/dev/null"

MAX_PLACING_CHARS = 2_000_000_000
"""Characters a diff's hunks may search in all, hunks times text length (about two
seconds): real patches are a few hunks on files under 1 MB (10 M characters); Zed's
rule of searching the whole text for each hunk makes more than this quadratic."""
_HEADER = re.compile(r"-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?(?:\s|@|$)")


class Kind(Enum):
    NO_NEWLINE = "no-newline"
    OLD_PATH = "old-path"
    NEW_PATH = "new-path"
    HUNK_HEADER = "hunk-header"
    DELETION = "deletion"
    CONTEXT = "context"
    ADDITION = "addition"
    GARBAGE = "garbage"


class DiffLine(NamedTuple):
    kind: Kind
    text: str = ""  # content without the prefix, or the path for path lines
    start_line: int | None = None  # 0-based old start line of a hunk header


#: Rust's ``is_ascii_whitespace``: what ends an unquoted header path.
_ASCII_WHITESPACE = frozenset(" \t\n\r\x0c")
_ASCII_WHITESPACE_RE = re.compile("[ \t\n\r\x0c]")


def _header_token(rest: str) -> tuple[str, int, int]:
    """Zed's ``parse_header_path`` without the prefix: ``(path, start, end)``.

    ``rest`` is what follows ``---``/``+++``; the path token is ``rest[start:end]``.
    It runs up to the first ASCII whitespace outside double quotes. A quoted part,
    also in the middle of the token (``a/foo/"baz quox.txt"``), may hold whitespace;
    the quotes are dropped. A backslash, quoted or not, takes the next character
    literally: ``\\"`` is ``"`` and ``\\\\`` is ``\\`` (and ``\\t`` is ``t``, as in Zed).
    An unclosed quote runs to the end of the line.
    """
    start = len(rest) - len(rest.lstrip())
    if '"' not in rest and "\\" not in rest:  # the usual header: the token is a slice
        found = _ASCII_WHITESPACE_RE.search(rest, start)
        end = found.start() if found is not None else len(rest)
        return rest[start:end], start, end
    out: list[str] = []
    in_quote = False
    index = start
    while index < len(rest):
        char = rest[index]
        if char == '"':
            in_quote = not in_quote
        elif char == "\\":
            if index + 1 == len(rest):
                index += 1
                break
            index += 1
            out.append(rest[index])
        elif char in _ASCII_WHITESPACE and not in_quote:
            break
        else:
            out.append(char)
        index += 1
    return "".join(out), start, index


def _parse_path(rest: str, prefix: str) -> str:
    """The path of a ``---``/``+++`` line (``rest`` follows the marker), with
    ``prefix`` stripped once if it starts the path: ``a/`` on an old-path line,
    ``b/`` on a new-path line, never the other one (see :func:`_header_token`)."""
    path = _header_token(rest)[0]
    return path[len(prefix) :] if path.startswith(prefix) else path


def quote_path(path: str) -> str:
    """A header path token that :func:`_header_token` (and Zed) reads back as ``path``:
    the path as it is, or in double quotes with ``\\`` and ``"`` escaped when it holds
    whitespace, a quote or a backslash. Give the whole token, prefix included
    (``quote_path("a/" + path)``): a quote after the prefix would be read as part of
    the name."""
    if not any(char in _ASCII_WHITESPACE or char in '"\\' for char in path):
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _swap_header(line: str, prefix: str, marker: str, new_prefix: str) -> str:
    """A ``---``/``+++`` line turned into the other kind for the same path.

    ``marker`` and ``new_prefix`` are the other kind's (``+++`` and ``b/`` for a
    ``---`` line, read with ``prefix`` ``a/``). The path is written with
    ``new_prefix`` (except ``/dev/null``), quoted if need be, so the new line reads
    back as the same path; what follows the path (a timestamp) is kept.
    """
    rest = line[3:]
    raw, start, end = _header_token(rest)
    path = raw[len(prefix) :] if raw.startswith(prefix) else raw
    token = path if path == DEV_NULL else quote_path(new_prefix + path)
    return marker + rest[:start] + token + rest[end:]


def classify(line: str) -> DiffLine:
    """Zed's ``DiffLine::parse``: the order of the tests matters (see §2.1)."""
    first = line[:1]
    if first == "-":
        if line.startswith("---") and line[3:4].isspace():
            return DiffLine(Kind.OLD_PATH, _parse_path(line[3:], "a/"))
        return DiffLine(Kind.DELETION, line[1:])
    if first == "+":
        if line.startswith("+++") and line[3:4].isspace():
            return DiffLine(Kind.NEW_PATH, _parse_path(line[3:], "b/"))
        return DiffLine(Kind.ADDITION, line[1:])
    if first == " ":
        return DiffLine(Kind.CONTEXT, line[1:])
    if first == "":
        return DiffLine(Kind.CONTEXT, "")
    if first == "\\" and line.startswith("\\ No newline"):
        return DiffLine(Kind.NO_NEWLINE)
    if first == "@" and line.startswith("@@") and line[2:3].isspace():
        rest = line[2:].lstrip()
        if rest.startswith("-"):
            match = _HEADER.match(rest)
            if match is None:
                return DiffLine(Kind.GARBAGE, line)
            return DiffLine(Kind.HUNK_HEADER, start_line=max(int(match.group(1)) - 1, 0))
        return DiffLine(Kind.HUNK_HEADER)
    return DiffLine(Kind.GARBAGE, line)


def split_lines(text: str) -> list[str]:
    """Rust's ``str::lines``: split at ``\\n``, drop one final empty piece and ``\\r``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" not in text:
        return lines
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@dataclass
class Edit:
    """Replace ``context[start:end]`` with ``text``."""

    start: int
    end: int
    text: str


@dataclass
class Hunk:
    """One hunk: the old text it expects (``context``) and the edits within it.

    ``line`` is the 1-based line of the diff where the hunk starts (for errors);
    ``new_offsets`` maps a diff line (0-based) of a context or ``+`` line to its
    offset in the hunk's new text, which is how expected cursors are placed.
    """

    context: str = ""
    edits: list[Edit] = field(default_factory=list)
    start_line: int | None = None
    line: int = 0
    new_offsets: dict[int, int] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not self.context and not self.edits

    def new_text(self) -> str:
        return _splice(self.context, [(e.start, e.end, e.text) for e in self.edits])


@dataclass
class FileSection:
    """A ``--- a/x`` section with its hunks, as the edit history applies it."""

    old_path: str
    new_path: str
    hunks: list[Hunk] = field(default_factory=list)
    line: int = 1
    predicted: bool = False  # preceded by Zed's accepted-prediction marker

    @property
    def created(self) -> bool:
        return self.old_path == DEV_NULL

    @property
    def deleted(self) -> bool:
        return self.new_path == DEV_NULL

    @property
    def path(self) -> str:
        return self.new_path if self.created else self.old_path

    @property
    def renamed_to(self) -> str | None:
        if self.created or self.deleted or self.new_path == self.old_path:
            return None
        return self.new_path


class _Parser:
    """Zed's ``DiffParser``: hunks end at a header, a path line, garbage or the end."""

    def __init__(self, marker: str | None) -> None:
        self.marker = marker
        self.sections: list[FileSection] = []
        self.orphan: int | None = None  # first +/- line outside any file section
        self.section: FileSection | None = None
        self.hunk = Hunk()
        # The hunk's context and each edit's text, as pieces joined once when the hunk
        # ends: growing a string line by line would copy it for every line.
        self.context: list[str] = []
        self.length = 0  # len("".join(self.context))
        self.edit_texts: list[list[str]] = []  # parallel to self.hunk.edits
        self.last: Kind | None = None
        self.no_newline_done = False
        self.new_len = 0
        self.pending_start: int | None = None
        self.predicted = False
        self.last_cr = False  # the last content line ended with a dropped "\r"

    def _emit_hunk(self) -> None:
        hunk = self.hunk
        hunk.context = "".join(self.context)
        for edit, pieces in zip(hunk.edits, self.edit_texts):
            edit.text = "".join(pieces)
        if not hunk.is_empty():
            hunk.start_line = self.pending_start
            self.pending_start = None
            assert self.section is not None
            self.section.hunks.append(hunk)
        self.hunk = Hunk()
        self.context = []
        self.length = 0
        self.edit_texts = []
        self.last = None
        self.no_newline_done = False
        self.new_len = 0

    def _close_file(self) -> None:
        self._emit_hunk()
        self.section = None

    def feed(self, index: int, line: str, cr: bool = False) -> None:
        """One line of the diff; ``cr``: a ``\\r`` before its ``\\n`` was dropped."""
        parsed = classify(line)
        kind = parsed.kind
        if kind is Kind.OLD_PATH:
            self._close_file()
            self.section = FileSection(parsed.text, parsed.text, line=index + 1, predicted=self.predicted)
            self.predicted = False
            self.sections.append(self.section)
        elif kind is Kind.NEW_PATH:
            if self.section is not None:
                self.section.new_path = parsed.text
        elif kind is Kind.HUNK_HEADER:
            self._emit_hunk()
            self.pending_start = parsed.start_line
            self.hunk.line = index + 1
        elif kind is Kind.GARBAGE:
            self._close_file()
            if self.marker is not None and line.strip() == self.marker:
                self.predicted = True
        elif kind is Kind.NO_NEWLINE:
            self._no_newline(cr)
        elif self.section is not None:
            self._content(index, kind, parsed.text)
            self.last_cr = cr
        elif kind is not Kind.CONTEXT and self.orphan is None:
            self.orphan = index + 1

    def _content(self, index: int, kind: Kind, text: str) -> None:
        if "\r" in text:  # a lone one: the line's ``\r\n`` was split already
            text = text.replace("\r", "\n")
        hunk = self.hunk
        if not hunk.line:
            hunk.line = index + 1
        here = self.length
        last_edit = hunk.edits[-1] if hunk.edits else None
        if kind is Kind.CONTEXT:
            self.context.append(text + "\n")
            self.length += len(text) + 1
            hunk.new_offsets[index] = self.new_len
            self.new_len += len(text) + 1
        elif kind is Kind.DELETION:
            self.context.append(text + "\n")
            self.length += len(text) + 1
            if last_edit is not None and last_edit.end == here:
                last_edit.end = self.length
            else:
                hunk.edits.append(Edit(here, self.length, ""))
                self.edit_texts.append([])
        else:  # addition
            hunk.new_offsets[index] = self.new_len
            self.new_len += len(text) + 1
            if last_edit is not None and last_edit.end == here:
                self.edit_texts[-1].append(text + "\n")
            else:
                hunk.edits.append(Edit(here, here, ""))
                self.edit_texts.append([text + "\n"])
        self.last = kind

    def _no_newline(self, cr: bool = False) -> None:
        if self.no_newline_done or self.last is None:
            return
        if self.last_cr and not cr:
            # The line before ends with "\r" where this diff's lines end with "\n":
            # the file ends with that "\r", a lone one, which a buffer holds as "\n".
            self.no_newline_done = True
            return
        self.no_newline_done = True
        hunk = self.hunk
        context = self.context
        if self.last is Kind.ADDITION:
            pieces = self.edit_texts[-1] if self.edit_texts else []
            if pieces and pieces[-1].endswith("\n"):
                pieces[-1] = pieces[-1][:-1]
        elif self.last is Kind.DELETION and context and context[-1].endswith("\n"):
            context[-1] = context[-1][:-1]
            self.length -= 1
            if hunk.edits:
                hunk.edits[-1].end -= 1
        elif self.last is Kind.CONTEXT and context and context[-1].endswith("\n"):
            context[-1] = context[-1][:-1]
            self.length -= 1

    def finish(self) -> None:
        self._close_file()


def parse_diff(text: str, *, marker: str | None = None) -> list[FileSection]:
    """Parse a tolerant diff into its file sections.

    Like Zed, ``+``/``-`` lines outside a file section are ignored, but a diff made
    only of such lines is refused: it would silently do nothing. ``marker`` is a
    garbage line (Zed's accepted-prediction marker) that flags the next file section
    as ``predicted``.
    """
    parser = _Parser(marker)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for index, line in enumerate(lines):
        cr = line.endswith("\r")
        parser.feed(index, line[:-1] if cr else line, cr)
    parser.finish()
    if not parser.sections and parser.orphan is not None:
        raise DiffParseError(
            "the diff has '+'/'-' lines but no '--- a/<path>' and '+++ b/<path>' header, so it would change nothing",
            fix="Start the diff with '--- a/<path>' and '+++ b/<path>' lines.",
            line=parser.orphan,
        )
    return parser.sections


def named_paths(text: str) -> Iterator[tuple[int, str]]:
    """``(1-based line, path)`` of every path a diff's ``---``/``+++`` lines name
    (``/dev/null`` aside), as :func:`parse_diff` reads them, for the path rule
    (:func:`pytest_editpred.scene._urls.split_path`). Only header lines are classified,
    so this costs one split of the text."""
    for index, line in enumerate(split_lines(text)):
        if line.startswith(("---", "+++")):
            parsed = classify(line)
            if parsed.kind in (Kind.OLD_PATH, Kind.NEW_PATH) and parsed.text != DEV_NULL:
                yield index + 1, parsed.text


class PlacingBudget:
    """What placing a diff's hunks may cost: :data:`MAX_PLACING_CHARS` characters
    searched, counted over every file section of one diff (so 100,000 one-hunk
    sections on one file cost as much as one section of 100,000 hunks).

    Each charge is an upper bound, taken before the work: the hunks times the text
    plus what the hunks add to it. One hunk is always placed, whatever the size of
    the file: a single search is linear.
    """

    def __init__(self, limit: int = MAX_PLACING_CHARS) -> None:
        self.limit = limit
        self.spent = 0
        self.hunks = 0

    def charge(self, hunks: list[Hunk], text: str, line: int) -> None:
        count = max(len(hunks), 1)  # a section without hunks still rebuilds the text
        added = sum(len(edit.text) for hunk in hunks for edit in hunk.edits)
        self.spent += count * (len(text) + added)
        self.hunks += count
        if self.spent > self.limit and self.hunks > 1:
            raise DiffError(
                f"the diff places {self.hunks:,} hunks in files of up to {len(text) + added:,} characters: "
                f"each hunk is placed by searching its whole file (Zed's rule), {self.spent:,} characters "
                f"in all, more than the limit of {self.limit:,}",
                fix="Use fewer, larger hunks (or split the example into several examples).",
                line=line,
            )


# --------------------------------------------------------------------------- placing


class _Rows:
    """Rows of one text, counted from the last place asked about.

    Going from one place to another costs the distance between them, not the
    offset from the start of the text: the candidates of a hunk and the hunks of a
    patch mostly go down the text. Whole chunks are skipped by counting their
    newlines (in C); only the last few lines are walked one by one.
    """

    CHUNK = 4096

    def __init__(self, text: str, at: int = 0, row: int = 0) -> None:
        self.text = text
        self.at = at  # an offset whose 0-based row is known ...
        self.row = row  # ... and that row

    def row_of(self, offset: int) -> int:
        """The 0-based row of ``offset``: the number of ``\\n`` before it."""
        if offset >= self.at:
            self.row += self.text.count("\n", self.at, offset)
        else:
            self.row -= self.text.count("\n", offset, self.at)
        self.at = offset
        return self.row

    def row_start(self, row: int) -> int | None:
        """The offset where 0-based ``row`` starts, or None when the text has fewer
        rows (a text ending in ``\\n`` has an empty last row that starts at its end)."""
        text, at, current, chunk = self.text, self.at, self.row, self.CHUNK
        while current < row:  # skip down whole chunks that end before the row
            end = min(at + chunk, len(text))
            newlines = text.count("\n", at, end)
            if current + newlines > row:
                break
            if end == len(text) and current + newlines < row:
                return None
            at, current = end, current + newlines
            if end == len(text):
                break
        while current > row:  # skip up whole chunks that start inside the row or below it
            begin = max(at - chunk, 0)
            newlines = text.count("\n", begin, at)
            if current - newlines < row:
                break
            at, current = begin, current - newlines
        start = text.rfind("\n", 0, at) + 1  # the start of ``current``'s row
        while current < row:
            newline = text.find("\n", start)
            if newline == -1:
                return None
            start, current = newline + 1, current + 1
        while current > row:
            start, current = text.rfind("\n", 0, start - 1) + 1, current - 1
        self.at, self.row = start, row
        return start


def _occurrences(text: str, needle: str, start: int = 0) -> Iterator[int]:
    """Every offset of ``needle`` in ``text`` from ``start``, left to right and
    non-overlapping (Rust's ``match_indices``), found one at a time so a caller can
    stop early."""
    at = text.find(needle, start)
    while at != -1:
        yield at
        at = text.find(needle, at + len(needle))


def _first_two_now(text: str, needle: str) -> tuple[int | None, int | None]:
    """The first two offsets of :func:`_occurrences` (None where there are fewer)."""
    found = islice(_occurrences(text, needle), 2)
    return next(found, None), next(found, None)


# The last searches of a needle in a text a patch starts from, by the text's
# identity: every expected patch of an example is placed in the same buffer, mostly
# by the same context, and each search reads the whole file. An entry holds its
# text, so the identity cannot be reused while it is remembered: at most
# _SEARCHED_SIZE texts of up to _SEARCHED_CHARS characters are kept alive (the
# scene's buffers, mostly, alive anyway). Prefetch threads place patches at once.
_SEARCHED: dict[tuple[int, str], tuple[str, int | None, int | None]] = {}
_SEARCHED_SIZE = 8
_SEARCHED_CHARS = 4_000_000
_SEARCHED_LOCK = threading.Lock()


def _first_two(text: str, needle: str) -> tuple[int | None, int | None]:
    """:func:`_first_two_now`, remembered for the last few (text, needle) pairs."""
    if len(text) > _SEARCHED_CHARS:
        return _first_two_now(text, needle)
    key = (id(text), needle)
    with _SEARCHED_LOCK:
        hit = _SEARCHED.get(key)
    if hit is not None and hit[0] is text:
        return hit[1], hit[2]
    first, second = _first_two_now(text, needle)
    with _SEARCHED_LOCK:
        while len(_SEARCHED) >= _SEARCHED_SIZE:
            del _SEARCHED[next(iter(_SEARCHED))]
        _SEARCHED[key] = (text, first, second)
    return first, second


def _trim_phantom_newline(hunk: Hunk) -> Hunk:
    """The context without its last ``\\n`` (a missing ``\\ No newline`` line)."""
    length = len(hunk.context) - 1
    edits: list[Edit] = []
    for edit in hunk.edits:
        text = edit.text
        if edit.end > length and text.endswith("\n"):
            text = text[:-1]
        edits.append(Edit(min(edit.start, length), min(edit.end, length), text))
    return Hunk(hunk.context[:-1], edits, hunk.start_line, hunk.line, hunk.new_offsets)


def locate(text: str, hunk: Hunk, *, empty_context: str = "start") -> tuple[int, Hunk]:
    """Where ``hunk`` applies in ``text``: ``(offset, hunk)``, or a DiffError.

    The hunk comes back changed when it only matched without its final newline.
    ``empty_context`` says what a hunk with no context does: ``"start"`` (edit
    history: offset 0) or ``"row"`` (patches: the start of the header's row).
    """
    return _locate(text, hunk, empty_context, _Rows(text))


def _locate(text: str, hunk: Hunk, empty_context: str, rows: _Rows, remember: bool = False) -> tuple[int, Hunk]:
    """:func:`locate`, with the row counter of ``text`` shared by the caller's hunks;
    ``remember``: ``text`` is a buffer many patches start from (:func:`_first_two`)."""
    if not hunk.context:
        if empty_context == "start":
            return 0, hunk
        if hunk.start_line is None:
            raise ContextNotFoundError(
                "a hunk with neither context nor '-' lines needs a '@@ -N' header to be placed",
                line=hunk.line,
            )
        start = rows.row_start(hunk.start_line)
        if start is not None:
            return start, hunk
        line_count = text.count("\n") + 1
        if hunk.start_line == line_count and text.endswith("\n"):
            return len(text), hunk
        raise ContextNotFoundError(
            f"the header places the hunk at line {hunk.start_line + 1}, but the file has {line_count} lines",
            line=hunk.line,
        )
    first, second = _first_two(text, hunk.context) if remember else _first_two_now(text, hunk.context)
    if first is None:
        if hunk.context.endswith("\n"):
            trimmed = _trim_phantom_newline(hunk)
            if text.endswith(trimmed.context):
                return len(text) - len(trimmed.context), trimmed
        raise ContextNotFoundError("hunk context not found:\n" + _quote(hunk.context), line=hunk.line)
    if second is None:
        return first, hunk
    start = None if hunk.start_line is None else rows.row_start(hunk.start_line)
    if start is not None:
        # The first candidate on the header's row, which runs from ``start`` to its
        # newline. Candidates come in text order: stop at the first one past it.
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        found = _occurrences(text, hunk.context, second + len(hunk.context))
        for candidate in chain((first, second), found):
            if candidate > end:
                break
            if candidate >= start:
                return candidate, hunk
    candidates = list(_occurrences(text, hunk.context))
    shown = ", ".join(str(rows.row_of(c) + 1) for c in candidates[:10])
    raise ContextNotUniqueError(
        f"hunk context is not unique: it occurs {len(candidates)} times (at lines {shown})"
        + ("" if hunk.start_line is None else f" and none starts at the header's line {hunk.start_line + 1}")
        + ":\n"
        + _quote(hunk.context),
        line=hunk.line,
    )


def _quote(text: str, limit: int = 12) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    shown = lines[:limit] + ([f"... ({len(lines) - limit} more lines)"] if len(lines) > limit else [])
    return "\n".join("    | " + line for line in shown)


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping ``(start, end, replacement)`` edits to ``text``."""
    out: list[str] = []
    at = 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        out.append(text[at:start])
        out.append(replacement)
        at = end
    out.append(text[at:])
    return "".join(out)


def _shift(positions: list[int], start: int, end: int, replacement: str) -> None:
    """Move tracked offsets across one edit (a position inside moves to its end)."""
    delta = len(replacement) - (end - start)
    for i, pos in enumerate(positions):
        if pos >= end and not (pos == end == start):
            positions[i] = pos + delta
        elif start < pos < end:
            positions[i] = start + len(replacement)


def apply_hunks(
    text: str,
    hunks: list[Hunk],
    *,
    track: list[int] | None = None,
    on_applied: Callable[[int, int, str], None] | None = None,
    budget: PlacingBudget | None = None,
    shared: bool = False,
    kept: list[int] | None = None,
) -> str:
    """Apply hunks one after the other, each located in the text the last one left.

    This is Zed's ``apply_diff_to_string``. ``track`` holds offsets to move along
    with the edits; ``on_applied(index, offset, text)`` is told where each hunk went.
    ``budget`` is shared by the file sections of one patch (:class:`PlacingBudget`).
    ``shared``: ``text`` is a buffer that other patches are placed in too (the first
    hunk's search is remembered, :func:`_first_two`). ``kept`` is ``[head, tail]``:
    both are lowered to the lengths of the start and the end of ``text`` that no
    edit touched, so the result agrees with ``text`` on them.

    Each hunk costs one search of the whole text (every match counts, to tell a
    unique context from a repeated one) and one rebuild of it; rows are counted
    only where a header is needed to place a hunk, from the last place counted.
    """
    positions = track if track is not None else []
    rows = _Rows(text)
    if hunks:
        (budget or PlacingBudget()).charge(hunks, text, hunks[0].line)
    for index, hunk in enumerate(hunks):
        offset, hunk = _locate(text, hunk, "row", rows, remember=shared and index == 0)
        for edit in sorted(hunk.edits, key=lambda e: e.start, reverse=True):
            _shift(positions, offset + edit.start, offset + edit.end, edit.text)
        # Every edit is at or after ``offset``, so the text before it, and its rows,
        # stay as they are: the next hunk counts rows from a place known there.
        if rows.at > offset:
            rows.row_of(offset)
        if kept is not None and hunk.edits:
            kept[0] = min(kept[0], offset + min(e.start for e in hunk.edits))
            kept[1] = min(kept[1], len(text) - offset - max(e.end for e in hunk.edits))
        text = _splice(text, [(offset + e.start, offset + e.end, e.text) for e in hunk.edits])
        rows = _Rows(text, rows.at, rows.row)
        if on_applied is not None:
            on_applied(index, offset, text)
    return text


def apply_to_string(diff: str, text: str) -> str:
    """Zed's ``apply_diff_to_string``: every hunk of ``diff``, paths ignored."""
    return apply_hunks(text, [h for s in parse_diff(diff) for h in s.hunks])


def path_candidates(path: str) -> list[str]:
    """The paths a diff path may stand for: itself, then without its first component.

    Old examples prefix paths with the repository name (``tree-sitter/crates/...``).
    """
    _, sep, rest = path.partition("/")
    return [path, rest] if sep and rest else [path]


#: Resolves a diff path to ``(canonical path, text)``, or ``None`` when no such file.
OpenFile = Callable[[str], "tuple[str, str] | None"]


def resolve_path(path: str, buffers: Mapping[str, str], open_file: OpenFile | None) -> tuple[str, str | None]:
    """``(canonical path, text read now)`` of a diff path; the text is None when the
    file is open already (its text is ``buffers[canonical]``).

    Each candidate of :func:`path_candidates` is looked for as an open buffer, then
    in the tree, before the next candidate is tried: ``npm/README.md`` is that file,
    even when ``README.md`` is open (a commit that edits both is common). Raises
    :class:`NoSuchPathError` when no candidate exists.
    """
    for candidate in path_candidates(path):
        if candidate in buffers:
            return candidate, None
        opened = open_file(candidate) if open_file is not None else None
        if opened is not None:
            return opened
    raise NoSuchPathError(f"no such path: {path}")


@dataclass(frozen=True)
class AppliedSection:
    """What one file section did: the path, the text before and after, the flag."""

    path: str
    old_path: str
    before: str | None  # None: the file was created
    after: str | None  # None: the file was deleted
    predicted: bool
    line: int


def apply_sections(
    diff: str,
    buffers: dict[str, str],
    open_file: OpenFile,
    *,
    marker: str | None = None,
    budget: PlacingBudget | None = None,
) -> Iterator[AppliedSection]:
    """Apply the edit history to ``buffers`` (changed in place), section by section.

    ``open_file(path)`` resolves a diff path to ``(canonical path, text)`` or None;
    it is asked only for paths not open yet. Within a section every hunk is placed in
    the text from before the section; each section sees the ones before it.
    ``budget`` bounds the search over all sections (:class:`PlacingBudget`); give
    one to share it across several diffs.
    """
    budget = budget if budget is not None else PlacingBudget()
    for section in parse_diff(diff, marker=marker):
        if section.created:
            path, before = section.path, None
            text = ""
        else:
            path = _resolve_open(section.old_path, buffers, open_file, section.line)
            before = text = buffers[path]
        if section.deleted:
            buffers.pop(path, None)
            yield AppliedSection(path, path, before, None, section.predicted, section.line)
            continue
        edits: list[tuple[int, int, str]] = []
        rows = _Rows(text)
        budget.charge(section.hunks, text, section.line)
        for hunk in section.hunks:
            offset, hunk = _locate(text, hunk, "start", rows)
            edits.extend((offset + e.start, offset + e.end, e.text) for e in hunk.edits)
        edits.sort(key=lambda e: (e[0], e[1]))
        for (_, e1, _), (s2, _, _) in zip(edits, edits[1:]):
            if s2 < e1:
                raise DiffError("two hunks of one file section change the same text", line=section.line)
        after = _splice(text, edits)
        new_path = path
        if section.renamed_to is not None:
            buffers.pop(path, None)
            new_path = section.renamed_to
        buffers[new_path] = after
        yield AppliedSection(new_path, path, before, after, section.predicted, section.line)


def _resolve_open(
    path: str,
    buffers: dict[str, str],
    open_file: OpenFile,
    line: int,
) -> str:
    try:
        canonical, text = resolve_path(path, buffers, open_file)
    except NoSuchPathError as error:
        raise error.locate(None, line) from None
    if text is not None:
        buffers.setdefault(canonical, text)
    return canonical


def reverse_diff(diff: str) -> str:
    """Zed's ``reverse_diff``: each ``-`` line made ``+`` and each ``+`` line
    ``-``, and each header line swapped in place as text, ``--- a/file.rs``
    becoming ``+++ a/file.rs`` and ``+++ b/file.rs`` becoming ``--- b/file.rs``
    (so the reversed section starts with its ``+++`` line). Lines are read as
    :func:`classify` reads them; the others are kept as they are.

    Lines are joined with ``\\n``; the result ends with one exactly when ``diff``
    does (a ``\\r`` before a ``\\n`` is dropped, as :func:`split_lines` does).

    Its headers do not read back as the undone paths: a section starts at its
    ``---`` line, which now names the undone diff's *new* path (with its ``b/``),
    and the ``+++`` line before it belongs to no section. A rename, a creation or a
    deletion would not undo, so what is to be applied goes through
    :func:`undo_diff` instead.
    """
    out: list[str] = []
    for line in split_lines(diff):
        kind = classify(line).kind
        if kind is Kind.OLD_PATH:
            out.append("+++" + line[3:])
        elif kind is Kind.NEW_PATH:
            out.append("---" + line[3:])
        elif kind is Kind.DELETION:
            out.append("+" + line[1:])
        elif kind is Kind.ADDITION:
            out.append("-" + line[1:])
        else:
            out.append(line)
    return "\n".join(out) + ("\n" if out and diff.endswith("\n") else "")


def undo_diff(diff: str) -> str:
    """The diff that undoes ``diff`` when applied: :func:`reverse_diff`'s lines,
    with each section's headers written to read back as the undone paths.

    ``--- a/x`` then ``+++ b/y`` becomes ``--- a/y`` then ``+++ b/x``: the swapped
    header lines keep their paths under the prefix rule (``--- a/x`` becomes
    ``+++ b/x``, not ``+++ a/x``, which would read as the path ``a/x``) and trade
    places, so the section starts at the right path; ``+++ /dev/null`` becomes
    ``--- /dev/null``. So a renamed file rolls back to its old name, a created
    one is deleted and a deleted one created again, which Zed's text swap cannot
    do. The scene's rollback of an edit history already in the uncommitted diff,
    and retrieval undoing the scene's edit events, apply it at once; no header of
    it reaches a score, a record or any output (``tests/test_port_rules.py``
    checks that).

    Lines are joined with ``\\n``; the result ends with one exactly when ``diff``
    does.
    """
    out: list[str] = []
    pending_old: str | None = None
    for line in split_lines(diff):
        kind = classify(line).kind
        if kind is Kind.OLD_PATH:
            pending_old = _swap_header(line, "a/", "+++", "b/")
            continue
        if kind is Kind.NEW_PATH:
            out.append(_swap_header(line, "b/", "---", "a/"))
            if pending_old is not None:
                out.append(pending_old)
                pending_old = None
            continue
        if pending_old is not None:
            out.append(pending_old)
            pending_old = None
        if kind is Kind.DELETION:
            out.append("+" + line[1:])
        elif kind is Kind.ADDITION:
            out.append("-" + line[1:])
        else:
            out.append(line)
    if pending_old is not None:
        out.append(pending_old)
    return "\n".join(out) + ("\n" if out and diff.endswith("\n") else "")
