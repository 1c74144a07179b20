"""Reading code without parsing it: words, quotes, brackets, indentation.

The heuristics work on Python, Rust, Go and TypeScript alike (and degrade on
anything else), so they read code by its surface: identifiers, brackets outside
quoted strings, commas at the top level of an argument list, lines' indentation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

__all__ = [
    "IDENT",
    "TOKEN",
    "indent",
    "locate",
    "matching_paren",
    "split_top",
    "substitution",
    "unquoted",
]

IDENT = re.compile(r"[A-Za-z_]\w*")
#: A word, a run of whitespace or one other character: a line's tokens.
TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def locate(lines: Sequence[str], block: Sequence[str], hint: int) -> int | None:
    """The row where ``block`` appears in ``lines``, nearest to ``hint``."""
    if not block:
        return None
    found = [
        row
        for row in range(len(lines) - len(block) + 1)
        if lines[row] == block[0] and list(lines[row : row + len(block)]) == list(block)
    ]
    return min(found, key=lambda row: (abs(row - hint), row)) if found else None


def unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(offset, char)`` for each character of ``text`` from ``start`` that is not
    inside a quoted string (nor one of its quotes): brackets and commas in strings
    do not count."""
    quote, index = "", start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        else:
            yield index, char
        index += 1


def split_top(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` between commas outside brackets and quotes (a ``<`` or
    ``>`` that reads as a comparison or an arrow is no bracket)."""
    spans: list[tuple[int, int]] = []
    depth = start = 0
    for index, char in unquoted(text):
        if char in "([{<" and not (char == "<" and text[index + 1 : index + 2] in ("=", " ")):
            depth += 1
        elif char in ")]}>" and not (char == ">" and text[index - 1 : index] in ("-", "=", " ")):
            depth -= 1
        elif char == "," and depth == 0:
            spans.append((start, index))
            start = index + 1
    if text[start:].strip() or spans:
        spans.append((start, len(text)))
    return spans


def matching_paren(text: str, open_at: int) -> int | None:
    """The offset of the ``)`` closing the ``(`` at ``open_at``."""
    depth = 0
    for index, char in unquoted(text, open_at):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index if char == ")" else None
    return None


def substitution(old: str, new: str) -> tuple[dict[str, str], bool] | None:
    """Whether ``new`` is ``old`` with some words swapped (spacing may differ):
    the swap map, and whether a spacing change kept the next token's column
    (aligned code, as gofmt writes). None when the lines differ otherwise."""
    a, b = TOKEN.findall(old), TOKEN.findall(new)
    if len(a) != len(b) or not a or not _same_lead(a[0], b[0]):
        return None
    swaps: dict[str, str] = {}
    keeps_column = False
    col_a = col_b = 0
    for x, y in zip(a, b, strict=True):
        if x != y:
            if x.isspace() and y.isspace():
                keeps_column = keeps_column or col_a + len(x) == col_b + len(y)
            elif not _is_word(x) or not _is_word(y) or swaps.setdefault(x, y) != y:
                return None
        col_a += len(x)
        col_b += len(y)
    return (swaps, keeps_column) if swaps else None


def _same_lead(x: str, y: str) -> bool:
    """Whether two lines' first tokens allow a swap: the same indentation, or none."""
    return x.isspace() == y.isspace() and not (x.isspace() and x != y)


def _is_word(token: str) -> bool:
    return token[0].isalnum() or token[0] == "_"
