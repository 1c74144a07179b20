"""The four kinds of split (zed-authoring-and-context.md §1.7).

Where the next edit is, seen from the cursor: in another file (``cross-file``), on
the cursor's own half-typed line (``fim``), within 30 lines (``same-file-near``) or
further (``same-file-far``).
"""

from __future__ import annotations

from ._cursor import Cursor
from ._patch import parsed

__all__ = ["KINDS", "SAME_FILE_NEAR_LINE_THRESHOLD", "classify"]

KINDS = ("fim", "same-file-near", "same-file-far", "cross-file")
SAME_FILE_NEAR_LINE_THRESHOLD = 30


def classify(target: str, cursor: Cursor, from_imitation: bool) -> str | None:
    """The kind of the split whose expected patch is ``target``; None when it has no edit."""
    targets = parsed(target)[1]
    if not targets:
        return None
    edit = targets[0]
    if edit.filename != cursor.filename:
        return "cross-file"
    if from_imitation and edit.target_line == cursor.line:
        return "fim"
    if abs(edit.target_line - cursor.line) <= SAME_FILE_NEAR_LINE_THRESHOLD:
        return "same-file-near"
    return "same-file-far"
