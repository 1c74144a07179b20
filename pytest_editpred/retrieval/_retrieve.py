"""§0's ``run_context_retrieval`` for one scene: the selected sources, in Zed's order.

The ``lsp`` source runs first (it is handed in: the language-server layer lives
apart); then, if any other source is selected, the editable collectors run in their
fixed order (§2.1's table) over one workspace, and their files are merged into the
lsp list (§3). An lsp-only run returns the lsp list untouched, as Zed does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from ..metrics import parse_context_types
from ..zeta import RelatedFile
from ._bm25 import bm25
from ._git_log import git_log
from ._history import edit_entries, untitled_paths
from ._merge import merge_context_files
from ._oracle import oracle_file, oracle_snippet
from ._sources import current_file, cursor_excerpt, edit_history, edit_history_file
from ._workspace import Workspace

if TYPE_CHECKING:
    from ..scene import Scene

__all__ = ["LspSource", "collect", "collect_editable_context", "retrieve", "root_name"]

LspSource = Callable[["Scene"], Sequence[RelatedFile]]
"""The ``lsp`` source: the scene's related files from definitions near the cursor."""

_HISTORY_READERS = frozenset({"edit_history", "edit_history_file", "bm25"})


def root_name(scene: Scene) -> str:
    """The worktree's root name, the first component of every related path: the
    repository's name from its URL (``git@github.com:owner/NAME.git`` → ``NAME``),
    where ``ep`` checks the worktree out."""
    if scene.repository is not None:
        return scene.repository.name
    tail = scene.example.repository_url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return tail.removesuffix(".git")


def retrieve(scene: Scene, types: str | Iterable[str] = "lsp", lsp: LspSource | None = None) -> tuple[RelatedFile, ...]:
    """``prompt_inputs.related_files`` for ``types``, ``ep context --type``'s values
    (comma-separated and/or repeated; an unknown one is a
    :class:`~pytest_editpred.ContextTypeError`). No value is Zed's default, ``lsp``.

    ``lsp`` is called when ``lsp`` is selected; without it the lsp list is empty, as
    in Zed with no language server. Since Zed's lsp step saves the cursor buffer,
    ``bm25`` then reads the cursor file as the buffer holds it.
    """
    sources = parse_context_types(types if isinstance(types, str) else (list(types) or ["lsp"]))
    lsp_files = list(lsp(scene)) if "lsp" in sources and lsp is not None else []
    if not sources - {"lsp"}:
        return tuple(lsp_files)
    return tuple(merge_context_files(lsp_files, collect_editable_context(scene, sources)))


def collect(scene: Scene, sources: Collection[str]) -> Workspace:
    """The workspace after the selected editable collectors ran, in §2.1's order."""
    editable = set(sources) - {"lsp"}
    entries = edit_entries(scene.events, scene.buffers) if editable & _HISTORY_READERS else []
    space = Workspace(scene, root_name(scene), untitled_paths(scene.events, scene.buffers))
    if "cursor_excerpt" in editable:
        cursor_excerpt(space)
    if "current_file" in editable:
        current_file(space)
    if "edit_history" in editable:
        edit_history(space, entries)
    if "edit_history_file" in editable:
        edit_history_file(space, entries)
    if "git_log" in editable:
        git_log(space)
    if "oracle_snippet" in editable:
        oracle_snippet(space)
    if "bm25" in editable:
        bm25(space, entries, "lsp" in sources)
    if "oracle_file" in editable:
        oracle_file(space)
    return space


def collect_editable_context(scene: Scene, sources: Collection[str]) -> list[RelatedFile]:
    """Zed's ``collect_editable_context``: the editable sources among ``sources``
    (source names such as ``bm25``, ``cursor_excerpt``), each buffer's ranges split
    so they do not overlap, files in editable order, **not** coalesced (``ep
    context`` coalesces them when it merges). ``lsp`` in ``sources`` only says the
    lsp step ran and saved the cursor buffer, which bm25 then reads."""
    return collect(scene, sources).related_files()
