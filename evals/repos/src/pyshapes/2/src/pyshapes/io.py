"""Read and write shapes as JSON documents."""

from __future__ import annotations

import json
from typing import Any

from .point import Point
from .polygon import Polygon
from .shapes import Circle, Rectangle, Shape, Triangle


def _point(data: Any) -> Point:
    x, y = data
    return Point(float(x), float(y))


def shape_to_dict(shape: Shape) -> dict[str, Any]:
    if isinstance(shape, Circle):
        return {"kind": "circle", "center": shape.center.as_tuple(), "radius": shape.radius}
    if isinstance(shape, Rectangle):
        return {
            "kind": "rectangle",
            "corner": shape.corner.as_tuple(),
            "width": shape.width,
            "height": shape.height,
        }
    if isinstance(shape, Triangle):
        return {"kind": "triangle", "vertices": [v.as_tuple() for v in shape.vertices()]}
    if isinstance(shape, Polygon):
        return {"kind": "polygon", "points": [p.as_tuple() for p in shape.points]}
    raise TypeError(f"cannot serialise {type(shape).__name__}")


def shape_from_dict(data: dict[str, Any]) -> Shape:
    kind = data.get("kind")
    if kind == "circle":
        return Circle(_point(data["center"]), float(data["radius"]))
    if kind == "rectangle":
        return Rectangle(_point(data["corner"]), float(data["width"]), float(data["height"]))
    if kind == "triangle":
        a, b, c = (_point(v) for v in data["vertices"])
        return Triangle(a, b, c)
    if kind == "polygon":
        return Polygon([_point(p) for p in data["points"]])
    raise ValueError(f"unknown shape kind: {kind!r}")


def dumps(shapes: list[Shape]) -> str:
    return json.dumps({"shapes": [shape_to_dict(s) for s in shapes]}, indent=2)


def loads(text: str) -> list[Shape]:
    document = json.loads(text)
    if not isinstance(document, dict) or "shapes" not in document:
        raise ValueError("expected an object with a 'shapes' list")
    return [shape_from_dict(item) for item in document["shapes"]]


def load_file(filename: str) -> list[Shape]:
    with open(filename, encoding="utf-8") as handle:
        return loads(handle.read())


def save_file(filename: str, shapes: list[Shape]) -> None:
    with open(filename, "w", encoding="utf-8") as handle:
        handle.write(dumps(shapes))
        handle.write("\n")
