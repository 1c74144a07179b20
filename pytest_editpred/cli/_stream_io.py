"""The inputs and output of the commands that rewrite or filter examples one by one
(``truncate-patch``, ``filter-languages``): the same arguments, the same refusals,
the same lines (:mod:`pytest_editpred.corpus._stream`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ._console import Console

if TYPE_CHECKING:
    from ..corpus import Item, Output, Problem

__all__ = ["add_io_arguments", "open_output", "read_inputs", "reader_gone", "report", "write_failed"]


def add_io_arguments(parser: Any, *, required: bool = True) -> None:
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="+" if required else "*",
        type=Path,
        help="an example file (.md, .json, .jsonl), a folder walked for them, or - for JSONL on standard input",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="OUT",
        help="where the examples go: a .jsonl file, or else a folder of .md files (default: JSONL on standard "
        "output, as ep prints)",
    )
    parser.add_argument("--force", action="store_true", help="write over an output that exists")


def open_output(args: argparse.Namespace, console: Console) -> Output | None:
    """The output ``-o`` names, or None (one problem line said why) when it exists
    without ``--force`` or is the wrong kind of thing."""
    from ..corpus import Output

    output = Output(args.output, console.out, force=args.force, inputs=args.paths)
    refused = output.refusal()
    if refused is not None:
        console.problem(str(args.output), *refused)
        return None
    return output


def read_inputs(args: argparse.Namespace, stdin: BinaryIO) -> Iterator[Item | Problem]:
    from ..corpus import read_items

    return read_items(args.paths, stdin)


def reader_gone() -> int:
    """The reader of standard output stopped reading (``| head``): stop quietly, as
    a Unix filter does, with what was written (the rest of the output, and Python's
    flush at exit, go nowhere)."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 0


def report(console: Console, problem: Problem) -> None:
    console.problem(problem.where, problem.message, problem.fix, line=problem.line)


def write_failed(args: argparse.Namespace, console: Console, output: Output, error: OSError) -> int:
    """The output could not be written: nothing half-made is left, one line, status 2."""
    output.abort()
    where = error.filename if isinstance(error.filename, str) else str(args.output or "<stdout>")
    console.problem(where, f"cannot write: {error.strerror or error}", "Give -o a place you can write to.")
    return 2
