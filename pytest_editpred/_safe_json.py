"""JSON from outside, read with a bound on its nesting depth.

Why: :func:`json.loads` recurses once per ``[`` or ``{``, so a few kilobytes of
``[[[[...`` from a model server, a damaged cache file, a replay or a baseline file
raise :class:`RecursionError`, which is no :class:`ValueError`: it escapes every
``except ValueError`` and turns a malformed input into a traceback, an
INTERNALERROR, or a cache entry that errors on every run. The depth is therefore
measured *before* parsing, by a linear scan that steps over string literals (a
bracket inside a string is no nesting), so no recursion can happen at all.

:class:`JSONDepthError` subclasses :class:`json.JSONDecodeError` (so
:class:`ValueError`): every caller that already treats bad JSON as bad JSON treats
too-deep JSON the same way, with the position where the limit was passed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._limits import MAX_JSON_DEPTH

__all__ = ["JSONDepthError", "check_depth", "loads_bounded"]

# A whole string literal (escapes included), an unterminated one, or a run of
# opening or of closing brackets. Strings are matched whole so that brackets inside
# them are skipped in C; runs keep ``[[[[...`` to one step of the loop.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|"|[\[{]+|[\]}]+', re.DOTALL)


class JSONDepthError(json.JSONDecodeError):
    """The document nests ``[``/``{`` deeper than allowed."""

    def __init__(self, max_depth: int, doc: str, pos: int) -> None:
        super().__init__(f"JSON nested deeper than {max_depth} levels", doc, pos)
        self.max_depth = max_depth

    def __reduce__(self) -> tuple[Any, ...]:  # picklable for xdist, like its base
        return type(self), (self.max_depth, self.doc, self.pos)


def check_depth(text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`JSONDepthError` if ``text`` nests deeper than ``max_depth``.

    Linear in ``len(text)``; documents with fewer brackets than the limit (nearly
    all) are passed by two ``str.count`` calls without a scan.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in "[{":
            if depth + len(token) > max_depth:
                raise JSONDepthError(max_depth, text, match.start() + max_depth - depth)
            depth += len(token)
        elif first in "]}":
            depth = max(depth - len(token), 0)
        elif token == '"':  # a string that never ends: json.loads says so
            return


def loads_bounded(text: str | bytes | bytearray, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """:func:`json.loads`, refusing documents nested deeper than ``max_depth``
    (:class:`JSONDepthError`, a :class:`json.JSONDecodeError`)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode(json.detect_encoding(text), "surrogatepass")
    check_depth(text, max_depth)
    return json.loads(text)
