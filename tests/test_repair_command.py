"""``editpred repair``: Zed's ``ep repair`` on a saved run, against a real loopback model,
and ``editpred distill`` choosing the repair.

The run is a real teacher run (``openai-chat`` on Zed's teacher prompt) judged by
``--editpred-qa``, both answered by one loopback server that tells the teacher, the
judge and the repairer apart by the model each request names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Recorded, llm_server_fixture  # noqa: F401

from conftest import SUB, Project
from pytest_editpred import load_examples
from pytest_editpred.cli import main
from pytest_editpred.qa import word_diff

F = "`````"
START, END = "<|editable_region_start|>\n", "\n<|editable_region_end|>"
REJECTED = '{"reasoning": "multiplies where the name says subtract", "reverts_edits": false, "confidence": 1}'
ACCEPTED = '{"reasoning": "continues the function", "reverts_edits": false, "confidence": 5}'


def _region(prompt: str) -> str:
    return prompt[prompt.rindex(START) + len(START) : prompt.rindex(END)]


def _rewrite(prompt: str, body: str) -> str:
    """A teacher answer: ``prompt``'s editable region with ``body`` after ``def sub``."""
    region = _region(prompt).replace("<|user_cursor|>", "")
    new = region.replace("def sub(a, b):", f"def sub(a, b):\n    {body}<|user_cursor|>")
    return f"Finishing the function.\n\n{F}\n{START}{new}{END}\n{F}\n"


WRONG = """
## Edit History

```diff
--- a/calc.py
+++ b/calc.py
@@ -5,2 +5,6 @@
 def mul(a, b):
     return a * b
+
+
+# wrong
+def sub(a, b):
```

## Cursor Position

```calc.py
def sub(a, b):
#             ^[CURSOR_POSITION]
```

## Expected Patch

```diff
--- a/calc.py
+++ b/calc.py
@@ -9,1 +9,2 @@
 def sub(a, b):
+    return a - b
#                ^[CURSOR_POSITION]
```
"""


class Models:
    """One server, three models: the teacher (``a * b`` where the file says
    ``# wrong``, else ``a - b``), the judge (rejects an added ``a * b``) and the
    repairer (``self.repair(teacher prompt)``)."""

    def __init__(self) -> None:
        self.repair: Any = lambda prompt: _rewrite(prompt, "return a - b")

    def __call__(self, request: Recorded) -> str:
        messages = request.body["messages"]
        model = request.body["model"]
        if model == "teacher":
            prompt = messages[-1]["content"]
            return _rewrite(prompt, "return a * b" if "# wrong" in prompt else "return a - b")
        if model == "judge":
            return REJECTED if "{+    return a * b" in messages[0]["content"] else ACCEPTED
        return str(self.repair(messages[0]["content"]))


def _examples(project: Project) -> None:
    project.example("calc--right", SUB)
    project.example("calc--wrong", WRONG)


def _run(project: Project, server: LLMServer) -> Path:
    report = project.pytester.path / "run.jsonl"
    project.pytester.runpytest(
        "evals", "--editpred-provider=openai-chat", "--editpred-prompt-format=teacher",
        f"--editpred-base-url={server.url}", "--editpred-model=teacher", "--editpred-no-retrieval",
        "--editpred-qa=openai-chat", "--editpred-qa-model=judge", f"--editpred-report={report}",
        f"--editpred-response-cache-dir={project.pytester.path / 'responses'}",
    ).assert_outcomes(passed=1, failed=1)  # fmt: skip
    return report


def _repair(
    capsys: pytest.CaptureFixture[str], server: LLMServer | None, project: Project, *argv: str
) -> tuple[int, str, str]:
    capsys.readouterr()
    url = [f"--base-url={server.url}"] if server is not None else []
    status = main([
        "repair", *argv, "--backend=openai-chat", "--model=repairer", *url,
        f"--editpred-response-cache-dir={project.pytester.path / 'responses'}",
    ])  # fmt: skip
    out, err = capsys.readouterr()
    return status, out, err


def _records(path: Path) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_a_rejected_prediction_is_repaired_and_distill_prefers_the_repair(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(Models())
    report = _run(project, llm_server)
    run = _records(report)
    assert run["calc--wrong"]["qa"]["confidence"] == 1 and run["calc--right"]["qa"]["confidence"] == 5
    asked = len(llm_server.requests)
    out = project.pytester.path / "repaired.jsonl"
    status, stdout, err = _repair(capsys, llm_server, project, str(report), "-o", str(out))
    assert status == 0, err
    assert stdout.strip() == (
        f"repair: 1 asked, 1 repaired, 0 not parsed; 1 skipped (1 not needed); 2 records written to {out}"
    )
    # The conversation Zed sends: the teacher's prompt and answer verbatim, then the message.
    [request] = llm_server.requests[asked:]
    assert set(request.body) == {"model", "max_tokens", "messages"} and request.body["max_tokens"] == 16384
    teacher, answer, message = request.body["messages"]
    wrong = run["calc--wrong"]
    assert teacher == {"role": "user", "content": wrong["prompt"][0]["content"]}
    assert answer == {"role": "assistant", "content": wrong["raw_output"]}
    assert message["role"] == "user"
    assert "{+    return a * b" in message["content"]  # the previous prediction as a word diff
    assert "- **Confidence**: 1/5" in message["content"]
    assert "- **Reviewer's reasoning**: multiplies where the name says subtract" in message["content"]
    # The repair is written beside the run's prediction, which is kept; nothing else changes.
    repaired = _records(out)
    repair = repaired["calc--wrong"]["repair"]
    assert repair["provider"] == "repair" and repair["actual_output"].startswith("Finishing")
    assert "+    return a - b" in repair["actual_patch"] and repair["actual_patch"].startswith("--- a/calc.py\n")
    assert repair["actual_cursor"]["path"] == "calc.py" and "editable_region_offset" in repair["actual_cursor"]
    assert list(repaired["calc--wrong"]).index("repair") == list(repaired["calc--wrong"]).index("qa") + 1
    assert {k: v for k, v in repaired["calc--wrong"].items() if k != "repair"} == wrong
    assert repaired["calc--right"] == run["calc--right"]
    # Zed's skip rule: a record with a repair is not asked again, unless forced.
    again = project.pytester.path / "again.jsonl"
    status, stdout, _ = _repair(capsys, llm_server, project, str(out), "-o", str(again))
    assert status == 0 and "0 asked" in stdout and "(1 already repaired, 1 not needed)" in stdout
    assert len(llm_server.requests) == asked + 1
    # Distill takes the repair where there is one: the corpus is labelled by the repairer.
    folder = project.pytester.path / "distilled"
    capsys.readouterr()
    assert main(["distill", str(out), "-o", str(folder)]) == 0, capsys.readouterr().err
    [example] = load_examples(folder / "calc--wrong.md")
    [patch] = example.expected_patches
    assert "+    return a - b" in patch and "a * b" not in patch.split("@@", 2)[2].replace(" return a * b", "")
    [expected] = example.expected()
    assert expected.cursor_line is not None  # the repair's cursor, where the repairer put it
    assert expected.patch.splitlines()[expected.cursor_line] == "+    return a - b"
    assert expected.cursor_column == len("    return a - b")  # at its end, where the repairer put it
    assert main(["lint", str(folder)]) == 0, capsys.readouterr()
    # Each distilled patch applies where the example's cursor is, its cursor included.
    result = project.pytester.runpytest(str(folder), "-p", "no:cacheprovider", "--editpred-provider=oracle")
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("kind", ["keep", "no-edits", "garbage"])
def test_keep_previous_no_edits_and_an_unreadable_answer(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    _examples(project)
    models = Models()
    llm_server.answer(models)
    report = _run(project, llm_server)
    models.repair = {
        "keep": lambda prompt: "The previous edit stands.\n\n`````\nKEEP_PREVIOUS\n`````\n",
        "no-edits": lambda prompt: "Nothing to do.\n\n`````\nNO_EDITS\n`````\n",
        "garbage": lambda prompt: f"{F}\n<|editable_region_end|>\nx\n<|editable_region_start|>\n{F}\n",
    }[kind]
    out = project.pytester.path / "repaired.jsonl"
    status, stdout, err = _repair(capsys, llm_server, project, str(report), "-o", str(out))
    assert status == 0
    repair = _records(out)["calc--wrong"]["repair"]
    folder = project.pytester.path / "distilled"
    capsys.readouterr()
    distilled = main(["distill", str(out), "-o", str(folder)])
    summary = capsys.readouterr().out
    if kind == "keep":  # the teacher's own prediction, re-derived from its answer
        assert "+    return a * b" in repair["actual_patch"] and "error" not in repair
        assert "1 repaired" in stdout and not err
        [example] = load_examples(folder / "calc--wrong.md")
        assert "+    return a * b" in example.expected_patches[0]
    elif kind == "no-edits":
        assert repair["actual_patch"] == "" and "1 repaired" in stdout
        assert distilled == 0 and "1 skipped (1 repair is no edit)" in summary
        assert not (folder / "calc--wrong.md").exists()
    else:
        assert "actual_patch" not in repair
        assert repair["error"].startswith("Failed to parse repair response: ")
        assert "0 repaired, 1 not parsed" in stdout
        [line] = err.strip().splitlines()
        assert line.startswith(f"{out}: warning: 1 answer was not read as a repair")
        assert "1 skipped (1 repair not parsed)" in summary
        # Not done by Zed's rule: asked again next time.
        again = project.pytester.path / "again.jsonl"
        models.repair = lambda prompt: _rewrite(prompt, "return a - b")
        status, stdout, _ = _repair(capsys, llm_server, project, str(out), "-o", str(again), "--cache=off")
        assert status == 0 and "1 repaired" in stdout


def test_a_run_without_teacher_prompts_is_one_line_for_all_its_records(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    project.example("calc--one", SUB)
    project.example("calc--two", SUB)
    project.pytester.makeconftest(
        "import pytest\nfrom pytest_editpred import Prediction\n\n"
        "@pytest.fixture(scope='session')\ndef editpred_completion():\n"
        "    return lambda request: Prediction(text=request.text.replace("
        "'def sub(a, b):\\n', 'def sub(a, b):\\n    return a * b\\n'))\n"
    )
    llm_server.answer(REJECTED)
    report = project.pytester.path / "run.jsonl"
    project.pytester.runpytest(
        "evals", "--editpred-qa=openai-chat", f"--editpred-qa-base-url={llm_server.url}",
        "--editpred-qa-model=judge", f"--editpred-report={report}",
    ).assert_outcomes(failed=2)  # fmt: skip
    asked = len(llm_server.requests)
    out = project.pytester.path / "out.jsonl"
    status, stdout, err = _repair(capsys, llm_server, project, str(report), "-o", str(out))
    assert status == 1
    [line] = err.strip().splitlines()
    assert line.startswith(f"{report}: record ") and " and 1 other record: " in line
    assert "keeps no teacher prompt" in line and "--editpred-prompt-format teacher" in line
    assert len(llm_server.requests) == asked  # nothing sent
    assert _records(out) == _records(report)
    assert "0 asked" in stdout and "2 no teacher prompt" in stdout


def test_a_model_that_refuses_and_a_replay_only_run(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(Models())
    report = _run(project, llm_server)
    out = project.pytester.path / "repaired.jsonl"
    assert _repair(capsys, llm_server, project, str(report), "-o", str(out))[0] == 0
    asked = len(llm_server.requests)
    # The answer is in the response cache: a replay-only run needs no server.
    llm_server.fail(500, times=10)
    replayed = project.pytester.path / "replayed.jsonl"
    status, stdout, err = _repair(capsys, llm_server, project, str(report), "-o", str(replayed), "--cache=replay-only")
    assert status == 0, err
    assert len(llm_server.requests) == asked and _records(replayed) == _records(out)
    # A model that refuses: one line naming the record, and every record written as it was.
    refused = project.pytester.path / "refused.jsonl"
    status, stdout, err = _repair(
        capsys, llm_server, project, str(report), "-o", str(refused), "--cache=off", "--editpred-retries=1"
    )
    assert status == 1
    [line] = err.strip().splitlines()
    assert line.startswith(f"{report}: record ") and "calc--wrong" in line
    assert "the model (openai-chat repairer) gave no answer" in line and "--base-url" in line
    assert _records(refused) == _records(report)
    assert "1 model gave no answer" in stdout


def test_usage_errors_are_one_line(project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    _examples(project)
    llm_server.answer(Models())
    report = _run(project, llm_server)
    out = str(project.pytester.path / "o.jsonl")
    capsys.readouterr()
    assert main(["repair", str(report), "-o", out, "--backend=openai-chat", f"--base-url={llm_server.url}"]) == 2
    assert capsys.readouterr().err == (
        "editpred repair: the backend 'openai-chat' needs a model name (Give --model, the model to ask.)\n"
    )
    assert main(["repair", str(report), "-o", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("editpred repair: no server named for the model (Give --base-url") and err.count("\n") == 1
    missing = project.pytester.path / "nope.md"
    status, _, err = _repair(capsys, llm_server, project, str(report), "-o", out, f"--template={missing}")
    assert status == 2 and err.startswith(str(missing)) and err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(SystemExit) as exit:
        main(["repair", str(report), "-o", out, "--confidence-threshold=six"])
    assert exit.value.code == 2
    assert "invalid threshold 'six': give a confidence from 0 to 255" in capsys.readouterr().err
    status, _, err = _repair(capsys, llm_server, project, str(report), "-o", str(report))
    assert status == 2 and err == f"{report}: it exists (Name a new output, or pass --overwrite to write over it.)\n"
    assert not Path(out).exists()


def test_the_threshold_decides_which_verdicts_are_repaired(
    project: Project, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _examples(project)
    llm_server.answer(Models())
    report = _run(project, llm_server)
    out = project.pytester.path / "o.jsonl"
    status, stdout, _ = _repair(capsys, llm_server, project, str(report), "-o", str(out), "--confidence-threshold=0")
    assert status == 0 and "0 asked" in stdout and "2 not needed" in stdout  # confidence 1 > 0
    status, stdout, _ = _repair(
        capsys, llm_server, project, str(report), "-o", str(out), "--confidence-threshold=5", "--overwrite"
    )
    assert status == 0 and "2 asked, 2 repaired" in stdout  # 5 <= 5 too
    assert word_diff(_records(out)["calc--right"]["repair"]["actual_patch"])  # a real patch, word-diffable
