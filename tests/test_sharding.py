"""The README's recipe beyond one machine: shards of a corpus run apart
(``pytest-split``), then one ``editpred report`` over their JSONL records.

Real shards of the repository's own ``evals/`` (offline: the ``baseline`` provider and
the corpus's bundled repositories) in child processes, as CI jobs would run them: the
merged summary JSON is the one run's, field for field, and the records are the one
run's apart from latency. The recipe's commands are the README's, read from it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARDS = 3

pytestmark = pytest.mark.slow


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "EDITPRED_"))}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


def records(path: Path) -> dict[str, dict[str, object]]:
    """Each record by its node id, latency left out (a shard's clock is its own)."""
    found = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        record.pop("latency")
        found[record["nodeid"]] = record
    return found


def test_shards_merged_by_editpred_report_are_one_run(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    recipe = readme.split("### Beyond one machine", 1)[1].split("\n## ", 1)[0]
    assert "--splits" in recipe and "--group" in recipe and "editpred report" in recipe
    base = [sys.executable, "-m", "pytest", str(ROOT / "evals"), "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT)]

    whole = run([*base, "--editpred-report", "all.jsonl", "--editpred-summary-json", "one.json"], tmp_path)
    assert whole.returncode in (0, 1), whole.stdout[-3000:] + whole.stderr[-3000:]  # the baseline misses some
    counted = 0
    for shard in range(SHARDS):
        part = run(
            [*base, "--splits", str(SHARDS), "--group", str(shard + 1), "--editpred-report", f"shard-{shard}.jsonl"],
            tmp_path,
        )
        assert part.returncode in (0, 1), part.stdout[-3000:] + part.stderr[-3000:]
        counted += sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed)", part.stdout.splitlines()[-1]))
    shards = [f"shard-{shard}.jsonl" for shard in range(SHARDS)]
    merged = run(["editpred", "report", *shards, "--summary-json", "merged.json"], tmp_path)
    assert merged.returncode == 0, merged.stdout + merged.stderr

    assert counted == len(records(tmp_path / "all.jsonl")) == 29  # every example in exactly one shard
    assert json.loads((tmp_path / "merged.json").read_text()) == json.loads((tmp_path / "one.json").read_text())
    together: dict[str, dict[str, object]] = {}
    for name in shards:
        part_records = records(tmp_path / name)
        assert part_records and not set(part_records) & set(together)
        together.update(part_records)
    assert together == records(tmp_path / "all.jsonl")
