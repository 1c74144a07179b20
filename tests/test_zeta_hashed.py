"""§7 V0615HashRegions: tags, the prompt, the parse of answers, the training encoder.

The golden prompt and its ids are the spec's own [confirmed] example; the other
expected strings are written from the spec's rules (tag lengths: ``<|marker_`` 9 +
id 4 + ``|>`` 2 = 15 bytes), never printed from the code.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from pytest_editpred import PredictionError
from pytest_editpred.zeta import RelatedExcerpt, RelatedFile, ZetaInput
from pytest_editpred.zeta._hashed import (
    ALPHABET,
    MAX_OUTPUT_CHARS,
    apply_v0615_output,
    build_marker_table,
    encode_patch_as_output,
    ensure_cursor_file_excerpt,
    extract_spans,
    format_v0615_prompt,
    locate_cursor_in_related_files,
    marker_offsets_v0618,
    parse_v0615_output,
    related_file_patch_path,
    tag_id,
    unified_diff_with_context,
    unique_tag_id,
    write_snippet_with_markers,
)

MAIN = "fn main() {\n    let value = 1;\n}"
HELPER = "fn helper() {\n    one();\n}\n"
READONLY = "pub fn readonly() {}\n"
EOS = "<[end\u2581of\u2581sentence]>"


def spec_input(**kw: Any) -> ZetaInput:
    """§7.4's example: test.rs (current file, cursor before `let`), helper.rs, readonly.rs."""
    example = ZetaInput(
        "test.rs",
        MAIN,
        MAIN.index("let"),
        0,
        related_files=(
            RelatedFile("test.rs", 3, (RelatedExcerpt(0, 3, MAIN + "\n", context_source="current_file"),)),
            RelatedFile("helper.rs", 3, (RelatedExcerpt(10, 13, HELPER),)),
            RelatedFile("readonly.rs", 1, (RelatedExcerpt(0, 1, READONLY),)),
        ),
    )
    return replace(example, **kw)


SPEC_PROMPT = (
    "<[fim-suffix]>\n"
    "<[fim-prefix]><filename>test.rs\n"
    "<|marker_c0QV|>\n"
    "fn main() {\n"
    "    <|user_cursor|>let value = 1;\n"
    "}\n"
    "<|marker_P-pp|>\n"
    "<filename>helper.rs\n"
    "<|marker_qrqt|>\n"
    "fn helper() {\n"
    "    one();\n"
    "}\n"
    "<|marker_hTbH|>\n"
    "<filename>readonly.rs\n"
    "<|marker__duB|>\n"
    "pub fn readonly() {}\n"
    "<|marker_wpKb|>\n"
    "<[fim-middle]>"
)

SPEC_ANSWER = (
    "<|marker_c0QV|>\nfn main() {\n    let value = 2;<|user_cursor|>\n}\n<|marker_P-pp|>\n"
    "<|marker_qrqt|>\nfn helper() {\n    two();\n}\n<|marker_hTbH|>" + EOS
)

SPEC_PATCH = (
    "--- a/test.rs\n+++ b/test.rs\n"
    "@@ -1,3 +1,3 @@\n fn main() {\n-    let value = 1;\n+    let value = 2;\n }\n"
    "--- a/helper.rs\n+++ b/helper.rs\n"
    "@@ -11,3 +11,3 @@\n fn helper() {\n-    one();\n+    two();\n }\n"
)


def one_file(text: str, *, start_row: int = 0, max_row: int | None = None, path: str = "f.rs") -> ZetaInput:
    """A cursor file shown as one related excerpt of ``text``; the cursor at 0."""
    rows = text.count("\n")
    return ZetaInput(
        path,
        text.rstrip("\n"),
        0,
        start_row,
        related_files=(
            RelatedFile(
                path, rows if max_row is None else max_row, (RelatedExcerpt(start_row, start_row + rows, text),)
            ),
        ),
    )


def ids_of(input: ZetaInput, entry: int = 0) -> tuple[str, ...]:
    return build_marker_table(input)[entry].ids


def tag(ident: str) -> str:
    return f"<|marker_{ident}|>"


# -- §7.1 tags ---------------------------------------------------------------------------


def test_ids_of_the_spec_example() -> None:
    assert tag_id(MAIN + "\n") == "c0QV"
    assert tag_id(MAIN + "\n", seed=1) == "P-pp"
    assert (tag_id(HELPER), tag_id(HELPER, 1)) == ("qrqt", "hTbH")
    assert (tag_id(READONLY), tag_id(READONLY, 1)) == ("_duB", "wpKb")


def test_alphabet_is_url_safe_base64() -> None:
    assert ALPHABET == "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    assert all(len(tag_id(text)) == 4 and set(tag_id(text)) <= set(ALPHABET) for text in ["", "a", "é\n"])


def test_unique_tag_id_reseeds_until_unused() -> None:
    used = {"c0QV"}
    assert unique_tag_id(MAIN + "\n", used) == "P-pp"
    assert used == {"c0QV", "P-pp"}


def test_last_tag_hashes_the_block_before_it_and_is_reseeded() -> None:
    assert ids_of(spec_input()) == ("c0QV", "P-pp")


def test_the_used_set_spans_the_whole_table() -> None:
    twin = ZetaInput(
        "a.rs",
        "x",
        0,
        0,
        related_files=(
            RelatedFile("a.rs", 1, (RelatedExcerpt(0, 1, READONLY),)),
            RelatedFile("b.rs", 1, (RelatedExcerpt(0, 1, READONLY),)),
        ),
    )
    table = build_marker_table(twin)
    seeded = [tag_id(READONLY, seed) for seed in range(4)]
    assert table[0].ids == (seeded[0], seeded[1])
    assert table[1].ids == (seeded[2], seeded[3])


def test_offsets_use_the_v0618_limits() -> None:
    # 3 lines, a blank, 3 lines: a split (MIN 3) before "b1" at 3 + 3 + 3 + 1 = 10.
    assert marker_offsets_v0618("a1\na2\na3\n\nb1\nb2\nb3\n") == [0, 10, 19]
    # 2 lines since the last edge (the blank one included) are under the minimum.
    assert marker_offsets_v0618("a1\n\nb1\nb2\nb3\n") == [0, 13]
    # 40 lines without blanks: the hard cap of 32 lines.
    text = "".join(f"l{n:02}\n" for n in range(40))
    assert marker_offsets_v0618(text) == [0, 32 * 4, 160]
    assert marker_offsets_v0618("") == [0, 0]


# -- §7.2 snippets -----------------------------------------------------------------------


def test_write_snippet_with_markers() -> None:
    text = "a1\na2\na3\n\nb1\nb2\nb3\n"
    offsets, ids = [0, 10, 19], ["AAAA", "BBBB", "CCCC"]
    assert write_snippet_with_markers(text, offsets, ids) == (
        "<|marker_AAAA|>\na1\na2\na3\n\n<|marker_BBBB|>\nb1\nb2\nb3\n<|marker_CCCC|>"
    )
    # The cursor on a boundary goes in the first block that holds it; the next tag
    # then needs a newline of its own.
    assert write_snippet_with_markers(text, offsets, ids, cursor=10) == (
        "<|marker_AAAA|>\na1\na2\na3\n\n<|user_cursor|>\n<|marker_BBBB|>\nb1\nb2\nb3\n<|marker_CCCC|>"
    )
    assert write_snippet_with_markers("a\nb", [0, 3], ["AAAA", "BBBB"]) == "<|marker_AAAA|>\na\nb\n<|marker_BBBB|>"


# -- §7.3 the cursor -----------------------------------------------------------------------


def test_related_file_patch_path() -> None:
    assert related_file_patch_path("jaq/src/main.rs", "jaq/jaq/src/main.rs") == "jaq/src/main.rs"
    assert related_file_patch_path("test.rs", "test.rs") == "test.rs"
    assert related_file_patch_path("test.rs", "helper.rs") == "helper.rs"
    assert related_file_patch_path("src/main.rs", "src//util.rs") == "src/util.rs"
    # A different first component is taken for a worktree root, and dropped.
    assert related_file_patch_path("app/main.rs", "src/lib.rs") == "lib.rs"


def test_locate_the_spec_cursor() -> None:
    location = locate_cursor_in_related_files(spec_input())
    assert location is not None
    assert (location.file_ix, location.excerpt_ix, location.offset) == (0, 0, MAIN.index("let"))


def cursor_file(excerpts: tuple[RelatedExcerpt, ...], cursor_row_text: str = "b", path: str = "f.rs") -> ZetaInput:
    """The cursor excerpt is the single line ``cursor_row_text`` at file row 2, cursor at 1."""
    return ZetaInput(path, cursor_row_text, 1, 2, related_files=(RelatedFile(path, 9, excerpts),))


def test_locate_end_row_is_inclusive() -> None:
    location = locate_cursor_in_related_files(cursor_file((RelatedExcerpt(1, 2, "a\nbb"),)))
    assert location is not None and location.offset == 3


def test_locate_skips_an_excerpt_whose_line_is_too_short() -> None:
    found = cursor_file((RelatedExcerpt(2, 3, "\n"), RelatedExcerpt(2, 3, "bb\n")), "bb")
    location = locate_cursor_in_related_files(found)
    assert location is not None and (location.excerpt_ix, location.offset) == (1, 1)


def test_locate_stops_at_an_excerpt_without_the_line() -> None:
    # Rows 0..2 inclusive hold row 2, but the text has no third line: the whole
    # search ends (Zed's `?`), though the second excerpt would match.
    blocked = cursor_file((RelatedExcerpt(0, 2, "x\ny\n"), RelatedExcerpt(2, 3, "bb\n")))
    assert locate_cursor_in_related_files(blocked) is None


def test_locate_needs_the_start_row_and_the_cursor_file() -> None:
    assert locate_cursor_in_related_files(spec_input(excerpt_start_row=None)) is None
    elsewhere = cursor_file((RelatedExcerpt(2, 3, "bb\n"),), "bb", path="f.rs")
    moved = ZetaInput("g.rs", "bb", 1, 2, related_files=elsewhere.related_files)
    assert locate_cursor_in_related_files(moved) is None


def test_locate_matches_a_path_with_the_worktree_root() -> None:
    rooted = ZetaInput(
        "src/f.rs", "bb", 1, 2, related_files=(RelatedFile("proj/src/f.rs", 9, (RelatedExcerpt(2, 3, "bb\n"),)),)
    )
    location = locate_cursor_in_related_files(rooted)
    assert location is not None and location.offset == 1


def test_ensure_cursor_file_excerpt_inserts_the_cursor_file_first() -> None:
    bare = ZetaInput("c.rs", "x\ny", 3, 5, related_files=(RelatedFile("o.rs", 1, (RelatedExcerpt(0, 1, "o\n"),)),))
    updated, covered = ensure_cursor_file_excerpt(bare)
    assert covered
    assert updated.related_files is not None
    assert updated.related_files[0] == RelatedFile(
        "c.rs", 6, (RelatedExcerpt(5, 6, "x\ny", order=0, context_source="current_file"),)
    )
    assert updated.related_files[1].path == "o.rs"


def test_ensure_cursor_file_excerpt_replaces_and_raises_max_row() -> None:
    present = ZetaInput("c.rs", "x\ny", 3, 5, related_files=(RelatedFile("c.rs", 2, (RelatedExcerpt(0, 1, "o\n"),)),))
    updated, covered = ensure_cursor_file_excerpt(present)
    assert covered and updated.related_files is not None
    assert updated.related_files == (
        RelatedFile("c.rs", 6, (RelatedExcerpt(5, 6, "x\ny", context_source="current_file"),)),
    )


def test_ensure_cursor_file_excerpt_leaves_a_covered_or_unusable_input() -> None:
    covered_input = spec_input()
    assert ensure_cursor_file_excerpt(covered_input) == (covered_input, True)
    no_row = ZetaInput("c.rs", "x", 0, None)
    assert ensure_cursor_file_excerpt(no_row) == (no_row, False)
    empty = ZetaInput("c.rs", "", 0, 4)
    assert ensure_cursor_file_excerpt(empty) == (empty, False)


# -- §7.4 the prompt -----------------------------------------------------------------------


def test_golden_prompt_of_the_spec_example() -> None:
    assert format_v0615_prompt(spec_input()) == SPEC_PROMPT


def test_no_prompt_without_related_files_or_a_located_cursor() -> None:
    assert format_v0615_prompt(spec_input(related_files=None)) is None
    assert format_v0615_prompt(spec_input(related_files=())) is None
    assert format_v0615_prompt(spec_input(excerpt_start_row=None)) is None


def budget_input() -> ZetaInput:
    """Costs: c.rs 15 + 57 bytes -> 24 tokens; big.rs 5 + 30; s.rs 5 + 14."""
    return ZetaInput(
        "c.rs",
        "fn c() {}",
        0,
        0,
        related_files=(
            RelatedFile("big.rs", 1, (RelatedExcerpt(0, 1, "x" * 59 + "\n", order=0),)),
            RelatedFile("c.rs", 1, (RelatedExcerpt(0, 1, "fn c() {}\n", order=5),)),
            RelatedFile("s.rs", 1, (RelatedExcerpt(0, 1, "fn s() {}\n", order=1),)),
        ),
    )


def test_the_cursor_excerpt_is_required_within_the_budget() -> None:
    # floor(40 * 0.9) - 14 = 22 < 24; floor(43 * 0.9) - 14 = 24.
    assert format_v0615_prompt(budget_input(), 40) is None
    prompt = format_v0615_prompt(budget_input(), 43)
    assert prompt is not None and "<filename>big.rs" not in prompt and "<filename>s.rs" not in prompt


def test_an_excerpt_that_does_not_fit_is_skipped_not_a_stop() -> None:
    # Budget floor(70 * 0.9) - 14 = 49: 24 + 35 > 49 skips big.rs (order 0),
    # 24 + 19 = 43 still takes s.rs (order 1). Files render in their own order.
    ids_c, ids_s = ids_of(budget_input(), 1), ids_of(budget_input(), 2)
    assert format_v0615_prompt(budget_input(), 70) == (
        "<[fim-suffix]>\n<[fim-prefix]>"
        f"<filename>c.rs\n{tag(ids_c[0])}\n<|user_cursor|>fn c() {{}}\n{tag(ids_c[1])}\n"
        f"<filename>s.rs\n{tag(ids_s[0])}\nfn s() {{}}\n{tag(ids_s[1])}\n"
        "<[fim-middle]>"
    )
    full = format_v0615_prompt(budget_input(), 8000)
    assert full is not None and full.index("<filename>big.rs") < full.index("<filename>c.rs")


def test_ellipses_for_omitted_rows_and_none_between_touching_excerpts() -> None:
    gapped = ZetaInput(
        "g.rs",
        "a",
        0,
        0,
        related_files=(
            RelatedFile(
                "g.rs",
                10,
                (RelatedExcerpt(0, 1, "a\n"), RelatedExcerpt(1, 2, "b\n"), RelatedExcerpt(5, 6, "c\n")),
            ),
        ),
    )
    table = build_marker_table(gapped)
    a, b, c = (entry.ids for entry in table)
    assert format_v0615_prompt(gapped) == (
        "<[fim-suffix]>\n<[fim-prefix]><filename>g.rs\n"
        f"{tag(a[0])}\n<|user_cursor|>a\n{tag(a[1])}\n"
        f"{tag(b[0])}\nb\n{tag(b[1])}\n...\n"
        f"{tag(c[0])}\nc\n{tag(c[1])}\n...\n"
        "<[fim-middle]>"
    )


# -- §7.5 / §7.6 parsing ---------------------------------------------------------------------


def test_parse_the_spec_answer() -> None:
    result = parse_v0615_output(SPEC_ANSWER, spec_input())
    assert result.patch == SPEC_PATCH
    assert result.cursor is not None
    assert (result.cursor.path, result.cursor.offset, result.cursor.start_row) == ("test.rs", 30, 0)
    assert result.cursor.new_text == "fn main() {\n    let value = 2;\n}\n"
    assert [edit.path for edit in result.edits] == ["test.rs", "helper.rs"]
    assert result.edits[1].start_row == 10 and result.edits[1].new_text == "fn helper() {\n    two();\n}\n"


def test_apply_the_spec_answer() -> None:
    assert apply_v0615_output(spec_input(), SPEC_ANSWER) == ("fn main() {\n    let value = 2;\n}", 30)


@pytest.mark.parametrize("output", ["NO_EDITS", "NO_EDITS" + EOS, "  NO_EDITS\n" + EOS, "\nNO_EDITS\n"])
def test_no_edits(output: str) -> None:
    assert extract_spans(output) is None
    assert parse_v0615_output(output, spec_input()).patch == ""
    assert apply_v0615_output(spec_input(), output) is None


def test_edits_elsewhere_leave_the_excerpt_alone() -> None:
    output = "<|marker_qrqt|>\nfn helper() {\n    two();\n}\n<|marker_hTbH|>"
    assert apply_v0615_output(spec_input(), output) == (MAIN, None)


def test_a_span_that_changes_nothing_is_no_prediction() -> None:
    assert apply_v0615_output(spec_input(), "<|marker_c0QV|><|marker_c0QV|>" + EOS) is None
    assert parse_v0615_output("<|marker_qrqt|>\n" + HELPER + "<|marker_hTbH|>", spec_input()).patch == ""


def test_an_unpaired_last_tag_is_ignored() -> None:
    output = "<|marker_qrqt|>\nfn helper() {\n    two();\n}\n<|marker_hTbH|>\n<|marker_c0QV|>\nlet"
    result = parse_v0615_output(output, spec_input())
    assert [edit.path for edit in result.edits] == ["helper.rs"]


def test_cursor_first_occurrence_and_all_removed() -> None:
    output = "<|marker_qrqt|>\nfn <|user_cursor|>helper() {\n    <|user_cursor|>two();\n}\n<|marker_hTbH|>"
    result = parse_v0615_output(output, spec_input())
    assert result.edits[0].new_text == "fn helper() {\n    two();\n}\n"
    assert result.cursor is not None and (result.cursor.path, result.cursor.offset) == ("helper.rs", 3)
    assert apply_v0615_output(spec_input(), output) == (MAIN, None)  # the cursor is in another file


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("", "output does not contain a marker-bounded span"),
        ("just text" + EOS, "output does not contain a marker-bounded span"),
        ("<|marker_c0QV|>\nfn main() {}\n", "output does not contain a marker-bounded span"),
        ("<|marker_zzzz|>\nx\n<|marker_c0QV|>", "unknown start marker `zzzz`"),
        ("<|marker_c0QV|>\nx\n<|marker_nope|>", "unknown end marker `nope`"),
        (
            "<|marker_c0QV|>\nx\n<|marker_qrqt|>",
            "markers `c0QV` and `qrqt` belong to different context snippets that are not contiguous "
            "excerpts of the same file",
        ),
        ("<|marker_P-pp|>\nx\n<|marker_c0QV|>", "start marker `P-pp` must come before end marker `c0QV`"),
    ],
)
def test_malformed_answers(output: str, message: str) -> None:
    with pytest.raises(PredictionError) as caught:
        parse_v0615_output(output, spec_input())
    assert caught.value.reason == message  # Zed's text, nothing appended
    assert caught.value.fix
    with pytest.raises(PredictionError):
        apply_v0615_output(spec_input(), output)


LONG = "fn main() {\n    a\n    b\n    c\n    d\n    e\n}\n"  # 7 lines, one block


def test_truncated_replacement_by_bytes() -> None:
    first, last = ids_of(one_file(LONG))
    output = f"{tag(first)}\nfn main() {{\n    a\n{tag(last)}"
    with pytest.raises(PredictionError) as caught:
        parse_v0615_output(output, one_file(LONG))
    assert caught.value.reason.startswith(
        f"edit span `{first}`..`{last}` looks truncated: the replacement stops before the end marker, "
        "which would silently delete:\n    b\n    c\n    d\n    e\n}\n"
    )


def test_truncated_replacement_by_lines() -> None:
    # Not a byte prefix (a line was added on top), but the diff ends by deleting the
    # last 5 lines of the span.
    first, last = ids_of(one_file(LONG))
    output = f"{tag(first)}\n// new\nfn main() {{\n    a\n{tag(last)}"
    with pytest.raises(PredictionError, match="looks truncated"):
        parse_v0615_output(output, one_file(LONG))


def test_a_short_tail_or_an_empty_replacement_is_allowed() -> None:
    first, last = ids_of(one_file(LONG))
    short = f"{tag(first)}\nfn main() {{\n    a\n    b\n    c\n{tag(last)}"  # drops 3 non-blank lines
    assert parse_v0615_output(short, one_file(LONG)).edits[0].new_text == "fn main() {\n    a\n    b\n    c\n"
    deleted = parse_v0615_output(f"{tag(first)}\n{tag(last)}", one_file(LONG))
    assert deleted.edits[0].new_text == ""
    assert deleted.patch == "--- a/f.rs\n+++ b/f.rs\n@@ -1,7 +1,0 @@\n" + "".join(
        f"-{line}\n" for line in LONG.splitlines()
    )


def test_newline_normalization() -> None:
    first, last = ids_of(one_file("a\nb\n"))
    # The old span ends with a newline: one is added to the new text.
    assert parse_v0615_output(f"{tag(first)}\nA\nB{tag(last)}", one_file("a\nb\n")).edits[0].new_text == "A\nB\n"
    # The old span has no final newline: the new text's one is removed.
    bare = one_file("a\nb")
    first, last = ids_of(bare)
    assert parse_v0615_output(f"{tag(first)}\nA\nB\n{tag(last)}", bare).edits[0].new_text == "A\nB"
    # An empty old span (the same tag twice) is an insertion that gets its newline.
    first, last = ids_of(one_file("a\nb\n"))
    result = parse_v0615_output(f"{tag(last)}\nc{tag(last)}", one_file("a\nb\n"))
    assert result.edits[0].new_text == "a\nb\nc\n"


def test_overlapping_spans_keep_the_first() -> None:
    output = (
        "<|marker_c0QV|>\nfn main() {\n    let value = 2;\n}\n<|marker_P-pp|>\n"
        "<|marker_c0QV|>\nfn main() {\n    let value = 3;\n}\n<|marker_P-pp|>"
    )
    result = parse_v0615_output(output, spec_input())
    assert result.edits[0].new_text == "fn main() {\n    let value = 2;\n}\n"


def two_excerpts(second_start: int) -> ZetaInput:
    excerpts = (RelatedExcerpt(0, 2, "a1\na2\n"), RelatedExcerpt(second_start, second_start + 2, "b1\nb2\n"))
    return ZetaInput("f.rs", "a1", 0, 0, related_files=(RelatedFile("f.rs", 20, excerpts),))


def test_touching_excerpts_merge_into_one_snippet() -> None:
    merged = two_excerpts(2)
    a, b = ids_of(merged, 0), ids_of(merged, 1)
    result = parse_v0615_output(f"{tag(a[0])}\na1\nA2\nB1\nb2\n{tag(b[1])}", merged)
    assert result.patch == "--- a/f.rs\n+++ b/f.rs\n@@ -1,4 +1,4 @@\n a1\n-a2\n-b1\n+A2\n+B1\n b2\n"


def test_gapped_excerpts_do_not_merge() -> None:
    gapped = two_excerpts(5)
    a, b = ids_of(gapped, 0), ids_of(gapped, 1)
    with pytest.raises(PredictionError, match="belong to different context snippets"):
        parse_v0615_output(f"{tag(a[0])}\nx\n{tag(b[1])}", gapped)


def test_rows_of_a_later_excerpt_are_file_absolute() -> None:
    gapped = two_excerpts(5)
    b = ids_of(gapped, 1)
    assert parse_v0615_output(f"{tag(b[0])}\nb1\nB2\n{tag(b[1])}", gapped).patch == (
        "--- a/f.rs\n+++ b/f.rs\n@@ -6,2 +6,2 @@\n b1\n-b2\n+B2\n"
    )


def test_hostile_answers_fail_cleanly() -> None:
    with pytest.raises(PredictionError, match="more than the"):
        parse_v0615_output("x" * (MAX_OUTPUT_CHARS + 1), spec_input())
    many = "<|marker_c0QV|><|marker_c0QV|>" * 100
    with pytest.raises(PredictionError, match="spans"):
        parse_v0615_output(many, spec_input())
    with pytest.raises(PredictionError, match="unknown start marker"):
        parse_v0615_output("<|marker_" + "z" * 5000 + "|>\n<|marker_c0QV|>", spec_input())
    # An unterminated tag is text, not a tag.
    with pytest.raises(PredictionError, match="marker-bounded span"):
        parse_v0615_output("<|marker_c0QV|>\nx<|marker_P-pp", spec_input())


def test_an_edit_across_the_excerpt_edge_cannot_be_an_excerpt() -> None:
    wide = ZetaInput(
        "f.rs", "l1\nl2", 0, 1, related_files=(RelatedFile("f.rs", 4, (RelatedExcerpt(0, 4, "l0\nl1\nl2\nl3\n"),)),)
    )
    first, last = ids_of(wide)
    output = f"{tag(first)}\nL0\nL1\nL2\nL3\n{tag(last)}"
    with pytest.raises(PredictionError, match="crosses the edge of the cursor excerpt"):
        apply_v0615_output(wide, output)
    assert parse_v0615_output(output, wide).edits[0].new_text == "L0\nL1\nL2\nL3\n"


def test_apply_maps_rows_onto_a_shorter_cursor_excerpt() -> None:
    # The related excerpt covers rows 0..8 in two blocks; the cursor excerpt is rows 4..7.
    text = "a1\na2\na3\n\nb1\nb2\nb3\n"
    wide = ZetaInput("f.rs", "b1\nb2\nb3", 1, 4, related_files=(RelatedFile("f.rs", 7, (RelatedExcerpt(0, 7, text),)),))
    ids = ids_of(wide)
    assert len(ids) == 3
    output = f"{tag(ids[1])}\nb1\nB2<|user_cursor|>\nb3\n{tag(ids[2])}"
    assert apply_v0615_output(wide, output) == ("b1\nB2\nb3", 5)


def test_apply_needs_the_start_row() -> None:
    with pytest.raises(ValueError, match="excerpt_start_row"):
        apply_v0615_output(spec_input(excerpt_start_row=None), SPEC_ANSWER)


# -- §9.4 the diff --------------------------------------------------------------------------


def test_unified_diff_with_context_spec_example() -> None:
    assert unified_diff_with_context("a\nb\nc\n", "a\nB\nc\nd", 4, 4, 3) == "@@ -5,3 +5,4 @@\n a\n-b\n+B\n c\n+d\n"
    assert unified_diff_with_context("a\n", "a\n", 0, 0, 3) == ""


def test_unified_diff_splits_hunks_beyond_twice_the_context() -> None:
    old = "".join(f"{n}\n" for n in range(10))
    new = old.replace("1\n", "X\n").replace("8\n", "Y\n")
    assert unified_diff_with_context(old, new, 0, 0, 1) == (
        "@@ -1,3 +1,3 @@\n 0\n-1\n+X\n 2\n@@ -8,3 +8,3 @@\n 7\n-8\n+Y\n 9\n"
    )
    assert unified_diff_with_context(old, new, 0, 0, 3).count("@@ -") == 1


# -- §7.7 the training encoder ----------------------------------------------------------------


def test_encode_the_spec_patch() -> None:
    assert encode_patch_as_output(spec_input(), SPEC_PATCH) == (
        "<|marker_c0QV|>\nfn main() {\n    let value = 2;\n}\n<|marker_P-pp|>\n"
        "<|marker_qrqt|>\nfn helper() {\n    two();\n}\n<|marker_hTbH|>" + EOS
    )


def test_round_trip_encode_then_parse() -> None:
    encoded = encode_patch_as_output(spec_input(), SPEC_PATCH)
    assert parse_v0615_output(encoded, spec_input()).patch == SPEC_PATCH


def test_encode_carries_the_cursor_of_a_plus_line() -> None:
    patch = SPEC_PATCH.replace("+    let value = 2;\n", "+    let value = 2;<|user_cursor|>\n")
    encoded = encode_patch_as_output(spec_input(), patch)
    assert encoded.startswith("<|marker_c0QV|>\nfn main() {\n    let value = 2;<|user_cursor|>\n}\n<|marker_P-pp|>\n")
    assert apply_v0615_output(spec_input(), encoded) == ("fn main() {\n    let value = 2;\n}", 30)


def test_encode_small_or_unplaceable_patches_as_no_edits() -> None:
    assert encode_patch_as_output(spec_input(), "") == "NO_EDITS" + EOS
    assert encode_patch_as_output(spec_input(), "--- a/test.rs\n+++ b/test.rs\n@@ -1,1 +1,1 @@\n") == "NO_EDITS" + EOS
    unknown = "--- a/zzz.rs\n+++ b/zzz.rs\n@@ -1,1 +1,1 @@\n-a\n+b\n"
    assert encode_patch_as_output(spec_input(), unknown) == "NO_EDITS" + EOS
    missing = "--- a/test.rs\n+++ b/test.rs\n@@ -1,1 +1,1 @@\n-nothing like this\n+b\n"
    assert encode_patch_as_output(spec_input(), missing) == "NO_EDITS" + EOS


def test_encode_an_unchanged_hunk_as_the_nearest_tag_twice() -> None:
    context_only = "--- a/test.rs\n+++ b/test.rs\n@@ -1,2 +1,2 @@\n fn main() {\n     let value = 1;\n"
    assert encode_patch_as_output(spec_input(), context_only) == "<|marker_c0QV|><|marker_c0QV|>" + EOS


BLOCKS = "a1\na2\na3\n\nb1\nb2\nb3\n"  # offsets [0, 10, 19]


def test_encode_picks_the_smallest_span_of_blocks() -> None:
    blocks = one_file(BLOCKS)
    ids = ids_of(blocks)
    patch = "--- a/f.rs\n+++ b/f.rs\n@@ -5,3 +5,3 @@\n b1\n-b2\n+B2\n b3\n"
    assert encode_patch_as_output(blocks, patch) == f"{tag(ids[1])}\nb1\nB2\nb3\n{tag(ids[2])}" + EOS


def test_encode_an_append_at_the_end_moves_the_start_down() -> None:
    blocks = one_file(BLOCKS)
    ids = ids_of(blocks)
    patch = "--- a/f.rs\n+++ b/f.rs\n@@ -6,2 +6,3 @@\n b2\n b3\n+c\n"
    encoded = encode_patch_as_output(blocks, patch)
    assert encoded == f"{tag(ids[1])}\nb1\nb2\nb3\nc\n{tag(ids[2])}" + EOS
    assert parse_v0615_output(encoded, blocks).edits[0].new_text == BLOCKS + "c\n"


def test_encode_picks_a_repeated_context_by_its_line() -> None:
    repeated = one_file("a\nz\na\nz\n")
    ids = ids_of(repeated)
    patch = "--- a/f.rs\n+++ b/f.rs\n@@ -3,1 +3,1 @@\n-a\n+A\n"
    assert encode_patch_as_output(repeated, patch) == f"{tag(ids[0])}\na\nz\nA\nz\n{tag(ids[1])}" + EOS


# -- hostile and random answers ----------------------------------------------------------------


def random_answer(rng: random.Random, ids: list[str]) -> str:
    pieces = ["\n", "<|user_cursor|>", "NO_EDITS", EOS, "<|marker_", "a", "b1\n", "}\n", "x\ny\nz\nw\n"]
    return "".join(
        f"<|marker_{rng.choice(ids)}|>" if rng.random() < 0.4 else rng.choice(pieces) for _ in range(rng.randint(0, 8))
    )


def test_random_answers_raise_only_prediction_errors() -> None:
    rng = random.Random(7)
    inputs = [spec_input(), two_excerpts(2), two_excerpts(5), one_file(BLOCKS), one_file("a\nb", start_row=3)]
    for _ in range(400):
        chosen = rng.choice(inputs)
        ids = [ident for entry in build_marker_table(chosen) for ident in entry.ids] + ["zzzz"]
        output = random_answer(rng, ids)
        try:
            apply_v0615_output(chosen, output)
            encode_patch_as_output(chosen, parse_v0615_output(output, chosen).patch)
        except PredictionError:
            pass


def test_random_single_spans_round_trip() -> None:
    rng = random.Random(11)
    lines = ["a\n", "b1\n", "B2\n", "fn main() {\n", "}\n", "    let value = 2;\n", "\n"]
    for chosen in [spec_input(), two_excerpts(2), one_file(BLOCKS), one_file(LONG)]:
        ids = [ident for entry in build_marker_table(chosen) for ident in entry.ids]
        for _ in range(60):
            start, end = sorted(rng.sample(range(len(ids)), 2))
            body = "".join(rng.choice(lines) for _ in range(rng.randint(0, 4)))
            try:
                patch = parse_v0615_output(f"{tag(ids[start])}\n{body}{tag(ids[end])}", chosen).patch
            except PredictionError:
                continue
            assert parse_v0615_output(encode_patch_as_output(chosen, patch), chosen).patch == patch
