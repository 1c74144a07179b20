"""The shape classes: every shape knows its area, perimeter and outline."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

from .bbox import BoundingBox
from .point import Point


class Shape(ABC):
    """Base class of all shapes."""

    kind: str = "shape"

    @abstractmethod
    def area(self) -> float:
        """The enclosed area."""

    @abstractmethod
    def perimeter(self) -> float:
        """The length of the outline."""

    @abstractmethod
    def vertices(self) -> list[Point]:
        """Points on the outline, used for bounding boxes and transforms."""

    def bounding_box(self) -> BoundingBox:
        return BoundingBox.around(self.vertices())

    def describe(self) -> str:
        return f"{self.kind} with area {self.area():.2f}"


@dataclass
class Circle(Shape):
    center: Point
    radius: float
    kind = "circle"

    def __post_init__(self) -> None:
        if self.radius <= 0:
            raise ValueError(f"radius must be positive, got {self.radius}")

    def area(self) -> float:
        return math.pi * self.radius**2

    def perimeter(self) -> float:
        return 2 * math.pi * self.radius

    def vertices(self) -> list[Point]:
        c, r = self.center, self.radius
        return [c.translated(r, 0), c.translated(0, r), c.translated(-r, 0), c.translated(0, -r)]


@dataclass
class Rectangle(Shape):
    corner: Point
    width: float
    height: float
    kind = "rectangle"

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError("width and height must be positive")

    def area(self) -> float:
        return self.width * self.height

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def vertices(self) -> list[Point]:
        c = self.corner
        return [
            c,
            c.translated(self.width, 0),
            c.translated(self.width, self.height),
            c.translated(0, self.height),
        ]

    def is_square(self) -> bool:
        return math.isclose(self.width, self.height)


@dataclass
class Triangle(Shape):
    a: Point
    b: Point
    c: Point
    kind = "triangle"

    def area(self) -> float:
        a, b, c = self.a, self.b, self.c
        return abs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)) / 2

    def perimeter(self) -> float:
        return self.a.distance_to(self.b) + self.b.distance_to(self.c) + self.c.distance_to(self.a)

    def vertices(self) -> list[Point]:
        return [self.a, self.b, self.c]
