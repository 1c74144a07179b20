"""``editpred truncate-patch PATH... --num-groups N``: Zed's ``ep truncate-patch``.

Each example's first expected patch is cut to its first N ``///`` groups
(:mod:`pytest_editpred.corpus._truncate`); the examples are printed as JSONL, one a
line, as Zed prints them, or written to ``-o`` (a ``.jsonl`` file, or a folder of
``.md`` files). An example that does not load is one problem line (file, line, fix)
and is not written; one with no expected patch, which Zed's ``ep`` panics on, is one
warning line and goes out unchanged. When the examples go to standard output, the
summary goes to standard error, so the output stays JSONL.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._args import positive_count
from ._console import Console
from ._stream_io import add_io_arguments, open_output, read_inputs, reader_gone, report, write_failed

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "truncate-patch",
        help="cut each example's expected patch to its first N /// groups of edits (Zed's ep truncate-patch)",
        description=(
            "Cut the first expected patch of each example to its first N groups of edits, as Zed's "
            "'ep truncate-patch' does: hunks are kept in order until N hunks holding a '///' group banner "
            "have been kept; the header and every '//' line are dropped; every hunk gets its own file header. "
            "An expected cursor line stays with its hunk. Examples with no expected patch go out unchanged."
        ),
    )
    parser.add_argument(
        "--num-groups",
        type=positive_count,
        required=True,
        metavar="N",
        help="the number of /// groups to keep (1 or more)",
    )
    parser.add_argument(
        "--current-file-only",
        action="store_true",
        help="keep only the hunks of the cursor's file (the other files' hunks still count toward the groups)",
    )
    add_io_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    from ..corpus import Problem, truncate_patch

    output = open_output(args, console)
    if output is None:
        return 2
    read = cut = unchanged = lost = 0
    try:
        for item in read_inputs(args, sys.stdin.buffer):
            if isinstance(item, Problem):
                report(console, item)
                continue
            read += 1
            console.progress(read, None, "truncate-patch")
            patches = item.example.expected_patches
            if not patches:
                console.warning(
                    str(item.path),
                    f"{item.example.name or 'the example'} has no expected patch to truncate: written unchanged",
                    "Give it an expected patch, or leave it out of the input.",
                    line=item.line,
                )
                unchanged += 1
                output.add(item)
                continue
            path = item.example.cursor_path if args.current_file_only else None
            result = truncate_patch(patches[0], args.num_groups, path)
            lost += result.lost_cursor
            cut += 1
            output.add(item.with_expected_patches((result.patch, *patches[1:])))
        output.close()
    except BrokenPipeError:
        return reader_gone()
    except OSError as error:
        return write_failed(args, console, output, error)
    line = (
        f"truncate-patch: {read} example{'s' * (read != 1)} read, {output.count} written "
        f"({cut} truncated to {args.num_groups} group{'s' * (args.num_groups != 1)}, {unchanged} without an "
        f"expected patch)"
    )
    if lost:
        line += f"; {lost} expected cursor{'s' * (lost != 1)} cut with {'their hunks' if lost != 1 else 'its hunk'}"
    console.summary(line + (f", to {args.output}" if args.output else ""), err=args.output is None)
    return 1 if console.problems else 0
