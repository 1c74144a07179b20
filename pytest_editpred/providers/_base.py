"""What every HTTP provider does the same way, so each one only says what differs.

A provider builds a request body from the request and its :class:`~._window.Window`,
reads the server's envelope into a :class:`~._endpoint.Reply`, and parses the reply
into an :class:`~._window.Answer`. This base class does the rest: sampling options
from the settings, ``extra_body``, the cache and retries (through
:class:`~._endpoint.Endpoint`), and the :class:`Prediction` with its facts. A
:class:`PredictionError` raised while parsing carries the attempts and the raw
output, so the report can show what the model said.

Completions are ``async``; the factory returns the bound ``complete`` method, whose
``__self__`` is the provider (``aclose()`` closes its client).

**A prompt the server cut is said.** Some servers shorten a long prompt without an
error: llama.cpp's ``/infill`` keeps about its batch size of prefix and suffix (a
prompt of 12,026 + 13,386 characters was read as 2,059 tokens), Ollama keeps its
``num_ctx``. The model then answers without part of what the prompt shows, and the
item must not be judged as if it had seen everything. Where the server says how much
it read (:meth:`HTTPProvider.prompt_read`: ``usage.prompt_tokens``; llama.cpp's
``tokens_evaluated`` and ``truncated``), the prediction carries a note
(``extra["notes"]``, which the verdict's notes and so the record take up):

* when the server says ``truncated: true``, always;
* else when it read fewer than :data:`CUT_SHARE` of the prompt's tokens as Zed
  estimates them (UTF-8 bytes / 3), and at least :data:`CUT_MIN_TOKENS` fewer. A
  tokenizer reads code at 3 to 5 bytes a token, so a true count under 40% of the
  estimate (over 7.5 bytes a token) is a cut, not a thrifty tokenizer; smaller cuts
  are not told apart from tokenization and go unsaid. Templates and special tokens
  only add to the count, never make a whole prompt look cut.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from .._exceptions import ConfigError, EditPredError, PredictionError
from .._settings import Settings
from ..judge import Prediction
from ..scene import PredictionRequest
from ._registry import Completion
from .prompts import Answer, Window, window_for
from .transport import Backoff, Endpoint, HTTPTransport, Reply, Secret, attach, bearer_headers, malformed, wire_body

__all__ = [
    "CUT_MIN_TOKENS",
    "CUT_SHARE",
    "HTTPProvider",
    "Outgoing",
    "factory",
    "first_choice",
    "openai_usage",
    "prompt_cut_note",
]

#: Zed's token estimate (``estimate_tokens``): UTF-8 bytes over this.
BYTES_PER_TOKEN = 3
#: A server that read fewer than this share of the estimated prompt tokens cut it.
CUT_SHARE = 0.4
#: ... when that is at least this many estimated tokens fewer (a short prompt's
#: count says little about its cut).
CUT_MIN_TOKENS = 256


@dataclass(frozen=True)
class Outgoing:
    """One request as a provider sends it: the JSON body (``extra_body`` merged in),
    the prompt in it (a text, chat messages, or named parts), and the window its
    answer is parsed against."""

    body: dict[str, Any]
    prompt: Any
    window: Window

    @property
    def wire(self) -> bytes:
        """The body's bytes as the transport puts them on the wire."""
        return wire_body(self.body)


class HTTPProvider(ABC):
    """An async completion function backed by one endpoint."""

    name: ClassVar[str]
    path: ClassVar[str]
    needs_model: ClassVar[bool] = True
    #: How to give the server room for the whole prompt, said with a cut prompt.
    cut_fix: ClassVar[str] = "raise the server's context size (Ollama: num_ctx; llama.cpp: --ctx-size)"

    endpoint: Endpoint

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None, connect: bool = True) -> None:
        """``connect=False`` makes a provider that only builds requests
        (:meth:`outgoing`), for ``editpred prompt``: it has no endpoint, so it needs
        no base URL and no API key, and it cannot :meth:`complete`."""
        if self.needs_model and not settings.model:
            raise ConfigError(
                f"provider {self.name!r} needs a model name",
                fix="Give --editpred-model, the name the server serves the model under.",
            )
        self.settings = settings
        if connect:
            self.endpoint = Endpoint(
                settings, provider=self.name, path=self.path, http=http or HTTPTransport(settings), headers=self.headers
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.settings.model!r}, endpoint={getattr(self, 'endpoint', None)!r})"

    # -- what each provider says ---------------------------------------------------

    @abstractmethod
    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        """The request body (without ``extra_body``) and the prompt, for the report."""

    @abstractmethod
    def extract(self, data: Any) -> Reply:
        """The reply in a 2xx JSON body; :func:`malformed` if it is not there."""

    @abstractmethod
    def parse(self, reply: Reply, window: Window) -> Answer:
        """The answer in the reply; :class:`PredictionError` if it is unusable."""

    def prompt_read(self, data: Any) -> tuple[int | None, bool]:
        """How much of the prompt the server says it read: ``(tokens, truncated)``.

        The OpenAI convention: ``usage.prompt_tokens``, and no truncation flag. A
        server that says more overrides this (llama.cpp's ``/infill``)."""
        usage = data.get("usage") if isinstance(data, dict) else None
        tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        return (tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None), False

    # -- shared --------------------------------------------------------------------

    def headers(self, key: Secret | None) -> Mapping[str, str | Secret]:
        """The headers that carry the API key; a server with its own scheme overrides
        this. ``key`` is a :class:`Secret`: put it (or ``key.prefixed(...)``) in a
        header as it is, it is revealed only on the way to the wire."""
        return bearer_headers(key)

    def window(self, request: PredictionRequest) -> Window:
        return window_for(request)

    def stop(self) -> list[str]:
        return list(self.settings.stop)

    def sampling(self, max_tokens_key: str = "max_tokens") -> dict[str, Any]:
        options: dict[str, Any] = {max_tokens_key: self.settings.max_tokens, "temperature": self.settings.temperature}
        stop = self.stop()
        if stop:
            options["stop"] = stop
        return options

    def outgoing(self, request: PredictionRequest) -> Outgoing:
        """What :meth:`complete` sends for ``request``, built and not sent: the one
        place a request body is made, so ``editpred prompt`` shows what a run sends.
        Raises :class:`PredictionError` where the format sends nothing (a prompt
        over its budget)."""
        window = self.window(request)
        body, prompt = self.build(request, window)
        body.update(dict(self.settings.extra_body))
        return Outgoing(body, prompt, window)

    async def complete(self, request: PredictionRequest) -> Prediction:
        sent = self.outgoing(request)
        body, prompt, window = sent.body, sent.prompt, sent.window

        def extract(data: Any) -> tuple[Reply, tuple[int | None, bool]]:
            return self.extract(data), self.prompt_read(data)

        try:
            fetched = await self.endpoint.call(body, trial=request.trial, extract=extract)
        except EditPredError as error:  # refused, unreachable, malformed: the prompt was sent
            attach(error, prompt=prompt)
            raise
        reply, (read, truncated) = fetched.value
        try:
            answer = self.parse(reply, window)
        except PredictionError as error:
            # Everything the Prediction would have carried: the record keeps it.
            attach(error, attempts=fetched.attempts, raw_output=reply.text, prompt=prompt, usage=reply.usage)
            raise
        cut = prompt_cut_note(prompt, read, truncated, self.cut_fix)
        found = [*getattr(window, "notes", ()), *([cut] if cut is not None else [])]
        notes = {"notes": found} if found else {}
        return Prediction(
            text=answer.text,
            cursor=answer.cursor,
            raw_output=reply.text,
            model=reply.model or self.settings.model,
            usage=reply.usage,
            latency=fetched.latency,
            attempts=fetched.attempts,
            cached=fetched.cached,
            extra={"provider": self.name, "prompt": prompt, "finish_reason": reply.finish_reason, **notes},
        )

    async def aclose(self) -> None:
        await self.endpoint.aclose()


def factory(cls: type[HTTPProvider]) -> Callable[..., Completion]:
    """``make(settings)`` for a provider class; tests may pass ``transport``,
    ``backoff`` and ``rng`` by keyword (see :class:`HTTPTransport`)."""

    def make(
        settings: Settings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff: Backoff | None = None,
        rng: random.Random | None = None,
    ) -> Completion:
        return cls(settings, http=HTTPTransport(settings, transport=transport, backoff=backoff, rng=rng)).complete

    make.__name__ = make.__qualname__ = f"make_{cls.name.replace('-', '_')}"
    setattr(make, "provider_class", cls)  # noqa: B010 (what editpred prompt builds: providers.request_builder)
    make.__doc__ = f"The {cls.name!r} provider: {(cls.__doc__ or '').strip().splitlines()[0]}"
    return make


def openai_usage(data: dict[str, Any]) -> dict[str, int]:
    """Token counts from an OpenAI-style ``usage`` object (integers only)."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return {}
    return {key: value for key, value in usage.items() if isinstance(value, int) and not isinstance(value, bool)}


def first_choice(data: Any, url: str) -> dict[str, Any]:
    """``choices[0]`` of an OpenAI-style body."""
    if not isinstance(data, dict):
        raise malformed(url, "is not an object", data)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise malformed(url, "has no choices", data)
    choice: dict[str, Any] = choices[0]
    return choice


def _prompt_bytes(prompt: Any) -> int:
    """UTF-8 bytes of every text in a prompt (a string, chat messages, named parts)."""
    if isinstance(prompt, str):
        return len(prompt.encode("utf-8", "surrogatepass"))
    if isinstance(prompt, dict):
        return sum(_prompt_bytes(value) for value in prompt.values())
    if isinstance(prompt, (list, tuple)):
        return sum(_prompt_bytes(part) for part in prompt)
    return 0


def prompt_cut_note(prompt: Any, read: int | None, truncated: bool, fix: str) -> str | None:
    """The note for a prompt the server cut, or None (see the module's docstring).

    ``read`` is the prompt tokens the server says it read, ``truncated`` whether it
    says it cut the prompt; ``fix`` says how to give it room."""
    size = _prompt_bytes(prompt)
    estimate = -(-size // BYTES_PER_TOKEN)
    about = f"about {estimate:,} tokens by Zed's estimate ({size:,} bytes / {BYTES_PER_TOKEN})"
    if truncated:
        seen = f"read {read:,} tokens of a prompt of {about}" if read is not None else f"cut a prompt of {about}"
        return (
            f"the server says it truncated the prompt (truncated: true): it {seen}, so the model "
            f"answered without part of what the prompt shows; {fix}"
        )
    if read is None or read >= CUT_SHARE * estimate or estimate - read < CUT_MIN_TOKENS:
        return None
    return (
        f"the server read {read:,} prompt tokens of a prompt of {about}: it cut the prompt without "
        f"saying so, and the model answered without part of what the prompt shows; {fix}"
    )
