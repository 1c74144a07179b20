"""§3.1 the cursor excerpt and §3.7 the fixed line window, on a whole buffer's text.

Both read only the lines near the cursor: a buffer can be tens of megabytes and the
excerpt is at most 8192 tokens, so splitting the whole text would dominate the cost
of a prompt. Rows are ``\\n``-separated (Zed buffers hold ``\\n`` only; a ``\\r`` is
an ordinary byte of its line here); a text ending in ``\\n`` has a last, empty row,
as in Zed's ``max_point().row``.
"""

from __future__ import annotations

from .._text import nbytes

__all__ = ["EXCERPT_TOKENS", "cursor_excerpt", "fixed_line_window_around_cursor"]

EXCERPT_TOKENS = 8192


def _line_end(text: str, start: int) -> int:
    """The end (the ``\\n`` or ``len``) of the row starting at ``start``."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def cursor_excerpt(text: str, cursor: int, max_tokens: int = EXCERPT_TOKENS) -> tuple[str, int, int]:
    """§3.1 ``compute_cursor_excerpt``: ``(excerpt, cursor_in_excerpt, start_row)``.

    ``expand_symmetric``: the cursor row's cost comes off the budget (saturating),
    then one row below and one row above per round; the first row, in either
    direction, that does not fit stops the whole expansion, as in Zed (unlike the
    project's older ``compute_excerpt``, which kept growing the other way).

    Only the rows within reach are read: a row of ``L`` bytes costs at least
    ``(L - 2) / 3`` and at least 1, so rows that fit span at most 6 characters per
    token, newlines included, besides the cursor row. The rows within ``6 *
    max_tokens + 6`` characters of the cursor are split and measured in C; a row
    beyond them, when the text goes on, is one that does not fit.
    """
    cursor = max(0, min(cursor, len(text)))
    reach = 6 * max_tokens + 6
    low = text.rfind("\n", 0, cursor - reach) + 1 if cursor > reach else 0
    high = text.find("\n", cursor + reach)
    high = len(text) if high < 0 else high
    region = text[low:high]
    lines = region.split("\n")
    sizes = map(len, lines) if region.isascii() else map(nbytes, lines)
    costs = [size // 3 or 1 for size in sizes]
    more_above, more_below = low > 0, high < len(text)  # rows out of reach: they do not fit
    row = region.count("\n", 0, cursor - low)
    start = end = row
    budget = max(0, max_tokens - costs[row])
    last = len(costs) - 1
    while budget > 0:
        can_down = end < last or more_below
        can_up = start > 0 or more_above
        if not can_down and not can_up:
            break
        if can_down:
            if end == last or costs[end + 1] > budget:
                break
            end += 1
            budget -= costs[end]
        if can_up and budget > 0:
            if start == 0 or costs[start - 1] > budget:
                break
            start -= 1
            budget -= costs[start]
    row_start = region.rfind("\n", 0, cursor - low) + 1
    first = row_start - sum(map(len, lines[start:row])) - (row - start)  # in region
    last_end = row_start + sum(map(len, lines[row : end + 1])) + (end - row)
    return region[first:last_end], cursor - low - first, text.count("\n", 0, low) + start


def fixed_line_window_around_cursor(text: str, cursor: int, lines_above: int, lines_below: int) -> tuple[int, int]:
    """§3.7: ``Point(max(row - above, 0), 0) .. Point(min(row + below, max_row),
    line_len(end_row))`` as a character range of ``text`` (no final newline)."""
    cursor = max(0, min(cursor, len(text)))
    start = text.rfind("\n", 0, cursor) + 1
    for _ in range(max(0, lines_above)):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    end = _line_end(text, cursor)
    for _ in range(max(0, lines_below)):
        if end >= len(text):
            break
        end = _line_end(text, end + 1)
    return start, end
