"""§3.3–§3.6: the editable region and the context around it, inside the excerpt.

Every formatter and parser goes through :func:`resolve_cursor_region`, so a prompt
and the parse of its answer always agree on the region. Offsets are characters into
the excerpt; every token cost is UTF-8 bytes // 3, as in Zed, so a non-ASCII line
costs what it costs there.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Protocol

from .._text import nbytes
from ._input import ExcerptRanges, ZetaInput
from ._multi_region import V0318_LIMITS, compute_marker_offsets_with_limits, cursor_block_index

__all__ = [
    "CursorRegion",
    "FORMAT_BUDGETS",
    "compute_editable_and_context_ranges",
    "compute_legacy_excerpt_ranges",
    "compute_v0327_editable_range",
    "resolve_cursor_region",
]

Range = tuple[int, int]

# §2.1 "Editable, context tokens": variant name -> (E, C). V0327 has no C (§3.6).
FORMAT_BUDGETS: dict[str, tuple[int, int]] = {
    "V0112MiddleAtEnd": (150, 350),
    "V0113Ordered": (150, 350),
    "V0114180EditableRegion": (180, 350),
    "V0120GitMergeMarkers": (350, 150),
    "V0131GitMergeMarkersPrefix": (350, 150),
    "V0211Prefill": (350, 150),
    "V0211SeedCoder": (350, 150),
    "V0331SeedCoderModelPy": (350, 150),
    "v0226Hashline": (350, 150),
    "V0304VariableEdit": (1024, 0),
    "V0304SeedNoEdits": (350, 150),
    "V0306SeedMultiRegions": (350, 150),
    "V0316SeedMultiRegions": (350, 150),
    "V0317SeedMultiRegions": (350, 150),
    "V0318SeedMultiRegions": (350, 150),
    "V0327SingleFile": (350, 0),
    "V0420Diagnostics": (350, 150),
    "V0608QwenMultiRegions": (350, 150),
    "V0615HashRegions": (8000, 0),
}

# §2.1 "Ranges when syntax_ranges is None": (editable field, context field) for the
# formats whose fallback is a plain pair; V0304VariableEdit and V0615 are special.
_FALLBACK_FIELDS: dict[tuple[int, int], tuple[str, str]] = {
    (150, 350): ("editable_150", "editable_150_context_350"),
    (180, 350): ("editable_180", "editable_180_context_350"),
    (350, 150): ("editable_350", "editable_350_context_150"),
}


class _Named(Protocol):
    """A ``ZetaFormat`` member, seen only through its name (no import cycle)."""

    @property
    def name(self) -> str: ...


@dataclass(frozen=True)
class CursorRegion:
    """§3.5's result: ``context_text`` is ``excerpt[context_range]``; ``editable_range``
    and ``cursor`` are relative to it."""

    context_text: str
    editable_range: Range
    context_range: Range
    cursor: int


class _Rows:
    """Line starts and per-row token costs of one excerpt (§3.3 definitions)."""

    def __init__(self, text: str) -> None:
        self.text = text
        lines = text.split("\n")  # split, measured and summed in C
        self.starts = list(accumulate(map((1).__add__, map(len, lines[:-1])), initial=0))
        self.max_row = len(lines) - 1
        self.costs = [size // 3 or 1 for size in map(len if text.isascii() else nbytes, lines)]
        self.sums = list(accumulate(self.costs, initial=0))  # sums[k]: the cost of rows 0 to k - 1

    def row_of(self, offset: int) -> int:
        """The row whose start is ``offset``, else the one with the largest start below."""
        return max(0, bisect_right(self.starts, offset) - 1)

    def row_end(self, row: int) -> int:
        return self.starts[row + 1] - 1 if row < self.max_row else len(self.text)

    def tokens(self, start: int, end: int) -> int:
        """Sum of the costs of rows ``start`` to ``end - 1``."""
        return self.sums[end] - self.sums[start]

    def span(self, start_row: int, end_row: int) -> Range:
        return self.starts[start_row], self.row_end(end_row)


# Excerpts up to this many characters are kept (128 of them: 32 MiB at most); a
# longer one is a huge row or two, whose table is made again at little cost.
_CACHED_ROWS_CHARS = 256 * 1024


def _rows(text: str) -> _Rows:
    """The :class:`_Rows` of ``text``, made once: every format and range computation
    of one example reads the same excerpt (read-only after it is made), and so does
    the parse of its answer, which comes back after the prompts of up to
    ``--editpred-concurrency`` other examples were built."""
    return _cached_rows(text) if len(text) <= _CACHED_ROWS_CHARS else _Rows(text)


@lru_cache(maxsize=128)
def _cached_rows(text: str) -> _Rows:
    return _Rows(text)


def _expand_symmetric(rows: _Rows, row: int, budget: int) -> tuple[int, int, int]:
    """§3.1 on excerpt rows: a row that does not fit, either way, stops everything."""
    start = end = row
    budget = max(0, budget - rows.costs[row])
    while budget > 0 and (start > 0 or end < rows.max_row):
        if end < rows.max_row:
            if rows.costs[end + 1] > budget:
                break
            end += 1
            budget -= rows.costs[end]
        if start > 0 and budget > 0:
            if rows.costs[start - 1] > budget:
                break
            start -= 1
            budget -= rows.costs[start]
    return start, end, budget


def _most(fits: Callable[[int], bool], low: int, high: int) -> int:
    """The largest ``k`` in ``[low, high]`` with ``fits(k)``, for a ``fits`` that is
    true up to some point and false after it, and true at ``low``."""
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _expand_linewise(rows: _Rows, start: int, end: int, budget: int, prefer_up: bool) -> tuple[int, int, int]:
    """§3.3 step 4: a line that does not fit is skipped; a round adding nothing stops.

    Each round takes the next line the preferred way, then the next the other way,
    each only when it exists and fits. Costs are positive and the budget only
    shrinks, so a way that is blocked (or runs out) stays so: the rounds alternate
    until the first line that does not fit, then the other way goes on alone until
    its own first. Both points are found by bisection on the row costs' running
    sums, not by walking the lines: a context budget of 8,192 tokens is thousands
    of rows, and every format and trial asks for several budgets."""
    sums = rows.sums

    def up(k: int) -> int:  # the cost of the k rows above ``start``
        return sums[start] - sums[start - k]

    def down(k: int) -> int:  # the cost of the k rows below ``end``
        return sums[end + 1 + k] - sums[end + 1]

    first, second = (up, down) if prefer_up else (down, up)
    n_first, n_second = (start, rows.max_row - end) if prefer_up else (rows.max_row - end, start)
    # Check j (from 1) of the alternation asks for the first way's line (j + 1) // 2
    # (j odd) or the second way's line j // 2 (j even): with it, the rows taken cost
    # first((j + 1) // 2) + second(j // 2), which grows with j. There are checks
    # until one way runs out.
    checks = 2 * n_first if n_first <= n_second else 2 * n_second + 1

    def passes(j: int) -> bool:
        return j == 0 or first((j + 1) // 2) + second(j // 2) <= budget

    taken = _most(passes, 0, checks)  # checks 1 .. taken passed
    took_first, took_second = (taken + 1) // 2, taken // 2
    if taken % 2 == 0:  # the first way is blocked or ran out: the second goes on alone
        took_second = _most(lambda k: first(took_first) + second(k) <= budget, took_second, n_second)
    else:  # the second way is: the first goes on alone
        took_first = _most(lambda k: first(k) + second(took_second) <= budget, took_first, n_first)
    taken_up, taken_down = (took_first, took_second) if prefer_up else (took_second, took_first)
    return start - taken_up, end + taken_down, budget - up(taken_up) - down(taken_down)


def _row_spans(rows: _Rows, syntax_ranges: tuple[Range, ...] | list[Range] | None) -> tuple[Range, ...]:
    """The row span of every syntax range, innermost first, consecutive equal spans
    once. Made once per excerpt and shared by every budget: a deep tree has thousands
    of ranges (:data:`~._syntax.MAX_SYNTAX_DEPTH`). Dropping a repeat here is what
    :func:`_boundaries` would do: it keeps a span only when it differs from the last
    one kept, and drops a repeat of one it dropped (contained, both times)."""
    spans: list[Range] = []
    for node_start, node_end in syntax_ranges or ():
        bounds = rows.row_of(node_start), rows.row_of(node_end)
        if not spans or spans[-1] != bounds:
            spans.append(bounds)
    return tuple(spans)


def _boundaries(spans: tuple[Range, ...], start: int, end: int) -> list[Range]:
    """The row spans (:func:`_row_spans`) that extend ``[start, end]``, innermost
    first, consecutive duplicates dropped."""
    kept: list[Range] = []
    for bounds in spans:
        if bounds[0] >= start and bounds[1] <= end:
            continue
        if kept and kept[-1] == bounds:
            continue
        kept.append(bounds)
    return kept


def _walk_boundaries(
    rows: _Rows, spans: tuple[Range, ...], start: int, end: int, budget: int
) -> tuple[int, int, int, bool]:
    """§3.3 step 2: adopt whole syntax boundaries while they fit; the first that does
    not fit ends the walk. Returns the rows, the budget left, and whether any was adopted."""
    adopted = False
    for bound_start, bound_end in _boundaries(spans, start, end):
        cost = 0
        if bound_start < start:
            cost += rows.tokens(bound_start, start)
        if bound_end > end:
            cost += rows.tokens(end + 1, bound_end + 1)
        if cost > budget:
            break
        budget -= cost
        start, end = min(start, bound_start), max(end, bound_end)
        adopted = True
    return start, end, budget, adopted


def compute_editable_and_context_ranges(
    excerpt: str,
    cursor: int,
    syntax_ranges: tuple[Range, ...] | list[Range] | None,
    editable_tokens: int,
    context_tokens: int,
) -> tuple[Range, Range]:
    """§3.3: ``(editable, context)`` character ranges of ``excerpt``; neither includes
    its last row's newline."""
    rows = _rows(excerpt)
    return _editable_and_context(rows, cursor, _row_spans(rows, syntax_ranges), editable_tokens, context_tokens)


def _editable_and_context(
    rows: _Rows, cursor: int, nodes: tuple[Range, ...], editable_tokens: int, context_tokens: int
) -> tuple[Range, Range]:
    """§3.3 with ``nodes``, the syntax ranges as row spans (:func:`_row_spans`)."""
    editable = _editable(rows, cursor, nodes, editable_tokens)
    return editable, _context(rows, nodes, editable, context_tokens)


def _editable(rows: _Rows, cursor: int, nodes: tuple[Range, ...], editable_tokens: int) -> Range:
    """§3.3's editable range, steps 1-4."""
    initial = (editable_tokens * 3) // 4
    s0, e0, left = _expand_symmetric(rows, rows.row_of(cursor), initial)
    remaining = left + (editable_tokens - initial)
    start, end, remaining, _ = _walk_boundaries(rows, nodes, s0, e0, remaining)
    prefer_up = (s0 - start) <= (end - e0)
    start, end, _ = _expand_linewise(rows, start, end, remaining, prefer_up)
    return rows.span(start, end)


def _context(rows: _Rows, nodes: tuple[Range, ...], editable: Range, context_tokens: int) -> Range:
    """§3.3's context range around an editable range."""
    start, end = rows.row_of(editable[0]), rows.row_of(editable[1])
    start, end, _, adopted = _walk_boundaries(rows, nodes, start, end, context_tokens)
    if not adopted:
        start, end, _ = _expand_linewise(rows, start, end, context_tokens, True)
    return rows.span(start, end)


def compute_legacy_excerpt_ranges(
    excerpt: str, cursor: int, syntax_ranges: tuple[Range, ...] | list[Range] | None
) -> ExcerptRanges:
    """§3.4: every precomputed pair, all optional fields set. The editable range of
    a budget does not depend on the context budget: each is computed once."""
    rows = _rows(excerpt)
    nodes = _row_spans(rows, syntax_ranges)
    e150, e180, e350, e512 = (_editable(rows, cursor, nodes, budget) for budget in (150, 180, 350, 512))

    def context(editable: Range, context_tokens: int) -> Range:
        return _context(rows, nodes, editable, context_tokens)

    return ExcerptRanges(
        editable_150=e150,
        editable_180=e180,
        editable_350=e350,
        editable_150_context_350=context(e150, 350),
        editable_180_context_350=context(e180, 350),
        editable_350_context_150=context(e350, 150),
        editable_512=e512,
        editable_350_context_512=context(e350, 512),
        editable_350_context_1024=context(e350, 1024),
        context_4096=context(e350, 4096),
        context_8192=context(e350, 8192),
    )


# -- §3.6 ------------------------------------------------------------------------


def compute_v0327_editable_range(excerpt: str, cursor: int, editable_tokens: int = 350) -> Range:
    """§3.6: a byte window of ``3 * E`` around the cursor, snapped to whole lines, then
    trimmed to V0318 marker boundaries (limits 6, 16) so the region starts and ends on
    a block edge."""
    if not excerpt:
        return 0, 0
    data = excerpt.encode("utf-8")
    cursor_b = nbytes(excerpt[:cursor])
    size = max(1, editable_tokens * 3)
    start_b = max(cursor_b - size // 2, 0)
    end_b = min(start_b + size, len(data))
    if end_b - start_b < size:
        start_b = max(end_b - size, 0)
    start_b = data.rfind(b"\n", 0, start_b) + 1
    newline = data.find(b"\n", end_b)
    end_b = len(data) if newline < 0 else newline + 1
    if start_b >= end_b:
        start_b = data.rfind(b"\n", 0, cursor_b) + 1
        newline = data.find(b"\n", cursor_b)
        end_b = len(data) if newline < 0 else newline + 1
    # both ends are line edges, hence character boundaries
    start = len(data[:start_b].decode("utf-8"))
    end = start + len(data[start_b:end_b].decode("utf-8"))

    offsets = compute_marker_offsets_with_limits(excerpt[start:end], *V0318_LIMITS)
    if len(offsets) <= 2:
        return start, end
    relative = cursor - start
    new_start = offsets[1] if relative >= offsets[1] else offsets[0]
    new_end = offsets[-2] if relative <= offsets[-2] else offsets[-1]
    if new_start >= new_end:
        block = cursor_block_index(offsets, relative)
        if offsets[block] >= offsets[block + 1]:
            return start, end
        new_start, new_end = offsets[block], offsets[block + 1]
    return start + new_start, start + new_end


# -- §3.5 ------------------------------------------------------------------------


def _fallback(ranges: ExcerptRanges, name: str, budgets: tuple[int, int]) -> tuple[Range, Range]:
    """§2.1's "Ranges when syntax_ranges is None" column."""
    if name == "V0304VariableEdit":
        context = ranges.editable_350_context_1024 or ranges.editable_350_context_512
        context = context or ranges.editable_350_context_150
        return context, context
    if name == "V0615HashRegions":
        context = ranges.context_8192 or ranges.editable_350_context_150
        return context, context
    editable_field, context_field = _FALLBACK_FIELDS[budgets]
    return getattr(ranges, editable_field), getattr(ranges, context_field)


def resolve_cursor_region(input: ZetaInput, format: _Named | str) -> CursorRegion:
    """§3.5: the context and editable range every formatter and parser uses.

    ``format`` is a ``ZetaFormat`` member (or its exact variant name). When neither
    ``syntax_ranges`` nor ``excerpt_ranges`` is set (Zed always sets the latter),
    the fallback ranges are computed from the excerpt with no syntax ranges.
    """
    name = format if isinstance(format, str) else format.name
    if name not in FORMAT_BUDGETS:
        raise ValueError(f"unknown Zeta format {name!r}")
    excerpt, cursor = input.cursor_excerpt, input.cursor_offset
    if name == "V0327SingleFile":
        context: Range = (0, len(excerpt))
        editable = compute_v0327_editable_range(excerpt, cursor, FORMAT_BUDGETS[name][0])
    elif input.syntax_ranges is not None:
        editable, context = compute_editable_and_context_ranges(
            excerpt, cursor, input.syntax_ranges, *FORMAT_BUDGETS[name]
        )
    else:
        ranges = input.excerpt_ranges or compute_legacy_excerpt_ranges(excerpt, cursor, None)
        editable, context = _fallback(ranges, name, FORMAT_BUDGETS[name])
    return CursorRegion(
        context_text=excerpt[context[0] : context[1]],
        editable_range=(editable[0] - context[0], editable[1] - context[0]),
        context_range=context,
        cursor=cursor - context[0],
    )
