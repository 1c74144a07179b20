"""A response body read under a size limit, counted as it arrives and as it inflates.

Why: a model server is outside our control. A chunked body that never ends, or a
1 MB gzip body that inflates to 1 GiB, must stop the moment it passes the limit
(``settings.max_response_bytes``, ``--editpred-max-response-bytes``), long before
memory runs out or the run aborts. So both transports (httpx's and the plain h11
one) feed the raw bytes here piece by piece: the raw bytes are counted, and the
decoded ones too, with :mod:`zlib` told never to produce more than what is left of
the limit (``max_length``), so even one small chunk of a bomb cannot inflate past it.

We ask for ``gzip`` and ``deflate`` only (:data:`ACCEPT_ENCODING`) and decode them
here rather than in httpx, whose decoders inflate a chunk whole and would also take
``br`` or ``zstd``, whose ratios are unbounded. A body in any other encoding is an
answer we cannot read: :class:`UnreadableBody`.
"""

from __future__ import annotations

import zlib
from typing import Protocol

__all__ = ["ACCEPT_ENCODING", "BodyReader", "BodyTooLarge", "UnreadableBody"]

#: What we tell servers we can decode (bounded ratio, decoded here under the limit).
ACCEPT_ENCODING = "gzip, deflate"


class BodyTooLarge(Exception):
    """The body passed the limit; nothing more was read or kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the response body is larger than {limit:,} bytes")
        self.limit = limit


class UnreadableBody(Exception):
    """The body is in an encoding we did not ask for, or does not decode."""


class _Decoder(Protocol):
    def feed(self, data: bytes, room: int) -> bytes: ...

    def end(self) -> bytes: ...


class _Identity:
    def feed(self, data: bytes, room: int) -> bytes:
        return data

    def end(self) -> bytes:
        return b""


class _Inflate:
    """gzip or zlib/raw deflate, never producing more than ``room + 1`` bytes a call."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        # gzip: the gzip header; deflate: zlib-wrapped, or raw as some servers send it.
        self._wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
        self._zlib = zlib.decompressobj(self._wbits)
        self._started = False

    def feed(self, data: bytes, room: int) -> bytes:
        out: list[bytes] = []
        size = 0
        pending = data
        while pending and not self._zlib.eof:
            try:
                piece = self._zlib.decompress(pending, room - size + 1)
            except zlib.error as error:
                if self.encoding == "deflate" and not self._started:  # raw deflate, no zlib header
                    self._zlib, self._started = zlib.decompressobj(-zlib.MAX_WBITS), True
                    continue
                raise UnreadableBody(f"the {self.encoding} body does not decode ({error})") from None
            self._started = True
            out.append(piece)
            size += len(piece)
            if size > room:
                break  # the caller sees more than room: over the limit
            pending = self._zlib.unconsumed_tail
        return b"".join(out)

    def end(self) -> bytes:
        try:
            return self._zlib.flush()
        except zlib.error as error:
            raise UnreadableBody(f"the {self.encoding} body does not decode ({error})") from None


def _decoder(content_encoding: str | None) -> _Decoder:
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return _Identity()
    if len(codings) == 1 and codings[0] in ("gzip", "x-gzip", "deflate"):
        return _Inflate("deflate" if codings[0] == "deflate" else "gzip")
    raise UnreadableBody(f"the body is in Content-Encoding {content_encoding!r}; we asked for {ACCEPT_ENCODING} only")


class BodyReader:
    """Collects one body: :meth:`feed` each raw piece, then :meth:`finish`.

    Raises :class:`BodyTooLarge` as soon as the raw or the decoded bytes pass
    ``limit``, having kept at most ``limit`` decoded bytes (plus one piece).
    """

    def __init__(self, limit: int, content_encoding: str | None) -> None:
        self.limit = limit
        self._decoder = _decoder(content_encoding)
        self._raw = 0
        self._size = 0
        self._parts: list[bytes] = []

    def feed(self, raw: bytes) -> None:
        self._raw += len(raw)
        if self._raw > self.limit:
            raise BodyTooLarge(self.limit)
        self._keep(self._decoder.feed(raw, self.limit - self._size))

    def finish(self) -> bytes:
        self._keep(self._decoder.end())
        body, self._parts = b"".join(self._parts), []
        return body

    def _keep(self, decoded: bytes) -> None:
        self._size += len(decoded)
        if self._size > self.limit:
            self._parts = []
            raise BodyTooLarge(self.limit)
        if decoded:
            self._parts.append(decoded)
