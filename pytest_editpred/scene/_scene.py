"""The scene: the moment an example describes, rebuilt as Zed's ``load-project`` does.

The repository at the revision, the uncommitted diff applied with ``git apply``
semantics, the edit history applied to in-memory buffers (like an editor's unsaved
buffers) and the cursor found by a unique match of the excerpt (zed-format.md §2–§3).

Nothing is checked out: files are read from git objects, and the uncommitted diff is
applied to a temporary index, giving a tree to read from. A worktree on disk is made
only when a completion function asks for one.

Line endings are Zed's buffers': a file read from the tree becomes a buffer with
``\\n`` endings (:func:`~pytest_editpred._text.normalize_line_endings`), and the style
it was stored with (``\\r\\n`` or ``\\n``, Zed's ``LineEnding::detect``) is remembered in
``line_endings``, as Zed's buffer remembers it to save the file. The tree, and so
:meth:`Scene.worktree`, keeps the stored bytes.

Every path the example names (the diffs' ``---``/``+++`` paths, the cursor path, the
recently opened and viewed files, a JSON example's related files) obeys one rule, the repository's
(:func:`pytest_editpred.scene._urls.split_path`): relative, inside the repository, no
``.git`` component, no NUL, backslash or control character. It is checked before the
repository is opened, so a hostile example is an ERROR at its line without any git
work, and a file the edit history creates cannot be ``../x`` while a cursor path
could not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from .._diff import (
    AppliedSection,
    Kind,
    OpenFile,
    PlacingBudget,
    apply_sections,
    classify,
    named_paths,
    path_candidates,
    resolve_path,
    split_lines,
    undo_diff,
)
from .._exceptions import (
    CursorAmbiguousError,
    CursorNotFoundError,
    DiffError,
    EditHistoryError,
    EditPredError,
    MissingFileError,
    NoSuchPathError,
    UncommittedDiffError,
    UnsafePathError,
)
from .._text import LF, detect_line_ending, normalize_line_endings
from ..example import ACCEPTED_PREDICTION_MARKER, Example, RecentFile
from ._request import Cursor, EditEvent, PredictionRequest

if TYPE_CHECKING:
    from ._repository import Repository, RepositoryCache

__all__ = ["Scene", "build_scene", "excerpt_matches", "unified_diff"]


@dataclass(frozen=True)
class Scene:
    """An example's moment: buffers after the edit history, events, the cursor.

    ``tree`` is the commit, or the tree with the uncommitted diff applied; files not
    in ``buffers`` are read from it on demand with :meth:`open_file`. ``base_texts``:
    each buffer's text as it was read from ``tree``, before the edit history (a
    buffer the history created has none), so that work done on a file version, such
    as its syntax tree, can be reused for the edited buffer. ``line_endings``: each
    buffer's line ending as its file is stored in ``tree`` (``"\\r\\n"`` or ``"\\n"``;
    ``"\\n"``, Zed's default, for a buffer the history created); the buffers
    themselves always hold ``\\n``. ``deleted``: the files of ``tree`` the edit
    history deleted (or renamed away), which :meth:`open_file` no longer reads.
    """

    example: Example
    commit: str
    tree: str
    buffers: Mapping[str, str]
    events: tuple[EditEvent, ...]
    cursor: Cursor
    recently_opened_files: tuple[RecentFile, ...] = ()
    recently_viewed_files: tuple[RecentFile, ...] = ()
    repository: Repository | None = field(default=None, repr=False, compare=False)
    base_texts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False, compare=False)
    line_endings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False, compare=False)
    deleted: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def open_file(self, path: str) -> tuple[str, str] | None:
        """``(path, text)`` of a file at the scene's tree as a buffer holds it
        (``\\n`` line endings), or None when it is not there or the edit history
        deleted it (``deleted``)."""
        if self.repository is None or path in self.deleted:
            return None
        text = self.repository.read(self.tree, path)
        return None if text is None else (path, normalize_line_endings(text))

    def worktree(self) -> Path:
        if self.repository is None:
            raise RuntimeError("this scene has no repository")
        return self.repository.worktree(self.tree)

    def request(self, trial: int = 1) -> PredictionRequest:
        return PredictionRequest(
            example=self.example,
            buffers=self.buffers,
            cursor=self.cursor,
            events=self.events,
            recently_opened_files=self.recently_opened_files,
            recently_viewed_files=self.recently_viewed_files,
            trial=trial,
            base_texts=self.base_texts,
            line_endings=self.line_endings,
            _worktree=self.worktree if self.repository is not None else None,
            _open_file=self.open_file if self.repository is not None else None,
        )


def _located(error: EditPredError, example: Example, line: int | None) -> EditPredError:
    return error.locate(example.source.path, line if line is not None else example.source.line)


_PATH_FIX = "Name files by their path relative to the repository root, without '..' or '.git'."


def check_paths(example: Example) -> None:
    """Refuse the first path the example names that the path rule refuses: an
    :class:`UnsafePathError` at the line of the file that names it, with the rule's
    message after what named it (``edit history: unsafe path '../x': it contains '..'``)."""
    from ._urls import split_path

    source = example.source

    def check(path: str, what: str, line: int | None) -> None:
        try:
            split_path(path)
        except EditPredError as error:
            raise UnsafePathError(
                f"{what}: {error.reason}", fix=_PATH_FIX, path=source.path, line=line or source.line
            ) from None

    def diff(text: str, what: str, first: int | None) -> None:
        """The paths of a diff whose first line is the file's line ``first``."""
        for line, path in named_paths(text):
            check(path, what, first + line - 1 if first is not None else None)

    diff(example.uncommitted_diff, "uncommitted diff", source.uncommitted_diff_line)
    for line, path in named_paths(example.edit_history):  # several fences: mapped back
        check(path, "edit history", source.history_line(line))
    check(example.cursor_path, "cursor path", source.cursor_line - 1 if source.cursor_line else None)
    for entry in example.recently_opened_files:
        check(entry.path, "recently opened file", None)
    for entry in example.recently_viewed_files:
        check(entry.path, "recently viewed file", None)
    for related in example.related_files or ():
        check(related.path, "related file", None)
    lines = source.expected_patch_lines
    for index, patch in enumerate(example.expected_patches):
        diff(patch, f"expected patch {index + 1}", lines[index] if index < len(lines) else None)
    if example.rejected_patch is not None:
        diff(example.rejected_patch, "rejected patch", source.rejected_patch_line)


def _reader(repository: Repository, tree: str, read: dict[str, str], styles: dict[str, str]) -> OpenFile:
    """Files at ``tree`` as buffers hold them; every text read is kept in ``read``
    (a buffer's base text) and its stored line ending in ``styles``."""

    def open_file(path: str) -> tuple[str, str] | None:
        stored = repository.read(tree, path)
        if stored is None:
            return None
        styles[path] = detect_line_ending(stored)
        read[path] = text = normalize_line_endings(stored)
        return path, text

    return open_file


def _section_texts(history: str) -> list[str]:
    """The edit history cut into its ``--- a/`` sections (for rolling it back)."""
    chunks: list[list[str]] = []
    for line in split_lines(history):
        if classify(line).kind is Kind.OLD_PATH or not chunks:
            chunks.append([])
        chunks[-1].append(line)
    return ["".join(line + "\n" for line in chunk) for chunk in chunks]


def unified_diff(path: str, old_path: str, before: str | None, after: str | None, context: int = 3) -> str:
    """A clean unified diff of one file (``/dev/null`` for a side that does not
    exist), fast on large files with small changes (:mod:`._textdiff`)."""
    from .._textdiff import diff_texts

    return diff_texts(
        before or "",
        after or "",
        "/dev/null" if before is None else f"a/{old_path}",
        "/dev/null" if after is None else f"b/{path}",
        context,
    ).text


def _events(applied: list[AppliedSection]) -> tuple[EditEvent, ...]:
    return tuple(
        EditEvent(a.path, a.old_path, unified_diff(a.path, a.old_path, a.before, a.after), a.predicted) for a in applied
    )


def _apply_history(example: Example, buffers: dict[str, str], open_file: OpenFile) -> list[AppliedSection]:
    try:
        return list(apply_sections(example.edit_history, buffers, open_file, marker=ACCEPTED_PREDICTION_MARKER))
    except DiffError as error:
        line = example.source.history_line(error.line) if error.line else None
        raise EditHistoryError(
            f"the edit history does not apply: {error.reason}",
            path=example.source.path,
            line=line or example.source.edit_history_line or example.source.line,
        ) from error


def _rollback(example: Example, open_file: OpenFile) -> dict[str, str]:
    """Buffers before the edit history, when the uncommitted diff already holds it."""
    buffers: dict[str, str] = {}
    budget = PlacingBudget()  # one for all the chunks: 100,000 of them cost as one diff
    for chunk in reversed(_section_texts(example.edit_history)):
        try:
            list(apply_sections(undo_diff(chunk), buffers, open_file, budget=budget))
        except DiffError as error:
            raise EditHistoryError(
                "rolling the edit history back out of the uncommitted diff failed: " + error.reason,
                fix="With uncommitted_diff_requires_edit_history_rollback, the uncommitted diff "
                "must already contain every edit of the history.",
                path=example.source.path,
                line=example.source.edit_history_line,
            ) from error
    return buffers


def excerpt_matches(text: str, excerpt: str) -> list[int]:
    """Where the cursor excerpt is found in a buffer, as Zed's ``match_indices``
    finds it: ``[]``, ``[first]`` when it occurs once, ``[first, second]`` when more
    (``second`` is -1 for an empty excerpt, which matches anywhere in a text)."""
    first = text.find(excerpt)
    if first == -1:
        return []
    second = text.find(excerpt, first + max(len(excerpt), 1))
    if second != -1 or (not excerpt and text):
        return [first, second]
    return [first]


def _find_cursor(example: Example, buffers: dict[str, str], open_file: OpenFile, where: str) -> Cursor:
    excerpt, offset = example.cursor_excerpt()
    line = example.source.cursor_line
    try:
        path, opened = resolve_path(example.cursor_path, buffers, open_file)
    except NoSuchPathError:
        raise MissingFileError(
            f"failed to find cursor path {example.cursor_path} {where}",
            path=example.source.path,
            line=line - 1 if line else None,
        ) from None
    if opened is not None:
        buffers[path] = opened
    text = buffers[path]
    found = excerpt_matches(text, excerpt)
    if not found:
        raise CursorNotFoundError(
            f"the cursor excerpt does not occur in {path} {where} (after the edit history)",
            path=example.source.path,
            line=line,
        )
    first = found[0]
    if len(found) > 1:
        second = found[1]
        rows = [text.count("\n", 0, first) + 1] + ([text.count("\n", 0, second) + 1] if second != -1 else [])
        raise CursorAmbiguousError(
            f"the cursor excerpt occurs more than once in {path} (at lines "
            f"{', '.join(map(str, rows))}{', ...' if second != -1 else ''})",
            path=example.source.path,
            line=line,
        )
    return Cursor.at(path, text, first + offset)


def _recent(
    files: tuple[RecentFile, ...], buffers: Mapping[str, str], open_file: OpenFile, example: Example, where: str
) -> tuple[RecentFile, ...]:
    resolved = []
    for entry in files:
        path = next((p for p in path_candidates(entry.path) if p in buffers or open_file(p) is not None), None)
        if path is None:
            raise MissingFileError(
                f"recently opened/viewed file {entry.path} is not in the repository {where}",
                path=example.source.path,
            )
        resolved.append(RecentFile(path, entry.cursor_position))
    return tuple(resolved)


def build_scene(example: Example, cache: RepositoryCache) -> Scene:
    """Rebuild the example's moment; every problem is an :class:`ExampleError`
    (the example is wrong) or an :class:`InfrastructureError` (git or network)."""
    check_paths(example)
    try:
        repository = cache.open(example.repository_url)
        commit = repository.resolve(example.revision)
    except EditPredError as error:
        raise _located(error, example, example.source.line) from None
    where = f"at {repository.url.display} {example.revision}"
    tree = commit
    if example.uncommitted_diff:
        try:
            tree = repository.apply_diff(commit, example.uncommitted_diff)
        except UncommittedDiffError as error:
            raise _located(error, example, example.source.uncommitted_diff_line) from None
    read: dict[str, str] = {}
    styles: dict[str, str] = {}
    open_file = _reader(repository, tree, read, styles)
    try:
        if example.uncommitted_diff_requires_edit_history_rollback and example.edit_history:
            buffers = _rollback(example, open_file)
            applied = _apply_history(example, buffers, open_file)
        else:
            buffers = {}
            applied = _apply_history(example, buffers, open_file)
        cursor = _find_cursor(example, buffers, open_file, where)
        opened = _recent(example.recently_opened_files, buffers, open_file, example, where)
        viewed = _recent(example.recently_viewed_files, buffers, open_file, example, where)
    except EditPredError as error:
        raise _located(error, example, None) from None
    return Scene(
        example=example,
        commit=commit,
        tree=tree,
        buffers=MappingProxyType(buffers),
        events=_events(applied),
        cursor=cursor,
        recently_opened_files=opened,
        recently_viewed_files=viewed,
        repository=repository,
        base_texts=MappingProxyType({path: read[path] for path in buffers if path in read}),
        line_endings=MappingProxyType({path: styles.get(path, LF) for path in buffers}),
        deleted=frozenset(a.old_path for a in applied if a.after is None or a.path != a.old_path) - set(buffers),
    )
