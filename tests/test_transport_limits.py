"""Bounded answers: hostile bodies from a real loopback server end in a FAILED, with
bounded memory, and the run goes on; deep JSON anywhere is refused, never a
RecursionError.

The server (tests/llm_server.py) streams a chunked body forever, sends a gzip bomb
(1 MB that inflates to 1 GiB), a 100 MB answer, or JSON nested 100,000 deep. Memory
is measured where the plugin runs: a child pytest process (and its xdist workers)
reports its own peak RSS (``ru_maxrss``) when it ends; no timing is asserted.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from pathlib import Path

import httpx
import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project
from pytest_editpred import (
    ConfigError,
    PredictionError,
    ProviderUnavailableError,
    Settings,
)
from pytest_editpred._limits import DEFAULT_LIMITS, MAX_JSON_DEPTH
from pytest_editpred._safe_json import JSONDepthError, loads_bounded
from pytest_editpred.providers._replay import load_replay
from pytest_editpred.providers.transport import HTTPTransport
from pytest_editpred.providers.transport._body import (
    BodyReader,
    BodyTooLarge,
    UnreadableBody,
)
from pytest_editpred.providers.transport._cache import ResponseCache
from pytest_editpred.reports import read_records

RIGHT = "\n    return a - b"
DEEP = "[" * 100_000 + "]" * 100_000
MiB = 2**20
LIMIT_MESSAGE = f"*larger than {DEFAULT_LIMITS.max_response_bytes:,} bytes, the limit of --editpred-max-response-bytes*"

# -- the safe JSON loader -------------------------------------------------------------


def test_loads_bounded_reads_json_and_refuses_depth_before_parsing() -> None:
    assert loads_bounded('{"a": "[[[[{{{{", "b": [1, [2, {"c": "\\"]"}]]}') == {
        "a": "[[[[{{{{",
        "b": [1, [2, {"c": '"]'}]],
    }
    nested = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads_bounded(nested) is not None  # exactly the limit is fine
    for deep in ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), DEEP, '{"a":' * 100_000, "[{" * 60):
        with pytest.raises(JSONDepthError, match=f"nested deeper than {MAX_JSON_DEPTH} levels") as error:
            loads_bounded(deep)
        assert isinstance(error.value, json.JSONDecodeError) and isinstance(error.value, ValueError)
    assert loads_bounded(b'{"k": 1}') == {"k": 1}
    with pytest.raises(ValueError, match="Unterminated string"):
        loads_bounded('"abc' + "[" * 1000)  # brackets in an endless string are no nesting
    with pytest.raises(JSONDepthError, match="deeper than 2 levels"):
        loads_bounded("[[[1]]]", max_depth=2)  # the limit is a parameter


# -- the body reader ------------------------------------------------------------------


def _feed(reader: BodyReader, data: bytes, piece: int = 1000) -> bytes:
    for at in range(0, len(data), piece):
        reader.feed(data[at : at + piece])
    return reader.finish()


@pytest.mark.parametrize(
    "encoding, pack",
    [
        (None, lambda data: data),
        ("identity", lambda data: data),
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data, wbits=-zlib.MAX_WBITS)),  # raw deflate, as IIS sends
    ],
    ids=["none", "identity", "gzip", "x-gzip", "deflate", "raw-deflate"],
)
def test_a_body_under_the_limit_is_decoded(encoding: str | None, pack) -> None:
    data = json.dumps({"choices": [{"text": "x" * 50_000}]}).encode()
    assert _feed(BodyReader(len(data), encoding), pack(data)) == data


def test_a_body_over_the_limit_stops_at_the_limit_even_within_one_piece() -> None:
    bomb = gzip.compress(b"\0" * (64 * MiB))
    reader = BodyReader(MiB, "gzip")
    with pytest.raises(BodyTooLarge, match="larger than 1,048,576 bytes"):
        reader.feed(bomb)  # one piece: inflating it whole would make 64 MiB
    with pytest.raises(BodyTooLarge):
        _feed(BodyReader(MiB, None), b"x" * (MiB + 1), piece=MiB)


def test_an_encoding_we_cannot_bound_is_refused() -> None:
    with pytest.raises(UnreadableBody, match="Content-Encoding 'br'"):
        BodyReader(MiB, "br")
    with pytest.raises(UnreadableBody, match="does not decode"):
        _feed(BodyReader(MiB, "gzip"), b"this is not gzip")


# -- the transport, both ways: the lean h11 one and httpx's ----------------------------

TRANSPORTS = {"plain": lambda: None, "httpx": lambda: httpx.AsyncHTTPTransport()}


def _post(server: LLMServer, which: str, **settings: object) -> object:
    options: dict[str, object] = {"base_url": server.url, "retries": 3, "timeout": 60.0}
    options.update(settings)

    async def once() -> object:
        http = HTTPTransport(Settings(**options), transport=TRANSPORTS[which]())  # type: ignore[arg-type]
        try:
            return await http.post_json(server.url + "/v1/completions", {"prompt": "p"})
        finally:
            await http.aclose()

    return asyncio.run(once())


@pytest.mark.parametrize("which", TRANSPORTS)
@pytest.mark.parametrize("hostile", ["forever", "gzip_bomb"])
def test_an_endless_or_inflating_body_fails_at_the_limit_and_is_not_retried(
    llm_server: LLMServer, which: str, hostile: str
) -> None:
    getattr(llm_server, hostile)()
    with pytest.raises(PredictionError) as error:
        _post(llm_server, which, max_response_bytes=4 * MiB)
    assert "larger than 4,194,304 bytes, the limit of --editpred-max-response-bytes" in error.value.reason
    assert "--editpred-max-response-bytes" in error.value.fix
    assert [a.error for a in error.value.attempts] == ["too-large"]  # type: ignore[attr-defined]
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize("which", TRANSPORTS)
def test_a_large_answer_is_refused_and_a_small_gzip_one_read(llm_server: LLMServer, which: str) -> None:
    llm_server.huge(100 * MiB)
    with pytest.raises(PredictionError, match="larger than 8,388,608 bytes"):
        _post(llm_server, which)
    envelope = json.dumps({"choices": [{"text": "fine"}]}).encode()
    llm_server.raw(gzip.compress(envelope))  # gzip without saying so: not JSON, and says so
    with pytest.raises(PredictionError, match="not JSON"):
        _post(llm_server, which)
    llm_server.answer("fine")
    assert _post(llm_server, which).data["choices"][0]["text"] == "fine"  # type: ignore[attr-defined]


@pytest.mark.parametrize("which", TRANSPORTS)
def test_deep_json_is_a_malformed_answer_and_a_deep_error_body_is_still_an_error(
    llm_server: LLMServer, which: str
) -> None:
    llm_server.raw(DEEP.encode())
    with pytest.raises(PredictionError, match=f"malformed answer: its JSON nests deeper than {MAX_JSON_DEPTH}"):
        _post(llm_server, which)
    llm_server.fail(500, times=3, message=DEEP)  # the message is a string: fine
    with pytest.raises(ProviderUnavailableError, match="http-500"):
        _post(llm_server, which)


# -- the response cache, the replay file, the baseline --------------------------------


def test_a_damaged_or_too_deep_cache_entry_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, "readwrite")
    key = "ab" + "0" * 62
    good = '{"choices": [{"text": "ok"}]}'
    cache.put(key, response_text=good, latency=0.1, metadata={})
    assert cache.get(key).data == {"choices": [{"text": "ok"}]}  # type: ignore[union-attr]
    path = cache.path(key)
    for damage in (DEEP, json.dumps({"version": 1, "key": key, "response": DEEP}), "{cut"):
        path.write_text(damage)
        assert cache.get(key) is None  # a miss, not an error
        cache.put(key, response_text=good, latency=0.1, metadata={})
        assert cache.get(key) is not None


def test_a_too_deep_replay_line_is_an_error_naming_the_file_and_line(tmp_path: Path) -> None:
    file = tmp_path / "r.jsonl"
    file.write_text('{"name": "x", "patch": ""}\n' + DEEP + "\n")
    with pytest.raises(ConfigError, match=r"r\.jsonl:2: not JSON \(JSON nested deeper than 100 levels\)"):
        load_replay(file)


def test_a_too_deep_baseline_line_is_an_error_naming_the_file_and_line(tmp_path: Path) -> None:
    file = tmp_path / "old.jsonl"
    file.write_text('{"name": "x", "outcome": "passed"}\n' + DEEP + "\n")
    with pytest.raises(ConfigError, match="line 2 is not valid JSON: JSON nested deeper than 100") as error:
        read_records(file)
    assert error.value.line == 2 and error.value.path == str(file)


# -- through the plugin ---------------------------------------------------------------

#: Written into the child project: each pytest process (controller and workers)
#: reports its own peak RSS when it ends.
PEAK_RSS_CONFTEST = """
import os, resource
from pathlib import Path

def pytest_unconfigure(config):
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    Path(os.environ["EDITPRED_PEAK_RSS_DIR"], str(os.getpid())).write_text(str(peak_kib))
"""


def fim_args(server: LLMServer, *extra: str) -> list[str]:
    return ["evals", "--editpred-provider=llamacpp-infill", f"--editpred-base-url={server.url}", *extra]


def _peak_rss_mib(folder: Path) -> float:
    peaks = [int(path.read_text()) for path in folder.iterdir()]
    assert peaks, "no pytest process reported its peak RSS"
    return max(peaks) / 1024


@pytest.mark.parametrize("hostile", ["forever", "gzip_bomb"])
def test_an_endless_body_or_a_gzip_bomb_fails_one_item_in_bounded_memory_and_the_run_goes_on(
    project: Project, llm_server: LLMServer, plugin_args: list[str], hostile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.example("calc--sub", SUB)
    project.example("calc--sub-again", SUB)
    project.pytester.makeconftest(PEAK_RSS_CONFTEST)
    peaks = project.pytester.path / "peaks"
    peaks.mkdir()
    monkeypatch.setenv("EDITPRED_PEAK_RSS_DIR", str(peaks))
    llm_server.answer(RIGHT)
    getattr(llm_server, hostile)()  # the first request gets it, the other the right answer
    report = project.pytester.path / "r.jsonl"
    args = fim_args(llm_server, "--editpred-cache=off", "--editpred-retries=3", f"--editpred-report={report}")
    result = project.pytester.runpytest_subprocess(*args, *plugin_args)
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines([LIMIT_MESSAGE])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert len(llm_server.requests) == 2  # never retried
    records = read_records(report)
    assert sorted(r["outcome"] for r in records) == ["failed", "passed"]
    assert _peak_rss_mib(peaks) < 500


@pytest.mark.xdist
def test_a_100_mb_answer_is_refused_not_printed_nor_cached(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.huge(100 * MiB)
    responses = project.pytester.path / "responses"
    report = project.pytester.path / "r.jsonl"
    args = fim_args(llm_server, f"--editpred-response-cache-dir={responses}", f"--editpred-report={report}")
    result = project.pytester.runpytest(*args, *plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([LIMIT_MESSAGE])
    output = result.stdout.str()
    assert "a" * 1000 not in output and len(output) < 100_000
    assert not [p for p in responses.rglob("*") if p.is_file()]  # nothing cached
    [record] = read_records(report)
    assert record["outcome"] == "failed" and "a" * 1000 not in json.dumps(record)


def test_deep_json_from_the_server_fails_as_a_malformed_answer(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.raw(DEEP.encode())
    result = project.pytester.runpytest(*fim_args(llm_server, "--editpred-cache=off"), *plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*malformed answer: its JSON nests deeper than 100 levels*"])
    assert "RecursionError:" not in result.stdout.str()


def test_a_too_deep_cache_file_is_a_miss_and_is_rewritten(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer(RIGHT)
    responses = project.pytester.path / "responses"
    args = fim_args(llm_server, f"--editpred-response-cache-dir={responses}")
    project.pytester.runpytest(*args, *plugin_args).assert_outcomes(passed=1)
    [entry] = [p for p in responses.rglob("*.json")]
    entry.write_text(DEEP)
    project.pytester.runpytest(*args, *plugin_args).assert_outcomes(passed=1)  # a miss: asked again
    assert len(llm_server.requests) == 2
    assert json.loads(entry.read_text())["response"]  # rewritten
    replay = project.pytester.runpytest(*args, "--editpred-cache=replay-only", *plugin_args)
    replay.assert_outcomes(passed=1)
    assert len(llm_server.requests) == 2


@pytest.mark.xdist
def test_a_too_deep_replay_file_is_an_error_naming_file_and_line(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    replay = project.pytester.path / "r.jsonl"
    replay.write_text('{"name": "other", "patch": ""}\n' + DEEP + "\n")
    result = project.pytester.runpytest(
        "evals", "--editpred-provider=replay", f"--editpred-replay={replay}", *plugin_args
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # a bad option value: once, before any item
    result.stderr.fnmatch_lines(["*r.jsonl:2: not JSON (JSON nested deeper than 100 levels)*"])
    everything = result.stdout.str() + result.stderr.str()
    assert "RecursionError:" not in everything and "INTERNALERROR" not in everything


@pytest.mark.xdist
def test_a_too_deep_baseline_file_is_a_usage_error(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    baseline = project.pytester.path / "old.jsonl"
    baseline.write_text(DEEP + "\n")
    result = project.pytester.runpytest("evals", f"--editpred-baseline={baseline}", *plugin_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--editpred-baseline*old.jsonl:1*nested deeper than 100 levels*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
