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

from .._text import Change

__all__ = ["MARGIN", "local_window"]

MARGIN = 8  # > CHR_F_CHAR_ORDER - 1 collapsed characters, whatever the whitespace


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
