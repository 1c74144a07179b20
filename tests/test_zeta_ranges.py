"""Excerpt, region and syntax-range rules of zeta-prompts.md §3, one rule at a time.

Every expected range is worked out by hand from the spec's rules; rows of the
synthetic excerpts cost 1 token each (``rNN`` is 3 bytes), so budgets count rows.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from pytest_editpred import Cursor, EditEvent, Example, PredictionRequest, RecentFile
from pytest_editpred.zeta import ExcerptRanges, ZetaInput
from pytest_editpred.zeta._build import build_input, related_files
from pytest_editpred.zeta._excerpt import (
    cursor_excerpt,
    fixed_line_window_around_cursor,
)
from pytest_editpred.zeta._ranges import (
    FORMAT_BUDGETS,
    compute_editable_and_context_ranges,
    compute_legacy_excerpt_ranges,
    compute_v0327_editable_range,
    resolve_cursor_region,
)
from pytest_editpred.zeta._syntax import (
    MAX_PARSE_BYTES,
    language_for_path,
    syntax_ranges,
    why_no_syntax,
)

# 20 rows "r00".."r19": row i spans [4i, 4i + 3), each costs 1 token.
ROWS = "\n".join(f"r{i:02}" for i in range(20))


def span(first: int, last: int) -> tuple[int, int]:
    """Character range of ROWS rows ``first..=last`` without the last newline."""
    return 4 * first, 4 * last + 3


def at_row(row: int) -> int:
    return 4 * row + 1


# -- §3.1 cursor excerpt ------------------------------------------------------


def test_excerpt_alternates_below_then_above() -> None:
    text = "a0\nb1\nc2\nd3\ne4"
    # budget 3 - 1 (cursor row) = 2: row 3 below, then row 1 above
    assert cursor_excerpt(text, text.index("c2"), max_tokens=3) == ("b1\nc2\nd3", 3, 1)


def test_excerpt_row_below_not_fitting_stops_the_whole_expansion() -> None:
    text = "a\nb\nCUR\n" + "y" * 30 + "\nz"
    # budget 4; the row below costs 10: nothing above is taken either
    assert cursor_excerpt(text, text.index("CUR") + 1, max_tokens=5) == ("CUR", 1, 2)


def test_excerpt_row_above_not_fitting_stops_even_with_budget_left() -> None:
    text = "a" * 30 + "\nb\nCUR\nd\ne\nf"
    # budget 4: d, b, e (1 left), then row 0 costs 10: stop; f is not taken
    excerpt, offset, row = cursor_excerpt(text, text.index("CUR"), max_tokens=5)
    assert (excerpt, row) == ("b\nCUR\nd\ne", 1)
    assert excerpt[offset:].startswith("CUR")


def test_excerpt_skips_the_row_above_once_the_budget_is_spent() -> None:
    assert cursor_excerpt("a\nCUR\nc\nd", 2, max_tokens=2) == ("CUR\nc", 0, 1)


def test_excerpt_cursor_line_over_budget_is_kept_alone() -> None:
    text = "a\n" + "x" * 100 + "\nb"
    assert cursor_excerpt(text, 5, max_tokens=10) == ("x" * 100, 3, 1)


def test_excerpt_final_newline_makes_an_empty_last_row() -> None:
    assert cursor_excerpt("a\nb\n", 0) == ("a\nb\n", 0, 0)


def test_excerpt_line_cost_is_utf8_bytes() -> None:
    text = "CUR\néééé\nz"  # "éééé" is 4 characters but 8 bytes: it costs 2, not 1
    assert cursor_excerpt(text, 1, max_tokens=2) == ("CUR", 1, 0)
    assert cursor_excerpt(text, 1, max_tokens=3) == ("CUR\néééé", 1, 0)


def test_excerpt_reaches_exactly_8192_rows_of_short_lines() -> None:
    text = "ab\n" * 100_000
    cursor = 50_000 * 3  # start of row 50000
    excerpt, offset, row = cursor_excerpt(text, cursor)
    # 8191 tokens after the cursor row: 4096 rows down, 4095 up
    assert row == 50_000 - 4095
    assert excerpt.count("\n") == 4095 + 4096
    assert offset == 4095 * 3 and not excerpt.endswith("\n")


def test_excerpt_huge_neighbouring_line_is_not_scanned_into_the_excerpt() -> None:
    text = "short\nCUR\n" + "y" * 5_000_000 + "\nz"
    assert cursor_excerpt(text, 6) == ("CUR", 0, 1)


def _reference_excerpt(text: str, cursor: int, max_tokens: int) -> tuple[str, int, int]:
    """§3.1 read literally, on the whole split text (the oracle for the lazy reader)."""
    lines = text.split("\n")
    costs = [max(1, len(line.encode()) // 3) for line in lines]
    row = text.count("\n", 0, cursor)
    start = end = row
    budget = max(0, max_tokens - costs[row])
    while budget > 0 and (start > 0 or end < len(lines) - 1):
        if end < len(lines) - 1:
            if costs[end + 1] > budget:
                break
            end += 1
            budget -= costs[end]
        if start > 0 and budget > 0:
            if costs[start - 1] > budget:
                break
            start -= 1
            budget -= costs[start]
    first = sum(len(line) + 1 for line in lines[:start])
    return "\n".join(lines[start : end + 1]), cursor - first, start


def test_excerpt_matches_the_literal_rule_on_random_texts() -> None:
    rng = random.Random(20250115)
    alphabet = ["a", "b", " ", "\n", "\n", "é", "€", "😀"]
    for _ in range(400):
        text = "".join(rng.choice(alphabet) * rng.choice((1, 1, 2, 7, 20)) for _ in range(rng.randrange(0, 60)))
        cursor = rng.randrange(0, len(text) + 1)
        budget = rng.randrange(1, 40)
        assert cursor_excerpt(text, cursor, budget) == _reference_excerpt(text, cursor, budget), (text, cursor)


def test_fixed_line_window_clamps_at_both_ends() -> None:
    text = "a\nbb\nccc\nd\ne"
    cursor = text.index("ccc") + 1
    assert fixed_line_window_around_cursor(text, cursor, 1, 1) == (2, 10)  # "bb\nccc\nd"
    assert fixed_line_window_around_cursor(text, cursor, 5, 0) == (0, 8)
    assert fixed_line_window_around_cursor(text, cursor, 0, 9) == (5, len(text))


# -- §3.3 editable and context ranges -------------------------------------------


def test_no_syntax_symmetric_then_linewise_prefers_up() -> None:
    # E=4: initial 3 gives rows 9..11 with nothing left; +1 goes up (0 <= 0)
    editable, context = compute_editable_and_context_ranges(ROWS, at_row(10), None, 4, 0)
    assert editable == span(8, 11)
    assert context == editable  # C = 0: the context is the editable rows


def test_boundary_that_fits_is_adopted_and_sets_prefer_down() -> None:
    # E=8: initial 6 gives rows 8..13 (none left), remaining 2; node rows 7..13
    # costs 1 (row 7): adopted; up=1 > down=0 so the last token goes down
    node = (4 * 7, 4 * 13 + 3)
    editable, _ = compute_editable_and_context_ranges(ROWS, at_row(10), [node], 8, 0)
    assert editable == span(7, 14)


def test_first_boundary_that_does_not_fit_ends_the_walk() -> None:
    # remaining 2: rows 5..13 would cost 3 (stop), so rows 8..15 (cost 2) is never tried
    nodes = [(4 * 5, 4 * 13 + 3), (4 * 8, 4 * 15 + 3)]
    editable, _ = compute_editable_and_context_ranges(ROWS, at_row(10), nodes, 8, 0)
    assert editable == span(7, 14)  # linewise: up 7, then down 14
    adopted, _ = compute_editable_and_context_ranges(ROWS, at_row(10), nodes[1:], 8, 0)
    assert adopted == span(8, 15)


def test_node_end_at_a_line_start_belongs_to_the_next_row() -> None:
    # rows 9..11 from initial 3; a node ending just after row 11's newline maps to
    # rows (9, 12): it extends the range by row 12, so it is adopted
    editable, _ = compute_editable_and_context_ranges(ROWS, at_row(10), [(4 * 9, 4 * 12)], 4, 0)
    assert editable == span(9, 12)
    # ending on row 11's newline instead: contained, dropped, linewise goes up
    editable, _ = compute_editable_and_context_ranges(ROWS, at_row(10), [(4 * 9, 4 * 12 - 1)], 4, 0)
    assert editable == span(8, 11)


def test_context_linewise_runs_when_no_boundary_is_adopted() -> None:
    # editable rows 8..11; the node of row 10 alone is inside: dropped, so C=3 goes
    # line by line, up first: 7, 12, 6
    nodes = [(4 * 10, 4 * 10 + 3)]
    editable, context = compute_editable_and_context_ranges(ROWS, at_row(10), nodes, 4, 3)
    assert editable == span(8, 11)
    assert context == span(6, 12)


def test_context_adopted_boundary_suppresses_linewise() -> None:
    # editable: node rows 7..12 costs 3 > 1: not taken, rows 8..11; context C=5
    # adopts it for 2 and the 3 tokens left are not used
    nodes = [(4 * 10, 4 * 10 + 3), (4 * 7, 4 * 12 + 3)]
    editable, context = compute_editable_and_context_ranges(ROWS, at_row(10), nodes, 4, 5)
    assert editable == span(8, 11)
    assert context == span(7, 12)


def test_linewise_skips_a_line_that_does_not_fit_and_goes_on() -> None:
    text = "a\néééééé\nCUR\nb\nc"  # row 1 is 12 bytes: costs 4 (6 characters would cost 2)
    cursor = text.index("CUR")
    # initial 3: budget 2, b below (1 left), row 1 does not fit: stop; remaining 1+1
    # linewise: up does not fit, c does; next round adds nothing
    editable, context = compute_editable_and_context_ranges(text, cursor, None, 4, 0)
    assert editable == (cursor, len(text))
    assert context == editable


def test_ranges_never_include_the_last_rows_newline() -> None:
    editable, context = compute_editable_and_context_ranges("a\nb\n", 0, None, 350, 150)
    assert editable == context == (0, 4)  # the empty last row ends at len(text)
    editable, _ = compute_editable_and_context_ranges("a\nb\nc", 0, None, 2, 0)
    assert editable == (0, 3)  # "a\nb", row 1's newline excluded


# -- §3.4 legacy ranges ----------------------------------------------------------


def test_legacy_ranges_budgets_per_field() -> None:
    text = "\n".join(f"r{i:02}"[-3:] for i in range(300))
    cursor = at_row(100)
    ranges = compute_legacy_excerpt_ranges(text, cursor, None)
    # editable_150: initial 112 -> 56 down, 55 up; then 38 linewise: 19 up, 19 down
    assert ranges.editable_150 == span(100 - 74, 100 + 75)
    for field, budgets, index in [
        ("editable_150", (150, 350), 0),
        ("editable_150_context_350", (150, 350), 1),
        ("editable_180", (180, 350), 0),
        ("editable_180_context_350", (180, 350), 1),
        ("editable_350", (350, 150), 0),
        ("editable_350_context_150", (350, 150), 1),
        ("editable_512", (512, 0), 0),
        ("editable_350_context_512", (350, 512), 1),
        ("editable_350_context_1024", (350, 1024), 1),
        ("context_4096", (350, 4096), 1),
        ("context_8192", (350, 8192), 1),
    ]:
        expected = compute_editable_and_context_ranges(text, cursor, None, *budgets)[index]
        assert getattr(ranges, field) == expected, field
    assert ranges.context_8192 == (0, len(text))


# -- §3.6 V0327 ------------------------------------------------------------------


def _blocks(*names: str) -> str:
    """Blocks of 7 two-letter lines separated by a blank line (V0318 splits there)."""
    return "\n\n".join("\n".join(f"{name}{i}" for i in range(7)) for name in names)


def test_v0327_small_text_without_markers_keeps_the_candidate() -> None:
    text = "\n".join(f"line {i}" for i in range(10))
    assert compute_v0327_editable_range(text, 12) == (0, len(text))
    assert compute_v0327_editable_range("", 0) == (0, 0)


def test_v0327_trims_to_the_blocks_around_the_cursor() -> None:
    text = _blocks("a", "b", "c")  # V0318 offsets [0, 22, 44, 64]
    assert compute_v0327_editable_range(text, 25) == (22, 44)
    assert compute_v0327_editable_range(text, 5) == (0, 44)
    assert compute_v0327_editable_range(text, 64) == (22, 64)


def test_v0327_empty_trim_uses_the_cursor_block() -> None:
    text = _blocks("a", "b")  # offsets [0, 22, 42]; a cursor at 22 trims to 22..22
    assert compute_v0327_editable_range(text, 22) == (22, 42)


def test_v0327_window_is_shifted_back_at_the_end() -> None:
    text = "aaaa\nbbbb\ncccc\ndddd\neeee"
    # E=2: 6 bytes; cursor at len: start 21, end 24 (3 < 6) so start = 18, snapped to 15
    assert compute_v0327_editable_range(text, len(text), 2) == (15, len(text))
    # around row 2: bytes 9..15, snapped to row 1's start and past row 3's newline
    assert compute_v0327_editable_range(text, 12, 2) == (5, 20)


def test_v0327_window_is_measured_in_bytes() -> None:
    text = "x\nééb\nyyyyyy"  # cursor at "b": character 4, byte 6
    # bytes: start 3 is on row 1, so row 0 is out (in characters, 4 - 3 = 1 is on row 0)
    assert compute_v0327_editable_range(text, 4, 2) == (2, len(text))


# -- §3.5 resolve_cursor_region ----------------------------------------------------


def _fallback_ranges() -> ExcerptRanges:
    """Distinct ranges so each §2.1 fallback field is recognisable."""
    return ExcerptRanges(
        editable_150=(40, 43),
        editable_180=(36, 47),
        editable_350=(32, 51),
        editable_150_context_350=(20, 60),
        editable_180_context_350=(16, 64),
        editable_350_context_150=(12, 68),
        editable_512=(8, 72),
        editable_350_context_512=(4, 76),
        editable_350_context_1024=(0, 79),
        context_4096=(0, 60),
        context_8192=(4, 79),
    )


def _input(syntax: tuple[tuple[int, int], ...] | None, ranges: ExcerptRanges | None = None) -> ZetaInput:
    return ZetaInput("a.py", ROWS, at_row(10), 0, excerpt_ranges=ranges, syntax_ranges=syntax)


@pytest.mark.parametrize(
    ("name", "editable", "context"),
    [
        ("V0112MiddleAtEnd", (40, 43), (20, 60)),
        ("V0113Ordered", (40, 43), (20, 60)),
        ("V0114180EditableRegion", (36, 47), (16, 64)),
        ("V0131GitMergeMarkersPrefix", (32, 51), (12, 68)),
        ("V0318SeedMultiRegions", (32, 51), (12, 68)),
        ("V0304VariableEdit", (0, 79), (0, 79)),
        ("V0615HashRegions", (4, 79), (4, 79)),
    ],
)
def test_fallback_fields_without_syntax_ranges(name: str, editable: tuple[int, int], context: tuple[int, int]) -> None:
    region = resolve_cursor_region(_input(None, _fallback_ranges()), name)
    assert region.context_range == context
    assert region.editable_range == (editable[0] - context[0], editable[1] - context[0])
    assert region.context_text == ROWS[context[0] : context[1]]
    assert region.cursor == at_row(10) - context[0]


def test_fallback_chains_for_variable_edit_and_hash_regions() -> None:
    base = _fallback_ranges()
    no_1024 = ExcerptRanges(**{**base.__dict__, "editable_350_context_1024": None})
    assert resolve_cursor_region(_input(None, no_1024), "V0304VariableEdit").context_range == (4, 76)
    neither = ExcerptRanges(**{**no_1024.__dict__, "editable_350_context_512": None})
    assert resolve_cursor_region(_input(None, neither), "V0304VariableEdit").context_range == (12, 68)
    no_8192 = ExcerptRanges(**{**base.__dict__, "context_8192": None})
    assert resolve_cursor_region(_input(None, no_8192), "V0615HashRegions").context_range == (12, 68)


def test_syntax_ranges_present_use_the_format_budgets() -> None:
    syntax = ((4 * 10, 4 * 10 + 3),)
    for name in ("V0112MiddleAtEnd", "V0114180EditableRegion", "V0131GitMergeMarkersPrefix", "V0304VariableEdit"):
        region = resolve_cursor_region(_input(syntax, _fallback_ranges()), name)
        editable, context = compute_editable_and_context_ranges(ROWS, at_row(10), syntax, *FORMAT_BUDGETS[name])
        assert region.context_range == context
        assert region.editable_range == (editable[0] - context[0], editable[1] - context[0])
    variable = resolve_cursor_region(_input(syntax), "V0304VariableEdit")
    assert variable.editable_range == (0, len(variable.context_text))  # C = 0


def test_v0327_uses_the_whole_excerpt_as_context() -> None:
    text = _blocks("a", "b", "c")
    region = resolve_cursor_region(ZetaInput("a.py", text, 25, 0, syntax_ranges=((0, 3),)), "V0327SingleFile")
    assert region.context_range == (0, len(text)) and region.context_text == text
    assert region.editable_range == (22, 44) and region.cursor == 25


def test_resolve_accepts_zeta_format_members_and_budgets_agree() -> None:
    from pytest_editpred.zeta._formats import ZetaFormat

    assert {member.name for member in ZetaFormat} == set(FORMAT_BUDGETS)
    for member in ZetaFormat:
        assert FORMAT_BUDGETS[member.name] == (member.editable_tokens, member.context_tokens), member
    by_member = resolve_cursor_region(_input(None, _fallback_ranges()), ZetaFormat.V0113Ordered)
    assert by_member == resolve_cursor_region(_input(None, _fallback_ranges()), "V0113Ordered")
    with pytest.raises(ValueError):
        resolve_cursor_region(_input(None), "V9999Nope")


# -- §3.2 syntax ranges (hand-checked ancestor chains) -------------------------------

PY = "def area(w, h):\n    total = w * h\n    return total\n"
RS = "fn add(a: i32, b: i32) -> i32 {\n    let s = a + b;\n    s\n}\n"
TS = "class Cart {\n  total(items: number[]): number {\n    return items.length;\n  }\n}\n"


def _whole(text: str, cursor: int, path: str) -> tuple[tuple[int, int], ...] | None:
    return syntax_ranges(text, cursor, path, 0, len(text))


def test_python_ancestors_inside_an_identifier() -> None:
    # identifier w, binary_operator, assignment (= expression_statement, skipped),
    # block, function_definition, module
    expected = ((28, 29), (28, 33), (20, 33), (20, 50), (0, 50), (0, 51))
    assert _whole(PY, 28, "shapes.py") == expected
    # right after "w": w ends at the cursor; the next sibling "*" starts later: no
    # right-hand node, so w stays
    assert _whole(PY, 29, "shapes.py") == expected


def test_python_anonymous_token_and_gaps() -> None:
    assert _whole(PY, 30, "a.py") == ((30, 31), (28, 33), (20, 33), (20, 50), (0, 50), (0, 51))  # "*"
    # at "(": the descent takes the first child ending after the cursor (parameters)
    assert _whole(PY, 8, "a.py") == ((8, 9), (8, 14), (0, 50), (0, 51))
    # in the indentation of line 1: block starts after the cursor, its previous
    # sibling ":" does not contain it, so the function is the smallest ancestor
    assert _whole(PY, 16, "a.py") == ((0, 50), (0, 51))
    # at the end of "total" (the end of the function): no child ends after it
    assert _whole(PY, 50, "a.py") == ((0, 51),)


def test_python_empty_and_leading_blank() -> None:
    assert _whole("", 0, "e.py") == ()
    # the module starts at byte 2: no node contains byte 0
    assert _whole("\n\nx = 1", 0, "e.py") == ()


def test_rust_ancestors() -> None:
    # identifier b, binary_expression, let_declaration, block, function_item, source_file
    assert _whole(RS, 48, "src/lib.rs") == ((48, 49), (44, 49), (36, 50), (30, 58), (0, 58), (0, 59))
    # the tail expression "s": its parent is the block itself
    assert _whole(RS, 55, "src/lib.rs") == ((55, 56), (30, 58), (0, 58), (0, 59))
    # return type: primitive_type is a direct child of function_item
    assert _whole(RS, 27, "src/lib.rs") == ((26, 29), (0, 58), (0, 59))


def test_typescript_ancestors() -> None:
    # property_identifier, member_expression, return_statement, statement_block,
    # method_definition, class_body, class_declaration, program
    expected = ((65, 71), (59, 71), (52, 72), (46, 76), (15, 76), (11, 78), (0, 78), (0, 79))
    assert _whole(TS, 67, "src/cart.ts") == expected
    # "number" (anonymous keyword) and predefined_type share a span: listed once
    assert _whole(TS, 31, "src/cart.ts") == (
        (28, 34), (28, 36), (26, 36), (21, 36), (20, 37), (15, 76), (11, 78), (0, 78), (0, 79)
    )  # fmt: skip


def test_ranges_are_clipped_to_the_excerpt_and_saturate() -> None:
    # excerpt = line 1 ("    total = w * h", characters 16..33)
    assert syntax_ranges(PY, 28, "a.py", 16, 33) == ((12, 13), (12, 17), (4, 17), (4, 17), (0, 17), (0, 17))


def test_non_ascii_text_gives_character_offsets() -> None:
    text = "s = 'é€'\nt = s + 'ü'\n"  # é is 2 bytes, € 3: bytes and characters differ
    cursor = text.index("s + ")
    # identifier s, binary_operator, assignment (= expression_statement), module
    assert _whole(text, cursor, "u.py") == ((13, 14), (13, 20), (9, 20), (0, 21))
    # the same, relative to an excerpt starting at line 1
    assert syntax_ranges(text, cursor, "u.py", 9, 20) == ((4, 5), (4, 11), (0, 11), (0, 11))


def test_languages_and_refusals() -> None:
    assert language_for_path("a/b.PY") == "python"
    assert language_for_path("x.tsx") == "tsx" and language_for_path("x.mjs") == "tsx"
    assert language_for_path("main.go") == "go" and language_for_path("README.md") is None
    assert _whole("# Title\n\ntext\n", 3, "README.md") is None
    assert "no tree-sitter grammar" in (why_no_syntax("x", "notes.txt") or "")
    go = "package main\n\nfunc f(x int) int {\n\treturn x + 1\n}\n"
    ranges = _whole(go, go.index("x + 1"), "main.go")
    assert ranges is not None and ranges[0] == (42, 43) and ranges[-1] == (0, len(go))


def test_text_over_the_parse_limit_is_refused_with_a_reason() -> None:
    text = "x = 1\n" * (MAX_PARSE_BYTES // 6 + 1)
    assert _whole(text, 0, "big.py") is None
    assert "parse limit" in (why_no_syntax(text, "big.py") or "")


def test_importing_the_package_does_not_import_tree_sitter() -> None:
    code = (
        "import sys, pytest_editpred, pytest_editpred.plugin, pytest_editpred.zeta, pytest_editpred.zeta._build\n"
        "print(sorted(m for m in sys.modules if m.startswith('tree_sitter')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# -- build_input --------------------------------------------------------------------


def _request(
    buffers: dict[str, str],
    path: str,
    offset: int,
    events: tuple[EditEvent, ...] = (),
    viewed: tuple[RecentFile, ...] = (),
    opened: tuple[RecentFile, ...] = (),
) -> PredictionRequest:
    example = Example("ex", "https://example.com/r.git", "abc", path, "")
    cursor = Cursor.at(path, buffers[path], offset)
    return PredictionRequest(
        example, buffers, cursor, events=events, recently_opened_files=opened, recently_viewed_files=viewed
    )


def test_build_input_from_a_request() -> None:
    other = "\n".join(f"o{i}" for i in range(30))
    request = _request(
        {"src/shapes.py": PY, "src/other.py": other},
        "src/shapes.py",
        28,
        events=(
            EditEvent(
                "src/shapes.py", "src/shapes.py", "--- a/src/shapes.py\n+++ b/src/shapes.py\n@@ -1 +1 @@\n-a\n+b"
            ),
            EditEvent("src/new.py", "", "@@ -0,0 +1 @@\n+x\n", predicted=True),
        ),
        viewed=(RecentFile("src/other.py", other.index("o15")), RecentFile("missing.py", 0)),
        opened=(RecentFile("src/other.py", None),),
    )
    zeta = build_input(request)
    assert (zeta.cursor_path, zeta.cursor_excerpt, zeta.cursor_offset, zeta.excerpt_start_row) == (
        "src/shapes.py", PY, 28, 0
    )  # fmt: skip
    assert zeta.syntax_ranges == _whole(PY, 28, "a.py")
    assert zeta.excerpt_ranges == compute_legacy_excerpt_ranges(PY, 28, zeta.syntax_ranges)
    assert [e.diff for e in zeta.events] == ["@@ -1 +1 @@\n-a\n+b\n", "@@ -0,0 +1 @@\n+x\n"]
    assert zeta.events[1].old_path == "src/new.py" and zeta.events[1].predicted
    assert zeta.diagnostics == ()
    assert zeta.related_files is not None and len(zeta.related_files) == 1  # missing + duplicate skipped
    (related,) = zeta.related_files
    assert (related.path, related.max_row) == ("src/other.py", 29)
    (excerpt,) = related.excerpts
    assert (excerpt.start_row, excerpt.end_row, excerpt.order) == (5, 26, 0)
    assert excerpt.text == "\n".join(f"o{i}" for i in range(5, 26))


def test_related_window_at_the_end_covers_max_row() -> None:
    text = "a\nb\nc"
    (file,) = related_files([RecentFile("f.txt", 4)], {"f.txt": text})
    assert file.max_row == 2
    assert (file.excerpts[0].start_row, file.excerpts[0].end_row, file.excerpts[0].text) == (0, 3, text)


def test_build_input_without_grammar_sends_no_syntax_ranges_as_zeds_editor_does() -> None:
    # Zed's editor always sets syntax_ranges (§1.2); a buffer with no syntax tree has
    # no ancestors, so the list is empty and §3.3 grows the region line by line.
    text = "one\ntwo\nthree\n"
    zeta = build_input(_request({"notes.txt": text}, "notes.txt", 5))
    assert zeta.syntax_ranges == () and zeta.related_files == ()
    assert zeta.excerpt_ranges == compute_legacy_excerpt_ranges(text, 5, ())
    region = resolve_cursor_region(zeta, "V0131GitMergeMarkersPrefix")
    assert region.context_text == text and region.cursor == 5


def _padded(line: str) -> str:
    """A 45-character line: 15 tokens by §3.3's ``max(1, bytes // 3)``."""
    return (line + " " + "x" * 45)[:45] if len(line) < 45 else line


_LANGUAGES = {
    "f.py": ("# c", "def f():", "    v{:02d} = {}  #", None),
    "f.rs": ("// c", "fn f() { //", "    let v{:02d} = {}; //", "} //"),
    "f.ts": ("// c", "function f() { //", "    let v{:02d} = {}; //", "} //"),
}


@pytest.mark.parametrize("path", list(_LANGUAGES))
def test_the_editable_region_follows_the_syntax_tree(path: str) -> None:
    """§3.2 + §3.3 on a real parse. Rows 0-4 and 26-30 are comments; the function is rows
    5-25 (header, 19 or 20 body rows, the closing brace in Rust and TypeScript); every row
    costs 15 tokens; the cursor is on row 15.

    Step 1 (262 tokens) takes the cursor row and 8 rows either side: rows 7-23, 7 tokens
    left, so 95 to spend. The body (Python's block, rows 6-25; Rust's and TypeScript's
    block, rows 5-25) is adopted (45 or 60 tokens), then the function (rows 5-25: 15
    more in Python, nothing new elsewhere), leaving 35; the whole file would cost more,
    so the walk stops. Both sides moved 2 rows: prefer up; one row up (20 left), one row
    down (5 left), then nothing fits. The region is rows 4-26 in all three languages.
    """
    comment, header, body, close = _LANGUAGES[path]
    rows = [_padded(comment) for _ in range(5)] + [_padded(header)]
    rows += [_padded(body.format(i, i)) for i in range(19 if close else 20)]
    rows += [_padded(close)] if close else []
    rows += [_padded(comment) for _ in range(5)]
    assert len(rows) == 31 and all(len(row) == 45 for row in rows)
    text = "\n".join(rows) + "\n"
    cursor = sum(len(row) + 1 for row in rows[:15]) + 6
    zeta = build_input(_request({path: text}, path, cursor))
    assert zeta.syntax_ranges  # a real parse: the grammar is there
    region = resolve_cursor_region(zeta, "V0211SeedCoder")
    start, end = region.editable_range
    assert region.context_text[start:end] == "\n".join(rows[4:27])
