"""Related files written into the examples (``editpred context``, Zed's ``ep context``).

Each example is loaded as :func:`~.read_items` loads it (its JSON fields kept), its
scene rebuilt offline from the repository cache and mappings as ``editpred prompt``
does, and, when Zed's rule says so (no ``related_files`` yet, or ``force``), its
``prompt_inputs.related_files`` set to what :class:`~pytest_editpred.retrieval.ContextRetriever`
retrieves. So a team retrieves once, commits the JSONL, and a later run (or Zed's
``ep``) shows the same related files without a language server.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import EditPredError
from ._stream import Item, Problem

if TYPE_CHECKING:
    from ..retrieval import ContextRetriever

__all__ = ["with_context"]


def with_context(
    items: Iterable[Item | Problem],
    retriever: ContextRetriever,
    cache_dir: Path,
    mappings: Mapping[str, Path],
    *,
    force: bool = False,
) -> Iterator[Item | Problem]:
    """Every item, with its related files retrieved where Zed's ``ep context`` would
    retrieve them (an example that keeps its own goes out as it came in); an example
    whose scene cannot be built is one :class:`Problem` in its place."""
    from ..example import related_files_to_json
    from ..retrieval import needs_retrieval
    from ..scene import RepositoryCache, build_scene

    repositories = RepositoryCache(
        cache_dir,
        dict(mappings),
        offline=True,
        offline_by="editpred context",
        offline_fill="run the example once with pytest (which fetches it)",
    )
    try:
        for item in items:
            if isinstance(item, Problem) or not needs_retrieval(item.example, force=force):
                yield item
                continue
            example = item.example
            try:
                files = retriever(build_scene(example, repositories))
            except EditPredError as error:
                located = error.locate(str(item.path), item.line or example.source.line)
                yield Problem(located.path or str(item.path), located.line, located.reason, located.fix)
                continue
            fields = item.json_fields()
            inputs = fields.get("prompt_inputs")
            kept = inputs if isinstance(inputs, dict) else {}
            fields["prompt_inputs"] = {**kept, "related_files": related_files_to_json(files)}
            yield replace(item, example=replace(example, related_files=files), fields=fields, changed=True)
    finally:
        repositories.close()
