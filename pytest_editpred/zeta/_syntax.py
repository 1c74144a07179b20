"""§3.2 syntax ranges: the tree-sitter ancestors of the cursor, innermost first.

Zed's region choice (§3.3) snaps the editable region and its context to these
nodes, so the same grammar walk is needed to get the same bytes. tree-sitter and
the grammars are imported on first use only: importing the plugin must stay cheap
and must work where the optional wheels are missing.

Not modelled: Zed's language injections (a node of an injected layer, e.g. a
Rust macro body or a JSDoc comment, can be the smallest ancestor there; here only
the file's own grammar is walked) and Zed's exact grammar versions [unconfirmed].
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from itertools import accumulate
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from .._text import nbytes

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = ["MAX_PARSE_BYTES", "language_for_path", "syntax_ranges", "why_no_syntax"]

Range = tuple[int, int]

# Zed parses whole buffers; a bigger text here is refused rather than stalling a run.
MAX_PARSE_BYTES = 8 * 1024 * 1024

# Zed's path_suffixes per language. Zed's JavaScript uses the TSX grammar
# (languages/src/javascript/config.toml: grammar = "tsx") [unconfirmed].
_SUFFIXES: dict[str, str] = {
    "py": "python",
    "pyi": "python",
    "mpy": "python",
    "rs": "rust",
    "ts": "typescript",
    "cts": "typescript",
    "mts": "typescript",
    "tsx": "tsx",
    "js": "tsx",
    "jsx": "tsx",
    "mjs": "tsx",
    "cjs": "tsx",
    "go": "go",
}

_local = threading.local()  # a Parser is not safe to share between threads


def language_for_path(path: str) -> str | None:
    """The grammar name for ``path``'s extension, or None."""
    suffix = PurePosixPath(path.replace("\\", "/")).suffix.lower().lstrip(".")
    return _SUFFIXES.get(suffix)


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
    """Why :func:`syntax_ranges` returns None for this file, or None when it won't."""
    name = language_for_path(path)
    if name is None:
        return f"no tree-sitter grammar for {path!r}"
    size = nbytes(text)
    if size > MAX_PARSE_BYTES:
        return f"{path!r} is {size} bytes, over the {MAX_PARSE_BYTES}-byte parse limit"
    try:
        _parser(name)
    except (ImportError, ValueError) as error:  # missing wheel, ABI mismatch
        return f"tree-sitter grammar {name!r} is unavailable ({error})"
    return None


def _syntax_ancestor(root: Node, position: int) -> Node | None:
    """``Buffer::syntax_ancestor(position..position)`` for one layer (§3.2).

    tree-sitter's ``goto_first_child_for_byte`` takes the first child ending *after*
    the byte, so a cursor at the end of a node usually lands on its parent; the
    right-hand-node branch then needs a node starting at the cursor right after one
    ending there, which no Python/Rust/TypeScript input tried here produced. It is
    kept, line for line, for grammars where it does happen.
    """
    cursor = root.walk()
    # descend to the leaf at the position; a child starting after it means the
    # position is between children: take the previous one
    while cursor.goto_first_child_for_byte(position) is not None:
        if cursor.node.start_byte > position:  # type: ignore[union-attr]
            cursor.goto_previous_sibling()
    # ascend to the smallest node containing the position and larger than empty
    while True:
        node: Node = cursor.node  # type: ignore[assignment]
        if node.start_byte <= position <= node.end_byte and node.end_byte > node.start_byte:
            break
        if not cursor.goto_parent():
            return None
    left = node
    result = left
    if left.end_byte == position:
        # a node ending at the cursor: look for the one starting there
        right = None
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                break
        while cursor.node.start_byte == position:  # type: ignore[union-attr]
            right = cursor.node
            if not cursor.goto_first_child():
                break
        if right is not None and (right.is_named or not left.is_named):
            result = right
    return result


def syntax_ranges(text: str, cursor: int, path: str, excerpt_start: int, excerpt_end: int) -> tuple[Range, ...] | None:
    """§3.2: character ranges, relative to ``text[excerpt_start:excerpt_end]``, of every
    ancestor of the cursor (equal spans once), innermost first, clipped to the excerpt.

    None when the file has no grammar here or is too big (:func:`why_no_syntax` says
    which); ``()`` when the tree has no non-empty node at the cursor (an empty file).
    """
    if why_no_syntax(text, path) is not None:
        return None
    name = language_for_path(path)
    assert name is not None
    tree = _parser(name).parse(text.encode("utf-8"))
    position = nbytes(text[:cursor])
    excerpt = text[excerpt_start:excerpt_end]
    start_b = nbytes(text[:excerpt_start])
    end_b = start_b + nbytes(excerpt)
    # byte offset of every character start, for a non-ASCII excerpt
    starts = None if excerpt.isascii() else [0, *accumulate(nbytes(char) for char in excerpt)]

    result: list[Range] = []
    last: Range | None = None
    node = _syntax_ancestor(tree.root_node, position)
    while node is not None:
        span = node.start_byte, node.end_byte
        if span != last:
            start = max(span[0] - start_b, 0)
            end = max(min(span[1], end_b) - start_b, 0)
            if starts is not None:
                start, end = bisect_right(starts, start) - 1, bisect_right(starts, end) - 1
            result.append((start, end))
            last = span
        node = node.parent
    return tuple(result)
