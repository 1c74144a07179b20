"""``mirror-addition``: the user copied lines with a word swapped; do it elsewhere too.

A new enum variant, struct field or switch case is added by copying a neighbour
and swapping a word (``Int`` → ``Float``), and then every ``match``, literal or
``switch`` over the same words needs its copy. The additions of the last edit say
which words are swapped; the block nearest the cursor that lacks its copy gets one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ._context import Context
from ._edits import Edit, Result
from ._hunks import LineHunk
from ._syntax import IDENT, TOKEN, indent, locate, substitution

__all__ = ["mirror_addition"]

_IMPORT_LINE = re.compile(r"\s*(?:import\b|from\s+\S+\s+import\b|use\s|#include\b|package\b|mod\s)")


@dataclass(frozen=True)
class _Mirror:
    """One added run of lines, as a copy of its neighbours with words swapped."""

    swaps: dict[str, str]
    keeps_column: bool
    below: bool  # the copy went below its model


@dataclass(frozen=True)
class _Swap:
    """What the last edit's mirrors teach: the core words (swapped by the most
    additions), every swap, whether columns stay aligned, and where copies go."""

    core: frozenset[str]
    swaps: dict[str, str]
    keeps_column: bool
    below: bool


#: A block of the cursor file that lacks its copy: (first row, last row, the copy).
_Copy = tuple[int, int, list[str]]


def mirror_addition(ctx: Context) -> Result | None:
    """Repeat the user's "copy a neighbour and swap a word" addition elsewhere.

    The words swapped by the most additions of the last edit are the core (a new
    ``Float`` beside ``Int``); every block of the cursor file that mentions a core
    word gets its swapped copy, unless that copy already exists; the block nearest
    the cursor is the one predicted.
    """
    event = ctx.last_event
    if event is None:
        return None
    lines = ctx.event_lines(event)
    swap = _learned([m for hunk in ctx.last_hunks for m in _mirrors(lines, hunk)])
    if swap is None:
        return None
    nearest = _nearest_copy(ctx, swap)
    if nearest is None:
        return None
    row, end, copy = nearest
    if swap.below:
        at = ctx.offset_of(end, len(ctx.lines[end]))
        return Result((Edit(at, at, "\n" + "\n".join(copy)),), 0)
    at = ctx.offset_of(row)
    return Result((Edit(at, at, "\n".join(copy) + "\n"),), None)


def _learned(mirrors: Sequence[_Mirror]) -> _Swap | None:
    """The swap the mirrors agree on; None without a swapped identifier."""
    counts = Counter(key for mirror in mirrors for key in mirror.swaps if len(key) > 1 and IDENT.fullmatch(key))
    if not counts:
        return None
    top = max(counts.values())
    swaps: dict[str, str] = {}
    for mirror in mirrors:
        for key, value in mirror.swaps.items():
            swaps.setdefault(key, value)
    return _Swap(
        core=frozenset(key for key, count in counts.items() if count == top),
        swaps=swaps,
        keeps_column=any(m.keeps_column for m in mirrors),
        below=Counter(m.below for m in mirrors).most_common(1)[0][0],
    )


def _nearest_copy(ctx: Context, swap: _Swap) -> _Copy | None:
    """The block nearest the cursor that mentions a core word and whose swapped
    copy is not in the file yet (spacing aside)."""
    existing = _normalized(ctx.lines)
    best: tuple[int, _Copy] | None = None
    covered = -1
    for row, line in enumerate(ctx.lines):
        if row <= covered or not swap.core & set(IDENT.findall(line)) or _IMPORT_LINE.match(line):
            continue
        end = _block_at(ctx.lines, row)
        if end is None:
            continue
        covered = end
        block = ctx.lines[row : end + 1]
        copy = [_swap_line(b, swap.swaps, swap.keeps_column) for b in block]
        wanted = _normalized(copy)
        if copy == block or any(existing[r : r + len(wanted)] == wanted for r in range(len(existing))):
            continue
        distance = 0 if row <= ctx.row <= end else min(abs(ctx.row - row), abs(ctx.row - end))
        if best is None or distance < best[0]:
            best = (distance, (row, end, copy))
    return best[1] if best is not None else None


def _mirrors(lines: Sequence[str], hunk: LineHunk) -> Iterator[_Mirror]:
    """Added runs of the hunk that copy the same number of lines right above (or
    below) them with words swapped. ``lines`` is the edited file, where the hunk is
    looked for to see past its context; else the hunk alone is read."""
    base = locate(lines, hunk.new_lines, hunk.new_start - 1)
    view = list(lines) if base is not None else list(hunk.new_lines)
    offset = base if base is not None else 0
    for change in hunk.changes:
        size = len(change.added)
        if change.removed or not any(line.strip() for line in change.added):
            continue
        if any(_IMPORT_LINE.match(line) for line in change.added):
            continue  # a new import line says nothing about the rest of the code
        for start in _slides(view, offset + change.at, size):
            mirror = _mirror_at(view, start, size)
            if mirror is not None:
                yield mirror
                break


def _slides(view: Sequence[str], first: int, size: int) -> list[int]:
    """Where an added run of ``size`` lines at ``first`` could equally be: a diff
    may show ``}`` + ``if ...`` added for an added ``if ...`` + ``}``."""
    starts = [first]
    up = first
    while up > 0 and view[up - 1] == view[up + size - 1]:
        up -= 1
        starts.append(up)
    down = first
    while down + size < len(view) and view[down + size] == view[down]:
        down += 1
        starts.append(down)
    return starts


def _mirror_at(view: Sequence[str], start: int, size: int) -> _Mirror | None:
    """The run at ``start`` as a swapped copy of the lines above it, or below."""
    block = view[start : start + size]
    for below, model in ((True, view[max(0, start - size) : start]), (False, view[start + size : start + 2 * size])):
        if len(model) != size:
            continue
        pairs = [substitution(m, b) for m, b in zip(model, block, strict=False)]
        if not any(pairs) or any(p is None and m != b for p, m, b in zip(pairs, model, block, strict=False)):
            continue
        swaps: dict[str, str] = {}
        for pair in filter(None, pairs):
            for key, value in pair[0].items():
                if swaps.setdefault(key, value) != value:
                    return None
        return _Mirror(swaps, any(pair[1] for pair in filter(None, pairs)), below)
    return None


def _swap_line(line: str, swaps: dict[str, str], keeps_column: bool) -> str:
    """``line`` with words swapped; with ``keeps_column``, spacing after a swap is
    resized so the next token stays in its column (at least one space)."""
    out: list[str] = []
    column = 0
    shifted = False
    tokens = TOKEN.findall(line)
    for index, token in enumerate(tokens):
        if token in swaps:
            out.append(swaps[token])
            shifted = True
        elif token.isspace() and keeps_column and shifted and 0 < index < len(tokens) - 1:
            width = column + len(token) - sum(map(len, out))
            out.append(" " * max(1, width) if "\t" not in token else token)
            shifted = False
        else:
            out.append(token)
        column += len(token)
    return "".join(out)


def _block_at(lines: Sequence[str], row: int, limit: int = 16) -> int | None:
    """The last row of the block starting at ``row`` (its more-indented body and
    the bracket that closes it); None when longer than ``limit`` lines."""
    base = indent(lines[row])
    opens = lines[row].rstrip()[-1:] in "{[(:"
    end = row
    for index in range(row + 1, len(lines)):
        line = lines[index]
        if index - row >= limit:
            return None
        if line.strip() and indent(line) > base:
            end = index
            continue
        if opens and line.strip() and indent(line) == base and line.lstrip()[:1] in "}])":
            end = index
        break
    return end


def _normalized(lines: Sequence[str]) -> list[str]:
    """Lines with their spacing collapsed, to compare code as a formatter would."""
    return [" ".join(line.split()) for line in lines]
