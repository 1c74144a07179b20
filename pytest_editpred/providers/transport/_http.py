"""POST one JSON request to a model server, retrying only what is worth retrying.

Why this matters: the score must never be blurred by infrastructure. A refused or
dropped connection, a timeout, HTTP 408, 429 or 5xx is retried with exponential
backoff and jitter (``Retry-After`` honoured, up to a cap) and every attempt is
recorded. When the attempts run out the item becomes an ERROR
(:class:`ProviderUnavailableError`), never a FAILED. Any other 4xx (400, 401, 404, …)
means the settings are wrong, so retrying cannot help: it is reported at once, with
the server's message. A 2xx whose body is not JSON is the server's answer, so it is
not retried either: :class:`PredictionError`, and the item fails.

Every body is read under ``settings.max_response_bytes``, counted as it streams
and as it inflates (:mod:`._body`): one over the limit is cut off at once, the
connection closed, and the item FAILED (the model's answer is unusable), never
retried, printed or cached. JSON is read by
:func:`~pytest_editpred._safe_json.loads_bounded`, so a deeply nested answer is a
malformed one, not a :class:`RecursionError`.

Every attempt has a hard deadline (``settings.timeout``) on top of httpx's own
timeouts, so nothing can hang. The API key is read from the environment for each
request, sent as ``Authorization: Bearer`` (or in the provider's own header, e.g.
Anthropic's ``x-api-key``) and never stored, logged, or put in an
error message. It is held as a :class:`~._secret.Secret` (shown as ``***``, even by
``--showlocals``) and revealed only as the headers are handed to httpx. Whatever the
server answers is scrubbed of it before anything else sees it: the raw text, the
parsed JSON, and every message quoting the server.

A provider's requests share ``settings.concurrency`` connections, so that many can
be in flight (see :class:`_Pool` for how: a lean transport of our own for plain
``http://``, sharded httpx clients for the rest). The connections are opened when
first needed on an event loop, opened anew when the transport finds itself on a new
one (a connection belongs to the loop that opened it) and closed when their loop
shuts down. Requests are built once and sent through
:meth:`httpx.AsyncClient.send` or the transport directly, not through
``client.post``, whose request building costs as much CPU as the rest of the
exchange. ``transport`` swaps the network for an :class:`httpx.MockTransport` in
tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import functools
import json
import logging
import os
import random
import re
import ssl
import sys
import time
import urllib.request
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..._exceptions import ConfigError, EditPredError, PredictionError, ProviderUnavailableError
from ..._limits import MAX_JSON_DEPTH
from ..._safe_json import JSONDepthError, loads_bounded
from ..._settings import Settings
from ...judge import Attempt
from ._body import BodyReader, BodyTooLarge, UnreadableBody
from ._plain_http import PlainHTTPTransport
from ._secret import Secret, redact, redact_data, reveal_headers

__all__ = [
    "wire_body",
    "Backoff",
    "HTTPTransport",
    "HeaderHook",
    "Response",
    "Secret",
    "api_key",
    "attach",
    "bearer_headers",
    "endpoint_url",
    "redact",
    "safe_url",
    "too_large",
]

log = logging.getLogger("pytest_editpred.providers")

_RETRIED_STATUS = frozenset({408, 429})
_MESSAGE_LIMIT = 300
#: What an HTTP header value may hold: visible ASCII (no space, control or non-ASCII).
_HEADER_SAFE = re.compile(r"[\x21-\x7e]+")


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


def api_key(settings: Settings) -> Secret | None:
    """The key from the variable named by ``settings.api_key_env``, read now, as a
    :class:`Secret`. A key that an HTTP header cannot carry is refused here, in words
    that do not quote it: httpx and h11 would put it in their own error messages."""
    if not settings.api_key_env:
        return None
    if not os.environ.get(settings.api_key_env):
        raise ConfigError(
            f"the API key variable {settings.api_key_env} is not set",
            fix=f"Export {settings.api_key_env}, or drop --editpred-api-key-env for a server without keys.",
        )
    if not _HEADER_SAFE.fullmatch(os.environ[settings.api_key_env]):
        raise ConfigError(
            f"the API key in {settings.api_key_env} holds a space, a control or a non-ASCII character, "
            "which an HTTP header cannot carry",
            fix=f"Export {settings.api_key_env} with the key alone (no quotes, spaces or line breaks).",
        )
    return Secret(os.environ[settings.api_key_env])


#: ``headers(key)``: the headers that carry the API key (``None`` without one). A
#: value may be a :class:`Secret` (``key.prefixed("Bearer ")``, or the key itself):
#: it is revealed only on the way to the wire.
HeaderHook = Callable[[Secret | None], Mapping[str, "str | Secret"]]


def bearer_headers(secret: Secret | None) -> dict[str, str | Secret]:
    """The OpenAI convention, used by every provider that does not say otherwise."""
    return {"Authorization": secret.prefixed("Bearer ")} if secret else {}


def too_large(url: str, limit: int) -> PredictionError:
    """The one message for a response body over ``--editpred-max-response-bytes``."""
    return PredictionError(
        f"{safe_url(url)} answered with a response body larger than {limit:,} bytes, the limit "
        "of --editpred-max-response-bytes (counted as it streams and decompresses); it was "
        "cut off there, and is neither shown nor cached",
        fix="Raise --editpred-max-response-bytes if the model's answers are really this long, "
        "or lower --editpred-max-tokens.",
    )


@dataclass(frozen=True)
class _Answer:
    """A response read whole (and decoded) under the size limit."""

    status_code: int
    headers: httpx.Headers
    content: bytes

    @property
    def text(self) -> str:
        charset = re.search(r"charset=[\"']?([\w.:-]+)", self.headers.get("content-type", ""), re.IGNORECASE)
        try:
            return self.content.decode(charset.group(1) if charset else "utf-8", errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")


def _retry_after(response: _Answer) -> float | None:
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


def _server_message(response: _Answer, secret: Secret | None) -> str:
    """The server's own explanation, short, on one line, without the key."""
    text = redact(response.text, secret)
    try:
        data = loads_bounded(text)
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
T = TypeVar("T")


def attach(error: E, **facts: Any) -> E:
    """Hang facts on an error for the report (``attempts``, ``raw_output``): the
    error replaces the Prediction that would have carried them."""
    for name, value in facts.items():
        setattr(error, name, value)
    return error


#: How to mend a base URL that cannot be used.
BASE_URL_FIX = "Give --editpred-base-url as http://host:port or https://host."


def _unusable(url: str, error: Exception) -> ConfigError:
    return ConfigError(f"cannot send a request to {safe_url(url)}: {type(error).__name__}", fix=BASE_URL_FIX)


# How servers say the prompt is longer than their context (llama.cpp, vLLM, OpenAI).
_CONTEXT_FULL = re.compile(
    r"exceeds the available context size|maximum context length|context length exceeded|"
    r"context_length_exceeded|too many tokens|prompt is too long",
    re.IGNORECASE,
)


def _fix_for(status: int, detail: str = "") -> str:
    if _CONTEXT_FULL.search(detail):
        return (
            "The prompt is longer than the server's context window: start the server with a larger "
            "context (llama.cpp: -c / --ctx-size; vLLM: --max-model-len), or send a shorter prompt "
            "(a prompt format with a smaller budget via --editpred-prompt-format, or a smaller "
            "--editpred-max-tokens, which servers count against the same window)."
        )
    if status in (401, 403):
        return "Check the API key and the variable named by --editpred-api-key-env."
    if status == 404:
        return "Check the base URL (--editpred-base-url) and the model name (--editpred-model)."
    return "Check the provider settings (base URL, model, extra body) against the server."


async def _within(seconds: float, awaitable: Awaitable[T]) -> T:
    """``awaitable``, cancelled after ``seconds`` (:class:`asyncio.TimeoutError`).

    ``asyncio.timeout`` (3.11+) only schedules a cancel; ``wait_for`` before 3.12 runs
    the awaitable as a task of its own, an extra trip through the loop per request.
    """
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, seconds)


@functools.lru_cache(maxsize=64)
def _parsed(url: str) -> httpx.URL:
    """httpx parses a URL in pure Python (~25 µs): once per endpoint, not per request."""
    return httpx.URL(url)


@functools.lru_cache(maxsize=1)
def _user_agent() -> str:
    from ... import __version__

    return f"pytest-editpred/{__version__}"


@functools.lru_cache(maxsize=1)
def _fixed_headers() -> dict[str, str]:
    return {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": _user_agent()}


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext | bool:
    """Loading the CA bundle costs ~0.1s: once per process, not per client
    (httpx < 0.28 has no public factory: it then builds its own)."""
    create = getattr(httpx, "create_ssl_context", None)
    return create() if create is not None else True


#: Connections per httpx client, at most, where httpx's own transport is used
#: (``https://``, a proxy, a test's transport). httpcore's pool goes over all of its
#: connections each time a request starts or ends (``_assign_requests_to_connections``:
#: a socket poll per idle connection, and a count of all of them per idle one), so
#: the CPU a request costs grows with the size of its pool. Measured with
#: ``bench/bench_concurrency.py`` (httpx 0.28.1, httpcore 1.0.9, 2 busy cores): at
#: 32 in flight, one client of 32 connections spent 2–7 ms of CPU a request and
#: reached 16–66% of ideal throughput; clients of 8 spend 1.3–2 ms (smaller ones no
#: less), which is the rest of httpx's cost.
CONNECTIONS_PER_CLIENT = 8


def _proxied(url: str) -> bool:
    """Would httpx send a request for ``url`` through a proxy from the environment?"""
    proxies = urllib.request.getproxies()
    parts = urlsplit(url)
    return bool(proxies.get(parts.scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(
        parts.hostname or ""
    )


class _Pool:
    """How one event loop reaches the server, and the gate that keeps the requests
    in flight within ``settings.concurrency``.

    An ``http://`` server (no proxy in between) is reached through one
    :class:`PlainHTTPTransport`, which opens a connection whenever none is idle: the
    gate is what keeps them within the limit. Anything else (``https://``, a proxy,
    a test's ``transport``) goes through :class:`httpx.AsyncClient` s of at most
    :data:`CONNECTIONS_PER_CLIENT` connections, the least busy first; as the gate lets
    in no more requests than there are connections, that client always has a free
    one, so no request waits inside httpx, against its pool timeout. A test's
    ``transport`` has its own pool, so it gets a single client.
    """

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None) -> None:
        limit = max(1, settings.concurrency)
        self.gate = asyncio.Semaphore(limit)
        self.max_body = settings.max_response_bytes
        self.plain: PlainHTTPTransport | None = None
        self.clients: list[httpx.AsyncClient] = []
        base_url = settings.base_url or ""
        if transport is None and urlsplit(base_url).scheme == "http" and not _proxied(base_url):
            self.plain = PlainHTTPTransport(max_body=self.max_body)
            return
        count = 1 if transport is not None else -(-limit // CONNECTIONS_PER_CLIENT)  # ceiling division
        size = -(-limit // count)
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        self.clients = [
            httpx.AsyncClient(transport=transport, verify=_ssl_context(), limits=limits, follow_redirects=False)
            for _ in range(count)
        ]
        self.busy = [0] * count  # requests in flight on each client

    @property
    def closeables(self) -> list[httpx.AsyncClient | PlainHTTPTransport]:
        return [self.plain] if self.plain is not None else list(self.clients)

    async def send(self, request: httpx.Request) -> _Answer:
        """Send ``request`` (the caller holds the gate); the answer, read whole and
        decoded, or :class:`BodyTooLarge` the moment it passes ``max_body``."""
        if self.plain is not None:
            head, content = await self.plain.fetch(request)
            return _Answer(head.status_code, httpx.Headers(head.headers), content)
        index = min(range(len(self.busy)), key=self.busy.__getitem__)
        self.busy[index] += 1
        try:
            response = await self.clients[index].send(request, stream=True)
            try:
                if response.is_stream_consumed:  # a test's transport, which read it already
                    if len(response.content) > self.max_body:
                        raise BodyTooLarge(self.max_body)
                    return _Answer(response.status_code, response.headers, response.content)
                # Raw bytes, decoded by BodyReader: httpx's decoders inflate a chunk whole.
                reader = BodyReader(self.max_body, response.headers.get("content-encoding"))
                async for raw in response.aiter_raw():
                    reader.feed(raw)
                return _Answer(response.status_code, response.headers, reader.finish())
            finally:
                await response.aclose()  # over the limit: the connection is dropped, not drained
        finally:
            self.busy[index] -= 1


async def _close_at_loop_shutdown(
    closeables: list[httpx.AsyncClient | PlainHTTPTransport],
) -> AsyncGenerator[None, None]:
    """Close ``closeables`` when their event loop shuts down.

    A started async generator is tracked by its loop, and ``asyncio.run`` (or any
    owner calling ``loop.shutdown_asyncgens()``) closes it on the way out: the exit
    stack below then closes the connections on the loop they belong to (every
    client, even if closing one fails), so no socket is left for the garbage
    collector, whoever runs the loop.
    """
    async with contextlib.AsyncExitStack() as stack:
        for closeable in closeables:
            stack.push_async_callback(closeable.aclose)
        yield


def wire_body(body: Mapping[str, Any]) -> bytes:
    """The bytes of a request body on the wire: compact JSON in UTF-8, non-ASCII text
    as it is. The one encoding, which ``editpred prompt --json`` prints too, so that
    what it shows is what a server receives."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


class HTTPTransport:
    """POSTs JSON with retries; one :class:`_Pool` of clients per event loop."""

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
        self._pool_state: _Pool | None = None
        self._closer: AsyncGenerator[None, None] | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(timeout={self.settings.timeout}, retries={self.settings.retries})"

    @property
    def max_attempts(self) -> int:
        return max(1, self.settings.retries)

    async def _pool(self) -> _Pool:
        loop = asyncio.get_running_loop()
        if self._pool_state is None or self._loop is not loop:
            self._pool_state = _Pool(self.settings, self._transport)
            self._loop = loop
            self._closer = _close_at_loop_shutdown(self._pool_state.closeables)
            await self._closer.__anext__()
        return self._pool_state

    async def aclose(self) -> None:
        """Close the clients now (they are closed anyway when their loop shuts down)."""
        closer, self._closer, self._pool_state = self._closer, None, None
        if closer is not None and self._loop is asyncio.get_running_loop():
            await closer.aclose()

    async def _send(self, request: httpx.Request) -> tuple[_Answer | None, str, str, float]:
        """One attempt: the response, or ``None`` with the error kind and detail;
        and the attempt's latency (waiting for a free slot not included). A body
        over the limit or in an encoding we cannot read is kind ``too-large`` or
        ``unreadable``: the server did answer, so that is not retried."""
        pool = await self._pool()
        async with pool.gate:
            started = time.monotonic()
            try:
                response = await _within(self.settings.timeout, pool.send(request))
                return response, "", "", time.monotonic() - started
            except BodyTooLarge as error:
                kind, detail = "too-large", str(error)
            except UnreadableBody as error:
                kind, detail = "unreadable", str(error)
            except (asyncio.TimeoutError, httpx.TimeoutException):
                kind, detail = "timeout", f"no answer within {self.settings.timeout:g}s"
            except httpx.ConnectError:
                kind, detail = "connect", "connection refused or host unreachable"
            except httpx.RemoteProtocolError:
                kind, detail = "disconnect", "the server closed the connection without a complete answer"
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
                raise _unusable(str(request.url), error) from None
            except httpx.TransportError as error:
                kind, detail = "network", type(error).__name__
            return None, kind, detail, time.monotonic() - started

    def _request(self, url: str, body: Mapping[str, Any], secret: Secret | None, headers: HeaderHook) -> httpx.Request:
        """The request, built once. The key goes from its :class:`Secret` into httpx's
        headers without ever being bound to a name a traceback could show."""
        try:
            return httpx.Request(
                "POST",
                _parsed(url),
                content=wire_body(body),
                headers=list(reveal_headers({**_fixed_headers(), **headers(secret)})),
                extensions={"timeout": httpx.Timeout(self.settings.timeout).as_dict()},
            )
        except httpx.InvalidURL as error:
            raise _unusable(url, error) from None

    async def post_json(self, url: str, body: Mapping[str, Any], *, headers: HeaderHook | None = None) -> Response:
        """POST ``body``; the first 2xx with a JSON body, or an exception that
        carries every attempt (``error.attempts``). ``headers(key)`` gives the
        headers that carry the key (and any other fixed ones) for APIs that do not
        take ``Authorization: Bearer`` (default: :func:`bearer_headers`)."""
        secret = api_key(self.settings)
        shown = safe_url(url)
        request = self._request(url, body, secret, headers or bearer_headers)
        attempts: list[Attempt] = []
        kind = detail = ""
        for ordinal in range(1, self.max_attempts + 1):
            response, kind, detail, latency = await self._send(request)
            retry_after: float | None = None
            if kind in ("too-large", "unreadable"):
                attempts.append(Attempt(ordinal, kind, latency))
                error = (
                    too_large(url, self.settings.max_response_bytes)
                    if kind == "too-large"
                    else PredictionError(f"{shown} answered with a body that cannot be read: {redact(detail, secret)}")
                )
                raise attach(error, attempts=tuple(attempts))
            if response is not None:
                status = response.status_code
                if 200 <= status < 300:
                    text = redact(response.text, secret)  # a server may echo the key
                    try:
                        data = redact_data(loads_bounded(text), secret)
                    except ValueError as error:
                        attempts.append(Attempt(ordinal, "invalid-json", latency))
                        what = (
                            f"a malformed answer: its JSON nests deeper than {MAX_JSON_DEPTH} levels"
                            if isinstance(error, JSONDepthError)
                            else f"a body that is not JSON: {_server_message(response, secret)!r}"
                        )
                        raise attach(
                            PredictionError(
                                f"{shown} answered HTTP {status} with {what}",
                                fix="Check that the base URL points at an OpenAI-compatible or FIM endpoint.",
                            ),
                            attempts=tuple(attempts),
                        ) from None
                    attempts.append(Attempt(ordinal, None, latency))
                    log.debug("POST %s: HTTP %s in %.3fs (attempt %d)", shown, status, latency, ordinal)
                    return Response(data, text, latency, tuple(attempts))
                kind, detail = f"http-{status}", _server_message(response, secret)
                if status not in _RETRIED_STATUS and status < 500:
                    attempts.append(Attempt(ordinal, kind, latency))
                    raise attach(
                        ProviderUnavailableError(
                            f"{shown} answered HTTP {status}, which a retry cannot mend: {detail}",
                            fix=_fix_for(status, detail),
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
