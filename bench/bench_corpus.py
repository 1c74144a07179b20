"""What building a corpus costs, and how much of what it cuts is junk.

Run by hand: ``python bench/bench_corpus.py`` (``--quick`` for smaller inputs;
``--repo PATH=URL`` adds a repository of yours to part 4, repeatable).

1. ``editpred split-commit`` over the real flask history
   (``shared/repos/flask-2fec0b2.bundle`` beside the checkout, all 5,326 commits, 1,638
   of them merges), markdown and ep JSONL: examples written per second, commits read
   per second, and the commits skipped by reason.
2. ``editpred import nep`` of ten thousand synthetic NEP-style rows (a 40-line
   function each, a rename typed in one line and due in the next): rows per second,
   markdown and JSONL.
3. ``editpred lint`` of a thousand real-size examples: each edits its own 2,000-line
   file cut from the Python standard library's sources, committed into a temporary
   repository (``bench_judge.py``'s example shape), linted cold (the mirror cloned)
   and warm: examples per second. Every example is judged twice (oracle and noop).
4. The quality rules on real histories: flask's, this project's own (every clone
   has it), the five real commits of ``shared/repos/split-commit-cases.bundle``, and
   any ``--repo``. For each: what split-commit writes with its rules and what it
   skips, by reason; then what Zed's rules alone write (``--keep all``), and the
   share of those examples each quality rule would have removed, as
   ``editpred lint`` reports them.

Each figure is one run of the installed command in this process, wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judge import URL, example_text, make_repository, stdlib_lines  # noqa: E402

from pytest_editpred.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FLASK = ROOT.parent / "shared" / "repos" / "flask-2fec0b2.bundle"
CASES = FLASK.parent / "split-commit-cases.bundle"


def quiet(argv: list[str]) -> tuple[int, float, str]:
    """Run ``editpred argv``; its exit status, wall seconds and summary (its output)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, time.perf_counter() - start, out.getvalue().strip()


def split_commit(tmp: Path, quick: bool) -> None:
    if not FLASK.exists():
        print(f"split-commit: {FLASK} not found; skipped")
        return
    revisions = ["HEAD~300..HEAD"] if quick else ["HEAD"]
    for fmt in ("markdown", "jsonl"):
        out = tmp / f"split-{fmt}"
        argv = [
            "split-commit",
            str(FLASK),
            *revisions,
            "-o",
            str(out),
            "--url",
            "https://github.com/pallets/flask",
            "--format",
            fmt,
        ]
        code, seconds, summary = quiet(argv)
        counts = _summary(summary)
        written, commits = counts["examples"], counts["read"]
        print(
            f"split-commit, flask {' '.join(revisions)}, {fmt}: {commits} commits, {written} examples in "
            f"{seconds:.1f} s = {written / seconds:.0f} examples/s, {commits / seconds:.0f} commits/s (exit {code})"
        )
    print(f"  {summary.splitlines()[0]}")
    for line in summary.splitlines()[1:]:
        print(f"  {line.strip()}")


def _summary(text: str) -> dict[str, int]:
    """The counts of split-commit's summary's first line."""
    head = re.match(
        r"split-commit: (\d+) commits read: (\d+) written \((\d+) examples?\), (\d+) skipped, (\d+) failed", text
    )
    if head is None:
        raise SystemExit(f"unexpected summary: {text!r}")
    return dict(zip(("read", "written", "examples", "skipped", "failed"), map(int, head.groups())))


def nep_rows(count: int) -> str:
    rng = random.Random(1)
    lines = []
    for i in range(count):
        body = [f"    value_{i}_{j} = compute({j}, {rng.randint(0, 999)})\n" for j in range(40)]
        k = rng.randint(1, 38)
        current = body[:]
        current[k] = current[k].replace("compute", "compute_fast")
        new = current[:]
        new[k + 1] = new[k + 1].replace("compute", "compute_fast")
        head = f"\ndef function_{i}(x):\n"
        row = {
            "commit": f"{i:040x}",
            "message": "m",
            "old_file": f"pkg/m{i}.py",
            "new_file": f"pkg/m{i}.py",
            "status": "M",
            "old_contents": head + "".join(body),
            "current_contents": head + "".join(current),
            "new_contents": head + "".join(new),
            "text": "x",
        }
        lines.append(json.dumps(row) + "\n")
    return "".join(lines)


def import_nep(tmp: Path, quick: bool) -> None:
    count = 1_000 if quick else 10_000
    source = tmp / "nep.jsonl"
    source.write_text(nep_rows(count))
    for fmt in ("markdown", "jsonl"):
        code, seconds, _ = quiet(["import", "nep", str(source), "-o", str(tmp / f"nep-{fmt}"), "--format", fmt])
        print(f"import nep, {count} rows, {fmt}: {seconds:.1f} s = {count / seconds:.0f} rows/s (exit {code})")


def lint(tmp: Path, quick: bool) -> None:
    count = 100 if quick else 1_000
    files = {}
    for i in range(count):
        lines = stdlib_lines(2_000, shift=i)
        lines[0] = f"# file {i}"  # every file distinct
        files[f"m{i:04d}.py"] = "\n".join(lines) + "\n"
    (tmp / "lint").mkdir()
    repo, revision = make_repository(tmp / "lint", files)
    corpus = tmp / "lint-corpus"
    corpus.mkdir()
    for i, (name, text) in enumerate(files.items()):
        (corpus / f"ex{i:04d}.md").write_text(example_text(name, text.split("\n"), revision, 1))
    argv = [
        "lint",
        str(corpus),
        "--editpred-repo",
        f"{URL}={repo}",
        "--editpred-offline",
        "--editpred-cache-dir",
        str(tmp / "lint-cache"),
    ]
    for run in ("cold", "warm"):
        code, seconds, summary = quiet(argv)
        print(
            f"lint, {count} examples of 2,000 lines, {run}: {seconds:.1f} s = {count / seconds:.0f} examples/s "
            f"(exit {code}: {summary.splitlines()[-1]})"
        )


def quality(tmp: Path, quick: bool, extra: list[str]) -> None:
    from pytest_editpred.corpus import RULE_NAMES, LintSettings
    from pytest_editpred.corpus import lint as lint_corpus

    repos = [
        ("flask", FLASK, "https://github.com/pallets/flask", ["HEAD~600..HEAD"] if quick else ["HEAD"]),
        ("pytest-editpred", ROOT, "https://github.com/editpred/pytest-editpred", ["HEAD"]),
        ("split-commit-cases", CASES, "https://example.com/cases", [f"case-{i}^!" for i in range(1, 6)]),
    ]
    for item in extra:
        path, _, url = item.partition("=")
        repos.append((Path(path).name, Path(path), url or f"https://example.com/{Path(path).name}", ["HEAD"]))
    for name, path, url, revisions in repos:
        if not (path / ".git").exists() and not path.is_file() and not (path / "HEAD").exists():
            print(f"quality, {name}: {path} is not a repository; skipped")
            continue
        for keep in ([], ["--keep", "all"]):
            out = tmp / f"quality-{name}-{'zed' if keep else 'rules'}"
            argv = ["split-commit", str(path), *revisions, "-o", str(out), "--url", url, "-n", "2", *keep]
            code, seconds, summary = quiet(argv)
            counts = _summary(summary)
            label = "Zed's rules alone (--keep all)" if keep else "with the quality rules"
            print(
                f"quality, {name}, {label}: {counts['read']} commits, {counts['examples']} examples ({seconds:.1f} s)"
            )
            for line in summary.splitlines()[1:]:
                print(f"    {line.strip()}")
        settings = LintSettings(cache_dir=tmp / "lint-cache", mappings={url: path.resolve()}, offline=True)
        result = lint_corpus([out], settings)
        by_rule: dict[str, set[tuple[str, int]]] = {rule: set() for rule in RULE_NAMES}
        junk: set[str] = set()
        errors = 0
        for finding in result.findings:
            if finding.rule is None:
                errors += 1
            else:
                by_rule[finding.rule].add((finding.path, 0))
                junk.add(finding.path)
        total = result.examples or 1
        shares = ", ".join(f"{rule} {100 * len(found) / total:.1f}%" for rule, found in by_rule.items() if found)
        print(
            f"    of the {result.examples} examples Zed's rules write, a quality rule removes "
            f"{100 * len(junk) / total:.1f}%: {shares or 'none'} ({errors} lint errors)"
        )


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--repo", action="append", default=[], metavar="PATH=URL", help="another repository for part 4")
    parser.add_argument("--only", choices=("split-commit", "import", "lint", "quality"), help="one part only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
        if args.only in (None, "split-commit"):
            split_commit(Path(tmp), args.quick)
        if args.only in (None, "import"):
            import_nep(Path(tmp), args.quick)
        if args.only in (None, "lint"):
            lint(Path(tmp), args.quick)
        if args.only in (None, "quality"):
            quality(Path(tmp), args.quick, args.repo)


if __name__ == "__main__":
    main_()
