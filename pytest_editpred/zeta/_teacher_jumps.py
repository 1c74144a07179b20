"""§13: Zed's ``teacher-jumps`` prompt, where the model may edit any shown excerpt.

Every excerpt carries the hashed marker tags of V0615 (§7.1–§7.2) and the answer is
one code block per ``<|marker_A|>…<|marker_B|>`` span, so the spans go through the
same ``build_patch_from_spans`` (§7.6, :mod:`._hashed`) as V0615: prompt and parse
share one marker table, built from the same prepared input.
"""

from __future__ import annotations

from .._exceptions import PredictionError
from .._text import nbytes
from ._hashed import (
    Span,
    build_marker_table,
    build_patch_from_spans,
    ensure_cursor_file_excerpt,
    locate_cursor_in_related_files,
    related_file_patch_path,
    strip_marker_tags,
    write_snippet_with_markers,
)
from ._history import format_edit_history_within_budget
from ._input import ZetaInput, estimate_tokens
from ._teacher import FENCE, TextEdit, extract_all_codeblocks, fill_template, is_no_edits
from ._teacher_templates import TEACHER_JUMPS_TEMPLATE

__all__ = [
    "HISTORY_TOKENS",
    "HISTORY_EVENTS",
    "CONTEXT_TOKENS",
    "extract_marker_span",
    "format_teacher_jumps_prompt",
    "parse_teacher_jumps_output",
    "prepare_teacher_jumps_input",
]

HISTORY_TOKENS = 4000
HISTORY_EVENTS = 6
CONTEXT_TOKENS = 8192
_TAG_PREFIX = "<|marker_"
_TAG_SUFFIX = "|>"
_SUFFIX = FENCE + "\n\n"
_NOT_COVERED = (
    "cursor position is not covered by any related-file excerpt of the cursor file; teacher-jumps "
    "requires current-file context retrieval (e.g. `ep context --type=current-file,...`)"
)


def _error(reason: str, fix: str | None = None) -> PredictionError:
    return PredictionError(
        f"{reason} (teacher-jumps)",
        fix=fix
        or "The answer must be one five-backtick block per span '<|marker_A|>\\nnew text<|marker_B|>', "
        "with tags from the prompt, or NO_EDITS.",
    )


def prepare_teacher_jumps_input(input: ZetaInput) -> ZetaInput:
    """§13.1: the input with the cursor file's excerpt ensured (``ensure_cursor_file_excerpt``).

    Prompt and parse both start from this, so their marker tables agree.
    """
    prepared, covered = ensure_cursor_file_excerpt(input)
    if not covered:
        raise PredictionError(_NOT_COVERED, fix="Give the input a cursor excerpt and its excerpt_start_row.")
    return prepared


def _is_cursor_file(input: ZetaInput, path: str) -> bool:
    return related_file_patch_path(input.cursor_path, path) == related_file_patch_path(
        input.cursor_path, input.cursor_path
    )


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _context(input: ZetaInput, rendered: dict[tuple[int, int], str]) -> str:
    """``{{context}}``: the other files' excerpts within the budget, taken by
    ``(order, file, excerpt)`` until the first that does not fit."""
    files = input.related_files or ()
    others = [ix for ix, file in enumerate(files) if not _is_cursor_file(input, file.path)]
    if not others:
        return "(No context)"
    candidates = sorted((files[f].excerpts[e].order, f, e) for f in others for e in range(len(files[f].excerpts)))
    selected: set[tuple[int, int]] = set()
    taken: set[int] = set()
    used = 0
    for _, file_ix, excerpt_ix in candidates:
        cost = estimate_tokens(nbytes(rendered[file_ix, excerpt_ix]))
        if file_ix not in taken:
            cost += estimate_tokens(nbytes(f"{FENCE}{files[file_ix].path}\n") + nbytes(_SUFFIX))
        if used + cost > CONTEXT_TOKENS:
            break
        used += cost
        taken.add(file_ix)
        selected.add((file_ix, excerpt_ix))
    out: list[str] = []
    for file_ix in others:
        file = files[file_ix]
        chosen = [ix for ix in range(len(file.excerpts)) if (file_ix, ix) in selected]
        if not chosen:
            continue
        out.append(f"{FENCE}{file.path}\n")
        for position, excerpt_ix in enumerate(chosen):
            out.append(rendered[file_ix, excerpt_ix])
            following = chosen[position + 1] if position + 1 < len(chosen) else None
            limit = file.excerpts[following].start_row if following is not None else file.max_row
            if file.excerpts[excerpt_ix].end_row < limit:
                out.append("...\n")
        out.append(_SUFFIX)
    return "".join(out)


def format_teacher_jumps_prompt(input: ZetaInput) -> str:
    """The ``teacher-jumps`` prompt (§13.2); the current file appears once, with the
    cursor in its excerpt. Raises :class:`PredictionError` when the cursor cannot be
    covered (§13.1)."""
    input = prepare_teacher_jumps_input(input)
    location = locate_cursor_in_related_files(input)
    assert location is not None  # ensured above
    files = input.related_files or ()
    rendered: dict[tuple[int, int], str] = {}
    for entry in build_marker_table(input):
        here = (entry.file_ix, entry.excerpt_ix) == (location.file_ix, location.excerpt_ix)
        text = write_snippet_with_markers(entry.text, entry.offsets, entry.ids, location.offset if here else None)
        rendered[entry.file_ix, entry.excerpt_ix] = _with_newline(text)
    cursor_file = files[location.file_ix]
    current = [f"{FENCE}{input.cursor_path}\n"]
    for excerpt_ix, excerpt in enumerate(cursor_file.excerpts):
        current.append(rendered[location.file_ix, excerpt_ix])
        if excerpt.end_row < cursor_file.max_row:
            current.append("...\n")
    current.append(FENCE)
    history = format_edit_history_within_budget(input.events, "", "", HISTORY_TOKENS, HISTORY_EVENTS)
    return fill_template(
        TEACHER_JUMPS_TEMPLATE,
        context=_context(input, rendered),
        edit_history=history,
        cursor_excerpt="".join(current),
    )


def _tags(text: str) -> list[tuple[int, int, str]]:
    """Every terminated ``<|marker_…|>`` tag: (start, end, id)."""
    tags: list[tuple[int, int, str]] = []
    position = 0
    while (start := text.find(_TAG_PREFIX, position)) >= 0:
        end = text.find(_TAG_SUFFIX, start + len(_TAG_PREFIX))
        if end < 0:
            break
        tags.append((start, end + len(_TAG_SUFFIX), text[start + len(_TAG_PREFIX) : end]))
        position = end + len(_TAG_SUFFIX)
    return tags


def extract_marker_span(block: str) -> Span:
    """``hashed_regions::extract_marker_span``: the first and last tags of a block and
    the text between them (one leading newline and any inner tags removed)."""
    tags = _tags(block)
    if len(tags) < 2:
        raise _error("output span must be bounded by two marker tags")
    first, last = tags[0], tags[-1]
    if first[2] == last[2]:
        raise _error(f"start and end markers are the same (marker {first[2]})")
    content = block[first[1] : last[0]]
    if content.startswith("\n"):
        content = content[1:]
    return Span(first[2], last[2], strip_marker_tags(content))


def parse_teacher_jumps_output(input: ZetaInput, response: str) -> tuple[TextEdit, ...]:
    """``TeacherJumpsPrompt::parse`` (§13.3): one :class:`TextEdit` per changed snippet
    (``start_row`` file-absolute, ``start`` 0: the edit covers the whole snippet),
    the cursor on the snippet that carries it; ``()`` for ``NO_EDITS``."""
    if is_no_edits(response, trim_backticks=False):
        return ()
    blocks = [block for block in extract_all_codeblocks(response) if _TAG_PREFIX in block]
    if not blocks:
        raise _error("no marker-bounded edit codeblocks found in model response")
    spans = [extract_marker_span(block) for block in blocks]
    prepared = prepare_teacher_jumps_input(input)
    try:
        patch = build_patch_from_spans(prepared, spans)
    except PredictionError as error:
        raise _error(error.reason, error.fix if "truncated" in error.reason else None) from None
    cursor = patch.cursor
    edits: list[TextEdit] = []
    for edit in patch.edits:
        offset = None
        if cursor is not None and (cursor.path, cursor.start_row) == (edit.path, edit.start_row):
            offset = cursor.offset
        edits.append(TextEdit(edit.path, 0, edit.old_text, edit.new_text, offset, edit.start_row))
    if cursor is not None and not any(edit.cursor is not None for edit in edits):
        # The cursor sits in a snippet the answer left as it was.
        edits.append(TextEdit(cursor.path, 0, cursor.old_text, cursor.new_text, cursor.offset, cursor.start_row))
    return tuple(edits)
