"""The reversal ratio's rules that follow Zed v1.15 (zed-format.md §4.6, §2).

Each test derives its expected value by hand from the rule, in a comment. Rule 1
(only the last event of the cursor file is undone) failed on the port that undid
every event; the others failed on the earlier port (no clipping, difflib,
whole-text SequenceMatcher).
"""

from __future__ import annotations

import warnings

import pytest

from pytest_editpred import EditEvent
from pytest_editpred.metrics import compute_reversal_overlap, reversal_ratio
from pytest_editpred.metrics._histogram import histogram_diff, myers_diff

HEADER = "--- a/f.py\n+++ b/f.py\n"
CURRENT = "a\nhello world\nb\n"
#: the user turned "hello" into "hello world" on row 1 (1-based line 2)
ADDED_WORLD = EditEvent("f.py", "f.py", HEADER + "@@ -2,1 +2,1 @@\n-hello\n+hello world\n")
#: ... and later turned "z" into "a" on row 0
Z_TO_A = EditEvent("f.py", "f.py", HEADER + "@@ -1,1 +1,1 @@\n-z\n+a\n")
UNDO_WORLD = "a\nhello\nb\n"


# ------------------------------------------------ rule 1: only the last event is undone


def test_only_the_last_event_of_the_cursor_file_is_undone() -> None:
    # Issue 23's smallest case. The last event for f.py is Z_TO_A: before =
    # "z\nhello world\nb\n". The user's edit was "z" -> "a"; the prediction deletes
    # " world", which the user typed in an *earlier* event: nothing of the last edit
    # is undone -> 0. (Undoing every event made before "z\nhello\nb\n" -> 1.)
    assert reversal_ratio([ADDED_WORLD, Z_TO_A], "f.py", 0, CURRENT, UNDO_WORLD) == 0.0
    # The same prediction after ADDED_WORLD alone undoes all of that last edit -> 1.
    assert reversal_ratio([ADDED_WORLD], "f.py", 0, CURRENT, UNDO_WORLD) == 1.0


def test_only_the_last_event_is_undone_without_excerpt_row() -> None:
    # Without excerpt_start_row the last event is undone on the whole text hunk by
    # hunk: the same two answers as above.
    assert reversal_ratio([ADDED_WORLD, Z_TO_A], "f.py", None, CURRENT, UNDO_WORLD) == 0.0
    assert reversal_ratio([Z_TO_A, ADDED_WORLD], "f.py", None, CURRENT, UNDO_WORLD) == 1.0


def test_undoing_the_last_edit_counts_whatever_came_before() -> None:
    # Events in the other order: the last one is ADDED_WORLD, and the prediction
    # takes back exactly its " world" -> 6/6 = 1.
    assert reversal_ratio([Z_TO_A, ADDED_WORLD], "f.py", 0, CURRENT, UNDO_WORLD) == 1.0


def test_events_of_other_files_are_not_undone() -> None:
    # Z_TO_A is for g.py: only ADDED_WORLD is undone, as in the single-event case.
    other = EditEvent("g.py", "g.py", Z_TO_A.diff)
    assert reversal_ratio([ADDED_WORLD, other], "f.py", 0, CURRENT, UNDO_WORLD) == 1.0


def test_a_last_accepted_prediction_still_gives_zero() -> None:
    # §4.6: the last event for the file is an accepted prediction -> 0, however
    # much the prediction undoes of the user's earlier edits.
    accepted = EditEvent("f.py", "f.py", Z_TO_A.diff, predicted=True)
    assert reversal_ratio([ADDED_WORLD, accepted], "f.py", 0, CURRENT, UNDO_WORLD) == 0.0


def test_an_earlier_accepted_prediction_does_not_matter() -> None:
    # Only the last event is looked at: an accepted prediction before it is never
    # undone, so the prediction removing its " world" undoes nothing of Z_TO_A -> 0.
    accepted = EditEvent("f.py", "f.py", ADDED_WORLD.diff, predicted=True)
    assert reversal_ratio([accepted, Z_TO_A], "f.py", 0, CURRENT, UNDO_WORLD) == 0.0


def test_a_last_event_with_an_empty_diff_gives_zero() -> None:
    # §4.6: the last event's diff is empty -> 0, though an earlier one is undone.
    empty = EditEvent("f.py", "f.py", "")
    assert reversal_ratio([ADDED_WORLD, empty], "f.py", 0, CURRENT, UNDO_WORLD) == 0.0


# ------------------------------------------- rule 2: hunks clipped to the excerpt rows


def test_a_hunk_straddling_the_excerpt_start_is_clipped() -> None:
    # The excerpt (CURRENT) starts at file row 100. The hunk's new text starts at
    # row 98 ("+99"): "x" (98) and "y" (99) are above the excerpt and dropped, the
    # rest, "a" + "-hello/+hello world", is renumbered to excerpt row 0 and undone:
    # before = "a\nhello\nb\n", and the prediction deletes the user's " world"
    # -> 6/6 = 1. (Unclipped, "x\ny\na\nhello world\n" is not in the excerpt -> 0.)
    diff = HEADER + "@@ -99,4 +99,4 @@\n x\n y\n a\n-hello\n+hello world\n"
    event = EditEvent("f.py", "f.py", diff)
    assert reversal_ratio([event], "f.py", 100, CURRENT, UNDO_WORLD) == 1.0


def test_only_the_clipped_part_of_a_change_is_undone() -> None:
    # The user added "p" (row 99) and "q" (row 100); the excerpt starts at row 100,
    # so only "q" is undone: the excerpt is "q\n" + CURRENT, before = CURRENT.
    # Deleting "q\n" reverses 2 added chars of 2 -> 1; deleting "a\n" instead
    # reverses none -> 0.
    diff = HEADER + "@@ -100,0 +100,2 @@\n+p\n+q\n"
    event = EditEvent("f.py", "f.py", diff)
    current = "q\n" + CURRENT
    assert reversal_ratio([event], "f.py", 100, current, CURRENT) == 1.0
    assert reversal_ratio([event], "f.py", 100, current, "q\nhello world\nb\n") == 0.0


def test_hunks_wholly_outside_the_excerpt_are_dropped() -> None:
    # One hunk above the excerpt (rows 10-11 < 100), one below it (row 500): both
    # dropped, nothing to undo -> 0; the hunk inside still counts -> 1.
    above = "@@ -11,2 +11,2 @@\n-old\n+new\n ctx\n"
    below = "@@ -501,1 +501,1 @@\n-old\n+new\n"
    inside = "@@ -102,1 +102,1 @@\n-hello\n+hello world\n"
    outside = EditEvent("f.py", "f.py", HEADER + above + below)
    assert reversal_ratio([outside], "f.py", 100, CURRENT, UNDO_WORLD) == 0.0
    mixed = EditEvent("f.py", "f.py", HEADER + above + inside + below)
    assert reversal_ratio([mixed], "f.py", 100, CURRENT, UNDO_WORLD) == 1.0


def test_an_older_event_is_not_reached_through_a_newer_one() -> None:
    # The newest event added two import lines at the top of the file (rows 0-1,
    # above the excerpt starting at row 10): clipped, nothing of it is inside, so
    # there is nothing to undo -> 0, though the prediction takes back the older
    # event's " world".
    older = EditEvent("f.py", "f.py", HEADER + "@@ -10,1 +10,1 @@\n-hello\n+hello world\n")
    newer = EditEvent("f.py", "f.py", HEADER + "@@ -0,0 +1,2 @@\n+import os\n+import re\n")
    assert reversal_ratio([older, newer], "f.py", 10, CURRENT, UNDO_WORLD) == 0.0


def test_a_deletion_at_the_end_of_the_excerpt_is_restored() -> None:
    # The user deleted "c" after the excerpt's last row ("b", row 2): a deleted line
    # belongs to the row after it (3 = the excerpt's end) and is kept. before =
    # CURRENT + "c\n"; the prediction puts "c\n" back: LCS("c\n", "c\n") = 2 of 2.
    event = EditEvent("f.py", "f.py", HEADER + "@@ -3,2 +3,1 @@\n b\n-c\n")
    assert reversal_ratio([event], "f.py", 0, CURRENT, CURRENT + "c\n") == 1.0


# ------------------------------------------------------------ rule 3: histogram diff


def test_the_line_diff_splits_at_the_rarest_line_not_the_longest_block() -> None:
    # The user added "u" after "f f f"; the prediction moves it to the top.
    # Histogram: the rarest common line is "u" (once), so the diff is "delete
    # f,f,f at [0, 6)" + "insert f,f,f after u": 12 changed chars, none of them
    # the user's "u\n" at [6, 8) -> 0. (difflib keeps the longer "f f f" block:
    # insert "u\n" at 0, delete "u\n" at [6, 8) -> 2 reversed of 4 = 0.5.)
    assert histogram_diff(list("fffu"), list("ufff")).changes == [(0, 3, 0, 0), (4, 4, 1, 4)]
    assert compute_reversal_overlap("f\nf\nf\n", "f\nf\nf\nu\n", "u\nf\nf\nf\n") == 0.0


def test_the_token_diff_is_a_histogram_diff_too() -> None:
    # One line, so the hunk is refined on tokens. The user added " b" ([5, 7) of
    # "a a a b\n"). Tokens: the rarest common one is "b", so the prediction
    # "b a a a" deletes "a a a " ([0, 6)) and inserts " a a a" after "b": of its
    # 12 changed chars only the space at 5 was the user's -> 1/12. (difflib keeps
    # "a a a": insert "b " at 0, delete " b" -> 2 of 4 = 0.5.)
    ratio = compute_reversal_overlap("a a a\n", "a a a b\n", "b a a a\n")
    assert ratio == pytest.approx(1 / 12)


def test_a_region_of_only_very_common_lines_falls_back_to_myers() -> None:
    # Nothing to trim ("s"/"t", "e"/"f"); the only common line, "x", occurs 64
    # times (> MAX_CHAIN_LEN = 63), so there is no split point and the region goes
    # to the Myers diff: "x" x 64 kept, the ends replaced.
    before = ["s"] + ["x"] * 64 + ["e"]
    after = ["t"] + ["x"] * 64 + ["f"]
    assert histogram_diff(before, after).changes == [(0, 1, 0, 1), (65, 66, 65, 66)]
    assert myers_diff(before, after) == [(0, 1, 0, 1), (65, 66, 65, 66)]


# ----------------------------------------------------- rule 4: cost follows the change


def _big_file(lines: int) -> list[str]:
    row = [f"def function_{i}(value):\n    return value * {i}\n\n" for i in range(lines // 3 + 1)]
    return "".join(row).splitlines(keepends=True)[:lines]


def test_a_small_change_far_from_the_users_edit_in_a_large_file() -> None:
    # 20,000 lines, a user edit near the top, a prediction near the bottom: the
    # common prefix and suffix are trimmed before any diffing. The prediction
    # touches none of the user's edit -> 0. difflib took seconds here.
    lines = _big_file(20_000)
    current = "".join(lines)
    before = "".join(lines[:100] + lines[101:])  # the user added line 100
    predicted = "".join(lines[:19_000] + ["    # note\n"] + lines[19_000:])
    assert compute_reversal_overlap(before, current, predicted) == 0.0


def test_a_whole_file_rewrite_is_diffed_exactly() -> None:
    # Every line but the blank ones of a 20,000-line file rewritten: a few seconds
    # at most, and the diff stays exact (no budget warning). Of the user's added
    # line 100, "    return value * 33", the rewrite changes "return" and "value":
    # 11 reversed chars out of all that changed, a small ratio.
    lines = _big_file(20_000)
    current = "".join(lines)
    before = "".join(lines[:100] + lines[101:])
    predicted = "".join(line.upper() for line in lines)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ratio = compute_reversal_overlap(before, current, predicted)
    assert 0.0 < ratio < 0.001
