"""What a heuristic answers, and how it becomes the predicted text and cursor.

Heuristics only propose edits to the cursor file; turning them into the new text is
done here, once, so overlapping edits and the cursor are handled the same way for
every heuristic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Edit", "Result", "apply_result", "focus_near"]

#: Closing punctuation that may follow the cursor up to the end of its line.
_CLOSERS = re.compile(r"[)\]}>\"'`,;:]*(?=\n|$)")


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` of the cursor file with ``new``."""

    start: int
    end: int
    new: str


@dataclass(frozen=True)
class Result:
    """A heuristic's answer: edits to the cursor file, and which one the cursor
    follows (its end, in the new text); ``None`` lets the verdict place it.
    ``past_closers`` moves the cursor on to the end of the line when only closing
    punctuation follows it (an added argument completes the line: the user goes on
    from its end)."""

    edits: tuple[Edit, ...]
    focus: int | None = None
    past_closers: bool = False


def apply_result(text: str, result: Result) -> tuple[str, int | None]:
    """The new text and cursor; overlapping edits keep the first one only."""
    order = sorted(range(len(result.edits)), key=lambda i: (result.edits[i].start, i))
    parts: list[str] = []
    pos = 0
    cursor = None
    for index in order:
        edit = result.edits[index]
        if edit.start < pos:
            continue
        parts.append(text[pos : edit.start])
        parts.append(edit.new)
        pos = edit.end
        if index == result.focus:
            cursor = sum(map(len, parts))
    parts.append(text[pos:])
    new_text = "".join(parts)
    if cursor is not None and result.past_closers:
        rest = _CLOSERS.match(new_text[cursor:])
        cursor += len(rest.group()) if rest else 0
    return new_text, cursor


def focus_near(edits: Sequence[Edit], offset: int) -> int | None:
    """The edit the cursor should follow: the first one ending at or after the
    user's cursor (the one they were about to make), else the last one before it."""
    if not edits:
        return None
    ahead = [i for i, e in enumerate(edits) if e.end >= offset]
    if ahead:
        return min(ahead, key=lambda i: edits[i].start)
    return max(range(len(edits)), key=lambda i: edits[i].start)
