"""The prompt, the attempts, the usage and the raw answer are recorded for every item
that sent a request, whatever happened next (issue 24, "the prompt is lost exactly
when it matters"). A real loopback server plays llama.cpp's server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project


def openai_args(server: LLMServer, *extra: str) -> list[str]:
    return [
        "evals",
        "-p",
        "no:cacheprovider",
        "--editpred-provider=openai",
        f"--editpred-base-url={server.url}",
        "--editpred-model=tiny",
        "--editpred-prompt-format=zeta2.1",
        "--editpred-cache=off",
        "--editpred-report=out.jsonl",
        "--junitxml=junit.xml",
        *extra,
    ]


def record(project: Project) -> dict[str, Any]:
    [line] = (project.pytester.path / "out.jsonl").read_text().splitlines()
    data: dict[str, Any] = json.loads(line)
    return data


def junit(project: Project) -> dict[str, str]:
    root = ET.parse(Path(project.pytester.path / "junit.xml")).getroot()
    return {p.get("name") or "": p.get("value") or "" for p in root.iter("property")}


def test_an_answer_its_format_cannot_parse_keeps_the_prompt(project: Project, llm_server: LLMServer) -> None:
    # zeta2.1 wants marker tags; the model answers prose: FAILED, and the record
    # still holds what was sent and what came back.
    project.example("calc--sub", SUB)
    llm_server.answer("I think you should add a return statement.")
    result = project.pytester.runpytest(*openai_args(llm_server))
    result.assert_outcomes(failed=1)
    data = record(project)
    assert "no marker tags found in output" in (data["reason"] or "")
    assert isinstance(data["prompt"], str) and "def sub(a, b):" in data["prompt"]
    assert data["raw_output"] == "I think you should add a return statement."
    assert [a["error"] for a in data["attempts"]] == [None]
    assert data["usage"]  # the loopback server reports token counts
    assert "editpred_attempt_1" in junit(project)
    # The viewer's data still holds the expected edit, against no prediction.
    expected = data["diff"]["expected"]
    assert any(line == ["+", "    return a - b"] for hunk in expected["hunks"] for line in hunk["lines"])
    out = result.stdout.str()
    assert "editpred prompt" in out and "editpred raw output" in out


def test_a_request_the_server_refuses_keeps_the_prompt_and_says_why(project: Project, llm_server: LLMServer) -> None:
    # llama.cpp's answer to a prompt longer than its context: an ERROR whose record
    # holds the prompt, and whose fix says what to do about the context.
    project.example("calc--sub", SUB)
    llm_server.fail(400, message="request (4974 tokens) exceeds the available context size (4096 tokens)", times=1)
    result = project.pytester.runpytest(*openai_args(llm_server))
    result.assert_outcomes(errors=1)
    data = record(project)
    assert data["outcome"] == "error"
    assert isinstance(data["prompt"], str) and "def sub(a, b):" in data["prompt"]
    assert [a["error"] for a in data["attempts"]] == ["http-400"]
    out = result.stdout.str()
    assert "longer than the server's context window" in out
    assert "Check the provider settings" not in out
