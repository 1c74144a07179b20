"""§2.4: the editor's edit events, as Zed records them while ``ep`` replays the history.

The scene keeps one unified diff per file section of the edit history; Zed keeps
*events*: consecutive edits of one buffer within 8 rows of each other are one event,
an edit too big to diff is not recorded, and only the last 9 closed events and the
pending one are kept. Each event's range is an anchored range, so later edits of its
buffer move it: it is read in the buffer as it is at retrieval time.

The texts before and after each section are recovered by undoing the scene's event
diffs from the final buffers backwards (the scene may have rolled the history out of
the uncommitted diff, so the texts it read are not always the ones before the
history). A section's edit is its changed region, common prefix and suffix trimmed:
Zed applies a section as character-level pieces, and the region from the first piece
to the last is that one. ``O(s·n)`` for ``s`` sections of files of ``n`` characters,
the cost of replaying the history once more.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Final

from .._diff import apply_sections, undo_diff
from .._exceptions import DiffError
from .._text import Change, change_between, nbytes
from ..scene import EditEvent
from ._buffer import Buffer

__all__ = ["CHANGE_GROUPING_LINE_SPAN", "EDIT_HISTORY_DIFF_SIZE_LIMIT", "EditEntry", "edit_entries", "untitled_paths"]

CHANGE_GROUPING_LINE_SPAN: Final = 8
EDIT_HISTORY_DIFF_SIZE_LIMIT: Final = 6144
_MAX_CLOSED_EVENTS: Final = 9


@dataclass(frozen=True)
class EditEntry:
    """One history entry at retrieval time: its buffer's path and its edited range
    as character offsets into the buffer's final text. ``untitled``: the history
    created the file, so Zed's buffer has no path and yields no related file."""

    path: str
    start: int
    end: int
    untitled: bool = False


@dataclass(frozen=True)
class _Section:
    path: str
    old_path: str
    before: str | None
    after: str | None


def _sections(events: Sequence[EditEvent], buffers: Mapping[str, str]) -> list[_Section] | None:
    """Each event's text before and after, undoing the events from the last one."""
    state = dict(buffers)
    out: list[_Section] = []
    for event in reversed(events):
        after = state.get(event.path)
        created = event.diff.startswith("--- /dev/null")
        scratch = {} if after is None else {event.path: after}
        try:
            list(apply_sections(undo_diff(event.diff), scratch, lambda _path: None))
        except DiffError:
            return None
        before = None if created else scratch.get(event.old_path, after)
        state.pop(event.path, None)
        if before is not None:
            state[event.old_path] = before
        out.append(_Section(event.path, event.old_path, before, after))
    out.reverse()
    return out


def _rows_bytes(text: str, start: int, end: int) -> int:
    """The bytes of the diff region of ``[start, end)``: rows ``start.row − 3``
    through ``end.row + 4``, newlines included, clipped to the text."""
    buffer = Buffer(text)
    first = max(buffer.point(start)[0] - 3, 0)
    last = min(buffer.point(end)[0] + 4, buffer.max_row)
    stop = buffer.starts[last + 1] if last < buffer.max_row else len(text)
    return nbytes(text[buffer.starts[first] : stop])


def _row_distance(text: str, a: tuple[int, int], b: tuple[int, int]) -> int:
    if a[0] > b[0]:
        a, b = b, a
    if b[0] <= a[1]:
        return 0
    return text.count("\n", a[1], b[0])


def _move(offset: int, start: int, old_end: int, new_end: int, left: bool) -> int:
    """An anchor's offset after ``[start, old_end)`` became ``[start, new_end)``:
    before the edit (or at its start, biased left) it stays; after it, it shifts;
    inside the replaced text it lands after the new text."""
    if offset < start or (offset == start and left):
        return offset
    if offset > old_end:
        return offset + new_end - old_end
    return new_end


def _moved(span: tuple[int, int], change: Change) -> tuple[int, int]:
    """An anchored range after ``change``: its start biased left, its end right."""
    return (
        _move(span[0], change.start, change.before_end, change.after_end, True),
        _move(span[1], change.start, change.before_end, change.after_end, False),
    )


@dataclass
class _Event:
    """A pending or closed event: its buffer, its path when it began, the buffer's
    text before its first edit (``base``) and after its last (``text``), and its
    edits' ranges, moved by every later edit of the buffer."""

    buffer: int
    path: str
    base: str
    text: str
    ranges: list[tuple[int, int]] = field(default_factory=list)

    def total(self) -> tuple[int, int]:
        return min(s for s, _ in self.ranges), max(e for _, e in self.ranges)


def _kept_when_closed(event: _Event, path: str | None) -> bool:
    """Re-diffed over its total range when it closes: an event is dropped when its
    region is too big to diff, or when it changed nothing and did not rename."""
    change = change_between(event.base, event.text)
    if change.empty and event.path == path:
        return False
    start, end = event.total()
    return (
        _rows_bytes(event.base, change.start, change.before_end) <= EDIT_HISTORY_DIFF_SIZE_LIMIT
        and _rows_bytes(event.text, start, end) <= EDIT_HISTORY_DIFF_SIZE_LIMIT
    )


def edit_entries(events: Sequence[EditEvent], buffers: Mapping[str, str]) -> list[EditEntry]:
    """The history entries, oldest first (at most 10), whose buffer is still open."""
    sections = _sections(events, buffers)
    if not sections:
        return []
    ids: dict[str, int] = {}  # path -> buffer id (a rename keeps the buffer)
    untitled: set[int] = set()
    closed: deque[_Event] = deque(maxlen=_MAX_CLOSED_EVENTS)
    pending: _Event | None = None
    numbers = count(1)
    for section in sections:
        if section.after is None:  # a deleted file: no buffer edit, the buffer closes
            ids.pop(section.old_path, None)
            continue
        found = None if section.before is None else ids.pop(section.old_path, None)
        buffer = next(numbers) if found is None else found
        if section.before is None:
            untitled.add(buffer)
        ids[section.path] = buffer
        before, after = section.before or "", section.after
        change = change_between(before, after)
        if change.empty:
            continue
        new = (change.start, change.after_end)
        too_big = (
            _rows_bytes(before, change.start, change.before_end) > EDIT_HISTORY_DIFF_SIZE_LIMIT
            or _rows_bytes(after, *new) > EDIT_HISTORY_DIFF_SIZE_LIMIT
        )
        joins = (
            not too_big
            and pending is not None
            and pending.buffer == buffer
            and _row_distance(after, _moved(pending.ranges[-1], change), new) <= CHANGE_GROUPING_LINE_SPAN
        )
        if not joins and pending is not None:
            ending = pending
            if _kept_when_closed(ending, next((p for p, b in ids.items() if b == ending.buffer), None)):
                closed.append(ending)
            pending = None
        for event in [*closed, *([pending] if pending else [])]:
            if event.buffer == buffer:
                event.ranges = [_moved(span, change) for span in event.ranges]
        if too_big:
            continue
        if pending is not None:  # it joins
            pending.ranges.append(new)
            pending.text = after
        else:
            pending = _Event(buffer, section.path, before, after, [new])
    entries = [*closed, *([pending] if pending else [])]
    open_paths = {b: p for p, b in ids.items()}
    return [
        EditEntry(open_paths[e.buffer], *e.total(), untitled=e.buffer in untitled)
        for e in entries
        if e.buffer in open_paths
    ]


def untitled_paths(events: Sequence[EditEvent], buffers: Mapping[str, str]) -> frozenset[str]:
    """The open buffers the history created (renames followed): in Zed they have no
    file, so they yield no related file and are no worktree entry."""
    created: set[str] = set()
    for event in events:
        if event.diff.startswith("--- /dev/null"):
            created.add(event.path)
        elif event.old_path in created:
            created.discard(event.old_path)
            created.add(event.path)
    return frozenset(created & set(buffers))
