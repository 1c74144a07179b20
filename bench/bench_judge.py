"""What judging costs at real size, right and wrong answers alike.

Run by hand: ``python bench/bench_judge.py`` (``--quick`` for fewer repetitions).

Part 1, one judged answer (the verdict, every candidate scored with Zed's metrics,
and the failure diff when it fails), median ms, for:

* files of about 50, 2,000 and 20,000 lines cut from the Python standard library's
  own sources, committed into a temporary git repository, with an edit history that
  half-types a line in the middle and 1 or 10 expected patches completing it;
* Zed's real ``flask--add-test-function.md`` against the real flask history
  (``shared/repos/flask-2fec0b2.bundle``; 1,893 lines, 10 expected patches);

and five answers: right (expected patch 1, cursor included), no change, a wrong edit at
the cursor, a wrong edit far from it (40% of the file away) and a rewrite of the whole
file (every indentation halved).

Part 2, whole runs: ``pytest`` over corpora of 20 and 320 real-size examples (each
edits its own 2,000-line file) with a right answer (``oracle``), no change (``noop``)
and a wrong edit at the cursor, beside 100 and 3,100 trivial tests in one file (the
goal's yardstick), 20 and 320 trivial tests in files of their own (as each example
is a file of its own: for comparison) and the same tests asking for a function fixture
built on a session fixture, as an example item does (pytest's own floor for an item of
that shape: none of this plugin's work is in it); the marginal cost of one more item is the
difference of the two runs' times over the difference of their sizes, each pair run
five times and the median taken (a run's start-up, ~2 s, swings by up to ±0.3 s: the
large differences keep that out; pairs of 10 and 70 were not enough). It also prints
each run's peak memory: what an item leaves behind once reported shows there.

Goals: every answer on the flask example within 20 ms; 20,000 lines at
most 10x 2,000 lines for the same change; a wrong answer's marginal cost within 1.5x
a right one's, and both within 3x pytest's own per-test cost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_editpred import Prediction, from_markdown, load_examples
from pytest_editpred.judge import Candidate, expected_candidates, failure_diff, judge
from pytest_editpred.scene import RepositoryCache, Scene, build_scene

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}
URL = "https://example.com/bench/stdlib"
SHARED = ROOT.parent / "shared"
FLASK = SHARED / "examples" / "zed" / "flask--add-test-function.md"
FLASK_BUNDLE = SHARED / "repos" / "flask-2fec0b2.bundle"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
SOURCES = ["typing.py", "argparse.py", "difflib.py", "inspect.py", "pathlib.py", "subprocess.py", "tarfile.py"]
TYPED = "    resu"  # what the edit history half-types


def stdlib_lines(count: int, shift: int = 0) -> list[str]:
    lines: list[str] = []
    for name in SOURCES[shift % len(SOURCES) :] + SOURCES[: shift % len(SOURCES)]:
        lines.extend((STDLIB / name).read_text().split("\n"))
    while len(lines) < count:
        lines.extend(lines)
    return lines[:count]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, env=ENV, capture_output=True, text=True).stdout.strip()


def make_repository(root: Path, files: dict[str, str]) -> tuple[Path, str]:
    repo = root / "source"
    repo.mkdir()
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "stdlib")
    return repo, git(repo, "rev-parse", "HEAD")


def example_text(path: str, lines: list[str], rev: str, patches: int) -> str:
    """An example that half-types ``resu`` on a new line in the middle of ``path``;
    the expected patches complete it in ``patches`` different ways."""
    row = len(lines) // 2
    above = lines[row - 3 : row]
    history = "\n".join(" " + line for line in above)
    cursor_block = "\n".join(above) + f"\n{TYPED}\n#       ^[CURSOR_POSITION]"
    expected = []
    for k in range(patches):
        expected.append(
            f"```diff\n--- a/{path}\n+++ b/{path}\n@@ -{row + 1},1 +{row + 1},1 @@\n"
            f"-{TYPED}\n+    result_{k} = compute(value, {k})\n#                ^[CURSOR_POSITION]\n```\n"
        )
    return f"""+++
repository_url = "{URL}"
revision = "{rev}"
+++

## Edit History

```diff
--- a/{path}
+++ b/{path}
@@ -{row - 2},3 +{row - 2},4 @@
{history}
+{TYPED}
```

## Cursor Position

```{path}
{cursor_block}
```

## Expected Patch

{chr(10).join(expected)}
"""


def answers(scene: Scene, candidates: tuple[Candidate, ...], example_patch: str) -> dict[str, Prediction]:
    path, offset = scene.cursor.path, scene.cursor.offset
    text = scene.buffers[path]
    first = candidates[0]
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    far_row = max(scene.cursor.row - int(0.4 * text.count("\n")), 0)
    far = 0
    for _ in range(far_row):
        far = text.index("\n", far) + 1
    return {
        "right": Prediction(patch=example_patch, cursor=first.cursor[1] if first.cursor else None),
        "no change": Prediction(),
        "wrong at cursor": Prediction(text=text[:line_start] + "    resume(everything)" + text[line_end:]),
        "wrong far away": Prediction(text=text[:far] + "# a stray comment\n" + text[far:]),
        "whole rewrite": Prediction(text=text.replace("    ", "  ")),
    }


def median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def clear_caches() -> None:
    """Forget what an earlier repetition computed: the metrics cache per-pair work
    (the actual answer is shared by every candidate), which a repeated identical
    call would otherwise find ready."""
    from pytest_editpred.metrics import _counts, _jump, _kept

    for cached in (_kept._edit, _counts._changed_lines, _jump._anchors):
        cached.cache_clear()


def judge_row(scene: Scene, candidates: tuple[Candidate, ...], example_patch: str, repeat: int) -> list[float]:
    row = []
    for prediction in answers(scene, candidates, example_patch).values():

        def once() -> None:
            clear_caches()
            verdict = judge(
                scene.buffers,
                (scene.cursor.path, scene.cursor.offset),
                candidates,
                prediction,
                open_file=scene.open_file,
                events=scene.events,
            )
            if not verdict.passed:
                failure_diff(verdict, scene.cursor.path)

        once()  # warm: imports, the first candidate's caches
        row.append(median_ms(once, repeat))
    return row


def part_one(repeat: int) -> None:
    print("Part 1: ms per judged answer (median)")
    names = ["right", "no change", "wrong at cursor", "wrong far away", "whole rewrite"]
    print(f"{'case':<28}" + "".join(f"{n:>17}" for n in names))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sizes = {50: stdlib_lines(50), 2_000: stdlib_lines(2_000), 20_000: stdlib_lines(20_000)}
        files = {f"f{n}.py": "\n".join(lines) + "\n" for n, lines in sizes.items()}
        repo, rev = make_repository(root, files)
        with RepositoryCache(root / "cache", {URL: repo}) as cache:
            for n, lines in sizes.items():
                for patches in (1, 10):
                    [example] = [from_markdown(example_text(f"f{n}.py", lines, rev, patches), f"f{n}.md")]
                    scene = build_scene(example, cache)
                    candidates = expected_candidates(
                        scene.buffers, example.expected(), scene.open_file, scene.cursor.path
                    )
                    row = judge_row(scene, candidates, example.expected()[0].patch, repeat)
                    print(f"{f'{n:,} lines, {patches} patch(es)':<28}" + "".join(f"{t:>15.2f}ms" for t in row))
        if FLASK.is_file() and FLASK_BUNDLE.is_file():
            [example] = load_examples(FLASK)
            with RepositoryCache(root / "flask-cache", {"https://github.com/pallets/flask": FLASK_BUNDLE}) as cache:
                scene = build_scene(example, cache)
                candidates = expected_candidates(scene.buffers, example.expected(), scene.open_file, scene.cursor.path)
                row = judge_row(scene, candidates, example.expected()[0].patch, repeat)
                print(f"{'flask example (10 patches)':<28}" + "".join(f"{t:>15.2f}ms" for t in row))
        else:
            print(f"(the flask example or bundle is not in {SHARED}: skipped)")


WRONG_CONFTEST = """
import pytest
from pytest_editpred import Prediction


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        text, offset = request.text, request.cursor.offset
        start = text.rfind("\\n", 0, offset) + 1
        end = text.find("\\n", offset)
        return Prediction(text=text[:start] + "    resume(everything)" + text[end:])

    return complete
"""


# pytest alone for an item of an example's shape: a file of its own, whose test asks
# for a function-scoped fixture built on a session-scoped one (``editpred_prediction``
# on ``editpred_completion``). Nothing of this plugin's work is in it.
FIXTURE_CONFTEST = """
import pytest


@pytest.fixture(scope="session")
def completion():
    return int


@pytest.fixture
def prediction(request, completion):
    return completion(request.node.name.rpartition("_")[2])
"""

PEAK_KB: dict[tuple[str, ...], list[int]] = {}  # the runs' peak memory, by arguments and corpus

# pytest, run so that it reports its own peak memory (Linux's VmHWM): the kernel's
# ``ru_maxrss`` of a child counts the parent's memory at the fork too (this script
# holds the corpora).
PYTEST_WITH_PEAK = """
import atexit, os, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    with open(os.environ["BENCH_PEAK_FILE"], "w") as out:
        out.write(str(kb))

atexit.register(peak)
sys.argv = ["pytest", *sys.argv[1:]]
runpy.run_module("pytest", run_name="__main__", alter_sys=True)
"""


CPU_S: dict[tuple[str, ...], list[float]] = {}  # the runs' CPU seconds (user + system), likewise


def timed_run(folder: Path, *args: str) -> float:
    """Run pytest in ``folder``; its wall time (its CPU time and peak memory are kept)."""
    peak_file = folder.parent / "peak.txt"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # warm: see part_two
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", PYTEST_WITH_PEAK, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**env, "BENCH_PEAK_FILE": str(peak_file)},
    )
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped by wait4
    elapsed = time.perf_counter() - start
    PEAK_KB.setdefault((folder.name, *args), []).append(int(peak_file.read_text()))
    CPU_S.setdefault((folder.name, *args), []).append(usage.ru_utime + usage.ru_stime)
    return elapsed


SMALL, LARGE = 20, 320
TRIVIAL_SMALL, TRIVIAL_LARGE = 100, 3_100


def part_two(runs: int) -> None:
    print(f"\nPart 2: whole runs, marginal ms per item (median of {runs} pairs of runs)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {f"m{i:02}.py": "\n".join(stdlib_lines(2_000, i)) + "\n" for i in range(LARGE)}
        repo, rev = make_repository(root, {n: t.replace("\n", f"\n# file {n}\n", 1) for n, t in files.items()})
        texts = {n: (repo / n).read_text().split("\n") for n in files}
        corpora = {}
        for count, trivial in ((SMALL, TRIVIAL_SMALL), (LARGE, TRIVIAL_LARGE)):
            folder = root / f"corpus{count}"
            for kind in ("evals", "wrong"):
                (folder / kind).mkdir(parents=True)
                for name in list(files)[:count]:
                    (folder / kind / f"{name[:-3]}.md").write_text(example_text(name, texts[name], rev, 10))
            (folder / "wrong" / "conftest.py").write_text(WRONG_CONFTEST)
            (folder / "pytest.ini").write_text(
                f"[pytest]\neditpred_cache_dir = {root / 'cache'}\neditpred_repos =\n    {URL} = {repo}\n"
            )
            (folder / "trivial").mkdir()
            (folder / "trivial" / "test_trivial.py").write_text(
                "".join(f"def test_{i}():\n    assert {i} == {i}\n\n\n" for i in range(trivial))
            )
            (folder / "files").mkdir()
            (folder / "fixture").mkdir()
            (folder / "fixture" / "conftest.py").write_text(FIXTURE_CONFTEST)
            for i in range(count):
                (folder / "files" / f"test_{i}.py").write_text(f"def test_{i}():\n    assert {i} == {i}\n")
                (folder / "fixture" / f"test_{i}.py").write_text(
                    f"def test_{i}(prediction):\n    assert prediction == {i}\n"
                )
            corpora[count] = folder
        # Warm runs, as a user's second run is: the repository cache filled, and the
        # modules compiled and the test files' assertion rewriting cached (the runs
        # drop PYTHONDONTWRITEBYTECODE, which this environment sets). Cold, a trivial
        # test costs ~0.8 ms more, all of it rewriting its file.
        timed_run(corpora[LARGE], "evals", "--editpred-provider=oracle")
        for count in (SMALL, LARGE):
            timed_run(corpora[count], "trivial")
            timed_run(corpora[count], "files")
            timed_run(corpora[count], "fixture")
        PEAK_KB.clear()
        CPU_S.clear()
        kinds = {
            "pytest, a trivial test": (["trivial"], TRIVIAL_LARGE - TRIVIAL_SMALL),
            "  the same, a file each": (["files"], LARGE - SMALL),
            "  and a fixture each": (["fixture"], LARGE - SMALL),
            "right answer (oracle)": (["evals", "--editpred-provider=oracle"], LARGE - SMALL),
            "no change (noop)": (["evals", "--editpred-provider=noop"], LARGE - SMALL),
            "wrong edit at the cursor": (["wrong"], LARGE - SMALL),
        }
        # Kinds interleaved, pair by pair: a burst of time stolen by the VM's host
        # lands on one pair of each kind, not on every pair of one kind.
        walls: dict[str, list[float]] = {label: [] for label in kinds}
        for _ in range(runs):
            for label, (args, extra) in kinds.items():
                walls[label].append(
                    (timed_run(corpora[LARGE], *args) - timed_run(corpora[SMALL], *args)) / extra * 1000
                )
        marginal = {label: statistics.median(samples) for label, samples in walls.items()}
        cpu = {
            label: statistics.median(
                (large - small) / extra * 1000
                for large, small in zip(CPU_S[(corpora[LARGE].name, *args)], CPU_S[(corpora[SMALL].name, *args)])
            )
            for label, (args, extra) in kinds.items()
        }
        base = marginal["pytest, a trivial test"]
        right = marginal["right answer (oracle)"]
        print(f"{'':<28}{'wall':>9}{'':<17}{'':<17}{'CPU':>9}")
        for label, value in marginal.items():
            print(
                f"{label:<28}{value:>9.2f} ms   {value / base:>5.1f}x pytest   {value / right:>5.2f}x right"
                f"{cpu[label]:>9.2f} ms   {cpu[label] / cpu['pytest, a trivial test']:>5.1f}x pytest"
            )
        own = marginal["  the same, a file each"]
        print(
            f"(against a trivial test in a file of its own: a right answer {right / own:.1f}x, "
            f"a wrong edit {marginal['wrong edit at the cursor'] / own:.1f}x)"
        )
        floor = marginal["  and a fixture each"]
        print(
            f"(pytest's own floor for an item shaped like an example, a file and a function fixture each, "
            f"is {floor / base:.1f}x a trivial test: 3x leaves {max(3 * base - floor, 0):.2f} ms for the example's work)"
        )
        print(f"\npeak memory of a run (median), {SMALL} against {LARGE} examples")
        for label, (args, extra) in kinds.items():
            small, large = (statistics.median(PEAK_KB[(corpora[n].name, *args)]) / 1024 for n in (SMALL, LARGE))
            print(f"{label:<28}{small:>7.1f} MB {large:>7.1f} MB   {(large - small) / extra * 1024:>6.1f} KB per item")


def main() -> None:
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--part", choices=["1", "2"], help="run one part only")
    options = parser.parse_args()
    if options.part in (None, "1"):
        part_one(5 if options.quick else 21)
    if options.part in (None, "2"):
        part_two(1 if options.quick else 5)


if __name__ == "__main__":
    main()
