"""A wrong answer's failure diff, hunk by hunk (judge/_failure.py), and its report for
each ``--tb`` style and ``-vv`` (integration/failure.py). Whole pytest sessions are in
``test_plugin_failures.py``."""

from __future__ import annotations

from dataclasses import replace

from pytest_editpred import Prediction
from pytest_editpred._textdiff import diff_texts
from pytest_editpred.integration.failure import DEFAULT_HUNKS, DEFAULT_LINES, Failure
from pytest_editpred.judge import Candidate, FailureDiff, judge

BEFORE = "".join(f"value_{i} = compute({i})\n" for i in range(2000))


def changed(text: str, *rows: int, mark: str = "slow") -> str:
    for row in rows:
        text = text.replace(f"value_{row} = compute({row})\n", f"value_{row} = compute({row}, {mark}=True)\n")
    return text


def expected(after: str, path: str = "big.py", cursor: int | None = None) -> Candidate:
    patch = diff_texts(BEFORE, after, f"a/{path}", f"b/{path}").text
    return Candidate(0, patch, {path: after}, None if cursor is None else (path, cursor))


def starts(diff: str) -> list[int]:
    """The old-side start line of each hunk, in the order shown."""
    return [int(line.split()[1].split(",")[0][1:]) for line in diff.splitlines() if line.startswith("@@")]


def diff_of(predicted: str, cursor_row: int, candidate: Candidate | None = None) -> FailureDiff:
    candidate = candidate or expected(changed(BEFORE, cursor_row, mark="fast"))
    offset = BEFORE.index(f"value_{cursor_row} =")
    verdict = judge({"big.py": BEFORE}, ("big.py", offset), [candidate], Prediction(text=predicted))
    return FailureDiff.of(verdict, "big.py", cursor=(offset, BEFORE))


def test_the_nearest_hunks_come_first_and_the_rest_is_counted() -> None:
    # Expected: one edit at row 1000; predicted: five edits far apart, none of them it.
    diff = diff_of(changed(BEFORE, 10, 500, 990, 1500, 1990), 1000)
    shown = diff.nearest(3, 100, "-vv shows them")
    # rows 1000 (the expected edit, missed), 990, then 500 (1500 is 2 rows further)
    assert starts(shown) == [998, 988, 498]
    assert shown.splitlines()[:2] == ["--- expected/big.py", "+++ predicted/big.py"]  # once, first
    assert shown.splitlines()[-1] == "... 27 more lines of diff, 3 more hunks: -vv shows them"
    assert diff.size == 2 + 6 * 9  # the header, six hunks of 9 lines
    # The whole diff is in file order.
    assert starts(diff.whole()) == [8, 498, 988, 998, 1498, 1988]


def test_the_line_budget_stops_at_a_hunk_that_does_not_fit() -> None:
    diff = diff_of(changed(BEFORE, 10, 500, 990, 1500, 1990), 1000)
    two = diff.nearest(3, 2 + 2 * 9 + 8, "more")  # room for two hunks, not three
    assert starts(two) == [998, 988]
    assert two.splitlines()[-1] == "... 36 more lines of diff, 4 more hunks: more"
    everything = diff.nearest(10, 1000, "more")
    assert starts(everything) == [998, 988, 498, 1498, 8, 1988]
    assert "more lines of diff" not in everything


def test_a_nearest_hunk_longer_than_the_budget_is_cut_and_counted() -> None:
    # The prediction rewrites 100 rows around the cursor: one hunk of 207 lines.
    rows = range(950, 1050)
    diff = diff_of(changed(BEFORE, *rows), 1000)
    shown = diff.nearest(DEFAULT_HUNKS, DEFAULT_LINES, "-vv shows them").splitlines()
    assert len(shown) == DEFAULT_LINES + 1
    assert shown[-1] == f"... {diff.size - DEFAULT_LINES} more lines of diff: -vv shows them"
    assert shown[2] == "@@ -948,106 +948,106 @@" and diff.size == 2 + 207


def test_other_files_come_after_the_cursor_files_hunks() -> None:
    # The best expected patch edits the cursor file; the prediction also creates a file.
    candidate = expected(changed(BEFORE, 1000, mark="fast"))
    offset = BEFORE.index("value_1000 =")
    prediction = Prediction(text=changed(BEFORE, 1990))
    verdict = judge({"big.py": BEFORE}, ("big.py", offset), [candidate], prediction)
    extra = replace(verdict, predicted_buffers={**verdict.predicted_buffers, "a.py": "x\n"})
    diff = FailureDiff.of(extra, "big.py", cursor=(offset, BEFORE))
    shown = diff.nearest(3, 100, "more").splitlines()
    headers = [line for line in shown if line.startswith(("--- ", "+++ "))]
    assert headers == ["--- expected/big.py", "+++ predicted/big.py", "--- expected/a.py", "+++ predicted/a.py"]
    assert starts("\n".join(shown)) == [998, 1988, 0]
    # In the whole diff, files are in path order.
    assert [line for line in diff.whole().splitlines() if line.startswith("--- ")] == [
        "--- expected/a.py",
        "--- expected/big.py",
    ]


def test_the_expected_cursor_orders_the_hunks_when_the_patch_marks_one() -> None:
    after = changed(BEFORE, 1500, mark="fast")
    candidate = expected(after, cursor=after.index("value_1500 ="))
    # The example's cursor is at the top, but the patch puts it at row 1500.
    diff = diff_of(changed(BEFORE, 10, 1400), 0, candidate)
    assert starts(diff.nearest(3, 100, "more")) == [1498, 1398, 8]


FAILURE = Failure(
    "big--one: the prediction matches none of the 1 expected patch(es)",
    "best: expected patch 1 of 1 (Zed's rule); delta-chrF 0.0, reversal 0.00",
    ("the first note", "the second note"),
    diff_of(changed(BEFORE, 10, 500, 990, 1500, 1990), 1000),
)


def test_each_style_renders_its_own_body() -> None:
    assert FAILURE.render("line", 0) == "" == FAILURE.render("line", 2)
    default = FAILURE.render("auto", 0).splitlines()
    assert default[:5] == [
        FAILURE.headline,
        FAILURE.scores,
        "note: the first note",
        "note: the second note",
        "‸ marks the cursors; - expected, + predicted; the hunks nearest the cursor first",
    ]
    assert FAILURE.render("long", 1) == FAILURE.render("native", 0) == FAILURE.render("no", 0) == "\n".join(default)
    short = FAILURE.render("short", 0).splitlines()
    assert short[:4] == [
        FAILURE.headline,
        FAILURE.scores,
        "(2 notes: --tb=long shows them)",
        "‸ marks the cursors; - expected, + predicted; the hunk nearest the cursor",
    ]
    assert starts("\n".join(short)) == [998]
    assert short[-1] == "... 45 more lines of diff, 5 more hunks: --tb=long or -vv shows more"
    whole = FAILURE.render("auto", 2).splitlines()
    assert whole[4] == "‸ marks the cursors; - expected, + predicted"
    assert "\n".join(whole[5:]) + "\n" == FAILURE.diff.whole()
    assert FAILURE.render("short", 2).splitlines()[3:] == whole[4:]  # -vv: the whole diff, notes counted


def test_past_what_vv_shows_the_default_says_how_much_it_shows() -> None:
    # Every row rewritten: one hunk of 4,001 lines, of which -vv shows 400.
    rewrite = Failure("x: wrong", "best: ...", (), diff_of(changed(BEFORE, *range(2000)), 1000))
    default = rewrite.render("auto", 0).splitlines()
    assert len(default) == 3 + DEFAULT_LINES + 1
    assert default[-1] == (
        f"... {rewrite.diff.size - DEFAULT_LINES} more lines of diff: -vv shows the first 400 lines of the whole diff"
    )
    whole = rewrite.render("auto", 2).splitlines()
    assert whole[-1] == f"... {rewrite.diff.size - 400} more lines of diff" and len(whole) == 3 + 401
