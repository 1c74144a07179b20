"""The judge's answer of an item (the record's ``qa``) as the viewer shows it.

``qa`` is Zed's stored answer (``reasoning``, ``reverts_edits``, ``confidence``,
``response``, ``error``; absent keys left out), or ``None`` when no judge was asked.
It is read here as a plain mapping, as leniently as Zed reads it: a missing key or
``null`` is absent and unknown keys are ignored. A report read back may come from
anywhere, so a value of the wrong type (a confidence outside 0–255, a string
``"false"`` for the flag) is left out too, and the item's notes say so, rather than
the page failing: the same rule as a malformed part of a diff.

The list needs only the verdict (to filter and sort by), so the index gets
``[state, reverts, confidence]``; the reasoning and the raw answer, model output of
any length, go into the item's details, clipped like a prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._record import Record
from ._viewer_data import PAGE_TEXT_CHARS, _text, _whole

ACCEPTABLE, UNACCEPTABLE, ERROR = "acceptable", "unacceptable", "error"
ERROR_CHARS = 2_000  # of the error message (one line when this package wrote it)


def _judged(record: Record) -> tuple[dict[str, Any] | None, list[str]]:
    """The record's ``qa`` with every field of its type (or absent), and what was left out."""
    qa: object = record.get("qa")
    if qa is None:
        return None, []
    if not isinstance(qa, Mapping):
        return None, [f"The viewer left out this record's judge answer (qa): a {type(qa).__name__}, not an object."]
    fields: dict[str, Any] = {}
    wrong: list[str] = []
    for key, kind in (("reasoning", str), ("reverts_edits", bool), ("response", str), ("error", str)):
        value = qa.get(key)
        if isinstance(value, kind):
            fields[key] = value
        elif value is not None:
            wrong.append(key)
    confidence = qa.get("confidence")
    if _whole(confidence, 0, 255) is not None:
        fields["confidence"] = confidence
    elif confidence is not None:
        wrong.append("confidence")
    notes = [
        f"The viewer left out the judge's {', '.join(wrong)}: of the wrong type "
        "(reasoning, response and error are strings, reverts_edits true or false, confidence a whole number 0–255)."
    ]
    return fields, notes if wrong else []


def _state(qa: Mapping[str, Any]) -> str:
    """Judged acceptable (confidence 4 or more, not reverting), judged unacceptable,
    or no verdict: the judge could not be asked or answered no confidence."""
    confidence = qa.get("confidence")
    if confidence is None:
        return ERROR
    return ACCEPTABLE if confidence >= 4 and qa.get("reverts_edits") is not True else UNACCEPTABLE


def qa_entry(record: Record) -> list[Any] | None:
    """The item's index entry: ``[state, reverts_edits, confidence]``, or None when not judged."""
    qa, _ = _judged(record)
    if qa is None:
        return None
    return [_state(qa), qa.get("reverts_edits"), qa.get("confidence")]


def qa_detail(record: Record) -> tuple[dict[str, Any] | None, list[str]]:
    """What the opened item shows of its judge's answer, and the notes on what was
    left out. The raw answer is left out when it is the reasoning (an answer that was
    not JSON is both)."""
    qa, notes = _judged(record)
    if qa is None:
        return None, notes
    reasoning, response = qa.get("reasoning"), qa.get("response")
    detail = {
        "state": _state(qa),
        "reverts": qa.get("reverts_edits"),
        "confidence": qa.get("confidence"),
        "reasoning": _text(reasoning),
        "response": _text(response) if response != reasoning else None,
        "error": _text(qa.get("error"), ERROR_CHARS),
    }
    if reasoning is not None and len(reasoning) > PAGE_TEXT_CHARS:
        detail["reasoning_chars"] = len(reasoning)
    return {k: v for k, v in detail.items() if v is not None}, notes
