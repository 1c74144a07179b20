"""Command line: ``pyshapes info FILE`` and ``pyshapes svg FILE -o OUT``."""

from __future__ import annotations

import argparse
import sys

from .io import load_file
from .svg import render_document
from .units import Unit, convert, format_length, parse_unit


def _info(args: argparse.Namespace) -> int:
    shapes = load_file(args.file)
    unit = parse_unit(args.unit)
    total = 0.0
    for shape in shapes:
        area = shape.area()
        total += area
        print(f"{shape.kind:<10} area={area:10.2f} perimeter={shape.perimeter():10.2f}")
    length = convert(total, Unit.MILLIMETRE, unit)
    print(f"{len(shapes)} shapes, total area {format_length(length, unit)}^2")
    return 0


def _svg(args: argparse.Namespace) -> int:
    shapes = load_file(args.file)
    document = render_document(shapes, stroke=args.stroke)
    if args.output == "-":
        sys.stdout.write(document)
    else:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(document)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pyshapes")
    commands = parser.add_subparsers(dest="command", required=True)

    info = commands.add_parser("info", help="print areas and perimeters")
    info.add_argument("file")
    info.add_argument("--unit", default="mm")
    info.set_defaults(run=_info)

    svg = commands.add_parser("svg", help="render the shapes as SVG")
    svg.add_argument("file")
    svg.add_argument("-o", "--output", default="-")
    svg.add_argument("--stroke", default="black")
    svg.set_defaults(run=_svg)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (OSError, ValueError) as error:
        print(f"pyshapes: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
