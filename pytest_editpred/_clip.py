"""How much of a model's text any output shows: bounded, and saying what it left out.

Prompts and answers come from outside (a model can answer 100 MB), and they end up in
the terminal, JUnit and the JSONL report. Each place shows at most a fixed number of
characters; the cut is marked with how much is missing, so a shortened text is never
mistaken for the whole one.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SHOWN_CHARS", "RECORDED_CHARS", "clip", "clip_prompt", "prompt_text"]

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
