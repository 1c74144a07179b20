"""§4.2–§4.4 and §1.1's clamp: related files, their redundancy filter, diagnostics.

These are the context sections that compete for what the cursor section leaves of
the budget; each has its own "what is dropped first" rule, which decides the prompt
bytes as much as the layout does.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._text import nbytes, split_inclusive
from ._input import Diagnostic, RelatedFile, estimate_tokens

__all__ = [
    "clamp_text_to_token_count",
    "format_related_files_within_budget",
    "offset_range_to_row_range",
    "filter_redundant_excerpts",
    "format_active_buffer_diagnostics_with_budget",
]


def clamp_text_to_token_count(text: str, max_tokens: int) -> str:
    """§1.1: the text, or its longest prefix of whole ``\\n``-terminated lines that
    stays within ``max_tokens`` (only diagnostic snippets are clamped)."""
    if estimate_tokens(nbytes(text)) <= max_tokens:
        return text
    end_bytes = 0
    end = 0
    for line in split_inclusive(text):
        size = nbytes(line)
        if estimate_tokens(end_bytes + size) > max_tokens:
            break
        end_bytes += size
        end += len(line)
    return text[:end]


def format_related_files_within_budget(
    files: Sequence[RelatedFile], file_prefix: str, file_suffix: str, max_tokens: int
) -> str:
    """§4.2: excerpts are chosen by ``(order, file, excerpt)`` until the first one
    that does not fit, then written in the files' own order with ``...`` gaps."""
    entries = sorted(
        (excerpt.order, file_ix, excerpt_ix)
        for file_ix, file in enumerate(files)
        for excerpt_ix, excerpt in enumerate(file.excerpts)
    )
    selected: set[tuple[int, int]] = set()
    taken_files: set[int] = set()
    total = 0
    for _, file_ix, excerpt_ix in entries:
        file = files[file_ix]
        excerpt = file.excerpts[excerpt_ix]
        cost = 0
        if file_ix not in taken_files:
            header = f"{file_prefix}{file.path}\n"
            cost += estimate_tokens(nbytes(header) + nbytes(file_suffix))
        size = nbytes(excerpt.text)
        size += 0 if excerpt.text.endswith("\n") else 1
        size += 4 if excerpt.end_row < file.max_row else 0
        cost += estimate_tokens(size)
        if total + cost > max_tokens:
            break
        total += cost
        taken_files.add(file_ix)
        selected.add((file_ix, excerpt_ix))

    out: list[str] = []
    first_file = True
    for file_ix, file in enumerate(files):
        chosen = [file.excerpts[i] for i in range(len(file.excerpts)) if (file_ix, i) in selected]
        if not chosen:
            continue
        if not first_file:
            out.append(file_suffix)
        first_file = False
        out.append(f"{file_prefix}{file.path}\n")
        for k, excerpt in enumerate(chosen):
            out.append(excerpt.text)
            if not excerpt.text.endswith("\n"):
                out.append("\n")
            limit = chosen[k + 1].start_row if k + 1 < len(chosen) else file.max_row
            if excerpt.end_row < limit:
                out.append("...\n")
    return "".join(out)


def offset_range_to_row_range(text: str, start: int, end: int) -> tuple[int, int]:
    """§4.3 step 1: the half-open rows a character range of ``text`` covers."""
    first = text.count("\n", 0, start)
    last = first + text.count("\n", start, end)
    if not text[:end].endswith("\n"):
        last += 1
    return first, last


def filter_redundant_excerpts(
    files: Sequence[RelatedFile], cursor_path: str, rows: tuple[int, int]
) -> tuple[RelatedFile, ...]:
    """§4.3: drop cursor-file excerpts the prompt already shows (rows inside the
    context's buffer ``rows``), then files left empty. Paths compare exactly."""
    out: list[RelatedFile] = []
    for file in files:
        if file.path == cursor_path:
            kept = tuple(e for e in file.excerpts if e.start_row < rows[0] or e.end_row > rows[1])
            if kept != file.excerpts:
                file = RelatedFile(file.path, file.max_row, kept, file.in_open_source_repo)
        if file.excerpts:
            out.append(file)
    return tuple(out)


_DIAGNOSTICS_HEADER = "<filename>diagnostics\n"
_MAX_DIAGNOSTICS = 10
_SNIPPET_TOKENS = 256


def format_active_buffer_diagnostics_with_budget(
    diagnostics: Sequence[Diagnostic], cursor_row: int | None, budget: int
) -> str:
    """§4.4 (V0420): the diagnostics nearest the cursor row, each snippet clamped to
    256 tokens, until the first that does not fit."""
    if not diagnostics or budget <= 0:
        return ""
    ordered = list(diagnostics)
    if cursor_row is not None:
        row = cursor_row
        ordered.sort(key=lambda d: abs(row - d.snippet_start_row) + abs(row - d.snippet_end_row))
    used = estimate_tokens(nbytes(_DIAGNOSTICS_HEADER))
    if used > budget:
        return ""
    parts: list[str] = []
    for diagnostic in ordered[:_MAX_DIAGNOSTICS]:
        snippet = clamp_text_to_token_count(diagnostic.snippet, _SNIPPET_TOKENS)
        if not snippet:
            text = f"*{diagnostic.message}*\n"
        else:
            more = "..." if len(snippet) < len(diagnostic.snippet) else ""
            text = f"*{diagnostic.message}*:\n```\n{snippet}{more}\n```\n"
        cost = estimate_tokens(nbytes(text))
        if used + cost > budget:
            break
        used += cost
        parts.append(text)
    if not parts:
        return ""
    return _DIAGNOSTICS_HEADER + "".join(parts)
