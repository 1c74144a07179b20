"""pyshapes: small plane-geometry toolkit."""

from .bbox import BoundingBox
from .point import Point
from .polygon import Polygon
from .shapes import Circle, Rectangle, Shape, Triangle
from .style import Style
from .svg import render_document, render_shape
from .transform import rotate, scale, translate

__all__ = [
    "BoundingBox",
    "Circle",
    "Point",
    "Polygon",
    "Rectangle",
    "Shape",
    "Style",
    "Triangle",
    "render_document",
    "render_shape",
    "rotate",
    "scale",
    "translate",
]

__version__ = "0.4.0"
