"""A :class:`ZetaInput` from a :class:`~pytest_editpred.PredictionRequest`, as Zed's
editor would compute it at that moment.

Built once per request and then formatted by any format: the excerpt (§3.1), the
syntax ranges (§3.2), the legacy ranges (§3.4), the events (§1.2) and related files.
Nothing here reads the disk: only the request's buffers are used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from ..scene import hunks
from ._excerpt import cursor_excerpt, fixed_line_window_around_cursor
from ._input import Diagnostic, Event, ExcerptRanges, RelatedExcerpt, RelatedFile, ZetaInput
from ._ranges import compute_legacy_excerpt_ranges
from ._syntax import syntax_ranges

if TYPE_CHECKING:
    from ..example import RecentFile, RetrievedFile
    from ..scene import EditEvent, PredictionRequest

__all__ = ["RELATED_LINES_ABOVE", "RELATED_LINES_BELOW", "build_input", "related_files", "retrieved_files"]

# Rows shown around a recent file's cursor (see related_files).
RELATED_LINES_ABOVE = 10
RELATED_LINES_BELOW = 10


def _event(event: EditEvent) -> Event:
    return Event(event.path, event.old_path or event.path, hunks(event.diff), event.predicted)


def related_files(
    recent: Iterable[RecentFile], read: Callable[[str], str | None] | Mapping[str, str]
) -> tuple[RelatedFile, ...]:
    """One small excerpt per recently viewed/opened file whose text ``read`` gives
    (a mapping of buffers, or :meth:`PredictionRequest.file_text`).

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
    lookup = read.get if isinstance(read, Mapping) else read
    for entry in recent:
        text = lookup(entry.path)
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


def retrieved_files(files: Iterable[RetrievedFile]) -> tuple[RelatedFile, ...]:
    """An ``ep`` pipeline's retrieved context (``prompt_inputs.related_files``) as is."""
    return tuple(
        RelatedFile(
            f.path, f.max_row, tuple(RelatedExcerpt(e.start_row, e.end_row, e.text, e.order) for e in f.excerpts)
        )
        for f in files
    )


_CursorParts = tuple[str, int, int, tuple[tuple[int, int], ...], ExcerptRanges, tuple[str, ...]]

# Texts up to this many characters (a buffer and its base) have their parts kept, 16
# of them: the trials of an example run side by side. Bigger ones are made again.
_CACHED_TEXT_CHARS = 4 * 1024 * 1024


def _cursor_parts(text: str, cursor: int, path: str, base: str | None) -> _CursorParts:
    """The cursor file's part of a :class:`ZetaInput`: the excerpt (§3.1), its offset
    and first row, the syntax ranges (§3.2; ``()`` without them), the legacy ranges
    (§3.4) and the notes of a bound. A pure function of the text and the cursor, made
    once for the trials of an example (each trial's request is built anew)."""
    if len(text) + len(base or "") > _CACHED_TEXT_CHARS:
        return _make_cursor_parts(text, cursor, path, base)
    return _cached_cursor_parts(text, cursor, path, base)


@lru_cache(maxsize=16)
def _cached_cursor_parts(text: str, cursor: int, path: str, base: str | None) -> _CursorParts:
    return _make_cursor_parts(text, cursor, path, base)


def _make_cursor_parts(text: str, cursor: int, path: str, base: str | None) -> _CursorParts:
    excerpt, offset, start_row = cursor_excerpt(text, cursor)
    start = cursor - offset
    notes: list[str] = []
    found = syntax_ranges(text, cursor, path, start, start + len(excerpt), notes=notes, base=base)
    syntax = () if found is None else found
    return excerpt, offset, start_row, syntax, compute_legacy_excerpt_ranges(excerpt, offset, syntax), tuple(notes)


def build_input(request: PredictionRequest, *, notes: list[str] | None = None) -> ZetaInput:
    """The Zeta input for ``request``; diagnostics only where the example carries them
    (an ``ep`` JSON example's ``prompt_inputs.active_buffer_diagnostics``: there is no
    language server here).

    ``syntax_ranges``: the ancestors of the cursor's node; a file with no grammar
    here gets an empty list, as Zed's editor sends for a buffer without a syntax
    tree (so §3.3 grows the region line by line; ``excerpt_ranges`` are computed
    with the same ranges, as the editor does). So does a file over a bound of
    :func:`~._syntax.syntax_ranges` (too big to parse, too deep to walk), and then a
    sentence saying so is appended to ``notes``. The cursor file's syntax tree is
    reached from its base text's (:attr:`PredictionRequest.base_texts`), parsed once
    per file version. Related files: the retrieved context
    of an ``ep`` JSON example when it carries one (``prompt_inputs.related_files``),
    else the recently viewed, then opened, files (:func:`related_files`), read from
    the buffers or the repository at the revision.
    """
    text = request.text
    cursor = max(0, min(request.cursor.offset, len(text)))
    path = request.cursor.path
    excerpt, offset, start_row, syntax, ranges, found_notes = _cursor_parts(
        text, cursor, path, request.base_texts.get(path)
    )
    if notes is not None:
        notes.extend(found_notes)
    recent = (*request.recently_viewed_files, *request.recently_opened_files)
    retrieved = request.example.related_files
    return ZetaInput(
        cursor_path=request.cursor.path,
        cursor_excerpt=excerpt,
        cursor_offset=offset,
        excerpt_start_row=start_row,
        events=tuple(_event(event) for event in request.events),
        related_files=retrieved_files(retrieved) if retrieved is not None else related_files(recent, request.file_text),
        diagnostics=tuple(
            Diagnostic(d.severity, d.message, d.snippet, d.start_row, d.end_row) for d in request.example.diagnostics
        ),
        excerpt_ranges=ranges,
        syntax_ranges=syntax,
    )
