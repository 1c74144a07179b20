"""Jump location (§4.7): does the prediction edit the expected places? Only the last
tie-break between several expected patches."""

from __future__ import annotations

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


@dataclass(frozen=True)
class PatchAnchors:
    """What the jump location and the context coverage read of a patch: per file,
    the rows its changes anchor on (files with none left out), and the files it
    edits, in order."""

    rows: Mapping[str, tuple[int, ...]]
    edited: tuple[str, ...]


@lru_cache(maxsize=32)  # the actual patch is read once for every candidate
def patch_anchors(patch: str) -> PatchAnchors:
    """Per file, the 0-based old rows a patch's changes anchor on (Zed's rules).

    Each hunk's old row starts at ``max(old_start - 1, 0)``. A context line sets
    "the last context row" and takes a row. A run of changes is a maximal sequence
    of ``+``/``-`` lines; any other line ends it. A deleted line anchors at its old
    row. A run with no ``-`` line (a pure insertion) anchors at the last context
    row, if one is set, and at the current old row, if the line right after the
    run is context. After every run the last context row is cleared. Garbage lines
    (the empty line too) take no row and neither set nor clear it, so a context
    line, a blank line, then an insertion still anchors on that context line. An
    insertion with no context at all (a new file) has no anchors. A file is
    *edited* when one of its hunks has a ``+`` or ``-`` line.
    """
    out: dict[str, set[int]] = {}
    edited: dict[str, None] = {}
    for hunk in parse_patch(patch):
        rows = out.setdefault(hunk.path, set())
        lines = hunk.lines
        row = max(hunk.old_start - 1, 0)
        last_context: int | None = None
        index = 0
        while index < len(lines):
            prefix = lines[index][0]
            if prefix not in _CHANGE:
                if prefix == " ":
                    last_context = row
                    row += 1
                index += 1
                continue
            edited[hunk.path] = None
            deletion = False
            while index < len(lines) and lines[index][0] in _CHANGE:
                if lines[index][0] == "-":
                    rows.add(row)
                    row += 1
                    deletion = True
                index += 1
            if not deletion:
                if last_context is not None:
                    rows.add(last_context)
                if index < len(lines) and lines[index][0] == " ":
                    rows.add(row)
            last_context = None
    return PatchAnchors({path: tuple(sorted(rows)) for path, rows in out.items() if rows}, tuple(edited))


def _match_rows(expected: Sequence[int], actual: Sequence[int]) -> tuple[int, int, int]:
    """``(tp, fp, fn)`` of Zed's greedy matching of two sorted lists of distinct rows.

    Each actual row, in ascending order, takes the **smallest** still-unmatched
    expected row within ±20 (not the nearest one); with none it is a false
    positive. As the actual rows ascend, so does the window's lower end, and the
    matched expected rows are always the smallest ones in reach: one pointer
    walks the expected rows, so this is linear.
    """
    tp = 0
    index = 0
    for row in actual:
        while index < len(expected) and expected[index] < row - JUMP_LOCATION_TOLERANCE:
            index += 1
        if index < len(expected) and expected[index] <= row + JUMP_LOCATION_TOLERANCE:
            tp += 1
            index += 1
    return tp, len(actual) - tp, len(expected) - tp


def patch_location_match(expected_patch: str, actual_patch: str) -> JumpLocation:
    """Does the prediction edit where the expected patch does (§4.7)?

    The expected files are the ones the expected patch edits (see
    :func:`patch_anchors`); the actual files are the ones with at least one anchor row,
    so a context-less insertion in the prediction counts nowhere. An actual file
    matches an expected one by path (or after dropping its first component, for
    repo-prefixed paths); rows are matched by :func:`_match_rows`.
    """
    expected = patch_anchors(expected_patch)
    actual = patch_anchors(actual_patch).rows
    files_tp = files_fp = lines_tp = lines_fp = lines_fn = 0
    matched: set[str] = set()
    edited = set(expected.edited)
    for path, rows in actual.items():
        target = path if path in edited else None
        if target is None:
            _, sep, rest = path.partition("/")
            if sep and rest in edited:
                target = rest
        if target is None or target in matched:
            files_fp += 1
            lines_fp += len(rows)
            continue
        matched.add(target)
        files_tp += 1
        tp, fp, fn = _match_rows(expected.rows.get(target, ()), rows)
        lines_tp += tp
        lines_fp += fp
        lines_fn += fn
    files_fn = 0
    for path in expected.edited:
        if path not in matched:
            files_fn += 1
            lines_fn += len(expected.rows.get(path, ()))
    return JumpLocation(files_tp, files_fp, files_fn, lines_tp, lines_fp, lines_fn)
