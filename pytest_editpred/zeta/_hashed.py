"""§7 V0615HashRegions: every related excerpt shown with content-hashed marker tags.

V0615 has no cursor-centred editable region: the model may rewrite any span between
two tags of any excerpt it was shown, so the answer is a patch over related files, not
a new region. The tags hash the block they open, so an id names the same text in the
prompt and in the answer whatever the order of the excerpts; one used-set over the
whole table keeps ids unique, which is what lets a span find its excerpt.

Public pieces, in the order of the spec:

* tags and the marker table (§7.1): :func:`tag_id`, :func:`unique_tag_id`,
  :func:`marker_tag`, :func:`build_marker_table`;
* :func:`write_snippet_with_markers` (§7.2);
* :func:`related_file_patch_path`, :func:`locate_cursor_in_related_files`,
  :func:`ensure_cursor_file_excerpt` (§7.3);
* :func:`format_v0615_prompt` (§7.4);
* :func:`extract_spans`, :func:`parse_v0615_output` (§7.5) and
  :func:`build_patch_from_spans` (§7.6, shared with teacher-jumps);
* :func:`encode_patch_as_output` (§7.7);
* :func:`apply_v0615_output`: the answer as the new cursor excerpt and cursor.

Offsets are characters; sizes and budgets are UTF-8 bytes (:func:`nbytes`).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, replace
from typing import NamedTuple

from .._exceptions import PredictionError
from .._text import line_start, line_starts, nbytes
from ..metrics import histogram_diff
from ._formats import CURSOR_MARKER, SEED_END, rust_lines
from ._history import path_components
from ._input import RelatedExcerpt, RelatedFile, ZetaInput, estimate_tokens
from ._multi_region import V0618_LIMITS, compute_marker_offsets_with_limits, strip_marker_tags

__all__ = [
    "CURSOR",
    "END_MARKER",
    "NO_EDITS",
    "ALPHABET",
    "MIN_BLOCK_LINES",
    "MAX_BLOCK_LINES",
    "MAX_OUTPUT_CHARS",
    "MarkerEntry",
    "Snippet",
    "CursorLocation",
    "Span",
    "Replacement",
    "SnippetEdit",
    "PatchCursor",
    "SpansPatch",
    "tag_id",
    "unique_tag_id",
    "marker_tag",
    "marker_offsets_v0618",
    "build_marker_table",
    "merge_snippets",
    "write_snippet_with_markers",
    "strip_marker_tags",
    "related_file_patch_path",
    "locate_cursor_in_related_files",
    "ensure_cursor_file_excerpt",
    "format_v0615_prompt",
    "extract_spans",
    "build_patch_from_spans",
    "parse_v0615_output",
    "encode_patch_as_output",
    "apply_v0615_output",
    "unified_diff_with_context",
]

CURSOR = CURSOR_MARKER
END_MARKER = SEED_END
NO_EDITS = "NO_EDITS"
FIM_SUFFIX = "<[fim-suffix]>"
FIM_PREFIX = "<[fim-prefix]>"
FIM_MIDDLE = "<[fim-middle]>"
FILE_MARKER = "<filename>"
TAG_PREFIX = "<|marker_"
TAG_SUFFIX = "|>"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
#: §7.1 ``compute_marker_offsets_v0618``: §8.1 with these block limits.
MIN_BLOCK_LINES, MAX_BLOCK_LINES = V0618_LIMITS
#: §7.4 ``est(14 + 1 + 14 + 14)``: the three FIM tokens and the newline.
_FIXED_TOKENS = estimate_tokens(14 + 1 + 14 + 14)
#: A longer answer is refused before any work: no model of this format writes one,
#: and every later step is at least linear in it.
MAX_OUTPUT_CHARS = 1_000_000

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK64 = (1 << 64) - 1


# -- §9.4 helpers (private: no shared unified-diff module exists yet) ----------------

# Rust's ``char::is_whitespace`` (Unicode White_Space); ``str.isspace`` also has \x1c-\x1f.
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + ("\u2028\u2029\u202f\u205f\u3000")
)


def rust_trim(text: str) -> str:
    """Rust's ``str::trim``."""
    return text.strip(_RUST_WHITESPACE)


def unified_diff_with_context(old: str, new: str, old_start: int, new_start: int, context: int) -> str:
    """§9.4 ``unified_diff_with_context``: a histogram line diff (``lines()`` tokens),
    hunks joined when the next change starts at most ``2 * context`` lines after the
    last, counts always written, no "No newline" line, every line ending in ``\n``."""
    before, after = rust_lines(old), rust_lines(new)
    changes = histogram_diff(before, after).changes
    if not changes:
        return ""
    groups: list[list[tuple[int, int, int, int]]] = [[changes[0]]]
    for change in changes[1:]:
        if change[0] - groups[-1][-1][1] > 2 * context:
            groups.append([change])
        else:
            groups[-1].append(change)
    out: list[str] = []
    for group in groups:
        first, last = group[0], group[-1]
        lead = min(context, first[0], first[2])
        trail = min(context, len(before) - last[1], len(after) - last[3])
        old_begin, new_begin = first[0] - lead, first[2] - lead
        old_end, new_end = last[1] + trail, last[3] + trail
        out.append(
            f"@@ -{old_begin + 1 + old_start},{old_end - old_begin} "
            f"+{new_begin + 1 + new_start},{new_end - new_begin} @@\n"
        )
        position = old_begin
        for b0, b1, a0, a1 in group:
            out.extend(f" {line}\n" for line in before[position:b0])
            out.extend(f"-{line}\n" for line in before[b0:b1])
            out.extend(f"+{line}\n" for line in after[a0:a1])
            position = b1
        out.extend(f" {line}\n" for line in before[position:old_end])
    return "".join(out)


# -- §7.1 tags --------------------------------------------------------------------


def _fnv1a64(seed: int, data: bytes) -> int:
    """FNV-1a 64 over the seed's 8 little-endian bytes, then the content."""
    value = _FNV_OFFSET
    for byte in struct.pack("<Q", seed & _MASK64) + data:
        value = ((value ^ byte) * _FNV_PRIME) & _MASK64
    return value


def tag_id(content: str, seed: int = 0) -> str:
    """The 4-character id of a block: char ``i`` is ``ALPHABET[(hash >> 6i) & 63]``."""
    value = _fnv1a64(seed, content.encode("utf-8"))
    return "".join(ALPHABET[(value >> (6 * i)) & 63] for i in range(4))


def unique_tag_id(content: str, used: set[str]) -> str:
    """The id of ``content`` with the first seed (from 0) not in ``used``; adds it."""
    seed = 0
    while True:
        candidate = tag_id(content, seed)
        if candidate not in used:
            used.add(candidate)
            return candidate
        seed += 1


def marker_tag(ident: str) -> str:
    return f"{TAG_PREFIX}{ident}{TAG_SUFFIX}"


def marker_offsets_v0618(text: str) -> list[int]:
    """§7.1 step 1: the block boundaries of one excerpt (limits 3 and 32 lines)."""
    return compute_marker_offsets_with_limits(text, *V0618_LIMITS)


def _tag_ids(text: str, offsets: list[int], used: set[str]) -> tuple[str, ...]:
    """§7.1 step 2: tag ``i`` hashes the block it opens; the last one hashes the block
    before it (so it collides with its neighbour and is reseeded)."""
    ids = []
    for i in range(len(offsets)):
        if i + 1 < len(offsets):
            block = text[offsets[i] : offsets[i + 1]]
        elif i > 0:
            block = text[offsets[i - 1] : offsets[i]]
        else:
            block = text[: offsets[0]]
        ids.append(unique_tag_id(block, used))
    return tuple(ids)


@dataclass(frozen=True)
class MarkerEntry:
    """One excerpt of the marker table: where it comes from, its text and its tags.

    ``path`` is the patch path (:func:`related_file_patch_path`, joined by ``/``);
    ``offsets[i]`` is where tag ``ids[i]`` stands in ``text``.
    """

    file_ix: int
    excerpt_ix: int
    path: str
    text: str
    start_row: int
    end_row: int
    offsets: tuple[int, ...]
    ids: tuple[str, ...]


def build_marker_table(input: ZetaInput) -> tuple[MarkerEntry, ...]:
    """§7.1: one entry per excerpt of every related file, in related-file order, with
    one used-set for the whole table (whatever the excerpt's ``context_source``)."""
    used: set[str] = set()
    table = []
    for file_ix, file in enumerate(input.related_files or ()):
        path = related_file_patch_path(input.cursor_path, file.path)
        for excerpt_ix, excerpt in enumerate(file.excerpts):
            offsets = marker_offsets_v0618(excerpt.text)
            table.append(
                MarkerEntry(
                    file_ix=file_ix,
                    excerpt_ix=excerpt_ix,
                    path=path,
                    text=excerpt.text,
                    start_row=excerpt.start_row,
                    end_row=excerpt.end_row,
                    offsets=tuple(offsets),
                    ids=_tag_ids(excerpt.text, offsets, used),
                )
            )
    return tuple(table)


@dataclass(frozen=True)
class Snippet:
    """Touching excerpts of one file merged (§7.6), so a span may cross their seam."""

    file_ix: int
    excerpt_ixs: tuple[int, ...]
    path: str
    text: str
    start_row: int
    end_row: int
    offsets: tuple[int, ...]
    ids: tuple[str, ...]


def merge_snippets(table: tuple[MarkerEntry, ...]) -> tuple[Snippet, ...]:
    """§7.6 "Snippets": consecutive excerpts of a file whose rows touch become one
    text (``\\n`` added between them if the first lacks it), offsets shifted."""
    merged: list[Snippet] = []
    for entry in table:
        last = merged[-1] if merged else None
        if (
            last is not None
            and last.file_ix == entry.file_ix
            and last.excerpt_ixs[-1] + 1 == entry.excerpt_ix
            and last.end_row == entry.start_row
        ):
            head = last.text if last.text.endswith("\n") else last.text + "\n"
            shift = len(head)
            merged[-1] = Snippet(
                file_ix=last.file_ix,
                excerpt_ixs=(*last.excerpt_ixs, entry.excerpt_ix),
                path=last.path,
                text=head + entry.text,
                start_row=last.start_row,
                end_row=entry.end_row,
                offsets=(*last.offsets, *(offset + shift for offset in entry.offsets)),
                ids=(*last.ids, *entry.ids),
            )
        else:
            merged.append(
                Snippet(
                    file_ix=entry.file_ix,
                    excerpt_ixs=(entry.excerpt_ix,),
                    path=entry.path,
                    text=entry.text,
                    start_row=entry.start_row,
                    end_row=entry.end_row,
                    offsets=entry.offsets,
                    ids=entry.ids,
                )
            )
    return tuple(merged)


# -- §7.2 writing a snippet ---------------------------------------------------------


def write_snippet_with_markers(
    text: str, offsets: tuple[int, ...] | list[int], ids: tuple[str, ...] | list[str], cursor: int | None = None
) -> str:
    """§7.2: each tag on its own line, the block after it; the cursor goes in the first
    block with ``o[i] <= cursor <= o[i+1]``; no newline after the last tag."""
    out: list[str] = []
    ends_with_newline = True  # an empty output needs no newline
    placed = cursor is None
    for i, ident in enumerate(ids):
        if out and not ends_with_newline:
            out.append("\n")
        out.append(marker_tag(ident))
        ends_with_newline = False
        if i + 1 < len(offsets):
            start, end = offsets[i], offsets[i + 1]
            block = text[start:end]
            if not placed and cursor is not None and start <= cursor <= end:
                block = block[: cursor - start] + CURSOR + block[cursor - start :]
                placed = True
            out.append("\n")
            out.append(block)
            ends_with_newline = block.endswith("\n") or not block
    return "".join(out)


# -- §7.3 where the cursor is -------------------------------------------------------


def _join(parts: list[str]) -> str:
    return "/".join(parts)


def _patchpath_components(cursor_path: str, related_path: str) -> list[str]:
    related = path_components(related_path)
    cursor = path_components(cursor_path)
    stripped = related[1:]
    if stripped == cursor:
        return stripped
    if related and (not cursor or related[0] != cursor[0]) and len(related) > 1:
        return stripped
    return related


def related_file_patch_path(cursor_path: str, related_path: str) -> str:
    """§7.3: a related path that carries the worktree root (``jaq/jaq/src/main.rs``
    for the cursor file ``jaq/src/main.rs``) loses its first component; the result's
    components are joined by ``/``."""
    return _join(_patchpath_components(cursor_path, related_path))


def _is_cursor_file(cursor_path: str, related_path: str) -> bool:
    """Path equality as Rust compares paths: component by component."""
    return _patchpath_components(cursor_path, related_path) == path_components(cursor_path)


class _Line(NamedTuple):
    start: int
    length: int  # without the newline and one trailing ``\r`` (Rust's ``lines()``)


def _nth_line(text: str, n: int) -> _Line | None:
    """Line ``n`` of ``text`` as Rust's ``lines().nth(n)`` sees it (as :func:`rust_lines`)."""
    start = line_start(text, n)
    if start is None or start >= len(text):
        return None  # a final newline makes no empty last line (nor does "")
    newline = text.find("\n", start)
    end = len(text) if newline < 0 else newline
    if end > start and text[end - 1] == "\r":
        end -= 1
    return _Line(start, end - start)


@dataclass(frozen=True)
class CursorLocation:
    """The related excerpt that shows the cursor, and the cursor's offset in its text."""

    file_ix: int
    excerpt_ix: int
    offset: int


def _cursor_row_col(input: ZetaInput) -> tuple[int, int] | None:
    if input.excerpt_start_row is None:
        return None
    before = input.cursor_excerpt[: input.cursor_offset]
    row = input.excerpt_start_row + before.count("\n")
    col = input.cursor_offset - (before.rfind("\n") + 1)
    return row, col


def locate_cursor_in_related_files(input: ZetaInput) -> CursorLocation | None:
    """§7.3: the first excerpt of the cursor file whose rows hold the cursor row (end
    inclusive) and whose line there is long enough for the column.

    As in Zed, a candidate whose text has no line at the cursor row ends the search
    (a Rust ``?``), even if a later excerpt would match.
    """
    where = _cursor_row_col(input)
    if where is None:
        return None
    row, col = where
    for file_ix, file in enumerate(input.related_files or ()):
        if not _is_cursor_file(input.cursor_path, file.path):
            continue
        for excerpt_ix, excerpt in enumerate(file.excerpts):
            if not excerpt.start_row <= row <= excerpt.end_row:
                continue
            line = _nth_line(excerpt.text, row - excerpt.start_row)
            if line is None:
                return None
            if col <= line.length:
                return CursorLocation(file_ix, excerpt_ix, line.start + col)
    return None


def ensure_cursor_file_excerpt(input: ZetaInput) -> tuple[ZetaInput, bool]:
    """§7.3: the input with the cursor excerpt as the cursor file's only related
    excerpt when no excerpt covers the cursor, and whether the cursor is covered.

    Zed mutates its input; ours is frozen, so the (possibly) new input is returned.
    The CLI calls this for teacher-jumps only; the V0615 prompt does not.
    """
    if locate_cursor_in_related_files(input) is not None:
        return input, True
    if input.excerpt_start_row is None or not input.cursor_excerpt:
        return input, False
    start = input.excerpt_start_row
    end = start + input.cursor_excerpt.count("\n")
    synthesized = RelatedExcerpt(start, end, input.cursor_excerpt, order=0, context_source="current_file")
    files = list(input.related_files or ())
    for index, file in enumerate(files):
        if _is_cursor_file(input.cursor_path, file.path):
            files[index] = replace(file, max_row=max(file.max_row, end), excerpts=(synthesized,))
            break
    else:
        files.insert(0, RelatedFile(input.cursor_path, end, (synthesized,)))
    updated = replace(input, related_files=tuple(files))
    return updated, locate_cursor_in_related_files(updated) is not None


# -- §7.4 the prompt ------------------------------------------------------------------


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def format_v0615_prompt(input: ZetaInput, max_tokens: int = 8000) -> str | None:
    """§7.4: the hashed-region prompt, or None when it cannot be built (no related
    files, the cursor in none of them, or the cursor's excerpt over the budget).

    The cursor's excerpt is required; the others follow in ``(order, file, excerpt)``
    order and one that does not fit is skipped (not a stop, unlike §4.2). There is no
    final token check.
    """
    files = input.related_files or ()
    if not files:
        return None
    location = locate_cursor_in_related_files(input)
    if location is None:
        return None
    budget = max(0, math.floor(max_tokens * 0.9) - _FIXED_TOKENS)
    table = build_marker_table(input)
    rendered: dict[tuple[int, int], str] = {}
    for entry in table:
        here = (entry.file_ix, entry.excerpt_ix) == (location.file_ix, location.excerpt_ix)
        if here and not entry.ids:
            return None
        text = write_snippet_with_markers(entry.text, entry.offsets, entry.ids, location.offset if here else None)
        rendered[entry.file_ix, entry.excerpt_ix] = _with_newline(text)
    headers = [f"{FILE_MARKER}{related_file_patch_path(input.cursor_path, file.path)}\n" for file in files]

    key = (location.file_ix, location.excerpt_ix)
    used = estimate_tokens(nbytes(headers[location.file_ix]) + nbytes(rendered[key]))
    if used > budget:
        return None
    selected = {key}
    taken_files = {location.file_ix}
    candidates = sorted(
        (
            (excerpt.order, file_ix, excerpt_ix)
            for file_ix, file in enumerate(files)
            for excerpt_ix, excerpt in enumerate(file.excerpts)
        ),
    )
    for _, file_ix, excerpt_ix in candidates:
        if (file_ix, excerpt_ix) == key:
            continue
        cost = estimate_tokens(nbytes(rendered[file_ix, excerpt_ix]))
        if file_ix not in taken_files:
            cost += estimate_tokens(nbytes(headers[file_ix]))
        if used + cost > budget:
            continue
        used += cost
        taken_files.add(file_ix)
        selected.add((file_ix, excerpt_ix))

    out: list[str] = []
    for file_ix, file in enumerate(files):
        chosen = [ix for ix in range(len(file.excerpts)) if (file_ix, ix) in selected]
        if not chosen:
            continue
        out.append(headers[file_ix])
        for position, excerpt_ix in enumerate(chosen):
            excerpt = file.excerpts[excerpt_ix]
            out.append(rendered[file_ix, excerpt_ix])
            following = file.excerpts[chosen[position + 1]] if position + 1 < len(chosen) else None
            limit = following.start_row if following is not None else file.max_row
            if excerpt.end_row < limit:
                out.append("...\n")
    section = _with_newline("".join(out))
    return f"{FIM_SUFFIX}\n{FIM_PREFIX}{section}{FIM_MIDDLE}"


# -- §7.5 spans -----------------------------------------------------------------------


class Span(NamedTuple):
    """One ``<|marker_A|>\\n{text}<|marker_B|>`` span of an answer; ``text`` may still
    hold ``<|user_cursor|>``."""

    start_id: str
    end_id: str
    text: str


def _error(reason: str, fix: str | None = None) -> PredictionError:
    """Zed's own text (the item's report names the prompt format already)."""
    return PredictionError(
        reason,
        fix=fix
        or "The answer must be spans '<|marker_A|>\\nnew text<|marker_B|>' between tags of the prompt, or NO_EDITS.",
    )


def _tags(text: str) -> list[tuple[int, int, str]]:
    """Every terminated ``<|marker_…|>`` tag: (start, end, id)."""
    tags: list[tuple[int, int, str]] = []
    position = 0
    while True:
        start = text.find(TAG_PREFIX, position)
        if start < 0:
            return tags
        end = text.find(TAG_SUFFIX, start + len(TAG_PREFIX))
        if end < 0:
            return tags
        tags.append((start, end + len(TAG_SUFFIX), text[start + len(TAG_PREFIX) : end]))
        position = end + len(TAG_SUFFIX)


def _check_size(output: str) -> None:
    if len(output) > MAX_OUTPUT_CHARS:
        raise _error(
            f"the answer has {len(output)} characters, more than the {MAX_OUTPUT_CHARS} accepted",
            fix="Lower max_tokens, or check that the server stops on <[end▁of▁sentence]>.",
        )


def extract_spans(output: str) -> list[Span] | None:
    """§7.5 steps 1–4: the spans of an answer, or None for ``NO_EDITS``.

    Tags pair in order (1 with 2, 3 with 4, …); an unpaired last tag is ignored.
    """
    _check_size(output)
    if output.endswith(END_MARKER):
        output = output[: -len(END_MARKER)]
    if rust_trim(output) == NO_EDITS:
        return None
    tags = _tags(output)
    if len(tags) < 2:
        raise _error("output does not contain a marker-bounded span")
    spans = []
    for first, second in zip(tags[0::2], tags[1::2]):
        content = output[first[1] : second[0]]
        if content.startswith("\n"):
            content = content[1:]
        spans.append(Span(first[2], second[2], strip_marker_tags(content)))
    return spans


# -- §7.6 spans to patch --------------------------------------------------------------


class Replacement(NamedTuple):
    """``old_text[start:end]`` becomes ``text``; ``cursor`` is an offset into ``text``."""

    start: int
    end: int
    text: str
    cursor: int | None


@dataclass(frozen=True)
class SnippetEdit:
    """A changed snippet: ``old_text`` (rows from ``start_row``, file-absolute) became
    ``new_text`` through the kept ``replacements`` (in ``old_text`` offsets, sorted)."""

    path: str
    file_ix: int
    start_row: int
    old_text: str
    new_text: str
    replacements: tuple[Replacement, ...]


@dataclass(frozen=True)
class PatchCursor:
    """§7.6 step 6: the first edit's cursor, as an offset into its snippet's new text."""

    path: str
    offset: int
    new_text: str
    old_text: str
    start_row: int


@dataclass(frozen=True)
class SpansPatch:
    """The answer as Zed's patch (``--- a/…`` sections, file-absolute rows) and as
    text: ``edits`` holds every snippet whose text changed, cursor file or not."""

    patch: str
    cursor: PatchCursor | None
    edits: tuple[SnippetEdit, ...]
    #: the replacement that carries ``cursor`` (one of some ``edits[i].replacements``,
    #: unless its snippet did not change)
    cursor_replacement: Replacement | None = None


def _normalize_newline(old: str, new: str) -> str:
    """§7.6 step 5: keep the span's final newline as it was."""
    if not old:
        return new + "\n" if new and not new.endswith("\n") else new
    if old.endswith("\n"):
        return new + "\n" if new and not new.endswith("\n") else new
    return new[:-1] if new.endswith("\n") else new


def _non_blank_lines(text: str) -> int:
    return sum(1 for line in rust_lines(text) if rust_trim(line))


def _trailing_deletion(old: str, new: str) -> str | None:
    """§7.6 step 6 ``detect_trailing_deletion``: the end of ``old`` that ``new`` would
    drop, when it has more than 3 non-blank lines (a model that stopped early)."""
    if old.startswith(new):
        tail = old[len(new) :]
        return tail if _non_blank_lines(tail) > 3 else None
    diff = unified_diff_with_context(old, new, 0, 0, 0)
    lines = diff.split("\n")[:-1] if diff else []
    run: list[str] = []
    index = len(lines) - 1
    while index >= 0 and lines[index].startswith("-"):
        run.append(lines[index][1:])
        index -= 1
    if not run or index < 0:
        return None
    header = re.match(r"@@ -(\d+),(\d+) ", lines[index])
    if header is None:
        return None
    first = int(header.group(1))
    if first + len(run) - 1 != len(rust_lines(old)):
        return None
    tail = "".join(line + "\n" for line in reversed(run))
    return tail if _non_blank_lines(tail) > 3 else None


class _Resolved(NamedTuple):
    snippet: int
    start: int
    end: int
    text: str
    cursor: int | None


def _resolve(span: Span, where: dict[str, tuple[int, int]], snippets: tuple[Snippet, ...]) -> _Resolved:
    """Steps 1–7 for one span: the replacement it makes in its snippet."""
    start = where.get(span.start_id)
    if start is None:
        raise _error(f"unknown start marker `{span.start_id[:80]}`")
    end = where.get(span.end_id)
    if end is None:
        raise _error(f"unknown end marker `{span.end_id[:80]}`")
    if start[0] != end[0]:
        raise _error(
            f"markers `{span.start_id}` and `{span.end_id}` belong to different context snippets "
            "that are not contiguous excerpts of the same file"
        )
    snippet = snippets[start[0]]
    start_offset, end_offset = snippet.offsets[start[1]], snippet.offsets[end[1]]
    if start_offset > end_offset:
        raise _error(f"start marker `{span.start_id}` must come before end marker `{span.end_id}`")
    old = snippet.text[start_offset:end_offset]
    cursor_at = span.text.find(CURSOR)
    new = _normalize_newline(old, span.text.replace(CURSOR, ""))
    if new:
        tail = _trailing_deletion(old, new)
        if tail is not None:
            raise _error(
                f"edit span `{span.start_id}`..`{span.end_id}` looks truncated: the replacement stops "
                f"before the end marker, which would silently delete:\n{tail}",
                fix="Raise max_tokens, or end each span with the end marker of the text it rewrites.",
            )
    cursor = min(cursor_at, len(new)) if cursor_at >= 0 else None
    return _Resolved(start[0], start_offset, end_offset, new, cursor)


def _apply(text: str, replacements: list[Replacement]) -> tuple[str, list[int]]:
    """The new text, and where each replacement's text starts in it."""
    out: list[str] = []
    starts: list[int] = []
    position = length = 0
    for item in replacements:
        out.append(text[position : item.start])
        length += item.start - position
        starts.append(length)
        out.append(item.text)
        length += len(item.text)
        position = item.end
    out.append(text[position:])
    return "".join(out), starts


def build_patch_from_spans(input: ZetaInput, spans: list[Span]) -> SpansPatch:
    """§7.6: apply the spans to the merged snippets of the marker table and diff each
    changed snippet with file-absolute rows.

    Overlapping spans are handled leniently, as in Zed: within a snippet, an edit
    that starts before the previous kept edit's end is dropped.
    """
    snippets = merge_snippets(build_marker_table(input))
    limit = max(16, 2 * sum(len(snippet.ids) for snippet in snippets))
    if len(spans) > limit:
        raise _error(f"the answer has {len(spans)} spans, more than the {limit} this prompt can hold")
    where: dict[str, tuple[int, int]] = {}
    for snippet_ix, snippet in enumerate(snippets):
        for marker_ix, ident in enumerate(snippet.ids):
            where.setdefault(ident, (snippet_ix, marker_ix))
    groups: dict[int, list[_Resolved]] = {}
    for span in spans:
        resolved = _resolve(span, where, snippets)
        groups.setdefault(resolved.snippet, []).append(resolved)

    sections: list[str] = []
    edits: list[SnippetEdit] = []
    cursor: PatchCursor | None = None
    carrier: Replacement | None = None
    for snippet_ix, group in groups.items():
        snippet = snippets[snippet_ix]
        kept: list[Replacement] = []
        for item in sorted(group, key=lambda resolved: resolved.start):
            if kept and item.start < kept[-1].end:
                continue
            kept.append(Replacement(item.start, item.end, item.text, item.cursor))
        new_text, starts = _apply(snippet.text, kept)
        if cursor is None:
            for kept_item, start in zip(kept, starts):
                if kept_item.cursor is not None:
                    offset = start + kept_item.cursor
                    cursor = PatchCursor(snippet.path, offset, new_text, snippet.text, snippet.start_row)
                    carrier = kept_item
                    break
        if new_text != snippet.text:
            edits.append(
                SnippetEdit(snippet.path, snippet.file_ix, snippet.start_row, snippet.text, new_text, tuple(kept))
            )
        diff = unified_diff_with_context(snippet.text, new_text, snippet.start_row, snippet.start_row, 3)
        if diff:
            sections.append(f"--- a/{snippet.path}\n+++ b/{snippet.path}\n{_with_newline(diff)}")
    return SpansPatch("".join(sections), cursor, tuple(edits), carrier)


def parse_v0615_output(output: str, input: ZetaInput) -> SpansPatch:
    """§7.5 ``parse_output_as_patch``: the answer as a patch; ``NO_EDITS`` gives an
    empty one. A malformed answer raises :class:`PredictionError`."""
    spans = extract_spans(output)
    if spans is None:
        return SpansPatch("", None, ())
    return build_patch_from_spans(input, spans)


# -- §7.7 training encoder ------------------------------------------------------------


class _Hunk(NamedTuple):
    path: str
    old_start: int  # 1-based, as in the header
    old: str
    new: str
    cursor: int | None  # in ``new``, from a ``<|user_cursor|>`` on a ``+`` line


_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def _patch_hunks(patch: str) -> list[_Hunk]:
    """The hunks of a unified diff, with their file's path (``b/`` side)."""
    hunks: list[_Hunk] = []
    path = ""
    old_path = ""
    current: tuple[int, list[str], list[str]] | None = None

    def flush() -> None:
        if current is not None:
            start, old, new = current
            text = "".join(new)
            at = text.find(CURSOR)
            hunks.append(_Hunk(path, start, "".join(old), text.replace(CURSOR, ""), at if at >= 0 else None))

    for line in rust_lines(patch):
        if line.startswith("--- "):
            flush()
            current = None
            old_path = line[4:]
            old_path = old_path[2:] if old_path.startswith("a/") else old_path
            continue
        if line.startswith("+++ "):
            flush()
            current = None
            name = line[4:]
            path = old_path if name == "/dev/null" else (name[2:] if name.startswith("b/") else name)
            continue
        header = _HUNK_HEADER.match(line)
        if header is not None:
            flush()
            current = (int(header.group(1)), [], [])
            continue
        if current is None:
            continue
        if line.startswith(" ") or line == "":
            body = line[1:] + "\n"
            current[1].append(body)
            current[2].append(body)
        elif line.startswith("-"):
            current[1].append(line[1:] + "\n")
        elif line.startswith("+"):
            current[2].append(line[1:] + "\n")
    flush()
    return hunks


def _locate_hunk(snippet: Snippet, hunk: _Hunk) -> int | None:
    """Where the hunk's old text starts in the snippet; among several matches, the one
    on the hunk's own (file-absolute) line."""
    row = hunk.old_start - 1
    if not hunk.old:
        line = _nth_line(snippet.text, row - snippet.start_row) if row >= snippet.start_row else None
        return line.start if line is not None else None
    matches = []
    position = snippet.text.find(hunk.old)
    while position >= 0:
        matches.append(position)
        position = snippet.text.find(hunk.old, position + 1)
    if len(matches) == 1:
        return matches[0]
    for match in matches:
        if snippet.start_row + snippet.text.count("\n", 0, match) == row:
            return match
    return None


def _nearest_marker(offsets: tuple[int, ...], cursor: int | None) -> int:
    """The marker closest to the cursor (ties to the earlier one); 0 without cursor."""
    if cursor is None:
        return 0
    return min(range(len(offsets)), key=lambda i: (abs(offsets[i] - cursor), i))


def _encode_block(snippet: Snippet, new: str, cursor: int | None) -> str:
    """§7.7 block encoder: the smallest marker-bounded span that covers the change."""
    old, offsets, ids = snippet.text, snippet.offsets, snippet.ids
    if old == new:
        tag = marker_tag(ids[_nearest_marker(offsets, cursor)])
        return tag + tag
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    change_end = len(old) - suffix
    start = max(i for i, offset in enumerate(offsets) if offset <= prefix)
    end = next((i for i, offset in enumerate(offsets) if offset >= change_end), len(offsets) - 1)
    if start == end:
        if end + 1 < len(offsets):
            end += 1
        elif start > 0:
            start -= 1
    span_start = offsets[start]
    span_end = len(new) - (len(old) - offsets[end])
    body = new[span_start:span_end]
    if cursor is not None and span_start <= cursor <= span_end:
        body = body[: cursor - span_start] + CURSOR + body[cursor - span_start :]
    return f"{marker_tag(ids[start])}\n{_with_newline(body) if body else body}{marker_tag(ids[end])}"


def encode_patch_as_output(input: ZetaInput, patch: str) -> str:
    """§7.7: the answer a model should give for ``patch`` (training targets).

    A ``<|user_cursor|>`` on a ``+`` line of the patch is the cursor. A hunk of a file
    not shown, or whose text is not found, is skipped.
    """
    no_edits = NO_EDITS + END_MARKER
    if len(rust_lines(patch)) <= 3:
        return no_edits
    snippets = merge_snippets(build_marker_table(input))
    blocks = []
    for hunk in _patch_hunks(patch):
        snippet = next((s for s in snippets if s.path == _join(path_components(hunk.path))), None)
        if snippet is None or not snippet.ids:
            continue
        at = _locate_hunk(snippet, hunk)
        if at is None:
            continue
        new = snippet.text[:at] + hunk.new + snippet.text[at + len(hunk.old) :]
        cursor = min(at + hunk.cursor, len(new)) if hunk.cursor is not None else None
        blocks.append(_encode_block(snippet, new, cursor))
    if not blocks:
        return no_edits
    return "\n".join(blocks) + END_MARKER


# -- the answer as the new cursor excerpt ---------------------------------------------


Point = tuple[int, int]  # (file row, column)


def _point(text: str, offset: int, start_row: int) -> Point:
    before = text[:offset]
    return start_row + before.count("\n"), offset - (before.rfind("\n") + 1)


class _ExcerptFrame:
    """The cursor excerpt placed in its file. Its last line's newline is outside the
    excerpt (§3.1), so a virtual one is added: an edit that rewrites the last line
    with its newline, as related excerpts of whole lines do, then stays inside."""

    def __init__(self, excerpt: str, first_row: int) -> None:
        self.virtual = not excerpt.endswith("\n")
        self.text = excerpt + "\n" if self.virtual else excerpt
        self.starts = line_starts(self.text)
        self.first_row = first_row
        self.begin: Point = (first_row, 0)
        self.end: Point = _point(self.text, len(self.text), first_row)

    def where(self, begin: Point, finish: Point) -> str:
        """ "inside", "outside" or "across" the excerpt, for an edit of ``begin..finish``."""
        if finish < self.begin or (finish == self.begin and begin < self.begin):
            return "outside"
        if begin > self.end or (begin == self.end and (finish > self.end or self.virtual)):
            return "outside"
        if self.begin <= begin and finish <= self.end:
            return "inside"
        return "across"

    def offset(self, point: Point) -> int | None:
        row = point[0] - self.first_row
        if not 0 <= row < len(self.starts):
            return None
        line_end = self.starts[row + 1] - 1 if row + 1 < len(self.starts) else len(self.text)
        if point[1] > line_end - self.starts[row]:
            return None
        return self.starts[row] + point[1]


def apply_v0615_output(input: ZetaInput, output: str) -> tuple[str, int | None] | None:
    """The answer as ``(new cursor excerpt, cursor)``; None when it changes nothing
    (``NO_EDITS``, or spans that rewrite text as it was).

    The cursor is a character offset into the new excerpt, or None when the answer
    puts it nowhere in the excerpt. Edits are taken from the cursor file's snippets
    and mapped onto ``cursor_excerpt`` by file row; edits outside the excerpt's rows,
    and edits to other related files, leave the excerpt alone: they are in
    ``parse_v0615_output(output, input).edits`` (:class:`SnippetEdit`, one per changed
    snippet, with file-absolute ``start_row``).

    Raises :class:`PredictionError` for a malformed answer, and for an edit that
    crosses the excerpt's first or last row (it cannot be shown as an excerpt).
    Raises ValueError when ``excerpt_start_row`` is None (no prompt exists then), or
    when the cursor file's related text disagrees with ``cursor_excerpt``.
    """
    if input.excerpt_start_row is None:
        raise ValueError("V0615 needs excerpt_start_row to place the cursor excerpt in its file")
    result = parse_v0615_output(output, input)
    if not result.edits:
        return None
    frame = _ExcerptFrame(input.cursor_excerpt, input.excerpt_start_row)
    placed: list[tuple[int, int, Replacement]] = []
    reporter = result.cursor_replacement
    for edit in result.edits:
        if not _is_cursor_file(input.cursor_path, edit.path):
            continue
        for item in edit.replacements:
            begin = _point(edit.old_text, item.start, edit.start_row)
            finish = _point(edit.old_text, item.end, edit.start_row)
            where = frame.where(begin, finish)
            if where == "outside":
                continue
            if where == "across":
                raise _error(
                    f"an edit of {edit.path} rows {begin[0] + 1}-{finish[0] + 1} crosses the edge of the "
                    f"cursor excerpt (rows {frame.begin[0] + 1}-{frame.first_row + len(frame.starts) - 1})",
                    fix="Give the cursor file's related excerpt the rows of the cursor excerpt "
                    "(ensure_cursor_file_excerpt), or score the whole-file patch instead.",
                )
            start, end = frame.offset(begin), frame.offset(finish)
            if start is None or end is None or frame.text[start:end] != edit.old_text[item.start : item.end]:
                raise ValueError(
                    f"the related excerpt of {edit.path} at row {begin[0] + 1} disagrees with cursor_excerpt"
                )
            placed.append((start, end, item))
    placed.sort(key=lambda entry: entry[0])
    out: list[str] = []
    position = length = 0
    cursor: int | None = None
    last_end = -1
    for start, end, item in placed:
        if start < last_end:
            continue
        out.append(frame.text[position:start])
        length += start - position
        if item is reporter and item.cursor is not None:
            cursor = length + item.cursor
        out.append(item.text)
        length += len(item.text)
        position = last_end = end
    out.append(frame.text[position:])
    text = "".join(out)
    if frame.virtual and text.endswith("\n"):
        text = text[:-1]
    return text, None if cursor is None else min(cursor, len(text))
