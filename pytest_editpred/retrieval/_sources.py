"""§2.2–§2.5: the collectors that read only the buffers: the cursor's window, the
cursor file, the edit history's windows and the files it edited.

Each is ``O(1)`` ranges per entry; what they cost is opening the buffers (done once
per retrieval by the workspace) and snapping, which reads at most 6 rows each way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ._history import EditEntry
from ._workspace import Workspace

__all__ = [
    "CURSOR_CONTEXT_LINE_COUNT",
    "EDIT_HISTORY_CONTEXT_LINE_COUNT",
    "cursor_excerpt",
    "current_file",
    "edit_history",
    "edit_history_file",
]

CURSOR_CONTEXT_LINE_COUNT: Final = 20
EDIT_HISTORY_CONTEXT_LINE_COUNT: Final = 20


def cursor_excerpt(space: Workspace) -> None:
    """§2.2: the cursor's row, 20 rows each way, snapped; order 0."""
    path = space.scene.cursor.path
    buffer = space.buffer(path)
    if buffer is not None:
        point = (space.scene.cursor.row, 0)
        start, end = buffer.expanded(point, point, CURSOR_CONTEXT_LINE_COUNT)
        space.add(path, start, end, 0, "cursor_excerpt")


def current_file(space: Workspace) -> None:
    """§2.3: the whole cursor buffer; order 0."""
    space.add_whole(space.scene.cursor.path, 0, "current_file")


def edit_history(space: Workspace, entries: Sequence[EditEntry]) -> None:
    """§2.4: entry ``i``'s edited range, 20 rows each way, snapped; order ``i + 1``
    whatever came before (Zed numbers history entries on their own)."""
    for index, entry in enumerate(entries):
        buffer = space.buffer(entry.path)
        if buffer is None:
            continue
        start, end = buffer.expanded(
            buffer.point(entry.start), buffer.point(entry.end), EDIT_HISTORY_CONTEXT_LINE_COUNT
        )
        space.add(entry.path, start, end, index + 1, "edit_history")


def edit_history_file(space: Workspace, entries: Sequence[EditEntry]) -> None:
    """§2.5: each buffer the history edited, whole, in the order of first edit."""
    first = space.next_order()
    seen: list[str] = []
    for entry in entries:
        if entry.path not in seen:
            space.add_whole(entry.path, first + len(seen), "edit_history_file")
            seen.append(entry.path)
