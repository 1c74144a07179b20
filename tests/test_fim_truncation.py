"""A prompt the server cut is a note of the item, never judged as if seen whole.

llama.cpp's ``/infill`` cut 12,026 + 13,386 characters of prefix and suffix to 2,059
tokens without an error; Ollama cuts to its ``num_ctx``. Where the server says how
much it read (llama.cpp's ``tokens_evaluated`` and ``truncated``, OpenAI's
``usage.prompt_tokens``), a cut prompt is a note: in the record (JSONL, JUnit) and
in the failure message. A real loopback server (tests/llm_server.py) plays the
server, ``cut_prompts`` its cut.
"""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from gitrepos import add_commit
from greet_sample import request
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import CALC, SUB, Project
from pytest_editpred import Prediction, Settings
from pytest_editpred.providers import get_provider
from pytest_editpred.providers._base import CUT_MIN_TOKENS, CUT_SHARE, prompt_cut_note

RIGHT = "\n    return a - b"
WRONG = "\n    return a * b"
#: 200 lines of 75 bytes above calc.py's functions: a prompt of about 5,000 tokens.
PADDING = "".join(f'CONSTANT_{i:03d} = "{"x" * 48}"  # padding\n' for i in range(200))


def big_project(project: Project) -> Project:
    project.rev = add_commit(project.repo, {"calc.py": PADDING + CALC}, "padding")
    return project


def run(project: Project, server: LLMServer, *extra: str) -> tuple[pytest.RunResult, dict[str, Any], dict[str, str]]:
    report = project.pytester.path / "r.jsonl"
    xml = project.pytester.path / "j.xml"
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=llamacpp-infill",
        f"--editpred-base-url={server.url}",
        "--editpred-cache=off",
        f"--editpred-report={report}",
        f"--junitxml={xml}",
        *extra,
    )
    (record,) = [json.loads(line) for line in report.read_text(encoding="utf-8").split("\n") if line]
    (case,) = ET.parse(xml).getroot().iter("testcase")
    notes = [p.get("value") or "" for p in case.iter("property") if p.get("name") == "editpred_note"]
    return result, record, {"notes": "\n".join(notes)}


@pytest.mark.xdist
def test_a_prompt_cut_without_a_word_is_a_note_of_the_item(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    big_project(project).example("calc--sub", SUB)
    llm_server.cut_prompts(1500)  # like llama.cpp's /infill: truncated stays false
    llm_server.answer(WRONG)
    result, record, junit = run(project, llm_server, *plugin_args)
    result.assert_outcomes(failed=1)
    (seen,) = llm_server.requests
    size = len((seen.body["input_prefix"] + seen.body["input_suffix"]).encode())
    note = (
        f"the server read 1,500 prompt tokens of a prompt of about {-(-size // 3):,} tokens by Zed's estimate "
        f"({size:,} bytes / 3): it cut the prompt without saying so, and the model answered without part of "
        "what the prompt shows; llama.cpp's /infill keeps about its batch size (--batch-size, default 2048) of "
        "prefix and suffix, and its context (--ctx-size): raise both"
    )
    assert size > 12_000
    assert record["notes"][0] == note and record["usage"]["prompt_tokens"] == 1500
    assert junit["notes"].split("\n")[0] == note
    assert result.stdout.str().count(f"note: {note}") == 1  # in the failure message, once
    # A right answer passes: the note does not judge, it says what the model saw.
    llm_server.answer(RIGHT)
    result, record, _ = run(project, llm_server, *plugin_args)
    result.assert_outcomes(passed=1)
    assert record["outcome"] == "passed" and record["notes"] == [note]


def test_truncated_true_is_a_note_whatever_the_count(project: Project, llm_server: LLMServer) -> None:
    project.example("calc--sub", SUB)
    llm_server.cut_prompts(None, truncated=True)
    llm_server.answer(WRONG)
    result, record, _ = run(project, llm_server)
    result.assert_outcomes(failed=1)
    (note,) = record["notes"]
    assert note.startswith(
        f"the server says it truncated the prompt (truncated: true): it read {record['usage']['prompt_tokens']:,} "
        "tokens of a prompt of about "
    )
    assert "note: the server says it truncated the prompt" in result.stdout.str()


@pytest.mark.parametrize(
    ("cap", "truncated"),
    [
        (None, None),  # the server as it always was: no field, every token read
        (None, False),  # llama.cpp saying it did not cut, and reading it all
        (30, False),  # a small prompt read short by fewer than CUT_MIN_TOKENS: noise, not a cut
    ],
)
def test_no_note_when_nothing_shows_a_cut(
    project: Project, llm_server: LLMServer, cap: int | None, truncated: bool | None
) -> None:
    project.example("calc--sub", SUB)
    llm_server.cut_prompts(cap, truncated=truncated)
    llm_server.answer(RIGHT)
    result, record, junit = run(project, llm_server)
    result.assert_outcomes(passed=1)
    assert record["notes"] == [] and junit["notes"] == ""


def test_an_openai_style_server_cutting_is_seen_through_usage(llm_server: LLMServer) -> None:
    """mistral-fim reads ``usage.prompt_tokens``, as every OpenAI-style provider does
    (Ollama's /v1 endpoints cut to num_ctx and report what they read)."""
    text = PADDING + "def f():\n    pass\n"
    req = request(text=text, offset=text.index("pass"))
    settings = Settings(
        provider="mistral-fim", base_url=llm_server.url, model="codestral", cache_mode="off", timeout=5.0
    )
    complete = get_provider("mistral-fim")(settings)
    llm_server.answer("return 1")
    whole = asyncio.run(complete(req))
    assert isinstance(whole, Prediction) and "notes" not in whole.extra
    llm_server.cut_prompts(1000)
    cut = asyncio.run(complete(req))
    (note,) = cut.extra["notes"]
    assert note.startswith("the server read 1,000 prompt tokens of a prompt of about ")
    assert note.endswith("raise the server's context size (Ollama: num_ctx; llama.cpp: --ctx-size)")


def test_the_rule_at_its_bounds() -> None:
    prompt = {"input_prefix": "x" * 2_400, "input_suffix": "é" * 300}  # 3,000 bytes: about 1,000 tokens
    assert CUT_SHARE * 1000 == 400 and CUT_MIN_TOKENS == 256
    assert prompt_cut_note(prompt, 400, False, "fix") is None  # 40% read: tokenization, maybe
    assert prompt_cut_note(prompt, 399, False, "fix") == (
        "the server read 399 prompt tokens of a prompt of about 1,000 tokens by Zed's estimate "
        "(3,000 bytes / 3): it cut the prompt without saying so, and the model answered without part of what "
        "the prompt shows; fix"
    )
    assert prompt_cut_note("x" * 600, 10, False, "fix") is None  # 200 tokens: too few to tell
    assert prompt_cut_note("x" * 600, None, True, "fix") == (
        "the server says it truncated the prompt (truncated: true): it cut a prompt of about 200 tokens by "
        "Zed's estimate (600 bytes / 3), so the model answered without part of what the prompt shows; fix"
    )
    messages = [{"role": "user", "content": "x" * 3_000}]  # chat messages count by their texts
    assert prompt_cut_note(messages, 100, False, "fix") is not None
    assert prompt_cut_note(messages, 2_000, False, "fix") is None  # more than estimated: templates, fine
