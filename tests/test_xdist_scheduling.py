"""Under xdist: what each scheduling does to the requests in flight, and to how
often an example is asked.

A worker prefetches only the items it knows it will run. xdist's own ``--dist load``
sends it a few at a time (and none more while its items wait for their predictions),
so its requests in flight dropped; the plugin's load scheduling
(:mod:`pytest_editpred.integration.scheduling`) keeps each worker sent two windows of
examples, and every example is still asked once. ``--dist worksteal`` hands each
worker its whole share, at a price: an item stolen near the end by an idle worker may
have been asked already by the worker it was taken from, so it is asked twice. That
is why it is the user's choice (the README says so), not the default. A real loopback
server counts the requests it holds at once.
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


def test_worksteal_keeps_each_workers_requests_in_flight(project: Project, llm_server: LLMServer) -> None:
    for i in range(36):
        project.example(f"calc--sub-{i:02}", SUB)
    llm_server.answer(WRONG)
    llm_server.latency = 1.0
    result = _run(project, llm_server, "--dist", "worksteal")
    result.assert_outcomes(failed=36)
    # 18 items a worker, 6 in flight each: both workers' windows are full at once.
    assert llm_server.peak == 12
    # Every prediction asked for; an item stolen near the end by an idle worker may
    # have been asked for by its first worker too: at most one window (2 x 6) each.
    assert 36 <= len(llm_server.requests) <= 36 + 2 * 12


def test_the_default_scheduling_keeps_each_workers_window_full(project: Project, llm_server: LLMServer) -> None:
    for i in range(36):
        project.example(f"calc--sub-{i:02}", SUB)
    llm_server.answer(WRONG)
    llm_server.latency = 1.0
    result = _run(project, llm_server)
    result.assert_outcomes(failed=36)
    # xdist's own LoadScheduling sends each worker 4 items (36 / 2 / 4) and no more
    # while they wait for a 1 s answer: 9 were in flight at most. Topped up to two
    # windows (12 items), each worker keeps its 6 in flight.
    assert llm_server.peak == 12
    assert len(llm_server.requests) == 36


def test_the_default_scheduling_asks_every_example_once(project: Project, llm_server: LLMServer) -> None:
    for i in range(12):
        project.example(f"calc--sub-{i:02}", SUB)
    llm_server.answer(WRONG)
    result = _run(project, llm_server, "-v")
    result.assert_outcomes(failed=12)
    result.stdout.fnmatch_lines(["*scheduling tests via ExampleLoadScheduling*"])
    assert len(llm_server.requests) == 12
