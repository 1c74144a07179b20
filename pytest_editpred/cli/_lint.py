"""``editpred lint PATH...``: check a corpus the way the plugin would run it.

Every finding is one line ``file:line: message (fix)`` on standard error, so an
editor or CI annotator can jump to it; the last line on standard output counts the
examples and findings. Exit 0 when clean, 1 with findings, 2 for a usage error (a
bad option, a bad ini value, a path that does not exist or is a FIFO, socket,
device or symbolic link loop). Such a thing met inside a folder is skipped unopened,
with a warning line. The work itself is :mod:`pytest_editpred.corpus._lint`.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from ._console import Console

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lint",
        help="check examples: they load, their patches apply, oracle passes, noop fails, no duplicates",
        description=(
            "Check every example under PATH as the plugin would run it, offline and in-process: it loads "
            "within the size limits, its scene rebuilds (repository, revision, uncommitted diff, edit "
            "history, cursor inside its file), every expected and rejected patch applies and changes "
            "something, the rejected patch is not an expected one, the oracle answer passes and the noop "
            "answer fails, and no two examples are the same. Settings are read from the ini file pytest "
            "would use for PATH (editpred_repos, editpred_cache_dir, editpred_offline, ...)."
        ),
    )
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        type=Path,
        help="an example file (.md, .json, .jsonl) or a folder, walked for example files",
    )
    parser.add_argument(
        "--editpred-repo",
        metavar="URL=PATH",
        action="append",
        default=[],
        dest="editpred_repo",
        help="map a repository URL to a local repository or bundle (repeatable; adds to ini editpred_repos)",
    )
    parser.add_argument(
        "--editpred-offline",
        action="store_true",
        dest="editpred_offline",
        help="never touch the network; a revision not in the cache is a finding",
    )
    parser.add_argument(
        "--editpred-cache-dir",
        metavar="DIR",
        dest="editpred_cache_dir",
        help="where repository mirrors are kept (default: ini editpred_cache_dir, $EDITPRED_CACHE_DIR, "
        "or the user cache directory)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import EditPredError
    from ..corpus import find_ini, lint, settings_from, unusable

    refused = [finding for finding in map(unusable, args.paths) if finding is not None]
    for finding in refused:  # a usage error: nothing is checked
        console.problem(finding.path, finding.message, finding.fix)
    if refused:
        return 2
    try:
        ini = find_ini(args.paths)
        settings = settings_from(
            ini, args.editpred_repo, offline=args.editpred_offline, cache_dir=args.editpred_cache_dir
        )
    except EditPredError as error:
        console.problem("editpred lint", error.reason, error.fix or None)
        return 2
    try:
        result = lint(args.paths, settings, progress=lambda done, total: console.progress(done, total, "lint"))
    except EditPredError as error:  # the cache directory itself, for one
        console.problem(error.path or "editpred lint", error.reason, error.fix or None, line=error.line)
        return 2
    for finding in result.skipped:
        console.warning(finding.path, finding.message, finding.fix)
    errors = [finding for finding in result.findings if finding.is_error]
    quality = Counter(finding.rule for finding in result.findings if not finding.is_error)
    for finding in result.findings:
        if finding.is_error:
            console.problem(finding.path, finding.message, finding.fix, line=finding.line)
        else:
            console.warning(finding.path, f"{finding.message} [{finding.rule}]", line=finding.line, label="quality")
    count = len(errors)
    head = (
        f"{result.examples} example{'s' * (result.examples != 1)} in {result.files} "
        f"file{'s' * (result.files != 1)}: " + (f"{count} error{'s' * (count != 1)}" if count else "no errors")
    )
    if quality:
        share = 100 * result.junk / result.examples if result.examples else 0.0
        rules = ", ".join(f"{n} {rule}" for rule, n in sorted(quality.items(), key=lambda item: (-item[1], item[0])))
        head += (
            f"; {result.junk} example{'s' * (result.junk != 1)} ({share:.0f}%) with quality findings ({rules}): "
            "not errors, but junk as next-edit tasks unless meant"
        )
    else:
        head += ", no quality findings"
    console.summary(head + f" ({result.seconds:.1f} s)")
    return 1 if count else 0
