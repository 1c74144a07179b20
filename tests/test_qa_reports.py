"""The LLM judge's answer in the reports: the record's ``qa`` (zed-qa-repair.md §2.9).

Records are built as ``record_of`` writes them (every field, in its order), with the
``qa`` a judge's answer gets; tests/test_qa_reports_run.py has them from real runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_editpred.metrics import PredictionScore
from pytest_editpred.reports import JsonlReport, RecordError, check_record, read_records
from pytest_editpred.reports._cli import main as report_main

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
    assert list(back[0]["qa"] or {}) == ["reasoning", "reverts_edits", "confidence", "response"]
    again = tmp_path / "again.jsonl"
    with JsonlReport(again) as out:
        for record in back:
            out.append(record)
    assert again.read_bytes() == path.read_bytes()


def test_a_record_of_an_older_version_without_qa_still_reads() -> None:
    old = run_record("a")
    del old["qa"]
    assert check_record(old, complete=True) is old


def test_null_and_unknown_keys_read_as_zed_reads_them() -> None:
    qa = {"reasoning": None, "reverts_edits": None, "confidence": 4, "response": None, "error": None, "model": "x"}
    record = check_record(run_record("a", qa=qa))
    assert record["qa"] == qa


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
