"""§2.8 ``bm25``: the chunks of the repository that share the most words with the
cursor's surroundings and the edit history.

The query is the cursor file's path (weight 3), the 41 rows around the cursor
(weight 1) and the rows around the **oldest** 8 history entries (weight 2). The
index is every *tracked* file as it is **on disk** (the revision with the
uncommitted diff; the cursor buffer only when the ``lsp`` source ran first, since it
saved that buffer), cut into chunks of about 40 rows that overlap by 10; a chunk's
document is its tokens plus its path's tokens twice. The best 12 chunks, at most 3
per file, are added, with their rows applied to the buffers as they are.

Bounds: files over 1 000 000 bytes are not read, so indexing is ``O(T)`` in the
tracked bytes that are read (each row is tokenised once, chunks add up their rows'
counts); only the query's terms are counted per document, so memory is ``O(D·q)``
for ``D`` chunks and ``q`` query terms, and scoring the same.
"""

from __future__ import annotations

import math
import os
import stat
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ._buffer import is_blank
from ._history import EditEntry
from ._paths import path_key
from ._tokens import tokenize
from ._workspace import Workspace

__all__ = ["BM25_CONTEXT_MAX_FILE_BYTES", "bm25", "chunk_rows", "query_terms"]

BM25_CONTEXT_QUERY_LINE_COUNT: Final = 20
BM25_CONTEXT_EDIT_HISTORY_QUERY_ENTRY_COUNT: Final = 8
BM25_CONTEXT_CHUNK_LINE_COUNT: Final = 40
BM25_CONTEXT_CHUNK_OVERLAP_LINE_COUNT: Final = 10
BM25_CONTEXT_CHUNK_COUNT: Final = 12
BM25_CONTEXT_MAX_CHUNKS_PER_FILE: Final = 3
BM25_CONTEXT_MAX_FILE_BYTES: Final = 1_000_000
_K1: Final = 1.2
_B: Final = 0.75


def chunk_rows(
    lines: Sequence[str],
    target: int = BM25_CONTEXT_CHUNK_LINE_COUNT,
    overlap: int = BM25_CONTEXT_CHUNK_OVERLAP_LINE_COUNT,
) -> list[tuple[int, int]]:
    """The chunks ``[start, end)`` of a file's lines (each with its ``\\n``): about
    ``target`` rows, ending after the blank row nearest the ``target``-th (within
    ``overlap``), overlapping the next by ``overlap`` rows."""
    n = len(lines)
    chunks: list[tuple[int, int]] = []
    start = 0
    while start < n:
        ideal = min(start + target, n)
        end = ideal
        if ideal < n:
            low = max(ideal - overlap, start + 1)
            high = min(ideal + overlap, n) - 1
            blanks = [row for row in range(low, high + 1) if is_blank(lines[row])]
            if blanks:
                end = min(blanks, key=lambda row: (abs(row - ideal), row)) + 1
        if end <= start:
            end = ideal
            if end <= start:
                break
        chunks.append((start, end))
        if end == n:
            break
        following = max(0, end - overlap)
        start = following if following > start else end
    return chunks


def _window(space: Workspace, path: str, first: int, last: int) -> str:
    buffer = space.buffer(path)
    if buffer is None:
        return ""
    start = (max(0, first - BM25_CONTEXT_QUERY_LINE_COUNT), 0)
    return buffer.slice(start, buffer.row_end(min(last + BM25_CONTEXT_QUERY_LINE_COUNT, buffer.max_row)))


def query_terms(space: Workspace, entries: Sequence[EditEntry]) -> dict[str, float]:
    """Term weights: path tokens 3, cursor-window tokens 1, history-window tokens 2
    (the first 8 entries, the oldest). Repeated tokens add up."""
    query: dict[str, float] = {}

    def add(text: str, weight: float) -> None:
        for token in tokenize(text):
            query[token] = query.get(token, 0.0) + weight

    path = space.scene.cursor.path
    add(path, 3.0)
    row = space.scene.cursor.row
    add(_window(space, path, row, row), 1.0)
    for entry in entries[:BM25_CONTEXT_EDIT_HISTORY_QUERY_ENTRY_COUNT]:
        buffer = space.buffer(entry.path)
        if buffer is not None:
            first, last = buffer.point(entry.start)[0], buffer.point(entry.end)[0]
            add(_window(space, entry.path, first, last), 2.0)
    return query


@dataclass(frozen=True)
class _Document:
    path: str
    start: int
    end: int
    length: int
    counts: dict[str, int]  # the query's terms only


def _read(root: Path, path: str) -> str | None:
    """A tracked file as bm25 indexes it: a regular file (not a symlink) of 1 to
    1 000 000 bytes of UTF-8."""
    try:
        info = os.lstat(root / path)
        if not stat.S_ISREG(info.st_mode) or not 0 < info.st_size <= BM25_CONTEXT_MAX_FILE_BYTES:
            return None
        with open(root / path, "rb") as handle:
            data = handle.read(BM25_CONTEXT_MAX_FILE_BYTES + 1)
        return data.decode("utf-8") if 0 < len(data) <= BM25_CONTEXT_MAX_FILE_BYTES else None
    except (OSError, UnicodeDecodeError):
        return None


def _documents(path: str, text: str, query: dict[str, float]) -> list[_Document]:
    lines = text.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    path_tokens = tokenize(path)
    per_line = [tokenize(line) for line in lines]
    out = []
    for start, end in chunk_rows(lines):
        length = 2 * len(path_tokens)
        counts: Counter[str] = Counter()
        for tokens in per_line[start:end]:
            length += len(tokens)
            counts.update(t for t in tokens if t in query)
        for token in path_tokens:
            if token in query:
                counts[token] += 2
        if length:
            out.append(_Document(path, start, end, length, dict(counts)))
    return out


def _index(space: Workspace, query: dict[str, float], lsp_ran: bool) -> list[_Document] | None:
    scene = space.scene
    if scene.repository is None:
        return None
    paths = scene.repository.tracked_paths(scene.commit)
    if paths is None:
        return None
    root = scene.worktree()
    documents: list[_Document] = []
    for path in paths:
        if path in scene.deleted:  # the edit history deleted it on disk
            continue
        if lsp_ran and path == scene.cursor.path:  # the lsp source saved the cursor buffer
            text: str | None = scene.buffers.get(path)
        else:
            text = _read(root, path)
        if text:
            documents.extend(_documents(path, text, query))
    return documents


def _scores(documents: list[_Document], query: dict[str, float]) -> list[tuple[float, _Document]]:
    total = len(documents)
    avgdl = sum(d.length for d in documents) / total if total else 0.0
    if not total or avgdl == 0:
        return []
    df: Counter[str] = Counter()
    for document in documents:
        df.update(document.counts.keys())
    idf = {t: math.log((total - df[t] + 0.5) / (df[t] + 0.5) + 1) for t in df}
    scored = []
    for document in documents:
        norm = _K1 * (1 - _B + _B * document.length / max(avgdl, 1.0))
        score = 0.0
        for term in sorted(document.counts):
            tf = document.counts[term]
            score += query[term] * idf[term] * tf * (_K1 + 1) / (tf + norm)
        if score > 0:
            scored.append((score, document))
    return scored


def bm25(space: Workspace, entries: Sequence[EditEntry], lsp_ran: bool) -> None:
    """Score every chunk, keep the 12 best (at most 3 per file): the ``n``-th gets
    order ``next_order + n``; rows are applied to the buffer as they are (a chunk
    that cannot be opened, or lies past the buffer's end, keeps its number)."""
    query = query_terms(space, entries)
    if not query:
        return
    documents = _index(space, query, lsp_ran)
    if not documents:
        return
    ranked = sorted(_scores(documents, query), key=lambda s: (-s[0], path_key(s[1].path), s[1].start))
    first = space.next_order()
    per_file: Counter[str] = Counter()
    selected = 0
    for _, document in ranked:
        if selected == BM25_CONTEXT_CHUNK_COUNT:
            break
        if per_file[document.path] == BM25_CONTEXT_MAX_CHUNKS_PER_FILE:
            continue
        per_file[document.path] += 1
        buffer = space.buffer(document.path)
        points = None if buffer is None else buffer.row_range(document.start, document.end)
        if points is not None:
            space.add(document.path, *points, first + selected, "bm25")
        selected += 1
