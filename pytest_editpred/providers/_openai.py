"""``openai`` and ``openai-chat``: OpenAI-compatible servers (vLLM, SGLang,
llama.cpp's server, Ollama, hosted APIs).

``openai`` sends a raw prompt to ``/v1/completions`` in one of Zed's Zeta prompt
formats (``settings.prompt_format``, see :mod:`._zeta_prompt`), with the format's
stop tokens, and parses the answer as Zed does. ``openai-chat`` sends a system +
user instruction prompt to ``/v1/chat/completions`` and reads the last fenced code
block; with ``prompt_format`` ``teacher`` or ``teacher-jumps`` it sends Zed's
teacher prompt instead, as one user message (see :mod:`._teacher_prompt`).
"""

from __future__ import annotations

from typing import Any

from .._settings import Settings
from ..scene import PredictionRequest
from ._base import HTTPProvider, factory, first_choice, openai_usage
from .prompts import (
    Answer,
    TeacherWindow,
    Window,
    ZetaWindow,
    chat_messages,
    parse_chat,
    parse_teacher_reply,
    parse_zeta_reply,
    teacher_prompt_name,
    teacher_window,
    zeta_format,
    zeta_stop_tokens,
    zeta_window,
)
from .transport import HTTPTransport, Reply, malformed

__all__ = ["OpenAICompletions", "OpenAIChat", "make_openai", "make_openai_chat"]


def _model(data: dict[str, Any]) -> str | None:
    model = data.get("model")
    return model if isinstance(model, str) and model else None


class OpenAICompletions(HTTPProvider):
    """raw prompts to /v1/completions, in one of Zed's Zeta prompt formats."""

    name = "openai"
    path = "/v1/completions"

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None) -> None:
        self.format = zeta_format(settings.prompt_format, settings.model)
        super().__init__(settings, http=http)

    def window(self, request: PredictionRequest) -> Window:
        return zeta_window(request, self.format)

    def stop(self) -> list[str]:
        stop = list(self.settings.stop)
        return stop + [token for token in zeta_stop_tokens(self.format) if token not in stop]

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        assert isinstance(window, ZetaWindow)
        prompt = window.prompt + window.prefill
        return {"model": self.settings.model, "prompt": prompt, **self.sampling()}, prompt

    def extract(self, data: Any) -> Reply:
        choice = first_choice(data, self.endpoint.url)
        text = choice.get("text")
        if not isinstance(text, str):
            raise malformed(self.endpoint.url, "has no choices[0].text", data)
        reason = choice.get("finish_reason")
        return Reply(text, reason if isinstance(reason, str) else None, openai_usage(data), _model(data))

    def parse(self, reply: Reply, window: Window) -> Answer:
        return parse_zeta_reply(reply.text, window, reply.truncated)


class OpenAIChat(HTTPProvider):
    """an instruction prompt to /v1/chat/completions; the answer is a fenced block."""

    name = "openai-chat"
    path = "/v1/chat/completions"

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None) -> None:
        self.teacher = teacher_prompt_name(settings, provider=self.name, default=None)
        super().__init__(settings, http=http)

    def window(self, request: PredictionRequest) -> Window:
        return teacher_window(request, self.teacher) if self.teacher else super().window(request)

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        if isinstance(window, TeacherWindow):
            messages = [{"role": "user", "content": window.prompt}]
            return {"model": self.settings.model, "messages": messages, **self.sampling()}, messages
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
        if isinstance(window, TeacherWindow):
            return parse_teacher_reply(reply.text, window, reply.truncated)
        return parse_chat(reply.text, window, reply.truncated)


make_openai = factory(OpenAICompletions)
make_openai_chat = factory(OpenAIChat)
