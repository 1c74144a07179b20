"""§2.9.2–§2.9.5: from a buffer, a cursor and a server's answers to the lsp related files.

Everything here is deterministic given the answers, which come through
:class:`Answers`: a running language server (:mod:`._pool`) or a record of one
(tests, or answers replayed). A location is an absolute file path and an LSP range
(UTF-16 columns); the filtering (outside the worktree, too long, unopenable) and the
excerpt assembly are Zed's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ...zeta import RelatedExcerpt, RelatedFile, syntax_tree
from ._assemble import assemble_excerpt_ranges
from ._buffer import Buffer, Point
from ._identifiers import identifiers_near
from ._languages import language_of
from ._outline import Item, outline_items

__all__ = ["MAX_TARGET_LEN", "Answers", "Location", "lsp_related_files"]

MAX_TARGET_LEN = 128

#: An LSP position: (line, UTF-16 character).
Position = tuple[int, int]


@dataclass(frozen=True)
class Location:
    """A definition a server answered: an absolute file path and an LSP range
    (``LocationLink``'s ``targetSelectionRange``)."""

    path: str
    start: Position
    end: Position


class Answers(Protocol):
    """What the language servers of a buffer answer, per position: the definitions,
    then the type definitions (each ``[]`` from a server that does not provide them)."""

    def __call__(
        self, path: str, positions: Sequence[Position]
    ) -> Sequence[tuple[Sequence[Location], Sequence[Location]]]: ...


def _path_key(path: str) -> tuple[bytes, ...]:
    """Rust's ``Path`` order: component by component, each bytewise."""
    return tuple(part.encode("utf-8") for part in path.split("/"))


def _relative(path: str, roots: Sequence[str]) -> str | None:
    """``path`` relative to the worktree, ``/``-separated, or None outside it."""
    for root in roots:
        try:
            relative = os.path.relpath(path, root)
        except ValueError:
            continue
        if relative != os.curdir and not relative.startswith(os.pardir + os.sep) and relative != os.pardir:
            return relative.replace(os.sep, "/")
    return None


@dataclass
class _File:
    """An opened file; its outline is computed when a definition lands in it."""

    path: str
    buffer: Buffer
    items: list[Item] | None = None

    @property
    def language(self) -> str | None:
        return language_of(self.path)

    def outline(self) -> list[Item]:
        if self.items is None:
            language = self.language
            tree = syntax_tree(self.buffer.text, self.path) if language is not None else None
            self.items = outline_items(tree, language) if tree is not None and language is not None else []
        return self.items


def lsp_related_files(
    *,
    cursor_path: str,
    text: str,
    cursor_offset: int,
    root_name: str,
    worktree: Path | str,
    answers: Answers,
    open_file: Callable[[str], str | None],
    base: str | None = None,
    max_body: int = 512,
) -> list[RelatedFile]:
    """The ``lsp`` list of one example (§2.9).

    ``text`` is the cursor buffer (after the edit history), ``cursor_offset`` a
    character offset into it; ``open_file(relative path)`` gives a file's text as the
    project's buffer holds it, or None when it cannot be opened; ``worktree`` is the
    directory the server was started in (locations outside it are dropped);
    ``base`` is the buffer's text before the history (for an incremental parse only).
    """
    language = language_of(cursor_path)
    if language is None:
        return []
    tree = syntax_tree(text, cursor_path, base)
    if tree is None:
        return []
    buffer = Buffer(text)
    cursor = buffer.byte_offset(cursor_offset)
    cursor_file = _File(cursor_path, buffer, outline_items(tree, language))
    identifiers = identifiers_near(tree, buffer, cursor, cursor_file.outline(), language)
    if not identifiers:
        return []
    positions = []
    for identifier in identifiers:
        point = buffer.point(identifier.start)
        positions.append((point[0], buffer.utf16_column(point)))
    replies = answers(cursor_path, positions)

    root = str(worktree)
    roots = list(dict.fromkeys([root, os.path.realpath(root)]))
    files: dict[str, _File | None] = {cursor_path: cursor_file}
    definitions: dict[str, list[tuple[Point, Point, int]]] = {}
    for identifier, (found, typed) in zip(identifiers, replies):
        seen: set[Location] = set()
        for location in [*found, *typed]:
            if location in seen:
                continue
            seen.add(location)
            relative = _relative(location.path, roots)
            if relative is None:
                continue
            if relative not in files:
                opened = open_file(relative)
                files[relative] = None if opened is None else _File(relative, Buffer(opened))
            target = files[relative]
            if target is None:
                continue
            start = target.buffer.clip_utf16(*location.start)
            end = target.buffer.clip_utf16(*location.end)
            if end < start:
                start, end = end, start
            if target.buffer.offset(end) - target.buffer.offset(start) > MAX_TARGET_LEN:
                continue
            definitions.setdefault(relative, []).append((start, end, identifier.rank))

    related: list[tuple[int, tuple[bytes, ...], RelatedFile]] = []
    for relative, entries in definitions.items():
        target = files[relative]
        assert target is not None
        ranges = assemble_excerpt_ranges(target.buffer, target.outline(), target.language, entries, max_body=max_body)
        excerpts = tuple(
            RelatedExcerpt(
                start[0],
                end[0],
                target.buffer.slice((start[0], 0), (end[0], target.buffer.line_len(end[0]))),
                order,
                "lsp",
            )
            for start, end, order in ranges
        )
        path = f"{root_name}/{relative}"
        related.append(
            (min(rank for _, _, rank in entries), _path_key(path), RelatedFile(path, target.buffer.max_row, excerpts))
        )
    related.sort(key=lambda entry: (entry[0], entry[1]))
    return [file for _, _, file in related]
