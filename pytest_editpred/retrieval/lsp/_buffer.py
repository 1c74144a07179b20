"""A file's text as Zed's buffer measures it: UTF-8 byte offsets and (row, byte column) points.

Zed's retrieval works on byte offsets and points whose column counts UTF-8 bytes
(zed-context-retrieval.md, Conventions); language servers speak UTF-16 columns. One
object per text holds the bytes and the start of every row, so each conversion is a
bisection, not a scan: a definition file of thousands of rows is converted once per
location in O(log rows) plus the row's length.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import cached_property

__all__ = ["Buffer", "Point"]

Point = tuple[int, int]


class Buffer:
    """``text`` (``\\n`` line endings) with byte and point arithmetic."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8")

    @cached_property
    def row_starts(self) -> list[int]:
        starts = [0]
        find = self.data.find
        at = find(b"\n")
        while at != -1:
            starts.append(at + 1)
            at = find(b"\n", at + 1)
        return starts

    @property
    def max_row(self) -> int:
        """The last row: the empty row after a final newline counts (Conventions)."""
        return len(self.row_starts) - 1

    def line_len(self, row: int) -> int:
        """The byte length of ``row`` without its ``\\n``."""
        starts = self.row_starts
        end = starts[row + 1] - 1 if row + 1 < len(starts) else len(self.data)
        return end - starts[row]

    def line(self, row: int) -> bytes:
        start = self.row_starts[row]
        return self.data[start : start + self.line_len(row)]

    @property
    def last_point(self) -> Point:
        return self.max_row, self.line_len(self.max_row)

    def offset(self, point: Point) -> int:
        """The byte offset of a point inside the text."""
        return self.row_starts[point[0]] + point[1]

    def point(self, offset: int) -> Point:
        row = bisect_right(self.row_starts, offset) - 1
        return row, offset - self.row_starts[row]

    def byte_offset(self, char_offset: int) -> int:
        """The byte offset of a character offset into ``text``."""
        return len(self.text[:char_offset].encode("utf-8"))

    def slice(self, start: Point, end: Point) -> str:
        return self.data[self.offset(start) : self.offset(end)].decode("utf-8")

    def utf16_column(self, point: Point) -> int:
        """The LSP column (UTF-16 code units) of a point."""
        before = self.line(point[0])[: point[1]].decode("utf-8", errors="ignore")
        return len(before.encode("utf-16-le")) // 2

    def clip_utf16(self, row: int, column: int) -> Point:
        """A server's (line, UTF-16 character) clipped into the text, bias left: a row
        past the end is the last row, a column past the row's end is its end, and a
        column inside a character (half a surrogate pair) is that character's start."""
        if row > self.max_row:
            row = self.max_row
            column = 1 << 62
        row = max(row, 0)
        line = self.line(row).decode("utf-8")
        units = 0
        byte = 0
        for char in line:
            width = 2 if ord(char) > 0xFFFF else 1
            if units + width > column:
                break
            units += width
            byte += len(char.encode("utf-8"))
        return row, byte
