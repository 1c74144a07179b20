"""Syntax trees made once per file version and reached incrementally, as an editor does.

Zed's editor parses a buffer once and updates its tree as the user types. Examples
cut from one repository mostly put their cursor in the same few files at the same
revision, each with a small edit history on top; parsing each buffer from scratch
was a quarter of a prompt's cost. Here the tree of the file *as the repository holds
it* (the buffer's base text) is parsed once and kept, and each buffer's tree is that
one, edited where the two texts differ and re-parsed by tree-sitter's incremental
parser, which re-reads only around the edit. A buffer's own tree is kept too, for
the trials of its example.

A base is never parsed on its own account the first time a buffer is made from
it: that buffer is parsed whole, as it was before, since most corpora (Zed's own,
or one cut from a repository's commits) hold one example per file version, and
parsing the base as well would double their cost. When a second buffer comes from
the same base, the base's tree is reached from the first buffer's, backwards, by
the same incremental parse, and the second buffer's from the base's. So a file
version costs one full parse however many examples it has, and every further
buffer an incremental parse (0.2-0.5 ms on a 1,000-line Python file after a valid
edit inside a function, 0.5-2 ms after one that leaves a syntax error, against 2-3
ms for a full parse; but a statement added at a module's top level costs about half
a full parse, as tree-sitter rebuilds the module's long list of children).

One edit covers every change: the bytes between the texts' common prefix and common
suffix. Several edits far apart make it wider, never wrong. The prefix and suffix are
found by comparing blocks (``memcmp``), so the whole step costs a few passes over the
bytes in C.

In some grammars a buffer whose tree has a syntax error is parsed whole after all
(:data:`WHOLE_ON_ERROR`): their error recovery does not always pick the same tree
when it reuses nodes. On random edit histories of real files, about 1 in 40 edited
TypeScript and TSX trees with errors, and 1 in 1,000 Rust ones, differed from a full
parse; of about 6,400 Python and 3,000 Go ones, none did, and no error-free tree
ever did, in any grammar. ``tests/test_syntax_trees.py`` checks, on random edit
histories of real-size files of every grammar, valid and broken, that the trees and
the syntax ranges are a full parse's, bases reached backwards included, and keeps one
TypeScript history that differs.

Bounded: :data:`MAX_BASE_BYTES` of base texts (a tree holds about 20 bytes of memory
per byte of text, so 8 MiB of text keeps at most ~160 MB of trees), as many bytes
of buffers in at most :data:`MAX_EDITED` trees (which mostly share their nodes with
their base's), and as many bytes of first buffers waiting for a second one (mostly
the same trees as the buffers'), least recently used first out; a first buffer
dropped only means its base is parsed whole. Trees are shared between
threads: a tree is never edited in place, only a copy of it (``Tree.copy`` shares
the nodes).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Generic, TypeVar

from .._text import common_prefix_length, common_suffix_length

if TYPE_CHECKING:
    from tree_sitter import Parser, Tree

__all__ = ["MAX_BASE_BYTES", "MAX_EDITED", "WHOLE_ON_ERROR", "parse", "text_edit"]

MAX_BASE_BYTES = 8 * 1024 * 1024
MAX_EDITED = 64

#: Grammars whose incremental tree is parsed again from scratch when it has a
#: syntax error: their error recovery can differ from a full parse's.
WHOLE_ON_ERROR = frozenset({"rust", "typescript", "tsx"})

# Bases seen once (by the hash of grammar and text; a collision only makes a base
# parsed one buffer early), so that only a base seen twice is parsed.
_SEEN_LIMIT = 4096

Point = tuple[int, int]
V = TypeVar("V")


class _Cache(Generic[V]):
    """Values by (grammar, text), least recently used first out, thread-safe; the
    bytes counted are the texts'."""

    def __init__(self, *, max_bytes: int | None = None, max_items: int | None = None) -> None:
        self._items: OrderedDict[tuple[str, str], V] = OrderedDict()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._max_items = max_items
        self._lock = threading.Lock()

    def get(self, name: str, text: str) -> V | None:
        with self._lock:
            value = self._items.get((name, text))
            if value is not None:
                self._items.move_to_end((name, text))
            return value

    def pop(self, name: str, text: str) -> V | None:
        with self._lock:
            value = self._items.pop((name, text), None)
            if value is not None:
                self._bytes -= len(text)
            return value

    def put(self, name: str, text: str, value: V) -> None:
        with self._lock:
            if (name, text) in self._items:
                return
            self._items[name, text] = value
            self._bytes += len(text)
            while self._items and (
                (self._max_bytes is not None and self._bytes > self._max_bytes)
                or (self._max_items is not None and len(self._items) > self._max_items)
            ):
                (_, dropped), _ = self._items.popitem(last=False)
                self._bytes -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


_bases: _Cache[Tree] = _Cache(max_bytes=MAX_BASE_BYTES)
_edited: _Cache[Tree] = _Cache(max_bytes=MAX_BASE_BYTES, max_items=MAX_EDITED)
# The first buffer made from a base, by the base: (its text, its tree).
_firsts: _Cache[tuple[str, Tree]] = _Cache(max_bytes=MAX_BASE_BYTES)
_seen: OrderedDict[int, None] = OrderedDict()
_seen_lock = threading.Lock()


def _first_sight(name: str, base: str) -> bool:
    """Whether ``base`` is seen for the first time (and remember it)."""
    key = hash((name, base))
    with _seen_lock:
        if key in _seen:
            return False
        _seen[key] = None
        if len(_seen) > _SEEN_LIMIT:
            _seen.popitem(last=False)
        return True


def _point(data: bytes, offset: int) -> Point:
    """tree-sitter's point of a byte offset: (row, byte column)."""
    return data.count(b"\n", 0, offset), offset - (data.rfind(b"\n", 0, offset) + 1)


def text_edit(old: bytes, new: bytes) -> tuple[int, int, int, Point, Point, Point]:
    """The one edit turning UTF-8 ``old`` into ``new``, as ``Tree.edit`` takes it:
    ``(start_byte, old_end_byte, new_end_byte, start_point, old_end_point,
    new_end_point)``. Both ends fall on character boundaries."""
    start = common_prefix_length(old, new)
    while start < len(old) and old[start] & 0xC0 == 0x80:
        start -= 1  # back to the start of the character the texts first differ in
    suffix = common_suffix_length(old, new, min(len(old), len(new)) - start)
    while suffix and old[len(old) - suffix] & 0xC0 == 0x80:
        suffix -= 1  # forward to the start of a character
    old_end, new_end = len(old) - suffix, len(new) - suffix
    return start, old_end, new_end, _point(old, start), _point(old, old_end), _point(new, new_end)


def _reach(parser: Parser, name: str, tree: Tree, old: bytes, new: bytes) -> Tree:
    """The tree of ``new``, from ``tree`` (``old``'s) edited and parsed incrementally,
    or parsed whole where the grammar's error recovery may differ (:data:`WHOLE_ON_ERROR`)."""
    edited = tree.copy()  # never edit a shared tree in place
    edited.edit(*text_edit(old, new))
    reached = parser.parse(new, old_tree=edited)
    if name in WHOLE_ON_ERROR and reached.root_node.has_error:
        reached = parser.parse(new)
    return reached


def parse(parser: Parser, name: str, text: str, base: str | None = None) -> Tree:
    """The tree of ``text`` in grammar ``name`` (``parser``'s), parsed once.

    With ``base`` (the version ``text`` was edited from), ``text``'s tree is reached
    from the base's incrementally, except the first time the base is seen: then
    ``text`` is parsed whole, and the base's tree is reached from it when a second
    buffer comes. Without a base, or when ``text`` *is* the base, ``text`` is parsed
    whole and kept as a base.
    """
    if base is None or base == text:
        tree = _bases.get(name, text)
        if tree is None:
            tree = parser.parse(text.encode("utf-8"))
            _bases.put(name, text, tree)
        return tree
    tree = _edited.get(name, text)
    if tree is not None:
        return tree
    data, old = text.encode("utf-8"), base.encode("utf-8")
    base_tree = _bases.get(name, base)
    if base_tree is None:
        first = _firsts.pop(name, base)
        if first is None and _first_sight(name, base):
            tree = parser.parse(data)
            _edited.put(name, text, tree)
            _firsts.put(name, base, (text, tree))
            return tree
        if first is None:
            base_tree = parser.parse(old)
        else:
            base_tree = _reach(parser, name, first[1], first[0].encode("utf-8"), old)
        _bases.put(name, base, base_tree)
    tree = _reach(parser, name, base_tree, old, data)
    _edited.put(name, text, tree)
    return tree


def clear() -> None:
    """Forget every tree and base (tests compare a cached parse with a fresh one)."""
    _bases.clear()
    _edited.clear()
    _firsts.clear()
    with _seen_lock:
        _seen.clear()
