"""An example's id: the one spelling of its name in node ids, summaries and reports.

A ``.md`` or ``.json`` file holds one example, so its id is the file's stem (what
the user sees in the file list and types after ``::``); a ``.jsonl`` line's id is
its ``name``. The ``# Name`` heading stays the example's own ``name`` (Zed's), kept
as a keyword for ``-k``.

Characters pytest cannot show back as they are become ``-``: whitespace, ``[`` and
``]`` (pytest's parameter brackets; ``[t2]`` marks a trial), ``::`` (its node-id
separator) and ``.`` (``pytest -v`` prints a dot of an item's name as ``::``, so
``error.rs`` would show as ``error::rs``, an id that selects nothing).
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._example import Example

__all__ = ["example_id", "safe_id", "unique_id"]

_UNSAFE = re.compile(r"[\[\]\s.]+|::")


def safe_id(text: str) -> str:
    """``text`` with what pytest cannot show back made ``-`` (possibly empty)."""
    return _UNSAFE.sub("-", text).strip("-")


def example_id(example: Example) -> str:
    """The id of ``example``, before its file's duplicates are numbered."""
    path = example.source.path
    if path is not None and PurePath(path).suffix.lower() in (".md", ".json"):
        return safe_id(PurePath(path).stem) or safe_id(example.name)
    return safe_id(example.name) or (safe_id(PurePath(path).stem) if path else "")


def unique_id(base: str, taken: set[str], fallback: str) -> str:
    """``base`` as a pasteable id, numbered (``name-2``) if ``taken`` has it, and
    added to ``taken``: the names of a file's items, as pytest's node ids show them."""
    name = safe_id(base) or safe_id(fallback) or "example"
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate)
    return candidate
