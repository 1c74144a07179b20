"""Zed's Sweep prompt (zed-authoring-and-context.md §5), byte for byte, and its answers.

The worked prompt of §5.6 is rebuilt from a real git repository named ``proj``; the
rules it does not exercise (the 40-line cap, the 3 blocks, the dropped ``--``/``++``
lines, windows at the ends of a buffer, reserved tokens) are pinned on requests built
directly, as tests/test_prompts.py does; the ``openai`` provider is driven against a
real loopback server, once through the provider and once through a whole pytest run.
The golden strings are written out on purpose: a model is trained on one exact
layout, so any change to the prompt must show up here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from gitrepos import make_repo
from greet_sample import PATH, RENAME, TEXT, request
from llm_server import LLMServer, llm_server_fixture  # noqa: F401  (the llm_server fixture)

from conftest import SUB, Project
from pytest_editpred import (
    ConfigError,
    Cursor,
    EditEvent,
    Example,
    Prediction,
    PredictionError,
    PredictionRequest,
    RecentFile,
    Settings,
    from_markdown,
)
from pytest_editpred.example import RetrievedFile
from pytest_editpred.example._example import RetrievedExcerpt
from pytest_editpred.providers import get_provider
from pytest_editpred.providers.prompts import (
    SWEEP_STOP_TOKENS,
    Answer,
    SweepWindow,
    parse_sweep_reply,
    sweep_selected,
    sweep_window,
    window_for,
)
from pytest_editpred.scene import RepositoryCache, build_scene

# -- §5.6: the worked prompt -------------------------------------------------------

MAIN_BEFORE = 'fn main() {\n    let x = 1;\n    println!("{}", x);\n}\n'
MAIN = 'fn main() {\n    let x = 1;\n    let y = 2;\n    println!("{}", x);\n}\n'
WORKED_EXAMPLE = """\
+++
repository_url = "https://example.com/team/proj"
revision = "{rev}"
+++

## Edit History

```diff
--- a/src/main.rs
+++ b/src/main.rs
@@ -1,4 +1,5 @@
 fn main() {{
     let x = 1;
+    let y = 2;
     println!("{{}}", x);
 }}
```

## Cursor Position

```src/main.rs
    let y = 2;
#    ^[CURSOR_POSITION]
```
"""
UTIL_RS = RetrievedFile(
    "proj/src/util.rs",
    20,
    (RetrievedExcerpt(10, 11, "pub fn b() {}\n", order=1), RetrievedExcerpt(0, 1, "pub fn a() {}\n", order=0)),
)
WORKED_PROMPT = (
    "<|file_sep|>proj/src/util.rs\n"
    "pub fn a() {}\n"
    "\n"
    "pub fn b() {}\n"
    "<|file_sep|>proj/src/main.rs.diff\n"
    "original:\n"
    "fn main() {\n"
    "    let x = 1;\n"
    '    println!("{}", x);\n'
    "}\n"
    "updated:\n"
    "fn main() {\n"
    "    let x = 1;\n"
    "    let y = 2;\n"
    '    println!("{}", x);\n'
    "}\n"
    "<|file_sep|>original/src/main.rs\n"
    "fn main() {\n"
    "    let x = 1;\n"
    '    println!("{}", x);\n'
    "}\n"
    "<|file_sep|>current/src/main.rs\n"
    "fn main() {\n"
    "    let x = 1;\n"
    "    let y = 2;\n"
    '    println!("{}", x);\n'
    "}\n"
    "<|file_sep|>updated/src/main.rs\n"
)
WORKED_ANSWER = 'fn main() {\n    let x = 1;\n    let y = 2;\n    println!("{} {}", x, y);\n}\n<|file_sep|>'


@pytest.fixture
def worked_request(tmp_path: Path) -> PredictionRequest:
    """§5.6's moment, rebuilt by the scene from a real repository named ``proj``."""
    repo, [rev] = make_repo(tmp_path, {"src/main.rs": MAIN_BEFORE, "src/util.rs": "pub fn a() {}\n"}, name="proj")
    example = from_markdown(WORKED_EXAMPLE.format(rev=rev), tmp_path / "worked.md")
    example = dataclasses.replace(example, related_files=(UTIL_RS,))
    with RepositoryCache(tmp_path / "cache", {example.repository_url: repo}) as cache:
        scene = build_scene(example, cache)
    return scene.request()


def test_the_worked_prompt_byte_for_byte(worked_request: PredictionRequest) -> None:
    assert worked_request.text == MAIN and worked_request.cursor.row == 2
    window = sweep_window(worked_request)
    assert window.prompt == WORKED_PROMPT
    # the window is rows 0..=5: the whole buffer, its final newline included
    assert (window.window_start, window.current_window) == (0, MAIN)
    assert window.region == MAIN


def test_the_worked_answer_is_one_edit_in_row_3(worked_request: PredictionRequest) -> None:
    window = sweep_window(worked_request)
    answer = parse_sweep_reply(WORKED_ANSWER, window, False)
    assert answer == Answer(MAIN.replace('"{}", x)', '"{} {}", x, y)'), None)
    assert answer.text is not None
    lines = answer.text.split("\n")
    assert [row for row, line in enumerate(MAIN.split("\n")) if line != lines[row]] == [3]


# -- §5.2: recent change blocks ----------------------------------------------------


def blocks_of(prompt: str) -> list[str]:
    """The prompt's ``.diff`` blocks, each from its path line to the next separator."""
    parts = prompt.split("<|file_sep|>")[1:]
    return ["<|file_sep|>" + part for part in parts if part.split("\n", 1)[0].endswith(".diff")]


def other(diff: str, path: str = "other.py", old_path: str | None = None) -> EditEvent:
    return EditEvent(path, old_path or path, diff)


def test_each_side_is_capped_at_40_lines_first_20_dots_last_19() -> None:
    deleted = "".join(f"-old {n}\n" for n in range(50))
    added = "".join(f"+new {n}\n" for n in range(40))  # exactly 40: kept whole
    [block] = blocks_of(sweep_window(request(events=(other("@@ -1,50 +1,40 @@\n" + deleted + added),))).prompt)
    original = [f"old {n}" for n in range(20)] + ["..."] + [f"old {n}" for n in range(31, 50)]
    updated = [f"new {n}" for n in range(40)]
    assert block == (
        "<|file_sep|>r/other.py.diff\noriginal:\n" + "\n".join(original) + "\nupdated:\n" + "\n".join(updated) + "\n"
    )
    assert len(original) == 40


def test_only_the_newest_three_blocks_and_an_empty_event_takes_no_slot() -> None:
    events = tuple(other(f"@@ -1 +1 @@\n-v{n}\n+v{n + 1}\n", path=f"f{n}.py") for n in range(4))
    # newest: a change that shows nothing (a bare hunk header); not a rename, so skipped
    events += (other("@@ -1,0 +1,0 @@\n\\ No newline at end of file\n", path="f4.py"),)
    blocks = blocks_of(sweep_window(request(events=events)).prompt)
    assert blocks == [
        f"<|file_sep|>r/f{n}.py.diff\noriginal:\nv{n}\nupdated:\nv{n + 1}\n" for n in (1, 2, 3)
    ]  # oldest first; f0 is the fourth newest that shows something


def test_a_rename_without_changes_shows_its_paths() -> None:
    [block] = blocks_of(sweep_window(request(events=(other("", path="new.py", old_path="old.py"),))).prompt)
    assert block == "<|file_sep|>r/new.py.diff\noriginal:\npath: r/old.py\nupdated:\npath: r/new.py\n"


def test_header_like_lines_are_dropped_with_the_lines_they_hide() -> None:
    diff = (
        "@@ -1,4 +1,4 @@\n"
        "--- a comment\n"  # the deleted line "-- a comment": dropped as a "---" line
        "+++i;\n"  # the added line "++i;": dropped as a "+++" line
        "--x\n"  # the deleted line "-x": kept
        "++y\n"  # the added line "+y": kept
        " same\n"
        "\n"  # an empty line: neither side
        "\\ No newline at end of file\n"
    )
    [block] = blocks_of(sweep_window(request(events=(other(diff),))).prompt)
    assert block == "<|file_sep|>r/other.py.diff\noriginal:\n-x\nsame\nupdated:\n+y\nsame\n"


def test_an_empty_side_is_an_empty_line() -> None:
    [block] = blocks_of(sweep_window(request(events=(other("@@ -0,0 +1,2 @@\n+a\n+b\n"),))).prompt)
    assert block == "<|file_sep|>r/other.py.diff\noriginal:\n\nupdated:\na\nb\n"


# -- §5.2: the window and original_window ------------------------------------------

LINES = "".join(f"line {n}\n" for n in range(40))


def tail(prompt: str) -> str:
    """The ``original/``, ``current/`` and ``updated/`` blocks."""
    return prompt[prompt.index("<|file_sep|>original/") :]


def windows(text: str, original: str, current: str, path: str = PATH) -> str:
    def block(name: str, body: str) -> str:
        return f"<|file_sep|>{name}/{path}\n{body}" + ("" if body.endswith("\n") else "\n")

    return block("original", original) + block("current", current) + f"<|file_sep|>updated/{path}\n"


def rows(first: int, last: int, text: str = LINES) -> str:
    """Rows ``first..=last`` of ``text``, the last one without its newline."""
    return "\n".join(text.split("\n")[first : last + 1])


@pytest.mark.parametrize(
    "text, row, first, last",
    [
        (LINES, 3, 0, 13),  # clipped at the start
        (LINES, 20, 10, 30),
        (LINES, 35, 25, 40),  # row 40 is the empty row after the final newline
        ("a\nb\nc", 1, 0, 2),  # no final newline: the window ends with the text
    ],
)
def test_the_window_is_ten_rows_each_side(text: str, row: int, first: int, last: int) -> None:
    offset = len(rows(0, row - 1, text)) + 1 if row else 0
    window = sweep_window(request(text, offset, events=()))
    current = rows(first, last, text)
    assert window.current_window == current and window.region == current
    assert window.window_start == (len(rows(0, first - 1, text)) + 1 if first else 0)
    assert current.endswith("\n") == (last == 40)
    assert tail(window.prompt) == windows(text, current, current)  # no event: original == current


def test_original_window_is_before_the_newest_event_of_the_cursor_file() -> None:
    old = LINES.replace("line 19\nline 20\n", "")
    events = (
        EditEvent(PATH, PATH, "@@ -1 +1 @@\n-zero\n+line 0\n"),  # an older event of the file: not undone
        EditEvent(PATH, PATH, "@@ -18,3 +18,5 @@\n line 17\n line 18\n+line 19\n+line 20\n line 21\n"),
        other("@@ -1 +1 @@\n-a\n+b\n"),  # the newest event is another file's
    )
    window = sweep_window(request(LINES, LINES.index("line 20"), events=events))
    # the window is rows 10..=30 now; before the newest edit of the file rows 19-20
    # were not there, so it ended at the old row 28
    original = rows(10, 28, old)
    assert original == "\n".join(line for line in rows(10, 30).split("\n") if line not in ("line 19", "line 20"))
    assert tail(window.prompt) == windows(LINES, original, rows(10, 30))


def numbered(first: int, last: int, sign: str) -> str:
    return "".join(f"{sign}line {n}\n" for n in range(first, last + 1))


OLD_8_9 = LINES.replace(numbered(8, 12, ""), "a\nb\n")
OLD_29_30 = LINES.replace(numbered(29, 32, ""), "x\ny\n")
OLD_GONE = LINES.replace("line 10\n", "gone 1\ngone 2\nline 10\n")
OLD_NO_29_32 = LINES.replace(numbered(29, 32, ""), "")


@pytest.mark.parametrize(
    "diff, original",
    [
        # rows 8-9 ("a", "b") became rows 8-12: the window's start (row 10) is inside
        # that edit, so the old window starts where the edit's old text does
        (
            "@@ -6,7 +6,10 @@\n" + numbered(5, 7, " ") + "-a\n-b\n" + numbered(8, 12, "+") + numbered(13, 15, " "),
            rows(8, 27, OLD_8_9),
        ),
        # rows 29-30 ("x", "y") became rows 29-32: the window's end (row 30) is inside,
        # so the old window ends with the edit's old text, before its last newline
        (
            "@@ -27,8 +27,10 @@\n" + numbered(26, 28, " ") + "-x\n-y\n" + numbered(29, 32, "+") + numbered(33, 35, " "),
            rows(10, 30, OLD_29_30),
        ),
        # rows 29-32 were inserted: the old window ends where they now start, at row 28
        (
            "@@ -27,6 +27,10 @@\n" + numbered(26, 28, " ") + numbered(29, 32, "+") + numbered(33, 35, " "),
            rows(10, 28, OLD_NO_29_32),
        ),
        # two rows were deleted right above the window: they are put back inside it
        (
            "@@ -8,8 +8,6 @@\n" + numbered(7, 9, " ") + "-gone 1\n-gone 2\n" + numbered(10, 12, " "),
            rows(10, 32, OLD_GONE),
        ),
    ],
    ids=["start-inside", "end-inside", "end-in-insertion", "start-at-deletion"],
)
def test_a_window_edge_at_an_undone_edit_takes_all_of_its_old_text(diff: str, original: str) -> None:
    window = sweep_window(request(LINES, LINES.index("line 20"), events=(EditEvent(PATH, PATH, diff),)))
    assert tail(window.prompt) == windows(LINES, original, rows(10, 30))


def test_hunks_that_undo_the_same_text_twice_count_as_no_event() -> None:
    diff = "@@ -1,2 +1,2 @@\n-a\n+line 0\n line 1\n@@ -1,2 +1,2 @@\n-b\n+line 0\n line 1\n"
    window = sweep_window(request(LINES, 0, events=(EditEvent(PATH, PATH, diff),)))
    assert tail(window.prompt) == windows(LINES, rows(0, 10), rows(0, 10))


def test_an_event_that_does_not_undo_in_the_buffer_counts_as_none() -> None:
    window = sweep_window(request(LINES, 0, events=(EditEvent(PATH, PATH, "@@ -1 +1 @@\n-x\n+not here\n"),)))
    assert tail(window.prompt) == windows(LINES, rows(0, 10), rows(0, 10))


def test_the_greet_rename_is_undone_in_the_original_window() -> None:
    window = sweep_window(request())  # greet_sample: the rename of hello to greet
    assert tail(window.prompt) == windows(TEXT, TEXT.replace("def greet(", "def hello("), TEXT)


# -- §5.2: related files -----------------------------------------------------------


def with_related(*files: RetrievedFile, text: str = LINES, row: int = 20) -> PredictionRequest:
    example = Example(
        name="related",
        repository_url="https://github.com/o/r",
        revision="abc",
        cursor_path=PATH,
        cursor_position="",
        related_files=files,
    )
    return PredictionRequest(example, {PATH: text}, Cursor.at(PATH, text, text.index(f"line {row}\n")))


def test_the_cursor_files_excerpts_inside_the_window_are_dropped() -> None:
    same = RetrievedFile(
        PATH,
        40,
        (RetrievedExcerpt(12, 14, "line 12\nline 13\n"), RetrievedExcerpt(2, 4, "line 2\nline 3\n", order=1)),
    )
    inside_only = RetrievedFile(PATH, 40, (RetrievedExcerpt(10, 31, "all of it\n"),))  # left empty: no block
    named_with_root = RetrievedFile("r/" + PATH, 40, (RetrievedExcerpt(12, 14, "line 12\nline 13\n"),))
    prompt = sweep_window(with_related(same, inside_only, named_with_root)).prompt
    assert prompt.startswith(
        f"<|file_sep|>{PATH}\nline 2\nline 3\n"  # rows 12-14 are inside the window rows 10..=30
        f"<|file_sep|>r/{PATH}\nline 12\nline 13\n"  # not the file_path: kept (as in Zed, in practice)
        f"<|file_sep|>original/{PATH}\n"
    )


def test_recently_viewed_files_stand_in_and_carry_the_repository_name() -> None:
    req = dataclasses.replace(request(events=()), buffers={PATH: TEXT, "lib/util.py": "def util():\n    pass\n"})
    req = dataclasses.replace(req, recently_viewed_files=(RecentFile("lib/util.py"),))
    prompt = sweep_window(req).prompt
    assert prompt.startswith(f"<|file_sep|>r/lib/util.py\ndef util():\n    pass\n<|file_sep|>original/{PATH}\n")


# -- §5.2: reserved tokens ---------------------------------------------------------


# The user's newest edit typed the token: it is in the current window (and in the
# edit's updated side) but not in the original window.
TYPED = EditEvent(PATH, PATH, "@@ -3,2 +3,2 @@\n def greet(name):\n-    print(name)\n+    print('</s>')\n")
TYPED_TEXT = TEXT.replace("print(name)", "print('</s>')")
STRIKE = RetrievedFile("r/x.py", 3, (RetrievedExcerpt(0, 1, "<s>strike</s>\n"),))


@pytest.mark.parametrize(
    "req, field",
    [
        (request(TYPED_TEXT, events=(TYPED,)), "current window"),
        (request(events=(RENAME, other("@@ -1 +1 @@\n-a\n+<|file_sep|>\n"))), "recent change updated"),
        (with_related(STRIKE), "related file content"),
    ],
)
def test_a_reserved_token_in_a_field_is_zeds_error(req: PredictionRequest, field: str) -> None:
    with pytest.raises(PredictionError, match=f"^sweep prompt {field} contains reserved tokens") as caught:
        sweep_window(req)
    assert "Leave this example out of Sweep runs" in (caught.value.fix or "")


@pytest.mark.parametrize(
    "req, field",
    [
        # Zed checks the file path, the original window, the current window, every
        # recent change, then every related file; the first field holding a token is
        # the one named.
        (request(TYPED_TEXT, path="src/</s>.py", events=()), "file path"),
        (request(TYPED_TEXT, events=()), "original window"),  # in both windows
        (request(TYPED_TEXT, events=(TYPED,)), "current window"),  # and in the change
        (
            dataclasses.replace(with_related(STRIKE), events=(other("@@ -1 +1 @@\n-a\n+</s>\n"),)),
            "recent change updated",  # and in a related file
        ),
        (
            dataclasses.replace(with_related(STRIKE), events=(other("@@ -1 +1 @@\n-a\n+b\n", path="</s>.py"),)),
            "recent change path",
        ),
    ],
)
def test_reserved_tokens_in_two_fields_name_the_one_zed_checks_first(req: PredictionRequest, field: str) -> None:
    with pytest.raises(PredictionError, match=f"^sweep prompt {field} contains reserved tokens"):
        sweep_window(req)


def test_a_reserved_token_only_in_the_old_window_is_caught_too() -> None:
    text = TEXT.replace("def greet(", "def hello(").replace("def hello(", "def greet(")
    event = EditEvent(PATH, PATH, "@@ -1,3 +1,3 @@\n-</s>\n+import sys\n \n def greet(name):\n")
    with pytest.raises(PredictionError, match="^sweep prompt original window contains reserved tokens"):
        sweep_window(request(text, events=(event,)))


# -- §5.5: parsing -----------------------------------------------------------------

SMALL = "a\nb\nc\n"


def small() -> SweepWindow:
    return sweep_window(request(SMALL, 2, events=()))


@pytest.mark.parametrize(
    "reply, text",
    [
        ("", None),
        (SMALL, None),  # the window byte for byte
        (SMALL + "<|file_sep|>whatever", None),
        ("<|file_sep|>" + "a\nB\nc\n", None),  # cut before anything: empty
        ("a\nB\nc\n</s>junk<|file_sep|>", "a\nB\nc\n"),
        ("a\nB\nc\n<|file_sep|>x</s>", "a\nB\nc\n"),
        ("a\nX</s>\nc\n<|file_sep|>", "a\nX"),  # the file separator first, then </s>
        ("a\nb\nc", "a\nb\nc"),  # the window without its final newline: deletes it
        (" a\nb\nc\n", " a\nb\nc\n"),  # nothing trimmed
        ("a\nb\nc\n\n", "a\nb\nc\n\n"),
    ],
)
def test_the_answer_replaces_the_whole_window(reply: str, text: str | None) -> None:
    assert parse_sweep_reply(reply, small(), False) == Answer(text, None)


def test_a_truncated_answer_is_read_as_zed_reads_it() -> None:
    # max_tokens cut the answer: it still replaces the window, deleting its tail
    assert parse_sweep_reply("a\nB", small(), True) == Answer("a\nB", None)


def test_an_answer_ending_with_a_newline_inside_a_file_adds_one() -> None:
    # §5.3/§5.5: a window short of the file's end has no final newline, but the answer
    # (as the layout's blocks do) ends with one; Zed diffs the two and inserts it.
    window = sweep_window(request(LINES, 0, events=()))
    assert window.current_window == rows(0, 10)
    answer = parse_sweep_reply(rows(0, 10) + "\n<|file_sep|>", window, False)
    assert answer.text == LINES.replace("line 10\n", "line 10\n\n")


def test_only_a_sweep_window_parses_a_sweep_reply() -> None:
    with pytest.raises(TypeError, match="SweepWindow"):
        parse_sweep_reply("x", window_for(request()), False)


# -- §5.1: when the prompt is used -------------------------------------------------


@pytest.mark.parametrize(
    "prompt_format, model, selected",
    [
        ("infer", "sweep-next-edit-1.5b:Q8", True),
        ("infer", "Sweep-Next-Edit-1.5B", True),
        ("infer", "hf.co/sweepai/sweep-next-edit-1.5B-GGUF:Q8_0", True),
        ("infer", "latest:sweep-next-edit", False),  # only the name before the first ':' counts
        ("infer", "zeta2", False),
        ("infer", None, False),
        ("sweep", "anything", True),
        (" Sweep ", None, True),
        ("zeta2", "sweep-next-edit-1.5b", False),
    ],
)
def test_sweep_is_picked_by_name_or_inferred_from_the_model(
    prompt_format: str, model: str | None, selected: bool
) -> None:
    assert sweep_selected(prompt_format, model) is selected


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic"])
def test_a_provider_that_cannot_send_it_says_which_can(provider: str) -> None:
    config = Settings(provider=provider, base_url="http://127.0.0.1:9", model="m", prompt_format="sweep")
    with pytest.raises(ConfigError, match="only the 'openai' provider does") as caught:
        get_provider(provider)(config)
    assert f"provider {provider!r} does not send the Sweep prompt" in caught.value.reason
    assert "teacher, teacher-jumps" in (caught.value.fix or "")


# -- §5.4: the request, against a real server --------------------------------------


def predict(config: Settings, req: PredictionRequest) -> Prediction:
    """One request through the ``openai`` provider, as the plugin makes it."""
    completion = get_provider("openai")(config)

    async def complete() -> Any:
        return await completion(req)  # type: ignore[misc]

    result = asyncio.run(complete())
    assert isinstance(result, Prediction)
    return result


def sweep_settings(server: LLMServer, **changes: Any) -> Settings:
    base: dict[str, Any] = dict(
        provider="openai", base_url=server.url, model="sweep-next-edit-1.5b:Q8", cache_mode="off", timeout=5.0
    )
    base.update(changes)
    return Settings(**base)


def test_the_provider_sends_zeds_body_and_reads_the_answer(
    llm_server: LLMServer, worked_request: PredictionRequest
) -> None:
    llm_server.answer(WORKED_ANSWER)
    prediction = predict(sweep_settings(llm_server, max_tokens=256, stop=("\n\n\n", "</s>")), worked_request)
    [seen] = llm_server.requests
    assert seen.path == "/v1/completions"
    assert seen.body == {
        "model": "sweep-next-edit-1.5b:Q8",
        "prompt": WORKED_PROMPT,
        "max_tokens": 256,
        "stop": ["\n\n\n", "</s>", "<|file_sep|>"],  # the user's first, Zed's not repeated
    }
    assert prediction.text == MAIN.replace('"{}", x)', '"{} {}", x, y)') and prediction.cursor is None
    assert prediction.extra["prompt"] == WORKED_PROMPT and prediction.raw_output == WORKED_ANSWER


@pytest.mark.parametrize(
    "changes, temperature",
    [
        ({}, None),  # left at its default: Zed sends none
        ({"temperature": 0.2}, 0.2),
        ({"extra_body": {"temperature": 0}}, 0),
    ],
)
def test_a_temperature_is_sent_only_when_given(
    llm_server: LLMServer, changes: dict[str, Any], temperature: float | None
) -> None:
    llm_server.answer("")
    prediction = predict(sweep_settings(llm_server, prompt_format="sweep", model="my-model", **changes), request())
    assert prediction.text is None
    body = llm_server.requests[0].body
    assert body.get("temperature") == temperature and ("temperature" in body) == (temperature is not None)
    assert body["stop"] == list(SWEEP_STOP_TOKENS)


def test_a_reserved_token_fails_the_item_without_a_request(llm_server: LLMServer) -> None:
    req = request(TEXT.replace("print(name)", "print('<|file_sep|>')"), events=())
    with pytest.raises(PredictionError, match="sweep prompt original window contains reserved tokens"):
        predict(sweep_settings(llm_server), req)
    assert llm_server.requests == []


# -- a whole run -------------------------------------------------------------------

SUB_AFTER = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef sub(a, b):\n"
SUB_PROMPT = (
    # the edit of the history, under the repository's name (Zed's worktree root)
    "<|file_sep|>calc/calc.py.diff\n"
    "original:\n"
    "\n"
    "def mul(a, b):\n"
    "    return a * b\n"
    "updated:\n"
    "\n"
    "def mul(a, b):\n"
    "    return a * b\n"
    "\n"
    "\n"
    "def sub(a, b):\n"
    # the window is the whole file, final newline included; before the edit it was
    # the file at the revision
    "<|file_sep|>original/calc.py\n"
    "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
    "<|file_sep|>current/calc.py\n" + SUB_AFTER + "<|file_sep|>updated/calc.py\n"
)


@pytest.mark.parametrize("right", [True, False], ids=["right", "wrong"])
def test_a_run_with_a_sweep_model_sends_zeds_request(
    project: Project, llm_server: LLMServer, plugin_args: list[str], right: bool
) -> None:
    body = "    return a - b\n" if right else "    return a + b\n"
    llm_server.answer(SUB_AFTER + body + "<|file_sep|>")
    project.example("calc--sub", SUB)
    report = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=openai",
        f"--editpred-base-url={llm_server.url}",
        "--editpred-model=sweep-next-edit-1.5b",  # infer: the Sweep prompt
        "--editpred-max-tokens=512",
        "--editpred-cache=off",
        "--editpred-no-retrieval",  # the stand-in related files, named as Zed's LSP would
        f"--editpred-report={report}",
        *plugin_args,
    )
    [seen] = llm_server.requests
    assert seen.path == "/v1/completions"
    assert seen.body == {
        "model": "sweep-next-edit-1.5b",
        "prompt": SUB_PROMPT,
        "max_tokens": 512,
        "stop": ["<|file_sep|>", "</s>"],
    }
    [record] = [json.loads(line) for line in report.read_text().splitlines()]
    assert record["prompt"] == SUB_PROMPT
    if right:
        result.assert_outcomes(passed=1)
    else:
        result.assert_outcomes(failed=1)
        assert record["reason"] == "the prediction matches none of the 1 expected patch(es)"
