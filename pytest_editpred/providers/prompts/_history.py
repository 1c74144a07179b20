"""The user's edit history as the project's own chat prompt shows it.

A git-style section per event with ``--- a/old_path`` / ``+++ b/path`` headers
(close to Zed's ``write_event``), preceded by ``// User accepted prediction:`` when
the edit was an accepted prediction. Zed's own renderings, byte for byte, are in
:mod:`pytest_editpred.zeta._history` and ``_zeta1``.

Histories are trimmed oldest-first to a token budget (bytes/3, as Zed estimates), so
a long session never crowds the cursor excerpt out of the prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...example import ACCEPTED_PREDICTION_MARKER
from ...scene import EditEvent, hunks

__all__ = ["HISTORY_TOKENS", "git_event", "git_history"]

HISTORY_TOKENS = 2048


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


def git_history(events: Sequence[EditEvent], budget: int = HISTORY_TOKENS) -> str:
    """Git-style sections, oldest first, each ending with a newline."""
    return "".join(_budgeted(events, git_event, budget))
