"""The judge: a completion function's :class:`Prediction` against the expected patches
(zed-format.md §4).

The stage after the model: the prediction is applied to the scene's buffers, matched
against every expected patch (cursor included), and scored with Zed's metrics in
Zed's scoring frame. The verdict says pass or fail and why; a failure shows a
bounded diff, the hunks nearest the cursor first (:mod:`._failure`).
"""

from ._failure import MAX_DIFF_LINES, FailureDiff, draw_cursor, failure_diff
from ._prediction import Attempt, Prediction
from ._verdict import (
    Candidate,
    Verdict,
    expected_candidates,
    judge,
    same_buffers,
)

__all__ = [
    "MAX_DIFF_LINES",
    "Attempt",
    "Candidate",
    "FailureDiff",
    "Prediction",
    "Verdict",
    "draw_cursor",
    "expected_candidates",
    "failure_diff",
    "judge",
    "same_buffers",
]
