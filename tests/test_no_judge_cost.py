"""A run that names no judge (``--editpred-qa``) loads none of the judge's code.

The judge's modules (the prompt, answer, repair and distill of ``qa/``, its client in
``providers/_judge.py`` with the HTTP transport under it, and the run's
``integration/second_opinion.py``) are imported only when a judge is asked for. The
time this saves is ``bench/bench_no_judge.py``'s figure; what keeps it is checked
here: a real pytest child (a subprocess, so that this suite's own imports do not
count) writes ``sys.modules`` from ``pytest_unconfigure``, after the terminal summary
and the reports, in every process of the run.
"""

from __future__ import annotations

import json
import os

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project

JUDGE_MODULES = ("pytest_editpred.qa", "pytest_editpred.providers._judge", "pytest_editpred.integration.second_opinion")

#: Every process of the child run (the controller, each xdist worker) writes the
#: modules it imported once it is done with everything, the terminal summary included.
PROBE = """
import json, os, sys


def pytest_unconfigure(config):
    name = getattr(config, "workerinput", {}).get("workerid", "controller")
    with open(os.path.join(os.environ["MODULES_OUT"], name + ".json"), "w") as file:
        json.dump(sorted(sys.modules), file)
"""

#: The predictions of test_judge_run.py: right, wrong, and no change.
COMPLETION = """
import pytest
from pytest_editpred import Prediction


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        if "same" in request.example.name:
            return Prediction(text=request.text)
        body = "a - b" if "right" in request.example.name else "a * b"
        return Prediction(text=request.text.replace("def sub(a, b):\\n", f"def sub(a, b):\\n    return {body}\\n"))
    return complete
"""

VERDICT = '```json\n{"reasoning": "continues the function", "reverts_edits": false, "confidence": 4}\n```'


def _run(
    project: Project, monkeypatch: pytest.MonkeyPatch, *args: str, completion: bool
) -> tuple[pytest.RunResult, dict[str, list[str]]]:
    """The examples run in a pytest child: its result and each process's modules."""
    for name in ("calc--right", "calc--wrong", "calc--same"):
        project.example(name, SUB)
    if completion:
        project.pytester.makeconftest(COMPLETION)
    project.pytester.makepyfile(modules_probe=PROBE)
    out = project.pytester.path / "modules"
    out.mkdir()
    monkeypatch.setenv("MODULES_OUT", str(out))
    monkeypatch.setenv("PYTHONPATH", str(project.pytester.path), prepend=os.pathsep)
    report, junit = project.pytester.path / "run.jsonl", project.pytester.path / "run.xml"
    result = project.pytester.runpytest_subprocess(
        "evals", "-p", "modules_probe", f"--editpred-report={report}", f"--junitxml={junit}", *args
    )
    return result, {path.stem: json.loads(path.read_text()) for path in sorted(out.glob("*.json"))}


def _judge_modules(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == j or m.startswith(j + ".") for j in JUDGE_MODULES)]


@pytest.mark.xdist
@pytest.mark.parametrize("provider", ["own-completion", "baseline"])
def test_a_run_without_a_judge_imports_none_of_its_modules(
    project: Project, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str], provider: str
) -> None:
    own = provider == "own-completion"
    args = [] if own else [f"--editpred-provider={provider}"]
    result, modules = _run(project, monkeypatch, *args, *plugin_args, completion=own)
    if own:
        result.assert_outcomes(passed=1, failed=2)  # the conftest's answers: one right
    else:
        result.assert_outcomes(failed=3)  # baseline's heuristics miss the expected body
    assert set(modules) == ({"controller", "gw0", "gw1"} if plugin_args else {"controller"})
    for process, loaded in modules.items():
        assert _judge_modules(loaded) == [], process


def test_a_run_with_a_judge_imports_them(
    project: Project, monkeypatch: pytest.MonkeyPatch, llm_server: LLMServer
) -> None:
    """The probe sees the judge's modules where a judge is asked for (so their absence
    above is the run's doing, not the probe's)."""
    llm_server.answer(VERDICT)
    judge = ["--editpred-qa=openai-chat", f"--editpred-qa-base-url={llm_server.url}", "--editpred-qa-model=judge"]
    result, modules = _run(project, monkeypatch, *judge, completion=True)
    result.assert_outcomes(passed=1, failed=2)
    assert len(llm_server.requests) == 2
    assert set(JUDGE_MODULES) <= set(_judge_modules(modules["controller"]))
