"""The LLM judge's answers in a real run's reports and in ``editpred report`` after it:
the table's QA columns and totals, the agreement line (terminal and HTML page), the
SummaryJson's ``f32`` fields, the JSONL records, and the judged-acceptable gate
(``--editpred-fail-under-qa``, ``editpred report --fail-under-qa``).

The judge is not part of these runs: the project's conftest plays its part and puts
each example's answer (``script.json``) in the item's record, where the run will put
the judge's (the record's ``qa``). Everything after that, the reports read and decide.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import SUB, Project
from pytest_editpred.reports import read_records
from pytest_editpred.reports._cli import main as report_main

CONFTEST = """
import json
from pathlib import Path

import pytest
from pytest_editpred import Prediction

HERE = Path(__file__).parent
LINE = "def sub(a, b):\\n"


def script():
    return json.loads((HERE / "script.json").read_text())


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        wrong = script()["answers"].get(request.example.name) == "wrong"
        body = "    return a * b\\n" if wrong else "    return a - b\\n"
        return Prediction(text=request.text.replace(LINE, LINE + body), model="scripted")

    return complete


@pytest.hookimpl(tryfirst=True)  # before the reporter reads the record (and xdist sends it)
def pytest_runtest_logreport(report):
    record = getattr(report, "editpred", None)
    if isinstance(record, dict) and record["outcome"] in ("passed", "failed"):
        record["qa"] = script()["qa"].get(record["name"])
"""

ACCEPTED = {"reasoning": "finishes sub", "reverts_edits": False, "confidence": 5, "response": "{...}"}
DOUBTFUL = {"reasoning": "unsure", "reverts_edits": False, "confidence": 2, "response": "{...}"}
REVERTS = {"reasoning": "undoes the user", "reverts_edits": True, "confidence": 4, "response": "{...}"}

#: calc--a passes and is accepted, calc--b passes and is rejected, calc--c fails and is
#: accepted, calc--d fails and reverts: 2 of 4 judged acceptable; 1 of 4 reverts;
#: confidences 5, 2, 5, 4: 4.0 on average.
JUDGED = {
    "answers": {"calc--c": "wrong", "calc--d": "wrong"},
    "qa": {"calc--a": ACCEPTED, "calc--b": DOUBTFUL, "calc--c": ACCEPTED, "calc--d": REVERTS},
}


def make(project: Project, script: dict[str, Any]) -> None:
    for name in ("calc--a", "calc--b", "calc--c", "calc--d"):
        project.example(name, SUB)
    project.pytester.makeconftest(CONFTEST)
    (project.pytester.path / "script.json").write_text(json.dumps(script))


def lines(output: str, pattern: str) -> list[str]:
    return [line for line in output.splitlines() if re.search(pattern, line)]


def page_terminal(path: Path) -> list[str]:
    page = path.read_text(encoding="utf-8")
    raw = page.split('<script type="application/json" id="ep-index">', 1)[1].split("</script>", 1)[0]
    return list(json.loads(raw)["terminal"])


CI = r"\[95% CI [\d.]+-[\d.]+\]"
AGREEMENT = re.compile(
    rf"^LLM judge \(acceptable: confidence >= 4, not reverting\): judged acceptable 2 of 4 \(50\.0% {CI}\), "
    rf"accepts 1 of 2 \(50\.0% {CI}\) that FAILED, rejects 1 of 2 \(50\.0% {CI}\) that PASSED$"
)


@pytest.mark.xdist
def test_a_judged_run_shows_the_answers_in_every_report(project: Project, plugin_args: list[str]) -> None:
    make(project, JUDGED)
    out = project.pytester.path
    result = project.pytester.runpytest(
        "evals",
        f"--editpred-report={out / 'run.jsonl'}",
        f"--editpred-summary-json={out / 'summary.json'}",
        f"--editpred-html={out / 'page.html'}",
        *plugin_args,
    )
    result.assert_outcomes(passed=2, failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the judge never changes a verdict
    text = result.stdout.str()
    cells = {line.split()[0]: line.split()[5:7] for line in lines(text, r"^calc--\w +\d")}
    assert cells == {"calc--a": ["no", "5"], "calc--b": ["no", "2"], "calc--c": ["no", "5"], "calc--d": ["yes", "4"]}
    (total,) = lines(text, r"^TOTAL / AVERAGE")
    assert total.split()[7:9] == ["25.0%", "4.0"]
    (agreement,) = lines(text, r"^LLM judge")
    assert AGREEMENT.match(agreement), agreement
    # The JSONL records carry the answers, the SummaryJson Zed's f32 averages, the page the line.
    records = read_records(out / "run.jsonl", complete=True)
    assert {r["name"]: r["qa"] for r in records} == JUDGED["qa"]
    summary = (out / "summary.json").read_text()
    assert '"qa_avg_reverts_edits": 0.25,\n  "qa_avg_confidence": 4.0,\n' in summary
    assert agreement in page_terminal(out / "page.html")
    # editpred report on the file says the same, and writes the same SummaryJson.
    assert report_main([str(out / "run.jsonl"), "--summary-json", str(out / "again.json")]) == 0
    assert (out / "again.json").read_text() == summary


def test_editpred_report_prints_the_table_and_the_line_of_a_saved_run(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    make(project, JUDGED)
    out = project.pytester.path
    project.pytester.runpytest("evals", f"--editpred-report={out / 'run.jsonl'}").assert_outcomes(passed=2, failed=2)
    capsys.readouterr()  # the run's own output
    assert report_main([str(out / "run.jsonl"), "--html", str(out / "page.html")]) == 0
    text = capsys.readouterr().out
    cells = [line.split()[5:7] for line in lines(text, r"^calc--\w +\d")]
    assert cells == [["no", "5"], ["no", "2"], ["no", "5"], ["yes", "4"]]
    (agreement,) = lines(text, r"^LLM judge")
    assert AGREEMENT.match(agreement), agreement
    assert agreement in page_terminal(out / "page.html")


@pytest.mark.xdist
def test_the_judged_acceptable_gate_decides_the_exit_status(project: Project, plugin_args: list[str]) -> None:
    make(project, JUDGED)
    run = project.pytester.runpytest
    # 2 of 4 acceptable: 50% passes a 50% gate, although two items FAILED.
    result = run("evals", "--editpred-fail-under-qa", "50", *plugin_args)
    result.assert_outcomes(passed=2, failed=2)
    assert result.ret == pytest.ExitCode.OK
    assert lines(result.stdout.str(), r"^qa gate:") == [
        "qa gate: judged-acceptable rate 50.0% >= 50% required: the run passes "
        "(2 of the 4 predictions the judge answered; acceptable: confidence >= 4, not reverting)"
    ]
    result = run("evals", "--editpred-fail-under-qa", "50.01", *plugin_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert lines(result.stdout.str(), r"^qa gate:")[0].startswith(
        "qa gate: judged-acceptable rate 50.0% < 50.01% required: the run fails"
    )
    # With the pass-rate gate too, both must hold: 50% passed fails a 60% pass-rate gate.
    result = run("evals", "--editpred-fail-under-qa", "50", "--editpred-fail-under", "60", *plugin_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert len(lines(result.stdout.str(), r"^(qa )?gate:")) == 2


def test_a_judge_gate_over_a_run_without_verdicts_is_a_usage_error(project: Project) -> None:
    make(project, {"answers": {}, "qa": {}})
    result = project.pytester.runpytest("evals", "--editpred-fail-under-qa", "50")
    result.assert_outcomes(passed=4)
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # not a silent pass
    assert lines(result.stdout.str(), r"qa gate") == [
        "qa gate: usage error: --editpred-fail-under-qa gates on the LLM judge's verdicts, and this run has none "
        "(no judge was asked about any prediction); run with a judge that answers, or drop --editpred-fail-under-qa"
    ]
    assert not lines(result.stdout.str(), r"^LLM judge")
    # A judge asked that never answered with a confidence is no verdict either.
    broken = {"error": "Could not parse JSON from response", "response": "sure", "reasoning": "sure"}
    (project.pytester.path / "script.json").write_text(json.dumps({"answers": {}, "qa": {"calc--a": broken}}))
    result = project.pytester.runpytest("evals", "--editpred-fail-under-qa", "50")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "the judge answered none of the 1 predictions it was asked about" in lines(result.stdout.str(), "qa gate")[0]
    assert lines(result.stdout.str(), r"^LLM judge") == [
        "LLM judge: no verdict on any of the 1 predictions asked (no confidence in any answer)"
    ]


def test_the_judge_gate_is_not_applied_where_the_pass_rate_gate_is_not(project: Project) -> None:
    make(project, JUDGED)
    project.pytester.makepyfile(test_unit="def test_unit():\n    assert 1 == 2\n")
    result = project.pytester.runpytest("evals", "test_unit.py", "--editpred-fail-under-qa", "10")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert lines(result.stdout.str(), r"^qa gate:") == [
        "qa gate: not applied: 1 test(s) or collector(s) that are not examples failed, "
        "and the judge's rate cannot excuse them"
    ]


@pytest.mark.parametrize(
    ("value", "said"),
    [("150", "--editpred-fail-under-qa is 150, but it must be from 0 to 100"), ("most", "bad value 'most'")],
)
def test_a_bad_judge_gate_value_is_one_usage_line(project: Project, value: str, said: str) -> None:
    make(project, JUDGED)
    result = project.pytester.runpytest("evals", "--editpred-fail-under-qa", value)
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert said in output and "INTERNALERROR" not in output and "Traceback" not in output


def test_editpred_report_has_the_judge_gate(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    make(project, JUDGED)
    path = project.pytester.path / "run.jsonl"
    project.pytester.runpytest("evals", f"--editpred-report={path}").assert_outcomes(passed=2, failed=2)
    capsys.readouterr()
    assert report_main([str(path), "--fail-under-qa", "50"]) == 0
    assert lines(capsys.readouterr().out, r"^qa gate:") == [
        "qa gate: judged-acceptable rate 50.0% >= 50% required: the run passes "
        "(2 of the 4 predictions the judge answered)"
    ]
    assert report_main([str(path), "--fail-under-qa", "75"]) == 1
    assert lines(capsys.readouterr().out, r"^qa gate:")[0].startswith("qa gate: judged-acceptable rate 50.0% < 75%")
    # A record that cannot be read: the gate is not applied (exit 2, never 1).
    damaged = project.pytester.path / "damaged.jsonl"
    records = path.read_text().splitlines()
    bad = json.loads(records[0])
    bad["qa"]["confidence"] = 300
    damaged.write_text("\n".join([json.dumps(bad), *records[1:]]) + "\n")
    assert report_main([str(damaged), "--fail-under-qa", "10"]) == 2
    out, err = capsys.readouterr()
    assert err == (
        f"editpred-report: {damaged}:1: record field 'qa.confidence' must be an integer from 0 to 255, "
        "not a larger one (skipped)\n"
    )
    assert lines(out, r"^qa gate:")[0].startswith("qa gate: not applied: 1 record(s) of the reports were skipped")


def test_editpred_report_s_judge_gate_without_verdicts_is_one_line_and_exit_2(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    make(project, {"answers": {}, "qa": {}})
    path = project.pytester.path / "run.jsonl"
    project.pytester.runpytest("evals", f"--editpred-report={path}").assert_outcomes(passed=4)
    capsys.readouterr()
    assert report_main([str(path), "--fail-under-qa", "50"]) == 2
    out, err = capsys.readouterr()
    assert err == (
        "editpred-report: --fail-under-qa gates on the LLM judge's verdicts, and no record has one "
        "(no judge was asked); give reports of a run with a judge, or drop --fail-under-qa\n"
    )
    assert "4 predictions: 4 passed" in out and not lines(out, r"^qa gate")
