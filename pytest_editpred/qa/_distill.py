"""Zed's ``ep distill`` (zed-qa-repair.md §4): an example whose expected patches are
its chosen predictions, which is how a team labels a corpus with a teacher model.

The repair, when there is one, is the prediction chosen (only the first); otherwise
every prediction is, in order. Each one with a patch becomes an expected patch and
the old expected patches go. The predicted cursor becomes the expected cursor where
Zed puts it: in the added line that holds it, counted from the first line of the
patch (a teacher or repair patch's one hunk starts at the editable region's first
line, which is what ``editable_region_offset`` counts from); a cursor on an
unchanged line is dropped, as in Zed.

Zed writes that cursor as ``<|user_cursor|>`` inside the added line. Here it is the
``#  ^[CURSOR_POSITION]`` line under it, at the same place: the form Zed's own evals
use, which Zed's example reader and this project's read (an inline marker would be
read here as text the line must hold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .._text import rust_lines
from ..example import MARKER, Example
from ._prediction import ExamplePrediction
from ._repair import REPAIR_PROVIDER

__all__ = ["chosen_predictions", "distill", "expected_patch_of"]

_INLINE_CURSOR = "<|user_cursor|>"


def chosen_predictions(predictions: Sequence[ExamplePrediction]) -> list[ExamplePrediction]:
    """§4 step 1: the first ``repair`` prediction alone when there is one (even one
    that failed to parse), else all of them in order."""
    repaired = next((p for p in predictions if p.provider == REPAIR_PROVIDER), None)
    return [repaired] if repaired is not None else list(predictions)


def _is_header(line: str, marker: str) -> bool:
    return line.startswith(marker) and line[len(marker) : len(marker) + 1].isspace()


def _cursor_line(lines: list[str], offset: int) -> tuple[int, int] | None:
    """``encode_cursor_in_patch``'s walk: the added line that holds byte ``offset``
    of the new text counted from the patch's first line, and the byte column in
    its content; None when the offset falls on an unchanged line or nowhere."""
    position = 0
    for index, line in enumerate(lines):
        if line.startswith("\\") or any(_is_header(line, marker) for marker in ("---", "+++", "@@")):
            continue
        if line.startswith("-"):
            continue
        if line == "" or line.startswith(" "):
            position += len(line[1:].encode()) + 1
        elif line.startswith("+"):
            content = line[1:].encode()
            column = offset - position
            if 0 <= column <= len(content) and (column == len(content) or content[column] & 0xC0 != 0x80):
                return index, column
            position += len(content) + 1
    return None


def expected_patch_of(patch: str, editable_region_offset: int | None) -> str:
    """``patch`` as an expected patch: with the cursor line where Zed's
    ``encode_cursor_in_patch`` puts the cursor, or unchanged without an offset."""
    if editable_region_offset is None:
        return patch
    lines = [
        "+" + line[1:].replace(_INLINE_CURSOR, "") if line.startswith("+") and not _is_header(line, "+++") else line
        for line in rust_lines(patch)
    ]
    found = _cursor_line(lines, editable_region_offset)
    if found is not None:
        index, column = found
        lines.insert(index + 1, "#" + " " * column + "^" + MARKER)
    return "\n".join(lines) + ("\n" if patch.endswith("\n") and lines else "")


def distill(example: Example, predictions: Sequence[ExamplePrediction]) -> Example:
    """``example`` with the chosen predictions' patches as its expected patches
    (replacing the old ones; a prediction without a patch gives none, so an example
    whose repair failed to parse ends with no expected patch, as in Zed). Everything
    else is kept: history, cursor, rejected patch, the retrieved context."""
    patches = tuple(
        expected_patch_of(
            p.actual_patch, p.actual_cursor.editable_region_offset if p.actual_cursor is not None else None
        )
        for p in chosen_predictions(predictions)
        if p.actual_patch is not None
    )
    source = replace(example.source, expected_section_line=None, expected_patch_lines=())
    return replace(example, expected_patches=patches, source=source)
