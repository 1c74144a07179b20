"""How long rebuilding a scene takes, warm and cold, against the size of the repository.

Run by hand: ``python bench/bench_scene.py``. For repositories of 2,000 and 20,000
files it writes 200 examples at one revision (each edits a different file and puts
the cursor in it), then prints:

* cold: a fresh cache directory, so the first scene pays for the mirror's clone;
* warm: the same 200 scenes again with a new cache object over the filled cache
  (what a second ``pytest evals/`` run, or an xdist worker, sees);
* the time of one ``git worktree add`` of that revision, which a checkout-based
  design would pay per revision (and again per uncommitted diff).

Goal: a warm scene under 5 ms, not growing with the size of the repository.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_editpred import from_markdown
from pytest_editpred.scene import RepositoryCache, build_scene

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}
URL = "https://example.com/bench/big"


def make_repository(root: Path, files: int) -> tuple[Path, str]:
    repo = root / "source"
    repo.mkdir()
    for i in range(files):
        folder = repo / f"pkg{i % 100:03}"
        folder.mkdir(exist_ok=True)
        body = "".join(f"def function_{i}_{j}(value):\n    return value + {j}\n\n\n" for j in range(20))
        (folder / f"module_{i:05}.py").write_text(body)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True, env=ENV)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=ENV)
    subprocess.run(["git", "commit", "-qm", "big"], cwd=repo, check=True, env=ENV)
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, check=True, env=ENV, capture_output=True, text=True
    ).stdout.strip()
    return repo, rev


def example(i: int, rev: str, files: int) -> str:
    n = (i * 97) % files
    path = f"pkg{n % 100:03}/module_{n:05}.py"
    return f"""+++
repository_url = "{URL}"
revision = "{rev}"
+++

## Edit History

```diff
--- a/{path}
+++ b/{path}
@@ -5,3 +5,3 @@
 def function_{n}_1(value):
-    return value + 1
+    return value + 1.
```

## Cursor Position

```{path}
def function_{n}_1(value):
    return value + 1.
#                    ^[CURSOR_POSITION]
```
"""


def run(cache_dir: Path, mappings: dict[str, Path], examples: list) -> list[float]:
    times = []
    with RepositoryCache(cache_dir, mappings) as cache:
        for ex in examples:
            start = time.perf_counter()
            build_scene(ex, cache)
            times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    print(
        f"{'files':>7} {'cold first':>11} {'cold mean':>10} {'warm mean':>10} {'warm p50':>9} {'warm p95':>9} {'worktree add':>13}"
    )
    for files in (2_000, 20_000):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            repo, rev = make_repository(root, files)
            examples = [from_markdown(example(i, rev, files), f"ex{i}.md") for i in range(200)]
            cache_dir = root / "cache"
            cold = run(cache_dir, {URL: repo}, examples)
            warm = run(cache_dir, {URL: repo}, examples)
            start = time.perf_counter()
            subprocess.run(
                ["git", "worktree", "add", "-q", "--detach", str(root / "wt"), rev], cwd=repo, check=True, env=ENV
            )
            worktree = (time.perf_counter() - start) * 1000
            shutil.rmtree(root / "wt", ignore_errors=True)
            warm_sorted = sorted(warm)
            print(
                f"{files:>7} {cold[0]:>9.1f}ms {statistics.mean(cold):>8.2f}ms {statistics.mean(warm):>8.2f}ms "
                f"{warm_sorted[len(warm) // 2]:>7.2f}ms {warm_sorted[int(len(warm) * 0.95)]:>7.2f}ms {worktree:>11.1f}ms"
            )


if __name__ == "__main__":
    main()
