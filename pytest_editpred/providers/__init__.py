"""Providers: named factories of completion functions.

A provider is a callable ``make(settings) -> completion`` where ``completion`` takes a
:class:`~pytest_editpred.PredictionRequest` and returns a
:class:`~pytest_editpred.Prediction` (or an awaitable of one). Built-ins are listed
in ``BUILTIN``; third-party providers register under the entry-point group
``pytest_editpred.providers`` and are picked by name the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._registry import (
    BUILTIN,
    Completion,
    ProviderFactory,
    available,
    get_provider,
    reads_related_files,
    request_builder,
    sending,
    unused_options,
)

if TYPE_CHECKING:
    from ._judge import JUDGES, JudgeAnswer, JudgeClient

__all__ = [
    "BUILTIN",
    "JUDGES",
    "JudgeAnswer",
    "JudgeClient",
    "Completion",
    "ProviderFactory",
    "available",
    "get_provider",
    "reads_related_files",
    "request_builder",
    "sending",
    "unused_options",
]


def __getattr__(name: str) -> Any:
    # The LLM judge's client (and the HTTP transport under it) is imported on first
    # use: a run that names no judge, with an offline provider, never loads httpx.
    if name in ("JUDGES", "JudgeAnswer", "JudgeClient"):
        from . import _judge

        value = getattr(_judge, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
