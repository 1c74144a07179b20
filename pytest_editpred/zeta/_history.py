"""§4.1: one edit event (``write_event``) and the budgeted edit-history section.

Kept apart from the prompt assembly because every family (and the teachers) shares
it with only the marker and the name changing, and its budget rule (stop at the
first event that does not fit, header counted) is easy to get subtly wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._text import nbytes
from ._input import Event, estimate_tokens

__all__ = ["path_components", "render_path", "write_event", "format_edit_history_within_budget"]


def path_components(path: str) -> list[str]:
    """Rust's ``Path::components()`` on a Unix path: the root as its own ``/``
    component, no empty parts, ``.`` only as the very first part of a relative path."""
    parts: list[str] = ["/"] if path.startswith("/") else []
    for index, part in enumerate(path.split("/")):
        if not part or (part == "." and (index > 0 or parts)):
            continue
        parts.append(part)
    return parts


def render_path(path: str) -> str:
    """P(path) of §4.1: ``/`` + each component, hence ``/abs/x`` -> ``///abs/x``."""
    return "".join("/" + c for c in path_components(path))


def write_event(event: Event) -> str:
    """One event as Zed writes it; the diff (hunks only) is copied verbatim."""
    head = "// User accepted prediction:\n" if event.predicted else ""
    return f"{head}--- a{render_path(event.old_path)}\n+++ b{render_path(event.path)}\n{event.diff}"


def format_edit_history_within_budget(
    events: Sequence[Event], file_marker: str, name: str, max_tokens: int, max_count: int
) -> str:
    """The history section: newest events first while they fit (the walk stops at
    the first that does not), then written oldest first under one header."""
    header = f"{file_marker}{name}\n"
    total = estimate_tokens(nbytes(header))
    if total >= max_tokens:
        return ""
    kept: list[str] = []
    for event in list(reversed(events))[: max(max_count, 0)]:
        text = write_event(event)
        cost = estimate_tokens(nbytes(text))
        if total + cost > max_tokens:
            break
        total += cost
        kept.append(text)
    if not kept:
        return ""
    return header + "".join(reversed(kept))
