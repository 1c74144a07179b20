"""What installing pytest-editpred costs every pytest start-up, in milliseconds.

Run by hand (not a test): ``python bench/bench_startup.py [--runs 21]``.

pytest imports every installed plugin through its entry point on every run, also for
a project's own unit tests that have no examples at all, so the plugin module must
stay light. Two figures, each the median over ``--runs`` fresh interpreters:

* **import** — ``python -X importtime -c "import pytest, pytest_editpred.plugin"``
  minus ``import pytest``: the cumulative time of every top-level import after
  ``pytest`` in the same process (what the entry point adds). The budget is 5 ms.
* **no-example run** — the pytest-editpred modules (and whatever they pull in first)
  imported by a whole ``pytest -q`` run of one plain test in an empty directory:
  the entry point plus what the plugin's ``pytest_addoption`` and
  ``pytest_configure`` hooks load. Reported, not budgeted.

Both are taken within one process (``-X importtime`` timings of the imports that
come after pytest's), so the variance of pytest's own import (tens to hundreds of
milliseconds on a busy machine) does not swamp a few milliseconds. Bytecode is
cached under a temporary ``-X pycache_prefix`` (first run discarded), as in a normal
installation, even where ``PYTHONDONTWRITEBYTECODE`` is set: compiling the sources on
every run is not what a user pays. Also prints the modules the plugin import loads,
and the slowest of them. Figures are only meaningful on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BUDGET_MS = 5.0
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def _imports(stderr: str) -> list[tuple[str, int, int, int]]:
    """``(module, self µs, cumulative µs, depth)`` per ``-X importtime`` line."""
    rows = []
    for line in stderr.splitlines():
        match = _LINE.match(line)
        if match:
            depth = (len(match.group(3)) - 1) // 2
            rows.append((match.group(4), int(match.group(1)), int(match.group(2)), depth))
    return rows


def _run(args: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=env, cwd=cwd)
    if done.returncode not in (0, 1):  # 1: the plain test of the run may fail, no matter
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stderr


def after_pytest(stderr: str) -> tuple[float, list[tuple[str, int, int, int]]]:
    """Milliseconds of the top-level imports after ``pytest``'s, and those rows."""
    rows = _imports(stderr)
    start = max(i for i, row in enumerate(rows) if row[0] == "pytest" and row[3] == 0) + 1
    rest = rows[start:]
    return sum(row[2] for row in rest if row[3] == 0) / 1000, rest


def editpred_in_run(stderr: str) -> float:
    """Milliseconds of the top-level imports of pytest_editpred modules in a pytest run
    (each import's cumulative time, so what they pulled in first counts too)."""
    return sum(row[2] for row in _imports(stderr) if row[3] == 0 and row[0].startswith("pytest_editpred")) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        project = Path(tmp) / "project"
        project.mkdir()
        (project / "test_plain.py").write_text("def test_plain():\n    assert True\n")
        run_args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"]
        import_args = ["-c", "import pytest, pytest_editpred.plugin"]
        _run(import_args, env)  # the first runs write the bytecode
        _run(run_args, env, project)
        imports: list[float] = []
        runs: list[float] = []
        last: list[tuple[str, int, int, int]] = []
        for _ in range(options.runs):
            cost, last = after_pytest(_run(import_args, env))
            imports.append(cost)
            runs.append(editpred_in_run(_run(run_args, env, project)))
    median = statistics.median(imports)
    verdict = "within" if median <= BUDGET_MS else "OVER"
    print(
        f"import pytest_editpred.plugin beyond pytest: {median:.1f} ms median of {options.runs} "
        f"(min {min(imports):.1f}, max {max(imports):.1f}); budget {BUDGET_MS:g} ms: {verdict}"
    )
    print(
        f"pytest-editpred modules loaded by a no-example pytest run: {statistics.median(runs):.1f} ms "
        f"median (min {min(runs):.1f}, max {max(runs):.1f})"
    )
    print(f"modules the plugin import loads ({len(last)}), slowest first (self ms, last run):")
    for name, own, _, _ in sorted(last, key=lambda row: -row[1])[:12]:
        print(f"  {own / 1000:6.2f}  {name}")


if __name__ == "__main__":
    main()
