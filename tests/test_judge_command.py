"""``editpred judge``: Zed's ``ep qa`` on a saved run, against a real loopback judge.

The run is a real pytest run (in-process, a real git repository, predictions made by
a conftest's own completion, so the only requests the server sees are the judge's);
its JSONL report is then judged by the command, which must ask what the run's own
``--editpred-qa`` asks, and write every record back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401
from test_judge_run import VERDICT, _examples

from conftest import Project
from pytest_editpred.cli import main


def _run(project: Project, *extra: str) -> Path:
    """A run's report, written by a real run of the examples."""
    report = project.pytester.path / "run.jsonl"
    project.pytester.runpytest("evals", f"--editpred-report={report}", *extra).assert_outcomes(passed=1, failed=2)
    return report


def _judge(capsys: pytest.CaptureFixture[str], server: LLMServer, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["judge", *argv, "--judge=openai-chat", f"--judge-base-url={server.url}", "--judge-model=jm"])
    out, err = capsys.readouterr()
    return status, out, err


def _records(path: Path) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_a_saved_run_is_judged_as_the_run_would_have_judged_it(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    # The run judges its own predictions: the prompts it sends are the reference.
    judged_run = _run(
        project, "--editpred-qa=openai-chat", f"--editpred-qa-base-url={llm_server.url}",
        "--editpred-qa-model=jm", "--editpred-cache=off",
    )  # fmt: skip
    by_run = sorted(r.body["messages"][0]["content"] for r in llm_server.requests)
    assert len(by_run) == 2
    plain = project.pytester.path / "plain.jsonl"
    records = [dict(r, qa=None) for r in map(json.loads, judged_run.read_text().splitlines())]
    plain.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = project.pytester.path / "judged.jsonl"
    status, stdout, err = _judge(capsys, llm_server, str(plain), "-o", str(out), "--cache=off")
    assert status == 0, err
    by_command = sorted(r.body["messages"][0]["content"] for r in llm_server.requests[2:])
    assert by_command == by_run
    judged = _records(out)
    by_the_run = _records(judged_run)
    for name in ("calc--right", "calc--wrong"):
        assert judged[name]["qa"] == by_the_run[name]["qa"] and judged[name]["qa"]["confidence"] == 4
    assert judged["calc--same"]["qa"] is None  # changes nothing: not asked
    # Every other field is kept as it was.
    for record in records:
        assert {k: v for k, v in judged[record["name"]].items() if k != "qa"} == {
            k: v for k, v in record.items() if k != "qa"
        }
    assert stdout.strip().splitlines()[-1] == (
        f"judge: 2 judged, 1 skipped (1 changes nothing), 2 acceptable; 3 records written to {out}"
    )


def test_a_judged_run_is_not_asked_again_unless_forced(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    report = _run(project)
    first = project.pytester.path / "first.jsonl"
    assert _judge(capsys, llm_server, str(report), "-o", str(first), "--cache=off")[0] == 0
    assert len(llm_server.requests) == 2
    again = project.pytester.path / "again.jsonl"
    status, stdout, _ = _judge(capsys, llm_server, str(first), "-o", str(again), "--cache=off")
    assert status == 0
    assert len(llm_server.requests) == 2  # Zed's rule: a verdict with a confidence is done
    assert "0 judged, 3 skipped (2 already judged, 1 changes nothing)" in stdout
    assert _records(again) == _records(first)
    llm_server.answer('{"reasoning": "reverts", "reverts_edits": true, "confidence": 1}')
    status, stdout, _ = _judge(
        capsys, llm_server, str(first), "-o", str(again), "--cache=off", "--force", "--overwrite"
    )
    assert status == 0 and len(llm_server.requests) == 4
    assert _records(again)["calc--wrong"]["qa"]["confidence"] == 1
    assert "2 judged" in stdout and "0 acceptable" in stdout


def test_an_unreadable_verdict_is_asked_again(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer("I would accept it, mostly.")
    report = _run(project)
    first = project.pytester.path / "first.jsonl"
    status, _, err = _judge(capsys, llm_server, str(report), "-o", str(first), "--cache=off")
    assert status == 0
    assert "2 answers were not the judge's JSON" in err
    assert _records(first)["calc--wrong"]["qa"]["error"] == "Could not parse JSON from response"
    llm_server.answer(VERDICT)
    again = project.pytester.path / "again.jsonl"
    status, stdout, _ = _judge(capsys, llm_server, str(first), "-o", str(again), "--cache=off")
    assert status == 0 and "2 judged" in stdout  # no confidence: not done (§2.2 step 1)
    assert _records(again)["calc--wrong"]["qa"]["confidence"] == 4


def test_a_replay_only_judge_reads_the_runs_cache(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    # The run's response cache is pytest's (no editpred_response_cache_dir): the command finds it.
    report = _run(project, "--editpred-qa=openai-chat", f"--editpred-qa-base-url={llm_server.url}",
                  "--editpred-qa-model=jm")  # fmt: skip
    asked = len(llm_server.requests)
    llm_server.fail(500, times=10)
    out = project.pytester.path / "replayed.jsonl"
    status, stdout, err = _judge(capsys, llm_server, str(report), "-o", str(out), "--cache=replay-only", "--force")
    assert status == 0, err
    assert len(llm_server.requests) == asked
    assert _records(out)["calc--wrong"]["qa"] == _records(report)["calc--wrong"]["qa"]
    # A record the cache lacks is one problem line, and its qa is kept.
    edited = project.pytester.path / "edited.jsonl"
    lines = report.read_text().splitlines()
    changed = [dict(r, predicted_text=r["predicted_text"] + "# more\n") if r["name"] == "calc--wrong" else r
               for r in map(json.loads, lines)]  # fmt: skip
    edited.write_text("".join(json.dumps(r) + "\n" for r in changed))
    status, stdout, err = _judge(
        capsys, llm_server, str(edited), "-o", str(out), "--cache=replay-only", "--force", "--overwrite"
    )
    assert status == 1
    [line] = err.strip().splitlines()
    assert line.startswith(f"{edited}: record ") and "calc--wrong" in line and "gave no answer" in line
    assert _records(out)["calc--wrong"]["qa"] == _records(report)["calc--wrong"]["qa"]
    assert "1 judge gave no answer" in stdout


@pytest.mark.parametrize("failure", ["refuses", "hangs"])
def test_a_judge_that_refuses_or_hangs_is_one_line_and_the_records_are_kept(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str], failure: str
) -> None:
    _examples(project)
    report = _run(project)
    if failure == "refuses":
        llm_server.fail(400, times=10, message="model not found")
    else:
        llm_server.hang(times=10, seconds=20)
    out = project.pytester.path / "out.jsonl"
    status, stdout, err = _judge(
        capsys, llm_server, str(report), "-o", str(out), "--cache=off",
        "--editpred-timeout=0.5", "--editpred-retries=1",
    )  # fmt: skip
    assert status == 1
    [line] = err.strip().splitlines()  # one problem, naming the records it cost
    assert line.startswith(f"{report}: record ") and "and 1 other record" in line
    assert "the judge (openai-chat jm) gave no answer" in line and "--judge-base-url" in line
    assert ("400" in line) if failure == "refuses" else ("timed out" in line or "timeout" in line.lower())
    assert _records(out) == _records(report)  # every record written, qa kept
    assert "0 judged, 3 skipped (1 changes nothing, 2 judge gave no answer)" in stdout


def test_bad_input_is_one_line_each(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    report = _run(project)
    lines = report.read_text().splitlines()
    out = project.pytester.path / "out.jsonl"
    # A record that is JSON but no record: said with its line, not written; the rest judged.
    mixed = project.pytester.path / "mixed.jsonl"
    mixed.write_text(lines[0] + "\n" + '{"name": "x", "metrics": []}\n' + "\n".join(lines[1:]) + "\n")
    status, stdout, err = _judge(capsys, llm_server, str(mixed), "-o", str(out), "--cache=off")
    assert status == 1
    [line] = err.strip().splitlines()
    assert line.startswith(f"{mixed}:2: record field 'metrics' must be an object")
    assert len(_records(out)) == 3 and "2 judged" in stdout
    # A line that is not JSON: the report cannot be trusted, nothing is judged.
    broken = project.pytester.path / "broken.jsonl"
    broken.write_text(lines[0] + "\n{not json\n" + lines[1] + "\n")
    asked = len(llm_server.requests)
    status, _, err = _judge(capsys, llm_server, str(broken), "-o", str(out), "--overwrite")
    assert status == 2 and f"{broken}:2: line 2 is not valid JSON" in err and len(err.splitlines()) == 1
    assert len(llm_server.requests) == asked
    # A report that is not there.
    status, _, err = _judge(capsys, llm_server, "missing.jsonl", "-o", str(out), "--overwrite")
    assert status == 2 and err.startswith("missing.jsonl: cannot read the JSONL report") and "Traceback" not in err
    # An output that exists.
    status, _, err = _judge(capsys, llm_server, str(report), "-o", str(out))
    assert status == 2 and err == f"{out}: it exists (Name a new output, or pass --overwrite to write over it.)\n"


def test_an_example_file_gone_keeps_its_records(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    report = _run(project)
    gone = project.pytester.path / "evals" / "calc--wrong.md"
    gone.unlink()
    out = project.pytester.path / "out.jsonl"
    status, stdout, err = _judge(capsys, llm_server, str(report), "-o", str(out), "--cache=off")
    assert status == 1
    [line] = err.strip().splitlines()
    assert line.startswith(f"{report}: record ") and "calc--wrong" in line and str(gone) in line
    assert "no such file" in line and "restore the file" in line
    assert _records(out)["calc--wrong"]["qa"] is None and _records(out)["calc--right"]["qa"]["confidence"] == 4
    assert "1 judged, 2 skipped (1 changes nothing, 1 example file gone)" in stdout


def test_no_judge_is_a_usage_error(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    _examples(project)
    report = _run(project)
    status = main(["judge", str(report), "-o", str(project.pytester.path / "o.jsonl")])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("editpred judge: no judge named (Give --judge NAME")


def test_the_judge_is_read_from_the_ini_file(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    report = _run(project)
    ini = project.pytester.path / "tox.ini"  # the Project's
    ini.write_text(
        ini.read_text()
        + f"\neditpred_qa = openai\neditpred_qa_model = ini-model\neditpred_qa_base_url = {llm_server.url}\n"
        + "editpred_qa_max_tokens = 77\neditpred_cache = off\n"
    )
    status = main(["judge", str(report), "-o", str(project.pytester.path / "o.jsonl")])
    assert status == 0, capsys.readouterr().err
    body = llm_server.requests[0].body
    assert body["model"] == "ini-model" and body["max_completion_tokens"] == 77


def test_a_report_given_twice_is_judged_and_written_twice(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    report = _run(project)
    out = project.pytester.path / "out.jsonl"
    status, stdout, _ = _judge(capsys, llm_server, str(report), str(report), "-o", str(out), "--cache=off")
    assert status == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(written) == 6
    assert sum(1 for r in written if r["qa"] is not None and r["qa"]["confidence"] == 4) == 4
    assert "4 judged, 2 skipped (2 changes nothing), 4 acceptable; 6 records written" in stdout
