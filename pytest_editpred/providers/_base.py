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
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import httpx

from .._exceptions import ConfigError, PredictionError
from .._settings import Settings
from ..judge import Prediction
from ..scene import PredictionRequest
from ._registry import Completion
from .prompts import Answer, Window, window_for
from .transport import Backoff, Endpoint, HTTPTransport, Reply, Secret, attach, bearer_headers, malformed

__all__ = ["HTTPProvider", "factory", "openai_usage", "first_choice"]


class HTTPProvider(ABC):
    """An async completion function backed by one endpoint."""

    name: ClassVar[str]
    path: ClassVar[str]
    needs_model: ClassVar[bool] = True

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None) -> None:
        if self.needs_model and not settings.model:
            raise ConfigError(
                f"provider {self.name!r} needs a model name",
                fix="Give --editpred-model, the name the server serves the model under.",
            )
        self.settings = settings
        self.endpoint = Endpoint(
            settings, provider=self.name, path=self.path, http=http or HTTPTransport(settings), headers=self.headers
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.settings.model!r}, endpoint={self.endpoint!r})"

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

    async def complete(self, request: PredictionRequest) -> Prediction:
        window = self.window(request)
        body, prompt = self.build(request, window)
        body.update(dict(self.settings.extra_body))
        fetched = await self.endpoint.call(body, trial=request.trial, extract=self.extract)
        reply = fetched.value
        try:
            answer = self.parse(reply, window)
        except PredictionError as error:
            attach(error, attempts=fetched.attempts, raw_output=reply.text)
            raise
        return Prediction(
            text=answer.text,
            cursor=answer.cursor,
            raw_output=reply.text,
            model=reply.model or self.settings.model,
            usage=reply.usage,
            latency=fetched.latency,
            attempts=fetched.attempts,
            cached=fetched.cached,
            extra={"provider": self.name, "prompt": prompt, "finish_reason": reply.finish_reason},
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
