"""``await-async-call``: the user made ``f`` async; add the ``await`` that follows.

A function is made async to await something in it, most likely the call the user
just added; and ``f``'s callers that are async themselves now have to await ``f``.
Python and TypeScript only, where ``async``/``await`` read this way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ._context import Context
from ._edits import Edit, Result, focus_near
from ._functions import function_end

__all__ = ["await_async_call"]

#: ``x = call(``, ``const x: T = call(``, ``return call(``: a call whose value is used.
_ASSIGNED_CALL = re.compile(
    r"^(\s*(?:(?:const|let|var)\s+[\w$]+(?:\s*:[^=]+)?\s*=|[\w$.]+\s*=|return)\s+)(?!await\b)(?=[\w$.]+\s*\()"
)
_MADE_ASYNC = re.compile(r"\basync\s+(?:function\s*\*?\s*|def\s+)([\w$]+)")
#: The callee before a call's parenthesis, with the receivers before it (``a.b.f``).
_CALLEE_CHAIN = re.compile(r"(?:[\w$]+\s*\.\s*)*[\w$]+\s*$")


def await_async_call(ctx: Context) -> Result | None:
    """After ``f`` became ``async``: await the calls the user just added to it
    (why else make it async), and ``f``'s own calls from async functions."""
    event = ctx.last_event
    if event is None or event.path != ctx.path or ctx.lang not in ("py", "ts"):
        return None
    removed = [line for hunk in ctx.last_hunks for change in hunk.changes for line in change.removed]
    added = [line for hunk in ctx.last_hunks for change in hunk.changes for line in change.added]
    new_lines = {line.strip() for line in added}
    edits: list[Edit] = []
    for name in _became_async(removed, added):
        word = rf"(?<![\w$]){re.escape(name)}(?![\w$])"
        header = next((r for r, line in enumerate(ctx.lines) if re.search(rf"\basync\b.*{word}", line)), None)
        if header is None:
            continue
        edits.extend(_await_added_calls(ctx, header, new_lines))
        edits.extend(_await_callers(ctx, name))
    if not edits:
        return None
    return Result(tuple(edits), focus_near(edits, ctx.offset))


def _became_async(removed: Sequence[str], added: Sequence[str]) -> list[str]:
    """Functions an added line declares ``async`` that a removed line named
    without ``async``."""
    became: list[str] = []
    for line in added:
        match = _MADE_ASYNC.search(line)
        name = re.escape(match.group(1)) if match else ""
        if match and any(re.search(rf"(?<![\w$]){name}(?![\w$])", r) and "async" not in r for r in removed):
            became.append(match.group(1))
    return became


def _await_added_calls(ctx: Context, header: int, new_lines: set[str]) -> Iterator[Edit]:
    """``await`` before the used calls of the function at ``header`` that the
    user just added."""
    for row in range(header + 1, function_end(ctx.lines, header, ctx.lang) + 1):
        match = _ASSIGNED_CALL.match(ctx.lines[row])
        if match and ctx.lines[row].strip() in new_lines:
            at = ctx.offset_of(row, match.end())
            yield Edit(at, at, "await ")


def _await_callers(ctx: Context, name: str) -> Iterator[Edit]:
    """``await`` before the calls of ``name`` made from async functions, where
    there is none yet."""
    for open_at, _, _ in ctx.calls(name):
        row = ctx.row_of(open_at)
        around = ctx.function_at(row)
        chain = _CALLEE_CHAIN.search(ctx.text[ctx.starts[row] : open_at])
        if around is None or "async" not in ctx.lines[around[0]] or chain is None:
            continue
        at = ctx.starts[row] + chain.start()
        if not ctx.text[ctx.starts[row] : at].rstrip().endswith("await"):
            yield Edit(at, at, "await ")
