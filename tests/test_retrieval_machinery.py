"""The shared machinery of retrieval (§2.1, §3, Appendices A and B): snapping,
split_overlapping_ranges, coalescing, the tokeniser, the chunker, path order, the
oracle's padding hash, and the downstream byte limit on retrieved files."""

from __future__ import annotations

import pytest

from pytest_editpred.metrics import limit_retrieved_context_to_bytes
from pytest_editpred.retrieval import coalesce_touching_excerpts, merge_context_files, oracle_padding, tokenize
from pytest_editpred.retrieval._bm25 import chunk_rows
from pytest_editpred.retrieval._buffer import Buffer
from pytest_editpred.retrieval._git_log import related_paths
from pytest_editpred.retrieval._paths import path_key
from pytest_editpred.retrieval._ranges import Range, split_overlapping_ranges
from pytest_editpred.zeta import RelatedExcerpt, RelatedFile

# ----------------------------------------------------------------------------- Appendix A


@pytest.mark.parametrize(
    ("path", "row", "salt", "pad"),
    [
        ("src/app.py", 0, 0, 25),
        ("src/app.py", 5, 1, 29),
        ("a/b.rs", 10, 0, 18),
        ("./x//y/./z.py", 3, 1, 25),
        ("averyveryverylongpathname/with/components/file_name.py", 123, 0, 19),
        ("flask/src/flask/app.py", 40, 1, 23),
        ("b", 0, 0, 35),
        ("/abs/x", 7, 1, 36),
        ("src/ü.py", 2, 0, 27),
        ("src/vals.py", 29, 0, 25),
        ("src/vals.py", 32, 1, 33),
    ],
)
def test_oracle_padding_is_rustc_hash_fxhasher(path: str, row: int, salt: int, pad: int) -> None:
    assert oracle_padding(path, row, salt) == pad


# ----------------------------------------------------------------------------- Appendix B


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("README.md", ["readme", "md"]),
        ("tests/test_ops.py", ["tests", "test_ops", "test", "ops", "py"]),
        ("HTTPServer", ["httpserver"]),
        ("v2Beta", ["v2beta", "v2", "beta"]),
        ("x = 1", []),
        (
            "PrivateNetworkRequestPolicy foo_bar config/reg_default_16M_retrieval.json",
            "privatenetworkrequestpolicy private network request policy foo_bar foo bar config "
            "reg_default_16m_retrieval reg default 16m retrieval json".split(),
        ),
        # duplicates within a segment go, across segments they stay; 128 bytes is the cap
        ("foo foo", ["foo", "foo"]),
        ("a" * 128 + " " + "b" * 129, ["a" * 128]),
        ("fooBar_baz-Qux 42x", ["foobar_baz-qux", "foobar", "foo", "bar", "baz", "qux", "42x"]),
        ("ÜberMaß", ["übermaß", "über", "maß"]),
    ],
)
def test_tokenizer(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_chunker() -> None:
    lines = [line + "\n" for line in "a b  c d e f  g h i j".split(" ")]
    assert [line.strip() for line in lines] == ["a", "b", "", "c", "d", "e", "f", "", "g", "h", "i", "j"]
    assert chunk_rows(lines, 3, 1) == [(0, 3), (2, 5), (4, 8), (7, 10), (9, 12)]


def test_chunker_at_real_size_overlaps_by_ten_and_ends_after_blank_rows() -> None:
    lines = [f"x{row}\n" if row % 23 else "\n" for row in range(100)]  # blank rows 0, 23, 46, 69, 92
    # ideal end 40: the blank row 46 is within 10 rows, so the chunk takes it; the
    # next starts 10 rows back, and the last one runs to the end
    assert chunk_rows(lines) == [(0, 47), (37, 70), (60, 100)]
    assert chunk_rows([f"x{row}\n" for row in range(100)]) == [(0, 40), (30, 70), (60, 100)]
    assert chunk_rows([]) == [] and chunk_rows(["no newline"]) == [(0, 1)]


def test_snapping() -> None:
    buffer = Buffer("    body\n}\n\nfn bar() {\n    body\n    core\n")
    assert buffer.snap_start(1, 5) == 3
    assert buffer.snap_start(1, 2) == 1
    # structural tails are no good starts: `return;`, `end`, `)`; a row after a blank row wins
    tails = Buffer("x\nreturn;\nend\n)\nfoo\n")
    assert tails.snap_start(1, 4) == 4
    assert Buffer("\n\nfoo\nbar\n").snap_start(0, 3) == 2
    # snap_end: the last row followed by a blank row, scanning up at most 5 rows, not above core
    ends = Buffer("a\nb\n\nc\nd\ne\nf\n")
    assert ends.snap_end(6, 0) == 6  # row 7 (the empty last row) is blank
    assert ends.snap_end(5, 0) == 1
    assert ends.snap_end(5, 3) == 5  # the blank row is above the core
    assert ends.snap_end(7, 0) == 7  # the last row stays


def test_expanded_is_inclusive_unless_its_last_row_is_empty() -> None:
    text = "".join(f"line {k}\n" for k in range(60))
    buffer = Buffer(text)
    assert buffer.expanded((30, 2), (30, 2), 20) == ((10, 0), (50, 7))
    assert buffer.expanded((1, 0), (1, 0), 20) == ((0, 0), (21, 7))
    assert buffer.expanded((59, 0), (59, 0), 20) == ((39, 0), (60, 0))


def R(start: int, end: int, order: int, source: str, end_col: int = 0) -> Range:  # noqa: N802
    return Range((start, 0), (end, end_col), order, source)


def test_split_a_small_strong_range_inside_a_big_weak_one() -> None:
    out = split_overlapping_ranges([R(0, 70, 1, "oracle_file"), R(4, 65, 0, "oracle_snippet")])
    assert out == [R(0, 4, 1, "oracle_file"), R(4, 65, 0, "oracle_snippet"), R(65, 70, 1, "oracle_file")]


def test_split_equal_orders_collapse_and_the_stronger_label_wins() -> None:
    out = split_overlapping_ranges([R(0, 12, 0, "current_file"), R(3, 12, 0, "cursor_excerpt")])
    assert out == [R(0, 12, 0, "cursor_excerpt")]


def test_split_bridges_gaps_of_three_rows_after_a_segment_only() -> None:
    # rows 5..8 and 11..14, same order: gap of 3 rows is bridged into one range
    assert split_overlapping_ranges([R(5, 8, 2, "bm25"), R(11, 14, 2, "bm25")]) == [R(5, 14, 2, "bm25")]
    # a gap of 4 rows separates clusters
    assert split_overlapping_ranges([R(5, 8, 2, "bm25"), R(12, 14, 2, "bm25")]) == [
        R(5, 8, 2, "bm25"),
        R(12, 14, 2, "bm25"),
    ]
    # a bridged gap between two different orders goes to the segment before it
    assert split_overlapping_ranges([R(5, 8, 2, "bm25"), R(10, 14, 1, "git_log")]) == [
        R(5, 10, 2, "bm25"),
        R(10, 14, 1, "git_log"),
    ]
    # an inclusive end (column > 0) is aligned to the next row start
    assert split_overlapping_ranges([R(0, 3, 0, "cursor_excerpt", 5), R(7, 9, 0, "current_file")]) == [
        R(0, 9, 0, "cursor_excerpt")
    ]


def X(start: int, end: int, text: str, order: int, source: str = "lsp") -> RelatedExcerpt:  # noqa: N802
    return RelatedExcerpt(start, end, text, order, source)


def test_coalesce_touching_exclusive_and_inclusive_excerpts() -> None:
    # W5: exclusive segments that touch become one, with the best order and its label
    a = X(0, 2, "r0\nr1\n", 1, "oracle_file")
    b = X(2, 4, "r2\nr3\n", 0, "oracle_snippet")
    assert coalesce_touching_excerpts([b, a]) == (X(0, 4, "r0\nr1\nr2\nr3\n", 0, "oracle_snippet"),)
    # an inclusive (lsp) excerpt ending at row 3 and one starting at row 3: row 3 once
    c = X(1, 3, "r1\nr2\nr3", 2)
    d = X(3, 5, "r3\nr4\nr5", 4)
    assert coalesce_touching_excerpts([c, d]) == (X(1, 5, "r1\nr2\nr3\nr4\nr5", 2),)
    # ... but not one starting at row 4
    e = X(4, 5, "r4\nr5", 1)
    assert coalesce_touching_excerpts([c, e]) == (c, e)
    # contained: only the order moves
    assert coalesce_touching_excerpts([X(0, 6, "whole\n" * 6, 0, "current_file"), X(3, 5, "x", 1)]) == (
        X(0, 6, "whole\n" * 6, 0, "current_file"),
    )
    # fewer lines than the overlap: kept apart, its order not taken
    short = X(1, 4, "only\n", 0, "bm25")
    assert coalesce_touching_excerpts([X(0, 3, "a\nb\nc\n", 3), short]) == (X(0, 3, "a\nb\nc\n", 3), short)


def test_merge_keeps_lsp_order_and_appends_editable_only_files() -> None:
    lsp = [
        RelatedFile("zoo/animals.py", 15, (X(8, 10, "a", 1), X(13, 14, "b", 4))),
        RelatedFile("zoo/main.py", 6, (X(3, 5, "def greet(name):\n    dog\n    print", 1),)),
    ]
    whole = "l0\nl1\nl2\nl3\nl4\nl5\n"
    editable = [RelatedFile("zoo/main.py", 6, (X(0, 6, whole, 0, "current_file"),)), RelatedFile("zoo/x.py", 1, ())]
    merged = merge_context_files(lsp, editable)
    assert [f.path for f in merged] == ["zoo/animals.py", "zoo/main.py", "zoo/x.py"]
    assert merged[0] == lsp[0]
    assert merged[1].excerpts == (X(0, 6, whole, 0, "current_file"),)


def test_the_downstream_byte_limit_is_the_metrics_one_w7() -> None:
    """W7: 99 bytes keep main.py only; 138 keep animals 8..10 too. The last row of an
    inclusive excerpt is not counted."""
    animals = RelatedFile(
        "zoo/animals.py",
        15,
        (
            X(8, 10, 'class Dog(Animal):\n    def speak(self):\n        return "woof"', 1),
            X(13, 14, "def make_dog(name):\n    return Dog(name)", 4),
        ),
    )
    main_text = "from animals import make_dog\n\n\ndef greet(name):\n    dog = make_dog(name)\n    print(dog.speak())\n"
    main = RelatedFile("zoo/main.py", 6, (X(0, 6, main_text, 0, "current_file"),))
    kept = limit_retrieved_context_to_bytes([animals, main], 99)
    assert [f.path for f in kept] == ["zoo/main.py"]
    kept = limit_retrieved_context_to_bytes([animals, main], 138)
    assert [(f.path, [e.start_row for e in f.excerpts]) for f in kept] == [
        ("zoo/animals.py", [8]),
        ("zoo/main.py", [0]),
    ]


def test_path_order_is_rusts() -> None:
    assert sorted(["a-b", "a/b"], key=path_key) == ["a/b", "a-b"]
    assert sorted(["a-b", "a/b"]) == ["a-b", "a/b"]


def test_git_log_parse_counts_only_the_cursor_files_pairs() -> None:
    log = (
        "@@COMMIT 6\n\na.py\nd.md\n"
        "@@COMMIT 5\n\nb.py\nc.py\n"
        "@@COMMIT m\n"  # a merge: no files; the next header is the line skipped
        "@@COMMIT 3\n\na.py\nold.py\n"
        "@@COMMIT 2\n\na.py\nb.py\n"
        "@@COMMIT 1\n\na.py\nb.py\nc.py\n"
    )
    assert related_paths(log, "a.py") == ["b.py", "c.py", "d.md", "old.py"]
    assert related_paths(log, "c.py") == ["b.py", "a.py"]
    many = "".join(f"@@COMMIT {k}\n\nhub.py\nf{k:02}.py\n" for k in range(15))
    assert related_paths(many, "hub.py") == [f"f{k:02}.py" for k in range(10)]
