"""Report writers that need no pytest: the JSONL record file, the HTML page, the
comparison of two runs, the summary and its lines, and ``--editpred-accept``.

They take :class:`Record` values (``reports/_record.py``: one item of a run, the
schema of a JSONL line), which ``record_of``, in the ``annotate`` module of the
pytest layer, builds. So they can be used and tested without a session, and run
again on a saved JSONL. Nothing here imports the pytest layer: it imports this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._accept import accept_prediction, cursor_marker_line, with_cursor_line
from ._check import MAX_RECORD_NUMBER, RecordError, check_record
from ._cli import main as report_main
from ._compare import Comparison, ExampleChange, compare
from ._hunks import edit_view
from ._jsonl import MAX_RECORD_BYTES, JSONLineError, JsonlReport, LineTooLong, json_lines, read_records, scrub_secrets
from ._lines import (
    GROUPS,
    by_example,
    cursor_rate_line,
    excluded,
    gate_figures,
    group_lines,
    rates_line,
    trial_lines,
)
from ._qa import QA_KEYS, ep_qa, qa_acceptable, qa_averages, qa_counts, qa_line, with_ep_qa
from ._record import (
    CONTEXT_ONLY,
    ContextCoverageCounts,
    CursorView,
    EditView,
    ExcerptLines,
    ExcerptView,
    HistoryEntry,
    Hunk,
    JumpLocationCounts,
    LineDiff,
    Metrics,
    Outcome,
    PredictedCursor,
    Prompt,
    Record,
    RecordedAttempt,
    RecordedQa,
    RecordedRepair,
    RepairCursor,
)
from ._stats import (
    bootstrap_mean_interval,
    cluster_bootstrap_mean_interval,
    clustered_rate_interval,
    pass_at_k_single,
    pass_hat_k_single,
)
from ._summary import EvalRow, Summary, eval_rows, format_eval_report, summary_json_text

if TYPE_CHECKING:
    from ._viewer import render_html

__all__ = [
    "CONTEXT_ONLY",
    "QA_KEYS",
    "MAX_RECORD_BYTES",
    "MAX_RECORD_NUMBER",
    "JSONLineError",
    "LineTooLong",
    "RecordError",
    "check_record",
    "json_lines",
    "ContextCoverageCounts",
    "report_main",
    "GROUPS",
    "Comparison",
    "CursorView",
    "EditView",
    "EvalRow",
    "ExampleChange",
    "ExcerptLines",
    "ExcerptView",
    "HistoryEntry",
    "Hunk",
    "JsonlReport",
    "JumpLocationCounts",
    "LineDiff",
    "Metrics",
    "Outcome",
    "PredictedCursor",
    "Prompt",
    "Record",
    "RecordedAttempt",
    "RecordedQa",
    "RecordedRepair",
    "RepairCursor",
    "Summary",
    "accept_prediction",
    "bootstrap_mean_interval",
    "by_example",
    "cluster_bootstrap_mean_interval",
    "clustered_rate_interval",
    "compare",
    "cursor_marker_line",
    "cursor_rate_line",
    "edit_view",
    "ep_qa",
    "eval_rows",
    "excluded",
    "format_eval_report",
    "gate_figures",
    "group_lines",
    "pass_at_k_single",
    "pass_hat_k_single",
    "qa_acceptable",
    "qa_averages",
    "qa_counts",
    "qa_line",
    "rates_line",
    "read_records",
    "render_html",
    "scrub_secrets",
    "summary_json_text",
    "trial_lines",
    "with_cursor_line",
    "with_ep_qa",
]


def __getattr__(name: str) -> Any:
    # The viewer (with the metrics its diffs use) is imported on first use of
    # render_html, so importing the package for JSONL or --editpred-accept stays light.
    if name == "render_html":
        from ._viewer import render_html

        globals()[name] = render_html
        return render_html
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
