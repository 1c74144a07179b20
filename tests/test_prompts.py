"""The own chat prompt and FIM parts, byte for byte, and the parsing of answers back into
file text (Zed's formats: tests/test_zeta_*.py).

The golden strings are written out here on purpose: a model is trained on one exact
layout, so any change to a prompt must show up as a failing test and a reviewed diff.
"""

from __future__ import annotations

import pytest
from greet_sample import CURSOR, RENAME, TEXT, request

from pytest_editpred import PredictionError
from pytest_editpred.providers.prompts import Answer, window_for
from pytest_editpred.providers.prompts._history import git_history
from pytest_editpred.providers.prompts._plain import (
    CHAT_SYSTEM,
    chat_messages,
    fim_parts,
    last_fenced_block,
    parse_chat,
)
from pytest_editpred.scene import EditEvent, PredictionRequest, hunks

NEW_TEXT = TEXT.replace("hello(sys", "greet(sys")
REGION = 'def main():\n    hello(sys.argv[1])\n    hello("world")'


def small_window(req: PredictionRequest | None = None):  # type: ignore[no-untyped-def]
    """A region of the cursor row and one row on each side, to keep goldens short."""
    return window_for(req or request(), lines_before=1, lines_after=1)


# -- window ------------------------------------------------------------------------


def test_window_is_cursor_row_plus_minus_one_here() -> None:
    window = small_window()
    assert window.region == REGION
    assert window.before_region == "import sys\n\ndef greet(name):\n    print(name)\n\n"
    assert window.after_region == "\n\nmain()\n"
    assert (window.context_start, window.context_end) == (0, len(TEXT))
    assert window.region_before_cursor + window.region_after_cursor == window.region


def test_default_region_is_ten_rows_each_side_clipped() -> None:
    text = "".join(f"line {n}\n" for n in range(40))
    req = request(text, text.index("line 20"))
    window = window_for(req)
    assert window.region.split("\n") == [f"line {n}" for n in range(10, 31)]
    near_top = window_for(request(text, text.index("line 3")))
    assert near_top.region.split("\n")[0] == "line 0"
    assert near_top.region.split("\n")[-1] == "line 13"


def test_region_leaves_the_final_newline_alone() -> None:
    text = "a\nb\n"
    window = window_for(request(text, 0))
    assert window.region == "a\nb"
    assert window.after_region == "\n"
    at_end = window_for(request(text, len(text)))  # the cursor on the empty last row
    assert at_end.region_end == len(text) and at_end.cursor == len(text)


def test_context_is_zeds_cursor_excerpt() -> None:
    text = "".join(f"{n:03d} " * 10 + "\n" for n in range(100))  # 40 bytes a line
    req = request(text, text.index("050 "))
    window = window_for(req, max_tokens=130)  # 13 tokens a line: 10 lines
    assert not window.at_file_start
    assert window.context_start <= window.region_start <= window.cursor <= window.region_end <= window.context_end
    assert window.text[window.context_start : window.context_end].count("\n") == 9


# -- history -----------------------------------------------------------------------


def test_hunks_drop_file_headers() -> None:
    assert hunks("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b") == "@@ -1 +1 @@\n-a\n+b\n"
    assert hunks("") == ""


def test_history_spellings_and_budget() -> None:
    moved = EditEvent("new.py", "old.py", "@@ -1 +1 @@\n-x\n+y\n", predicted=True)
    assert git_history([moved]) == ("// User accepted prediction:\n--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-x\n+y\n")
    big = EditEvent("a.py", "a.py", "@@ -1 +1 @@\n-" + "x" * 300 + "\n+y\n")
    assert git_history([big, RENAME], budget=60) == git_history([RENAME])  # oldest dropped


# -- chat --------------------------------------------------------------------------

CHAT_USER_GOLDEN = (
    "My recent edits, oldest first:\n"
    "\n"
    "```diff\n"
    "--- a/src/greet.py\n"
    "+++ b/src/greet.py\n"
    "@@ -3,2 +3,2 @@\n"
    "-def hello(name):\n"
    "+def greet(name):\n"
    "     print(name)\n"
    "```\n"
    "\n"
    "The file `src/greet.py` around my cursor:\n"
    "\n"
    "```src/greet.py\n"
    "import sys\n"
    "\n"
    "def greet(name):\n"
    "    print(name)\n"
    "\n"
    "<|editable_region_start|>\n"
    "def main():\n"
    "    <|user_cursor|>hello(sys.argv[1])\n"
    '    hello("world")\n'
    "<|editable_region_end|>\n"
    "\n"
    "main()\n"
    "\n"
    "```\n"
    "\n"
    "Rewrite the editable region with my next edit, or answer NO_EDITS."
)
CHAT_SYSTEM_GOLDEN = (
    "You predict the next edit a programmer makes in their code editor. You are shown their recent "
    "edits, oldest first, and the code around their cursor with an editable region between "
    "<|editable_region_start|> and <|editable_region_end|>; <|user_cursor|> marks the cursor.\n"
    "Answer with the editable region rewritten with the next edit applied, in a single fenced code "
    "block, without the region markers, with <|user_cursor|> where the cursor should be after the "
    "edit. Change only what the recent edits imply and keep everything else exactly as it is, "
    "whitespace included. If no edit is needed, answer NO_EDITS."
)


def test_chat_golden_messages() -> None:
    req = request()
    assert CHAT_SYSTEM == CHAT_SYSTEM_GOLDEN
    assert chat_messages(req, small_window(req)) == [
        {"role": "system", "content": CHAT_SYSTEM_GOLDEN},
        {"role": "user", "content": CHAT_USER_GOLDEN},
    ]


def test_chat_fences_outgrow_backticks_in_the_code() -> None:
    text = "Docs\n\n```py\nx = 1\n```\n"
    req = request(text, 0, events=(), path="README.md")
    user = chat_messages(req, window_for(req))[1]["content"]
    assert "I have not edited anything yet." in user
    assert "````README.md\n<|editable_region_start|>\n<|user_cursor|>Docs" in user


def test_chat_parse_last_block_with_cursor() -> None:
    output = (
        "Here is the idea:\n```python\nnot this\n```\nAnd the answer:\n"
        '```python\ndef main():\n    greet<|user_cursor|>(sys.argv[1])\n    hello("world")\n```\nDone.'
    )
    assert parse_chat(output, small_window()) == Answer(NEW_TEXT, NEW_TEXT.index("(sys"))


def test_chat_parse_strips_echoed_region_markers_and_reads_long_fences() -> None:
    output = (
        '````\n<|editable_region_start|>\ndef main():\n    greet(sys.argv[1])\n```\n    hello("world")\n'
        "<|editable_region_end|>\n````"
    )
    expected = TEXT.replace("hello(sys.argv[1])\n", "greet(sys.argv[1])\n```\n")
    assert parse_chat(output, small_window()) == Answer(expected, None)


@pytest.mark.parametrize("output", ["NO_EDITS", "No change needed.\n\nNO_EDITS\n", "```\nNO_EDITS\n```"])
def test_chat_no_edits(output: str) -> None:
    assert parse_chat(output, small_window()) == Answer(None)


def test_chat_unusable_answers_fail() -> None:
    with pytest.raises(PredictionError, match="no fenced code block"):
        parse_chat("I would rename hello to greet.", small_window())
    with pytest.raises(PredictionError, match="cut off"):
        parse_chat("```python\ndef main():\n    gre", small_window(), True)


def test_last_fenced_block() -> None:
    assert last_fenced_block("no block") is None
    assert last_fenced_block("~~~\na\n~~~\n```\nb\n```") == "b"
    assert last_fenced_block("```\nunclosed\nstill") is None  # Zed: an unclosed fence is no block
    assert last_fenced_block("``` `inline` ```\n```\nreal\n```") == "real"


# -- fill in the middle ------------------------------------------------------------


def test_fim_parts_and_insertion() -> None:
    window = window_for(request())
    prefix, suffix = fim_parts(window)
    assert prefix + suffix == TEXT
    assert prefix.endswith("def main():\n    ") and suffix.startswith("hello(sys")
    inserted = window.insert_at_cursor("greet(sys.argv[0])\n    ")
    assert inserted.text == TEXT.replace("    hello(sys", "    greet(sys.argv[0])\n    hello(sys")
    assert inserted.cursor == CURSOR + len("greet(sys.argv[0])\n    ")
    assert window.insert_at_cursor("") == Answer(None)
