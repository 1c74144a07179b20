"""The tolerant diff engine, rule by rule (zed-format.md §2 and §7)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import random_edits
from pytest_editpred import (
    ContextNotFoundError,
    ContextNotUniqueError,
    DiffParseError,
    EditPredError,
    NoSuchPathError,
    apply_patch,
)
from pytest_editpred._diff import (
    Kind,
    apply_sections,
    apply_to_string,
    classify,
    parse_diff,
    undo_diff,
)
from pytest_editpred._text import change_between
from pytest_editpred._textdiff import diff_texts

MARKER = "// User accepted prediction:"


@pytest.mark.parametrize(
    "line,kind,text",
    [
        ("\\ No newline at end of file", Kind.NO_NEWLINE, ""),
        ("--- a/src/x.py", Kind.OLD_PATH, "src/x.py"),
        ("+++ b/src/x.py", Kind.NEW_PATH, "src/x.py"),
        ("--- /dev/null", Kind.OLD_PATH, "/dev/null"),
        ('--- "a/with space.py"', Kind.OLD_PATH, "with space.py"),
        ("--- a/x.py\t2024-01-01", Kind.OLD_PATH, "x.py"),
        ("@@ -1,2 +1,3 @@", Kind.HUNK_HEADER, ""),
        ("@@ -28,7 +28,7 @@ impl PromptArgsError {", Kind.HUNK_HEADER, ""),
        ("@@ @@", Kind.HUNK_HEADER, ""),
        ("@@ -x,1 +1 @@", Kind.GARBAGE, "@@ -x,1 +1 @@"),
        ("-gone", Kind.DELETION, "gone"),
        ("---", Kind.DELETION, "--"),  # '---' needs whitespace after it to be a header
        ("", Kind.CONTEXT, ""),
        (" kept", Kind.CONTEXT, "kept"),
        ("+new", Kind.ADDITION, "new"),
        ("def test_static_url_path():", Kind.GARBAGE, "def test_static_url_path():"),
        ("# ^[CURSOR_POSITION]", Kind.GARBAGE, "# ^[CURSOR_POSITION]"),
        ("--- x", Kind.OLD_PATH, "x"),  # hazard: a deleted '-- x' line reads as a header
        ("+++ y", Kind.NEW_PATH, "y"),
    ],
)
def test_line_classification(line: str, kind: Kind, text: str) -> None:
    parsed = classify(line)
    assert parsed.kind is kind
    if kind in (Kind.OLD_PATH, Kind.NEW_PATH, Kind.DELETION, Kind.CONTEXT, Kind.ADDITION, Kind.GARBAGE):
        assert parsed.text == text


def test_header_start_line_is_zero_based_and_saturating() -> None:
    assert classify("@@ -10,2 +10,2 @@").start_line == 9
    assert classify("@@ -0,0 +1,2 @@").start_line == 0
    assert classify("@@ -7 +7 @@").start_line == 6
    assert classify("@@ @@").start_line is None


def test_counts_are_ignored() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1372,15 +1372,15 @@\n a\n-b\n+B\n c\n"
    assert apply_to_string(diff, "x\na\nb\nc\ny\n") == "x\na\nB\nc\ny\n"


def test_bogus_zero_count_header_still_applies() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -926,0 +926,0 @@\n one\n+two\n three\n"
    assert apply_to_string(diff, "one\nthree\n") == "one\ntwo\nthree\n"


def test_patch_without_any_hunk_header() -> None:
    diff = "--- a/f\n+++ b/f\n-old\n+new\n"
    assert apply_to_string(diff, "a\nold\nb\n") == "a\nnew\nb\n"


def test_header_line_breaks_ties_between_matches() -> None:
    text = "x\nfoo\ny\nfoo\nz\n"
    diff = "--- a/f\n+++ b/f\n@@ -4,1 +4,1 @@\n-foo\n+bar\n"
    assert apply_to_string(diff, text) == "x\nfoo\ny\nbar\nz\n"


def test_a_single_match_wins_whatever_the_header_says() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -900,1 +900,1 @@\n-foo\n+bar\n"
    assert apply_to_string(diff, "foo\n") == "bar\n"


def test_several_matches_without_a_deciding_header_are_not_unique() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-foo\n+bar\n"
    with pytest.raises(ContextNotUniqueError) as info:
        apply_to_string(diff, "a\nfoo\nfoo\n")
    assert info.value.line == 3 and "2 times" in info.value.reason


def test_context_not_found_names_the_context() -> None:
    with pytest.raises(ContextNotFoundError) as info:
        apply_to_string("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-nothere\n+x\n", "abc\n")
    assert "nothere" in info.value.reason


def test_matching_is_substring_not_line_anchored() -> None:
    # §7.2: the context "de\n" matches the tail of "mode\n" too.
    diff = "--- a/f\n+++ b/f\n-de\n+def\n"
    assert apply_to_string(diff, "mode\nx\n") == "modef\nx\n"


def test_garbage_line_ends_the_file_section_and_later_lines_are_ignored() -> None:
    diff = "--- a/f\n+++ b/f\n-a\n+A\nnot a diff line\n-b\n+B\n"
    assert apply_to_string(diff, "a\nb\n") == "A\nb\n"


def test_no_newline_at_end_of_file_after_addition() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n"
    assert apply_to_string(diff, "a\n") == "b"


def test_no_newline_after_context() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n last\n\\ No newline at end of file\n"
    assert apply_to_string(diff, "a\nlast") == "A\nlast"


def test_missing_no_newline_marker_matches_the_end_of_the_file() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n first\n-last\n+LAST\n"
    assert apply_to_string(diff, "first\nlast") == "first\nLAST"


def test_patch_hunks_apply_in_sequence() -> None:
    # The second hunk's context only exists after the first hunk applied.
    diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n@@ -1 +1 @@\n-b\n+c\n"
    assert apply_to_string(diff, "a\n") == "c\n"


def open_from(files: dict[str, str]):
    return lambda path: (path, files[path]) if path in files else None


def test_history_hunks_of_one_section_see_the_text_before_the_section() -> None:
    # Both hunks are located in "a\nb\n": the second would not find "A" otherwise.
    history = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n@@ -2 +2 @@\n-b\n+B\n"
    buffers: dict[str, str] = {}
    list(apply_sections(history, buffers, open_from({"f": "a\nb\n"})))
    assert buffers["f"] == "A\nB\n"
    chained = "--- a/f\n+++ b/f\n-a\n+A\n@@ @@\n-A\n+X\n"
    with pytest.raises(ContextNotFoundError):
        list(apply_sections(chained, {}, open_from({"f": "a\nb\n"})))


def test_several_sections_for_one_file_in_one_block_apply_in_order() -> None:
    history = (
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n"
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-c\n+d\n"
    )
    buffers: dict[str, str] = {}
    applied = list(apply_sections(history, buffers, open_from({"f": "a\n"})))
    assert buffers["f"] == "d\n"
    assert [(a.before, a.after) for a in applied] == [("a\n", "b\n"), ("b\n", "c\n"), ("c\n", "d\n")]


def test_accepted_prediction_marker_between_blocks_flags_the_next_section() -> None:
    history = f"--- a/f\n+++ b/f\n-a\n+b\n{MARKER}\n--- a/f\n+++ b/f\n-b\n+c\n--- a/f\n+++ b/f\n-c\n+d\n"
    buffers: dict[str, str] = {}
    applied = list(apply_sections(history, buffers, open_from({"f": "a\n"}), marker=MARKER))
    assert [a.predicted for a in applied] == [False, True, False]
    assert buffers["f"] == "d\n"


def test_dev_null_creates_and_deletes() -> None:
    history = (
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
    )
    buffers: dict[str, str] = {}
    applied = list(apply_sections(history, buffers, open_from({"old.py": "gone\n"})))
    assert buffers == {"new.py": "x = 1\ny = 2\n"}
    assert applied[0].before is None and applied[1].after is None


def test_paths_prefixed_with_the_repository_name_resolve() -> None:
    history = "--- a/tree-sitter/crates/x.rs\n+++ b/tree-sitter/crates/x.rs\n-a\n+b\n"
    buffers: dict[str, str] = {}
    list(apply_sections(history, buffers, open_from({"crates/x.rs": "a\n"})))
    assert buffers == {"crates/x.rs": "b\n"}


def test_a_path_that_exists_wins_over_an_open_buffer_named_without_its_first_component() -> None:
    """``npm/README.md`` is that file even when ``README.md`` is open already: a
    commit that edits both (tree-sitter's ``Cargo.toml`` and ``cli/Cargo.toml``)
    gave an edit history whose second section was placed in the first file."""
    history = (
        "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-top\n+TOP\n"
        "--- a/npm/README.md\n+++ b/npm/README.md\n@@ -1 +1 @@\n-inner\n+INNER\n"
    )
    buffers: dict[str, str] = {}
    list(apply_sections(history, buffers, open_from({"README.md": "top\n", "npm/README.md": "inner\n"})))
    assert buffers == {"README.md": "TOP\n", "npm/README.md": "INNER\n"}


def test_unknown_path_is_an_error_with_the_line() -> None:
    with pytest.raises(NoSuchPathError) as info:
        list(apply_sections("x\n--- a/nope.py\n+++ b/nope.py\n-a\n+b\n", {}, open_from({})))
    assert info.value.line == 2 and "nope.py" in info.value.reason


def test_a_diff_with_changes_but_no_file_header_is_refused() -> None:
    with pytest.raises(DiffParseError):
        parse_diff("-a\n+b\n")


def test_merged_edits_within_a_hunk() -> None:
    [section] = parse_diff("--- a/f\n+++ b/f\n a\n-b\n-c\n+B\n+C\n d\n")
    [hunk] = section.hunks
    assert hunk.context == "a\nb\nc\nd\n"
    assert [(e.start, e.end, e.text) for e in hunk.edits] == [(2, 6, "B\nC\n")]
    assert hunk.new_text() == "a\nB\nC\nd\n"


def test_undo_diff_undoes() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    text = apply_to_string(diff, "a\nb\n")
    assert apply_to_string(undo_diff(diff), text) == "a\nb\n"


def test_multi_file_patch_changes_each_file() -> None:
    patch = "--- a/x\n+++ b/x\n-1\n+one\n--- a/y\n+++ b/y\n-2\n+two\n"
    result = apply_patch({"x": "1\n", "y": "2\n"}, patch)
    assert dict(result.buffers) == {"x": "one\n", "y": "two\n"}
    assert result.changed == ("x", "y")


# ------------------------------------------------ what a patch says it left alone

_pieces = st.text(alphabet=st.sampled_from(list("ab\n\n xy()")), max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_what_a_patch_says_it_kept_is_kept_and_finds_the_same_change(data: st.DataObject) -> None:
    # The verdict starts its prefix/suffix scans where the patch says it did not
    # edit: that must hold, and give the change a full scan finds. Patches of one
    # to three hunks, made by a real diff, some ending without a newline.
    lines = [f"line {i} {'x' * (i % 5)}" for i in range(data.draw(st.integers(1, 40)))]
    before = "\n".join(lines) + data.draw(st.sampled_from(["\n", ""]))
    after = random_edits(before, data, _pieces, least=1, most=3, reach=6)
    patch = diff_texts(before, after, "a/f.txt", "b/f.txt", context=data.draw(st.integers(0, 3))).text
    try:
        patched = apply_patch({"f.txt": before}, patch)
    except EditPredError:  # a context repeated without a deciding header: not this test's business
        return
    result = patched.buffers["f.txt"]
    if result == before:
        return
    head, tail = patched.kept["f.txt"]
    assert result[:head] == before[:head] and head <= min(len(before), len(result))
    assert tail <= min(len(before), len(result)) and result[len(result) - tail :] == before[len(before) - tail :]
    assert change_between(before, result, (head, tail)) == change_between(before, result)


def test_a_patch_that_creates_renames_or_opens_a_file_says_nothing_of_it() -> None:
    patch = (
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n"
        "--- a/old.txt\n+++ b/moved.txt\n@@ -1 +1 @@\n-old\n+moved\n"
        "--- a/disk.txt\n+++ b/disk.txt\n@@ -1 +1 @@\n-disk\n+DISK\n"
        "--- a/kept.txt\n+++ b/kept.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
    )
    buffers = {"old.txt": "old\n", "kept.txt": "one\ntwo\nthree\n"}
    patched = apply_patch(buffers, patch, open_file=lambda p: (p, "disk\n") if p == "disk.txt" else None)
    assert patched.buffers["disk.txt"] == "DISK\n" and patched.buffers["moved.txt"] == "moved\n"
    assert patched.kept == {"kept.txt": (4, 6)}  # "one\n" before, "three\n" after


def test_placing_in_many_texts_by_one_context_finds_each_texts_own_place() -> None:
    # The first hunk's search is remembered per text (every expected patch of an
    # example is placed in the same buffer): other texts must not see its answer.
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n key\n-old\n+new\n"
    texts = ["key\nold\n", "x\nkey\nold\ny\n", "key\nold\nkey\nold\n", "key\nold\n"]
    for _ in range(2):
        results = []
        for text in texts:
            try:
                results.append(apply_patch({"f.txt": text}, patch).buffers["f.txt"])
            except ContextNotUniqueError:
                results.append(None)
        assert results == ["key\nnew\n", "x\nkey\nnew\ny\n", "key\nnew\nkey\nold\n", "key\nnew\n"]


def test_patches_placed_from_many_threads_at_once_each_land_in_their_own_text() -> None:
    # Prefetch threads build scenes at once, and the remembered searches are shared.
    import concurrent.futures

    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n key\n-old\n+new\n"
    texts = ["pad\n" * i + "key\nold\n" + "tail\n" * (i % 3) for i in range(40)]

    def place(i: int) -> bool:
        text = texts[i % len(texts)]
        got = apply_patch({"f.txt": text}, patch).buffers["f.txt"]
        return got == text.replace("key\nold\n", "key\nnew\n")

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert all(pool.map(place, range(4000)))
