"""The Zed-side processing of the ``lsp`` source (zed-context-retrieval.md §2.9.2–§2.9.5),
with recorded server answers: identifiers near the cursor, outline items and body
ranges, the filtering of definitions and the excerpts per file, then W6 and W7.

The real servers are in ``test_retrieval_lsp_servers.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from pytest_editpred.retrieval.lsp import Location, lsp_related_files
from pytest_editpred.retrieval.lsp._assemble import assemble_excerpt_ranges, merge_ranges
from pytest_editpred.retrieval.lsp._buffer import Buffer
from pytest_editpred.retrieval.lsp._client import _locations
from pytest_editpred.retrieval.lsp._identifiers import identifiers_near, scan_ranges
from pytest_editpred.retrieval.lsp._outline import body_range, outline_items
from pytest_editpred.zeta import RelatedExcerpt, RelatedFile, syntax_tree

ANIMALS = (
    "class Animal:\n"
    "    def __init__(self, name):\n"
    "        self.name = name\n"
    "\n"
    "    def speak(self):\n"
    '        return "..."\n'
    "\n"
    "\n"
    "class Dog(Animal):\n"
    "    def speak(self):\n"
    '        return "woof"\n'
    "\n"
    "\n"
    "def make_dog(name):\n"
    "    return Dog(name)\n"
)
MAIN = "from animals import make_dog\n\n\ndef greet(name):\n    dog = make_dog(name)\n    print(dog.speak())\n"
W6_CURSOR = 77  # row 5, column 4: before `print`

Answer = tuple[list[Location], list[Location]]


def at(path: str, row: int, start: int, end: int) -> Location:
    return Location(path, (row, start), (row, end))


#: W6's assumed basedpyright answers, by the identifier's position.
W6_ANSWERS: dict[tuple[int, int], Answer] = {
    (5, 4): ([at("/typeshed/builtins.pyi", 1000, 4, 9)], []),
    (4, 19): ([at("/zoo/main.py", 3, 10, 14)], [at("/typeshed/builtins.pyi", 400, 6, 9)]),
    (5, 10): ([at("/zoo/main.py", 4, 4, 7)], [at("/zoo/animals.py", 8, 6, 9)]),
    (5, 14): ([at("/zoo/animals.py", 9, 8, 13)], []),
    (4, 10): ([at("/zoo/animals.py", 13, 4, 12)], []),
    (4, 4): ([at("/zoo/main.py", 4, 4, 7)], [at("/zoo/animals.py", 8, 6, 9)]),
    (3, 10): ([at("/zoo/main.py", 3, 10, 14)], [at("/typeshed/builtins.pyi", 400, 6, 9)]),
    (3, 4): ([at("/zoo/main.py", 3, 4, 9)], []),
}

W6_OUTPUT = [
    RelatedFile(
        "zoo/animals.py",
        15,
        (
            RelatedExcerpt(8, 10, 'class Dog(Animal):\n    def speak(self):\n        return "woof"', 1, "lsp"),
            RelatedExcerpt(13, 14, "def make_dog(name):\n    return Dog(name)", 4, "lsp"),
        ),
    ),
    RelatedFile(
        "zoo/main.py",
        6,
        (RelatedExcerpt(3, 5, "def greet(name):\n    dog = make_dog(name)\n    print(dog.speak())", 1, "lsp"),),
    ),
]


class Recorded:
    """Answers from a table by position; every question is kept."""

    def __init__(self, table: Mapping[tuple[int, int], Answer]) -> None:
        self.table = table
        self.asked: list[tuple[str, tuple[int, int]]] = []

    def __call__(self, path: str, positions: Sequence[tuple[int, int]]) -> list[Answer]:
        self.asked += [(path, position) for position in positions]
        return [self.table.get(position, ([], [])) for position in positions]


def run(
    files: Mapping[str, str],
    cursor_path: str,
    cursor: int,
    answers: Recorded,
    *,
    root: str = "/zoo",
    max_body: int = 512,
) -> list[RelatedFile]:
    return lsp_related_files(
        cursor_path=cursor_path,
        text=files[cursor_path],
        cursor_offset=cursor,
        root_name=root.strip("/"),
        worktree=root,
        answers=answers,
        open_file=files.get,
        max_body=max_body,
    )


def near(text: str, path: str, cursor: int) -> list[tuple[str, tuple[int, int], int]]:
    """(name, point, rank) of the identifiers near a byte offset, in rank order."""
    buffer = Buffer(text)
    language = {"py": "python", "rs": "rust", "go": "go", "ts": "typescript", "js": "javascript", "tsx": "tsx"}[
        path.rsplit(".", 1)[1]
    ]
    tree = syntax_tree(text, path)
    assert tree is not None
    items = outline_items(tree, language)
    return [(i.name, buffer.point(i.start), i.rank) for i in identifiers_near(tree, buffer, cursor, items, language)]


# ------------------------------------------------------------------------- W6, W7


def test_w6_python_lsp_only() -> None:
    answers = Recorded(W6_ANSWERS)
    assert run({"main.py": MAIN, "animals.py": ANIMALS}, "main.py", W6_CURSOR, answers) == W6_OUTPUT
    # the requests go out at each identifier's start, nearest first (W6's table)
    assert [position for _, position in answers.asked] == [
        (5, 4),
        (4, 19),
        (5, 10),
        (5, 14),
        (4, 10),
        (4, 4),
        (3, 10),
        (3, 4),
    ]


def test_w6_identifier_table() -> None:
    assert near(MAIN, "main.py", W6_CURSOR) == [
        ("print", (5, 4), 0),
        ("name", (4, 19), 1),
        ("dog", (5, 10), 1),
        ("speak", (5, 14), 3),
        ("make_dog", (4, 10), 4),
        ("dog", (4, 4), 5),
        ("name", (3, 10), 6),
        ("greet", (3, 4), 7),
    ]


def test_w7_the_lsp_list_merge_consumes() -> None:
    """W7 runs ``--type lsp,current-file``: its lsp part is W6's list, which the merge
    (§3, another module) extends with main.py's current_file excerpt. Only that lsp
    part is this source's; the merge, the coalescing and the byte limit are not."""
    files = run({"main.py": MAIN, "animals.py": ANIMALS}, "main.py", W6_CURSOR, Recorded(W6_ANSWERS))
    assert [file.path for file in files] == ["zoo/animals.py", "zoo/main.py"]
    main = files[1]
    assert [(e.start_row, e.end_row, e.order, e.context_source) for e in main.excerpts] == [(3, 5, 1, "lsp")]
    # inclusive convention: no trailing newline, row 5 included; W7's byte count of
    # animals 8..10 counts rows 8 and 9 only: 19 + 21 bytes
    animals = files[0].excerpts
    assert not animals[0].text.endswith("\n")
    assert sum(len(line) + 1 for line in animals[0].text.split("\n")[:2]) == 40
    assert len(animals[1].text.split("\n")[0]) + 1 == 20


# ------------------------------------------------------------- §2.9.2 identifiers


def test_line_range_is_three_rows_each_side_with_the_last_newline() -> None:
    text = "".join(f"v{row} = {row}\n" for row in range(12))
    buffer = Buffer(text)
    cursor = buffer.offset((6, 0))
    assert scan_ranges(buffer, cursor, [], "python") == [(buffer.offset((3, 0)), buffer.offset((10, 0)))]
    names = {name for name, _, _ in near(text, "a.py", cursor)}
    assert names == {f"v{row}" for row in range(3, 10)}
    # near the end, the range stops at the end of the text
    assert scan_ranges(buffer, buffer.offset((11, 0)), [], "python") == [(buffer.offset((8, 0)), len(buffer.data))]


def test_header_of_an_item_containing_the_cursor_is_scanned() -> None:
    text = "def far(alpha, beta):\n" + "".join(f"    x{row} = {row}\n" for row in range(10)) + "    return alpha\n"
    buffer = Buffer(text)
    cursor = buffer.offset((9, 4))
    found = near(text, "a.py", cursor)
    # the def's name and parameters (its header, rows 0 to the body's start) count
    assert {"far", "alpha", "beta"} <= {name for name, _, _ in found}
    assert ("far", (0, 4)) in [(name, point) for name, point, _ in found]


def test_containment_is_strict_at_the_items_first_byte() -> None:
    text = "def far(alpha):\n" + "".join(f"    x{row} = {row}\n" for row in range(10)) + "    return alpha\n"
    found = near(text, "a.py", 0)  # at `def`: the item does not contain the cursor
    assert "alpha" not in {name for name, point, _ in found if point[0] == 11}
    buffer = Buffer(text)
    assert scan_ranges(buffer, 0, outline_items(syntax_tree(text, "a.py"), "python"), "python") == [  # type: ignore[arg-type]
        (0, buffer.offset((4, 0)))
    ]


def test_competition_ranks_and_the_cut_at_32_keeps_document_order() -> None:
    # 40 names on one row: the cursor in the middle of row 0 with 39 other names
    names = [f"n{i:02d}" for i in range(40)]
    text = "x = [" + ", ".join(names) + "]\n"
    cursor = text.index("n20")
    found = near(text, "a.py", cursor)
    assert len(found) == 32
    assert found[0][:1] == ("n20",)
    # n19 and n21 are at distances 2 and 5: distinct ranks 1 and 2
    assert [(name, rank) for name, _, rank in found[:3]] == [("n20", 0), ("n19", 1), ("n21", 2)]
    # ties keep document order: equal distances cannot occur here, so check ranks are
    # competition ranks on a tie
    tie = near("a, b\n", "a.py", 1)  # `a` ends at 1 (distance 0), `b` starts at 3 (2)
    assert tie == [("a", (0, 0), 0), ("b", (0, 3), 1)]
    tied = near("ab = cd + ef\n", "a.py", 4)  # ab ends at 2 (2), cd starts at 5 (1), ef at 10
    assert tied == [("cd", (0, 5), 0), ("ab", (0, 0), 1), ("ef", (0, 10), 2)]
    same = near("aa + bb\n", "a.py", 3)  # aa ends at 2 (1), bb starts at 5 (2)
    assert same == [("aa", (0, 0), 0), ("bb", (0, 5), 1)]
    equal = near("aa +  bb\n", "a.py", 4)  # aa ends at 2 (2), bb starts at 6 (2): a tie
    assert equal == [("aa", (0, 0), 0), ("bb", (0, 6), 0)]


def test_python_forward_reference_string_counts() -> None:
    found = near('x: "Foo" = None\n', "a.py", 0)
    assert [name for name, _, _ in found] == ["x", '"Foo"']


def test_rust_macro_bang_and_token_tree_identifiers_count_self_and_primitives_do_not() -> None:
    text = 'fn f(&self, n: u32) { println!("{}", n.count); }\n'
    found = [name for name, _, _ in near(text, "a.rs", text.index("println"))]
    assert "!" in found and "println" in found and "count" in found
    assert "self" not in found and "u32" not in found


def test_go_package_identifier_does_not_count() -> None:
    text = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(x.Y)\n}\n'
    found = [name for name, _, _ in near(text, "a.go", text.index("Println"))]
    assert "main" in found and "Println" in found and "Y" in found and "fmt" in found
    # `package main`'s name is a package_identifier: at row 0 it is in range but skipped
    assert ("main", (0, 8)) not in [(name, point) for name, point, _ in near(text, "a.go", text.index("Println"))]


def test_tsx_tag_filter_drops_all_lowercase_names_in_javascript_not_typescript() -> None:
    text = "const data = mapIt(x, item2, Foo);\n"
    js = [name for name, _, _ in near(text, "a.js", 0)]
    ts = [name for name, _, _ in near(text, "a.ts", 0)]
    assert js == ["mapIt", "item2", "Foo"]  # data and x are all lowercase: skipped
    assert ts == ["data", "mapIt", "x", "item2", "Foo"]


def test_typescript_counts_whole_type_annotations_and_arrow_functions() -> None:
    text = "const f = (a: Foo) => a;\n"
    found = [name for name, _, _ in near(text, "a.ts", 0)]
    assert found == ["f", "(a: Foo) => a", "a", ": Foo", "Foo", "a"]
    tsx = [name for name, _, _ in near(text, "a.tsx", 0)]
    assert ": Foo" in tsx and "(a: Foo) => a" not in tsx


# --------------------------------------------------------- §2.9.3 outline items


def outline(text: str, path: str, language: str) -> list[tuple[str, int, int, int]]:
    tree = syntax_tree(text, path)
    assert tree is not None
    return [(i.node.type, i.start_point[0], i.end_point[0], i.depth) for i in outline_items(tree, language)]


def test_python_items_depths_and_decorated_definitions() -> None:
    assert outline(ANIMALS, "a.py", "python") == [
        ("class_definition", 0, 5, 0),
        ("function_definition", 1, 2, 1),
        ("function_definition", 4, 5, 1),
        ("class_definition", 8, 10, 0),
        ("function_definition", 9, 10, 1),
        ("function_definition", 13, 14, 0),
    ]
    tree = syntax_tree("@cache\ndef f():\n    pass\n", "a.py")
    assert tree is not None
    [item] = outline_items(tree, "python")
    assert item.start_point == (1, 0)  # at `def`, not at the decorator


def test_go_items_include_field_and_top_level_var_names() -> None:
    text = (
        "package m\n\ntype S struct {\n\ta, b int\n\tC\n}\n\nvar x, y = 1, 2\n\n"
        "type I interface {\n\tFoo() int\n}\n\nconst z = 3\n\nfunc (s S) M() {\n\tvar local = 1\n}\n"
    )
    assert outline(text, "a.go", "go") == [
        ("type_spec", 2, 5, 0),
        ("field_identifier", 3, 3, 1),
        ("field_identifier", 3, 3, 1),
        ("identifier", 7, 7, 0),
        ("identifier", 7, 7, 0),
        ("type_spec", 9, 11, 0),
        ("method_elem", 10, 10, 1),
        ("const_spec", 13, 13, 0),
        ("method_declaration", 15, 17, 0),
    ]


def test_typescript_items() -> None:
    text = (
        "namespace N { enum E { A } }\n"
        "export const a = 1, g = (x: number) => x;\n"
        "class K { p = 1; m() { const inner = 2; } }\n"
        'describe.each([1])("t", () => {});\n'
        'it("x", fn);\n'
        "var old = 1;\n"
        "const o = {k: 1, m() {}};\n"
    )
    assert outline(text, "a.ts", "typescript") == [
        ("internal_module", 0, 0, 0),
        ("enum_declaration", 0, 0, 1),
        ("variable_declarator", 1, 1, 0),
        ("variable_declarator", 1, 1, 0),
        ("class_declaration", 2, 2, 0),
        ("public_field_definition", 2, 2, 1),
        ("method_definition", 2, 2, 1),
        ("variable_declarator", 2, 2, 2),
        ("call_expression", 3, 3, 0),
        ("call_expression", 4, 4, 0),
        ("variable_declarator", 6, 6, 0),
        ("pair", 6, 6, 1),
        ("method_definition", 6, 6, 1),
    ]


def test_rust_items_and_explicit_bodies() -> None:
    text = "impl S {\n    fn f(&self) -> u32 {\n        1\n    }\n}\n"
    tree = syntax_tree(text, "a.rs")
    assert tree is not None
    buffer = Buffer(text)
    impl, function = outline_items(tree, "rust")
    assert body_range(impl, buffer, "rust") == ((0, 8), (4, 0))  # after `{` … before `}`
    assert body_range(function, buffer, "rust") == ((1, 24), (3, 4))


def test_fallback_body_python_and_brace_languages() -> None:
    buffer = Buffer(MAIN)
    tree = syntax_tree(MAIN, "main.py")
    assert tree is not None
    [greet] = outline_items(tree, "python")
    assert body_range(greet, buffer, "python") == ((4, 0), (5, 0))  # W6: the last row is left out
    one = "def f():\n    return 1\n"
    [f] = outline_items(syntax_tree(one, "a.py"), "python")  # type: ignore[arg-type]
    assert body_range(f, Buffer(one), "python") is None
    go = "package m\n\nfunc F() {\n\ta()\n\tb()\n}\n"
    [function] = outline_items(syntax_tree(go, "a.go"), "go")  # type: ignore[arg-type]
    assert body_range(function, Buffer(go), "go") == ((3, 0), (5, 0))  # the `}` row is left out


# ------------------------------------------------------- §2.9.5 excerpts per file


def test_merge_ranges_swallows_one_row_after_a_mid_row_end() -> None:
    # Appendix B: a range ending at the end of non-empty row 8 absorbs one starting
    # at row 10, not at row 11; one ending at (8, 0) absorbs row 9 only
    assert merge_ranges([((0, 0), (8, 5), 3), ((10, 0), (10, 2), 1)]) == [((0, 0), (10, 2), 1)]
    assert len(merge_ranges([((0, 0), (8, 5), 3), ((11, 0), (11, 2), 1)])) == 2
    assert merge_ranges([((0, 0), (8, 0), 3), ((9, 0), (9, 2), 4)]) == [((0, 0), (9, 2), 3)]
    assert len(merge_ranges([((0, 0), (8, 0), 3), ((10, 0), (10, 2), 4)])) == 2


BIG = (
    "class Big:\n"
    "    def a(self, x):\n"
    "        y = x + 1\n"
    "        return y\n"
    "\n"
    "    def b(self, x):\n"
    "        y = x + 2\n"
    "        return y\n"
    "\n"
    "    def c(self, x):\n"
    "        z = x + 3\n"
    "        return z\n"
)


def test_python_quirk_of_the_children_step() -> None:
    """§2.9.5's example, with the body limit lowered to 24 bytes: a definition on
    Big's name gives rows 0..7 and 11..11 (the last method is not expanded)."""
    buffer = Buffer(BIG)
    items = outline_items(syntax_tree(BIG, "big.py"), "python")  # type: ignore[arg-type]
    ranges = assemble_excerpt_ranges(buffer, items, "python", [((0, 6), (0, 9), 2)], max_body=24)
    assert [(start[0], end[0], order) for start, end, order in ranges] == [(0, 7, 2), (11, 11, 2)]
    # with Zed's limit the class body is small enough: the whole class
    whole = assemble_excerpt_ranges(buffer, items, "python", [((0, 6), (0, 9), 2)])
    assert [(start[0], end[0]) for start, end, _ in whole] == [(0, 11)]
    # a definition inside a method (not in the class header): no children; the class
    # head ends at (1, 0), so its excerpt takes row 1 too (inclusive end row)
    inner = assemble_excerpt_ranges(buffer, items, "python", [((6, 8), (6, 9), 0)], max_body=24)
    assert [(start, end) for start, end, _ in inner] == [((0, 0), (1, 0)), ((5, 0), (7, 16)), ((11, 0), (11, 16))]


def test_definition_in_a_file_without_grammar_is_its_rows() -> None:
    files = {"main.py": "import conf\nconf.x\n", "conf.toml": "a = 1\n[x]\nb = 2\n"}
    answers = Recorded({(1, 5): ([at("/r/conf.toml", 1, 1, 2)], [])})
    # `x` is at distance 3 from the cursor (row 1, column 2), rank 1 after `conf`
    assert run(files, "main.py", 14, answers, root="/r") == [
        RelatedFile("r/conf.toml", 3, (RelatedExcerpt(1, 1, "[x]", 1, "lsp"),))
    ]


# ------------------------------------------------------------ §2.9.4 filtering


def test_filtering_outside_too_long_unopenable_and_duplicates() -> None:
    long_name = "x" * 140
    files = {
        "main.py": "from lib import f\nf(1)\n",
        "lib.py": f"def f(a):\n    return a\n{long_name} = 1\n",
    }
    answers = Recorded(
        {
            (1, 0): (
                [
                    at("/r/lib.py", 0, 4, 5),
                    at("/r/lib.py", 0, 4, 5),  # an exact duplicate: dropped
                    at("/elsewhere/lib.py", 0, 4, 5),  # outside the worktree
                    at("/r/missing.py", 0, 0, 1),  # cannot be opened
                    at("/r/lib.py", 2, 0, 140),  # 140 bytes > 128
                    at("/r/../r2/lib.py", 0, 0, 1),  # a sibling directory, not inside
                ],
                [at("/r/lib.py", 0, 4, 5)],  # a type definition equal to a definition
            )
        }
    )
    files_out = run(files, "main.py", files["main.py"].index("f(1)"), answers, root="/r")
    assert files_out == [RelatedFile("r/lib.py", 3, (RelatedExcerpt(0, 1, "def f(a):\n    return a", 0, "lsp"),))]


def test_utf16_columns_both_ways() -> None:
    # the identifier after an astral character: its LSP column counts 2 units for it
    text = 's = "🎉"; value\n'
    answers = Recorded({})
    run({"m.py": text}, "m.py", len(text) - 2, answers, root="/r")
    assert ("m.py", (0, 10)) in answers.asked  # 4 bytes of 🎉 are 2 UTF-16 units
    buffer = Buffer(text)
    assert buffer.clip_utf16(0, 6) == (0, 5)  # inside the surrogate pair: bias left
    assert buffer.clip_utf16(0, 7) == (0, 9)
    assert buffer.clip_utf16(0, 500) == (0, len(text.encode()) - 1)
    assert buffer.clip_utf16(9, 0) == (1, 0)


def test_file_order_is_min_rank_then_rust_path_order() -> None:
    files = {"m.py": "aa = bb\n", "a/b.py": "q = 1\n", "a-b.py": "q = 1\n", "z.py": "q = 1\n"}
    answers = Recorded(
        {
            (0, 0): ([at("/r/z.py", 0, 0, 1)], []),  # rank 0
            (0, 5): ([at("/r/a-b.py", 0, 0, 1)], [at("/r/a/b.py", 0, 0, 1)]),  # rank 1 both
        }
    )
    out = run(files, "m.py", 1, answers, root="/r")
    assert [file.path for file in out] == ["r/z.py", "r/a/b.py", "r/a-b.py"]  # a/b < a-b as paths


def test_location_links_use_the_target_selection_range() -> None:
    from lsprotocol import types

    def span(a: int, b: int) -> types.Range:
        return types.Range(types.Position(a, 0), types.Position(b, 1))

    link = types.LocationLink("file:///r/a.py", span(0, 9), span(3, 3), span(1, 1))
    plain = types.Location("file:///r/b.py", span(5, 6))
    assert _locations([link]) == [Location("/r/a.py", (3, 0), (3, 1))]
    assert _locations(plain) == [Location("/r/b.py", (5, 0), (6, 1))]
    assert _locations(None) == []


@pytest.mark.parametrize("path", ["notes.txt", "Cargo.toml", "README"])
def test_no_grammar_no_identifiers_no_requests(path: str) -> None:
    answers = Recorded({})
    assert run({path: "print(x)\n"}, path, 1, answers, root="/r") == []
    assert answers.asked == []
