"""``editpred import FORMAT SOURCE -o DIR``: public next-edit data sets as examples.

Each fixture or row becomes one Zed-format example on the canvas repository
(``datasets.md``), written atomically, never over an existing one without
``--force`` and never through a symbolic link (:mod:`pytest_editpred.corpus._write`);
with ``--force`` the folder is replaced whole. An item whose name gives no file name
(``..``), one too long for a file name, or one an earlier item took, is written
under a safe, bounded or ``-2`` name, said in a warning line. A bad item is one
line on standard error (file, line or row, reason, fix) and the import goes on;
the summary says how many examples were written, how many items were skipped and
how many pieces of items were dropped (the scored edits and retrieved chunks an
example has no place for).

Exit status: 0 when every item was written, 1 when some were skipped (bad items,
examples that exist already), 2 when the source cannot be read or the output cannot
be written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._console import Console

__all__ = ["register"]

_FORMATS = ("copilot-nes", "nep", "crosscodeeval")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="turn a public next-edit data set into Zed-format examples",
        description="Turn a public next-edit data set into Zed-format examples on the canvas repository "
        "(octocat/hello-world, shipped with pytest-editpred, so they run offline). "
        "Run them with: pytest DIR --editpred-provider=...",
    )
    parser.add_argument(
        "format",
        metavar="FORMAT",
        choices=_FORMATS,
        help="the source's format: copilot-nes (a fixture directory with recording.w.json, "
        "or a directory of them), nep or crosscodeeval (a .jsonl file)",
    )
    parser.add_argument("source", metavar="SOURCE", type=Path, help="the fixture directory or .jsonl file to import")
    parser.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        type=Path,
        required=True,
        help="the directory the examples are written to (made when the import is done; never a symbolic link)",
    )
    parser.add_argument(
        "--format",
        dest="output_format",
        choices=("markdown", "jsonl"),
        default="markdown",
        help="one .md file per example (default), or one examples.jsonl in ep's JSON fields",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the output: a folder's old examples are removed (the folder is swapped whole)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    from .._disk import DISK_FULL, NOT_WRITABLE, describe
    from ..corpus import ExampleWriter, Imported, ImportSourceError, OutputRefused, import_examples

    output: Path = args.output
    writer = ExampleWriter(output, args.output_format, force=args.force, rename=True, inputs=[args.source])
    refused = writer.refusal()
    if refused is not None:
        console.problem(str(output), *refused)
        return 2
    written = skipped = dropped = done = 0
    try:
        items = import_examples(args.format, args.source)
        for item in items:
            done += 1
            console.progress(done, None, "importing")
            if not isinstance(item, Imported):
                console.problem(item.where, item.message, item.fix, line=item.line)
                skipped += 1
                continue
            dropped += item.dropped
            renamed = len(writer.renamed)
            try:
                ok = writer.write(item.example, fallback=f"{args.format}-{item.line or done:03d}")
            except OSError as error:
                if error.errno in DISK_FULL | NOT_WRITABLE or not error.errno:
                    raise  # the output as a whole, not this row
                console.problem(
                    item.where,
                    f"not written: {describe(error)}",
                    "Drop the row, or give it another name.",
                    line=item.line,
                )
                skipped += 1
                continue
            if ok:
                written += 1
            else:
                skipped += 1
            for example, path, why in writer.renamed[renamed:]:
                console.warning(item.where, f"{example.name!r} written as {path.name}: {why}", line=item.line)
        writer.close()
    except ImportSourceError as error:
        writer.abort()
        console.problem(str(args.source), error.message, error.fix)
        return 2
    except OSError as error:
        writer.abort()
        message, fix = (
            (error.message, error.fix)
            if isinstance(error, OutputRefused)
            else (f"cannot write the examples: {describe(error)}", "Give -o a writable directory with free space.")
        )
        console.problem(str(output), message, fix)
        return 2
    if args.output_format == "jsonl" and writer.exists and written:
        console.problem(str(writer.exists[-1]), "not written: the file exists", "Use --force to overwrite it.")
        skipped += written
        written = 0
    elif writer.exists:  # an earlier run's examples: one line, not one per file
        many = len(writer.exists)
        console.problem(
            str(writer.exists[0]) if many == 1 else str(output),
            "not written: it exists already"
            if many == 1
            else f"{many} examples not written: they exist already (the first: {writer.exists[0].name})",
            f"Use --force to overwrite {'it' if many == 1 else 'them'}, or another -o directory.",
        )
    noun = "example" if written == 1 else "examples"
    console.summary(
        f"editpred import: {written} {noun} written to {output}, {skipped} skipped, "
        f"{dropped} dropped (scored edits or retrieved context an example has no place for)"
    )
    return 1 if skipped else 0
