"""A buffer's rows and points, and the block-boundary snapping of §2.1.

Zed addresses buffers by *points*, ``(row, column)``, with UTF-8 byte columns. Here a
column counts characters: every point this package makes is a row start, a row end
or a point the scene found, so the two agree on which character a point is before,
and slicing a ``str`` by them gives Zed's text. A :class:`Buffer` indexes its row
starts once (``O(n)``); every later question is ``O(1)`` or ``O(log n)``.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Final

from .._text import line_starts

__all__ = [
    "BOUNDARY_SNAP_LINE_COUNT",
    "Buffer",
    "Point",
    "is_blank",
    "rust_trim",
]

Point = tuple[int, int]
"""``(row, column)``, both 0-based; ordered by row, then column."""

BOUNDARY_SNAP_LINE_COUNT: Final = 5

# Rust's ``char::is_whitespace`` (Unicode White_Space): ``str.isspace`` would also
# count \x1c-\x1f, and make a different row blank.
_RUST_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)
_TAIL_WORDS: Final = frozenset({"break", "continue", "return", "throw", "end"})


def rust_trim(text: str) -> str:
    """Rust's ``str::trim``."""
    return text.strip(_RUST_WHITESPACE)


def is_blank(text: str) -> bool:
    """Every character is Unicode whitespace (an empty row is blank)."""
    return not rust_trim(text)


def _good_start(text: str) -> bool:
    """Non-blank, and not a structural tail (``}``, ``return;``, ``end``, ...)."""
    trimmed = rust_trim(text)
    if not trimmed or trimmed[0] in "}])":
        return False
    return trimmed.rstrip(";") not in _TAIL_WORDS


class Buffer:
    """A buffer's text with its rows indexed. ``max_row`` is the last row: the empty
    row after a final newline counts (``"a\\nb\\n"`` has ``max_row`` 2)."""

    __slots__ = ("starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)

    @property
    def max_row(self) -> int:
        return len(self.starts) - 1

    def line(self, row: int) -> str:
        """Row ``row`` without its newline."""
        start = self.starts[row]
        end = self.starts[row + 1] - 1 if row < self.max_row else len(self.text)
        return self.text[start:end]

    def line_len(self, row: int) -> int:
        end = self.starts[row + 1] - 1 if row < self.max_row else len(self.text)
        return end - self.starts[row]

    def row_end(self, row: int) -> Point:
        return (row, self.line_len(row))

    @property
    def last_point(self) -> Point:
        return self.row_end(self.max_row)

    def offset(self, point: Point) -> int:
        return self.starts[point[0]] + point[1]

    def point(self, offset: int) -> Point:
        row = bisect_right(self.starts, offset) - 1
        return (row, offset - self.starts[row])

    def slice(self, start: Point, end: Point) -> str:
        return self.text[self.offset(start) : self.offset(end)]

    def blank(self, row: int) -> bool:
        return is_blank(self.line(row))

    def row_range(self, start: int, end: int) -> tuple[Point, Point] | None:
        """Rows ``[start, end)`` as points, as bm25 and oracle_snippet convert them:
        nothing when empty or past the end; ``(end, 0)``, or the last point when
        ``end`` is past ``max_row``."""
        if start >= end or start > self.max_row:
            return None
        return (start, 0), ((end, 0) if end <= self.max_row else self.last_point)

    # -- §2.1 snapping ------------------------------------------------------------

    def snap_start(self, row: int, core: int) -> int:
        """The first good start in ``row … min(core, row + 5, max_row)``, preferring
        one right after a blank row; ``row`` when there is none."""
        limit = min(core, row + BOUNDARY_SNAP_LINE_COUNT, self.max_row)
        found = None
        for candidate in range(row, limit + 1):
            if self.blank(candidate) or not _good_start(self.line(candidate)):
                continue
            if candidate > 0 and self.blank(candidate - 1):
                return candidate
            if found is None:
                found = candidate
        return row if found is None else found

    def snap_end(self, row: int, core: int) -> int:
        """The last non-blank row in ``max(core, row - 5) … row`` followed by a blank
        row (scanning down from ``row``), else ``row``; ``row`` is an included row."""
        row = min(row, self.max_row)
        if row == self.max_row:
            return row
        limit = max(core, row - BOUNDARY_SNAP_LINE_COUNT, 0)
        for candidate in range(row, limit - 1, -1):
            if self.blank(candidate):
                continue
            if self.blank(candidate + 1):
                return candidate
        return row

    def expanded(self, start: Point, end: Point, lines: int) -> tuple[Point, Point]:
        """``expanded(range, N)``: ``N`` rows each way, snapped to block boundaries,
        ending at the end of a row (so inclusive, unless that row is empty)."""
        first = self.snap_start(max(0, start[0] - lines), start[0])
        last = self.snap_end(min(end[0] + lines, self.max_row), end[0])
        return (first, 0), self.row_end(last)
