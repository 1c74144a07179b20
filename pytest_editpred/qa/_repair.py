"""Zed's ``ep repair`` without the model call (zed-qa-repair.md §3): which predictions
need a second try, the message that asks for it, and the answer read back.

A teacher's prediction that the judge rejects (it reverts the user's edits, or its
confidence is 2 or less), or that the scores flag when no judge looked (a reversal
ratio over 0.9, an edit outside the editable region), is sent back to a model as a
third turn after the teacher's own prompt and answer: the feedback, the token count
of the change, and the prediction as a word diff. The model answers in the teacher's
format, or ``NO_EDITS``, or ``KEEP_PREVIOUS`` (the previous prediction stands).

The labels inside the feedback and the token statistics are Zed's code's prose,
which the specification does not give: those sentences are ours, their layout
Zed's (the template is ``_repair_template``).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from .._exceptions import PredictionError, RepairError
from ._prediction import ExamplePrediction, teacher_prediction
from ._repair_template import DEFAULT_REPAIR_TEMPLATE, REPAIR_PLACEHOLDERS
from ._result import QaResult
from ._word_diff import word_diff

if TYPE_CHECKING:
    from ..zeta import ZetaInput

__all__ = [
    "CONFIDENCE_THRESHOLD",
    "KEEP_PREVIOUS",
    "REPAIR_PROVIDER",
    "needs_repair",
    "parse_repair_answer",
    "quality_feedback",
    "repair_conversation",
    "repair_message",
    "token_change_info",
]

#: ``--confidence-threshold``'s default: a judged confidence at or below it is repaired.
CONFIDENCE_THRESHOLD = 2
KEEP_PREVIOUS = "KEEP_PREVIOUS"
REPAIR_PROVIDER = "repair"
#: Zed compares ``reversal_ratio``, an f32, with the f32 0.9 (0.89999998).
_REVERSAL_LIMIT = 0.9
_DISCARDED_CHARS_LIMIT = 80
_EXACT_LINES_FP_LIMIT = 5
_TOKEN_NOTE_LIMIT = 100

_NO_REASONING = "No reasoning provided"  # Zed's words (§3.5)
_SCORE_INTRO = "Nobody has reviewed this prediction, but automatic scoring found possible problems"
_REVERSAL = (
    "The reversal ratio is high ({ratio}): the prediction may undo changes the user made on purpose. "
    "Check it again: keep it if its edits really continue what the user did, otherwise predict "
    "something that carries the user's intent forward."
)
_WRONG_REGION = (
    "The prediction may change code outside the editable region, or not line up with its boundaries. "
    "Change only the editable region and keep to its boundaries."
)
_TOO_LARGE = (
    "The prediction may be too large or too speculative. Review it, then keep it or make it more "
    "focused, for example: - write a function's outline without its body - make only the first "
    "logical step of a larger change\n            Smaller predictions are more likely to be right."
)
_REMINDER = (
    "If the previous prediction was right after all, output `KEEP_PREVIOUS`. If no edit should be "
    "made and you do not see how to improve it, output `NO_EDITS`."
)
_TOKEN_NOTE = (
    "Many tokens change. Prefer a narrower edit that touches only the lines that must change over "
    "rewriting large sections."
)


def _f32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def _judged(qa: QaResult | None) -> bool:
    """Zed's "QA present": a judge's answer is there. A verdict holding nothing but
    an error (the judge was not reached) or nothing at all (``QaResult.from_json(None)``:
    no judge was asked) is what Zed records as no QA, so the scores decide."""
    return qa is not None and any(
        value is not None for value in (qa.response, qa.reasoning, qa.reverts_edits, qa.confidence)
    )


def _flags(metrics: Mapping[str, object] | None) -> tuple[float | None, bool]:
    """``score[0]``'s reversal ratio (as Zed's f32) when over the limit, and whether
    the prediction edits outside its region; ``{}`` (not scored) has neither."""
    if not metrics:
        return None, False
    ratio = metrics.get("reversal_ratio")
    high = None
    if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) and _f32(ratio) > _f32(_REVERSAL_LIMIT):
        high = _f32(ratio)
    return high, metrics.get("wrong_editable_region") is True


def needs_repair(
    qa: QaResult | None, metrics: Mapping[str, object] | None, *, threshold: int = CONFIDENCE_THRESHOLD
) -> bool:
    """§3.2: the judge's verdict when there is one (it reverts the user's edits, or
    its confidence is at most ``threshold``; a verdict with neither is no repair),
    else the scores (``metrics``, a record's Zed score: a reversal ratio over 0.9,
    or an edit outside the editable region)."""
    if _judged(qa):
        assert qa is not None
        if qa.reverts_edits is True:
            return True
        return qa.confidence is not None and qa.confidence <= threshold
    ratio, wrong_region = _flags(metrics)
    return ratio is not None or wrong_region


def _number(metrics: Mapping[str, object], key: str) -> float:
    value = metrics.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def quality_feedback(qa: QaResult | None, metrics: Mapping[str, object] | None) -> str:
    """``{quality_feedback}`` (§3.5): the judge's verdict in three lines, or, with no
    verdict, the issues the scores flag. :class:`RepairError` when there is neither
    (no repair was needed)."""
    if _judged(qa):
        assert qa is not None
        reverts = "unknown" if qa.reverts_edits is None else "yes" if qa.reverts_edits else "no"
        confidence = "unknown" if qa.confidence is None else str(qa.confidence)
        reasoning = _NO_REASONING if qa.reasoning is None else qa.reasoning
        return (
            f"- **Reverts the user's edits**: {reverts}\n"
            f"- **Confidence**: {confidence}/5\n"
            f"- **Reviewer's reasoning**: {reasoning}"
        )
    issues = []
    ratio, wrong_region = _flags(metrics)
    if ratio is not None:
        issues.append(_REVERSAL.format(ratio=f"{ratio:.2f}"))
    if wrong_region:
        issues.append(_WRONG_REGION)
    if metrics and (
        _number(metrics, "discarded_chars") > _DISCARDED_CHARS_LIMIT
        and _number(metrics, "exact_lines_fp") > _EXACT_LINES_FP_LIMIT
    ):
        issues.append(_TOO_LARGE)
    if not issues:
        raise RepairError(
            "no quality feedback available: the prediction has no judge's verdict and its scores flag nothing",
            fix="Repair only the predictions needs_repair() selects.",
        )
    return _SCORE_INTRO + ":\n\n" + "".join(f"- {issue}\n" for issue in issues) + "\n" + _REMINDER


def token_change_info(actual_patch: str) -> str:
    """``{token_change_info}`` (§3.6): the tokens the patch deletes and inserts, by
    Zed's ``count_patch_token_changes`` (the metrics tokenizer, ``similar``'s Myers
    counts), and a note when either is over 100."""
    from ..metrics import token_changes

    changes = token_changes(actual_patch)
    deleted, inserted = changes.deleted_tokens, changes.inserted_tokens
    text = f"\n## Token changes\n\n- **Tokens deleted**: {deleted}\n- **Tokens inserted**: {inserted}"
    if deleted > _TOKEN_NOTE_LIMIT or inserted > _TOKEN_NOTE_LIMIT:
        text += f"\n\n> **Note:** {_TOKEN_NOTE}"
    return text


def repair_message(
    actual_patch: str,
    qa: QaResult | None,
    metrics: Mapping[str, object] | None,
    *,
    template: str = DEFAULT_REPAIR_TEMPLATE,
) -> str:
    """The third turn of the repair conversation (§3.4): ``template`` with the
    previous prediction's word diff, the feedback and the token statistics."""
    values = {
        "actual_patch_word_diff": word_diff(actual_patch),
        "quality_feedback": quality_feedback(qa, metrics),
        "token_change_info": token_change_info(actual_patch),
    }
    for name in REPAIR_PLACEHOLDERS:
        template = template.replace("{" + name + "}", values[name])
    return template


def repair_conversation(prompt: str | None, output: str | None, message: str) -> list[dict[str, str]]:
    """The three turns Zed sends (§3.3): the teacher's prompt and answer, verbatim,
    then ``message``. :class:`RepairError` when the record lacks either."""
    if not prompt:
        raise RepairError(
            "the prediction has no prompt to repair against",
            fix="Repair a run of a teacher prompt (--editpred-prompt-format teacher): its records keep the prompt.",
        )
    if not output:
        raise RepairError(
            "the teacher's answer is empty", fix="Repair a run whose records keep the model's raw answer."
        )
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": output},
        {"role": "user", "content": message},
    ]


def parse_repair_answer(
    answer: str, previous: ExamplePrediction, input: ZetaInput | None, prompt: str | None
) -> ExamplePrediction:
    """``repair::parse`` (§3.7) as the prediction Zed appends (§3.8).

    ``KEEP_PREVIOUS`` anywhere in the answer keeps ``previous`` (its patch, or
    ``""``, and its cursor); otherwise the answer is read as a teacher answer
    against ``prompt`` and ``input`` (``NO_EDITS`` is the patch ``""``). An answer
    that cannot be placed is a prediction with no patch and Zed's ``error``.
    """
    if KEEP_PREVIOUS in answer:
        return ExamplePrediction(previous.actual_patch or "", answer, previous.actual_cursor, provider=REPAIR_PROVIDER)
    try:
        return replace(teacher_prediction(input, prompt, answer), provider=REPAIR_PROVIDER)
    except PredictionError as error:
        return ExamplePrediction(
            None, answer, error=f"Failed to parse repair response: {error.reason}", provider=REPAIR_PROVIDER
        )
