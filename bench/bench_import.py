"""What the plugin costs a test suite that has no examples.

Run by hand: ``python bench/bench_import.py``. pytest imports every installed
plugin on every run, so the plugin module must stay light. Prints the import time
of ``pytest_editpred.plugin`` on top of pytest (``-X importtime``). Whole-run wall
times were too noisy here to show a difference of this size (other plugins'
start-up varies by hundreds of milliseconds), so they are not printed.
"""

from __future__ import annotations

import re
import subprocess
import sys


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


def main() -> None:
    own, cumulative = import_cost()
    print(f"import pytest_editpred.plugin: {own:.1f} ms in the package's own modules ({cumulative:.1f} ms cumulative)")


if __name__ == "__main__":
    main()
