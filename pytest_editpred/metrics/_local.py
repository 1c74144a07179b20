"""Where two texts differ, and where a metric may cut them without changing its result.

Every metric compares texts that share almost everything: an original and the same
text after a small edit. Their results depend only on the changed region and a few
characters around it, so each metric works on a *local window*: the changed region
widened to line starts with some unchanged text around it. Finding the region is
linear in the text (C-speed slice comparisons), and everything after it is
proportional to the change, not to the file.

A window edge is a **safe line start**: the start of the text, or a position right
after ``\\n`` whose character is not ``\\r`` or ``\\n``. There,

* Zed's tokenizer always starts a token (a token never spans a ``\\n`` except in a
  run of newline characters, which ends just before), so the tokens of the window
  are exactly the full text's tokens between the two edges;
* Zed's whitespace collapse (delta-chrF) is in the same state at the edge whether it
  started at the edge or earlier, so the collapsed window is a slice of the
  collapsed text.

With at least :data:`MARGIN` non-whitespace characters between each edge and the
change, delta-chrF's ``order - 1`` characters of context lie inside the window too.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MARGIN", "Change", "change_between", "common_prefix_length", "common_suffix_length", "local_window"]

MARGIN = 8  # > CHR_F_CHAR_ORDER - 1 collapsed characters, whatever the whitespace
_BLOCK = 4096


def common_prefix_length(a: str, b: str, known: int = 0) -> int:
    """The length of the common prefix: block by block, then a binary search in the
    first block that differs, so the copying is proportional to the prefix.
    ``known``: the texts are known to agree on their first ``known`` characters."""
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


def common_suffix_length(a: str, b: str, limit: int, known: int = 0) -> int:
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


def _is_safe(text: str, at: int) -> bool:
    return at == 0 or (text[at - 1] == "\n" and text[at : at + 1] not in ("\n", "\r"))


def _non_space(text: str, start: int, end: int) -> int:
    return sum(map(len, text[start:end].split()))


def local_window(before: str, change: Change, margin: int = MARGIN) -> tuple[int, int]:
    """``(lo, hi)``: safe line starts of ``before`` (or its ends) around ``change``,
    with at least ``margin`` non-whitespace characters between each and the change.

    ``after``'s window is ``(lo, hi + change.shift)``: the texts agree outside the
    change, so the same edges are safe in both.
    """
    lo = before.rfind("\n", 0, change.start) + 1
    seen = _non_space(before, lo, change.start)
    while lo > 0 and not (seen >= margin and _is_safe(before, lo)):
        previous = before.rfind("\n", 0, lo - 1) + 1
        seen += _non_space(before, previous, lo)
        lo = previous
    end = change.before_end
    hi = before.find("\n", end)
    hi = len(before) if hi < 0 else hi + 1
    seen = _non_space(before, end, hi)
    while hi < len(before) and not (seen >= margin and _is_safe(before, hi)):
        following = before.find("\n", hi)
        following = len(before) if following < 0 else following + 1
        seen += _non_space(before, hi, following)
        hi = following
    return lo, hi
