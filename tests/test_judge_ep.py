"""``editpred judge`` on ep JSON: Zed's ``ep qa`` on the examples Zed's pipeline wrote,
against a real loopback judge; the ``qa`` list written back in Zed's place and names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401
from test_judge_prompt import E1_INPUTS, E1_PATCH, E1_ZETA2_PROMPT, E2_INPUTS, E2_PATCH, ep_example

from pytest_editpred.cli import main
from pytest_editpred.qa import ep_judge_prompt
from pytest_editpred.zeta import format_teacher_prompt

VERDICT = '{"reasoning": "finishes the rename", "reverts_edits": false, "confidence": 4}'


def _pipeline_example(name: str, inputs: Any, patch: str, prompt: str, **more: Any) -> dict[str, Any]:
    """An example as ``ep predict`` leaves it: the spec's fields, then the pipeline's."""
    spec: dict[str, Any] = {
        "name": name, "repository_url": "https://github.com/acme/shop", "revision": "3b1f",
        "cursor_path": inputs.cursor_path, "cursor_position": "x<|user_cursor|>", "edit_history": "",
        "expected_patches": [],
    }  # fmt: skip
    pipeline = ep_example(inputs, patch, prompt)
    del pipeline["cursor_path"]
    return {**spec, **pipeline, "score": [{"delta_chr_f": 50.0}], **more}


def _write(path: Path, examples: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in examples))
    return path


def _judge(capsys: pytest.CaptureFixture[str], server: LLMServer, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["judge", *argv, "--judge=openai-chat", f"--judge-base-url={server.url}", "--judge-model=jm"])
    out, err = capsys.readouterr()
    return status, out, err


def test_ep_examples_are_judged_as_ep_qa_judges_them(
    tmp_path: Path, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    e1 = _pipeline_example("cart", E1_INPUTS, E1_PATCH, E1_ZETA2_PROMPT)
    e2 = _pipeline_example("greet", E2_INPUTS, E2_PATCH, format_teacher_prompt(E2_INPUTS))
    e2["predictions"].append({"actual_patch": "", "actual_output": "NO_EDITS", "provider": "repair"})
    source = _write(tmp_path / "predicted.jsonl", [e1, e2])
    llm_server.answer(VERDICT)
    out = tmp_path / "judged.jsonl"
    status, stdout, err = _judge(capsys, llm_server, str(source), "-o", str(out), "--cache=off")
    assert status == 0, err
    # The prompts are ep qa's for each example's first prediction.
    asked = sorted(r.body["messages"][0]["content"] for r in llm_server.requests)
    assert asked == sorted([ep_judge_prompt(e1), ep_judge_prompt(e2)])
    lines = out.read_text(encoding="utf-8").splitlines()
    assert all(", " not in line[:40] and '":' in line for line in lines)  # serde_json's compact form
    judged = [json.loads(line) for line in lines]
    verdict = {"reasoning": "finishes the rename", "reverts_edits": False, "confidence": 4, "response": VERDICT}
    assert judged[0]["qa"] == [verdict]
    assert judged[1]["qa"] == [verdict, None]  # parallel to predictions; only the first is judged
    for before, after in zip((e1, e2), judged):
        assert list(after) == [*before, "qa"]  # after score, the last pipeline field; the rest kept in order
        assert {k: v for k, v in after.items() if k != "qa"} == before
    assert stdout.strip() == f"judge: 2 judged, 0 skipped, 2 acceptable; 2 examples written to {out}"
    # Zed's skip rule: a first verdict with a confidence is done; one without is asked again.
    again = tmp_path / "again.jsonl"
    status, stdout, _ = _judge(capsys, llm_server, str(out), "-o", str(again), "--cache=off")
    assert status == 0 and "0 judged, 2 skipped (2 already judged)" in stdout
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")
    unsure = dict(judged[0], qa=[{"error": "Could not parse JSON from response", "response": "?"}])
    _write(source, [unsure])
    status, stdout, _ = _judge(capsys, llm_server, str(source), "-o", str(again), "--cache=off", "--overwrite")
    assert status == 0 and "1 judged" in stdout and json.loads(again.read_text())["qa"] == [verdict]


def test_bad_ep_input_is_one_line_each(
    tmp_path: Path, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.answer(VERDICT)
    e1 = _pipeline_example("cart", E1_INPUTS, E1_PATCH, E1_ZETA2_PROMPT)
    out = tmp_path / "out.jsonl"
    # An example ep qa cannot build a prompt for: said with its line, written as it was.
    bare = {k: v for k, v in e1.items() if k != "prompt_inputs"}
    unpredicted = {k: v for k, v in e1.items() if k != "predictions"}
    source = _write(tmp_path / "in.jsonl", [e1, bare, unpredicted])
    status, stdout, err = _judge(capsys, llm_server, str(source), "-o", str(out), "--cache=off")
    assert status == 1
    [line] = err.strip().splitlines()
    assert line.startswith(f"{source}:2: no judge prompt: prompt_inputs missing")
    written = [json.loads(x) for x in out.read_text().splitlines()]
    assert written[1] == bare and written[2] == unpredicted and written[0]["qa"][0]["confidence"] == 4
    assert "1 judged, 2 skipped (1 prompt not built, 1 no prediction)" in stdout
    # A line that is not an object: the file cannot be trusted, nothing is asked or written.
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(e1) + "\n[1, 2]\n")
    asked = len(llm_server.requests)
    status, _, err = _judge(capsys, llm_server, str(broken), "-o", str(tmp_path / "b.jsonl"))
    assert status == 2 and err.startswith(f"{broken}:2: line 2 is not an ep JSON example object")
    assert len(err.splitlines()) == 1 and len(llm_server.requests) == asked and not (tmp_path / "b.jsonl").exists()
    # A run's report beside ep examples: two kinds of input, one command each.
    report = _write(tmp_path / "run.jsonl", [{"name": "x", "nodeid": "evals/x.md::x", "outcome": "passed"}])
    status, _, err = _judge(capsys, llm_server, str(source), str(report), "-o", str(tmp_path / "c.jsonl"))
    assert status == 2 and err.startswith(f"{report}: is a run's report, and {source} holds ep JSON examples")
    # A judge that refuses: one line for the examples it cost; every example written as it was.
    llm_server.fail(400, times=10, message="model not found")
    refused = tmp_path / "refused.jsonl"
    two = _write(tmp_path / "two.jsonl", [e1, e1])
    status, _, err = _judge(capsys, llm_server, str(two), "-o", str(refused), "--cache=off", "--editpred-retries=1")
    assert status == 1
    [line] = err.strip().splitlines()
    assert line.startswith(f"{two}:1: example and 1 other example: the judge (openai-chat jm) gave no answer")
    assert [json.loads(x) for x in refused.read_text().splitlines()] == [e1, e1]


@pytest.mark.parametrize(
    "line, message",
    [
        (b"[" * 100_000 + b"]" * 100_000, "line 2 is not an ep JSON example object"),  # deeper than any parser recurses
        (b'{"name": "\xff\xfe"}', "line 2 is not an ep JSON example object"),  # not UTF-8
        (b'{"name": "' + b"x" * 3000 + b'"}', "line 2 is over 2,000 bytes"),
    ],
    ids=["deep", "not-utf8", "huge"],
)
def test_a_hostile_ep_line_is_one_line(
    tmp_path: Path, llm_server: LLMServer, capsys: pytest.CaptureFixture[str], line: bytes, message: str
) -> None:
    e1 = _pipeline_example("cart", E1_INPUTS, E1_PATCH, E1_ZETA2_PROMPT)
    source = tmp_path / "in.jsonl"
    source.write_bytes(json.dumps(e1).encode() + b"\n" + line + b"\n")
    out = tmp_path / "out.jsonl"
    limit = "--editpred-max-example-bytes=2000" if "over" in message else "--editpred-max-example-bytes=4000000"
    status, _, err = _judge(capsys, llm_server, str(source), "-o", str(out), limit)
    assert status == 2
    [said] = err.strip().splitlines()
    assert said.startswith(f"{source}:2: {message}") and "Traceback" not in err
    assert not out.exists() and not llm_server.requests
