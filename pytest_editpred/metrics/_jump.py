"""Jump location (§4.7): does the prediction edit the expected places? Only the last
tie-break between several expected patches."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._smells import parse_patch

JUMP_LOCATION_TOLERANCE = 20


@dataclass(frozen=True)
class JumpLocation:
    """Zed's ``patch_location_match`` counts (§4.7): edited files and edited rows.

    Precision and recall are 1 when all the counts are 0 (both patches empty): the
    prediction went nowhere and neither should it.
    """

    files_tp: int = 0
    files_fp: int = 0
    files_fn: int = 0
    lines_tp: int = 0
    lines_fp: int = 0
    lines_fn: int = 0

    @staticmethod
    def _rates(tp: int, fp: int, fn: int) -> tuple[float, float]:
        if tp == fp == fn == 0:
            return 1.0, 1.0
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
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
    def files_f1(self) -> float:
        return self._f1(*self._rates(self.files_tp, self.files_fp, self.files_fn))

    def to_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _anchors(patch: str) -> dict[str, set[int]]:
    """Per file, the 0-based old rows a patch edits.

    A deleted line anchors at its row. A run of ``+`` lines with no ``-`` line in it
    (a pure insertion) anchors at the rows on either side of the insertion point.
    """
    out: dict[str, set[int]] = {}
    for hunk in parse_patch(patch):
        rows = out.setdefault(hunk.path, set())
        row = max(hunk.old_start - 1, 0)
        lines = hunk.lines
        index = 0
        while index < len(lines):
            if lines[index][0] == " ":
                row += 1
                index += 1
                continue
            run_start = index
            while index < len(lines) and lines[index][0] != " ":
                index += 1
            run = lines[run_start:index]
            if any(prefix == "-" for prefix, _ in run):
                for prefix, _ in run:
                    if prefix == "-":
                        rows.add(row)
                        row += 1
            else:
                if row > 0:
                    rows.add(row - 1)
                rows.add(row)
    return out


def patch_location_match(expected_patch: str, actual_patch: str) -> JumpLocation:
    """Does the prediction edit where the expected patch does (§4.7)?

    Files are matched by path (an actual path may drop its first component, for
    repo-prefixed paths); rows greedily, nearest first, within ±20 rows.
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
        free = sorted(expected[target])
        for row in sorted(rows):
            best = None
            for candidate in free:
                distance = abs(candidate - row)
                if distance <= JUMP_LOCATION_TOLERANCE and (
                    best is None or distance < abs(best - row)
                ):
                    best = candidate
            if best is None:
                lines_fp += 1
            else:
                free.remove(best)
                lines_tp += 1
        lines_fn += len(free)
    files_fn = 0
    for path, rows in expected.items():
        if path not in matched:
            files_fn += 1
            lines_fn += len(rows)
    return JumpLocation(files_tp, files_fp, files_fn, lines_tp, lines_fp, lines_fn)
