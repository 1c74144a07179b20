"""Prompt building is bounded: a hostile cursor file cannot stall a run.

The tree-sitter walk for Zed's syntax ranges (``zeta/_syntax.py``, §3.2) reads every
ancestor of the cursor's node. 100,000 nested brackets make 100,000 of them; the walk
used ``Node.parent`` (a search from the root on every call), so such a file kept an
item busy for more than five minutes and wrote no record. Now the walk is linear, a
tree deeper than ``MAX_SYNTAX_DEPTH`` at the cursor is not walked (the file gets the
ranges of a file with no grammar, as in Zed), and the item's notes say so. The
bound changes nothing for real code: the walk gives the ranges of the
``Node.parent`` walk at every position tried here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from gitrepos import make_repo
from llm_server import LLMServer, llm_server_fixture  # noqa: F401  (the llm_server fixture)

from pytest_editpred import Cursor, Example, PredictionRequest
from pytest_editpred.zeta import _syntax as syntax
from pytest_editpred.zeta import build_input

URL = "https://github.com/acme/deep"
COUNT = 100_000  # nested brackets: ten times the bound


def brackets(count: int, sep: str = "") -> tuple[str, int]:
    """``count`` nested brackets (``sep`` between each two) then ``pass``, and the
    cursor between the innermost two: the deepest node of the tree."""
    head, tail = sep.join("(" * count), sep.join(")" * count)
    return head + sep + tail + "\npass\n", len(head)


def request_for(path: str, text: str, cursor: int) -> PredictionRequest:
    example = Example(name="deep", repository_url=URL, revision="abc", cursor_path=path, cursor_position="")
    return PredictionRequest(example, {path: text}, Cursor.at(path, text, cursor))


def depth_at(text: str, position: int, grammar: str = "python") -> int:
    """How many levels below the root tree-sitter's cursor descends at ``position``:
    counted here with tree-sitter alone, to check the bound against."""
    tree = syntax._parser(grammar).parse(text.encode())
    cursor, depth = tree.root_node.walk(), 0
    while cursor.goto_first_child_for_byte(position) is not None:
        depth += 1
    return depth


# -- the walk is the one it replaced, at every position ------------------------------


def reference_chain(root: Any, position: int) -> list[Any]:
    """The walk before the bound, kept as it was: ``syntax_ancestor`` on the tree
    cursor, then the ancestors by ``Node.parent``, innermost first."""
    cursor = root.walk()
    while cursor.goto_first_child_for_byte(position) is not None:
        if cursor.node.start_byte > position:
            cursor.goto_previous_sibling()
    while True:
        node = cursor.node
        if node.start_byte <= position <= node.end_byte and node.end_byte > node.start_byte:
            break
        if not cursor.goto_parent():
            return []
    left = result = node
    if left.end_byte == position:
        right = None
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                break
        while cursor.node.start_byte == position:
            right = cursor.node
            if not cursor.goto_first_child():
                break
        if right is not None and (right.is_named or not left.is_named):
            result = right
    chain = []
    while result is not None:
        chain.append(result)
        result = result.parent
    return chain


SOURCES = {
    "python": (
        "class A(B):\n    def f(self, x=[1, (2, 3)]):\n        return {k: g(v) for k, v in x}  # c\n"
        "\n\ny = -(a + b) ** 2\n"
    ),
    "rust": (
        "fn main() {\n    let v: Vec<u8> = (0..3).map(|x| x + 1).collect();\n"
        '    if let Some(x) = v.get(0) { println!("{}", x); }\n}\n'
    ),
    "typescript": (
        "export class A<T> {\n  f(x: T[]): number { return x.map((y) => (y as any) + 1).length; }\n}\n"
        "const z = `a${1 + 2}b`;\n"
    ),
    "tsx": "function App() {\n  return <div className={c}>{items.map(i => <Item key={i} />)}</div>;\n}\n",
    "go": (
        "package main\n\nfunc f(a []int) (int, error) {\n\tfor _, x := range a {\n"
        "\t\tif x > 0 { return x, nil }\n\t}\n\treturn 0, nil\n}\n"
    ),
}


@pytest.mark.parametrize("grammar", sorted(SOURCES))
def test_the_walk_gives_the_ancestors_node_parent_gives_at_every_position(grammar: str) -> None:
    text = SOURCES[grammar]
    data = text.encode()
    root = syntax._parser(grammar).parse(data).root_node
    for position in range(len(data) + 1):
        path = syntax._syntax_ancestor(root, position)
        walked = [] if path is None else [(n.type, n.start_byte, n.end_byte) for n in reversed(path)]
        expected = [(n.type, n.start_byte, n.end_byte) for n in reference_chain(root, position)]
        assert walked == expected, (grammar, position)


def test_syntax_ranges_of_real_code_are_unchanged() -> None:
    """A real file (this package's own, not ASCII), at many positions and through a
    window, through the public function: the ``Node.parent`` walk's ranges, mapped to
    characters of the excerpt the simple way."""
    text = Path(syntax.__file__).read_text(encoding="utf-8")
    assert not text.isascii()
    data = text.encode()
    root = syntax._parser("python").parse(data).root_node

    def chars(byte: int) -> int:
        return len(data[:byte].decode())

    for position in range(0, len(text), 89):
        start, end = max(0, position - 1500), min(len(text), position + 1500)
        start_b, end_b = len(text[:start].encode()), len(text[:end].encode())
        expected: list[tuple[int, int]] = []
        last = None
        for node in reference_chain(root, len(text[:position].encode())):
            if (node.start_byte, node.end_byte) != last:
                last = node.start_byte, node.end_byte
                lo, hi = max(node.start_byte, start_b), max(min(node.end_byte, end_b), start_b)
                expected.append((chars(lo) - start, chars(hi) - start))
        assert syntax.syntax_ranges(text, position, "x.py", start, end) == tuple(expected), position


# -- the bound ---------------------------------------------------------------------


def test_a_tree_deeper_than_the_bound_is_not_walked_and_the_note_says_so() -> None:
    text, cursor = brackets(COUNT)
    notes: list[str] = []
    assert syntax.syntax_ranges(text, cursor, "deep.py", 0, len(text), notes=notes) is None
    assert notes == [
        "syntax ranges skipped: the syntax tree of 'deep.py' is more than 10,000 nodes deep at the cursor, "
        "so it gets no syntax ranges, as a file with no grammar (its regions grow line by line)"
    ]
    assert syntax.syntax_ranges(text, cursor, "deep.py", 0, len(text)) is None  # no list: nothing to tell


def test_the_bound_is_the_depth_of_the_cursors_node(monkeypatch: pytest.MonkeyPatch) -> None:
    text, cursor = brackets(30)
    depth = depth_at(text, cursor)
    assert depth > 30  # a bracket is a node, and its content another
    monkeypatch.setattr(syntax, "MAX_SYNTAX_DEPTH", depth)
    ranges = syntax.syntax_ranges(text, cursor, "deep.py", 0, len(text))
    assert ranges is not None and len(ranges) > 30
    assert ranges[-1] == (0, len(text))  # up to the root
    monkeypatch.setattr(syntax, "MAX_SYNTAX_DEPTH", depth - 1)
    notes: list[str] = []
    assert syntax.syntax_ranges(text, cursor, "deep.py", 0, len(text), notes=notes) is None
    assert len(notes) == 1 and f"more than {depth - 1:,} nodes deep" in notes[0]
    # the cursor elsewhere, at a shallow node of the same file: walked
    assert syntax.syntax_ranges(text, len(text) - 1, "deep.py", 0, len(text)) is not None


def test_real_code_is_far_below_the_bound() -> None:
    """The deepest nesting a person writes, and then some, is walked."""
    text, cursor = brackets(1_000)
    assert depth_at(text, cursor) < syntax.MAX_SYNTAX_DEPTH
    notes: list[str] = []
    ranges = syntax.syntax_ranges(text, cursor, "deep.py", 0, len(text), notes=notes)
    assert ranges is not None and len(ranges) > 1_000 and notes == []


def test_a_text_over_the_parse_limit_is_noted_and_a_file_with_no_grammar_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(syntax, "MAX_PARSE_BYTES", 16)
    notes: list[str] = []
    text = "x = [1, 2, 3, 4, 5, 6]\n"
    assert syntax.syntax_ranges(text, 5, "a.py", 0, len(text), notes=notes) is None
    assert notes == [
        "syntax ranges skipped: 'a.py' is 23 bytes, over the 16-byte parse limit, so it gets no syntax "
        "ranges, as a file with no grammar (its regions grow line by line)"
    ]
    notes.clear()
    assert syntax.syntax_ranges(text, 5, "a.txt", 0, len(text), notes=notes) is None
    assert notes == []  # no grammar is Zed's own case, not a bound


def test_parse_work_counts_tokens_and_opening_brackets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of word characters (non-ASCII included) and single other characters, plus
    each opening bracket again; a text too short to reach the budget is not counted."""
    syntax.parse_work.cache_clear()
    assert syntax.parse_work("foo(bar, [1])") == 0  # far below the budget
    monkeypatch.setattr(syntax, "MAX_PARSE_WORK", 8)
    syntax.parse_work.cache_clear()
    assert syntax.parse_work("foo(bar, [1])") == 8 + 2
    assert syntax.parse_work("café = {'π': 1}\n") == len(["café", "=", "{", "'", "π", "'", ":", "1", "}"]) + 1
    syntax.parse_work.cache_clear()


def test_a_text_over_the_work_budget_is_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syntax, "MAX_PARSE_WORK", 8)
    syntax.parse_work.cache_clear()
    notes: list[str] = []
    text = "x = [1, 2, 3]\n"
    assert syntax.syntax_ranges(text, 5, "a.py", 0, len(text), notes=notes) is None
    assert notes == [
        "syntax ranges skipped: 'a.py' holds 10 tokens and brackets, over the 8 tree-sitter parse budget, so it "
        "gets no syntax ranges, as a file with no grammar (its regions grow line by line)"
    ]
    syntax.parse_work.cache_clear()


@pytest.mark.slow
def test_real_source_up_to_the_size_limit_is_within_the_work_budget() -> None:
    """8 MB of the standard library's own modules (what a real file near the size
    limit looks like) is parsed, as before the budget."""
    import sysconfig

    parts: list[str] = []
    size = 0
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text)
        size += len(text.encode())
        if size > syntax.MAX_PARSE_BYTES:
            break
    text = "".join(parts)
    text = text[: len(text) - (len(text.encode()) - syntax.MAX_PARSE_BYTES) - 8]
    assert len(text.encode()) <= syntax.MAX_PARSE_BYTES
    assert syntax.why_no_syntax(text, "big.py") is None
    assert syntax.syntax_tree(text, "big.py") is not None


@pytest.mark.slow
def test_a_hostile_file_at_the_size_limit_costs_tree_sitter_nothing() -> None:
    """8 MB of nested brackets (2.3 GB of tree-sitter memory when parsed) is refused
    by the work budget before tree-sitter sees it: the child's peak memory grows by
    the text and its counting only."""
    child = (
        "import resource\n"
        "from pytest_editpred.zeta import _syntax as s\n"
        "text = 'x = ' + '(' * 4_000_000 + ')' * 4_000_000 + '\\n'\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "notes = []\n"
        "print(s.syntax_ranges(text, 100, 'h.py', 0, len(text), notes=notes) is None, notes[0])\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n"
    )
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True, timeout=120)
    first, grown = proc.stdout.splitlines()
    assert first.startswith("True syntax ranges skipped: 'h.py' holds 12000002 tokens and brackets, over the 2500000")
    assert int(grown) < 100  # MB: the encoded bytes and their classes, no tree


@pytest.mark.parametrize("sep", ["", "\n"], ids=["one-line", "a-bracket-a-line"])
def test_a_deep_file_gets_the_input_of_a_file_with_no_grammar(sep: str) -> None:
    text, cursor = brackets(COUNT, sep)
    notes: list[str] = []
    deep = build_input(request_for("deep.py", text, cursor), notes=notes)
    plain = build_input(request_for("deep.txt", text, cursor))
    assert deep.syntax_ranges == plain.syntax_ranges == ()
    assert deep.excerpt_ranges == plain.excerpt_ranges
    assert (deep.cursor_excerpt, deep.cursor_offset) == (plain.cursor_excerpt, plain.cursor_offset)
    assert len(notes) == 1 and notes[0].startswith("syntax ranges skipped: the syntax tree of 'deep.py'")


# -- through the plugin --------------------------------------------------------------


def example(rev: str, cursor_block: str, line: int) -> str:
    return (
        f'+++\nrepository_url = "{URL}"\nrevision = "{rev}"\n+++\n\n'
        f"## Cursor Position\n\n```deep.py\n{cursor_block}```\n\n"
        f"## Expected Patch\n\n```diff\n--- a/deep.py\n+++ b/deep.py\n@@ -{line},1 +{line},1 @@\n-pass\n+x = 1\n```\n"
    )


@pytest.fixture
def deep_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Two examples on a repository of two deep files: 100,000 nested brackets on one
    line (Zed sends no prompt for it: over the format's budget) and one a line (the
    prompt fits)."""
    one_line, _ = brackets(COUNT)
    per_line, _ = brackets(COUNT, "\n")
    _, shas = make_repo(pytester.path / "upstream", {"deep.py": per_line, "wide.py": one_line})
    pytester.makeini(
        textwrap.dedent(
            f"""
            [pytest]
            editpred_cache_dir = .editpred-cache
            editpred_repos =
                {URL} = upstream/repo
            """
        )
    )
    evals = pytester.path / "evals"
    evals.mkdir()
    # the cursor between the innermost pair: "(\n)" is in the file once
    (evals / "deep.md").write_text(example(shas[-1], "(<|user_cursor|>\n)\n", 2 * COUNT + 1))
    wide = example(shas[-1], "(" * COUNT + "<|user_cursor|>" + ")" * COUNT + "\n", 2).replace("deep.py", "wide.py")
    (evals / "wide.md").write_text(wide)
    return pytester


@pytest.mark.slow
@pytest.mark.parametrize("prompt_format", ["zeta2.1", "V0211SeedCoder"])
def test_a_deep_bracket_file_completes_through_the_plugin_and_says_so(
    deep_project: pytest.Pytester, llm_server: LLMServer, prompt_format: str
) -> None:
    llm_server.answer("")  # an empty answer: no edit, as in the editor
    report = deep_project.path / "r.jsonl"
    result = deep_project.runpytest(
        "evals",
        "--editpred-provider=openai",
        f"--editpred-base-url={llm_server.url}",
        "--editpred-model=zeta-served",
        f"--editpred-prompt-format={prompt_format}",
        "--editpred-cache=off",
        f"--editpred-report={report}",
    )
    result.assert_outcomes(failed=2)  # both complete: no change is not the expected patch
    records = {record["name"]: record for record in map(json.loads, report.read_text().splitlines())}
    assert set(records) == {"deep", "wide"}
    [request] = llm_server.requests  # the one-line file is over the budget: nothing sent
    assert "<|user_cursor|>" in request.body["prompt"]
    assert "Zed sends no prompt here" in records["wide"]["reason"]
    deep = records["deep"]
    assert deep["outcome"] == "failed" and deep["prompt"] == request.body["prompt"]
    assert any(
        note.startswith("syntax ranges skipped: the syntax tree of 'deep.py' is more than 10,000 nodes deep")
        for note in deep["notes"]
    ), deep["notes"]
    result.stdout.fnmatch_lines(["*note: syntax ranges skipped: the syntax tree of 'deep.py'*"])
