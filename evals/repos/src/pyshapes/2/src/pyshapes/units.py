"""Length units: drawings are stored in millimetres."""

from __future__ import annotations

from enum import Enum


class Unit(Enum):
    MILLIMETRE = "mm"
    CENTIMETRE = "cm"
    METRE = "m"
    POINT = "pt"


_PER_MILLIMETRE = {
    Unit.MILLIMETRE: 1.0,
    Unit.CENTIMETRE: 0.1,
    Unit.METRE: 0.001,
    Unit.POINT: 72 / 25.4,
}


def parse_unit(text: str) -> Unit:
    try:
        return Unit(text.strip().lower())
    except ValueError:
        known = ", ".join(u.value for u in Unit)
        raise ValueError(f"unknown unit {text!r}; expected one of {known}") from None


def convert(value: float, source: Unit, target: Unit) -> float:
    """Convert ``value`` from ``source`` units to ``target`` units."""
    millimetres = value / _PER_MILLIMETRE[source]
    return millimetres * _PER_MILLIMETRE[target]


def format_length(value: float, unit: Unit, precision: int = 2) -> str:
    return f"{value:.{precision}f} {unit.value}"
