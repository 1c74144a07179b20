"""§10 Zeta 1, byte for byte: the instruction prompt, the cleaner, the applied answer.

Every golden string is written from the spec's rules, not printed from the code: a
model is trained on one exact layout.
"""

from __future__ import annotations

import pytest

from pytest_editpred.zeta import Event, ExcerptRanges, ZetaInput
from pytest_editpred.zeta._zeta1 import (
    INSTRUCTION,
    STOP_TOKENS,
    apply_zeta1_output,
    clean_zeta1_model_output,
    format_zeta1_event,
    format_zeta1_events,
    format_zeta1_prompt,
    zeta1_ranges,
)

EXCERPT = "import os\n\ndef f(x):\n    return x\n\nprint(f(1))"
CURSOR = EXCERPT.index("x\n\nprint")  # before the returned x
EDITABLE = (11, 33)  # "def f(x):\n    return x"
HEAD = (
    "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits "
    "and then rewrite an excerpt that the user provides, suggesting the appropriate edits within "
    "the excerpt, taking into account the cursor location.\n\n### User Edits:\n\n"
)


def ranges(editable: tuple[int, int], context: tuple[int, int]) -> ExcerptRanges:
    unused = (0, 0)
    return ExcerptRanges(unused, unused, editable, unused, unused, context)


def zinput(
    events: tuple[Event, ...] = (),
    start_row: int | None = 0,
    context: tuple[int, int] = (0, len(EXCERPT)),
    **kw: object,
) -> ZetaInput:
    return ZetaInput(
        "src/main.py",
        EXCERPT,
        CURSOR,
        start_row,
        events=events,
        excerpt_ranges=ranges(EDITABLE, context),
        **kw,  # type: ignore[arg-type]
    )


def test_the_spans_used_here() -> None:
    assert EXCERPT[EDITABLE[0] : EDITABLE[1]] == "def f(x):\n    return x"
    assert EXCERPT[CURSOR:].startswith("x\n\nprint")


def test_instruction_is_zeds_text() -> None:
    assert HEAD.startswith(f"### Instruction:\n{INSTRUCTION}\n\n")


def test_golden_prompt_last_six_events_renames_and_fence_rule() -> None:
    def edit(n: int) -> Event:
        return Event(f"src/m{n}.py", f"src/m{n}.py", f"@@ -1 +1 @@\n-a{n}\n+b{n}\n")

    events = (
        edit(1),
        edit(2),
        Event("src/my file.py", "src/my file.py", "@@ -1 +1 @@\n-a3\n+b3\n"),
        edit(4),
        Event("src/m5.py", "src/m5.py", ""),  # renders empty: skipped
        edit(6),
        Event("src/m7.py", "src/old.py", "@@ -1 +1 @@\n-a7\n+b7\n"),
        Event("src/m8.py", "src/m8.py", "@@ -1 +1 @@\n-x\n+y"),  # no final newline
    )
    expected = (
        HEAD
        + "User edited src/my file.py:\n```diff\n@@ -1 +1 @@\n-a3\n+b3\n\n```"
        + "\n\n"
        + "User edited src/m4.py:\n```diff\n@@ -1 +1 @@\n-a4\n+b4\n\n```"
        + "\n\n"
        + "User edited src/m6.py:\n```diff\n@@ -1 +1 @@\n-a6\n+b6\n\n```"
        + "\n\n"
        + "User renamed src/old.py to src/m7.py\n\nUser edited src/m7.py:\n```diff\n@@ -1 +1 @@\n-a7\n+b7\n\n```"
        + "\n\n"
        + "User edited src/m8.py:\n```diff\n@@ -1 +1 @@\n-x\n+y\n```"
        + "\n\n### User Excerpt:\n\n"
        + "```src/main.py\n<|start_of_file|>\nimport os\n\n<|editable_region_start|>\n"
        + "def f(x):\n    return <|user_cursor_is_here|>x\n<|editable_region_end|>\n\nprint(f(1))\n```"
        + "\n\n### Response:\n"
    )
    assert format_zeta1_prompt(zinput(events)) == expected


def test_no_events_leaves_the_section_empty() -> None:
    prompt = format_zeta1_prompt(zinput())
    assert prompt.startswith(HEAD + "\n\n### User Excerpt:\n\n```src/main.py\n<|start_of_file|>\n")


def test_start_of_file_needs_row_zero_and_context_at_zero() -> None:
    assert "<|start_of_file|>" not in format_zeta1_prompt(zinput(start_row=3))
    assert "<|start_of_file|>" not in format_zeta1_prompt(zinput(start_row=None))
    later = format_zeta1_prompt(zinput(context=(10, len(EXCERPT))))
    assert "<|start_of_file|>" not in later
    assert "```src/main.py\n\n<|editable_region_start|>\n" in later  # excerpt[10:11] is "\n"


def test_context_end_cuts_the_text_after_the_region() -> None:
    prompt = format_zeta1_prompt(zinput(context=(0, 34)))
    assert prompt.endswith("x\n<|editable_region_end|>\n\n```\n\n### Response:\n")


def test_syntax_ranges_make_the_ranges_from_the_excerpt() -> None:
    # A 6-line excerpt fits 350 editable tokens whole, so region = context = excerpt.
    small = ZetaInput("p.py", EXCERPT, CURSOR, 0, syntax_ranges=())
    assert zeta1_ranges(small) == ((0, len(EXCERPT)), (0, len(EXCERPT)))
    assert format_zeta1_prompt(small).endswith(
        "```p.py\n<|start_of_file|>\n<|editable_region_start|>\nimport os\n\ndef f(x):\n"
        "    return <|user_cursor_is_here|>x\n\nprint(f(1))\n<|editable_region_end|>\n```"
        "\n\n### Response:\n"
    )


def test_syntax_ranges_win_over_excerpt_ranges() -> None:
    both = zinput(syntax_ranges=())
    assert zeta1_ranges(both) == ((0, len(EXCERPT)), (0, len(EXCERPT)))
    assert zeta1_ranges(zinput()) == (EDITABLE, (0, len(EXCERPT)))


def test_inconsistent_ranges_are_a_programming_error() -> None:
    bad = ZetaInput("p.py", EXCERPT, 0, 0, excerpt_ranges=ranges(EDITABLE, (0, len(EXCERPT))))
    with pytest.raises(ValueError, match="cursor"):
        format_zeta1_prompt(bad)


def test_event_rendering_details() -> None:
    assert format_zeta1_event(Event("b.rs", "a.rs", "")) == "User renamed a.rs to b.rs\n\n"
    assert format_zeta1_event(Event("a/b.rs", "a//b.rs", "")) == ""  # same path, by components
    assert format_zeta1_event(Event("a.rs", "./a.rs", "")) == "User renamed ./a.rs to a.rs\n\n"  # CurDir counts
    assert format_zeta1_event(Event("x", "x", "d\n")) == "User edited x:\n```diff\nd\n\n```"
    assert format_zeta1_events([Event("x", "x", "d")] * 8).count("User edited") == 6


def test_stop_tokens() -> None:
    assert STOP_TOKENS == (
        "<|editable_region_end|>",
        "<|editable_region_end|>\n",
        "<|editable_region_end|>\n\n",
        "<|editable_region_end|>\n\n\n",
    )


# -- cleaning --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "cleaned"),
    [
        ("<|editable_region_start|>\nabc\n<|editable_region_end|>", "abc"),
        ("```p\nbefore\n<|editable_region_start|>\nabc\n<|editable_region_end|>\nafter\n```", "abc"),
        ("no markers at all\n", "no markers at all\n"),
        ("<|editable_region_start|>abc", "abc"),
        ("abc\n<|editable_region_end|>", "abc"),
        ("<|editable_region_start|>\n\nabc\n\n<|editable_region_end|>", "\nabc\n"),  # one \n each side
        ("<|editable_region_end|> x <|editable_region_start|>\nabc", ""),  # start after end
        ("<|editable_region_start|>\na<|user_cursor_is_here|>bc\n<|editable_region_end|>", "a<|user_cursor|>bc"),
        ("<|editable_region_start|>\na<|user_cursor_is_here|>b<|user_cursor_is_here|>c", "a<|user_cursor|>bc"),
        ("", ""),
    ],
)
def test_clean_zeta1_model_output(output: str, cleaned: str) -> None:
    assert clean_zeta1_model_output(output) == cleaned


def test_a_cursor_outside_the_region_is_dropped() -> None:
    output = "<|user_cursor_is_here|>x<|editable_region_start|>\nabc\n<|editable_region_end|>"
    assert clean_zeta1_model_output(output) == "abc"


# -- applying ----------------------------------------------------------------------------


def test_apply_replaces_the_editable_range_and_places_the_cursor() -> None:
    output = (
        "```src/main.py\n<|start_of_file|>\nimport os\n\n<|editable_region_start|>\n"
        "def f(x):\n    return x + 1<|user_cursor_is_here|>\n<|editable_region_end|>\n\nprint(f(1))\n```"
    )
    text, cursor = apply_zeta1_output(zinput(), output) or ("", None)
    assert text == "import os\n\ndef f(x):\n    return x + 1\n\nprint(f(1))"
    assert cursor == len("import os\n\ndef f(x):\n    return x + 1")


def test_apply_without_markers_takes_the_whole_answer_as_the_region() -> None:
    result = apply_zeta1_output(zinput(), "def g(x):\n    return x")
    assert result == ("import os\n\ndef g(x):\n    return x\n\nprint(f(1))", None)


def test_apply_an_empty_answer_is_no_prediction() -> None:
    assert apply_zeta1_output(zinput(), "") is None


def test_apply_keeps_a_literal_zeta2_cursor_as_text() -> None:
    text, cursor = apply_zeta1_output(zinput(), "<|editable_region_start|>\na<|user_cursor|>b") or ("", None)
    assert text == "import os\n\na<|user_cursor|>b\n\nprint(f(1))"
    assert cursor is None
