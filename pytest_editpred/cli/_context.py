"""``editpred context PATH... -o OUT [--type T,...] [--force]``: Zed's ``ep context``.

Writes the examples as ep JSONL with ``prompt_inputs.related_files`` retrieved
(:func:`pytest_editpred.corpus.with_context`), so a team retrieves once and commits
the result: every later run, and Zed's own ``ep``, reads those related files and
needs no language server. ``--type`` and ``--force`` mean what they mean to ``ep
context`` (``--force``: retrieve for an example that has related files too); an
output that exists is written over only with ``--overwrite`` (the other commands'
``--force``, renamed here because ``ep`` gave ``--force`` its meaning first).

Settings are a run's: the ini file pytest would find for the examples
(``editpred_repos``, ``editpred_cache_dir``; ``editpred_response_cache_dir`` and
``editpred_cache`` to use the run's context cache), overridden by the options.
Exit 0 when every example was written, 1 when some could not be (each one line), 2
for a usage error or an output that cannot be written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ._args import add_run_options
from ._console import Console
from ._stream_io import reader_gone, report

__all__ = ["register", "run"]

#: The run's options this command takes, as ``pytest --editpred-<name>`` takes them.
TAKEN = ("repo", "cache_dir", "response_cache_dir", "cache", "max_example_bytes")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "context",
        help="write the examples as ep JSONL with their related files retrieved (Zed's ep context)",
        description=(
            "Retrieve each example's related files as Zed's 'ep context' does (default: --type lsp, the "
            "definitions the language servers find near the cursor) and write the examples as ep JSONL with "
            "prompt_inputs.related_files filled. An example that has related_files (even []) keeps them "
            "unless --force. Repositories come from the cache or the mappings of the ini file; nothing is "
            "fetched."
        ),
    )
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        type=Path,
        help="an example file (.md, .json, .jsonl), a folder walked for them, or - for JSONL on standard input",
    )
    parser.add_argument(
        "-o", "--output", type=Path, metavar="OUT", help="the .jsonl file to write (default: standard output)"
    )
    parser.add_argument(
        "--type",
        dest="types",
        action="append",
        metavar="T,...",
        help="sources, as ep context's --type: lsp, current-file, edit-history, edit-history-file, git-log, "
        "bm25, oracle-file, oracle-snippet, editable, all, none (comma-separated, repeatable; default lsp)",
    )
    parser.add_argument(
        "-f", "--force", action="store_true", help="retrieve for examples that have related files too (ep's --force)"
    )
    parser.add_argument("--overwrite", action="store_true", help="write over an output file that exists")
    add_run_options(parser, TAKEN)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import ConfigError
    from ..corpus import Output, Problem, read_items, with_context
    from ..retrieval import ContextRetriever

    where = "editpred context"
    if args.output is not None and args.output.suffix.lower() != ".jsonl":
        console.problem(
            str(args.output), "is not a .jsonl file", "Name a .jsonl file: markdown has no place for related files."
        )
        return 2
    try:
        cache_dir, mappings, response_cache, mode = _settings(args)
        retriever = ContextRetriever(args.types or (), cache_dir=response_cache, cache_mode=mode)
    except ConfigError as error:
        console.problem(error.path or where, f"--type: {error.reason}" if args.types else error.reason, error.fix)
        return 2
    output = Output(args.output, console.out, force=args.overwrite)
    refused = output.refusal()
    if refused is not None:
        reason, fix = refused
        console.problem(str(args.output), reason, fix.replace("--force", "--overwrite"))
        return 2
    read = written = 0
    try:
        items = read_items(args.paths, sys.stdin.buffer)
        for item in with_context(items, retriever, cache_dir, mappings, force=args.force):
            if isinstance(item, Problem):
                report(console, item)
                continue
            read += 1
            console.progress(read, None, "context")
            output.add(item)
            written += 1
        output.close()
    except BrokenPipeError:
        return reader_gone()
    except OSError as error:
        place = error.filename if isinstance(error.filename, str) else str(args.output or "<stdout>")
        console.problem(place, f"cannot write: {error.strerror or error}", "Give -o a place you can write to.")
        return 2
    finally:
        retriever.close()
    for message in retriever.messages:
        console.warning(where, message)
    console.summary(
        f"context: {written} example{'s' * (written != 1)} written" + (f" to {args.output}" if args.output else ""),
        err=args.output is None,
    )
    return 1 if console.problems else 0


def _settings(args: argparse.Namespace) -> tuple[Path, dict[str, Path], Path | None, str]:
    """The repository cache, the URL mappings and the response cache (its folder,
    None without one, and mode) of a run over these examples."""
    from .._options import IniOptions, get, repo_cache_dir, repo_mappings
    from ..corpus import find_ini

    files = [path for path in args.paths if str(path) != "-"]
    ini = find_ini(files)
    if ini.path is not None:
        root = ini.path.parent
    else:
        root = Path(os.path.commonpath([os.path.abspath(path.parent) for path in files])) if files else Path.cwd()
    source = IniOptions(option=args, inipath=ini.path, rootpath=root, ini=ini.values)
    folder = get(source, "response_cache_dir")
    response_cache = (root / Path(folder).expanduser()).resolve() if folder else None
    return repo_cache_dir(source), repo_mappings(source), response_cache, get(source, "cache")
