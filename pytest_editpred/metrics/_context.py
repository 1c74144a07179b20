"""Editable-context coverage (``ep eval --context-only``, authoring-and-context §4):
did the context handed to the model hold the rows the expected patch edits, and
how much of it was unrelated?

The metric is about *retrieval*, not about the prediction: no model answer is read.
Its unit is rows (0-based, per file path), counted at two levels, lines and files,
each with precision, recall and F1 (:class:`ContextCoverage`):

* the **expected side** (§4.2) reads each expected patch with Zed's metrics
  ``Patch`` parser and anchors every change on old rows: deleted rows, or the
  context neighbours of a pure insertion. Rows within ±20 of an anchor are the
  *relevant* rows;
* the **retrieved side** (§4.3–§4.5) is the cursor excerpt (always) plus the
  excerpts of the related files, filtered by source (``--type``), then cut to a
  byte budget (``--related-context-limit`` tokens × 3), each related path losing
  its first component (the worktree name).

Rows are kept as merged half-open intervals, never as sets of rows: a related file
or a relevance window can span 100k rows, and every count here is exact and costs
``O(n log n)`` in the number of excerpts and anchors, not in rows.

Nothing here needs pytest; :func:`editable_context_coverage` is what an
integration calls per example, :class:`ContextSummary` and
:func:`format_context_report` what it calls per run.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from .._exceptions import ConfigError, ContextTypeError
from .._text import nbytes, split_inclusive
from ..example import CONTEXT_SOURCES
from ._jump import patch_anchors

__all__ = [
    "CONTEXT_SOURCES",
    "CONTEXT_TYPES",
    "DEFAULT_RELATED_CONTEXT_LIMIT",
    "LINE_RELEVANCE_WINDOW",
    "ContextCoverage",
    "ContextEvaluation",
    "ContextFile",
    "ContextSummary",
    "ExpectedContext",
    "RelatedExcerptLike",
    "RelatedFileLike",
    "RetrievedContext",
    "context_budget_bytes",
    "context_coverage",
    "editable_context_coverage",
    "excerpt_source",
    "expected_context",
    "filter_context_sources",
    "format_context_report",
    "limit_retrieved_context_to_bytes",
    "parse_context_types",
    "retrieved_context",
    "strip_first_component",
]

LINE_RELEVANCE_WINDOW = 20
"""Rows on each side of an anchor that count as relevant (Zed's ``LINE_RELEVANCE_WINDOW``)."""

DEFAULT_RELATED_CONTEXT_LIMIT = 4000
"""``ep eval --related-context-limit``'s default, in tokens (a 12000-byte budget)."""

_BYTES_PER_TOKEN = 3

# ------------------------------------------------------------------------------ sources


_EDITABLE = frozenset({"cursor_excerpt", "current_file", "edit_history", "edit_history_file", "git_log", "bm25"})

CONTEXT_TYPES: Mapping[str, frozenset[str]] = {
    "lsp": frozenset({"lsp"}),
    "current-file": frozenset({"current_file"}),
    "edit-history": frozenset({"edit_history"}),
    "edit-history-file": frozenset({"edit_history_file"}),
    "git-log": frozenset({"git_log"}),
    "bm25": frozenset({"bm25"}),
    "oracle-file": frozenset({"oracle_file"}),
    "oracle-snippet": frozenset({"oracle_snippet"}),
    "editable": _EDITABLE,
    "all": _EDITABLE | {"lsp"},  # not the oracle sources: they read the answer
    "none": frozenset(),
}
"""``--type`` values (Zed's ``ContextRetrievalType``, §4.5) and the sources each keeps."""


def parse_context_types(values: str | Iterable[str]) -> frozenset[str]:
    """The sources ``--type`` keeps: the union over its comma-separated values.

    ``values`` is one option value (``"lsp,bm25"``) or the values of a repeated
    option. Names are case-sensitive, as in Zed's clap parser; spaces around a name
    are forgiven. An unknown or empty name is a :class:`ConfigError` naming it and
    the valid ones (:class:`ContextTypeError`), because a typo would otherwise
    silently filter out, or retrieve, nothing.
    """
    chunks = [values] if isinstance(values, str) else list(values)
    sources: set[str] = set()
    for chunk in chunks:
        for raw in chunk.split(","):
            name = raw.strip()
            kept = CONTEXT_TYPES.get(name)
            if kept is None:
                valid = ", ".join(CONTEXT_TYPES)
                raise ContextTypeError(
                    f"unknown context type {raw!r} in {chunk!r}",
                    fix=f"Use comma-separated names among: {valid}.",
                )
            sources |= kept
    return frozenset(sources)


def context_budget_bytes(limit_tokens: int) -> int:
    """``--related-context-limit`` (tokens) as the byte budget Zed applies: ``× 3``."""
    if isinstance(limit_tokens, bool) or not isinstance(limit_tokens, int) or limit_tokens < 0:
        raise ConfigError(
            f"bad related context limit {limit_tokens!r}",
            fix=f"Give a number of tokens, 0 or more (Zed's default is {DEFAULT_RELATED_CONTEXT_LIMIT}).",
        )
    return limit_tokens * _BYTES_PER_TOKEN


# ------------------------------------------------------------------------- related files


class RelatedExcerptLike(Protocol):
    """What is read of a related excerpt: rows ``[start_row, end_row)``, its text and
    priority (lower ``order`` first). Its source, if any, is read by
    :func:`excerpt_source`, so ``example.RetrievedExcerpt`` and
    ``zeta.RelatedExcerpt`` both fit."""

    @property
    def start_row(self) -> int: ...

    @property
    def end_row(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def order(self) -> int: ...


class RelatedFileLike(Protocol):
    """A related file: its stored path (worktree first) and its excerpts."""

    @property
    def path(self) -> str: ...

    @property
    def excerpts(self) -> Sequence[RelatedExcerptLike]: ...


@dataclass(frozen=True)
class ContextFile:
    """A related file cut down to the excerpts that survived a filter or the budget
    (the excerpt objects themselves, so their source and text stay as they were)."""

    path: str
    excerpts: tuple[RelatedExcerptLike, ...]


def excerpt_source(excerpt: RelatedExcerptLike) -> str:
    """The excerpt's ``context_source``: its ``source`` (``example.RetrievedExcerpt``)
    or ``context_source`` (``zeta.RelatedExcerpt``) attribute, ``lsp`` when unset
    (serde's default for an excerpt stored without one)."""
    for attribute in ("source", "context_source"):
        value = getattr(excerpt, attribute, None)
        if isinstance(value, str):
            return value
    return "lsp"


def filter_context_sources(files: Iterable[RelatedFileLike], sources: Collection[str]) -> list[ContextFile]:
    """The excerpts whose source is in ``sources`` (§4.5), files in order; a file left
    with no excerpt is dropped (the budget would drop it anyway)."""
    out = []
    for file in files:
        kept = tuple(e for e in file.excerpts if excerpt_source(e) in sources)
        if kept:
            out.append(ContextFile(file.path, kept))
    return out


class _Covered:
    """Merged, disjoint, sorted half-open row ranges: what the budget has selected of
    one file so far."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def gaps(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of ``[start, end)`` not yet covered."""
        out = []
        index = max(bisect_right(self.starts, start) - 1, 0)
        cursor = start
        while index < len(self.starts) and self.starts[index] < end:
            if self.ends[index] > cursor:
                if self.starts[index] > cursor:
                    out.append((cursor, self.starts[index]))
                cursor = self.ends[index]
            index += 1
        if cursor < end:
            out.append((cursor, end))
        return out

    def add(self, start: int, end: int) -> None:
        """Merge ``[start, end)`` in (ranges that touch are merged too)."""
        if start >= end:
            return
        low = bisect_right(self.ends, start - 1)  # first range ending at or after start
        high = bisect_right(self.starts, end)  # ranges starting after end stay apart
        if low < high:
            start = min(start, self.starts[low])
            end = max(end, self.ends[high - 1])
        self.starts[low:high] = [start]
        self.ends[low:high] = [end]


def limit_retrieved_context_to_bytes(files: Sequence[RelatedFileLike], budget_bytes: int) -> list[ContextFile]:
    """Zed's ``limit_retrieved_context_to_bytes`` (§4.4): the related excerpts that
    fit ``budget_bytes``, best ``order`` first.

    Excerpts are taken by ``(order, file index, excerpt index)``. An excerpt costs
    the UTF-8 bytes (each line with its ``\\n``) of its text lines whose rows,
    counted from ``start_row`` and stopping at ``end_row``, the file does not
    already have; it is skipped when that is 0 or would pass the budget (reaching it
    exactly fits), and **the walk goes on**, so a later, smaller excerpt still fits.
    A selected excerpt covers its whole row range. The files that keep an excerpt
    come back in their order, each with its kept excerpts in their order.
    """
    candidates = sorted(
        (excerpt.order, file_index, excerpt_index)
        for file_index, file in enumerate(files)
        for excerpt_index, excerpt in enumerate(file.excerpts)
    )
    covered: dict[int, _Covered] = {}
    chosen: dict[int, set[int]] = {}
    selected = 0
    for _, file_index, excerpt_index in candidates:
        excerpt = files[file_index].excerpts[excerpt_index]
        start = excerpt.start_row
        lines = split_inclusive(excerpt.text)
        end = min(excerpt.end_row, start + len(lines))  # surplus text lines add nothing
        have = covered.setdefault(file_index, _Covered())
        added = 0
        for low, high in have.gaps(start, end):
            added += sum(nbytes(line) for line in lines[low - start : high - start])
        if added == 0 or selected + added > budget_bytes:
            continue
        selected += added
        have.add(start, excerpt.end_row)
        chosen.setdefault(file_index, set()).add(excerpt_index)
    return [
        ContextFile(file.path, tuple(e for i, e in enumerate(file.excerpts) if i in chosen[file_index]))
        for file_index, file in enumerate(files)
        if file_index in chosen
    ]


def strip_first_component(path: str) -> str:
    """A related file's path without its first component, the worktree name, as
    Rust's ``Path::components().skip(1)`` does (§4.3).

    Unconditional and by components: ``proj/src/x.rs`` → ``src/x.rs``,
    ``./proj/x.rs`` → ``proj/x.rs`` (a leading ``.`` is a component),
    ``/abs/x.rs`` → ``abs/x.rs`` (so is the root), ``proj//src/./x.rs`` →
    ``src/x.rs`` (empty and inner ``.`` components vanish), ``x.rs`` → ``""``.
    """
    components = ["/"] if path.startswith("/") else []
    for index, part in enumerate(path.split("/")):
        if part == "." and index == 0:
            components.append(part)
        elif part not in ("", "."):
            components.append(part)
    return "/".join(components[1:])


# ------------------------------------------------------------------------ expected side


@dataclass(frozen=True)
class ExpectedContext:
    """What an expected patch asks the context to hold (§4.2): the files it changes
    and, per file, its anchor rows (0-based old rows, sorted, distinct). A file can
    be changed with no anchor (an insertion with no context line beside it)."""

    files: frozenset[str]
    anchors: Mapping[str, tuple[int, ...]]

    @property
    def anchor_count(self) -> int:
        return sum(len(rows) for rows in self.anchors.values())

    def relevant(self, path: str) -> list[tuple[int, int]]:
        """The relevant rows of ``path``: ``max(r − 20, 0) ..= r + 20`` around each
        anchor, merged into sorted half-open ranges."""
        out: list[tuple[int, int]] = []
        for row in self.anchors.get(path, ()):
            low, high = max(row - LINE_RELEVANCE_WINDOW, 0), row + LINE_RELEVANCE_WINDOW + 1
            if out and low <= out[-1][1]:
                out[-1] = (out[-1][0], high)
            else:
                out.append((low, high))
        return out


def expected_context(patch: str) -> ExpectedContext:
    """The anchors of ``patch`` (Zed's ``expected_context``, §4.2): the same
    reading of the patch and the same anchor rows as the jump location's
    (:func:`._jump.patch_anchors`), whose header numbers are trusted as file rows.
    A hunk with no change adds no file."""
    found = patch_anchors(patch)
    return ExpectedContext(frozenset(found.edited), found.rows)


# ----------------------------------------------------------------------- retrieved side


def _rust_line_count(text: str) -> int:
    """``text.lines().count()``: a final newline ends the last line, it opens none."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _merge(ranges: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[0] < r[1]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


@dataclass(frozen=True)
class RetrievedContext:
    """The context a model was given (§4.3): per path, the union of its excerpts'
    rows as merged half-open ranges, and ``retrieved_context_bytes`` (§4.4), None
    when the example had no related files. A path with only empty excerpts is still
    retrieved (it has no rows)."""

    rows: Mapping[str, tuple[tuple[int, int], ...]]
    retrieved_context_bytes: int | None = None


def retrieved_context(
    cursor_path: str,
    excerpt_start_row: int | None,
    cursor_excerpt: str | int,
    related_files: Sequence[RelatedFileLike] | None,
    *,
    sources: Collection[str] | None = None,
    budget_bytes: int = DEFAULT_RELATED_CONTEXT_LIMIT * _BYTES_PER_TOKEN,
) -> RetrievedContext:
    """The context list of §4.3, before any expected patch is looked at.

    The cursor excerpt is always in, whatever the filter and budget, when
    ``excerpt_start_row`` is set: ``cursor_path`` verbatim, rows
    ``start .. start + lines`` (``cursor_excerpt`` is the text, whose lines are
    counted as Rust's ``lines()`` does, or the line count). The related files are
    filtered by ``sources`` (None: no filter, ``ep eval``'s default), cut to
    ``budget_bytes`` (:func:`limit_retrieved_context_to_bytes`), and their paths lose
    their first component. ``retrieved_context_bytes`` sums the *full* texts of the
    kept excerpts, so it can pass the budget.
    """
    ranges: dict[str, list[tuple[int, int]]] = {}
    if excerpt_start_row is not None:
        count = cursor_excerpt if isinstance(cursor_excerpt, int) else _rust_line_count(cursor_excerpt)
        ranges.setdefault(cursor_path, []).append((excerpt_start_row, excerpt_start_row + count))
    total: int | None = None
    if related_files is not None:
        files: Sequence[RelatedFileLike] = (
            related_files if sources is None else filter_context_sources(related_files, sources)
        )
        total = 0
        for file in limit_retrieved_context_to_bytes(files, budget_bytes):
            path = strip_first_component(file.path)
            for excerpt in file.excerpts:
                ranges.setdefault(path, []).append((excerpt.start_row, excerpt.end_row))
                total += nbytes(excerpt.text)
    return RetrievedContext({path: _merge(spans) for path, spans in ranges.items()}, total)


# ---------------------------------------------------------------------------- counting


def _f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class ContextCoverage:
    """Zed's ``LineFileClassification`` for editable context (§4.3).

    ``lines_tp`` are retrieved rows within ±20 rows of an anchor of the same path,
    ``lines_fp`` the other retrieved rows; ``lines_fn`` are the anchors *not*
    retrieved, out of ``lines_anchors`` (not part of Zed's record, but its recall
    needs it: ``(anchors − fn) / anchors``, 1.0 with no anchor; ``lines_tp`` counts
    rows near the edit, so it cannot stand in). Lines precision is ``tp/(tp+fp)``,
    1.0 when nothing was retrieved. Files are plain set counts of changed files
    against retrieved paths, precision 1.0 when nothing was retrieved and recall 1.0
    when no file is changed. F1 is ``2PR/(P+R)``, 0 when both are 0.
    """

    lines_tp: int
    lines_fp: int
    lines_fn: int
    files_tp: int
    files_fp: int
    files_fn: int
    lines_anchors: int

    def __post_init__(self) -> None:
        if min(getattr(self, f.name) for f in fields(self)) < 0 or self.lines_fn > self.lines_anchors:
            raise ValueError(f"inconsistent context coverage counts: {self!r}")

    @property
    def lines_precision(self) -> float:
        retrieved = self.lines_tp + self.lines_fp
        return self.lines_tp / retrieved if retrieved else 1.0

    @property
    def lines_recall(self) -> float:
        if not self.lines_anchors:
            return 1.0
        return (self.lines_anchors - self.lines_fn) / self.lines_anchors

    @property
    def lines_f1(self) -> float:
        return _f1(self.lines_precision, self.lines_recall)

    @property
    def files_precision(self) -> float:
        retrieved = self.files_tp + self.files_fp
        return self.files_tp / retrieved if retrieved else 1.0

    @property
    def files_recall(self) -> float:
        expected = self.files_tp + self.files_fn
        return self.files_tp / expected if expected else 1.0

    @property
    def files_f1(self) -> float:
        return _f1(self.files_precision, self.files_recall)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContextCoverage:
        """The inverse of :meth:`to_dict` (records travel as dicts). The anchor
        count is not one of Zed's members; it is what the recorded recall says,
        ``fn / (1 − recall)``, and any count gives recall 1 when ``fn`` is 0."""
        counts = {
            f"{level}_{count}": int(data[f"{level}_{count}"])
            for level in ("lines", "files")
            for count in ("tp", "fp", "fn")
        }
        missed = counts["lines_fn"]
        recall = float(data["lines_recall"])
        anchors = round(missed / (1 - recall)) if missed and recall < 1 else missed
        return cls(**counts, lines_anchors=max(anchors, missed))

    def to_dict(self) -> dict[str, int | float]:
        """Zed's 12 members, in Zed's order (``lines_anchors`` is not one of them)."""
        return {
            name: getattr(self, name)
            for level in ("lines", "files")
            for name in (f"{level}_{m}" for m in ("tp", "fp", "fn", "precision", "recall", "f1"))
        }


def _overlap(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> int:
    """Rows in both lists of merged half-open ranges: a merge walk, linear."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if low < high:
            total += high - low
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def _contains(ranges: Sequence[tuple[int, int]], row: int) -> bool:
    index = bisect_right(ranges, row, key=lambda span: span[0]) - 1
    return index >= 0 and ranges[index][0] <= row < ranges[index][1]


def context_coverage(expected: ExpectedContext | str, retrieved: RetrievedContext) -> ContextCoverage:
    """The coverage of one expected patch (or its :func:`expected_context`) by the
    retrieved context (§4.3): exact counts, linear in ranges plus a bisection per
    anchor."""
    if isinstance(expected, str):
        expected = expected_context(expected)
    lines_tp = lines_fp = lines_fn = 0
    for path, spans in retrieved.rows.items():
        size = sum(end - start for start, end in spans)
        near = _overlap(spans, expected.relevant(path))
        lines_tp += near
        lines_fp += size - near
    for path, rows in expected.anchors.items():
        spans = retrieved.rows.get(path, ())
        lines_fn += sum(1 for row in rows if not _contains(spans, row))
    paths = retrieved.rows.keys()
    return ContextCoverage(
        lines_tp=lines_tp,
        lines_fp=lines_fp,
        lines_fn=lines_fn,
        files_tp=sum(1 for path in expected.files if path in paths),
        files_fp=sum(1 for path in paths if path not in expected.files),
        files_fn=sum(1 for path in expected.files if path not in paths),
        lines_anchors=expected.anchor_count,
    )


@dataclass(frozen=True)
class ContextEvaluation:
    """One example's result: the chosen coverage (None with no expected patch) and
    ``retrieved_context_bytes`` (None when the example had no related files)."""

    coverage: ContextCoverage | None
    retrieved_context_bytes: int | None


def editable_context_coverage(
    expected_patches: Sequence[str],
    cursor_path: str,
    excerpt_start_row: int | None,
    cursor_excerpt: str | int,
    related_files: Sequence[RelatedFileLike] | None,
    *,
    sources: Collection[str] | None = None,
    budget_bytes: int = DEFAULT_RELATED_CONTEXT_LIMIT * _BYTES_PER_TOKEN,
) -> ContextEvaluation:
    """One example's editable-context coverage, as ``ep eval`` computes it (§4.3).

    The context is built once (:func:`retrieved_context`; ``sources`` from
    :func:`parse_context_types`, ``budget_bytes`` from :func:`context_budget_bytes`),
    then each expected patch is scored and the best kept: the largest ``lines_f1``,
    ties broken by ``files_f1``, and on a full tie the **last** such patch (Rust's
    ``max_by`` keeps the last maximum), whose counts are the ones a summary pools.
    This choice is independent of which patch wins the prediction's score.
    """
    context = retrieved_context(
        cursor_path,
        excerpt_start_row,
        cursor_excerpt,
        related_files,
        sources=sources,
        budget_bytes=budget_bytes,
    )
    best: ContextCoverage | None = None
    for patch in expected_patches:
        coverage = context_coverage(patch, context)
        if best is None or (coverage.lines_f1, coverage.files_f1) >= (best.lines_f1, best.files_f1):
            best = coverage
    return ContextEvaluation(best, context.retrieved_context_bytes)


# ------------------------------------------------------------------------------ summary


def _mean(values: Sequence[float]) -> float:
    """Summed in order, as Rust's ``Iterator::sum`` does (not ``fsum``, nor Python
    3.12's compensated ``sum``), so the JSON matches Zed's to the last bit."""
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


@dataclass(frozen=True)
class ContextSummary:
    """The editable-context fields of Zed's ``SummaryJson`` (v1.15 names, §4.6).

    P/R/F1 are macro means over the results that have a coverage; TP/FP/FN are
    pooled sums. ``avg_retrieved_context_bytes`` is the decimal mean of the bytes
    over the results with related files (``124/5`` is 24.8; Zed's field is an
    ``f64``), an empty list of related files counting as 0 bytes; only the report
    rounds it. Every field is None when no result applies, and then left out of
    the JSON.
    """

    editable_context_examples: int | None = None
    avg_editable_context_lines_precision: float | None = None
    avg_editable_context_lines_recall: float | None = None
    avg_editable_context_lines_f1: float | None = None
    editable_context_lines_tp: int | None = None
    editable_context_lines_fp: int | None = None
    editable_context_lines_fn: int | None = None
    avg_editable_context_files_precision: float | None = None
    avg_editable_context_files_recall: float | None = None
    avg_editable_context_files_f1: float | None = None
    editable_context_files_tp: int | None = None
    editable_context_files_fp: int | None = None
    editable_context_files_fn: int | None = None
    avg_retrieved_context_bytes: float | None = None
    total_retrieved_context_bytes: int | None = None
    retrieved_context_examples: int | None = None

    @classmethod
    def from_results(cls, results: Iterable[ContextEvaluation]) -> ContextSummary:
        """The summary of per-example (or per-prediction) results."""
        results = list(results)
        covered = [r.coverage for r in results if r.coverage is not None]
        sizes = [r.retrieved_context_bytes for r in results if r.retrieved_context_bytes is not None]
        values: dict[str, int | float | None] = {}
        if covered:
            values["editable_context_examples"] = len(covered)
            for level in ("lines", "files"):
                for rate in ("precision", "recall", "f1"):
                    values[f"avg_editable_context_{level}_{rate}"] = _mean(
                        [getattr(c, f"{level}_{rate}") for c in covered]
                    )
                for count in ("tp", "fp", "fn"):
                    values[f"editable_context_{level}_{count}"] = sum(getattr(c, f"{level}_{count}") for c in covered)
        if sizes:
            values["total_retrieved_context_bytes"] = sum(sizes)
            values["retrieved_context_examples"] = len(sizes)
            # int / int is correctly rounded, as Rust's `total as f64 / count as f64`
            values["avg_retrieved_context_bytes"] = sum(sizes) / len(sizes)
        return cls(**values)  # type: ignore[arg-type]  # keys are the field names above

    def to_summary_json(self) -> dict[str, int | float]:
        """The fields as ``--summary-json`` writes them, None ones left out."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


# ------------------------------------------------------------------------------- report

_WIDTH = 120
_SEPARATOR = "─" * _WIDTH
_NAME_WIDTH = 40


def _name(name: str) -> str:
    return name if len(name) <= _NAME_WIDTH else name[: _NAME_WIDTH - 3] + "..."


def _pct(rate: float) -> str:
    return f"{rate * 100:>5.1f}%"  # Rust's {:>5.1}%


_COLUMNS = ("LineP", "LineR", "LineF1", "LTP", "LFP", "LFN", "FileP", "FileR", "FileF1", "FTP", "FFP", "FFN")
_WIDTHS = (6, 6, 6, 5, 5, 5, 6, 6, 6, 5, 5, 5)  # a rate is {:>5.1}% (6 wide), a count {:>5}


def _line(
    name: str, lines: Sequence[float], line_counts: Sequence[int], files: Sequence[float], file_counts: Sequence[int]
) -> str:
    """A table row: rates as Rust's ``{:>5.1}%``, counts as ``{:>5}``."""
    cells = [*(_pct(r) for r in lines), *map(str, line_counts), *(_pct(r) for r in files), *map(str, file_counts)]
    return f"{_name(name):<{_NAME_WIDTH}} " + " ".join(f"{cell:>{width}}" for cell, width in zip(cells, _WIDTHS))


def _row(name: str, c: ContextCoverage) -> str:
    return _line(
        name,
        (c.lines_precision, c.lines_recall, c.lines_f1),
        (c.lines_tp, c.lines_fp, c.lines_fn),
        (c.files_precision, c.files_recall, c.files_f1),
        (c.files_tp, c.files_fp, c.files_fn),
    )


def _total_row(summary: ContextSummary) -> str:
    """``TOTAL / AVERAGE``: macro-mean rates, pooled counts (all set once a result has a coverage)."""

    def get(name: str) -> Any:
        return getattr(summary, name)

    return _line(
        "TOTAL / AVERAGE",
        [get(f"avg_editable_context_lines_{rate}") for rate in ("precision", "recall", "f1")],
        [get(f"editable_context_lines_{count}") for count in ("tp", "fp", "fn")],
        [get(f"avg_editable_context_files_{rate}") for rate in ("precision", "recall", "f1")],
        [get(f"editable_context_files_{count}") for count in ("tp", "fp", "fn")],
    )


def format_context_report(rows: Sequence[tuple[str, ContextEvaluation]], limit: int = 20, verbose: bool = False) -> str:
    """``ep eval --context-only``'s report (§4.6) for ``(example name, result)`` rows.

    Laid out as the ``ep eval`` table of ``reports`` (120 ``─`` wide here): the
    header, one row per example that has a coverage (an example with no expected
    patch gets none, as in Zed; at most ``limit`` rows unless ``verbose``), the
    closing separator. Only when some example has a coverage does more follow, as
    in Zed: ``TOTAL / AVERAGE`` with macro-mean rates and pooled counts over every
    covered example, ``Evaluated editable context coverage for N examples``, the
    average retrieved size when some example had related files (Zed's
    ``{:.0}``: the decimal mean rounded half to even, as Python's ``.0f`` does),
    and a blank line.
    """
    header = f"{'Example':<{_NAME_WIDTH}} " + " ".join(f"{title:>{width}}" for title, width in zip(_COLUMNS, _WIDTHS))
    lines = [_SEPARATOR, header, _SEPARATOR]
    covered = [(name, result.coverage) for name, result in rows if result.coverage is not None]
    shown = covered if verbose else covered[:limit]
    lines.extend(_row(name, coverage) for name, coverage in shown)
    if len(shown) < len(covered):
        lines.append(f"... and {len(covered) - len(shown)} more (use --verbose to see all {len(covered)} examples)")
    lines.append(_SEPARATOR)
    s = ContextSummary.from_results(result for _, result in rows)
    if s.editable_context_examples:
        lines.append(_total_row(s))
        lines.append(_SEPARATOR)
        lines.append(f"Evaluated editable context coverage for {s.editable_context_examples} examples")
        if s.avg_retrieved_context_bytes is not None:
            lines.append(
                f"Retrieved context size: {s.avg_retrieved_context_bytes:.0f} bytes avg "
                f"({s.retrieved_context_examples} examples)"
            )
        lines.append("")
    return "\n".join(lines) + "\n"
