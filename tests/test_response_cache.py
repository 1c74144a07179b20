"""The response cache: its key, its modes, damaged files, concurrent writers."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401  (the llm_server fixture)

from pytest_editpred import (
    ConfigError,
    Cursor,
    Example,
    MissingAnswerError,
    Prediction,
    PredictionError,
    PredictionRequest,
    ProviderUnavailableError,
    Settings,
)
from pytest_editpred.providers import get_provider
from pytest_editpred.providers.transport import Backoff
from pytest_editpred.providers.transport._cache import ResponseCache, cache_key

PATH = "a.py"
TEXT = "x = 1\ny = 2\n"
ANSWER = "x = 1\ny = 3<|user_cursor|>\n>>>>>>> UPDATED\n"
NEW_TEXT = "x = 1\ny = 3\n"
KEY = "sk-secret-123"


def request(trial: int = 1) -> PredictionRequest:
    example = Example(
        name="bump", repository_url="https://github.com/o/r", revision="abc", cursor_path=PATH, cursor_position=""
    )
    return PredictionRequest(example, {PATH: TEXT}, Cursor.at(PATH, TEXT, TEXT.index("2")), trial=trial)


def provider(server: LLMServer | str, cache_dir: Path | None, mode: str, **changes: Any) -> Any:
    changes.setdefault("prompt_format", "zeta2")
    config = Settings(
        provider="openai",
        base_url=server if isinstance(server, str) else server.url,
        model="zeta2",
        cache_mode=mode,
        cache_dir=cache_dir,
        timeout=2.0,
        retries=2,
        **changes,
    )
    factory: Any = get_provider("openai")  # the built-in factories take test-only keywords
    return factory(config, backoff=Backoff(base=0.01, jitter=0.0))


def predict(completion: Any, trial: int = 1) -> Prediction:
    return asyncio.run(completion(request(trial)))  # type: ignore[no-any-return]


def files(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if path.is_file())


@pytest.fixture
def server(llm_server: LLMServer) -> Iterator[LLMServer]:
    llm_server.answer(ANSWER)
    yield llm_server


# -- the key -----------------------------------------------------------------------

BODY = {"model": "m", "prompt": "p", "max_tokens": 10, "temperature": 0.0}
IDENTITY: dict[str, Any] = dict(
    provider="openai", model="m", base_url="http://h:1", endpoint="/v1/completions", body=BODY, trial=1
)


def test_key_is_sha256_of_what_decides_the_answer() -> None:
    key = cache_key(**IDENTITY)
    assert len(key) == 64 and int(key, 16) >= 0
    assert key == cache_key(**{**IDENTITY, "base_url": "http://h:1/", "body": dict(reversed(BODY.items()))})
    for change in (
        {"provider": "openai-chat"},
        {"model": "n"},
        {"base_url": "http://h:2"},
        {"endpoint": "/infill"},
        {"body": {**BODY, "prompt": "q"}},
        {"body": {**BODY, "temperature": 0.7}},
        {"trial": 2},
    ):
        assert cache_key(**{**IDENTITY, **change}) != key, change


def test_key_and_files_ignore_the_api_key(server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDITPRED_TEST_KEY", KEY)
    predict(provider(server, tmp_path, "readwrite", api_key_env="EDITPRED_TEST_KEY"))
    monkeypatch.setenv("EDITPRED_TEST_KEY", "sk-another-456")
    again = predict(provider(server, tmp_path, "readwrite", api_key_env="EDITPRED_TEST_KEY"))
    assert again.cached and len(server.requests) == 1
    (only,) = files(tmp_path)
    assert KEY not in only.read_text() and "sk-another" not in only.read_text()


# -- modes -------------------------------------------------------------------------


def test_readwrite_stores_then_answers_from_the_cache(server: LLMServer, tmp_path: Path) -> None:
    completion = provider(server, tmp_path, "readwrite")
    first = predict(completion)
    assert not first.cached and len(first.attempts) == 1
    (stored,) = files(tmp_path)
    record = json.loads(stored.read_text())
    key = completion.__self__.endpoint.key(server.requests[0].body, 1)
    assert stored == tmp_path / key[:2] / f"{key}.json"
    assert record["key"] == key and record["provider"] == "openai" and record["trial"] == 1
    assert record["base_url"] == server.url and record["endpoint"] == "/v1/completions"
    assert record["request"] == server.requests[0].body
    assert json.loads(record["response"])["choices"][0]["text"] == ANSWER

    second = predict(provider(server, tmp_path, "readwrite"))
    assert len(server.requests) == 1
    assert second.cached and second.attempts == ()
    assert (second.text, second.cursor, second.raw_output) == (first.text, first.cursor, first.raw_output)
    assert second.text == NEW_TEXT and second.latency == pytest.approx(first.latency)


def test_trials_are_cached_apart(server: LLMServer, tmp_path: Path) -> None:
    completion = provider(server, tmp_path, "readwrite")
    predict(completion, trial=1)
    predict(completion, trial=2)
    assert len(server.requests) == 2 and len(files(tmp_path)) == 2
    assert predict(completion, trial=2).cached


def test_read_uses_hits_and_never_writes(server: LLMServer, tmp_path: Path) -> None:
    predict(provider(server, tmp_path, "readwrite"))
    completion = provider(server, tmp_path, "read")
    assert predict(completion).cached
    miss = predict(completion, trial=2)
    assert not miss.cached and len(server.requests) == 2
    assert len(files(tmp_path)) == 1


def test_write_always_asks_and_stores(server: LLMServer, tmp_path: Path) -> None:
    completion = provider(server, tmp_path, "write")
    predict(completion)
    server.answer(ANSWER.replace("3", "4"))
    latest = predict(completion)
    assert not latest.cached and len(server.requests) == 2
    (stored,) = files(tmp_path)
    assert "y = 4" in stored.read_text()


def test_off_never_touches_the_disk(server: LLMServer, tmp_path: Path) -> None:
    completion = provider(server, tmp_path, "off")
    predict(completion)
    predict(completion)
    assert len(server.requests) == 2 and files(tmp_path) == []


def test_no_cache_dir_means_no_cache(server: LLMServer) -> None:
    assert ResponseCache(None, "readwrite").mode == "off"
    completion = provider(server, None, "readwrite")
    predict(completion)
    assert not predict(completion).cached


def test_replay_only_needs_no_server_and_fails_on_a_miss(tmp_path: Path) -> None:
    recording = LLMServer.start()
    try:
        recording.answer(ANSWER)
        predict(provider(recording, tmp_path, "readwrite"))
        url = recording.url
    finally:
        recording.close()
    completion = provider(url, tmp_path, "replay-only", api_key_env="EDITPRED_UNSET_VARIABLE")
    assert predict(completion).text == NEW_TEXT
    with pytest.raises(MissingAnswerError, match="not in the response cache") as caught:
        predict(completion, trial=2)
    assert "replay-only" in caught.value.reason


def test_replay_only_sends_nothing(server: LLMServer, tmp_path: Path) -> None:
    with pytest.raises(MissingAnswerError, match="not in the response cache"):
        predict(provider(server, tmp_path, "replay-only"))
    assert server.requests == [] and files(tmp_path) == []


def test_mode_flags() -> None:
    table = {
        mode: (c.reads, c.writes, c.replay_only)
        for mode in ("off", "read", "write", "readwrite", "replay-only")
        for c in [ResponseCache(Path("x"), mode)]
    }
    assert table == {
        "off": (False, False, False),
        "read": (True, False, False),
        "write": (False, True, False),
        "readwrite": (True, True, False),
        "replay-only": (True, False, True),
    }
    with pytest.raises(ConfigError):
        ResponseCache(Path("x"), "always")


# -- what is (not) stored ----------------------------------------------------------


def test_failures_are_not_stored(server: LLMServer, tmp_path: Path) -> None:
    server.fail(503, times=2)
    with pytest.raises(ProviderUnavailableError):
        predict(provider(server, tmp_path, "readwrite"))
    server.malformed()
    with pytest.raises(PredictionError):
        predict(provider(server, tmp_path, "readwrite"))
    assert files(tmp_path) == []


def test_an_unusable_answer_is_stored_and_fails_the_same_way_again(server: LLMServer, tmp_path: Path) -> None:
    server.answer("garbage", finish_reason="length")  # Zeta 2.1 needs marker tags
    for _ in range(2):
        with pytest.raises(PredictionError, match="no marker tags found in output .*cut the answer off"):
            predict(provider(server, tmp_path, "readwrite", prompt_format="zeta2.1"))
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "damage",
    [
        "{ not json",
        json.dumps(["a list"]),
        json.dumps({"key": "another", "response": "{}"}),
        "KEY:" + json.dumps({"response": '{"choices": []}'}),  # the right key, an unusable body
        "\udcff",
    ],
    ids=["not-json", "not-an-object", "wrong-key", "bad-envelope", "bad-utf8"],
)
def test_damaged_files_are_misses_and_rewritten(server: LLMServer, tmp_path: Path, damage: str) -> None:
    completion = provider(server, tmp_path, "readwrite")
    predict(completion)
    (stored,) = files(tmp_path)
    key = stored.stem
    if damage.startswith("KEY:"):
        damage = json.dumps({**json.loads(damage[4:]), "key": key})
    stored.write_bytes(damage.encode("utf-8", "surrogateescape"))

    read_only = predict(provider(server, tmp_path, "read"))
    assert not read_only.cached and len(server.requests) == 2
    assert stored.read_bytes() == damage.encode("utf-8", "surrogateescape")  # read never writes

    rewritten = predict(completion)
    assert not rewritten.cached and len(server.requests) == 3
    assert json.loads(stored.read_text())["key"] == key
    assert predict(completion).cached


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, "readwrite")
    key = cache_key(**IDENTITY)
    path = cache.put(key, response_text='{"ok": true}', latency=0.5, metadata={"provider": "openai"})
    assert path == tmp_path / key[:2] / f"{key}.json"
    assert files(tmp_path) == [path]
    hit = cache.get(key)
    assert hit is not None and hit.data == {"ok": True} and hit.latency == 0.5


def _hammer(directory: str, key: str, writer: int) -> int:
    """Write and read one key many times; count the reads that saw a damaged file."""
    cache = ResponseCache(Path(directory), "readwrite")
    damaged = 0
    body = json.dumps({"writer": writer, "padding": "x" * 20_000})
    for _ in range(40):
        cache.put(key, response_text=body, latency=0.1, metadata={"writer": writer})
        hit = cache.get(key)
        if hit is None or set(hit.data) != {"writer", "padding"}:
            damaged += 1
    return damaged


def test_concurrent_processes_never_see_a_half_written_file(tmp_path: Path) -> None:
    key = cache_key(**IDENTITY)
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(max_workers=4, mp_context=context) as pool:
        damaged = list(pool.map(_hammer, [str(tmp_path)] * 4, [key] * 4, range(4)))
    assert damaged == [0, 0, 0, 0]
    assert [path.name for path in files(tmp_path)] == [f"{key}.json"]
