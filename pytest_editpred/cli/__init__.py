"""``editpred``: the command that builds, checks and reports corpora.

One command with subcommands, each in its own module here registering its parser
(``register(subparsers)``, which sets ``run(args, console) -> int``). Exit status:
0 on success, 1 when the work found problems (every one printed as a line), 2 on a
usage error (argparse's own) or a file that cannot be read or written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from ._console import Console

__all__ = ["Console", "main"]

#: subcommand module -> its parser is registered by ``register``; imported on start
#: (each imports its heavy parts inside ``run``).
SUBCOMMANDS = (
    "._split_commit",
    "._import",
    "._lint",
    "._split",
    "._truncate_patch",
    "._filter_languages",
    "._prompt",
    "._judge",
    "._repair",
    "._distill",
    "._context",
    "._report",
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="editpred", description="Build, check and report edit-prediction corpora.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        import_module(name, __package__).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["report"]:  # its own parser, options and help, as editpred-report
        from ..reports import report_main

        return report_main(argv[1:], prog="editpred report")
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    # A subcommand whose positionals are a list (``split IN OUT=SIZE...``) takes them on
    # both sides of its options, as a user types them: ``split in --seed 1 a=80% b=rest``.
    intermixed: str | None = getattr(args, "intermixed", None)
    if extra and intermixed is not None and not any(token.startswith("-") for token in extra):
        getattr(args, intermixed).extend(extra)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    run: Callable[[argparse.Namespace, Console], int] = args.run
    try:
        return run(args, Console())
    except KeyboardInterrupt:
        sys.stderr.write("editpred: interrupted\n")
        return 130
