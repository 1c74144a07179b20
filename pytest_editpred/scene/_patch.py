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

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .._diff import DEV_NULL, FileSection, PlacingBudget, apply_hunks, parse_diff, resolve_path
from .._exceptions import EditPredError, NoSuchPathError, UnsafePathError
from ..example import ExpectedPatch, byte_to_char

__all__ = ["Buffers", "Patched", "apply_patch", "check_section_paths", "created_paths", "deleted_paths"]

OpenFile = Callable[[str], "tuple[str, str] | None"]


class Buffers(Mapping[str, str]):
    """The files after a patch: path → text of every buffer, as a mapping, and the
    files whose existence the patch changed.

    A path that is no key is either unchanged (still what the repository's tree
    holds, or never there) or, when it is in ``deleted``, gone: a deleted file no
    buffer held would otherwise look the same as a file nobody opened, and a
    prediction that changes nothing would match a patch that deletes one. So
    ``deleted`` lists every file the patch deleted (or renamed away) that existed
    before it, open or not; ``created``, every key the patch created where no file
    was. Two of them are equal when their texts and their deletions are.
    """

    __slots__ = ("_texts", "created", "deleted")

    def __init__(
        self,
        texts: Mapping[str, str] = MappingProxyType({}),
        deleted: frozenset[str] = frozenset(),
        created: frozenset[str] = frozenset(),
    ) -> None:
        self._texts = dict(texts)
        self.deleted = frozenset(deleted)
        self.created = frozenset(created)

    def __getitem__(self, path: str) -> str:
        return self._texts[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return self._texts == dict(other.items()) and self.deleted == deleted_paths(other)

    __hash__ = None  # type: ignore[assignment]  # a mapping: unhashable, as a dict

    def __repr__(self) -> str:
        extra = "".join(
            f", {name}={sorted(paths)!r}"
            for name, paths in (("deleted", self.deleted), ("created", self.created))
            if paths
        )
        return f"Buffers({self._texts!r}{extra})"


def deleted_paths(buffers: Mapping[str, Any]) -> frozenset[str]:
    """The files ``buffers`` says are deleted (none for a plain mapping)."""
    return buffers.deleted if isinstance(buffers, Buffers) else frozenset()


def created_paths(buffers: Mapping[str, Any]) -> frozenset[str]:
    """The files ``buffers`` says were created where none was (none for a plain mapping)."""
    return buffers.created if isinstance(buffers, Buffers) else frozenset()


@dataclass(frozen=True)
class Patched:
    """The buffers after a patch, the cursor it marks (path, offset), the files changed.

    ``kept[path]`` is ``(head, tail)`` for a buffer the patch edited in place: the
    new text agrees with the old one on its first ``head`` and last ``tail``
    characters (what :func:`~pytest_editpred.metrics._local.change_between` needs
    not read again).
    """

    buffers: Buffers
    cursor: tuple[str, int] | None
    changed: tuple[str, ...]
    kept: Mapping[str, tuple[int, int]] = field(default_factory=dict)


def _resolve(
    path: str, buffers: Mapping[str, str], open_file: OpenFile | None, gone: set[str]
) -> tuple[str, str | None]:
    """``(path, text read from the tree)`` of the file a section names (``None``:
    a buffer holds it), by :func:`~pytest_editpred._diff.resolve_path`; a file in
    ``gone`` was deleted, and is not read again."""

    def opener(candidate: str) -> tuple[str, str] | None:
        return None if candidate in gone or open_file is None else open_file(candidate)

    return resolve_path(path, buffers, opener)


def _tree_text(path: str, open_file: OpenFile | None) -> str | None:
    """The tree's text of ``path``, or None when no file is there."""
    opened = open_file(path) if open_file is not None else None
    return None if opened is None else opened[1]


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
    (models often write ``--- a/file``); without it such a section is an error. A
    deletion names its file, or is an error: it never falls back to ``default_path``.

    Files no buffer holds are files of the repository's tree (``open_file``), so the
    result says what the patch did to any of them (:class:`Buffers`): one it edited is
    a key, one it deleted or renamed away is in ``deleted``, one it created where none
    was is in ``created``; one it left as the tree has it is no key at all. A
    ``/dev/null`` creation of a path that exists already replaces its text (as the
    edit history's creation does): with the same text, it changes nothing.
    """
    expected = patch if isinstance(patch, ExpectedPatch) else ExpectedPatch(patch)
    result = dict(buffers)
    deleted = set(deleted_paths(buffers))
    created = set(created_paths(buffers))
    before: dict[str, str | None] = {}  # files no buffer held: their tree text (None: none)
    changed: list[str] = []
    kept: dict[str, tuple[int, int]] = {}
    elsewhere: set[str] = set()  # paths whose text is not their buffer's, edited in place
    cursor: tuple[str, int] | None = None
    sections = parse_diff(expected.patch)
    check_section_paths(sections)
    budget = PlacingBudget()

    def appears(path: str) -> None:
        """``path`` is about to hold a new file's text: remember what was there."""
        if path not in buffers and path not in before:
            before[path] = None if path in deleted else _tree_text(path, open_file)
        deleted.discard(path)

    for section_index, section in enumerate(sections):
        opened: str | None = None
        if section.created:
            path, text = section.path, ""
            appears(path)
        else:
            try:
                path, opened = _resolve(section.old_path, result, open_file, deleted)
            except NoSuchPathError:
                if section.deleted or default_path is None or default_path not in result:
                    raise
                path, opened = default_path, None
            if opened is not None:
                before.setdefault(path, opened)
            text = opened if opened is not None else result[path]
        if section.created or section.deleted or opened is not None or path not in buffers:
            elsewhere.add(path)
        if section.deleted:
            result.pop(path, None)
            deleted.add(path)
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
            deleted.add(path)
            appears(new_path)
            elsewhere.update((path, new_path))
        kept[new_path] = (bounds[0], bounds[1])
        result[new_path] = text
        changed.append(new_path)
        if track:
            cursor = (new_path, track[0])
    for path, was in before.items():
        if path in result and result[path] == was:
            del result[path]  # as the tree has it: the same as never opened
        elif path in result and was is None:
            created.add(path)
        elif path in deleted and was is None:
            deleted.discard(path)  # created, then deleted: never there
    same = {path for path in before if path not in result and path not in deleted}
    kept = {path: bounds for path, bounds in kept.items() if path not in elsewhere}
    return Patched(
        Buffers(result, frozenset(deleted), frozenset(created & set(result))),
        cursor,
        tuple(path for path in dict.fromkeys(changed) if path not in same),
        kept,
    )
