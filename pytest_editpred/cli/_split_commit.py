"""``editpred split-commit REPO [REVISIONS] -o DIR``: examples cut out of real commits.

Zed's ``ep split-commit`` (zed-authoring-and-context.md §1) read straight from git:
each non-merge commit of the range is split into an edit history (the first edits)
and an expected patch (the rest), with a half-typed line and a cursor as Zed makes
them. Junk is kept out by named quality rules (``--keep`` turns one off); every
example is checked before it is written. The summary accounts for every commit:
read = written + skipped by reason + failed by reason, and a failure (an example
that would not load) is a problem line and exit status 1.
"""

from __future__ import annotations

import argparse
import os
import textwrap
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from ._args import positive_count
from ._console import Console

__all__ = ["register", "run"]


def _epilog() -> str:
    from ..corpus import COMMIT_REASONS, FILE_REASONS, RULES

    def block(title: str, rows: Any) -> str:
        lines = [title]
        for name, what in rows:
            lines.extend(
                textwrap.wrap(
                    what,
                    100,
                    initial_indent=f"  {name:<20}",
                    subsequent_indent=" " * 22,
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
        return "\n".join(lines)

    return "\n\n".join(
        (
            block(
                "quality rules (on unless --keep NAME; lint reports them on any corpus):",
                [(r.name, r.what) for r in RULES],
            ),
            block("files left out of a commit's diff (an example cannot hold them):", FILE_REASONS),
            block("commits and splits skipped:", COMMIT_REASONS),
            "A commit whose example would not load is 'failed': a problem line naming it (report it), exit status 1.",
        )
    )


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "split-commit",
        help="cut edit-prediction examples out of a repository's commits (Zed's ep split-commit)",
        description=textwrap.fill(
            "Split each non-merge commit of REVISIONS into an edit history and an expected patch, as Zed's "
            "`ep split-commit` does, and write one example per split. Junk is left out by the quality rules "
            "below; every commit read is written, skipped for a named reason, or failed.",
            100,
        ),
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("repo", metavar="REPO", help="a git repository (working or bare) or a .bundle file")
    parser.add_argument(
        "revisions",
        metavar="REVISIONS",
        nargs="*",
        help="revisions as git log takes them, before or after the options (default: the newest 100 "
        "commits of HEAD); SHA^! is one commit, A..B a range",
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
        type=positive_count,
        default=1,
        metavar="N",
        help="examples per commit, each from seed+i (default 1, at most 1000); identical ones are dropped",
    )
    parser.add_argument(
        "--split",
        default=None,
        metavar="POINT",
        help="where to split: a fraction of the edits (0.5), an edit index (3), a kind "
        "(fim, same-file-near, same-file-far, cross-file) or kind:value; "
        "default: a random split, as Zed draws it (drawn again when a rule skips it, 10 draws in all)",
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
        "--keep",
        action="append",
        default=[],
        metavar="RULE",
        type=_rule,
        help="keep what a quality rule would leave out or skip (repeatable; 'all' turns every rule off, "
        "as Zed's ep does): see the rules below",
    )
    parser.add_argument(
        "--format",
        dest="fmt",
        choices=("markdown", "jsonl"),
        default="markdown",
        help="one .md per example (default) or ep JSONL lines",
    )
    parser.add_argument("--force", action="store_true", help="overwrite examples that exist already")
    parser.set_defaults(run=run, intermixed="revisions")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid seed '{text}': give a whole number from 0 to 2**64-1") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"invalid seed '{text}': give a whole number from 0 to 2**64-1")
    return value


def _rule(text: str) -> str:
    from ..corpus import RULE_NAMES

    if text != "all" and text not in RULE_NAMES:
        raise argparse.ArgumentTypeError(f"invalid rule '{text}': give one of {', '.join(RULE_NAMES)}, or all")
    return text


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


def _write(writer: Any, example: Any, sha: str) -> bool:
    """Write ``example``; a name an earlier commit's example took (two shas with one
    8-digit prefix, as a large history has) is made unique with 16 digits of the sha."""
    clashes = len(writer.clashes)
    if writer.write(example):
        return True
    if len(writer.clashes) == clashes:
        return False
    written: bool = writer.write(replace(example, name=example.name.replace(sha[:8], sha[:16], 1)))
    return written


def _counts(counter: Counter[str]) -> str:
    from ..corpus import order

    return ", ".join(f"{counter[k]} {k}" for k in sorted(counter, key=order) if counter[k])


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import EditPredError, GitError
    from ..corpus import (
        DEFAULT_MAX_COUNT,
        RULE_NAMES,
        ExampleWriter,
        Options,
        check_revisions,
        default_revisions,
        list_commits,
        open_repository,
        parse_split_point,
        read_diffs,
        split_commit,
    )
    from ..corpus.split_commit import MAX_SAMPLES, Commit

    try:
        point = parse_split_point(args.split) if args.split is not None else None
    except EditPredError as error:
        console.problem("--split", error.reason, error.fix)
        return 2
    if args.samples > MAX_SAMPLES:
        console.problem(
            "-n",
            f"{args.samples} examples per commit is more than {MAX_SAMPLES}",
            f"Give -n from 1 to {MAX_SAMPLES}: further draws of a commit's splits only repeat examples already made.",
        )
        return 2
    try:
        repo = open_repository(args.repo)
    except EditPredError as error:
        console.problem(args.repo, error.reason.removeprefix(f"{args.repo}: "), error.fix)
        return 2
    kept = set(RULE_NAMES) if "all" in args.keep else set(args.keep)
    with repo:
        url = args.url or (repo.origin and _strip_credentials(repo.origin))
        if not url:
            what = "a bundle has no origin URL" if repo.temporary is not None else "the repository has no origin remote"
            console.problem(args.repo, f"{what} to name in the examples", "Give the repository's URL with --url URL.")
            return 2
        try:
            check_revisions(args.revisions)
            revisions = args.revisions or default_revisions(repo)
            commits = list_commits(repo, revisions, None if args.revisions else DEFAULT_MAX_COUNT)
        except EditPredError as error:
            console.problem(args.repo, error.reason.removeprefix(f"{args.repo}: "), error.fix)
            return 2
        writer = ExampleWriter(args.output, args.fmt, force=args.force)
        refused = writer.refusal()  # a link, a file for a folder, --force over an input: before any work
        if refused is not None:
            console.problem(str(args.output), *refused)
            return 2
        # A folder of .md files is made when the first example is written (beside its
        # place, then renamed in); a JSONL file's folder is made only now: a usage error
        # leaves no empty folder either way.
        problem = _writable(args.output, args.fmt) if args.fmt == "jsonl" else None
        if problem is not None:
            console.problem(
                str(args.output), f"cannot write the examples here: {problem}", "Give -o a directory you can write to."
            )
            return 2
        options = Options(
            point=point or Options().point,
            samples=args.samples,
            seed=args.seed,
            url=url,
            fmt=args.fmt,
            rules=frozenset(RULE_NAMES) - kept,
        )
        shallow = repo.shallow()
        outcomes: Counter[str] = Counter()
        skipped: Counter[str] = Counter()
        failed: Counter[str] = Counter()
        dropped: Counter[str] = Counter()  # samples of written commits that gave no example
        left_out: Counter[str] = Counter()
        examples = 0
        read = 0
        seen: set[bytes] = set()  # the key of every example written
        diffed = [entry for entry in commits if len(entry) == 2]  # one parent: the rest need no diff
        diffs = read_diffs(repo, diffed)
        try:
            for entry in commits:
                commit = next(diffs) if len(entry) == 2 else Commit(entry[0], entry[1:])
                if commit.sha != entry[0]:
                    raise GitError(f"git diff-tree gave {commit.sha} where {entry[0]} was asked for")
                read += 1
                where = f"split-commit: commit {read}/{len(commits)}, samples"

                def progress(done: int, where: str = where) -> None:
                    console.progress(done, args.samples, where)

                result = split_commit(repo, commit, options, shallow, progress)
                left_out.update(result.left_out)
                for reason, message in result.failures:
                    failed[reason] += 1
                    console.problem(
                        f"{args.repo}@{commit.sha[:12]}",
                        message,
                        "Report it: split-commit made an example that would not load; nothing was written for it.",
                    )
                fresh = []
                for example, key in zip(result.examples, result.keys):  # the same moment twice (a cherry-pick)
                    if key in seen:
                        result.skipped["duplicate"] += 1
                    else:
                        seen.add(key)
                        fresh.append(example)
                written_here = [example for example in fresh if _write(writer, example, commit.sha)]
                examples += len(written_here)
                if result.outcome == "failed":
                    outcomes["failed"] += 1
                elif written_here:
                    outcomes["written"] += 1
                    dropped.update(result.skipped)
                elif fresh:
                    outcomes["skipped"] += 1
                    skipped["exists"] += 1
                else:
                    outcomes["skipped"] += 1
                    skipped[result.reason] += 1
                console.progress(read, len(commits), "split-commit: commits")
            writer.close()
        except EditPredError as error:
            writer.abort()
            console.problem(args.repo, error.reason, error.fix)
            return 2
        except OSError as error:
            writer.abort()
            console.problem(
                str(args.output), f"cannot write: {error.strerror or error}", "Give -o a directory you can write to."
            )
            return 2
    if writer.exists:
        many = len(writer.exists)
        console.problem(
            str(writer.exists[0]) if many == 1 else str(args.output),
            "exists already" if many == 1 else f"{many} examples exist already (the first: {writer.exists[0].name})",
            f"Use --force to overwrite {'it' if many == 1 else 'them'}, or another -o directory.",
        )
        if args.fmt == "jsonl":  # one file, refused whole: no commit was written
            skipped["exists"] += outcomes.pop("written", 0)
            outcomes["skipped"] = sum(skipped.values())
            examples = 0
    lines = [
        f"split-commit: {read} commits read: {outcomes['written']} written ({examples} example"
        f"{'s' * (examples != 1)}), {outcomes['skipped']} skipped, {outcomes['failed']} failed"
    ]
    if skipped:
        lines.append(f"  skipped: {_counts(skipped)}")
    if failed:
        lines.append(f"  failed: {_counts(failed)} (each named above)")
    if dropped:
        lines.append(f"  samples not written, of written commits: {_counts(dropped)}")
    if left_out:
        lines.append(f"  files left out of the diffs: {_counts(left_out)}")
    console.summary("\n".join(lines))
    return 1 if console.problems else 0
