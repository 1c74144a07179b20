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
"""

from __future__ import annotations

import hashlib
import json
import logging
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

__all__ = ["CachedResponse", "ResponseCache", "cache_key"]

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

    def get(self, key: str) -> CachedResponse | None:
        """The stored answer, or ``None`` for a miss (a damaged file is a miss)."""
        if not self.reads:
            return None
        path = self.path(key)
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
        """Store an answer atomically; a disk error is logged, never fatal."""
        if not self.writes:
            return None
        path = self.path(key)
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
