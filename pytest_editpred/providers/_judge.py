"""The judge's client: one user message holding the judge's prompt, the answer's text.

Zed's ``ep qa`` sends its prompt as the only user message, with no temperature,
system prompt or other sampling option, and reads the text of the answer
(zed-qa-repair.md §2.1, §2.7). The request goes through the same
:class:`~.transport.Endpoint` as a prediction's: the transport's limits, retries and
deadlines, the secret kept out of every output, and the response cache, so a
replay-only run reads the judge's answers from the cache and needs no judge server.

Three envelopes, by the judge's provider name:

* ``openai``: Zed's ``--backend openai``: ``/v1/chat/completions`` with
  ``max_completion_tokens`` (what OpenAI's reasoning models take);
* ``openai-chat``: the same endpoint with ``max_tokens``, which local servers
  (llama.cpp, vLLM, Ollama) read;
* ``anthropic``: Zed's ``--backend anthropic``, ``/v1/messages`` with ``max_tokens``.

An OpenAI answer is the content of every choice, concatenated (plain or multipart
text); an Anthropic answer every ``text`` block, concatenated: as Zed reads them. A
provider from an entry point can judge when its factory is built on an
:class:`~._base.HTTPProvider` subclass (``providers.factory``) that has
``judge_body(prompt) -> dict`` and, for an envelope of its own, ``judge_text(data) ->
str``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._exceptions import ConfigError
from .._settings import Settings
from ..judge import Attempt
from .transport import Endpoint, HTTPTransport, Secret, bearer_headers, malformed

__all__ = ["JUDGES", "JudgeAnswer", "JudgeClient"]

#: Zed's ``max_tokens`` for the judge (§2.1); ``--editpred-qa-max-tokens`` changes it.
JUDGE_MAX_TOKENS = 1024


@dataclass(frozen=True)
class _Envelope:
    path: str
    max_tokens_key: str
    headers: Callable[[Secret | None], Mapping[str, str | Secret]]
    text: Callable[[Any, str], str]


def _openai_text(data: Any, url: str) -> str:
    """Every choice's message content, concatenated (Zed, §2.7)."""
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise malformed(url, "has no choices", data)
    parts: list[str] = []
    for choice in data["choices"]:
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(
                part["text"]
                for part in content
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
            )
    return "".join(parts)


def _anthropic_text(data: Any, url: str) -> str:
    """Every ``text`` block, concatenated (Zed, §2.7)."""
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise malformed(url, "has no content list", data)
    return "".join(
        block["text"]
        for block in data["content"]
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def _anthropic_headers(key: Secret | None) -> dict[str, str | Secret]:
    from ._anthropic import ANTHROPIC_VERSION

    headers: dict[str, str | Secret] = {"anthropic-version": ANTHROPIC_VERSION}
    if key:
        headers["x-api-key"] = key
    return headers


#: The built-in judges' envelopes.
JUDGES: dict[str, _Envelope] = {
    "openai": _Envelope("/v1/chat/completions", "max_completion_tokens", bearer_headers, _openai_text),
    "openai-chat": _Envelope("/v1/chat/completions", "max_tokens", bearer_headers, _openai_text),
    "anthropic": _Envelope("/v1/messages", "max_tokens", _anthropic_headers, _anthropic_text),
}


@dataclass(frozen=True)
class JudgeAnswer:
    """The judge's answer text and how it was obtained."""

    text: str
    latency: float | None
    attempts: tuple[Attempt, ...]
    cached: bool


class JudgeClient:
    """Asks the judge named ``name`` (a built-in of :data:`JUDGES`, or a provider from
    an entry point that can judge) through its own endpoint."""

    def __init__(self, settings: Settings, name: str, *, http: HTTPTransport | None = None) -> None:
        if not settings.model:
            raise ConfigError(
                f"the judge {name!r} needs a model name", fix="Give --editpred-qa-model, the model that judges."
            )
        self.settings = settings
        self.name = name
        envelope = JUDGES.get(name)
        self._custom: Any = None
        if envelope is None:
            self._custom = _custom_provider(settings, name)
            path, headers = self._custom.path, self._custom.headers
        else:
            path, headers = envelope.path, envelope.headers
        self._envelope = envelope
        self.endpoint = Endpoint(
            settings, provider=f"judge:{name}", path=path, http=http or HTTPTransport(settings), headers=headers
        )

    def body(self, prompt: str | Sequence[Mapping[str, str]]) -> dict[str, Any]:
        """The request: the prompt as the one user message (or, for ``editpred repair``,
        the conversation's turns as given), nothing else Zed does not send."""
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else [dict(m) for m in prompt]
        if self._envelope is None:
            if not isinstance(prompt, str):
                raise ConfigError(
                    f"the provider {self.name!r} cannot hold a conversation: its judge_body takes one prompt",
                    fix="Name openai, openai-chat or anthropic.",
                )
            body: dict[str, Any] = dict(self._custom.judge_body(prompt))
        else:
            body = {"model": self.settings.model, self._envelope.max_tokens_key: self.settings.max_tokens}
            body["messages"] = messages
        body.update(dict(self.settings.extra_body))
        return body

    def _text(self, data: Any) -> str:
        if self._envelope is not None:
            return self._envelope.text(data, self.endpoint.url)
        reader = getattr(self._custom, "judge_text", None)
        if reader is None:
            return _openai_text(data, self.endpoint.url)
        return str(reader(data))

    async def ask(self, prompt: str | Sequence[Mapping[str, str]]) -> JudgeAnswer:
        """The judge's answer to ``prompt`` (one message, or a conversation's turns); a :class:`PredictionError` or
        :class:`InfrastructureError` when there is none (refused, unreachable,
        malformed, a cache miss in replay-only mode)."""
        fetched = await self.endpoint.call(self.body(prompt), trial=1, extract=self._text)
        return JudgeAnswer(fetched.value, fetched.latency, fetched.attempts, fetched.cached)

    async def aclose(self) -> None:
        await self.endpoint.aclose()


def _custom_provider(settings: Settings, name: str) -> Any:
    """An entry point's provider that can judge, built without connecting."""
    from ._registry import available, get_provider

    factory = get_provider(name)
    cls = getattr(factory, "provider_class", None)
    if cls is None or not callable(getattr(cls, "judge_body", None)):
        judges = ", ".join(sorted(JUDGES))
        raise ConfigError(
            f"the provider {name!r} cannot judge: a judge sends one chat message and reads the answer's text",
            fix=f"Name a judge of {judges}, or give the provider class a judge_body(prompt) method"
            f" (providers available: {', '.join(available())}).",
        )
    return cls(settings, connect=False)
