"""Fill-in-the-middle providers: ``llamacpp-infill`` and ``mistral-fim``.

FIM models only insert: the context before the cursor is the prefix, the context
after it the suffix, and the completion is inserted at the cursor, which ends up
after the inserted text. An empty completion predicts no change. A completion cut
off by ``max_tokens`` is still an insertion, so it is kept, not failed.

``llamacpp-infill`` POSTs to llama.cpp's ``/infill`` (``input_prefix``,
``input_suffix``, ``n_predict``, …; the answer is ``content``); the model is
optional, the server serves one. Its ``tokens_evaluated`` and ``truncated`` say
whether it cut the prompt, which the prediction's notes then say (see
:mod:`._base`). ``mistral-fim`` POSTs to ``/v1/fim/completions``
(``prompt``, ``suffix``, ``model``, …; the answer is ``choices[0].message.content``
or ``choices[0].text``), as Mistral's API, Inception and Codestral servers do.
"""

from __future__ import annotations

from typing import Any

from ..scene import PredictionRequest
from ._base import HTTPProvider, factory, first_choice, openai_usage
from .prompts import Answer, Window, fim_parts
from .transport import Reply, malformed

__all__ = ["LlamaCppInfill", "MistralFIM", "make_llamacpp_infill", "make_mistral_fim"]


class LlamaCppInfill(HTTPProvider):
    """llama.cpp's /infill endpoint (input_prefix, input_suffix)."""

    name = "llamacpp-infill"
    path = "/infill"
    needs_model = False
    cut_fix = (
        "llama.cpp's /infill keeps about its batch size (--batch-size, default 2048) of prefix and suffix, "
        "and its context (--ctx-size): raise both"
    )

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        prefix, suffix = fim_parts(window)
        body: dict[str, Any] = {"input_prefix": prefix, "input_suffix": suffix, **self.sampling("n_predict")}
        if self.settings.model:
            body["model"] = self.settings.model
        return body, {"input_prefix": prefix, "input_suffix": suffix}

    def extract(self, data: Any) -> Reply:
        if not isinstance(data, dict) or not isinstance(data.get("content"), str):
            raise malformed(self.endpoint.url, "has no content", data)
        cut = data.get("stopped_limit") is True or data.get("stop_type") == "limit"
        usage = {
            name: data[key]
            for name, key in (("prompt_tokens", "tokens_evaluated"), ("completion_tokens", "tokens_predicted"))
            if isinstance(data.get(key), int)
        }
        model = data.get("model")
        return Reply(data["content"], "length" if cut else "stop", usage, model if isinstance(model, str) else None)

    def prompt_read(self, data: Any) -> tuple[int | None, bool]:
        """llama.cpp's ``tokens_evaluated`` (the prompt tokens it read, after any cut)
        and ``truncated`` (set when the prompt did not fit the context). ``/infill``
        also cuts prefix and suffix to its batch size with ``truncated`` false: the
        count is what shows that (see :func:`~._base.prompt_cut_note`)."""
        tokens = data.get("tokens_evaluated") if isinstance(data, dict) else None
        read = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None
        return read, isinstance(data, dict) and data.get("truncated") is True

    def parse(self, reply: Reply, window: Window) -> Answer:
        return window.insert_at_cursor(reply.text)


class MistralFIM(HTTPProvider):
    """Mistral-style /v1/fim/completions (prompt, suffix)."""

    name = "mistral-fim"
    path = "/v1/fim/completions"

    def build(self, request: PredictionRequest, window: Window) -> tuple[dict[str, Any], Any]:
        prefix, suffix = fim_parts(window)
        body = {"model": self.settings.model, "prompt": prefix, "suffix": suffix, **self.sampling()}
        return body, {"prompt": prefix, "suffix": suffix}

    def extract(self, data: Any) -> Reply:
        choice = first_choice(data, self.endpoint.url)
        message = choice.get("message")
        text = message.get("content") if isinstance(message, dict) else choice.get("text")
        if not isinstance(text, str):
            raise malformed(self.endpoint.url, "has neither choices[0].message.content nor choices[0].text", data)
        reason = choice.get("finish_reason")
        model = data.get("model")
        return Reply(
            text,
            reason if isinstance(reason, str) else None,
            openai_usage(data),
            model if isinstance(model, str) else None,
        )

    def parse(self, reply: Reply, window: Window) -> Answer:
        return window.insert_at_cursor(reply.text)


make_llamacpp_infill = factory(LlamaCppInfill)
make_mistral_fim = factory(MistralFIM)
