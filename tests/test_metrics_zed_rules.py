"""Where the metrics port once differed from Zed (zed-format.md §4.2, §4.5, §4.7).

Each test pins one rule found by checking the port against Zed's own unit tests and
Zed v1.15's metrics code run on real cases. The expected numbers are worked out by
hand in the comments.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_editpred.metrics import (
    JumpLocation,
    TokenChanges,
    _chrf,
    _jump,
    _tokens,
    comparison_units,
    compute_kept_rate,
    delta_chr_f,
    has_isolated_whitespace_changes,
    lcs_length,
    patch_location_match,
    token_changes,
    tokenize,
    wrong_editable_region,
)
from pytest_editpred.metrics._smells import parse_patch

HEADER = "--- a/f.py\n+++ b/f.py\n"


# ----------------------------------------------------- rule 1: \r is a newline character


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        # one newline-class run: \r, \n, \n
        ("\r\n\nfoo", ["\r\n\n", "foo"]),
        # the space run stops at \r; the newline run is "\r\n"; then two spaces
        (" \t\r\n  x", [" \t", "\r\n", "  ", "x"]),
        # a lone \r between spaces is its own newline-class token
        ("a \r b", ["a", " ", "\r", " ", "b"]),
        # \n\r\r\n is one run however the two characters mix
        ("x\n\r\r\ny", ["x", "\n\r\r\n", "y"]),
    ],
)
def test_carriage_return_is_in_the_newline_class(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens
    # no identifier here is split, so the comparison units are the same tokens
    assert comparison_units(text) == tokens


def test_carriage_return_in_comparison_units_next_to_identifiers() -> None:
    # "fooBar\r\n  baz_qux": units keep identifiers whole: fooBar, \r\n, "  ", baz_qux;
    # the tokenizer splits them: foo, Bar, \r\n, "  ", baz, _, qux.
    assert comparison_units("fooBar\r\n  baz_qux") == ["fooBar", "\r\n", "  ", "baz_qux"]
    assert tokenize("fooBar\r\n  baz_qux") == ["foo", "Bar", "\r\n", "  ", "baz", "_", "qux"]


# ------------------------------------ rule 1b: Zed's operator list and camelCase rule


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        # Zed's list has "<-" and none of "===", "!==", "<=>", "&&=", "||=", "//=":
        ("x <- y", ["x", " ", "<-", " ", "y"]),
        ("a===b", ["a", "==", "=", "b"]),
        ("a!==b", ["a", "!=", "=", "b"]),
        ("a<=>b", ["a", "<=", ">", "b"]),
        ("a&&=b||=c", ["a", "&&", "=", "b", "||", "=", "c"]),
        ("a//=b", ["a", "//", "=", "b"]),
        # the first entry that matches: "..." before "..=", ">>>=" before ">>>"
        ("a...=b", ["a", "...", "=", "b"]),
        ("a>>>=b>>>c", ["a", ">>>=", "b", ">>>", "c"]),
        ("a??=b?.c", ["a", "??=", "b", "?.", "c"]),
        # a new segment before an upper-case letter after a digit, too
        ("2A", ["2", "A"]),
        ("V2X", ["V2", "X"]),
        ("my_V2X", ["my", "_", "V2", "X"]),
        ("parseJSON2Data", ["parse", "JSON2", "Data"]),
        # ... but not after a letter that is neither upper- nor lower-case
        ("a日B", ["a日B"]),
        ("ABc", ["A", "Bc"]),
    ],
)
def test_operators_and_segments_are_zeds(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens
    assert "".join(comparison_units(text)) == text


# ----------------------------------------------- rule 2: kept-rate bail-out still counts


def test_kept_rate_bail_out_reports_the_length_deltas() -> None:
    # base "", candidate "y" + 513 spaces (514 bytes), reference "y" (1 byte):
    # | |514 - 0| - |1 - 0| | = 513 > 512, so bail out: kept = recall = 0,
    # candidate_new = 514, reference_new = 1, discarded = candidate_new = 514.
    over = compute_kept_rate("", "y" + " " * 513, "y")
    assert (over.kept_rate, over.recall_rate) == (0.0, 0.0)
    assert (over.candidate_new_chars, over.reference_new_chars) == (514, 1)
    assert (over.discarded_chars, over.kept_chars, over.correctly_deleted_chars) == (514, 0, 0)
    assert over.kept_chars + over.discarded_chars == over.candidate_new_chars


def test_kept_rate_bail_out_deltas_are_absolute_byte_deltas() -> None:
    # base: 400 "é" = 800 bytes. Candidate deletes it all: |0 - 800| = 800.
    # Reference appends "x": |801 - 800| = 1. |800 - 1| = 799 > 512: bail out.
    # The deltas are byte-length deltas, reported as "new" chars even for a deletion:
    # candidate_new = 800, reference_new = 1, discarded = 800; deleted counts stay 0.
    base = "é" * 400
    result = compute_kept_rate(base, "", base + "x")
    assert (result.kept_rate, result.recall_rate) == (0.0, 0.0)
    assert (result.candidate_new_chars, result.reference_new_chars) == (800, 1)
    assert result.discarded_chars == 800
    assert (result.candidate_deleted_chars, result.reference_deleted_chars) == (0, 0)


# --------------------------------------------- rule 3: precision and recall independently


EDIT_ROW_0 = HEADER + "@@ -1,1 +1,1 @@\n-a\n+b\n"


def test_jump_precision_is_one_when_nothing_was_predicted() -> None:
    # expected deletes old row 0 of f.py, the prediction is empty:
    # lines tp 0, fp 0, fn 1 -> precision: tp + fp = 0, so 1.0; recall 0 / 1 = 0.0;
    # F1 = 2 * 1 * 0 / (1 + 0) = 0. Files: tp 0, fp 0, fn 1, the same rates.
    result = patch_location_match(EDIT_ROW_0, "")
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (0, 0, 1)
    assert (result.lines_precision, result.lines_recall, result.lines_f1) == (1.0, 0.0, 0.0)
    assert (result.files_tp, result.files_fp, result.files_fn) == (0, 0, 1)
    assert (result.files_precision, result.files_recall, result.files_f1) == (1.0, 0.0, 0.0)


def test_jump_recall_is_one_when_nothing_was_expected() -> None:
    # nothing expected, the prediction deletes old row 0: tp 0, fp 1, fn 0 ->
    # precision 0 / 1 = 0.0; recall: tp + fn = 0, so 1.0; F1 = 0.
    result = patch_location_match("", EDIT_ROW_0)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (0, 1, 0)
    assert (result.lines_precision, result.lines_recall, result.lines_f1) == (0.0, 1.0, 0.0)
    assert (result.files_precision, result.files_recall, result.files_f1) == (0.0, 1.0, 0.0)


def test_jump_rates_with_counts() -> None:
    # the usual formulas when both denominators are positive: tp 1, fp 1, fn 3 ->
    # P = 1/2, R = 1/4, F1 = 2 * 1/8 / (3/4) = 1/3; all zero -> 1, 1, 1.
    counts = JumpLocation(lines_tp=1, lines_fp=1, lines_fn=3)
    assert (counts.lines_precision, counts.lines_recall) == (0.5, 0.25)
    assert counts.lines_f1 == pytest.approx(1 / 3)
    empty = JumpLocation()
    assert (empty.lines_precision, empty.lines_recall, empty.lines_f1) == (1.0, 1.0, 1.0)
    assert (empty.files_precision, empty.files_recall, empty.files_f1) == (1.0, 1.0, 1.0)


# ------------------------------------------ rule 4: pure insertions anchor beside context


@pytest.mark.parametrize(
    ("hunk", "rows"),
    [
        # "@@ -5": the first old line is row 4. "+b" has no line before it in the
        # hunk; " c" (old row 4) follows it: anchor {4} only (was {3, 4}).
        ("@@ -5,1 +5,2 @@\n+b\n c\n", {4}),
        # " a" (old row 4) precedes "+b", nothing follows: {4} (was {4, 5}).
        ("@@ -5,1 +5,2 @@\n a\n+b\n", {4}),
        # context on both sides: " a" is row 4, " c" row 5: {4, 5} (as before).
        ("@@ -5,2 +5,3 @@\n a\n+b\n c\n", {4, 5}),
        # an insertion with no context at all anchors nowhere (was {0}).
        ("@@ -0,0 +1,2 @@\n+a\n+b\n", set()),
        # a garbage (empty) line after "+b" is not context: only " a", row 4;
        # " c" is old row 5 but is not the line right after the run.
        ("@@ -5,2 +5,3 @@\n a\n+b\n\n c\n", {4}),
        # garbage *before* the run neither sets nor clears the last context row:
        # " a" (row 4) still anchors "+b", and " c" (row 5) follows it (was {5}).
        ("@@ -5,2 +5,3 @@\n a\n\n+b\n c\n", {4, 5}),
        # deleted rows are anchors as before: " a" row 4, "-b" row 5.
        ("@@ -5,3 +5,2 @@\n a\n-b\n c\n", {5}),
        # a run with a deletion is not a pure insertion: only its deleted rows, 5 and 6.
        ("@@ -5,3 +5,2 @@\n a\n-b\n+x\n-c\n d\n", {5, 6}),
    ],
)
def test_pure_insertion_anchors_only_beside_context(hunk: str, rows: set[int]) -> None:
    assert _jump.patch_anchors(HEADER + hunk).rows == ({"f.py": tuple(sorted(rows))} if rows else {})


def test_anchors_across_a_garbage_line_as_zed_counts_them() -> None:
    # Issue 23's case: " a" sets the last context row (0); the empty line is garbage
    # and neither sets nor clears it; "+x" is a pure insertion anchored at 0 and,
    # the next line " b" being context, at the current old row 1. Against an empty
    # prediction both anchors are missed: lines_fn 2 (the old reading gave 1).
    expected = "@@ -1,3 +1,4 @@\n a\n\n+x\n b\n"
    result = patch_location_match(expected, "")
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (0, 0, 2)


def test_the_last_context_row_is_cleared_after_a_run() -> None:
    # " a" (row 4), then the run "-b" (row 5, an anchor), ended by a garbage line;
    # the run clears the last context row. The next run "+y" is a pure insertion
    # with no context row set before it and " d" (row 6) right after it: anchors
    # {5, 6}, not {4, 5, 6}.
    hunk = "@@ -5,3 +5,3 @@\n a\n-b\n\n+y\n d\n"
    assert _jump.patch_anchors(HEADER + hunk).rows == {"f.py": (5, 6)}
    # and a context line after a run sets it again: " c" (row 6) anchors "+z".
    hunk = "@@ -5,3 +5,4 @@\n a\n-b\n c\n+z\n"
    assert _jump.patch_anchors(HEADER + hunk).rows == {"f.py": (5, 6)}


def test_pure_insertion_anchor_counts() -> None:
    # "+b" at the start of a hunk before " c" (old row 9): one anchor, 9. Matched with
    # itself: 1 true positive (the old rule's two anchors, 8 and 9, gave 2).
    patch = HEADER + "@@ -10,1 +10,2 @@\n+b\n c\n"
    result = patch_location_match(patch, patch)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (1, 0, 0)
    # a prediction that deletes old row 8 instead: |8 - 9| = 1 <= 20, still a match.
    deletion = HEADER + "@@ -9,1 +9,0 @@\n-z\n"
    result = patch_location_match(patch, deletion)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (1, 0, 0)


# -------------------------------------------- rule 5: garbage lines end a run of changes


def test_parse_patch_keeps_garbage_lines_in_the_hunk() -> None:
    # the empty line and the unprefixed "note" are garbage: prefix "", the whole line
    # as text. Garbage before any header (diff --git, index) belongs to no hunk.
    patch = "diff --git a/f.py b/f.py\nindex 1..2\n" + HEADER
    patch += "@@ -1,2 +1,3 @@\n a\n+\n\nnote\n+foo\n"
    (hunk,) = parse_patch(patch)
    assert (hunk.path, hunk.old_start, hunk.new_start) == ("f.py", 1, 1)
    assert hunk.lines == ((" ", "a"), ("+", ""), ("", ""), ("", "note"), ("+", "foo"))


@pytest.mark.parametrize("garbage", ["", "note", "\\ No newline at end of file"])
def test_garbage_ends_the_whitespace_scan(garbage: str) -> None:
    # "+" (blank) after context " a"; then a garbage line; then "+foo". The scan
    # backwards stops at " a", forwards at the garbage: no non-blank change beside
    # the blank line in its run, so it is isolated (the old parser skipped garbage
    # and saw "+foo").
    patch = HEADER + f"@@ -1,2 +1,3 @@\n a\n+\n{garbage}\n+foo\n"
    assert has_isolated_whitespace_changes(patch)
    # without the garbage line "+foo" is adjacent: not isolated
    assert not has_isolated_whitespace_changes(HEADER + "@@ -1,2 +1,3 @@\n a\n+\n+foo\n")


def test_garbage_is_not_a_change_itself() -> None:
    # an empty garbage line between two context lines is no blank change.
    assert not has_isolated_whitespace_changes(HEADER + "@@ -1,2 +1,2 @@\n a\n\n b\n")
    # nor does it count as a new-file line: " a" is new line 1, the garbage nothing,
    # "+" (blank) new line 2 = cursor_row 1 + 1, so it is excused at cursor_row 1.
    patch = HEADER + "@@ -1,2 +1,3 @@\n a\n\n+\n b\n"
    assert not has_isolated_whitespace_changes(patch, cursor_row=1)
    assert has_isolated_whitespace_changes(patch, cursor_row=2)


def test_garbage_first_in_the_hunk_is_not_a_deletion_run() -> None:
    # the first hunk's first line is garbage (empty), so it opens with 0 deletions,
    # not 3: the editable region is not flagged as wrong.
    assert not wrong_editable_region(HEADER + "@@ -1,3 +1,0 @@\n\n-a\n-b\n-c\n")
    # garbage before the first header is no hunk: the first hunk opens with 3.
    preamble = "diff --git a/f.py b/f.py\nindex 1..2 100644\n"
    assert wrong_editable_region(preamble + HEADER + "@@ -1,4 +1,1 @@\n-a\n-b\n-c\n+d\n")


# ------------------------------------------------- rule 6: which files count as edited


def test_files_with_only_context_or_headers_are_not_edited() -> None:
    # f.py deletes old row 0 on both sides: files tp 1, lines tp 1. g.py has only a
    # context line (and h.py only headers): not edited, so no file fp or fn
    # (the old rule counted g.py as a file fp, and as a file fn the other way round).
    expected = EDIT_ROW_0
    actual = EDIT_ROW_0 + "--- a/g.py\n+++ b/g.py\n@@ -1,1 +1,1 @@\n x\n"
    actual += "--- a/h.py\n+++ b/h.py\n"
    forward = patch_location_match(expected, actual)
    assert (forward.files_tp, forward.files_fp, forward.files_fn) == (1, 0, 0)
    assert (forward.lines_tp, forward.lines_fp, forward.lines_fn) == (1, 0, 0)
    backward = patch_location_match(actual, expected)
    assert (backward.files_tp, backward.files_fp, backward.files_fn) == (1, 0, 0)
    # a file whose hunk holds only garbage is not edited either
    garbage_only = EDIT_ROW_0 + "--- a/g.py\n+++ b/g.py\n@@ -1,1 +1,1 @@\nnote\n"
    assert patch_location_match(expected, garbage_only).files_fp == 0


def test_an_actual_file_counts_only_with_an_anchor_row() -> None:
    # A new file: one pure insertion with no context, so no anchor rows (rule 4). On
    # the expected side it has a "+" line, so it is an edited file; on the actual
    # side a file counts only with an anchor row, so it is not there. Scored
    # against itself: files tp 0, fp 0, fn 1 (Zed), no lines at all.
    new_file = "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,1 @@\n+x\n"
    result = patch_location_match(new_file, new_file)
    assert (result.files_tp, result.files_fp, result.files_fn) == (0, 0, 1)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (0, 0, 0)
    assert result.lines_f1 == 1.0 and result.files_f1 == 0.0
    # issue 23's form, no file header at all: the same.
    bare = "@@ -0,0 +1,1 @@\n+x\n"
    result = patch_location_match(bare, bare)
    assert (result.files_tp, result.files_fp, result.files_fn) == (0, 0, 1)


def test_lines_before_the_first_header_are_skipped() -> None:
    # Nothing starts with "--- ", "+++" or "@@": the whole patch is preamble.
    assert parse_patch("-a\n+b\n") == []
    assert parse_patch("commit 1234\n\n-a\n+b\n@@ -1,1 +1,1 @@\n-a\n") == [parse_patch("@@ -1,1 +1,1 @@\n-a\n")[0]]
    # an "@@ -1" header with no file header: path "", old row 0, on both sides.
    result = patch_location_match("@@ -1,1 +1,1 @@\n-a\n+b\n", "@@ -1,1 +1,1 @@\n-a\n+c\n")
    assert (result.files_tp, result.files_fp, result.files_fn) == (1, 0, 0)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (1, 0, 0)


def test_change_lines_before_any_hunk_header_go_to_the_empty_path() -> None:
    # Issue 23's case: the actual patch names f.txt but has no "@@": its lines go to
    # a hunk with path "" and start 0 (" a" row 0, "-b" row 1), whatever file was
    # named. So the two patches edit different files: tp 0, fp 1, fn 1.
    expected = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    actual = "--- a/f.txt\n+++ b/f.txt\n a\n-b\n+c\n"
    (hunk,) = parse_patch(actual)
    assert (hunk.path, hunk.old_start) == ("", 0)
    result = patch_location_match(expected, actual)
    assert (result.files_tp, result.files_fp, result.files_fn) == (0, 1, 1)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (0, 1, 1)


def test_a_file_header_inside_a_hunk_renames_later_hunks_without_closing() -> None:
    # A deleted SQL comment "-- old" reads as a file header "--- old": the deletion
    # vanishes, the hunk stays open (its "+new" is still in it, under f.sql), and
    # the next hunk is filed under "old".
    patch = "--- a/f.sql\n+++ b/f.sql\n@@ -1,2 +1,2 @@\n x\n--- old\n+new\n@@ -9,1 +9,1 @@\n-y\n+z\n"
    first, second = parse_patch(patch)
    assert (first.path, first.lines) == ("f.sql", ((" ", "x"), ("+", "new")))
    assert (second.path, second.old_start) == ("old", 9)
    # /dev/null names nothing: the hunk keeps the file named before it.
    (hunk,) = parse_patch("--- a/gone.py\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n")
    assert hunk.path == "gone.py"


# ------------------------------------------------------------------------ rule 7: speed

_LINES = [f"    value_{i} = compute({i}, name='item{i % 7}')" for i in range(20_000)]


def _rewrite(old: list[str], new: list[str]) -> str:
    body = "".join(f"-{line}\n" for line in old) + "".join(f"+{line}\n" for line in new)
    return HEADER + f"@@ -1,{len(old)} +1,{len(new)} @@\n" + body


def test_token_changes_of_a_whole_file_rewrite_are_exact() -> None:
    # One run: 20,000 "-" lines, then 20,000 "+" lines, changed at both ends and in
    # the middle, so trimming the common prefix and suffix alone leaves it all.
    # * line 0: "compute(0," -> "compute(zero,": one token for one: +1 -1;
    # * line 10000: " # note" appended: " ", "#", " ", "note": +4;
    # * line 19999 dropped: its 18 tokens ("    ", value, _, 19999, " ", =, " ",
    #   compute, (, 19999, ",", " ", name, =, ', item0, ', ")") and the "\n" before
    #   it: -19.
    # Totals: inserted 1 + 4 = 5, deleted 1 + 19 = 20.
    new = list(_LINES)
    new[0] = new[0].replace("compute(0,", "compute(zero,")
    new[10_000] += " # note"
    del new[-1]
    patch = _rewrite(_LINES, new)
    assert token_changes(patch) == TokenChanges(5, 20)  # Myers: few edits, exact


def test_token_changes_of_an_unchanged_rewrite() -> None:
    # the same 20,000 lines deleted and added back: no token changes.
    assert token_changes(_rewrite(_LINES, _LINES)) == TokenChanges(0, 0)


def test_token_changes_of_an_unrelated_huge_rewrite_are_upper_bounds_and_say_so() -> None:
    # 20,000 lines replaced by 20,000 unrelated ones: ~340,000 tokens a side, far
    # over the LCS limit. Every token counts, and the result says it is not minimal.
    other = [f"print({i} * {i})" for i in range(20_000)]
    result = token_changes(_rewrite(_LINES, other))
    assert not result.minimal
    assert result.inserted_tokens == len(tokenize("\n".join(other)))
    assert result.deleted_tokens == len(tokenize("\n".join(_LINES)))


def test_jump_location_with_thousands_of_anchor_rows() -> None:
    # expected deletes old rows 0..19999, actual old rows 15..20014. Each actual row
    # r takes the smallest free expected row within 20, r - 15: all 20,000 match.
    expected = HEADER + "@@ -1,20000 +1,0 @@\n" + "-x\n" * 20_000
    actual = HEADER + "@@ -16,20000 +16,0 @@\n" + "-x\n" * 20_000
    result = patch_location_match(expected, actual)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (20_000, 0, 0)


def _greedy_reference(expected: set[int], actual: set[int]) -> tuple[int, int, int]:
    """The matching rule written the slow, obvious way: for each actual row in
    ascending order, the smallest free expected row within 20."""
    free = sorted(expected)
    tp = fp = 0
    for row in sorted(actual):
        best = next((candidate for candidate in free if abs(candidate - row) <= 20), None)
        if best is None:
            fp += 1
        else:
            free.remove(best)
            tp += 1
    return tp, fp, len(free)


def _deletions(rows: set[int]) -> str:
    return "".join(f"@@ -{row + 1},1 +{row + 1},0 @@\n-x\n" for row in sorted(rows))


_rows = st.sets(st.integers(min_value=0, max_value=120), max_size=40)


@settings(database=None, max_examples=300, deadline=None)
@given(_rows, _rows)
def test_fast_matching_is_the_greedy_rule(expected: set[int], actual: set[int]) -> None:
    result = patch_location_match(HEADER + _deletions(expected), HEADER + _deletions(actual))
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == _greedy_reference(expected, actual)


def test_greedy_tie_goes_to_the_smaller_expected_row() -> None:
    # expected rows 10 and 30, actual row 20: both 10 away, 10 is taken; then actual
    # row 41 is 11 from 30: a match. (Taking 30 first would leave 41 unmatched.)
    result = patch_location_match(HEADER + _deletions({10, 30}), HEADER + _deletions({20, 41}))
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (2, 0, 0)


def test_each_actual_row_takes_the_smallest_free_row_not_the_nearest() -> None:
    # Issue 23's case: expected {0, 10}, actual {10, 25}. Row 10 takes 0 (the
    # smallest within 20), row 25 takes 10 (15 away): tp 2. Nearest-first matched
    # 10 with 10 and left 25 with nothing (0 is 25 away): tp 1.
    result = patch_location_match(HEADER + _deletions({0, 10}), HEADER + _deletions({10, 25}))
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (2, 0, 0)


def _naive_lcs(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


_similar = st.lists(st.sampled_from(["a", "b", "c", " ", "\n"]), max_size=40)


@settings(database=None, max_examples=400, deadline=None)
@given(_similar, _similar, st.data())
def test_lcs_length_paths_agree_with_the_dp(a: list[str], b: list[str], data: st.DataObject) -> None:
    # lcs_length trims, then Myers within a budget, else rapidfuzz's DP: each path
    # gives the exact LCS (Myers gives D = len(a) + len(b) - 2 * LCS), and a budget
    # only decides whether Myers answers.
    expected = _naive_lcs(a, b)
    assert lcs_length(a, b) == expected
    if a or b:
        distance = _tokens._myers_distance(a, b, 10**9)
        assert distance == len(a) + len(b) - 2 * expected
        bounded = _tokens._myers_distance(a, b, data.draw(st.integers(min_value=0, max_value=60)))
        assert bounded is None or bounded == distance
    if a:  # one edit apart: only the edit is left after trimming
        edited = list(a)
        edited.insert(len(a) // 2, "z")
        assert lcs_length(a, edited) == len(a)


def test_lcs_length_of_unrelated_sequences_and_of_strings() -> None:
    rng = random.Random(7)
    a = [rng.choice(["def", "x", "(", ")", "\n"]) for _ in range(300)]
    b = [rng.choice(["def", "x", "(", ")", "\n"]) for _ in range(300)]
    assert _tokens._myers_distance(a, b, 1000) is None  # out of budget: the DP answers
    assert lcs_length(a, b) == _naive_lcs(a, b)
    # strings work too (the reversal ratio passes text)
    assert lcs_length("kitten sitting", "sitting kitten") == _naive_lcs(list("kitten sitting"), list("sitting kitten"))


def test_lcs_length_over_the_limit_says_so() -> None:
    with pytest.raises(_tokens.LCSTooLarge, match="over the limit"):
        lcs_length(list("abcd"), list("wxyz"), max_cells=15)
    assert lcs_length(list("abcd"), list("wxyz"), max_cells=16) == 0


# ------------------------------------------------- Zed's unit tests: extract_changed_regions


def test_identical_texts_have_no_changed_region() -> None:
    # Zed's test: extract_changed_regions("identical text", "identical text") gives
    # ("", ""), not the last order - 1 characters as context.
    assert _chrf._changed_region("identical text", "identical text") == ("", "")
    # a real change still keeps up to 5 characters of context on each side
    assert _chrf._changed_region("one two three", "one two four") == (" two three", " two four")


def test_a_change_that_collapsing_undoes_is_no_change_in_every_order() -> None:
    # Expected: nothing changes; actual: "a  b" -> "a b", which whitespace
    # collapsing makes identical to the original. Both regions are then empty, so
    # every order has no n-grams on either side and adds P = R = 1: score 100. (A
    # 4-character region "a b\n" gave orders 1-4 no hits: P = R = 2/6, 33.3.)
    result = delta_chr_f("a  b\n", "a  b\n", "a b\n")
    assert (result.score, result.precision, result.recall) == (100.0, 1.0, 1.0)
