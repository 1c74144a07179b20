"""``--type`` values of retrieval (§0): which sources each runs, ``none``, the lsp
source handed in (or absent), and the one error for an unknown value."""

from __future__ import annotations

from pathlib import Path

import pytest
from retrieval_scenes import scene_of
from test_retrieval_examples import CART, SHOP_CURSOR, SHOP_HISTORY, UTIL

from pytest_editpred import ConfigError, ContextTypeError
from pytest_editpred.retrieval import retrieve
from pytest_editpred.scene import Scene
from pytest_editpred.zeta import RelatedExcerpt, RelatedFile

PATCH = """\
--- a/util.py
+++ b/util.py
@@ -5,2 +5,2 @@
 def parse(text):
-    return int(text.replace(".", ""))
+    return int(text.replace(".", "").strip())
"""


@pytest.fixture
def scene(tmp_path: Path):  # type: ignore[no-untyped-def]
    with scene_of(
        tmp_path,
        "shop",
        {"cart.py": CART, "util.py": UTIL},
        cursor_path="cart.py",
        cursor=SHOP_CURSOR,
        history=SHOP_HISTORY,
        expected=[PATCH],
    ) as built:
        yield built


def sources(files: tuple[RelatedFile, ...]) -> set[str]:
    return {e.context_source for f in files for e in f.excerpts}


@pytest.mark.parametrize(
    ("value", "source"),
    [
        ("current-file", "current_file"),
        ("edit-history", "edit_history"),
        ("edit-history-file", "edit_history_file"),
        ("git-log", "git_log"),
        ("bm25", "bm25"),
        ("oracle-file", "oracle_file"),
        ("oracle-snippet", "oracle_snippet"),
    ],
)
def test_each_single_type_runs_its_source_alone(scene: Scene, value: str, source: str) -> None:
    files = retrieve(scene, value)
    assert files and sources(files) == {source}
    assert all(f.path.startswith("shop/") and not f.in_open_source_repo for f in files)


def test_oracle_types_read_the_expected_patch(scene: Scene) -> None:
    [file] = retrieve(scene, "oracle-file")
    assert file.path == "shop/util.py"
    [file] = retrieve(scene, "oracle-snippet")
    assert file.path == "shop/util.py" and file.excerpts[0].order == 0


def test_editable_and_all_never_run_the_oracle(scene: Scene) -> None:
    for value in ("editable", "all"):
        assert not sources(retrieve(scene, value)) & {"oracle_file", "oracle_snippet", "lsp"}


def lsp_files(_: Scene) -> list[RelatedFile]:
    """What an lsp layer might answer: two excerpts that touch (row 3 inclusive)."""
    return [
        RelatedFile(
            "shop/util.py",
            6,
            (
                RelatedExcerpt(0, 1, 'def money(cents):\n    return f"${cents / 100:.2f}"', 2, "lsp"),
                RelatedExcerpt(1, 1, '    return f"${cents / 100:.2f}"', 3, "lsp"),
            ),
        )
    ]


def test_lsp_alone_is_the_lsp_list_untouched(scene: Scene) -> None:
    assert retrieve(scene, "lsp", lsp=lsp_files) == tuple(lsp_files(scene))  # not coalesced
    assert retrieve(scene, "lsp") == ()  # no server: nothing
    # no value at all is Zed's default, lsp
    assert retrieve(scene, [], lsp=lsp_files) == retrieve(scene, lsp=lsp_files) == tuple(lsp_files(scene))


def test_none_is_an_empty_list(scene: Scene) -> None:
    called: list[Scene] = []
    assert retrieve(scene, "none", lsp=lambda s: called.append(s) or []) == ()
    assert not called
    assert retrieve(scene, "none,current-file") == retrieve(scene, "current-file")


def test_all_merges_editable_files_into_the_lsp_list(scene: Scene) -> None:
    files = retrieve(scene, ["all"], lsp=lsp_files)
    assert [f.path for f in files] == ["shop/util.py", "shop/cart.py"]  # lsp files first
    util = files[0]
    # the lsp excerpts and edit_history's whole file coalesced into one, order 1 wins
    assert [(e.start_row, e.end_row, e.order, e.context_source) for e in util.excerpts] == [(0, 6, 1, "edit_history")]
    assert util.excerpts[0].text == UTIL.replace("100}", "100:.2f}")
    assert retrieve(scene, "lsp,editable", lsp=lsp_files) == files


@pytest.mark.parametrize("value", ["lsp,bm2", "LSP", "cursor-excerpt", "current_file", ""])
def test_an_unknown_type_is_one_clear_error(scene: Scene, value: str) -> None:
    with pytest.raises(ContextTypeError) as raised:
        retrieve(scene, value)
    assert isinstance(raised.value, ConfigError)
    text = str(raised.value)
    assert repr(value.split(",")[-1]) in text
    for name in ("lsp", "current-file", "edit-history", "git-log", "bm25", "oracle-file", "editable", "all", "none"):
        assert name in text
