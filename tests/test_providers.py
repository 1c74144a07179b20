"""The HTTP providers against a real loopback server, and the replay provider.

Every failure mode is played by the server in ``llm_server.py`` over real sockets;
``httpx.MockTransport`` is used only for what a well-behaved HTTP server cannot do
(a connect error followed by success on the same URL, a 200 of the wrong shape).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import socket
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from greet_sample import CURSOR, PATH, TEXT, request
from llm_server import LLMServer, llm_server_fixture  # noqa: F401  (the llm_server fixture)

from pytest_editpred import (
    Attempt,
    ConfigError,
    MissingAnswerError,
    Prediction,
    PredictionError,
    PredictionRequest,
    ProviderUnavailableError,
    Settings,
)
from pytest_editpred._engine import Prefetcher, call_once
from pytest_editpred.providers import get_provider
from pytest_editpred.providers.prompts import chat_messages, window_for
from pytest_editpred.providers.transport._http import Backoff, endpoint_url, safe_url
from pytest_editpred.zeta import build_input, format_prompt
from pytest_editpred.zeta._formats import ZETA1, ZetaFormat

NEW_TEXT = TEXT.replace("hello(sys", "greet(sys")
NEW_CURSOR = NEW_TEXT.index("(sys")
KEY = "sk-secret-123"
FAST = Backoff(base=0.01, factor=2.0, cap=0.05, jitter=0.0, retry_after_cap=5.0)

# Zed's editable region covers this whole 10-line file, its final newline included.
ZETA1_ANSWER = (
    "```src/greet.py\n<|start_of_file|>\n<|editable_region_start|>\n"
    + NEW_TEXT[:NEW_CURSOR]
    + "<|user_cursor_is_here|>"
    + NEW_TEXT[NEW_CURSOR:]
    + "\n<|editable_region_end|>\n\n```"
)
ZETA2_ANSWER = NEW_TEXT[:NEW_CURSOR] + "<|user_cursor|>" + NEW_TEXT[NEW_CURSOR:] + ">>>>>>> UPDATED\n"
CHAT_ANSWER = "Renaming the call:\n\n```python\n" + ZETA2_ANSWER.split(">>>>>>>")[0] + "```\n"


def settings(server: LLMServer | str, **changes: Any) -> Settings:
    base = dict(
        provider="openai",
        base_url=server if isinstance(server, str) else server.url,
        model="zeta",
        cache_mode="off",
        timeout=2.0,
        retries=3,
    )
    base.update(changes)
    return Settings(**base)  # type: ignore[arg-type]


def make(provider: str, config: Settings, **options: Any) -> Callable[[PredictionRequest], Any]:
    options.setdefault("backoff", FAST)
    factory: Callable[..., Callable[[PredictionRequest], Any]] = get_provider(provider)
    return factory(config, **options)


async def _wait(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def predict(completion: Callable[[PredictionRequest], Any], req: PredictionRequest | None = None) -> Prediction:
    """Call a completion as the plugin would: await it if it returns an awaitable."""
    result = completion(req or request())
    if inspect.isawaitable(result):
        result = asyncio.run(_wait(result))
    assert isinstance(result, Prediction)
    return result


def kinds(attempts: tuple[Attempt, ...]) -> list[str | None]:
    return [attempt.error for attempt in attempts]


# -- the happy path of each provider -----------------------------------------------


def test_openai_zeta_sends_the_prompt_and_parses_the_answer(llm_server: LLMServer) -> None:
    llm_server.answer(ZETA1_ANSWER)
    config = settings(llm_server, prompt_format="zeta", max_tokens=256, temperature=0.2, extra_body={"top_k": 1})
    prediction = predict(make("openai", config))
    (seen,) = llm_server.requests
    assert seen.path == "/v1/completions"
    assert seen.body == {
        "model": "zeta",
        "prompt": format_prompt(build_input(request()), ZETA1),
        "max_tokens": 256,
        "temperature": 0.2,
        "stop": [
            "<|editable_region_end|>",
            "<|editable_region_end|>\n",
            "<|editable_region_end|>\n\n",
            "<|editable_region_end|>\n\n\n",
        ],
        "top_k": 1,
    }
    assert "authorization" not in seen.headers
    assert prediction.text == NEW_TEXT and prediction.cursor == NEW_CURSOR and prediction.patch is None
    assert prediction.raw_output == ZETA1_ANSWER
    assert prediction.model == "zeta"
    assert prediction.usage["total_tokens"] > 0
    assert kinds(prediction.attempts) == [None] and prediction.attempts[0].ordinal == 1
    assert prediction.latency is not None and prediction.latency > 0 and not prediction.cached
    assert prediction.extra["prompt"] == seen.body["prompt"]


def test_openai_infers_the_format_from_the_model_name_and_merges_stop_sequences(llm_server: LLMServer) -> None:
    llm_server.answer(ZETA2_ANSWER)
    prediction = predict(make("openai", settings(llm_server, model="zeta2", stop=("\n\n\n",))))
    body = llm_server.requests[0].body
    assert body["prompt"] == format_prompt(build_input(request()), ZetaFormat.V0211SeedCoder)
    assert body["stop"] == ["\n\n\n"]  # V0211SeedCoder has no stop tokens of its own: Zed relies on EOS
    assert (prediction.text, prediction.cursor) == (NEW_TEXT, NEW_CURSOR)
    llm_server.answer("<|marker_1|><|marker_1|><[end▁of▁sentence]>")
    # any other model name gets the editor's default, Zeta 2.1 (V0318SeedMultiRegions)
    assert predict(make("openai", settings(llm_server, model="my-finetune"))).text is None
    body = llm_server.requests[1].body
    assert body["prompt"] == format_prompt(build_input(request()), ZetaFormat.V0318SeedMultiRegions)
    assert body["stop"] == ["<[end▁of▁sentence]>"]


def test_openai_answer_without_markers_fails_once(llm_server: LLMServer) -> None:
    llm_server.answer("def main():\n    greet(sys.argv[1])\n")
    with pytest.raises(PredictionError, match="no marker tags found in output") as caught:
        predict(make("openai", settings(llm_server, prompt_format="zeta2.1")))
    assert len(llm_server.requests) == 1
    assert kinds(caught.value.attempts) == [None]  # type: ignore[attr-defined]
    assert caught.value.raw_output.startswith("def main()")  # type: ignore[attr-defined]


def test_openai_answer_cut_by_max_tokens_fails_and_says_so(llm_server: LLMServer) -> None:
    llm_server.answer("<|marker_1|>import sys", finish_reason="length")
    with pytest.raises(PredictionError, match="cut the answer off at max_tokens"):
        predict(make("openai", settings(llm_server, prompt_format="zeta2.1")))


def test_openai_chat(llm_server: LLMServer) -> None:
    llm_server.answer(CHAT_ANSWER)
    prediction = predict(make("openai-chat", settings(llm_server, model="gpt-test")))
    (seen,) = llm_server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.body["messages"] == chat_messages(request(), window_for(request()))
    assert seen.body["model"] == "gpt-test" and "stop" not in seen.body
    assert (prediction.text, prediction.cursor) == (NEW_TEXT, NEW_CURSOR)
    llm_server.answer("The code is fine as it is. NO_EDITS")
    unchanged = predict(make("openai-chat", settings(llm_server, model="gpt-test")))
    assert unchanged.text is None and unchanged.patch is None
    assert unchanged.raw_output is not None and unchanged.raw_output.endswith("NO_EDITS")


def test_llamacpp_infill_inserts_at_the_cursor(llm_server: LLMServer) -> None:
    llm_server.answer('greet("x")\n    ')
    prediction = predict(make("llamacpp-infill", settings(llm_server, model=None, max_tokens=64)))
    (seen,) = llm_server.requests
    assert seen.path == "/infill"
    assert seen.body == {
        "input_prefix": TEXT[:CURSOR],
        "input_suffix": TEXT[CURSOR:],
        "n_predict": 64,
        "temperature": 0.0,
    }
    assert prediction.text == TEXT[:CURSOR] + 'greet("x")\n    ' + TEXT[CURSOR:]
    assert prediction.cursor == CURSOR + len('greet("x")\n    ')
    assert prediction.usage.keys() == {"prompt_tokens", "completion_tokens"}


def test_llamacpp_infill_base_url_with_v1(llm_server: LLMServer) -> None:
    llm_server.answer("")
    prediction = predict(make("llamacpp-infill", settings(llm_server.url + "/v1/")))
    assert llm_server.requests[0].path == "/infill"
    assert prediction.text is None  # an empty insertion is no change


@pytest.mark.parametrize("shape", ["message", "text"])
def test_mistral_fim_both_response_shapes(llm_server: LLMServer, shape: str) -> None:
    llm_server.fim_shape = shape
    llm_server.answer("greet")
    prediction = predict(make("mistral-fim", settings(llm_server, model="codestral")))
    (seen,) = llm_server.requests
    assert seen.path == "/v1/fim/completions"
    assert seen.body == {
        "model": "codestral",
        "prompt": TEXT[:CURSOR],
        "suffix": TEXT[CURSOR:],
        "max_tokens": 2048,
        "temperature": 0.0,
    }
    assert (prediction.text, prediction.cursor) == (TEXT[:CURSOR] + "greet" + TEXT[CURSOR:], CURSOR + 5)


def test_completions_are_coroutine_functions_and_close(llm_server: LLMServer) -> None:
    llm_server.answer(ZETA1_ANSWER)
    completion = make("openai", settings(llm_server))
    assert inspect.iscoroutinefunction(completion)

    async def twice() -> None:
        await completion(request())
        await completion.__self__.aclose()  # type: ignore[attr-defined]

    asyncio.run(twice())
    assert predict(completion).text == NEW_TEXT  # a new loop gets a new client


def test_many_requests_in_flight(llm_server: LLMServer) -> None:
    # The server counts the requests it holds at once (no wall-clock bound: a busy
    # machine must not make this fail): all 8 are in flight together, not one after
    # the other.
    lock = threading.Lock()
    in_flight = [0, 0]  # now, peak
    everyone = threading.Barrier(8, timeout=20)

    def held(recorded: Any) -> str:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
        try:
            everyone.wait()  # returns only once all 8 requests are being served
        finally:
            with lock:
                in_flight[0] -= 1
        return ZETA1_ANSWER

    llm_server.answer(held)
    completion = make("openai", settings(llm_server, concurrency=8, timeout=30.0))

    async def all_of_them() -> list[Prediction]:
        return await asyncio.gather(*(completion(request(trial=n)) for n in range(1, 9)))

    predictions = asyncio.run(all_of_them())
    assert in_flight[1] == 8
    assert len(llm_server.requests) == 8 and all(p.text == NEW_TEXT for p in predictions)


def test_32_in_flight_through_the_prefetcher(llm_server: LLMServer) -> None:
    """The way the plugin runs a provider at --editpred-concurrency 32: the server
    sees (nearly) 32 requests at once, however the connections are pooled."""
    lock = threading.Lock()
    in_flight = [0, 0]  # now, peak
    wait = [0.2]

    def slow_answer(recorded: Any) -> str:  # counted by the server, while it waits
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
        try:
            time.sleep(wait[0])
        finally:
            with lock:
                in_flight[0] -= 1
        return "greet"

    llm_server.answer(slow_answer)
    completion = make("llamacpp-infill", settings(llm_server, model=None, concurrency=32, timeout=20.0))

    async def predict(number: int) -> Prediction:
        return await completion(request(name=f"example-{number}"))  # type: ignore[no-any-return]

    def run(keys: list[int]) -> list[Prediction]:
        with Prefetcher(predict, keys, concurrency=32) as prefetcher:
            return [prefetcher.result(key, timeout=30) for key in keys]

    try:
        # A first run opens the connections. The test server's listen backlog is 5,
        # so some of 32 connects at once are only accepted when retried, a second
        # or more later: that would measure the kernel, not the provider.
        run(list(range(32)))
        in_flight[1], wait[0] = 0, 0.5
        predictions = run(list(range(32, 64)))
    finally:
        call_once(lambda provider: provider.aclose(), completion.__self__)  # type: ignore[attr-defined]
    assert all(p.text == TEXT[:CURSOR] + "greet" + TEXT[CURSOR:] for p in predictions)
    assert len(llm_server.requests) == 64
    assert in_flight[1] >= 24, f"at most {in_flight[1]} requests in flight at once"


# -- retries -----------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 503])
def test_5xx_exhausts_the_attempts(llm_server: LLMServer, status: int) -> None:
    llm_server.fail(status, times=3, message="overloaded")
    with pytest.raises(ProviderUnavailableError) as caught:
        predict(make("openai", settings(llm_server, retries=3)))
    error = caught.value
    assert len(llm_server.requests) == 3
    assert kinds(error.attempts) == [f"http-{status}"] * 3  # type: ignore[attr-defined]
    assert [a.ordinal for a in error.attempts] == [1, 2, 3]  # type: ignore[attr-defined]
    assert f"{llm_server.url}/v1/completions" in error.reason
    assert "3 attempts" in error.reason and f"http-{status}" in error.reason and "overloaded" in error.reason


@pytest.mark.parametrize("provider", ["openai", "openai-chat", "llamacpp-infill", "mistral-fim"])
def test_transient_failures_then_success_are_recorded(llm_server: LLMServer, provider: str) -> None:
    llm_server.fail(503)
    llm_server.drop()
    llm_server.answer(CHAT_ANSWER if provider == "openai-chat" else ZETA1_ANSWER)
    prediction = predict(make(provider, settings(llm_server, retries=3)))
    assert kinds(prediction.attempts) == ["http-503", "disconnect", None]
    assert [a.ordinal for a in prediction.attempts] == [1, 2, 3]
    assert len(llm_server.requests) == 3


def test_retry_after_is_honoured(llm_server: LLMServer) -> None:
    llm_server.fail(429, retry_after="1")
    llm_server.answer(ZETA1_ANSWER)
    started = time.monotonic()
    prediction = predict(make("openai", settings(llm_server)))
    elapsed = time.monotonic() - started
    assert kinds(prediction.attempts) == ["http-429", None]
    assert 0.95 <= elapsed < 3.0  # the backoff alone would wait 0.01s


def test_retry_after_is_capped(llm_server: LLMServer) -> None:
    llm_server.fail(429, retry_after="3600")
    llm_server.answer(ZETA1_ANSWER)
    started = time.monotonic()
    backoff = Backoff(base=0.01, jitter=0.0, retry_after_cap=0.2)
    prediction = predict(make("openai", settings(llm_server), backoff=backoff))
    assert 0.2 <= time.monotonic() - started < 2.0
    assert kinds(prediction.attempts) == ["http-429", None]


def test_a_hanging_server_times_out(llm_server: LLMServer) -> None:
    llm_server.hang(times=2)
    started = time.monotonic()
    with pytest.raises(ProviderUnavailableError, match="timeout") as caught:
        predict(make("openai", settings(llm_server, timeout=0.3, retries=2)))
    assert time.monotonic() - started < 3.0
    assert kinds(caught.value.attempts) == ["timeout", "timeout"]  # type: ignore[attr-defined]
    assert all(0.25 < a.latency < 1.5 for a in caught.value.attempts)  # type: ignore[attr-defined]


def test_dropped_connections_exhaust_the_attempts(llm_server: LLMServer) -> None:
    llm_server.drop(times=2)
    with pytest.raises(ProviderUnavailableError, match="disconnect"):
        predict(make("openai", settings(llm_server, retries=2)))
    assert len(llm_server.requests) == 2


def test_refused_connections() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ProviderUnavailableError, match=r"after 2 attempts; the last error was connect") as caught:
        predict(make("openai", settings(f"http://127.0.0.1:{port}", retries=2)))
    assert kinds(caught.value.attempts) == ["connect", "connect"]  # type: ignore[attr-defined]


def test_malformed_200_fails_and_is_never_retried(llm_server: LLMServer) -> None:
    llm_server.malformed()
    with pytest.raises(PredictionError, match="not JSON") as caught:
        predict(make("openai", settings(llm_server, retries=5)))
    assert len(llm_server.requests) == 1
    assert kinds(caught.value.attempts) == ["invalid-json"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("status", [400, 401, 404])
def test_4xx_is_a_misconfiguration_and_is_never_retried(llm_server: LLMServer, status: int) -> None:
    llm_server.fail(status, times=5, message=f"model 'zeta' problem {status}")
    with pytest.raises(ProviderUnavailableError) as caught:
        predict(make("openai", settings(llm_server, retries=5)))
    assert len(llm_server.requests) == 1
    assert f"HTTP {status}" in caught.value.reason and f"model 'zeta' problem {status}" in caught.value.reason
    assert kinds(caught.value.attempts) == [f"http-{status}"]  # type: ignore[attr-defined]


def test_server_messages_are_truncated(llm_server: LLMServer) -> None:
    llm_server.fail(400, message="x" * 5000)
    with pytest.raises(ProviderUnavailableError) as caught:
        predict(make("openai", settings(llm_server)))
    assert len(caught.value.reason) < 500


def test_mock_transport_connect_error_then_success() -> None:
    calls: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=req)
        return httpx.Response(200, json={"choices": [{"text": ZETA1_ANSWER, "finish_reason": "stop"}]})

    completion = make("openai", settings("http://model.invalid/v1"), transport=httpx.MockTransport(handler))
    prediction = predict(completion)
    assert kinds(prediction.attempts) == ["connect", None]
    assert str(calls[1].url) == "http://model.invalid/v1/completions"
    assert prediction.text == NEW_TEXT and prediction.model == "zeta" and prediction.usage == {}


def test_mock_transport_200_of_the_wrong_shape_fails_once() -> None:
    calls: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req)
        return httpx.Response(200, json={"object": "list", "data": []})

    with pytest.raises(PredictionError, match="has no choices"):
        predict(make("openai", settings("http://model.invalid"), transport=httpx.MockTransport(handler)))
    assert len(calls) == 1


# -- the API key -------------------------------------------------------------------


def _everything_about(error: BaseException) -> str:
    return "".join(traceback.format_exception(error)) + repr(error) + str(error) + repr(vars(error))


def test_the_key_is_sent_and_never_leaks(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("EDITPRED_TEST_KEY", KEY)
    config = settings(llm_server, api_key_env="EDITPRED_TEST_KEY", cache_mode="readwrite", cache_dir=tmp_path)
    llm_server.answer(ZETA1_ANSWER)
    completion = make("openai", config)
    prediction = predict(completion)
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in repr(prediction) and KEY not in repr(completion.__self__)  # type: ignore[attr-defined]
    assert KEY not in repr(config)
    cache_files = list(tmp_path.rglob("*"))
    assert any(path.suffix == ".json" for path in cache_files)
    for path in cache_files:
        if path.is_file():
            assert KEY not in path.read_text()

    # A server that echoes the key in its error message: the message is scrubbed.
    echo = lambda seen: f"invalid key {seen.headers['authorization']}"  # noqa: E731
    for status, times in ((401, 1), (500, 3)):  # 401 is not retried, 500 is
        llm_server.fail(status, times=times, message=echo)
        with pytest.raises(ProviderUnavailableError) as caught:
            predict(make("openai", settings(llm_server, api_key_env="EDITPRED_TEST_KEY", retries=3)))
        assert "invalid key Bearer [REDACTED]" in caught.value.reason
        assert KEY not in _everything_about(caught.value)

    llm_server.malformed()
    with pytest.raises(PredictionError) as malformed:
        predict(make("openai", settings(llm_server, api_key_env="EDITPRED_TEST_KEY")))
    assert KEY not in _everything_about(malformed.value)


def test_the_key_variable_must_be_set(llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDITPRED_TEST_KEY", raising=False)
    with pytest.raises(ConfigError, match="EDITPRED_TEST_KEY is not set"):
        make("openai", settings(llm_server, api_key_env="EDITPRED_TEST_KEY"))
    monkeypatch.setenv("EDITPRED_TEST_KEY", KEY)
    completion = make("openai", settings(llm_server, api_key_env="EDITPRED_TEST_KEY"))
    monkeypatch.delenv("EDITPRED_TEST_KEY")  # read again at request time
    with pytest.raises(ConfigError, match="EDITPRED_TEST_KEY is not set"):
        predict(completion)
    assert llm_server.requests == []


# -- configuration -----------------------------------------------------------------


@pytest.mark.parametrize(
    "provider, changes, message",
    [
        ("openai", {"base_url": None}, "needs a base URL"),
        ("openai", {"base_url": "ftp://host"}, r"not an http\(s\) URL"),
        ("openai", {"model": None}, "needs a model name"),
        ("openai-chat", {"model": ""}, "needs a model name"),
        ("mistral-fim", {"model": None}, "needs a model name"),
        ("openai", {"prompt_format": "sweeper"}, "`sweeper` did not match any of:\n- V0112MiddleAtEnd\n"),
        ("openai", {"prompt_format": "seed"}, "`seed` matched more than one of:"),
        ("openai", {"cache_mode": "sometimes"}, "unknown cache mode"),
        ("openai", {"cache_mode": "replay-only"}, "needs a cache directory"),
    ],
)
def test_bad_settings_are_config_errors(provider: str, changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make(provider, settings("http://127.0.0.1:9", **changes))


def test_urls() -> None:
    assert endpoint_url("http://h:1", "/v1/completions") == "http://h:1/v1/completions"
    assert endpoint_url("http://h:1/v1/", "/v1/completions") == "http://h:1/v1/completions"
    assert endpoint_url("http://h:1/v1/completions", "/v1/completions") == "http://h:1/v1/completions"
    assert endpoint_url("http://h:1/v1", "/infill") == "http://h:1/infill"
    assert safe_url("https://user:pw@h:8/v1/x?key=s#f") == "https://h:8/v1/x"


# -- replay ------------------------------------------------------------------------

PATCH = f"--- a/{PATH}\n+++ b/{PATH}\n@@ -7,1 +7,1 @@\n-    hello(sys.argv[1])\n+    greet(sys.argv[1])\n"


def write_jsonl(path: Path, *records: Any) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def replay(path: Path) -> Callable[[PredictionRequest], Any]:
    return get_provider("replay")(Settings(provider="replay", replay_path=path))


def test_replay_report_records_by_name_and_trial(tmp_path: Path) -> None:
    file = write_jsonl(
        tmp_path / "run.jsonl",
        {"name": "rename", "trial": 1, "predicted_patch": PATCH, "predicted_cursor": NEW_CURSOR, "model": "zeta"},
        "",
        {"name": "rename", "trial": 2, "predicted_text": NEW_TEXT, "predicted_cursor": None, "score": 1.0},
    )
    completion = replay(file)
    first = predict(completion, request(trial=1))
    assert (first.patch, first.text, first.cursor, first.model) == (PATCH, None, NEW_CURSOR, "zeta")
    second = predict(completion, request(trial=2))
    assert (second.patch, second.text, second.cursor, second.model) == (None, NEW_TEXT, None, "replay")
    third = predict(completion, request(trial=3))  # no trial 3: the name's last record
    assert third.text == NEW_TEXT


def test_replay_simple_form(tmp_path: Path) -> None:
    file = write_jsonl(
        tmp_path / "simple.jsonl",
        {"name": "rename", "patch": "stale"},
        {"name": "rename", "patch": PATCH, "cursor": {"offset": 7}},
        {"name": "other", "patch": PATCH},
    )
    prediction = predict(replay(file))
    assert (prediction.patch, prediction.cursor) == (PATCH, 7)  # a later line wins
    assert prediction.extra["replay"].endswith("simple.jsonl:2")
    assert predict(replay(file), request(name="other")).cursor is None


def test_replay_missing_name_is_a_missing_answer(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "r.jsonl", {"name": "other", "patch": PATCH})
    with pytest.raises(MissingAnswerError, match="has no answer for 'rename'"):  # an ERROR, not FAILED
        predict(replay(file))


def test_replay_recorded_error_fails_the_item(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "r.jsonl", {"name": "rename", "trial": 1, "error": "timeout"})
    with pytest.raises(PredictionError, match="recorded an error"):
        predict(replay(file))


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", r"r.jsonl:1: not JSON"),
        ('["name"]', "string 'name'"),
        ('{"name": "x", "patch": "p", "text": "t"}', "not both"),
        ('{"name": "x", "cursor": -1}', "not a character offset"),
        ('{"name": "x", "trial": "1"}', "'trial' must be an integer"),
    ],
)
def test_replay_bad_files_are_config_errors(tmp_path: Path, line: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        replay(write_jsonl(tmp_path / "r.jsonl", line))


def test_replay_needs_a_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a replay file"):
        get_provider("replay")(Settings(provider="replay"))
    with pytest.raises(ConfigError, match="cannot read the replay file"):
        replay(tmp_path / "missing.jsonl")
