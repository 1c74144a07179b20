"""Counts of right and wrong changed lines (§4.4): precision, recall, F1."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from .._diff import split_lines

# ---------------------------------------------------------------- classification counts


@dataclass(frozen=True)
class ClassificationMetrics:
    """Zed's ``ClassificationMetrics``: TP/FP/FN of two multisets (§4.3 step 4).

    Precision and recall are 0, not undefined, when their denominator is 0: a
    prediction that changes nothing has no precision to speak of.
    """

    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0

    @classmethod
    def from_counts(cls, expected: Mapping[str, int], actual: Mapping[str, int]) -> ClassificationMetrics:
        tp = fp = fn = 0
        for key, want in expected.items():
            got = actual.get(key, 0)
            if got > want:
                tp += want
                fp += got - want
            else:
                tp += got
                fn += want - got
        for key, got in actual.items():
            if key not in expected:
                fp += got
        return cls(tp, fp, fn)

    @property
    def precision(self) -> float:
        denominator = self.true_positives + self.false_positives
        return self.true_positives / denominator if denominator else 0.0

    @property
    def recall(self) -> float:
        denominator = self.true_positives + self.false_negatives
        return self.true_positives / denominator if denominator else 0.0

    @property
    def f1(self) -> float:
        precision, recall = self.precision, self.recall
        if precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)


# ---------------------------------------------------------------------------- exact lines

_PATCH_META = ("---", "+++", "@@", "diff ", "index ")


@lru_cache(maxsize=32)  # the actual patch is read once for every candidate
def _changed_lines(patch: str) -> Mapping[str, int]:
    """Zed's ``extract_changed_lines_from_diff``: ``+``/``-`` lines, prefix kept
    (shared between calls: read it, never change it)."""
    counts: Counter[str] = Counter()
    for line in split_lines(patch):
        if line.startswith(_PATCH_META):
            continue
        if line.startswith(("+", "-")):
            counts[line] += 1
    return counts


def exact_lines_match(expected_patch: str, actual_patch: str) -> ClassificationMetrics:
    """Exact lines match (§4.4): the multisets of changed lines, whitespace and all.

    Unlike chrF this is strict: the same change at another indentation misses
    (§7.13).
    """
    return ClassificationMetrics.from_counts(_changed_lines(expected_patch), _changed_lines(actual_patch))
