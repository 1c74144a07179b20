"""Editable-context coverage (authoring-and-context §4): the worked examples C1–C4
field for field, the report and summary of C1+C2+C3, and each rule of §4.2–§4.5
on its own (anchors, path stripping, budget, source filter, tie-break, edges).

The interval arithmetic is also checked against a naive row-set reference on
random inputs, since the module never builds sets of rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_editpred._exceptions import ConfigError, JSONFormatError
from pytest_editpred.example import from_json
from pytest_editpred.example._example import RetrievedExcerpt, RetrievedFile
from pytest_editpred.metrics import (
    CONTEXT_SOURCES,
    CONTEXT_TYPES,
    ContextCoverage,
    ContextEvaluation,
    ContextSummary,
    context_budget_bytes,
    editable_context_coverage,
    excerpt_source,
    expected_context,
    filter_context_sources,
    format_context_report,
    limit_retrieved_context_to_bytes,
    parse_context_types,
    retrieved_context,
    strip_first_component,
)
from pytest_editpred.zeta import RelatedExcerpt, RelatedFile

# ---------------------------------------------------------------------- worked examples

C1_PATCH = "--- a/src/app.py\n+++ b/src/app.py\n@@ -13,3 +13,3 @@\n c\n-d\n+D\n e\n"
C2_PATCH = "--- a/src/util.py\n+++ b/src/util.py\n@@ -42,1 +42,2 @@\n     return 1\n+    # done\n"
C2_RELATED = (
    RetrievedFile(
        "proj/src/util.py",
        200,
        (
            RetrievedExcerpt(40, 42, "def helper():\n    return 1\n", 0, "lsp"),
            RetrievedExcerpt(100, 103, "x\ny\nz\n", 1, "bm25"),
        ),
    ),
)
C3_PATCH = "--- a/src/b.rs\n+++ b/src/b.rs\n@@ -5,2 +5,3 @@\n fn b() {\n+    todo!();\n }\n"
C4_PATCH = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -14,1 +14,1 @@\n-fn h(){}\n+fn h() {}\n"
E1 = RetrievedExcerpt(10, 13, "fn f() {\n    g();\n}\n", 1)
E2 = RetrievedExcerpt(10, 12, "fn f() {\n    g();\n", 2)
E3 = RetrievedExcerpt(12, 15, "}\n\nfn h(){}\n", 3)
E4 = RetrievedExcerpt(20, 21, "x\n", 4)
C4_RELATED = (
    RetrievedFile("proj/src/big.rs", 3, (RetrievedExcerpt(0, 3, "aaaaaaaaaaa\n" * 3, 0),)),
    RetrievedFile("proj/src/lib.rs", 30, (E1, E2, E3, E4)),
)


def c1() -> ContextEvaluation:
    return editable_context_coverage([C1_PATCH], "src/app.py", 10, "a\nb\nc\nd\ne", None)


def c2(**options: object) -> ContextEvaluation:
    return editable_context_coverage([C2_PATCH], "src/app.py", 0, "import util\n\nrun()", C2_RELATED, **options)  # type: ignore[arg-type]


def c3(related: tuple[RetrievedFile, ...] | None = None) -> ContextEvaluation:
    return editable_context_coverage([C3_PATCH], "src/a.rs", 0, "fn a() {\n}", related)


def counts(result: ContextEvaluation) -> tuple[int, ...]:
    c = result.coverage
    assert c is not None
    return (c.lines_tp, c.lines_fp, c.lines_fn, c.files_tp, c.files_fp, c.files_fn)


def rates(result: ContextEvaluation) -> tuple[float, ...]:
    c = result.coverage
    assert c is not None
    return tuple(
        round(v, 4)
        for v in (c.lines_precision, c.lines_recall, c.lines_f1, c.files_precision, c.files_recall, c.files_f1)
    )


def test_c1_the_edit_inside_the_cursor_excerpt() -> None:
    result = c1()
    assert counts(result) == (5, 0, 0, 1, 0, 0)
    assert rates(result) == (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    assert result.retrieved_context_bytes is None
    assert expected_context(C1_PATCH).anchors == {"src/app.py": (13,)}


def test_c2_found_by_lsp_with_bm25_noise() -> None:
    result = c2()
    assert counts(result) == (2, 6, 0, 1, 1, 0)
    assert rates(result) == (0.25, 1.0, 0.4, 0.5, 1.0, 0.6667)
    assert result.retrieved_context_bytes == 27 + 6
    assert expected_context(C2_PATCH).anchors == {"src/util.py": (41,)}  # no context after the run


def test_c2_type_lsp_filters_the_bm25_excerpt_out() -> None:
    result = c2(sources=parse_context_types("lsp"))
    assert counts(result) == (2, 3, 0, 1, 1, 0)
    assert rates(result) == (0.4, 1.0, 0.5714, 0.5, 1.0, 0.6667)
    assert result.retrieved_context_bytes == 27


def test_c2_a_limit_of_3_tokens_skips_the_lsp_excerpt_and_keeps_bm25() -> None:
    budget = context_budget_bytes(3)
    assert budget == 9
    result = c2(budget_bytes=budget)
    assert counts(result) == (0, 6, 1, 1, 1, 0)
    assert rates(result) == (0.0, 0.0, 0.0, 0.5, 1.0, 0.6667)
    assert result.retrieved_context_bytes == 6


def test_c3_the_wrong_file_entirely() -> None:
    result = c3()
    assert counts(result) == (0, 2, 2, 0, 1, 1)
    assert rates(result) == (0.0,) * 6
    assert result.retrieved_context_bytes is None
    assert expected_context(C3_PATCH).anchors == {"src/b.rs": (4, 5)}  # both neighbours


def test_c4_the_budget_skips_and_continues() -> None:
    kept = limit_retrieved_context_to_bytes(C4_RELATED, context_budget_bytes(10))
    assert [(f.path, f.excerpts) for f in kept] == [("proj/src/lib.rs", (E1, E3))]
    result = editable_context_coverage(
        [C4_PATCH], "src/main.rs", 0, "mod lib;\n", C4_RELATED, budget_bytes=context_budget_bytes(10)
    )
    assert counts(result) == (5, 1, 0, 1, 1, 0)
    assert rates(result) == (0.8333, 1.0, 0.9091, 0.5, 1.0, 0.6667)
    assert result.retrieved_context_bytes == 32  # full texts: above the 30-byte budget


# ------------------------------------------------------------------ report and summary

SEPARATOR = "─" * 120
# Zed's columns: a rate is {:>5.1}% (6 wide), every count {:>5}.
HEADER = "Example".ljust(40) + "  LineP  LineR LineF1   LTP   LFP   LFN  FileP  FileR FileF1   FTP   FFP   FFN"


def sized(*sizes: int) -> list[ContextEvaluation]:
    """C1, each with one related file of one row holding that many bytes."""
    return [
        editable_context_coverage(
            [C1_PATCH],
            "src/app.py",
            10,
            "a\nb\nc\nd\ne",
            (RetrievedFile("proj/other.py", 1, (RetrievedExcerpt(0, 1, "x" * (size - 1) + "\n"),)),),
        )
        for size in sizes
    ]


def no_patch(related: tuple[RetrievedFile, ...] | None = C2_RELATED) -> ContextEvaluation:
    """An example with no expected patch: no coverage, yet its related files count bytes."""
    return editable_context_coverage([], "src/app.py", 0, "import util\n\nrun()", related)


def test_report_of_c1_c2_c3() -> None:
    report = format_context_report([("c1", c1()), ("c2", c2()), ("c3", c3())])
    assert report.split("\n") == [
        SEPARATOR,
        HEADER,
        SEPARATOR,
        "c1".ljust(40) + " 100.0% 100.0% 100.0%     5     0     0 100.0% 100.0% 100.0%     1     0     0",
        "c2".ljust(40) + "  25.0% 100.0%  40.0%     2     6     0  50.0% 100.0%  66.7%     1     1     0",
        "c3".ljust(40) + "   0.0%   0.0%   0.0%     0     2     2   0.0%   0.0%   0.0%     0     1     1",
        SEPARATOR,
        "TOTAL / AVERAGE".ljust(40) + "  41.7%  66.7%  46.7%     7     8     2  50.0%  66.7%  55.6%     2     2     1",
        SEPARATOR,
        "Evaluated editable context coverage for 3 examples",
        "Retrieved context size: 33 bytes avg (1 examples)",
        "",  # the blank line
        "",
    ]


def test_every_count_column_is_5_wide_and_every_rate_column_6() -> None:
    # Counts of 5 digits fill their columns exactly, with one space between columns.
    big = ContextEvaluation(ContextCoverage(12345, 99999, 10000, 23456, 88888, 20000, 12345), None)
    row = format_context_report([("big", big)]).split("\n")[3]
    assert row == "big".ljust(40) + "  11.0%  19.0%  13.9% 12345 99999 10000  20.9%  54.0%  30.1% 23456 88888 20000"
    # Column by column, each header title and each cell end at the same place.
    ends = [40]
    for width in (6, 6, 6, 5, 5, 5, 6, 6, 6, 5, 5, 5):
        ends.append(ends[-1] + 1 + width)
    titles = "LineP LineR LineF1 LTP LFP LFN FileP FileR FileF1 FTP FFP FFN".split()
    cells = row[41:].split()
    for (start, end), title, cell in zip(zip(ends, ends[1:]), titles, cells):
        assert HEADER[start + 1 : end].lstrip() == title
        assert row[start:end] == " " + cell.rjust(end - start - 1)
    assert len(HEADER) == len(row) == ends[-1]


def test_report_retrieved_size_is_the_mean_rounded_half_to_even() -> None:
    # 124 bytes over 5 examples: 24.8 in the summary, "25" printed (Rust's {:.0}).
    five = sized(24, 25, 25, 25, 25)
    assert ContextSummary.from_results(five).avg_retrieved_context_bytes == 24.8
    report = format_context_report([(f"e{i}", result) for i, result in enumerate(five)])
    assert report.endswith("\nRetrieved context size: 25 bytes avg (5 examples)\n\n")
    # A half rounds to even, as Rust's {:.0} does (half up would print 25 and 17):
    # 49 over 2 is 24.5, printed 24; C2's 33 and C3's empty list, 16.5, printed 16.
    two = format_context_report([(f"e{i}", result) for i, result in enumerate(sized(24, 25))])
    assert "\nRetrieved context size: 24 bytes avg (2 examples)\n" in two
    report = format_context_report([("c1", c1()), ("c2", c2()), ("c3", c3(related=()))])
    assert "\nRetrieved context size: 16 bytes avg (2 examples)\n" in report
    without = format_context_report([("c1", c1()), ("c3", c3())])
    assert "Retrieved context size" not in without


def test_an_example_with_no_expected_patch_has_no_row() -> None:
    report = format_context_report([("c1", c1()), ("nothing", no_patch()), ("c3", c3())])
    lines = report.split("\n")
    assert [line.split()[0] for line in lines[3:5]] == ["c1", "c3"]
    assert lines[5] == SEPARATOR
    assert not any(line.startswith("nothing") for line in lines)
    assert "Evaluated editable context coverage for 2 examples" in lines
    # its related files still count: 33 bytes over 1 example
    assert "Retrieved context size: 33 bytes avg (1 examples)" in lines


def test_nothing_follows_the_table_when_no_example_has_a_coverage() -> None:
    report = format_context_report([("nothing", no_patch()), ("bare", no_patch(None))])
    assert report == "\n".join([SEPARATOR, HEADER, SEPARATOR, SEPARATOR]) + "\n"
    assert format_context_report([]) == report


def test_report_lists_20_rows_unless_verbose_but_totals_cover_all() -> None:
    rows = [(f"ex{i:02}", c1()) for i in range(25)]
    short = format_context_report(rows)
    assert "ex19 " in short and "ex20 " not in short
    assert "... and 5 more (use --verbose to see all 25 examples)" in short
    assert "Evaluated editable context coverage for 25 examples" in short
    assert next(line for line in short.split("\n") if line.startswith("TOTAL")).split()[6] == str(5 * 25)
    assert "ex24 " in format_context_report(rows, verbose=True)
    # Rows without an expected patch take no place among the 20.
    mixed = [("nothing", no_patch())] * 3 + rows[:20]
    assert "more" not in format_context_report(mixed)


def test_summary_json_of_c1_c2_c3() -> None:
    summary = ContextSummary.from_results([c1(), c2(), c3()]).to_summary_json()
    assert summary == {
        "editable_context_examples": 3,
        "avg_editable_context_lines_precision": pytest.approx(1.25 / 3),
        "avg_editable_context_lines_recall": pytest.approx(2 / 3),
        "avg_editable_context_lines_f1": pytest.approx(1.4 / 3),
        "editable_context_lines_tp": 7,
        "editable_context_lines_fp": 8,
        "editable_context_lines_fn": 2,
        "avg_editable_context_files_precision": pytest.approx(0.5),
        "avg_editable_context_files_recall": pytest.approx(2 / 3),
        "avg_editable_context_files_f1": pytest.approx((1 + 2 / 3) / 3),
        "editable_context_files_tp": 2,
        "editable_context_files_fp": 2,
        "editable_context_files_fn": 1,
        "avg_retrieved_context_bytes": 33.0,
        "total_retrieved_context_bytes": 33,
        "retrieved_context_examples": 1,
    }
    assert list(summary) == [  # SummaryJson's order
        "editable_context_examples",
        "avg_editable_context_lines_precision",
        "avg_editable_context_lines_recall",
        "avg_editable_context_lines_f1",
        "editable_context_lines_tp",
        "editable_context_lines_fp",
        "editable_context_lines_fn",
        "avg_editable_context_files_precision",
        "avg_editable_context_files_recall",
        "avg_editable_context_files_f1",
        "editable_context_files_tp",
        "editable_context_files_fp",
        "editable_context_files_fn",
        "avg_retrieved_context_bytes",
        "total_retrieved_context_bytes",
        "retrieved_context_examples",
    ]


def test_summary_omits_what_applies_to_nothing() -> None:
    assert ContextSummary.from_results([]).to_summary_json() == {}
    only_sizes = ContextSummary.from_results([ContextEvaluation(None, 10), ContextEvaluation(None, 5)])
    assert only_sizes.to_summary_json() == {
        "avg_retrieved_context_bytes": 7.5,
        "total_retrieved_context_bytes": 15,
        "retrieved_context_examples": 2,
    }


def test_empty_related_files_count_as_a_zero_byte_example_none_does_not() -> None:
    assert c3(related=()).retrieved_context_bytes == 0
    assert c3(related=None).retrieved_context_bytes is None
    summary = ContextSummary.from_results([c2(), c3(related=())])
    assert (summary.retrieved_context_examples, summary.avg_retrieved_context_bytes) == (2, 16.5)
    assert ContextSummary.from_results([c2(), c3()]).avg_retrieved_context_bytes == 33


def test_the_summary_json_writes_the_mean_bytes_as_a_decimal() -> None:
    # Zed's avg_retrieved_context_bytes is an f64: 124 bytes over 5 is 24.8, and a
    # whole mean is still written as a float (serde_json writes 33.0), never the
    # integer quotient; the total and the count stay integers.
    five = ContextSummary.from_results(sized(24, 25, 25, 25, 25)).to_summary_json()
    assert json.dumps(five, indent=2).splitlines()[-4:-1] == [
        '  "avg_retrieved_context_bytes": 24.8,',
        '  "total_retrieved_context_bytes": 124,',
        '  "retrieved_context_examples": 5',
    ]
    assert '"avg_retrieved_context_bytes": 33.0,' in json.dumps(ContextSummary.from_results([c2()]).to_summary_json())


# ------------------------------------------------------------------ expected side rules


def test_a_deleted_sql_comment_reads_as_a_file_header() -> None:
    patch = "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n select 1;\n--- old comment\n"
    expected = expected_context(patch)
    assert expected.anchors == {} and expected.files == frozenset()
    result = editable_context_coverage([patch], "q.sql", 0, "select 1;\n-- old comment", None)
    assert counts(result) == (0, 2, 0, 0, 1, 0)
    c = result.coverage
    assert c is not None and c.lines_recall == 1.0 and c.lines_precision == 0.0


def test_a_header_inside_a_hunk_renames_later_hunks_but_not_the_open_one() -> None:
    patch = "--- a/q.sql\n+++ b/q.sql\n@@ -10,3 +10,2 @@\n a\n--- gone\n-b\n c\n@@ -30,2 +29,2 @@\n-x\n+y\n"
    expected = expected_context(patch)
    # the header line takes no row: -b is row 10, not 11
    assert expected.anchors == {"q.sql": (10,), "gone": (29,)}
    assert expected.files == {"q.sql", "gone"}


def test_an_added_line_starting_with_two_pluses_is_eaten_too() -> None:
    patch = "--- a/x.c\n+++ b/x.c\n@@ -3,2 +3,3 @@\n a\n+++ counter;\n b\n"
    assert expected_context(patch).files == frozenset()


def test_lines_before_the_first_header_are_skipped() -> None:
    patch = "diff --git a/x b/x\nindex 1..2\n-not a change\n+nor this\n--- a/x\n+++ b/x\n@@ -5,1 +5,1 @@\n-o\n+n\n"
    assert expected_context(patch).anchors == {"x": (4,)}


def test_changes_before_any_hunk_header_go_to_path_empty_at_row_0() -> None:
    patch = "--- a/x\n+++ b/x\n k\n-gone\n"
    assert expected_context(patch).anchors == {"": (1,)}
    assert expected_context(patch).files == {""}


def test_dev_null_names_no_file_and_a_new_file_has_no_anchor() -> None:
    patch = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    expected = expected_context(patch)
    assert expected.files == {"new.py"} and expected.anchors == {}
    deleted = expected_context("--- a/old.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")
    assert deleted.anchors == {"old.py": (0, 1)}


def test_a_garbage_line_keeps_the_last_context_row_but_ends_the_run() -> None:
    # context row 4, garbage, insertion: still anchored on row 4; an empty line
    # right after the run is garbage, so row 5 is not an anchor
    patch = "--- a/f\n+++ b/f\n@@ -5,3 +5,4 @@\n a\n\\ garbage\n+new\n\n b\n"
    assert expected_context(patch).anchors == {"f": (4,)}
    # the same without garbage: both neighbours
    clean = "--- a/f\n+++ b/f\n@@ -5,2 +5,3 @@\n a\n+new\n b\n"
    assert expected_context(clean).anchors == {"f": (4, 5)}


def test_the_last_context_row_is_cleared_after_a_run() -> None:
    # ' a' row 0, '-b' row 1, then '+c' right after garbage: the first run cleared
    # the context row and no context follows, so the insertion adds nothing
    patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\nGARBAGE\n+c\n"
    assert expected_context(patch).anchors == {"f": (1,)}


def test_a_run_with_a_deletion_anchors_only_its_deleted_rows() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -20,4 +20,4 @@\n a\n+x\n-b\n-c\n+y\n d\n"
    assert expected_context(patch).anchors == {"f": (20, 21)}


def test_the_hunk_header_is_trusted_as_file_rows() -> None:
    wrong = C1_PATCH.replace("@@ -13,3 +13,3 @@", "@@ -100,3 +100,3 @@")
    result = editable_context_coverage([wrong], "src/app.py", 10, "a\nb\nc\nd\ne", None)
    assert counts(result) == (0, 5, 1, 1, 0, 0)


def test_relevant_rows_are_clamped_at_0_and_merged() -> None:
    expected = expected_context("--- a/f\n+++ b/f\n@@ -1,1 +1,0 @@\n-a\n@@ -31,1 +30,0 @@\n-b\n")
    assert expected.anchors == {"f": (0, 30)}
    assert expected.relevant("f") == [(0, 51)]


# ------------------------------------------------------------------ retrieved side rules


@pytest.mark.parametrize(
    ("stored", "stripped"),
    [
        ("proj/src/x.rs", "src/x.rs"),
        ("./proj/x.rs", "proj/x.rs"),
        ("/abs/x.rs", "abs/x.rs"),
        ("proj//src/./x.rs", "src/x.rs"),
        ("x.rs", ""),
        ("src/util.py", "util.py"),
        ("proj/src/", "src"),
        ("proj/../x", "../x"),
    ],
)
def test_related_paths_lose_their_first_component(stored: str, stripped: str) -> None:
    assert strip_first_component(stored) == stripped


def test_the_cursor_path_is_never_stripped_and_related_paths_always_are() -> None:
    related = (RetrievedFile("src/app.py", 9, (RetrievedExcerpt(50, 52, "a\nb\n"),)),)
    context = retrieved_context("src/app.py", 0, "x", related)
    assert dict(context.rows) == {"src/app.py": ((0, 1),), "app.py": ((50, 52),)}


def test_the_cursor_excerpt_needs_a_start_row_and_counts_lines_as_rust() -> None:
    assert dict(retrieved_context("a", None, "x\ny", None).rows) == {}
    assert dict(retrieved_context("a", 3, "x\ny\n", None).rows) == {"a": ((3, 5),)}  # final \n opens no line
    assert dict(retrieved_context("a", 3, "x\n\ny", None).rows) == {"a": ((3, 6),)}
    assert dict(retrieved_context("a", 3, 4, None).rows) == {"a": ((3, 7),)}  # a line count


def test_overlapping_excerpts_count_once() -> None:
    related = (RetrievedFile("p/f", 99, (RetrievedExcerpt(0, 10, "x\n" * 10), RetrievedExcerpt(5, 15, "y\n" * 10, 1))),)
    patch = "--- a/f\n+++ b/f\n@@ -61,1 +61,1 @@\n-a\n+b\n"  # anchor 60: window 40..=80
    result = editable_context_coverage([patch], "g", None, "", related)
    assert counts(result) == (0, 15, 1, 1, 0, 0)
    assert result.retrieved_context_bytes == 40


def test_the_cursor_excerpt_ignores_the_budget() -> None:
    result = c2(budget_bytes=0)
    assert counts(result) == (0, 3, 1, 0, 1, 1)
    assert result.retrieved_context_bytes == 0


# ------------------------------------------------------------------------------ budget


def related(*excerpts: RetrievedExcerpt, path: str = "p/f") -> tuple[RetrievedFile, ...]:
    return (RetrievedFile(path, 999, excerpts),)


def test_an_excerpt_that_reaches_the_budget_exactly_fits() -> None:
    excerpt = RetrievedExcerpt(0, 2, "abc\nde\n")
    assert limit_retrieved_context_to_bytes(related(excerpt), 7)[0].excerpts == (excerpt,)
    assert limit_retrieved_context_to_bytes(related(excerpt), 6) == []


def test_only_text_lines_inside_the_row_range_cost_bytes() -> None:
    surplus = RetrievedExcerpt(0, 1, "a\n" + "b" * 100 + "\n")  # costs 2 bytes, not 104
    assert limit_retrieved_context_to_bytes(related(surplus), 2)[0].excerpts == (surplus,)


def test_bytes_are_utf8_and_lines_keep_their_newline() -> None:
    excerpt = RetrievedExcerpt(0, 1, "é")  # 2 bytes, no newline
    assert limit_retrieved_context_to_bytes(related(excerpt), 1) == []
    assert len(limit_retrieved_context_to_bytes(related(excerpt), 2)) == 1


def test_a_selected_excerpt_covers_its_whole_row_range() -> None:
    # the first excerpt's text has one line but its range is 0..5: a later excerpt
    # inside rows 1..4 adds nothing and is skipped
    wide = RetrievedExcerpt(0, 5, "a\n")
    inner = RetrievedExcerpt(2, 4, "c\nd\n", 1)
    assert limit_retrieved_context_to_bytes(related(wide, inner), 100)[0].excerpts == (wide,)


def test_order_then_file_then_excerpt_and_output_in_original_order() -> None:
    files = (
        RetrievedFile("p/a", 9, (RetrievedExcerpt(0, 1, "aaaa\n", 2), RetrievedExcerpt(5, 6, "b\n", 0))),
        RetrievedFile("p/b", 9, (RetrievedExcerpt(0, 1, "ccc\n", 0),)),
    )
    # order 0 first: p/a's "b\n" (2) then p/b's "ccc\n" (4) -> 6; "aaaa\n" (5) no longer fits in 10
    kept = limit_retrieved_context_to_bytes(files, 10)
    assert [(f.path, [e.text for e in f.excerpts]) for f in kept] == [("p/a", ["b\n"]), ("p/b", ["ccc\n"])]
    kept = limit_retrieved_context_to_bytes(files, 11)
    assert [(f.path, [e.text for e in f.excerpts]) for f in kept] == [("p/a", ["aaaa\n", "b\n"]), ("p/b", ["ccc\n"])]


def test_covered_rows_are_per_file() -> None:
    files = (
        RetrievedFile("p/a", 9, (RetrievedExcerpt(0, 1, "x\n"),)),
        RetrievedFile("p/b", 9, (RetrievedExcerpt(0, 1, "x\n"),)),
    )
    assert len(limit_retrieved_context_to_bytes(files, 4)) == 2


def test_context_budget_is_three_bytes_per_token() -> None:
    assert context_budget_bytes(4000) == 12000
    with pytest.raises(ConfigError, match="-1"):
        context_budget_bytes(-1)


# ------------------------------------------------------------------------------ --type


def test_type_values_and_their_sources() -> None:
    editable = {"cursor_excerpt", "current_file", "edit_history", "edit_history_file", "git_log", "bm25"}
    assert parse_context_types("editable") == editable
    assert parse_context_types("all") == editable | {"lsp"}
    assert "oracle_file" not in parse_context_types("all")
    assert parse_context_types("none") == frozenset()
    assert parse_context_types("lsp,bm25") == {"lsp", "bm25"}
    assert parse_context_types(["git-log", "oracle-file,oracle-snippet"]) == {
        "git_log",
        "oracle_file",
        "oracle_snippet",
    }
    assert parse_context_types("none,lsp") == {"lsp"}
    assert parse_context_types("current-file, edit-history-file") == {"current_file", "edit_history_file"}
    assert set().union(*CONTEXT_TYPES.values()) == set(CONTEXT_SOURCES)


@pytest.mark.parametrize("value", ["lsp,bm2", "LSP", "lsp,", "current_file"])
def test_an_unknown_type_names_the_bad_value_and_the_valid_ones(value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_context_types(value)
    text = str(raised.value)
    bad = value.split(",")[-1]
    assert repr(bad) in text
    for name in ("lsp", "current-file", "editable", "all", "none"):
        assert name in text


def test_the_filter_reads_source_or_context_source_and_defaults_to_lsp() -> None:
    assert excerpt_source(RetrievedExcerpt(0, 1, "x")) == "lsp"
    assert excerpt_source(RetrievedExcerpt(0, 1, "x", source="git_log")) == "git_log"
    assert excerpt_source(RelatedExcerpt(0, 1, "x", context_source="bm25")) == "bm25"
    files = [RelatedFile("p/z", 1, (RelatedExcerpt(0, 1, "x", context_source="bm25"),))]
    assert filter_context_sources(files, {"lsp"}) == []
    assert filter_context_sources(files, parse_context_types("editable"))[0].path == "p/z"


def test_type_none_leaves_only_the_cursor_excerpt() -> None:
    result = c2(sources=parse_context_types("none"))
    assert counts(result) == (0, 3, 1, 0, 1, 1)
    assert result.retrieved_context_bytes == 0


def test_an_excerpt_without_source_is_lsp_for_the_filter() -> None:
    bare = (RetrievedFile("proj/src/util.py", 200, (RetrievedExcerpt(40, 42, "def helper():\n    return 1\n"),)),)
    result = editable_context_coverage([C2_PATCH], "src/app.py", 0, 3, bare, sources=parse_context_types("lsp"))
    assert counts(result) == (2, 3, 0, 1, 1, 0)
    assert (
        editable_context_coverage([C2_PATCH], "src/app.py", 0, 3, bare, sources={"bm25"}).retrieved_context_bytes == 0
    )


# ------------------------------------------------------------- several expected patches


def test_the_best_patch_by_lines_f1_then_files_f1_the_last_maximum_winning() -> None:
    # cursor rows 0..10; A anchors {5, 100}: R 1/2; B anchors {5, 6, 100, 101}: R 2/4
    a = "--- a/f\n+++ b/f\n@@ -6,1 +6,1 @@\n-x\n+y\n@@ -101,1 +101,1 @@\n-x\n+y\n"
    b = "--- a/f\n+++ b/f\n@@ -6,2 +6,2 @@\n-x\n-x\n+y\n@@ -101,2 +101,2 @@\n-x\n-x\n+y\n"
    ra, rb = (editable_context_coverage([p], "f", 0, 10, None) for p in (a, b))
    assert rates(ra) == rates(rb) and counts(ra) != counts(rb)
    assert editable_context_coverage([a, b], "f", 0, 10, None).coverage == rb.coverage
    assert editable_context_coverage([b, a], "f", 0, 10, None).coverage == ra.coverage
    # equal lines F1, better files F1 wins although it comes first
    also_new_file = a + "--- /dev/null\n+++ b/g\n@@ -0,0 +1,1 @@\n+z\n"
    assert editable_context_coverage([a, also_new_file], "f", 0, 10, None).coverage == ra.coverage
    # a better lines F1 wins over a better files F1, although it comes first
    far = "--- a/f\n+++ b/f\n@@ -500,1 +500,1 @@\n-x\n+y\n"
    rx, rf = (editable_context_coverage([p], "f", 0, 10, None).coverage for p in (also_new_file, far))
    assert rx is not None and rf is not None
    assert rx.lines_f1 > rf.lines_f1 and rx.files_f1 < rf.files_f1
    assert editable_context_coverage([also_new_file, far], "f", 0, 10, None).coverage == rx


def test_no_expected_patch_gives_no_coverage() -> None:
    result = editable_context_coverage([], "f", 0, 10, ())
    assert result == ContextEvaluation(None, 0)


# ---------------------------------------------------------------------------- edge values


def test_nothing_retrieved() -> None:
    result = editable_context_coverage([C1_PATCH], "src/app.py", None, "a", None)
    assert counts(result) == (0, 0, 1, 0, 0, 1)
    assert rates(result) == (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def test_a_patch_with_only_context_lines() -> None:
    patch = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n a\n b\n"
    result = editable_context_coverage([patch], "src/app.py", 0, "a\nb", None)
    assert counts(result) == (0, 2, 0, 0, 1, 0)
    assert rates(result) == (0.0, 1.0, 0.0, 0.0, 1.0, 0.0)


def test_nothing_expected_and_nothing_retrieved_is_perfect() -> None:
    result = editable_context_coverage(["--- a/f\n+++ b/f\n"], "f", None, "", None)
    assert rates(result) == (1.0,) * 6


def test_lines_recall_counts_anchors_not_rows() -> None:
    # both anchors retrieved with 41 relevant rows around them: tp 41 but recall
    # is anchors-based, and a missed anchor halves it whatever tp is
    coverage = ContextCoverage(lines_tp=41, lines_fp=0, lines_fn=1, files_tp=1, files_fp=0, files_fn=0, lines_anchors=2)
    assert coverage.lines_recall == 0.5
    assert coverage.lines_precision == 1.0
    with pytest.raises(ValueError):
        ContextCoverage(0, 0, 2, 0, 0, 0, lines_anchors=1)


def test_to_dict_has_zeds_twelve_members_in_order() -> None:
    result = c2().coverage
    assert result is not None
    assert list(result.to_dict()) == [
        "lines_tp",
        "lines_fp",
        "lines_fn",
        "lines_precision",
        "lines_recall",
        "lines_f1",
        "files_tp",
        "files_fp",
        "files_fn",
        "files_precision",
        "files_recall",
        "files_f1",
    ]
    assert result.to_dict()["lines_f1"] == pytest.approx(0.4)


def test_huge_ranges_are_counted_exactly_and_fast() -> None:
    # a 1M-row excerpt against a window around row 500000: rows, not sets
    big = (RetrievedFile("p/f", 10**6, (RetrievedExcerpt(0, 10**6, "x\n" * 10**6),)),)
    patch = "--- a/f\n+++ b/f\n@@ -500001,1 +500001,1 @@\n-a\n+b\n"
    result = editable_context_coverage([patch], "g", None, "", big, budget_bytes=10**7)
    assert counts(result) == (41, 10**6 - 41, 0, 1, 0, 0)


# --------------------------------------------------------------------------------- JSON


def json_example(excerpt: dict[str, object]) -> str:
    return json.dumps(
        {
            "repository_url": "https://github.com/o/r",
            "revision": "0" * 40,
            "cursor_path": "src/app.py",
            "cursor_position": "a[CURSOR_POSITION]",
            "prompt_inputs": {
                "related_files": [{"path": "proj/src/util.py", "max_row": 200, "excerpts": [excerpt]}],
            },
        }
    )


BASE_EXCERPT = {"row_range": {"start": 40, "end": 42}, "text": "x\n", "order": 1}


@pytest.mark.parametrize("source", CONTEXT_SOURCES)
def test_json_reads_context_source(source: str) -> None:
    example = from_json(json_example({**BASE_EXCERPT, "context_source": source}))
    assert example.related_files is not None
    assert example.related_files[0].excerpts[0].source == source


def test_json_without_context_source_has_none_which_filters_as_lsp() -> None:
    example = from_json(json_example(BASE_EXCERPT))
    assert example.related_files is not None
    assert example.related_files[0].excerpts[0] == RetrievedExcerpt(40, 42, "x\n", 1, None)
    assert filter_context_sources(example.related_files, {"lsp"})[0].path == "proj/src/util.py"


@pytest.mark.parametrize("bad", ["Lsp", "BM25", "oracle-file", 3, ["lsp"]])
def test_json_rejects_an_unknown_context_source(bad: object) -> None:
    with pytest.raises(JSONFormatError, match="context_source"):
        from_json(json_example({**BASE_EXCERPT, "context_source": bad}))


# -------------------------------------------------------------- against a naive reference


@dataclass(frozen=True)
class _Ex:
    start_row: int
    end_row: int
    text: str
    order: int


@dataclass(frozen=True)
class _File:
    path: str
    excerpts: tuple[_Ex, ...]


def naive_budget(files: tuple[_File, ...], budget: int) -> list[tuple[str, tuple[_Ex, ...]]]:
    """§4.4 with a set of covered rows per file: the reference for the interval code."""
    order = sorted((e.order, fi, ei) for fi, f in enumerate(files) for ei, e in enumerate(f.excerpts))
    covered: dict[int, set[int]] = {}
    chosen: set[tuple[int, int]] = set()
    selected = 0
    for _, fi, ei in order:
        e = files[fi].excerpts[ei]
        rows = covered.setdefault(fi, set())
        pieces = e.text.split("\n")
        lines = [p + "\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
        added = sum(
            len(line.encode())
            for i, line in enumerate(lines)
            if e.start_row + i < e.end_row and e.start_row + i not in rows
        )
        if added == 0 or selected + added > budget:
            continue
        selected += added
        rows.update(range(e.start_row, e.end_row))
        chosen.add((fi, ei))
    return [
        (f.path, tuple(e for ei, e in enumerate(f.excerpts) if (fi, ei) in chosen))
        for fi, f in enumerate(files)
        if any((fi, ei) in chosen for ei in range(len(f.excerpts)))
    ]


def naive_counts(anchors: dict[str, set[int]], files: set[str], retrieved: dict[str, set[int]]) -> tuple[int, ...]:
    relevant = {p: {r for a in rows for r in range(max(a - 20, 0), a + 21)} for p, rows in anchors.items()}
    tp = sum(len(rows & relevant.get(p, set())) for p, rows in retrieved.items())
    fp = sum(len(rows) for rows in retrieved.values()) - tp
    fn = sum(1 for p, rows in anchors.items() for a in rows if a not in retrieved.get(p, set()))
    return tp, fp, fn, len(files & retrieved.keys()), len(retrieved.keys() - files), len(files - retrieved.keys())


excerpts = st.builds(
    lambda start, length, lines, order: _Ex(start, start + length, "".join(f"{'é' * n}\n" for n in lines), order),
    st.integers(0, 120),
    st.integers(0, 40),
    st.lists(st.integers(0, 3), max_size=45),
    st.integers(0, 3),
)
related_files = st.lists(
    st.builds(_File, st.sampled_from(["p/a", "p/b", "q/a"]), st.lists(excerpts, max_size=4).map(tuple)),
    max_size=3,
).map(tuple)


@settings(max_examples=300, deadline=None)
@given(related_files, st.integers(0, 200))
def test_budget_matches_a_row_set_reference(files: tuple[_File, ...], budget: int) -> None:
    kept = limit_retrieved_context_to_bytes(files, budget)
    assert [(f.path, f.excerpts) for f in kept] == naive_budget(files, budget)


@settings(max_examples=300, deadline=None)
@given(
    related_files,
    st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sets(st.integers(0, 200), min_size=1, max_size=4)),
    st.integers(0, 150),
)
def test_counts_match_a_row_set_reference(files: tuple[_File, ...], changed: dict[str, set[int]], start: int) -> None:
    # one deletion per anchor row, a hunk each
    patch = "".join(
        f"--- a/{path}\n+++ b/{path}\n" + "".join(f"@@ -{row + 1},1 +{row + 1},0 @@\n-gone\n" for row in sorted(rows))
        for path, rows in changed.items()
    )
    assert expected_context(patch).anchors == {p: tuple(sorted(rows)) for p, rows in changed.items()}
    result = editable_context_coverage([patch], "a", start, 7, files, budget_bytes=10**6)
    retrieved: dict[str, set[int]] = {"a": set(range(start, start + 7))}
    for path, kept in naive_budget(files, 10**6):
        for e in kept:
            retrieved.setdefault(strip_first_component(path), set()).update(range(e.start_row, e.end_row))
    assert counts(result) == naive_counts(changed, set(changed), retrieved)
