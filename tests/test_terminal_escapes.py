"""A model's text reaches the terminal shown, never obeyed.

An answer (or a prompt) carrying ``\\x1b[2J`` would clear the user's screen, a
backspace or a CR would rewrite what was printed, a C1 ``\\x9b`` is a CSI on some
terminals. Every terminal section (``editpred prompt``, ``editpred raw output``) and
the failure diff show such characters as their escapes, through one function
(``_clip.escape_controls``); tab and newline stay as they are. The JSONL report keeps
the exact text.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import SUB, Project
from pytest_editpred._clip import escape_controls

#: Every character the answer and the prompt carry, and how the terminal must show it.
CONTROLS = {
    "\x1b[2J": "\\x1b[2J",
    "\x00": "\\x00",
    "\x08": "\\x08",
    "\x0b": "\\x0b",
    "\x7f": "\\x7f",
    "\x9b": "\\x9b",
    "\r": "\\r",
    "\u2028": "\\u2028",
}
ANSWER = "    return a - b  # " + "|".join(CONTROLS) + "\n"

COMPLETION = f"""
import pytest
from pytest_editpred import Prediction

LINE = "def sub(a, b):\\n"
ANSWER = {ANSWER!r}
PROMPT = "tell me\\t" + {"|".join(CONTROLS)!r}


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        text = request.text.replace(LINE, LINE + ANSWER)
        return Prediction(text=text, raw_output=ANSWER, extra={{"prompt": PROMPT}})
    return complete
"""

#: What must never be printed: C0 controls but tab and newline, DEL, C1 controls.
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


@pytest.mark.xdist
def test_control_characters_of_an_answer_and_a_prompt_are_shown_escaped(
    project: Project, plugin_args: list[str]
) -> None:
    project.pytester.makeconftest(COMPLETION)
    project.example("calc--sub", SUB)
    report = project.pytester.path / "r.jsonl"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "evals",
               f"--editpred-report={report}", *plugin_args]  # fmt: skip
    run = subprocess.run(command, cwd=project.pytester.path, capture_output=True, timeout=300)
    out = run.stdout.decode("utf-8")  # bytes: no newline translation may hide a CR
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, out
    assert not RAW.findall(out), [match for match in RAW.findall(out)]
    shown = "|".join(CONTROLS.values())
    sections = {
        name: out.split(f" {name} ", 1)[1].split("\n", 2)[1] for name in ("editpred prompt", "editpred raw output")
    }
    assert sections["editpred prompt"] == "tell me\t" + shown  # the tab stays a tab
    assert sections["editpred raw output"] == "    return a - b  # " + shown
    # The failure diff shows the predicted buffer, where the answer's lone CR is a line
    # break, as Zed's buffers normalise inserted text.
    head, tail = shown.split("|\\r|")
    assert f"+    return a - b  # {head}|\n+|{tail}‸\n" in out  # the failure diff's predicted lines
    # The JSONL record keeps the exact text.
    (record,) = [json.loads(line) for line in report.read_text(encoding="utf-8").split("\n") if line]
    assert record["raw_output"] == ANSWER


def test_escape_controls_keeps_text_and_escapes_only_what_a_terminal_would_obey() -> None:
    assert escape_controls("def f():\n\treturn 'é' + \"\\x1b\"  # ‸ ✓") == "def f():\n\treturn 'é' + \"\\x1b\"  # ‸ ✓"
    assert escape_controls("".join(CONTROLS)) == "".join(CONTROLS.values())
    assert escape_controls("a\u202eb\ufeffc\xa0d") == "a\\u202eb\\ufeffc\\xa0d"  # bidi, BOM, no-break space
    assert escape_controls("") == ""


MESSAGES = """
import pytest
from pytest_editpred import Prediction, PredictionError

PATCH = "--- a/calc.py\\n+++ b/calc.py\\n@@ -8,1 +8,2 @@\\n def sub(a, b):\\x1b[2J\\n+    return a - b\\n"


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        if "unusable" in request.example.name:
            raise PredictionError("the answer was '\\x1b[2J\\x08'")
        return Prediction(patch=PATCH)
    return complete
"""


def test_control_characters_quoted_by_a_failure_message_are_shown_escaped(project: Project) -> None:
    """A predicted patch that does not apply is quoted by the reason ("hunk context not
    found: | ..."); an unusable answer's reason may quote it too."""
    project.pytester.makeconftest(MESSAGES)
    project.example("calc--sub", SUB)
    project.example("calc--unusable", SUB)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "evals"]
    run = subprocess.run(command, cwd=project.pytester.path, capture_output=True, timeout=300)
    out = run.stdout.decode("utf-8")
    assert "does not apply" in out and "cannot be used" in out, out
    assert not RAW.findall(out), [match for match in RAW.findall(out)]
    assert "def sub(a, b):\\x1b[2J" in out and "'\\x1b[2J\\x08'" in out
