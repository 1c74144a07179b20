"""Reversal ratio (§4.6): how much of the prediction undoes the user's own last edit."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from .._cursor import _nbytes
from .._diff import Edit, Hunk, Kind, apply_hunks, classify, parse_diff, split_lines
from .._exceptions import DiffError
from .._request import EditEvent
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


def _lines_inclusive(text: str) -> list[str]:
    """Rust's ``split_inclusive('\\n')``: lines with their newlines."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _starts(pieces: Sequence[str]) -> list[int]:
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece))
    return starts


def _granular_edits(old: str, new: str) -> list[_TextEdit]:
    """Zed's ``text_diff``: a line diff whose small hunks are refined to tokens.

    A hunk of at most 8 lines and 512 bytes on both sides is re-diffed on the
    metrics tokens. Zed diffs with imara-diff's histogram algorithm; difflib's
    matcher (autojunk off) can align some changes differently (§7.11).
    """
    old_lines, new_lines = _lines_inclusive(old), _lines_inclusive(new)
    old_starts, new_starts = _starts(old_lines), _starts(new_lines)
    edits: list[_TextEdit] = []
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        o_start, o_end = old_starts[i1], old_starts[i2]
        n_start, n_end = new_starts[j1], new_starts[j2]
        old_part, new_part = old[o_start:o_end], new[n_start:n_end]
        refine = (
            old_part
            and new_part
            and i2 - i1 <= _MAX_REFINE_LINES
            and j2 - j1 <= _MAX_REFINE_LINES
            and _nbytes(old_part) <= _MAX_REFINE_BYTES
            and _nbytes(new_part) <= _MAX_REFINE_BYTES
        )
        if not refine:
            edits.append(_TextEdit(o_start, o_end, old_part, new_part))
            continue
        old_tokens, new_tokens = tokenize(old_part), tokenize(new_part)
        old_offsets, new_offsets = _starts(old_tokens), _starts(new_tokens)
        inner = SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
        for tag2, a1, a2, b1, b2 in inner.get_opcodes():
            if tag2 == "equal":
                continue
            start, end = o_start + old_offsets[a1], o_start + old_offsets[a2]
            edits.append(
                _TextEdit(start, end, old[start:end], new_part[new_offsets[b1] : new_offsets[b2]])
            )
    return edits


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

    ``before`` is the text before the user's last edit, ``current`` after it (the
    original the model saw), ``predicted`` the model's text. The ratio is the share
    of the prediction's changed characters that remove what the user added or
    restore what the user deleted.
    """
    history = _normalize_edits(_granular_edits(before, current))
    prediction = _normalize_edits(_granular_edits(current, predicted))
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


def _drop_first_component(path: str) -> str | None:
    _, sep, rest = path.partition("/")
    return rest if sep and rest else None


def _event_matches(path: str, cursor_path: str | None) -> bool:
    """Is this event about the cursor file? Either path may carry a repository-name
    prefix (``tree-sitter/crates/...``), as old examples do."""
    if cursor_path is None:
        return True
    return cursor_path in (path, _drop_first_component(path)) or (
        path == _drop_first_component(cursor_path)
    )


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


def reversal_ratio(
    events: Sequence[EditEvent],
    cursor_path: str | None,
    excerpt_start_row: int | None,
    original: str,
    actual: str,
) -> float:
    """How much of the prediction undoes the user's last edit, 0–1 (§4.6).

    Only the **last** event for the cursor file counts (``cursor_path`` None: every
    event does), and 0 is returned when it is an accepted prediction, empty, or
    does not undo cleanly. With ``excerpt_start_row``, the event's hunks that touch
    the excerpt's rows are undone on the excerpt (``original``); without it, the
    whole event is undone, hunk by hunk, skipping hunks that do not apply.

    Drift from Zed (§7.11): Zed finds the edits with imara-diff's histogram diff;
    :mod:`difflib` may align a change differently, so ratios can differ slightly.
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
    if excerpt_start_row is not None:
        first, end = excerpt_start_row, excerpt_start_row + len(split_lines(original))
        undo: list[Hunk] = []
        for hunk, row in hunks:
            if row is None:
                undo.append(_reversed(hunk, None))
                continue
            new_text = hunk.new_text()
            rows = new_text.count("\n") + (0 if new_text.endswith("\n") or not new_text else 1)
            if row + rows <= first or row >= end:
                continue
            undo.append(_reversed(hunk, row - first if row >= first else None))
        if not undo:
            return 0.0
        try:
            before = apply_hunks(original, undo)
        except DiffError:
            return 0.0
    else:
        before = original
        for hunk, row in hunks:
            try:
                before = apply_hunks(before, [_reversed(hunk, row)])
            except DiffError:
                continue
    return compute_reversal_overlap(before, original, actual)
