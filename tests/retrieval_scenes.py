"""Scenes for the retrieval tests, built the way the plugin builds them: a real git
repository in a temporary directory, a markdown example naming it by URL, the URL
mapped to the repository, and :func:`build_scene`."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gitrepos import Files, make_repo

from pytest_editpred import from_markdown
from pytest_editpred.example import related_files_to_json
from pytest_editpred.scene import RepositoryCache, Scene, build_scene

__all__ = ["as_json", "scene_of"]


def _fence(info: str, body: str) -> str:
    return f"```{info}\n{body}{'' if body.endswith(chr(10)) else chr(10)}```\n"


@contextlib.contextmanager
def scene_of(
    tmp_path: Path,
    name: str,
    files: Files,
    *,
    cursor_path: str,
    cursor: str,
    commits: Sequence[Files] = (),
    history: str = "",
    expected: Sequence[str] = (),
    uncommitted: str = "",
) -> Iterator[Scene]:
    """The scene of an example on repository ``name`` (URL
    ``https://github.com/acme/<name>``) at its last commit; ``cursor`` is the cursor
    excerpt with ``<|user_cursor|>`` in it."""
    repo, shas = make_repo(tmp_path / "src", files, commits, name=name)
    url = f"https://github.com/acme/{name}"
    text = f'+++\nrepository_url = "{url}"\nrevision = "{shas[-1]}"\n+++\n\n'
    if uncommitted:
        text += "## Uncommitted Diff\n\n" + _fence("diff", uncommitted) + "\n"
    if history:
        text += "## Edit History\n\n" + _fence("diff", history) + "\n"
    text += "## Cursor Position\n\n" + _fence(cursor_path, cursor) + "\n"
    for patch in expected:
        text += "## Expected Patch\n\n" + _fence("diff", patch) + "\n"
    example = from_markdown(text, tmp_path / "example.md")
    with RepositoryCache(tmp_path / "cache", {url: repo}) as cache:
        yield build_scene(example, cache)


def as_json(files: Any) -> Any:
    """Related files as ``ep`` writes them, read back (what a JSON file compares)."""
    return json.loads(json.dumps(related_files_to_json(files)))
