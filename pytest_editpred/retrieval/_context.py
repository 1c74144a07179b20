"""Retrieval as Zed's pipeline runs it (§0): for an example that carries no
``related_files``, once, with the answer kept in the response cache.

A run and ``editpred context`` both go through :class:`ContextRetriever`. It holds
the ``--type`` values, the run's :class:`~.lsp.LanguageServers` (made, and pygls
imported, only when an example needs the ``lsp`` source) and the response cache.

**The cache.** Retrieving costs a language server's start (seconds) and needs the
server installed; a rerun and a replay-only CI run need neither. An entry is keyed
by everything retrieval reads: the scene (repository URL, revision, uncommitted
diff, edit history, cursor), the sources and :data:`RETRIEVAL_VERSION`. It records
the version of the language server it asked (its version command's output, run
once per server and run, never the server itself). An entry is used when that
server, installed here, has the same version; when it is not installed, the entry
is used as it is (it is what the server answered: without it the lsp list would be
empty). A server of another version makes the entry stale: retrieved again and
rewritten, or, in replay-only mode, the item's ERROR, as a missing one is.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import EditPredError, MissingAnswerError
from ..example import RetrievedFile, related_files_from_json, related_files_to_json
from ..metrics import parse_context_types
from ._retrieve import retrieve

if TYPE_CHECKING:
    from ..example import Example
    from ..scene import Scene
    from .lsp import LanguageServers

__all__ = ["RETRIEVAL_VERSION", "ContextRetriever", "needs_retrieval"]

#: Raised when what this package retrieves for the same scene changes: every cached
#: entry is then retrieved again.
RETRIEVAL_VERSION = 1


def needs_retrieval(example: Example, *, force: bool = False) -> bool:
    """Zed's rule (§0): an example with no ``related_files`` (an empty list is
    some) and a repository URL; with ``force`` (``ep context --force``), every
    example with a repository URL."""
    return bool(example.repository_url) and (force or example.related_files is None)


class ContextRetriever:
    """``retriever(scene)``: the scene's related files for ``types`` (``--type``
    values; an unknown one is a :class:`~pytest_editpred.ContextTypeError`), from the
    cache in ``cache_dir`` (``cache_mode`` as ``--editpred-cache``; no directory, no
    cache) or retrieved. ``servers`` replaces the pool made on first need.
    :attr:`messages` are the servers' problems, each said once."""

    def __init__(
        self,
        types: str | Iterable[str] = "lsp",
        *,
        cache_dir: Path | None = None,
        cache_mode: str = "off",
        servers: LanguageServers | None = None,
    ) -> None:
        from ..providers.transport import ResponseCache

        self.types = types if isinstance(types, str) else tuple(types)
        self.sources = parse_context_types(self.types if self.types else "lsp")
        self.cache = ResponseCache(cache_dir, cache_mode) if cache_mode != "off" else None
        self._servers = servers
        self._own = servers is None
        self._lock = threading.Lock()

    @property
    def messages(self) -> list[str]:
        return list(self._servers.messages) if self._servers is not None else []

    def servers(self) -> LanguageServers:
        """The language servers, the pool made on first call."""
        with self._lock:
            if self._servers is None:
                from .lsp import LanguageServers

                self._servers = LanguageServers()
            return self._servers

    def close(self) -> None:
        """Shut down the servers this retriever started (not ones handed in)."""
        with self._lock:
            servers = self._servers
        if servers is not None and self._own:
            servers.close()

    def __call__(self, scene: Scene) -> tuple[RetrievedFile, ...]:
        versions: dict[str, str | None] = {}
        if "lsp" in self.sources:
            found = self.servers().server_version(scene.cursor.path)
            if found is not None:
                versions[found[0]] = found[1]
        key = self.key(scene.example)
        cached = self._cached(key, versions)
        if cached is not None:
            return cached
        lsp = self.servers() if "lsp" in self.sources else None
        files = related_files_from_json(related_files_to_json(retrieve(scene, self.types or "lsp", lsp)))
        if self.cache is not None:
            answer = {"servers": versions, "related_files": related_files_to_json(files)}
            metadata = {"kind": "context", "sources": sorted(self.sources), "retrieval_version": RETRIEVAL_VERSION}
            self.cache.put(key, response_text=json.dumps(answer, ensure_ascii=False), latency=None, metadata=metadata)
        return files

    def key(self, example: Example) -> str:
        """The cache key: sha256 of what retrieval reads (the servers' versions are
        checked against the entry, see the module's docstring)."""
        identity = {
            "kind": "context",
            "retrieval_version": RETRIEVAL_VERSION,
            "sources": sorted(self.sources),
            "repository_url": example.repository_url,
            "revision": example.revision,
            "uncommitted_diff": example.uncommitted_diff,
            "rollback": example.uncommitted_diff_requires_edit_history_rollback,
            "edit_history": example.edit_history,
            "cursor_path": example.cursor_path,
            "cursor_position": example.cursor_position,
        }
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _cached(self, key: str, versions: dict[str, str | None]) -> tuple[RetrievedFile, ...] | None:
        """The cached related files, None to retrieve them; in replay-only mode a
        missing or stale entry is a :class:`MissingAnswerError`."""
        cache = self.cache
        if cache is None:
            return None
        entry = cache.get(key)
        stale = ""
        if entry is not None:
            files, recorded = _entry(entry.data)
            if files is not None:
                mismatched = [
                    f"{name} {recorded.get(name)} (installed: {version})"
                    for name, version in versions.items()
                    if version is not None and recorded.get(name) != version
                ]
                if not mismatched:
                    return files
                stale = f" for the language servers installed here: it was recorded with {', '.join(mismatched)}"
        if cache.replay_only:
            where = cache.path(key)
            raise MissingAnswerError(
                f"missing context: the related files of this example ({','.join(sorted(self.sources))}) are not "
                f"in the response cache{stale} ({where}); the cache is replay-only, so nothing was retrieved",
                fix="Run once with --editpred-cache=readwrite (and the language servers installed) to record them.",
            )
        return None


def _entry(data: Any) -> tuple[tuple[RetrievedFile, ...] | None, dict[str, Any]]:
    """A cache entry's related files and server versions; None for a damaged entry."""
    if not isinstance(data, dict) or not isinstance(data.get("servers"), dict):
        return None, {}
    try:
        return related_files_from_json(data.get("related_files")), data["servers"]
    except EditPredError:
        return None, {}
