"""Split points: where a commit is cut (zed-authoring-and-context.md §1.2).

A fraction of the edits (``0.5``), an edit index (``3``), a kind (``fim``,
``same-file-near``, ``same-file-far``, ``cross-file``), a kind and a value
(``fim:3``), or nothing: a random split, as Zed draws it. A fraction outside 0-1 is
refused where Zed clamps it; an index past a commit's edits is clamped, as in Zed
(each commit has its own number of edits, so no bound fits them all).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._exceptions import SplitPointError
from ._kinds import KINDS

__all__ = ["SplitPoint", "parse_split_point", "resolve_split_value"]


@dataclass(frozen=True)
class SplitPoint:
    """``kind`` (one of :data:`KINDS`) and/or ``value`` (a float fraction or an int
    index); neither is Zed's default, a random split."""

    kind: str | None = None
    value: float | int | None = None

    def __str__(self) -> str:
        if self.kind and self.value is not None:
            return f"{self.kind}:{self.value}"
        return self.kind or ("random" if self.value is None else str(self.value))


def _parse_value(text: str) -> float | int:
    if "." in text:
        try:
            fraction = float(text)
        except ValueError:
            raise SplitPointError(f"invalid split point fraction '{text}'") from None
        # Zed clamps any f64 (2.5 is every edit, -1.0 none): a fraction outside 0-1
        # is a typo for an index or a percentage, and a split it names is no fraction.
        if not 0 <= fraction <= 1:
            raise SplitPointError(
                f"the split point fraction '{text}' is outside 0 to 1",
                fix="Give a fraction of the edits from 0 to 1 (0.5: half of them), or an edit index (3).",
            )
        return fraction
    if not text.isdigit():  # Rust's usize parse: digits only (a '+' aside)
        raise SplitPointError(f"invalid split point index '{text}'")
    return int(text)


def parse_split_point(text: str) -> SplitPoint:
    """Zed's ``parse_split_point``: ``kind:value``, a kind, a fraction (has a ``.``)
    or an index; the error messages are Zed's."""
    if ":" in text:
        kind, value = text.split(":", 1)
        if kind not in KINDS:
            raise SplitPointError(
                f"invalid split point kind '{kind}' (expected fim, same-file-near, same-file-far, or cross-file)"
            )
        if not value:
            raise SplitPointError(f"missing split point after kind '{kind}:'")
        return SplitPoint(kind, _parse_value(value))
    if text in KINDS:
        return SplitPoint(text)
    return SplitPoint(None, _parse_value(text))


def resolve_split_value(value: float | int, num_edits: int) -> int:
    """A fraction gives ``min(floor(f × n), n)`` (negative saturates to 0), an index ``min(i, n)``."""
    if isinstance(value, float):
        product = value * num_edits
        if product != product or product <= 0:  # NaN or negative: Rust's cast gives 0
            return 0
        return min(int(product) if product < 2**63 else num_edits, num_edits)
    return min(value, num_edits)
