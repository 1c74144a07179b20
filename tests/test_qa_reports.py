"""The LLM judge's answer in the reports: the record's ``qa``, the ``ep eval`` table's QA
columns and totals, Zed's SummaryJson QA fields, Zed's ``qa`` list of an ep JSON
example, the JUnit properties and the agreement line (zed-qa-repair.md §2.9, §5).

Records are built as ``record_of`` writes them (every field, in its order), with the
``qa`` a judge's answer gets; tests/test_qa_reports_run.py has them from real runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_editpred import from_json
from pytest_editpred.integration.annotate import qa_properties
from pytest_editpred.metrics import PredictionScore
from pytest_editpred.reports import (
    QA_KEYS,
    JsonlReport,
    RecordError,
    Summary,
    check_record,
    clustered_rate_interval,
    ep_qa,
    eval_rows,
    format_eval_report,
    qa_acceptable,
    qa_averages,
    qa_counts,
    qa_line,
    read_records,
    summary_json_text,
    with_ep_qa,
)
from pytest_editpred.reports._cli import main as report_main
from pytest_editpred.reports._float32 import float32, float32_text

ACCEPTED = {"reasoning": "continues the rename", "reverts_edits": False, "confidence": 5, "response": "```json…```"}
DOUBTFUL = {"reasoning": "adds an unrelated line", "reverts_edits": False, "confidence": 2, "response": "{…}"}
REVERTS = {"reasoning": "undoes the user's edit", "reverts_edits": True, "confidence": 4, "response": "{…}"}
UNPARSED = {"reasoning": "I think so", "response": "I think so", "error": "Could not parse JSON from response"}


def score(**fields: Any) -> dict[str, Any]:
    """A scored prediction's ``metrics``: Zed's whole score, as ``PredictionScore.to_dict``."""
    base: dict[str, Any] = {
        "delta_chr_f": 100.0, "delta_chr_f_true_positives": 1, "delta_chr_f_false_positives": 0,
        "delta_chr_f_false_negatives": 0, "delta_chr_f_precision": 1.0, "delta_chr_f_recall": 1.0,
        "delta_chr_f_beta": 0.5, "braces_disbalance": 0, "exact_lines_tp": 1, "exact_lines_fp": 0,
        "exact_lines_fn": 0, "reversal_ratio": 0.0, "cursor_distance": None, "cursor_exact_match": None,
        "wrong_editable_region": False, "has_isolated_whitespace_changes": False, "inserted_tokens": 1,
        "deleted_tokens": 0,
    }  # fmt: skip
    base.update(fields)
    return PredictionScore(**base).to_dict()


def run_record(
    name: str,
    outcome: str = "passed",
    qa: object = None,
    *,
    trial: int = 1,
    trials: int = 1,
    **extra: Any,
) -> dict[str, Any]:
    """A record as ``record_of`` writes it: every field, in its order; ``trials`` > 1
    gives the node id its ``[tN]``."""
    suffix = f"[t{trial}]" if trials > 1 else ""
    record: dict[str, Any] = {
        "name": name, "nodeid": f"evals/{name}.md::{name}{suffix}", "path": f"/work/evals/{name}.md",
        "repository_url": "https://github.com/acme/calc", "revision": "a" * 40, "tags": [],
        "provider": "openai", "model": "zeta", "trial": trial, "outcome": outcome,
        "reason": None if outcome == "passed" else "the prediction matches none of the 1 expected patch(es)",
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.1}], "latency": 0.1, "cached": False,
        "usage": {}, "predicted_patch": None, "predicted_text": "x = 1\n", "predicted_cursor": None,
        "prompt": "the prompt", "raw_output": "the answer", "matched_candidate": 1 if outcome == "passed" else None,
        "best_candidate": 1, "expected_cursor": None,
        "metrics": score() if outcome == "passed" else score(delta_chr_f=40.0, exact_lines_tp=0, exact_lines_fp=1),
        "notes": [], "qa": qa,
    }  # fmt: skip
    record.update(extra)
    return record


# ------------------------------------------------------------------ the record's qa


def test_a_record_with_qa_round_trips_through_the_file(tmp_path: Path) -> None:
    records = [
        run_record("a", qa=ACCEPTED),
        run_record("b", "failed", REVERTS),
        run_record("c", "failed", UNPARSED),
        run_record("d", qa=None),
    ]
    path = tmp_path / "run.jsonl"
    with JsonlReport(path) as out:
        for record in records:
            out.append(record)
    back = read_records(path, complete=True)
    assert back == records
    assert [list(r) for r in back] == [list(r) for r in records]  # qa after notes, in every line
    assert list(back[0]["qa"] or {}) == list(QA_KEYS[:4])
    again = tmp_path / "again.jsonl"
    with JsonlReport(again) as out:
        for record in back:
            out.append(record)
    assert again.read_bytes() == path.read_bytes()


def test_a_record_of_an_older_version_without_qa_still_reads() -> None:
    old = run_record("a")
    del old["qa"]
    assert check_record(old, complete=True) is old
    row = format_eval_report(eval_rows([check_record(old)])).splitlines()[3]
    assert row.split()[5:7] == ["-", "-"]
    assert qa_line([old]) is None and qa_counts([old]) == (0, 0)


def test_null_and_unknown_keys_read_as_zed_reads_them() -> None:
    qa = {"reasoning": None, "reverts_edits": None, "confidence": 4, "response": None, "error": None, "model": "x"}
    record = check_record(run_record("a", qa=qa))
    assert record["qa"] == qa
    assert qa_acceptable(qa) is True
    assert format_eval_report(eval_rows([record])).splitlines()[3].split()[5:7] == ["-", "4"]
    assert ep_qa([qa]) == [{"confidence": 4}]


@pytest.mark.parametrize(
    ("qa", "message"),
    [
        ({"confidence": 256}, "record field 'qa.confidence' must be an integer from 0 to 255, not a larger one"),
        ({"confidence": -1}, "record field 'qa.confidence' must be an integer from 0 to 255, not a smaller one"),
        ({"confidence": 4.0}, "record field 'qa.confidence' must be an integer from 0 to 255 or null, not a number"),
        ({"confidence": "4"}, "record field 'qa.confidence' must be an integer from 0 to 255 or null, not a string"),
        ({"confidence": True}, "record field 'qa.confidence' must be an integer from 0 to 255 or null, not a boolean"),
        ({"reverts_edits": "false"}, "record field 'qa.reverts_edits' must be a boolean or null, not a string"),
        ({"error": ["no"]}, "record field 'qa.error' must be a string or null, not a list"),
        ([ACCEPTED], "record field 'qa' must be an object or null, not a list"),
        ("yes", "record field 'qa' must be an object or null, not a string"),
    ],
    ids=["256", "negative", "float", "string", "bool", "reverts-string", "error-list", "list", "string-qa"],
)
def test_a_malformed_qa_is_one_line_naming_the_field(
    qa: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(RecordError) as raised:
        check_record(run_record("bad", "failed", qa))
    assert str(raised.value) == message
    # editpred report: the record skipped in one line naming file and line, the others summarised.
    path = tmp_path / "run.jsonl"
    records = [run_record("good", qa=ACCEPTED), run_record("bad", "failed", qa)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert report_main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == f"editpred-report: {path}:2: {message} (skipped)\n"
    assert "1 predictions: 1 passed" in out


# ---------------------------------------------------------------- judged acceptable


@pytest.mark.parametrize(
    ("qa", "verdict"),
    [
        (ACCEPTED, True),
        ({"confidence": 4}, True),  # no reverts_edits: not a revert
        ({"confidence": 4, "reverts_edits": True}, False),
        ({"confidence": 3, "reverts_edits": False}, False),
        ({"confidence": 0}, False),
        ({"confidence": 9}, True),  # stored as Zed stores it: no range check inside 0-255
        ({"reverts_edits": False}, None),  # no confidence: no verdict
        (UNPARSED, None),
        (None, None),
    ],
)
def test_judged_acceptable(qa: dict[str, Any] | None, verdict: bool | None) -> None:
    assert qa_acceptable(qa) is verdict


# ------------------------------------------------------------------- the ep eval table

#: zed-qa-repair.md §5.4, as it prints ("|" ends a line and is not printed).
DISPLAY_5_4 = """\
─────────────────────────────────────────────────────────────────────────────────────────────────────|
Example                                  DeltaChrF Brace      F1  Revert   QaRev  QaConf Cursor WrgER|
─────────────────────────────────────────────────────────────────────────────────────────────────────|
cart-rename                                100.00     0  100.0%    0.0%      no       5      -      |
web-greet                                   41.50     0    0.0%    0.0%      no       2     ±4      |
web-greet                                   88.89     0  100.0%    0.0%       -       -      ✓      |
calc-mul                                   100.00     0  100.0%    0.0%       -       -      -      |
─────────────────────────────────────────────────────────────────────────────────────────────────────|
TOTAL / AVERAGE                             82.60   0.0   75.0%    0.0%    0.0%     3.5    50% 0.00%|
─────────────────────────────────────────────────────────────────────────────────────────────────────|
"""


def display_records() -> list[dict[str, Any]]:
    """§5.4's four score rows: cart-rename (QA no, 5), web-greet's teacher (no, 2) and
    repair (no QA entry) predictions, calc-mul (a QA parse error)."""
    teacher = score(delta_chr_f=41.5, exact_lines_tp=0, exact_lines_fp=1, exact_lines_fn=1, cursor_distance=4,
                    cursor_exact_match=False)  # fmt: skip
    repair = score(delta_chr_f=88.89, cursor_distance=0, cursor_exact_match=True)
    return [
        run_record("cart-rename", qa={**ACCEPTED, "confidence": 5}),
        run_record("web-greet", "failed", DOUBTFUL, metrics=teacher),
        run_record("web-greet", qa=None, metrics=repair, nodeid="evals/repair/web-greet.md::web-greet"),
        run_record("calc-mul", qa=UNPARSED),
    ]


def test_the_display_example_byte_for_byte() -> None:
    records = [check_record(r, complete=True) for r in display_records()]
    table = format_eval_report(eval_rows(records)).split("\n")
    expected = DISPLAY_5_4.replace("|\n", "\n").split("\n")
    assert table[: len(expected) - 1] == expected[:-1]
    # "calc-mul contributes to neither": QaRev 0/2, QaConf (5+2)/2.
    data = Summary.from_scores([row.score for row in eval_rows(records)], [r["qa"] for r in records])
    assert (data.qa_avg_reverts_edits, data.qa_avg_confidence) == (0.0, 3.5)
    text = summary_json_text(data.to_summary_json())
    assert '"qa_avg_reverts_edits": 0.0,\n  "qa_avg_confidence": 3.5,' in text


def test_the_html_pages_summary_of_a_saved_run_has_the_judges_averages() -> None:
    """``editpred report --html`` summarises a saved run as the run did: the judge's
    averages pair each scored record with its own answer."""
    from pytest_editpred.reports._viewer import summary_of

    records = [check_record(r, complete=True) for r in display_records()]
    data = summary_of(records)
    assert (data["qa_avg_reverts_edits"], data["qa_avg_confidence"]) == (0.0, 3.5)


def test_the_total_row_rounds_through_float32() -> None:
    # 2 of 3 revert: f32(2/3) * 100 in f32 is 66.66667 (66.7%); 3 confidences 4, 4, 5:
    # 13/3 cast to f32, 4.3333335 (4.3).
    qas = [{"reverts_edits": True, "confidence": 4}, {"reverts_edits": True, "confidence": 4},
           {"reverts_edits": False, "confidence": 5}]  # fmt: skip
    records = [run_record(f"ex{i}", qa=qa) for i, qa in enumerate(qas)]
    reverts, confidence = qa_averages(qas)
    assert reverts == float32(2 / 3) and reverts != 2 / 3
    assert confidence == float32(13 / 3) and confidence != 13 / 3
    total = next(line for line in format_eval_report(eval_rows(records)).splitlines() if line.startswith("TOTAL"))
    assert total.split()[7:9] == ["66.7%", "4.3"]
    data = Summary.from_scores([row.score for row in eval_rows(records)], qas).to_summary_json()
    text = summary_json_text(data)
    assert '"qa_avg_reverts_edits": 0.6666667,' in text and '"qa_avg_confidence": 4.3333335,' in text
    # The file is the JSON Python writes, field for field, but for the f32 digits.
    assert json.loads(text) == {**data, "qa_avg_reverts_edits": 0.6666667, "qa_avg_confidence": 4.3333335}
    assert text == json.dumps({**data, "qa_avg_reverts_edits": 0.6666667, "qa_avg_confidence": 4.3333335}, indent=2)


def test_no_qa_no_qa_fields() -> None:
    records = [run_record("a"), run_record("b", qa=UNPARSED)]  # an error has neither field
    data = Summary.from_scores([row.score for row in eval_rows(records)], [r["qa"] for r in records])
    assert "qa_avg_reverts_edits" not in data.to_summary_json() and "qa_avg_confidence" not in data.to_summary_json()
    total = next(line for line in format_eval_report(eval_rows(records)).splitlines() if line.startswith("TOTAL"))
    assert total.split()[7:9] == ["-", "-"]


def test_a_revert_is_yes_and_absent_fields_are_dashes() -> None:
    records = [
        run_record("a", qa=REVERTS),
        run_record("b", qa={"reverts_edits": False}),
        run_record("c", qa={"confidence": 0}),
        run_record("d", qa={}),
    ]
    rows = format_eval_report(eval_rows(records)).splitlines()[3:7]
    assert [row.split()[5:7] for row in rows] == [["yes", "4"], ["no", "-"], ["-", "0"], ["-", "-"]]
    assert rows[0] == "a".ljust(40) + "   100.00     0  100.0%    0.0%     yes       4      -      "


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0.0"), (3.5, "3.5"), (3.0, "3.0"), (2 / 3, "0.6666667"), (1 / 3, "0.33333334"), (0.7, "0.7"),
        (255.0, "255.0"), (1e-6, "0.000001"), (1e-5, "0.00001"), (1e-7, "1e-7"), (1.5e-7, "1.5e-7"),
        (123456789.0, "123456790.0"), (1e13, "1e13"), (1.2e13, "1.2e13"), (1.17549435e-38, "1.1754944e-38"),
        (3.4028234663852886e38, "3.4028235e38"), (float("nan"), "null"),
    ],
)  # fmt: skip
def test_float32_text_is_serde_s(value: float, text: str) -> None:
    assert float32_text(value) == text


def test_float32_text_is_the_shortest_text_that_reads_back() -> None:
    # Every f32 of a sweep across the exponents: the text reads back as that f32,
    # and no text of one digit fewer (the nearest at that length) does.
    import struct

    for bits in range(0x00000001, 0x7F000000, 0x000F4243):
        value = struct.unpack("<f", struct.pack("<I", bits))[0]
        text = float32_text(value)
        assert float32(float(text)) == value, (value, text)
        digits = len(text.split("e")[0].replace(".", "").replace("-", "").strip("0")) or 1
        if digits > 1:
            shorter = float(f"{value:.{digits - 2}e}")
            assert float32(shorter) != value, (value, text)


# -------------------------------------------------------------------- ep JSON's qa


def test_ep_qa_is_zeds_list_in_zeds_key_order() -> None:
    shuffled = {"error": None, "confidence": 3, "extra": 1, "reverts_edits": False, "reasoning": "r"}
    assert ep_qa([shuffled, None]) == [{"reasoning": "r", "reverts_edits": False, "confidence": 3}, None]
    assert list(ep_qa([{k: ACCEPTED[k] for k in reversed(list(ACCEPTED))}])[0] or {}) == list(ACCEPTED)


def test_with_ep_qa_places_the_list_after_the_pipeline_fields_and_omits_an_empty_one() -> None:
    example = {
        "name": "calc--sub", "repository_url": "https://github.com/acme/calc", "revision": "a" * 40,
        "uncommitted_diff": "", "cursor_path": "calc.py", "cursor_position": "def sub(a, b):<|user_cursor|>",
        "edit_history": "", "expected_patches": ["--- a/calc.py\n+++ b/calc.py\n"],
        "prompt_inputs": {"cursor_path": "calc.py"}, "predictions": [{"actual_output": "", "provider": "teacher"},
        {"actual_output": "", "provider": "repair"}], "score": [{}, {}], "qa": [{"confidence": 1}],
        "telemetry": None,
    }  # fmt: skip
    judged = with_ep_qa(example, [REVERTS, None])
    assert list(judged) == [k for k in example if k not in ("qa", "telemetry")] + ["qa", "telemetry"]
    assert judged["qa"] == [REVERTS, None]
    assert "qa" not in with_ep_qa(example, [])
    without_score = {k: v for k, v in example.items() if k not in ("score", "qa")}
    assert list(with_ep_qa(without_score, [None]))[-2:] == ["qa", "telemetry"]
    bare = {k: v for k, v in example.items() if k not in ("prompt_inputs", "predictions", "score", "qa", "telemetry")}
    assert list(with_ep_qa(bare, [ACCEPTED]))[-1] == "qa"
    # The example still loads (ep's pipeline fields are accepted and ignored).
    assert from_json(json.dumps(judged)).name == "calc--sub"


# ---------------------------------------------------------------- JUnit properties


def test_junit_properties_are_the_answer_s_fields_when_present() -> None:
    assert qa_properties(run_record("a", qa=ACCEPTED)) == [
        ("editpred_qa_confidence", 5),
        ("editpred_qa_reverts_edits", False),
    ]
    assert qa_properties(run_record("b", qa=UNPARSED)) == [("editpred_qa_error", "Could not parse JSON from response")]
    assert qa_properties(run_record("c", qa=None)) == []
    old = run_record("d")
    del old["qa"]
    assert qa_properties(old) == []


# ------------------------------------------------------------------- the agreement


def test_the_agreement_line_says_what_the_judge_accepts_and_rejects() -> None:
    records = [
        run_record("p1", "passed", ACCEPTED),
        run_record("p2", "passed", DOUBTFUL),  # rejected though it passed
        run_record("p3", "passed", ACCEPTED),
        run_record("f1", "failed", ACCEPTED),  # accepted though it failed
        run_record("f2", "failed", REVERTS),
        run_record("f3", "failed", UNPARSED),  # no verdict
        run_record("e1", "error", None, metrics={}),
        run_record("s1", "skipped", None, metrics={}),
    ]
    line = qa_line(records) or ""
    one = clustered_rate_interval([(1, 1), (1, 0), (1, 1), (1, 1), (1, 0)])
    accepted = clustered_rate_interval([(1, 1), (1, 0)])
    rejected = clustered_rate_interval([(1, 0), (1, 1), (1, 0)])

    def ci(interval: Any) -> str:
        return f"[95% CI {100 * interval.low:.1f}-{100 * interval.high:.1f}]"

    assert line == (
        "LLM judge (acceptable: confidence >= 4, not reverting): "
        f"judged acceptable 3 of 5 (60.0% {ci(one)}), "
        f"accepts 1 of 2 (50.0% {ci(accepted)}) that FAILED, "
        f"rejects 1 of 3 (33.3% {ci(rejected)}) that PASSED; "
        "1 of 6 asked without a verdict (no confidence)"
    )
    assert qa_counts(records) == (3, 5)


def test_the_agreement_clusters_trials_as_the_pass_rate_does() -> None:
    # Two examples, three trials each; the judge agrees with itself within an example.
    records = [
        run_record(name, outcome, qa, trial=t, trials=3)
        for name, outcome, qa in (("a", "failed", ACCEPTED), ("b", "passed", DOUBTFUL))
        for t in (1, 2, 3)
    ]
    line = qa_line(records) or ""
    overall = clustered_rate_interval([(3, 3), (3, 0)])
    assert f"judged acceptable 3 of 6 (50.0% [95% CI {100 * overall.low:.1f}-{100 * overall.high:.1f}])" in line
    assert overall == clustered_rate_interval([(1, 1), (1, 0)])  # two examples' worth, not six
    assert "(intervals over 2 examples, trials clustered)" in line
    assert "accepts 3 of 3 (100.0% [95% CI" in line and "rejects 3 of 3 (100.0% [95% CI" in line


def test_no_judge_no_line_and_a_judge_that_never_answered_says_so() -> None:
    assert qa_line([run_record("a"), run_record("b", "failed")]) is None
    line = qa_line([run_record("a", qa=UNPARSED), run_record("b", "failed", {"error": "connect"})])
    assert line == "LLM judge: no verdict on any of the 2 predictions asked (no confidence in any answer)"
