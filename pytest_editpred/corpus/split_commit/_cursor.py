"""Where the cursor is, and the excerpt that finds it (zed-authoring-and-context.md §1.6).

When the half-typed line gave no cursor, Zed puts it at the end of the last history
edit (80%) or just above the first target edit, with a 20% chance of a small jitter.
The cursor excerpt is the lines of one hunk with the marker on the cursor's line;
the scene finds the cursor by finding that excerpt in the buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from ._patch import Hunk, parsed
from ._rules import Skip

__all__ = ["MARKER", "Cursor", "Rng", "cursor_excerpt", "sample_cursor_position"]

MARKER = "<|user_cursor|>"


@dataclass(frozen=True)
class Cursor:
    """File, 1-based line and UTF-8 byte column, as Zed's split-commit keeps them."""

    filename: str
    line: int
    column: int


class Rng(Protocol):
    """The draws split-commit makes (:class:`random.Random` has them)."""

    def randint(self, a: int, b: int) -> int: ...

    def random(self) -> float: ...

    def shuffle(self, x: list[int]) -> None: ...


def _nbytes(text: str) -> int:
    return len(text.encode())


def sample_cursor_position(source: str, target: str, rng: Rng) -> Cursor:
    """Zed's ``sample_cursor_position``: the end of the last history edit (80%) or
    just above the first target edit, then a 20% chance of a 1..5 byte jitter."""
    sources, (tgt, targets) = parsed(source)[1], parsed(target)

    def end_of_source() -> tuple[Cursor, int] | None:
        if not sources:
            return None
        last = sources[-1]
        length = _nbytes(last.text) if last.kind == "+" else 1
        return Cursor(last.filename, last.target_line, length), length

    def start_of_target() -> tuple[Cursor, int] | None:
        if not targets:
            return None
        first = targets[0]
        h = tgt.hunks[first.hunk_index]
        prev = h.lines[first.line_index - 1].text if first.line_index > 0 else ""
        length = max(_nbytes(prev), 1) - 1
        return Cursor(first.filename, max(first.target_line - 1, 1), max(length - 1, 0)), length

    order = (end_of_source, start_of_target) if rng.random() < 0.8 else (start_of_target, end_of_source)
    found = order[0]() or order[1]()
    if found is None:
        raise Skip("no-cursor-excerpt", "failed to sample cursor position")
    cursor, length = found
    if rng.random() < 0.2:
        d = rng.randint(1, 5)
        column = min(cursor.column + d, length) if rng.random() < 0.5 else max(cursor.column - d, 0)
        cursor = replace(cursor, column=column)
    return cursor


def _new_side(h: Hunk) -> tuple[list[str], int]:
    lines = [line.text for line in h.lines if line.kind in " +"]
    if lines:
        return lines, h.new_start
    return [line.text for line in h.lines if line.kind == "-"], h.old_start


def _floor_column(text: str, column: int) -> int:
    """A byte column as a character offset, floored to a character boundary."""
    data = text.encode()[: min(column, _nbytes(text))]
    return len(data.decode(errors="ignore"))


def cursor_excerpt(cursor: Cursor, source: str, target: str) -> tuple[str, bool] | None:
    """Zed's ``get_cursor_excerpt``: the lines of one hunk with the marker on the
    cursor line; ``(text, marked)``, marked False when no line is the cursor's."""
    (src, sources), (tgt, _) = parsed(source), parsed(target)
    lines: list[str] = []
    first_line = 0
    if sources and sources[-1].filename == cursor.filename and sources[-1].target_line == cursor.line:
        lines, first_line = _new_side(src.hunks[sources[-1].hunk_index])
    else:
        th = next((h for h in tgt.hunks if h.filename == cursor.filename), None)
        if th is not None:
            lines, first_line = [line.text for line in th.lines if line.kind in "- "], th.new_start
            if not lines:
                lines = [line.text for line in th.lines]
        else:
            sh = next((h for h in src.hunks if h.filename == cursor.filename), None)
            if sh is not None:
                lines, first_line = _new_side(sh)
    if not lines:
        return None
    marked = False
    out = []
    for i, text in enumerate(lines):
        if first_line + i == cursor.line:
            at = _floor_column(text, cursor.column)
            text = text[:at] + MARKER + text[at:]
            marked = True
        out.append(text)
    return "\n".join(out), marked
