"""§2.1: the ranges the editable collectors add, split so they never overlap.

Every collector adds :class:`Range` s to a per-buffer list; a buffer's list becomes
one related file by :func:`split_overlapping_ranges`, which cuts overlapping ranges
at their boundaries and gives each piece to its most important range (lowest
``order``, then the strongest source). ``O(r log r + r·b)`` for ``r`` ranges and
``b`` boundaries of a cluster; a buffer gets a few dozen ranges at most (20 history
entries, 12 bm25 chunks, 10 git-log files, the oracle's hunks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ._buffer import Point

__all__ = ["BRIDGED_GAP_LINE_COUNT", "SOURCE_PRIORITY", "Range", "split_overlapping_ranges"]

BRIDGED_GAP_LINE_COUNT: Final = 3

SOURCE_PRIORITY: Final = {
    "lsp": 0,
    "cursor_excerpt": 1,
    "current_file": 2,
    "edit_history": 3,
    "edit_history_file": 4,
    "git_log": 5,
    "bm25": 6,
    "oracle_snippet": 7,
    "oracle_file": 8,
}
"""§1: ties of ``order`` go to the smaller number (Zed's ``ContextSource`` order)."""


@dataclass(frozen=True)
class Range:
    """A piece of a buffer, ``start`` to ``end``, from ``source`` with priority ``order``."""

    start: Point
    end: Point
    order: int
    source: str

    @property
    def rank(self) -> tuple[int, int]:
        return (self.order, SOURCE_PRIORITY[self.source])


def _align(point: Point) -> Point:
    """The next row start at or after ``point``."""
    return (point[0] + 1, 0) if point[1] > 0 else point


def _split_cluster(cluster: list[Range], out: list[Range]) -> None:
    if len(cluster) == 1:
        out.append(cluster[0])
        return
    first = cluster[0].start
    end = max(r.end for r in cluster)
    points = {first}
    for r in cluster:
        points.add(r.start)
        points.add(_align(r.end))
    bounds = sorted(b for b in points if first <= b < end)
    bounds.append(end)
    last: Range | None = None  # the previous output segment, while it can grow
    for a, b in zip(bounds, bounds[1:]):
        covering = [r for r in cluster if r.start <= a and _align(r.end) >= b]
        if covering:
            best = min(covering, key=lambda r: r.rank)
            if last is not None and last.end == a and last.order == best.order:
                source = best.source if best.rank < last.rank else last.source
                last = out[-1] = Range(last.start, b, last.order, source)
            else:
                last = Range(a, b, best.order, best.source)
                out.append(last)
        elif last is not None and last.end == a:  # a bridged gap joins the segment before
            last = out[-1] = Range(last.start, b, last.order, last.source)


def split_overlapping_ranges(ranges: list[Range]) -> list[Range]:
    """Disjoint ranges sorted by position (Zed's ``split_overlapping_ranges``).

    Ranges within 3 rows of each other form a cluster; a cluster is cut at every
    range's start and row-aligned end, each covered piece goes to its best range,
    neighbours of equal order are joined, and a gap between covered pieces is
    bridged only when it follows a piece.
    """
    out: list[Range] = []
    cluster: list[Range] = []
    cluster_end: Point = (0, 0)
    for r in sorted(ranges, key=lambda r: (r.start, r.end)):
        if cluster and r.start[0] > _align(cluster_end)[0] + BRIDGED_GAP_LINE_COUNT:
            _split_cluster(cluster, out)
            cluster = []
        if not cluster:
            cluster_end = r.end
        cluster.append(r)
        cluster_end = max(cluster_end, r.end)
    if cluster:
        _split_cluster(cluster, out)
    return out
