"""The user's edit history as prompts show it.

Two spellings exist and models are trained on exactly one of them, so both are kept
byte-for-byte: Zeta 1 writes ``User edited "path":`` followed by a fenced diff of
the hunks; zeta2 (and our chat prompt) writes a git-style section with
``--- a/old_path`` / ``+++ b/path`` headers (Zed's ``write_event``), preceded by
``// User accepted prediction:`` when the edit was an accepted prediction.

Histories are trimmed oldest-first to a token budget (bytes/3, as Zed estimates), so
a long session never crowds the cursor excerpt out of the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from .._example import ACCEPTED_PREDICTION_MARKER
from .._request import EditEvent

__all__ = ["HISTORY_TOKENS", "hunks", "zeta1_event", "git_event", "zeta1_history", "git_history"]

HISTORY_TOKENS = 2048

_HEADER_PREFIXES = ("--- ", "+++ ", "diff --git ", "index ")


def hunks(diff: str) -> str:
    """The diff without file headers (events may carry them or not); ends with a
    newline unless empty."""
    lines = diff.splitlines(keepends=True)
    index = 0
    while index < len(lines) and lines[index].startswith(_HEADER_PREFIXES):
        index += 1
    body = "".join(lines[index:])
    return body if not body or body.endswith("\n") else body + "\n"


def _quoted(path: str) -> str:
    """A path as Rust's ``{:?}`` prints it (Zeta 1 was trained on that)."""
    return json.dumps(path, ensure_ascii=False)


def zeta1_event(event: EditEvent) -> str:
    """``User edited "path":`` and a fenced diff, no trailing newline."""
    text = ""
    if event.old_path and event.old_path != event.path:
        text += f"User renamed {_quoted(event.old_path)} to {_quoted(event.path)}\n\n"
    body = hunks(event.diff)
    if body:
        text += f"User edited {_quoted(event.path)}:\n```diff\n{body}```"
    return text.rstrip("\n")


def git_event(event: EditEvent) -> str:
    """Zed's ``write_event``: optional accepted marker, git headers, hunks."""
    marker = f"{ACCEPTED_PREDICTION_MARKER}\n" if event.predicted else ""
    old_path = event.old_path or event.path
    return f"{marker}--- a/{old_path.lstrip('/')}\n+++ b/{event.path.lstrip('/')}\n{hunks(event.diff)}"


def _budgeted(events: Sequence[EditEvent], render: Callable[[EditEvent], str], budget: int) -> list[str]:
    """Rendered events, newest kept first, oldest dropped when over ``budget``."""
    kept: list[str] = []
    for event in reversed(events):
        text = render(event)
        if not text:
            continue
        cost = max(1, len(text.encode()) // 3)
        if cost > budget:
            break
        budget -= cost
        kept.append(text)
    kept.reverse()
    return kept


def zeta1_history(events: Sequence[EditEvent], budget: int = HISTORY_TOKENS) -> str:
    """Zeta 1's ``### User Edits:`` body: events separated by a blank line."""
    return "\n\n".join(_budgeted(events, zeta1_event, budget))


def git_history(events: Sequence[EditEvent], budget: int = HISTORY_TOKENS) -> str:
    """Git-style sections, oldest first, each ending with a newline."""
    return "".join(_budgeted(events, git_event, budget))
