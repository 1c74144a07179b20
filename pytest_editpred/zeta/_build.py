"""A :class:`ZetaInput` from a :class:`~pytest_editpred.PredictionRequest`, as Zed's
editor would compute it at that moment.

Built once per request and then formatted by any format: the excerpt (§3.1), the
syntax ranges (§3.2), the legacy ranges (§3.4), the events (§1.2) and related files.
Nothing here reads the disk: only the request's buffers are used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ._excerpt import cursor_excerpt, fixed_line_window_around_cursor
from ._input import Event, RelatedExcerpt, RelatedFile, ZetaInput
from ._ranges import compute_legacy_excerpt_ranges
from ._syntax import syntax_ranges

if TYPE_CHECKING:
    from .._example import RecentFile
    from .._request import EditEvent, PredictionRequest

__all__ = ["RELATED_LINES_ABOVE", "RELATED_LINES_BELOW", "build_input", "related_files"]

# Rows shown around a recent file's cursor (see related_files).
RELATED_LINES_ABOVE = 10
RELATED_LINES_BELOW = 10

_HEADER_PREFIXES = ("--- ", "+++ ", "diff --git ", "index ")


def _hunks(diff: str) -> str:
    """The diff without its leading file headers: Zed's ``BufferChange.diff`` holds hunk
    text only, and ``write_event`` writes its own headers. Same rule as
    ``providers._history.hunks`` (kept here so the core does not import providers)."""
    lines = diff.splitlines(keepends=True)
    index = 0
    while index < len(lines) and lines[index].startswith(_HEADER_PREFIXES):
        index += 1
    body = "".join(lines[index:])
    return body if not body or body.endswith("\n") else body + "\n"


def _event(event: EditEvent) -> Event:
    return Event(event.path, event.old_path or event.path, _hunks(event.diff), event.predicted)


def related_files(recent: Iterable[RecentFile], buffers: Mapping[str, str]) -> tuple[RelatedFile, ...]:
    """One small excerpt per recently viewed/opened file whose text is in ``buffers``.

    Zed's related files come from context retrieval (LSP definitions and the like),
    which this port does not have; the closest faithful stand-in is what the user
    looked at: rows ``RELATED_LINES_ABOVE`` above to ``RELATED_LINES_BELOW`` below the
    file's recorded cursor (its start when none), cut with §3.7's
    ``fixed_line_window_around_cursor`` (the window Zed's Sweep prompt uses for recent
    files). Its ``row_range`` is half-open, so a window reaching the last row reports
    ``max_row + 1`` and gets no ``...``. ``order`` is the rank in ``recent`` (first =
    most important); a path listed twice keeps its first entry. ``cursor_position`` is
    read as a character offset, like every offset of this package.
    """
    files: list[RelatedFile] = []
    seen: set[str] = set()
    for entry in recent:
        text = buffers.get(entry.path)
        if text is None or entry.path in seen:
            continue
        seen.add(entry.path)
        position = max(0, min(entry.cursor_position or 0, len(text)))
        start, end = fixed_line_window_around_cursor(text, position, RELATED_LINES_ABOVE, RELATED_LINES_BELOW)
        start_row = text.count("\n", 0, start)
        end_row = start_row + text.count("\n", start, end)
        excerpt = RelatedExcerpt(start_row, end_row + 1, text[start:end], order=len(files))
        files.append(RelatedFile(entry.path, text.count("\n"), (excerpt,)))
    return tuple(files)


def build_input(request: PredictionRequest) -> ZetaInput:
    """The Zeta input for ``request``; diagnostics are empty (no language server).

    ``syntax_ranges`` is None for a file without a grammar here (see
    ``_syntax.why_no_syntax``), so formats fall back to ``excerpt_ranges``; Zed would
    send ``Some([])`` for a plain-text buffer, which differs only for V0304VariableEdit
    and V0615 [unconfirmed]. ``excerpt_ranges`` are computed with the same syntax
    ranges, as the editor does.
    """
    text = request.text
    cursor = max(0, min(request.cursor.offset, len(text)))
    excerpt, offset, start_row = cursor_excerpt(text, cursor)
    start = cursor - offset
    syntax = syntax_ranges(text, cursor, request.cursor.path, start, start + len(excerpt))
    recent = (*request.recently_viewed_files, *request.recently_opened_files)
    return ZetaInput(
        cursor_path=request.cursor.path,
        cursor_excerpt=excerpt,
        cursor_offset=offset,
        excerpt_start_row=start_row,
        events=tuple(_event(event) for event in request.events),
        related_files=related_files(recent, request.buffers),
        diagnostics=(),
        excerpt_ranges=compute_legacy_excerpt_ranges(excerpt, offset, syntax),
        syntax_ranges=syntax,
    )
