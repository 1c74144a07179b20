"""``anthropic``: Claude through the Anthropic Messages API, on Zed's teacher prompt.

Zed distils its models from Claude with the teacher prompts (§12, §13 of
``zeta-prompts.md``), so this is the way to score a frontier model on the same
prompt. ``POST {base_url}/v1/messages`` with the key in ``x-api-key`` (Anthropic
takes no ``Authorization: Bearer``) and ``anthropic-version``; the reply is the
concatenated ``text`` blocks, ``stop_reason: max_tokens`` means cut off. Retries
(529 "overloaded" is a 5xx), the cache and error accounting are the shared ones.

``--editpred-prompt-format`` picks ``teacher`` (the default) or ``teacher-jumps``.
"""

from __future__ import annotations

from typing import Any

from .._settings import Settings
from ..scene import PredictionRequest
from ._base import HTTPProvider, factory
from .prompts import Answer, TeacherWindow, Window, parse_teacher_reply, teacher_prompt_name, teacher_window
from .transport import HTTPTransport, Reply, Secret, malformed

__all__ = ["ANTHROPIC_VERSION", "AnthropicMessages", "make_anthropic"]

ANTHROPIC_VERSION = "2023-06-01"

#: Anthropic's stop reasons in the vocabulary of :class:`Reply` (``length`` = cut off).
_STOP_REASONS = {"max_tokens": "length", "end_turn": "stop", "stop_sequence": "stop"}


class AnthropicMessages(HTTPProvider):
    """Zed's teacher prompt to the Anthropic Messages API (/v1/messages)."""

    name = "anthropic"
    path = "/v1/messages"

    def __init__(self, settings: Settings, *, http: HTTPTransport | None = None, connect: bool = True) -> None:
        self.prompt_name = teacher_prompt_name(settings, provider=self.name, default="teacher") or "teacher"
        super().__init__(settings, http=http, connect=connect)

    def headers(self, key: Secret | None) -> dict[str, str | Secret]:
        headers: dict[str, str | Secret] = {"anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def window(self, request: PredictionRequest) -> TeacherWindow:
        return teacher_window(request, self.prompt_name)

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        assert isinstance(window, TeacherWindow)
        body = {
            "model": self.settings.model,
            "max_tokens": self.settings.max_tokens,
            "messages": [{"role": "user", "content": window.prompt}],
            "temperature": self.settings.temperature,
            "stop_sequences": self.stop(),
        }
        return body, window.prompt

    def extract(self, data: Any) -> Reply:
        url = self.endpoint.url
        if not isinstance(data, dict):
            raise malformed(url, "is not an object", data)
        content = data.get("content")
        if not isinstance(content, list):
            raise malformed(url, "has no content list", data)
        text = "".join(
            block["text"]
            for block in content
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        )
        reason = data.get("stop_reason")
        reason = _STOP_REASONS.get(reason, reason) if isinstance(reason, str) else None
        usage = data.get("usage")
        counts = (
            {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
            if isinstance(usage, dict)
            else {}
        )
        model = data.get("model")
        return Reply(text, reason, counts, model if isinstance(model, str) and model else None)

    def parse(self, reply: Reply, window: Window) -> Answer:
        return parse_teacher_reply(reply.text, window, reply.truncated)


make_anthropic = factory(AnthropicMessages)
