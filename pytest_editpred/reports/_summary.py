"""The run-level summary: Zed's ``SummaryJson`` and the ``ep eval`` report (§4.9).

A run is summarised over *predictions*, not examples (an example scored with three
trials counts three times), because that is what ``ep eval`` does and the numbers
should be comparable with it. Exact lines are micro-averaged (counts summed, then
P/R/F1), everything else is a plain mean; a rate over "predictions where the
metric applies" is None when it applies to none, and then left out of the JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, NamedTuple

from ..metrics import (
    CHR_F_BETA,
    ClassificationMetrics,
    ContextEvaluation,
    ContextSummary,
    PredictionScore,
    format_context_report,
)
from ._qa import qa_averages, qa_cells

if TYPE_CHECKING:
    from ._record import Record, RecordedQa

CONTEXT_SUMMARY_FIELDS = tuple(f.name for f in fields(ContextSummary))

__all__ = [
    "SUMMARY_JSON_FIELDS",
    "EvalRow",
    "Summary",
    "eval_rows",
    "format_eval_report",
    "percentile",
    "summary_json_text",
]

# SummaryJson fields serialised with ``skip_serializing_if = "Option::is_none"``.
_SKIP_IF_NONE = frozenset(
    {
        "qa_avg_reverts_edits",
        "qa_avg_confidence",
        "cursor_exact_match_rate",
        "cursor_avg_distance",
        "cursor_total_evaluated",
        "wrong_editable_region_rate",
        "avg_kept_rate",
        "avg_recall_rate",
        "total_kept_chars",
        "total_correctly_deleted_chars",
        "total_discarded_chars",
    }
)


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def _mean_or_none(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class Summary:
    """Zed's ``SummaryJson``, field for field; rates are fractions (0–1), the
    chrF average is on its own 0–100 scale.

    The QA fields are Zed's averages of the LLM judge's answers (``qa`` given to
    :meth:`from_scores`), ``f32`` values as ``ep`` computes them; None without any.
    The editable-context fields (v1.15's names) are ``context``'s
    (:class:`~pytest_editpred.metrics.ContextSummary`), written flat after the
    others; they are set when some prediction's score carries a context coverage.
    """

    total_examples: int
    avg_delta_chr_f: float
    delta_chr_f_beta: float
    delta_chr_f_true_positives: int
    delta_chr_f_false_positives: int
    delta_chr_f_false_negatives: int
    delta_chr_f_precision: float
    delta_chr_f_recall: float
    avg_braces_disbalance: float
    exact_lines_true_positives: int
    exact_lines_false_positives: int
    exact_lines_false_negatives: int
    exact_lines_precision: float
    exact_lines_recall: float
    exact_lines_f1: float
    avg_reversal_ratio: float
    qa_avg_reverts_edits: float | None
    qa_avg_confidence: float | None
    cursor_exact_match_rate: float | None
    cursor_avg_distance: float | None
    cursor_total_evaluated: int | None
    wrong_editable_region_rate: float | None
    isolated_whitespace_rate: float
    avg_kept_rate: float | None
    avg_recall_rate: float | None
    total_kept_chars: int | None
    total_correctly_deleted_chars: int | None
    total_discarded_chars: int | None
    context: ContextSummary = ContextSummary()  # its fields are written flat, last

    @classmethod
    def from_scores(cls, scores: Sequence[PredictionScore], qa: Iterable[Mapping[str, object] | None] = ()) -> Summary:
        """The summary of the scored predictions; ``qa``: their LLM judge's answers,
        the record's ``qa`` of each score row (:func:`~._qa.qa_averages`)."""
        exact = ClassificationMetrics(
            sum(s.exact_lines_tp for s in scores),
            sum(s.exact_lines_fp for s in scores),
            sum(s.exact_lines_fn for s in scores),
        )
        cursor_set = [s for s in scores if s.cursor_exact_match is not None]
        distances = [s.cursor_distance for s in scores if s.cursor_distance is not None]
        with_patch = [s for s in scores if s.wrong_editable_region is not None]
        kept = [s.kept_rate for s in scores if s.kept_rate is not None]
        recall = [s.recall_rate for s in scores if s.recall_rate is not None]
        kept_chars = [s.kept_chars for s in scores if s.kept_chars is not None]
        deleted_chars = [s.correctly_deleted_chars for s in scores if s.correctly_deleted_chars is not None]
        discarded = [s.discarded_chars for s in scores if s.discarded_chars is not None]
        context = ContextSummary.from_results(
            ContextEvaluation(s.editable_context_coverage, s.retrieved_context_bytes) for s in scores
        )
        qa_reverts, qa_confidence = qa_averages(qa)
        return cls(
            total_examples=len(scores),
            avg_delta_chr_f=_mean([s.delta_chr_f for s in scores]),
            delta_chr_f_beta=CHR_F_BETA,
            delta_chr_f_true_positives=sum(s.delta_chr_f_true_positives for s in scores),
            delta_chr_f_false_positives=sum(s.delta_chr_f_false_positives for s in scores),
            delta_chr_f_false_negatives=sum(s.delta_chr_f_false_negatives for s in scores),
            delta_chr_f_precision=_mean([s.delta_chr_f_precision for s in scores]),
            delta_chr_f_recall=_mean([s.delta_chr_f_recall for s in scores]),
            avg_braces_disbalance=_mean([s.braces_disbalance for s in scores]),
            exact_lines_true_positives=exact.true_positives,
            exact_lines_false_positives=exact.false_positives,
            exact_lines_false_negatives=exact.false_negatives,
            exact_lines_precision=exact.precision,
            exact_lines_recall=exact.recall,
            exact_lines_f1=exact.f1,
            avg_reversal_ratio=_mean([s.reversal_ratio for s in scores]),
            qa_avg_reverts_edits=qa_reverts,
            qa_avg_confidence=qa_confidence,
            cursor_exact_match_rate=_mean_or_none([1.0 if s.cursor_exact_match else 0.0 for s in cursor_set]),
            cursor_avg_distance=_mean_or_none(distances),
            cursor_total_evaluated=len(cursor_set) or None,
            wrong_editable_region_rate=_mean_or_none([1.0 if s.wrong_editable_region else 0.0 for s in with_patch]),
            isolated_whitespace_rate=_mean([1.0 if s.has_isolated_whitespace_changes else 0.0 for s in scores]),
            avg_kept_rate=_mean_or_none(kept),
            avg_recall_rate=_mean_or_none(recall),
            total_kept_chars=sum(kept_chars) if kept_chars else None,
            total_correctly_deleted_chars=sum(deleted_chars) if deleted_chars else None,
            total_discarded_chars=sum(discarded) if discarded else None,
            context=context,
        )

    def to_summary_json(self) -> dict[str, int | float | None]:
        """What ``ep eval --summary-json`` writes: ``?`` fields left out when None."""
        flat: dict[str, int | float | None] = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "context" and not (getattr(self, f.name) is None and f.name in _SKIP_IF_NONE)
        }
        flat.update(self.context.to_summary_json())
        return flat


SUMMARY_JSON_FIELDS = tuple(f.name for f in fields(Summary) if f.name != "context") + CONTEXT_SUMMARY_FIELDS

#: The SummaryJson fields ``ep`` writes as ``f32``, in their shortest ``f32`` text.
_FLOAT32_FIELDS = frozenset({"qa_avg_reverts_edits", "qa_avg_confidence"})


def summary_json_text(data: Mapping[str, int | float | None]) -> str:
    """The SummaryJson file's text: ``json.dumps(data, indent=2)``, except that the
    ``f32`` fields are written as serde writes an ``f32`` (``0.6666667``, where Python
    would write the same number as ``0.6666666865348816``), so the file holds the
    digits ``ep eval --summary-json`` writes."""
    from ._float32 import float32_text

    if not data:
        return "{}"
    lines = [
        f"  {json.dumps(key)}: "
        + (float32_text(value) if key in _FLOAT32_FIELDS and isinstance(value, float) else json.dumps(value))
        for key, value in data.items()
    ]
    return "{\n" + ",\n".join(lines) + "\n}"


# ------------------------------------------------------------------------------ report

_WIDTH = 101
_SEPARATOR = "─" * _WIDTH
_NAME_WIDTH = 40
_PERCENTILES = (25, 50, 75, 90, 99)


def _truncate(name: str, width: int = _NAME_WIDTH) -> str:
    return name if len(name) <= width else name[: width - 3] + "..."


def percentile(sorted_values: Sequence[int], p: float) -> int:
    """``ep eval``'s percentile: the value at index ``round(p/100·(n−1))``, where
    round goes half away from zero (Rust's ``f64::round``, not Python's ``round``)."""
    index = math.floor(p / 100 * (len(sorted_values) - 1) + 0.5)
    return sorted_values[index]


class EvalRow(NamedTuple):
    """One prediction of the ``ep eval`` table. ``expected_cursor``: whether its best
    expected patch marks a cursor in the cursor file (the record's field); None when
    not known (a record of an older version), and then Zed's rule counts the cursor.
    ``qa``: the LLM judge's answer on it (the record's ``qa``), None when not asked."""

    name: str
    score: PredictionScore
    expected_cursor: bool | None = None
    qa: RecordedQa | None = None


def eval_rows(records: Iterable[Record]) -> list[EvalRow]:
    """The table's rows of the records that were scored, a trial after the first
    named ``name[tN]``."""
    return [
        EvalRow(
            r["name"] if r.get("trial") in (1, None) else f"{r['name']}[t{r['trial']}]",
            PredictionScore.from_dict(r["metrics"]),
            r.get("expected_cursor"),
            r.get("qa"),
        )
        for r in records
        if r.get("metrics")
    ]


def _cursor_counted(row: EvalRow) -> bool:
    """Does the row's cursor count in the table's cursor figures? Only when its best
    expected patch marks a cursor: a predicted cursor cannot miss a place nobody
    marked. (Zed's ``ep eval`` counts a cursor on either side, so such a prediction is
    a miss there; --editpred-summary-json keeps Zed's count.)"""
    if row.expected_cursor is None:
        return row.score.cursor_exact_match is not None
    return row.expected_cursor


def _cursor_cell(row: EvalRow) -> str:
    score = row.score
    if row.expected_cursor is False:
        return "n/a"
    if score.cursor_exact_match is None:
        return "-"
    if score.cursor_exact_match:
        return "✓"
    if score.cursor_distance is not None:
        return f"±{score.cursor_distance}"
    return "✗"


def _row(row: EvalRow) -> str:
    score = row.score
    reverts, confidence = qa_cells(row.qa)
    return (
        f"{_truncate(row.name):<40} {score.delta_chr_f:>8.2f} {score.braces_disbalance:>5} "
        f"{score.exact_lines.f1 * 100:>6.1f}% {score.reversal_ratio * 100:>6.1f}% {reverts:>7} {confidence:>7} "
        f"{_cursor_cell(row):>6} {'✗' if score.wrong_editable_region else '':>5}"
    )


def _percent_cell(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.0f}%"


def format_eval_report(
    rows: Sequence[EvalRow], limit: int = 20, verbose: bool = False, *, context_only: bool = False
) -> str:
    """The ``ep eval`` table (§4.9, and zed-qa-repair.md §5 for QaRev and QaConf,
    the LLM judge's answers: ``-`` where none was asked) for the rows; with
    ``context_only``, ``ep eval --context-only``'s table of the context coverage
    instead (:func:`~pytest_editpred.metrics.format_context_report`).

    The Cursor column, the total's cursor rate and the ``Cursor:`` line count only
    the predictions whose best expected patch marks a cursor; the others show
    ``n/a`` (:func:`_cursor_counted`).

    At most ``limit`` rows are listed unless ``verbose``; the totals always cover
    every row. The token-change percentiles are taken over the predictions that had
    a patch (``wrong_editable_region`` set) and changed at least one token: the
    score does not keep the patch text, so "changed a token" stands in for Zed's
    "non-empty ``actual_patch``".
    """
    if context_only:
        results = [
            (row.name, ContextEvaluation(row.score.editable_context_coverage, row.score.retrieved_context_bytes))
            for row in rows
        ]
        return format_context_report(results, limit=limit, verbose=verbose)
    lines = [
        _SEPARATOR,
        (
            f"{'Example':<40} {'DeltaChrF':>8} {'Brace':>5} {'F1':>7} {'Revert':>7} {'QaRev':>7} {'QaConf':>7} "
            f"{'Cursor':>6} {'WrgER':>5}"
        ),
        _SEPARATOR,
    ]
    shown = rows if verbose else rows[:limit]
    lines.extend(_row(row) for row in shown)
    if len(shown) < len(rows):
        more = f"... and {len(rows) - len(shown)} more"
        lines.append(f"{more:<40} (use --verbose to see all {len(rows)} examples)")
    lines.append(_SEPARATOR)
    if rows:
        lines.extend(_totals(Summary.from_scores([row.score for row in rows], [row.qa for row in rows]), rows))
    return "\n".join(lines) + "\n"


def _cursor_totals(rows: Sequence[EvalRow]) -> tuple[str, str | None]:
    """The total row's Cursor cell and the ``Cursor:`` line (None: nothing to say),
    over the rows whose cursor counts."""
    counted = [row.score for row in rows if _cursor_counted(row)]
    if not counted:
        if any(row.expected_cursor is False for row in rows):
            return "n/a", "Cursor: n/a (no prediction's best expected patch marks a cursor)"
        return "-", None
    exact = sum(1 for s in counted if s.cursor_exact_match)
    distances = [s.cursor_distance for s in counted if s.cursor_distance is not None]
    distance = f"{math.fsum(distances) / len(distances):.1f}" if distances else "-"
    return (
        _percent_cell(exact / len(counted)),
        f"Cursor: {exact}/{len(counted)} exact matches ({100 * exact / len(counted):.1f}%), "
        f"avg distance: {distance} bytes",
    )


def _totals(summary: Summary, rows: Sequence[EvalRow]) -> list[str]:
    from ._float32 import float32

    scores = [row.score for row in rows]
    cursor_cell, cursor_line = _cursor_totals(rows)
    # The QA averages are f32 (§5.3), and so is their product by 100 in ep eval.
    reverts = summary.qa_avg_reverts_edits
    reverts_cell = "-" if reverts is None else f"{float32(reverts * 100):.1f}%"
    confidence_cell = "-" if summary.qa_avg_confidence is None else f"{summary.qa_avg_confidence:.1f}"
    wrong_region = summary.wrong_editable_region_rate
    out = [
        (
            f"{'TOTAL / AVERAGE':<40} {summary.avg_delta_chr_f:>8.2f} "
            f"{summary.avg_braces_disbalance:>5.1f} {summary.exact_lines_f1 * 100:>6.1f}% "
            f"{summary.avg_reversal_ratio * 100:>6.1f}% {reverts_cell:>7} {confidence_cell:>7} "
            f"{cursor_cell:>6} "
            f"{'-' if wrong_region is None else f'{wrong_region * 100:.2f}%':>5}"
        ),
        _SEPARATOR,
        (
            f"Delta chrF (β={summary.delta_chr_f_beta:.1f}): "
            f"TP={summary.delta_chr_f_true_positives}, "
            f"FP={summary.delta_chr_f_false_positives}, "
            f"FN={summary.delta_chr_f_false_negatives}, "
            f"P={summary.delta_chr_f_precision * 100:.1f}%, "
            f"R={summary.delta_chr_f_recall * 100:.1f}%"
        ),
    ]
    if cursor_line is not None:
        out.append(cursor_line)
    isolated = sum(1 for s in scores if s.has_isolated_whitespace_changes)
    out.append(f"Isolated whitespace changes: {isolated}/{len(scores)} ({summary.isolated_whitespace_rate * 100:.1f}%)")
    kept_evaluated = sum(1 for s in scores if s.kept_rate is not None)
    if summary.avg_kept_rate is not None:
        out.append(
            f"Kept rate: {summary.avg_kept_rate * 100:.1f}% avg ({kept_evaluated} evaluated, "
            f"kept chars: {summary.total_kept_chars or 0}, "
            f"correctly deleted chars: {summary.total_correctly_deleted_chars or 0}, "
            f"discarded chars: {summary.total_discarded_chars or 0})"
        )
    recall_evaluated = sum(1 for s in scores if s.recall_rate is not None)
    if summary.avg_recall_rate is not None:
        out.append(f"Recall rate: {summary.avg_recall_rate * 100:.1f}% avg ({recall_evaluated} evaluated)")
    context = summary.context
    if context.editable_context_examples:
        for level in ("lines", "files"):
            rates = (getattr(context, f"avg_editable_context_{level}_{r}") * 100 for r in ("precision", "recall", "f1"))
            tp, fp, fn = (getattr(context, f"editable_context_{level}_{c}") for c in ("tp", "fp", "fn"))
            p, r, f1 = rates
            out.append(
                f"Editable context {level}: P={p:.1f}%, R={r:.1f}%, F1={f1:.1f}% avg "
                f"({context.editable_context_examples} evaluated, TP={tp}, FP={fp}, FN={fn})"
            )
    changed = [s for s in scores if s.wrong_editable_region is not None and s.inserted_tokens + s.deleted_tokens > 0]
    if changed:
        columns = {
            "inserted": sorted(s.inserted_tokens for s in changed),
            "deleted": sorted(s.deleted_tokens for s in changed),
            "total": sorted(s.inserted_tokens + s.deleted_tokens for s in changed),
        }
        out.append(f"Token changes ({len(changed)} predictions with a patch):")
        out.append(f"{'':<10}" + "".join(f"{f'p{p}':>8}" for p in _PERCENTILES))
        for label, values in columns.items():
            out.append(f"{label:<10}" + "".join(f"{percentile(values, p):>8}" for p in _PERCENTILES))
    return out
