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
        llm_server.latency = 0.2                       # seconds before every answer
        ... llm_server.url ...; llm_server.requests[0].body["prompt"]

Failures are queued and consumed one per request, in order; when the queue is empty
the answer is served.
"""

from __future__ import annotations

import json
import socket
import threading
import time
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
    kind: str  # status | hang | malformed | drop
    status: int = 500
    retry_after: str | None = None
    message: str | Callable[[Recorded], str] = "scripted failure"
    seconds: float = 30.0


Reply = str | Callable[[Recorded], str]


@dataclass
class LLMServer:
    """The server's script and what it saw; start with :meth:`start`."""

    latency: float = 0.0
    finish_reason: str = "stop"
    fim_shape: str = "message"  # or "text": choices[0].text on /v1/fim/completions
    model: str = "test-model"
    #: Headers every request must carry (lower-case names), else HTTP 401 in the
    #: Anthropic error shape: how a real API checks ``x-api-key``.
    require_headers: dict[str, str] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
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
            failure = self._failures.popleft() if self._failures else None
            return failure, self._reply, self.finish_reason

    def _body(self, recorded: Recorded, text: str, finish_reason: str) -> dict[str, Any]:
        usage = {"prompt_tokens": len(recorded.raw) // 4, "completion_tokens": len(text) // 4}
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
            return {
                "content": text,
                "model": model,
                "tokens_evaluated": usage["prompt_tokens"],
                "tokens_predicted": usage["completion_tokens"],
                "stop": True,
                "stopped_limit": finish_reason == "length",
            }
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
        else:
            message = failure.message(recorded) if callable(failure.message) else failure.message
            extra = {"Retry-After": failure.retry_after} if failure.retry_after is not None else {}
            self._json(failure.status, {"error": {"message": message, "type": "scripted"}}, extra)

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
