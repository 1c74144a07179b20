"""The request as the heuristics see it, with the views they share computed once.

Every heuristic looks at the cursor file's lines, the user's last edit and the
functions around rows; computing them once per request keeps the seven cheap.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property

from ...scene import EditEvent, PredictionRequest
from ._functions import enclosing_function, header_name, lang_of, signature_at
from ._hunks import LineHunk, read_hunks
from ._syntax import matching_paren

__all__ = ["Context"]

#: A variable the code binds: ``let x``, ``const x``, ``for x``, ``x =``, ``x :=``.
_ASSIGNMENT = re.compile(
    r"(?:\b(?:const|let|var|for)\s+(?:mut\s+)?([A-Za-z_$][\w$]*))|^\s*([A-Za-z_]\w*)\s*(?::=|=(?!=))"
)


class Context:
    """The request, the cursor file as text and lines, and views on both."""

    def __init__(self, request: PredictionRequest) -> None:
        self.request = request
        self.path = request.cursor.path
        self.text = request.text
        self.offset = request.cursor.offset
        self.row = request.cursor.row
        self.lang = lang_of(self.path)
        self.lines = self.text.split("\n")
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    @property
    def last_event(self) -> EditEvent | None:
        return self.request.events[-1] if self.request.events else None

    @cached_property
    def last_hunks(self) -> tuple[LineHunk, ...]:
        event = self.last_event
        return read_hunks(event.diff) if event is not None else ()

    def event_lines(self, event: EditEvent) -> list[str]:
        """The lines of the event's file as the user left them."""
        return self.request.buffers.get(event.path, "").split("\n")

    def offset_of(self, row: int, column: int = 0) -> int:
        return self.starts[row] + column

    def row_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset)

    def function_at(self, row: int) -> tuple[int, int] | None:
        return enclosing_function(self.lines, row, self.lang)

    def visible_names(self, row: int) -> set[str]:
        """Parameters of the function around ``row`` and names assigned in it above."""
        around = self.function_at(row)
        if around is None:
            return set()
        signature = signature_at(self.lines, around[0], self.lang)
        names = set(signature.params) if signature else set()
        for line in self.lines[around[0] : row]:
            for match in _ASSIGNMENT.finditer(line):
                names.add(match.group(1) or match.group(2))
        return names

    def calls(self, name: str) -> Iterator[tuple[int, int, bool]]:
        """``(open paren, close paren, via receiver)`` of the calls of ``name`` in
        the cursor file, definitions excluded."""
        for match in re.finditer(rf"(?<![\w$]){re.escape(name)}\s*\(", self.text):
            row = self.row_of(match.start())
            if header_name(self.lines[row], self.lang) == name:
                continue
            open_at = match.end() - 1
            close_at = matching_paren(self.text, open_at)
            if close_at is not None:
                before = self.text[self.starts[row] : match.start()].rstrip()
                yield open_at, close_at, before.endswith((".", "::", "->"))
