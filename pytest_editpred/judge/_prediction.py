"""What a completion function returns: the model's answer, and facts about getting it.

The answer is either a unified ``patch`` (tolerant, like the examples' diffs) or the
new ``text`` of the cursor file; ``cursor`` is an optional character offset into the
cursor file *after* the edit. ``context`` is the context the model was given beyond
the cursor excerpt (the files a retriever found), when the completion function
reports it: it is scored as Zed's ``editable_context_coverage``. The rest (raw
output, model id, usage, timing, attempts) is reported, never judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..example import RetrievedFile

__all__ = ["Attempt", "Prediction"]


@dataclass(frozen=True)
class Attempt:
    """One request to a model: its ordinal (from 1), the error kind if it failed
    (``timeout``, ``connect``, ``http-429``, ``http-503``, ...), and its latency."""

    ordinal: int
    error: str | None
    latency: float


@dataclass(frozen=True)
class Prediction:
    """A predicted edit. Give ``patch`` or ``text``; neither means "no change"."""

    patch: str | None = None
    text: str | None = None
    cursor: int | None = None
    raw_output: str | None = None
    model: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    latency: float | None = None
    attempts: tuple[Attempt, ...] = ()
    cached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    context: tuple[RetrievedFile, ...] | None = None

    def __post_init__(self) -> None:
        if self.patch is not None and self.text is not None:
            raise ValueError("a Prediction has a patch or a text, not both")

    @classmethod
    def no_change(cls, **facts: Any) -> Prediction:
        return cls(**facts)
