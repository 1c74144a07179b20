"""Unified diffs of whole texts: fast on big files with small changes, bounded on big
changes.

The changed region is found first (:func:`change_between`, linear at C speed); only it
and ``context`` lines around it go through :mod:`difflib`, and the line numbers are
shifted back. A changed region of more than :data:`MAX_ALIGNED_LINES` lines on either
side is not aligned line by line (difflib can take quadratic time there): it becomes
one hunk that replaces the whole region, a correct diff that is not minimal, and the
caller is told so.

Lines end at ``\\n`` only, as in git (``str.splitlines`` would also break at form
feeds and lone carriage returns, which git keeps inside a line).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from ._text import change_between

__all__ = ["MAX_ALIGNED_LINES", "TextDiff", "diff_texts"]

MAX_ALIGNED_LINES = 2000
_HUNK_HEADER = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.M)


@dataclass(frozen=True)
class TextDiff:
    """A unified diff and whether its changed region was aligned line by line;
    ``omitted`` lines of it were cut off by ``max_lines``."""

    text: str
    aligned: bool = True
    changed_lines: int = 0
    omitted: int = 0


def _lines(text: str) -> list[str]:
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    return lines


def diff_texts(
    before: str,
    after: str,
    from_file: str,
    to_file: str,
    context: int = 3,
    *,
    no_newline_marker: bool = True,
    max_aligned: int = MAX_ALIGNED_LINES,
    first_row: int = 0,
    max_lines: int | None = None,
) -> TextDiff:
    """The unified diff of ``before`` → ``after`` ("" when they are equal).

    With ``no_newline_marker`` a last line without ``\\n`` is followed by git's
    ``\\ No newline at end of file``; otherwise it just gets a ``\\n``. A changed
    region of more than ``max_aligned`` lines is one replacement hunk. ``first_row``
    is the 0-based row of the texts' first line in a larger file, for the ``@@``
    line numbers. ``max_lines``: only the first lines of an unaligned diff are made
    (a failure message shows a few hundred; the replacement hunk between two small
    changes far apart would hold every line between them), the rest counted in
    ``omitted``.
    """
    if before == after:
        return TextDiff("")
    change = change_between(before, after)
    start = before.rfind("\n", 0, change.start) + 1  # the changed line, then `context` more
    for _ in range(context):
        if start == 0:
            break
        start = before.rfind("\n", 0, start - 1) + 1
    end = change.before_end
    for _ in range(context + 1):
        if end >= len(before):
            break
        newline = before.find("\n", end)
        end = len(before) if newline < 0 else newline + 1
    skip = before.count("\n", 0, start) + first_row
    old = _lines(before[start:end])
    new = _lines(after[start : end + change.shift])
    aligned = len(old) <= max_aligned and len(new) <= max_aligned
    omitted = 0
    if aligned:
        lines = list(difflib.unified_diff(old, new, from_file, to_file, n=context))
    else:
        size, hunk = _one_hunk(old, new, from_file, to_file, *_common_ends(old, new, context))
        lines = list(islice(hunk, max_lines))
        omitted = size - len(lines)
    text = "".join(
        line if line.endswith("\n") else line + ("\n\\ No newline at end of file\n" if no_newline_marker else "\n")
        for line in lines
    )

    def shift(match: re.Match[str]) -> str:
        a, b, c, d = match.groups()
        a2 = int(a) + skip if int(a) or b != ",0" else int(a)
        c2 = int(c) + skip if int(c) or d != ",0" else int(c)
        return f"@@ -{a2}{b or ''} +{c2}{d or ''} @@"

    changed = max(len(old), len(new))
    return TextDiff(_HUNK_HEADER.sub(shift, text) if skip else text, aligned, changed, omitted)


def _common_ends(old: list[str], new: list[str], context: int) -> tuple[int, int]:
    """How many lines, up to ``context``, the two sides share at their start and end."""
    head = 0
    while head < min(len(old), len(new), context) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new), context) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail


def _one_hunk(
    old: list[str], new: list[str], from_file: str, to_file: str, head: int, tail: int
) -> tuple[int, Iterator[str]]:
    """One hunk replacing everything between the ``head`` and ``tail`` common lines:
    its number of lines, and the lines made one by one (a caller may stop early)."""
    old_count, new_count = len(old), len(new)

    def lines() -> Iterator[str]:
        yield f"--- {from_file}\n"
        yield f"+++ {to_file}\n"
        yield f"@@ -{1 if old_count else 0},{old_count} +{1 if new_count else 0},{new_count} @@\n"
        yield from (" " + line for line in old[:head])
        yield from ("-" + line for line in old[head : old_count - tail])
        yield from ("+" + line for line in new[head : new_count - tail])
        yield from (" " + line for line in old[old_count - tail :])

    # The three header lines, the head, both sides' changed lines, the tail.
    return 3 + old_count + new_count - head - tail, lines()
