"""``qa.word_diff``: Zed's word-diff format (zed-qa-repair.md §1), byte for byte.

The worked examples WD1-WD10 and the further vectors of §1.7 are Zed's output,
checked there against the compiled Rust; the other cases are made by hand, one for
each rule of §1.1-§1.5 and each row of §1.6's table.
"""

from __future__ import annotations

import pytest

from pytest_editpred._similar import Op, _myers, _replace, diff_ops
from pytest_editpred.qa import word_diff
from pytest_editpred.qa._word_diff import tokenize, word_diff_of_texts

# -- §1.7: the worked examples --------------------------------------------------------------------

WORKED = {
    "WD1 common prefix and suffix stay outside": (
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn total(items: &[Item]) -> u32 {\n"
        "-    items.len()\n+    items.iter().map(|i| i.price).sum()\n }\n",
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn total(items: &[Item]) -> u32 {\n"
        "    items.[-len-]{+iter().map(|i| i.price).sum+}()\n }\n",
    ),
    "WD2 pure insertion": (
        "@@ -1,2 +1,3 @@\n import os\n+import sys\n \n",
        "@@ -1,2 +1,3 @@\n import os\n{+import sys+}\n \n",
    ),
    "WD3 two-line deletion spans the newline": (
        "@@ -3,4 +3,2 @@\n def f():\n-    x = 1\n-    y = 2\n     return 0\n",
        "@@ -3,4 +3,2 @@\n def f():\n[-    x = 1\n    y = 2-]\n     return 0\n",
    ),
    "WD4 two changed lines pooled": (
        "@@ -1,2 +1,2 @@\n-    let a = 1;\n-    let b = 2;\n+    let a = 10;\n+    let c = 2;\n",
        "@@ -1,2 +1,2 @@\n    let a = [-1-]{+10+};\n    let [-b-]{+c+} = 2;\n",
    ),
    "WD5 indentation": ("@@ -1 +1 @@\n-  foo()\n+    foo()\n", "@@ -1 +1 @@\n[-  -]{+    +}foo()\n"),
    "WD6 CRLF and no newline": (
        "--- a/x.txt\r\n+++ b/x.txt\r\n@@ -1 +1 @@\r\n-hello\r\n+hello world\r\n\\ No newline at end of file\r\n",
        "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\nhello{+ world+}\n\\ No newline at end of file\n",
    ),
    "WD7 removed blank lines": ("@@ -1,4 +1,2 @@\n a\n-\n b\n-\n-\n", "@@ -1,4 +1,2 @@\n a\n b\n[-\n-]\n"),
    "WD8 trailing blank line absorbed": ("@@ -1,2 +1,2 @@\n-a\n-\n+b\n+\n", "@@ -1,2 +1,2 @@\n[-a-]{+b+}\n"),
    "WD9 deleted -- text taken for a header": (
        "@@ -1,3 +1,3 @@\n--- old note\n+-- new note\n x\n",
        "@@ -1,3 +1,3 @@\n--- old note\n{+-- new note+}\n x\n",
    ),
    "WD10 no-newline line splits the run": (
        "@@ -1 +1 @@\n-return a\n\\ No newline at end of file\n+return a + b\n\\ No newline at end of file",
        "@@ -1 +1 @@\n[-return a-]\n\\ No newline at end of file\n{+return a + b+}\n\\ No newline at end of file\n",
    ),
}


@pytest.mark.parametrize("diff, expected", WORKED.values(), ids=WORKED.keys())
def test_the_worked_examples_byte_for_byte(diff: str, expected: str) -> None:
    assert word_diff(diff) == expected


def test_a_tab_indent_replaced_by_spaces() -> None:
    assert word_diff("-\tx\n+    x\n") == "[-\t-]{+    +}x\n"


@pytest.mark.parametrize(
    "body, expected",
    [
        ("-x = foo(a)\n+x = foo(a, a)\n", "x = foo(a{+, a+})\n"),
        ("-if a and b:\n+if b and a:\n", "if [-a-]{+b+} and [-b-]{+a+}:\n"),
        ("-a b c\n+c b a\n", "[-a-]{+c+} b [-c-]{+a+}\n"),
        ("-a\n+b\n-c\n+d\n", "[-a-]{+b+}\n[-c-]{+d+}\n"),
        ("-x = 1\n+x = 2\n-y = 1\n+y = 2\n", "x = [-1-]{+2+}\ny = [-1-]{+2+}\n"),
    ],
)
def test_the_further_vectors_that_tell_a_correct_port(body: str, expected: str) -> None:
    assert word_diff("@@ -1 +1 @@\n" + body) == "@@ -1 +1 @@\n" + expected


# -- §1.6: edge cases -----------------------------------------------------------------------------


def test_headers_and_context_lines_are_copied_verbatim_and_counts_not_checked() -> None:
    diff = "diff --git a/x b/x\nindex 1234567..89abcde 100644\n--- a/x\n+++ b/x\n@@ -9,99 +1 @@ fn f\n  ctx\n-a\n+b\n"
    assert word_diff(diff) == (
        "diff --git a/x b/x\nindex 1234567..89abcde 100644\n--- a/x\n+++ b/x\n@@ -9,99 +1 @@ fn f\n  ctx\n[-a-]{+b+}\n"
    )


def test_an_empty_line_in_the_diff_is_copied_and_flushes_the_run() -> None:
    assert word_diff("-a\n\n+b\n") == "[-a-]\n\n{+b+}\n"


def test_crlf_is_dropped_before_newlines_but_a_lone_carriage_return_is_kept() -> None:
    assert word_diff("-a\rb\r\n+a\rc\r\n") == "a\r[-b-]{+c+}\n"


def test_input_without_a_final_newline_gives_the_same_output() -> None:
    diff = "@@ -1 +1 @@\n x\n-a b\n+a c"
    assert word_diff(diff) == word_diff(diff + "\n") == "@@ -1 +1 @@\n x\na [-b-]{+c+}\n"


@pytest.mark.parametrize("run", ["-\n", "+\n", "-\n+\n", "+\n-\n"])
def test_a_run_of_one_removed_and_or_one_added_blank_line_vanishes(run: str) -> None:
    assert word_diff(" a\n" + run + " b\n") == " a\n b\n"


def test_two_removed_blank_lines_are_one_deleted_newline() -> None:
    assert word_diff(" a\n-\n-\n") == " a\n[-\n-]\n"


def test_identical_removed_and_added_lines_show_no_markers() -> None:
    assert word_diff("-x\n+x\n") == "x\n"


def test_added_text_starting_with_plus_plus_is_taken_for_a_header() -> None:
    assert word_diff("-a\n+++b\n+c\n") == "[-a-]\n+++b\n{+c+}\n"


def test_empty_input_gives_empty_output() -> None:
    assert word_diff("") == ""
    assert word_diff_of_texts("", "") == ""


# -- §1.1 and §1.2: classifying lines, flushing runs -----------------------------------------------


@pytest.mark.parametrize("header", ["--- a/x", "+++ b/x", "@@ -5 +5 @@"])
def test_a_header_line_flushes_the_run_before_it(header: str) -> None:
    assert word_diff(f"-a\n{header}\n+b\n") == f"[-a-]\n{header}\n{{+b+}}\n"


def test_changed_lines_lose_their_marker_and_sit_one_column_left_of_context() -> None:
    assert word_diff(" keep\n-old\n+new\n keep\n") == " keep\n[-old-]{+new+}\n keep\n"


def test_a_removed_blank_line_inside_a_run_is_an_empty_line_of_the_old_text() -> None:
    """Old ``a⏎⏎b`` against new ``a⏎b``: the newline runs differ, one token each."""
    assert word_diff("-a\n-\n-b\n+a\n+b\n") == "a[-\n\n-]{+\n+}b\n"


# -- §1.3: the tokenizer -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("a;\n    b", ["a", ";", "\n    ", "b"]),  # a newline and the indentation after it: one token
        ("foo_bar123 café", ["foo_bar123", " ", "café"]),
        ("a::b->c", ["a", ":", ":", "b", "-", ">", "c"]),  # each punctuation character alone
        ("x½ Ⅻ", ["x½", " ", "Ⅻ"]),  # No and Nl numbers are word characters
        ("Ⓐb", ["Ⓐb"]),  # a circled letter is Alphabetic (Other_Alphabetic), though a symbol
        ("नमस्ते", ["नमस", "्", "ते"]),  # the vowel sign U+0947 is alphabetic, the virama U+094D is not
        ("e\u0301", ["e", "\u0301"]),  # a combining accent is not alphabetic
        ("a\xa0\u2003b", ["a", "\xa0\u2003", "b"]),  # Unicode White_Space
        ("a\x1c\x1cb", ["a", "\x1c", "\x1c", "b"]),  # not Rust whitespace (Python's isspace says it is)
        ("", []),
    ],
)
def test_tokens_are_word_runs_space_runs_and_single_other_characters(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_a_vowel_sign_stays_inside_its_word_in_the_diff() -> None:
    """Python's ``\\w`` would cut ``ते`` after ``त``; Rust's alphanumeric does not."""
    assert word_diff("-नमस्ते\n+नमस्कार\n") == "नमस्[-ते-]{+कार+}\n"


# -- §1.4: similar's Myers, Compact, Replace --------------------------------------------------------


def test_an_insertion_slides_to_its_latest_place_but_a_deletion_never_slides() -> None:
    """The mirror images: ``b.`` and ``.b`` inserted slide to the end of the equal run
    around them, the same tokens deleted stay where Myers put them (§1.4 B: a
    deletion's new range is empty, so its common suffix is always 0)."""
    assert word_diff_of_texts("a.b", "b.a.b.b") == "{+b.+}a.b{+.b+}\n"
    assert word_diff_of_texts("b.a.b.b", "a.b") == "[-b.-]a[-.b-].b\n"
    raw = _replace(_myers(list("babb"), list("ab")))
    assert diff_ops(list("babb"), list("ab")) == raw  # Compact moved nothing


def test_compact_merges_the_insertions_myers_left_apart() -> None:
    raw = _replace(_myers(list("ab"), list("babb")))
    assert [op.tag for op in raw] == ["insert", "equal", "insert", "equal"]
    assert diff_ops(list("ab"), list("babb")) == [
        Op("insert", 0, 0, 0, 1),
        Op("equal", 0, 2, 1, 3),
        Op("insert", 2, 2, 3, 4),
    ]


def test_deletions_and_insertions_between_two_equal_runs_are_one_replace_deletion_first() -> None:
    """Myers yields an insertion, a deletion and an insertion here; Compact and Replace
    make them one op, and the rendering puts the deletion first."""
    assert [op[0] for op in _myers(["x", "a", "y"], ["x", "b", "c", "y"])] == [0, 2, 1, 2, 0]
    ops = diff_ops(["x", "a", "y"], ["x", "b", "c", "y"])
    assert ops == [Op("equal", 0, 1, 0, 1), Op("replace", 1, 2, 1, 3), Op("equal", 2, 3, 3, 4)]
    assert word_diff("-x a y\n+x b c y\n") == "x [-a-]{+b c+} y\n"


def test_a_long_run_goes_through_the_same_alignment() -> None:
    """Above 100 tokens ``similar`` maps tokens to ids first, which changes nothing:
    a one-word change among 400 tokens is still one marker pair."""
    old = " ".join(f"w{i}" for i in range(200))
    new = old.replace("w150", "renamed")
    assert word_diff(f"-{old}\n+{new}\n") == old.replace("w150", "[-w150-]{+renamed+}") + "\n"


# -- §1.5: rendering -----------------------------------------------------------------------------


def test_markers_are_not_escaped() -> None:
    assert word_diff("-[-x-]\n+{+y+}\n") == "[-[-x-]-]{+{+y+}+}\n"


def test_a_final_newline_is_added_once() -> None:
    assert word_diff_of_texts("a", "b") == "[-a-]{+b+}\n"
    assert word_diff_of_texts("a\n", "b\n") == "[-a-]{+b+}\n"  # the last Equal already ends with it
