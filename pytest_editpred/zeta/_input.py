"""The input record every Zed prompt format is built from (Zed's ``Zeta2PromptInput``).

Zed formats prompts from one plain record, computed once by the editor; keeping the
same record here makes every formatter and parser a pure function of it, so golden
tests can pin prompts without a repository, and a cached answer parses the same way
on every run.

Units. Zed works on UTF-8 byte offsets; this port works on ``str`` with **character**
offsets and measures every *size* (token estimates, budgets, marker limits) in UTF-8
bytes with :func:`nbytes`. The two agree on every boundary, because Zed only cuts
at character boundaries.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Event",
    "RelatedExcerpt",
    "RelatedFile",
    "Diagnostic",
    "ExcerptRanges",
    "ZetaInput",
    "estimate_tokens",
]


def estimate_tokens(byte_length: int) -> int:
    """§1.1: ``bytes // 3``, applied to a concatenation's length as written."""
    return byte_length // 3


@dataclass(frozen=True)
class Event:
    """Zed's ``BufferChange``: one edit of the history; ``diff`` is hunks only."""

    path: str
    old_path: str
    diff: str
    predicted: bool = False


@dataclass(frozen=True)
class RelatedExcerpt:
    """Rows ``[start_row, end_row)`` of a related file; lower ``order`` matters more."""

    start_row: int
    end_row: int
    text: str
    order: int = 0
    context_source: str = "lsp"


@dataclass(frozen=True)
class RelatedFile:
    path: str
    max_row: int
    excerpts: tuple[RelatedExcerpt, ...]
    in_open_source_repo: bool = False


@dataclass(frozen=True)
class Diagnostic:
    """An active-buffer diagnostic (V0420 and the teacher only)."""

    severity: str
    message: str
    snippet: str
    snippet_start_row: int
    snippet_end_row: int


@dataclass(frozen=True)
class ExcerptRanges:
    """§1.2/§3.4: precomputed ``(start, end)`` character ranges into the excerpt, the
    fallback when ``syntax_ranges`` is ``None``."""

    editable_150: tuple[int, int]
    editable_180: tuple[int, int]
    editable_350: tuple[int, int]
    editable_150_context_350: tuple[int, int]
    editable_180_context_350: tuple[int, int]
    editable_350_context_150: tuple[int, int]
    editable_512: tuple[int, int] | None = None
    editable_350_context_512: tuple[int, int] | None = None
    editable_350_context_1024: tuple[int, int] | None = None
    context_4096: tuple[int, int] | None = None
    context_8192: tuple[int, int] | None = None


@dataclass(frozen=True)
class ZetaInput:
    """§1.2. ``cursor_excerpt`` is the cursor excerpt (§3.1), normally without a final
    newline; ``cursor_offset`` is a character offset into it; ``syntax_ranges`` are
    character ranges into it of the syntax nodes around the cursor, innermost first
    (``None`` when the file's language has no grammar: formats then fall back to
    ``excerpt_ranges``)."""

    cursor_path: str
    cursor_excerpt: str
    cursor_offset: int
    excerpt_start_row: int | None
    events: tuple[Event, ...] = ()
    related_files: tuple[RelatedFile, ...] | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    excerpt_ranges: ExcerptRanges | None = None
    syntax_ranges: tuple[tuple[int, int], ...] | None = None
