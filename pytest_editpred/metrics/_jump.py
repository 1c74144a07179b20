"""Jump location (§4.7): does the prediction edit the expected places? Only the last
tie-break between several expected patches."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache

from ._smells import parse_patch

JUMP_LOCATION_TOLERANCE = 20

_CHANGE = ("+", "-")


@dataclass(frozen=True)
class JumpLocation:
    """Zed's ``patch_location_match`` counts (§4.7): edited files and edited rows.

    Precision is 1 when nothing was predicted (``tp + fp = 0``) and recall is 1 when
    nothing was expected (``tp + fn = 0``), each on its own. So both are 1 when the
    two patches are empty (the prediction went nowhere and neither should it), and
    a prediction that edits nothing where an edit was expected has precision 1 but
    recall 0. F1 is 0 when precision + recall is 0.
    """

    files_tp: int = 0
    files_fp: int = 0
    files_fn: int = 0
    lines_tp: int = 0
    lines_fp: int = 0
    lines_fn: int = 0

    @staticmethod
    def _rates(tp: int, fp: int, fn: int) -> tuple[float, float]:
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        return precision, recall

    @staticmethod
    def _f1(precision: float, recall: float) -> float:
        return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)

    @property
    def lines_precision(self) -> float:
        return self._rates(self.lines_tp, self.lines_fp, self.lines_fn)[0]

    @property
    def lines_recall(self) -> float:
        return self._rates(self.lines_tp, self.lines_fp, self.lines_fn)[1]

    @property
    def lines_f1(self) -> float:
        return self._f1(*self._rates(self.lines_tp, self.lines_fp, self.lines_fn))

    @property
    def files_precision(self) -> float:
        return self._rates(self.files_tp, self.files_fp, self.files_fn)[0]

    @property
    def files_recall(self) -> float:
        return self._rates(self.files_tp, self.files_fp, self.files_fn)[1]

    @property
    def files_f1(self) -> float:
        return self._f1(*self._rates(self.files_tp, self.files_fp, self.files_fn))

    def to_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@lru_cache(maxsize=32)  # the actual patch is read once for every candidate
def _anchors(patch: str) -> Mapping[str, tuple[int, ...]]:
    """Per edited file, the 0-based old rows a patch edits.

    A file is edited when one of its hunks has a ``+`` or ``-`` line; a file section
    with only context, garbage or headers is not there at all. A run of changes is
    a maximal sequence of ``+``/``-`` lines: context and garbage lines end it, and
    garbage takes no old row. A deleted line anchors at its old row. A run with no
    ``-`` line (a pure insertion) anchors at the old row of the context line right
    before it, when there is one, and at the old row of the context line right
    after it, when there is one. So an insertion at the start or end of a hunk, or
    beside a garbage line, lacks that side, and one with no context at all (a new
    file) has no anchors, though its file is still edited.
    """
    out: dict[str, set[int]] = {}
    for hunk in parse_patch(patch):
        lines = hunk.lines
        rows: set[int] = set()
        edited = False
        row = max(hunk.old_start - 1, 0)
        index = 0
        while index < len(lines):
            prefix = lines[index][0]
            if prefix not in _CHANGE:
                if prefix == " ":
                    row += 1
                index += 1
                continue
            edited = True
            run_start = index
            deletion = False
            while index < len(lines) and lines[index][0] in _CHANGE:
                if lines[index][0] == "-":
                    rows.add(row)
                    row += 1
                    deletion = True
                index += 1
            if not deletion:
                # no row moved inside the run: the context line before it is old
                # row ``row - 1``, the one after it old row ``row``
                if run_start > 0 and lines[run_start - 1][0] == " ":
                    rows.add(row - 1)
                if index < len(lines) and lines[index][0] == " ":
                    rows.add(row)
        if edited:
            out.setdefault(hunk.path, set()).update(rows)
    return {path: tuple(sorted(rows)) for path, rows in out.items()}


def _match_rows(expected: Sequence[int], actual: Sequence[int]) -> tuple[int, int, int]:
    """``(tp, fp, fn)`` of the greedy matching of two sorted lists of distinct rows.

    Each actual row, in ascending order, takes the nearest still-free expected row
    within ±20, the smaller one on a tie; with none it is a false positive. The
    window is found by bisection and holds at most 41 rows, so this is
    ``O(n log n)``, not quadratic.
    """
    taken = [False] * len(expected)
    tp = 0
    near = _near(expected, actual)
    fp = len(actual) - len(near)  # more than 20 rows from every expected row
    for row in near:
        best = -1
        best_distance = JUMP_LOCATION_TOLERANCE + 1
        index = bisect_left(expected, row - JUMP_LOCATION_TOLERANCE)
        while index < len(expected) and expected[index] <= row + JUMP_LOCATION_TOLERANCE:
            distance = abs(expected[index] - row)
            if not taken[index] and distance < best_distance:
                best, best_distance = index, distance
            index += 1
        if best < 0:
            fp += 1
        else:
            taken[best] = True
            tp += 1
    return tp, fp, len(expected) - tp


def _near(expected: Sequence[int], actual: Sequence[int]) -> list[int]:
    """The actual rows within ±20 of some expected row, in order (both sorted): the
    only ones the greedy matching can match, found per expected window by bisection."""
    if len(actual) <= 4 * len(expected):
        return list(actual)
    picked: set[int] = set()
    for row in expected:
        low = bisect_left(actual, row - JUMP_LOCATION_TOLERANCE)
        high = bisect_right(actual, row + JUMP_LOCATION_TOLERANCE)
        picked.update(range(low, high))
    return [actual[index] for index in sorted(picked)]


def patch_location_match(expected_patch: str, actual_patch: str) -> JumpLocation:
    """Does the prediction edit where the expected patch does (§4.7)?

    Edited files (see :func:`_anchors`) are matched by path (an actual path may drop
    its first component, for repo-prefixed paths); rows greedily, nearest first,
    within ±20 rows.
    """
    expected = _anchors(expected_patch)
    actual = _anchors(actual_patch)
    files_tp = files_fp = lines_tp = lines_fp = lines_fn = 0
    matched: set[str] = set()
    for path, rows in actual.items():
        target = path if path in expected else None
        if target is None:
            _, sep, rest = path.partition("/")
            if sep and rest in expected:
                target = rest
        if target is None or target in matched:
            files_fp += 1
            lines_fp += len(rows)
            continue
        matched.add(target)
        files_tp += 1
        tp, fp, fn = _match_rows(expected[target], rows)
        lines_tp += tp
        lines_fp += fp
        lines_fn += fn
    files_fn = 0
    for path, rows in expected.items():
        if path not in matched:
            files_fn += 1
            lines_fn += len(rows)
    return JumpLocation(files_tp, files_fp, files_fn, lines_tp, lines_fp, lines_fn)
