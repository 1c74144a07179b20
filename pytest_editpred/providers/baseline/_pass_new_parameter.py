"""``pass-new-parameter``: the user added a parameter to ``f``; pass it where ``f`` is called.

A new parameter leaves every call of ``f`` one argument short, and a parameter
often exists to be handed on: inside ``f``, calls of functions that take a
parameter of that name get it too. The value passed is a variable of that name in
scope, or the same field of the object the other arguments come from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ._context import Context
from ._edits import Edit, Result, focus_near
from ._functions import NOT_FUNCTIONS, Signature, function_end, header_name, lang_of, parse_signature, signature_at
from ._syntax import matching_paren, split_top

__all__ = ["pass_new_parameter"]


def pass_new_parameter(ctx: Context) -> Result | None:
    """After a parameter is added to ``f``: pass it at ``f``'s call sites in the
    cursor file, and, inside ``f``, to calls of functions that take a parameter of
    the same name but are not given it yet."""
    if ctx.last_event is None or ctx.last_event.path != ctx.path:
        return None
    edits: list[Edit] = []
    for old, new in _new_parameters(ctx):
        added = [p for p in new.params if p not in old.params]
        edits.extend(_pass_at_calls(ctx, old, new, added))
        edits.extend(_forward_parameters(ctx, new, added))
    if not edits:
        return None
    return Result(tuple(edits), focus_near(edits, ctx.offset), past_closers=True)


def _new_parameters(ctx: Context) -> list[tuple[Signature, Signature]]:
    """(before, after) signatures of functions whose parameters the last edit
    extended (the old parameters kept, in order)."""
    found: list[tuple[Signature, Signature]] = []
    event = ctx.last_event
    lang = lang_of(event.path) if event else ""
    for hunk in ctx.last_hunks:
        for change in hunk.changes:
            olds = [s for s in (parse_signature(line, lang) for line in change.removed) if s]
            news = [s for s in (parse_signature(line, lang) for line in change.added) if s]
            found.extend((old, new) for old in olds for new in news if _extends(old, new))
    return found


def _extends(old: Signature, new: Signature) -> bool:
    """Whether ``new`` is ``old`` with parameters added (the old ones in order)."""
    if new.name != old.name or len(new.params) <= len(old.params):
        return False
    remaining = iter(new.params)
    return all(p in remaining for p in old.params)


def _pass_at_calls(ctx: Context, old: Signature, new: Signature, added: Sequence[str]) -> Iterator[Edit]:
    """The ``added`` parameters passed at the calls of ``new`` that pass the old ones."""
    for open_at, close_at, via in ctx.calls(new.name):
        args = _call_args(ctx, open_at, close_at)
        if args is None or len(args) != len(old.call_params(via)):
            continue
        params = new.call_params(via)
        for index, param in enumerate(params):
            value = _argument_for(ctx, param, ctx.row_of(open_at), args) if param in added else None
            position = sum(p not in added for p in params[:index])  # among the old arguments
            edit = _insert_argument(ctx, open_at, close_at, position, value) if value else None
            if edit:
                yield edit


def _forward_parameters(ctx: Context, function: Signature, params: Sequence[str]) -> list[Edit]:
    """Calls inside ``function`` that could take one of its new ``params``."""
    header = next((r for r, line in enumerate(ctx.lines) if header_name(line, ctx.lang) == function.name), None)
    if header is None:
        return []
    last = function_end(ctx.lines, header, ctx.lang)
    begin, end = ctx.offset_of(header), ctx.offset_of(last, len(ctx.lines[last]))
    edits: list[Edit] = []
    signatures: dict[str, Signature | None] = {}
    for match in re.finditer(r"(?<![\w$])([A-Za-z_]\w*)\s*\(", ctx.text[begin:end]):
        callee = match.group(1)
        if callee == function.name or callee in NOT_FUNCTIONS:
            continue
        if callee not in signatures:
            signatures[callee] = _definition(ctx, callee)
        open_at = begin + match.end() - 1
        close_at = matching_paren(ctx.text, open_at)
        signature = signatures[callee]
        args = _call_args(ctx, open_at, close_at) if close_at is not None else None
        if signature is None or close_at is None or args is None:
            continue
        taken = signature.call_params(ctx.text[begin : begin + match.start()].rstrip().endswith("."))
        edits.extend(_forwarded(ctx, open_at, close_at, args, taken, params))
    return edits


def _forwarded(
    ctx: Context, open_at: int, close_at: int, args: Sequence[str], taken: Sequence[str], params: Sequence[str]
) -> Iterator[Edit]:
    """Each of ``params`` that the call's callee takes right after the arguments it
    is given, and that no argument mentions yet, appended to the call."""
    for param in params:
        passed = any(re.search(rf"(?<![\w$]){re.escape(param)}(?![\w$])", a) for a in args)
        if param in taken and taken.index(param) == len(args) and not passed:
            edit = _insert_argument(ctx, open_at, close_at, len(args), param)
            if edit:
                yield edit


def _definition(ctx: Context, name: str) -> Signature | None:
    """The signature of ``name`` as defined in a buffer (the cursor file first)."""
    for path, buffer in sorted(ctx.request.buffers.items(), key=lambda item: item[0] != ctx.path):
        lines = buffer.split("\n")
        lang = lang_of(path)
        for row, line in enumerate(lines):
            if header_name(line, lang) == name:
                return signature_at(lines, row, lang)
    return None


def _call_args(ctx: Context, open_at: int, close_at: int) -> list[str] | None:
    """Positional arguments of a call, None when it has keyword arguments."""
    inner = ctx.text[open_at + 1 : close_at]
    args = [inner[a:b] for a, b in split_top(inner)]
    if any(re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", arg) for arg in args):
        return None
    return args


def _argument_for(ctx: Context, param: str, row: int, args: Sequence[str]) -> str | None:
    """What to pass for ``param`` at a call on ``row``: a variable of that name in
    scope, else the same field of the object the other arguments come from."""
    if param in ctx.visible_names(row):
        return param
    receivers = {m.group(1) for a in args if (m := re.fullmatch(r"\s*([A-Za-z_]\w*)\.[A-Za-z_]\w*\s*", a))}
    if len(receivers) == 1 and _is_member(param, list(ctx.request.buffers.values())):
        return f"{receivers.pop()}.{param}"
    return None


def _is_member(name: str, buffers: Sequence[str]) -> bool:
    """Whether some buffer declares or reads a field called ``name``."""
    field = re.compile(
        rf"^\s*(?:pub\s+|readonly\s+)?{re.escape(name)}\??\s*:(?!:)|\.{re.escape(name)}(?![\w$(])", re.MULTILINE
    )
    return any(field.search(buffer) for buffer in buffers)


def _insert_argument(ctx: Context, open_at: int, close_at: int, index: int, value: str) -> Edit | None:
    """Insert ``value`` as the ``index``-th argument of a one-line call."""
    inner = ctx.text[open_at + 1 : close_at]
    if "\n" in inner:
        return None
    spans = split_top(inner)
    if index >= len(spans):
        return Edit(close_at, close_at, (", " if spans else "") + value)
    arg = inner[spans[index][0] :]
    start = open_at + 1 + spans[index][0] + len(arg) - len(arg.lstrip())
    return Edit(start, start, value + ", ")
