"""Cheap smells of a broken prediction (§4.2): unbalanced braces, edits outside the
editable region, isolated whitespace changes, token churn; and Zed's metrics patch
parser (§4.7), which the smells and the jump location read."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .._diff import split_lines
from ._tokens import LCS_CELL_LIMIT, LCSTooLarge, is_blank, lcs_length, tokenize

# -------------------------------------------------------------------------------- braces


def text_braces_disbalance(text: str) -> int:
    """``|#{ - #}| + |#( - #)| + |#[ - #]|``."""
    return (
        abs(text.count("{") - text.count("}"))
        + abs(text.count("(") - text.count(")"))
        + abs(text.count("[") - text.count("]"))
    )


def braces_disbalance(original: str, actual: str) -> int:
    """Brackets the prediction left unbalanced that were balanced before (§4.2).

    Only the increase counts (saturating at 0): an excerpt often cuts a block in
    half, and that is not the model's fault.
    """
    return max(0, text_braces_disbalance(actual) - text_braces_disbalance(original))


# ------------------------------------------------------------------ metrics patch parser


GARBAGE = ""
"""The prefix :func:`parse_patch` gives a garbage line (its text is the whole line)."""


@dataclass(frozen=True)
class PatchHunk:
    """A hunk as Zed's metrics ``Patch`` parser sees it (§4.7, and
    zed-authoring-and-context.md §4.2).

    ``lines`` are ``(prefix, text)`` with prefix ``" "``, ``"+"`` or ``"-"``, or
    :data:`GARBAGE` (``""``) for any other line inside the hunk, whose text is then
    the whole line. Unlike the tolerant applier, an empty line is garbage here, not
    context. Garbage is kept in place because the smells stop at it (the whitespace
    scan and the opening deletions); the jump-location anchors skip it. A ``@@``
    line that is not a valid header still starts a hunk (rows 0).
    """

    path: str
    old_start: int
    new_start: int
    lines: tuple[tuple[str, str], ...]


_HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_FILE_HEADERS = ("--- ", "+++ ")
_PATCH_START = ("--- ", "+++", "@@")


def _strip_path(rest: str) -> str:
    path = rest.split("\t", 1)[0].strip()
    return path[2:] if path.startswith(("a/", "b/")) else path


def parse_patch(patch: str) -> list[PatchHunk]:
    """The hunks of ``patch`` as Zed's metrics ``Patch`` parser reads them.

    Its rules, which differ from the tolerant applier's on purpose:

    - every line before the first one starting with ``--- ``, ``+++`` or ``@@`` is
      skipped (``diff --git``, ``index``, a commit message);
    - ``--- NAME`` and ``+++ NAME`` name the file (``a/``/``b/`` stripped,
      ``/dev/null`` ignored), anywhere, inside a hunk too, and they do **not**
      close the open hunk: a deleted ``-- comment`` line reads as ``--- comment``
      and renames the hunks that follow;
    - ``@@`` opens a hunk with the most recently named file and its start rows;
    - ``+``/``-``/`` `` lines before any ``@@`` open a hunk with path ``""`` and
      rows 0, whatever file was named;
    - any other line inside a hunk, the empty line included, is garbage.

    A hunk with no lines is dropped.
    """
    hunks: list[PatchHunk] = []
    name = ""
    started = False
    hunk: tuple[str, int, int] | None = None
    lines: list[tuple[str, str]] = []

    def flush() -> None:
        if hunk is not None and lines:
            hunks.append(PatchHunk(*hunk, tuple(lines)))
        lines.clear()

    for line in split_lines(patch):
        if not started:
            if not line.startswith(_PATCH_START):
                continue
            started = True
        if line.startswith(_FILE_HEADERS):
            named = _strip_path(line[4:])
            if named != "/dev/null":
                name = named
        elif line.startswith("@@"):
            flush()
            match = _HUNK_HEADER.match(line)
            hunk = (name, int(match[1]), int(match[2])) if match else (name, 0, 0)
        elif line[:1] in ("+", "-", " ") and line:
            if hunk is None:
                hunk = ("", 0, 0)
            lines.append((line[0], line[1:]))
        elif hunk is not None:
            lines.append((GARBAGE, line))
    flush()
    return hunks


def wrong_editable_region(actual_patch: str) -> bool:
    """True when the first hunk opens with 3 or more deletions (§4.2).

    That is what a model does when it was shown the wrong region: it deletes the
    lines it does not recognise before writing its own. A garbage line (even an
    empty one) ends the count like any other non-deletion.
    """
    hunks = parse_patch(actual_patch)
    if not hunks:
        return False
    deletions = 0
    for prefix, _ in hunks[0].lines:
        if prefix != "-":
            break
        deletions += 1
    return deletions >= 3


def has_isolated_whitespace_changes(actual_patch: str, cursor_row: int | None = None) -> bool:
    """A blank ``+``/``-`` line with no non-blank change beside it (§4.2).

    Models often add or drop an empty line for no reason; such a change inside a
    real edit is fine, alone it is noise. The scan around a blank line stops at
    context lines and at garbage lines (an empty line is garbage, not context, in
    this parser: it is no change itself and it ends the run). A blank line *added*
    on the cursor's row (``cursor_row`` is 0-based, in the frame of the patch's
    ``+N`` header numbers, which garbage lines do not advance) is excused: the user
    is about to type there.
    """
    cursor_line = None if cursor_row is None else cursor_row + 1
    for hunk in parse_patch(actual_patch):
        lines = hunk.lines
        solid = _runs_with_a_real_change(lines)
        new_line = hunk.new_start
        for index, (prefix, text) in enumerate(lines):
            if prefix == GARBAGE:
                continue
            if prefix == " ":
                new_line += 1
                continue
            if prefix == "+":
                here = new_line
                new_line += 1
                if is_blank(text) and cursor_line == here:
                    continue
            if is_blank(text) and not solid[index]:
                return True
    return False


def _runs_with_a_real_change(lines: Sequence[tuple[str, str]]) -> list[bool]:
    """Per line, whether its run of changes (``+``/``-`` lines between context or
    garbage lines) holds a non-blank ``+``/``-`` line: one pass, so a long run of
    blank lines costs no more than its length."""
    marks = [False] * len(lines)
    start = 0
    while start < len(lines):
        if lines[start][0] not in ("+", "-"):
            start += 1
            continue
        end = start
        while end < len(lines) and lines[end][0] in ("+", "-"):
            end += 1
        solid = any(not is_blank(text) for _, text in lines[start:end])
        marks[start:end] = [solid] * (end - start)
        start = end
    return marks


@dataclass(frozen=True)
class TokenChanges:
    """Tokens inserted and deleted; ``minimal`` is False when a run was over
    :data:`~._tokens.LCS_CELL_LIMIT` and counted as all inserted and all deleted."""

    inserted_tokens: int = 0
    deleted_tokens: int = 0
    minimal: bool = True


def _token_diff(old_lines: list[str], new_lines: list[str]) -> tuple[int, int, bool]:
    old_tokens = tokenize("\n".join(old_lines))
    new_tokens = tokenize("\n".join(new_lines))
    try:
        common = lcs_length(old_tokens, new_tokens, LCS_CELL_LIMIT)
    except LCSTooLarge:
        return len(new_tokens), len(old_tokens), False
    return len(new_tokens) - common, len(old_tokens) - common, True


def token_changes(actual_patch: str) -> TokenChanges:
    """Tokens inserted and deleted by a patch (§4.2), run of ``-``/``+`` lines by run.

    Zed diffs each run's tokens with ``similar``'s Myers diff. Myers finds a
    *shortest* edit script, and the number of insertions and deletions in any
    shortest script is fixed (``len - LCS`` on each side), so only the exact LCS
    length is needed; difflib's matcher, which is not minimal, would over-count.
    :func:`~._tokens.lcs_length` trims the common prefix and suffix and then costs
    ``O((n + m) · D)`` for ``D`` token edits (Myers), never much more than the
    ``O(n · m / 64)`` bit-parallel DP, so a whole-file rewrite that changes little
    is cheap. A run is a maximal sequence of ``-``/``+`` lines; every other line
    (context, ``@@``, garbage) and every line starting ``---`` or ``+++`` ends it.
    """
    inserted = deleted = 0
    minimal = True
    old_run: list[str] = []
    new_run: list[str] = []

    def flush() -> None:
        nonlocal inserted, deleted, minimal
        if old_run or new_run:
            ins, dele, exact = _token_diff(old_run, new_run)
            inserted += ins
            deleted += dele
            minimal = minimal and exact
            old_run.clear()
            new_run.clear()

    for line in split_lines(actual_patch):
        if line.startswith(("---", "+++")):
            flush()
        elif line.startswith("-"):
            old_run.append(line[1:])
        elif line.startswith("+"):
            new_run.append(line[1:])
        else:
            flush()
    flush()
    return TokenChanges(inserted, deleted, minimal)
