"""A prediction as an ep example stores it (Zed's ``ExamplePrediction`` and
``ActualCursor``), and the teacher's answer turned into one (``TeacherPrompt::parse``,
zeta-prompts.md §12.4, with its patch and cursor).

Repair and distill are steps on ep examples: repair appends a prediction with
provider ``repair`` beside the teacher's, distill makes the chosen ones expected
patches. Both need a prediction in Zed's frame: a patch whose one hunk covers the
whole editable region the teacher rewrote, and a cursor whose
``editable_region_offset`` counts UTF-8 bytes from that region's start. A run of
this project keeps the teacher's prompt and raw answer in its record, so the same
prediction is derived again from them (as Zed's ``parse-output`` does before every
repair), never from the edited file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._text import nbytes, rust_lines

if TYPE_CHECKING:
    from ..zeta import ZetaInput

__all__ = ["ActualCursor", "ExamplePrediction", "teacher_prediction"]


@dataclass(frozen=True)
class ActualCursor:
    """Where a prediction leaves the cursor, as Zed stores it: ``row`` (0-based) and
    ``column`` (UTF-8 bytes) in the cursor file's excerpt, ``offset`` in bytes into
    the excerpt, ``editable_region_offset`` in bytes into the rewritten region (what
    distill places the expected cursor by; None when unknown)."""

    path: str
    row: int
    column: int
    offset: int
    editable_region_offset: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Zed's keys in Zed's order; ``editable_region_offset`` left out when None."""
        value: dict[str, Any] = {"path": self.path, "row": self.row, "column": self.column, "offset": self.offset}
        if self.editable_region_offset is not None:
            value["editable_region_offset"] = self.editable_region_offset
        return value

    @classmethod
    def from_json(cls, value: object) -> ActualCursor:
        """An ``actual_cursor`` object; ``ValueError`` (one line) for anything else."""
        if not isinstance(value, Mapping):
            raise ValueError("actual_cursor must be an object")
        path = value.get("path")
        if not isinstance(path, str):
            raise ValueError("actual_cursor.path must be a string")
        row, column, offset = (_count(value, key) for key in ("row", "column", "offset"))
        region = value.get("editable_region_offset")
        return cls(path, row, column, offset, None if region is None else _count(value, "editable_region_offset"))


def _count(value: Mapping[str, object], key: str) -> int:
    number = value.get(key)
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise ValueError(f"actual_cursor.{key} must be a non-negative integer")
    return number


@dataclass(frozen=True)
class ExamplePrediction:
    """One entry of an ep example's ``predictions``.

    ``actual_patch`` None means the answer could not be parsed (``error`` says why);
    ``""`` means "no edit". ``actual_output`` is the model's raw answer.
    """

    actual_patch: str | None
    actual_output: str = ""
    actual_cursor: ActualCursor | None = None
    error: str | None = None
    provider: str = ""

    def to_json(self) -> dict[str, Any]:
        """Zed's keys in Zed's order (§3.8), each absent one left out."""
        value: dict[str, Any] = {}
        if self.actual_patch is not None:
            value["actual_patch"] = self.actual_patch
        value["actual_output"] = self.actual_output
        if self.actual_cursor is not None:
            value["actual_cursor"] = self.actual_cursor.to_json()
        if self.error is not None:
            value["error"] = self.error
        value["provider"] = self.provider
        return value

    @classmethod
    def from_json(cls, value: object) -> ExamplePrediction:
        """A ``predictions`` entry, leniently as Zed reads it (a missing key or
        ``null`` is absent, unknown keys are ignored); ``ValueError`` (one line) for
        a value of the wrong type."""
        if not isinstance(value, Mapping):
            raise ValueError("a prediction must be an object")
        strings: dict[str, str | None] = {}
        for key in ("actual_patch", "actual_output", "error", "provider"):
            item = value.get(key)
            if item is not None and not isinstance(item, str):
                raise ValueError(f"prediction.{key} must be a string")
            strings[key] = item
        cursor = value.get("actual_cursor")
        return cls(
            strings["actual_patch"],
            strings["actual_output"] or "",
            ActualCursor.from_json(cursor) if cursor is not None else None,
            strings["error"],
            strings["provider"] or "",
        )


def _cursor(path: str, excerpt: str, region_start: int, region: str, cursor: int, start_row: int) -> ActualCursor:
    """``ActualCursor::from_editable_region``: ``cursor`` (characters into ``region``,
    which starts at character ``region_start`` of ``excerpt``) in Zed's byte units."""
    cursor = min(max(cursor, 0), len(region))
    prefix = region[:cursor]
    last_newline = prefix.rfind("\n")
    if last_newline >= 0:
        column = nbytes(prefix[last_newline + 1 :])
    else:
        line_start = excerpt.rfind("\n", 0, region_start) + 1
        column = nbytes(excerpt[line_start:region_start]) + nbytes(prefix)
    into_region = nbytes(prefix)
    return ActualCursor(
        path, start_row + prefix.count("\n"), column, nbytes(excerpt[:region_start]) + into_region, into_region
    )


def teacher_prediction(
    input: ZetaInput | None, prompt: str | None, output: str, *, provider: str = "teacher"
) -> ExamplePrediction:
    """``TeacherPrompt::parse`` as ``parse-output`` stores it (zeta-prompts.md
    §12.4): ``NO_EDITS`` is the patch ``""``; otherwise the new editable region against
    the old one (read back from ``prompt``, found in ``input.cursor_excerpt``) as one
    hunk over the whole region, with the cursor the answer marks.

    Raises :class:`PredictionError` for an answer it cannot place (crossed region
    markers, a region the excerpt does not hold, no prompt).
    """
    from ..zeta import parse_teacher_output, unified_diff_with_context

    edit = parse_teacher_output(input, prompt, output)
    if edit is None:
        return ExamplePrediction("", output, provider=provider)
    assert input is not None  # parse_teacher_output refuses None
    lines = len(rust_lines(edit.old_text))
    diff = unified_diff_with_context(edit.old_text, edit.new_text, edit.start_row, edit.start_row, lines)
    patch = f"--- a/{edit.path}\n+++ b/{edit.path}\n{diff}"
    cursor = None
    if edit.cursor is not None:
        cursor = _cursor(edit.path, input.cursor_excerpt, edit.start, edit.new_text, edit.cursor, edit.start_row)
    return ExamplePrediction(patch, output, cursor, provider=provider)
