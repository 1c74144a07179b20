"""Presentation attributes shared by every SVG element."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Style:
    stroke: str = "black"
    fill: str = "none"
    opacity: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.opacity <= 1.0:
            raise ValueError(f"opacity must be between 0 and 1, got {self.opacity}")

    def attributes(self) -> str:
        parts = [f'stroke="{self.stroke}"', f'fill="{self.fill}"']
        if self.opacity != 1.0:
            parts.append(f'opacity="{self.opacity:g}"')
        return " ".join(parts)

    def with_fill(self, fill: str) -> Style:
        return Style(stroke=self.stroke, fill=fill, opacity=self.opacity)


DEFAULT_STYLE = Style()
