"""The scene: repository at the revision, uncommitted diff, edit history, cursor (§2–§3)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from gitrepos import make_bare, make_bundle, make_repo

from pytest_editpred import (
    CursorAmbiguousError,
    CursorNotFoundError,
    EditHistoryError,
    MissingFileError,
    UncommittedDiffError,
    UnknownRevisionError,
    UnsafePathError,
    from_markdown,
)
from pytest_editpred.scene import RepositoryCache, build_scene

APP = "import os\n\n\ndef load(path):\n    return open(path).read()\n\n\ndef save(path, data):\n    pass\n"
UTIL = "def helper():\n    return 1\n"

HISTORY = """\
```diff
--- a/app.py
+++ b/app.py
@@ -4,2 +4,2 @@
-def load(path):
+def load(path, encoding):
     return open(path).read()
--- a/util.py
+++ b/util.py
@@ -1,2 +1,3 @@
 def helper():
     return 1
+def two
```
"""

CURSOR = """\
```app.py
def load(path, encoding):
    return open(path).read()
#                         ^[CURSOR_POSITION]
```
"""


def example_text(
    url: str, rev: str, *, history: str = HISTORY, cursor: str = CURSOR, extra: str = "", front: str = ""
) -> str:
    return (
        f'+++\nrepository_url = "{url}"\nrevision = "{rev}"\n{front}+++\n\n'
        + extra
        + "## Edit History\n\n"
        + history
        + "\n## Cursor Position\n\n"
        + cursor
    )


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, list[str]]:
    return make_repo(tmp_path / "src", {"app.py": APP, "util.py": UTIL, "docs/readme.txt": "docs\n"})


def cache_for(tmp_path: Path, url: str, target: Path) -> RepositoryCache:
    return RepositoryCache(tmp_path / "cache", {url: target})


@pytest.mark.parametrize("kind", ["plain", "bare", "bundle", "ssh"])
def test_buffers_events_and_cursor(tmp_path: Path, source, kind: str) -> None:
    repo, [rev] = source
    url = "git@example.com:team/proj" if kind == "ssh" else "https://example.com/team/proj"
    target = {"plain": repo, "ssh": repo, "bare": make_bare(tmp_path, repo), "bundle": make_bundle(tmp_path, repo)}[
        kind
    ]
    example = from_markdown(example_text(url, rev[:10]), tmp_path / "e.md")
    with cache_for(tmp_path, url, target) as cache:
        scene = build_scene(example, cache)
        assert scene.commit == rev
        assert dict(scene.buffers) == {
            "app.py": APP.replace("def load(path):", "def load(path, encoding):"),
            "util.py": UTIL + "def two\n",
        }
        assert [(e.path, e.predicted) for e in scene.events] == [("app.py", False), ("util.py", False)]
        assert "-def load(path):\n+def load(path, encoding):\n" in scene.events[0].diff
        assert scene.events[0].diff.startswith("--- a/app.py\n+++ b/app.py\n@@ -1,7 +1,7 @@")
        # "#" and 25 spaces: the caret is at byte 26 of "    return open(path).read()", before "()".
        text = scene.buffers["app.py"]
        assert scene.cursor.path == "app.py"
        assert scene.cursor.row == 4 and scene.cursor.column == 26
        assert text[scene.cursor.offset :].startswith("()\n")
        request = scene.request(trial=2)
        assert request.trial == 2 and request.text == text
        # Nothing was checked out: no file of the repository is anywhere in the cache.
        assert not list((tmp_path / "cache").rglob("app.py"))
        worktree = scene.worktree()
        assert (worktree / "app.py").read_text() == APP
        assert worktree.is_relative_to(tmp_path / "cache")


def test_uncommitted_diff_is_applied_without_a_checkout(tmp_path: Path, source) -> None:
    repo, [rev] = source
    diff = textwrap.dedent(
        """\
        ```diff
        --- a/docs/readme.txt
        +++ b/docs/readme.txt
        @@ -1 +1 @@
        -docs
        +better docs
        ```
        """
    )
    url = "https://example.com/team/proj"
    text = example_text(url, rev, extra="## Uncommitted Diff\n\n" + diff + "\n")
    with cache_for(tmp_path, url, repo) as cache:
        scene = build_scene(from_markdown(text, tmp_path / "e.md"), cache)
        assert scene.tree != scene.commit
        assert "docs/readme.txt" not in scene.buffers  # the history did not touch it
        assert scene.open_file("docs/readme.txt") == ("docs/readme.txt", "better docs\n")
        assert not list((tmp_path / "cache").rglob("readme.txt"))
        assert (scene.worktree() / "docs" / "readme.txt").read_text() == "better docs\n"
        bad = example_text(url, rev, extra="## Uncommitted Diff\n\n" + diff.replace("-docs", "-nodocs") + "\n")
        with pytest.raises(UncommittedDiffError) as info:
            build_scene(from_markdown(bad, tmp_path / "bad.md"), cache)
        assert info.value.path == str(tmp_path / "bad.md") and info.value.line == 9


def test_rollback_when_the_uncommitted_diff_holds_the_history(tmp_path: Path, source) -> None:
    repo, [rev] = source
    diff = "```diff\n--- a/util.py\n+++ b/util.py\n@@ -1,2 +1,3 @@\n def helper():\n     return 1\n+def two\n```\n"
    history = "```diff\n--- a/util.py\n+++ b/util.py\n@@ -1,2 +1,3 @@\n def helper():\n     return 1\n+def two\n```\n"
    cursor = "```util.py\ndef two\n#      ^[CURSOR_POSITION]\n```\n"
    url = "https://example.com/team/proj"
    text = example_text(
        url,
        rev,
        history=history,
        cursor=cursor,
        extra="## Uncommitted Diff\n\n" + diff + "\n",
        front="uncommitted_diff_requires_edit_history_rollback = true\n",
    )
    with cache_for(tmp_path, url, repo) as cache:
        scene = build_scene(from_markdown(text), cache)
    assert scene.buffers["util.py"] == UTIL + "def two\n"  # applied once, not twice
    assert len(scene.events) == 1 and "+def two" in scene.events[0].diff


@pytest.mark.parametrize(
    "change,error,line",
    [
        ({"rev": "0" * 40}, UnknownRevisionError, 1),
        ({"cursor": "```app.py\nnot in the file\n# <[CURSOR_POSITION]\n```\n"}, CursorNotFoundError, 26),
        ({"cursor": "```app.py\n\n\ndef\n# <[CURSOR_POSITION]\n```\n"}, CursorAmbiguousError, 26),
        ({"cursor": "```missing.py\nx\n# <[CURSOR_POSITION]\n```\n"}, MissingFileError, 25),
        ({"cursor": "```../outside.py\nx\n# <[CURSOR_POSITION]\n```\n"}, UnsafePathError, None),
        ({"history": HISTORY.replace("-def load(path):", "-def load(nothing):")}, EditHistoryError, 11),
        ({"history": HISTORY.replace("--- a/util.py", "--- a/nope.py")}, EditHistoryError, 15),
    ],
)
def test_errors_name_the_file_and_line(tmp_path: Path, source, change: dict, error: type, line: int | None) -> None:
    repo, [rev] = source
    url = "https://example.com/team/proj"
    args = {"history": change.get("history", HISTORY), "cursor": change.get("cursor", CURSOR)}
    path = tmp_path / "e.md"
    example = from_markdown(example_text(url, change.get("rev", rev), **args), path)
    with cache_for(tmp_path, url, repo) as cache, pytest.raises(error) as info:
        build_scene(example, cache)
    assert info.value.path == str(path)
    if line is not None:
        assert info.value.line == line
    assert info.value.fix
