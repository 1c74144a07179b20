"""Cheap smells of a broken prediction (§4.2): unbalanced braces, edits outside the
editable region, isolated whitespace changes, token churn."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .._diff import split_lines
from ._tokens import is_blank, lcs_length, tokenize


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


@dataclass(frozen=True)
class PatchHunk:
    """A hunk as Zed's metrics ``Patch`` parser sees it (§4.7).

    ``lines`` are ``(prefix, text)`` with prefix ``" "``, ``"+"`` or ``"-"``. Unlike
    the tolerant applier, an empty line is garbage here, not context, and is
    skipped; a ``@@`` line that is not a valid header still starts a hunk (rows 0).
    """

    path: str
    old_start: int
    new_start: int
    lines: tuple[tuple[str, str], ...]


_HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _strip_path(rest: str) -> str:
    path = rest.split("\t", 1)[0].strip()
    return path[2:] if path.startswith(("a/", "b/")) else path


def parse_patch(patch: str) -> list[PatchHunk]:
    hunks: list[PatchHunk] = []
    old_path = new_path = ""
    old_start = new_start = 0
    lines: list[tuple[str, str]] = []

    def flush() -> None:
        if lines:
            path = new_path if new_path and new_path != "/dev/null" else old_path
            hunks.append(PatchHunk(path, old_start, new_start, tuple(lines)))
            lines.clear()

    for line in split_lines(patch):
        if line.startswith("+++ "):
            new_path = _strip_path(line[4:])
        elif line.startswith("--- "):
            flush()
            old_path = new_path = _strip_path(line[4:])
            old_start = new_start = 0
        elif line.startswith("@@"):
            flush()
            match = _HUNK_HEADER.match(line)
            old_start, new_start = (int(match[1]), int(match[2])) if match else (0, 0)
        elif line[:1] in ("+", "-", " "):
            lines.append((line[0], line[1:]))
    flush()
    return hunks


def wrong_editable_region(actual_patch: str) -> bool:
    """True when the first hunk opens with 3 or more deletions (§4.2).

    That is what a model does when it was shown the wrong region: it deletes the
    lines it does not recognise before writing its own.
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
    context lines. A blank line *added* on the cursor's row (``cursor_row`` is
    0-based, in the frame of the patch's ``+N`` header numbers) is excused: the user
    is about to type there.
    """
    cursor_line = None if cursor_row is None else cursor_row + 1
    for hunk in parse_patch(actual_patch):
        lines = hunk.lines
        new_line = hunk.new_start
        for index, (prefix, text) in enumerate(lines):
            if prefix == " ":
                new_line += 1
                continue
            if prefix == "+":
                here = new_line
                new_line += 1
                if is_blank(text) and cursor_line == here:
                    continue
            if not is_blank(text):
                continue
            if _isolated(lines, index):
                return True
    return False


def _isolated(lines: Sequence[tuple[str, str]], index: int) -> bool:
    for neighbours in (reversed(lines[:index]), lines[index + 1 :]):
        for prefix, text in neighbours:
            if prefix == " ":
                break
            if not is_blank(text):
                return False
    return True


@dataclass(frozen=True)
class TokenChanges:
    inserted_tokens: int = 0
    deleted_tokens: int = 0


def _token_diff(old_lines: list[str], new_lines: list[str]) -> tuple[int, int]:
    old_tokens = tokenize("\n".join(old_lines))
    new_tokens = tokenize("\n".join(new_lines))
    common = lcs_length(old_tokens, new_tokens)
    return len(new_tokens) - common, len(old_tokens) - common


def token_changes(actual_patch: str) -> TokenChanges:
    """Tokens inserted and deleted by a patch (§4.2), run of ``-``/``+`` lines by run.

    Zed diffs each run's tokens with ``similar``'s Myers diff. Myers finds a
    *shortest* edit script, and the number of insertions and deletions in any
    shortest script is fixed (``len - LCS`` on each side), so we count with an
    exact LCS instead of porting Myers; difflib's matcher, which is not minimal,
    would over-count.
    """
    inserted = deleted = 0
    old_run: list[str] = []
    new_run: list[str] = []

    def flush() -> None:
        nonlocal inserted, deleted
        if old_run or new_run:
            ins, dele = _token_diff(old_run, new_run)
            inserted += ins
            deleted += dele
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
    return TokenChanges(inserted, deleted)
