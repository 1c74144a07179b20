"""``pass-new-keyword``: the user added ``key=value`` to a call; add it to its siblings.

A new field passed to one constructor call is due at the other calls of the same
kind (those sharing a keyword with it), with the value adapted to each call:
``args.width`` becomes ``self.width`` where the call passes ``x=self.x``. Python
lines that grow too long are split as Black does, so the prediction matches code
formatted by it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence

from ._context import Context
from ._edits import Edit, Result, focus_near
from ._functions import lang_of
from ._syntax import indent, matching_paren, split_top

__all__ = ["pass_new_keyword"]

_LINE_LIMITS = (79, 88, 99, 100, 119, 120)
_LITERAL = re.compile(r"-?[\d.]+|\"[^\"]*\"|'[^']*'|True|False|None|true|false|nil|null")


def pass_new_keyword(ctx: Context) -> Result | None:
    """After the user adds ``key=value`` to a call of ``f``: add it to the other
    calls of ``f`` in the cursor file that share a keyword with theirs (a new
    field passed to a constructor), adapting the value; Python lines that grow too
    long are split as Black does."""
    if ctx.last_event is None:
        return None
    edits: list[Edit] = []
    for callee, key, value, model in _added_keywords(ctx):
        for open_at, close_at, _ in ctx.calls(callee):
            edit = _keyword_edit(ctx, open_at, close_at, key, value, model)
            if edit is not None:
                edits.append(edit)
    if not edits:
        return None
    return Result(tuple(edits), focus_near(edits, ctx.offset), past_closers=True)


def _added_keywords(ctx: Context) -> Iterator[tuple[str, str, str, dict[str, str]]]:
    """``(callee, key, value, the call's keywords)`` for each line of the last edit
    that added ``key=value`` to a call, and nothing else."""
    for hunk in ctx.last_hunks:
        for change in hunk.changes:
            if len(change.removed) != len(change.added):
                continue
            for old_line, new_line in zip(change.removed, change.added, strict=True):
                added = _added_keyword(old_line, new_line)
                if added is None:
                    continue
                callee, key, value = added
                model_open = new_line.rfind(callee + "(") + len(callee)
                model_close = matching_paren(new_line, model_open)
                if model_close is not None:
                    yield callee, key, value, _keywords(_arguments(new_line[model_open + 1 : model_close]))


def _added_keyword(old: str, new: str) -> tuple[str, str, str] | None:
    """``(callee, key, value)`` when ``new`` is ``old`` with ``key=value`` added to
    the arguments of a call of ``callee``."""
    head = len(posixpath.commonprefix([old, new]))
    tail = len(posixpath.commonprefix([old[head:][::-1], new[head:][::-1]]))
    if old != new[:head] + new[len(new) - tail :]:
        return None
    inserted = new[head : len(new) - tail]
    match = re.fullmatch(r",\s*([A-Za-z_]\w*)\s*=\s*([^,=]+?)\s*", inserted)
    if match is None:
        return None
    depth = 0
    for index in range(head - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(new[index], 0)
        if depth < 0:
            callee = re.search(r"([A-Za-z_]\w*)\s*$", new[:index])
            return (callee.group(1), match.group(1), match.group(2)) if callee else None
    return None


def _arguments(inner: str) -> list[str]:
    """The arguments of a call, from the text between its parentheses."""
    return [inner[a:b] for a, b in split_top(inner)]


def _keywords(args: Sequence[str]) -> dict[str, str]:
    """The ``key=value`` arguments among ``args``."""
    pairs = (re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(.+?)\s*", arg, re.DOTALL) for arg in args)
    return {m.group(1): m.group(2) for m in pairs if m}


def _keyword_edit(
    ctx: Context, open_at: int, close_at: int, key: str, value: str, model: dict[str, str]
) -> Edit | None:
    """Add ``key=value`` to a one-line call that lacks it but shares a keyword
    with the user's call ``model`` (so it is the same kind of call)."""
    inner = ctx.text[open_at + 1 : close_at]
    if "\n" in inner:
        return None
    target = _keywords(_arguments(inner))
    if key in target or not set(target) & set(model):
        return None
    row = ctx.row_of(open_at)
    new_value = _adapt_value(key, value, target, ctx.visible_names(row))
    if new_value is None:
        return None
    addition = f", {key}={new_value}" if inner.strip() else f"{key}={new_value}"
    line = ctx.lines[row]
    open_col, close_col = open_at - ctx.starts[row], close_at - ctx.starts[row]
    new_line = line[:close_col] + addition + line[close_col:]
    limit = _line_limit(ctx)
    if ctx.lang == "py" and limit is not None and len(new_line) > limit:
        wrapped = _wrap_call(new_line, open_col, close_col + len(addition), limit)
        return Edit(ctx.starts[row], ctx.starts[row] + len(line), wrapped)
    return Edit(close_at, close_at, addition)


def _adapt_value(key: str, value: str, target: dict[str, str], visible: set[str]) -> str | None:
    """The value to pass for ``key`` at a call with keywords ``target``, from the
    ``value`` the user passed: ``R.key`` becomes ``S.key`` where the call passes
    ``x=S.x``; a same-named variable stays if visible; a literal is copied."""
    if re.fullmatch(rf"[A-Za-z_]\w*\.{re.escape(key)}", value):
        receivers = {
            m.group(1) for k, v in target.items() if (m := re.fullmatch(rf"([A-Za-z_]\w*)\.{re.escape(k)}", v))
        }
        return f"{receivers.pop()}.{key}" if len(receivers) == 1 else None
    if value == key:
        return key if key in visible else None
    if _LITERAL.fullmatch(value):
        return value
    return None


def _line_limit(ctx: Context) -> int | None:
    """The line length the code seems formatted to: the smallest usual limit that
    the longest line of the buffers in this language fits."""
    longest = max(
        (
            len(line)
            for path, buffer in ctx.request.buffers.items()
            if lang_of(path) == ctx.lang
            for line in buffer.split("\n")
        ),
        default=0,
    )
    return next((limit for limit in _LINE_LIMITS if longest <= limit), None)


def _wrap_call(line: str, open_col: int, close_col: int, limit: int) -> str:
    """Black's split of a too-long one-line call: arguments on their own line,
    or one per line with a trailing comma when they do not fit either."""
    pad = " " * indent(line)
    args = [arg.strip() for arg in _arguments(line[open_col + 1 : close_col])]
    inner = pad + "    " + ", ".join(args)
    if len(inner) > limit:
        inner = "\n".join(f"{pad}    {arg}," for arg in args)
    return f"{line[: open_col + 1]}\n{inner}\n{pad}{line[close_col:]}"
