"""``--editpred-qa``: Zed's LLM judge asked about every prediction of a run, on a
real loopback server, with the predictions made by a conftest's own completion (so
the only requests the server sees are the judge's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project

COMPLETION = """
import pytest
from pytest_editpred import Prediction


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        if "huge" in request.example.name:  # a model that writes 500 lines
            return Prediction(text=request.text + "".join(f"x_{i} = {i}\\n" for i in range(500)))
        if "same" in request.example.name:
            return Prediction(text=request.text)  # no change: nothing to judge
        if "right" in request.example.name:
            return Prediction(text=request.text.replace("def sub(a, b):\\n", "def sub(a, b):\\n    return a - b\\n"))
        return Prediction(text=request.text.replace("def sub(a, b):\\n", "def sub(a, b):\\n    return a * b\\n"))
    return complete
"""

VERDICT = '```json\n{"reasoning": "continues the function", "reverts_edits": false, "confidence": 4}\n```'


def _examples(project: Project) -> None:
    project.example("calc--right", SUB)
    project.example("calc--wrong", SUB)
    project.example("calc--same", SUB)
    project.pytester.makeconftest(COMPLETION)


def _run(project: Project, server: LLMServer, *extra: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = project.pytester.path / "run.jsonl"
    result = project.pytester.runpytest(
        "evals", "--editpred-qa=openai-chat", f"--editpred-qa-base-url={server.url}",
        "--editpred-qa-model=judge-model", f"--editpred-report={report}",
        f"--editpred-response-cache-dir={project.pytester.path / 'responses'}", *extra,
    )  # fmt: skip
    records = {r["name"]: r for r in map(json.loads, report.read_text().splitlines())}
    return result, records


@pytest.mark.xdist
def test_the_judge_is_asked_about_each_change_and_never_changes_an_outcome(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    result, records = _run(project, llm_server, *plugin_args)
    result.assert_outcomes(passed=1, failed=2)
    expected = {"reasoning": "continues the function", "reverts_edits": False, "confidence": 4, "response": VERDICT}
    assert records["calc--right"]["qa"] == expected
    assert records["calc--wrong"]["qa"] == expected  # the judge's view, not exact match's
    assert records["calc--same"]["qa"] is None  # changes nothing: not asked
    assert len(llm_server.requests) == 2
    for request in llm_server.requests:
        # As Zed asks: one user message, the answer budget, nothing else.
        assert set(request.body) == {"model", "max_tokens", "messages"}
        assert request.body["model"] == "judge-model" and request.body["max_tokens"] == 1024
        [message] = request.body["messages"]
        assert message["role"] == "user"
    prompts = sorted(request.body["messages"][0]["content"] for request in llm_server.requests)
    wrong = [p for p in prompts if "{+    return a * b" in p]
    right = [p for p in prompts if "{+    return a - b" in p]
    assert len(wrong) == len(right) == 1
    assert "a - b" not in wrong[0]  # the expected patch is never shown to the judge


def test_zeds_backend_names_and_budget(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    _run(project, llm_server, "--editpred-qa=openai", "--editpred-qa-max-tokens=64")
    assert {tuple(sorted(r.body)) for r in llm_server.requests} == {("max_completion_tokens", "messages", "model")}
    assert llm_server.requests[0].body["max_completion_tokens"] == 64
    assert llm_server.requests[0].path == "/v1/chat/completions"


def test_a_judge_that_refuses_is_the_items_qa_error_said_once(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    llm_server.fail(400, times=10, message="model not found")
    result, records = _run(project, llm_server, "--editpred-retries=1")
    result.assert_outcomes(passed=1, failed=2)  # the predictions' outcomes stand
    for name in ("calc--right", "calc--wrong"):
        assert set(records[name]["qa"]) == {"error"}
        assert "400" in records[name]["qa"]["error"]
    warnings = [line for line in result.stdout.lines if line.startswith("editpred warning: judge:")]
    assert len(warnings) == 1, warnings
    assert "openai-chat judge-model" in warnings[0] and "400" in warnings[0]


def test_a_judge_that_hangs_is_cut_by_the_timeout(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    llm_server.hang(times=10, seconds=20)
    result, records = _run(project, llm_server, "--editpred-timeout=1", "--editpred-retries=1")
    result.assert_outcomes(passed=1, failed=2)
    assert "error" in records["calc--right"]["qa"]
    assert result.duration < 15


def test_garbage_is_kept_as_zed_keeps_it_and_counted(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    llm_server.answer("I would accept it, mostly.")
    result, records = _run(project, llm_server)
    qa = records["calc--wrong"]["qa"]
    assert qa == {
        "reasoning": "I would accept it, mostly.",
        "response": "I would accept it, mostly.",
        "error": "Could not parse JSON from response",
    }
    result.stdout.fnmatch_lines(["editpred warning: judge: 2 of 2 answers were not the JSON the template asks for*"])


def test_a_replay_only_run_reads_the_judges_answers_from_the_cache(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    _, first = _run(project, llm_server)
    asked = len(llm_server.requests)
    llm_server.answer("not asked again")
    result, again = _run(project, llm_server, "--editpred-cache=replay-only")
    result.assert_outcomes(passed=1, failed=2)
    assert len(llm_server.requests) == asked
    assert again["calc--wrong"]["qa"] == first["calc--wrong"]["qa"]


def test_a_template_file_is_used_and_a_bad_one_is_a_usage_error(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    llm_server.answer(VERDICT)
    template = project.pytester.path / "qa.md"
    template.write_text(
        "HISTORY\n{edit_history}\nFILE\n{cursor_excerpt}\nPATCH\n{actual_patch_word_diff}\nJSON please\n"
    )
    _run(project, llm_server, f"--editpred-qa-template={template}")
    assert llm_server.requests[0].body["messages"][0]["content"].startswith("HISTORY\n--- a")
    template.write_text("no placeholders\n")
    result = project.pytester.runpytest(
        "evals", "--editpred-qa=openai-chat", f"--editpred-qa-base-url={llm_server.url}",
        "--editpred-qa-model=m", f"--editpred-qa-template={template}",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and "qa.md" in errors[0], result.stderr.lines
    assert "{edit_history}" in result.stderr.str()


def test_a_judge_without_a_model_is_one_usage_error(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    result = project.pytester.runpytest(
        "evals", "--editpred-qa=openai-chat", f"--editpred-qa-base-url={llm_server.url}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: editpred: the judge 'openai-chat' needs a model name", "*--editpred-qa-model*"]
    )
    assert not llm_server.requests


def test_no_judge_asked_no_qa(project: Project, llm_server: LLMServer, tmp_path: Path) -> None:
    _examples(project)
    report = project.pytester.path / "run.jsonl"
    project.pytester.runpytest("evals", f"--editpred-report={report}").assert_outcomes(passed=1, failed=2)
    assert all(json.loads(line)["qa"] is None for line in report.read_text().splitlines())


def test_a_prediction_too_large_for_the_word_diff_is_not_sent(project: Project, llm_server: LLMServer) -> None:
    _examples(project)
    project.example("calc--huge", SUB)
    llm_server.answer(VERDICT)
    result, records = _run(project, llm_server)
    result.assert_outcomes(passed=1, failed=3)
    error = records["calc--huge"]["qa"]["error"]
    assert error.startswith("too large to judge: the prediction and the edit history change 50") and "400" in error
    assert len(llm_server.requests) == 2  # the other two changes only
