"""Limits on everything that comes from outside: examples, diffs, answers, JSON.

Examples, model answers, cache and replay files are written by someone else, and a
hostile or broken one must not exhaust memory or CPU or abort the run. Each limit
has a default generous for real corpora (Zed's own examples are a few KB; its
largest prompts about 50 KB) and, where a user may need more, an option and an ini
key. Going over a limit is one clear message: FAILED when it is the model's answer,
ERROR when it is the example or the environment.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "DEFAULT_LIMITS", "MAX_JSON_DEPTH"]

MAX_JSON_DEPTH = 100
"""Nesting depth of any JSON read (answers, cache, replay, baseline, examples)."""


@dataclass(frozen=True)
class Limits:
    """``max_response_bytes``: a model server's response body, counted while it
    streams and while it is decompressed (``--editpred-max-response-bytes``).
    ``max_example_bytes``: an example file, and so any diff in it
    (``--editpred-max-example-bytes``). ``max_prediction_bytes``: a prediction's
    patch or text (``--editpred-max-prediction-bytes``). ``judge_seconds``: the
    time one item may spend being judged (``--editpred-judge-timeout``)."""

    max_response_bytes: int = 8 * 1024 * 1024
    max_example_bytes: int = 16 * 1024 * 1024
    max_prediction_bytes: int = 8 * 1024 * 1024
    judge_seconds: float = 60.0


DEFAULT_LIMITS = Limits()
