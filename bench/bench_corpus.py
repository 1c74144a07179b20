"""What building a corpus costs: cutting examples from history, importing a data
set, linting a corpus.

Run by hand: ``python bench/bench_corpus.py`` (``--quick`` for smaller inputs).

1. ``editpred split-commit`` over the real flask history
   (``shared/repos/flask-2fec0b2.bundle`` beside the checkout, all 5,326 commits, 1,638
   of them merges), markdown and ep JSONL: examples written per second, commits read
   per second.
2. ``editpred import nep`` of ten thousand synthetic NEP-style rows (a 40-line
   function each, a rename typed in one line and due in the next): rows per second,
   markdown and JSONL.
3. ``editpred lint`` of a thousand real-size examples: each edits its own 2,000-line
   file cut from the Python standard library's sources, committed into a temporary
   repository (``bench_judge.py``'s example shape), linted cold (the mirror cloned)
   and warm: examples per second. Every example is judged twice (oracle and noop).

Each figure is one run of the installed command in this process, wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judge import URL, example_text, make_repository, stdlib_lines  # noqa: E402

from pytest_editpred.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FLASK = ROOT.parent / "shared" / "repos" / "flask-2fec0b2.bundle"


def quiet(argv: list[str]) -> tuple[int, float, str]:
    """Run ``editpred argv``; its exit status, wall seconds and summary line."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, time.perf_counter() - start, (out.getvalue().strip().splitlines() or [""])[-1]


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
        written, commits = (_count(summary, what) for what in ("examples written", "commits read"))
        print(
            f"split-commit, flask {' '.join(revisions)}, {fmt}: {commits} commits, {written} examples in "
            f"{seconds:.1f} s = {written / seconds:.0f} examples/s, {commits / seconds:.0f} commits/s (exit {code})"
        )


def _count(summary: str, what: str) -> int:
    """The number before ``what`` in a summary line (``... 953 commits read, ...``)."""
    before = summary.split(f" {what}")[0] if f" {what}" in summary else ""
    return int(before.rsplit(" ", 1)[-1]) if before else 0


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
            f"(exit {code}: {summary})"
        )


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
        split_commit(Path(tmp), args.quick)
        import_nep(Path(tmp), args.quick)
        lint(Path(tmp), args.quick)


if __name__ == "__main__":
    main_()
