"""How much of a model's text any output shows: bounded, and saying what it left out.

Prompts and answers come from outside (a model can answer 100 MB), and they end up in
the terminal, JUnit and the JSONL report. Each place shows at most a fixed number of
characters; the cut is marked with how much is missing, so a shortened text is never
mistaken for the whole one.

What reaches a terminal is also shown, not obeyed: :func:`escape_controls` writes
every control or invisible character of a model's text (ESC, NUL, backspace, CR,
U+2028, ...) as its Python escape, so an answer carrying ``\x1b[2J`` cannot clear or
rewrite the user's screen. The JSONL report keeps the exact text.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["SHOWN_CHARS", "RECORDED_CHARS", "clip", "clip_prompt", "escape_controls", "prompt_text"]

SHOWN_CHARS = 2_000
"""Characters of a prompt or answer shown in a failure's output (head and tail)."""

RECORDED_CHARS = 200_000
"""Characters of a prompt or answer kept in a JSONL record: every prompt Zed builds
(at most 16,384 tokens, about 50,000 characters) fits whole."""


def clip(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail around a
    line saying how many characters were left out."""
    if len(text) <= limit:
        return text
    half = limit // 2
    left_out = len(text) - 2 * half
    return f"{text[:half]}\n[... {left_out:,} characters not shown ...]\n{text[len(text) - half :]}"


def clip_prompt(prompt: Any, limit: int) -> Any:
    """A prompt as a provider built it (a string, chat messages, or named parts such
    as a FIM prefix and suffix), every string in it clipped."""
    if isinstance(prompt, str):
        return clip(prompt, limit)
    if isinstance(prompt, list):
        return [clip_prompt(part, limit) for part in prompt]
    if isinstance(prompt, dict):
        return {key: clip_prompt(value, limit) for key, value in prompt.items()}
    return prompt


def prompt_text(prompt: Any) -> str:
    """A prompt as one text for people: chat messages and named parts under headers."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        return "\n\n".join(
            f"[{part.get('role')}]\n{part.get('content')}" if isinstance(part, dict) else str(part) for part in prompt
        )
    if isinstance(prompt, dict):
        return "\n\n".join(f"[{key}]\n{value}" for key, value in prompt.items())
    return "" if prompt is None else str(prompt)


# ASCII's control characters but tab and newline: the fast path of escape_controls.
_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _escaped(character: str) -> str:
    return repr(character)[1:-1]  # '\x1b', '\r', '\x9b', '\u2028'


def escape_controls(text: str) -> str:
    """``text`` as a terminal may show it: every character Python does not count as
    printable (C0 and C1 controls, DEL, format and bidi controls, line and paragraph
    separators, spaces other than the space) written as its escape (``\x1b``,
    ``\x00``, ``\r``, ``\u2028``); tab and newline stay as they are.

    The one rule for everything printed from outside text (prompts, answers, failure
    diffs, accept lines), the same as ``editpred``'s console lines. A backslash is
    left alone: the escape is for eyes, and the JSONL report has the exact text.
    """
    if text.isascii():
        return _ASCII_CONTROLS.sub(lambda match: _escaped(match.group()), text)
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return "".join(c if c.isprintable() or c in "\n\t" else _escaped(c) for c in text)
