"""What the LLM judge (``--editpred-qa``) costs a run that does not ask for one.

Run by hand (not a test): ``python bench/bench_no_judge.py [--baseline 661f652]
[--candidate REV] [--examples 2000] [--quick] [--repeat 5] [--one-repeat 3]
[--only RUN ...] [--modules 30] [--seed 25]``.

The judge's code (``qa/``, ``providers/_judge.py``, ``integration/second_opinion.py``,
the record's ``qa`` field and the reports' qa columns) must cost nothing when no judge
is named. This compares two source trees of the package: a BASELINE revision
(``--baseline``, by default ``661f652``, the last main commit before the judge entered
the run) and the CANDIDATE (``--candidate REV``, by default the working tree this
script is in, uncommitted changes included). A revision is unpacked with ``git
archive`` into a temporary directory, removed at the end. Every figure comes from a
fresh ``pytest`` child with ``PYTHONPATH=<tree>``, so that ``pytest_editpred`` and the
``pytest11`` entry point's ``pytest_editpred.plugin`` are that tree's (the editable
install's finder comes after ``PYTHONPATH``). A probe plugin in every child writes
where both were imported from, and every module in ``sys.modules``, at
``pytest_unconfigure`` (after the terminal summary, which imports modules of its
own); a child that ran another tree's code stops the bench.

Figures, interleaved A/B (the order of the two trees alternates by round) over
``--repeat`` rounds, min and median printed:

* **start-up**: ``pytest -q`` of one plain test in an empty directory: the wall time,
  the child's CPU time (user + system, ``getrusage(RUSAGE_CHILDREN)`` deltas), the
  milliseconds of the top-level pytest_editpred imports in the same run under ``-X
  importtime`` (``bench_startup.editpred_in_run``, a run of its own), and the
  number of pytest_editpred modules imported.
* **a run of one example**: the child's CPU time of the one-example run below, the
  fixed cost of a run with examples (the package's modules it imports: the providers,
  the reports), which the start-up run above never reaches; in each round the median
  of ``--one-repeat`` runs (one run swings by a hundred milliseconds).
* **per item**: ``--examples`` examples (``bench_provider``'s: a temporary git
  repository of standard-library modules, every cursor-file text distinct, offline)
  through the ``oracle`` provider (every item passes) and the ``baseline`` provider
  (the built-in heuristic, whose predictions here are wrong: every item FAILS and is
  judged in full, as most of a real model's are), each without and with an
  ``--editpred-report`` JSONL. Per item: ``(CPU(N) - CPU(1)) / (N - 1)`` of the
  child, each round's from its own runs (CPU(1) the round's median), the same for
  the wall time. ``diff`` is the candidate's figure minus the baseline's of the same
  round: median, and [min, max] over the rounds (the spread, which is the noise: a
  diff inside it is none).
* **modules**: for each run above, whether any of the judge's modules
  (:data:`JUDGE_MODULES`) was imported, the pytest_editpred modules only one of the
  two trees imported, and the other packages (top-level names) only one imported.

How to read it: a ``diff`` whose [min, max] straddles 0 is no measurable cost; on a
quiet machine the start-up of the two trees is within a few milliseconds (pytest
itself varies by more), a one-example run within a few tens, a per-item figure
within a few tenths of a millisecond. The judge's modules must read ``no`` in every
candidate run; a module list that differs says where a difference would come from
(``httpx`` alone is some 100 ms of a one-example run). The load average is printed
after every round: figures taken under load are only good for the module lists.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_provider import REPO, make_examples, make_repository, run_pytest, stdlib_modules
from bench_startup import editpred_in_run

#: The modules of the LLM judge a run without ``--editpred-qa`` must not import.
JUDGE_MODULES = ("pytest_editpred.qa", "pytest_editpred.providers._judge", "pytest_editpred.integration.second_opinion")

#: Loaded into every pytest child (``-p bench_modules_probe``): at the very end, where
#: the package and its plugin module came from and every module imported.
PROBE = """
import json, os, sys
def pytest_unconfigure(config):
    out = os.environ.get("BENCH_MODULES_OUT")
    if out and not hasattr(config, "workerinput"):
        plugin = sys.modules.get("pytest_editpred.plugin")
        with open(out, "w") as file:
            json.dump({
                "package": sys.modules["pytest_editpred"].__file__,
                "plugin": getattr(plugin, "__file__", None),
                "modules": sorted(sys.modules),
            }, file)
"""

#: The per-item runs: a label and their options beside ``bench_provider.run_pytest``'s.
PER_ITEM = [
    ("oracle", ["--editpred-provider=oracle"]),
    ("oracle+JSONL", ["--editpred-provider=oracle", "--editpred-report=run.jsonl"]),
    ("baseline", ["--editpred-provider=baseline"]),
    ("baseline+JSONL", ["--editpred-provider=baseline", "--editpred-report=run.jsonl"]),
]
PROBE_ARGS = ["-p", "bench_modules_probe"]
ITEM_FIGURES = {"cpu1": "1-example run CPU, ms", "cpu": "CPU ms/item", "wall": "wall ms/item"}


def unpack(revision: str, into: Path) -> Path:
    """The package's tree at ``revision`` (``git archive``), in ``into``."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def read_probe(out: Path, tree: Path) -> dict[str, Any]:
    """The probe's findings (``package``, ``plugin``, ``modules``); stops when the child
    ran another tree. The file is taken away, so that a child that wrote none cannot
    pass for the next."""
    data = json.loads(out.read_text())
    out.unlink()
    for key in ("package", "plugin"):
        if data[key] is None or not Path(data[key]).resolve().is_relative_to(tree.resolve()):
            raise SystemExit(f"the child's pytest_editpred {key} is {data[key]}, not under {tree}")
    return dict(data)


def startup_run(tree: Path, project: Path, env: dict[str, str], out: Path) -> tuple[float, float, dict[str, Any]]:
    """``pytest -q`` of one plain test: (wall s, child CPU s, the probe's findings)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *PROBE_ARGS]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*command, "test_plain.py"], cwd=project, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"the start-up run exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, read_probe(out, tree)


def importtime_run(project: Path, env: dict[str, str]) -> float:
    """The ms of the top-level pytest_editpred imports of the start-up run (``-X importtime``)."""
    command = [sys.executable, "-X", "importtime", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the -X importtime run exited {done.returncode}:\n{done.stderr[-2000:]}")
    return editpred_in_run(done.stderr)


def spread(values: list[float]) -> str:
    """Min and median, in ms."""
    return f"{min(values) * 1000:8.2f} {statistics.median(values) * 1000:8.2f}"


def diff_cell(xs: list[float], ys: list[float]) -> str:
    """``ys - xs`` round by round, in ms: median [min, max]."""
    diffs = [(y - x) * 1000 for x, y in zip(xs, ys)]
    return f"{statistics.median(diffs):+7.3f} [{min(diffs):+.3f}, {max(diffs):+.3f}]"


def judge_flag(modules: list[str]) -> str:
    """``no``, or which of the judge's modules were imported (a package's own module
    is imported before any of its submodules)."""
    found = [name for name in JUDGE_MODULES if name in modules]
    return "YES: " + ", ".join(found) if found else "no"


class Bench:
    """The two trees, the inputs in ``work`` and every figure measured."""

    def __init__(
        self, work: Path, trees: dict[str, Path], runs: list[tuple[str, list[str]]], args: argparse.Namespace
    ) -> None:
        self.work, self.trees, self.runs = work, trees, runs
        self.examples, self.one_repeat = args.examples, args.one_repeat
        examples, modules, seed = args.examples, args.modules, args.seed
        (work / "bench_modules_probe.py").write_text(PROBE)
        self.out = work / "modules.json"
        os.environ["BENCH_MODULES_OUT"] = str(self.out)  # run_pytest's children inherit it
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        paths = [str(work), *filter(None, [env.get("PYTHONPATH")])]
        self.envs = {name: {**env, "PYTHONPATH": os.pathsep.join([str(tree), *paths])} for name, tree in trees.items()}
        self.empty = work / "empty"
        self.empty.mkdir()
        (self.empty / "test_plain.py").write_text("def test_plain():\n    assert True\n")
        (work / "pytest.ini").write_text("[pytest]\n")
        self.repo, revision, files = make_repository(work, stdlib_modules(modules, seed))
        self.one, self.many = work / "one", work / "many"
        make_examples(self.one, 1, revision, files, seed)
        make_examples(self.many, examples, revision, files, seed)
        print(f"{examples} examples on {len(files)} standard-library modules")
        self.startup: dict[tuple[str, str], list[float]] = {}
        self.per_item: dict[tuple[str, str, str], list[float]] = {}
        self.modules: dict[tuple[str, str], list[str]] = {}
        self.passed: dict[tuple[str, str], int] = {}

    def examples_run(self, name: str, folder: Path, extra: list[str]) -> tuple[float, float, dict[str, int]]:
        wall, cpu, counts, _ = run_pytest(
            self.work, folder, self.repo, [*PROBE_ARGS, *extra], tree=self.trees[name]
        )  # fmt: skip
        self.modules[extra[0], name] = read_probe(self.out, self.trees[name])["modules"]
        return wall, cpu, counts

    def warm_up(self) -> None:
        """The bytecode and the repository's mirror; where each tree's code came from."""
        for name, tree in self.trees.items():
            _, _, data = startup_run(tree, self.empty, self.envs[name], self.out)
            importtime_run(self.empty, self.envs[name])
            for _, extra in self.runs:
                self.examples_run(name, self.one, extra)
            print(f"{name}: pytest_editpred from {data['package']}, plugin {data['plugin']}")

    def round(self, order: list[str]) -> None:
        for name in order:
            wall, cpu, data = startup_run(self.trees[name], self.empty, self.envs[name], self.out)
            self.modules["start-up", name] = data["modules"]
            self.startup.setdefault(("wall", name), []).append(wall)
            self.startup.setdefault(("cpu", name), []).append(cpu)
            imports = importtime_run(self.empty, self.envs[name]) / 1000
            self.startup.setdefault(("imports", name), []).append(imports)
        for label, extra in self.runs:
            for name in order:
                ones = [self.examples_run(name, self.one, extra) for _ in range(self.one_repeat)]
                wall1 = statistics.median(run[0] for run in ones)
                cpu1 = statistics.median(run[1] for run in ones)
                walln, cpun, counts = self.examples_run(name, self.many, extra)
                self.modules[label, name] = self.modules.pop((extra[0], name))
                self.per_item.setdefault((label, "cpu1", name), []).append(cpu1)
                self.per_item.setdefault((label, "cpu", name), []).append((cpun - cpu1) / (self.examples - 1))
                self.per_item.setdefault((label, "wall", name), []).append((walln - wall1) / (self.examples - 1))
                self.passed[label, name] = counts.get("passed", 0)

    def print_figures(self, rounds: int) -> None:
        a, b = self.trees
        print(f"\nA = {a}, B = {b}; min and median of {rounds} rounds; diff = B - A round by round,"
              " median [min, max]")  # fmt: skip
        print(f"{'figure':<40} {'A min':>8} {'A med':>8} {'B min':>8} {'B med':>8}  diff")
        titles = {"wall": "start-up wall, ms", "cpu": "start-up CPU, ms", "imports": "start-up editpred imports, ms"}
        for key, title in titles.items():
            xs, ys = self.startup[key, a], self.startup[key, b]
            print(f"{title:<40} {spread(xs)} {spread(ys)}  {diff_cell(xs, ys)}")
        for label, _ in self.runs:
            for key, title in ITEM_FIGURES.items():
                xs, ys = self.per_item[label, key, a], self.per_item[label, key, b]
                print(f"{label + ': ' + title:<40} {spread(xs)} {spread(ys)}  {diff_cell(xs, ys)}")
        passed = "; ".join(f"{label} {self.passed[label, a]}/{self.passed[label, b]}" for label, _ in self.runs)
        print(f"passed of {self.examples} (A/B): {passed}")

    def print_modules(self) -> None:
        a, b = self.trees
        print("\nmodules imported (the last round's runs): pytest_editpred's, and the other packages"
              " (top-level names) only one tree's run imported")  # fmt: skip
        for label in ["start-up", *(label for label, _ in self.runs)]:
            every = {name: self.modules[label, name] for name in (a, b)}
            ours = {name: [m for m in every[name] if m.startswith("pytest_editpred")] for name in (a, b)}
            print(f"  {label}: pytest_editpred A {len(ours[a])}, B {len(ours[b])} (all: A {len(every[a])},"
                  f" B {len(every[b])}); judge's modules: A {judge_flag(ours[a])}, B {judge_flag(ours[b])}")  # fmt: skip
            for side, mine, other in (("A", a, b), ("B", b, a)):
                only = sorted(set(ours[mine]) - set(ours[other]))
                if only:
                    print(f"    only {side}: {', '.join(m.removeprefix('pytest_editpred.') for m in only)}")
                tops = {m.split(".")[0] for m in set(every[mine]) - set(every[other])} - {"pytest_editpred"}
                if tops:
                    print(f"    only {side}, other packages: {', '.join(sorted(tops))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="661f652", help="the revision before the judge (default 661f652)")
    parser.add_argument("--candidate", help="a revision to compare instead of the working tree")
    parser.add_argument("--examples", type=int, default=2000, help="examples of the per-item runs (default 2,000)")
    parser.add_argument("--quick", action="store_true", help="200 examples")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument(
        "--one-repeat", type=int, default=3, help="one-example runs a round, of which the median (default 3)"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="RUN",
        choices=[label for label, _ in PER_ITEM],
        help=f"only these per-item runs, of {', '.join(label for label, _ in PER_ITEM)} (default all)",
    )
    parser.add_argument("--modules", type=int, default=30, help="standard-library modules in the repository")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    if args.quick:
        args.examples = 200
    if args.examples < 2:
        parser.error("--examples must be at least 2 (the cost is (run of N - run of 1) / (N - 1))")

    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()};"
        f" load average {os.getloadavg()[0]:.2f} (figures need an idle machine)"
    )
    work = Path(tempfile.mkdtemp(prefix="bench-no-judge-"))
    try:
        candidate = unpack(args.candidate, work / "candidate") if args.candidate else REPO
        trees = {
            f"baseline {args.baseline}": unpack(args.baseline, work / "baseline"),
            f"candidate {args.candidate}" if args.candidate else "working tree": candidate,
        }
        runs = [(label, extra) for label, extra in PER_ITEM if not args.only or label in args.only]
        bench = Bench(work, trees, runs, args)
        bench.warm_up()
        names = list(trees)
        for round in range(args.repeat):
            bench.round(names if round % 2 == 0 else names[::-1])
            print(f"round {round + 1} of {args.repeat} done; load average {os.getloadavg()[0]:.2f}", flush=True)
        bench.print_figures(args.repeat)
        bench.print_modules()
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
