"""Zed's scoring frame: the part of the cursor file ``ep score`` looks at.

Zed scores a prediction on the cursor excerpt (zed-format.md §3.5, §4.1): the whole
lines around the cursor within 8,192 pseudo-tokens, without the last line's newline.
It applies every expected patch to that excerpt, and the predicted patch too, which
counts as no change where it does not apply there. For files under about 24 KB the
excerpt is the whole file minus its final newline.

The verdict already has every text on the whole file, so a text's frame is cut out
of it instead of applying its patch again: for a change inside the excerpt, that is
exactly what applying the patch to the excerpt gives. Two choices of ours:

* An expected patch that changes text outside the excerpt makes Zed refuse to score
  the example (``Expected patch did not apply``). Here the frame grows to the whole
  lines that hold the change (``widened``), so the example is still scored.
* A prediction that changes the cursor file outside the frame is scored as no change
  by every metric, as in Zed, where its patch would not apply to the excerpt (Zed's
  models only rewrite a region inside it). The verdict, which looks at whole buffers,
  still fails it, and a note on the item says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._text import Change
from ..scene import compute_excerpt

__all__ = ["Frame", "scoring_frame"]


@dataclass(frozen=True)
class Frame:
    """``original[start:end]`` of the cursor file, its first row, and whether it had
    to grow past Zed's excerpt to hold an expected change."""

    original: str
    start: int
    end: int
    start_row: int
    widened: bool = False

    @property
    def text(self) -> str:
        return self.original[self.start : self.end]

    @property
    def end_row(self) -> int:
        return self.start_row + self.original.count("\n", self.start, self.end)

    def holds(self, change: Change) -> bool:
        return change.empty or (self.start <= change.start and change.before_end <= self.end)

    def cut(self, text: str, change: Change) -> str:
        """The frame of ``text`` (which differs from the original by ``change``, held
        by the frame): the same span, shifted by what the change added."""
        return text[self.start : self.end + change.shift]

    def local(self, change: Change) -> Change:
        """``change`` (held by the frame) between the two texts' frames: the same
        change, moved to the frame's coordinates (what :func:`change_between` of
        the frames would find, without reading them again)."""
        if change.empty:
            return Change.none(self.end - self.start)
        return Change(change.start - self.start, change.before_end - self.start, change.after_end - self.start)

    def offset(self, offset: int, length: int) -> int | None:
        """A cursor offset of the whole text as an offset into its frame (of
        ``length`` characters), or None when it lies outside."""
        inside = offset - self.start
        return inside if 0 <= inside <= length else None


def scoring_frame(original: str, cursor: int, changes: Sequence[Change]) -> Frame:
    """Zed's cursor excerpt of ``original`` around ``cursor``, grown to whole lines
    where one of ``changes`` (the expected ones) reaches outside it."""
    excerpt = compute_excerpt(original, cursor)
    start = cursor - excerpt.cursor_offset
    end = start + len(excerpt.text)
    low = min([start, *(c.start for c in changes if not c.empty)])
    high = max([end, *(c.before_end for c in changes if not c.empty)])
    if (low, high) == (start, end):
        return Frame(original, start, end, excerpt.start_row)
    low = original.rfind("\n", 0, low) + 1
    if high > end:
        newline = original.find("\n", high)
        high = len(original) if newline < 0 else newline
    return Frame(original, low, high, original.count("\n", 0, low), widened=True)
