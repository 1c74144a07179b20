"""The run's settings for providers, gathered from options and ini keys by the plugin.

Kept apart from pytest so providers can be used (and tested) without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._limits import DEFAULT_LIMITS

__all__ = ["Settings", "CACHE_MODES"]

CACHE_MODES = ("off", "read", "write", "readwrite", "replay-only")


@dataclass(frozen=True)
class Settings:
    """Provider settings. ``api_key_env`` names the variable holding the key: the key
    itself is read when a request is sent and is never stored here."""

    provider: str = "baseline"
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    prompt_format: str = "infer"
    max_tokens: int = 2048
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    timeout: float = 60.0
    retries: int = 3
    cache_mode: str = "readwrite"
    cache_dir: Path | None = None
    replay_path: Path | None = None
    concurrency: int = 8
    max_response_bytes: int = DEFAULT_LIMITS.max_response_bytes
