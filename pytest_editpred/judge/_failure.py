"""The failure diff: from the best expected result to the predicted one, as a failed
item shows it.

A wrong answer can differ from the expected result in many places of a 2,000-line
file, and the reader looks first for the place the edit was expected, at the cursor.
So the diff is kept hunk by hunk (:class:`FailureDiff`) and shown two ways: whole, in
file order (:meth:`FailureDiff.whole`: what ``-vv`` shows, at most
:data:`MAX_DIFF_LINES` lines), or the hunks nearest the cursor first and only a few of
them (:meth:`FailureDiff.nearest`: the default report and ``--tb=short``), with a line
saying how much more there is.

Both cursors are drawn in as ``‸``. Control characters are shown escaped
(:func:`~pytest_editpred._clip.escape_controls`): the diff is printed to a terminal,
and a model's answer must not drive it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._verdict import Verdict

__all__ = ["MAX_DIFF_LINES", "MAX_DIFF_LINE_CHARS", "FailureDiff", "draw_cursor", "failure_diff"]

CURSOR_MARK = "‸"  # drawn into texts in failure output

MAX_DIFF_LINES = 400
"""Lines of a whole failure diff shown; :data:`MAX_DIFF_LINE_CHARS` characters of each."""

MAX_DIFF_LINE_CHARS = 500

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? ")


def draw_cursor(text: str, offset: int | None) -> str:
    if offset is None or not 0 <= offset <= len(text):
        return text
    return text[:offset] + CURSOR_MARK + text[offset:]


@dataclass(frozen=True)
class FileDiff:
    """One file's diff: the note that its changed region was too big to align (None
    when it was aligned), its ``---``/``+++`` lines, its hunks (each the ``@@`` line
    and the lines under it, every line ending in a newline), and how many lines of
    its one unaligned hunk were not made."""

    path: str
    note: str | None
    header: tuple[str, ...]
    hunks: tuple[tuple[str, ...], ...]
    omitted: int

    @property
    def size(self) -> int:
        """Its lines, as the whole diff counts them: the note, the header, the hunks."""
        return (self.note is not None) + len(self.header) + sum(map(len, self.hunks)) + self.omitted


@dataclass(frozen=True)
class FailureDiff:
    """Every changed file's diff (the cursor file's even when it is unchanged: it
    holds the cursors), and the row of the best expected text of ``cursor_path``
    that the cursor is on, which :meth:`nearest` orders the hunks by."""

    files: tuple[FileDiff, ...]
    cursor_path: str
    cursor_row: int

    @classmethod
    def of(cls, verdict: Verdict, path: str, context: int = 3, *, cursor: tuple[int, str] | None = None) -> FailureDiff:
        """The diff of a verdict's best candidate against the prediction; ``path`` is
        the cursor file. ``cursor``: the cursor's offset in the text of the cursor
        file the answer was given for, and that text (without it, the cursor is taken
        to be at the top). Each file costs one
        :func:`~pytest_editpred._textdiff.diff_texts`, aligned as far as the viewer
        aligns (two edits far apart read as two hunks) and made up to
        :data:`MAX_DIFF_LINES` lines."""
        from .._textdiff import MAX_ALIGNED_LINES, diff_texts

        if verdict.best is None:
            return cls((), path, 0)
        from ..scene import deleted_paths
        from ._verdict import _state

        candidate = verdict.candidates[verdict.best]
        wanted, got = candidate.buffers, verdict.predicted_buffers
        paths = sorted(
            p
            for p in set(wanted) | set(got) | deleted_paths(wanted) | deleted_paths(got)
            if _state(wanted, p) != _state(got, p) or p == path
        )
        files = []
        for name in paths:
            said = _existence(name, wanted, got)
            if name in deleted_paths(wanted) or name in deleted_paths(got):
                # no text on one side: the line says it all
                files.append(FileDiff(name, said, (), (), 0))
                continue
            expected = candidate.buffers.get(name, "")
            predicted = verdict.predicted_buffers.get(name, "")
            if candidate.cursor and candidate.cursor[0] == name:
                expected = draw_cursor(expected, candidate.cursor[1])
            if verdict.predicted_cursor and verdict.predicted_cursor[0] == name:
                predicted = draw_cursor(predicted, verdict.predicted_cursor[1])
            diff = diff_texts(
                expected,
                predicted,
                f"expected/{name}",
                f"predicted/{name}",
                context,
                no_newline_marker=False,
                max_aligned=MAX_ALIGNED_LINES,
                max_lines=MAX_DIFF_LINES + 1,
            )
            lines = [line + "\n" for line in diff.text.split("\n")[:-1]]
            hunks: list[list[str]] = []
            for line in lines[2:]:
                if line.startswith("@@"):
                    hunks.append([])
                hunks[-1].append(line)
            note = _existence(name, wanted, got)
            if not diff.aligned:
                note = (note or "") + (
                    f"(the {diff.changed_lines} changed lines are shown as one replacement, not aligned)\n"
                )
            files.append(FileDiff(name, note, tuple(lines[:2]), tuple(map(tuple, hunks)), diff.omitted))
        row = 0
        if candidate.cursor is not None and candidate.cursor[0] == path:
            row = candidate.buffers[path].count("\n", 0, candidate.cursor[1])
        elif cursor is not None:
            row = _row_after(cursor[0], cursor[1], candidate.buffers.get(path, cursor[1]))
        return cls(tuple(files), path, row)

    @property
    def size(self) -> int:
        """The lines of the whole diff, those not made included."""
        return sum(f.size for f in self.files)

    def whole(self) -> str:
        """Every file in path order, hunks in file order, at most
        :data:`MAX_DIFF_LINES` lines, the rest counted."""
        lines: list[str] = []
        for file in self.files:
            lines.extend([file.note] if file.note is not None else ())
            lines.extend(file.header)
            for hunk in file.hunks:
                lines.extend(hunk)
        if self.size > MAX_DIFF_LINES:
            lines[MAX_DIFF_LINES:] = [f"... {self.size - MAX_DIFF_LINES} more lines of diff\n"]
        return _shown(lines)

    def nearest(self, hunks: int, lines: int, more: str) -> str:
        """The hunks nearest the cursor first: the cursor file's by their distance in
        rows from the cursor, then the other files' in order. At most ``hunks`` of
        them and ``lines`` lines (file headers included; the nearest hunk is shown
        even when it is longer, cut to ``lines``); then one line saying how many
        lines and hunks are not shown, and ``more``: how to see them."""
        order = sorted((self._rank(f, h), f, h) for f, file in enumerate(self.files) for h, _ in enumerate(file.hunks))
        # a file deleted or created on one side only has no hunk, just the line saying so
        shown: list[str] = [file.note for file in self.files if not file.hunks and file.note is not None]
        opened: set[int] = set()
        taken = 0
        for _, f, h in order:
            file = self.files[f]
            head = [] if f in opened else ([file.note] if file.note is not None else []) + list(file.header)
            cost = len(head) + len(file.hunks[h])
            if taken == hunks or (taken and len(shown) + cost > lines):
                break
            opened.add(f)
            shown.extend(head)
            shown.extend(file.hunks[h])
            taken += 1
        del shown[lines:]
        hidden = self.size - len(shown)
        if hidden:
            rest = len(order) - taken
            also = f", {rest} more hunk{'s' if rest != 1 else ''}" if rest else ""
            shown.append(f"... {hidden} more line{'s' if hidden != 1 else ''} of diff{also}: {more}\n")
        return _shown(shown)

    def _rank(self, f: int, h: int) -> tuple[int, int]:
        """The cursor file's hunks by their distance from the cursor row, then the
        other files' (``sorted`` keeps file and hunk order among equals)."""
        file = self.files[f]
        if file.path != self.cursor_path:
            return (1, 0)
        found = _HUNK.match(file.hunks[h][0])
        if found is None:  # pragma: no cover - every hunk starts with its @@ line
            return (0, 0)
        start = int(found[1]) - 1
        end = start + max(int(found[2] or 1), 1)
        row = self.cursor_row
        return (0, 0 if start <= row < end else start - row if row < start else row - end + 1)


def _existence(path: str, wanted: Mapping[str, str], got: Mapping[str, str]) -> str | None:
    """One line when the expected patch and the prediction disagree on whether
    ``path`` exists (a deletion, a creation), naming it; None when they agree."""
    from ..scene import created_paths, deleted_paths

    for who, other, mine, theirs in (
        ("the expected patch", "the prediction", wanted, got),
        ("the prediction", "the expected patch", got, wanted),
    ):
        if path in deleted_paths(mine) and path not in deleted_paths(theirs):
            return f"{path}: {who} deletes this file; {other} {'edits' if path in theirs else 'keeps'} it\n"
        if path in created_paths(mine) and path not in theirs:
            return f"{path}: {who} creates this file; {other} does not\n"
    return None


def _row_after(offset: int, before: str, after: str) -> int:
    """The row of ``after`` that ``offset`` of ``before`` is on once ``before`` became
    ``after`` (inside the changed region: the row where the change starts)."""
    from .._text import change_between

    change = change_between(before, after)
    if offset <= change.start:
        return after.count("\n", 0, offset)
    if offset >= change.before_end:
        return after.count("\n", 0, offset + change.shift)
    return after.count("\n", 0, change.start)


def _shown(lines: list[str]) -> str:
    """The lines as printed: each cut to :data:`MAX_DIFF_LINE_CHARS`, controls escaped."""
    from .._clip import escape_controls

    return escape_controls("".join(_clipped_line(line) for line in lines))


def failure_diff(verdict: Verdict, cursor_path: str, context: int = 3) -> str:
    """The whole diff from the best expected result to the predicted one, every
    changed file, at most :data:`MAX_DIFF_LINES` lines (:meth:`FailureDiff.whole`)."""
    return FailureDiff.of(verdict, cursor_path, context).whole()


def _clipped_line(line: str) -> str:
    """A diff line of at most :data:`MAX_DIFF_LINE_CHARS` characters, the cut said."""
    if len(line) <= MAX_DIFF_LINE_CHARS + 1:
        return line
    return f"{line[:MAX_DIFF_LINE_CHARS]} [... {len(line) - 1 - MAX_DIFF_LINE_CHARS:,} more characters on this line]\n"
