"""The numbers of the viewer's summary cards: the terminal summary's.

The same counts and :class:`Summary` as the run's (given by the run, or
:func:`summary_of` for a JSONL file read later), and the intervals and denominators
of the terminal's own summary lines (computed once, by the terminal's code, and
shown verbatim too).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ._lines import cursor_rate_line, rates_line, trial_lines
from ._record import Record
from ._viewer_data import _gc_paused, _number

OUTCOMES = ("error", "failed", "passed", "skipped")


def summary_of(records: Sequence[Record]) -> dict[str, Any]:
    """The run summary of ``records``, as the plugin computes it at the end of a run:
    Zed's SummaryJson over the scored predictions, plus the outcome counts, ``total``
    (the predictions that ran: skipped ones left out) and ``pass_rate`` (errors count
    as not passed). For a JSONL file read after the run, or several (shards)."""
    with _gc_paused():
        return _summary_of(records)


def _summary_of(records: Sequence[Record]) -> dict[str, Any]:
    from ..metrics import PredictionScore
    from ._summary import Summary

    counts = {k: sum(r.get("outcome") == k for r in records) for k in ("passed", "failed", "error", "skipped")}
    total = len(records) - counts["skipped"]
    data: dict[str, Any] = {}
    scores = []
    answers: list[Mapping[str, object] | None] = []  # the LLM judge's, one per score (the run's pairing)
    for record in records:
        metrics = record.get("metrics")
        if metrics and isinstance(metrics, Mapping):
            try:
                scores.append(PredictionScore.from_dict(metrics))
            except (KeyError, TypeError, ValueError):  # a record of an older version, or of elsewhere
                continue
            qa = record.get("qa")
            answers.append(qa if isinstance(qa, Mapping) else None)
    if scores:
        try:
            data.update(Summary.from_scores(scores, answers).to_summary_json())
        except (TypeError, ValueError):  # records of an older version, metrics incomplete
            pass
    data.update(counts, total=total, pass_rate=counts["passed"] / total if total else None)
    return data


def terminal_lines(records: Sequence[Record], summary: Mapping[str, Any]) -> list[str]:
    """The rates, cursor and trials lines of the terminal summary, by the terminal's
    own code (:mod:`._lines`: so the page cannot disagree with it, and the intervals
    are computed once)."""
    with _gc_paused():
        return _terminal_lines(records, summary)


def _terminal_lines(records: Sequence[Record], summary: Mapping[str, Any]) -> list[str]:
    # A record read from a file of elsewhere may lack the fields the lines count by.
    plain = [
        cast(
            Record,
            dict(r, metrics=r.get("metrics") or {}, nodeid=str(r.get("nodeid") or ""), outcome=str(r.get("outcome"))),
        )
        for r in records
    ]
    lines: list[str] = []
    try:
        lines.append(rates_line(plain, dict(summary)))
        cursor = cursor_rate_line(plain)
        if cursor:
            lines.append(cursor)
        lines.extend(trial_lines(plain))
    except (KeyError, TypeError, ValueError):  # a summary from elsewhere lacking a count
        pass
    return lines


_NUMBER = r"(-?[\d.]+)"
_PASS = re.compile(rf"pass rate {_NUMBER}%(?: of (\d+))? \[95% CI {_NUMBER}-{_NUMBER}([^\]]*)\]")
_CHRF = re.compile(rf"mean delta-chrF {_NUMBER}(?: over (\d+) scored)?(?: \[95% CI {_NUMBER}-{_NUMBER}[^\]]*\])?")
_CURSOR = re.compile(rf"cursor exact match {_NUMBER}% \((\d+) of (\d+) ([^)]*)\)")
_CURSOR_NA = re.compile(r"cursor exact match n/a \(([^)]*)\)")


def _cards(records: Sequence[Record], summary: Mapping[str, Any], terminal: Sequence[str]) -> dict[str, Any]:
    """The numbers of the summary cards, each with its denominator: the counts and
    Summary fields of ``summary``, the intervals as the terminal printed them."""

    def count(key: str) -> int:
        value = summary.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return sum(1 for r in records if r.get("outcome") == key)

    counts = {k: count(k) for k in OUTCOMES}
    total = summary.get("total")
    if not isinstance(total, int) or isinstance(total, bool):
        total = len(records) - counts["skipped"]
    cards: dict[str, Any] = {"counts": counts, "total": total, "records": len(records)}
    rates = terminal[0] if terminal else ""
    if total:
        cards["pass_rate"] = {"estimate": counts["passed"] / total, "low": None, "high": None, "note": ""}
        found = _PASS.search(rates)
        if found:
            cards["pass_rate"].update(low=float(found[3]) / 100, high=float(found[4]) / 100, note=found[5].strip(" ,"))
    scored = [r for r in records if (r.get("metrics") or {}).get("delta_chr_f") is not None]
    cards["scored"] = len(scored)
    if scored:
        avg = _number(summary.get("avg_delta_chr_f"))
        cards["delta_chr_f"] = {"estimate": avg, "low": None, "high": None}
        found = _CHRF.search(rates)
        if found:
            cards["delta_chr_f"]["estimate"] = float(found[1])
            if found[3] is not None:
                cards["delta_chr_f"].update(low=float(found[3]), high=float(found[4]))
        excluded = rates.rsplit("; ", 1)[-1] if rates.endswith("excluded") else ""
        cards["excluded"] = excluded
    for key in (
        "cursor_exact_match_rate",
        "cursor_total_evaluated",
        "cursor_avg_distance",
        "exact_lines_f1",
        "exact_lines_precision",
        "exact_lines_recall",
        "avg_reversal_ratio",
        "avg_kept_rate",
        "wrong_editable_region_rate",
        "total_examples",
    ):
        if summary.get(key) is not None:
            cards[key] = summary[key]
    cursor = next((m for m in map(_CURSOR.search, terminal) if m), None)
    unmarked = next((m for m in map(_CURSOR_NA.search, terminal) if m), None)
    if cursor:
        cards["cursor"] = {
            "rate": float(cursor[1]) / 100,
            "exact": int(cursor[2]),
            "of": int(cursor[3]),
            "which": cursor[4],
        }
    elif unmarked:
        cards["cursor"] = {"rate": None, "exact": 0, "of": 0, "which": unmarked[1]}
    elif "cursor_exact_match_rate" in cards:
        # Records of an older version say nothing of the expected cursor: Zed's count.
        exact = sum(1 for r in records if (r.get("metrics") or {}).get("cursor_exact_match") is True)
        cards["cursor"] = {
            "rate": cards["cursor_exact_match_rate"],
            "exact": exact,
            "of": cards.get("cursor_total_evaluated"),
            "which": "with a cursor on either side (Zed's count)",
        }
    latencies = sorted(v for v in (_number(r.get("latency")) for r in records) if v is not None)
    if latencies:
        cards["latency_median"] = statistics.median(latencies)
        cards["latency_p90"] = latencies[min(len(latencies) - 1, math.floor(0.9 * (len(latencies) - 1) + 0.5))]
        cards["latency_n"] = len(latencies)
    return cards
