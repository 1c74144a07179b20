"""§2.9.2: the identifiers near the cursor, ranked by their distance to it.

Zed takes the highlight-query captures named exactly ``variable``, ``constant``,
``constructor``, ``function``, ``function.method``, ``function.method.call``,
``function.special``, ``property``, ``type`` or ``type.interface``. Which nodes those
are in each language is §2.9.2's table; here that table is the test, applied to
every node of a scan range in document order (pre-order: a node before the nodes it
contains, which is how tree-sitter orders captures that start at one byte unless a
later query pattern captures the outer node, a difference that only reorders equal
distances between an arrow function and its first parameter).

Not modelled: Zed's injections. A Rust macro's token tree is re-parsed as Rust in
Zed; tree-sitter-rust already gives the identifiers inside a token tree as
``identifier`` nodes, so the names and positions are the same unless the re-parse
finds a field or type identifier where the token tree has none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._buffer import Buffer
from ._outline import Item, body_range

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

__all__ = ["IDENTIFIER_LINE_COUNT", "MAX_CONTEXT_IDENTIFIER_COUNT", "Identifier", "identifiers_near"]

IDENTIFIER_LINE_COUNT = 3
MAX_CONTEXT_IDENTIFIER_COUNT = 32

_TS_COMMON = frozenset(
    {
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "private_property_identifier",
        "type_identifier",
    }
)
_KINDS: dict[str, frozenset[str]] = {
    "python": frozenset({"identifier"}),
    "rust": frozenset(
        {
            "identifier",
            "type_identifier",
            "field_identifier",
            "shorthand_field_identifier",
            "metavariable",
            "fragment_specifier",
        }
    ),
    "go": frozenset({"identifier", "type_identifier", "field_identifier"}),
    "typescript": _TS_COMMON | {"type_annotation", "arrow_function"},
    "javascript": _TS_COMMON,
    "tsx": _TS_COMMON | {"type_annotation"},
}
#: Languages with JSX auto-close tags, whose "tsx tag" filter drops all-lowercase names.
_TAG_FILTER = frozenset({"javascript", "tsx"})


@dataclass(frozen=True)
class Identifier:
    """A name near the cursor: its byte range in the buffer and its competition rank."""

    name: str
    start: int
    end: int
    rank: int


def _is_identifier(node: Node, language: str) -> bool:
    kind = node.type
    if kind in _KINDS[language]:
        if language in _TAG_FILTER and node.parent is not None:
            text = (node.text or b"").decode("utf-8", errors="replace")
            if all(char.islower() for char in text):  # Rust's char::is_lowercase, per character
                return False
        return True
    if language == "python":  # a forward reference: `x: "Foo"`
        return kind == "string" and node.parent is not None and node.parent.type == "type"
    if language == "rust":  # the `!` of a macro invocation is `function.special`
        return kind == "!" and not node.is_named and node.parent is not None and node.parent.type == "macro_invocation"
    return False


def _nodes_within(tree: Tree, start: int, end: int) -> Iterator[Node]:
    """The nodes lying entirely in ``[start, end]``, in document order; subtrees that
    do not overlap the range are not entered."""
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        overlaps = node.start_byte <= end and node.end_byte >= start
        if overlaps and node.start_byte >= start and node.end_byte <= end:
            yield node
        if overlaps and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sort by (start, end descending); a range starting at or before the previous
    one's end joins it."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges, key=lambda r: (r[0], -r[1])):
        if merged and start <= merged[-1][1]:
            merged[-1] = merged[-1][0], max(merged[-1][1], end)
        else:
            merged.append((start, end))
    return merged


def scan_ranges(buffer: Buffer, cursor: int, items: Sequence[Item], language: str) -> list[tuple[int, int]]:
    """The line range (rows r-3 … r+3 with r+3's newline) and the header of every item
    strictly containing the cursor (its start to its body's start, or all of it), merged."""
    row = buffer.point(cursor)[0]
    start = buffer.offset((max(0, row - IDENTIFIER_LINE_COUNT), 0))
    end_row = row + IDENTIFIER_LINE_COUNT + 1
    end = buffer.offset((end_row, 0)) if end_row <= buffer.max_row else len(buffer.data)
    ranges = [(start, end)]
    for item in items:
        if item.start < cursor < item.end:
            body = body_range(item, buffer, language)
            ranges.append((item.start, buffer.offset(body[0]) if body is not None else item.end))
    return _merge(ranges)


def identifiers_near(tree: Tree, buffer: Buffer, cursor: int, items: Sequence[Item], language: str) -> list[Identifier]:
    """At most 32 identifiers, nearest first; ties keep document order."""
    found: list[tuple[int, Node]] = []
    for start, end in scan_ranges(buffer, cursor, items, language):
        previous: tuple[int, int] | None = None
        for node in _nodes_within(tree, start, end):
            if not _is_identifier(node, language):
                continue
            span = node.start_byte, node.end_byte
            if span == previous:
                continue
            previous = span
            distance = span[0] - cursor if cursor < span[0] else cursor - span[1] if cursor > span[1] else 0
            found.append((distance, node))
    found.sort(key=lambda pair: pair[0])  # stable: document order on ties
    kept = found[:MAX_CONTEXT_IDENTIFIER_COUNT]
    result: list[Identifier] = []
    for index, (distance, node) in enumerate(kept):
        rank = index if index == 0 or distance != kept[index - 1][0] else result[-1].rank
        text = (node.text or b"").decode("utf-8", errors="replace")
        result.append(Identifier(text, node.start_byte, node.end_byte, rank))
    return result
