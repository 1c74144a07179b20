"""Port rules found against Zed's own unit tests, one test group per rule.

Each expected value is worked out by hand from the rule, in a comment next to it:
1. on a ``---`` line only ``a/`` is stripped, on a ``+++`` line only ``b/``;
2. a quoted part anywhere in a header path is unquoted, with backslash escapes;
3. ``reverse_diff`` swaps the header lines as text and keeps the input's final-newline
   state; ``undo_diff``, what the scene's rollback applies, keeps the paths readable;
4. an unclosed code fence in a chat answer yields no block (the item FAILS, saying so);
5. ``format_cursor_excerpt`` ends with a newline only when the excerpt does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from greet_sample import request
from llm_server import LLMServer, llm_server_fixture  # noqa: F401  (the llm_server fixture)

from conftest import SUB, Project
from pytest_editpred import (
    ExampleError,
    InfrastructureError,
    PredictionError,
    format_cursor_excerpt,
    parse_cursor_excerpt,
)
from pytest_editpred._diff import (
    Kind,
    apply_to_string,
    classify,
    parse_diff,
    reverse_diff,
    undo_diff,
)
from pytest_editpred.providers.prompts import Answer, Window, window_for
from pytest_editpred.providers.prompts._plain import last_fenced_block, parse_chat

# -- 1. header prefixes: a/ on old-path lines, b/ on new-path lines -----------------


@pytest.mark.parametrize(
    "line,kind,path",
    [
        # '--- ' strips 'a/' only: 'a/x.py' -> 'x.py', but 'b/x.py' stays 'b/x.py'.
        ("--- a/x.py", Kind.OLD_PATH, "x.py"),
        ("--- b/x.py", Kind.OLD_PATH, "b/x.py"),
        # '+++ ' strips 'b/' only: 'b/x.py' -> 'x.py', but 'a/x.py' stays 'a/x.py'.
        ("+++ b/x.py", Kind.NEW_PATH, "x.py"),
        ("+++ a/x.py", Kind.NEW_PATH, "a/x.py"),
        # Stripped once: 'a/a/x.py' -> 'a/x.py'; 'b/b/x.py' -> 'b/x.py'.
        ("--- a/a/x.py", Kind.OLD_PATH, "a/x.py"),
        ("+++ b/b/x.py", Kind.NEW_PATH, "b/x.py"),
        ("--- /dev/null", Kind.OLD_PATH, "/dev/null"),
    ],
)
def test_each_header_line_strips_only_its_own_prefix(line: str, kind: Kind, path: str) -> None:
    parsed = classify(line)
    assert (parsed.kind, parsed.text) == (kind, path)


def test_a_swapped_prefix_is_part_of_the_path() -> None:
    # '--- b/x.py' is old path 'b/x.py', '+++ a/x.py' new path 'a/x.py': the two
    # differ, so the section renames 'b/x.py' to 'a/x.py'.
    [section] = parse_diff("--- b/x.py\n+++ a/x.py\n-1\n+2\n")
    assert (section.old_path, section.new_path, section.renamed_to) == ("b/x.py", "a/x.py", "a/x.py")


# -- 2. quoted parts anywhere in a header path -------------------------------------


@pytest.mark.parametrize(
    "line,path",
    [
        # Zed's case: the quoted part is in the middle of the token. Quotes dropped,
        # the space inside them kept, then 'a/' stripped: 'foo/baz quox.txt'.
        ('--- a/foo/"baz quox.txt"', "foo/baz quox.txt"),
        # '+++' side of the same: 'b/' stripped.
        ('+++ b/foo/"baz quox.txt"', "foo/baz quox.txt"),
        # Escapes inside the quoted part: \" is '"' and \\ is '\': 'foo/x "y" \z.txt'.
        ('--- a/foo/"x \\"y\\" \\\\z.txt"', 'foo/x "y" \\z.txt'),
        # A quoted prefix: '"a/"q.py' decodes to 'a/q.py', then 'a/' is stripped: 'q.py'.
        ('--- "a/"q.py', "q.py"),
        # The token ends at the first whitespace outside quotes: the tab and the
        # timestamp after the quoted part are not in the path: 'x y.py'.
        ('--- "a/x y.py"\t2024-01-01 10:00:00.000000000 +0000', "x y.py"),
        ('--- a/"x y".py\t2024-01-01', "x y.py"),
        # Unquoted path, then a tab and a timestamp: only the first token, 'x.py'.
        ("--- a/x.py\t2024-01-01 10:00:00.000000000 +0000", "x.py"),
        ("+++ b/x.py 2024-01-01", "x.py"),
    ],
)
def test_quoted_parts_of_header_paths_are_unquoted(line: str, path: str) -> None:
    assert classify(line).text == path


# -- 3. reverse_diff swaps the headers as text and keeps the final-newline state ----


def test_reverse_diff_swaps_the_header_lines_as_text() -> None:
    # Zed's vector: the '---' line becomes '+++' and the '+++' line '---', each in
    # place and with its path as written; the added line becomes a deleted one.
    forward = (
        "--- a/file.rs\n+++ b/file.rs\n@@ -1,3 +1,4 @@\n"
        ' fn main() {\n+    println!("hello");\n     println!("world");\n }\n'
    )
    reversed_ = reverse_diff(forward)
    assert "+++ a/file.rs" in reversed_ and "--- b/file.rs" in reversed_
    assert '-    println!("hello");' in reversed_
    assert reversed_ == (
        "+++ a/file.rs\n--- b/file.rs\n@@ -1,3 +1,4 @@\n"
        ' fn main() {\n-    println!("hello");\n     println!("world");\n }\n'
    )


def test_reverse_diff_without_a_final_newline_gives_none() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b"
    # '--- a/f' becomes '+++ a/f', '+++ b/f' becomes '--- b/f', in place; '-a'
    # becomes '+a' and '+b' becomes '-b'; no '\n' after the last line, as in the input.
    assert reverse_diff(diff) == "+++ a/f\n--- b/f\n@@ -1 +1 @@\n+a\n-b"


def test_reverse_diff_with_a_final_newline_keeps_it() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
    # The same lines as above, each followed by '\n' (the input ends with one).
    assert reverse_diff(diff) == "+++ a/f\n--- b/f\n@@ -1 +1 @@\n+a\n-b\n"
    assert reverse_diff("") == ""


def test_undo_diff_has_reverse_diffs_lines_with_readable_headers() -> None:
    # The header lines trade places and kinds but keep their paths ('+++ b/f'
    # becomes '--- a/f', '--- a/f' becomes '+++ b/f'); the other lines and the
    # final-newline state are reverse_diff's.
    assert undo_diff("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n") == "--- a/f\n+++ b/f\n@@ -1 +1 @@\n+a\n-b\n"
    assert undo_diff("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b") == "--- a/f\n+++ b/f\n@@ -1 +1 @@\n+a\n-b"
    assert undo_diff("") == ""


def test_undo_diff_keeps_the_paths_under_the_prefix_rule() -> None:
    # A rename old.py -> new.py undone is new.py -> old.py: '--- a/new.py' and
    # '+++ b/old.py' (read with the rule above); a created file becomes a deleted one.
    rename = "--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-a\n+b\n"
    [section] = parse_diff(undo_diff(rename))
    assert (section.old_path, section.new_path) == ("new.py", "old.py")
    created = '--- /dev/null\n+++ b/"n w.py"\t2024-01-01\n@@ -0,0 +1 @@\n+x\n'
    [section] = parse_diff(undo_diff(created))
    assert (section.old_path, section.new_path, section.deleted) == ("n w.py", "/dev/null", True)
    # And the undoing patch undoes the patch: 'a\n' -> 'b\n' -> 'a\n'.
    assert apply_to_string(undo_diff(rename), apply_to_string(rename, "a\n")) == "a\n"
    # Zed's text swap reads back as the new path twice: the rename would not undo.
    [section] = parse_diff(reverse_diff(rename))
    assert (section.old_path, section.new_path) == ("b/new.py", "b/new.py")


def test_undo_diff_headers_never_leave_the_rollback() -> None:
    # undo_diff's headers are not Zed's text (reverse_diff's are). That is safe only
    # while its text reaches nothing but the applier: the package calls undo_diff in
    # two places, the scene's rollback and retrieval's undoing of the edit events, and hands the result straight to
    # apply_sections; reverse_diff's text reaches nothing in the package either.
    import ast

    package = Path(__file__).resolve().parents[1] / "pytest_editpred"
    calls: list[tuple[str, str, str]] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            name = getattr(node.func, "id", None) if isinstance(node, ast.Call) else None
            if name in ("undo_diff", "reverse_diff"):
                parent = parents[node]
                assert isinstance(parent, ast.Call), f"{path.name}: {name}'s result is kept"
                calls.append((path.relative_to(package).as_posix(), name, getattr(parent.func, "id", "")))
    assert calls == [
        ("retrieval/_history.py", "undo_diff", "apply_sections"),
        ("scene/_scene.py", "undo_diff", "apply_sections"),
    ]


# -- 4. an unclosed code fence in a chat answer is no block -------------------------


def greet_window() -> Window:
    """The greet sample with a 3-row region, as in test_prompts."""
    return window_for(request(), lines_before=1, lines_after=1)


UNCLOSED = "Renaming the call:\n\n```python\ndef main():\n    greet(sys.argv[1])\n"


def test_an_unclosed_fence_is_no_block() -> None:
    # The only fence, on line 1, is never closed: no block at all (not the rest of the text).
    assert last_fenced_block("```\nunclosed\nstill") is None
    # Only the closed block counts, here the first one: 'kept'.
    assert last_fenced_block("```\nkept\n```\n~~~\nunclosed") == "kept"


def test_a_chat_answer_with_an_unclosed_fence_fails_saying_so() -> None:
    # No closed block and no NO_EDITS: unusable. The fence opens on line 3 of the
    # answer (line 1 is the prose, line 2 is blank).
    with pytest.raises(PredictionError) as caught:
        parse_chat(UNCLOSED, greet_window())
    error = caught.value
    assert not isinstance(error, (ExampleError, InfrastructureError))  # the item FAILS, never ERRORs
    assert "code block opened on line 3 has no closing fence" in error.reason
    assert "no NO_EDITS" in error.reason
    assert "--editpred-stop" in error.fix


def test_a_chat_answer_cut_off_inside_its_fence_says_so() -> None:
    # Cut by max_tokens inside the block: the existing "cut off" message, even though
    # an earlier block is closed (that one was not meant as the answer).
    with pytest.raises(PredictionError, match="cut off by max_tokens"):
        parse_chat(UNCLOSED, greet_window(), True)
    with pytest.raises(PredictionError, match="cut off by max_tokens"):
        parse_chat("```\nold\n```\n" + UNCLOSED, greet_window(), True)


def test_a_chat_answer_takes_its_last_closed_block() -> None:
    region = 'def main():\n    greet(sys.argv[1])\n    hello("world")'
    closed = f"```python\n{region}\n```\n"
    expected = parse_chat(closed, greet_window())
    assert isinstance(expected, Answer) and expected.text is not None
    # The unclosed fence after it yields no block, so the closed one is the answer.
    assert parse_chat(closed + "And also:\n```python\nnot this", greet_window()) == expected
    # NO_EDITS still counts when the only fence is unclosed.
    assert parse_chat("```\nNO_EDITS", greet_window()) == Answer(None)


def test_an_unclosed_fence_from_the_chat_model_fails_the_item(project: Project, llm_server: LLMServer) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer("Here it is:\n```python\ndef sub(a, b):\n    return a - b\n")
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=openai-chat",
        f"--editpred-base-url={llm_server.url}",
        "--editpred-model=gpt-test",
        "--editpred-cache=off",
    )
    result.assert_outcomes(failed=1)  # FAILED, not ERROR
    result.stdout.fnmatch_lines(["*code block opened on line 2 has no closing fence*"])
    assert len(llm_server.requests) == 1  # an unusable answer is not retried


# -- 5. format_cursor_excerpt keeps the final-newline state --------------------------


@pytest.mark.parametrize(
    "excerpt,offset,written",
    [
        # Column 12 >= indent 4 + len('//') 2: the indent, '//', 6 spaces to reach
        # byte 12, then '^'. No final newline in the excerpt: none after the marker.
        ("    let x = 42;", 12, "    let x = 42;\n    //      ^[CURSOR_POSITION]"),
        # The same with a final newline: the marker line ends with it.
        ("    let x = 42;\n", 12, "    let x = 42;\n    //      ^[CURSOR_POSITION]\n"),
        # Cursor on a middle line (offset 9 + 12 = 21): the marker goes under it,
        # and the last line '}' stays without a newline.
        ("fn f() {\n    let x = 42;\n}", 21, "fn f() {\n    let x = 42;\n    //      ^[CURSOR_POSITION]\n}"),
        # Column 1 < len('//'): the '<' form, indented by the column (1 space).
        ("ab", 1, "ab\n // <[CURSOR_POSITION]"),
        ("ab\n", 1, "ab\n // <[CURSOR_POSITION]\n"),
    ],
)
def test_format_cursor_excerpt_adds_no_final_newline(excerpt: str, offset: int, written: str) -> None:
    assert format_cursor_excerpt(excerpt, offset) == written
    # Parsing the '^'/'<' form trims trailing newlines: the excerpt comes back
    # without them, with the same offset.
    assert parse_cursor_excerpt(written) == (excerpt.rstrip("\n"), offset)
