"""The judge sees deletions and creations of files no buffer holds.

A file nobody opened is not in the buffers; neither is a file a patch deleted. So
the files after a patch say which files it deleted (``Buffers.deleted``) and which it
created where none was (``Buffers.created``): an expected patch that deletes a file
of the repository no buffer holds is a change, ``noop`` fails it, and the failure
names the file. Every repository here is a real one; the plugin runs through
pytester as a user runs it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gitrepos import make_repo, map_in_ini

from conftest import CALC
from pytest_editpred import NoSuchPathError, Prediction
from pytest_editpred.cli import main
from pytest_editpred.example import Example, extract_cursor_from_patch
from pytest_editpred.judge import Candidate, expected_candidates, failure_diff, judge, same_buffers
from pytest_editpred.scene import Buffers, RepositoryCache, Scene, apply_patch, build_scene

URL = "https://github.com/acme/calc"
OLD = "def legacy():\n    return 0\n"
OTHER = "VALUE = 1\n"
EXISTING = "def helper():\n    return 1\n"

#: The history adds ``sub`` to calc.py; the cursor is on it. No other file is open.
HISTORY = "--- a/calc.py\n+++ b/calc.py\n@@ -5,2 +5,5 @@\n def mul(a, b):\n     return a * b\n+\n+\n+def sub(a, b):\n"
CURSOR = "def sub(a, b):<|user_cursor|>"
DELETE_OLD = "--- a/old.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def legacy():\n-    return 0\n"
DELETE_OTHER = "--- a/other.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-VALUE = 1\n"
CREATE_NEW = "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+def new():\n+    return 2\n"
EDIT_CALC = "--- a/calc.py\n+++ b/calc.py\n@@ -8,1 +8,2 @@\n def sub(a, b):\n+    return a - b\n"


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    path, [rev] = make_repo(
        tmp_path / "upstream", {"calc.py": CALC, "old.py": OLD, "other.py": OTHER, "lib/existing.py": EXISTING}
    )
    return path, rev


@pytest.fixture
def scene(tmp_path: Path, repo: tuple[Path, str]) -> Scene:
    path, rev = repo
    example = Example(
        name="x", repository_url=URL, revision=rev, cursor_path="calc.py", cursor_position=CURSOR, edit_history=HISTORY
    )
    cache = RepositoryCache(tmp_path / "cache", {URL: path})
    built = build_scene(example, cache)
    assert set(built.buffers) == {"calc.py"}  # every other file is unopened
    return built


def verdict_of(scene: Scene, expected: str, prediction: Prediction):  # type: ignore[no-untyped-def]
    candidates = expected_candidates(
        scene.buffers, [extract_cursor_from_patch(expected)], scene.open_file, scene.cursor.path
    )
    return judge(
        scene.buffers, (scene.cursor.path, scene.cursor.offset), candidates, prediction, open_file=scene.open_file
    )


# ----------------------------------------------------------------------- the judge


def test_a_deletion_of_an_unopened_file_is_a_change(scene: Scene) -> None:
    noop = verdict_of(scene, DELETE_OLD, Prediction())
    assert not noop.passed
    assert noop.reason == "the prediction changes nothing; 1 expected patch(es) change the code"
    assert "old.py: the expected patch deletes this file; the prediction keeps it" in failure_diff(noop, "calc.py")
    assert verdict_of(scene, DELETE_OLD, Prediction(patch=DELETE_OLD)).passed  # the oracle's answer
    # The same deletion written another way (no hunk): the same files after it.
    written_otherwise = verdict_of(scene, DELETE_OLD, Prediction(patch="--- a/old.py\n+++ /dev/null\n"))
    assert written_otherwise.passed and written_otherwise.changed_paths == ("old.py",)
    wrong = verdict_of(scene, DELETE_OLD, Prediction(patch=DELETE_OTHER))
    assert not wrong.passed
    assert wrong.changed_paths == ("other.py",)
    shown = failure_diff(wrong, "calc.py")
    assert "old.py: the expected patch deletes this file; the prediction keeps it" in shown
    assert "other.py: the prediction deletes this file; the expected patch keeps it" in shown


def test_a_prediction_deleting_a_file_an_example_keeps_is_a_change(scene: Scene) -> None:
    """An example that expects no change fails a prediction that deletes an unopened file."""
    candidates = expected_candidates(scene.buffers, (), scene.open_file, scene.cursor.path)
    cursor = (scene.cursor.path, scene.cursor.offset)
    verdict = judge(scene.buffers, cursor, candidates, Prediction(patch=DELETE_OTHER), open_file=scene.open_file)
    assert not verdict.passed
    assert verdict.reason == "the example expects no change, but the prediction changes other.py"


def test_a_creation_of_a_new_file_is_a_change(scene: Scene) -> None:
    noop = verdict_of(scene, CREATE_NEW, Prediction())
    assert not noop.passed
    assert "pkg/new.py: the expected patch creates this file; the prediction does not" in failure_diff(noop, "calc.py")
    assert verdict_of(scene, CREATE_NEW, Prediction(patch=CREATE_NEW)).passed
    elsewhere = verdict_of(scene, CREATE_NEW, Prediction(patch=CREATE_NEW.replace("pkg/new.py", "pkg/other.py")))
    assert not elsewhere.passed
    shown = failure_diff(elsewhere, "calc.py")
    assert "pkg/new.py: the expected patch creates this file; the prediction does not" in shown
    assert "pkg/other.py: the prediction creates this file; the expected patch does not" in shown


def test_a_dev_null_creation_of_a_file_the_tree_has_replaces_its_text(scene: Scene) -> None:
    """``--- /dev/null`` over ``lib/existing.py`` (in the tree, not open) makes the file
    hold the created text, as the edit history's creation does: the same outcome as
    an edit of the file to that text, and no change when the text is the tree's."""
    replaced = "--- /dev/null\n+++ b/lib/existing.py\n@@ -0,0 +1,2 @@\n+def helper():\n+    return 2\n"
    assert not verdict_of(scene, replaced, Prediction()).passed
    assert verdict_of(scene, replaced, Prediction(patch=replaced)).passed
    in_place = "--- a/lib/existing.py\n+++ b/lib/existing.py\n@@ -2 +2 @@\n-    return 1\n+    return 2\n"
    assert verdict_of(scene, replaced, Prediction(patch=in_place)).passed
    patched = apply_patch(scene.buffers, replaced, open_file=scene.open_file)
    assert patched.buffers.created == frozenset()  # the file was there: replaced, not created
    same = replaced.replace("return 2", "return 1")
    unchanged = apply_patch(scene.buffers, same, open_file=scene.open_file)
    assert unchanged.buffers == scene.buffers and unchanged.changed == ()


def test_a_multi_file_patch_edits_the_cursor_file_and_deletes_another(scene: Scene) -> None:
    both = EDIT_CALC + DELETE_OLD
    half = verdict_of(scene, both, Prediction(patch=EDIT_CALC))
    assert not half.passed
    assert half.reason == "the prediction matches none of the 1 expected patch(es)"
    assert "old.py: the expected patch deletes this file; the prediction keeps it" in failure_diff(half, "calc.py")
    assert verdict_of(scene, both, Prediction(patch=DELETE_OLD + EDIT_CALC)).passed  # order of sections: no matter
    text = scene.buffers["calc.py"] + "    return a - b\n"
    assert not verdict_of(scene, both, Prediction(text=text)).passed  # a text answer edits the cursor file only
    assert not verdict_of(scene, both, Prediction()).passed


def test_renaming_an_unopened_file_deletes_its_old_path(scene: Scene) -> None:
    moved = "--- a/other.py\n+++ b/moved.py\n"
    copied = "--- /dev/null\n+++ b/moved.py\n@@ -0,0 +1 @@\n+VALUE = 1\n"
    renamed = apply_patch(scene.buffers, moved, open_file=scene.open_file).buffers
    assert renamed.deleted == {"other.py"} and renamed.created == {"moved.py"}
    assert not same_buffers(renamed, apply_patch(scene.buffers, copied, open_file=scene.open_file).buffers, "exact")
    assert verdict_of(scene, moved, Prediction(patch=DELETE_OTHER + copied)).passed


def test_a_deleted_file_is_not_read_again(scene: Scene) -> None:
    again = DELETE_OLD + "--- a/old.py\n+++ b/old.py\n@@ -1 +1 @@\n-def legacy():\n+def legacy2():\n"
    with pytest.raises(NoSuchPathError, match="no such path: old.py"):
        apply_patch(scene.buffers, again, open_file=scene.open_file)
    # and a deletion never falls back to the cursor file
    with pytest.raises(NoSuchPathError, match="no such path: gone.py"):
        apply_patch(scene.buffers, "--- a/gone.py\n+++ /dev/null\n", open_file=scene.open_file, default_path="calc.py")


def test_a_file_the_edit_history_deleted_is_gone_from_the_scene(tmp_path: Path, repo: tuple[Path, str]) -> None:
    path, rev = repo
    example = Example(
        name="x",
        repository_url=URL,
        revision=rev,
        cursor_path="calc.py",
        cursor_position=CURSOR,
        edit_history=HISTORY + DELETE_OLD,
    )
    scene = build_scene(example, RepositoryCache(tmp_path / "cache", {URL: path}))
    assert scene.deleted == {"old.py"} and scene.open_file("old.py") is None
    assert scene.request().file_text("old.py") is None
    with pytest.raises(Exception, match="no such path: old.py"):
        expected_candidates(scene.buffers, [extract_cursor_from_patch(DELETE_OLD)], scene.open_file, "calc.py")


def test_buffers_equal_by_texts_and_deletions() -> None:
    assert Buffers({"a": "x"}) == {"a": "x"}
    assert Buffers({"a": "x"}, frozenset({"b"})) != {"a": "x"}
    assert Buffers({"a": "x"}, frozenset({"b"})) == Buffers({"a": "x"}, frozenset({"b"}))
    assert not same_buffers(Buffers({}, frozenset({"b"})), {}, "whitespace")
    rejected = Candidate(-1, DELETE_OLD, Buffers({}, frozenset({"old.py"})), None)
    assert not same_buffers(rejected.buffers, Buffers({}, frozenset({"other.py"})), "exact")


# ----------------------------------------------------------------------- the plugin and the lint


def example_file(root: Path, rev: str, name: str, patch: str) -> Path:
    path = root / "evals" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'+++\nrepository_url = "{URL}"\nrevision = "{rev}"\n+++\n\n'
        f"## Edit History\n\n```diff\n{HISTORY}```\n\n## Cursor Position\n\n```calc.py\n{CURSOR}\n```\n\n"
        f"## Expected Patch\n\n```diff\n{patch}```\n"
    )
    return path


def test_the_plugin_fails_noop_and_passes_oracle_on_deletions_and_creations(
    pytester: pytest.Pytester, repo: tuple[Path, str]
) -> None:
    path, rev = repo
    map_in_ini(pytester, URL, path)
    for name, patch in (("deletes", DELETE_OLD), ("creates", CREATE_NEW), ("both", EDIT_CALC + DELETE_OLD)):
        example_file(pytester.path, rev, name, patch)
    pytester.runpytest("evals", "--editpred-provider=oracle").assert_outcomes(passed=3)
    noop = pytester.runpytest("evals", "--editpred-provider=noop")
    noop.assert_outcomes(failed=3)
    noop.stdout.fnmatch_lines_random(
        [
            "*old.py: the expected patch deletes this file; the prediction keeps it*",
            "*pkg/new.py: the expected patch creates this file; the prediction does not*",
        ]
    )
    answers = pytester.path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps(answer) + "\n"
            for answer in (
                {"name": "deletes", "patch": "--- a/old.py\n+++ /dev/null\n"},
                {"name": "creates", "patch": CREATE_NEW.replace("pkg/new.py", "pkg/other.py")},
                {"name": "both", "patch": DELETE_OTHER + EDIT_CALC},
            )
        )
    )
    report = pytester.path / "r.jsonl"
    replayed = pytester.runpytest(
        "evals", "--editpred-provider=replay", f"--editpred-replay={answers}", f"--editpred-report={report}"
    )
    replayed.assert_outcomes(passed=1, failed=2)
    records = {r["name"]: r for r in map(json.loads, report.read_text().splitlines())}
    assert records["deletes"]["outcome"] == "passed"
    assert records["deletes"]["diff"]["other_files"] == ["old.py"]
    assert records["both"]["diff"]["other_files"] == ["other.py"]
    assert records["creates"]["outcome"] == "failed"
    replayed.stdout.fnmatch_lines_random(
        [
            "*old.py: the expected patch deletes this file; the prediction keeps it*",
            "*other.py: the prediction deletes this file; the expected patch keeps it*",
        ]
    )


def test_the_lint_tells_a_deletion_from_another(
    tmp_path: Path, repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Two examples that differ only in the unopened file they delete are no duplicates,
    and each one's noop answer fails, as the lint checks."""
    path, rev = repo
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\neditpred_cache_dir = .cache\neditpred_repos =\n    {URL} = {path}\n"
    )
    example_file(tmp_path, rev, "deletes-old", DELETE_OLD)
    example_file(tmp_path, rev, "deletes-other", DELETE_OTHER)
    example_file(tmp_path, rev, "deletes-old-again", DELETE_OLD.replace("@@ -1,2 +0,0 @@", "@@ -1 +0,0 @@"))
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        status = main(["lint", "evals"])
    finally:
        os.chdir(before)
    _, err = capsys.readouterr()
    assert status == 1
    errors = [line for line in err.splitlines() if ": quality: " not in line]
    assert errors == [
        "evals/deletes-old.md:1: duplicate of evals/deletes-old-again.md:1: the same repository, revision, "
        "history, cursor and expected edit (Delete one of them.)"
    ]
    # a deletion of a file the history never touched, named by nothing it changed, is a place
    # the patch edits, as split-commit's check counts it: unrelated-target, not an error
    assert sorted(line.split(":")[0] for line in err.splitlines() if line.endswith("[unrelated-target]")) == [
        "evals/deletes-old-again.md",
        "evals/deletes-old.md",
        "evals/deletes-other.md",
    ]
