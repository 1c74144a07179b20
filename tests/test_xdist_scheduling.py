"""Under xdist, each worker keeps ``--editpred-concurrency`` requests in flight.

A worker prefetches only the items it knows it will run. Under xdist's default
``--dist load`` it is sent a few at a time (and none more while its items wait for
their predictions), so its requests in flight drop; with no ``--dist`` chosen, a run
of examples is scheduled as ``worksteal``, which hands each worker its whole share.
A real loopback server counts the requests it holds at once.
"""

from __future__ import annotations

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project

WRONG = "\n    return a * b"


def _run(project: Project, server: LLMServer, *extra: str) -> pytest.RunResult:
    return project.pytester.runpytest(
        "evals", "-n", "2", "--editpred-provider=llamacpp-infill", f"--editpred-base-url={server.url}",
        "--editpred-cache=off", "--editpred-concurrency=6", *extra,
    )  # fmt: skip


def test_each_worker_keeps_its_requests_in_flight(project: Project, llm_server: LLMServer) -> None:
    for i in range(36):
        project.example(f"calc--sub-{i:02}", SUB)
    llm_server.answer(WRONG)
    llm_server.latency = 1.0
    result = _run(project, llm_server)
    result.assert_outcomes(failed=36)
    # 18 items a worker, 6 in flight each: both workers' windows are full at once.
    # Under --dist load each worker is first sent 4 items (36 / 2 / 4), and no more
    # while its items wait: never more than 8 at once.
    assert llm_server.peak == 12
    # Every prediction asked for; an item stolen near the end by an idle worker may
    # have been asked for by its first worker too: at most one window (2 x 6) each.
    assert 36 <= len(llm_server.requests) <= 36 + 2 * 12


def test_a_chosen_dist_is_kept(project: Project, llm_server: LLMServer) -> None:
    for i in range(12):
        project.example(f"calc--sub-{i:02}", SUB)
    llm_server.answer(WRONG)
    result = _run(project, llm_server, "--dist", "load", "-v")
    result.assert_outcomes(failed=12)
    result.stdout.fnmatch_lines(["*scheduling tests via LoadScheduling*"])
    assert len(llm_server.requests) == 12
