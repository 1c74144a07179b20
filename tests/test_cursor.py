"""Cursor markers, as Zed reads and writes them (zed-format.md §1.7, §4.1 step 2)."""

from __future__ import annotations

import pytest

from pytest_editpred import CursorMarkerError, apply_patch
from pytest_editpred.example import (
    extract_cursor_from_patch,
    format_cursor_excerpt,
    parse_cursor_excerpt,
)


def test_inline_marker_keeps_the_trailing_newline() -> None:
    assert parse_cursor_excerpt("ab<|user_cursor|>c\n") == ("abc\n", 2)


def test_caret_marks_its_byte_column_and_trailing_newlines_are_trimmed() -> None:
    text = "    let x = 42;\n    //      ^[CURSOR_POSITION]\n\n"
    excerpt, offset = parse_cursor_excerpt(text)
    assert excerpt == "    let x = 42;"
    assert excerpt[offset:] == "42;"


def test_less_than_marks_the_indentation_width_not_its_position() -> None:
    excerpt, offset = parse_cursor_excerpt("abcdef\n   // <[CURSOR_POSITION]\nz\n")
    assert offset == 3 and excerpt == "abcdef\nz"


def test_less_than_on_tab_indented_lines_counts_a_tab_as_one() -> None:
    excerpt, offset = parse_cursor_excerpt("\t\t\tfoo\n\t\t\t// <[CURSOR_POSITION]\n")
    assert excerpt[:offset] == "\t\t\t"


def test_column_is_not_clamped_to_the_cursor_line() -> None:
    # terraform--add-comment: the line is "\t/" (2 bytes) and '<' gives column 3,
    # which lands on the first byte of the next line.
    excerpt, offset = parse_cursor_excerpt("\t/\n   // <[CURSOR_POSITION]\nnext\n")
    assert excerpt == "\t/\nnext" and offset == 3 and excerpt[offset:] == "next"


def test_marker_on_the_first_line_uses_the_column_as_offset() -> None:
    assert parse_cursor_excerpt("  ^[CURSOR_POSITION]\nabc\n") == ("abc", 2)


def test_columns_are_utf8_bytes() -> None:
    # '"' is byte 0, "é" bytes 1-2, "a" byte 3: the caret at byte 4 is after "a",
    # and one at byte 2 falls inside "é".
    excerpt, offset = parse_cursor_excerpt('"éa"\n#   ^[CURSOR_POSITION]\n')
    assert excerpt[:offset] == '"éa'
    with pytest.raises(CursorMarkerError) as info:
        parse_cursor_excerpt('"éa"\n# ^[CURSOR_POSITION]\n')
    assert "multi-byte" in info.value.reason


@pytest.mark.parametrize(
    "text,words",
    [
        ("no marker\n", "missing [CURSOR_POSITION]"),
        ("x\n# [CURSOR_POSITION]\n", "must contain '^' or '<'"),
        ("x\n# ^[CURSOR_POSITION]\ny\n# ^[CURSOR_POSITION]\n", "2 [CURSOR_POSITION] markers"),
        ("a<|user_cursor|>b<|user_cursor|>\n", "2 cursor markers"),
        ("a<|user_cursor|>\n# ^[CURSOR_POSITION]\n", "2 cursor markers"),
        ("ab\n#          ^[CURSOR_POSITION]\n", "past the end"),
    ],
)
def test_bad_markers(text: str, words: str) -> None:
    with pytest.raises(CursorMarkerError) as info:
        parse_cursor_excerpt(text)
    assert words in info.value.reason


@pytest.mark.parametrize(
    "line,column,expected_marker",
    [
        ("    let x = 42;", 12, "    //      ^[CURSOR_POSITION]"),
        ("    let x = 42;", 5, "//   ^[CURSOR_POSITION]"),
        ("    let x = 42;", 4, "//  ^[CURSOR_POSITION]"),
        ("    let x = 42;", 0, "// <[CURSOR_POSITION]"),
        ("    let x = 42;", 1, " // <[CURSOR_POSITION]"),
        ("    let x = 42;", 15, "    //         ^[CURSOR_POSITION]"),
    ],
)
def test_writer_matches_zeds_round_trip_cases(line: str, column: int, expected_marker: str) -> None:
    written = format_cursor_excerpt(line, column)
    assert written.split("\n")[1] == expected_marker
    assert parse_cursor_excerpt(written) == (line, column)


def test_writer_at_end_of_file_without_newline() -> None:
    written = format_cursor_excerpt("a\nbc", 4)
    assert parse_cursor_excerpt(written) == ("a\nbc", 4)


def test_expected_cursor_extraction() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-de\n+def test_():\n#         ^[CURSOR_POSITION]\n+    \n"
    expected = extract_cursor_from_patch(patch)
    assert "[CURSOR_POSITION]" not in expected.patch and expected.patch.endswith("+    \n")
    assert expected.cursor_line == 4 and expected.cursor_column == 9
    assert expected.cursor_in_patch == 9  # deletions do not count


def test_expected_cursor_accumulates_across_hunks_like_zed() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n a\n-b\n+B\n@@ -9 +9 @@\n z\n+Z\n#  ^[CURSOR_POSITION]\n"
    expected = extract_cursor_from_patch(patch)
    # context/additions before: "a\n" (2) + "B\n" (2) + "z\n" (2) -> the "Z" line starts at 6.
    assert expected.cursor_in_patch == 6 + 2


def test_less_than_in_a_patch_is_column_zero_and_the_last_cursor_wins() -> None:
    patch = "--- a/f\n+++ b/f\n+x\n# ^[CURSOR_POSITION]\n+yy\n# <[CURSOR_POSITION]\n"
    expected = extract_cursor_from_patch(patch)
    assert expected.cursor_line == 3 and expected.cursor_column == 0


def test_expected_cursor_in_a_later_hunk_is_placed_in_that_hunk() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+AAAA\n@@ -3 +3 @@\n c\n+inserted\n#    ^[CURSOR_POSITION]\n"
    result = apply_patch({"f": "a\nb\nc\nd\n"}, extract_cursor_from_patch(patch))
    text = result.buffers["f"]
    assert text == "AAAA\nb\nc\ninserted\nd\n"
    assert result.cursor is not None
    assert text[: result.cursor[1]].endswith("\ninse")
