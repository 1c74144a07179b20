"""What the plugin costs a test suite that has no examples.

Run by hand: ``python bench/bench_import.py``. pytest imports every installed
plugin on every run, so the plugin module must stay light. Prints the import time
of ``pytest_editpred.plugin`` on top of pytest (``-X importtime``, self and
cumulative), and the wall time of ``pytest --collect-only`` on an empty project
with the plugin enabled and disabled (``-p no:editpred``), median of 15 runs each.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time


def import_cost() -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import pytest; import pytest_editpred.plugin"],
        capture_output=True, text=True, check=True,
    ).stderr
    total = 0.0
    plugin_cumulative = 0.0
    for line in out.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if match and match.group(4).startswith("pytest_editpred"):
            total += int(match.group(1))
            if match.group(4) == "pytest_editpred.plugin":
                plugin_cumulative = int(match.group(2)) / 1000
    return total / 1000, plugin_cumulative


def pytest_wall(extra: list[str], runs: int = 15) -> float:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        (__import__("pathlib").Path(tmp) / "test_nothing.py").write_text("def test_ok():\n    pass\n")
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *extra],
                           cwd=tmp, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    own, cumulative = import_cost()
    print(f"import pytest_editpred.plugin: {own:.1f} ms in the package's own modules ({cumulative:.1f} ms cumulative)")
    on = pytest_wall([])
    off = pytest_wall(["-p", "no:editpred"])
    print(f"pytest --collect-only, empty project: {on:.0f} ms with the plugin, {off:.0f} ms without ({on - off:+.0f} ms)")


if __name__ == "__main__":
    main()
