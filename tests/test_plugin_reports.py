"""Metrics, trials and reports through the plugin: summaries, gates, files, comparison.

Every test runs a pytester project (tests/conftest.py) plainly and under ``-n 2``.
Predictions are scripted by a conftest ``editpred_completion`` (``SCRIPTED`` below)
that reads ``script.json`` in the project: per example name, what to answer (by
trial), and logs every call to ``calls.log``, so a test can tell what ran where.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conftest import SUB, Project
from pytest_editpred import from_markdown
from pytest_editpred.reports import read_records
from pytest_editpred.reports._summary import SUMMARY_JSON_FIELDS

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

SCRIPTED = """
import json, os, time
from pathlib import Path

import pytest
from pytest_editpred import Prediction

HERE = Path(__file__).parent
LINE = "def sub(a, b):\\n"


def answer(request, how):
    text = request.text
    if how == "right":
        return Prediction(text=text.replace(LINE, LINE + "    return a - b\\n"), model="scripted")
    if how == "wrong":
        return Prediction(text=text.replace(LINE, LINE + "    return a * b\\n"), model="scripted")
    if how == "revert":  # undo the user's last edit: the two blank lines and def sub
        return Prediction(text=text.replace("\\n\\n\\n" + LINE, "\\n"), model="scripted")
    if how == "nothing":
        return Prediction(model="scripted")
    raise AssertionError(how)


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        script = json.loads((HERE / "script.json").read_text())
        name = request.example.name
        how = script.get(name, script.get("*", "right"))
        if isinstance(how, list):
            how = how[request.trial - 1]
        with open(HERE / "calls.log", "a") as log:
            log.write(json.dumps({"name": name, "trial": request.trial, "pid": os.getpid()}) + "\\n")
        delay = script.get("sleep", {}).get(name, script.get("sleep", {}).get("*", 0))
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline and not (HERE / "release").exists():
            time.sleep(0.02)
        return answer(request, how)
    return complete
"""

# The user's edit history refers to a function calc.py does not have: an ERROR.
BROKEN_HISTORY = SUB.replace(" def mul(a, b):\n     return a * b\n+", " def div(a, b):\n     return a / b\n+")

RECORD_KEYS = {
    "name", "nodeid", "repository_url", "revision", "provider", "model", "trial", "attempts",
    "predicted_patch", "predicted_text", "predicted_cursor", "matched_candidate", "metrics",
    "outcome", "reason",
}  # fmt: skip


def scripted(project: Project, script: dict[str, Any]) -> None:
    """Answer per ``script`` (see ``SCRIPTED``); clears the call log."""
    project.pytester.makeconftest(SCRIPTED)
    (project.pytester.path / "script.json").write_text(json.dumps(script))
    (project.pytester.path / "calls.log").unlink(missing_ok=True)


def calls(project: Project) -> list[tuple[str, int]]:
    log = project.pytester.path / "calls.log"
    if not log.exists():
        return []
    return sorted((c["name"], c["trial"]) for c in map(json.loads, log.read_text().splitlines()))


def only_line(output: str, pattern: str) -> str:
    lines = [line for line in output.splitlines() if re.search(pattern, line)]
    assert len(lines) == 1, f"expected one line matching {pattern!r}, got {lines}\n{output}"
    return lines[0]


# ----------------------------------------------------------------------------- 1. trials


@pytest.mark.xdist
def test_trials_are_items_and_separate_predictions(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    scripted(project, {"*": ["right", "wrong", "wrong"]})  # only trial 1 passes
    collected = project.pytester.runpytest("evals", "--editpred-trials", "3", "--collect-only", "-q")
    ids = [line for line in collected.stdout.lines if line.startswith("evals/")]
    assert ids == [f"evals/calc--{x}.md::calc--{x}[t{t}]" for x in "ab" for t in (1, 2, 3)]

    result = project.pytester.runpytest("evals", "--editpred-trials", "3", *plugin_args)
    result.assert_outcomes(passed=2, failed=4)
    # Each trial asked the completion once, with its own trial number.
    assert calls(project) == [(f"calc--{x}", t) for x in "ab" for t in (1, 2, 3)]
    line = only_line(result.stdout.str(), r"^trials:")
    assert line.startswith("trials: 2 examples x 3: ")
    assert re.search(r"pass@1 33\.3% \[95% CI \d+\.\d-\d+\.\d\]", line), line
    assert re.search(r"pass@3 100\.0% \[\d+\.\d-100\.0\]", line), line
    assert re.search(r"pass\^3 0\.0% \[0\.0-\d+\.\d\]", line), line
    result.stdout.fnmatch_lines(["*6 predictions: 2 passed, 4 failed; pass rate 33.3%*"])


@pytest.mark.xdist
def test_trials_line_survives_an_unreadable_example_file(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--unreadable", "## Cursor Position\n\nno fence here\n")
    scripted(project, {"calc--a": ["right", "wrong"]})
    result = project.pytester.runpytest("evals", "--editpred-trials", "2", *plugin_args)
    result.assert_outcomes(passed=1, failed=1, errors=1)
    line = only_line(result.stdout.str(), r"^trials:")
    assert line.startswith("trials: 1 examples x 2 (1 unreadable example file(s) left out): pass@1 50.0%"), line


@pytest.mark.xdist
def test_trials_with_a_bracketed_directory_are_grouped_by_example(project: Project, plugin_args: list[str]) -> None:
    # "[t" in a directory name must not be mistaken for the trial suffix.
    project.example("calc--a", SUB, folder="evals/[tricky]")
    project.example("calc--b", SUB, folder="evals/[tricky]")
    scripted(project, {"calc--a": "right", "calc--b": "wrong"})
    result = project.pytester.runpytest("evals", "--editpred-trials", "2", *plugin_args)
    result.assert_outcomes(passed=2, failed=2)
    line = only_line(result.stdout.str(), r"^trials:")
    assert line.startswith("trials: 2 examples x 2: pass@1 50.0%"), line
    assert "pass@2 50.0%" in line and "pass^2 50.0%" in line, line


# ---------------------------------------------------------------------- 2. the summary


@pytest.mark.xdist
def test_summary_is_printed_once(project: Project, plugin_args: list[str]) -> None:
    for name in ("calc--a", "calc--b", "calc--c"):
        project.example(name, SUB)
    scripted(project, {"calc--c": "wrong"})
    result = project.pytester.runpytest("evals", *plugin_args)
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert out.count("editpred summary") == 1, out
    assert out.count("TOTAL / AVERAGE") == 1, out
    assert len(re.findall(r"^3 predictions: 2 passed, 1 failed; pass rate 66\.7%", out, re.MULTILINE)) == 1, out
    # The table lists every example once, and comes before the rates line.
    for name in ("calc--a", "calc--b", "calc--c"):
        assert len(re.findall(rf"^{name} ", out, re.MULTILINE)) == 1, out
    assert out.index("TOTAL / AVERAGE") < out.index("3 predictions:")


# ------------------------------------------------------------------------------ 3. gate


@pytest.mark.xdist
def test_fail_under_gate(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    scripted(project, {"calc--b": "wrong"})
    run = project.pytester.runpytest
    result = run("evals", "--editpred-fail-under", "40", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.OK
    line = only_line(result.stdout.str(), r"^gate:")
    assert "pass rate 50.0% >= 40% required: the run passes" in line, line
    assert "1 failed" in line, line

    result = run("evals", "--editpred-fail-under", "60", *plugin_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "pass rate 50.0% < 60% required: the run fails" in only_line(result.stdout.str(), r"^gate:")

    # An ERROR is not a pass: 1 passed + 1 error is 50%, not 100%.
    project.example("calc--b", BROKEN_HISTORY)
    result = run("evals", "--editpred-fail-under", "60", *plugin_args)
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "pass rate 50.0% < 60%" in only_line(result.stdout.str(), r"^gate:")
    result.stdout.fnmatch_lines(["*2 predictions: 1 passed, 1 error; pass rate 50.0%*"])
    result = run("evals", "--editpred-fail-under", "50", *plugin_args)
    assert result.ret == pytest.ExitCode.OK
    assert "1 errors are within the limit" in only_line(result.stdout.str(), r"^gate:")


@pytest.mark.xdist
def test_fail_under_does_not_excuse_a_stopped_run_or_other_tests(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    scripted(project, {"calc--a": "wrong"})
    # -x stops after the first failure: a rate over what ran is no reason to pass.
    # (Under xdist, -x ends the session as INTERRUPTED: xdist's own status.)
    result = project.pytester.runpytest("evals", "--editpred-fail-under", "0", "-x", *plugin_args)
    assert result.ret in (pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED)
    assert "gate: not applied: the run stopped early" in only_line(result.stdout.str(), r"^gate:")

    # A failing unit test next to the examples is not an example: the gate is about examples.
    scripted(project, {})
    project.pytester.makepyfile(test_unit="def test_unit():\n    assert 1 == 2\n")
    result = project.pytester.runpytest("evals", "test_unit.py", "--editpred-fail-under", "50", *plugin_args)
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "gate: not applied: 1 test(s)" in only_line(result.stdout.str(), r"^gate:")
    result = project.pytester.runpytest("evals", "--editpred-fail-under", "50", *plugin_args)
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.xdist
def test_bad_report_option_values_are_usage_errors(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    scripted(project, {})
    for args, message in (
        (["--editpred-fail-under", "most"], "--editpred-fail-under: bad value 'most'"),
        (["--editpred-group-by", "author"], "--editpred-group-by 'author'"),
        (["--editpred-min-delta-chrf", "high"], "--editpred-min-delta-chrf: bad value 'high'"),
    ):
        result = project.pytester.runpytest("evals", *args, *plugin_args)
        out = result.stdout.str() + result.stderr.str()
        assert result.ret == pytest.ExitCode.USAGE_ERROR, out
        assert message in out and "INTERNALERROR" not in out, out


# ---------------------------------------------------------------------- 4. summary JSON


@pytest.mark.xdist
def test_summary_json_has_zed_fields(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    scripted(project, {"calc--b": ["wrong", "right"]})
    path = project.pytester.path / "out" / "summary.json"
    result = project.pytester.runpytest(
        "evals", "--editpred-trials", "2", f"--editpred-summary-json={path}", *plugin_args
    )
    result.assert_outcomes(passed=3, failed=1)
    data = json.loads(path.read_text())
    assert set(data) <= set(SUMMARY_JSON_FIELDS), set(data) - set(SUMMARY_JSON_FIELDS)
    assert data["total_examples"] == 4
    assert 0 < data["avg_delta_chr_f"] < 100
    assert data["exact_lines_true_positives"] >= 3
    assert data["cursor_total_evaluated"] == 4
    result.stdout.fnmatch_lines([f"*editpred summary: {path}*"])


# --------------------------------------------------------------------- 5. JSONL records


@pytest.mark.xdist
def test_jsonl_report_has_one_complete_record_per_item_and_trial(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    project.example("calc--broken", BROKEN_HISTORY)
    scripted(project, {"calc--b": ["wrong", "right"]})
    path = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest("evals", "--editpred-trials", "2", f"--editpred-report={path}", *plugin_args)
    result.assert_outcomes(passed=3, failed=1, errors=2)
    lines = path.read_text().splitlines()
    assert len(lines) == 6
    records = {(r["name"], r["trial"]): r for r in map(json.loads, lines)}
    assert set(records) == {(n, t) for n in ("calc--a", "calc--b", "calc--broken") for t in (1, 2)}
    for record in records.values():
        assert RECORD_KEYS <= set(record), RECORD_KEYS - set(record)
        assert record["repository_url"] == project.url and record["revision"] == project.rev
        assert record["provider"] == "conftest.editpred_completion"  # the conftest's function answered
        assert record["nodeid"] == f"evals/{record['name']}.md::{record['name']}[t{record['trial']}]"
    good, bad, broken = records["calc--a", 1], records["calc--b", 1], records["calc--broken", 1]
    assert good["outcome"] == "passed" and good["matched_candidate"] == 1 and good["model"] == "scripted"
    assert good["metrics"]["delta_chr_f"] == 100.0 and good["metrics"]["exact_lines_tp"] >= 1
    assert "return a - b" in good["predicted_text"]
    assert good["predicted_cursor"]["path"] == "calc.py"
    text = good["predicted_text"]
    assert good["predicted_cursor"]["offset"] == text.index("a - b\n") + len("a - b")
    assert bad["outcome"] == "failed" and bad["matched_candidate"] is None
    assert "matches none" in bad["reason"] and bad["metrics"]["delta_chr_f"] < 100
    assert records["calc--b", 2]["outcome"] == "passed"
    assert broken["outcome"] == "error" and broken["reason"].startswith("example:")
    assert broken["metrics"] == {} and broken["predicted_text"] is None
    assert read_records(path) == [json.loads(line) for line in lines]


@pytest.mark.xdist
def test_jsonl_report_replays_to_the_same_outcomes(project: Project, plugin_args: list[str]) -> None:
    # A report is a replay file: the same predictions, trial by trial, judged again.
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    scripted(project, {"calc--a": ["right", "wrong"], "calc--b": ["wrong", "right"]})
    path = project.pytester.path / "r.jsonl"
    args = ("evals", "--editpred-trials=2")
    project.pytester.runpytest(*args, f"--editpred-report={path}", *plugin_args).assert_outcomes(passed=2, failed=2)
    (project.pytester.path / "conftest.py").unlink()
    again = project.pytester.path / "again.jsonl"
    result = project.pytester.runpytest(
        *args, "--editpred-provider=replay", f"--editpred-replay={path}", f"--editpred-report={again}", *plugin_args
    )
    result.assert_outcomes(passed=2, failed=2)

    def outcomes(records: list[dict[str, Any]]) -> dict[tuple[str, int], tuple[str, Any]]:
        return {(r["name"], r["trial"]): (r["outcome"], r["metrics"]) for r in records}

    assert outcomes(read_records(again)) == outcomes(read_records(path))
    assert {r["provider"] for r in read_records(again)} == {"replay"}


@pytest.mark.xdist
def test_skipped_examples_are_recorded_as_skipped(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB, tags=("flaky",))
    scripted(project, {})
    with (project.pytester.path / "conftest.py").open("a") as conftest:
        conftest.write(
            "\n\ndef pytest_collection_modifyitems(items):\n"
            "    for item in items:\n"
            "        if 'flaky' in item.keywords:\n"
            "            item.add_marker(pytest.mark.skip(reason='known flaky'))\n"
        )
    path = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest("evals", f"--editpred-report={path}", *plugin_args)
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["1 predictions: 1 passed, 1 skipped; pass rate 100.0%*"])
    records = {r["name"]: r for r in read_records(path)}
    assert records["calc--b"]["outcome"] == "skipped" and records["calc--a"]["outcome"] == "passed"
    assert records["calc--b"]["metrics"] == {} and records["calc--b"]["predicted_text"] is None


@pytest.mark.xdist
def test_a_broken_completion_fixture_is_recorded_as_errors(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    project.pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def editpred_completion():
            raise RuntimeError("no model today")
        """
    )
    path = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest("evals", f"--editpred-report={path}", "--editpred-fail-under=0", *plugin_args)
    result.assert_outcomes(errors=2)
    records = read_records(path)
    assert sorted(r["name"] for r in records) == ["calc--a", "calc--b"]
    assert all(r["outcome"] == "error" and "no model today" in r["reason"] for r in records)
    result.stdout.fnmatch_lines(["2 predictions: 2 errors; pass rate 0.0%*"])
    # They are examples: the gate judges them (and lets 0% >= 0% pass).
    assert "the run passes" in only_line(result.stdout.str(), r"^gate:")
    assert result.ret == pytest.ExitCode.OK


def test_a_skipped_example_is_not_predicted_ahead(project: Project) -> None:
    # Plain run only: under xdist whether the skipped item is in a worker's queue
    # when the prefetch starts depends on scheduling.
    project.example("calc--a", SUB)
    project.example("calc--b", SUB, tags=("flaky",))
    scripted(project, {})
    with (project.pytester.path / "conftest.py").open("a") as conftest:
        conftest.write(
            "\n\ndef pytest_collection_modifyitems(items):\n"
            "    for item in items:\n"
            "        if 'flaky' in item.keywords:\n"
            "            item.add_marker(pytest.mark.skip(reason='known flaky'))\n"
        )
    project.pytester.runpytest("evals").assert_outcomes(passed=1, skipped=1)
    assert calls(project) == [("calc--a", 1)]


@pytest.mark.xdist
def test_report_can_be_its_own_baseline(project: Project, plugin_args: list[str]) -> None:
    # `--editpred-report r.jsonl --editpred-baseline r.jsonl`: compare with the last
    # run, then keep this one as the next baseline. The old file must be read first.
    project.example("calc--a", SUB)
    scripted(project, {"calc--a": "right"})
    path = project.pytester.path / "r.jsonl"
    project.pytester.runpytest("evals", f"--editpred-report={path}", *plugin_args).assert_outcomes(passed=1)
    scripted(project, {"calc--a": "wrong"})
    result = project.pytester.runpytest(
        "evals", f"--editpred-report={path}", f"--editpred-baseline={path}", *plugin_args
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["compared 1 old and 1 new examples: 0 improved, 1 regressed*"])
    assert [r["outcome"] for r in read_records(path)] == ["failed"]


# ------------------------------------------------------------------ 6. interrupted run


@pytest.mark.xdist
def test_killed_run_keeps_its_finished_records(project: Project, plugin_args: list[str]) -> None:
    names = [f"calc--{i:02d}" for i in range(10)]
    for name in names:
        project.example(name, SUB)
    # The first five answer at once; the others wait (for "release", at most 60 s).
    scripted(project, {"sleep": {name: 60 for name in names[5:]}})
    report = project.pytester.path / "r.jsonl"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "evals",
        f"--editpred-report={report}",
        *plugin_args,
    ]
    # A session of its own, so the kill reaches the xdist workers too.
    process = subprocess.Popen(
        command, cwd=project.pytester.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if report.exists() and report.read_bytes().count(b"\n") >= 3:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before it could be killed"
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        (project.pytester.path / "release").touch()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
    records = read_records(report)
    assert 3 <= len(records) <= 5
    for record in records:
        assert RECORD_KEYS <= set(record)
        assert record["outcome"] == "passed" and record["name"] in names[:5]
        assert record["metrics"]["delta_chr_f"] == 100.0


# ------------------------------------------------------------------------ 7. comparison


@pytest.mark.xdist
def test_baseline_comparison_and_regression_gate(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    old = project.pytester.path / "old.jsonl"
    run = project.pytester.runpytest
    scripted(project, {"calc--a": "right", "calc--b": "wrong"})
    run("evals", f"--editpred-report={old}", *plugin_args).assert_outcomes(passed=1, failed=1)

    scripted(project, {"calc--a": "wrong", "calc--b": "right"})
    result = run("evals", f"--editpred-baseline={old}", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "compared 2 old and 2 new examples: 1 improved, 1 regressed, 0 unchanged, 0 new, 0 missing",
            "  pass rate   +0.0 pts [[]*] within noise  (95% paired bootstrap over 2 examples)",
            "  delta-chrF  +0.00 [[]*]*(95% paired bootstrap over 2 examples)",
            "regressed (1):",
            "  calc--a: passed -> failed (chrF 100.0 -> *)",
            "improved (1):",
            "  calc--b: failed -> passed (chrF * -> 100.0)",
        ]
    )
    # The pass-rate gate alone would pass this run; the regression gate fails it.
    gated = run("evals", f"--editpred-baseline={old}", "--editpred-fail-under=0", *plugin_args)
    assert gated.ret == pytest.ExitCode.OK
    gated = run(
        "evals", f"--editpred-baseline={old}", "--editpred-fail-under=0", "--editpred-fail-on-regression", *plugin_args
    )
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    gated.stdout.fnmatch_lines(["regression gate: 1 example(s) regressed: the run fails"])

    # No regression: B improved, A stayed failed.
    scripted(project, {"calc--a": "wrong", "calc--b": "wrong"})
    run("evals", f"--editpred-report={old}", *plugin_args)
    scripted(project, {"calc--a": "wrong", "calc--b": "right"})
    ok = run(
        "evals", f"--editpred-baseline={old}", "--editpred-fail-under=0", "--editpred-fail-on-regression", *plugin_args
    )
    assert ok.ret == pytest.ExitCode.OK
    ok.stdout.fnmatch_lines(
        [
            "*1 improved, 0 regressed, 1 unchanged*",
            "regression gate: no example regressed: the run passes (failing items are not regressions)",
        ]
    )
    # The regression gate alone decides too: calc--a still fails, nothing regressed.
    alone = run("evals", f"--editpred-baseline={old}", "--editpred-fail-on-regression", *plugin_args)
    alone.assert_outcomes(passed=1, failed=1)
    assert alone.ret == pytest.ExitCode.OK
    # With both gates, both must hold: a pass rate of 50% is under 60%.
    both = run(
        "evals", f"--editpred-baseline={old}", "--editpred-fail-under=60", "--editpred-fail-on-regression", *plugin_args
    )
    assert both.ret == pytest.ExitCode.TESTS_FAILED
    both.stdout.fnmatch_lines(
        ["gate: pass rate 50.0% < 60% required: the run fails*", "regression gate: no example regressed"]
    )


@pytest.mark.xdist
def test_unreadable_baseline_is_a_usage_error(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    scripted(project, {})
    missing = project.pytester.path / "nope.jsonl"
    report = project.pytester.path / "r.jsonl"
    report.write_text("keep me\n")
    result = project.pytester.runpytest(
        "evals", f"--editpred-baseline={missing}", f"--editpred-report={report}", *plugin_args
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--editpred-baseline: cannot read {missing}*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    # Before the run: no prediction was paid for, and no report was truncated.
    assert calls(project) == [] and report.read_text() == "keep me\n"
    # A corrupt baseline too.
    bad = project.pytester.path / "bad.jsonl"
    bad.write_text('{"name": "calc--a"}\nnot json\n{"name": "calc--b"}\n')
    result = project.pytester.runpytest("evals", f"--editpred-baseline={bad}", *plugin_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*line 2 is not valid JSON*"])


# ------------------------------------------------------------------------------ 8. HTML


@pytest.mark.xdist
def test_html_report_is_self_contained_and_shows_the_failure(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--good", SUB, tags=("completion",))
    project.example("calc--bad", SUB)
    project.example("calc--broken", BROKEN_HISTORY)
    scripted(project, {"calc--bad": "wrong"})
    path = project.pytester.path / "html" / "r.html"
    result = project.pytester.runpytest("evals", f"--editpred-html={path}", *plugin_args)
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines([f"*editpred html: {path}*"])
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert not re.search(r"<script[^>]*\bsrc=", page, re.IGNORECASE)
    assert not re.search(r"<link[^>]*\bhref=", page, re.IGNORECASE)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page, re.IGNORECASE)
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", page, re.IGNORECASE)
    # Outside the data (the repository URL), no http(s) reference at all.
    assert not re.findall(r"https?://", page.replace(project.url, ""))
    for name in ("calc--good", "calc--bad", "calc--broken"):
        assert name in page
    # The items' details are embedded as JSON (drawn by the page's script: see
    # tests/test_report_viewer.py for the page itself in Chromium).
    chunk = re.search(r'<script type="application/json" id="ep-chunk-0">(.*?)</script>', page, re.S)
    assert chunk is not None
    [bad] = [item for item in json.loads(chunk.group(1)) if item["nodeid"].endswith("calc--bad.md::calc--bad")]
    versus = bad["diff"]["versus"]["hunks"][0]["lines"]  # the best expected patch vs the prediction
    assert ["-", "    return a - b"] in versus and ["+", "    return a * b"] in versus
    # both cursors, as (line, column) in the expected and the predicted text
    assert bad["diff"]["versus"]["ca"] == [10, 16] and bad["diff"]["versus"]["cb"] == [10, 16]


# ---------------------------------------------------------------------------- 9. accept


@pytest.mark.xdist
def test_accept_adds_the_prediction_as_an_expected_patch(project: Project, plugin_args: list[str]) -> None:
    bad = project.example("calc--bad", SUB)
    good = project.example("calc--good", SUB)
    scripted(project, {"calc--bad": "wrong"})
    good_bytes, bad_before = good.read_bytes(), bad.read_text()
    result = project.pytester.runpytest("evals", "--editpred-accept", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    assert good.read_bytes() == good_bytes
    after = bad.read_text()
    assert after != bad_before and after.startswith(bad_before.rstrip("\n"))
    assert after.count("## Expected Patch") + after.count("```diff") > bad_before.count(
        "## Expected Patch"
    ) + bad_before.count("```diff")
    old, new = from_markdown(bad_before, bad), from_markdown(after, bad)
    assert new.expected_patches[:-1] == old.expected_patches and len(new.expected_patches) == 2
    assert new == old.__class__(**{**old.__dict__, "expected_patches": new.expected_patches})
    assert "+    return a * b" in new.expected_patches[-1] and "[CURSOR_POSITION]" in new.expected_patches[-1]
    rerun = project.pytester.runpytest("evals", *plugin_args)
    rerun.assert_outcomes(passed=2)
    # Accepting again changes nothing: the prediction now passes.
    project.pytester.runpytest("evals", "--editpred-accept", *plugin_args).assert_outcomes(passed=2)
    assert bad.read_text() == after and good.read_bytes() == good_bytes


@pytest.mark.xdist
def test_accept_with_trials_adds_one_block(project: Project, plugin_args: list[str]) -> None:
    bad = project.example("calc--bad", SUB)
    scripted(project, {"calc--bad": "wrong"})
    result = project.pytester.runpytest("evals", "--editpred-accept", "--editpred-trials=3", *plugin_args)
    result.assert_outcomes(failed=3)
    assert len(from_markdown(bad.read_text(), bad).expected_patches) == 2


# ------------------------------------------------------------------------ 10. thresholds


@pytest.mark.xdist
def test_min_delta_chrf_names_its_limit_on_the_item(project: Project, plugin_args: list[str]) -> None:
    # delta-chrF is 0-100 and a right answer scores 100, so a limit (at most 100, or it
    # is a usage error) adds its reason to a wrong answer and never fails a right one.
    project.example("calc--a", SUB)
    scripted(project, {"calc--a": "wrong"})
    path = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(
        "evals", "--editpred-min-delta-chrf", "100", f"--editpred-report={path}", *plugin_args
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*delta_chr_f * is below the limit 100*"])
    [record] = read_records(path)
    assert record["outcome"] == "failed" and "delta_chr_f" in record["reason"]
    scripted(project, {})
    project.pytester.runpytest("evals", "--editpred-min-delta-chrf", "100", *plugin_args).assert_outcomes(passed=1)


@pytest.mark.xdist
def test_max_reversal_fails_a_prediction_that_undoes_the_edit(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    scripted(project, {"calc--a": "revert"})
    xml = project.pytester.path / "j.xml"
    result = project.pytester.runpytest("evals", "--editpred-max-reversal", "0.5", f"--junitxml={xml}", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*calc--a: *reversal_ratio 1 is above the limit 0.5*"])
    props = junit_properties(xml)
    assert float(props["calc--a"]["editpred_reversal_ratio"]) == 1.0
    assert float(props["calc--b"]["editpred_reversal_ratio"]) == 0.0


# ------------------------------------------------------------------------ 11. group by


@pytest.mark.xdist
def test_group_by_repository_and_tag(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB, tags=("completion", "python"))
    project.example("calc--b", SUB, tags=("python",))
    project.example("calc--c", SUB)
    scripted(project, {"calc--b": "wrong"})
    result = project.pytester.runpytest(
        "evals", "--editpred-group-by", "repository", "--editpred-group-by", "tag", *plugin_args
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.re_match_lines(
        [
            r"^by repository:$",
            r"^  calc +2/3 passed \(67%\), mean delta-chrF \d+\.\d$",
            r"^by tag:$",
            r"^  \(no tag\) +1/1 passed \(100%\), mean delta-chrF 100\.0$",
            r"^  completion +1/1 passed \(100%\), mean delta-chrF 100\.0$",
            r"^  python +1/2 passed \(50%\), mean delta-chrF \d+\.\d$",
        ]
    )
    assert result.stdout.str().count("by repository:") == 1


@pytest.mark.xdist
def test_group_by_from_ini_and_a_dot_git_url(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB, tags=("python",))
    dotgit = project.example("calc--b", SUB)
    dotgit.write_text(dotgit.read_text().replace(project.url, project.url + ".git"))
    scripted(project, {})
    result = project.pytester.runpytest(
        "evals",
        "-o",
        "editpred_group_by=tag repository",
        f"--editpred-repo={project.url}.git=upstream/repo",
        *plugin_args,
    )
    result.assert_outcomes(passed=2)
    # One repository, whether its URL ends in .git or not.
    result.stdout.re_match_lines([r"^by tag:$", r"^  python +1/1 passed", r"^by repository:$", r"^  calc +2/2 passed"])


# ---------------------------------------------------------------------------- 12. JUnit


def junit_properties(path: Path) -> dict[str, dict[str, str]]:
    root = ET.parse(path).getroot()
    return {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }  # type: ignore[misc]


@pytest.mark.xdist
def test_metrics_are_junit_properties(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    scripted(project, {"calc--b": "wrong"})
    xml = project.pytester.path / "j.xml"
    project.pytester.runpytest("evals", f"--junitxml={xml}", *plugin_args).assert_outcomes(passed=1, failed=1)
    props = junit_properties(xml)
    good, bad = props["calc--a"], props["calc--b"]
    for name in ("delta_chr_f", "exact_lines_tp", "exact_lines_fp", "exact_lines_fn", "reversal_ratio",
                 "braces_disbalance"):  # fmt: skip
        assert f"editpred_{name}" in good and f"editpred_{name}" in bad, name
    assert float(good["editpred_delta_chr_f"]) == 100.0 and float(bad["editpred_delta_chr_f"]) < 100.0
    assert int(good["editpred_exact_lines_tp"]) == 1 and int(good["editpred_exact_lines_fp"]) == 0
    assert int(bad["editpred_exact_lines_fp"]) == 1 and int(bad["editpred_exact_lines_fn"]) == 1
    assert good["editpred_outcome"] == "passed" and bad["editpred_outcome"] == "failed"
    assert good["editpred_model"] == "scripted"
    # One set of properties per item: no duplicates from several report phases.
    root = ET.parse(xml).getroot()
    for case in root.iter("testcase"):
        names = [p.get("name") for p in case.iter("property")]
        assert len(names) == len(set(names)), names


# ------------------------------------------------------------- what a run holds on to

HOLDS = """

def pytest_sessionfinish(session):
    # Run in every process: what is still held once every item has reported.
    from pytest_editpred.integration import PREPARED_KEY

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    reports = [r for key in ("passed", "failed") for r in reporter.stats.get(key, []) if hasattr(r, "editpred")]
    with open(HERE / "held.log", "a") as log:
        log.write(json.dumps({
            "prepared": sum(PREPARED_KEY in item.stash for item in session.items),
            "texts": sum("predicted_text" in r.editpred for r in reports),
            "reports": len(reports),
            "worker": hasattr(session.config, "workerinput"),  # not $PYTEST_XDIST_WORKER: ours leaks in
        }) + "\\n")
"""


@pytest.mark.xdist
def test_a_run_lets_go_of_each_scene_and_predicted_file_once_reported(project: Project, plugin_args: list[str]) -> None:
    # A 2,000-line example holds about 1 MB (its buffers, ten patched copies, the
    # verdict): a corpus run must not keep them all to the end, nor every answer's file.
    for name in ("a", "b", "c"):
        project.example(name, SUB)
    scripted(project, {"a": "right", "b": "wrong", "c": "wrong"})
    with open(project.pytester.path / "conftest.py", "a") as conftest:
        conftest.write(HOLDS)
    result = project.pytester.runpytest_subprocess(*plugin_args, "--editpred-report=out.jsonl")
    result.assert_outcomes(passed=1, failed=2)
    held = [json.loads(line) for line in (project.pytester.path / "held.log").read_text().splitlines()]
    assert all(entry["prepared"] == 0 for entry in held)
    assert sum(entry["texts"] for entry in held) == 0  # workers' reports too
    [controller] = [entry for entry in held if not entry["worker"]]
    assert controller["reports"] == 3
    records = read_records(project.pytester.path / "out.jsonl")
    assert all(record["predicted_text"] for record in records)  # the file keeps them: replay reads them
