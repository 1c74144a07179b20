"""``complete-word``: finish the half-typed identifier left of the cursor.

The most common next edit is the end of the word being typed, and the buffers hold
the vocabulary: the names the code already uses, seen after the same receiver
(``self.ra`` → ``self.radius``) or near the cursor.
"""

from __future__ import annotations

import re

from ._context import Context
from ._edits import Edit, Result
from ._syntax import IDENT

__all__ = ["complete_word"]

_PREFIX = re.compile(r"[A-Za-z_]\w*$")
_RECEIVER = re.compile(r"([A-Za-z_]\w*)\s*(\.|::|->)\s*$")

_Receiver = tuple[str, str]
#: Where a candidate word was seen: (0 in the cursor file, else 1; its distance to
#: the cursor there, else 0; the receiver before it).
_Sighting = tuple[int, int, _Receiver | None]


def complete_word(ctx: Context) -> Result | None:
    """Finish the identifier the user is typing, from words in the buffers.

    Only when the cursor ends a word of 2+ characters that is not itself a known
    word. After ``recv.``, words seen after the same receiver win, then any member
    name; among the rest, the one used nearest the cursor (in the cursor file
    first), then the most frequent.
    """
    typed = _typed_prefix(ctx)
    if typed is None:
        return None
    prefix, start = typed
    seen = _sightings(ctx, prefix, start)
    if not seen:
        return None
    best = _best(seen, _receiver_before(ctx.text, start))
    return Result((Edit(start, ctx.offset, best),), focus=0)


def _typed_prefix(ctx: Context) -> tuple[str, int] | None:
    """The word of 2+ characters that the cursor ends (not inside a word), and its start."""
    text, pos = ctx.text, ctx.offset
    match = _PREFIX.search(text[ctx.starts[ctx.row] : pos])
    if match is None or len(match.group()) < 2 or (pos < len(text) and (text[pos].isalnum() or text[pos] == "_")):
        return None
    return match.group(), pos - len(match.group())


def _sightings(ctx: Context, prefix: str, start: int) -> dict[str, list[_Sighting]] | None:
    """Every word of the buffers that extends ``prefix``, with where it was seen;
    None when ``prefix`` is itself a word there (nothing to finish)."""
    seen: dict[str, list[_Sighting]] = {}
    for path, buffer in sorted(ctx.request.buffers.items(), key=lambda item: item[0] != ctx.path):
        here = path == ctx.path
        for word in IDENT.finditer(buffer):
            if here and word.start() == start:
                continue
            if word.group() == prefix:
                return None
            if word.group().startswith(prefix):
                rank = (0, abs(word.start() - ctx.offset)) if here else (1, 0)
                seen.setdefault(word.group(), []).append((*rank, _receiver_before(buffer, word.start())))
    return seen


def _best(seen: dict[str, list[_Sighting]], receiver: _Receiver | None) -> str:
    """After a receiver, the words seen after it, else member names; then the
    nearest, the most frequent, the first in order."""
    candidates = list(seen)
    if receiver is not None:
        same = [w for w in candidates if any(r == receiver for *_, r in seen[w])]
        member = [w for w in candidates if any(r is not None and r[1] == receiver[1] for *_, r in seen[w])]
        candidates = same or member or candidates
    return min(candidates, key=lambda w: (min(o[:2] for o in seen[w]), -len(seen[w]), w))


def _receiver_before(text: str, start: int) -> _Receiver | None:
    """``(name, operator)`` of ``name.``, ``name::`` or ``name->`` right before ``start``."""
    match = _RECEIVER.search(text[max(0, start - 80) : start])
    return (match.group(1), match.group(2)) if match else None
