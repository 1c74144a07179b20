"""Points in the plane."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    """An immutable 2-D point."""

    x: float
    y: float

    @classmethod
    def origin(cls) -> Point:
        return cls(0.0, 0.0)

    def distance_to(self, other: Point) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)

    def translated(self, dx: float, dy: float) -> Point:
        return Point(self.x + dx, self.y + dy)

    def scaled(self, factor: float, center: Point | None = None) -> Point:
        center = center or Point.origin()
        return Point(
            center.x + (self.x - center.x) * factor,
            center.y + (self.y - center.y) * factor,
        )

    def rotated(self, degrees: float, center: Point | None = None) -> Point:
        center = center or Point.origin()
        angle = math.radians(degrees)
        cos, sin = math.cos(angle), math.sin(angle)
        dx, dy = self.x - center.x, self.y - center.y
        return Point(center.x + dx * cos - dy * sin, center.y + dx * sin + dy * cos)

    def midpoint(self, other: Point) -> Point:
        return Point((self.x + other.x) / 2, (self.y + other.y) / 2)

    def as_tuple(self) -> tuple[float, float]:
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"({self.x:g}, {self.y:g})"
