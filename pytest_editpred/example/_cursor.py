"""Cursor markers, exactly as Zed reads and writes them (zed-format.md §1.7, §4.1).

Zed counts columns and offsets in UTF-8 **bytes** (a tab is one byte, and a column is
not clamped to its line). We compute in bytes where Zed does and then convert to a
character offset, so the cursor lands on the same character as in Zed; a byte offset
that falls inside a multi-byte character is an error instead of a silent shift.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._diff import Kind, classify, split_lines
from .._exceptions import CursorMarkerError
from .._text import nbytes, normalize_line_endings

__all__ = [
    "INLINE_MARKER",
    "MARKER",
    "ExpectedPatch",
    "parse_cursor_excerpt",
    "extract_cursor_from_patch",
    "format_cursor_excerpt",
    "normalize_cursor_block",
    "byte_to_char",
]

INLINE_MARKER = "<|user_cursor|>"
MARKER = "[CURSOR_POSITION]"


def byte_to_char(text: str, byte_offset: int, *, what: str = "cursor") -> int:
    """The character offset of a UTF-8 byte offset into ``text``."""
    if text.isascii():
        if byte_offset > len(text):
            raise CursorMarkerError(f"the {what} is {byte_offset - len(text)} bytes past the end of the text")
        return byte_offset
    data = text.encode()
    if byte_offset > len(data):
        raise CursorMarkerError(f"the {what} is {byte_offset - len(data)} bytes past the end of the text")
    if byte_offset < len(data) and data[byte_offset] & 0xC0 == 0x80:
        raise CursorMarkerError(
            f"the {what} falls inside a multi-byte character (Zed counts columns in UTF-8 bytes)",
            fix="Move the '^' so that its byte column is the start of a character.",
        )
    return len(data[:byte_offset].decode())


def parse_cursor_excerpt(text: str) -> tuple[str, int]:
    """Zed's ``cursor_excerpt``: ``(excerpt, character offset of the cursor)``.

    Inline ``<|user_cursor|>`` wins; otherwise the ``[CURSOR_POSITION]`` line under
    the cursor line gives the column: ``^`` is its byte column, ``<`` means the marker
    line's indentation width. Zed would take the first of several markers and then
    fail to find the excerpt; we say so at once.
    """
    inline = text.count(INLINE_MARKER)
    markers = text.count(MARKER)
    if inline:
        if inline > 1 or markers:
            raise CursorMarkerError(f"the cursor block has {inline + markers} cursor markers; it needs exactly one")
        at = text.index(INLINE_MARKER)
        return text[:at] + text[at + len(INLINE_MARKER) :], at
    if markers == 0:
        raise CursorMarkerError(f"missing {MARKER} marker in the cursor block")
    if markers > 1:
        raise CursorMarkerError(f"the cursor block has {markers} {MARKER} markers; it needs exactly one")
    at = text.index(MARKER)
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    marker_line = text[line_start : len(text) if line_end == -1 else line_end]
    if "^" in marker_line:
        column = nbytes(marker_line[: marker_line.index("^")])
    elif "<" in marker_line:
        column = nbytes(marker_line) - nbytes(marker_line.lstrip())
    else:
        raise CursorMarkerError(f"cursor position marker line must contain '^' or '<' before {MARKER}")
    removed_end = len(text) if line_end == -1 else line_end + 1
    excerpt = (text[:line_start] + text[removed_end:]).rstrip("\n")
    if line_start == 0:
        cursor_line_start = 0
    else:
        cursor_line_start = text.rfind("\n", 0, line_start - 1) + 1
    prefix_bytes = nbytes(excerpt[:cursor_line_start])
    return excerpt, byte_to_char(excerpt, prefix_bytes + column)


def normalize_cursor_block(text: str) -> str:
    """A cursor block with the line endings a buffer holds
    (:func:`~pytest_editpred._text.normalize_line_endings`). An inline marker between
    the ``\\r`` and the ``\\n`` of a pair stands before the pair (the end of its line's
    text), or normalising the lone ``\\r`` left before it would add a line."""
    if "\r" not in text:
        return text
    return normalize_line_endings(text.replace("\r" + INLINE_MARKER + "\n", INLINE_MARKER + "\r\n"))


def format_cursor_excerpt(excerpt: str, offset: int, comment_prefix: str = "//") -> str:
    """Zed's ``set_cursor_excerpt``: write the marker line under the cursor line.

    ``offset`` is a character offset into ``excerpt``. The ``^`` sits at the cursor's
    byte column; when the column is narrower than the comment prefix, the ``<`` form
    is used and the indentation encodes the column. Nothing else changes: the
    result ends with ``\\n`` only when ``excerpt`` does (on the last line, the
    marker line is then the last line, without a newline after it).
    :func:`parse_cursor_excerpt` reads back ``excerpt`` without its trailing
    newlines and ``offset``.
    """
    line_start = excerpt.rfind("\n", 0, offset) + 1
    line_end = excerpt.find("\n", offset)
    line_end = len(excerpt) if line_end == -1 else line_end
    line = excerpt[line_start:line_end]
    column = nbytes(excerpt[line_start:offset])
    if column < len(comment_prefix):
        marker = " " * column + comment_prefix + " <" + MARKER
    else:
        indent = line[: len(line) - len(line.lstrip())]
        head = indent if column >= nbytes(indent) + len(comment_prefix) else ""
        head += comment_prefix
        marker = head + " " * (column - nbytes(head)) + "^" + MARKER
    return excerpt[:line_end] + "\n" + marker + excerpt[line_end:]


@dataclass(frozen=True)
class ExpectedPatch:
    """An expected patch with its ``#  ^[CURSOR_POSITION]`` line taken out.

    ``cursor_line`` is the 0-based line of ``patch`` the cursor is on (the last
    context or ``+`` line above the marker; -1 if none) and ``cursor_column`` its byte
    column. ``cursor_in_patch`` is Zed's raw value: a byte offset into the new text
    of all hunks, accumulated across hunks.
    """

    patch: str
    cursor_line: int | None = None
    cursor_column: int = 0
    cursor_in_patch: int | None = None

    @property
    def has_cursor(self) -> bool:
        return self.cursor_line is not None


def extract_cursor_from_patch(patch: str) -> ExpectedPatch:
    """Zed's ``extract_cursor_from_patch``; the last of several cursor lines wins.

    A cursor line is a garbage line (§2.1) that starts with ``#`` and holds the
    marker: no diff line starts with ``#``, so the first character decides.
    """
    if MARKER not in patch:
        return ExpectedPatch(patch)
    kept: list[str] = []
    cursor: tuple[int, int] | None = None  # (anchor line in kept, byte column)
    anchor_line = -1
    for line in split_lines(patch):
        first = line[:1]
        if first == "#" and MARKER in line:
            if "^" in line:
                caret = nbytes(line[: line.index("^")])
            elif "<" in line:
                caret = 0
            else:
                continue
            cursor = (anchor_line, max(caret - 1, 0))
            continue
        if first == " " or first == "" or (first == "+" and not (line.startswith("+++") and line[3:4].isspace())):
            anchor_line = len(kept)
        kept.append(line)
    clean = "\n".join(kept) + ("\n" if patch.endswith("\n") and kept else "")
    if cursor is None:
        return ExpectedPatch(clean)
    anchor, column = cursor
    # Zed's offset: len(content) + 1 for every context and '+' line before the anchor
    # (a context or '+' line is one prefix byte plus its content: its own length).
    before = sum(
        max(nbytes(k), 1)
        for k in kept[: max(anchor, 0)]
        if k[:1] in (" ", "") or (k[:1] == "+" and classify(k).kind is Kind.ADDITION)
    )
    return ExpectedPatch(clean, anchor, column, before + column)
