"""The judge: a completion function's :class:`Prediction` against the expected patches
(zed-format.md §4).

The stage after the model: the prediction is applied to the scene's buffers, matched
against every expected patch (cursor included), and scored with Zed's metrics in
Zed's scoring frame. The verdict says pass or fail and why, with a bounded diff.
"""

from ._prediction import Attempt, Prediction
from ._verdict import (
    Candidate,
    Verdict,
    draw_cursor,
    expected_candidates,
    failure_diff,
    judge,
    same_buffers,
)

__all__ = [
    "Attempt",
    "Candidate",
    "Prediction",
    "Verdict",
    "draw_cursor",
    "expected_candidates",
    "failure_diff",
    "judge",
    "same_buffers",
]
