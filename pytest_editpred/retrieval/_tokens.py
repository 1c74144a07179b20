"""§2.8's tokeniser: identifiers, their ``_``/``-`` parts and camel-case parts.

A segment is a run of letters, digits, ``_`` and ``-``; it yields itself, each of
its ``_``/``-`` parts and each part's camel-case pieces, lowercased, without
duplicates within the segment, and without the ones of one byte, of more than 128
bytes, or without a letter. Segments never cross a newline, so a text's tokens are
its lines' tokens; a segment's tokens are cached, since code repeats its names.

Unicode classes are Python's, which agree with Rust's on letters and digits apart
from a few marks and symbols (§6 point 10): ``str.isalnum`` for
``char::is_alphanumeric``, ``isalpha``, ``isupper``, ``islower`` and ``isnumeric``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

__all__ = ["tokenize"]

_SEGMENT: Final = re.compile(r"[\w-]+")
_PART: Final = re.compile(r"[^_-]+")
_ASCII_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_MAX_TOKEN_BYTES: Final = 128


def _camel_parts(part: str) -> list[str]:
    if part.isascii():
        return _ASCII_CAMEL.split(part)
    pieces: list[str] = []
    start = 0
    for index in range(1, len(part)):
        previous = part[index - 1]
        if part[index].isupper() and (previous.islower() or previous.isnumeric()):
            pieces.append(part[start:index])
            start = index
    pieces.append(part[start:])
    return pieces


def _keep(token: str) -> bool:
    size = len(token) if token.isascii() else len(token.encode())
    return 1 < size <= _MAX_TOKEN_BYTES and any(char.isalpha() for char in token)


@lru_cache(maxsize=65536)
def _segment_tokens(segment: str) -> tuple[str, ...]:
    candidates = [segment]
    for part in _PART.findall(segment):
        candidates.append(part)
        candidates.extend(_camel_parts(part))
    out: dict[str, None] = {}
    for candidate in candidates:
        token = candidate.lower()
        if token not in out and _keep(token):
            out[token] = None
    return tuple(out)


def tokenize(text: str) -> list[str]:
    """Every token of ``text`` in order, with repetitions across segments."""
    tokens: list[str] = []
    for segment in _SEGMENT.findall(text):
        tokens.extend(_segment_tokens(segment))
    return tokens
