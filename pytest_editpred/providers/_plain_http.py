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
keep-alive) is closed, never reused.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import httpx

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

    async def exchange(self, request: httpx.Request) -> tuple[h11.Response, bytes]:
        """Send ``request``, read its answer whole (model answers are small)."""
        state = self.state
        head = h11.Request(method=request.method, target=request.url.raw_path, headers=request.headers.raw)
        try:
            self.writer.write(
                state.send(head) + state.send(h11.Data(data=request.content)) + state.send(h11.EndOfMessage())
            )
            await self.writer.drain()
        except OSError as error:
            raise httpx.WriteError(str(error) or type(error).__name__, request=request) from error
        response: h11.Response | None = None
        chunks: list[bytes] = []
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
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                assert response is not None  # h11 gives the head before the end
                return response, b"".join(chunks)
            elif not isinstance(event, h11.InformationalResponse):  # a 1xx: the answer follows
                # ConnectionClosed or PAUSED: nothing more will come (asking again would spin)
                raise httpx.RemoteProtocolError("the server closed the connection without an answer", request=request)

    def reusable(self) -> bool:
        """Ready for the next request (and made so) after a complete exchange?"""
        if self.state.our_state is h11.DONE and self.state.their_state is h11.DONE:
            self.state.start_next_cycle()
            return True
        return False


class PlainHTTPTransport(httpx.AsyncBaseTransport):
    """``http://`` only, HTTP/1.1, idle connections kept per host and port."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme != "http":
            raise httpx.UnsupportedProtocol(f"{type(self).__name__} speaks http://, not {url.scheme}://")
        origin = (url.host, url.port or 80)
        connection = self._take(origin) or await self._connect(origin, request)
        try:
            head, content = await connection.exchange(request)
        except BaseException:  # an error or a cancellation: the connection's state is unknown
            connection.close()
            raise
        if connection.reusable():
            self._idle.setdefault(origin, []).append(connection)
        else:
            connection.close()
        return httpx.Response(head.status_code, headers=head.headers, content=content)

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
