"""The judge: one best candidate by Zed's rule, Zed's frame, cost bounded by the change.

Texts here are built in memory (the verdict needs buffers, not a repository); the
plugin-level tests use the shared ``project`` fixture's real git repository.
"""

from __future__ import annotations

import json
import random
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import random_edits
from pytest_editpred import Prediction, apply_to_string
from pytest_editpred._text import change_between
from pytest_editpred._textdiff import MAX_ALIGNED_LINES, diff_texts
from pytest_editpred.judge._failure import MAX_DIFF_LINES, failure_diff
from pytest_editpred.judge._frame import scoring_frame
from pytest_editpred.judge._verdict import Candidate, judge
from pytest_editpred.metrics import Candidate as Scored
from pytest_editpred.metrics import (
    KeptRate,
    comparison_units,
    compute_kept_rate,
    delta_chr_f,
    score_prediction,
)
from pytest_editpred.metrics._chrf import (
    _changed_region,
    _NgramDelta,
    collapse_whitespace,
    ngram_delta,
)
from pytest_editpred.metrics._tokens import lcs_keep_masks
from pytest_editpred.scene import Excerpt, compute_excerpt

STDLIB = Path(sysconfig.get_paths()["stdlib"])
HEADER = "--- a/f.py\n+++ b/f.py\n"


def lines_of(name: str) -> list[str]:
    return (STDLIB / name).read_text().split("\n")


def candidate(index: int, before: str, after: str, cursor: int | None = None, path: str = "f.py") -> Candidate:
    patch = diff_texts(before, after, f"a/{path}", f"b/{path}").text
    return Candidate(index, patch, {path: after}, None if cursor is None else (path, cursor))


# ------------------------------------------------------------------ the best candidate


def test_a_no_change_answer_is_scored_against_the_last_patch() -> None:
    # delta-chrF 0, exact-lines F1 0 and jump F1 0 (precision 1: nothing predicted,
    # recall 0) for both: the last wins, and the verdict names it.
    before = "a = 1\nb = 2\n"
    first = candidate(0, before, "a = 10\nb = 2\n")
    second = candidate(1, before, "a = 1\nb = 20\n")
    verdict = judge({"f.py": before}, ("f.py", 0), [first, second], Prediction())
    assert not verdict.passed and verdict.best == 1
    assert verdict.score is not None
    assert (verdict.score.exact_lines_tp, verdict.score.exact_lines_fn) == (0, 2)  # "-b = 2", "+b = 20"
    assert "+b = 20" not in failure_diff(verdict, "f.py")  # expected has it: a "-" line
    assert "-b = 20" in failure_diff(verdict, "f.py")


@pytest.mark.xdist
def test_the_failure_message_and_the_report_name_the_same_candidate(project, plugin_args: list[str]) -> None:
    project.example(
        "two-ways",
        """
        ## Cursor Position

        ```calc.py
        def add(a, b):
        #  ^[CURSOR_POSITION]
        ```

        ## Expected Patch

        ```diff
        --- a/calc.py
        +++ b/calc.py
        @@ -1,2 +1,2 @@
        -def add(a, b):
        +def add(a, b, c):
        ```

        ```diff
        --- a/calc.py
        +++ b/calc.py
        @@ -1,2 +1,2 @@
         def add(a, b):
        -    return a + b
        +    return b + a
        ```
        """,
    )
    report = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(
        "evals", "--editpred-provider=noop", f"--editpred-report={report}", *plugin_args
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*best: expected patch 2 of 2*"])
    [record] = [json.loads(line) for line in report.read_text().splitlines()]
    assert record["best_candidate"] == 2
    # Patch 2's changed lines, both missed: "-    return a + b", "+    return b + a".
    assert (record["metrics"]["exact_lines_tp"], record["metrics"]["exact_lines_fn"]) == (0, 2)


# ------------------------------------------------------------------------ Zed's frame


def big_file() -> tuple[str, int]:
    """About 3,400 lines of typing.py with an unbalanced ``{`` on the first line, far
    above the cursor excerpt, and the cursor at the end of line 3,000."""
    lines = ["OPEN = {"] + lines_of("typing.py")
    text = "\n".join(lines)
    offset = len("\n".join(lines[:3000]))
    return text, offset


def test_braces_are_counted_in_the_excerpt_not_the_whole_file() -> None:
    # Whole file: the "{" on line 1 is unbalanced (1) and a "}" typed at the cursor
    # balances it (0): no disbalance. In Zed's excerpt the "{" is not there: the "}"
    # makes the excerpt's disbalance 1 where it was 0.
    text, offset = big_file()
    after = text[:offset] + "}" + text[offset:]
    expected = candidate(0, text, text[:offset] + "pass" + text[offset:])
    verdict = judge({"f.py": text}, ("f.py", offset), [expected], Prediction(text=after))
    assert verdict.score is not None and verdict.score.braces_disbalance == 1
    assert verdict.notes == ()


def test_an_expected_change_outside_the_excerpt_widens_the_frame() -> None:
    text, offset = big_file()
    expected = candidate(0, text, "import os\n" + text)  # row 1: far above the excerpt
    verdict = judge({"f.py": text}, ("f.py", offset), [expected], Prediction(text="import os\n" + text))
    assert verdict.passed
    assert verdict.score is not None and verdict.score.delta_chr_f == 100.0
    assert any("grows to rows 1-" in note for note in verdict.notes)


def test_a_prediction_outside_the_frame_is_scored_as_no_change() -> None:
    text, offset = big_file()
    expected = candidate(0, text, text[:offset] + "pass" + text[offset:])
    far = judge({"f.py": text}, ("f.py", offset), [expected], Prediction(text="import os\n" + text))
    nothing = judge({"f.py": text}, ("f.py", offset), [expected], Prediction())
    assert far.score is not None and nothing.score is not None
    # Zed's models only rewrite a region inside the excerpt, and such a patch would
    # not apply to it: every metric sees no change, the patch-reading ones too.
    cursor_free = {"cursor_distance", "cursor_exact_match"}
    assert {k: v for k, v in far.score.to_dict().items() if k not in cursor_free} == {
        k: v for k, v in nothing.score.to_dict().items() if k not in cursor_free
    }
    assert far.score.cursor_distance is None  # the predicted cursor is outside the frame: a miss
    assert any("outside Zed's frame" in note for note in far.notes)


def test_cursor_distance_is_counted_in_bytes_from_the_frame() -> None:
    text, offset = big_file()
    after = text[:offset] + "pass" + text[offset:]
    expected = candidate(0, text, after, cursor=offset + 4)
    verdict = judge({"f.py": text}, ("f.py", offset), [expected], Prediction(text=after, cursor=offset + 1))
    assert verdict.score is not None and verdict.score.cursor_distance == 3


# ------------------------------------------------------- local windows change nothing


texts = st.text(alphabet=st.sampled_from(list("ab (){}\n\n  \t\r_xY1é")), max_size=40)


def edited(base: str, data: st.DataObject) -> str:
    return random_edits(base, data, texts, least=0, most=2, reach=12)


def stdlib_slice(name: str, data: st.DataObject, most: int) -> str:
    """Up to ``most`` consecutive lines of a standard-library source, drawn."""
    lines = lines_of(name)
    start = data.draw(st.integers(0, len(lines) - most))
    return "\n".join(lines[start : start + data.draw(st.integers(1, most))])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_delta_chr_f_on_a_local_window_equals_the_whole_text(data: st.DataObject) -> None:
    original = stdlib_slice("difflib.py", data, 60)
    modified = edited(original, data)
    whole = _NgramDelta(*_changed_region(collapse_whitespace(original), collapse_whitespace(modified)))
    local = ngram_delta(original, modified)  # the production path: a local window
    assert (local.added, local.removed, local.totals, local.present) == (
        whole.added,
        whole.removed,
        whole.totals,
        whole.present,
    )


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_change_moved_into_the_frame_is_the_change_between_the_frames(data: st.DataObject) -> None:
    # The verdict finds each change once, on the whole file, and hands the metrics
    # its frame's copy: it must be what they would find on the frames themselves.
    original = stdlib_slice("typing.py", data, 3000)
    modified = edited(original, data)
    cursor = data.draw(st.integers(0, len(original)))
    change = change_between(original, modified)
    frame = scoring_frame(original, cursor, [change])
    assert frame.local(change) == change_between(frame.text, frame.cut(modified, change))


def _reference_delta_chr_f(original: str, expected: str, actual: str) -> tuple[float, int, int, int]:
    """§4.3 written out plainly: per order, the signed n-gram delta of each side as
    a bag (``¬`` for removed), then Zed's ClassificationMetrics; whole texts."""
    from collections import Counter

    from pytest_editpred.metrics import ClassificationMetrics

    def bag(before: str, after: str, n: int) -> tuple[bool, Counter[str]]:
        old = Counter(before[i : i + n] for i in range(len(before) - n + 1))
        new = Counter(after[i : i + n] for i in range(len(after) - n + 1))
        delta: Counter[str] = Counter()
        for gram in old.keys() | new.keys():
            change = new[gram] - old[gram]
            if change:
                delta[gram if change > 0 else "¬" + gram] = abs(change)
        return bool(old or new), delta

    base = collapse_whitespace(original)
    sides = [_changed_region(base, collapse_whitespace(text)) for text in (expected, actual)]
    precision = recall = 0.0
    tp = fp = fn = 0
    for n in range(1, 7):
        (e_any, e_bag), (a_any, a_bag) = bag(*sides[0], n), bag(*sides[1], n)
        if not e_any and not a_any:
            precision, recall = precision + 1, recall + 1
            continue
        counts = ClassificationMetrics.from_counts(e_bag, a_bag)
        precision, recall = precision + counts.precision, recall + counts.recall
        tp, fp, fn = tp + counts.true_positives, fp + counts.false_positives, fn + counts.false_negatives
    precision, recall = precision / 6, recall / 6
    score = 0.0 if precision + recall == 0 else 1.25 * precision * recall / (0.25 * precision + recall) * 100
    return score, tp, fp, fn


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_delta_chr_f_equals_the_rule_written_out(data: st.DataObject) -> None:
    original = stdlib_slice("difflib.py", data, 40)
    expected = edited(original, data)
    actual = data.draw(st.sampled_from([original, expected, edited(original, data), edited(expected, data)]))
    got = delta_chr_f(original, expected, actual)
    if original == expected == actual:
        assert got.score == 100.0
        return
    score, tp, fp, fn = _reference_delta_chr_f(original, expected, actual)
    assert (got.true_positives, got.false_positives, got.false_negatives) == (tp, fp, fn)
    assert got.score == pytest.approx(score, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_kept_rate_on_local_windows_equals_the_whole_text(data: st.DataObject) -> None:
    base = stdlib_slice("argparse.py", data, 80)
    candidate_text, reference = edited(base, data), edited(base, data)
    assert compute_kept_rate(base, candidate_text, reference) == whole_text_kept_rate(base, candidate_text, reference)


def whole_text_kept_rate(base: str, candidate: str, reference: str) -> KeptRate:
    """§4.5 as written: every unit of the three whole texts (the reference for the
    local windows; the bail-out and the equal case are shared code, so not here)."""
    if (
        base == candidate == reference
        or abs(abs(len(candidate.encode()) - len(base.encode())) - abs(len(reference.encode()) - len(base.encode())))
        > 512
    ):
        return compute_kept_rate(base, candidate, reference)
    size = lambda unit: len(unit.encode())  # noqa: E731
    base_units, candidate_units, reference_units = map(comparison_units, (base, candidate, reference))
    keep_candidate, keep_base_c = lcs_keep_masks(candidate_units, base_units)
    keep_reference, keep_base_r = lcs_keep_masks(reference_units, base_units)
    candidate_new = [u for u, kept in zip(candidate_units, keep_candidate) if not kept]
    reference_new = [u for u, kept in zip(reference_units, keep_reference) if not kept]
    keep_new, _ = lcs_keep_masks(candidate_new, reference_new)
    kept = sum(size(u) for u, k in zip(candidate_new, keep_new) if k)
    c_new, r_new = sum(map(size, candidate_new)), sum(map(size, reference_new))
    c_del = sum(size(u) for u, k in zip(base_units, keep_base_c) if not k)
    r_del = sum(size(u) for u, k in zip(base_units, keep_base_r) if not k)
    both = sum(size(u) for u, c, r in zip(base_units, keep_base_c, keep_base_r) if not c and not r)
    hits, c_edit, r_edit = kept + both, c_new + c_del, r_new + r_del
    return KeptRate(
        hits / c_edit if c_edit else float(r_edit == 0),
        hits / r_edit if r_edit else float(c_edit == 0),
        kept,
        both,
        c_new - kept,
        c_new,
        c_del,
        r_new,
        r_del,
        len(candidate.encode()) - c_new,
    )


def test_delta_chr_f_far_apart_changes_in_a_big_file() -> None:
    text = "\n".join(lines_of("typing.py"))
    expected = text.replace("def _type_check(", "def _type_checked(", 1)
    actual = text.replace("class TypeVar(", "class TypeVariable(", 1)
    assert delta_chr_f(text, expected, expected).score == 100.0
    assert delta_chr_f(text, expected, actual).score < 10


# ----------------------------------------------------------------- diffs, bounded


def test_a_diff_of_a_small_change_in_a_big_file_applies() -> None:
    text = "\n".join(lines_of("typing.py")) + "\n"
    changed = text.replace("def _type_check(", "def _type_checked(", 1)
    diff = diff_texts(text, changed, "a/f.py", "b/f.py")
    assert diff.aligned and diff.text.count("\n@@") + diff.text.startswith("@@") == 1
    assert apply_to_string(diff.text, text) == changed


def test_a_huge_change_is_one_replacement_hunk_that_still_applies() -> None:
    random.seed(3)
    lines = lines_of("typing.py") * 2
    before = "\n".join(lines) + "\n"
    after = "\n".join(line.replace("    ", "  ") for line in lines) + "\n"
    diff = diff_texts(before, after, "a/f.py", "b/f.py")
    assert not diff.aligned and diff.changed_lines > MAX_ALIGNED_LINES
    assert diff.text.count("\n@@ ") == 1
    assert apply_to_string(diff.text, before) == after


def test_the_failure_diff_is_cut_and_says_so() -> None:
    before = "\n".join(f"line {i}" for i in range(3000)) + "\n"
    after = "\n".join(f"line {i}!" for i in range(3000)) + "\n"
    expected = candidate(0, before, before.replace("line 7\n", "line 7?\n"))
    verdict = judge({"f.py": before}, ("f.py", 0), [expected], Prediction(text=after))
    diff = failure_diff(verdict, "f.py")
    assert len(diff.splitlines()) == MAX_DIFF_LINES + 1
    # Every line of the whole diff, and the note that it is not aligned, is shown or counted.
    whole = diff_texts(
        expected.buffers["f.py"],
        after,
        "expected/f.py",
        "predicted/f.py",
        no_newline_marker=False,
    )
    assert not whole.aligned
    assert diff.endswith(f"... {whole.text.count(chr(10)) + 1 - MAX_DIFF_LINES} more lines of diff\n")
    # The note comes first, so the cut never hides it.
    shown = diff.splitlines()
    assert shown[0] == f"(the {whole.changed_lines} changed lines are shown as one replacement, not aligned)"
    assert shown[1:MAX_DIFF_LINES] == whole.text.splitlines()[: MAX_DIFF_LINES - 1]


def test_a_wrong_edit_far_from_the_expected_one_reads_as_two_hunks() -> None:
    # A 1,900-line file: the expected edit on line 5, the prediction's on line 1,400.
    # The region between them (1,396 lines) is aligned as the viewer aligns it: two
    # small hunks, not one replacement of every line between.
    before = "\n".join(f"value_{i} = compute({i})" for i in range(1900)) + "\n"
    expected = candidate(0, before, before.replace("value_5 = compute(5)\n", "value_5 = compute(50)\n"))
    predicted = before.replace("value_1400 = compute(1400)\n", "value_1400 = compute(14)\n")
    verdict = judge({"f.py": before}, ("f.py", 0), [expected], Prediction(text=predicted))
    diff = failure_diff(verdict, "f.py")
    assert "shown as one replacement" not in diff
    assert diff.count("\n@@ ") + diff.startswith("@@ ") == 2
    assert len(diff.splitlines()) < 30


def test_an_unaligned_diff_cut_to_max_lines_is_the_start_of_the_whole_and_counts_the_rest() -> None:
    before = "\n".join(f"line {i}" for i in range(900)) + "\n"
    after = before.replace("line 3\n", "line 3!\n").replace("line 890\n", "line 890!\n")
    whole = diff_texts(before, after, "a/f", "b/f", max_aligned=100)
    total = whole.text.count("\n")
    assert not whole.aligned and whole.omitted == 0 and total > 1000
    for limit in (0, 1, 3, 50, total - 1, total, total + 5):
        cut = diff_texts(before, after, "a/f", "b/f", max_aligned=100, max_lines=limit)
        assert cut.text.splitlines() == whole.text.splitlines()[:limit]
        assert cut.omitted == max(total - limit, 0)


def test_a_reversal_diff_over_its_budget_is_a_note_not_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    from pytest_editpred.metrics import _score
    from pytest_editpred.metrics._reversal import ReversalDiffWarning

    def over_budget(*args: object) -> float:
        warnings.warn("reversal ratio: over budget", ReversalDiffWarning, stacklevel=2)
        return 0.25

    monkeypatch.setattr(_score, "reversal_ratio", over_budget)
    notes: list[str] = []
    text = "x = 2\n"
    patch = HEADER + "@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing escapes as a warning
        _, scored = score_prediction("x = 1\n", [Scored(patch, text)], text, patch, None, notes=notes)
    assert scored.reversal_ratio == 0.25
    assert notes == ["reversal ratio: over budget"]


def excerpt_by_splitting(text: str, offset: int, max_tokens: int) -> Excerpt:
    """§3.5 written over the whole list of lines, the obvious way (the reference)."""
    lines = text.split("\n")
    row = text.count("\n", 0, offset)
    cost = [max(1, len(line.encode()) // 3) for line in lines]
    start = end = row
    used = cost[row]
    down = up = True
    while down or up:
        if down:
            if end + 1 < len(lines) and used + cost[end + 1] <= max_tokens:
                end += 1
                used += cost[end]
            else:
                down = False
        if up:
            if start > 0 and used + cost[start - 1] <= max_tokens:
                start -= 1
                used += cost[start]
            else:
                up = False
    return Excerpt("\n".join(lines[start : end + 1]), start, offset - sum(len(line) + 1 for line in lines[:start]))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "bb", "\n", "é", "xxxxxxxxxx"]), max_size=40), st.data())
def test_the_excerpt_reads_only_lines_near_the_cursor_and_is_zeds(pieces: list[str], data: st.DataObject) -> None:
    text = "".join(pieces)
    offset = data.draw(st.integers(0, len(text)))
    budget = data.draw(st.integers(1, 12))
    assert compute_excerpt(text, offset, budget) == excerpt_by_splitting(text, offset, budget)
