"""Zed's ``ep distill`` (zed-qa-repair.md §4): chosen predictions become the example's
expected patches, with the predicted cursor where Zed's ``encode_cursor_in_patch``
puts it; worked example D1 and the sharp edges §4 lists."""

from __future__ import annotations

import json

from pytest_editpred.example import (
    Example,
    RecentFile,
    extract_cursor_from_patch,
    from_json,
    from_markdown,
    to_json,
    to_markdown,
)
from pytest_editpred.qa import ActualCursor, ExamplePrediction, chosen_predictions, distill, expected_patch_of

EXAMPLE = Example(
    name="greet-name",
    repository_url="https://example.com/site.git",
    revision="0123456789abcdef0123456789abcdef01234567",
    cursor_path="web/app.js",
    cursor_position='function greet(name<|user_cursor|>) {\n  log("hello");\n}\n',
    edit_history="--- a/web/app.js\n+++ b/web/app.js\n@@ -3,1 +3,1 @@\n-function greet() {\n+function greet(name) {\n",
    expected_patches=("--- a/web/app.js\n+++ b/web/app.js\n@@ -1 +1 @@\n-old\n+new\n",),
    rejected_patch="--- a/web/app.js\n+++ b/web/app.js\n@@ -1 +1 @@\n-old\n+worse\n",
    tags=("js",),
    recently_opened_files=(RecentFile("web/log.js"),),
)
TEACHER_PATCH = (
    "--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n"
    '-  log("hello");\n+  log(`hello ${name}`);\n }\n'
)
REPAIR_PATCH = (
    "--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n"
    '-  log("hello");\n+  log("hello " + name);\n }\n'
)
TEACHER = ExamplePrediction(TEACHER_PATCH, "teacher answer", provider="teacher")
REPAIR = ExamplePrediction(
    REPAIR_PATCH, "repair answer", ActualCursor("web/app.js", 3, 23, 79, editable_region_offset=46), provider="repair"
)


def _inline(patch: str) -> str:
    """The patch with its ``#  ^[CURSOR_POSITION]`` line written as Zed's distill
    writes the cursor: ``<|user_cursor|>`` inside the line above, at its column."""
    read = extract_cursor_from_patch(patch)
    if not read.has_cursor:
        return patch
    lines = read.patch.split("\n")
    assert read.cursor_line is not None
    line = lines[read.cursor_line].encode()
    at = read.cursor_column + 1  # past the "+" or " " of the diff line
    lines[read.cursor_line] = (line[:at] + b"<|user_cursor|>" + line[at:]).decode()
    return "\n".join(lines)


def test_d1_the_repair_alone_with_its_cursor() -> None:
    distilled = distill(EXAMPLE, [TEACHER, REPAIR])
    (patch,) = distilled.expected_patches
    assert patch == (
        "--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n"
        '-  log("hello");\n+  log("hello " + name);\n#' + " " * 23 + "^[CURSOR_POSITION]\n }\n"
    )
    # D1's expected patch, byte for byte, when the cursor is written inline as ep does
    assert _inline(patch) == (
        "--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n"
        '-  log("hello");\n+  log("hello " + name);<|user_cursor|>\n }\n'
    )
    # read back: Zed's cursor_in_patch is the editable-region offset
    assert distilled.expected()[0].cursor_in_patch == 46


def test_d1_keeps_everything_else() -> None:
    distilled = distill(EXAMPLE, [TEACHER, REPAIR])
    for field in ("name", "repository_url", "revision", "cursor_path", "cursor_position", "edit_history"):
        assert getattr(distilled, field) == getattr(EXAMPLE, field)
    assert distilled.rejected_patch == EXAMPLE.rejected_patch
    assert distilled.tags == EXAMPLE.tags and distilled.recently_opened_files == EXAMPLE.recently_opened_files


def test_the_distilled_example_is_written_and_read_back() -> None:
    distilled = distill(EXAMPLE, [TEACHER, REPAIR])
    for again in (from_markdown(to_markdown(distilled)), from_json(json.dumps(to_json(distilled)))):
        assert again == distilled
        assert again.expected()[0].cursor_in_patch == 46
        assert again.expected()[0].patch == REPAIR_PATCH


def test_without_a_repair_every_prediction_in_order() -> None:
    second = ExamplePrediction(REPAIR_PATCH, "b", provider="zeta2")
    unparsed = ExamplePrediction(None, "c", error="Invalid editable region markers", provider="teacher")
    assert chosen_predictions([TEACHER, unparsed, second]) == [TEACHER, unparsed, second]
    assert distill(EXAMPLE, [TEACHER, unparsed, second]).expected_patches == (TEACHER_PATCH, REPAIR_PATCH)


def test_only_the_first_repair() -> None:
    later = ExamplePrediction("", "later", provider="repair")
    assert chosen_predictions([TEACHER, REPAIR, later]) == [REPAIR]
    assert len(distill(EXAMPLE, [TEACHER, REPAIR, later]).expected_patches) == 1


def test_a_repair_that_did_not_parse_leaves_no_expected_patch() -> None:
    failed = ExamplePrediction(None, "x", error="Failed to parse repair response: ...", provider="repair")
    assert distill(EXAMPLE, [TEACHER, failed]).expected_patches == ()


def test_no_predictions_no_expected_patches() -> None:
    assert distill(EXAMPLE, []).expected_patches == ()


def test_a_no_edits_repair_is_the_empty_expected_patch() -> None:
    no_edits = ExamplePrediction("", "`````\nNO_EDITS\n`````", provider="repair")
    distilled = distill(EXAMPLE, [TEACHER, no_edits])
    assert distilled.expected_patches == ("",)
    assert from_json(json.dumps(to_json(distilled))).expected_patches == ("",)


def test_no_offset_leaves_the_patch_as_it_is() -> None:
    inline = REPAIR_PATCH.replace("name);\n", "name);<|user_cursor|>\n")
    assert expected_patch_of(inline, None) == inline
    cursor = ActualCursor("web/app.js", 3, 23, 79)  # no editable_region_offset
    assert distill(EXAMPLE, [ExamplePrediction(REPAIR_PATCH, "", cursor, provider="teacher")]).expected_patches == (
        REPAIR_PATCH,
    )


def test_a_cursor_on_an_unchanged_line_is_dropped() -> None:
    # 0..22 is the context line "function greet(name) {"; 23..46 the added line
    assert expected_patch_of(REPAIR_PATCH, 10) == REPAIR_PATCH
    assert expected_patch_of(REPAIR_PATCH, 60) == REPAIR_PATCH  # past the added line: the last " }"
    assert expected_patch_of(REPAIR_PATCH, 500) == REPAIR_PATCH
    assert expected_patch_of("", 0) == ""


def test_cursor_at_both_ends_of_the_added_line() -> None:
    assert _inline(expected_patch_of(REPAIR_PATCH, 23)).count('+<|user_cursor|>  log("hello " + name);') == 1
    assert _inline(expected_patch_of(REPAIR_PATCH, 46)).count("name);<|user_cursor|>\n") == 1


def test_deletions_do_not_count_and_empty_lines_are_context() -> None:
    patch = "@@ -1,4 +1,4 @@\n a\n\n-gone\n+new\n"
    # " a" (2 bytes) and "" (1) come first: "new" starts at byte 3
    assert _inline(expected_patch_of(patch, 4)) == "@@ -1,4 +1,4 @@\n a\n\n-gone\n+n<|user_cursor|>ew\n"


def test_headers_and_no_newline_lines_do_not_count() -> None:
    patch = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+bc\n"
    assert _inline(expected_patch_of(patch, 1)).endswith("+b<|user_cursor|>c\n")


def test_a_cursor_inside_a_multibyte_character_is_dropped() -> None:
    patch = "@@ -1 +1 @@\n-a\n+é\n"
    assert expected_patch_of(patch, 1) == patch
    assert _inline(expected_patch_of(patch, 2)) == "@@ -1 +1 @@\n-a\n+é<|user_cursor|>\n"


def test_inline_markers_in_added_lines_are_removed() -> None:
    patch = "@@ -1 +1 @@\n-a\n+a<|user_cursor|>b\n+c\n"
    # "ab" and its newline are bytes 0..2: byte 3 starts "c"
    assert expected_patch_of(patch, 3) == "@@ -1 +1 @@\n-a\n+ab\n+c\n#^[CURSOR_POSITION]\n"
    assert _inline(expected_patch_of(patch, 3)) == "@@ -1 +1 @@\n-a\n+ab\n+<|user_cursor|>c\n"


def test_a_patch_without_a_final_newline_stays_so() -> None:
    assert _inline(expected_patch_of("@@ -1 +1 @@\n-a\n+b", 1)) == "@@ -1 +1 @@\n-a\n+b<|user_cursor|>"
