"""NEP (Next Edit Prediction, arXiv 2508.10074) JSONL rows as examples (``datasets.md`` §2).

A row is three windows of one file: before the user's edit (``old_contents``), after
it (``current_contents``) and after the next edit (``new_contents``). The canvas
example creates the file with the first, types the second as the Edit History and
expects the third; the benchmark's exact match ("the predicted window equals
``new_contents``") is then the verdict's exact match on that file.

The name is ``nep-`` and the row's 1-based line number, three digits at least
(``nep-001``): stable while the file is, and unique even where two rows share a
commit and a file (the test set has such a pair).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..example import Example
from ._canvas import (
    Item,
    ItemError,
    canvas_example,
    check_path,
    edit_diff,
    field,
    history_cursor,
    import_rows,
    json_type,
    language,
)

__all__ = ["import_nep", "nep_example"]

_FIX_ROW = "Each row needs the string fields new_file, old_contents, current_contents and new_contents."


def import_nep(source: Path) -> Iterator[Item]:
    """Every row of a NEP ``.jsonl`` file, as an example or a skip naming its line."""
    return import_rows(source, lambda row, number: (nep_example(row, number), 0))


def nep_example(row: object, number: int) -> Example:
    """The example of one decoded row (line ``number``); :class:`ItemError` if it
    cannot be one."""
    if not isinstance(row, dict):
        raise ItemError(f"the row is {json_type(row)}, not an object", fix=_FIX_ROW)
    path = check_path(str(field(row, "new_file", str)), "new_file")
    old = str(field(row, "old_contents", str))
    current = str(field(row, "current_contents", str))
    new = str(field(row, "new_contents", str))
    if old == current:
        raise ItemError(
            "no edit history: current_contents equals old_contents",
            fix="A NEP row needs the user's edit; drop the row.",
        )
    if current == new:
        raise ItemError(
            "no next edit: new_contents equals current_contents", fix="A NEP row needs the next edit; drop the row."
        )
    lang = language(path)
    return canvas_example(
        name=f"nep-{number:03d}",
        tags=("nep",) + ((lang,) if lang else ()),
        files=[(path, old)],
        history=[edit_diff(path, old, current)],
        cursor=(path, current, history_cursor(old, current)),
        expected=[edit_diff(path, current, new)],
    )
