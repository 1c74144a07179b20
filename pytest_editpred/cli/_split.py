"""``editpred split [--stratify KEY] [--seed N] [IN] OUT=SIZE...``: Zed's ``ep split``.

The arguments are Zed's: a first argument without ``=`` is the input (a folder of
``.md`` examples or a ``.jsonl`` file; none, or ``-``, reads JSONL from standard
input); each ``OUT=SIZE`` names an output (``.jsonl``: a file; otherwise a folder of
``.md`` files) and its size. The rules are in :mod:`pytest_editpred.corpus._split`.
A bad size, a second ``rest``, sizes that ask for more than the input holds, an
output that is (or is in, or holds) the input, or one that exists (without
``--force``) is one line and exit status 2, before anything is written. An input
that is no example is a problem line (exit status 1) and goes to no output; examples
no output takes (sizes under the whole, no ``rest``: a sample) are one warning line.
Parts that come out far from their sizes
(:attr:`~pytest_editpred.corpus.SplitResult.far`) are one warning line naming every
part, the groups and the largest one, and the exit status stays 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._console import Console

__all__ = ["register", "run"]


def _seed(text: str) -> int:
    """A seed is a whole number from 0 to 2**64 - 1 (Zed's u64)."""
    value = int(text)
    if not 0 <= value < 2**64:
        raise ValueError(text)
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "split",
        help="split examples into named parts (train/test...), keeping a cursor path, project or repo together",
        description=(
            "Split a corpus as Zed's 'ep split' does: examples sharing the --stratify key stay in one "
            "output; groups are shuffled (--seed) and dealt to the outputs in order, each taking whole "
            "groups until it reaches its size; 'rest' takes what is left."
        ),
    )
    parser.add_argument(
        "args",
        metavar="[IN] OUT=SIZE",
        nargs="+",
        help="IN: a folder of .md examples or a .jsonl file (none or '-': JSONL on standard input); "
        "OUT=SIZE: an output (.jsonl: a file, else a folder of .md copies) and its size: P%% (0-100), "
        "a fraction such as 0.2, a count such as 500, or rest (at most one output)",
    )
    parser.add_argument(
        "--stratify",
        choices=("cursor-path", "project", "repo", "none"),
        default="cursor-path",
        help="what stays together: the cursor's file (default), its first path component, the repository "
        "URL, or nothing",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help="seed of the shuffle, 0 to 2**64-1 (default: a random one, printed so the split can be made again)",
    )
    parser.add_argument("--force", action="store_true", help="write over outputs that exist")
    parser.set_defaults(run=run, intermixed="args")


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import ConfigError
    from ..corpus import parse_spec, split

    items: list[str] = list(args.args)
    source: Path | None = None
    if items and "=" not in items[0]:
        source = Path(items.pop(0))
    try:
        specs = [parse_spec(item) for item in items]
    except ConfigError as error:
        console.problem("editpred split", error.reason, error.fix or None)
        return 2
    if source is not None and str(source) != "-" and not source.exists():
        console.problem(str(source), "no such file or folder", "Give a folder of .md examples or a .jsonl file.")
        return 2
    stdin = sys.stdin.buffer.read() if source is None or str(source) == "-" else None
    try:
        result = split(source, specs, stratify=args.stratify, seed=args.seed, force=args.force, stdin=stdin)
    except ConfigError as error:
        console.problem("editpred split", error.reason, error.fix or None)
        return 2
    except OSError as error:
        where = error.filename if isinstance(error.filename, str) else "editpred split"
        console.problem(where, f"cannot read or write it: {error.strerror or error}")
        return 2
    for where, line, message, fix in result.problems:
        console.problem(where, message, fix, line=line)
    console.summary(
        f"Stratifying by {args.stratify} ({result.groups} unique groups, {result.examples} examples), "
        f"seed {result.seed}"
    )
    for path, count in result.written:
        console.summary(f"{path}: {count} example{'s' * (count != 1)}")
    if result.far:
        parts = ", ".join(
            f"{spec.out} {dealt}{f' of {result.examples} examples' if n == 0 else ''} for {spec.size} ({asked})"
            for n, (spec, asked, dealt) in enumerate(zip(specs, result.asked, result.dealt))
        )
        console.warning(
            "editpred split",
            f"the parts are far from their sizes, as whole groups were dealt: {parts}; there are only "
            f"{result.groups} groups by {args.stratify}, the largest of {result.largest} examples",
            "to come nearer: split a corpus with more groups, use --stratify none, or ask for other sizes",
        )
    if result.unassigned:
        many = result.unassigned != 1
        console.warning(
            "editpred split",
            f"{result.unassigned} of the {result.examples} examples go{'es' * (not many)} to no output: the sizes "
            f"({', '.join(map(str, specs))}) add up to less than the whole and no output is rest",
            "to keep them, add an output OUT=rest; to take a sample, this is what was asked",
        )
    return 1 if result.problems else 0
