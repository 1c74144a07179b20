"""The ``anthropic`` provider (and ``openai-chat`` on the teacher prompt) against a
real loopback server speaking the Messages API (tests/llm_server.py).

The server answers from the prompt it received: it reads the region (or the marker
tags, for teacher-jumps) out of the request body, so the test checks the prompt
really carries what the parse reads back.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import socket
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest
from greet_sample import TEXT, request
from llm_server import LLMServer, Recorded, llm_server_fixture  # noqa: F401  (the llm_server fixture)

from conftest import SUB, Project
from pytest_editpred import (
    ConfigError,
    Prediction,
    PredictionError,
    ProviderUnavailableError,
    Settings,
)
from pytest_editpred.providers import get_provider
from pytest_editpred.providers._anthropic import ANTHROPIC_VERSION, AnthropicMessages
from pytest_editpred.providers.transport import Backoff
from pytest_editpred.zeta import build_input, format_teacher_prompt

KEY = "sk-ant-secret-7777-do-not-print"
FAST = Backoff(base=0.01, factor=2.0, cap=0.05, jitter=0.0, retry_after_cap=5.0)
F = "`````"
START, END = "<|editable_region_start|>\n", "\n<|editable_region_end|>"


def prompt_of(recorded: Recorded) -> str:
    return recorded.body["messages"][-1]["content"]


def rewrite(old: str, new: str) -> Callable[[Recorded], str]:
    """A teacher answer: the prompt's region with ``old`` replaced by ``new``."""

    def reply(recorded: Recorded) -> str:
        prompt = prompt_of(recorded)
        region = prompt[prompt.rindex(START) + len(START) : prompt.rindex(END)]
        assert old in region, region
        return f"Finishing the change.\n\n{F}\n{START}{region.replace(old, new)}{END}\n{F}\n"

    return reply


# -- the provider on its own -------------------------------------------------------


def settings(server: LLMServer | str, **changes: Any) -> Settings:
    base: dict[str, Any] = dict(
        provider="anthropic",
        base_url=server if isinstance(server, str) else server.url,
        model="claude-test",
        api_key_env="EDITPRED_ANTHROPIC_KEY",
        cache_mode="off",
        timeout=2.0,
        retries=3,
        max_tokens=512,
    )
    base.update(changes)
    return Settings(**base)


def predict(config: Settings, name: str = "anthropic") -> Prediction:
    completion = get_provider(name)(config, backoff=FAST)  # type: ignore[call-arg]
    result = completion(request())
    if inspect.isawaitable(result):
        result = asyncio.run(_wait(result))
    assert isinstance(result, Prediction)
    return result


async def _wait(awaitable: Any) -> Any:
    return await awaitable


RENAMED = TEXT.replace("hello(sys", "greet(sys")


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("EDITPRED_ANTHROPIC_KEY", KEY)
    return KEY


def test_messages_request_headers_body_and_answer(llm_server: LLMServer, key: str) -> None:
    llm_server.require_headers = {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
    llm_server.answer(rewrite("<|user_cursor|>hello(sys", "greet<|user_cursor|>(sys"))
    prediction = predict(settings(llm_server, temperature=0.3, stop=("STOP",)))
    (seen,) = llm_server.requests
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == key and seen.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in seen.headers  # Anthropic takes no Bearer token
    expected_prompt = format_teacher_prompt(build_input(request()))
    assert "+def greet(name):" in expected_prompt  # no raw Edit History: the events are shown
    assert seen.body == {
        "model": "claude-test",
        "max_tokens": 512,
        "messages": [{"role": "user", "content": expected_prompt}],
        "temperature": 0.3,
        "stop_sequences": ["STOP"],
    }
    assert prediction.text == RENAMED and prediction.cursor == RENAMED.index("(sys")
    assert prediction.usage == {
        "input_tokens": len(seen.raw) // 4,
        "output_tokens": len(prediction.raw_output or "") // 4,
    }
    assert prediction.extra["provider"] == "anthropic" and prediction.extra["finish_reason"] == "stop"
    assert prediction.extra["prompt"] == expected_prompt


def test_reply_text_joins_the_text_blocks_only(key: str) -> None:
    provider = AnthropicMessages(settings("http://127.0.0.1:9"))
    reply = provider.extract(
        {
            "content": [
                {"type": "thinking", "thinking": "hm"},
                {"type": "text", "text": "a"},
                {"type": "text", "text": "b"},
            ],
            "stop_reason": "max_tokens",
            "usage": {"input_tokens": 3, "output_tokens": 2, "x": "no"},
            "model": "m",
        }
    )
    assert reply.text == "ab" and reply.truncated and reply.usage == {"input_tokens": 3, "output_tokens": 2}
    with pytest.raises(PredictionError, match="has no content list"):
        provider.extract({"type": "message"})


def test_no_edits_and_a_malformed_or_truncated_answer(llm_server: LLMServer, key: str) -> None:
    llm_server.answer(f"The change is complete.\n\n{F}\nNO_EDITS\n{F}\n")
    assert predict(settings(llm_server)).text is None
    llm_server.answer("I would rename the call.")  # no region markers, no NO_EDITS
    with pytest.raises(PredictionError, match="editable_region_start") as error:
        predict(settings(llm_server))
    assert error.value.raw_output == "I would rename the call."  # type: ignore[attr-defined]
    llm_server.answer(f"Renaming.\n\n{F}\n{START}import sys\n", finish_reason="length")
    with pytest.raises(PredictionError, match="cut off by max_tokens"):
        predict(settings(llm_server))


def test_overloaded_529_is_retried_and_401_is_not(llm_server: LLMServer, key: str) -> None:
    llm_server.answer(rewrite("<|user_cursor|>hello(sys", "greet<|user_cursor|>(sys"))
    llm_server.fail(529, message="Overloaded")
    prediction = predict(settings(llm_server))
    assert [a.error for a in prediction.attempts] == ["http-529", None] and prediction.text == RENAMED
    llm_server.require_headers = {"x-api-key": "another key"}
    with pytest.raises(ProviderUnavailableError, match="HTTP 401") as error:
        predict(settings(llm_server))
    assert len(error.value.attempts) == 1 and KEY not in str(error.value)  # type: ignore[attr-defined]


def test_prompt_format_choices(key: str) -> None:
    assert AnthropicMessages(settings("http://127.0.0.1:9")).prompt_name == "teacher"
    assert (
        AnthropicMessages(settings("http://127.0.0.1:9", prompt_format="teacher-jumps")).prompt_name == "teacher-jumps"
    )
    with pytest.raises(ConfigError, match="does not speak the prompt format 'zeta2'"):
        AnthropicMessages(settings("http://127.0.0.1:9", prompt_format="zeta2"))
    with pytest.raises(ConfigError, match="needs a model"):
        AnthropicMessages(settings("http://127.0.0.1:9", model=None))


def test_teacher_jumps_answer_in_marker_spans(llm_server: LLMServer, key: str) -> None:
    def reply(recorded: Recorded) -> str:
        prompt = prompt_of(recorded)
        current = prompt[prompt.rindex("# 3. Current File") :]
        tags = re.findall(r"<\|marker_[A-Za-z0-9_-]{4}\|>", current)
        body = current[current.index(tags[0]) + len(tags[0]) + 1 : current.index(tags[-1])]
        new = body.replace("<|user_cursor|>hello(sys", "greet<|user_cursor|>(sys")
        return f"Rename the call.\n\n{F}\n{tags[0]}\n{new}{tags[-1]}\n{F}\n"

    llm_server.answer(reply)
    prediction = predict(settings(llm_server, prompt_format="teacher-jumps"))
    assert "predict the user's next edits as a sequence of marker-bounded spans." in prompt_of(llm_server.requests[0])
    assert prediction.text == RENAMED and prediction.cursor == RENAMED.index("(sys")


def test_openai_chat_speaks_the_teacher_prompt_when_asked(llm_server: LLMServer) -> None:
    llm_server.answer(rewrite("<|user_cursor|>hello(sys", "greet<|user_cursor|>(sys"))
    config = settings(llm_server, provider="openai-chat", api_key_env=None, prompt_format="teacher")
    prediction = predict(config, "openai-chat")
    (seen,) = llm_server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.body["messages"] == [{"role": "user", "content": format_teacher_prompt(build_input(request()))}]
    assert prediction.text == RENAMED
    # Left at its default, openai-chat keeps its own prompt.
    predict(settings(llm_server, provider="openai-chat", api_key_env=None), "openai-chat")
    assert llm_server.requests[1].body["messages"][0]["role"] == "system"


# -- through the plugin, plainly and under -n 2 -----------------------------------

SUB_OLD = "def sub(a, b):<|user_cursor|>"
SUB_RIGHT = "def sub(a, b):\n    return a - b<|user_cursor|>"
SUB_WRONG = "def sub(a, b):\n    return a * b<|user_cursor|>"


def args(server: LLMServer | str, *extra: str) -> list[str]:
    url = server if isinstance(server, str) else server.url
    return [
        "evals",
        "--editpred-provider=anthropic",
        f"--editpred-base-url={url}",
        "--editpred-model=claude-test",
        "--editpred-api-key-env=EDITPRED_ANTHROPIC_KEY",
        "--editpred-no-retrieval",  # the teacher prompt with the recent files (retrieval: test_retrieval_run)
        *extra,
    ]


def properties(xml_path: Any) -> dict[str, dict[str, str]]:
    root = ET.parse(xml_path).getroot()
    return {
        case.get("name") or "": {p.get("name") or "": p.get("value") or "" for p in case.iter("property")}
        for case in root.iter("testcase")
    }


@pytest.fixture
def anthropic_server(llm_server: LLMServer, key: str) -> LLMServer:
    llm_server.require_headers = {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
    return llm_server


def test_plugin_right_passes_wrong_fails(project: Project, anthropic_server: LLMServer, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    anthropic_server.answer(rewrite(SUB_OLD, SUB_RIGHT))
    result = project.pytester.runpytest(*args(anthropic_server, "--editpred-cache=off"), *plugin_args)
    result.assert_outcomes(passed=1)
    anthropic_server.answer(rewrite(SUB_OLD, SUB_WRONG))
    result = project.pytester.runpytest(*args(anthropic_server, "--editpred-cache=off"), *plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*matches none of the 1 expected patch*"])
    assert all(
        r.headers.get("x-api-key") == KEY and "authorization" not in r.headers for r in anthropic_server.requests
    )


def test_plugin_401_and_unreachable_are_errors(
    project: Project, anthropic_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    anthropic_server.require_headers = {"x-api-key": "the right key"}
    result = project.pytester.runpytest(*args(anthropic_server, "--editpred-cache=off", "-rA"), *plugin_args)
    result.assert_outcomes(errors=1)
    assert KEY not in result.stdout.str() + result.stderr.str()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    result = project.pytester.runpytest(*args(closed, "--editpred-cache=off", "--editpred-retries=2"), *plugin_args)
    result.assert_outcomes(errors=1)


def test_plugin_truncated_answer_fails(project: Project, anthropic_server: LLMServer, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    anthropic_server.answer(rewrite(SUB_OLD, SUB_RIGHT), finish_reason="length")
    result = project.pytester.runpytest(*args(anthropic_server, "--editpred-cache=off"), *plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cut off by max_tokens*"])


def test_plugin_retries_529_and_records_both_attempts(
    project: Project, anthropic_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    anthropic_server.answer(rewrite(SUB_OLD, SUB_RIGHT))
    anthropic_server.fail(529, message="Overloaded")
    xml = project.pytester.path / "j.xml"
    result = project.pytester.runpytest(
        *args(anthropic_server, f"--junitxml={xml}", "--editpred-cache=off"), *plugin_args
    )
    result.assert_outcomes(passed=1)
    props = properties(xml)["calc--sub"]
    assert props["editpred_attempt_1"].startswith("http-529") and props["editpred_attempt_2"].startswith("ok")


def test_plugin_cache_replays(project: Project, anthropic_server: LLMServer, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    anthropic_server.answer(rewrite(SUB_OLD, SUB_RIGHT))
    project.pytester.runpytest(*args(anthropic_server), *plugin_args).assert_outcomes(passed=1)
    assert len(anthropic_server.requests) == 1
    anthropic_server.answer(rewrite(SUB_OLD, SUB_WRONG))
    replay = project.pytester.runpytest(*args(anthropic_server, "--editpred-cache=replay-only"), *plugin_args)
    replay.assert_outcomes(passed=1)  # from the cache: the server is not asked
    assert len(anthropic_server.requests) == 1
    for path in project.pytester.path.rglob("*"):
        if path.is_file() and "upstream" not in path.parts:
            assert KEY.encode() not in path.read_bytes(), path


def test_plugin_teacher_jumps_report_records_the_prompt(
    project: Project, anthropic_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)

    def reply(recorded: Recorded) -> str:
        prompt = prompt_of(recorded)
        current = prompt[prompt.rindex("# 3. Current File") :]
        tags = re.findall(r"<\|marker_[A-Za-z0-9_-]{4}\|>", current)
        body = current[current.index(tags[0]) + len(tags[0]) + 1 : current.index(tags[-1])]
        return f"{F}\n{tags[0]}\n{body.replace(SUB_OLD, SUB_RIGHT)}{tags[-1]}\n{F}\n"

    anthropic_server.answer(reply)
    report = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(
        *args(
            anthropic_server,
            "--editpred-prompt-format=teacher-jumps",
            f"--editpred-report={report}",
            "--editpred-cache=off",
        ),
        *plugin_args,
    )
    result.assert_outcomes(passed=1)
    [record] = [json.loads(line) for line in report.read_text().splitlines()]
    assert record["provider"] == "anthropic" and record["outcome"] == "passed"
