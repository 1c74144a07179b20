"""This repository's own corpus (evals/): sound, offline, and as the README says.

Each run is a real ``pytest evals/`` in a subprocess from the repository root, with
the bundled repositories mapped by pyproject.toml and a fresh repository cache.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test runs the whole corpus in child pytest sessions (~3 s)

ROOT = Path(__file__).resolve().parents[1]


def run_evals(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EDITPRED_CACHE_DIR": str(tmp_path / "repos")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "evals/", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def outcomes(result: subprocess.CompletedProcess[str]) -> dict[str, int]:
    last = result.stdout.strip().splitlines()[-1]
    return {noun: int(count) for count, noun in re.findall(r"(\d+) (passed|failed|errors?)", last)}


def collected(tmp_path: Path) -> int:
    result = run_evals(tmp_path, "--collect-only", "-q")
    return int(re.search(r"(\d+) tests? collected", result.stdout).group(1))


@pytest.mark.parametrize("jobs", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_oracle_passes_every_example(tmp_path: Path, jobs: list[str]) -> None:
    total = collected(tmp_path)
    assert total >= 20
    result = run_evals(tmp_path, "--editpred-provider=oracle", "--editpred-offline", *jobs)
    assert result.returncode == 0, result.stdout[-3000:]
    assert outcomes(result) == {"passed": total}


def test_noop_fails_every_example_that_expects_a_change(tmp_path: Path) -> None:
    total = collected(tmp_path)
    result = run_evals(tmp_path, "--editpred-provider=noop")
    assert outcomes(result) == {"failed": total}, result.stdout[-3000:]
    assert "best: expected patch" in result.stdout and "Traceback" not in result.stdout


def test_baseline_score_is_the_one_the_readme_states(tmp_path: Path) -> None:
    total = collected(tmp_path)
    result = run_evals(tmp_path)  # no provider configured: the baseline
    counts = outcomes(result)
    assert counts.get("errors", 0) == 0 and counts.get("error", 0) == 0
    readme = (ROOT / "README.md").read_text()
    stated = re.search(r"\*\*(\d+) of (\d+) \((\d+)%\)\*\* on `evals/`", readme)
    assert stated is not None
    assert (int(stated.group(1)), int(stated.group(2))) == (counts.get("passed", 0), total)


def test_reports_on_a_fresh_clone(tmp_path: Path) -> None:
    report, html = tmp_path / "r.jsonl", tmp_path / "r.html"
    result = run_evals(tmp_path, f"--editpred-report={report}", f"--editpred-html={html}")
    assert result.returncode in (0, 1), result.stdout[-3000:]
    records = [json.loads(line) for line in report.read_text().splitlines()]
    assert len(records) == collected(tmp_path)
    assert all(r["provider"] == "baseline" and r["metrics"] for r in records)
    page = html.read_text()
    assert all(r["name"] in page for r in records)
    assert "<script src=" not in page and "<link" not in page
