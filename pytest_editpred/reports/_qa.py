"""The LLM judge's answers in the reports: a record's ``qa`` read as ``ep`` reads it.

A record's ``qa`` (:class:`~._record.RecordedQa`) is Zed's ``qa`` entry of the item's
prediction, or None when no judge was asked. This module is everything the reports
do with it, from the plain dict (no import of the judge itself): the table's QaRev
and QaConf cells and Zed's averages (zed-qa-repair.md §5), Zed's ``qa`` list of an
ep JSON example (§2.9), and what ``ep`` does not say: how often the judge agrees with
the verdict, and the judged-acceptable rate the ``--editpred-fail-under-qa`` gate
reads.

"Judged acceptable" is the judge's yes: a confidence of 4 or more and no revert of
the user's own edits. An answer without a confidence (an error, or a judge that left
it out) is no verdict either way and counts in no rate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._record import Record

__all__ = [
    "QA_KEYS",
    "ep_qa",
    "qa_acceptable",
    "qa_averages",
    "qa_cells",
    "qa_counts",
    "qa_line",
    "with_ep_qa",
]

#: The keys of Zed's ``qa`` entry, in the order Zed writes them.
QA_KEYS = ("reasoning", "reverts_edits", "confidence", "response", "error")

#: The fields of an ep JSON example that ``qa`` follows, in Zed's order of them.
_BEFORE_QA = ("prompt_inputs", "prompt", "predictions", "score")


def qa_acceptable(qa: Mapping[str, object] | None) -> bool | None:
    """The judge's verdict on one prediction: True when its ``qa`` has a confidence
    of 4 or more and does not say it reverts the user's edits, False when it has a
    lower one or says it reverts them; None when there is no verdict (no ``qa``, or
    one without a confidence: an error, a parse failure)."""
    if qa is None:
        return None
    confidence = qa.get("confidence")
    if not isinstance(confidence, int) or isinstance(confidence, bool):
        return None
    return confidence >= 4 and qa.get("reverts_edits") is not True


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


def qa_counts(records: Iterable[Record]) -> tuple[int, int]:
    """``(acceptable, judged)``: the predictions the judge gave a verdict on, and how
    many of them it judged acceptable (the rate ``--editpred-fail-under-qa`` reads)."""
    verdicts = [qa_acceptable(r.get("qa")) for r in records]
    judged = [v for v in verdicts if v is not None]
    return sum(judged), len(judged)


def qa_line(records: Sequence[Record]) -> str | None:
    """The LLM judge's line of the summary: the judged-acceptable rate, and how often
    the judge disagrees with the verdict, accepting predictions that FAILED and
    rejecting ones that PASSED, each with its 95% interval over examples (the
    trials of one example clustered, as the pass rate's:
    :func:`~._stats.clustered_rate_interval`). None when no judge was asked."""
    from ._lines import by_example
    from ._stats import clustered_rate_interval

    asked = [r for r in records if r.get("qa") is not None]
    examples = by_example(asked)  # skipped ones left out: they have no prediction
    if not examples:
        return None
    # Per example: [judged, acceptable, failed, accepted of them, passed, rejected of them]
    tallies = []
    for trials in examples.values():
        tally = [0] * 6
        for record in trials:
            verdict = qa_acceptable(record.get("qa"))
            if verdict is None:
                continue
            fails, passes = record["outcome"] == "failed", record["outcome"] == "passed"
            for index, count in enumerate((1, verdict, fails, fails and verdict, passes, passes and not verdict)):
                tally[index] += count
        tallies.append(tally)
    judged, acceptable, failed, accepted, passed, rejected = (sum(t[i] for t in tallies) for i in range(6))
    total = sum(len(trials) for trials in examples.values())
    if not judged:
        return f"LLM judge: no verdict on any of the {total} predictions asked (no confidence in any answer)"

    def share(hits: int, of: int, column: int) -> str:
        rate = clustered_rate_interval([(t[column], t[column + 1]) for t in tallies if t[column]])
        return f"{hits} of {of} ({100 * hits / of:.1f}% [95% CI {100 * rate.low:.1f}-{100 * rate.high:.1f}])"

    parts = [f"judged acceptable {share(acceptable, judged, 0)}"]
    if failed:
        parts.append(f"accepts {share(accepted, failed, 2)} that FAILED")
    if passed:
        parts.append(f"rejects {share(rejected, passed, 4)} that PASSED")
    counted = sum(1 for t in tallies if t[0])
    clustered = f" (intervals over {counted} examples, trials clustered)" if counted < judged else ""
    silent = f"; {total - judged} of {total} asked without a verdict (no confidence)" if total > judged else ""
    return f"LLM judge (acceptable: confidence >= 4, not reverting): {', '.join(parts)}{clustered}{silent}"


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
