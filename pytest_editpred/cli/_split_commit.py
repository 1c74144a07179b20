"""``editpred split-commit REPO [REVISIONS] -o DIR``: examples cut out of real commits.

Zed's ``ep split-commit`` (zed-authoring-and-context.md §1) read straight from git:
each non-merge commit of the range is split into an edit history (the first edits)
and an expected patch (the rest), with a half-typed line and a cursor as Zed makes
them. Every example is checked before it is written, so the corpus passes with the
``oracle`` provider and fails with ``noop``; what cannot become an example is
counted in the summary, and an example that would not load is a problem line.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path
from typing import Any

from ._console import Console

__all__ = ["register", "run"]

_SKIP_ORDER = (
    "merge",
    "root commit",
    "do-nothing target",
    "binary",
    "symlink",
    "CRLF",
    "non-UTF-8",
    "no final newline",
    "service files only",
    "too big",
    "submodule",
    "no edits",
    "no split of that kind",
    "other kind",
    "no cursor excerpt",
    "cursor on a last line without newline",
    "duplicate",
    "exists",
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "split-commit",
        help="cut edit-prediction examples out of a repository's commits (Zed's ep split-commit)",
        description="Split each non-merge commit of REVISIONS into an edit history and an expected patch, "
        "as Zed's `ep split-commit` does, and write one example per split.",
    )
    parser.add_argument("repo", metavar="REPO", help="a git repository (working or bare) or a .bundle file")
    parser.add_argument(
        "revisions",
        metavar="REVISIONS",
        nargs="*",
        help="revisions as git log takes them (default: the newest 100 commits of HEAD); "
        "SHA^! is one commit, A..B a range",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=Path,
        metavar="DIR",
        help="directory for the examples (created if missing); with --format jsonl, "
        "a file or a directory (DIR/examples.jsonl)",
    )
    parser.add_argument(
        "-n",
        dest="samples",
        type=_positive,
        default=1,
        metavar="N",
        help="examples per commit, each from seed+i (default 1); identical ones are dropped",
    )
    parser.add_argument(
        "--split",
        default=None,
        metavar="POINT",
        help="where to split: a fraction of the edits (0.5), an edit index (3), a kind "
        "(fim, same-file-near, same-file-far, cross-file) or kind:value; "
        "default: a random split, as Zed draws it",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        default=0,
        metavar="N",
        help="random seed (default 0); the same seed and inputs give the same bytes",
    )
    parser.add_argument(
        "--url",
        default=None,
        metavar="URL",
        help="repository_url of the examples (default: the repository's origin URL; "
        "required for a bundle or a repository without origin)",
    )
    parser.add_argument(
        "--format",
        dest="fmt",
        choices=("markdown", "jsonl"),
        default="markdown",
        help="one .md per example (default) or ep JSONL lines",
    )
    parser.add_argument("--force", action="store_true", help="overwrite examples that exist already")
    parser.set_defaults(run=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid count '{text}': give a whole number of 1 or more") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid count '{text}': give a whole number of 1 or more")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid seed '{text}': give a whole number from 0 to 2**64-1") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"invalid seed '{text}': give a whole number from 0 to 2**64-1")
    return value


def _strip_credentials(url: str) -> str:
    """An origin URL's ``user:password@`` is never written into examples."""
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest.split("/", 1)[0]:
        return f"{scheme}://{rest.split('@', 1)[1]}"
    return url


def _writable(out: Path, fmt: str) -> str | None:
    """Why ``out`` cannot receive the examples, or None (the directory is made)."""
    folder = out.parent if fmt == "jsonl" and out.suffix else out
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return error.strerror or str(error)
    if not folder.is_dir():
        return "not a directory"
    if not os.access(folder, os.W_OK | os.X_OK):
        return "not writable"
    return None


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import EditPredError
    from ..corpus import (
        DEFAULT_MAX_COUNT,
        ExampleWriter,
        Options,
        RepositoryError,
        check_revisions,
        count_commits,
        default_revisions,
        open_repository,
        parse_split_point,
        read_commits,
        split_commit,
    )

    try:
        point = parse_split_point(args.split) if args.split is not None else None
    except EditPredError as error:
        console.problem("--split", error.reason, error.fix)
        return 2
    problem = _writable(args.output, args.fmt)
    if problem is not None:
        console.problem(
            str(args.output), f"cannot write the examples here: {problem}", "Give -o a directory you can write to."
        )
        return 2
    try:
        repo = open_repository(args.repo)
    except EditPredError as error:
        console.problem(args.repo, error.reason.removeprefix(f"{args.repo}: "), error.fix)
        return 2
    with repo:
        url = args.url or (repo.origin and _strip_credentials(repo.origin))
        if not url:
            what = "a bundle has no origin URL" if repo.temporary is not None else "the repository has no origin remote"
            console.problem(args.repo, f"{what} to name in the examples", "Give the repository's URL with --url URL.")
            return 2
        try:
            check_revisions(args.revisions)
            revisions = args.revisions or default_revisions(repo)
            limit = None if args.revisions else DEFAULT_MAX_COUNT
            total = count_commits(repo, revisions, limit)
        except RepositoryError as error:
            console.problem(args.repo, error.reason.removeprefix(f"{args.repo}: "), error.fix)
            return 2
        options = Options(point=point or Options().point, samples=args.samples, seed=args.seed, url=url, fmt=args.fmt)
        writer = ExampleWriter(args.output, args.fmt, force=args.force)
        skipped: Counter[str] = Counter()
        commits = written = 0
        try:
            for commit in read_commits(repo, revisions, limit):
                commits += 1
                result = split_commit(repo, commit, options)
                skipped.update(result.skipped)
                for message in result.problems:
                    console.problem(
                        f"{args.repo}@{commit.sha[:12]}",
                        message,
                        "Report it: split-commit made an example that would not load.",
                    )
                for example in result.examples:
                    if writer.write(example):
                        written += 1
                    else:
                        skipped["exists"] += 1
                        console.problem(
                            str(writer.path_for(example)),
                            "exists already",
                            "Use --force to overwrite it, or another -o directory.",
                        )
                console.progress(commits, total, "split-commit: commits")
            before = len(writer.exists)
            writer.close()
            if len(writer.exists) > before:
                skipped["exists"] += 1
                console.problem(
                    str(writer.exists[-1]), "exists already", "Use --force to overwrite it, or another -o directory."
                )
                written = 0
        except EditPredError as error:
            console.problem(args.repo, error.reason, error.fix)
            return 2
        except OSError as error:
            console.problem(
                str(args.output), f"cannot write: {error.strerror or error}", "Give -o a directory you can write to."
            )
            return 2
    reasons = ", ".join(f"{skipped[k]} {k}" for k in sorted(skipped, key=_order) if skipped[k])
    total_skipped = sum(skipped.values())
    console.summary(
        f"split-commit: {commits} commits read, {written} examples written, "
        f"{total_skipped} skipped" + (f" ({reasons})" if reasons else "")
    )
    return 1 if console.problems else 0


def _order(reason: str) -> tuple[int, str]:
    return (_SKIP_ORDER.index(reason) if reason in _SKIP_ORDER else len(_SKIP_ORDER), reason)
