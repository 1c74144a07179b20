"""What the plugin costs every pytest start-up, by what it imports.

pytest imports ``pytest_editpred.plugin`` on every run of every suite in an
environment where the package is installed. Timings are too noisy for a test (the
figure is ``bench/bench_startup.py``'s); what keeps them small is checked instead:
in a fresh interpreter, the plugin import and a whole pytest run of a suite without
examples load none of the heavy libraries, and the plugin import loads almost nothing
of the package itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "markdown_it", "git", "httpx", "httpcore", "h11", "filelock", "rapidfuzz", "tree_sitter",
    "pytest_editpred.metrics", "pytest_editpred.zeta", "pytest_editpred.providers",
    "pytest_editpred.reports",
)  # fmt: skip

#: All the package may load when pytest imports the entry point.
AT_IMPORT = {"pytest_editpred", "pytest_editpred.integration", "pytest_editpred.plugin"}


def heavy(modules: list[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def fresh(code: str, cwd: Path | None = None) -> list[str]:
    """``sys.modules`` (new since ``import pytest``) after ``code`` in a new interpreter."""
    script = (
        "import sys, json, pytest\nbefore = set(sys.modules)\n"
        + code
        + ("\nprint(json.dumps(sorted(set(sys.modules) - before)))\n")
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDITPRED_EXAMPLE_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_the_plugin_loads_no_heavy_module() -> None:
    loaded = fresh("import pytest_editpred.plugin")
    assert heavy(loaded) == []
    ours = {m for m in loaded if m.startswith("pytest_editpred")}
    assert ours == AT_IMPORT, ours - AT_IMPORT


def test_the_public_names_are_still_there_on_first_use() -> None:
    import pytest_editpred
    from pytest_editpred import _exceptions

    assert set(pytest_editpred._ERRORS) == set(_exceptions.__all__)
    assert set(_exceptions.__all__) <= set(pytest_editpred.__all__)
    for name in pytest_editpred.__all__:
        assert getattr(pytest_editpred, name) is not None, name
    assert pytest_editpred.ConfigError is _exceptions.ConfigError


@pytest.mark.parametrize("readme", [False, True], ids=["py-only", "with-a-markdown-file"])
def test_a_suite_without_examples_loads_no_heavy_module(tmp_path: Path, readme: bool) -> None:
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    if readme:  # a .md file that is not an example: read, recognised as none, left alone
        (tmp_path / "README.md").write_text("# not an example\n")
    loaded = fresh('assert pytest.main(["-q", "-p", "no:cacheprovider", "."]) == 0', cwd=tmp_path)
    assert "pytest_editpred.plugin" in loaded  # the plugin did run
    assert heavy(loaded) == []
    assert "pytest_editpred.integration.runner" not in loaded
    if not readme:  # nothing that could be an example: not even the collector
        assert "pytest_editpred.integration.collect" not in loaded


@pytest.mark.parametrize("jobs", [[], pytest.param(["-n", "2"], marks=pytest.mark.slow)], ids=["plain", "xdist"])
def test_an_example_run_still_loads_what_it_needs(tmp_path: Path, jobs: list[str]) -> None:
    # The lazy imports are made where they are needed: a run of the corpus works.
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDITPRED_EXAMPLE_")}
    env["EDITPRED_CACHE_DIR"] = str(tmp_path / "repos")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "evals/pyshapes--complete-radius.md", "-p", "no:cacheprovider",
         "--editpred-provider=oracle", *jobs],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "1 predictions: 1 passed" in done.stdout
