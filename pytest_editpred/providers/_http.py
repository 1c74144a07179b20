"""POST one JSON request to a model server, retrying only what is worth retrying.

Why this matters: the score must never be blurred by infrastructure. A refused or
dropped connection, a timeout, HTTP 408, 429 or 5xx is retried with exponential
backoff and jitter (``Retry-After`` honoured, up to a cap) and every attempt is
recorded. When the attempts run out the item becomes an ERROR
(:class:`ProviderUnavailableError`), never a FAILED. Any other 4xx (400, 401, 404, …)
means the settings are wrong, so retrying cannot help: it is reported at once, with
the server's message. A 2xx whose body is not JSON is the server's answer, so it is
not retried either: :class:`PredictionError`, and the item fails.

Every attempt has a hard deadline (``settings.timeout``) on top of httpx's own
timeouts, so nothing can hang. The API key is read from the environment for each
request, sent as ``Authorization: Bearer`` and never stored, logged, or put in an
error message (server messages are scrubbed of it before they are shown).

One :class:`httpx.AsyncClient` is shared by every request of a provider, so many
requests can be in flight; it is re-created when it finds itself on a new event loop
(a client's connections belong to the loop that opened them) and closed when its
loop shuts down. ``transport`` swaps
the network for an :class:`httpx.MockTransport` in tests.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import logging
import os
import random
import ssl
import time
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx

from .._exceptions import ConfigError, EditPredError, PredictionError, ProviderUnavailableError
from .._prediction import Attempt
from .._settings import Settings

__all__ = ["Backoff", "HTTPTransport", "Response", "api_key", "attach", "endpoint_url", "redact", "safe_url"]

log = logging.getLogger("pytest_editpred.providers")

_RETRIED_STATUS = frozenset({408, 429})
_MESSAGE_LIMIT = 300
_REDACTED = "[REDACTED]"


@dataclass(frozen=True)
class Backoff:
    """When to try again: ``base * factor**(n-1)`` seconds after the n-th failure,
    at most ``cap``, scaled by a random factor in ``1 ± jitter`` so that many clients
    do not retry in step. A ``Retry-After`` header replaces the computed delay, up to
    ``retry_after_cap``."""

    base: float = 0.5
    factor: float = 2.0
    cap: float = 10.0
    jitter: float = 0.25
    retry_after_cap: float = 60.0

    def delay(self, failures: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.retry_after_cap)
        delay = min(self.cap, self.base * self.factor ** max(failures - 1, 0))
        return max(0.0, delay * (1.0 + rng.uniform(-self.jitter, self.jitter)))


@dataclass(frozen=True)
class Response:
    """A 2xx answer: its JSON, the raw body, the latency of the attempt that got it
    and every attempt made (failed ones first)."""

    data: Any
    text: str
    latency: float
    attempts: tuple[Attempt, ...]


def safe_url(url: str) -> str:
    """``url`` without user info, query or fragment: safe to show and to store."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def endpoint_url(base_url: str, path: str) -> str:
    """The URL of ``path`` (e.g. ``/v1/completions``) on the server at ``base_url``.

    ``base_url`` may be the server root, end in ``/v1`` (the OpenAI client
    convention) or already be the full endpoint URL.
    """
    base = base_url.rstrip("/")
    if base.endswith(path):
        return base
    if base.endswith("/v1"):
        return base + path[3:] if path.startswith("/v1/") else base[:-3] + path
    return base + path


def api_key(settings: Settings) -> str | None:
    """The key from the variable named by ``settings.api_key_env``, read now."""
    if not settings.api_key_env:
        return None
    key = os.environ.get(settings.api_key_env, "")
    if not key:
        raise ConfigError(
            f"the API key variable {settings.api_key_env} is not set",
            fix=f"Export {settings.api_key_env}, or drop --editpred-api-key-env for a server without keys.",
        )
    return key


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, _REDACTED) if secret else text


def _retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` as seconds (a number or an HTTP date), or ``None``."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _server_message(response: httpx.Response, secret: str | None) -> str:
    """The server's own explanation, short, on one line, without the key."""
    text = response.text
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data.get("message", data.get("detail")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            text = error if isinstance(error, str) else json.dumps(error)
    text = " ".join(redact(text, secret).split())
    return text if len(text) <= _MESSAGE_LIMIT else text[:_MESSAGE_LIMIT] + "…"


E = TypeVar("E", bound=EditPredError)


def attach(error: E, **facts: Any) -> E:
    """Hang facts on an error for the report (``attempts``, ``raw_output``): the
    error replaces the Prediction that would have carried them."""
    for name, value in facts.items():
        setattr(error, name, value)
    return error


def _fix_for(status: int) -> str:
    if status in (401, 403):
        return "Check the API key and the variable named by --editpred-api-key-env."
    if status == 404:
        return "Check the base URL (--editpred-base-url) and the model name (--editpred-model)."
    return "Check the provider settings (base URL, model, extra body) against the server."


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext | bool:
    """Loading the CA bundle costs ~0.1s: once per process, not per client
    (httpx < 0.28 has no public factory: it then builds its own)."""
    create = getattr(httpx, "create_ssl_context", None)
    return create() if create is not None else True


async def _close_at_loop_shutdown(client: httpx.AsyncClient) -> AsyncGenerator[None, None]:
    """Close ``client`` when its event loop shuts down.

    A started async generator is tracked by its loop, and ``asyncio.run`` (or any
    owner calling ``loop.shutdown_asyncgens()``) closes it on the way out: the
    ``finally`` below then closes the client's connections on the loop they belong
    to, so no socket is left for the garbage collector, whoever runs the loop.
    """
    try:
        yield
    finally:
        await client.aclose()


class HTTPTransport:
    """POSTs JSON with retries; one shared client per event loop."""

    def __init__(
        self,
        settings: Settings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.backoff = backoff or Backoff()
        self._transport = transport
        self._rng = rng or random.Random()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: httpx.AsyncClient | None = None
        self._gate: asyncio.Semaphore | None = None
        self._closer: AsyncGenerator[None, None] | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(timeout={self.settings.timeout}, retries={self.settings.retries})"

    @property
    def max_attempts(self) -> int:
        return max(1, self.settings.retries)

    async def _state(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._client is None or self._gate is None or self._loop is not loop:
            limit = max(1, self.settings.concurrency)
            self._client = httpx.AsyncClient(
                transport=self._transport,
                verify=_ssl_context(),
                timeout=httpx.Timeout(self.settings.timeout),
                limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit),
                follow_redirects=False,
            )
            self._gate = asyncio.Semaphore(limit)
            self._loop = loop
            self._closer = _close_at_loop_shutdown(self._client)
            await self._closer.__anext__()
        return self._client, self._gate

    async def aclose(self) -> None:
        """Close the client now (it is closed anyway when its loop shuts down)."""
        closer, self._closer, self._client = self._closer, None, None
        if closer is not None and self._loop is asyncio.get_running_loop():
            await closer.aclose()

    async def _send(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> tuple[httpx.Response | None, str, str, float]:
        """One attempt: the response, or ``None`` with the error kind and detail;
        and the attempt's latency (waiting for a free slot not included)."""
        client, gate = await self._state()
        async with gate:
            started = time.monotonic()
            try:
                response = await asyncio.wait_for(
                    client.post(url, json=dict(body), headers=dict(headers)), self.settings.timeout
                )
                return response, "", "", time.monotonic() - started
            except (asyncio.TimeoutError, httpx.TimeoutException):
                kind, detail = "timeout", f"no answer within {self.settings.timeout:g}s"
            except httpx.ConnectError:
                kind, detail = "connect", "connection refused or host unreachable"
            except httpx.RemoteProtocolError:
                kind, detail = "disconnect", "the server closed the connection without a complete answer"
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
                raise ConfigError(
                    f"cannot send a request to {safe_url(url)}: {type(error).__name__}",
                    fix="Give --editpred-base-url as http://host:port or https://host.",
                ) from None
            except httpx.TransportError as error:
                kind, detail = "network", type(error).__name__
            return None, kind, detail, time.monotonic() - started

    async def post_json(self, url: str, body: Mapping[str, Any]) -> Response:
        """POST ``body``; the first 2xx with a JSON body, or an exception that
        carries every attempt (``error.attempts``)."""
        secret = api_key(self.settings)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        shown = safe_url(url)
        attempts: list[Attempt] = []
        kind = detail = ""
        for ordinal in range(1, self.max_attempts + 1):
            response, kind, detail, latency = await self._send(url, body, headers)
            retry_after: float | None = None
            if response is not None:
                status = response.status_code
                if 200 <= status < 300:
                    try:
                        data = json.loads(response.text)
                    except ValueError:
                        attempts.append(Attempt(ordinal, "invalid-json", latency))
                        raise attach(
                            PredictionError(
                                f"{shown} answered HTTP {status} with a body that is not JSON: "
                                f"{_server_message(response, secret)!r}",
                                fix="Check that the base URL points at an OpenAI-compatible or FIM endpoint.",
                            ),
                            attempts=tuple(attempts),
                        ) from None
                    attempts.append(Attempt(ordinal, None, latency))
                    log.debug("POST %s: HTTP %s in %.3fs (attempt %d)", shown, status, latency, ordinal)
                    return Response(data, response.text, latency, tuple(attempts))
                kind, detail = f"http-{status}", _server_message(response, secret)
                if status not in _RETRIED_STATUS and status < 500:
                    attempts.append(Attempt(ordinal, kind, latency))
                    raise attach(
                        ProviderUnavailableError(
                            f"{shown} answered HTTP {status}, which a retry cannot mend: {detail}",
                            fix=_fix_for(status),
                        ),
                        attempts=tuple(attempts),
                    )
                retry_after = _retry_after(response)
            attempts.append(Attempt(ordinal, kind, latency))
            log.info("POST %s: attempt %d/%d failed: %s", shown, ordinal, self.max_attempts, kind)
            if ordinal < self.max_attempts:
                await asyncio.sleep(self.backoff.delay(ordinal, retry_after, self._rng))
        count = len(attempts)
        raise attach(
            ProviderUnavailableError(
                f"POST {shown} failed after {count} attempt{'s' if count != 1 else ''}; "
                f"the last error was {kind}" + (f" ({detail})" if detail else ""),
            ),
            attempts=tuple(attempts),
        )
