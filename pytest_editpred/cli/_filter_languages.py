"""``editpred filter-languages PATH... -l LANGS | -e EXTS``: Zed's ``ep filter-languages``.

The examples whose cursor file is in one of the languages (or has one of the
extensions) go out unchanged (:mod:`pytest_editpred.corpus._languages`); the
language table is Zed's embedded languages and others a corpus commonly holds
(``--list`` prints it). ``--stats`` counts the examples per language,
``--show-top-excluded N`` names the languages most left out. Like ``truncate-patch``,
the examples go to standard output as JSONL unless ``-o`` names a ``.jsonl`` file or
a folder, and then the counts and the summary go to standard error.
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
        "filter-languages",
        help="keep the examples whose cursor file is in some languages or has some extensions "
        "(Zed's ep filter-languages)",
        description=(
            "Keep the examples whose cursor file is in one of the --languages, or has one of the "
            "--extensions, as Zed's 'ep filter-languages' does. A file's language is found by its extension, "
            "lowercased, else by its whole file name (Makefile, Dockerfile), in the table --list prints: "
            "Zed's embedded languages and others a corpus commonly holds. Kept examples go out unchanged."
        ),
    )
    add_io_arguments(parser, required=False)
    parser.add_argument(
        "-l",
        "--languages",
        metavar="A,B",
        help="languages to keep, by name, without case: rust,python,c++,'shell script' (see --list)",
    )
    parser.add_argument(
        "-e",
        "--extensions",
        metavar="X,Y",
        help="extensions to keep (a leading . is dropped), or whole file names for files without one: py,.rs,makefile",
    )
    parser.add_argument(
        "--include-unknown",
        action="store_true",
        help="keep the examples whose language the table does not know, too",
    )
    parser.add_argument("--list", action="store_true", help="print the table of languages and their suffixes, and stop")
    parser.add_argument("--stats", action="store_true", help="print how many examples each language has, and kept")
    parser.add_argument(
        "--show-top-excluded",
        type=positive_count,
        metavar="N",
        help="print the N languages with the most examples left out",
    )
    parser.set_defaults(run=run)


def _table() -> str:
    from .._languages import LANGUAGES

    width = max(len(language.name) for language in LANGUAGES) + 2
    lines = []
    for title, zed in (("Zed's embedded languages:", True), ("Others a corpus commonly holds:", False)):
        lines.append(title)
        for language in sorted((lang for lang in LANGUAGES if lang.zed == zed), key=lambda lang: lang.name.lower()):
            suffixes = " ".join(language.suffixes) or "(no suffix: only injected into other languages)"
            lines.append(f"  {language.name:<{width}}{suffixes}")
    return "\n".join(lines)


def run(args: argparse.Namespace, console: Console) -> int:
    from ..corpus import LanguageFilter, Problem, parse_list

    if args.list:
        console.summary(_table())
        return 0
    if args.languages is None and args.extensions is None:
        console.problem(
            "editpred filter-languages",
            "no languages or extensions to keep",
            "Give -l/--languages (see --list) or -e/--extensions, or both.",
        )
        return 2
    if not args.paths:
        console.problem("editpred filter-languages", "no examples to filter", "Give files or folders, or - for stdin.")
        return 2
    languages = parse_list(args.languages or "")
    rule = LanguageFilter(
        frozenset(languages), frozenset(parse_list(args.extensions or "", extensions=True)), args.include_unknown
    )
    for name in rule.unknown_names(languages):
        console.warning(
            "editpred filter-languages",
            f"no language is called {name!r}, so it keeps nothing",
            "See --list for the names.",
        )
    output = open_output(args, console)
    if output is None:
        return 2
    read_count = 0
    try:
        for item in read_inputs(args, sys.stdin.buffer):
            if isinstance(item, Problem):
                report(console, item)
                continue
            read_count += 1
            console.progress(read_count, None, "filter-languages")
            if rule.keep(item.example.cursor_path):
                output.add(item)
        output.close()
    except BrokenPipeError:
        return reader_gone()
    except OSError as error:
        return write_failed(args, console, output, error)
    err = args.output is None
    if args.stats:
        console.summary("examples per language (kept of all):", err=err)
        for name, n in sorted(rule.seen.items(), key=lambda item: (-item[1], item[0].lower())):
            console.summary(f"  {name}: {n - rule.excluded[name]} of {n}", err=err)
    if args.show_top_excluded:
        top = sorted(rule.excluded.items(), key=lambda item: (-item[1], item[0].lower()))[: args.show_top_excluded]
        console.summary(f"top {args.show_top_excluded} excluded languages:", err=err)
        for name, n in top:
            console.summary(f"  {name}: {n}", err=err)
    console.summary(
        f"filter-languages: {output.count} of {read_count} example{'s' * (read_count != 1)} kept"
        + (f", to {args.output}" if args.output else ""),
        err=err,
    )
    return 1 if console.problems else 0
