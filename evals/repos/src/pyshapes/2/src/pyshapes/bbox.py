"""Axis-aligned bounding boxes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .point import Point


@dataclass(frozen=True)
class BoundingBox:
    xmin: float
    ymin: float
    xmax: float
    ymax: float

    @classmethod
    def around(cls, points: Iterable[Point]) -> BoundingBox:
        points = list(points)
        if not points:
            raise ValueError("cannot build a bounding box around no points")
        xs = [p.x for p in points]
        ys = [p.y for p in points]
        return cls(min(xs), min(ys), max(xs), max(ys))

    @property
    def width(self) -> float:
        return self.xmax - self.xmin

    @property
    def height(self) -> float:
        return self.ymax - self.ymin

    @property
    def center(self) -> Point:
        return Point((self.xmin + self.xmax) / 2, (self.ymin + self.ymax) / 2)

    def contains(self, point: Point) -> bool:
        return self.xmin <= point.x <= self.xmax and self.ymin <= point.y <= self.ymax

    def union(self, other: BoundingBox) -> BoundingBox:
        return BoundingBox(
            min(self.xmin, other.xmin),
            min(self.ymin, other.ymin),
            max(self.xmax, other.xmax),
            max(self.ymax, other.ymax),
        )

    def padded(self, margin: float) -> BoundingBox:
        return BoundingBox(self.xmin - margin, self.ymin - margin, self.xmax + margin, self.ymax + margin)
