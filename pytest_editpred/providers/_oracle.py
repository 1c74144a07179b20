"""``oracle`` and ``noop``: the two providers that check the corpus, not a model.

``oracle`` answers with the first expected patch and its cursor, so every example
must pass with it: a failure means the example itself is wrong. ``noop`` predicts
no change, so every example that expects a change must fail with it.
"""

from __future__ import annotations

from collections.abc import Callable

from .._settings import Settings
from ..judge import Prediction
from ..scene import PredictionRequest, apply_patch
from ._registry import Completion

__all__ = ["make_oracle", "make_noop"]


def oracle(request: PredictionRequest) -> Prediction:
    expected = request.example.expected()
    if not expected:
        return Prediction(model="oracle")
    first = expected[0]
    patched = apply_patch(request.buffers, first, default_path=request.cursor.path, open_file=_opener(request))
    cursor = None
    if patched.cursor is not None and patched.cursor[0] == request.cursor.path:
        cursor = patched.cursor[1]
    return Prediction(patch=first.patch, cursor=cursor, raw_output=first.patch, model="oracle")


def _opener(request: PredictionRequest) -> Callable[[str], tuple[str, str] | None]:
    """Files the expected patch edits but no buffer holds: read from the repository,
    as the judge reads them (a next edit in a file the history never touched)."""

    def open_file(path: str) -> tuple[str, str] | None:
        text = request.file_text(path)
        return None if text is None else (path, text)

    return open_file


def noop(request: PredictionRequest) -> Prediction:
    return Prediction(model="noop")


def make_oracle(settings: Settings) -> Completion:
    return oracle


def make_noop(settings: Settings) -> Completion:
    return noop
