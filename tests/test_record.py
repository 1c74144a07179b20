"""The record type and the records a real run writes cannot drift apart.

:class:`~pytest_editpred.reports.Record` is the schema of a JSONL line: every line a
run writes has exactly its keys (the required ones, optional ones only where they
apply), in its order, with values of its types, nested types too; every key it
declares is written by some item; and every reader takes a record read back from
the file.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

import pytest

from conftest import SUB, Project
from pytest_editpred.metrics import JumpLocation, PredictionScore
from pytest_editpred.reports import (
    GROUPS,
    JsonlReport,
    JumpLocationCounts,
    Metrics,
    Record,
    RecordedQa,
    RecordedRepair,
    RepairCursor,
    Summary,
    by_example,
    compare,
    cursor_rate_line,
    eval_rows,
    excluded,
    format_eval_report,
    group_lines,
    rates_line,
    read_records,
    render_html,
    trial_lines,
)

SCRIPTED = '''
import pytest
from pytest_editpred import Attempt, Prediction, RetrievedExcerpt, RetrievedFile

LINE = "def sub(a, b):\\n"
TWO_FILES = """--- a/calc.py
+++ b/calc.py
@@ -8,1 +8,2 @@
 def sub(a, b):
+    return a - b
--- a/README.md
+++ b/README.md
@@ -1,1 +1,2 @@
 # calc
+more
"""


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        facts = dict(
            model="scripted",
            usage={"prompt_tokens": 12, "completion_tokens": 3},
            attempts=(Attempt(1, "timeout", 0.5), Attempt(2, None, 0.25)),
            raw_output="the raw answer",
            extra={"prompt": [{"role": "user", "content": "complete it"}]},
        )
        name, text = request.example.name, request.text
        if name.endswith("--right"):
            return Prediction(text=text.replace(LINE, LINE + "    return a - b\\n"), **facts)
        if name.endswith("--wrong"):  # with the context it was given: scored as coverage
            context = (RetrievedFile("calc/README.md", 1, (RetrievedExcerpt(0, 1, "# calc\\n"),)),)
            return Prediction(text=text.replace(LINE, LINE + "    return a * b\\n"), context=context, **facts)
        if name.endswith("--two-files"):
            return Prediction(patch=TWO_FILES, **facts)
        return Prediction(**facts)

    return complete
'''

SKIP_FLAKY = """
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "flaky" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="known flaky"))
"""

# The user's edit history refers to a function calc.py does not have: an ERROR.
BROKEN_HISTORY = SUB.replace(" def mul(a, b):\n     return a * b\n+", " def div(a, b):\n     return a / b\n+")

#: Metrics fields no run of this package writes: Zed's log-probabilities and
#: context coverage (no provider reports them, no retrieval context is scored).
#: And the LLM judge's answer: this corpus asks no judge, so every record's ``qa`` is
#: None (a run with a judge fills it; tests/test_qa_reports.py reads such records).
# A run writes no ``repair`` (``editpred repair`` does: tests/test_repair_command.py).
NEVER_WRITTEN = {
    Metrics: {"cumulative_logprob", "avg_logprob"},
    RecordedQa: set(get_type_hints(RecordedQa)),
    Record: {"repair"},
    RecordedRepair: set(get_type_hints(RecordedRepair)),
    RepairCursor: set(get_type_hints(RepairCursor)),
}

OUTCOMES = {"passed": 2, "failed": 4, "errors": 2, "skipped": 2}


def make_corpus(project: Project) -> None:
    """Five examples, two trials each: every outcome, and every optional field."""
    project.example("calc--right", SUB, tags=("math",))  # passed: a diff, a cursor
    project.example("calc--wrong", SUB, tags=("math", "wrong"))  # failed: versus, cursor views
    project.example("calc--two-files", SUB)  # failed: the diff's other_files
    project.example("calc--broken", BROKEN_HISTORY)  # error: no verdict, no metrics
    project.example("calc--flaky", SUB, tags=("flaky",))  # skipped
    project.pytester.makeconftest(SCRIPTED + SKIP_FLAKY)


def run(project: Project, *args: str) -> Path:
    """One run of the corpus writing a JSONL report; its path."""
    path = project.pytester.path / "records.jsonl"
    result = project.pytester.runpytest(
        "evals", "--editpred-trials=2", f"--editpred-report={path}", "-p", "no:cacheprovider", *args
    )
    result.assert_outcomes(**OUTCOMES)
    return path


@pytest.fixture
def report(project: Project) -> Path:
    make_corpus(project)
    return run(project)


# ----------------------------------------------------------------------- the checker


def _is_typeddict(tp: object) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _typeddicts(tp: object) -> Iterator[type]:
    """``tp`` and every TypedDict nested in its fields."""
    if _is_typeddict(tp):
        yield typing.cast(type, tp)
        for field in get_type_hints(tp).values():
            yield from _typeddicts(field)
    else:
        for arg in get_args(tp):
            yield from _typeddicts(arg)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def conforms(value: Any, tp: Any, where: str, seen: dict[type, set[str]]) -> list[str]:
    """What is wrong with ``value`` as a ``tp`` (``[]``: nothing), recording the keys
    each TypedDict was seen with in ``seen``."""
    origin = get_origin(tp)
    if tp is object or tp is Any:
        return []
    if tp is type(None):
        return [] if value is None else [f"{where}: {_short(value)} is not None"]
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{where}: {_short(value)} not in {get_args(tp)}"]
    if origin in (typing.Union, types.UnionType):
        tries = [(conforms(value, arg, where, {}), arg) for arg in get_args(tp)]
        fits = [arg for problems, arg in tries if not problems]
        if fits:
            return conforms(value, fits[0], where, seen)  # again, to record the keys seen
        return min((problems for problems, _ in tries), key=len)  # the closest member's
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__} is not a list"]
        return [p for i, item in enumerate(value) for p in conforms(item, get_args(tp)[0], f"{where}[{i}]", seen)]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__} is not a dict"]
        key_type, value_type = get_args(tp)
        return [
            p
            for key, item in value.items()
            for p in conforms(key, key_type, f"{where} key", seen) + conforms(item, value_type, f"{where}.{key}", seen)
        ]
    if _is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__} is not a {tp.__name__}"]
        hints = get_type_hints(tp)
        problems = []
        missing = tp.__required_keys__ - set(value)
        unknown = set(value) - set(hints)
        if missing or unknown:
            problems.append(f"{where}: {tp.__name__} lacks {sorted(missing)}, has unknown {sorted(unknown)}")
        if list(value) != [key for key in hints if key in value]:
            problems.append(f"{where}: keys {list(value)} are not in {tp.__name__}'s order {list(hints)}")
        seen.setdefault(tp, set()).update(value)
        for key in hints.keys() & value.keys():
            problems += conforms(value[key], hints[key], f"{where}.{key}", seen)
        return problems
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {_short(value)} is not a number"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {_short(value)} is not an int"]
    if tp in (str, bool):
        return [] if isinstance(value, tp) else [f"{where}: {_short(value)} is not a {tp.__name__}"]
    raise AssertionError(f"{where}: the checker does not know {tp!r}")


def check_records(records: list[Record]) -> dict[type, set[str]]:
    seen: dict[type, set[str]] = {}
    problems = [p for record in records for p in conforms(record, Record, record["nodeid"], seen)]
    assert not problems, "\n".join(problems)
    return seen


# ----------------------------------------------------------------------- the tests


def test_every_line_of_a_run_is_a_record_and_every_field_is_written(report: Path) -> None:
    lines = report.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == sum(OUTCOMES.values())
    seen = check_records(records)
    # Every field the type declares, nested ones too, is written by some item: the
    # type holds no field the writer lost.
    for typed in set(_typeddicts(Record)):
        declared = set(get_type_hints(typed))
        assert declared - seen.get(typed, set()) == NEVER_WRITTEN.get(typed, set()), typed.__name__
    # What the corpus was made to show, so the loop above means what it says.
    by_name = {(r["name"], r["trial"]): r for r in records}
    assert by_name["calc--wrong", 1]["expected_view"] is not None and "versus" in by_name["calc--wrong", 1]["diff"]
    assert by_name["calc--two-files", 1]["diff"]["other_files"] == ["README.md"]
    assert "diff" not in by_name["calc--broken", 1] and by_name["calc--broken", 1]["metrics"] == {}
    assert "expected_view" not in by_name["calc--right", 1]
    assert {r["outcome"] for r in records} == {"passed", "failed", "error", "skipped"}


def test_the_optional_keys_are_the_ones_some_lines_lack(report: Path) -> None:
    records = read_records(report)
    always = set.intersection(*(set(r) for r in records))
    # predicted_text is on every line; it is optional for the run's own records,
    # which drop it once the line is written (test_the_runs_own_records_are_records).
    assert always == Record.__required_keys__ | {"predicted_text"}
    assert set().union(*records) - always == Record.__optional_keys__ - {"predicted_text", "repair"}


def test_metrics_are_zeds_score_and_jump_location_fields_in_order() -> None:
    # The writer of ``metrics`` is PredictionScore.to_dict: the type is its fields.
    assert list(get_type_hints(Metrics)) == [f.name for f in dataclasses.fields(PredictionScore)]
    assert list(get_type_hints(JumpLocationCounts)) == [f.name for f in dataclasses.fields(JumpLocation)]
    assert Metrics.__required_keys__ == frozenset()  # {} when not scored


def test_the_runs_own_records_are_records(project: Project) -> None:
    # What the controller aggregates (the terminal summary, the HTML page) before and
    # without a JSONL file: the same type, ``predicted_text`` dropped once reported.
    make_corpus(project)
    recorder = project.pytester.inline_run("evals", "--editpred-trials=2", "-p", "no:cacheprovider")
    records = [r.editpred for r in recorder.getreports("pytest_runtest_logreport") if hasattr(r, "editpred")]
    assert len(records) == sum(OUTCOMES.values())
    check_records(records)
    assert not any("predicted_text" in r or "diff" in r for r in records)  # no report file: no viewer diffs


def test_a_read_back_record_is_written_again_byte_for_byte(report: Path, tmp_path: Path) -> None:
    records = read_records(report)
    again = tmp_path / "again.jsonl"
    with JsonlReport(again) as out:
        for record in records:
            out.append(record)
    assert again.read_bytes() == report.read_bytes()


def test_every_reader_takes_a_real_runs_records(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_editpred.reports._cli import main

    records = read_records(report)
    check_records(records)
    # The summary lines.
    counts = {k: sum(r["outcome"] == k for r in records) for k in ("passed", "failed", "error", "skipped")}
    summary = {**counts, "total": len(records) - counts["skipped"]}
    assert rates_line(records, summary).startswith("8 predictions: 2 passed, 4 failed, 2 errors, 2 skipped; pass rate")
    assert excluded(records) == "2 errors excluded"
    assert sorted(len(rs) for rs in by_example(records).values()) == [2, 2, 2, 2]
    assert (cursor_rate_line(records) or "").startswith("cursor exact match")
    assert trial_lines(records)[0].startswith("trials: 4 examples x 2: pass@1 25.0%")
    for group in GROUPS:
        assert group_lines(records, group)[0] == f"by {group}:"
    math = next(line for line in group_lines(records, "tag") if line.startswith("  math "))
    assert math.split() == ["math", "2/4", "passed", "(50%),", "mean", "delta-chrF", "89.3"]
    # The table and the SummaryJson.
    scores = [PredictionScore.from_dict(r["metrics"]) for r in records if r["metrics"]]
    assert len(scores) == 6 and "TOTAL / AVERAGE" in format_eval_report(eval_rows(records))
    assert Summary.from_scores(scores).to_summary_json()["total_examples"] == 6
    # The comparison, the HTML page.
    assert compare(records, records).counts["unchanged"] == 4
    page = render_html(records, baseline=records)
    assert "calc--two-files" in page and "README.md" in page
    # editpred-report: all of them, on the file.
    html = tmp_path / "page.html"
    assert main([str(report), "--baseline", str(report), "--html", str(html)]) == 0
    assert "8 predictions: 2 passed, 4 failed, 2 errors, 2 skipped" in capsys.readouterr().out
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_replay_answers_from_a_real_runs_records(project: Project, report: Path) -> None:
    from pytest_editpred.providers._replay import load_replay

    records = read_records(report)
    by_trial, _ = load_replay(report)
    for record in records:
        answer = by_trial[record["name"], record["trial"]]
        assert (answer.patch, answer.text, answer.model) == (
            record["predicted_patch"],
            record.get("predicted_text"),
            record["model"],
        )
        cursor = record["predicted_cursor"]
        assert answer.cursor == (cursor["offset"] if cursor is not None else None)
    # And judged again, the same outcomes: the replay provider instead of the script.
    project.pytester.makeconftest(SKIP_FLAKY)
    again = project.pytester.path / "again.jsonl"
    result = project.pytester.runpytest(
        "evals",
        "--editpred-trials=2",
        "--editpred-provider=replay",
        f"--editpred-replay={report}",
        f"--editpred-report={again}",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(**OUTCOMES)
    replayed = read_records(again)
    # The record keeps the coverage of the context a completion reported, not the
    # context itself: a replayed answer is scored without it.
    context = ("editable_context_coverage", "retrieved_context_bytes")

    def answer(r: Record) -> tuple[object, ...]:
        return (r["name"], r["trial"], r["outcome"], {k: v for k, v in r["metrics"].items() if k not in context})

    assert [answer(r) for r in replayed] == [answer(r) for r in records]
    assert not any(k in r["metrics"] for r in replayed for k in context)
