"""The ``lsp`` source of Zed's ``ep context`` (zed-context-retrieval.md §2.9, §2.10).

Excerpts around the definitions of the identifiers near the cursor, as the language
servers Zed runs find them: basedpyright (Python), vtsls (TypeScript, JavaScript),
gopls (Go) and rust-analyzer (Rust). :class:`LanguageServers` is the entry point:
``servers(scene)`` is the example's lsp list; the Zed-side processing is
:func:`lsp_related_files`, a pure function of the buffer and the servers' answers.
"""

from ._pool import SERVERS, LanguageServers, ServerSpec
from ._retrieve import MAX_TARGET_LEN, Answers, Location, lsp_related_files

__all__ = ["MAX_TARGET_LEN", "SERVERS", "Answers", "LanguageServers", "Location", "ServerSpec", "lsp_related_files"]
