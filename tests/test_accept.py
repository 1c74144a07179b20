"""--editpred-accept: a prediction becomes one more expected patch, nothing else moves."""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_editpred import ConfigError, from_markdown
from pytest_editpred.example import extract_cursor_from_patch
from pytest_editpred.reports import (
    accept_prediction,
    cursor_marker_line,
    with_cursor_line,
)

EVALS = Path(__file__).resolve().parent.parent / "evals"

FRONT = '+++\nrepository_url = "https://github.com/acme/calc"\nrevision = "abc123"\n+++\n\n'
CURSOR = "## Cursor Position\n\n```calc.py\ndef sub(a, b):\n#             ^[CURSOR_POSITION]\n```\n"
PATCH_1 = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,2 @@\n def sub(a, b):\n+    return a - b\n"
PREDICTED = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,2 @@\n def sub(a, b):\n+    return -(b - a)\n"


def write(tmp_path: Path, text: str, name: str = "ex.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def check_added(path: Path, old_text: str, new_patch: str) -> None:
    """The file parses to the same example plus exactly one expected patch, and the
    old text is still there byte for byte (one contiguous insertion)."""
    old = from_markdown(old_text, path)
    new_text = path.read_bytes().decode()
    new = from_markdown(new_text, path)
    assert new.expected_patches == (*old.expected_patches, new_patch)
    assert replace(new, expected_patches=()) == replace(old, expected_patches=())
    assert new.rejected_patch == old.rejected_patch
    prefix = 0
    while prefix < len(old_text) and old_text[prefix] == new_text[prefix]:
        prefix += 1
    inserted = len(new_text) - len(old_text)
    assert new_text[:prefix] + new_text[prefix + inserted :] == old_text


def test_appends_after_the_last_expected_patch(tmp_path: Path) -> None:
    text = FRONT + "# Sub\n\n" + CURSOR + "\n## Expected Patch\n\n```diff\n" + PATCH_1 + "```\n"
    path = write(tmp_path, text)
    line = accept_prediction(path, PREDICTED, (4, 4))
    assert line is not None
    new_text = path.read_text()
    assert new_text.splitlines()[line - 1] == "```diff"
    expected_patch = PREDICTED.replace("+    return -(b - a)\n", "+    return -(b - a)\n#    ^[CURSOR_POSITION]\n")
    check_added(path, text, expected_patch)
    assert new_text.endswith("```\n\n```diff\n" + expected_patch + "```\n")
    found = extract_cursor_from_patch(from_markdown(new_text).expected_patches[-1])
    assert (found.cursor_line, found.cursor_column) == (4, 4)  # after "+    return", at "r"
    assert found.patch == PREDICTED


def test_real_example_with_a_rejected_patch_keeps_it_last(tmp_path: Path) -> None:
    path = tmp_path / "rustkv--complete-insert.md"
    shutil.copy(EVALS / path.name, path)
    text = path.read_text()
    example = from_markdown(text, path)
    patch = example.expected()[0].patch.replace("insert(key, value);", "insert(key, value); // ok")
    lines = patch.splitlines()
    anchor = lines.index("+        true")
    line = accept_prediction(path, patch, (anchor, 11))
    assert line is not None
    new_text = path.read_text()
    check_added(path, text, with_cursor_line(patch, anchor, 11))
    new = from_markdown(new_text, path)
    assert new.rejected_patch == example.rejected_patch
    assert new_text.splitlines()[line - 1] == "```diff"
    cursor = new.expected()[-1]
    assert cursor.cursor_line == anchor and cursor.cursor_column == 11
    # The new block sits between the last expected fence and "## Rejected Patch".
    expected_section, rejected_section = new_text.split("## Expected Patch")[1].split("## Rejected Patch")
    assert expected_section.count("```diff") == 2
    assert rejected_section.count("```diff") == 1


def test_no_expected_section_goes_before_rejected_patch(tmp_path: Path) -> None:
    text = FRONT + "# Sub\n\n" + CURSOR + "\n## Rejected Patch\n\n```diff\n" + PATCH_1 + "```\n"
    path = write(tmp_path, text)
    accept_prediction(path, PREDICTED)
    new_text = path.read_text()
    check_added(path, text, PREDICTED)
    assert "## Expected Patch\n\n```diff\n" + PREDICTED + "```\n\n## Rejected Patch\n" in new_text
    assert from_markdown(new_text).rejected_patch == PATCH_1


def test_no_expected_section_at_end_of_file(tmp_path: Path) -> None:
    text = FRONT + CURSOR.rstrip("\n")  # no final newline either
    path = write(tmp_path, text)
    accept_prediction(path, PREDICTED)
    check_added(path, text, PREDICTED)
    assert path.read_text().endswith("```\n\n## Expected Patch\n\n```diff\n" + PREDICTED + "```\n")


def test_expected_heading_without_a_block(tmp_path: Path) -> None:
    text = FRONT + CURSOR + "\n## Expected Patch\n\n## Rejected Patch\n\n```diff\n" + PATCH_1 + "```\n"
    path = write(tmp_path, text)
    accept_prediction(path, PREDICTED)
    check_added(path, text, PREDICTED)
    assert "## Expected Patch\n\n```diff\n" + PREDICTED + "```\n\n## Rejected Patch" in path.read_text()


def test_followed_by_other_text(tmp_path: Path) -> None:
    """A note directly under the last fence stays where it was, after a blank line."""
    text = FRONT + CURSOR + "\n## Expected Patch\n\n```diff\n" + PATCH_1 + "```\nA note.\n\n## Reasoning\n\nWhy.\n"
    path = write(tmp_path, text)
    accept_prediction(path, PREDICTED)
    check_added(path, text, PREDICTED)
    assert "```diff\n" + PREDICTED + "```\n\nA note.\n" in path.read_text()
    assert from_markdown(path.read_text()).reasoning == "Why."


def test_prepared_cursor_line_is_kept(tmp_path: Path) -> None:
    text = FRONT + CURSOR
    path = write(tmp_path, text)
    prepared = with_cursor_line(PREDICTED, 3, 8)
    assert prepared.splitlines()[4] == "#        ^[CURSOR_POSITION]"
    accept_prediction(path, prepared)
    check_added(path, text, prepared)
    found = from_markdown(path.read_text()).expected()[-1]
    assert (found.cursor_line, found.cursor_column) == (3, 8)  # after "def sub(" on the context line


def test_a_patch_with_backtick_fences_inside(tmp_path: Path) -> None:
    patch = "--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,3 @@\n ```\n+x\n ```\n"
    text = FRONT + CURSOR
    path = write(tmp_path, text)
    accept_prediction(path, patch)
    check_added(path, text, patch)


def test_the_same_patch_twice_is_written_once(tmp_path: Path) -> None:
    path = write(tmp_path, FRONT + CURSOR)
    assert accept_prediction(path, PREDICTED) is not None
    once = path.read_bytes()
    assert accept_prediction(path, PREDICTED) is None
    assert path.read_bytes() == once


def test_permissions_are_kept_and_no_temporary_file_remains(tmp_path: Path) -> None:
    path = write(tmp_path, FRONT + CURSOR)
    os.chmod(path, 0o640)
    accept_prediction(path, PREDICTED)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ex.md"]


@pytest.mark.parametrize("name", ["ex.json", "ex.jsonl", "ex.txt"])
def test_only_markdown_is_edited(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, "{}\n", name)
    with pytest.raises(ConfigError, match="only .md examples") as caught:
        accept_prediction(path, PREDICTED)
    assert caught.value.path == str(path)
    assert path.read_text() == "{}\n"


def test_a_broken_example_is_not_touched(tmp_path: Path) -> None:
    path = write(tmp_path, FRONT + "no cursor block\n")
    with pytest.raises(Exception, match="cursor position"):
        accept_prediction(path, PREDICTED)
    assert path.read_text() == FRONT + "no cursor block\n"


def test_cursor_line_validation() -> None:
    assert cursor_marker_line(0) == "#^[CURSOR_POSITION]"
    assert cursor_marker_line(3) == "#   ^[CURSOR_POSITION]"
    with pytest.raises(ValueError, match="negative"):
        cursor_marker_line(-1)
    with pytest.raises(ValueError, match="context or '\\+' line"):
        with_cursor_line(PATCH_1, 0, 0)  # the "--- a/" header
    with pytest.raises(ValueError, match="outside"):
        with_cursor_line(PATCH_1, 9, 0)
    with pytest.raises(ValueError, match="past the end"):
        with_cursor_line(PATCH_1, 3, 40)
    with pytest.raises(ValueError, match="already"):
        with_cursor_line(with_cursor_line(PATCH_1, 3, 0), 3, 0)


def test_cursor_column_counts_bytes() -> None:
    patch = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+s = 'é'\n"
    marked = with_cursor_line(patch, 4, len("s = 'é'".encode()))  # after the closing quote
    found = extract_cursor_from_patch(marked)
    assert found.cursor_line == 4 and found.cursor_column == 8
