"""``carry-rename``: the user renamed ``old`` to ``new``; rename what still says ``old``.

A rename is rarely one edit: the other occurrences follow, in the enclosing function
for a parameter or a local, in the whole file for a definition. A swapped word counts
as a rename only with evidence (swapped at a definition, or at two places), so one
changed argument is not taken for one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...scene import EditEvent
from ._context import Context
from ._edits import Edit, Result, focus_near
from ._functions import header_name, lang_of
from ._hunks import read_hunks
from ._syntax import IDENT, locate, substitution

__all__ = ["carry_rename"]

#: ``(old, new, the new line)`` of a line that swapped one identifier for another.
_Rename = tuple[str, str, str]


def carry_rename(ctx: Context) -> Result | None:
    """Rename what the user's last edit renamed, where it still has the old name.

    A swapped word counts as a rename when the user swapped it at a definition
    (a parameter, a function, a field...) or at two places or more; one changed
    argument is just a changed argument.
    """
    event = ctx.last_event
    if event is None:
        return None
    renames: dict[tuple[str, str], list[str]] = {}
    for old, new, line in _renames(event):
        renames.setdefault((old, new), []).append(line)
    history = [(o, n, line, lang_of(e.path)) for e in ctx.request.events for o, n, line in _renames(e)]
    edits: list[Edit] = []
    for (old, new), sites in renames.items():
        if any(o == old and n != new for o, n in renames):
            continue  # ambiguous
        evidence = [(line, lang) for o, n, line, lang in history if (o, n) == (old, new)]
        if len(evidence) < 2 and not any(_defines(line, new, lang) for line, lang in evidence):
            continue
        edits.extend(_rename_in(ctx, old, new, _rename_scope(ctx, event, new, sites)))
    if not edits:
        return None
    return Result(tuple(edits), focus_near(edits, ctx.offset))


def _renames(event: EditEvent) -> list[_Rename]:
    """``(old, new, new line)`` for each line of the event that only swapped one
    identifier for another."""
    found: list[_Rename] = []
    for hunk in read_hunks(event.diff):
        for change in hunk.changes:
            if len(change.removed) != len(change.added):
                continue
            for old_line, new_line in zip(change.removed, change.added, strict=True):
                swap = substitution(old_line, new_line)
                if swap is None or len(swap[0]) != 1:
                    continue
                ((old, new),) = swap[0].items()
                if IDENT.fullmatch(old) and IDENT.fullmatch(new):
                    found.append((old, new, new_line))
    return found


def _rename_scope(ctx: Context, event: EditEvent, new: str, sites: Sequence[str]) -> tuple[int, int]:
    """Rows to rename in: the function(s) where a parameter or local was renamed;
    the whole file for anything else (a definition, a name the function only
    uses, a rename made in another file)."""
    whole = (0, len(ctx.lines) - 1)
    if event.path != ctx.path:
        return whole
    rows: list[int] = []
    for site in sites:
        row = locate(ctx.lines, [site], ctx.row)
        if row is None:
            return whole
        around = ctx.function_at(row)
        if around is None or new not in ctx.visible_names(around[1]):
            return whole  # a definition, or a name the function only uses
        rows.extend(around)
    return (min(rows), max(rows)) if rows else whole


def _rename_in(ctx: Context, old: str, new: str, scope: tuple[int, int]) -> list[Edit]:
    """``old`` renamed to ``new`` wherever it is a whole word within the rows ``scope``."""
    first, last = scope
    begin, end = ctx.offset_of(first), ctx.offset_of(last, len(ctx.lines[last]))
    return [
        Edit(begin + match.start(), begin + match.end(), new)
        for match in re.finditer(rf"(?<![\w$]){re.escape(old)}(?![\w$])", ctx.text[begin:end])
    ]


def _defines(line: str, name: str, lang: str) -> bool:
    """Whether ``line`` looks like it defines ``name`` (function, parameter,
    variable, field, variant) rather than only using it."""
    word = re.escape(name)
    if header_name(line, lang) is not None:
        return header_name(line, lang) == name or bool(re.search(rf"\(.*(?<![\w$.]){word}\b", line))
    return bool(
        re.search(rf"\b(?:let|const|var|def|fn|func|class|struct|enum|type|interface|trait|mut)\s+{word}\b", line)
        or re.search(rf"(?<![\w$.]){word}\s*(?::(?!:)|=(?![=>])|:=)", line)
        or re.match(rf"\s*(?:pub\s+)?{word}\s*(?:[({{,]|$)", line)
    )
