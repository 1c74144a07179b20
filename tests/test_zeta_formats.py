"""Zed v1.15's Zeta prompt formats (``pytest_editpred.zeta``), byte for byte.

Every golden string is written from the rules of the specification
(``zeta-prompts.md``, section numbers in the comments), not printed from the code:
a model is trained on one exact layout, so a change must fail here. The examples
marked [confirmed] are the ones the specification checked against Zed's own build.
Ranges are given through ``excerpt_ranges`` (``syntax_ranges=None``) so the goldens
do not depend on tree-sitter or on the region algorithm, except in one test.
"""

from __future__ import annotations

import pytest

from pytest_editpred import ConfigError, PredictionError
from pytest_editpred.zeta import (
    Diagnostic,
    Event,
    ExcerptRanges,
    RelatedExcerpt,
    RelatedFile,
    ZetaInput,
    format_prompt,
    prefill,
)
from pytest_editpred.zeta._formats import (
    SEED_END,
    ZETA1,
    Family,
    ZetaFormat,
    format_for,
    options_as_string,
    parse_format,
    prompt_input_contains_special_tokens,
)
from pytest_editpred.zeta._history import (
    format_edit_history_within_budget,
    render_path,
    write_event,
)
from pytest_editpred.zeta._multi_region import (
    apply_marker_span,
    apply_marker_span_v0316,
    apply_marker_span_v0318,
    compute_marker_offsets,
    compute_marker_offsets_v0318,
    compute_marker_offsets_with_limits,
    cursor_block_index,
    encode_from_old_and_new,
    encode_from_old_and_new_v0316,
    encode_from_old_and_new_v0317,
    encode_from_old_and_new_v0318,
    extract_marker_span,
    marker_tag_relative,
    nearest_marker_number,
    strip_marker_tags,
)
from pytest_editpred.zeta._parse import (
    apply_edit_commands,
    apply_to_excerpt,
    apply_variable_edit,
    parse_output,
)
from pytest_editpred.zeta._related import (
    clamp_text_to_token_count,
    filter_redundant_excerpts,
    format_active_buffer_diagnostics_with_budget,
    format_related_files_within_budget,
)

F = ZetaFormat
CURSOR = "<|user_cursor|>"

# -- the spec's example input (§5.1–§5.3) -------------------------------------------
# excerpt ``prefix\neditable\nsuffix``, editable range ``editable``, the whole excerpt
# as context, the cursor after ``edi``; one related file and one event.

EXCERPT = "prefix\neditable\nsuffix"
RANGES = ExcerptRanges(
    editable_150=(7, 15),
    editable_180=(7, 15),
    editable_350=(7, 15),
    editable_150_context_350=(0, 22),
    editable_180_context_350=(0, 22),
    editable_350_context_150=(0, 22),
)
RELATED = (RelatedFile("related.rs", 1, (RelatedExcerpt(0, 1, "fn helper() {}\n"),)),)
EVENTS = (Event("a.rs", "a.rs", "-old\n+new\n"),)


def example(**changes: object) -> ZetaInput:
    fields: dict[str, object] = dict(
        cursor_path="test.rs",
        cursor_excerpt=EXCERPT,
        cursor_offset=10,
        excerpt_start_row=None,
        events=EVENTS,
        related_files=RELATED,
        excerpt_ranges=RANGES,
    )
    fields.update(changes)
    return ZetaInput(**fields)  # type: ignore[arg-type]


FS_RELATED = "<|file_sep|>related.rs\nfn helper() {}\n"
FS_HISTORY = "<|file_sep|>edit history\n--- a/a.rs\n+++ b/a.rs\n-old\n+new\n"
FS_HEAD = FS_RELATED + FS_HISTORY + "<|file_sep|>test.rs\n"
SEED_SUFFIX = "<[fim-suffix]>\nsuffix\n"
SEED_CONTEXT = "<filename>related.rs\nfn helper() {}\n\n<filename>edit_history\n--- a/a.rs\n+++ b/a.rs\n-old\n+new\n\n"
SEED_HEAD = SEED_SUFFIX + "<[fim-prefix]>" + SEED_CONTEXT + "<filename>test.rs\nprefix\n"
MERGE_SECTION = "<<<<<<< CURRENT\nedi<|user_cursor|>table\n=======\n"

GOLDEN: dict[ZetaFormat, str] = {
    # §6: hdr, <|fim_prefix|>\n, ctx[..es], <|fim_suffix|>\n, ctx[ee..] +nl,
    # <|fim_middle|>current\n, editable with cursor +nl, <|fim_middle|>updated\n
    F.V0112MiddleAtEnd: FS_HEAD
    + "<|fim_prefix|>\nprefix\n<|fim_suffix|>\n\nsuffix\n"
    + "<|fim_middle|>current\nedi<|user_cursor|>table\n<|fim_middle|>updated\n",
    # §5.1 [confirmed] example (V0114); V0113 has the same layout
    F.V0113Ordered: FS_HEAD
    + "<|fim_prefix|>\nprefix\n<|fim_middle|>current\nedi<|user_cursor|>table\n"
    + "<|fim_suffix|>\n\nsuffix\n<|fim_middle|>updated\n",
    F.V0114180EditableRegion: (
        "<|file_sep|>related.rs\n"
        "fn helper() {}\n"
        "<|file_sep|>edit history\n"
        "--- a/a.rs\n"
        "+++ b/a.rs\n"
        "-old\n"
        "+new\n"
        "<|file_sep|>test.rs\n"
        "<|fim_prefix|>\n"
        "prefix\n"
        "<|fim_middle|>current\n"
        "edi<|user_cursor|>table\n"
        "<|fim_suffix|>\n"
        "\n"
        "suffix\n"
        "<|fim_middle|>updated\n"
    ),
    # §6 V0120: the suffix is written as is, its leading newline kept (§16)
    F.V0120GitMergeMarkers: FS_HEAD + "<|fim_prefix|>prefix\n<|fim_suffix|>\nsuffix\n<|fim_middle|>" + MERGE_SECTION,
    F.V0131GitMergeMarkersPrefix: FS_HEAD
    + "<|fim_prefix|>prefix\n"
    + MERGE_SECTION
    + "<|fim_suffix|>\nsuffix\n<|fim_middle|>",
    F.V0211Prefill: FS_HEAD + "<|fim_prefix|>prefix\n" + MERGE_SECTION + "<|fim_suffix|>\nsuffix\n<|fim_middle|>",
    # §5.2 [confirmed]
    F.V0211SeedCoder: (
        "<[fim-suffix]>\n"
        "suffix\n"
        "<[fim-prefix]><filename>related.rs\n"
        "fn helper() {}\n"
        "\n"
        "<filename>edit_history\n"
        "--- a/a.rs\n"
        "+++ b/a.rs\n"
        "-old\n"
        "+new\n"
        "\n"
        "<filename>test.rs\n"
        "prefix\n"
        "<<<<<<< CURRENT\n"
        "edi<|user_cursor|>table\n"
        "=======\n"
        "<[fim-middle]>"
    ),
    F.V0331SeedCoderModelPy: SEED_HEAD + MERGE_SECTION + "<[fim-middle]>",
    F.V0304SeedNoEdits: SEED_HEAD + MERGE_SECTION + "<[fim-middle]>",
    # §6 hashline: sum of "editable"'s bytes = 826 = 0x33a -> 3a
    F.v0226Hashline: FS_HEAD
    + "<|fim_prefix|>\nprefix\n<|fim_middle|>current\n0:3a|edi<|user_cursor|>table\n"
    + "<|fim_suffix|>\n\nsuffix\n<|fim_middle|>updated\n",
    # §6 V0304VariableEdit: the whole context with the cursor, then <|fim_prefix|>\n
    F.V0304VariableEdit: FS_HEAD + "prefix\nedi<|user_cursor|>table\nsuffix\n<|fim_prefix|>\n",
    # §8.2 V0306 writer: tags on their own lines, no newline added after CURRENT\n
    F.V0306SeedMultiRegions: SEED_HEAD
    + "<<<<<<< CURRENT\n<|marker_1|>\nedi<|user_cursor|>table\n<|marker_2|>\n=======\n"
    + "<[fim-middle]>",
    # §8.2 byte-exact writer [confirmed shape], +nl
    F.V0316SeedMultiRegions: SEED_HEAD + "<|marker_1|>edi<|user_cursor|>table<|marker_2|>\n<[fim-middle]>",
    # §8.4: one block, the cursor in block 0 -> tags -0 and +1
    F.V0317SeedMultiRegions: SEED_HEAD + "<|marker-0|>edi<|user_cursor|>table<|marker+1|>\n<[fim-middle]>",
    F.V0318SeedMultiRegions: SEED_HEAD + "<|marker_1|>edi<|user_cursor|>table<|marker_2|>\n<[fim-middle]>",
    # §5.4: the context is the whole excerpt, the editable range §3.6 (here: all of
    # it); no related files; the suffix is empty
    F.V0327SingleFile: "<[fim-suffix]>\n<[fim-prefix]>"
    + "<filename>edit_history\n--- a/a.rs\n+++ b/a.rs\n-old\n+new\n\n"
    + "<filename>test.rs\n<|marker_1|>prefix\nedi<|user_cursor|>table\nsuffix<|marker_2|>\n"
    + "<[fim-middle]>",
    F.V0420Diagnostics: SEED_HEAD + "<|marker_1|>edi<|user_cursor|>table<|marker_2|>\n<[fim-middle]>",
    # §5.3 [confirmed]
    F.V0608QwenMultiRegions: (
        "<|fim_prefix|><|file_sep|>related.rs\n"
        "fn helper() {}\n"
        "\n"
        "<|file_sep|>edit_history\n"
        "--- a/a.rs\n"
        "+++ b/a.rs\n"
        "-old\n"
        "+new\n"
        "\n"
        "<|file_sep|>test.rs\n"
        "prefix\n"
        "<|marker_1|>edi<|user_cursor|>table<|marker_2|>\n"
        "<|fim_suffix|>\n"
        "suffix\n"
        "<|fim_middle|>"
    ),
}


@pytest.mark.parametrize("fmt", list(GOLDEN), ids=str)
def test_prompt_golden(fmt: ZetaFormat) -> None:
    assert format_prompt(example(), fmt) == GOLDEN[fmt]


def test_every_format_but_v0615_has_a_golden() -> None:
    assert set(GOLDEN) == set(ZetaFormat) - {F.V0615HashRegions}


def test_v0331_equals_v0211() -> None:
    """§5.2 [confirmed]: V0331 produces exactly V0211's prompt."""
    assert format_prompt(example(), F.V0331SeedCoderModelPy) == format_prompt(example(), F.V0211SeedCoder)


def test_v0420_diagnostics_come_first() -> None:
    """§5.2 [confirmed]: diagnostics block, then related files; §4.4 layout."""
    diagnostics = (
        Diagnostic("warning", "file-level warning", "", 0, 0),
        Diagnostic("error", "missing semicolon", "let value = 1", 11, 12),
    )
    # cursor row 10 + 1 = 11: the semicolon one is nearer (|11-11|+|11-12| = 1)
    prompt = format_prompt(example(diagnostics=diagnostics, excerpt_start_row=10), F.V0420Diagnostics)
    assert prompt == (
        SEED_SUFFIX + "<[fim-prefix]><filename>diagnostics\n*missing semicolon*:\n```\nlet value = 1\n```\n"
        "*file-level warning*\n\n"
        + SEED_CONTEXT
        + "<filename>test.rs\nprefix\n<|marker_1|>edi<|user_cursor|>table<|marker_2|>\n"
        + "<[fim-middle]>"
    )
    # only V0420 shows diagnostics
    assert format_prompt(example(diagnostics=diagnostics), F.V0318SeedMultiRegions) == GOLDEN[F.V0318SeedMultiRegions]


def test_prefix_without_newline_runs_into_the_marker() -> None:
    """§6: when ctx[..es] does not end with a newline the next token follows it."""
    ranges = ExcerptRanges(*([(3, 15)] * 3), *([(0, 22)] * 3))
    prompt = format_prompt(example(excerpt_ranges=ranges, events=(), related_files=None), F.V0211SeedCoder)
    assert prompt == (
        SEED_SUFFIX
        + "<[fim-prefix]><filename>test.rs\npre<<<<<<< CURRENT\nfix\nedi<|user_cursor|>table\n"
        + "=======\n<[fim-middle]>"
    )


def test_empty_suffix_and_no_context_sections() -> None:
    """§5.2: an empty suffix gives ``<[fim-suffix]>\\n``; empty sections add nothing."""
    ranges = ExcerptRanges(*([(7, 22)] * 3), *([(0, 22)] * 3))
    prompt = format_prompt(example(excerpt_ranges=ranges, events=(), related_files=None), F.V0318SeedMultiRegions)
    assert prompt == (
        "<[fim-suffix]>\n<[fim-prefix]><filename>test.rs\nprefix\n"
        "<|marker_1|>edi<|user_cursor|>table\nsuffix<|marker_2|>\n<[fim-middle]>"
    )


def test_context_narrower_than_excerpt() -> None:
    """§3.5: only ``excerpt[context]`` is shown; the cursor is relative to it."""
    excerpt = "zero\none\ntwo\nthree\nfour"
    ranges = ExcerptRanges(*([(9, 12)] * 3), *([(5, 18)] * 3))  # "two" in "one..three"
    inp = ZetaInput("x.py", excerpt, 10, None, excerpt_ranges=ranges)
    assert format_prompt(inp, F.V0131GitMergeMarkersPrefix) == (
        "<|file_sep|>x.py\n<|fim_prefix|>one\n<<<<<<< CURRENT\nt<|user_cursor|>wo\n=======\n"
        "<|fim_suffix|>\nthree\n<|fim_middle|>"
    )
    parsed = apply_to_excerpt(inp, F.V0131GitMergeMarkersPrefix, "TWO<|user_cursor|>\n>>>>>>> UPDATED\n")
    assert parsed == ("zero\none\nTWO\nthree\nfour", 12)


def test_multi_block_region_v0316_and_v0318() -> None:
    """§8.1: a blank line splits V0316's (3, 8) region but not V0318's (6, 16)."""
    editable = "a1\na2\na3\n\nb1\nb2\nb3"
    excerpt = "top\n" + editable + "\nend"
    start = 4
    ranges = ExcerptRanges(*([(start, start + len(editable))] * 3), *([(0, len(excerpt))] * 3))
    inp = ZetaInput("m.rs", excerpt, start + 14, None, excerpt_ranges=ranges)  # after "b"
    head = "<[fim-suffix]>\nend\n<[fim-prefix]><filename>m.rs\ntop\n"
    assert format_prompt(inp, F.V0316SeedMultiRegions) == (
        head + "<|marker_1|>a1\na2\na3\n\n<|marker_2|>b1\nb<|user_cursor|>2\nb3<|marker_3|>\n<[fim-middle]>"
    )
    assert format_prompt(inp, F.V0317SeedMultiRegions) == (
        head + "<|marker-1|>a1\na2\na3\n\n<|marker-0|>b1\nb<|user_cursor|>2\nb3<|marker+1|>\n<[fim-middle]>"
    )
    assert format_prompt(inp, F.V0318SeedMultiRegions) == (
        head + "<|marker_1|>a1\na2\na3\n\nb1\nb<|user_cursor|>2\nb3<|marker_2|>\n<[fim-middle]>"
    )
    assert format_prompt(inp, F.V0306SeedMultiRegions) == (
        head + "<<<<<<< CURRENT\n<|marker_1|>\na1\na2\na3\n\n<|marker_2|>\nb1\nb<|user_cursor|>2\nb3\n"
        "<|marker_3|>\n=======\n<[fim-middle]>"
    )
    # answers: rewrite only the second block
    new_excerpt = "top\na1\na2\na3\n\nB1\nb2\nb3\nend"
    assert apply_to_excerpt(
        inp, F.V0316SeedMultiRegions, "<|marker_2|>B1<|user_cursor|>\nb2\nb3<|marker_3|>" + SEED_END
    ) == (new_excerpt, 16)
    assert apply_to_excerpt(inp, F.V0317SeedMultiRegions, "<|marker-0|>B1\nb2\nb3<|marker+1|>" + SEED_END) == (
        new_excerpt,
        None,
    )
    assert apply_to_excerpt(
        inp, F.V0306SeedMultiRegions, "<|marker_2|>\nB1\nb2\nb3\n<|marker_3|>\n>>>>>>> UPDATED\n"
    ) == (new_excerpt, None)


def test_budget_none_and_sections_dropped() -> None:
    """§5 step 6: over the unmargined budget there is no prompt. Here the cursor
    section leaves nothing (after_cursor saturates to 0), the prompt is 123 bytes."""
    bare = SEED_SUFFIX + "<[fim-prefix]><filename>test.rs\nprefix\n" + MERGE_SECTION + "<[fim-middle]>"
    assert len(bare) == 123
    assert format_prompt(example(), F.V0211SeedCoder, max_tokens=41) == bare
    assert format_prompt(example(), F.V0211SeedCoder, max_tokens=40) is None


def test_file_sep_history_before_related() -> None:
    """§5.1: the history is funded first; the related files get what is left."""
    inp = example()
    section = "<|file_sep|>test.rs\n<|fim_prefix|>prefix\n" + MERGE_SECTION + "<|fim_suffix|>\nsuffix\n<|fim_middle|>"
    assert len(section) == 125  # est 41
    # history: header 25 bytes (8) + event 32 bytes (10) = 18, est(57) = 19 is taken off;
    # related: header 23 bytes (7) + excerpt 15 bytes (5) = 12
    fmt = F.V0131GitMergeMarkersPrefix
    # B = floor(65 * 0.9) = 58: 17 left, the history does not fit, the related file does
    assert format_prompt(inp, fmt, max_tokens=65) == FS_RELATED + section
    # B = 59: 18 left, exactly the history; nothing for the related file
    assert format_prompt(inp, fmt, max_tokens=66) == FS_HISTORY + section
    # B = 71: 30 - 19 = 11 < 12
    assert format_prompt(inp, fmt, max_tokens=79) == FS_HISTORY + section
    # B = 72: 31 - 19 = 12, everything (220 bytes, est 73 <= 80)
    assert format_prompt(inp, fmt, max_tokens=80) == FS_RELATED + FS_HISTORY + section


def test_prompt_with_syntax_ranges_uses_the_region_algorithm() -> None:
    """§3.3 with no syntax nodes: rows of 100 tokens, E=350/C=150 give editable rows
    2..4 and context rows 1..4 around a cursor on row 3."""
    rows = [f"r{r}" + "x" * 298 for r in range(7)]
    excerpt = "\n".join(rows)
    cursor = 301 * 3 + 5
    inp = ZetaInput("big.txt", excerpt, cursor, None, syntax_ranges=())
    row3 = rows[3][:5] + CURSOR + rows[3][5:]
    assert format_prompt(inp, F.V0318SeedMultiRegions) == (
        "<[fim-suffix]>\n<[fim-prefix]><filename>big.txt\n"
        + rows[1]
        + "\n<|marker_1|>"
        + "\n".join([rows[2], row3, rows[4]])
        + "<|marker_2|>\n<[fim-middle]>"
    )


# -- §5.5 prefill ----------------------------------------------------------------------


def _single(excerpt: str, editable: tuple[int, int]) -> ZetaInput:
    ranges = ExcerptRanges(*([editable] * 3), *([(0, len(excerpt))] * 3))
    return ZetaInput("p.txt", excerpt, editable[0], None, excerpt_ranges=ranges)


def test_prefill_rules() -> None:
    words = "aaaa bbbb " * 6  # 60 bytes, no newline in the first 6 [confirmed]
    assert prefill(_single(words, (0, 60)), F.V0211Prefill) == "aaaa"
    lines = "ab\n\n\n" + "c" * 25  # n = 3: after "ab\n", extended over the newlines
    assert prefill(_single(lines, (0, 30)), F.V0211Prefill) == "ab\n\n\n"
    solid = "x" * 40
    assert prefill(_single(solid, (0, 40)), F.V0211Prefill) == "xxxx"
    assert prefill(_single(words, (0, 60)), F.V0131GitMergeMarkersPrefix) == ""


def test_prefill_is_prepended_before_parsing() -> None:
    inp = _single("aaaa bbbb " * 6, (0, 60))
    answer = prefill(inp, F.V0211Prefill) + " changed\n>>>>>>> UPDATED\n"
    assert apply_to_excerpt(inp, F.V0211Prefill, answer) == ("aaaa changed", None)


# -- §2 formats and names -----------------------------------------------------------


def test_format_list_and_constants() -> None:
    names = [f.value for f in ZetaFormat]
    assert names[0] == "V0112MiddleAtEnd" and names[8] == "v0226Hashline" and names[-1] == "V0615HashRegions"
    assert len(names) == 19 and names == [f.name for f in ZetaFormat]
    assert str(F.V0318SeedMultiRegions) == "V0318SeedMultiRegions"
    assert F.V0120GitMergeMarkers.end_marker == ">>>>>>> UPDATED\n"
    assert F.V0120GitMergeMarkers.stop_tokens == ()
    assert F.V0112MiddleAtEnd.end_marker is None
    assert F.V0318SeedMultiRegions.stop_tokens == ("<[end\u2581of\u2581sentence]>",)
    assert SEED_END.encode() == b"<[end\xe2\x96\x81of\xe2\x96\x81sentence]>"
    assert F.V0608QwenMultiRegions.end_marker == "<|im_end|>"
    assert F.v0226Hashline.stop_tokens == ("<|no_edits|>",)
    assert [F.V0327SingleFile.default_max_tokens, F.V0420Diagnostics.default_max_tokens] == [16384, 8192]
    assert [F.V0615HashRegions.default_max_tokens, F.V0211SeedCoder.default_max_tokens] == [8000, 4096]
    assert (F.V0114180EditableRegion.editable_tokens, F.V0114180EditableRegion.context_tokens) == (180, 350)
    assert (F.V0304VariableEdit.editable_tokens, F.V0304VariableEdit.context_tokens) == (1024, 0)
    assert all(f.max_edit_events == 6 for f in ZetaFormat)
    assert [f for f in ZetaFormat if f.uses_prefill] == [F.V0211Prefill]
    assert F.V0608QwenMultiRegions.family is Family.QWEN
    assert F.V0327SingleFile.family is Family.SINGLE_FILE
    assert "<|marker" in F.V0317SeedMultiRegions.special_tokens
    assert "<|marker_" not in F.V0317SeedMultiRegions.special_tokens


def test_parse_format_exact_and_substring() -> None:
    assert parse_format("ordered") is F.V0113Ordered  # [confirmed]
    assert parse_format("v0318seedmultiregions") is F.V0318SeedMultiRegions
    assert parse_format("V0226HASHLINE") is F.v0226Hashline
    assert parse_format("0420") is F.V0420Diagnostics


LISTING = "".join(
    f"- {n}\n"
    for n in (
        "V0112MiddleAtEnd V0113Ordered V0114180EditableRegion V0120GitMergeMarkers "
        "V0131GitMergeMarkersPrefix V0211Prefill V0211SeedCoder V0331SeedCoderModelPy "
        "v0226Hashline V0304VariableEdit V0304SeedNoEdits V0306SeedMultiRegions "
        "V0316SeedMultiRegions V0317SeedMultiRegions V0318SeedMultiRegions V0327SingleFile "
        "V0420Diagnostics V0608QwenMultiRegions V0615HashRegions"
    ).split()
)


def test_parse_format_errors_are_zeds_text() -> None:
    assert options_as_string() == LISTING
    with pytest.raises(ConfigError) as ambiguous:
        parse_format("seed")  # [confirmed] ambiguous
    assert ambiguous.value.reason == "`seed` matched more than one of:\n" + LISTING
    with pytest.raises(ConfigError) as unknown:
        parse_format("Zeta2")  # [confirmed]: parse matches nothing for zeta2
    assert unknown.value.reason == "`Zeta2` did not match any of:\n" + LISTING
    assert unknown.value.fix


def test_format_for_aliases() -> None:
    assert format_for("zeta") is ZETA1 and format_for("zeta1") is ZETA1
    assert format_for("zeta2") is F.V0211SeedCoder
    assert format_for("Zeta2.1") is F.V0318SeedMultiRegions
    assert format_for("zeta2_1") is F.V0318SeedMultiRegions
    assert format_for("ordered") is F.V0113Ordered
    assert format_for("infer") is F.V0318SeedMultiRegions
    assert format_for("infer", "zeta") is ZETA1
    assert format_for("infer", "Zeta2") is F.V0211SeedCoder
    assert format_for("infer", "zeta2.1") is F.V0318SeedMultiRegions
    assert format_for("infer", "qwen2.5-coder") is F.V0318SeedMultiRegions
    with pytest.raises(ConfigError):
        format_for("nope")


def test_special_tokens_in_input() -> None:
    """§2.2 [confirmed]: a newline-ended token counts only as a whole line."""
    assert not prompt_input_contains_special_tokens(example(), F.V0211SeedCoder)
    comment = example(cursor_excerpt="// =======\nx")
    assert not prompt_input_contains_special_tokens(comment, F.V0211SeedCoder)
    line = example(cursor_excerpt="a\n=======\nb")
    assert prompt_input_contains_special_tokens(line, F.V0211SeedCoder)
    assert not prompt_input_contains_special_tokens(line, F.V0318SeedMultiRegions)
    fim = example(cursor_excerpt="x <|fim_prefix|> y")
    assert prompt_input_contains_special_tokens(fim, F.V0131GitMergeMarkersPrefix)
    assert not prompt_input_contains_special_tokens(fim, F.V0211SeedCoder)


# -- §9 parsing ---------------------------------------------------------------------

NEW_EXCERPT = "prefix\nedited\nsuffix"


@pytest.mark.parametrize(
    ("fmt", "answer"),
    [
        (F.V0112MiddleAtEnd, "edited<|user_cursor|>\n"),
        (F.V0113Ordered, "edited<|user_cursor|>\n"),
        (F.V0114180EditableRegion, "edited<|user_cursor|>"),
        (F.V0120GitMergeMarkers, "edited<|user_cursor|>\n>>>>>>> UPDATED\n"),
        (F.V0131GitMergeMarkersPrefix, "edited<|user_cursor|>\n>>>>>>> UPDATED\n"),
        (F.V0211Prefill, "edited<|user_cursor|>\n>>>>>>> UPDATED\n"),
        (F.V0211SeedCoder, "edited<|user_cursor|>\n>>>>>>> UPDATED\n"),
        (F.V0331SeedCoderModelPy, "edited<|user_cursor|>\n>>>>>>> UPDATED\n"),
        (F.V0304SeedNoEdits, "edited<|user_cursor|>\n>>>>>>> UPDATED\n"),
        (F.v0226Hashline, "<|set|>0:3a\nedited<|user_cursor|>\n"),
        (F.v0226Hashline, "edited<|user_cursor|>\n"),
        (F.V0304VariableEdit, "prefix\n<|fim_middle|>\nedited<|user_cursor|>\n<|fim_suffix|>\nsuffix"),
        (F.V0306SeedMultiRegions, "<|marker_1|>\nedited<|user_cursor|>\n<|marker_2|>\n>>>>>>> UPDATED\n"),
        (F.V0316SeedMultiRegions, "<|marker_1|>edited<|user_cursor|><|marker_2|>" + SEED_END),
        (F.V0317SeedMultiRegions, "<|marker-0|>edited<|user_cursor|><|marker+1|>" + SEED_END),
        (F.V0318SeedMultiRegions, "<|marker_1|>edited<|user_cursor|><|marker_2|>" + SEED_END),
        (F.V0420Diagnostics, "<|marker_1|>edited<|user_cursor|><|marker_2|>" + SEED_END),
        (F.V0608QwenMultiRegions, "<|marker_1|>edited<|user_cursor|><|marker_2|><|im_end|>"),
    ],
    ids=lambda v: str(v)[:24],
)
def test_right_answer(fmt: ZetaFormat, answer: str) -> None:
    assert apply_to_excerpt(example(), fmt, answer) == (NEW_EXCERPT, 13)


def test_v0327_answer_spans_the_whole_excerpt() -> None:
    answer = "<|marker_1|>prefix\nedited<|user_cursor|>\nsuffix<|marker_2|>" + SEED_END
    assert apply_to_excerpt(example(), F.V0327SingleFile, answer) == (NEW_EXCERPT, 13)


def test_parsed_output_fields() -> None:
    parsed = parse_output("ed<|user_cursor|>ited\n>>>>>>> UPDATED\n", example(), F.V0211SeedCoder)
    assert parsed.new_editable_region == "edited\n"
    assert parsed.range_in_excerpt == (7, 15)
    assert parsed.cursor_offset == 2
    assert not parsed.no_edits


@pytest.mark.parametrize(
    ("fmt", "answer"),
    [
        (F.V0211SeedCoder, "editable\n>>>>>>> UPDATED\n"),
        (F.V0211SeedCoder, "editable"),
        (F.V0304SeedNoEdits, "NO_EDITS\n>>>>>>> UPDATED\n"),
        (F.V0304SeedNoEdits, "NO_EDITS\nwhatever"),
        (F.V0306SeedMultiRegions, "NO_EDITS\n"),
        (F.V0316SeedMultiRegions, "<|marker_1|><|marker_1|>" + SEED_END),
        (F.V0317SeedMultiRegions, "<|marker-0|>ignored<|marker-0|>" + SEED_END),
        (F.V0318SeedMultiRegions, "<|marker_2|>ignored<|marker_2|>" + SEED_END),
        (F.V0608QwenMultiRegions, "<|marker_1|><|marker_1|><|im_end|>"),
        (F.v0226Hashline, "  <|no_edits|>"),
        (F.v0226Hashline, "<|set|>0:3b\nwrong hash\n"),
        (F.V0318SeedMultiRegions, ""),
    ],
)
def test_no_edits(fmt: ZetaFormat, answer: str) -> None:
    assert apply_to_excerpt(example(), fmt, answer) is None


def test_no_edits_flag() -> None:
    assert parse_output("<|marker_1|><|marker_1|>", example(), F.V0318SeedMultiRegions).no_edits
    assert parse_output("NO_EDITS\n", example(), F.V0306SeedMultiRegions).no_edits


def test_no_edits_is_literal_text_for_v0211() -> None:
    """§9.1: NO_EDITS is not special for V0211SeedCoder; nor is a marker without \\n."""
    assert apply_to_excerpt(example(), F.V0211SeedCoder, "NO_EDITS\n") == ("prefix\nNO_EDITS\nsuffix", None)
    parsed = parse_output("x\n>>>>>>> UPDATED", example(), F.V0211SeedCoder)
    assert parsed.new_editable_region == "x\n>>>>>>> UPDATED"


def test_only_the_first_cursor_is_removed() -> None:
    parsed = parse_output(
        "a<|user_cursor|>b<|user_cursor|>\n>>>>>>> UPDATED\n", example(), F.V0131GitMergeMarkersPrefix
    )
    assert parsed.new_editable_region == "ab<|user_cursor|>\n"
    assert parsed.cursor_offset == 1


def test_deleting_the_region_and_adding_lines() -> None:
    assert apply_to_excerpt(example(), F.V0211SeedCoder, ">>>>>>> UPDATED\n") == ("prefix\nsuffix", None)
    added = apply_to_excerpt(example(), F.V0211SeedCoder, "editable\nmore\n>>>>>>> UPDATED\n")
    assert added == ("prefix\neditable\nmore\nsuffix", None)


@pytest.mark.parametrize(
    ("fmt", "answer", "message"),
    [
        (F.V0318SeedMultiRegions, "edited", "no marker tags found in output"),
        (F.V0318SeedMultiRegions, "<|marker_1|>edited", "only one marker tag found in output, expected at least two"),
        (F.V0318SeedMultiRegions, "<|marker_0|>x<|marker_2|>", "marker numbers are 1-indexed"),
        (F.V0318SeedMultiRegions, "<|marker_3|>x<|marker_1|>", "start marker number out of range"),
        (F.V0318SeedMultiRegions, "<|marker_1|>x<|marker_3|>", "end marker number out of range"),
        (F.V0318SeedMultiRegions, "<|marker_2|>x<|marker_1|>", "start marker must come before end marker"),
        (
            F.V0316SeedMultiRegions,
            "<|marker_1|>x<|marker_18446744073709551616|>",
            "only one marker tag found in output, expected at least two",
        ),
        (F.V0316SeedMultiRegions, "<|marker_1|>x<|marker_18446744073709551615|>", "end marker number out of range"),
        (
            F.V0608QwenMultiRegions,
            "<|marker_1|>x<|marker_ 2|>",
            "only one marker tag found in output, expected at least two",
        ),
        (F.V0317SeedMultiRegions, "<|marker-1|>x<|marker+1|>", "relative marker maps before first marker"),
        # past the last marker: Zed's numbered-tag errors, start checked first
        (F.V0317SeedMultiRegions, "<|marker-0|>x<|marker+9|>", "end marker number out of range"),
        (F.V0317SeedMultiRegions, "<|marker+9|>x<|marker+10|>", "start marker number out of range"),
        (F.V0317SeedMultiRegions, "<|marker_1|>x<|marker_2|>", "no marker tags found in output"),
        (F.V0306SeedMultiRegions, "edited", "no start marker found in output"),
        (F.V0306SeedMultiRegions, "<|marker_1", "malformed start marker tag"),
        (F.V0306SeedMultiRegions, "<|marker_one|>x", "start marker number is not a valid integer"),
        (F.V0306SeedMultiRegions, "<|marker_1|>x<|marker_", "malformed end marker tag"),
        (F.V0306SeedMultiRegions, "<|marker_1|>x<|marker_-2|>", "end marker number is not a valid integer"),
        (F.V0306SeedMultiRegions, "<|marker_1|>\nx\n<|marker_1|>", "start and end markers are the same (marker 1)"),
        (F.V0306SeedMultiRegions, "<|marker_0|>\nx\n<|marker_1|>", "marker numbers are 1-indexed"),
        (F.V0306SeedMultiRegions, "<|marker_9|>\nx\n<|marker_1|>", "start marker number out of range"),
        (F.V0306SeedMultiRegions, "<|marker_2|>\nx\n<|marker_1|>", "start marker must come before end marker"),
        (F.V0304VariableEdit, "prefix\nedited\n", "missing <|fim_middle|> in model output"),
        (F.V0304VariableEdit, "nowhere\n<|fim_middle|>\nx\n<|fim_suffix|>\n", "could not locate prefix lines"),
        (F.V0304VariableEdit, "prefix\n<|fim_middle|>\nx\n<|fim_suffix|>\nnowhere\n", "could not locate suffix lines"),
    ],
)
def test_malformed_answers(fmt: ZetaFormat, answer: str, message: str) -> None:
    with pytest.raises(PredictionError) as error:
        apply_to_excerpt(example(), fmt, answer)
    assert error.value.reason == message
    assert str(fmt) in error.value.fix


HOSTILE = [
    "<|marker_",
    "|>",
    "<|marker_1|><|marker_99999999999999999999999999|><|marker_2|>",
    "<|marker+99999999999999999999|><|marker-0|>",
    "<|marker+3|>x<|marker+9|>",
    "<|set|>99999999999999999999:zz-1:3a\n<|insert|>\n",
    "<|set|>0:3a-0:3a\n<|set|>0:3a\n<|insert|>-1:3a\nx",
    "<|set|>0:fff\n",
    "<|fim_middle|><|fim_suffix|>",
    "<|fim_middle|>",
    "\x00\ud7ff\u2028<|marker_1|>\r\n<|marker_2|>",
    ">>>>>>> UPDATED\n",
    "NO_EDITS",
    SEED_END,
]


@pytest.mark.parametrize("fmt", [f for f in ZetaFormat if f is not F.V0615HashRegions], ids=str)
def test_hostile_answers_only_raise_prediction_error(fmt: ZetaFormat) -> None:
    for answer in HOSTILE:
        try:
            result = apply_to_excerpt(example(), fmt, answer)
        except PredictionError:
            continue
        assert result is None or isinstance(result[0], str)


def test_v0615_dispatch() -> None:
    """V0615 goes to the hashed module; its answer patches the cursor excerpt.
    The tags are §7.4's [confirmed] example's (same first excerpt)."""
    excerpt = "fn main() {\n    let value = 1;\n}"
    file = RelatedFile("test.rs", 3, (RelatedExcerpt(0, 3, excerpt + "\n", context_source="current_file"),))
    inp = ZetaInput("test.rs", excerpt, 16, 0, related_files=(file,))
    assert format_prompt(inp, F.V0615HashRegions) == (
        "<[fim-suffix]>\n<[fim-prefix]><filename>test.rs\n<|marker_c0QV|>\nfn main() {\n"
        "    <|user_cursor|>let value = 1;\n}\n<|marker_P-pp|>\n<[fim-middle]>"
    )
    answer = "<|marker_c0QV|>\nfn main() {\n    let value = 2;<|user_cursor|>\n}\n<|marker_P-pp|>" + SEED_END
    assert apply_to_excerpt(inp, F.V0615HashRegions, answer) == ("fn main() {\n    let value = 2;\n}", 30)
    assert apply_to_excerpt(inp, F.V0615HashRegions, "NO_EDITS" + SEED_END) is None
    with pytest.raises(PredictionError):
        apply_to_excerpt(inp, F.V0615HashRegions, "<|marker_c0QV|>\nx")


def test_zeta1_dispatch() -> None:
    """Zeta 1 is built and parsed by its own module (§10); only the dispatch here."""
    from pytest_editpred.zeta._zeta1 import apply_zeta1_output, format_zeta1_prompt

    assert format_prompt(example(), ZETA1) == format_zeta1_prompt(example())
    answer = "<|editable_region_start|>\nedited\n<|editable_region_end|>"
    assert apply_to_excerpt(example(), ZETA1, answer) == apply_zeta1_output(example(), answer)


def test_v0615_parse_output_is_refused() -> None:
    with pytest.raises(PredictionError, match="use parse_zeta2_model_output_as_patch"):
        parse_output("NO_EDITS", example(), F.V0615HashRegions)


# -- §9.5 hashline ------------------------------------------------------------------

REGION = "abc\ndef\nghi\n"  # hashes: abc 0x26, def 0x2f, ghi 0x38 (sums 294, 303, 312)


def test_hashline_commands() -> None:
    assert apply_edit_commands(REGION, "<|set|>1:2f\nDEF\n") == "abc\nDEF\nghi\n"
    assert apply_edit_commands(REGION, "<|set|>0:26-1:2f\nX\n") == "X\nghi\n"
    assert apply_edit_commands(REGION, "<|insert|>2:38\nlast") == "abc\ndef\nghi\nlast\n"
    assert apply_edit_commands(REGION, "<|insert|>\nfirst\n") == "first\nabc\ndef\nghi\n"
    assert apply_edit_commands(REGION, "<|insert|>bad\nfirst\n") == "first\nabc\ndef\nghi\n"
    assert apply_edit_commands(REGION, "<|set|>1:30\nDEF\n") == REGION  # wrong hash
    assert apply_edit_commands(REGION, "<|set|>bad\nDEF\n") == REGION  # malformed set
    assert apply_edit_commands(REGION, "<|set|>1:2f-0:26\nX\n") == REGION  # start > end
    # overlapping sets: the one that starts first wins [confirmed]
    both = "<|set|>0:26-1:2f\nA\n<|set|>1:2f\nB\n"
    assert apply_edit_commands(REGION, both) == "A\nghi\n"
    # two commands in a row, then the region without a final newline
    assert apply_edit_commands("abc\ndef", "<|set|>0:26\nA\n<|set|>1:2f\nB\n") == "A\nB"
    assert apply_edit_commands(REGION, "<|no_edits|>\n<|set|>1:2f\nX\n") == REGION


def test_hashline_cursor_shown_strictly_inside() -> None:
    """§6 [confirmed]: a cursor at a line start is not shown."""
    ranges = ExcerptRanges(*([(0, 7)] * 3), *([(0, 7)] * 3))
    at_start = ZetaInput("h", "abc\ndef", 4, None, excerpt_ranges=ranges)
    inside = ZetaInput("h", "abc\ndef", 5, None, excerpt_ranges=ranges)
    body = (
        "<|file_sep|>h\n<|fim_prefix|>\n<|fim_middle|>current\n0:26|abc\n1:2f|{}\n"
        "<|fim_suffix|>\n<|fim_middle|>updated\n"
    )
    assert format_prompt(at_start, F.v0226Hashline) == body.format("def")
    assert format_prompt(inside, F.v0226Hashline) == body.format("d<|user_cursor|>ef")


# -- §9.6 variable edit -------------------------------------------------------------


def test_variable_edit() -> None:
    context = "one\ntwo\nthree\nfour\n"
    answer = "two\n<|fim_middle|>\nTHREE\n<|fim_suffix|>\nfour\n"
    assert apply_variable_edit(context, answer) == ("THREE\n", (8, 14))
    # empty prefix: edit from the start, one leading newline dropped from the suffix
    assert apply_variable_edit(context, "<|fim_middle|>\nZERO\n<|fim_suffix|>\none\n") == ("ZERO\n", (0, 0))
    # no suffix token: to the end of the context
    assert apply_variable_edit(context, "four\n<|fim_middle|>\nfive\n") == ("five\n", (19, 19))
    # the prefix must sit at a line start
    assert apply_variable_edit("xtwo\ntwo\nz", "two\n<|fim_middle|>Z") == ("Z", (9, 10))


# -- §8 multi-region ----------------------------------------------------------------


def test_marker_offsets() -> None:
    assert compute_marker_offsets("") == [0, 0]
    assert compute_marker_offsets("a\nb\n") == [0, 4]
    # blank-line split at "b1" (gap 4 >= 3, 3 lines left)
    assert compute_marker_offsets("a1\na2\na3\n\nb1\nb2\nb3\n") == [0, 10, 19]
    assert compute_marker_offsets_v0318("a1\na2\na3\n\nb1\nb2\nb3\n") == [0, 19]
    # a structural tail is not a start: nudged to "d"
    assert compute_marker_offsets("a\nb\nc\n\n}\nd\ne\nf\n") == [0, 9, 15]
    assert compute_marker_offsets("a\nb\nc\n\nreturn;\nd\ne\nf\n") == [0, 15, 21]
    # too few lines after the split: refused
    assert compute_marker_offsets("a\nb\nc\n\nd\ne\n") == [0, 11]
    # hard cap at 8 lines, nudged over two closers to "l10"
    plain = "".join(f"l{i}\n" for i in range(10))
    assert compute_marker_offsets(plain) == [0, 24, 30]
    closers = "".join(f"l{i}\n" for i in range(8)) + "}\n}\nl10\nl11\n"
    assert compute_marker_offsets(closers) == [0, 28, 36]
    # Rust whitespace: \x1c is not blank in Rust (it is for str.isspace)
    assert compute_marker_offsets_with_limits("a\nb\nc\n\x1c\nd\ne\nf\n", 3, 8) == [0, 14]
    assert compute_marker_offsets_with_limits("a\nb\nc\n\xa0\nd\ne\nf\n", 3, 8) == [0, 8, 14]


def test_marker_helpers() -> None:
    offsets = [0, 10, 19]
    assert cursor_block_index(offsets, 0) == 0
    assert cursor_block_index(offsets, 10) == 1
    assert cursor_block_index(offsets, 19) == 1
    assert cursor_block_index(offsets, None) == 0
    assert nearest_marker_number(offsets, 4) == 1
    assert nearest_marker_number(offsets, 5) == 1  # tie goes to the earlier
    assert nearest_marker_number(offsets, 6) == 2
    assert [marker_tag_relative(d) for d in (0, 2, -2)] == ["<|marker-0|>", "<|marker+2|>", "<|marker-2|>"]
    assert strip_marker_tags("a<|marker_1|>\nb<|marker_x|>c<|marker_") == "abc<|marker_"
    # inner tags are stripped with one newline after each (§8.3)
    assert extract_marker_span("<|marker_1|>\na<|marker_2|>\nb\n<|marker_3|>") == (1, 3, "ab\n")


def test_apply_marker_span_newline_rules() -> None:
    old = "a1\na2\na3\n\nb1\nb2\nb3\n"
    # V0306: the old span ends with \n, the content gets one
    assert apply_marker_span(old, "<|marker_2|>\nB<|marker_3|>") == "a1\na2\na3\n\nB\n"
    # byte-exact: no normalization, intermediate tags dropped
    assert apply_marker_span_v0316(old, "<|marker_1|>A\n<|marker_2|>B<|marker_3|>") == "A\nB"
    assert apply_marker_span_v0318("", "<|marker_1|>x<|marker_2|>") == "x"


@pytest.mark.parametrize(
    ("old", "new", "cursor"),
    [
        ("a1\na2\na3\n\nb1\nb2\nb3\n", "a1\na2\na3\n\nB1\nb2\nb3\n", 12),
        ("a1\na2\na3\n\nb1\nb2\nb3\n", "A1\na2\na3\n\nb1\nb2\nb3\nb4\n", None),
        ("a1\na2\na3\n\nb1\nb2\nb3\n", "a1\na2\na3\n\nb1\nb2\nb3\nappended\n", 25),
        ("x\n", "y\nz\n", 0),
        ("", "new\n", 3),
        ("é1\né2\né3\n\nü1\nü2\nü3", "é1\né2\né3\n\nü1\nÜ2\nü3", None),
    ],
)
def test_encoders_round_trip(old: str, new: str, cursor: int | None) -> None:
    """§8.5 [confirmed property]: applying the encoded answer gives ``new``."""
    terminated = new if new.endswith("\n") else new + "\n"
    v0318 = encode_from_old_and_new_v0318(old, new, cursor, SEED_END)
    assert v0318.endswith(SEED_END)
    body = v0318[: -len(SEED_END)]
    base = old if old.endswith("\n") or not old else old + "\n"
    result = apply_marker_span_v0318(base, body.replace(CURSOR, ""))
    assert result == terminated
    if cursor is not None:
        assert body.count(CURSOR) == 1
    v0316 = encode_from_old_and_new_v0316(old, new, cursor, "")
    assert apply_marker_span_v0316(base, v0316.replace(CURSOR, "")) == terminated
    v0317 = encode_from_old_and_new_v0317(old, new, 0, cursor, "")
    from pytest_editpred.zeta._multi_region import apply_marker_span_v0317

    assert apply_marker_span_v0317(base, v0317.replace(CURSOR, ""), 0) == terminated


def test_encoders_equal_texts() -> None:
    old = "a1\na2\na3\n\nb1\nb2\nb3\n"
    assert encode_from_old_and_new_v0316(old, old, 12, SEED_END) == "<|marker_2|><|marker_2|>" + SEED_END
    # V0318 offsets [0, 19]: 12 is nearer 19
    assert encode_from_old_and_new_v0318(old, old, 12, SEED_END) == "<|marker_2|><|marker_2|>" + SEED_END
    assert encode_from_old_and_new_v0318(old, old, 9, SEED_END) == "<|marker_1|><|marker_1|>" + SEED_END
    assert encode_from_old_and_new_v0317(old, old, 12, 12, "") == "<|marker-0|><|marker-0|>"
    assert encode_from_old_and_new(old, old, None, ">>>>>>> UPDATED\n") == "NO_EDITS\n>>>>>>> UPDATED\n"
    v0306 = encode_from_old_and_new(old, old.replace("b2", "B2"), None, "")
    assert v0306 == "<|marker_2|>\nb1\nB2\nb3\n<|marker_3|>\n"
    assert apply_marker_span(old, v0306) == old.replace("b2", "B2")


def test_encoded_answer_through_the_parser() -> None:
    """The encoder gives the answer a perfect model writes for the example."""
    answer = encode_from_old_and_new_v0318("editable", "edited", 6, SEED_END)
    assert answer == "<|marker_1|>edited<|user_cursor|>\n<|marker_2|>" + SEED_END
    assert apply_to_excerpt(example(), F.V0318SeedMultiRegions, answer) == (NEW_EXCERPT, 13)


# -- §4.1 history -------------------------------------------------------------------


def test_render_path() -> None:
    """§4.1 [confirmed] edge cases of ``Path::components``."""
    assert render_path("a.rs") == "/a.rs"
    assert render_path("dir//y.rs") == "/dir/y.rs"
    assert render_path("dir/./y.rs") == "/dir/y.rs"
    assert render_path("/abs/x") == "///abs/x"
    assert render_path("./a") == "/./a"
    assert render_path("d/") == "/d"


def test_write_event() -> None:
    assert write_event(Event("new.rs", "old.rs", "@@ -1 +1 @@\n-a\n+b\n", predicted=True)) == (
        "// User accepted prediction:\n--- a/old.rs\n+++ b/new.rs\n@@ -1 +1 @@\n-a\n+b\n"
    )


def _event(name: str, diff: str = "-old\n+new\n") -> Event:
    return Event(name, name, diff)


def test_history_budget() -> None:
    # header "<|file_sep|>edit history\n" is 25 bytes (8 tokens); each small event
    # "--- a/x.rs\n+++ b/x.rs\n-old\n+new\n" is 32 bytes (10 tokens)
    old, big, new = _event("o.rs"), _event("b.rs", "-" + "x" * 60 + "\n"), _event("n.rs")
    events = (old, big, new)
    small = "--- a/{0}\n+++ b/{0}\n-old\n+new\n"
    header = "<|file_sep|>edit history\n"
    assert format_edit_history_within_budget(events, "<|file_sep|>", "edit history", 8, 6) == ""
    assert format_edit_history_within_budget(events, "<|file_sep|>", "edit history", 17, 6) == ""
    only_new = header + small.format("n.rs")
    assert format_edit_history_within_budget(events, "<|file_sep|>", "edit history", 18, 6) == only_new
    # the big one (est(22 + 62) = 28) does not fit: the walk stops, "o.rs" is never used
    assert format_edit_history_within_budget(events, "<|file_sep|>", "edit history", 45, 6) == only_new
    everything = header + small.format("o.rs") + "--- a/b.rs\n+++ b/b.rs\n-" + "x" * 60 + "\n" + small.format("n.rs")
    assert format_edit_history_within_budget(events, "<|file_sep|>", "edit history", 56, 6) == everything
    # at most max_count events, the newest, oldest first
    many = tuple(_event(f"{i}.rs") for i in range(8))
    kept = format_edit_history_within_budget(many, "<filename>", "edit_history", 10_000, 6)
    assert kept == "<filename>edit_history\n" + "".join(small.format(f"{i}.rs") for i in range(2, 8))


# -- §4.2–§4.4 related files, redundancy, diagnostics -------------------------------

FILE_A = RelatedFile(
    "A",
    10,
    (
        RelatedExcerpt(0, 2, "a0\na1\n", order=1),
        RelatedExcerpt(2, 3, "a2", order=0),
        RelatedExcerpt(5, 6, "a5\n", order=2),
    ),
)
FILE_B = RelatedFile("B", 3, (RelatedExcerpt(0, 3, "b\n", order=0),))


def test_related_files_rendering() -> None:
    """§4.2: files in their order, touching excerpts without ``...``, gaps with it,
    the suffix between files only."""
    text = format_related_files_within_budget((FILE_A, FILE_B), "<|file_sep|>", "", 1000)
    assert text == "<|file_sep|>A\na0\na1\na2\n...\na5\n...\n<|file_sep|>B\nb\n"
    with_suffix = format_related_files_within_budget((FILE_A, FILE_B), "<f>", "END\n", 1000)
    assert with_suffix == "<f>A\na0\na1\na2\n...\na5\n...\nEND\n<f>B\nb\n"


def test_related_files_budget_stops_at_first_misfit() -> None:
    # by priority: a2 (header 4 + est(7)=2), b (4 + 0), a0a1 (est(10)=3), a5 (est(7)=2)
    files = (FILE_A, FILE_B)
    assert format_related_files_within_budget(files, "<|file_sep|>", "", 5) == ""
    assert format_related_files_within_budget(files, "<|file_sep|>", "", 6) == "<|file_sep|>A\na2\n...\n"
    # 12: a0a1 would make 13; a5 (2) would fit but the walk has stopped
    assert format_related_files_within_budget(files, "<|file_sep|>", "", 12) == (
        "<|file_sep|>A\na2\n...\n<|file_sep|>B\nb\n"
    )
    assert format_related_files_within_budget(files, "<|file_sep|>", "", 13) == (
        "<|file_sep|>A\na0\na1\na2\n...\n<|file_sep|>B\nb\n"
    )


def test_filter_redundant_excerpts() -> None:
    cursor_file = RelatedFile(
        "test.rs",
        40,
        (
            RelatedExcerpt(10, 13, "in"),
            RelatedExcerpt(11, 12, "in"),
            RelatedExcerpt(8, 11, "before"),
            RelatedExcerpt(12, 14, "after"),
        ),
    )
    only_inside = RelatedFile("test.rs", 40, (RelatedExcerpt(10, 12, "in"),))
    other = RelatedFile("./test.rs", 40, (RelatedExcerpt(10, 12, "same rows, other path"),))
    kept = filter_redundant_excerpts((cursor_file, only_inside, other), "test.rs", (10, 13))
    assert [f.path for f in kept] == ["test.rs", "./test.rs"]
    assert [e.text for e in kept[0].excerpts] == ["before", "after"]


def test_redundant_excerpts_left_out_of_the_prompt() -> None:
    """§4.3: context rows 10..13 (3 lines from row 10) hide the same rows of the
    cursor file."""
    inside = RelatedFile("test.rs", 40, (RelatedExcerpt(10, 13, EXCERPT + "\n"),))
    inp = example(related_files=(inside, *RELATED), excerpt_start_row=10)
    assert format_prompt(inp, F.V0211SeedCoder) == GOLDEN[F.V0211SeedCoder]
    shown = example(related_files=(inside, *RELATED))  # no start row: no filtering
    assert "<filename>test.rs\nprefix\neditable\nsuffix\n...\n" in (format_prompt(shown, F.V0211SeedCoder) or "")


def test_clamp_text_to_token_count() -> None:
    text = "aaaa\nbbbb\ncccc\n"  # 15 bytes, 5 tokens
    assert clamp_text_to_token_count(text, 5) == text
    assert clamp_text_to_token_count(text, 3) == "aaaa\nbbbb\n"
    assert clamp_text_to_token_count(text, 0) == ""
    assert clamp_text_to_token_count("aaaaaaaaaaaa", 3) == ""


def test_diagnostics_budget_and_clamp() -> None:
    long = "x" * 9 + "\n"
    snippet = long * 300  # 1000 tokens, clamped to 77 lines (770 bytes, 256 tokens)
    diagnostics = (Diagnostic("error", "m", snippet, 0, 1), Diagnostic("error", "n", "", 5, 5))
    text = format_active_buffer_diagnostics_with_budget(diagnostics, None, 10_000)
    assert text == "<filename>diagnostics\n*m*:\n```\n" + long * 77 + "...\n```\n*n*\n"
    # header 22 bytes = 7 tokens; "*n*\n" is 1 token; the long one does not fit first
    assert format_active_buffer_diagnostics_with_budget(diagnostics, None, 100) == ""
    assert format_active_buffer_diagnostics_with_budget(diagnostics[::-1], None, 8) == "<filename>diagnostics\n*n*\n"
    assert format_active_buffer_diagnostics_with_budget(diagnostics, None, 0) == ""
    assert format_active_buffer_diagnostics_with_budget((), 3, 100) == ""
    # ordered by |row - start| + |row - end| when the cursor row is known
    near = format_active_buffer_diagnostics_with_budget(diagnostics[::-1], 0, 10_000)
    assert near.startswith("<filename>diagnostics\n*m*:")
    at_most_ten = tuple(Diagnostic("e", str(i), "", i, i) for i in range(12))
    shown = format_active_buffer_diagnostics_with_budget(at_most_ten, 0, 10_000)
    assert shown == "<filename>diagnostics\n" + "".join(f"*{i}*\n" for i in range(10))
