"""The README's promises: its two commands work in a fresh virtual environment, and
its conftest.py example is complete."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401
from zed_examples import VARIABLE, ZED

from conftest import SUB, Project

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def blocks(section: str, language: str) -> list[str]:
    body = README.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", body, re.DOTALL)


def copy_project(target: Path) -> None:
    """The files a clone would have: tracked and untracked-but-not-ignored."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


# A few of the plugin's own tests, run for real in the fresh environment (plainly and
# under -n 2): the installed plugin, its entry point and the test extras work there.
SMOKE = ["tests/test_plugin.py", "-k", "test_oracle_passes_and_noop_fails"]


def collected(output: str) -> int:
    """The count in ``--collect-only -q``'s last line (``1485 tests collected in 3s``)."""
    counts = re.findall(r"^(\d+) tests? collected", output, re.MULTILINE)
    assert len(counts) == 1, output[-3000:]
    return int(counts[0])


@pytest.mark.slow
def test_the_two_commands_in_a_fresh_virtual_environment(tmp_path: Path) -> None:
    """The README's two commands, run as written in a venv made from a copy of the
    project: the first (install, ``pytest evals/``) whole; the second (install the test
    extras, ``pytest``) installs, collects the whole suite (every test, as many as here)
    and runs a smoke subset for real, rather than the whole suite a second time."""
    install_and_eval, run_tests = (b.strip() for b in blocks("The two commands", "sh"))
    assert "pytest evals/" in install_and_eval
    install_extras, test_command = (part.strip() for part in run_tests.rsplit("&&", 1))
    assert install_extras.startswith("pip install") and test_command == "pytest", run_tests
    # What this interpreter collects here (meanwhile): the venv's run must collect the same.
    outer = tmp_path / "collected-here.txt"
    with outer.open("w") as sink:
        here = subprocess.Popen(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    project = tmp_path / "pytest-editpred"
    copy_project(project)
    venv = tmp_path / "venv"
    # The venv sees the machine's packages, but pip may not download anything (no
    # network in tests): the declared dependencies must be satisfied from what is
    # installed, and the package itself is built and installed from the copy.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    # pytest is satisfied from the machine, so pip would not write its launcher into
    # the venv: write it as `pip install pytest` would, so `pytest` is the venv's.
    launcher = venv / "bin" / "pytest"
    launcher.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys, pytest\nsys.exit(pytest.console_main())\n")
    launcher.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "EDITPRED_CACHE_DIR": str(tmp_path / "repo-cache"),
        VARIABLE: str(ZED),  # the copy has no git remote to find the upstream examples by
    }
    for name in ("PYTHONPATH", "PYTEST_ADDOPTS"):
        env.pop(name, None)

    def imported_from_the_copy() -> None:
        where = subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import pytest_editpred.plugin as p; print(p.__file__)"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert where.strip().startswith(str(project)), where

    def bash(command: str, timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", command], check=False, cwd=project, env=env, capture_output=True, text=True, timeout=timeout
        )

    first = bash(install_and_eval, timeout=900)
    out = first.stdout + first.stderr
    assert first.returncode in (0, 1), out  # 1: the baseline misses some examples
    assert re.search(r"\d+ predictions: \d+ passed", out), out
    assert "error" not in out.split("editpred summary")[-1].split("predictions:")[1].split(";")[0], out
    imported_from_the_copy()

    second = bash(f"{install_extras} && {test_command} --collect-only -q", timeout=600)
    assert second.returncode == 0, second.stdout[-5000:] + second.stderr[-3000:]
    imported_from_the_copy()
    assert here.wait(timeout=300) == 0, outer.read_text()[-5000:]
    assert collected(second.stdout) == collected(outer.read_text()), (second.stdout[-2000:], outer.read_text()[-2000:])

    smoke = bash(shlex.join([test_command, "-p", "no:cacheprovider", *SMOKE]), timeout=600)
    assert smoke.returncode == 0, smoke.stdout[-5000:] + smoke.stderr[-3000:]
    assert re.search(r"\b2 passed\b", smoke.stdout), smoke.stdout[-3000:]  # [plain] and [xdist]


@pytest.mark.xdist
def test_the_conftest_example_is_complete(project: Project, llm_server: LLMServer, plugin_args: list[str]) -> None:
    [example] = [b for b in blocks("Writing a completion function", "python") if "def editpred_completion" in b]
    project.pytester.makeconftest(example.replace("http://localhost:8000", llm_server.url))
    project.example("calc--sub", SUB)
    llm_server.answer("\n    return a - b")
    result = project.pytester.runpytest("evals", *plugin_args)
    result.assert_outcomes(passed=1)
    [request] = llm_server.requests
    assert request.path == "/v1/completions" and "<PRE>" in request.body["prompt"]
    assert textwrap.dedent(example).count("Prediction(") == 1
