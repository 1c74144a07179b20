"""A custom completion function: the worked example to copy into your own project.

``pytest evals/`` answers with the offline ``baseline`` provider. Name an
OpenAI-compatible server (vLLM, SGLang, llama.cpp's server, Ollama, ...) in
``EDITPRED_EXAMPLE_SERVER`` and the fixture below answers instead::

    EDITPRED_EXAMPLE_SERVER=http://localhost:8000 EDITPRED_EXAMPLE_MODEL=my-model pytest evals/

It is the README's "Writing a completion function": a fill-in-the-middle prompt to
``/v1/completions``, the answer inserted at the cursor. Copied into your project,
drop the ``if`` and change the prompt to your model's. Without the variable this file
defines nothing, so it changes no run, and ``pytest`` (the project's own tests) is
untouched by it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_editpred import Prediction, PredictionRequest

SERVER = os.environ.get("EDITPRED_EXAMPLE_SERVER")  # e.g. http://localhost:8000
MODEL = os.environ.get("EDITPRED_EXAMPLE_MODEL", "my-model")

if SERVER:

    @pytest.fixture(scope="session")
    def editpred_completion():  # type: ignore[no-untyped-def]
        """Ask my model for the next edit. Session scope lets predictions run ahead, in parallel."""
        import httpx  # imported here: a run without the server pays nothing for it

        from pytest_editpred import Prediction

        client = httpx.AsyncClient(base_url=SERVER, timeout=60)

        async def complete(request: PredictionRequest) -> Prediction:
            excerpt = request.excerpt(max_tokens=2048)  # whole lines around the cursor
            before = excerpt.text[: excerpt.cursor_offset]
            after = excerpt.text[excerpt.cursor_offset :]
            history = "\n".join(event.diff for event in request.events)
            response = await client.post(
                "/v1/completions",
                json={"model": MODEL, "prompt": f"{history}\n<PRE>{before}<SUF>{after}<MID>", "max_tokens": 256},
            )
            response.raise_for_status()  # an unreachable or failing server is an ERROR
            inserted = response.json()["choices"][0]["text"]
            offset = request.cursor.offset
            return Prediction(
                text=request.text[:offset] + inserted + request.text[offset:],  # or patch="--- a/x\n+++ b/x\n..."
                cursor=offset + len(inserted),  # optional: where the cursor ends
                raw_output=inserted,
                model=MODEL,
            )

        yield complete
