"""A response cache: the same request is answered once, then read back.

Why: runs are repeated far more often than models change, and a cached run is
reproducible to the byte and free. The key is the sha256 of the canonical JSON of
everything that decides the answer, and nothing else: the provider name, model,
base URL, endpoint, the request body (prompt and sampling parameters) and the trial
number (so trials stay independent samples). The API key is never part of the key
nor of the file.

Layout: ``<cache_dir>/<key[:2]>/<key>.json`` holding the raw response body and
metadata. Files are written to a temporary file in the same directory and moved in
place with :func:`os.replace`, so concurrent processes (xdist workers) never see a
half-written file; the last writer wins and all writers write the same answer.

Modes: ``off``; ``read`` (use hits, never write); ``write`` (always ask the server,
store the answer); ``readwrite``; ``replay-only`` (use hits, and a miss is a
:class:`MissingAnswerError`: the item is an ERROR, counted as not passed, and
nothing is sent). A file that cannot be read or
parsed is a miss, and is rewritten in the modes that write: that includes JSON nested
deeper than :data:`~pytest_editpred._limits.MAX_JSON_DEPTH` (read with
:func:`~pytest_editpred._safe_json.loads_bounded`, so no :class:`RecursionError`),
which would otherwise fail the same item on every run. The API key is redacted from
every file written.

Symlinks: the cache never reads or writes through a link that leads out of its root,
as a cache copied, unpacked or committed by someone else may hold. Behind a shard
directory that is a symlink out, an entry is neither read (a miss) nor written (the
answer is not cached); an entry that is itself a symlink out is not read, and is
replaced by a file of the cache when the answer is stored (:func:`write_atomic`
renames over the link). The run goes on, and a :class:`ResponseCacheWarning` says
so once per cache, not once per entry (once per
process under xdist, in the same words, which pytest's warnings summary shows once).
Links that stay inside the root are followed. The root itself is where the user
pointed the cache: it is resolved once, links included, and everything below it
must stay inside what it resolved to. (A link swapped in between the check and the
write is not guarded against: that needs someone writing into the cache while it
runs.)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..._exceptions import ConfigError, MissingAnswerError
from ..._files import write_atomic
from ..._safe_json import loads_bounded
from ..._settings import CACHE_MODES, Settings
from ._http import safe_url
from ._secret import Secret, redact

__all__ = ["CachedResponse", "ResponseCache", "ResponseCacheWarning", "cache_key"]

log = logging.getLogger("pytest_editpred.providers")

FORMAT_VERSION = 1


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain)


def _plain(value: Any) -> Any:
    """JSON for the odd types settings carry (tuples are lists already)."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def cache_key(
    *, provider: str, model: str | None, base_url: str, endpoint: str, body: Mapping[str, Any], trial: int
) -> str:
    """sha256 of the canonical JSON of what decides the answer."""
    identity = {
        "provider": provider,
        "model": model,
        "base_url": base_url.rstrip("/"),
        "endpoint": endpoint,
        "body": dict(body),
        "trial": trial,
    }
    return hashlib.sha256(_canonical(identity).encode()).hexdigest()


class ResponseCacheWarning(UserWarning):
    """The response cache left entries alone (a symlink out of its root); the run goes on."""


@dataclass(frozen=True)
class CachedResponse:
    """A stored answer: the raw body, its JSON, and the original latency."""

    key: str
    text: str
    data: Any
    latency: float | None
    path: Path


class ResponseCache:
    """Where answers are kept, and what the mode allows."""

    def __init__(self, directory: Path | None, mode: str = "readwrite") -> None:
        if mode not in CACHE_MODES:
            raise ConfigError(f"unknown cache mode {mode!r}", fix=f"Pick one of: {', '.join(CACHE_MODES)}.")
        if mode == "replay-only" and directory is None:
            raise ConfigError(
                "cache mode 'replay-only' needs a cache directory",
                fix="Give --editpred-response-cache-dir, the directory a previous run filled "
                "(by default the pytest cache holds it: do not run with -p no:cacheprovider).",
            )
        self.directory = Path(directory) if directory is not None else None
        self.mode = mode if directory is not None else "off"
        self._root: str | None = None  # the directory, resolved on first use
        self._told = False  # a link out of the root was reported
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> ResponseCache:
        return cls(settings.cache_dir, settings.cache_mode)

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.directory)!r}, mode={self.mode!r})"

    @property
    def reads(self) -> bool:
        return self.mode in ("read", "readwrite", "replay-only")

    @property
    def writes(self) -> bool:
        return self.mode in ("write", "readwrite")

    @property
    def replay_only(self) -> bool:
        return self.mode == "replay-only"

    def path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.json"

    def _inside(self, key: str, *, entry: bool) -> Path | None:
        """:meth:`path`, or None when its shard directory (and, with ``entry``, the
        entry itself) is a symlink leading out of the root. Two ``lstat`` calls at
        most: a link is resolved only when there is one."""
        path = self.path(key)
        for candidate in (path.parent, path) if entry else (path.parent,):
            try:
                if not stat.S_ISLNK(os.lstat(candidate).st_mode):
                    continue
            except OSError:  # not there yet (made as a plain one), or unreadable (said where it is read)
                return path
            real = os.path.realpath(candidate)
            if self._root is None:
                assert self.directory is not None
                self._root = os.path.realpath(self.directory)
            if real != self._root and not real.startswith(self._root.rstrip(os.sep) + os.sep):
                self._refuse(real)
                return None
        return path

    def _refuse(self, real: str) -> None:
        """Say once per cache that links out of it are not followed."""
        with self._lock:
            if self._told:
                return
            self._told = True
        # The link itself is not named: xdist's workers meet different ones, and the
        # same words from each are one line of pytest's warnings summary.
        message = (
            f"a symlink in the response cache {self._root} leads out of it (to {real}): the cache neither "
            "reads nor writes through such links, so those answers are asked of the server and not cached. "
            f"Replace the links with plain directories (find {self._root} -type l lists them), or point "
            "--editpred-response-cache-dir elsewhere."
        )
        try:
            warnings.warn(message, ResponseCacheWarning, stacklevel=3)
        except Warning:  # warnings made errors (-W error): a cache fault still must not stop an item
            log.warning("%s", message)

    def get(self, key: str) -> CachedResponse | None:
        """The stored answer, or ``None`` for a miss (a damaged file, or one behind a
        link out of the cache, is a miss)."""
        if not self.reads:
            return None
        path = self._inside(key, entry=True)
        if path is None:
            return None
        try:
            record = loads_bounded(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict) or record.get("key") != key:
                raise ValueError("not a cache record for this key")
            text = record["response"]
            if not isinstance(text, str):
                raise ValueError("response is not a string")
            data = loads_bounded(text)
            latency = record.get("latency")
            latency = float(latency) if isinstance(latency, (int, float)) else None
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning("ignoring damaged cache file %s: %s", path, error)
            return None
        return CachedResponse(key, text, data, latency, path)

    def miss(self, key: str, url: str) -> MissingAnswerError:
        """The error for a miss in replay-only mode: no answer, so an ERROR (not passed),
        never a FAILED."""
        return MissingAnswerError(
            f"missing answer: the request to {safe_url(url)} is not in the response cache "
            f"({self.path(key)}); the cache is replay-only, so nothing was sent",
            fix="Run once with --editpred-cache=readwrite to record the answers.",
        )

    def put(
        self,
        key: str,
        *,
        response_text: str,
        latency: float | None,
        metadata: Mapping[str, Any],
        secret: Secret | str | None = None,
    ) -> Path | None:
        """Store an answer atomically; a disk error is logged, never fatal. Nothing is
        written through a shard directory that links out of the cache; an entry that
        is a symlink is replaced, never written through (:func:`write_atomic` renames
        a new file over it)."""
        if not self.writes:
            return None
        path = self._inside(key, entry=False)
        if path is None:
            return None
        record = {
            "version": FORMAT_VERSION,
            "key": key,
            **metadata,
            "latency": latency,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "response": response_text,
        }
        content = redact(json.dumps(record, ensure_ascii=False, indent=1, default=_plain), secret)
        try:
            write_atomic(path, content)
        except OSError as error:
            log.warning("could not write the response cache file %s: %s", path, error)
            return None
        return path
