"""The user's edits as lines: each hunk's new side, and its runs of changed lines.

An event's diff is read by the package's diff engine (:mod:`pytest_editpred._diff`,
Zed's tolerant reading); this module turns the engine's hunks (old text plus edits)
into the lines the heuristics compare with the buffers. It hands the engine only what
the baseline has always read, and in the same way, so that its predictions do not
depend on how the engine reads the rest:

* Only hunk lines: strict ``@@ -a,b +c,d @@`` headers, ``-``, ``+`` and context
  lines. File headers go (an event is one file; a ``--- x`` line inside a hunk is a
  deleted ``-- x`` line, which the baseline has always skipped), and so do
  ``\\ No newline`` markers and any other line.
* Whitespace other than spaces and newlines is hidden from the engine and given back
  in the lines: a buffer keeps the ``\\r`` of a CRLF line, which the engine drops as
  Zed does (Zed's buffers are LF), and a deleted ``--\\tx`` line is no file header.
* Every piece of ``diff.split("\\n")`` is a line, the empty one after the diff's final
  newline too, so the last hunk's new side ends with an empty line: the baseline has
  always read it so, and finding that hunk in a buffer depends on it.
* A hunk is placed by its header's new-side start ``+c``, which the engine does not
  keep; lines before the first header are no hunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..._diff import Hunk, Kind, classify, parse_diff, split_lines

__all__ = ["Change", "LineHunk", "read_hunks"]

_HEADER = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_FILE = "--- a/event\n+++ b/event\n"
_HUNK_LINES = frozenset((Kind.DELETION, Kind.ADDITION, Kind.CONTEXT))
#: Stand-ins for hidden whitespace: Private Use characters, which mean nothing to the engine.
_SPARE = range(0xE000, 0xF900)

_Table = dict[int, str]


@dataclass(frozen=True)
class Change:
    """One run of removed and/or added lines of a hunk. ``at`` indexes the hunk's
    new-side lines where the added lines start (or would be)."""

    removed: tuple[str, ...]
    added: tuple[str, ...]
    at: int


@dataclass(frozen=True)
class LineHunk:
    """A hunk as lines: its header's 1-based new-side start, its new side (context
    and added lines) and its changes, in order."""

    new_start: int
    new_lines: tuple[str, ...]
    changes: tuple[Change, ...]


@lru_cache(maxsize=32)
def read_hunks(diff: str) -> tuple[LineHunk, ...]:
    """The hunks of an event's unified diff, file headers optional. Remembered:
    the heuristics read each event of a request, and the next requests of a run
    carry the same events."""
    hide, show = _hiding(diff)
    text = _FILE + "".join(line + "\n" for line in diff.translate(hide).split("\n") if _is_hunk_line(line))
    rows = split_lines(text)
    found: list[LineHunk] = []
    for section in parse_diff(text):
        for hunk in section.hunks:
            header = _HEADER.match(rows[hunk.line - 1])
            if header is not None:
                found.append(_as_lines(hunk, int(header.group(1)), show))
    return tuple(found)


def _is_hunk_line(line: str) -> bool:
    return _HEADER.match(line) is not None or classify(line).kind in _HUNK_LINES


def _hiding(diff: str) -> tuple[_Table, _Table]:
    """Translation tables that swap the diff's whitespace other than spaces and
    newlines for characters it does not use, and back."""
    odd = sorted(char for char in set(diff) if char.isspace() and char not in " \n")
    if not odd:
        return {}, {}
    spare = (chr(code) for code in _SPARE if chr(code) not in diff)
    pairs = list(zip(odd, spare, strict=False))
    return {ord(char): stand_in for char, stand_in in pairs}, {ord(stand_in): char for char, stand_in in pairs}


def _as_lines(hunk: Hunk, new_start: int, show: _Table) -> LineHunk:
    """The engine's hunk (old text and edits in it) as new-side lines and changes."""
    new_lines: list[str] = []
    changes: list[Change] = []
    done = 0
    for edit in sorted(hunk.edits, key=lambda e: e.start):
        new_lines += _lines(hunk.context[done : edit.start], show)
        added = _lines(edit.text, show)
        changes.append(Change(_lines(hunk.context[edit.start : edit.end], show), added, len(new_lines)))
        new_lines += added
        done = edit.end
    new_lines += _lines(hunk.context[done:], show)
    return LineHunk(new_start, tuple(new_lines), tuple(changes))


def _lines(text: str, show: _Table) -> tuple[str, ...]:
    """The lines of a piece of a hunk, where every line ends with a newline (no
    ``\\ No newline`` marker reaches the engine, so none was taken off)."""
    return tuple(text.translate(show).split("\n")[:-1])
