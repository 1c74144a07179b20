"""The worked examples W1–W5 of the retrieval specification, reproduced exactly
(``zed-context-retrieval.md`` §5), on real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

from retrieval_scenes import as_json, scene_of

from pytest_editpred.retrieval import retrieve

UTIL = 'def money(cents):\n    return f"${cents / 100}"\n\n\ndef parse(text):\n    return int(text.replace(".", ""))\n'
CART = (
    "from util import money\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n"
    "    def add(self, name, price):\n        self.items.append((name, price))\n\n"
    "    def total(self):\n        return sum(p for _, p in self.items)\n"
)
SHOP_HISTORY = (
    "--- a/util.py\n+++ b/util.py\n@@ -1,2 +1,2 @@\n def money(cents):\n"
    '-    return f"${cents / 100}"\n+    return f"${cents / 100:.2f}"\n'
    "--- a/cart.py\n+++ b/cart.py\n@@ -10,3 +10,3 @@\n \n     def total(self):\n"
    "-        return sum(p for _, p in self.items)\n+        return money(sum(p for _, p in self.items))\n"
)
SHOP_CURSOR = "        return money(<|user_cursor|>sum(p for _, p in self.items))\n"

W1_OUTPUT = r"""
[{"path":"shop/cart.py","max_row":12,"excerpts":[{"row_range":{"start":0,"end":12},
   "text":"from util import money\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def add(self, name, price):\n        self.items.append((name, price))\n\n    def total(self):\n        return money(sum(p for _, p in self.items))\n",
   "order":0,"context_source":"current_file"}],"in_open_source_repo":false},
 {"path":"shop/util.py","max_row":6,"excerpts":[{"row_range":{"start":0,"end":6},
   "text":"def money(cents):\n    return f\"${cents / 100:.2f}\"\n\n\ndef parse(text):\n    return int(text.replace(\".\", \"\"))\n",
   "order":1,"context_source":"edit_history"}],"in_open_source_repo":false}]
"""


def shop(tmp_path: Path):  # type: ignore[no-untyped-def]
    return scene_of(
        tmp_path,
        "shop",
        {"cart.py": CART, "util.py": UTIL},
        cursor_path="cart.py",
        cursor=SHOP_CURSOR,
        history=SHOP_HISTORY,
    )


def test_w1_current_file_and_edit_history(tmp_path: Path) -> None:
    with shop(tmp_path) as scene:
        assert scene.cursor.row == 11
        assert as_json(retrieve(scene, "current-file,edit-history")) == json.loads(W1_OUTPUT)
        # The order the types are written in does not matter, nor repeating --type.
        assert as_json(retrieve(scene, ["edit-history", "current-file"])) == json.loads(W1_OUTPUT)


def test_w1_variant_edit_history_alone(tmp_path: Path) -> None:
    with shop(tmp_path) as scene:
        util, cart = retrieve(scene, "edit-history")
    assert util.path == "shop/util.py" and [(e.start_row, e.end_row, e.order) for e in util.excerpts] == [(0, 6, 1)]
    assert cart.path == "shop/cart.py"
    [excerpt] = cart.excerpts
    assert (excerpt.start_row, excerpt.end_row, excerpt.order, excerpt.context_source) == (3, 12, 2, "edit_history")
    assert excerpt.text.startswith("class Cart:\n") and excerpt.text.endswith("self.items))\n")
    assert excerpt.text.count("\n") == 9


def test_w2_editable(tmp_path: Path) -> None:
    """Every editable source at once: the cursor_excerpt label wins the tie at
    order 0 over current_file, util keeps edit_history's order 1."""
    with shop(tmp_path) as scene:
        files = retrieve(scene, "editable")
    expected = json.loads(W1_OUTPUT)
    expected[0]["excerpts"][0]["context_source"] = "cursor_excerpt"
    assert as_json(files) == expected


W3_COMMITS = [
    {"b.py": "def two():\n    return 2\n", "a.py": "from b import two\n\nprint(two() + 0)\n"},
    {"old.py": "OLD = 1\n", "a.py": "from b import two\n\nprint(two())\n"},
    {"old.py": None},
    {"b.py": "def two():\n    return 2  # two\n", "c.py": "THREE = 3"},
    {"d.md": "# kit\n\nSmall helpers.\n", "a.py": "from b import two\n\nprint(two())\nprint(two())\n"},
]
W3_OUTPUT = r"""
[{"path":"kit/b.py","max_row":2,"excerpts":[{"row_range":{"start":0,"end":2},"text":"def two():\n    return 2  # two\n","order":0,"context_source":"git_log"}],"in_open_source_repo":false},
 {"path":"kit/c.py","max_row":0,"excerpts":[{"row_range":{"start":0,"end":0},"text":"THREE = 3","order":1,"context_source":"git_log"}],"in_open_source_repo":false},
 {"path":"kit/d.md","max_row":3,"excerpts":[{"row_range":{"start":0,"end":3},"text":"# kit\n\nSmall helpers.\n","order":2,"context_source":"git_log"}],"in_open_source_repo":false}]
"""


def test_w3_git_log(tmp_path: Path) -> None:
    """Co-change counts b 2, c 1, d 1, old 1 (ties in path order); old.py, deleted
    since, cannot be opened and its order 3 stays unused."""
    init = {"a.py": "from b import two\n\nprint(two())\n", "b.py": "def two():\n    return 1\n", "c.py": "THREE = 0"}
    with scene_of(
        tmp_path,
        "kit",
        init,
        commits=W3_COMMITS,
        cursor_path="a.py",
        cursor="print(two())\nprint(<|user_cursor|>two())\n",
    ) as scene:
        assert as_json(retrieve(scene, "git-log")) == json.loads(W3_OUTPUT)


OPS = "from parser import parse_number\n\n\ndef add_numbers(a, b):\n    return parse_number(a) + parse_number(b)\n"
PARSER = (
    "def parse_number(text):\n    return float(text.strip())\n\n\n"
    'def parse_list(text):\n    return [parse_number(t) for t in text.split(",")]\n'
)
README = "# calc\n\nAdds numbers.\n"
TEST_OPS = 'from ops import add_numbers\n\n\ndef test_add():\n    assert add_numbers("1", "2") == 3.0\n'
CALC = {"ops.py": OPS, "parser.py": PARSER, "README.md": README, "tests/test_ops.py": TEST_OPS}


def calc(tmp_path: Path, **extra):  # type: ignore[no-untyped-def]
    cursor = "<|user_cursor|>    return parse_number(a) + parse_number(b)\n"
    return scene_of(tmp_path, "calc", CALC, cursor_path="ops.py", cursor=cursor, **extra)


def test_w4_bm25(tmp_path: Path) -> None:
    with calc(tmp_path) as scene:
        files = retrieve(scene, "bm25")
    assert [(f.path, f.max_row) for f in files] == [
        ("calc/ops.py", 5),
        ("calc/parser.py", 6),
        ("calc/tests/test_ops.py", 5),
        ("calc/README.md", 3),
    ]
    texts = [OPS, PARSER, TEST_OPS, README]
    for order, (file, text) in enumerate(zip(files, texts)):
        [excerpt] = file.excerpts
        assert (excerpt.start_row, excerpt.end_row, excerpt.order, excerpt.context_source) == (
            0,
            file.max_row,
            order,
            "bm25",
        )
        assert excerpt.text == text


VALS = "".join(f"v{k} = {k}\n" for k in range(70))
W5_PATCH = """\
--- a/src/vals.py
+++ b/src/vals.py
@@ -30,3 +30,3 @@
 v29 = 29
-v30 = 30
+v30 = 300
 v31 = 31
"""


def test_w5_oracle_snippet_and_file(tmp_path: Path) -> None:
    """The snippet (rows 4..65, order 0) and the file (order 1) split into three
    segments, which coalescing folds back into one excerpt labelled oracle_snippet."""
    with scene_of(
        tmp_path,
        "lib",
        {"src/vals.py": VALS},
        cursor_path="src/vals.py",
        cursor="v30 = <|user_cursor|>30\n",
        expected=[W5_PATCH],
    ) as scene:
        [file] = retrieve(scene, "oracle-snippet,oracle-file")
        assert as_json([file]) == [
            {
                "path": "lib/src/vals.py",
                "max_row": 70,
                "excerpts": [
                    {"row_range": {"start": 0, "end": 70}, "text": VALS, "order": 0, "context_source": "oracle_snippet"}
                ],
                "in_open_source_repo": False,
            }
        ]
        assert len(VALS.encode()) == 610
        [snippet] = retrieve(scene, "oracle-snippet")[0].excerpts
        assert (snippet.start_row, snippet.end_row, snippet.order) == (4, 65, 0)
        assert snippet.text == "".join(f"v{k} = {k}\n" for k in range(4, 65))


def test_w2_ranges_and_orders_before_the_split(tmp_path: Path) -> None:
    """W2's table: each collector's order from next_order (edit_history's from the
    entry index), and bm25's scores cart ≈ 74.165, util ≈ 22.425 from the old disk."""
    from pytest_editpred.retrieval._bm25 import _index, _scores, query_terms
    from pytest_editpred.retrieval._history import edit_entries
    from pytest_editpred.retrieval._retrieve import collect
    from pytest_editpred.retrieval._workspace import Workspace

    with shop(tmp_path) as scene:
        space = collect(
            scene, {"cursor_excerpt", "current_file", "edit_history", "edit_history_file", "git_log", "bm25"}
        )
        got = {path: [(r.start, r.end, r.order, r.source) for r in ranges] for path, ranges in space.ranges.items()}
        entries = edit_entries(scene.events, scene.buffers)
        bare = Workspace(scene, "shop")
        query = query_terms(bare, entries)
        documents = _index(bare, query, False)
        assert documents is not None
        scores = {d.path: round(score, 3) for score, d in _scores(documents, query)}
    assert got == {
        "cart.py": [
            ((3, 0), (12, 0), 0, "cursor_excerpt"),
            ((0, 0), (12, 0), 0, "current_file"),
            ((3, 0), (12, 0), 2, "edit_history"),
            ((0, 0), (12, 0), 4, "edit_history_file"),
            ((0, 0), (12, 0), 6, "bm25"),
        ],
        "util.py": [
            ((0, 0), (6, 0), 1, "edit_history"),
            ((0, 0), (6, 0), 3, "edit_history_file"),
            ((0, 0), (6, 0), 5, "git_log"),
            ((0, 0), (6, 0), 7, "bm25"),
        ],
    }
    assert query["self"] == 18.0 and query["money"] == 8.0
    assert [(d.path, d.start, d.end, d.length) for d in documents] == [("cart.py", 0, 12, 35), ("util.py", 0, 6, 16)]
    assert scores == {"cart.py": 74.165, "util.py": 22.425}


def test_w4_scores(tmp_path: Path) -> None:
    from pytest_editpred.retrieval._bm25 import _index, _scores, query_terms
    from pytest_editpred.retrieval._workspace import Workspace

    with calc(tmp_path) as scene:
        space = Workspace(scene, "calc")
        query = query_terms(space, [])
        documents = _index(space, query, False)
        assert documents is not None
        scores = {d.path: round(score, 4) for score, d in _scores(documents, query)}
    assert query == {
        "number": 3,
        "parse": 3,
        "parse_number": 3,
        "ops": 3,
        "py": 3,
        **dict.fromkeys(["add", "add_numbers", "def", "from", "import", "numbers", "parser", "return"], 1),
    }
    assert [(d.path, d.length) for d in documents] == [
        ("README.md", 7),
        ("ops.py", 21),
        ("parser.py", 26),
        ("tests/test_ops.py", 24),
    ]
    assert scores == {"ops.py": 18.6065, "parser.py": 11.8145, "tests/test_ops.py": 8.4814, "README.md": 0.4835}


def test_w5_library_result_keeps_the_three_segments(tmp_path: Path) -> None:
    from pytest_editpred.retrieval import collect_editable_context

    with scene_of(
        tmp_path,
        "lib",
        {"src/vals.py": VALS},
        cursor_path="src/vals.py",
        cursor="v30 = <|user_cursor|>30\n",
        expected=[W5_PATCH],
    ) as scene:
        [file] = collect_editable_context(scene, {"oracle_snippet", "oracle_file"})
    assert [(e.start_row, e.end_row, e.order, e.context_source) for e in file.excerpts] == [
        (0, 4, 1, "oracle_file"),
        (4, 65, 0, "oracle_snippet"),
        (65, 70, 1, "oracle_file"),
    ]
