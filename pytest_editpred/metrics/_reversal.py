"""Reversal ratio (§4.6): how much of the prediction undoes the user's own edits."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from .._diff import Edit, Hunk, Kind, apply_hunks, classify, parse_diff, split_lines
from .._exceptions import DiffError
from .._text import common_prefix_length, common_suffix_length, nbytes, split_inclusive
from ..scene import EditEvent
from ._histogram import histogram_diff
from ._tokens import lcs_length, tokenize

_MAX_REFINE_BYTES = 512
_MAX_REFINE_LINES = 8
_NEW_START = re.compile(r"\+(\d+)")


@dataclass(frozen=True)
class _TextEdit:
    """Replace ``old`` at ``[start, end)`` of the old text with ``new``."""

    start: int
    end: int
    old: str
    new: str


def _starts(pieces: Sequence[str]) -> list[int]:
    return list(accumulate(map(len, pieces), initial=0))


def _granular_edits(old: str, new: str) -> tuple[list[_TextEdit], bool]:
    """Zed's ``text_diff``: a line diff whose small hunks are refined to tokens.

    Both diffs are imara-diff's histogram diff (:mod:`._histogram`). A hunk of at
    most 8 lines and 512 bytes on both sides is re-diffed on the metrics tokens.
    Returns the edits and whether both diffs stayed exact (see the work budget in
    :mod:`._histogram`).
    """
    # The lines both texts share at their ends are what the histogram diff trims
    # first: cut them off before splitting, so the cost follows the change, not the
    # frame. Cuts are at line starts of both texts, so every line is the same.
    base = old.rfind("\n", 0, common_prefix_length(old, new)) + 1
    suffix = common_suffix_length(old, new, min(len(old), len(new)) - base)
    cut = old.find("\n", len(old) - suffix) + 1 if suffix else 0
    old_end = cut if cut else len(old)
    new_end = old_end - len(old) + len(new)
    if base or old_end < len(old):
        inner, exact = (
            _granular_edits(old[base:old_end], new[base:new_end]) if old_end - base or new_end - base else ([], True)
        )
        return [_TextEdit(e.start + base, e.end + base, e.old, e.new) for e in inner], exact
    old_lines, new_lines = split_inclusive(old), split_inclusive(new)
    lines = histogram_diff(old_lines, new_lines)
    exact = lines.exact
    edits: list[_TextEdit] = []
    if not lines.changes:
        return edits, exact
    old_starts, new_starts = _starts(old_lines), _starts(new_lines)
    for i1, i2, j1, j2 in lines.changes:
        o_start, o_end = old_starts[i1], old_starts[i2]
        n_start, n_end = new_starts[j1], new_starts[j2]
        old_part, new_part = old[o_start:o_end], new[n_start:n_end]
        refine = (
            old_part
            and new_part
            and i2 - i1 <= _MAX_REFINE_LINES
            and j2 - j1 <= _MAX_REFINE_LINES
            and nbytes(old_part) <= _MAX_REFINE_BYTES
            and nbytes(new_part) <= _MAX_REFINE_BYTES
        )
        if not refine:
            edits.append(_TextEdit(o_start, o_end, old_part, new_part))
            continue
        old_tokens, new_tokens = tokenize(old_part), tokenize(new_part)
        old_offsets, new_offsets = _starts(old_tokens), _starts(new_tokens)
        tokens = histogram_diff(old_tokens, new_tokens)
        exact = exact and tokens.exact
        for a1, a2, b1, b2 in tokens.changes:
            start, end = o_start + old_offsets[a1], o_start + old_offsets[a2]
            edits.append(_TextEdit(start, end, old[start:end], new_part[new_offsets[b1] : new_offsets[b2]]))
    return edits, exact


def _is_subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(char in it for char in short)


def _normalize_edits(edits: Iterable[_TextEdit]) -> list[_TextEdit]:
    """Turn "pure extension" edits into the insertions or deletions they are.

    ``epr`` → ``eprintln!()`` inserts ``intln!()``; it does not delete ``epr``.
    The kept characters are matched greedily from the left.
    """
    out: list[_TextEdit] = []
    for edit in edits:
        old, new = edit.old, edit.new
        if old and new and len(old) < len(new) and _is_subsequence(old, new):
            k = 0
            run: list[str] = []
            for char in new:
                if k < len(old) and char == old[k]:
                    if run:
                        out.append(_TextEdit(edit.start + k, edit.start + k, "", "".join(run)))
                        run = []
                    k += 1
                else:
                    run.append(char)
            if run:
                out.append(_TextEdit(edit.start + k, edit.start + k, "", "".join(run)))
        elif old and new and len(new) < len(old) and _is_subsequence(new, old):
            k = 0
            run_start: int | None = None
            for p, char in enumerate(old):
                if k < len(new) and char == new[k]:
                    if run_start is not None:
                        at = edit.start
                        out.append(_TextEdit(at + run_start, at + p, old[run_start:p], ""))
                        run_start = None
                    k += 1
                elif run_start is None:
                    run_start = p
            if run_start is not None:
                at = edit.start
                out.append(_TextEdit(at + run_start, at + len(old), old[run_start:], ""))
        else:
            out.append(edit)
    return out


def compute_reversal_overlap(before: str, current: str, predicted: str) -> float:
    """Zed's ``compute_reversal_overlap`` (§4.6), as a ratio.

    ``before`` is the text before the user's edits, ``current`` after them (the
    original the model saw), ``predicted`` the model's text. The ratio is the share
    of the prediction's changed characters that remove what the user added or
    restore what the user deleted.

    The cost follows the two changes, not the texts: each diff first drops the
    lines the texts share at both ends. Should a diff exceed the histogram work
    budget (:data:`._histogram.DEFAULT_BUDGET`, a pathological whole-file rewrite),
    a :class:`ReversalDiffWarning` says the ratio may differ from Zed's.
    """
    history_edits, history_exact = _granular_edits(before, current)
    prediction_edits, prediction_exact = _granular_edits(current, predicted)
    if not (history_exact and prediction_exact):
        warnings.warn(
            "reversal ratio: the histogram diff went over its work budget and finished "
            "with a Myers diff, so the ratio may differ slightly from Zed's",
            ReversalDiffWarning,
            stacklevel=2,
        )
    history = _normalize_edits(history_edits)
    prediction = _normalize_edits(prediction_edits)
    additions: list[tuple[int, int]] = []  # ranges in ``current``
    deletions: list[tuple[int, str]] = []  # (position in ``current``, deleted text)
    shift = 0
    for edit in history:
        at = edit.start + shift
        if edit.new:
            additions.append((at, at + len(edit.new)))
        if edit.old:
            deletions.append((at, edit.old))
        shift += len(edit.new) - len(edit.old)

    reversed_additions = 0
    restored_deletions = 0
    total = 0
    for edit in prediction:
        total += len(edit.new) + len(edit.old)
        for start, end in additions:
            overlap = min(edit.end, end) - max(edit.start, start)
            if overlap > 0:
                reversed_additions += overlap
        if edit.new:
            for position, deleted in deletions:
                if edit.start <= position < edit.end or position == edit.start:
                    restored_deletions += lcs_length(deleted, edit.new)
    if total == 0:
        return 0.0
    return (reversed_additions + restored_deletions) / total


class ReversalDiffWarning(RuntimeWarning):
    """A reversal ratio was computed with a diff that may not be Zed's."""


def _drop_first_component(path: str) -> str | None:
    _, sep, rest = path.partition("/")
    return rest if sep and rest else None


def _event_matches(path: str, cursor_path: str | None) -> bool:
    """Is this event about the cursor file? Either path may carry a repository-name
    prefix (``tree-sitter/crates/...``), as old examples do."""
    if cursor_path is None:
        return True
    return cursor_path in (path, _drop_first_component(path)) or (path == _drop_first_component(cursor_path))


def _event_hunks(diff: str) -> list[tuple[Hunk, int | None]]:
    """The hunks of an event diff with the 0-based new-file row each starts at.

    Zed's event diffs have no file header; ours may. The row comes from the
    header's ``+N`` (the new text is what the excerpt shows), or None.
    """
    if not any(classify(line).kind is Kind.OLD_PATH for line in split_lines(diff)):
        diff = "--- a/file\n+++ b/file\n" + diff
    sections = parse_diff(diff)
    lines = split_lines(diff)
    out: list[tuple[Hunk, int | None]] = []
    for section in sections:
        for hunk in section.hunks:
            row: int | None = None
            index = hunk.line - 1
            if 0 <= index < len(lines):
                header = classify(lines[index])
                if header.kind is Kind.HUNK_HEADER:
                    match = _NEW_START.search(lines[index])
                    row = max(int(match.group(1)) - 1, 0) if match else header.start_line
            out.append((hunk, row))
    return out


def _reversed(hunk: Hunk, start_line: int | None) -> Hunk:
    """The hunk that undoes ``hunk``: its new text as context, its edits inverted."""
    edits: list[Edit] = []
    shift = 0
    for edit in sorted(hunk.edits, key=lambda e: e.start):
        start = edit.start + shift
        edits.append(Edit(start, start + len(edit.text), hunk.context[edit.start : edit.end]))
        shift += len(edit.text) - (edit.end - edit.start)
    return Hunk(hunk.new_text(), edits, start_line, hunk.line)


_CONTEXT, _DELETED, _ADDED = " ", "-", "+"


def _hunk_lines(hunk: Hunk) -> list[tuple[str, str]]:
    """The hunk as diff lines ``(kind, text with its newline)``; within one edit the
    deleted lines come before the added ones."""
    out: list[tuple[str, str]] = []
    at = 0
    for edit in sorted(hunk.edits, key=lambda e: e.start):
        out.extend((_CONTEXT, line) for line in split_inclusive(hunk.context[at : edit.start]))
        deleted = hunk.context[edit.start : edit.end]
        out.extend((_DELETED, line) for line in split_inclusive(deleted))
        out.extend((_ADDED, line) for line in split_inclusive(edit.text))
        at = max(at, edit.end)
    out.extend((_CONTEXT, line) for line in split_inclusive(hunk.context[at:]))
    return out


def _clipped_undo(hunk: Hunk, row: int, first: int, end: int) -> Hunk | None:
    """The hunk undoing ``hunk`` (new text starting at file row ``row``) within the
    excerpt rows ``[first, end)``, renumbered from the excerpt.

    Context and added lines outside the rows are dropped; a deleted line belongs to
    the row of the next new line and is kept from ``first`` to ``end`` inclusive, so
    a deletion just after the excerpt's last line (the end of a file) still counts.
    None: nothing of the hunk's change is inside.
    """
    kept: list[tuple[str, str]] = []
    new_row = row
    kept_row: int | None = None
    for kind, line in _hunk_lines(hunk):
        inside = first <= new_row <= end if kind == _DELETED else first <= new_row < end
        if inside:
            if kept_row is None:
                kept_row = new_row
            kept.append((kind, line))
        if kind != _DELETED:
            new_row += 1
    if kept_row is None or all(kind == _CONTEXT for kind, _ in kept):
        return None
    context_parts: list[str] = []
    edits: list[Edit] = []
    length = 0
    pending: Edit | None = None
    for kind, line in kept:
        if kind == _CONTEXT:
            pending = None
            context_parts.append(line)
            length += len(line)
            continue
        if pending is None:
            pending = Edit(length, length, "")
            edits.append(pending)
        if kind == _ADDED:  # the undo removes what the event added...
            context_parts.append(line)
            length += len(line)
            pending.end = length
        else:  # ...and puts back what it deleted
            pending.text += line
    return Hunk("".join(context_parts), edits, kept_row - first, hunk.line)


def _undo_in_excerpt(text: str, hunks: list[tuple[Hunk, int | None]], first: int) -> str | None:
    """Undo one event on the excerpt ``text`` whose first file row is ``first``:
    the excerpt before the event, or None when its hunks inside the excerpt do not
    undo cleanly."""
    end = first + len(split_lines(text))
    undo: list[Hunk] = []
    for hunk, row in hunks:
        if row is None:
            undo.append(_reversed(hunk, None))
            continue
        clipped = _clipped_undo(hunk, row, first, end)
        if clipped is not None:
            undo.append(clipped)
    if not undo:
        return text
    try:
        # last hunk first, so the rows of the ones before it still hold
        return apply_hunks(text, undo[::-1])
    except DiffError:
        return None


def reversal_ratio(
    events: Sequence[EditEvent],
    cursor_path: str | None,
    excerpt_start_row: int | None,
    original: str,
    actual: str,
) -> float:
    """How much of the prediction undoes the user's last edit to the cursor file, 0–1 (§4.6).

    As Zed's ``compute_prediction_reversal_ratio_from_history``: of the events for
    the cursor file (``cursor_path`` None: every event), only the **last** one is
    undone. The ratio is 0 when there is none, when it is an accepted prediction,
    or when its diff is empty.

    With ``excerpt_start_row``, the event's hunks are clipped to the excerpt's rows
    (lines above or below it dropped, rows renumbered from the excerpt; hunks
    wholly outside dropped) and undone on the excerpt (``original``); if they do
    not undo cleanly the ratio is 0. Without it, the event is undone on the whole
    text hunk by hunk, skipping hunks that do not apply.
    """
    relevant = [event for event in events if _event_matches(event.path, cursor_path)]
    if not relevant:
        return 0.0
    last = relevant[-1]
    if last.predicted or not last.diff.strip():
        return 0.0
    try:
        hunks = _event_hunks(last.diff)
    except DiffError:
        return 0.0
    before: str | None
    if excerpt_start_row is not None:
        before = _undo_in_excerpt(original, hunks, excerpt_start_row)
    else:
        before = original
        for hunk, row in reversed(hunks):
            try:
                before = apply_hunks(before, [_reversed(hunk, row)])
            except DiffError:
                continue
    if before is None or before == original:
        return 0.0
    return compute_reversal_overlap(before, original, actual)
