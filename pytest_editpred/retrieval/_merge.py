"""§3: the editable files merged into the lsp list, and touching excerpts coalesced.

A file both lists hold gets the editable excerpts appended; then every file's
excerpts are sorted and each one that touches or overlaps the one before is folded
into it (its new rows appended, the better order kept). ``O(e log e)`` per file of
``e`` excerpts, plus the text copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .._text import line_start
from ..zeta import RelatedExcerpt, RelatedFile

__all__ = ["coalesce_touching_excerpts", "merge_context_files"]


def coalesce_touching_excerpts(excerpts: Sequence[RelatedExcerpt]) -> tuple[RelatedExcerpt, ...]:
    """Zed's ``coalesce_touching_excerpts``: an excerpt starting at or before the
    previous one's end row is folded into it; a better (lower) order wins the label.

    The rows both hold are not repeated: ``last.end − x.start`` of ``x``'s lines are
    skipped, one more when ``last`` includes its end row (its text does not end with
    a newline). If ``x`` has fewer lines than that, it stays apart.
    """
    out: list[RelatedExcerpt] = []
    for excerpt in sorted(excerpts, key=lambda e: (e.start_row, e.end_row)):
        if not out or excerpt.start_row > out[-1].end_row:
            out.append(excerpt)
            continue
        last = out[-1]
        if excerpt.end_row > last.end_row:
            inclusive = bool(last.text) and not last.text.endswith("\n")
            offset = line_start(excerpt.text, last.end_row - excerpt.start_row + inclusive)
            if offset is None:
                out.append(excerpt)
                continue
            text = last.text + ("\n" if inclusive else "") + excerpt.text[offset:]
            last = replace(last, end_row=excerpt.end_row, text=text)
        if excerpt.order < last.order:
            last = replace(last, order=excerpt.order, context_source=excerpt.context_source)
        out[-1] = last
    return tuple(out)


def merge_context_files(lsp: Sequence[RelatedFile], editable: Sequence[RelatedFile]) -> list[RelatedFile]:
    """Zed's ``merge_context_files``: the lsp files in their order, each joined by
    the editable file of the same path, then the editable-only files in editable
    order; every file's excerpts coalesced."""
    merged: dict[str, RelatedFile] = {file.path: file for file in lsp}
    order = [file.path for file in lsp]
    for file in editable:
        known = merged.get(file.path)
        if known is None:
            merged[file.path] = file
            order.append(file.path)
        else:
            merged[file.path] = RelatedFile(
                file.path,
                max(known.max_row, file.max_row),
                known.excerpts + file.excerpts,
                known.in_open_source_repo and file.in_open_source_repo,
            )
    return [replace(merged[path], excerpts=coalesce_touching_excerpts(merged[path].excerpts)) for path in order]
