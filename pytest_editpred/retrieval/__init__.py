"""Zed v1.15's ``ep context``: the related files of an example's scene
(``../shared/reference/zed-context-retrieval.md``).

A core without pytest: :func:`retrieve` takes a :class:`~pytest_editpred.scene.Scene`
and ``--type`` values and returns ``prompt_inputs.related_files`` as Zed computes
it, from the editable sources (the cursor's window, the cursor file, the edit
history, git log, BM25, the oracle), merged into the ``lsp`` source's files, which a
language-server layer hands in. :func:`~pytest_editpred.example.related_files_to_json`
writes them in ``ep``'s shape; :class:`ContextRetriever` runs retrieval when Zed's
pipeline does (an example without ``related_files``), through the response cache;
``limit_retrieved_context_to_bytes`` (in :mod:`pytest_editpred.metrics`) is the
downstream byte limit.
"""

from ._context import RETRIEVAL_VERSION, ContextRetriever, needs_retrieval
from ._fxhash import oracle_padding
from ._merge import coalesce_touching_excerpts, merge_context_files
from ._retrieve import LspSource, collect_editable_context, retrieve, root_name
from ._tokens import tokenize

__all__ = [
    "RETRIEVAL_VERSION",
    "ContextRetriever",
    "LspSource",
    "coalesce_touching_excerpts",
    "collect_editable_context",
    "merge_context_files",
    "needs_retrieval",
    "oracle_padding",
    "retrieve",
    "root_name",
    "tokenize",
]
