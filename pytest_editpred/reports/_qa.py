"""The LLM judge's answers in the reports: a record's ``qa`` read as ``ep`` reads it.

A record's ``qa`` (:class:`~._record.RecordedQa`) is Zed's ``qa`` entry of the item's
prediction, or None when no judge was asked. This module is everything the reports
do with it, from the plain dict (no import of the judge itself): the table's QaRev
and QaConf cells and Zed's averages (zed-qa-repair.md §5), and Zed's ``qa`` list of
an ep JSON example (§2.9).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "QA_KEYS",
    "ep_qa",
    "qa_averages",
    "qa_cells",
    "with_ep_qa",
]

#: The keys of Zed's ``qa`` entry, in the order Zed writes them.
QA_KEYS = ("reasoning", "reverts_edits", "confidence", "response", "error")

#: The fields of an ep JSON example that ``qa`` follows, in Zed's order of them.
_BEFORE_QA = ("prompt_inputs", "prompt", "predictions", "score")


def qa_cells(qa: Mapping[str, object] | None) -> tuple[str, str]:
    """The ``ep eval`` row's QaRev and QaConf (§5.1): ``yes``/``no`` and the
    confidence in decimal; ``-`` for each that is absent."""
    if qa is None:
        return "-", "-"
    reverts = qa.get("reverts_edits")
    confidence = qa.get("confidence")
    return (
        ("yes" if reverts else "no") if isinstance(reverts, bool) else "-",
        str(confidence) if isinstance(confidence, int) and not isinstance(confidence, bool) else "-",
    )


def qa_averages(entries: Iterable[Mapping[str, object] | None]) -> tuple[float | None, float | None]:
    """Zed's ``qa_avg_reverts_edits`` and ``qa_avg_confidence`` (§5.3) over the score
    rows' ``qa`` entries, as ``f32`` values: the share of entries with a
    ``reverts_edits`` that say true (an ``f32`` division), and the mean of the
    confidences (summed and divided in ``f64``, then cast to ``f32``). Each None when no
    entry has its field; an entry with neither (an error) counts in neither."""
    from ._float32 import float32

    reverts = with_field = 0
    confidences: list[int] = []
    for qa in entries:
        if qa is None:
            continue
        flag = qa.get("reverts_edits")
        if isinstance(flag, bool):
            with_field += 1
            reverts += flag
        confidence = qa.get("confidence")
        if isinstance(confidence, int) and not isinstance(confidence, bool):
            confidences.append(confidence)
    share = float32(float32(reverts) / float32(with_field)) if with_field else None
    mean = float32(math.fsum(confidences) / len(confidences)) if confidences else None
    return share, mean


def ep_qa(entries: Iterable[Mapping[str, object] | None]) -> list[dict[str, object] | None]:
    """Zed's ``qa`` list of an ep JSON example (§2.9), one entry per prediction in
    the order of ``predictions`` (None for a prediction not judged): each entry's keys
    in Zed's order, those absent or null left out, any other key dropped."""
    return [None if qa is None else {key: qa[key] for key in QA_KEYS if qa.get(key) is not None} for qa in entries]


def with_ep_qa(example: Mapping[str, Any], entries: Sequence[Mapping[str, object] | None]) -> dict[str, Any]:
    """The ep JSON ``example`` with its ``qa`` set to :func:`ep_qa` of ``entries``, in
    Zed's place (after ``score``, ``predictions``, ``prompt`` or ``prompt_inputs``,
    the last of them it has, else last), or left out when ``entries`` is empty, as Zed
    leaves an empty list out. Every other field is kept as it is, in its order."""
    fields = {key: value for key, value in example.items() if key != "qa"}
    if not entries:
        return fields
    qa = ep_qa(entries)
    anchor = next((key for key in reversed(_BEFORE_QA) if key in fields), None)
    if anchor is None:
        return {**fields, "qa": qa}
    out: dict[str, Any] = {}
    for key, value in fields.items():
        out[key] = value
        if key == anchor:
            out["qa"] = qa
    return out
