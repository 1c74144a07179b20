"""The run summary: Zed's SummaryJson and the ``ep eval`` report (zed-format.md §4.9)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pytest_editpred.metrics import PredictionScore
from pytest_editpred.reports._summary import (
    SUMMARY_JSON_FIELDS,
    EvalRow,
    Summary,
    eval_rows,
    format_eval_report,
    percentile,
)

# The SummaryJson field list of zed-format.md §4.9, written out ("?" = omitted when
# None), with v1.15's editable-context names (zed-authoring-and-context.md §4.6) in
# place of the older version's last three.
ZED_SUMMARY_JSON = """
total_examples, avg_delta_chr_f, delta_chr_f_beta, delta_chr_f_true_positives,
delta_chr_f_false_positives, delta_chr_f_false_negatives, delta_chr_f_precision,
delta_chr_f_recall, avg_braces_disbalance, exact_lines_true_positives, exact_lines_false_positives,
exact_lines_false_negatives, exact_lines_precision, exact_lines_recall, exact_lines_f1,
avg_reversal_ratio, qa_avg_reverts_edits?, qa_avg_confidence?, cursor_exact_match_rate?,
cursor_avg_distance?, cursor_total_evaluated?, wrong_editable_region_rate?,
isolated_whitespace_rate, avg_kept_rate?, avg_recall_rate?, total_kept_chars?,
total_correctly_deleted_chars?, total_discarded_chars?, editable_context_examples?,
avg_editable_context_lines_precision?, avg_editable_context_lines_recall?, avg_editable_context_lines_f1?,
editable_context_lines_tp?, editable_context_lines_fp?, editable_context_lines_fn?,
avg_editable_context_files_precision?, avg_editable_context_files_recall?, avg_editable_context_files_f1?,
editable_context_files_tp?, editable_context_files_fp?, editable_context_files_fn?,
avg_retrieved_context_bytes?, total_retrieved_context_bytes?, retrieved_context_examples?
"""
ZED_FIELDS = [name.strip() for name in ZED_SUMMARY_JSON.split(",")]
ALWAYS = [name for name in ZED_FIELDS if not name.endswith("?")]
OPTIONAL = [name.rstrip("?") for name in ZED_FIELDS if name.endswith("?")]


def make_score(**overrides: Any) -> PredictionScore:
    base: dict[str, Any] = {
        "delta_chr_f": 0.0,
        "delta_chr_f_true_positives": 0,
        "delta_chr_f_false_positives": 0,
        "delta_chr_f_false_negatives": 0,
        "delta_chr_f_precision": 0.0,
        "delta_chr_f_recall": 0.0,
        "delta_chr_f_beta": 0.5,
        "braces_disbalance": 0,
        "exact_lines_tp": 0,
        "exact_lines_fp": 0,
        "exact_lines_fn": 0,
        "reversal_ratio": 0.0,
        "cursor_distance": None,
        "cursor_exact_match": None,
        "wrong_editable_region": None,
        "has_isolated_whitespace_changes": False,
        "inserted_tokens": 0,
        "deleted_tokens": 0,
    }
    base.update(overrides)
    return PredictionScore(**base)


# s1: perfect; s2: half right, wrong region, whitespace noise, cursor miss;
# s3: no patch at all (wrong_editable_region None), nothing right.
S1 = make_score(
    delta_chr_f=100.0, delta_chr_f_true_positives=10, delta_chr_f_precision=1.0,
    delta_chr_f_recall=1.0, exact_lines_tp=2, cursor_distance=0, cursor_exact_match=True,
    wrong_editable_region=False, kept_rate=1.0, recall_rate=1.0, kept_chars=5,
    correctly_deleted_chars=3, discarded_chars=0, inserted_tokens=1, deleted_tokens=1,
)  # fmt: skip
S2 = make_score(
    delta_chr_f=50.0, delta_chr_f_true_positives=4, delta_chr_f_false_positives=2,
    delta_chr_f_false_negatives=6, delta_chr_f_precision=0.5, delta_chr_f_recall=0.25,
    braces_disbalance=2, exact_lines_tp=1, exact_lines_fp=1, exact_lines_fn=2,
    reversal_ratio=0.5, cursor_exact_match=False, wrong_editable_region=True,
    has_isolated_whitespace_changes=True, kept_rate=0.5, recall_rate=0.25, kept_chars=2,
    correctly_deleted_chars=0, discarded_chars=4, inserted_tokens=3,
)  # fmt: skip
S3 = make_score(
    delta_chr_f_false_negatives=3, braces_disbalance=1, exact_lines_fn=2,
    kept_rate=0.0, recall_rate=0.0, kept_chars=0, correctly_deleted_chars=0, discarded_chars=0,
)  # fmt: skip


def test_field_names_are_zeds() -> None:
    assert list(SUMMARY_JSON_FIELDS) == [name.rstrip("?") for name in ZED_FIELDS]


def test_summary_hand_computed() -> None:
    summary = Summary.from_scores([S1, S2, S3])
    assert summary.total_examples == 3  # predictions, not examples
    assert summary.avg_delta_chr_f == pytest.approx(50.0)  # (100 + 50 + 0) / 3
    assert summary.delta_chr_f_beta == 0.5
    assert (
        summary.delta_chr_f_true_positives,
        summary.delta_chr_f_false_positives,
        summary.delta_chr_f_false_negatives,
    ) == (14, 2, 9)
    assert summary.delta_chr_f_precision == pytest.approx(0.5)  # (1 + .5 + 0) / 3
    assert summary.delta_chr_f_recall == pytest.approx(1.25 / 3)  # (1 + .25 + 0) / 3
    assert summary.avg_braces_disbalance == pytest.approx(1.0)  # (0 + 2 + 1) / 3
    # exact lines are micro-averaged: TP 3, FP 1, FN 4 -> P 3/4, R 3/7,
    # F1 = 2TP / (2TP + FP + FN) = 6/11. (The mean of per-prediction F1s would be
    # (1 + 0.4 + 0) / 3 = 0.467.)
    assert (
        summary.exact_lines_true_positives,
        summary.exact_lines_false_positives,
        summary.exact_lines_false_negatives,
    ) == (3, 1, 4)
    assert summary.exact_lines_precision == pytest.approx(0.75)
    assert summary.exact_lines_recall == pytest.approx(3 / 7)
    assert summary.exact_lines_f1 == pytest.approx(6 / 11)
    assert summary.avg_reversal_ratio == pytest.approx(0.5 / 3)
    # cursor: evaluated where cursor_exact_match is set (s1 hit, s2 miss)
    assert summary.cursor_total_evaluated == 2
    assert summary.cursor_exact_match_rate == pytest.approx(0.5)
    assert summary.cursor_avg_distance == pytest.approx(0.0)  # only s1 has a distance
    # wrong region: over predictions with a patch (s1 no, s2 yes; s3 has none)
    assert summary.wrong_editable_region_rate == pytest.approx(0.5)
    assert summary.isolated_whitespace_rate == pytest.approx(1 / 3)
    assert summary.avg_kept_rate == pytest.approx(0.5)  # (1 + .5 + 0) / 3
    assert summary.avg_recall_rate == pytest.approx(1.25 / 3)
    assert (
        summary.total_kept_chars,
        summary.total_correctly_deleted_chars,
        summary.total_discarded_chars,
    ) == (7, 3, 4)


def test_summary_json_omits_none_optionals() -> None:
    data = Summary.from_scores([S1, S2, S3]).to_summary_json()
    assert [k for k in data] == [k for k in SUMMARY_JSON_FIELDS if k in data]
    for name in ALWAYS:
        assert name in data
    # no QA run, no retrieval context
    for name in ("qa_avg_reverts_edits", "qa_avg_confidence", "avg_editable_context_coverage",
                 "editable_context_changed_lines_reachable",
                 "editable_context_total_changed_lines"):  # fmt: skip
        assert name not in data
    assert data["cursor_total_evaluated"] == 2
    # no cursor anywhere, no patch anywhere, no kept rate anywhere: all left out
    bare = Summary.from_scores(
        [
            replace(
                S3,
                kept_rate=None,
                recall_rate=None,
                kept_chars=None,
                correctly_deleted_chars=None,
                discarded_chars=None,
            )
        ]
    )
    bare_json = bare.to_summary_json()
    assert sorted(bare_json) == sorted(ALWAYS)
    assert set(OPTIONAL).isdisjoint(bare_json)


def test_summary_of_nothing() -> None:
    summary = Summary.from_scores([])
    assert summary.total_examples == 0
    assert summary.avg_delta_chr_f == 0.0
    assert summary.exact_lines_f1 == 0.0


# ------------------------------------------------------------------------------ report

SEPARATOR = "─" * 101


def test_report_layout() -> None:
    report = format_eval_report([EvalRow("alpha", S1), EvalRow("beta", S2), EvalRow("gamma", S3)])
    lines = report.splitlines()
    assert lines[0] == SEPARATOR and lines[2] == SEPARATOR
    header = lines[1].split()
    assert header == ["Example", "DeltaChrF", "Brace", "F1", "Revert", "QaRev", "QaConf", "Cursor", "WrgER"]
    # alpha: chrF 100.00, 0 braces, F1 100 %, revert 0 %, no judge asked, cursor hit, right region
    no_qa = "       -       -"
    assert lines[3] == (
        "alpha".ljust(40) + "   100.00" + "     0" + "  100.0%" + "    0.0%" + no_qa + "      ✓" + "      "
    )
    # beta: F1 of TP 1, FP 1, FN 2 = 2/(2+1+2) = 40 %; miss without distance; wrong region
    assert lines[4] == (
        "beta".ljust(40) + "    50.00" + "     2" + "   40.0%" + "   50.0%" + no_qa + "      ✗" + "     ✗"
    )
    assert lines[5].startswith("gamma".ljust(40) + "     0.00")
    assert lines[5].split()[-1] == "-"  # cursor not evaluated
    assert lines[6] == SEPARATOR
    # TOTAL: mean chrF 50, braces 1.0, micro F1 6/11 = 54.5 %, revert 16.7 %, no QA,
    # cursor 1 of 2 = 50 %, wrong region 1 of 2 = 50.00 % (Zed's {:.2}%, wider than its column)
    assert lines[7] == (
        "TOTAL / AVERAGE".ljust(40) + "    50.00" + "   1.0" + "   54.5%" + "   16.7%" + no_qa
        + "    50%" + " 50.00%"
    )  # fmt: skip
    assert lines[8] == SEPARATOR
    assert "Delta chrF (β=0.5): TP=14, FP=2, FN=9, P=50.0%, R=41.7%" in lines
    assert "Cursor: 1/2 exact matches (50.0%), avg distance: 0.0 bytes" in lines
    assert "Isolated whitespace changes: 1/3 (33.3%)" in lines
    assert (
        "Kept rate: 50.0% avg (3 evaluated, kept chars: 7, correctly deleted chars: 3, discarded chars: 4)"
    ) in lines
    assert "Recall rate: 41.7% avg (3 evaluated)" in lines


def test_report_token_percentiles() -> None:
    # s1 (1 in, 1 out) and s2 (3 in, 0 out) have patches; s3 has none.
    # inserted [1, 3]: p25 -> index round(0.25) = 0 -> 1; p50 -> round(0.5) = 1
    # (half away from zero) -> 3; p75, p90, p99 -> 3.
    # deleted [0, 1] -> 0 1 1 1 1; total [2, 3] -> 2 3 3 3 3.
    lines = format_eval_report([EvalRow("a", S1), EvalRow("b", S2), EvalRow("c", S3)]).splitlines()
    start = lines.index("Token changes (2 predictions with a patch):")
    assert lines[start + 1].split() == ["p25", "p50", "p75", "p90", "p99"]
    assert lines[start + 2].split() == ["inserted", "1", "3", "3", "3", "3"]
    assert lines[start + 3].split() == ["deleted", "0", "1", "1", "1", "1"]
    assert lines[start + 4].split() == ["total", "2", "3", "3", "3", "3"]


def test_percentile_rounds_half_away_from_zero() -> None:
    # index = round(25/100 * 2) = round(0.5) = 1 (Python's round() would give 0)
    assert percentile([10, 20, 30], 25) == 20
    assert percentile([10, 20, 30, 40, 50], 90) == 50  # round(3.6) = 4
    assert percentile([7], 99) == 7


def test_report_cursor_distance_and_truncation() -> None:
    near = make_score(cursor_exact_match=False, cursor_distance=7)
    long_name = "x" * 45
    lines = format_eval_report([EvalRow(long_name, near)]).splitlines()
    row = lines[3]
    assert row.startswith("x" * 37 + "... ")
    assert row.split()[-1] == "±7"


def test_report_limit_and_verbose() -> None:
    rows = [EvalRow(f"ex{i}", S1) for i in range(25)]
    short = format_eval_report(rows).splitlines()
    assert sum(1 for line in short if line.startswith("ex")) == 20
    assert "... and 5 more".ljust(40) + " (use --verbose to see all 25 examples)" in short
    # the totals still cover all 25
    assert "Isolated whitespace changes: 0/25 (0.0%)" in short
    full = format_eval_report(rows, verbose=True).splitlines()
    assert sum(1 for line in full if line.startswith("ex")) == 25
    assert not any(line.startswith("... and") for line in full)
    three = format_eval_report(rows, limit=3).splitlines()
    assert "... and 22 more".ljust(40) + " (use --verbose to see all 25 examples)" in three


def test_report_without_rows() -> None:
    lines = format_eval_report([]).splitlines()
    assert lines == [lines[0], lines[1], SEPARATOR, SEPARATOR]
    assert not any("TOTAL" in line for line in lines)


# ----------------------------------------------------------- the cursor, where none is expected

# A prediction whose best expected patch marks no cursor: Zed's metric calls its
# (always present) predicted cursor a miss, with no distance.
UNMARKED = replace(S1, cursor_exact_match=False, cursor_distance=None)


def test_a_prediction_with_no_expected_cursor_is_na_not_a_miss() -> None:
    rows = [EvalRow("alpha", S1, True), EvalRow("beta", UNMARKED, False), EvalRow("gamma", S2, True)]
    lines = format_eval_report(rows).splitlines()
    assert lines[3].split()[-1] == "✓"
    assert lines[4] == (
        "beta".ljust(40) + "   100.00" + "     0" + "  100.0%" + "    0.0%" + "       -       -" + "    n/a" + "      "
    )
    assert lines[5].split()[-2:] == ["✗", "✗"]  # gamma: expected a cursor, has none; wrong region
    # alpha hit, gamma missed; beta counts in neither
    assert lines[7].split()[-2:] == ["50%", "33.33%"]
    assert "Cursor: 1/2 exact matches (50.0%), avg distance: 0.0 bytes" in lines
    # The SummaryJson stays Zed's: every prediction with a cursor on either side.
    assert Summary.from_scores([r.score for r in rows]).cursor_total_evaluated == 3


def test_a_run_with_no_expected_cursor_says_so() -> None:
    lines = format_eval_report([EvalRow("a", UNMARKED, False), EvalRow("b", UNMARKED, False)]).splitlines()
    assert lines[3].split()[-1] == lines[4].split()[-1] == "n/a"
    assert lines[6].split()[-2:] == ["n/a", "0.00%"]
    assert "Cursor: n/a (no prediction's best expected patch marks a cursor)" in lines
    assert not any("exact matches" in line for line in lines)


def test_rows_from_records_carry_the_expected_cursor() -> None:
    metrics = UNMARKED.to_dict()
    records: list[Any] = [
        {"name": "a", "trial": 1, "metrics": metrics, "expected_cursor": False},
        {"name": "a", "trial": 2, "metrics": metrics, "expected_cursor": True},
        {"name": "b", "trial": 1, "metrics": {}, "expected_cursor": None},  # not scored: no row
        {"name": "c", "metrics": metrics},  # a record of an older version
    ]
    assert [(r.name, r.expected_cursor) for r in eval_rows(records)] == [("a", False), ("a[t2]", True), ("c", None)]
