"""Zed's scoring metrics (zed-format.md §4.2–§4.7).

Numbers are worked out by hand in the comments; the bands are the ones Zed's own
tests use (§4.3 step 6). Where an algorithm is subtle (LCS masks, the line-aligned
n-gram counting), it is checked against a naive reference written here.
"""

from __future__ import annotations

import math
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_editpred import EditEvent
from pytest_editpred.metrics import (
    Candidate,
    ClassificationMetrics,
    JumpLocation,
    PredictionScore,
    TokenChanges,
    _chrf,
    braces_disbalance,
    collapse_whitespace,
    comparison_units,
    compute_kept_rate,
    compute_reversal_overlap,
    delta_chr_f,
    exact_lines_match,
    has_isolated_whitespace_changes,
    lcs_length,
    patch_location_match,
    reversal_ratio,
    score_prediction,
    token_changes,
    tokenize,
    wrong_editable_region,
)
from pytest_editpred.metrics._tokens import lcs_keep_masks

HEADER = "--- a/f.py\n+++ b/f.py\n"


# ------------------------------------------------------------------------- delta chrF


class TestDeltaChrFBands:
    """The bands of §4.3 step 6."""

    def test_wrong_edit(self) -> None:
        result = delta_chr_f("one two three", "one three", "one two four")
        assert 20 < result.score < 40

    def test_partial_edit(self) -> None:
        result = delta_chr_f("let x = 42;", "let x = 100;", "let x = 99;")
        assert 40 < result.score < 60

    def test_missed_edit(self) -> None:
        original = 'fn main() {\n    println!("hi");\n}\n'
        expected = 'fn main() {\n    println!("hello world");\n}\n'
        assert delta_chr_f(original, expected, original).score < 20

    def test_extra_edit(self) -> None:
        original = 'fn main() {\n    println!("hi");\n}\n'
        actual = 'fn main() {\n    println!("hi");\n    exit(1);\n}\n'
        assert delta_chr_f(original, original, actual).score < 20


def test_identical_texts_score_100() -> None:
    result = delta_chr_f("same\n", "same\n", "same\n")
    assert (result.score, result.precision, result.recall) == (100.0, 1.0, 1.0)
    assert (result.true_positives, result.false_positives, result.false_negatives) == (0, 0, 0)
    assert result.beta == 0.5


def test_same_one_char_edit_scores_100_with_counts() -> None:
    # "a" -> "b" on both sides. Order 1: delta {b: +1, a: -1} -> bag {b: 1, ¬a: 1}
    # on both sides: TP = 2, P = R = 1. Orders 2..6: no n-grams on either side,
    # each adds P = R = 1. So P = R = 1 and the score is 100, with TP = 2.
    result = delta_chr_f("a", "b", "b")
    assert result.score == pytest.approx(100.0)
    assert (result.true_positives, result.false_positives, result.false_negatives) == (2, 0, 0)


def test_hand_computed_different_replacements() -> None:
    # original "ab", expected "ac", actual "ad". Regions: the whole strings.
    # Order 1: expected bag {c: 1, ¬b: 1}, actual bag {d: 1, ¬b: 1}:
    #   ¬b matches (TP 1), c is missed (FN 1), d is extra (FP 1): P = R = 1/2.
    # Order 2: expected {ac: 1, ¬ab: 1}, actual {ad: 1, ¬ab: 1}: again P = R = 1/2.
    # Orders 3..6: no n-grams at all on either side: P = R = 1 each.
    # P = R = (1/2 + 1/2 + 4) / 6 = 5/6; with P = R the F-beta is P itself: 83.33.
    result = delta_chr_f("ab", "ac", "ad")
    assert result.precision == pytest.approx(5 / 6)
    assert result.recall == pytest.approx(5 / 6)
    assert result.score == pytest.approx(500 / 6)
    assert (result.true_positives, result.false_positives, result.false_negatives) == (2, 2, 2)


def test_f_beta_weights_precision() -> None:
    # original "abc", expected "abcde" (adds d, e), actual "abcd" (adds d only).
    # Region for both: prefix 3 -> 3 chars of context: "abc" vs "abcde" / "abcd".
    # Order 1: expected {d:1, e:1}, actual {d:1}: TP 1, FN 1 -> P 1, R 1/2.
    # Order 2: expected {cd:1, de:1}, actual {cd:1}: P 1, R 1/2.
    # Order 3: expected {bcd, cde}, actual {bcd}: P 1, R 1/2.
    # Order 4: expected {abcd, bcde}, actual {abcd}: P 1, R 1/2.
    # Order 5: expected {abcde}, actual {} but the actual side has no 5-gram and
    #   neither does its original ("abc", "abcd") -- the delta is empty only if
    #   *both* sides are empty, and the expected side is not: P 0 (no TP/FP), R 0.
    # Order 6: nothing on either side: P = R = 1.
    # P = (4 + 0 + 1) / 6 = 5/6, R = (4 * 1/2 + 0 + 1) / 6 = 1/2.
    # F0.5 = 1.25 * P * R / (0.25 * P + R) = 1.25 * 5/12 / (5/24 + 12/24) = 125/170.
    result = delta_chr_f("abc", "abcde", "abcd")
    assert result.precision == pytest.approx(5 / 6)
    assert result.recall == pytest.approx(1 / 2)
    assert result.score == pytest.approx(12500 / 170)
    assert (result.true_positives, result.false_positives, result.false_negatives) == (4, 0, 5)


def test_whitespace_only_change_quirk() -> None:
    # Raw texts differ, so there is no early 100; but after collapsing all three are
    # "abcdefgh x". Two identical texts have no changed region at all (Zed's unit
    # test of extract_changed_regions): every order has no n-grams on either side
    # and adds P = R = 1, so the score is 100. (Keeping the last 5 chars as the
    # region gave orders 1..5 zero deltas, P = R = 1/6, score 100/6.)
    result = delta_chr_f("abcdefgh  x", "abcdefgh x", "abcdefgh  x")
    assert result.score == 100.0


@pytest.mark.parametrize(
    ("text", "collapsed"),
    [
        (" \n ", " \n "),  # the marker alternates: nothing to collapse
        ("a  b", "a b"),
        ("a\t \tb", "a b"),
        ("a\n\n\nb", "a\nb"),
        ("a \n\n  b", "a \n b"),
        ("a\r\nb", "a \nb"),  # \r is whitespace, not a newline
        ("a \u3000b", "a b"),  # ideographic space is Rust whitespace
        ("a\x1cb", "a\x1cb"),  # Python's isspace() says yes, Rust's is_whitespace no
        ("x\n \n \ny", "x\n \n \ny"),
    ],
)
def test_collapse_whitespace(text: str, collapsed: str) -> None:
    assert collapse_whitespace(text) == collapsed


def test_collapse_makes_indentation_width_irrelevant() -> None:
    original = "if x:\n    pass\n"
    expected = "if x:\n    return 1\n"
    actual = "if x:\n  return 1\n"  # two-space indent, same edit otherwise
    assert delta_chr_f(original, expected, actual).score == pytest.approx(100.0)


def test_large_file_aligned_by_lines_matches_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``_ALIGN_THRESHOLD`` the changed region is aligned line by line (its speed
    is measured by ``bench/bench_metrics.py``); the numbers must not change."""
    lines = [f"    value_{i} = compute({i}, name='item{i % 7}')" for i in range(500)]
    original = "\n".join(lines) + "\n"
    assert len(original) > 20_000 > _chrf._ALIGN_THRESHOLD
    # edits at both ends: the changed region is the whole file
    expected = "# header\n" + original[:-30] + "tail()\n"
    actual = "# heading\n" + original[:-28] + "tail(1)\n"
    aligned = delta_chr_f(original, expected, actual)
    monkeypatch.setattr(_chrf, "_ALIGN_THRESHOLD", 10**9)
    assert delta_chr_f(original, expected, actual) == aligned


_texts = st.text(alphabet="ab \n\tcd(){}", max_size=40)


@settings(database=None, max_examples=300, deadline=None)
@given(_texts, _texts, _texts)
def test_delta_chr_f_bounds(original: str, expected: str, actual: str) -> None:
    result = delta_chr_f(original, expected, actual)
    assert 0.0 <= result.score <= 100.0 + 1e-9
    assert 0.0 <= result.precision <= 1.0
    assert 0.0 <= result.recall <= 1.0


@settings(database=None, max_examples=300, deadline=None)
@given(_texts, _texts, _texts)
def test_delta_chr_f_swapping_sides_swaps_precision_and_recall(original: str, expected: str, actual: str) -> None:
    forward = delta_chr_f(original, expected, actual)
    backward = delta_chr_f(original, actual, expected)
    assert forward.true_positives == backward.true_positives
    assert forward.false_positives == backward.false_negatives
    assert forward.precision == pytest.approx(backward.recall)
    assert forward.recall == pytest.approx(backward.precision)


@settings(database=None, max_examples=300, deadline=None)
@given(_texts, _texts)
def test_no_op_sides_have_no_matches(original: str, other: str) -> None:
    # A missed edit has nothing predicted (no TP, no FP); an extra edit has nothing
    # expected (no TP, no FN).
    missed = delta_chr_f(original, other, original)
    extra = delta_chr_f(original, original, other)
    assert (missed.true_positives, missed.false_positives) == (0, 0)
    assert (extra.true_positives, extra.false_negatives) == (0, 0)


@settings(database=None, max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["foo(x)", "bar = 1", "  baz", "", "qux;"]), max_size=12),
    st.lists(st.sampled_from(["foo(x)", "bar = 2", "  baz", "", "new"]), max_size=12),
    st.lists(st.sampled_from(["foo(y)", "bar = 1", " baz", "", "qux;"]), max_size=12),
)
def test_line_alignment_gives_brute_force_numbers(a: list[str], b: list[str], c: list[str]) -> None:
    original, expected, actual = "\n".join(a), "\n".join(b), "\n".join(c)
    saved = _chrf._ALIGN_THRESHOLD
    try:
        _chrf._ALIGN_THRESHOLD = 0
        aligned = delta_chr_f(original, expected, actual)
        _chrf._ALIGN_THRESHOLD = 10**9
        brute = delta_chr_f(original, expected, actual)
    finally:
        _chrf._ALIGN_THRESHOLD = saved
    assert aligned == brute


# --------------------------------------------------------------------------- exact lines


def test_exact_lines_hand_computed() -> None:
    # Changed lines: expected {-a, +b, +c}, actual {-a, +b, +d}.
    # TP 2 (-a, +b), FP 1 (+d), FN 1 (+c); P = R = F1 = 2/3. Headers do not count.
    expected = HEADER + "@@ -1,1 +1,2 @@\n-a\n+b\n+c\n"
    actual = HEADER + "@@ -1,1 +1,2 @@\n-a\n+b\n+d\n"
    result = exact_lines_match(expected, actual)
    assert (result.true_positives, result.false_positives, result.false_negatives) == (2, 1, 1)
    assert result.f1 == pytest.approx(2 / 3)


def test_exact_lines_is_a_multiset_and_keeps_whitespace() -> None:
    result = exact_lines_match("+x\n+x\n", "+x\n")
    assert (result.true_positives, result.false_negatives) == (1, 1)
    indented = exact_lines_match("+    return 1\n", "+  return 1\n")
    assert indented.true_positives == 0
    meta = exact_lines_match("diff --git a b\nindex 123\n+y\n", "+y\n")
    assert (meta.true_positives, meta.false_positives, meta.false_negatives) == (1, 0, 0)


def test_classification_metrics_zero_denominators() -> None:
    empty = ClassificationMetrics()
    assert (empty.precision, empty.recall, empty.f1) == (0.0, 0.0, 0.0)


# ----------------------------------------------------------------------------- braces


def test_braces_disbalance() -> None:
    # original "f(x) {": |1-0| (braces) + |1-1| (parens) = 1.
    assert braces_disbalance("f(x) {", "f(x) {[") == 1  # 2 - 1
    assert braces_disbalance("f(x) {", "f(x) {}") == 0  # max(0, 0 - 1)
    assert braces_disbalance("", "((]") == 3  # |2-0| + |0-1|


# -------------------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("myHTTPServer", ["my", "HTTP", "Server"]),
        ("foo_bar", ["foo", "_", "bar"]),
        ("__init__", ["__", "init", "__"]),
        ("parseJSON2Data", ["parse", "JSON2", "Data"]),
        ("HTTP", ["HTTP"]),
        ("a->b", ["a", "->", "b"]),
        ("x >>>= 1", ["x", " ", ">>>=", " ", "1"]),
        ("a<<=b", ["a", "<<=", "b"]),
        ("x==y!=z", ["x", "==", "y", "!=", "z"]),
        ("std::io", ["std", "::", "io"]),
        ("|x| => x", ["|", "x", "|", " ", "=>", " ", "x"]),
        ("a // b /* c", ["a", " ", "//", " ", "b", " ", "/*", " ", "c"]),
        ("a  \n\n\tb", ["a", "  ", "\n\n", "\t", "b"]),
        ("f(x);", ["f", "(", "x", ")", ";"]),
        ("héllo wörld", ["héllo", " ", "wörld"]),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_comparison_units_merge_identifiers_back() -> None:
    assert comparison_units("myHTTPServer = foo_bar;") == [
        "myHTTPServer", " ", "=", " ", "foo_bar", ";",
    ]  # fmt: skip


@settings(database=None, deadline=None)
@given(st.text(max_size=60))
def test_tokenizers_are_lossless(text: str) -> None:
    assert "".join(tokenize(text)) == text
    assert "".join(comparison_units(text)) == text


# --------------------------------------------------------------------- LCS (reference)


def _naive_masks(a: list[str], b: list[str]) -> tuple[list[bool], list[bool]]:
    """Zed's lcs_keep_masks written the slow, obvious way (full DP, no trimming of
    the table, two one-sided backtracks)."""
    n, m = len(a), len(b)
    if not n or not m:
        return [False] * n, [False] * m
    if a == b:
        return [True] * n, [True] * m
    prefix = 0
    while prefix < min(n, m) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(n, m) - prefix and a[n - 1 - suffix] == b[m - 1 - suffix]:
        suffix += 1
    keep_a = [i < prefix or i >= n - suffix for i in range(n)]
    keep_b = [j < prefix or j >= m - suffix for j in range(m)]
    am, bm = a[prefix : n - suffix], b[prefix : m - suffix]
    dp = [[0] * (len(bm) + 1) for _ in range(len(am) + 1)]
    for i in range(1, len(am) + 1):
        for j in range(1, len(bm) + 1):
            if am[i - 1] == bm[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    i, j = len(am), len(bm)
    while i and j:
        if am[i - 1] == bm[j - 1]:
            keep_a[prefix + i - 1] = True
            i, j = i - 1, j - 1
        elif dp[i - 1][j] >= dp[i][j - 1]:
            i -= 1
        else:
            j -= 1
    i, j = len(am), len(bm)
    while i and j:
        if am[i - 1] == bm[j - 1]:
            keep_b[prefix + j - 1] = True
            i, j = i - 1, j - 1
        elif dp[i][j - 1] >= dp[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return keep_a, keep_b


_tokens = st.lists(st.sampled_from(["a", "b", "c", " ", "xy"]), max_size=25)


@settings(database=None, max_examples=400, deadline=None)
@given(_tokens, _tokens)
def test_bit_parallel_lcs_matches_the_dp_table(a: list[str], b: list[str]) -> None:
    assert lcs_keep_masks(a, b) == _naive_masks(a, b)
    keep_a, keep_b = _naive_masks(a, b)
    expected_length = 0 if not a or not b else sum(keep_a)
    assert lcs_length(a, b) == expected_length
    assert sum(keep_a) == sum(keep_b)


def test_one_sided_masks_can_come_from_different_alignments() -> None:
    # a = [x, y], b = [y, x]: LCS length 1. Walking back, each side drops its own
    # item on a tie, so a keeps its x and b keeps its y.
    assert lcs_keep_masks(["x", "y"], ["y", "x"]) == ([True, False], [True, False])


# -------------------------------------------------------------------------- kept rate


def test_kept_rate_identical() -> None:
    result = compute_kept_rate("x = 1\n", "x = 1\n", "x = 1\n")
    assert (result.kept_rate, result.recall_rate) == (1.0, 1.0)
    assert (result.kept_chars, result.discarded_chars, result.correctly_deleted_chars) == (0, 0, 0)


def test_kept_rate_hand_computed_wrong_value() -> None:
    # units: base [a, ' ', =, ' ', 1, \n]; candidate has 3 for 1, reference 2 for 1.
    # candidate new {3} (1 byte), deleted {1}; reference new {2}, deleted {1}.
    # kept = LCS([3], [2]) = 0; correctly deleted = 1 ("1" deleted by both).
    # kept_rate = (0 + 1) / (1 + 1) = 0.5, recall = (0 + 1) / (1 + 1) = 0.5,
    # discarded = 1 - 0 = 1.
    result = compute_kept_rate("a = 1\n", "a = 3\n", "a = 2\n")
    assert (result.kept_rate, result.recall_rate) == (0.5, 0.5)
    assert (result.kept_chars, result.correctly_deleted_chars, result.discarded_chars) == (0, 1, 1)


def test_kept_rate_counts_bytes_and_whole_identifiers() -> None:
    # "é" is 2 UTF-8 bytes: kept 2, correctly deleted 1 ("1"), rates 1.
    result = compute_kept_rate("x = 1\n", "x = é\n", "x = é\n")
    assert (result.kept_chars, result.correctly_deleted_chars) == (2, 1)
    assert (result.kept_rate, result.recall_rate) == (1.0, 1.0)
    # renaming fooBar -> fooBaz vs fooBax: whole identifiers differ, nothing kept.
    # new 6 bytes each side, deleted "fooBar" (6) by both:
    # kept_rate = (0 + 6) / (6 + 6) = 0.5.
    renamed = compute_kept_rate("fooBar()", "fooBaz()", "fooBax()")
    assert renamed.kept_chars == 0
    assert renamed.kept_rate == 0.5


def test_kept_rate_partial_insertion() -> None:
    # base "f()", candidate "f(a, b)", reference "f(a)".
    # candidate new units: a , ' ' b  -> 4 bytes; reference new: a -> 1 byte.
    # kept = LCS([a, ",", " ", b], [a]) = "a" -> 1 byte. Nothing deleted.
    # kept_rate = 1/4, recall = 1/1, discarded = 3.
    result = compute_kept_rate("f()", "f(a, b)", "f(a)")
    assert result.kept_rate == pytest.approx(0.25)
    assert result.recall_rate == 1.0
    assert (result.kept_chars, result.discarded_chars) == (1, 3)


def test_kept_rate_no_edit_by_candidate() -> None:
    # The candidate made no edit but the reference did: kept rate 0 (denominator
    # 0, reference edited), recall 0.
    result = compute_kept_rate("a\n", "a\n", "b\n")
    assert (result.kept_rate, result.recall_rate) == (0.0, 0.0)
    # The reference made none but the candidate did: kept 0, recall 0 likewise.
    result = compute_kept_rate("a\n", "b\n", "a\n")
    assert (result.kept_rate, result.recall_rate) == (0.0, 0.0)


def test_kept_rate_bail_out_at_512_bytes() -> None:
    # candidate grows by 513 bytes, reference by 1: | 513 - 1 | = 512, not > 512.
    # No bail-out: candidate new = "y" + 512 spaces (513), reference new "y" (1),
    # kept "y" = 1: kept_rate 1/513, recall 1.
    at_limit = compute_kept_rate("", "y" + " " * 512, "y")
    assert at_limit.kept_rate == pytest.approx(1 / 513)
    assert at_limit.recall_rate == 1.0
    # One byte more: | 514 - 1 | = 513 > 512: both rates 0, discarded = 514.
    over = compute_kept_rate("", "y" + " " * 513, "y")
    assert (over.kept_rate, over.recall_rate) == (0.0, 0.0)
    assert (over.kept_chars, over.correctly_deleted_chars, over.discarded_chars) == (0, 0, 514)


def test_kept_rate_bail_out_counts_bytes() -> None:
    # 300 "é" are 600 bytes but 300 chars: over the limit only in bytes.
    result = compute_kept_rate("", "é" * 300, "")
    assert result.discarded_chars == 600
    assert result.kept_rate == 0.0


@settings(database=None, max_examples=200, deadline=None)
@given(_texts, _texts, _texts)
def test_kept_rate_bounds(base: str, candidate: str, reference: str) -> None:
    result = compute_kept_rate(base, candidate, reference)
    assert 0.0 <= result.kept_rate <= 1.0
    assert 0.0 <= result.recall_rate <= 1.0
    assert result.kept_chars + result.discarded_chars == result.candidate_new_chars


@settings(database=None, max_examples=200, deadline=None)
@given(_texts, _texts)
def test_kept_rate_perfect_prediction(base: str, text: str) -> None:
    result = compute_kept_rate(base, text, text)
    assert (result.kept_rate, result.recall_rate) == (1.0, 1.0)


# ----------------------------------------------------------------------- token changes


def test_token_changes_hand_computed() -> None:
    # run 1: [let, ' ', x, ' ', =, ' ', 42, ;] -> [... 100 ...]: 1 in, 1 out.
    patch = HEADER + "@@ -1,1 +1,1 @@\n-let x = 42;\n+let x = 100;\n"
    assert token_changes(patch) == TokenChanges(1, 1)
    # two runs split by a context line: [a] -> [b] (1, 1), then [d] -> [] (0, 1).
    assert token_changes("-a\n+b\n c\n-d\n") == TokenChanges(1, 2)
    # lines of one run are joined with \n: [a, \n, b] -> [a, \n, c]: 1 in, 1 out.
    assert token_changes("-a\n-b\n+a\n+c\n") == TokenChanges(1, 1)


def test_token_changes_are_minimal() -> None:
    # [c ; c ; b] -> [c ; b ; b]: the LCS is [c ; ; b] (4), so 1 token in, 1 out,
    # as in any shortest (Myers) edit script. difflib's matcher is not minimal here:
    # it grabs the block "; b" first and ends with 3 common tokens, i.e. 2 in, 2 out.
    from difflib import SequenceMatcher

    old, new = tokenize("c;c;b"), tokenize("c;b;b")
    blocks = SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks()
    assert sum(block.size for block in blocks) == 3  # what a difflib port would count
    assert token_changes("-c;c;b\n+c;b;b\n") == TokenChanges(1, 1)
    # whitespace tokens count: [a ' ' b ' ' c ' ' d] -> [b ' ' c ' ' d ' ' a]
    # keeps "b c d" with its 2 inner spaces (5 tokens): 2 in, 2 out.
    assert token_changes("-a b c d\n+b c d a\n") == TokenChanges(2, 2)


@settings(database=None, max_examples=300, deadline=None)
@given(_tokens, _tokens)
def test_lcs_length_matches_naive(a: list[str], b: list[str]) -> None:
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(dp[i - 1][j], dp[i][j - 1])
    assert lcs_length(a, b) == dp[len(a)][len(b)]


# ------------------------------------------------------------ editable region, whitespace


@pytest.mark.parametrize(
    ("patch", "wrong"),
    [
        (HEADER + "@@ -1,4 +1,1 @@\n-a\n-b\n-c\n+d\n", True),
        (HEADER + "@@ -1,3 +1,1 @@\n-a\n-b\n+d\n c\n", False),  # only 2 deletions
        (HEADER + "@@ -1,4 +1,1 @@\n x\n-a\n-b\n-c\n", False),  # context first
        (HEADER + "@@ -1,1 +1,1 @@\n x\n@@ -9,3 +9,0 @@\n-a\n-b\n-c\n", False),  # 2nd hunk
        ("", False),
    ],
)
def test_wrong_editable_region(patch: str, wrong: bool) -> None:
    assert wrong_editable_region(patch) is wrong


def test_isolated_whitespace_changes() -> None:
    lone_blank = HEADER + "@@ -1,3 +1,4 @@\n a\n+\n b\n c\n"
    assert has_isolated_whitespace_changes(lone_blank)
    # next to a real change in the same run: fine
    assert not has_isolated_whitespace_changes(HEADER + "@@ -1,2 +1,4 @@\n a\n+\n+foo\n b\n")
    # a real change across a context line does not excuse it
    assert has_isolated_whitespace_changes(HEADER + "@@ -1,2 +1,4 @@\n a\n+   \n b\n+foo\n")
    # a lone blank deletion counts too
    assert has_isolated_whitespace_changes(HEADER + "@@ -1,3 +1,2 @@\n a\n-\n b\n")
    assert not has_isolated_whitespace_changes(HEADER + "@@ -1,1 +1,1 @@\n-a\n+b\n")


def test_blank_line_added_at_the_cursor_is_excused() -> None:
    # new_start 1: " a" is new line 1, the "+" blank is new line 2 = cursor_row 1 + 1.
    patch = HEADER + "@@ -1,3 +1,4 @@\n a\n+\n b\n c\n"
    assert not has_isolated_whitespace_changes(patch, cursor_row=1)
    assert has_isolated_whitespace_changes(patch, cursor_row=0)
    # the excuse is for added lines only
    deletion = HEADER + "@@ -1,3 +1,2 @@\n a\n-\n b\n"
    assert has_isolated_whitespace_changes(deletion, cursor_row=1)


def test_empty_line_is_not_context_for_the_whitespace_scan() -> None:
    # In the metrics parser an unprefixed empty line is garbage, not context: it is
    # no change itself, but it ends the run of changes (as in Zed), so the blank "+"
    # does not see the "+foo" beyond it and is isolated.
    assert has_isolated_whitespace_changes(HEADER + "@@ -1,2 +1,3 @@\n a\n+\n\n+foo\n")


# ----------------------------------------------------------------------- jump location


def test_jump_location_within_20_rows() -> None:
    # anchors: expected deletes old row 9, actual deletes old row 14: |5| <= 20.
    expected = HEADER + "@@ -10,1 +10,1 @@\n-a\n+b\n"
    near = patch_location_match(expected, HEADER + "@@ -15,1 +15,1 @@\n-a\n+c\n")
    assert (near.files_tp, near.lines_tp, near.lines_fp, near.lines_fn) == (1, 1, 0, 0)
    far = patch_location_match(expected, HEADER + "@@ -40,1 +40,1 @@\n-a\n+c\n")
    assert (far.lines_tp, far.lines_fp, far.lines_fn) == (0, 1, 1)
    assert far.lines_f1 == 0.0


def test_jump_location_pure_insertion_anchors_both_sides() -> None:
    # " a" is old row 4; the insertion point is before old row 5: anchors {4, 5}.
    patch = HEADER + "@@ -5,2 +5,3 @@\n a\n+b\n c\n"
    result = patch_location_match(patch, patch)
    assert (result.lines_tp, result.lines_fp, result.lines_fn) == (2, 0, 0)


def test_jump_location_files_and_prefixed_paths() -> None:
    expected = "--- a/src/x.py\n+++ b/src/x.py\n@@ -1,1 +1,1 @@\n-a\n+b\n"
    prefixed = "--- a/repo/src/x.py\n+++ b/repo/src/x.py\n@@ -1,1 +1,1 @@\n-a\n+b\n"
    assert patch_location_match(expected, prefixed).files_tp == 1
    other = "--- a/y.py\n+++ b/y.py\n@@ -1,1 +1,1 @@\n-a\n+b\n"
    result = patch_location_match(expected, other)
    assert (result.files_tp, result.files_fp, result.files_fn) == (0, 1, 1)
    assert (result.lines_fp, result.lines_fn) == (1, 1)


def test_jump_location_empty_patches_are_perfect() -> None:
    result = patch_location_match("", "")
    assert result == JumpLocation()
    assert (result.lines_precision, result.lines_recall, result.lines_f1) == (1.0, 1.0, 1.0)


# --------------------------------------------------------------------------- reversal

CURRENT = "a\nhello world\nb\n"
ADDED_WORLD = EditEvent("f.py", "f.py", HEADER + "@@ -2,1 +2,1 @@\n-hello\n+hello world\n")


def test_reversal_of_an_addition() -> None:
    # The user added " world" (6 chars); the prediction deletes exactly that:
    # reversed additions 6 of 6 changed chars -> 1.
    assert reversal_ratio([ADDED_WORLD], "f.py", 0, CURRENT, "a\nhello\nb\n") == 1.0


def test_reversal_partial() -> None:
    # as above, plus "!!!" inserted elsewhere: 6 reversed of 6 + 3 changed.
    ratio = reversal_ratio([ADDED_WORLD], "f.py", 0, CURRENT, "a\nhello\nb!!!\n")
    assert ratio == pytest.approx(6 / 9)


def test_reversal_of_a_deletion() -> None:
    # The user deleted " world"; the prediction puts it back at the same place:
    # restored = LCS(" world", " world") = 6 of 6 inserted chars.
    event = EditEvent("f.py", "f.py", "@@ -2,1 +2,1 @@\n-hello world\n+hello\n")  # no header
    assert reversal_ratio([event], "f.py", 0, "a\nhello\nb\n", CURRENT) == 1.0


def test_pure_extension_counts_only_inserted_chars() -> None:
    # before "epr" -> current "eprintln!()" is an insertion of "intln!()" at 3, not
    # a replacement; deleting "intln" reverses 5 added chars out of 5 changed.
    assert compute_reversal_overlap("epr\n", "eprintln!()\n", "epr!()\n") == 1.0
    # a prediction that only extends further reverses nothing
    assert compute_reversal_overlap("epr\n", "eprintln!()\n", "eprintln!(x)\n") == 0.0


def test_reversal_without_excerpt_row() -> None:
    assert reversal_ratio([ADDED_WORLD], "f.py", None, CURRENT, "a\nhello\nb\n") == 1.0


@pytest.mark.parametrize(
    ("events", "cursor_path", "start_row"),
    [
        ([], "f.py", 0),  # no history
        ([ADDED_WORLD], "g.py", 0),  # another file
        ([EditEvent("f.py", "f.py", ADDED_WORLD.diff, predicted=True)], "f.py", 0),
        ([EditEvent("f.py", "f.py", "")], "f.py", 0),  # empty diff
        ([ADDED_WORLD], "f.py", 10),  # the edit is above the excerpt
        # (every event for the file counts now: tests/test_reversal_zed_rules.py)
    ],
)
def test_reversal_is_zero(events: list[EditEvent], cursor_path: str, start_row: int) -> None:
    assert reversal_ratio(events, cursor_path, start_row, CURRENT, "a\nhello\nb\n") == 0.0


def test_reversal_matches_repo_prefixed_event_paths() -> None:
    event = EditEvent("repo/f.py", "repo/f.py", ADDED_WORLD.diff)
    assert reversal_ratio([event], "f.py", 0, CURRENT, "a\nhello\nb\n") == 1.0


def test_reversal_uses_rows_relative_to_the_excerpt() -> None:
    # The excerpt starts at file row 100; the event's hunk is at new row 101 (1-based
    # "+102"), i.e. excerpt row 1.
    event = EditEvent("f.py", "f.py", HEADER + "@@ -102,1 +102,1 @@\n-hello\n+hello world\n")
    assert reversal_ratio([event], "f.py", 100, CURRENT, "a\nhello\nb\n") == 1.0
    assert reversal_ratio([event], "f.py", 200, CURRENT, "a\nhello\nb\n") == 0.0


# --------------------------------------------------------------------- score_prediction

ZED_PREDICTION_SCORE_FIELDS = [
    "delta_chr_f",
    "delta_chr_f_true_positives",
    "delta_chr_f_false_positives",
    "delta_chr_f_false_negatives",
    "delta_chr_f_precision",
    "delta_chr_f_recall",
    "delta_chr_f_beta",
    "braces_disbalance",
    "exact_lines_tp",
    "exact_lines_fp",
    "exact_lines_fn",
    "reversal_ratio",
    "cursor_distance",
    "cursor_exact_match",
    "wrong_editable_region",
    "has_isolated_whitespace_changes",
    "inserted_tokens",
    "deleted_tokens",
    "kept_rate",
    "recall_rate",
    "kept_chars",
    "correctly_deleted_chars",
    "discarded_chars",
    "cumulative_logprob",
    "avg_logprob",
    "editable_context_coverage",
    "jump_location",
]


def test_prediction_score_field_names_are_zeds() -> None:
    # Zed's fields in Zed's order, then the one of ours the summary needs (Zed reads
    # the retrieved context's size from the example instead).
    assert [f.name for f in fields(PredictionScore)] == [*ZED_PREDICTION_SCORE_FIELDS, "retrieved_context_bytes"]


ORIGINAL = "x = 1\ny = 2\n"


def _patch(old: str, new: str, row: int = 1) -> str:
    return HEADER + f"@@ -{row},1 +{row},1 @@\n-{old}\n+{new}\n"


def test_best_candidate_is_the_largest_chr_f() -> None:
    first = Candidate(_patch("x = 1", "x = 2"), "x = 2\ny = 2\n")
    second = Candidate(_patch("x = 1", "x = 3"), "x = 3\ny = 2\n")
    index, score = score_prediction(ORIGINAL, [first, second], "x = 3\ny = 2\n", _patch("x = 1", "x = 3"), None)
    assert index == 1
    assert score.delta_chr_f == pytest.approx(100.0)
    assert (score.exact_lines_tp, score.exact_lines_fp, score.exact_lines_fn) == (2, 0, 0)
    assert (score.kept_rate, score.recall_rate) == (1.0, 1.0)


def test_chr_f_tie_goes_to_exact_lines_f1() -> None:
    # Both candidates give the same text (same chrF, same kept rate), but the first
    # also deletes and re-adds "y = 2": its lines F1 against the actual patch is
    # 2/3 (TP 2, FN 2), the second's is 1.
    text = "x = 2\ny = 2\n"
    noisy = Candidate(HEADER + "@@ -1,2 +1,2 @@\n-x = 1\n-y = 2\n+x = 2\n+y = 2\n", text)
    clean = Candidate(_patch("x = 1", "x = 2"), text)
    index, score = score_prediction(ORIGINAL, [noisy, clean], text, clean.patch, None)
    assert index == 1
    assert (score.exact_lines_tp, score.exact_lines_fn) == (2, 0)


def test_exact_lines_tie_goes_to_jump_location() -> None:
    # Same text, same changed lines; only the header row differs. The actual patch
    # edits row 0, the far candidate claims row 99: its line F1 is 0.
    text = "x = 2\ny = 2\n"
    far = Candidate(_patch("x = 1", "x = 2", row=100), text)
    near = Candidate(_patch("x = 1", "x = 2", row=1), text)
    index, score = score_prediction(ORIGINAL, [far, near], text, near.patch, None)
    assert index == 1
    assert score.jump_location is not None and score.jump_location.lines_tp == 1


def test_full_tie_keeps_the_last_candidate() -> None:
    # Zed picks with Rust's Iterator::max_by, which returns the last of equal maxima.
    text = "x = 2\ny = 2\n"
    a = Candidate(_patch("x = 1", "x = 2"), text, cursor=5)
    b = Candidate(_patch("x = 1", "x = 2"), text, cursor=0)
    index, score = score_prediction(ORIGINAL, [a, b], text, a.patch, 5)
    assert index == 1
    # the cursor comes from the winner too: 0 vs 5
    assert (score.cursor_distance, score.cursor_exact_match) == (5, False)


def test_no_candidates_scores_against_no_change() -> None:
    index, score = score_prediction(ORIGINAL, [], ORIGINAL, None, None)
    assert index is None
    assert score.delta_chr_f == 100.0
    assert score.wrong_editable_region is None
    assert (score.kept_rate, score.recall_rate) == (1.0, 1.0)
    # a change where none was expected is an extra edit
    index, changed = score_prediction(ORIGINAL, [], "x = 5\ny = 2\n", _patch("x = 1", "x = 5"), None)
    assert index is None
    assert changed.delta_chr_f == 0.0
    assert changed.exact_lines_fp == 2
    assert changed.wrong_editable_region is False


def test_missing_actual_patch_is_a_no_op() -> None:
    expected = Candidate(_patch("x = 1", "x = 2"), "x = 2\ny = 2\n")
    # whatever actual_text says, no patch means "no change"
    _, score = score_prediction(ORIGINAL, [expected], "garbage", None, None)
    _, no_op = score_prediction(ORIGINAL, [expected], ORIGINAL, "", None)
    assert score.delta_chr_f == no_op.delta_chr_f
    assert score.braces_disbalance == 0
    assert (score.inserted_tokens, score.deleted_tokens) == (0, 0)
    assert score.wrong_editable_region is None
    assert no_op.wrong_editable_region is False


def test_cursor_fields() -> None:
    text = "x = 2\ny = 2\n"
    with_cursor = Candidate(_patch("x = 1", "x = 2"), text, cursor=5)
    without = Candidate(_patch("x = 1", "x = 2"), text, cursor=None)
    _, exact = score_prediction(ORIGINAL, [with_cursor], text, with_cursor.patch, 5)
    assert (exact.cursor_distance, exact.cursor_exact_match) == (0, True)
    _, near = score_prediction(ORIGINAL, [with_cursor], text, with_cursor.patch, 2)
    assert (near.cursor_distance, near.cursor_exact_match) == (3, False)
    # only one side has a cursor: a miss, no distance
    _, only_expected = score_prediction(ORIGINAL, [with_cursor], text, with_cursor.patch, None)
    assert (only_expected.cursor_distance, only_expected.cursor_exact_match) == (None, False)
    _, only_actual = score_prediction(ORIGINAL, [without], text, without.patch, 3)
    assert (only_actual.cursor_distance, only_actual.cursor_exact_match) == (None, False)
    _, neither = score_prediction(ORIGINAL, [without], text, without.patch, None)
    assert (neither.cursor_distance, neither.cursor_exact_match) == (None, None)


def test_cursor_distance_is_in_bytes_of_each_text() -> None:
    # expected cursor after "é" (char 1 = byte 2) in "é\n"; actual after "e" (byte 1)
    # in "e\n": 1 byte apart, though both are at character offset 1.
    expected = Candidate(HEADER + "@@ -1,1 +1,1 @@\n-a\n+é\n", "é\n", cursor=1)
    _, score = score_prediction("a\n", [expected], "e\n", HEADER + "@@ -1 +1 @@\n-a\n+e\n", 1)
    assert (score.cursor_distance, score.cursor_exact_match) == (1, False)


def test_score_fields_and_to_dict() -> None:
    expected = Candidate(_patch("x = 1", "x = 2"), "x = 2\ny = 2\n")
    events = [EditEvent("f.py", "f.py", HEADER + "@@ -1,1 +1,1 @@\n-x = 2\n+x = 1\n")]
    _, score = score_prediction(
        ORIGINAL,
        [expected],
        "x = 2\ny = 2\n",
        _patch("x = 1", "x = 2"),
        None,
        events=events,
        cursor_path="f.py",
        excerpt_start_row=0,
        avg_logprob=-0.5,
    )
    # the user had just typed 1 over 2; predicting 2 again undoes it.
    assert score.reversal_ratio == 1.0
    assert (score.inserted_tokens, score.deleted_tokens) == (1, 1)
    data = score.to_dict()
    for absent in ("cursor_distance", "cursor_exact_match", "cumulative_logprob",
                   "editable_context_coverage"):  # fmt: skip
        assert absent not in data
    assert data["avg_logprob"] == -0.5
    assert data["jump_location"] == {
        "files_tp": 1, "files_fp": 0, "files_fn": 0,
        "lines_tp": 1, "lines_fp": 0, "lines_fn": 0,
    }  # fmt: skip
    assert data["kept_rate"] == 1.0 and data["delta_chr_f_beta"] == 0.5


def test_to_dict_keeps_null_wrong_editable_region() -> None:
    # Zed's wrong_editable_region is an Option without "?": written as null.
    _, score = score_prediction(ORIGINAL, [], ORIGINAL, None, None)
    data = score.to_dict()
    assert "wrong_editable_region" in data and data["wrong_editable_region"] is None
    assert math.isclose(data["delta_chr_f"], 100.0)
