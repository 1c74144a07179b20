"""Zed's LLM judge (``ep qa``) without pytest: the word-diff format, the judge's
prompt, its answer read into a verdict (``../shared/reference/zed-qa-repair.md``
§1-§2).

A verdict is a second opinion beside exact match: it never changes an item's
outcome. Nothing here sends a request; the run and the ``editpred`` commands ask
the judge through their providers and hand its answer to :func:`parse_judge_answer`.
"""

from ._answer import PARSE_ERROR, parse_judge_answer
from ._ep_example import ep_judge_prompt
from ._judge_prompt import DEFAULT_JUDGE_TEMPLATE, PLACEHOLDERS, judge_prompt, load_judge_template
from ._result import ACCEPT_CONFIDENCE, QaResult
from ._word_diff import word_diff

__all__ = [
    "ACCEPT_CONFIDENCE",
    "DEFAULT_JUDGE_TEMPLATE",
    "PARSE_ERROR",
    "PLACEHOLDERS",
    "QaResult",
    "ep_judge_prompt",
    "judge_prompt",
    "load_judge_template",
    "parse_judge_answer",
    "word_diff",
]
