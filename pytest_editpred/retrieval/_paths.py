"""Rust ``Path`` order, which Zed sorts related paths by.

Paths compare component by component, each component bytewise, so ``a/b`` sorts
before ``a-b`` (as strings, ``-`` is before ``/``). Empty components and ``.``
after a separator do not count, as in Rust's ``Path::components``.
"""

from __future__ import annotations

__all__ = ["path_key"]


def path_key(path: str) -> tuple[bytes, ...]:
    """The key that sorts paths as Rust's ``Path`` ``Ord`` does."""
    parts = path.split("/")
    head = [parts[0].encode()] if parts[0] else ([b"/"] if len(parts) > 1 else [])
    return (*head, *(p.encode() for p in parts[1:] if p and p != "."))
