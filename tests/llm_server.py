"""A real model server on 127.0.0.1 for tests: scripted answers, scripted failures.

Why a real server and not mocks: retries, timeouts, dropped connections and
``Retry-After`` are properties of real sockets and real HTTP; a mock would only
test our idea of them. The server speaks the endpoints the providers use
(``/v1/completions``, ``/v1/chat/completions``, ``/infill``,
``/v1/fim/completions``, Anthropic's ``/v1/messages``), answers with whatever text the test set, records every
request (path, headers, JSON body) and can be told to fail.

The ``llm_server`` fixture is defined here as ``llm_server_fixture``: import that
name into a test module (``from llm_server import llm_server_fixture  # noqa: F401``),
or list this module in ``pytest_plugins`` of the root conftest. Then::

    def test_it(llm_server):
        llm_server.answer("hello")                     # or a callable(request) -> str
        llm_server.fail(503, times=2)                  # the next 2 requests fail
        llm_server.fail(429, retry_after="1")
        llm_server.hang(); llm_server.malformed(); llm_server.drop()
        llm_server.raw(b'{"no": "choices"}')          # this exact 200 body (or a callable)
        llm_server.forever()                           # a chunked body that never ends
        llm_server.gzip_bomb()                         # 1 MB of gzip that inflates to 1 GiB
        llm_server.huge(100 * 2**20)                   # a valid answer of that many bytes
        llm_server.cut_prompts(2059, truncated=False)  # report reading at most 2059 prompt tokens
        llm_server.latency = 0.2                       # seconds before every answer
        ... llm_server.url ...; llm_server.requests[0].body["prompt"]

Failures are queued and consumed one per request, in order; when the queue is empty
the answer is served.
"""

from __future__ import annotations

import functools
import json
import socket
import struct
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = ["LLMServer", "Recorded", "llm_server_fixture"]

ENDPOINTS = ("/v1/completions", "/v1/chat/completions", "/infill", "/v1/fim/completions", "/v1/messages")


@dataclass(frozen=True)
class Recorded:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any


@dataclass(frozen=True)
class _Failure:
    kind: str  # status | hang | malformed | drop | raw | forever | bomb | huge
    status: int = 500
    retry_after: str | None = None
    message: str | Callable[[Recorded], str] = "scripted failure"
    seconds: float = 30.0
    payload: bytes | Callable[[Recorded], bytes] = b""
    size: int = 0


#: The start of an OpenAI completions envelope whose text the hostile bodies fill.
_ENVELOPE_HEAD = b'{"object": "text_completion", "choices": [{"index": 0, "text": "'
_ENVELOPE_TAIL = b'", "finish_reason": "stop"}]}'
_PIECE = 2**20


@functools.lru_cache(maxsize=1)
def gzip_bomb_bytes(inflated: int = 2**30) -> bytes:
    """gzip of an envelope whose text is ``inflated`` bytes of ``a`` (1 GiB: ~1 MB).

    Built in a second, not in the 12 s deflating a GiB takes: after a full flush the
    compressor has forgotten everything, so each 1 MiB block of ``a`` compresses to the
    same bytes, which are repeated; the gzip header and trailer are written by hand.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = b"a" * _PIECE
    head = packer.compress(_ENVELOPE_HEAD) + packer.flush(zlib.Z_FULL_FLUSH)
    packed = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    count = inflated // _PIECE
    tail = packer.compress(_ENVELOPE_TAIL) + packer.flush()
    crc = zlib.crc32(_ENVELOPE_HEAD)
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(_ENVELOPE_TAIL, crc)
    size = len(_ENVELOPE_HEAD) + count * _PIECE + len(_ENVELOPE_TAIL)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
    return header + head + packed * count + tail + trailer


Reply = str | Callable[[Recorded], str]


@dataclass
class LLMServer:
    """The server's script and what it saw; start with :meth:`start`."""

    latency: float = 0.0
    finish_reason: str = "stop"
    fim_shape: str = "message"  # or "text": choices[0].text on /v1/fim/completions
    model: str = "test-model"
    #: Prompt tokens reported at most (None: as many as the request has): a server
    #: that cuts the prompt to its context without an error. See :meth:`cut_prompts`.
    prompt_tokens_cap: int | None = None
    #: llama.cpp's ``truncated`` on ``/infill`` (None: the field is not sent).
    infill_truncated: bool | None = None
    #: Headers every request must carry (lower-case names), else HTTP 401 in the
    #: Anthropic error shape: how a real API checks ``x-api-key``.
    require_headers: dict[str, str] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    #: The most requests it held at once (each is held for ``latency``).
    peak: int = 0
    _in_flight: int = 0
    _reply: Reply = ""
    _failures: deque[_Failure] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _released: threading.Event = field(default_factory=threading.Event)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    # -- script --------------------------------------------------------------------

    def answer(self, reply: Reply, *, finish_reason: str = "stop") -> None:
        """Answer every later request with ``reply`` (or ``reply(request)``)."""
        with self._lock:
            self._reply = reply
            self.finish_reason = finish_reason

    def fail(
        self,
        status: int,
        *,
        times: int = 1,
        retry_after: str | None = None,
        message: str | Callable[[Recorded], str] = "scripted failure",
    ) -> None:
        """The next ``times`` requests get HTTP ``status`` with an OpenAI-style error."""
        self._queue(_Failure("status", status=status, retry_after=retry_after, message=message), times)

    def hang(self, *, times: int = 1, seconds: float = 30.0) -> None:
        """The next requests get no answer for ``seconds`` (or until the server stops)."""
        self._queue(_Failure("hang", seconds=seconds), times)

    def malformed(self, *, times: int = 1) -> None:
        """The next requests get HTTP 200 with a body that is not JSON."""
        self._queue(_Failure("malformed"), times)

    def drop(self, *, times: int = 1) -> None:
        """The next requests see the connection closed without any response."""
        self._queue(_Failure("drop"), times)

    def raw(self, payload: bytes | Callable[[Recorded], bytes], *, times: int = 1) -> None:
        """The next requests get HTTP 200 with exactly ``payload`` (or ``payload(request)``)."""
        self._queue(_Failure("raw", payload=payload), times)

    def forever(self, *, times: int = 1) -> None:
        """The next requests get HTTP 200 and a chunked JSON body that never ends
        (until the client hangs up or the server stops)."""
        self._queue(_Failure("forever"), times)

    def gzip_bomb(self, *, times: int = 1) -> None:
        """The next requests get :func:`gzip_bomb_bytes` with ``Content-Encoding: gzip``."""
        self._queue(_Failure("bomb"), times)

    def huge(self, size: int, *, times: int = 1) -> None:
        """The next requests get a well-formed answer whose text is ``size`` bytes,
        sent with its Content-Length in pieces (the server never holds it whole)."""
        self._queue(_Failure("huge", size=size), times)

    def cut_prompts(self, tokens: int | None, *, truncated: bool | None = None) -> None:
        """Report at most ``tokens`` prompt tokens read (``usage.prompt_tokens``,
        llama.cpp's ``tokens_evaluated``), as a server that cuts a long prompt to its
        context or batch size does, and send ``truncated`` on ``/infill`` when not
        None. The default server does neither."""
        with self._lock:
            self.prompt_tokens_cap = tokens
            self.infill_truncated = truncated

    def _queue(self, failure: _Failure, times: int) -> None:
        with self._lock:
            self._failures.extend([failure] * times)

    # -- life ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._httpd is not None, "the server is not started"
        return f"http://127.0.0.1:{self._httpd.server_port}"

    @classmethod
    def start(cls) -> LLMServer:
        server = cls()
        httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        httpd.llm = server
        server._httpd = httpd
        server._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        server._thread.start()
        return server

    def close(self) -> None:
        self._released.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- serving (called from handler threads) -------------------------------------

    def _record(self, recorded: Recorded) -> tuple[_Failure | None, Reply, str]:
        with self._lock:
            self.requests.append(recorded)
            self._in_flight += 1
            self.peak = max(self.peak, self._in_flight)
            failure = self._failures.popleft() if self._failures else None
            return failure, self._reply, self.finish_reason

    def _body(self, recorded: Recorded, text: str, finish_reason: str) -> dict[str, Any]:
        usage = {"prompt_tokens": len(recorded.raw) // 4, "completion_tokens": len(text) // 4}
        if self.prompt_tokens_cap is not None:
            usage["prompt_tokens"] = min(usage["prompt_tokens"], self.prompt_tokens_cap)
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        body = recorded.body if isinstance(recorded.body, dict) else {}
        model = body.get("model") or self.model
        if recorded.path == "/v1/messages":
            return {
                "id": "msg-test",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "max_tokens" if finish_reason == "length" else "end_turn",
                "usage": {"input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]},
            }
        if recorded.path == "/infill":
            infill: dict[str, Any] = {
                "content": text,
                "model": model,
                "tokens_evaluated": usage["prompt_tokens"],
                "tokens_predicted": usage["completion_tokens"],
                "stop": True,
                "stopped_limit": finish_reason == "length",
            }
            if self.infill_truncated is not None:
                infill["truncated"] = self.infill_truncated
            return infill
        if recorded.path == "/v1/completions" or (recorded.path == "/v1/fim/completions" and self.fim_shape == "text"):
            choice: dict[str, Any] = {"index": 0, "text": text, "finish_reason": finish_reason}
            kind = "text_completion"
        else:
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}
            kind = "chat.completion"
        return {"id": "cmpl-test", "object": kind, "model": model, "choices": [choice], "usage": usage}


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog is 5: a run's 64 requests in flight (two xdist workers'
    # worth at once) overflowed it and a connection was reset (httpx.ReadError) on a busy
    # machine. Real model servers listen with a deep backlog; so does this one.
    request_queue_size = 1024
    llm: LLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timeout, closed socket) is part of the script."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._json(404, {"error": {"message": f"no GET {self.path}"}})

    def do_POST(self) -> None:
        llm = self.server.llm
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        recorded = Recorded("POST", self.path, headers, raw, body)
        failure, reply, finish_reason = llm._record(recorded)
        if llm.latency:
            time.sleep(llm.latency)
        with llm._lock:
            llm._in_flight -= 1
        if failure is not None:
            self._fail(failure, recorded)
            return
        wrong = [name for name, value in llm.require_headers.items() if headers.get(name) != value]
        if wrong:
            error = {"type": "authentication_error", "message": f"missing or wrong header {wrong[0]}"}
            self._json(401, {"type": "error", "error": error})
            return
        if self.path not in ENDPOINTS:
            self._json(404, {"error": {"message": f"no such endpoint {self.path}"}})
            return
        text = reply(recorded) if callable(reply) else reply
        self._json(200, llm._body(recorded, text, finish_reason))

    def _fail(self, failure: _Failure, recorded: Recorded) -> None:
        if failure.kind == "hang":
            self.server.llm._released.wait(failure.seconds)
            self.close_connection = True
        elif failure.kind == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        elif failure.kind == "malformed":
            self._send(200, b'{"choices": [ this is not json', "application/json")
        elif failure.kind == "raw":
            payload = failure.payload(recorded) if callable(failure.payload) else failure.payload
            self._send(200, payload, "application/json")
        elif failure.kind == "bomb":
            self._send(200, gzip_bomb_bytes(), "application/json", {"Content-Encoding": "gzip"})
        elif failure.kind in ("forever", "huge"):
            self._stream(failure)
        else:
            message = failure.message(recorded) if callable(failure.message) else failure.message
            extra = {"Retry-After": failure.retry_after} if failure.retry_after is not None else {}
            self._json(failure.status, {"error": {"message": message, "type": "scripted"}}, extra)

    def _stream(self, failure: _Failure) -> None:
        """An envelope whose text is ``failure.size`` bytes, or endless (chunked)."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        endless = failure.kind == "forever"
        if endless:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            total = len(_ENVELOPE_HEAD) + failure.size + len(_ENVELOPE_TAIL)
            self.send_header("Content-Length", str(total))
        self.end_headers()
        piece, left = b"a" * _PIECE, failure.size
        try:
            if endless:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(_ENVELOPE_HEAD), _ENVELOPE_HEAD))
                chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
                while not self.server.llm._released.is_set():
                    self.wfile.write(chunk)
                return
            self.wfile.write(_ENVELOPE_HEAD)
            while left > 0:
                self.wfile.write(piece[:left])
                left -= len(piece)
            self.wfile.write(_ENVELOPE_TAIL)
        except OSError:  # the client hung up, as it should
            return

    def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), "application/json", headers)

    def _send(self, status: int, payload: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture(name="llm_server")
def llm_server_fixture() -> Iterator[LLMServer]:
    """A fresh loopback model server for one test."""
    server = LLMServer.start()
    try:
        yield server
    finally:
        server.close()
