"""Apply a patch to the buffers and place the cursor the patch marks (§2.3, §4.1).

Expected and predicted patches apply hunk by hunk (Zed's ``apply_diff_to_string``),
but per file: a multi-file patch changes each file it names, where Zed would apply
every hunk to the one cursor excerpt.

The expected cursor is placed in the patched text: the start of the hunk's new text,
plus the offset of the marked line in it, plus the byte column. For a one-hunk patch
this is Zed's ``first_hunk_offset + cursor_in_patch``; for a cursor in a later hunk
we use that hunk's own position, where Zed accumulates offsets across hunks (§7.6).

Every path a patch names obeys the repository's path rule
(:func:`pytest_editpred.scene._urls.split_path`, the one the cursor path obeys): a patch
that creates ``../x`` or ``/etc/x`` or edits ``.git/config`` is refused with
:class:`UnsafePathError` before anything is applied, even though buffers live in
memory only, so that no path is accepted here that a checkout, Zed or ``--editpred-accept``
would refuse. Placing the hunks of all sections shares one
:class:`~pytest_editpred._diff.PlacingBudget`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .._diff import DEV_NULL, FileSection, PlacingBudget, apply_hunks, parse_diff, resolve_path
from .._exceptions import EditPredError, NoSuchPathError, UnsafePathError
from ..example import ExpectedPatch, byte_to_char

__all__ = ["Patched", "apply_patch", "check_section_paths"]

OpenFile = Callable[[str], "tuple[str, str] | None"]


@dataclass(frozen=True)
class Patched:
    """The buffers after a patch, the cursor it marks (path, offset), the files changed.

    ``kept[path]`` is ``(head, tail)`` for a buffer the patch edited in place: the
    new text agrees with the old one on its first ``head`` and last ``tail``
    characters (what :func:`~pytest_editpred.metrics._local.change_between` needs
    not read again).
    """

    buffers: Mapping[str, str]
    cursor: tuple[str, int] | None
    changed: tuple[str, ...]
    kept: Mapping[str, tuple[int, int]] = field(default_factory=dict)


def check_section_paths(sections: list[FileSection]) -> None:
    """Refuse a section path the path rule refuses: :class:`UnsafePathError` at the
    section's line (relative to the patch), with the rule's own message."""
    from ._urls import split_path

    for section in sections:
        for name in (section.old_path, section.new_path):
            if name == DEV_NULL:
                continue
            try:
                split_path(name)
            except EditPredError as error:
                raise UnsafePathError(error.reason, fix=_PATH_FIX, line=section.line) from None


_PATH_FIX = "Name files by their path relative to the repository root, without '..' or '.git'."


def apply_patch(
    buffers: Mapping[str, str],
    patch: str | ExpectedPatch,
    *,
    open_file: OpenFile | None = None,
    default_path: str | None = None,
) -> Patched:
    """Apply ``patch`` to a copy of ``buffers``; ``open_file`` reads files not open yet.

    ``default_path`` is the file for sections whose path names nothing we know
    (models often write ``--- a/file``); without it such a section is an error.
    """
    expected = patch if isinstance(patch, ExpectedPatch) else ExpectedPatch(patch)
    result = dict(buffers)
    changed: list[str] = []
    kept: dict[str, tuple[int, int]] = {}
    elsewhere: set[str] = set()  # paths whose text is not their buffer's, edited in place
    cursor: tuple[str, int] | None = None
    sections = parse_diff(expected.patch)
    check_section_paths(sections)
    budget = PlacingBudget()
    for section_index, section in enumerate(sections):
        opened: str | None = None
        if section.created:
            path, text = section.path, ""
        else:
            try:
                path, opened = resolve_path(section.old_path, result, open_file)
            except NoSuchPathError:
                if default_path is None or default_path not in result:
                    raise
                path, opened = default_path, None
            text = opened if opened is not None else result[path]
        if section.created or section.deleted or opened is not None or path not in buffers:
            elsewhere.add(path)
        if section.deleted:
            result.pop(path, None)
            changed.append(path)
            continue
        target: tuple[int, int] | None = None  # (hunk index, offset in its new text)
        if expected.cursor_line is not None:
            for index, hunk in enumerate(section.hunks):
                if expected.cursor_line in hunk.new_offsets:
                    target = (index, hunk.new_offsets[expected.cursor_line])
            if expected.cursor_line == -1 and section_index == 0 and section.hunks:
                target = (0, 0)
        track: list[int] = []

        def placed(
            index: int, offset: int, new_text: str, target: tuple[int, int] | None = target, track: list[int] = track
        ) -> None:  # bound now: called only within this iteration, but said so
            if target is not None and index == target[0]:
                line_start = offset + target[1]
                column = expected.cursor_column
                tail = new_text[line_start : line_start + column]
                track.append(line_start + byte_to_char(tail, column, what="expected cursor"))

        bounds = list(kept.get(path, (len(text), len(text))))
        text = apply_hunks(text, section.hunks, track=track, on_applied=placed, budget=budget, shared=True, kept=bounds)
        new_path = section.renamed_to or path
        if new_path != path:
            result.pop(path, None)
            elsewhere.update((path, new_path))
        kept[new_path] = (bounds[0], bounds[1])
        result[new_path] = text
        changed.append(new_path)
        if track:
            cursor = (new_path, track[0])
    kept = {path: bounds for path, bounds in kept.items() if path not in elsewhere}
    return Patched(result, cursor, tuple(dict.fromkeys(changed)), kept)
