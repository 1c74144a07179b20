"""Zed's LLM judge (``ep qa``) without pytest: the word-diff format, the judge's
prompt, its answer read into a verdict (``../shared/reference/zed-qa-repair.md``
§1-§2); and the teacher loop after it (§3-§4): the predictions that need repair,
the message that asks for it and the answer read back (``ep repair``), and the
chosen predictions made expected patches (``ep distill``).

A verdict is a second opinion beside exact match: it never changes an item's
outcome. Nothing here sends a request; the run and the ``editpred`` commands ask
the judge through their providers and hand its answer to :func:`parse_judge_answer`.
"""

from ._answer import PARSE_ERROR, parse_judge_answer
from ._distill import chosen_predictions, distill, expected_patch_of
from ._ep_example import ep_judge_prompt
from ._judge_prompt import DEFAULT_JUDGE_TEMPLATE, PLACEHOLDERS, judge_prompt, load_judge_template
from ._prediction import ActualCursor, ExamplePrediction, teacher_prediction
from ._repair import (
    CONFIDENCE_THRESHOLD,
    KEEP_PREVIOUS,
    REPAIR_PROVIDER,
    needs_repair,
    parse_repair_answer,
    quality_feedback,
    repair_conversation,
    repair_message,
    token_change_info,
)
from ._repair_template import DEFAULT_REPAIR_TEMPLATE, REPAIR_PLACEHOLDERS, load_repair_template
from ._result import ACCEPT_CONFIDENCE, QaResult
from ._word_diff import word_diff

__all__ = [
    "ACCEPT_CONFIDENCE",
    "CONFIDENCE_THRESHOLD",
    "DEFAULT_JUDGE_TEMPLATE",
    "DEFAULT_REPAIR_TEMPLATE",
    "KEEP_PREVIOUS",
    "PARSE_ERROR",
    "PLACEHOLDERS",
    "REPAIR_PLACEHOLDERS",
    "REPAIR_PROVIDER",
    "ActualCursor",
    "ExamplePrediction",
    "QaResult",
    "chosen_predictions",
    "distill",
    "ep_judge_prompt",
    "expected_patch_of",
    "judge_prompt",
    "load_judge_template",
    "load_repair_template",
    "needs_repair",
    "parse_judge_answer",
    "parse_repair_answer",
    "quality_feedback",
    "repair_conversation",
    "repair_message",
    "teacher_prediction",
    "token_change_info",
    "word_diff",
]
