"""The real upstream examples (``zed_examples.ZED``) load and behave as in Zed."""

from __future__ import annotations

from pathlib import Path

import pytest
from zed_examples import VARIABLE, ZED

from pytest_editpred import apply_patch, load_examples
from pytest_editpred._diff import apply_sections
from pytest_editpred.example import ACCEPTED_PREDICTION_MARKER, Example

FILES = sorted(ZED.glob("*.md"))


def load(name: str) -> Example:
    [example] = load_examples(ZED / name)
    assert isinstance(example, Example), example
    return example


def test_the_upstream_examples_are_there() -> None:
    assert len(FILES) >= 8, (
        f"the upstream Zed examples are not in {ZED}: put them there or name their directory in ${VARIABLE}"
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_upstream_example_parses(path: Path) -> None:
    [example] = load_examples(path)
    assert isinstance(example, Example), example
    assert example.name == path.stem  # no H1: the file stem, as in Zed
    assert example.repository_url.count("/") >= 1 and len(example.revision) == 40
    assert example.expected_patches
    excerpt, offset = example.cursor_excerpt()
    assert 0 <= offset <= len(excerpt)
    assert "[CURSOR_POSITION]" not in excerpt


def row_col(excerpt: str, offset: int) -> tuple[int, int]:
    return excerpt.count("\n", 0, offset), offset - (excerpt.rfind("\n", 0, offset) + 1)


# (file, row, column, the text right before the cursor): worked out by hand from the
# marker lines. '^' is the byte column of the caret; '<' the marker's indentation.
HAND_WORKED = [
    # "# ^" under "de": the caret is at byte 2, right after "de".
    ("flask--add-test-function.md", 9, 2, "de"),
    # "#" + 18 spaces + "^": caret at byte 19 = len("function groupByCat").
    ("hello-world--rename-accepted-group-by.md", 4, 19, "function groupByCat"),
    # 8 spaces + "// ^": caret at byte 11 = len("        epr").
    ("zed--add-eprintln.md", 8, 11, "        epr"),
    # "// <" with no indentation: column 0 of "export class TextEdit {".
    ("vscode--add-class-decorator.md", None, 0, ""),
    # three tabs + "// <": column 3 (the indentation width, not the '<').
    ("vscode--add-interface-method.md", None, 3, "\t\t\t"),
    # tab + "//" + 7 spaces + "^": a tab is one byte, caret at 10 = after "\thandler: ".
    ("vscode--add-async-and-await.md", None, 10, "\thandler: "),
    # four tabs + "//" + 20 spaces + "^": byte 26, before the closing '")'.
    ("vscode--log-object-property.md", None, 26, '\t\t\t\tconsole.log("did quit:'),
]


@pytest.mark.parametrize("name,row,column,before", HAND_WORKED, ids=[h[0] for h in HAND_WORKED])
def test_cursor_offsets_worked_out_by_hand(name: str, row: int | None, column: int, before: str) -> None:
    excerpt, offset = load(name).cursor_excerpt()
    got_row, got_column = row_col(excerpt, offset)
    if row is not None:
        assert got_row == row
    assert got_column == column
    line_start = offset - got_column
    assert excerpt[line_start:offset] == before


def test_class_decorator_cursor_is_at_the_start_of_the_class_line() -> None:
    excerpt, offset = load("vscode--add-class-decorator.md").cursor_excerpt()
    assert excerpt[offset:].startswith("export class TextEdit {")


FLASK_FILE = """import flask


def test_static_files(app, client):
    rv = client.get("/static/index.html")
    assert rv.status_code == 200
    assert rv.data.strip() == b"<h1>Hello World!</h1>"
    with app.test_request_context():
        assert flask.url_for("static", filename="index.html") == "/static/index.html"
    rv.close()


def test_static_url_path():
    app = flask.Flask(__name__)
"""


def test_flask_history_and_all_ten_expected_patches_apply() -> None:
    example = load("flask--add-test-function.md")
    buffers: dict[str, str] = {}
    opened = {"tests/test_basic.py": FLASK_FILE}
    applied = list(
        apply_sections(
            example.edit_history,
            buffers,
            lambda p: (p, opened[p]) if p in opened else None,
            marker=ACCEPTED_PREDICTION_MARKER,
        )
    )
    assert [a.path for a in applied] == ["tests/test_basic.py"]
    text = buffers["tests/test_basic.py"]
    assert "    rv.close()\n\n\nde\n\n\ndef test_static_url_path():" in text
    excerpt, offset = example.cursor_excerpt()
    assert text.count(excerpt) == 1
    cursor = text.index(excerpt) + offset
    assert text[cursor - 2 : cursor] == "de"

    expected = example.expected()
    assert len(expected) == 10
    results = []
    for candidate in expected:
        patched = apply_patch(buffers, candidate)
        new = patched.buffers["tests/test_basic.py"]
        assert "\nde\n" not in new  # every candidate finishes the half-typed "de"
        assert new.endswith("def test_static_url_path():\n    app = flask.Flask(__name__)\n")
        assert patched.cursor is not None
        path, at = patched.cursor
        line_start = new.rfind("\n", 0, at) + 1
        results.append((new[line_start:at], new[at:].split("\n", 1)[0]))
    # The first candidate: "def test_():" with the cursor after "test_".
    assert results[0] == ("def test_", "():")
    # Every expected cursor sits on a line the patch added.
    for before, after in results:
        assert before.startswith(("def ", "    ")), (before, after)


def test_accepted_prediction_marker_lands_once_before_its_diff() -> None:
    example = load("hello-world--rename-accepted-group-by.md")
    history = example.edit_history
    assert history.count(ACCEPTED_PREDICTION_MARKER) == 1
    after = history.split(ACCEPTED_PREDICTION_MARKER + "\n", 1)[1]
    assert after.startswith("--- a/README\n")


def test_hello_world_history_replaces_the_whole_file_and_flags_the_accepted_edit() -> None:
    example = load("hello-world--rename-accepted-group-by.md")
    buffers: dict[str, str] = {}
    applied = list(
        apply_sections(
            example.edit_history,
            buffers,
            lambda p: (p, "Hello World!\n") if p == "README" else None,
            marker=ACCEPTED_PREDICTION_MARKER,
        )
    )
    assert [a.predicted for a in applied] == [False, True, False]
    text = buffers["README"]
    assert text.startswith("function filterByStatus(items, status) {\n")
    assert "function groupByCat(items) {" in text
    excerpt, offset = example.cursor_excerpt()
    assert text.count(excerpt) == 1
    [expected] = example.expected()
    patched = apply_patch(buffers, expected)
    new = patched.buffers["README"]
    assert "function groupByCategory(items) {" in new and "item.category;" in new
    assert patched.cursor is not None
    at = patched.cursor[1]
    assert new[at - len("function groupByCategory") : at] == "function groupByCategory"


def test_ssh_repository_urls_give_the_repo_name() -> None:
    assert load("zed--add-eprintln.md").repo_name == "zed"
    assert load("flask--add-test-function.md").repo_name == "flask"
