"""Zed's teacher prompts (zeta-prompts.md §12, §13) and code-block rules (§14).

The golden tails are written out by hand from the spec's template, not taken from
the module, so a drift in either shows. The heads (instructions and examples) are
the project's own text (the spec does not quote Zed's), so only their presence is
checked.
"""

from __future__ import annotations

import re

import pytest

from pytest_editpred import PredictionError
from pytest_editpred.zeta import (
    Diagnostic,
    Event,
    ExcerptRanges,
    RelatedExcerpt,
    RelatedFile,
    ZetaFormat,
    ZetaInput,
)
from pytest_editpred.zeta._hashed import build_marker_table, marker_tag
from pytest_editpred.zeta._teacher import (
    TextEdit,
    extract_all_codeblocks,
    extract_editable_region,
    extract_last_codeblock,
    format_teacher_edit_history,
    format_teacher_prompt,
    is_no_edits,
    parse_teacher_output,
    teacher_ranges,
)
from pytest_editpred.zeta._teacher_jumps import (
    extract_marker_span,
    format_teacher_jumps_prompt,
    parse_teacher_jumps_output,
    prepare_teacher_jumps_input,
)
from pytest_editpred.zeta._teacher_templates import (
    TEACHER_JUMPS_TEMPLATE,
    TEACHER_TEMPLATE,
)

F = "`````"
EXCERPT = "import os\n\ndef area(w, h):\n    return w * h\n\nprint(area(2, 3))"
CURSOR = EXCERPT.index("w * h")
REGION = (EXCERPT.index("def area"), EXCERPT.index("\n\nprint"))
HISTORY = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -3,1 +3,1 @@\n-def area(x, h):\n+def area(w, h):\n"


def ranges(editable: tuple[int, int], context: tuple[int, int]) -> ExcerptRanges:
    return ExcerptRanges(editable, editable, editable, context, context, context)


RELATED = (
    RelatedFile(
        "src/util.py",
        20,
        (RelatedExcerpt(0, 2, "def helper():\n    pass\n"), RelatedExcerpt(5, 6, "X = 1", order=1)),
    ),
    RelatedFile("src/b.py", 1, (RelatedExcerpt(0, 2, "B = 2\n", order=2),)),
)


def make_input(**changes: object) -> ZetaInput:
    values: dict[str, object] = {
        "cursor_path": "src/calc.py",
        "cursor_excerpt": EXCERPT,
        "cursor_offset": CURSOR,
        "excerpt_start_row": 10,
        "events": (Event("src/calc.py", "src/calc.py", HISTORY.split("\n", 2)[2]),),
        "related_files": RELATED,
        "excerpt_ranges": ranges(REGION, (0, len(EXCERPT))),
    }
    values.update(changes)
    return ZetaInput(**values)  # type: ignore[arg-type]


def tail(history: str, context: str, current: str, diagnostics: str = "", last: str | None = None) -> str:
    last = (
        last
        or "Based on the edit history and context above, predict the user's next edit within the editable region.\n"
    )
    return (
        "# Your task:\n\n# 1. User Edit History\n\n`````\n"
        + history
        + "\n`````\n\n# 2. Related excerpts\n\n"
        + context
        + "\n\n# 3. Current File\n\n"
        + current
        + "\n\n\n"
        + diagnostics
        + "\n\n\n-----\n\n"
        + last
    )


CONTEXT = "`````src/util.py\ndef helper():\n    pass\n...\nX = 1\n...\n`````\n\n`````src/b.py\nB = 2\n"
CURRENT = (
    "`````src/calc.py\nimport os\n\n<|editable_region_start|>\ndef area(w, h):\n    return <|user_cursor|>w * h"
    "\n<|editable_region_end|>\n\nprint(area(2, 3))\n`````"
)


def head(template: str) -> str:
    return template[: template.index("# Your task:\n")]


# -- §12.2 golden prompt -----------------------------------------------------------


def test_teacher_prompt_bytes() -> None:
    prompt = format_teacher_prompt(make_input(), edit_history=HISTORY)
    assert prompt == head(TEACHER_TEMPLATE) + tail(HISTORY[:-1], CONTEXT, CURRENT)
    assert prompt.endswith("within the editable region.\n") and not prompt.endswith("\n\n")


def test_teacher_prompt_writes_the_events_when_no_raw_history_is_given() -> None:
    prompt = format_teacher_prompt(make_input())
    assert prompt.endswith(tail(HISTORY[:-1], CONTEXT, CURRENT))


def test_teacher_prompt_without_history_or_related_files() -> None:
    prompt = format_teacher_prompt(make_input(events=(), related_files=None))
    assert prompt.endswith(tail("(No edit history)", "(No context)", CURRENT))
    assert format_teacher_prompt(make_input(events=(), related_files=())).endswith(
        tail("(No edit history)", "(No context)", CURRENT)
    )


def test_teacher_edit_history_keeps_the_last_128_lines() -> None:
    lines = [f"+line {i}" for i in range(130)]
    assert format_teacher_edit_history("\n".join(lines) + "\n") == "\n".join(lines[2:]) + "\n[...truncated...]"
    assert format_teacher_edit_history("\n".join(lines[:128]) + "\n") == "\n".join(lines[:128])
    assert format_teacher_edit_history("") == "(No edit history)"


def test_teacher_region_at_the_excerpt_edges() -> None:
    # Context equal to the editable range: nothing outside the markers but the fences.
    prompt = format_teacher_prompt(make_input(excerpt_ranges=ranges(REGION, REGION), related_files=None, events=()))
    current = (
        "`````src/calc.py\n<|editable_region_start|>\ndef area(w, h):\n    return <|user_cursor|>w * h"
        "\n<|editable_region_end|>\n`````"
    )
    assert prompt.endswith(tail("(No edit history)", "(No context)", current))


def test_teacher_ranges_are_excerpt_absolute() -> None:
    got = teacher_ranges(make_input(excerpt_ranges=ranges(REGION, (REGION[0], len(EXCERPT)))))
    assert (got.context_start, got.editable_start, got.editable_end, got.context_end) == (
        REGION[0],
        REGION[0],
        REGION[1],
        len(EXCERPT),
    )
    # V0327 shows the whole excerpt as context, whatever the stored ranges say (§12.1).
    whole = teacher_ranges(make_input(excerpt_ranges=ranges(REGION, REGION)), ZetaFormat.V0327SingleFile)
    assert (whole.context_start, whole.context_end) == (0, len(EXCERPT))


def test_teacher_diagnostics_only_for_v0420() -> None:
    diagnostic = Diagnostic("error", "undefined name x", "print(x)\n", 14, 15)
    with_diag = make_input(diagnostics=(diagnostic,), related_files=None, events=())
    assert format_teacher_prompt(with_diag) == format_teacher_prompt(make_input(related_files=None, events=()))
    v0420 = format_teacher_prompt(with_diag, ZetaFormat.V0420Diagnostics)
    shown = "# 4. Diagnostics\n\n*undefined name x*:\n```\nprint(x)\n\n```\n"
    assert v0420.endswith(tail("(No edit history)", "(No context)", CURRENT, shown))
    none = format_teacher_prompt(make_input(related_files=None, events=()), ZetaFormat.V0420Diagnostics)
    assert none.endswith(tail("(No edit history)", "(No context)", CURRENT, "# 4. Diagnostics\n\nNo Diagnostics"))


def test_placeholders_are_replaced_in_zeds_order() -> None:
    # {{context}} is filled first, so a related excerpt naming a later placeholder
    # is filled too (plain string replace, as in Zed).
    files = (RelatedFile("t.md", 0, (RelatedExcerpt(0, 1, "see {{cursor_excerpt}}\n"),)),)
    prompt = format_teacher_prompt(make_input(related_files=files, events=()))
    assert "`````t.md\nsee " + CURRENT + "\n" in prompt


def test_both_templates_keep_their_placeholders_in_the_tail_only() -> None:
    assert head(TEACHER_TEMPLATE).count("{{") == 0 and head(TEACHER_JUMPS_TEMPLATE).count("{{") == 0
    jumps_tail = TEACHER_JUMPS_TEMPLATE[len(head(TEACHER_JUMPS_TEMPLATE)) :]
    assert jumps_tail == tail(
        "{{edit_history}}",
        "{{context}}",
        "{{cursor_excerpt}}",
        "",
        "Based on the edit history and context above, predict the user's next edits as a sequence of "
        "marker-bounded spans.\n",
    )


# -- §12.4 parsing -------------------------------------------------------------------


def prompt_and_input() -> tuple[str, ZetaInput]:
    zeta_input = make_input()
    return format_teacher_prompt(zeta_input), zeta_input


def answer(region: str, before: str = "The user renamed w; finish the body.\n\n") -> str:
    return f"{before}{F}\n<|editable_region_start|>\n{region}\n<|editable_region_end|>\n{F}\n"


def test_parse_a_rewritten_region_with_its_cursor() -> None:
    prompt, zeta_input = prompt_and_input()
    edit = parse_teacher_output(zeta_input, prompt, answer("def area(width, h):\n    return width * h<|user_cursor|>"))
    assert edit == TextEdit(
        "src/calc.py",
        REGION[0],
        EXCERPT[REGION[0] : REGION[1]],
        "def area(width, h):\n    return width * h",
        cursor=len("def area(width, h):\n    return width * h"),
        start_row=2,
    )
    new_excerpt, cursor = edit.apply(EXCERPT)
    assert new_excerpt == "import os\n\ndef area(width, h):\n    return width * h\n\nprint(area(2, 3))"
    assert new_excerpt[:cursor].endswith("width * h")


def test_parse_removes_every_cursor_and_keeps_the_first() -> None:
    prompt, zeta_input = prompt_and_input()
    edit = parse_teacher_output(
        zeta_input, prompt, answer("def <|user_cursor|>area(w, h):\n    return<|user_cursor|> w")
    )
    assert edit is not None and edit.new_text == "def area(w, h):\n    return w" and edit.cursor == 4


@pytest.mark.parametrize(
    "response",
    [
        f"Nothing to do.\n\n{F}\nNO_EDITS\n{F}\n",
        f"Nothing to do.\n\n{F}\n  NO_EDITS  \n{F}",
        "Nothing to do.\nNO_EDITS````",  # §12.4: trailing backticks are trimmed
        "Nothing to do.\nNO_EDITS  \n\n",
    ],
)
def test_no_edits(response: str) -> None:
    prompt, zeta_input = prompt_and_input()
    assert parse_teacher_output(zeta_input, prompt, response) is None


def test_no_edits_mentioned_mid_answer_is_not_no_edits() -> None:
    prompt, zeta_input = prompt_and_input()
    response = answer("def area(w, h):\n    return w * h * 1", before="I considered NO_EDITS but:\n")
    edit = parse_teacher_output(zeta_input, prompt, response)
    assert edit is not None and edit.new_text.endswith("* 1")


def test_an_answer_without_markers_is_taken_whole_as_zed_does() -> None:
    prompt, zeta_input = prompt_and_input()
    edit = parse_teacher_output(zeta_input, prompt, "x = 1\n")
    assert edit is not None and edit.new_text == "x = 1"
    with pytest.raises(PredictionError, match="no <\\|editable_region_start\\|> ... <\\|editable_region_end\\|>"):
        parse_teacher_output(zeta_input, prompt, "x = 1\n", require_markers=True)


def test_crossed_markers_are_invalid() -> None:
    prompt, zeta_input = prompt_and_input()
    with pytest.raises(PredictionError, match="Invalid editable region markers"):
        parse_teacher_output(zeta_input, prompt, f"{F}\n<|editable_region_start|>\n<|editable_region_end|>\n{F}")
    with pytest.raises(PredictionError, match="Invalid editable region markers"):
        extract_editable_region("a\n<|editable_region_end|> then <|editable_region_start|>\n")


def test_extract_editable_region_uses_the_last_markers() -> None:
    text = (
        "<|editable_region_start|>\nold\n<|editable_region_end|>\n"
        "<|editable_region_start|>\nnew\n\n<|editable_region_end|>"
    )
    assert extract_editable_region(text) == "new"
    assert extract_editable_region("just text\n") == "just text"


def test_region_not_found_and_missing_inputs() -> None:
    prompt, zeta_input = prompt_and_input()
    other = make_input(cursor_excerpt=EXCERPT.replace("return", "yield"), cursor_offset=5)
    with pytest.raises(PredictionError, match="editable region not found in prompt content"):
        parse_teacher_output(other, prompt, answer("x"))
    with pytest.raises(PredictionError, match="example prompt missing"):
        parse_teacher_output(zeta_input, "", answer("x"))
    with pytest.raises(PredictionError, match="example is missing prompt inputs"):
        parse_teacher_output(None, prompt, answer("x"))


def test_the_occurrence_nearest_the_cursor_is_edited() -> None:
    excerpt = "x = 1\ny = 2\nx = 1\ny = 2\nx = 1"
    for cursor, expected in ((1, 0), (14, 12), (26, 24)):
        zeta_input = ZetaInput(
            "a.py",
            excerpt,
            cursor,
            0,
            excerpt_ranges=ranges((cursor - cursor % 12, cursor - cursor % 12 + 5), (0, len(excerpt))),
        )
        edit = parse_teacher_output(zeta_input, format_teacher_prompt(zeta_input), answer("x = 9"))
        assert edit is not None and edit.start == expected and edit.start_row == expected // 6


def test_a_leading_blank_line_of_the_region_is_restored() -> None:
    excerpt = "a = 1\n\nb = 2\nc = 3"
    region = (excerpt.index("\nb"), len(excerpt))
    zeta_input = ZetaInput("a.py", excerpt, excerpt.index("b ="), 0, excerpt_ranges=ranges(region, (0, len(excerpt))))
    prompt = format_teacher_prompt(zeta_input)
    assert "<|editable_region_start|>\n\n<|user_cursor|>b = 2" in prompt
    edit = parse_teacher_output(zeta_input, prompt, answer("b = 20\nc = 3"))
    assert edit is not None and edit.old_text == "\nb = 2\nc = 3" and edit.new_text == "\nb = 20\nc = 3"
    assert edit.apply(excerpt)[0] == "a = 1\n\nb = 20\nc = 3"


def test_text_edit_replaces_whole_lines() -> None:
    text = "a\nold 1\nold 2\nz\n"
    old = "old 1\nold 2"
    assert TextEdit("f", 2, old, "").apply(text) == ("a\nz\n", None)  # deletes the lines
    assert TextEdit("f", 2, old, "new\n", cursor=9).apply(text) == ("a\nnew\nz\n", 6)  # cursor clamped
    assert TextEdit("f", 2, old, "new").apply(text)[0] == "a\nnew\nz\n"
    assert TextEdit("f", 0, "z", "y\n").apply("a\nz", at=2) == ("a\ny", None)  # no newline at the end of file
    assert TextEdit("f", 2, "", "ins").apply(text)[0] == "a\nins\nold 1\nold 2\nz\n"  # an empty old text inserts lines
    with pytest.raises(ValueError, match="does not hold"):
        TextEdit("f", 0, "nope", "x").apply(text)


# -- §14 code blocks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("intro\n```\ncode\n```\n", "code\n"),
        ("```python\na\nb\n```", "a\nb\n"),
        ("```\none\n```\nthen\n```rust\ntwo\n```\ntrailing prose", "two\n"),
        (f"{F}\n```py\ninner\n```\n{F}\n", "```py\ninner\n```\n"),  # a shorter fence is content
        ("```\n```\n", ""),
        ("```\n\n```\n", ""),  # the content joined is empty
        ("  ```  \n", None),  # a closing fence with nothing above it
        ("```python\nunclosed\n", None),  # §14: an unclosed block gives None
        ("no code here", None),
        ("````\nfour\n````\n", "four\n"),
        ("`````\nfive\n````\n", None),  # the opener must have exactly the closer's count
        ("```\nwin\r\n```\r\n", "win\n"),  # Rust lines() drops one \r per line
        ("~~~\ntilde\n~~~\n", None),  # backticks only
    ],
)
def test_extract_last_codeblock(text: str, expected: str | None) -> None:
    assert extract_last_codeblock(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\n```\none\n```\nb\n```x\ntwo\nlines\n```\n", ["one\n", "two\nlines\n"]),
        (f"{F}\n```\ninner\n```\n{F}\n", ["```\ninner\n```\n"]),
        ("```\nshort closes long\n`````\n", ["short closes long\n"]),
        ("```\n```\n", [""]),
        ("```\ndone\n```\n```\nnever closed\n", ["done\n"]),
        ("prose only", []),
    ],
)
def test_extract_all_codeblocks(text: str, expected: list[str]) -> None:
    assert extract_all_codeblocks(text) == expected


def test_is_no_edits_variants() -> None:
    assert is_no_edits("NO_EDITS````")
    assert not is_no_edits("NO_EDITS````", trim_backticks=False)
    assert is_no_edits("done\n\n NO_EDITS \n", trim_backticks=False)
    assert is_no_edits(f"{F}\nNO_EDITS\n{F}\nThat is all.", trim_backticks=False)
    assert not is_no_edits("NO_EDITS is not what I answer: x")


# -- §13 teacher-jumps ---------------------------------------------------------------

JUMPS_LAST = (
    "Based on the edit history and context above, predict the user's next edits as a sequence of "
    "marker-bounded spans.\n"
)
SMALL = "def area(w, h):\n    return w * h"
OTHER = RelatedFile(
    "src/util.py", 20, (RelatedExcerpt(3, 5, "def helper():\n    pass\n"), RelatedExcerpt(8, 9, "X = 1"))
)


def jumps_input(**changes: object) -> ZetaInput:
    values: dict[str, object] = {
        "cursor_path": "src/calc.py",
        "cursor_excerpt": SMALL,
        "cursor_offset": SMALL.index("w * h"),
        "excerpt_start_row": 10,
        "events": (Event("src/calc.py", "src/calc.py", "@@ -11,1 +11,1 @@\n-def area(x, h):\n+def area(w, h):\n"),),
        "related_files": (OTHER,),
    }
    values.update(changes)
    return ZetaInput(**values)  # type: ignore[arg-type]


def tags_of(zeta_input: ZetaInput) -> dict[tuple[int, int], list[str]]:
    table = build_marker_table(prepare_teacher_jumps_input(zeta_input))
    return {(e.file_ix, e.excerpt_ix): [marker_tag(i) for i in e.ids] for e in table}


def test_teacher_jumps_prompt_bytes() -> None:
    zeta_input = jumps_input()
    tags = tags_of(zeta_input)
    # The cursor file is synthesized first (§7.3), so util.py is file 1.
    (c0, c1), (u0, u1), (x0, x1) = tags[0, 0], tags[1, 0], tags[1, 1]
    history = "\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -11,1 +11,1 @@\n-def area(x, h):\n+def area(w, h):\n"
    context = f"`````src/util.py\n{u0}\ndef helper():\n    pass\n{u1}\n...\n{x0}\nX = 1\n{x1}\n...\n`````\n\n"
    current = f"`````src/calc.py\n{c0}\ndef area(w, h):\n    return <|user_cursor|>w * h\n{c1}\n`````"
    prompt = format_teacher_jumps_prompt(zeta_input)
    assert prompt == head(TEACHER_JUMPS_TEMPLATE) + tail(history, context, current, "", JUMPS_LAST)


def test_teacher_jumps_prompt_without_history_or_other_files() -> None:
    zeta_input = jumps_input(events=(), related_files=None)
    (c0, c1) = tags_of(zeta_input)[0, 0]
    current = f"`````src/calc.py\n{c0}\ndef area(w, h):\n    return <|user_cursor|>w * h\n{c1}\n`````"
    assert format_teacher_jumps_prompt(zeta_input).endswith(tail("", "(No context)", current, "", JUMPS_LAST))


def test_teacher_jumps_uses_a_covering_current_file_excerpt_as_is() -> None:
    # Rows 9..12 of the cursor file already cover the cursor (row 11): no synthesis,
    # and a gap to max_row is shown as '...'.
    covering = RelatedFile(
        "src/calc.py", 40, (RelatedExcerpt(9, 12, "# area\n" + SMALL + "\n", context_source="current_file"),)
    )
    zeta_input = jumps_input(related_files=(covering,), events=())
    (c0, *rest) = tags_of(zeta_input)[0, 0]
    prompt = format_teacher_jumps_prompt(zeta_input)
    assert f"`````src/calc.py\n{c0}\n# area\ndef area(w, h):\n    return <|user_cursor|>w * h\n" in prompt
    assert prompt.count("# area") == 1 and f"{rest[-1]}\n...\n`````" in prompt and "(No context)" in prompt


def test_teacher_jumps_requires_coverage() -> None:
    with pytest.raises(PredictionError, match="cursor position is not covered by any related-file excerpt"):
        format_teacher_jumps_prompt(jumps_input(excerpt_start_row=None))


def jumps_answer(*blocks: str, before: str = "The body still uses w.\n\n") -> str:
    return before + "".join(f"{F}\n{block}\n{F}\n\n" for block in blocks)


def test_teacher_jumps_parse_edits_and_cursor() -> None:
    zeta_input = jumps_input()
    tags = tags_of(zeta_input)
    (c0, c1), (u0, u1) = tags[0, 0], tags[1, 0]
    edits = parse_teacher_jumps_output(
        zeta_input,
        jumps_answer(
            f"{c0}\ndef area(width, h):\n    return width * h<|user_cursor|>\n{c1}",
            f"{u0}\ndef helper():\n    return 1\n{u1}",
        ),
    )
    assert [(e.path, e.start_row, e.new_text, e.cursor) for e in edits] == [
        (
            "src/calc.py",
            10,
            "def area(width, h):\n    return width * h",
            len("def area(width, h):\n    return width * h"),
        ),
        ("src/util.py", 3, "def helper():\n    return 1\n", None),
    ]
    file = "\n" * 10 + SMALL + "\n\nrest\n"
    new_file, cursor = edits[0].apply(file, at=10)
    assert new_file == "\n" * 10 + "def area(width, h):\n    return width * h\n\nrest\n"
    assert new_file[:cursor].endswith("width * h")


@pytest.mark.parametrize(
    "response",
    [f"{F}\nNO_EDITS\n{F}\n", "Nothing left.\n\nNO_EDITS\n", f"Done.\n{F}\n  NO_EDITS\n{F}\nThat is all."],
)
def test_teacher_jumps_no_edits(response: str) -> None:
    assert parse_teacher_jumps_output(jumps_input(), response) == ()


def test_teacher_jumps_parse_errors() -> None:
    zeta_input = jumps_input()
    tags = tags_of(zeta_input)
    (c0, c1), (u0, u1), (_x0, x1) = tags[0, 0], tags[1, 0], tags[1, 1]
    cases = [
        ("no code at all", "no marker-bounded edit codeblocks found in model response"),
        (jumps_answer("def area(width, h):"), "no marker-bounded edit codeblocks found"),
        (jumps_answer(f"{c0}\ndef area(width, h):"), "output span must be bounded by two marker tags"),
        (jumps_answer(f"{c0}\nx\n{c0}"), re.escape(f"start and end markers are the same (marker {c0[9:-2]})")),
        (jumps_answer(f"<|marker_zzzz|>\nx\n{c1}"), "unknown start marker `zzzz`"),
        (jumps_answer(f"{c1}\nx\n{c0}"), "must come before end marker"),
        (jumps_answer(f"{c0}\nx\n{u1}"), "belong to different context snippets"),
        (jumps_answer(f"{u0}\nx\n{x1}"), "belong to different context snippets"),  # gapped excerpts
    ]
    for response, message in cases:
        with pytest.raises(PredictionError, match=message):
            parse_teacher_jumps_output(zeta_input, response)


def test_teacher_jumps_truncation_guard() -> None:
    long = "\n".join(f"line {i}" for i in range(8)) + "\n"
    files = (RelatedFile("src/long.py", 8, (RelatedExcerpt(0, 8, long),)),)
    zeta_input = jumps_input(related_files=files)
    t0, *_, t_last = tags_of(zeta_input)[1, 0]
    with pytest.raises(PredictionError, match="looks truncated"):
        parse_teacher_jumps_output(zeta_input, jumps_answer(f"{t0}\nline 0\nline 1\n{t_last}"))


def test_extract_marker_span_strips_inner_tags() -> None:
    span = extract_marker_span("<|marker_aaaa|>\none\n<|marker_bbbb|>\ntwo\n<|marker_cccc|>\n")
    assert (span.start_id, span.end_id, span.text) == ("aaaa", "cccc", "one\ntwo\n")
