"""Small text helpers every stage shares: UTF-8 lengths, Rust's line splits, line
offsets, where two texts differ, and line endings as Zed's buffers hold them.

Zed measures in UTF-8 bytes and splits lines the Rust way; the scene, the judge, the
metrics, the Zeta prompts and the reports all need the same answers, so they are
written once here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "CRLF",
    "LF",
    "Change",
    "change_between",
    "common_prefix_length",
    "common_suffix_length",
    "detect_line_ending",
    "line_start",
    "line_starts",
    "nbytes",
    "normalize_line_endings",
    "normalized_offset",
    "rust_lines",
    "split_inclusive",
]

_BLOCK = 4096
_Text = TypeVar("_Text", str, bytes)  # both sides of a comparison of one kind


LF = "\n"
CRLF = "\r\n"
#: How far :func:`detect_line_ending` looks for the first newline (Zed's 1000 bytes).
_DETECT_BYTES = 1000


def normalize_line_endings(text: str) -> str:
    """Zed's ``LineEnding::normalize``: every ``\\r\\n``, and every lone ``\\r``, is ``\\n``.

    Zed's buffers hold their text this way (normalised when a file is loaded, and
    when an edit inserts text), so every text that enters a buffer here goes through
    this one function: the repository's files, the cursor excerpt, the text a diff
    matches or inserts, a predicted text. Linear, and free for a text without ``\\r``.
    """
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalized_offset(text: str, offset: int) -> int:
    """The offset in :func:`normalize_line_endings` of ``text`` of the character at
    ``offset`` in ``text``. An offset between the ``\\r`` and the ``\\n`` of a pair is
    the pair's ``\\n``: the end of its line's text, where an editor's cursor is."""
    if "\r" not in text:
        return offset
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        offset -= 1
    return offset - text.count("\r\n", 0, offset)


def detect_line_ending(text: str | bytes) -> str:
    """Zed's ``LineEnding::detect``: :data:`CRLF` when the first ``\\n`` within the
    first 1,000 bytes follows a ``\\r``, else :data:`LF` (also for a text with no
    ``\\n`` there). The style a buffer remembers of its file and saves it with."""
    head = text[:_DETECT_BYTES]
    if isinstance(head, str):
        head = head.encode("utf-8", "surrogatepass")[:_DETECT_BYTES]
    newline = head.find(b"\n")
    return CRLF if newline > 0 and head[newline - 1 : newline] == b"\r" else LF


def nbytes(text: str) -> int:
    """The UTF-8 length of ``text`` (what Zed's ``len()`` measures)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def split_inclusive(text: str) -> list[str]:
    """Rust's ``split_inclusive('\\n')``: lines with their newlines, no empty last piece."""
    pieces = text.split("\n")
    out = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        out.append(pieces[-1])
    return out


def rust_lines(text: str) -> list[str]:
    """Rust's ``str::lines``: split on ``\\n`` only, drop one ``\\r`` per line, no
    empty last line for a final ``\\n`` (Python's ``splitlines`` splits on more)."""
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def line_starts(text: str) -> list[int]:
    """The offset of every row's start: 0, then just after each ``\\n``."""
    starts = [0]
    position = text.find("\n")
    while position >= 0:
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return starts


def line_start(text: str, row: int) -> int | None:
    """The character offset where row ``row`` (0-based) of ``text`` starts: just after
    its ``row``-th ``\n``; None when ``text`` has fewer newlines than that.

    A text that ends with ``\n`` has an empty last row, starting at ``len(text)``.
    Zeta edits and excerpts are anchored at file rows, so the parsers, the hashed
    format and the teacher prompts all need this one offset, and they must agree on
    it. Callers decide what past-the-end means to them (no line, or the end of the
    text). One ``str.find`` a row: linear in the offset reached, whatever the length
    of the text after it.
    """
    position = 0
    for _ in range(row):
        newline = text.find("\n", position)
        if newline < 0:
            return None
        position = newline + 1
    return position


def common_prefix_length(a: _Text, b: _Text, known: int = 0) -> int:
    """The length of the common prefix: block by block, then a binary search in the
    first block that differs, so the copying is proportional to the prefix.
    ``known``: the texts (or byte strings) are known to agree on their first ``known``
    characters."""
    limit = min(len(a), len(b))
    at = min(known, limit)
    while at < limit:
        step = min(_BLOCK, limit - at)
        if a[at : at + step] != b[at : at + step]:
            break
        at += step
    else:
        return limit
    lo, hi = at, min(at + _BLOCK, limit)
    while lo < hi:  # a[:lo] == b[:lo]; the first difference is before hi
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix_length(a: _Text, b: _Text, limit: int, known: int = 0) -> int:
    """The length of the common suffix, at most ``limit``; the texts are known to
    agree on their last ``known`` characters."""
    at = min(known, limit)
    while at < limit:
        step = min(_BLOCK, limit - at)
        if a[len(a) - at - step : len(a) - at] != b[len(b) - at - step : len(b) - at]:
            break
        at += step
    else:
        return limit
    lo, hi = at, at + min(_BLOCK, limit - at)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid : len(a) - lo] == b[len(b) - mid : len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass(frozen=True)
class Change:
    """``before[start:before_end]`` became ``after[start:after_end]``; the rest is the
    same. An unchanged pair has an empty change at the end of the text."""

    start: int
    before_end: int
    after_end: int

    @classmethod
    def none(cls, length: int) -> Change:
        """No change to a text of ``length`` characters."""
        return cls(length, length, length)

    @property
    def shift(self) -> int:
        """How much longer ``after`` is than ``before``."""
        return self.after_end - self.before_end

    @property
    def empty(self) -> bool:
        return self.start == self.before_end == self.after_end


def change_between(before: str, after: str, kept: tuple[int, int] | None = None) -> Change:
    """The changed region of ``before`` → ``after``: common prefix and suffix trimmed
    (the suffix never overlaps the prefix).

    ``kept`` is ``(head, tail)`` when the caller knows the texts agree on their first
    ``head`` and last ``tail`` characters (a patch says where it edits): the scans
    start there, and the result is the same.
    """
    head, tail = kept or (0, 0)
    prefix = common_prefix_length(before, after, head)
    suffix = common_suffix_length(before, after, min(len(before), len(after)) - prefix, tail)
    return Change(prefix, len(before) - suffix, len(after) - suffix)
