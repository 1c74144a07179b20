"""§2.9.5 ``assemble_excerpt_ranges``: one file's definitions grown into excerpts.

Each definition's rows are widened to the outline item holding them (the whole item
when its body is small, else its header and closing rows; for a definition in a big
item's header, its direct children's headers too), then overlapping and nearly
touching ranges are merged. Linear after sorting: one pointer walks the outline
items once for all the definitions of the file.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._buffer import Buffer, Point
from ._outline import Item, body_range

__all__ = ["MAX_OUTLINE_ITEM_BODY_SIZE", "Range", "assemble_excerpt_ranges", "merge_ranges"]

MAX_OUTLINE_ITEM_BODY_SIZE = 512

#: ``(start, end, order)``: a point range and the smallest rank merged into it.
Range = tuple[Point, Point, int]


def merge_ranges(ranges: Sequence[Range]) -> list[Range]:
    """Sort by (start, end descending); a range starting at or before the row after
    the previous one's end (its end moved to the next row's start when mid-row) joins
    it, taking the larger end and the smaller order."""
    merged: list[Range] = []
    for start, end, order in sorted(ranges, key=lambda r: (r[0], (-r[1][0], -r[1][1]))):
        if merged:
            p_start, p_end, p_order = merged[-1]
            row = p_end[0] + 1 if p_end[1] > 0 else p_end[0]
            if start <= (row + 1, 0):
                merged[-1] = p_start, max(p_end, end), min(p_order, order)
                continue
        merged.append((start, end, order))
    return merged


def _outward(buffer: Buffer, start: Point, end: Point) -> tuple[Point, Point]:
    return (start[0], 0), (end[0], buffer.line_len(end[0]) if end[1] > 0 else 0)


def _inward(buffer: Buffer, start: Point, end: Point) -> tuple[Point, Point]:
    return (start[0], buffer.line_len(start[0])) if start[1] > 0 else start, (end[0], 0)


def _add_item(
    added: list[Range], buffer: Buffer, item: tuple[Point, Point], body: tuple[Point, Point] | None, order: int
) -> None:
    """``add_outline_item``: a head and a tail around a body, or the whole item."""
    start, end = item
    if body is None:
        added.append(((start[0], 0), (end[0], buffer.line_len(end[0])), order))
        return
    head_end = (body[0][0], buffer.line_len(body[0][0])) if body[0][1] > 0 else body[0]
    if start < head_end:
        added.append((start, head_end, order))
    tail_start = (body[1][0], 0)
    if tail_start < end:
        added.append((tail_start, end, order))


def assemble_excerpt_ranges(
    buffer: Buffer,
    items: Sequence[Item],
    language: str | None,
    definitions: Sequence[tuple[Point, Point, int]],
    *,
    max_body: int = MAX_OUTLINE_ITEM_BODY_SIZE,
) -> list[Range]:
    """The final ranges of one file from its ``(start, end, rank)`` definitions and its
    outline ``items`` (sorted as :func:`~._outline.outline_items` sorts them)."""
    inputs = merge_ranges([(*_outward(buffer, start, end), rank) for start, end, rank in definitions])
    added: list[Range] = []
    pointer = 0
    for r_start, _r_end, order in inputs:
        while pointer < len(items):
            item = items[pointer]
            ir = _outward(buffer, item.start_point, item.end_point)
            if ir[0] > r_start:
                break
            if ir[1] > r_start:
                raw = body_range(item, buffer, language) if language is not None else None
                body = _inward(buffer, *raw) if raw is not None else None
                if body is not None and buffer.offset(body[1]) - buffer.offset(body[0]) <= max_body:
                    body = None
                _add_item(added, buffer, ir, body, order)
                if body is not None and r_start < body[0]:
                    for child in items[pointer + 1 :]:
                        if child.end_point > body[1]:
                            break
                        if child.depth == item.depth + 1:
                            child_raw = body_range(child, buffer, language) if language is not None else None
                            child_body = _inward(buffer, *child_raw) if child_raw is not None else None
                            _add_item(
                                added, buffer, _outward(buffer, child.start_point, child.end_point), child_body, order
                            )
            pointer += 1
    return merge_ranges([*inputs, *added])
