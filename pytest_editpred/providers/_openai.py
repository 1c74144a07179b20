"""``openai`` and ``openai-chat``: OpenAI-compatible servers (vLLM, SGLang,
llama.cpp's server, Ollama, hosted APIs).

``openai`` sends a raw prompt to ``/v1/completions`` in one of Zed's Zeta prompt
formats (``settings.prompt_format``, see :mod:`.prompts._zeta`), with the format's
stop tokens, and parses the answer as Zed does. With ``sweep``, or ``infer`` and a
model named like ``sweep-next-edit-1.5b``, it sends Zed's Sweep prompt instead
(:mod:`.prompts._sweep`) in the body Zed's ``open_ai_compatible_api`` provider sends:
``model``, ``prompt``, ``max_tokens`` and ``stop``, and no ``temperature``, so the
server's default applies as in the editor. Settings cannot tell a temperature given
from the default one, so ``--editpred-temperature`` left at its default (0) sends
none and any other value is sent; a temperature of 0 goes through
``--editpred-extra-body '{"temperature": 0}'``. ``openai-chat`` sends a system +
user instruction prompt to ``/v1/chat/completions`` and reads the last fenced code
block; with ``prompt_format`` ``teacher`` or ``teacher-jumps`` it sends Zed's
teacher prompt instead, as one user message (see :mod:`.prompts._teacher`).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from .._settings import Settings
from ..scene import PredictionRequest
from ._base import HTTPProvider, factory, first_choice, openai_usage
from .prompts import (
    SWEEP_STOP_TOKENS,
    Answer,
    SweepWindow,
    TeacherWindow,
    Window,
    ZetaWindow,
    chat_messages,
    parse_chat,
    parse_sweep_reply,
    parse_teacher_reply,
    parse_zeta_reply,
    sweep_selected,
    sweep_window,
    teacher_prompt_name,
    teacher_window,
    zeta_format,
    zeta_stop_tokens,
    zeta_window,
)
from .transport import HTTPTransport, Reply, malformed

__all__ = ["OpenAICompletions", "OpenAIChat", "make_openai", "make_openai_chat"]

_DEFAULT_TEMPERATURE = next(f.default for f in fields(Settings) if f.name == "temperature")


def _model(data: dict[str, Any]) -> str | None:
    model = data.get("model")
    return model if isinstance(model, str) and model else None


class OpenAICompletions(HTTPProvider):
    """raw prompts to /v1/completions, in one of Zed's Zeta prompt formats or Sweep's."""

    name = "openai"
    path = "/v1/completions"

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None, connect: bool = True) -> None:
        # None: the Sweep prompt (checked first: ``sweep`` is no Zeta format name)
        sweep = sweep_selected(settings.prompt_format, settings.model)
        self.format = None if sweep else zeta_format(settings.prompt_format, settings.model)
        super().__init__(settings, http=http, connect=connect)

    def window(self, request: PredictionRequest) -> Window:
        if self.format is None:
            return sweep_window(request)
        return zeta_window(request, self.format)

    def stop(self) -> list[str]:
        stop = list(self.settings.stop)
        own = SWEEP_STOP_TOKENS if self.format is None else zeta_stop_tokens(self.format)
        return stop + [token for token in own if token not in stop]

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        if isinstance(window, SweepWindow):
            body: dict[str, Any] = {
                "model": self.settings.model,
                "prompt": window.prompt,
                "max_tokens": self.settings.max_tokens,
                "stop": self.stop(),
            }
            if self.settings.temperature != _DEFAULT_TEMPERATURE:
                body["temperature"] = self.settings.temperature
            return body, window.prompt
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
        if isinstance(window, SweepWindow):
            return parse_sweep_reply(reply.text, window, reply.truncated)
        return parse_zeta_reply(reply.text, window, reply.truncated)


class OpenAIChat(HTTPProvider):
    """an instruction prompt to /v1/chat/completions; the answer is a fenced block."""

    name = "openai-chat"
    path = "/v1/chat/completions"

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None, connect: bool = True) -> None:
        self.teacher = teacher_prompt_name(settings, provider=self.name, default=None)
        super().__init__(settings, http=http, connect=connect)

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
