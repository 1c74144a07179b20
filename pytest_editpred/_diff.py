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
  (:func:`apply_hunks`).

Offsets are character offsets into ``str``; matching a string inside a string gives
the same places as Zed's byte search, so only columns need converting, elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
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
    "path_candidates",
]

DEV_NULL = "/dev/null"
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


def _parse_path(rest: str) -> str:
    rest = rest.lstrip()
    if rest.startswith('"'):
        out: list[str] = []
        escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
        i = 1
        while i < len(rest) and rest[i] != '"':
            if rest[i] == "\\" and i + 1 < len(rest):
                i += 1
                out.append(escapes.get(rest[i], rest[i]))
            else:
                out.append(rest[i])
            i += 1
        path = "".join(out)
    else:
        path = rest.split(maxsplit=1)[0] if rest.strip() else ""
    if path.startswith(("a/", "b/")):
        path = path[2:]
    return path


def classify(line: str) -> DiffLine:
    """Zed's ``DiffLine::parse``: the order of the tests matters (see §2.1)."""
    first = line[:1]
    if first == "-":
        if line.startswith("---") and line[3:4].isspace():
            return DiffLine(Kind.OLD_PATH, _parse_path(line[3:]))
        return DiffLine(Kind.DELETION, line[1:])
    if first == "+":
        if line.startswith("+++") and line[3:4].isspace():
            return DiffLine(Kind.NEW_PATH, _parse_path(line[3:]))
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
        self.last: Kind | None = None
        self.no_newline_done = False
        self.new_len = 0
        self.pending_start: int | None = None
        self.predicted = False

    def _emit_hunk(self) -> None:
        if not self.hunk.is_empty():
            self.hunk.start_line = self.pending_start
            self.pending_start = None
            assert self.section is not None
            self.section.hunks.append(self.hunk)
        self.hunk = Hunk()
        self.last = None
        self.no_newline_done = False
        self.new_len = 0

    def _close_file(self) -> None:
        self._emit_hunk()
        self.section = None

    def feed(self, index: int, line: str) -> None:
        parsed = classify(line)
        kind = parsed.kind
        if kind is Kind.OLD_PATH:
            self._close_file()
            self.section = FileSection(
                parsed.text, parsed.text, line=index + 1, predicted=self.predicted
            )
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
            self._no_newline()
        elif self.section is not None:
            self._content(index, kind, parsed.text)
        elif kind is not Kind.CONTEXT and self.orphan is None:
            self.orphan = index + 1

    def _content(self, index: int, kind: Kind, text: str) -> None:
        hunk = self.hunk
        if not hunk.line:
            hunk.line = index + 1
        here = len(hunk.context)
        last_edit = hunk.edits[-1] if hunk.edits else None
        if kind is Kind.CONTEXT:
            hunk.context += text + "\n"
            hunk.new_offsets[index] = self.new_len
            self.new_len += len(text) + 1
        elif kind is Kind.DELETION:
            hunk.context += text + "\n"
            if last_edit is not None and last_edit.end == here:
                last_edit.end = len(hunk.context)
            else:
                hunk.edits.append(Edit(here, len(hunk.context), ""))
        else:  # addition
            hunk.new_offsets[index] = self.new_len
            self.new_len += len(text) + 1
            if last_edit is not None and last_edit.end == here:
                last_edit.text += text + "\n"
            else:
                hunk.edits.append(Edit(here, here, text + "\n"))
        self.last = kind

    def _no_newline(self) -> None:
        if self.no_newline_done or self.last is None:
            return
        self.no_newline_done = True
        hunk = self.hunk
        if self.last is Kind.ADDITION and hunk.edits and hunk.edits[-1].text.endswith("\n"):
            hunk.edits[-1].text = hunk.edits[-1].text[:-1]
        elif self.last is Kind.DELETION and hunk.context.endswith("\n"):
            hunk.context = hunk.context[:-1]
            if hunk.edits:
                hunk.edits[-1].end -= 1
        elif self.last is Kind.CONTEXT and hunk.context.endswith("\n"):
            hunk.context = hunk.context[:-1]

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
    for index, line in enumerate(split_lines(text)):
        parser.feed(index, line)
    parser.finish()
    if not parser.sections and parser.orphan is not None:
        raise DiffParseError(
            "the diff has '+'/'-' lines but no '--- a/<path>' and '+++ b/<path>' header, "
            "so it would change nothing",
            fix="Start the diff with '--- a/<path>' and '+++ b/<path>' lines.",
            line=parser.orphan,
        )
    return parser.sections


# --------------------------------------------------------------------------- placing


def _row_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    at = find("\n")
    while at != -1:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def _row_of(starts: list[int], offset: int) -> int:
    from bisect import bisect_right

    return bisect_right(starts, offset) - 1


def _occurrences(text: str, needle: str) -> list[int]:
    found = []
    at = text.find(needle)
    while at != -1:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def _trim_phantom_newline(hunk: Hunk) -> Hunk:
    """The context without its last ``\\n`` (a missing ``\\ No newline`` line)."""
    length = len(hunk.context) - 1
    edits = []
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
    if not hunk.context:
        if empty_context == "start":
            return 0, hunk
        if hunk.start_line is None:
            raise ContextNotFoundError(
                "a hunk with neither context nor '-' lines needs a '@@ -N' header to be placed",
                line=hunk.line,
            )
        starts = _row_starts(text)
        if hunk.start_line < len(starts):
            return starts[hunk.start_line], hunk
        if hunk.start_line == len(starts) and text.endswith("\n"):
            return len(text), hunk
        raise ContextNotFoundError(
            f"the header places the hunk at line {hunk.start_line + 1}, "
            f"but the file has {len(starts)} lines",
            line=hunk.line,
        )
    candidates = _occurrences(text, hunk.context)
    if not candidates and hunk.context.endswith("\n"):
        trimmed = _trim_phantom_newline(hunk)
        if text.endswith(trimmed.context):
            candidates, hunk = [len(text) - len(trimmed.context)], trimmed
    if len(candidates) == 1:
        return candidates[0], hunk
    if not candidates:
        raise ContextNotFoundError(
            "hunk context not found:\n" + _quote(hunk.context), line=hunk.line
        )
    if hunk.start_line is not None:
        starts = _row_starts(text)
        for candidate in candidates:
            if _row_of(starts, candidate) == hunk.start_line:
                return candidate, hunk
    rows = ", ".join(str(_row_of(_row_starts(text), c) + 1) for c in candidates[:10])
    raise ContextNotUniqueError(
        f"hunk context is not unique: it occurs {len(candidates)} times (at lines {rows})"
        + (
            ""
            if hunk.start_line is None
            else f" and none starts at the header's line {hunk.start_line + 1}"
        )
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
    out = []
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
) -> str:
    """Apply hunks one after the other, each located in the text the last one left.

    This is Zed's ``apply_diff_to_string``. ``track`` holds offsets to move along
    with the edits; ``on_applied(index, offset, text)`` is told where each hunk went.
    """
    positions = track if track is not None else []
    for index, hunk in enumerate(hunks):
        offset, hunk = locate(text, hunk, empty_context="row")
        for edit in sorted(hunk.edits, key=lambda e: e.start, reverse=True):
            _shift(positions, offset + edit.start, offset + edit.end, edit.text)
        text = _splice(text, [(offset + e.start, offset + e.end, e.text) for e in hunk.edits])
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
) -> Iterator[AppliedSection]:
    """Apply the edit history to ``buffers`` (changed in place), section by section.

    ``open_file(path)`` resolves a diff path to ``(canonical path, text)`` or None;
    it is asked only for paths not open yet. Within a section every hunk is placed in
    the text from before the section; each section sees the ones before it.
    """
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
        for hunk in section.hunks:
            offset, hunk = locate(text, hunk, empty_context="start")
            edits.extend((offset + e.start, offset + e.end, e.text) for e in hunk.edits)
        edits.sort(key=lambda e: (e[0], e[1]))
        for (s1, e1, _), (s2, _, _) in zip(edits, edits[1:]):
            if s2 < e1:
                raise DiffError(
                    "two hunks of one file section change the same text", line=section.line
                )
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
    candidates = path_candidates(path)
    for candidate in candidates:
        if candidate in buffers:
            return candidate
    for candidate in candidates:
        opened = open_file(candidate)
        if opened is not None:
            canonical, text = opened
            buffers.setdefault(canonical, text)
            return canonical
    raise NoSuchPathError(f"no such path: {path}", line=line)


def reverse_diff(diff: str) -> str:
    """The diff that undoes ``diff``: ``+``/``-`` and ``---``/``+++`` swapped."""
    out = []
    pending_old: str | None = None
    for line in split_lines(diff):
        kind = classify(line).kind
        if kind is Kind.OLD_PATH:
            pending_old = "+++" + line[3:]
            continue
        if kind is Kind.NEW_PATH:
            out.append("---" + line[3:])
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
    return "".join(line + "\n" for line in out)
