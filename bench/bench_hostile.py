"""How long hostile inputs take, and how much memory: one pytest run per case.

Run by hand: ``python bench/bench_hostile.py [--scale 0.1] [--timeout 600]
[--only NAME] [--profile]``. Each case builds a real git repository and one
example (plus, where the case is about the answer, a ``conftest.py`` whose
completion returns a prepared answer), runs ``python -m pytest`` on it in a
subprocess and prints the outcome, the wall time and the child's peak RSS.

The cases ("bounded and sealed"):

* ``example-50MB``: a 50 MB example file (refused by ``--editpred-max-example-bytes``);
* ``hunk-9.5MB``: an expected patch that is one 9.5 MB hunk;
* ``hunks-100k``: an expected patch of 100,000 one-line hunks on a 100,000-line file;
* ``answer-3.4MB`` and ``answer-48MB``: a predicted patch of that size (the 48 MB one
  is over ``--editpred-max-prediction-bytes``; the 3.4 MB one is judged);
* ``cursor-64MiB``: a 64 MiB cursor file with a one-line expected patch;
* ``brackets-100k`` and ``brackets-100k-lines``: a ``.py`` cursor file of 100,000
  nested brackets (``((((…))))``, on one line, then one bracket a line), the cursor
  between the innermost two, sent as a Zeta 2.1 prompt (``openai`` provider) to a
  loopback server (``tests/llm_server.py``) that answers with no edit: the
  tree-sitter walk for the syntax ranges is bounded (``zeta/_syntax.py``).

``--memory-gb`` caps the child's address space (default 6) so that a case that
would need 20 GB ends in a MemoryError instead of taking the machine down.
``EDITPRED_BENCH_CODE=/some/copy`` runs the children on another copy of the
package (how the "before" figures were taken, on a copy of the tree before the
fixes). ``--scale`` multiplies every size (0.1 for a quick look); ``--profile`` runs the child
under cProfile and prints its 25 most expensive functions, which is how the
quadratic steps were found. Figures are printed, never asserted: the tests check
outcomes and memory, not time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from gitrepos import make_repo  # noqa: E402
from llm_server import LLMServer  # noqa: E402

URL = "https://github.com/acme/hostile"
CONFTEST = """
from pathlib import Path

import pytest

from pytest_editpred import Prediction

ANSWER = Path(__file__).with_name("answer.diff")


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        if ANSWER.exists():
            return Prediction(patch=ANSWER.read_text())
        return Prediction()

    return complete
"""


def _front(rev: str) -> str:
    return f'+++\nrepository_url = "{URL}"\nrevision = "{rev}"\n+++\n\n'


def _lines(size: int) -> str:
    """Distinct lines of 34 characters (``value_0000012 = xxxxxxxxxx0000012``), about
    ``size`` characters in all."""
    return "".join(f"value_{i:07d} = {'x' * 10}{i:07d}\n" for i in range(max(size // 34, 1)))


def _added(size: int) -> str:
    """About ``size`` characters of ``+`` lines."""
    return "".join("+" + line for line in _lines(size * 34 // 35).splitlines(keepends=True))


def _example(rev: str, cursor_path: str, cursor_block: str, expected: str, history: str = "") -> str:
    text = _front(rev) + "# hostile\n\n"
    if history:
        text += "## Edit History\n\n```diff\n" + history + "```\n\n"
    text += f"## Cursor Position\n\n```{cursor_path}\n{cursor_block}```\n\n"
    return text + "## Expected Patch\n\n```diff\n" + expected + "```\n"


#: A case builds its project under ``root`` and returns extra pytest arguments (or None).
Case = Callable[[Path, float], "list[str] | None"]


def _project(root: Path, files: dict[str, str], *, conftest: bool = True) -> str:
    _, shas = make_repo(root / "upstream", files)
    (root / "pytest.ini").write_text(
        textwrap.dedent(
            f"""
            [pytest]
            editpred_cache_dir = .editpred-cache
            editpred_repos =
                {URL} = upstream/repo
            """
        )
    )
    if conftest:
        (root / "conftest.py").write_text(CONFTEST)
    (root / "evals").mkdir()
    return shas[-1]


CURSOR = "def f():\n    return 1\n#   ^[CURSOR_POSITION]\n"
SMALL = {"f.py": "def f():\n    return 1\n"}


def example_50mb(root: Path, scale: float) -> None:
    rev = _project(root, SMALL)
    body = _added(int(50_000_000 * scale))
    expected = "--- a/f.py\n+++ b/f.py\n@@ -2,1 +2,2 @@\n     return 1\n" + body
    (root / "evals" / "big.md").write_text(_example(rev, "f.py", CURSOR, expected))


def hunk_9_5mb(root: Path, scale: float) -> None:
    rev = _project(root, SMALL)
    body = _added(int(9_500_000 * scale))
    expected = "--- a/f.py\n+++ b/f.py\n@@ -2,1 +2,2 @@\n     return 1\n" + body
    (root / "evals" / "hunk.md").write_text(_example(rev, "f.py", CURSOR, expected))


def hunks_100k(root: Path, scale: float) -> None:
    count = int(100_000 * scale)
    original = _lines(count * 34)
    rev = _project(root, {"f.py": original})
    hunks = []
    for i, line in enumerate(original.splitlines(keepends=True)):
        hunks.append(f"@@ -{i + 1},1 +{i + 1},1 @@\n-{line}+{line.upper()}")
    expected = "--- a/f.py\n+++ b/f.py\n" + "".join(hunks)
    first = original.split("\n", 1)[0]
    (root / "evals" / "hunks.md").write_text(_example(rev, "f.py", f"{first}\n#   ^[CURSOR_POSITION]\n", expected))


def _answer(size: int) -> Case:
    def case(root: Path, scale: float) -> None:
        rev = _project(root, SMALL)
        expected = "--- a/f.py\n+++ b/f.py\n@@ -2,1 +2,1 @@\n-    return 1\n+    return 2\n"
        (root / "evals" / "answer.md").write_text(_example(rev, "f.py", CURSOR, expected))
        body = _added(int(size * scale))
        (root / "answer.diff").write_text("--- a/f.py\n+++ b/f.py\n@@ -2,1 +2,2 @@\n     return 1\n" + body)

    return case


def cursor_64mib(root: Path, scale: float) -> None:
    text = _lines(int(64 * 1024 * 1024 * scale)) + "def f():\n    return 1\n"
    rev = _project(root, {"f.py": text})
    expected = "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
    (root / "evals" / "cursor.md").write_text(_example(rev, "f.py", CURSOR, expected))


_SERVER: list[LLMServer] = []


def _server() -> LLMServer:
    """One loopback model server for the bench's run, answering "no edit"."""
    if not _SERVER:
        server = LLMServer.start()
        server.answer("")  # an empty reply: no prediction, as in the editor
        _SERVER.append(server)
    return _SERVER[0]


def _brackets(per_line: bool) -> Case:
    def case(root: Path, scale: float) -> list[str]:
        count = max(int(100_000 * scale), 1)
        sep = "\n" if per_line else ""
        head, tail = sep.join("(" * count), sep.join(")" * count)
        text = head + sep + tail + "\n" + "pass\n"
        rev = _project(root, {"deep.py": text}, conftest=False)
        # the cursor between the innermost brackets, the deepest node of the tree (a
        # block the file holds once: "(\n)" is the innermost pair only)
        block = head.rsplit("\n", 1)[-1] + "<|user_cursor|>" + sep + tail.split("\n", 1)[0] + "\n"
        expected = "--- a/deep.py\n+++ b/deep.py\n@@ -2,1 +2,1 @@\n-pass\n+x = 1\n"
        if per_line:
            expected = expected.replace("@@ -2,1 +2,1 @@", f"@@ -{2 * count + 1},1 +{2 * count + 1},1 @@")
        (root / "evals" / "deep.md").write_text(_example(rev, "deep.py", block, expected))
        server = _server()
        return [
            "--editpred-provider=openai",
            f"--editpred-base-url={server.url}",
            "--editpred-model=zeta-served",
            "--editpred-prompt-format=zeta2.1",
            "--editpred-cache=off",
        ]

    return case


CASES: dict[str, Case] = {
    "example-50MB": example_50mb,
    "hunk-9.5MB": hunk_9_5mb,
    "hunks-100k": hunks_100k,
    "answer-3.4MB": _answer(3_400_000),
    "answer-48MB": _answer(48_000_000),
    "cursor-64MiB": cursor_64mib,
    "brackets-100k": _brackets(per_line=False),
    "brackets-100k-lines": _brackets(per_line=True),
}


#: Runs the command given and prints its peak RSS: a process of its own, so each
#: case's figure is its own (``RUSAGE_CHILDREN`` is a maximum over all children).
WRAPPER = (
    "import resource, subprocess, sys; limit = int(sys.argv.pop(1)); "
    "code = subprocess.call(sys.argv[1:], preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))); "
    "print('PEAK_RSS_KB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)"
)


def run(name: str, scale: float, timeout: float, profile: bool, memory_gb: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        extra = CASES[name](root, scale) or []
        size = sum(p.stat().st_size for p in (root / "evals").iterdir()) + (
            (root / "answer.diff").stat().st_size if (root / "answer.diff").exists() else 0
        )
        command = [sys.executable, "-c", WRAPPER, str(int(memory_gb * 2**30)), sys.executable]
        if profile:
            command += ["-m", "cProfile", "-s", "cumulative"]
        command += ["-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "evals", *extra]
        env = {**os.environ, "PYTHONPATH": os.environ.get("EDITPRED_BENCH_CODE", str(ROOT))}
        start = time.perf_counter()
        child = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, 9)
            child.communicate()
            print(f"{name:19} {size / 1e6:8.1f} MB  TIMEOUT: still running after {timeout:.0f} s")
            return
        seconds = time.perf_counter() - start
        lines = output.splitlines()
        rss = next((int(line.split()[1]) for line in lines if line.startswith("PEAK_RSS_KB")), 0) / 1024
        summary = next((line for line in reversed(lines) if " in " in line and line[:1].isdigit()), lines[-2:-1])
        print(f"{name:19} {size / 1e6:8.1f} MB  {seconds:7.1f} s  peak RSS {rss:7.0f} MB  {str(summary).strip()}")
        for line in lines:
            if line.startswith(("E ", "FAILED", "ERROR")) and len(line) < 400:
                print("    " + line)
        if profile:
            at = next((i for i, line in enumerate(lines) if "ncalls" in line), len(lines))
            print("\n".join(lines[at : at + 70]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--only", action="append", choices=sorted(CASES))
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--memory-gb", type=float, default=6.0, help="address-space cap of the child (a MemoryError past it)"
    )
    args = parser.parse_args()
    try:
        for name in args.only or CASES:
            run(name, args.scale, args.timeout, args.profile, args.memory_gb)
    finally:
        for server in _SERVER:
            server.close()


if __name__ == "__main__":
    main()
