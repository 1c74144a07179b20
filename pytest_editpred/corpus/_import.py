"""``editpred import``: one entry for every format; the formats' modules do the
mapping (``datasets.md``), on the canvas and the records of :mod:`._canvas`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ._canvas import FORMATS, Imported, ImportSourceError, Item, Skipped
from ._import_copilot import import_copilot
from ._import_crosscodeeval import import_crosscodeeval
from ._import_nep import import_nep

__all__ = ["FORMATS", "ImportSourceError", "Imported", "Item", "Skipped", "import_examples"]


def import_examples(fmt: str, source: Path) -> Iterator[Item]:
    """Every item of ``source`` in format ``fmt``, in order, as an example or a skip.

    Raises :class:`ImportSourceError` before the first item when ``source`` cannot
    be read at all; afterwards a bad item is a :class:`Skipped`, never an exception.
    """
    if fmt == "copilot-nes":
        return import_copilot(source)
    if fmt == "nep":
        return import_nep(source)
    if fmt == "crosscodeeval":
        return import_crosscodeeval(source)
    raise ImportSourceError(f"unknown format {fmt!r}", fix=f"Use one of {', '.join(FORMATS)}.")
