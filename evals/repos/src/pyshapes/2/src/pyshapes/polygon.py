"""Simple polygons given by their vertices in order."""

from __future__ import annotations

from dataclasses import dataclass, field

from .point import Point
from .shapes import Shape


@dataclass
class Polygon(Shape):
    points: list[Point] = field(default_factory=list)
    kind = "polygon"

    def __post_init__(self) -> None:
        if len(self.points) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(self.points)}")

    def edges(self) -> list[tuple[Point, Point]]:
        pts = self.points
        return [(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))]

    def area(self) -> float:
        total = 0.0
        for start, end in self.edges():
            total += start.x * end.y - end.x * start.y
        return abs(total) / 2

    def perimeter(self) -> float:
        return sum(start.distance_to(end) for start, end in self.edges())

    def vertices(self) -> list[Point]:
        return list(self.points)

    @classmethod
    def regular(cls, center: Point, radius: float, sides: int) -> Polygon:
        """A regular polygon with ``sides`` corners on a circle of ``radius``."""
        if sides < 3:
            raise ValueError("a regular polygon needs at least 3 sides")
        first = center.translated(radius, 0)
        return cls([first.rotated(360 * i / sides, center) for i in range(sides)])
