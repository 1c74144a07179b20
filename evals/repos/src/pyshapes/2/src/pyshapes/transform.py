"""Affine transforms that return new shapes; the input is never changed."""

from __future__ import annotations

from .point import Point
from .polygon import Polygon
from .shapes import Circle, Rectangle, Shape, Triangle


def translate(shape: Shape, dx: float, dy: float) -> Shape:
    """Move ``shape`` by ``(dx, dy)``."""
    if isinstance(shape, Circle):
        return Circle(shape.center.translated(dx, dy), shape.radius)
    if isinstance(shape, Rectangle):
        return Rectangle(shape.corner.translated(dx, dy), shape.width, shape.height)
    if isinstance(shape, Triangle):
        return Triangle(*(v.translated(dx, dy) for v in shape.vertices()))
    if isinstance(shape, Polygon):
        return Polygon([p.translated(dx, dy) for p in shape.points])
    raise TypeError(f"cannot translate {type(shape).__name__}")


def scale(shape: Shape, factor: float, pivot: Point | None = None) -> Shape:
    """Scale ``shape`` by ``factor`` around ``pivot`` (default: its bounding-box center)."""
    if factor <= 0:
        raise ValueError("the scale factor must be positive")
    pivot = pivot or shape.bounding_box().center
    if isinstance(shape, Circle):
        return Circle(shape.center.scaled(factor, pivot), shape.radius * factor)
    if isinstance(shape, Rectangle):
        return Rectangle(shape.corner.scaled(factor, pivot), shape.width * factor, shape.height * factor)
    if isinstance(shape, Triangle):
        return Triangle(*(v.scaled(factor, pivot) for v in shape.vertices()))
    if isinstance(shape, Polygon):
        return Polygon([p.scaled(factor, pivot) for p in shape.points])
    raise TypeError(f"cannot scale {type(shape).__name__}")


def rotate(shape: Shape, degrees: float, pivot: Point | None = None) -> Shape:
    """Rotate ``shape`` counter-clockwise by ``degrees`` around ``pivot``.

    Rectangles stay rectangles for multiples of 90 degrees and become polygons for
    any other angle.
    """
    pivot = pivot or shape.bounding_box().center
    if isinstance(shape, Circle):
        return Circle(shape.center.rotated(degrees, pivot), shape.radius)
    if isinstance(shape, Triangle):
        return Triangle(*(v.rotated(degrees, pivot) for v in shape.vertices()))
    if isinstance(shape, Polygon):
        return Polygon([p.rotated(degrees, pivot) for p in shape.points])
    if isinstance(shape, Rectangle):
        corners = [v.rotated(degrees, pivot) for v in shape.vertices()]
        if degrees % 90:
            return Polygon(corners)
        xmin = min(p.x for p in corners)
        ymin = min(p.y for p in corners)
        turned = (degrees // 90) % 2 == 1
        width, height = (shape.height, shape.width) if turned else (shape.width, shape.height)
        return Rectangle(Point(xmin, ymin), width, height)
    raise TypeError(f"cannot rotate {type(shape).__name__}")
