"""``openai`` and ``openai-chat``: OpenAI-compatible servers (vLLM, SGLang,
llama.cpp's server, Ollama, hosted APIs).

``openai`` sends a raw prompt to ``/v1/completions`` in ``settings.prompt_format``
(``zeta`` or ``zeta2``, see :mod:`._prompts`); the format's end marker is always
added to the stop sequences, so the server stops as soon as the region is written.
``openai-chat`` sends a system + user instruction prompt to
``/v1/chat/completions`` and reads the last fenced code block; it ignores
``prompt_format``.
"""

from __future__ import annotations

from typing import Any

from .._request import PredictionRequest
from .._settings import Settings
from ._base import HTTPProvider, factory, first_choice, openai_usage
from ._endpoint import Reply, malformed
from ._http import HTTPTransport
from ._prompts import chat_messages, completion_format, parse_chat
from ._window import Answer, Window

__all__ = ["OpenAICompletions", "OpenAIChat", "make_openai", "make_openai_chat"]


def _model(data: dict[str, Any]) -> str | None:
    model = data.get("model")
    return model if isinstance(model, str) and model else None


class OpenAICompletions(HTTPProvider):
    """raw prompts to /v1/completions, in the zeta or zeta2 format."""

    name = "openai"
    path = "/v1/completions"

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None) -> None:
        self.format = completion_format(settings.prompt_format)
        super().__init__(settings, http=http)

    def stop(self) -> list[str]:
        stop = list(self.settings.stop)
        return stop + [marker for marker in self.format.stop if marker not in stop]

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        prompt = self.format.render(request, window)
        return {"model": self.settings.model, "prompt": prompt, **self.sampling()}, prompt

    def extract(self, data: Any) -> Reply:
        choice = first_choice(data, self.endpoint.url)
        text = choice.get("text")
        if not isinstance(text, str):
            raise malformed(self.endpoint.url, "has no choices[0].text", data)
        reason = choice.get("finish_reason")
        return Reply(text, reason if isinstance(reason, str) else None, openai_usage(data), _model(data))

    def parse(self, reply: Reply, window: Window) -> Answer:
        return self.format.parse(reply.text, window, reply.truncated)


class OpenAIChat(HTTPProvider):
    """an instruction prompt to /v1/chat/completions; the answer is a fenced block."""

    name = "openai-chat"
    path = "/v1/chat/completions"

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        messages = chat_messages(request, window)
        return {"model": self.settings.model, "messages": messages, **self.sampling()}, messages

    def extract(self, data: Any) -> Reply:
        choice = first_choice(data, self.endpoint.url)
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise malformed(self.endpoint.url, "has no choices[0].message.content", data)
        reason = choice.get("finish_reason")
        return Reply(content, reason if isinstance(reason, str) else None, openai_usage(data), _model(data))

    def parse(self, reply: Reply, window: Window) -> Answer:
        return parse_chat(reply.text, window, reply.truncated)


make_openai = factory(OpenAICompletions)
make_openai_chat = factory(OpenAIChat)
