"""Model providers through the plugin: outcomes, attempts, secrets, cache, cancellation.

A real HTTP server on loopback (tests/llm_server.py) plays the model. The FIM
provider is used because its answer is plain text inserted at the cursor: the
example's expected edit is ``\\n    return a - b`` after ``def sub(a, b):``.
"""

from __future__ import annotations

import json
import shutil
import time
import xml.etree.ElementTree as ET

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project

RIGHT = "\n    return a - b"
WRONG = "\n    return a * b"
KEY = "sk-secret-4242-do-not-print"


def fim_args(server: LLMServer, *extra: str) -> list[str]:
    return ["evals", "--editpred-provider=llamacpp-infill", f"--editpred-base-url={server.url}", *extra]


def properties(xml_path) -> dict[str, dict[str, str]]:
    root = ET.parse(xml_path).getroot()
    return {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }


def test_right_answer_passes_wrong_answer_fails(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer(RIGHT)
    xml = project.pytester.path / "j.xml"
    result = project.pytester.runpytest(
        *fim_args(llm_server, f"--junitxml={xml}", "--editpred-cache=off"), *plugin_args
    )
    result.assert_outcomes(passed=1)
    props = properties(xml)["calc--sub"]
    assert props["editpred_attempt_1"].startswith("ok ")
    assert props["editpred_delta_chr_f"] == "100.0"
    llm_server.answer(WRONG)
    result = project.pytester.runpytest(*fim_args(llm_server, "--editpred-cache=off"), *plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*matches none of the 1 expected patch*", "*delta-chrF*"])


def test_server_errors_are_errors_after_every_retry(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer(RIGHT)
    llm_server.fail(503, times=3)
    xml = project.pytester.path / "j.xml"
    args = fim_args(llm_server, f"--junitxml={xml}", "--editpred-retries=3", "--editpred-cache=off")
    result = project.pytester.runpytest(*args, *plugin_args)
    result.assert_outcomes(errors=1)  # never FAILED: the server, not the model, failed
    assert len(llm_server.requests) == 3
    props = properties(xml)["calc--sub"]
    assert [props[f"editpred_attempt_{i}"].split()[0] for i in (1, 2, 3)] == ["http-503"] * 3
    assert props["editpred_outcome"] == "error"
    assert props["editpred_reason"].startswith("infrastructure:")


def test_a_retry_that_succeeds_passes_and_records_both_attempts(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer(RIGHT)
    llm_server.fail(500, times=1)
    xml = project.pytester.path / "j.xml"
    result = project.pytester.runpytest(
        *fim_args(llm_server, f"--junitxml={xml}", "--editpred-cache=off"), *plugin_args
    )
    result.assert_outcomes(passed=1)
    props = properties(xml)["calc--sub"]
    assert props["editpred_attempt_1"].startswith("http-500") and props["editpred_attempt_2"].startswith("ok")


def test_malformed_answer_fails_and_is_never_retried(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.malformed(times=5)
    result = project.pytester.runpytest(*fim_args(llm_server, "--editpred-cache=off"), *plugin_args)
    result.assert_outcomes(failed=1)
    assert len(llm_server.requests) == 1
    result.stdout.fnmatch_lines(["*the model's answer cannot be used*"])


@pytest.mark.xdist
def test_the_api_key_never_leaks(
    project: Project, llm_server: LLMServer, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project.example("calc--sub", SUB)
    project.example("calc--sub-again", SUB)
    monkeypatch.setenv("EDITPRED_TEST_KEY", KEY)
    llm_server.answer(RIGHT)
    llm_server.fail(401, message=f"invalid api key {KEY}")
    files = project.pytester.path
    result = project.pytester.runpytest(
        *fim_args(
            llm_server,
            "--editpred-api-key-env=EDITPRED_TEST_KEY",
            f"--junitxml={files / 'j.xml'}",
            f"--editpred-report={files / 'r.jsonl'}",
            f"--editpred-html={files / 'r.html'}",
            "-rA",
        ),
        *plugin_args,
    )
    result.assert_outcomes(passed=1, errors=1)
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in llm_server.requests)
    assert KEY not in result.stdout.str() + result.stderr.str()
    for path in files.rglob("*"):
        if path.is_file() and ".editpred-cache" not in path.parts and "upstream" not in path.parts:
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.xdist
def test_response_cache_modes(project: Project, llm_server: LLMServer, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer(RIGHT)
    project.pytester.runpytest(*fim_args(llm_server), *plugin_args).assert_outcomes(passed=1)
    assert len(llm_server.requests) == 1
    llm_server.answer(WRONG)
    replay = project.pytester.runpytest(*fim_args(llm_server, "--editpred-cache=replay-only"), *plugin_args)
    replay.assert_outcomes(passed=1)  # from the cache: the server is not asked
    assert len(llm_server.requests) == 1
    fresh = project.pytester.runpytest(*fim_args(llm_server, "--editpred-cache=write"), *plugin_args)
    fresh.assert_outcomes(failed=1)  # write-only never reads: the server's new answer
    assert len(llm_server.requests) == 2
    # Each trial is its own cache key: trial 2 was never asked, so it misses.
    miss = project.pytester.runpytest(
        *fim_args(llm_server, "--editpred-cache=replay-only", "--editpred-trials=2"), *plugin_args
    )
    miss.assert_outcomes(failed=1, errors=1)  # t1 replays the last (wrong) answer, t2 misses: no answer
    miss.stdout.fnmatch_lines(["*response cache*"])
    assert len(llm_server.requests) == 2
    shutil.rmtree(project.pytester.path / ".pytest_cache")
    off = project.pytester.runpytest(*fim_args(llm_server, "--editpred-cache=read", "-k", "calc--sub"), *plugin_args)
    off.assert_outcomes(failed=1)


@pytest.mark.xdist
def test_x_cancels_outstanding_requests(project: Project, llm_server: LLMServer, plugin_args: list[str]) -> None:
    for i in range(12):
        project.example(f"calc--sub-{i:02}", SUB)
    llm_server.answer(WRONG)
    llm_server.latency = 0.5
    start = time.monotonic()
    result = project.pytester.runpytest(
        *fim_args(llm_server, "-x", "--editpred-concurrency=3", "--editpred-cache=off"), *plugin_args
    )
    elapsed = time.monotonic() - start
    outcomes = result.parseoutcomes()
    # -x stops at the first failure; under xdist each of the 2 workers may fail one.
    assert 1 <= outcomes.get("failed", 0) <= (2 if plugin_args else 1) and not outcomes.get("passed")
    if not plugin_args:  # under xdist each worker has its own window: no tight bound
        # 12 requests take 2 s at 3 in flight; -x cancels all but the first window.
        assert len(llm_server.requests) <= 6
        assert elapsed < 5


@pytest.mark.xdist
def test_report_records(project: Project, llm_server: LLMServer, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB, tags=("completion",))
    llm_server.answer(RIGHT)
    report = project.pytester.path / "r.jsonl"
    project.pytester.runpytest(*fim_args(llm_server, f"--editpred-report={report}"), *plugin_args).assert_outcomes(
        passed=1
    )
    [record] = [json.loads(line) for line in report.read_text().splitlines()]
    assert record["name"] == "calc--sub" and record["outcome"] == "passed"
    assert record["provider"] == "llamacpp-infill" and record["trial"] == 1
    assert record["matched_candidate"] == 1 and record["metrics"]["delta_chr_f"] == 100.0
    assert record["attempts"][0]["ordinal"] == 1 and record["tags"] == ["completion"]


@pytest.mark.xdist
def test_the_prompt_and_the_raw_answer_are_recorded_and_shown_within_their_limits(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    from pytest_editpred._clip import RECORDED_CHARS, SHOWN_CHARS

    project.example("calc--sub", SUB)
    huge = WRONG + "\n    # " + "x" * (RECORDED_CHARS + 5_000)
    llm_server.answer(huge)
    report = project.pytester.path / "r.jsonl"
    args = fim_args(llm_server, f"--editpred-report={report}", "--editpred-cache=off")
    result = project.pytester.runpytest(*args, *plugin_args)
    result.assert_outcomes(failed=1)
    [record] = [json.loads(line) for line in report.read_text().splitlines()]
    sent = llm_server.requests[0].body
    # the prompt is the one the server received, part by part
    assert record["prompt"] == {"input_prefix": sent["input_prefix"], "input_suffix": sent["input_suffix"]}
    # the raw answer is kept up to its limit, head and tail, the cut said in words
    raw = record["raw_output"]
    assert raw.startswith(WRONG) and raw.endswith("x" * 100)
    assert f"[... {len(huge) - RECORDED_CHARS:,} characters not shown ...]" in raw
    assert len(raw) < RECORDED_CHARS + 100
    # the failure shows both, each within SHOWN_CHARS
    output = result.stdout.str()
    assert "editpred prompt" in output and "[input_prefix]" in output and "def sub(a, b):" in output
    assert "editpred raw output" in output
    assert f"[... {len(huge) - SHOWN_CHARS:,} characters not shown ...]" in output
    assert "x" * (SHOWN_CHARS + 1) not in output


def _established_to(port: int) -> int:
    """This machine's client sockets connected to ``port`` (/proc/net/tcp, state 01)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "01" and int(fields[2].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def test_the_providers_connections_are_closed_when_the_session_ends(project: Project, llm_server: LLMServer) -> None:
    # An in-process session (an IDE's, pytester's) leaves no keep-alive connection
    # open behind it: they were opened on the process-wide completion loop, and the
    # session's end closes them there, not the garbage collector later.
    for name in ("sub", "sub2", "sub3"):
        project.example(f"calc--{name}", SUB)
    llm_server.answer(RIGHT)
    port = int(llm_server.url.rsplit(":", 1)[1])
    result = project.pytester.runpytest_inprocess(
        *fim_args(llm_server, "--editpred-cache=off", "--editpred-concurrency=3")
    )
    result.assert_outcomes(passed=3)
    deadline = time.monotonic() + 5
    while _established_to(port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _established_to(port) == 0
