"""§2.9.3: a file's outline items, their nesting depth and their body ranges.

Zed finds outline items with each language's ``outline.scm`` query. The queries are
not vendored here: the node kinds they match are listed in the specification
(§2.9.3's table), and each language's list is a walk over the syntax tree that
picks those nodes (for Go's field and top-level ``var`` names, the name nodes). Only
the item *ranges* matter to retrieval (the ``@name`` must merely be non-empty, which
every node picked here has), so the walk gives the same items as the query.

The walk is iterative (a tree cursor), linear in the number of nodes: definition
files can be thousands of rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._buffer import Buffer, Point

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

__all__ = ["Item", "body_range", "outline_items"]


@dataclass(frozen=True)
class Item:
    """An outline item: its node's byte range and points, and its nesting depth."""

    start: int
    end: int
    start_point: Point
    end_point: Point
    depth: int
    node: Node


_PYTHON = frozenset({"class_definition", "function_definition"})
_RUST = frozenset(
    {
        "struct_item",
        "enum_item",
        "enum_variant",
        "impl_item",
        "trait_item",
        "function_item",
        "function_signature_item",
        "macro_definition",
        "mod_item",
        "type_item",
        "associated_type",
        "const_item",
        "static_item",
        "field_declaration",
    }
)
_GO = frozenset({"function_declaration", "method_declaration", "const_spec", "method_elem"})
_TS = frozenset(
    {
        "internal_module",
        "enum_declaration",
        "type_alias_declaration",
        "function_declaration",
        "generator_function_declaration",
        "interface_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "public_field_definition",
    }
)
_TEST_CALLS = frozenset({"it", "test", "describe", "context", "suite"})
_TEST_VARIANTS = frozenset({"each", "skipIf", "runIf", "if", "todoIf"})


def _walk(tree: Tree) -> Iterator[Node]:
    """Every node, in document order (pre-order)."""
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        yield node
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _parent_type(node: Node) -> str | None:
    parent = node.parent
    return None if parent is None else parent.type


def _is_test_call(node: Node) -> bool:
    """``it("name", …)`` and the ``describe.each(table)("name", …)`` forms."""
    function = node.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "call_expression":  # describe.each(table)(…)
        inner = function.child_by_field_name("function")
        if inner is None or inner.type != "member_expression":
            return False
        target = inner.child_by_field_name("object")
        prop = inner.child_by_field_name("property")
        if target is None or prop is None or prop.text is None or prop.text.decode() not in _TEST_VARIANTS:
            return False
        function = target
    if function.type != "identifier" or function.text is None or function.text.decode() not in _TEST_CALLS:
        return False
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return first is not None and first.type in ("string", "template_string")


def _item_nodes(tree: Tree, language: str) -> Iterator[Node]:
    """The ``@item`` nodes of the language's outline query."""
    for node in _walk(tree):
        kind = node.type
        if language == "python":
            if kind in _PYTHON:
                yield node
        elif language == "rust":
            if kind in _RUST:
                yield node
        elif language == "go":
            if kind in _GO or (kind == "type_spec" and _parent_type(node) == "type_declaration"):
                yield node
            elif kind == "var_spec" and node.parent is not None and _parent_type(node.parent) == "source_file":
                yield from node.children_by_field_name("name")
            elif kind == "field_declaration":
                yield from node.children_by_field_name("name")
        elif kind in _TS:
            yield node
        elif kind == "method_definition" and _parent_type(node) in ("class_body", "object"):
            yield node
        elif kind == "pair" and _parent_type(node) == "object":
            yield node
        elif kind == "variable_declarator" and _parent_type(node) == "lexical_declaration":
            assert node.parent is not None
            if _parent_type(node.parent) in ("program", "export_statement", "statement_block"):
                yield node
        elif kind == "call_expression" and _is_test_call(node):
            yield node


def outline_items(tree: Tree, language: str) -> list[Item]:
    """The items sorted by (start ascending, end descending), each with its depth:
    the number of enclosing items (a stack of the items still open)."""
    nodes = sorted(_item_nodes(tree, language), key=lambda n: (n.start_byte, -n.end_byte))
    items: list[Item] = []
    stack: list[int] = []  # end bytes of the open items
    for node in nodes:
        while stack and stack[-1] < node.end_byte:
            stack.pop()
        start_point = (node.start_point[0], node.start_point[1])
        end_point = (node.end_point[0], node.end_point[1])
        items.append(Item(node.start_byte, node.end_byte, start_point, end_point, len(stack), node))
        stack.append(node.end_byte)
    return items


def _indent(line: bytes) -> tuple[int, int | None]:
    """The leading run of spaces and tabs: its length and its first byte."""
    stripped = line.lstrip(b" \t")
    length = len(line) - len(stripped)
    return length, line[0] if length else None


def body_range(item: Item, buffer: Buffer, language: str) -> tuple[Point, Point] | None:
    """§2.9.3 ``body_range``: Rust's ``impl`` and ``fn`` bodies from after ``{`` to
    before ``}``; for every other item the fallback: the last child that has children
    of its own, its rows shrunk while their indentation equals the item's first row's,
    ``(s, 0)`` to ``(e, 0)``, or None."""
    node = item.node
    if language == "rust" and node.type in ("impl_item", "function_item"):
        body = node.child_by_field_name("body")
        if body is None or body.child_count < 2:
            return None
        opening, closing = body.children[0], body.children[-1]
        if opening.type != "{" or closing.type != "}":
            return None
        return (opening.end_point[0], opening.end_point[1]), (closing.start_point[0], closing.start_point[1])
    child = next((c for c in reversed(node.children) if c.child_count > 0), None)
    if child is None:
        return None
    start, end = child.start_point[0], child.end_point[0]
    indent = _indent(buffer.line(item.start_point[0]))
    while start < end and _indent(buffer.line(start)) == indent:
        start += 1
    while start < end and _indent(buffer.line(end - 1)) == indent:
        end -= 1
    return ((start, 0), (end, 0)) if start < end else None
