"""``_similar.diff_ops``: the ``similar`` crate's Myers diff, Compact and Replace.

The raw Myers cases are ``similar`` 2.2.1's own snapshot tests (``myers.rs``:
``test_find_middle_snake``, ``test_diff``, ``test_contiguous``, ``test_pat``); the
compacted ones come from zed-qa-repair.md §1.4, where a textbook diff aligns
otherwise. Every script must also be a correct one: a property test rebuilds both
sides from the ops on random sequences and checks the script is as short as
``difflib`` can find (Myers' is minimal).
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pytest_editpred._similar import Op, _middle_snake, _myers, _replace, diff_ops


def tokens(text: str) -> list[str]:
    return re.findall(r"[^\W]+|\s+|.", text)


def word_diff(old: str, new: str) -> str:
    a, b = tokens(old), tokens(new)
    out = []
    for op in diff_ops(a, b):
        removed, added = "".join(a[op.i1 : op.i2]), "".join(b[op.j1 : op.j2])
        if op.tag == "equal":
            out.append(removed)
        if op.tag in ("delete", "replace"):
            out.append(f"[-{removed}-]")
        if op.tag in ("insert", "replace"):
            out.append(f"{{+{added}+}}")
    return "".join(out)


def test_middle_snake_as_similar_finds_it() -> None:
    a, b = "ABCABBA", "CBABAC"
    assert _middle_snake(a, 0, len(a), b, 0, len(b)) == (4, 1)


def test_myers_snapshots_of_similar() -> None:
    """Myers then Replace, no Compact: ``similar``'s snapshots, op for op."""
    assert _replace(_myers([0, 1, 2, 3, 4], [0, 1, 2, 9, 4])) == [
        Op("equal", 0, 3, 0, 3),
        Op("replace", 3, 4, 3, 4),
        Op("equal", 4, 5, 4, 5),
    ]
    assert _replace(_myers([0, 1, 2, 3, 4, 4, 4, 5], [0, 1, 2, 8, 9, 4, 4, 7])) == [
        Op("equal", 0, 3, 0, 3),
        Op("replace", 3, 4, 3, 5),
        Op("equal", 4, 6, 5, 7),
        Op("replace", 6, 8, 7, 8),
    ]
    # Capture alone (raw ops: tag, old start, new start, old len, new len)
    assert _myers([0, 1, 3, 4, 5], [0, 1, 4, 5, 8, 9]) == [
        [0, 0, 0, 2, 2],
        [1, 2, 2, 1, 0],
        [0, 3, 2, 2, 2],
        [2, 5, 4, 0, 1],
        [2, 5, 5, 0, 1],
    ]


def test_compact_slides_an_insertion_to_its_latest_place() -> None:
    """zed-qa-repair.md §1.4: Zed's alignment, where ``difflib`` gives
    ``[-len-]{+iter+}(){+.map(|i| i.price).sum()+}``."""
    assert word_diff("    items.len()", "    items.iter().map(|i| i.price).sum()") == (
        "    items.[-len-]{+iter().map(|i| i.price).sum+}()"
    )


def test_split_commits_alignment_of_a_rewritten_sentence() -> None:
    """flask 3652ecd9: ``Get`` is replaced (so a cut after ``Flask is`` keeps the rest
    of the old line after ``Get``, as Zed's example does); the project's former diff
    inserted the new words before it instead."""
    assert word_diff(
        "Welcome to Flask's documentation. Get started with :doc:`installation`",
        "Welcome to Flask's documentation. Flask is a lightweight WSGI web application framework.",
    ).startswith("Welcome to Flask's documentation. [-Get-]{+Flask is a+} [-started-]")


def test_a_deletion_keeps_its_stale_new_start_as_in_similar() -> None:
    """The insertion slides below the equal run; the deletion, swapped past it
    first, keeps the new index it had (``similar`` does not renumber it)."""
    assert diff_ops(["a", "b"], ["b", "b"]) == [
        Op("delete", 0, 1, 1, 1),
        Op("equal", 1, 2, 0, 1),
        Op("insert", 1, 1, 1, 2),
    ]


def test_no_change_and_one_side_empty() -> None:
    assert diff_ops([], []) == []
    assert diff_ops(["a"], ["a"]) == [Op("equal", 0, 1, 0, 1)]
    assert diff_ops([], ["a", "b"]) == [Op("insert", 0, 0, 0, 2)]
    assert diff_ops(["a", "b"], []) == [Op("delete", 0, 2, 0, 0)]


@given(st.lists(st.sampled_from("abc"), max_size=30), st.lists(st.sampled_from("abc"), max_size=30))
def test_every_script_rebuilds_both_sides_and_is_minimal(old: list[str], new: list[str]) -> None:
    ops = diff_ops(old, new)
    rebuilt_old: list[str] = []
    rebuilt_new: list[str] = []
    changed = 0
    for op in ops:  # (a run slid past another keeps its stale start on the side it does not use, as in similar)
        if op.tag == "equal":
            assert old[op.i1 : op.i2] == new[op.j1 : op.j2]
        else:
            changed += (op.i2 - op.i1) + (op.j2 - op.j1)
        rebuilt_old += old[op.i1 : op.i2]
        rebuilt_new += new[op.j1 : op.j2]
    assert (rebuilt_old, rebuilt_new) == (old, new)
    # a shortest script keeps a longest common subsequence
    lcs = [[0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(len(old) - 1, -1, -1):
        for j in range(len(new) - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if old[i] == new[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    assert changed == len(old) + len(new) - 2 * lcs[0][0]
    tags = [op.tag for op in ops if op.i1 != op.i2 or op.j1 != op.j2]
    assert all(not (x != "equal" and y != "equal") for x, y in zip(tags, tags[1:]))
