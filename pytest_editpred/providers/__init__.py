"""Providers: named factories of completion functions.

A provider is a callable ``make(settings) -> completion`` where ``completion`` takes a
:class:`~pytest_editpred.PredictionRequest` and returns a
:class:`~pytest_editpred.Prediction` (or an awaitable of one). Built-ins are listed
in ``BUILTIN``; third-party providers register under the entry-point group
``pytest_editpred.providers`` and are picked by name the same way.
"""

from __future__ import annotations

from ._judge import JUDGES, JudgeAnswer, JudgeClient
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
