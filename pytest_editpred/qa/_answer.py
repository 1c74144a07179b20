"""Reading the judge's answer (Zed's ``parse_response``; zed-qa-repair.md §2.8).

Zed reads the first fenced block, else the whole answer, as strict JSON and takes
whatever fields have the right type. The same rules here mean a cached answer gives
the same verdict in both tools: a ``"confidence": 4.0`` is no confidence, a ``300``
is 44 (a u8 cast), an answer that is no JSON at all is an error that keeps the raw
text. Nothing here raises: garbage is a verdict with ``error`` set.
"""

from __future__ import annotations

import json
from typing import Any

from .._rust_chars import rust_trim
from .._safe_json import check_depth
from .._text import rust_lines
from ._result import QaResult

__all__ = ["PARSE_ERROR", "parse_judge_answer"]

#: Zed's ``error`` when neither the block nor the whole answer is JSON.
PARSE_ERROR = "Could not parse JSON from response"
_FENCE = "```"
# serde_json refuses a document nested 128 deep (its recursion limit).
_SERDE_MAX_DEPTH = 127
_U64 = range(2**64)


def _first_block(answer: str) -> str | None:
    """The lines after the first line that starts with three backticks, up to the
    next such line (or the end); None when no line starts a fence. An indented
    fence is no fence, and the info string (``json``) does not matter."""
    lines = rust_lines(answer)
    start = next((i for i, line in enumerate(lines) if line.startswith(_FENCE)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(_FENCE)), len(lines))
    return "\n".join(lines[start + 1 : end])


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _float(text: str) -> float:
    """serde_json refuses a number too large for a double (``1e400``)."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number out of range: {text}")
    return value


def _integer(text: str) -> int | float:
    """serde_json's reading of an integer literal: ``-0`` and integers beyond 64 bits
    are floats (so no confidence), and beyond a double's range no JSON at all."""
    digits = text.lstrip("-")
    if (text.startswith("-") and digits.strip("0") == "") or len(digits) > 20:
        return _float(text)
    return int(text)


def _strict_json(text: str) -> tuple[bool, Any]:
    """``(True, value)`` if ``text`` is one JSON value as serde_json reads it, else
    ``(False, None)``: no NaN or Infinity, no number out of a double's range, no lone surrogate escapes, nothing after
    the value but whitespace, at most serde_json's nesting."""
    try:
        check_depth(text, _SERDE_MAX_DEPTH)
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_integer, parse_float=_float)
    except (ValueError, RecursionError):
        return False, None
    if _has_lone_surrogate(value):
        return False, None
    return True, value


def _has_lone_surrogate(value: Any) -> bool:
    """serde_json refuses ``"\\ud800"`` unpaired; Python's json keeps it. Iterative:
    the depth is bounded already, but a stack costs nothing."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= char <= "\udfff" for char in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def parse_judge_answer(text: str) -> QaResult:
    """The verdict in a judge's raw answer (§2.8).

    The first fenced block is tried, then the whole answer trimmed; the first that is
    strict JSON wins, whatever its type. From an object: ``reasoning`` if a string,
    ``reverts_edits`` if a boolean, ``confidence`` if an integer 0…2⁶⁴−1 (taken
    modulo 256); anything else is left absent, with no error. If neither parses, the
    verdict is an error whose reasoning is the raw answer. ``response`` is always
    the raw answer, untrimmed.
    """
    block = _first_block(text)
    parsed, value = _strict_json(block) if block is not None else (False, None)
    if not parsed:
        parsed, value = _strict_json(rust_trim(text))
    if not parsed:
        return QaResult(reasoning=text, response=text, error=PARSE_ERROR)
    if not isinstance(value, dict):
        return QaResult(response=text)
    reasoning = value.get("reasoning")
    reverts = value.get("reverts_edits")
    confidence = value.get("confidence")
    return QaResult(
        reasoning=reasoning if isinstance(reasoning, str) else None,
        reverts_edits=reverts if isinstance(reverts, bool) else None,
        confidence=confidence % 256
        if isinstance(confidence, int) and not isinstance(confidence, bool) and confidence in _U64
        else None,
        response=text,
    )
