"""Benchmark of the repository cache (run by hand: ``python bench/bench_repository.py``).

Builds a repository of 20,000 files in a temporary directory, then prints:

* cold ``open()``: cloning the mirror from a mapped local repository, from a bundle,
  and blobless from a loopback HTTP server;
* ``read()``: the first read at a revision (walks and parses trees) and warm reads;
* ``apply_diff()`` of a one-line diff;
* one ``git worktree add`` of the revision (``Repository.worktree``).

Not a test: it asserts nothing but the contents it reads.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gitrepos import make_bare, make_bundle, make_repo, serve_http

from pytest_editpred.scene import RepositoryCache

FILES = 20_000
URL = "https://example.com/bench/big"
T = TypeVar("T")


def timed(action: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = action()
    return result, (time.perf_counter() - started) * 1000


def content(i: int) -> str:
    return "".join(f"# file {i}, line {line}\nvalue_{line} = {i * line}\n" for line in range(20))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="editpred-bench-") as scratch:
        root = Path(scratch)
        files = {f"pkg{i // 100:03d}/module_{i:05d}.py": content(i) for i in range(FILES)}
        print(f"building a repository of {FILES:,} files ...", flush=True)
        (source, [sha]), build_ms = timed(lambda: make_repo(root, files, name="big"))
        print(f"  built in {build_ms / 1000:.1f} s")
        bundle = make_bundle(root, source)
        served = root / "served"
        served.mkdir()
        make_bare(served, source, "big.git")

        print("cold open() (clone into an empty cache):")
        for label, mapping in (("mapped working repo", source), ("mapped bundle", bundle)):
            with RepositoryCache(root / f"cache-{label.split()[1]}", {URL: mapping}) as cache:
                _, ms = timed(lambda: cache.open(URL))
                print(f"  {label:<22} {ms:8.1f} ms")
        with serve_http(served) as server, RepositoryCache(root / "cache-http") as cache:
            repo, ms = timed(lambda: cache.open(server.url("big.git")))
            print(f"  {'HTTP, blobless':<22} {ms:8.1f} ms")
            _, ms = timed(lambda: repo.read(sha, "pkg000/module_00000.py"))
            print(f"  first read over HTTP   {ms:8.1f} ms  (fetches one blob)")

        with RepositoryCache(root / "cache-working", {URL: source}) as cache:
            repo = cache.open(URL)
            _, ms = timed(lambda: cache.open(URL))
            print(f"  warm open() (same process) {ms:.3f} ms")
            names = random.Random(0).sample(sorted(files), 2000)
            _, first_ms = timed(lambda: repo.read(sha, names[0]))
            times = []
            for name in names:
                started = time.perf_counter()
                text = repo.read(sha, name)
                times.append((time.perf_counter() - started) * 1000)
                assert text == files[name]
            print("read():")
            print(f"  first read at the revision {first_ms:7.2f} ms  (tree walk and parse)")
            print(f"  warm, median of {len(times)}     {statistics.median(times):7.3f} ms")
            print(f"  warm, mean                 {statistics.mean(times):7.3f} ms")
            print(f"  warm, p99                  {sorted(times)[int(len(times) * 0.99)]:7.3f} ms")
            diff = (
                "--- a/pkg000/module_00001.py\n+++ b/pkg000/module_00001.py\n"
                "@@ -1,3 +1,3 @@\n # file 1, line 0\n-value_0 = 0\n+value_0 = 42\n # file 1, line 1\n"
            )
            tree, ms = timed(lambda: repo.apply_diff(sha, diff))
            print(f"apply_diff(): {ms:.1f} ms cold, ", end="")
            _, ms = timed(lambda: repo.apply_diff(sha, diff))
            print(f"{ms:.3f} ms cached")
            worktree, ms = timed(lambda: repo.worktree(sha))
            print(f"worktree(): one 'git worktree add' of {FILES:,} files {ms:8.1f} ms")
            _, ms = timed(lambda: repo.worktree(sha))
            print(f"worktree(): reused                          {ms:8.3f} ms")
            _, ms = timed(lambda: repo.worktree(tree))
            print(f"worktree(): of the applied diff's tree      {ms:8.1f} ms")
            assert (worktree / names[0]).read_text() == files[names[0]]


if __name__ == "__main__":
    main()
