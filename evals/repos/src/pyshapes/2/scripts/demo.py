"""Draw a small scene and print it as SVG."""

from pyshapes import (
    Circle,
    Point,
    Polygon,
    Rectangle,
    Style,
    Triangle,
    render_document,
    rotate,
    translate,
)


def scene() -> list:
    house = Rectangle(Point(0, 0), 40, 30)
    roof = Triangle(Point(0, 30), Point(40, 30), Point(20, 50))
    sun = Circle(Point(70, 60), 8)
    door = Rectangle(Point(16, 0), 8, 14)
    tree = Circle(Point(-20, 20), 10)
    window = Polygon.regular(Point(30, 20), 4, 6)
    return [house, roof, sun, door, window, translate(tree, -5, 0), rotate(door, 180)]


def main() -> None:
    shapes = scene()
    for shape in shapes:
        print(shape.describe())
    print(render_document(shapes, Style(stroke="#333")))


if __name__ == "__main__":
    main()
