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


def _line_cost(text: str, start: int, budget: int) -> tuple[int, int] | None:
    """(cost, end) of the row starting at ``start``, or None when it cannot fit.

    A row of ``L`` bytes costs ``max(1, L // 3)`` (§3.1, newline excluded), so a row
    within ``budget`` has at most ``3 * budget + 2`` bytes, hence characters: the
    search never scans further, which keeps a huge neighbouring line cheap.
    """
    limit = start + 3 * budget + 3
    end = text.find("\n", start, limit)
    if end < 0:
        if limit < len(text):
            return None
        end = len(text)
    cost = max(1, nbytes(text[start:end]) // 3)
    return (cost, end) if cost <= budget else None


def cursor_excerpt(text: str, cursor: int, max_tokens: int = EXCERPT_TOKENS) -> tuple[str, int, int]:
    """§3.1 ``compute_cursor_excerpt``: ``(excerpt, cursor_in_excerpt, start_row)``.

    ``expand_symmetric``: the cursor row's cost comes off the budget (saturating),
    then one row below and one row above per round; the first row, in either
    direction, that does not fit stops the whole expansion, as in Zed (unlike the
    project's older ``compute_excerpt``, which kept growing the other way).
    """
    cursor = max(0, min(cursor, len(text)))
    first = text.rfind("\n", 0, cursor) + 1  # start of start_row
    last_end = _line_end(text, cursor)  # end of end_row (its newline or len)
    budget = max(0, max_tokens - max(1, nbytes(text[first:last_end]) // 3))
    while budget > 0:
        can_down = last_end < len(text)
        can_up = first > 0
        if not can_down and not can_up:
            break
        if can_down:
            below = _line_cost(text, last_end + 1, budget)
            if below is None:
                break
            budget -= below[0]
            last_end = below[1]
        if can_up and budget > 0:
            prev_start = text.rfind("\n", max(0, first - 1 - (3 * budget + 3)), first - 1) + 1
            if prev_start == 0 and first - 1 - (3 * budget + 3) > 0:
                break  # the row above is longer than the budget allows
            cost = max(1, nbytes(text[prev_start : first - 1]) // 3)
            if cost > budget:
                break
            budget -= cost
            first = prev_start
    start_row = text.count("\n", 0, first)
    return text[first:last_end], cursor - first, start_row


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
