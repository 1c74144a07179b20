"""What a 2-line edit in a huge file costs ``editpred split-commit`` in memory.

Run by hand: ``python bench/bench_split_commit_memory.py`` (``--mb 120`` by default;
``--unbounded`` also runs the same steps with the file-size limit lifted, as before
it: the file is read, decoded and searched whole). On a 2-core machine: 120 MB,
26 MB peak and 0.4 s (the file left out unread); unbounded at 30 MB, 153 MB and 2.8 s.

A temporary repository gets one commit of a Python file of ``--mb`` megabytes and one
that changes two of its lines beside a small file's edit. Each run is a fresh Python
process running the command (or, unbounded, the same steps with ``max_file_bytes``
lifted); it prints its own peak resident memory (``ru_maxrss``) and wall time, and
the summary line, so the figure is the command's alone, git's processes apart.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

CHILD = textwrap.dedent(
    """
    import resource, sys, time
    from pathlib import Path
    started = time.perf_counter()
    if sys.argv[1] == "command":
        from pytest_editpred.cli import main
        status = main(["split-commit", sys.argv[2], "-o", sys.argv[3], "--url", "https://x/huge"])
    else:
        from pytest_editpred.corpus.split_commit import (
            Options, list_commits, open_repository, read_diffs, split_commit,
        )
        with open_repository(sys.argv[2]) as repo:
            commits = [c for c in list_commits(repo, ["HEAD"]) if len(c) == 2]
            for commit in read_diffs(repo, commits, max_file_bytes=10**12):
                result = split_commit(repo, commit, Options(url="https://x/huge"))
                print(f"{len(result.examples)} examples, skipped {dict(result.skipped)}")
        status = 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"status {status}, peak {peak:,.0f} MB, {time.perf_counter() - started:.1f} s")
    """
)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args], cwd=cwd, check=True)


def write_rows(path: Path, count: int, changed: dict[int, str]) -> None:
    """The big file, written a block at a time: this process must not hold it (a
    child inherits its parent's peak memory figure across exec on Linux)."""
    with path.open("w") as file:
        for start in range(0, count, 100_000):
            rows = range(start, min(start + 100_000, count))
            file.write("".join(changed.get(i) or f"value_{i:08} = {i:08}\n" for i in rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=120, help="size of the big file in MB (default 120)")
    parser.add_argument("--unbounded", action="store_true", help="also run with the file-size limit lifted")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-huge-") as folder:
        repo = Path(folder, "repo")
        repo.mkdir()
        git(repo, "init", "-q")
        count = args.mb * 1_000_000 // 26  # 26 bytes a row
        write_rows(repo / "huge.py", count, {})
        (repo / "small.py").write_text("".join(f"small_{i} = {i}\n" for i in range(12)))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "huge")
        write_rows(repo / "huge.py", count, {10: "value_10 = 'ten'\n", count // 2: "value_half = 'half'\n"})
        (repo / "small.py").write_text("".join(f"small_{i} = {i * 10 if i in (2, 6) else i}\n" for i in range(12)))
        git(repo, "commit", "-q", "-am", "two lines")
        size = (repo / "huge.py").stat().st_size
        print(f"a 2-line edit in a file of {size / 1e6:,.0f} MB")
        runs = ["command"] + (["unbounded"] if args.unbounded else [])
        for run in runs:
            out = Path(folder, f"out-{run}")
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, run, str(repo), str(out)], capture_output=True, text=True, check=False
            )
            print(f"  {run}: " + " | ".join(line for line in (proc.stdout + proc.stderr).splitlines() if line))


if __name__ == "__main__":
    main()
