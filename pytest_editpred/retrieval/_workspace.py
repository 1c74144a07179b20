"""The buffers the editable collectors read, and the ranges they add (§2.1).

A :class:`Workspace` is one retrieval's view of the scene: a file is opened once, as
Zed's buffer store would (the scene's buffer when the edit history touched it, else
the file of the revision with the uncommitted diff), and every collector adds
:class:`~._ranges.Range` s to that buffer's list. :meth:`Workspace.related_files`
turns the lists into related files, in the editable order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._exceptions import SceneError
from ..zeta import RelatedExcerpt, RelatedFile
from ._buffer import Buffer, Point
from ._paths import path_key
from ._ranges import Range, split_overlapping_ranges

if TYPE_CHECKING:
    from ..scene import Scene

__all__ = ["Workspace"]


class Workspace:
    """``root``: the worktree's root name, the first component of every output path.
    ``untitled``: buffers the edit history created, which have no file in Zed and
    so yield no related file (their ranges still take order numbers)."""

    def __init__(self, scene: Scene, root: str, untitled: Iterable[str] = ()) -> None:
        self.scene = scene
        self.root = root
        self.untitled = frozenset(untitled)
        self._buffers: dict[str, Buffer | None] = {}
        self.ranges: dict[str, list[Range]] = {}

    def buffer(self, path: str) -> Buffer | None:
        """The buffer of a worktree-relative path, opened on first use; None when the
        file cannot be opened (missing, deleted by the history, not UTF-8, a name git
        quoted)."""
        if path not in self._buffers:
            text = self.scene.buffers.get(path)
            if text is None:
                try:
                    found = self.scene.open_file(path)
                except SceneError:  # not UTF-8, or a path git quoted: Zed cannot open it either
                    found = None
                text = None if found is None else found[1]
            self._buffers[path] = None if text is None else Buffer(text)
        return self._buffers[path]

    def next_order(self) -> int:
        """The largest order of any range so far, plus 1 (0 when there is none)."""
        return max((r.order for ranges in self.ranges.values() for r in ranges), default=-1) + 1

    def add(self, path: str, start: Point, end: Point, order: int, source: str) -> None:
        self.ranges.setdefault(path, []).append(Range(start, end, order, source))

    def add_whole(self, path: str, order: int, source: str) -> None:
        buffer = self.buffer(path)
        if buffer is not None:
            self.add(path, (0, 0), buffer.last_point, order, source)

    def related_files(self) -> list[RelatedFile]:
        """Zed's ``related_file_for_ranges`` per buffer, then the editable file order:
        by the smallest excerpt order, a file without excerpts last (by path among
        themselves, where Zed's order is a hash map's)."""
        files: list[tuple[float, tuple[bytes, ...], RelatedFile]] = []
        for path, ranges in self.ranges.items():
            buffer = self.buffer(path)
            if buffer is None or path in self.untitled:
                continue
            kept = [r for r in ranges if r.start < r.end]
            excerpts = tuple(
                RelatedExcerpt(r.start[0], r.end[0], buffer.slice(r.start, r.end), r.order, r.source)
                for r in split_overlapping_ranges(kept)
            )
            file = RelatedFile(f"{self.root}/{path}", buffer.max_row, excerpts, False)
            best = min((e.order for e in excerpts), default=float("inf"))
            files.append((best, path_key(path) if not excerpts else (), file))
        files.sort(key=lambda f: (f[0], f[1]))
        return [file for _, _, file in files]
