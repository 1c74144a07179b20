"""pyshapes: small plane-geometry toolkit."""

from .bbox import BoundingBox
from .point import Point
from .shapes import Circle, Rectangle, Shape, Triangle
from .svg import render_document, render_shape
from .transform import rotate, scale, translate

__all__ = [
    "BoundingBox",
    "Circle",
    "Point",
    "Rectangle",
    "Shape",
    "Triangle",
    "render_document",
    "render_shape",
    "rotate",
    "scale",
    "translate",
]

__version__ = "0.3.0"
