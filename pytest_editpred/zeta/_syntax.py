"""§3.2 syntax ranges: the tree-sitter ancestors of the cursor, innermost first.

Zed's region choice (§3.3) snaps the editable region and its context to these
nodes, so the same grammar walk is needed to get the same bytes. tree-sitter and
the grammars are imported on first use only: importing the plugin must stay cheap
and must work where the optional wheels are missing.

Not modelled: Zed's language injections (a node of an injected layer, e.g. a
Rust macro body or a JSDoc comment, can be the smallest ancestor there; here only
the file's own grammar is walked) and Zed's exact grammar versions [unconfirmed].

Bounded, never silently: a text over :data:`MAX_PARSE_BYTES` is not parsed, and a
tree more than :data:`MAX_SYNTAX_DEPTH` nodes deep at the cursor is not walked. Either
way the file gets the ranges of a file with no grammar (none: the regions grow line
by line, §3.3), and the note :func:`syntax_ranges` hands back says why, for the
item's notes. The walk itself is linear in the depth: the ancestors are the nodes the
tree cursor passed on its way down, kept as it goes, not ``Node.parent``'s, which
searches down from the root on every call (100,000 nested brackets took more than 5
minutes).
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Any

from .._languages import language_of
from .._text import nbytes
from ._trees import parse

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

__all__ = [
    "MAX_PARSE_BYTES",
    "MAX_PARSE_WORK",
    "MAX_SYNTAX_DEPTH",
    "language_for_path",
    "syntax_ranges",
    "syntax_tree",
    "why_no_syntax",
]

Range = tuple[int, int]

# Zed parses whole buffers; a bigger text here is refused rather than stalling a run.
MAX_PARSE_BYTES = 8 * 1024 * 1024

# tree-sitter's memory follows the tokens it makes, not the bytes: about 100 bytes a
# token on real code, 190 on a hostile run of brackets or commas (8 MB of nested
# brackets took 2.3 GB). So a text is parsed only when its *work* -- tokens (runs
# of word characters, single other characters) plus opening brackets, counted in C
# over its bytes -- is within this budget: the same answer on every machine, unlike
# a clock. Real source up to MAX_PARSE_BYTES stays well within it (8 MB of Python's
# standard library: 1.8 million; 8 MB of TypeScript's compiler: 1.6 million) and
# parses as before; the worst text the budget admits costs tree-sitter about 490 MB
# (a minified bundle near 8 MB may be over it, and gets the fallback).
MAX_PARSE_WORK = 2_500_000

# The deepest tree walked at the cursor, in nodes from the root (§3.2 walks every
# ancestor). Real code stays far below it: the deepest of 15,611 Python, TypeScript
# and JavaScript files measured (a standard library, site-packages, npm's own
# modules) was 570, a generated sympy table, and only four were over 100.
# A hostile file is not bounded by anything else: 100,000 nested brackets (200 KB)
# are 100,000 nodes deep. A Zeta prompt for a tree just within the bound (9,990
# nested brackets) took 0.05-0.12 s to build on the 2-core development machine,
# 100,000 of them (walked down to the bound, then skipped) 0.4 s, most of it
# tree-sitter's parse.
MAX_SYNTAX_DEPTH = 10_000

#: How a file over a bound is filled in, for the notes.
_FALLBACK = "so it gets no syntax ranges, as a file with no grammar (its regions grow line by line)"

_local = threading.local()  # a Parser is not safe to share between threads


def language_for_path(path: str) -> str | None:
    """The tree-sitter grammar of ``path``'s language (the one table of languages:
    Zed parses JavaScript with the TSX grammar), or None."""
    language = language_of(path)
    return language.grammar if language is not None else None


def _load_language(name: str) -> Any:
    """The grammar's raw ``language()`` capsule (imported here, lazily)."""
    if name == "python":
        import tree_sitter_python

        return tree_sitter_python.language()
    if name == "rust":
        import tree_sitter_rust

        return tree_sitter_rust.language()
    if name in ("typescript", "tsx"):
        import tree_sitter_typescript

        if name == "tsx":
            return tree_sitter_typescript.language_tsx()
        return tree_sitter_typescript.language_typescript()
    if name == "go":
        import tree_sitter_go

        return tree_sitter_go.language()
    raise KeyError(name)


def _parser(name: str) -> Parser:
    """One cached parser per language and thread."""
    cache: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    parser = cache.get(name)
    if parser is None:
        from tree_sitter import Language, Parser

        parser = cache[name] = Parser(Language(_load_language(name)))
    return parser


def why_no_syntax(text: str, path: str) -> str | None:
    """Why :func:`syntax_ranges` returns None for this file before parsing it, or None
    when it parses it (a tree too deep at the cursor is only known after parsing)."""
    name = language_for_path(path)
    if name is None:
        return f"no tree-sitter grammar for {path!r}"
    size = _over_size(text)
    if size is not None:
        return f"{path!r} is {size} bytes, over the {MAX_PARSE_BYTES}-byte parse limit"
    work = parse_work(text)
    if work > MAX_PARSE_WORK:
        return f"{path!r} holds {work} tokens and brackets, over the {MAX_PARSE_WORK} tree-sitter parse budget"
    try:
        _parser(name)
    except (ImportError, ValueError) as error:  # missing wheel, ABI mismatch
        return f"tree-sitter grammar {name!r} is unavailable ({error})"
    return None


def _over_size(text: str) -> int | None:
    """The text's size in UTF-8 bytes when it is over :data:`MAX_PARSE_BYTES`."""
    if len(text) * 4 <= MAX_PARSE_BYTES:  # no need to count: it cannot be over
        return None
    size = nbytes(text)
    return size if size > MAX_PARSE_BYTES else None


_CLASSES: bytes | None = None


def _over_bound(text: str) -> bool:
    """Over the size limit or the work budget: a text tree-sitter is not given."""
    return _over_size(text) is not None or parse_work(text) > MAX_PARSE_WORK


@functools.lru_cache(maxsize=8)
def parse_work(text: str) -> int:
    """The text's tokens (runs of word bytes, single other bytes) plus its opening
    brackets: what tree-sitter's memory follows (:data:`MAX_PARSE_WORK`). Each byte
    is mapped to its class and the runs are counted with ``bytes.count``, so 8 MB
    take about 50 ms, once for the examples of one file version (kept for the last
    few texts); a text too short to reach the budget is not counted (0)."""
    global _CLASSES
    if len(text) * 8 <= MAX_PARSE_WORK:  # at most 4 bytes a character, 2 units a byte
        return 0
    if _CLASSES is None:
        word = set(b"0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") | set(range(128, 256))
        space = set(b" \t\n\r\x0b\x0c")
        _CLASSES = bytes(ord("a") if b in word else ord(" ") if b in space else ord(".") for b in range(256))
    data = text.encode("utf-8", "surrogatepass")
    classes = data.translate(_CLASSES)
    words = classes.count(b" a") + classes.count(b".a") + classes.startswith(b"a")
    return classes.count(b".") + words + data.count(b"(") + data.count(b"[") + data.count(b"{")


def syntax_tree(text: str, path: str, base: str | None = None) -> Tree | None:
    """The tree-sitter tree of ``text`` in the grammar of ``path``'s extension, or None
    when :func:`why_no_syntax` gives a reason. Made through the same parsers and the
    same cache of trees as the syntax ranges (:mod:`._trees`), so a file whose ranges
    were computed is not parsed again; ``base`` as in :func:`syntax_ranges`."""
    if why_no_syntax(text, path) is not None:
        return None
    name = language_for_path(path)
    assert name is not None
    if base is not None and _over_bound(base):
        base = None
    return parse(_parser(name), name, text, base)


class _TooDeep(Exception):
    """The tree at the cursor is deeper than :data:`MAX_SYNTAX_DEPTH`."""


def _syntax_ancestor(root: Node, position: int) -> list[Node] | None:
    """``Buffer::syntax_ancestor(position..position)`` for one layer (§3.2), with its
    ancestors: the nodes from the root down to it. They are kept while the tree cursor
    moves (the cursor's own path), so a walk is linear in the depth; ``Node.parent``
    searches down from the root on every call, and ``TreeCursor.copy()`` crashes
    py-tree-sitter 0.26 when read.

    tree-sitter's ``goto_first_child_for_byte`` takes the first child ending *after*
    the byte, so a cursor at the end of a node usually lands on its parent; the
    right-hand-node branch then needs a node starting at the cursor right after one
    ending there, which no Python/Rust/TypeScript input tried here produced. It is
    kept, line for line, for grammars where it does happen.

    Raises :class:`_TooDeep` past :data:`MAX_SYNTAX_DEPTH` levels below the root.
    """
    cursor = root.walk()
    path = [root]  # the cursor's node and its ancestors, root first
    # descend to the leaf at the position; a child starting after it means the
    # position is between children: take the previous one
    while cursor.goto_first_child_for_byte(position) is not None:
        if len(path) > MAX_SYNTAX_DEPTH:
            raise _TooDeep
        if cursor.node.start_byte > position:  # type: ignore[union-attr]
            cursor.goto_previous_sibling()
        path.append(cursor.node)  # type: ignore[arg-type]
    # ascend to the smallest node containing the position and larger than empty
    while True:
        node = path[-1]
        if node.start_byte <= position <= node.end_byte and node.end_byte > node.start_byte:
            break
        if not cursor.goto_parent():
            return None
        path.pop()
    if node.end_byte != position:
        return path
    # a node ending at the cursor: look for the one starting there
    left = path[:]
    right: int | None = None  # the right-hand node is path[right - 1]
    while not cursor.goto_next_sibling():
        if not cursor.goto_parent():
            break
        path.pop()
    else:
        path[-1] = cursor.node  # type: ignore[assignment]
    while cursor.node.start_byte == position:  # type: ignore[union-attr]
        right = len(path)
        if not cursor.goto_first_child():
            break
        if len(path) > MAX_SYNTAX_DEPTH:
            raise _TooDeep
        path.append(cursor.node)  # type: ignore[arg-type]
    if right is not None and (path[right - 1].is_named or not node.is_named):
        return path[:right]
    return left


def syntax_ranges(
    text: str,
    cursor: int,
    path: str,
    excerpt_start: int,
    excerpt_end: int,
    *,
    notes: list[str] | None = None,
    base: str | None = None,
) -> tuple[Range, ...] | None:
    """§3.2: character ranges, relative to ``text[excerpt_start:excerpt_end]``, of every
    ancestor of the cursor (equal spans once), innermost first, clipped to the excerpt.

    None when the file has no grammar here or is over a bound (:func:`why_no_syntax`
    says which, before parsing; a tree deeper than :data:`MAX_SYNTAX_DEPTH` at the
    cursor is found while walking it); ``()`` when the tree has no non-empty node at
    the cursor (an empty file). When a *bound* is the reason (Zed would have computed
    ranges), a sentence saying so is appended to ``notes``.

    ``base``: the file version ``text`` was edited from (the buffer before the edit
    history); its tree is made once (reached from the first buffer edited from it)
    and reused, and ``text``'s is reached from it by an incremental parse
    (:mod:`._trees`). The ranges are the same either way.
    """
    why = why_no_syntax(text, path)
    if why is not None:
        if notes is not None and _over_bound(text) and language_for_path(path) is not None:
            notes.append(f"syntax ranges skipped: {why}, {_FALLBACK}")
        return None
    name = language_for_path(path)
    assert name is not None
    if base is not None and _over_bound(base):
        base = None
    tree = parse(_parser(name), name, text, base)
    position = nbytes(text[:cursor])
    try:
        walk = _syntax_ancestor(tree.root_node, position)
    except _TooDeep:
        if notes is not None:
            notes.append(
                f"syntax ranges skipped: the syntax tree of {path!r} is more than {MAX_SYNTAX_DEPTH:,} "
                f"nodes deep at the cursor, {_FALLBACK}"
            )
        return None
    excerpt = text[excerpt_start:excerpt_end]
    start_b = nbytes(text[:excerpt_start])
    end_b = start_b + nbytes(excerpt)

    spans: list[Range] = []
    for node in reversed(walk or ()):  # innermost first, up to the root
        span = node.start_byte, node.end_byte
        if not spans or span != spans[-1]:
            spans.append(span)
    clipped = [(max(start - start_b, 0), max(min(end, end_b) - start_b, 0)) for start, end in spans]
    if excerpt.isascii():
        return tuple(clipped)
    chars = _char_indices(excerpt.encode("utf-8"), [offset for pair in clipped for offset in pair])
    return tuple((chars[start], chars[end]) for start, end in clipped)


# UTF-8 continuation bytes (10xxxxxx): every other byte starts a character.
_CONTINUATION = bytes(range(0x80, 0xC0))


def _char_indices(data: bytes, offsets: list[int]) -> dict[int, int]:
    """The index of the character each byte offset of UTF-8 ``data`` falls in (the
    character it starts, or the one it is inside); ``len(data)`` maps to the number of
    characters. One pass over the data for all the offsets, in C (``bytes.translate``
    drops the continuation bytes of each stretch between two offsets): a tree at
    :data:`MAX_SYNTAX_DEPTH` has thousands of offsets, and encoding every character
    apart took longer than the parse."""
    found: dict[int, int] = {}
    starts = 0  # characters starting in data[:done]
    done = 0
    for offset in sorted(set(offsets)):
        end = min(offset + 1, len(data))
        starts += len(data[done:end].translate(None, _CONTINUATION))
        done = end
        found[offset] = starts - 1 if offset < len(data) else starts
    return found
