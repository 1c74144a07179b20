"""The repository's top-level conftest.py: the README's custom
completion function, switched on by ``EDITPRED_EXAMPLE_SERVER``.

Each run is a real ``pytest evals/`` in a subprocess from the repository root, against
the loopback model server of tests/llm_server.py, plainly and under ``-n 2``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from llm_server import LLMServer, Recorded, llm_server_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
MODEL = "example-model"


def run_evals(tmp_path: Path, server: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDITPRED_EXAMPLE_")}
    env["EDITPRED_CACHE_DIR"] = str(tmp_path / "repos")
    if server is not None:
        env["EDITPRED_EXAMPLE_SERVER"] = server
        env["EDITPRED_EXAMPLE_MODEL"] = MODEL
    return subprocess.run(
        [sys.executable, "-m", "pytest", "evals/", "-p", "no:cacheprovider", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def complete_radius(request: Recorded) -> str:
    """Answer like a model that finishes ``self.ra`` (pyshapes--complete-radius); else nothing."""
    before = request.body["prompt"].split("<SUF>")[0]
    return "dius" if before.endswith("return 2 * self.ra") else ""


@pytest.mark.parametrize("jobs", [[], ["-n", "2"]], ids=["plain", "xdist"])
@pytest.mark.slow
def test_the_root_conftest_answers_from_the_named_server(
    tmp_path: Path, llm_server: LLMServer, jobs: list[str]
) -> None:
    llm_server.answer(complete_radius)
    report = tmp_path / "r.jsonl"
    result = run_evals(tmp_path, llm_server.url, f"--editpred-report={report}", *jobs)
    out = result.stdout + result.stderr
    records = [json.loads(line) for line in report.read_text().splitlines()]
    examples = len(records)
    assert examples >= 20, out[-3000:]
    # Every example asked the server once, through the fixture's own prompt.
    assert len(llm_server.requests) == examples, out[-3000:]
    for request in llm_server.requests:
        assert request.path == "/v1/completions"
        assert request.body["model"] == MODEL and request.body["max_tokens"] == 256
        assert "<PRE>" in request.body["prompt"] and request.body["prompt"].endswith("<MID>")
    # The results are the fixture's: its model, its raw answers, its one right answer.
    assert {r["model"] for r in records} == {MODEL}
    assert {r["outcome"] for r in records} <= {"passed", "failed"}, out[-3000:]
    [radius] = [r for r in records if Path(r["path"]).name == "pyshapes--complete-radius.md"]
    assert radius["outcome"] == "passed" and radius["raw_output"] == "dius", radius
    assert [r for r in records if r["outcome"] == "passed"] == [radius]


def test_without_the_variable_the_baseline_answers(tmp_path: Path, llm_server: LLMServer) -> None:
    report = tmp_path / "r.jsonl"
    result = run_evals(tmp_path, None, f"--editpred-report={report}")
    assert "editpred: provider=baseline" in result.stdout
    records = [json.loads(line) for line in report.read_text().splitlines()]
    assert records and {r["provider"] for r in records} == {"baseline"}
    assert sum(r["outcome"] == "passed" for r in records) > 1  # the baseline's own score
    assert llm_server.requests == []


@pytest.mark.parametrize("server", [None, "http://127.0.0.1:9"], ids=["unset", "set"])
def test_the_root_conftest_defines_the_fixture_only_when_asked(server: str | None) -> None:
    # pytest from the repository root runs tests/ (testpaths), and loads the root
    # conftest there too: without the variable it defines no fixture, and loading it
    # imports no HTTP client either way.
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDITPRED_EXAMPLE_")}
    if server is not None:
        env["EDITPRED_EXAMPLE_SERVER"] = server
    script = (
        "import runpy, sys; ns = runpy.run_path('conftest.py'); "
        "print('editpred_completion' in ns, 'httpx' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(server is not None), "False"]
