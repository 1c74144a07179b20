"""Zed's LLM judge (``ep qa``) without pytest: the word-diff format, the judge's
prompt, its answer read into a verdict (``../shared/reference/zed-qa-repair.md``
§1-§2).

A verdict is a second opinion beside exact match: it never changes an item's
outcome. Nothing here sends a request; the run and the ``editpred`` commands ask
the judge through their providers and hand its answer to :func:`parse_judge_answer`.
"""

from ._answer import PARSE_ERROR, parse_judge_answer
from ._result import ACCEPT_CONFIDENCE, QaResult
from ._word_diff import word_diff

__all__ = [
    "ACCEPT_CONFIDENCE",
    "PARSE_ERROR",
    "QaResult",
    "parse_judge_answer",
    "word_diff",
]
