"""§4.1: one edit event (``write_event``) and the budgeted edit-history section.

Kept apart from the prompt assembly because every family (and the teachers) shares
it with only the marker and the name changing, and its budget rule (stop at the
first event that does not fit, header counted) is easy to get subtly wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._input import Event, estimate_tokens, nbytes

__all__ = ["render_path", "write_event", "format_edit_history_within_budget"]


def render_path(path: str) -> str:
    """P(path) of §4.1: ``/`` + each ``Path::components()`` item (Unix rules).

    Rust's components drop empty parts and interior ``.``, keep a leading ``.``, and
    yield the root as its own ``/`` component, hence ``/abs/x`` -> ``///abs/x``.
    """
    out: list[str] = []
    if path.startswith("/"):
        out.append("/")
    parts = path.split("/")
    for i, part in enumerate(parts):
        if part == "":
            continue
        if part == "." and not (i == 0 and not path.startswith("/")):
            continue
        out.append(part)
    return "".join("/" + c for c in out)


def write_event(event: Event) -> str:
    """One event as Zed writes it; the diff (hunks only) is copied verbatim."""
    head = "// User accepted prediction:\n" if event.predicted else ""
    return (
        f"{head}--- a{render_path(event.old_path)}\n+++ b{render_path(event.path)}\n"
        f"{event.diff}"
    )


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
