"""A model server endpoint seen through the response cache.

Kept apart from the transport and the cache so that the rule joining them lives in
one place: read the cache (a hit records no attempts and reports the latency of the
original request), else, unless replay-only, ask the server; store only answers
whose envelope could be read, so a cache never holds something that would fail
differently when replayed. An answer the prompt format cannot use *is* stored: it is
the model's answer, and replaying it fails the item the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..._exceptions import ConfigError, EditPredError, PredictionError
from ..._settings import Settings
from ...judge import Attempt
from ._cache import ResponseCache, cache_key
from ._http import BASE_URL_FIX, HeaderHook, HTTPTransport, Secret, api_key, attach, endpoint_url, safe_url

__all__ = ["Endpoint", "Fetched", "Reply", "malformed"]

log = logging.getLogger("pytest_editpred.providers")

T = TypeVar("T")


@dataclass(frozen=True)
class Reply:
    """What a server said, whatever its envelope: the generated text, why it stopped
    (``length`` means cut off by max_tokens), token counts and the model id."""

    text: str
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    model: str | None = None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


@dataclass(frozen=True)
class Fetched(Generic[T]):
    """An extracted answer and how it was obtained."""

    value: T
    text: str
    latency: float | None
    attempts: tuple[Attempt, ...]
    cached: bool


def malformed(url: str, why: str, data: Any) -> PredictionError:
    """A 2xx JSON body without what the endpoint promises."""
    shown = repr(data)
    shown = shown if len(shown) <= 200 else shown[:200] + "…"
    return PredictionError(
        f"{safe_url(url)} answered with JSON that {why}: {shown}",
        fix="Check that the base URL points at the kind of endpoint this provider speaks.",
    )


def check_base_url(settings: Settings) -> str:
    if not settings.base_url:
        raise ConfigError(
            f"provider {settings.provider!r} needs a base URL",
            fix="Give --editpred-base-url, e.g. http://127.0.0.1:8000/v1.",
        )
    scheme = settings.base_url.split("://", 1)[0].lower() if "://" in settings.base_url else ""
    if scheme not in ("http", "https"):
        raise ConfigError(
            f"the base URL {safe_url(settings.base_url)!r} is not an http(s) URL",
            fix=BASE_URL_FIX,
        )
    return settings.base_url


class Endpoint:
    """One endpoint of one server, for one provider, with its cache."""

    def __init__(
        self,
        settings: Settings,
        *,
        provider: str,
        path: str,
        http: HTTPTransport,
        headers: HeaderHook | None = None,
    ) -> None:
        self.settings = settings
        self.headers = headers  # how the key is sent (None: Authorization: Bearer)
        self.provider = provider
        self.path = path
        self.base_url = check_base_url(settings)
        self.url = endpoint_url(self.base_url, path)
        self.cache = ResponseCache.from_settings(settings)
        self.http = http
        if not self.cache.replay_only:
            api_key(settings)  # fail fast on an unset key variable (read again per request)

    def __repr__(self) -> str:
        return f"Endpoint({self.provider!r}, {safe_url(self.url)!r}, cache={self.cache.mode!r})"

    def key(self, body: Mapping[str, Any], trial: int) -> str:
        return cache_key(
            provider=self.provider,
            model=self.settings.model,
            base_url=self.base_url,
            endpoint=self.path,
            body=body,
            trial=trial,
        )

    async def call(self, body: Mapping[str, Any], *, trial: int, extract: Callable[[Any], T]) -> Fetched[T]:
        key = self.key(body, trial)
        hit = self.cache.get(key)
        if hit is not None:
            try:
                return Fetched(extract(hit.data), hit.text, hit.latency, (), True)
            except PredictionError as error:
                log.warning("ignoring cache file %s: %s", hit.path, error.reason)
        if self.cache.replay_only:
            raise self.cache.miss(key, self.url)
        response = await self.http.post_json(self.url, body, headers=self.headers)
        try:
            value = extract(response.data)
        except EditPredError as error:
            attach(error, attempts=response.attempts)
            raise
        self.cache.put(
            key,
            response_text=response.text,
            latency=response.latency,
            metadata={
                "provider": self.provider,
                "model": self.settings.model,
                "base_url": safe_url(self.base_url),
                "endpoint": self.path,
                "trial": trial,
                "request": dict(body),
            },
            secret=_secret(self.settings),
        )
        return Fetched(value, response.text, response.latency, response.attempts, False)

    async def aclose(self) -> None:
        await self.http.aclose()


def _secret(settings: Settings) -> Secret | None:
    try:
        return api_key(settings)
    except ConfigError:
        return None
