"""What a completion function is given: the rebuilt moment, and nothing to decide.

A :class:`PredictionRequest` carries the example, the buffers as the user left them
(path → text after the edit history), the cursor, the edit events and the recent
files. It is read-only; :meth:`PredictionRequest.excerpt` cuts the text around the
cursor as Zed does, and :meth:`PredictionRequest.worktree` checks the repository out
only when a completion function really needs files on disk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from ..example import Example, RecentFile

__all__ = ["Cursor", "EditEvent", "Excerpt", "PredictionRequest", "compute_excerpt", "hunks"]


@dataclass(frozen=True)
class Cursor:
    """A cursor: ``offset`` is a character offset; ``row`` and ``column`` are 0-based
    (the column counts characters)."""

    path: str
    offset: int
    row: int
    column: int

    @classmethod
    def at(cls, path: str, text: str, offset: int) -> Cursor:
        line_start = text.rfind("\n", 0, offset) + 1
        return cls(path, offset, text.count("\n", 0, offset), offset - line_start)


@dataclass(frozen=True)
class EditEvent:
    """One edit the user made: a unified diff of one file section of the history.

    ``predicted`` is true for an edit that was an accepted prediction (Zed's
    ``// User accepted prediction:`` marker).
    """

    path: str
    old_path: str
    diff: str
    predicted: bool = False


_HEADER_PREFIXES = ("--- ", "+++ ", "diff --git ", "index ")


def hunks(diff: str) -> str:
    """The diff without file headers (events may carry them or not); ends with a
    newline unless empty."""
    lines = diff.splitlines(keepends=True)
    index = 0
    while index < len(lines) and lines[index].startswith(_HEADER_PREFIXES):
        index += 1
    body = "".join(lines[index:])
    return body if not body or body.endswith("\n") else body + "\n"


@dataclass(frozen=True)
class Excerpt:
    """Whole lines around the cursor: the text, its first row, the cursor in it."""

    text: str
    start_row: int
    cursor_offset: int

    @property
    def end_row(self) -> int:
        return self.start_row + self.text.count("\n")


def compute_excerpt(text: str, offset: int, max_tokens: int = 8192) -> Excerpt:
    """Zed's ``compute_cursor_excerpt`` (§3.5): grow line by line, down then up.

    A line costs ``max(1, bytes // 3)`` tokens; growth stops on the first line that
    does not fit, in either direction. A line of ``n`` bytes costs at least
    ``(n - 2) / 3`` and at least 1, so it spans at most 6 characters (its newline
    included) per token: only the whole lines within ``6 * max_tokens`` characters
    of the cursor can be reached, and only they are read.
    """
    reach = 6 * max_tokens
    low = text.rfind("\n", 0, offset - reach) + 1 if offset > reach else 0
    high = text.find("\n", offset + reach)
    high = len(text) if high < 0 else high
    region = text[low:high]
    lines = region.split("\n")
    # bytes per line; a line costs max(1, bytes // 3), i.e. ``bytes // 3 or 1``
    sizes = list(map(len, lines)) if region.isascii() else [len(line.encode()) for line in lines]
    row = region.count("\n", 0, offset - low)
    start = end = row
    used = sizes[row] // 3 or 1
    down = up = True
    while down or up:
        if down:
            if end + 1 < len(lines) and used + (sizes[end + 1] // 3 or 1) <= max_tokens:
                end += 1
                used += sizes[end] // 3 or 1
            else:
                down = False
        if up:
            if start > 0 and used + (sizes[start - 1] // 3 or 1) <= max_tokens:
                start -= 1
                used += sizes[start] // 3 or 1
            else:
                up = False
    row_start = region.rfind("\n", 0, offset - low) + 1
    start_offset = row_start - len("\n".join(lines[start:row])) - (row > start)
    return Excerpt(
        "\n".join(lines[start : end + 1]),
        text.count("\n", 0, low) + start,
        offset - low - start_offset,
    )


@dataclass(frozen=True)
class PredictionRequest:
    """Everything a completion function may look at.

    ``trial`` counts from 1 (see ``--editpred-trials``).
    ``base_texts``: each buffer's text before the edit history, as the repository
    holds it (the scene's :attr:`~pytest_editpred.scene.Scene.base_texts`); a prompt
    builder reuses the syntax tree of that file version for the buffer.
    ``line_endings``: each buffer's line ending as its file is stored (``"\\r\\n"`` or
    ``"\\n"``), what Zed's buffer remembers to save the file with. Every text here
    (buffers, base texts, :meth:`file_text`, events) has ``\\n`` endings, as Zed's
    buffers do; :meth:`worktree` has the stored bytes.
    """

    example: Example
    buffers: Mapping[str, str]
    cursor: Cursor
    events: tuple[EditEvent, ...] = ()
    recently_opened_files: tuple[RecentFile, ...] = ()
    recently_viewed_files: tuple[RecentFile, ...] = ()
    trial: int = 1
    base_texts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False, compare=False)
    line_endings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False, compare=False)
    _worktree: Callable[[], Path] | None = field(default=None, repr=False, compare=False)
    _open_file: Callable[[str], tuple[str, str] | None] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.buffers, MappingProxyType):
            object.__setattr__(self, "buffers", MappingProxyType(dict(self.buffers)))

    @property
    def text(self) -> str:
        """The cursor file's text as the user left it."""
        return self.buffers[self.cursor.path]

    def excerpt(self, max_tokens: int = 8192) -> Excerpt:
        """Whole lines around the cursor, within ``max_tokens`` (bytes/3 a line)."""
        return compute_excerpt(self.text, self.cursor.offset, max_tokens)

    def file_text(self, path: str) -> str | None:
        """A file's text as the user sees it: its buffer, else the repository's file
        at the revision (with the uncommitted diff), else None. Reads one object;
        nothing is checked out."""
        if path in self.buffers:
            return self.buffers[path]
        if self._open_file is None:
            return None
        found = self._open_file(path)
        return None if found is None else found[1]

    def worktree(self) -> Path:
        """The repository checked out at the revision (with the uncommitted diff).

        Created on first use and shared read-only between examples: do not write
        into it. The buffers, not these files, hold the user's unsaved edits. Its
        files have their stored bytes, ``\\r\\n`` line endings included.
        """
        if self._worktree is None:
            raise RuntimeError("this request has no repository behind it")
        return self._worktree()
