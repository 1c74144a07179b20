"""The plain-HTTP transport against a real socket server that misbehaves on cue.

The loopback model server of ``llm_server.py`` covers the providers' failure modes
end to end; here a raw TCP server scripts what a well-mannered HTTP library would
never send (chunked bodies, garbage heads, closes at awkward moments) and counts
connections, so keep-alive and the closing of connections in an unknown state are
seen, not assumed.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from pytest_editpred import Settings
from pytest_editpred.providers.transport._http import HTTPTransport, _Pool
from pytest_editpred.providers.transport._plain_http import PlainHTTPTransport

#: What the server does with a request: ``(bytes to send, close the connection after)``.
#: Called with the connection's number and the request's number on that connection.
Script = Callable[[int, int], tuple[bytes, bool]]


def ok(body: bytes = b'{"ok": true}', *, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), extra, body)


@dataclass
class RawServer:
    script: Script = lambda connection, number: (ok(), False)
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    delay: threading.Event = field(default_factory=threading.Event)  # set: answer at once

    def __post_init__(self) -> None:
        self.delay.set()
        self.open: list[socket.socket] = []
        # No SO_REUSEADDR: the port must never be shared with a later test's server.
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1/completions"
        self.acceptor = threading.Thread(target=self._accept, daemon=True)
        self.acceptor.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.open.append(conn)
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn, self.connections), daemon=True).start()

    def _serve(self, conn: socket.socket, number: int) -> None:
        with conn, conn.makefile("rb") as reader:
            for index in range(1_000):
                head = b""
                while not head.endswith(b"\r\n\r\n"):
                    line = reader.readline()
                    if not line:
                        return
                    head += line
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length")
                    ),
                    0,
                )
                self.requests.append(head + reader.read(length))
                self.delay.wait()
                answer, close = self.script(number, index)
                try:
                    conn.sendall(answer)
                except OSError:  # the client hung up first (a test that closes its connections)
                    return
                if close:
                    return

    def close(self) -> None:
        """Stop listening for real: a thread blocked in ``accept()`` keeps a merely
        closed socket listening, and a later test's server could be given its port."""
        self.sock.shutdown(socket.SHUT_RDWR)  # wakes accept()
        self.acceptor.join(5)
        self.sock.close()
        for conn in self.open:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def server() -> Iterator[RawServer]:
    made = RawServer()
    yield made
    made.delay.set()
    made.close()


def post(transport: PlainHTTPTransport, url: str, body: bytes = b"{}") -> httpx.Response:
    request = httpx.Request("POST", url, content=body, headers={"Content-Type": "application/json"})
    return asyncio.run(transport.handle_async_request(request))


async def apost(transport: PlainHTTPTransport, url: str) -> httpx.Response:
    return await transport.handle_async_request(httpx.Request("POST", url, content=b"{}"))


def test_keep_alive_sends_many_requests_over_one_connection(server: RawServer) -> None:
    transport = PlainHTTPTransport()

    async def five() -> list[httpx.Response]:
        return [await apost(transport, server.url) for _ in range(5)]

    responses = asyncio.run(five())
    assert [r.json() for r in responses] == [{"ok": True}] * 5
    assert server.connections == 1
    assert server.requests[0].startswith(b"POST /v1/completions HTTP/1.1\r\n")
    assert b"host: 127.0.0.1:" in server.requests[0].lower() and server.requests[0].endswith(b"\r\n\r\n{}")


def test_concurrent_requests_open_connections_then_reuse_them(server: RawServer) -> None:
    transport = PlainHTTPTransport()

    async def rounds() -> None:
        for _ in range(3):
            answers = await asyncio.gather(*(apost(transport, server.url) for _ in range(6)))
            assert all(a.status_code == 200 for a in answers)

    asyncio.run(rounds())
    assert server.connections == 6 and len(server.requests) == 18


def test_a_connection_the_server_closes_is_not_reused(server: RawServer) -> None:
    server.script = lambda connection, number: (ok(extra=b"Connection: close\r\n"), True)
    transport = PlainHTTPTransport()

    async def three() -> list[int]:
        return [(await apost(transport, server.url)).status_code for _ in range(3)]

    assert asyncio.run(three()) == [200, 200, 200]
    assert server.connections == 3


def test_an_idle_connection_closed_by_the_server_is_replaced(server: RawServer) -> None:
    """A server's keep-alive timeout (uvicorn's is 5 s) closes idle connections
    without saying so in the answer: the next request must not fail for it."""
    server.script = lambda connection, number: (ok(), True)  # answers, then hangs up silently
    transport = PlainHTTPTransport()

    async def two() -> list[int]:
        first = await apost(transport, server.url)
        await asyncio.sleep(0.2)  # the loop sees the server's FIN
        second = await apost(transport, server.url)
        return [first.status_code, second.status_code]

    assert asyncio.run(two()) == [200, 200]
    assert server.connections == 2


def test_a_chunked_body_is_read_whole(server: RawServer) -> None:
    chunked = b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3\r\n 1}\r\n0\r\n\r\n'
    server.script = lambda connection, number: (chunked, False)
    transport = PlainHTTPTransport()

    async def two() -> list[object]:
        return [(await apost(transport, server.url)).json() for _ in range(2)]

    assert asyncio.run(two()) == [{"a": 1}, {"a": 1}]
    assert server.connections == 1


def test_an_error_status_is_an_answer_not_an_exception(server: RawServer) -> None:
    server.script = lambda connection, number: (
        b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 2\r\n\r\n{}",
        False,
    )
    response = post(PlainHTTPTransport(), server.url)
    assert response.status_code == 429 and response.headers["retry-after"] == "3"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (b"this is not HTTP\r\n\r\n", "illegal status line"),
        (b'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"cut', "before the end of its answer"),
    ],
    ids=["garbage", "cut-short"],
)
def test_a_broken_answer_is_a_protocol_error(server: RawServer, answer: bytes, message: str) -> None:
    server.script = lambda connection, number: (answer, True)
    with pytest.raises(httpx.RemoteProtocolError, match=message):
        post(PlainHTTPTransport(), server.url)


def test_a_hang_up_without_an_answer_is_a_protocol_error(server: RawServer) -> None:
    server.script = lambda connection, number: (b"", True)
    with pytest.raises(httpx.RemoteProtocolError, match="without an answer"):
        post(PlainHTTPTransport(), server.url)


def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/"  # bound, not listening: refused
        with pytest.raises(httpx.ConnectError):
            post(PlainHTTPTransport(), url)


def test_https_is_refused() -> None:
    with pytest.raises(httpx.UnsupportedProtocol):
        post(PlainHTTPTransport(), "https://127.0.0.1:1/")


def test_a_cancelled_exchange_closes_its_connection(server: RawServer) -> None:
    """Cancelled half way (the caller's deadline), the connection may still get the
    old answer: it must never carry the next request."""
    transport = PlainHTTPTransport()

    async def scenario() -> int:
        server.delay.clear()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(apost(transport, server.url), 0.2)
        server.delay.set()
        return (await apost(transport, server.url)).status_code

    assert asyncio.run(scenario()) == 200
    assert server.connections == 2


def test_aclose_closes_idle_connections(server: RawServer) -> None:
    transport = PlainHTTPTransport()

    async def scenario() -> None:
        await apost(transport, server.url)
        await transport.aclose()
        await apost(transport, server.url)

    asyncio.run(scenario())
    assert server.connections == 2


# -- which transport the provider's pool picks ----------------------------------------


def _pool(base_url: str) -> _Pool:
    async def make() -> _Pool:
        return _Pool(Settings(base_url=base_url, concurrency=8), None)

    return asyncio.run(make())


def test_plain_http_goes_through_the_lean_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert _pool("http://127.0.0.1:8000").plain is not None
    assert _pool("https://api.example.com").plain is None  # TLS stays with httpx


def test_a_proxy_from_the_environment_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    monkeypatch.setenv("no_proxy", "localhost")
    assert _pool("http://models.internal:8000").plain is None  # through httpx, which uses the proxy
    assert _pool("http://localhost:8000").plain is not None  # bypassed


def test_the_provider_transport_sends_json_with_a_user_agent(server: RawServer) -> None:
    settings = Settings(base_url=server.url, concurrency=2, retries=1)

    async def once() -> object:
        http = HTTPTransport(settings)
        try:
            return (await http.post_json(server.url, {"prompt": "é"})).data
        finally:
            await http.aclose()

    assert asyncio.run(once()) == {"ok": True}
    head = server.requests[0].lower()
    assert b"user-agent: pytest-editpred/" in head and b"content-type: application/json" in head
    assert server.requests[0].endswith('{"prompt":"é"}'.encode())


def test_an_interim_1xx_answer_is_skipped(server: RawServer) -> None:
    server.script = lambda connection, number: (b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b'{"n": 1}'), False)
    assert post(PlainHTTPTransport(), server.url).json() == {"n": 1}
