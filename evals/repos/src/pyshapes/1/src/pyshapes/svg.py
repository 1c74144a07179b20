"""Render shapes as SVG elements and documents."""

from __future__ import annotations

from collections.abc import Sequence

from .bbox import BoundingBox
from .shapes import Circle, Rectangle, Shape, Triangle

SVG_NS = "http://www.w3.org/2000/svg"


def _fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def render_shape(shape: Shape, stroke: str = "black", fill: str = "none") -> str:
    """One SVG element for ``shape``."""
    style = f'stroke="{stroke}" fill="{fill}"'
    if isinstance(shape, Circle):
        c = shape.center
        return f'<circle cx="{_fmt(c.x)}" cy="{_fmt(c.y)}" r="{_fmt(shape.radius)}" {style}/>'
    if isinstance(shape, Rectangle):
        c = shape.corner
        return (
            f'<rect x="{_fmt(c.x)}" y="{_fmt(c.y)}" width="{_fmt(shape.width)}" height="{_fmt(shape.height)}" {style}/>'
        )
    if isinstance(shape, Triangle):
        points = " ".join(f"{_fmt(v.x)},{_fmt(v.y)}" for v in shape.vertices())
        return f'<polygon points="{points}" {style}/>'
    raise TypeError(f"cannot render {type(shape).__name__}")


def view_box(shapes: Sequence[Shape], margin: float = 10.0) -> BoundingBox:
    box = shapes[0].bounding_box()
    for shape in shapes[1:]:
        box = box.union(shape.bounding_box())
    return box.padded(margin)


def render_document(shapes: Sequence[Shape], stroke: str = "black", margin: float = 10.0) -> str:
    """A complete SVG document with every shape, sized to fit them all."""
    if not shapes:
        raise ValueError("nothing to render")
    box = view_box(shapes, margin)
    header = f'<svg xmlns="{SVG_NS}" viewBox="{_fmt(box.xmin)} {_fmt(box.ymin)} {_fmt(box.width)} {_fmt(box.height)}">'
    body = [f"  {render_shape(shape, stroke)}" for shape in shapes]
    return "\n".join([header, *body, "</svg>"]) + "\n"
