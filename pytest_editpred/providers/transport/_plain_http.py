"""A lean httpx transport for model servers spoken to over plain HTTP.

Why it exists: local model servers (vLLM, llama.cpp, Ollama on ``http://``) answer
in tens of milliseconds, so with 32 requests in flight the client's own CPU per
request decides the throughput, and all of it is spent on one event-loop thread.
httpx's default transport goes through httpcore's pool (which visits every
connection, and polls the idle ones' sockets, each time a request starts or ends)
and anyio's stream wrappers: about 1.5 ms of CPU per request here, enough to queue
the answers of a burst of 32 behind one another. This transport is asyncio's
streams and h11's HTTP/1.1 state machine, with a free list of keep-alive
connections: the whole request, prompt to :class:`Prediction`, then costs less than
half the CPU, and 32 in flight reach 85% of ideal throughput instead of 77–79%
(``bench/bench_concurrency.py``).

It speaks ``http://`` only; TLS stays with httpx's default transport. It opens a
connection whenever none is idle: the caller (:class:`~._http.HTTPTransport`)
already keeps the requests in flight within the connection limit, and puts a hard
deadline on every exchange, so reads and writes are not timed one by one here. A
connection in an unknown state (an error, a cancelled exchange, an answer without
keep-alive, a body over the limit) is closed, never reused.

The body is read under ``max_body`` bytes, counted as it arrives and as it
inflates (:class:`~._body.BodyReader`): a never-ending chunked body or a gzip bomb
stops with :class:`~._body.BodyTooLarge` the moment it passes the limit, and the
connection is closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import httpx

from ..._limits import DEFAULT_LIMITS
from ._body import BodyReader

__all__ = ["PlainHTTPTransport"]

_READ_SIZE = 65536


class _Connection:
    """One keep-alive connection: asyncio streams and an h11 state machine."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.state = h11.Connection(h11.CLIENT)

    @property
    def closed_by_server(self) -> bool:
        return self.reader.at_eof() or self.writer.is_closing()

    def close(self) -> None:
        self.writer.close()

    async def exchange(self, request: httpx.Request, max_body: int) -> tuple[h11.Response, bytes]:
        """Send ``request``, read its answer whole (model answers are small), decoded,
        within ``max_body`` bytes. The head with the key is never bound to a name."""
        state = self.state
        try:
            self.writer.write(
                state.send(h11.Request(method=request.method, target=request.url.raw_path, headers=request.headers.raw))
                + state.send(h11.Data(data=request.content))
                + state.send(h11.EndOfMessage())
            )
            await self.writer.drain()
        except OSError as error:
            raise httpx.WriteError(str(error) or type(error).__name__, request=request) from error
        response: h11.Response | None = None
        body: BodyReader | None = None
        closed = False
        while True:
            try:
                event: Any = state.next_event()
            except h11.RemoteProtocolError as error:
                reason = str(error)
                if closed:
                    reason = "without an answer" if response is None else "before the end of its answer"
                    reason = f"the server closed the connection {reason}"
                raise httpx.RemoteProtocolError(reason, request=request) from error
            if event is h11.NEED_DATA:
                try:
                    data = await self.reader.read(_READ_SIZE)
                except OSError as error:
                    raise httpx.ReadError(str(error) or type(error).__name__, request=request) from error
                closed = not data
                state.receive_data(data)  # b"" tells h11 the server closed
            elif isinstance(event, h11.Response):
                response = event
                body = BodyReader(max_body, _header(event, b"content-encoding"))
            elif isinstance(event, h11.Data):
                assert body is not None  # h11 gives the head before the body
                body.feed(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                assert response is not None and body is not None  # h11 gives the head before the end
                return response, body.finish()
            elif not isinstance(event, h11.InformationalResponse):  # a 1xx: the answer follows
                # ConnectionClosed or PAUSED: nothing more will come (asking again would spin)
                raise httpx.RemoteProtocolError("the server closed the connection without an answer", request=request)

    def reusable(self) -> bool:
        """Ready for the next request (and made so) after a complete exchange?"""
        if self.state.our_state is h11.DONE and self.state.their_state is h11.DONE:
            self.state.start_next_cycle()
            return True
        return False


def _header(head: h11.Response, name: bytes) -> str | None:
    values = [value.decode("latin-1") for key, value in head.headers if key == name]
    return ", ".join(values) if values else None


class PlainHTTPTransport(httpx.AsyncBaseTransport):
    """``http://`` only, HTTP/1.1, idle connections kept per host and port; bodies
    read within ``max_body`` bytes (decoded)."""

    def __init__(self, *, max_body: int = DEFAULT_LIMITS.max_response_bytes) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self.max_body = max_body

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        head, content = await self.fetch(request)
        # The content is decoded already: httpx must not decode it again.
        headers = [(key, value) for key, value in head.headers if key != b"content-encoding"]
        return httpx.Response(head.status_code, headers=headers, content=content)

    async def fetch(self, request: httpx.Request) -> tuple[h11.Response, bytes]:
        """The response's head and its decoded body (no :class:`httpx.Response` is
        built: the provider's transport needs neither its cost nor its decoding)."""
        url = request.url
        if url.scheme != "http":
            raise httpx.UnsupportedProtocol(f"{type(self).__name__} speaks http://, not {url.scheme}://")
        origin = (url.host, url.port or 80)
        connection = self._take(origin) or await self._connect(origin, request)
        try:
            head, content = await connection.exchange(request, self.max_body)
        except BaseException:  # an error, a body over the limit, a cancellation: state unknown
            connection.close()
            raise
        if connection.reusable():
            self._idle.setdefault(origin, []).append(connection)
        else:
            connection.close()
        return head, content

    def _take(self, origin: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(origin, [])
        while idle:
            connection = idle.pop()
            if not connection.closed_by_server:
                return connection
            connection.close()
        return None

    async def _connect(self, origin: tuple[str, int], request: httpx.Request) -> _Connection:
        host, port = origin
        timeout = request.extensions.get("timeout", {}).get("connect")
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        except asyncio.TimeoutError:
            raise httpx.ConnectTimeout(f"no connection to {host}:{port} within {timeout}s", request=request) from None
        except OSError as error:
            raise httpx.ConnectError(str(error) or type(error).__name__, request=request) from error
        return _Connection(reader, writer)

    async def aclose(self) -> None:
        idle, self._idle = self._idle, {}
        for connection in (c for connections in idle.values() for c in connections):
            connection.close()
