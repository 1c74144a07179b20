"""The judge's verdict on one prediction, as Zed stores it (``QaResult``; §2.9).

One record for the run's JSONL ``qa`` key, ep JSON's ``qa`` list and the reports, so
that a verdict written by either tool reads back the same. Every field may be absent:
a judge may answer without a confidence, or with no JSON at all (then ``error`` says
so and ``reasoning`` holds the raw answer, as in Zed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ACCEPT_CONFIDENCE", "QaResult"]

#: The lowest confidence that counts as "judged acceptable" (4 = probably accepted).
ACCEPT_CONFIDENCE = 4
_KEYS = ("reasoning", "reverts_edits", "confidence", "response", "error")
_U8 = range(256)


@dataclass(frozen=True)
class QaResult:
    """``reasoning``, ``reverts_edits`` and ``confidence`` are the judge's; ``response``
    is its raw answer; ``error`` says why nothing could be read from it (or, for the
    run, why the judge could not be asked). ``confidence`` is 0-255 as in Zed (meant
    1-5; an answer of 300 is stored as 44, Zed's u8 cast)."""

    reasoning: str | None = None
    reverts_edits: bool | None = None
    confidence: int | None = None
    response: str | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if self.confidence is not None and (
            isinstance(self.confidence, bool) or not isinstance(self.confidence, int) or self.confidence not in _U8
        ):
            raise ValueError(f"QaResult confidence must be an integer 0-255, not {self.confidence!r}")

    @property
    def acceptable(self) -> bool | None:
        """Judged acceptable: confidence 4 or more and not reverting the user's edits;
        None when there is no confidence to judge by (an error, or none given)."""
        if self.confidence is None:
            return None
        return self.confidence >= ACCEPT_CONFIDENCE and self.reverts_edits is not True

    def to_json(self) -> dict[str, Any]:
        """Zed's object: its key order, absent fields omitted."""
        return {key: value for key in _KEYS if (value := getattr(self, key)) is not None}

    @classmethod
    def from_json(cls, value: object) -> QaResult:
        """A stored verdict, read as leniently as Zed reads one: a missing key or
        ``null`` is absent and unknown keys are ignored; ``None`` itself (no judge
        was asked) is the empty verdict. A field of the wrong type, or a confidence
        outside 0-255, is a :class:`ValueError` with a one-line message, as it makes
        Zed refuse the whole example."""
        if value is None:
            return cls()
        if not isinstance(value, Mapping):
            raise ValueError(f"a QA result must be a JSON object or null, not {_kind(value)}")
        fields: dict[str, Any] = {}
        for key, expected, kind in (
            ("reasoning", str, "a string"),
            ("reverts_edits", bool, "true or false"),
            ("confidence", int, "an integer 0-255"),
            ("response", str, "a string"),
            ("error", str, "a string"),
        ):
            item = value.get(key)
            if item is None:
                continue
            wrong_int = expected is int and (isinstance(item, bool) or not isinstance(item, int) or item not in _U8)
            if wrong_int or not isinstance(item, expected):
                raise ValueError(f"QA result field '{key}' must be {kind}, not {_kind(item)}")
            fields[key] = item
        return cls(**fields)


def _kind(value: object) -> str:
    """A value as a message names it: JSON's words for its types, numbers shown."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return type(value).__name__
