"""An expected patch cut to its first groups of edits: Zed's ``ep truncate-patch``
(zed-authoring-and-context.md §2.1, ``truncate_expected_patch.rs``).

An LLM-reordered patch marks each group of edits with a ``///`` banner line, which
Zed's parser (§1.3) keeps as a Garbage line at the end of the hunk before the group.
Zed counts groups by those hunks: hunks are kept in order while the count left is
above 0, and every hunk that holds a ``///`` line takes one from it. So ``N`` keeps
every hunk up to and including the ``N``-th that holds a banner: the first ``N``
groups, when the first group's banner is in the patch's header, as a reordered
patch writes it. With ``current_file_only``, hunks of other files than the cursor's
are dropped, but still counted. Then the header is cleared, every Garbage line
starting with ``//`` is removed, and the patch is written with Zed's serializer
(every hunk with its own file header).

Only ``expected_patches[0]`` is cut, as in Zed. The expected cursor, a
``#  ^[CURSOR_POSITION]`` line in the patch, is Garbage that does not start with
``//``: it stays with its hunk, and goes when its hunk is cut, so the truncated patch
then marks no cursor (:func:`truncate_patch` says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from .split_commit import Patch, parse_patch

__all__ = ["Truncated", "truncate_patch"]


@dataclass(frozen=True)
class Truncated:
    """The cut patch; ``lost_cursor`` when the patch marked an expected cursor and
    the cut took the hunk that held it."""

    patch: str
    lost_cursor: bool = False


def truncate_patch(text: str, num_groups: int, cursor_path: str | None = None) -> Truncated:
    """``text`` cut to its first ``num_groups`` groups (Zed's rule, above); with
    ``cursor_path``, only that file's hunks are kept."""
    from ..example import extract_cursor_from_patch

    patch = parse_patch(text)
    left = num_groups
    kept = []
    for hunk in patch.hunks:
        if left <= 0:
            break
        if any(line.kind == "?" and line.text.startswith("///") for line in hunk.lines):
            left -= 1
        if cursor_path is None or hunk.filename == cursor_path:
            kept.append(hunk)
    for hunk in kept:
        hunk.lines = [line for line in hunk.lines if not (line.kind == "?" and line.text.startswith("//"))]
    cut = Patch("", kept).to_text()
    lost = extract_cursor_from_patch(text).has_cursor and not extract_cursor_from_patch(cut).has_cursor
    return Truncated(cut, lost)
