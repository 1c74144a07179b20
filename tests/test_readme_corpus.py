"""The README's *Building a corpus* section says what the code does.

* Every quality rule and every reason split-commit names is in the README's tables and
  in ``editpred split-commit --help``, defined in the same words as in the code.
* The walkthrough runs as written from a fresh clone of this repository, on its own
  history: the commands of its block, in a shell, each succeeding, with the outputs the
  comments show in shape (no failed commit, no lint error or quality finding, every
  example passing with ``oracle``). A clone too shallow to hold the history the block
  cuts (a CI checkout may be) gets the same commands on a clone of flask's real history.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepos import git
from zed_examples import FLASK_BUNDLE

from pytest_editpred.cli import main
from pytest_editpred.corpus import COMMIT_REASONS, FILE_REASONS, RULES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
SECTION = README[README.index("## Building a corpus") : README.index("## Writing a completion function")]


def rows(text: str) -> dict[str, str]:
    """``| `name` | definition |`` rows of the markdown tables in ``text``."""
    found = {}
    for match in re.finditer(r"^\| `([a-z0-9-]+)` \| (.*) \|$", text, re.M):
        found[match.group(1)] = match.group(2).replace("\\|", "|")
    return found


def test_every_rule_and_reason_is_in_the_readme_in_the_codes_words() -> None:
    table = rows(SECTION)
    for name, what in [(rule.name, rule.what) for rule in RULES] + list(COMMIT_REASONS) + list(FILE_REASONS):
        assert table.get(name) == what, name


def test_every_rule_and_reason_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["split-commit", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for name, what in [(rule.name, rule.what) for rule in RULES] + list(COMMIT_REASONS) + list(FILE_REASONS):
        assert f"{name} {' '.join(what.split())}" in shown, name


def walkthrough() -> list[str]:
    """The commands of the walkthrough's block, without ``pip install`` (done) and comments."""
    block = SECTION[SECTION.index("```sh\n") + 6 :]
    block = block[: block.index("```")]
    lines = [line.split("  #")[0].rstrip() for line in block.splitlines() if line and not line.startswith("#")]
    assert lines[:2] == ["pip install -e .", "URL=$(git remote get-url origin)"]
    return lines[2:]  # installed already; URL is set for every command


def test_the_walkthrough_names_no_file_outside_the_repository() -> None:
    assert "../" not in README and "shared/" not in README
    assert all(".." not in line.split("HEAD~")[0] for line in walkthrough())


@pytest.mark.slow
def test_the_walkthrough_runs_from_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-local", str(ROOT), str(clone))
    commands = walkthrough()
    history = int(git(clone, "rev-list", "--count", "HEAD"))
    needed = int(re.search(r"HEAD~(\d+)", " ".join(commands)).group(1)) + 1  # type: ignore[union-attr]
    if history < needed:  # a shallow checkout: the same commands on real history
        clone = tmp_path / "flask"
        git(tmp_path, "clone", "-q", str(FLASK_BUNDLE), str(clone))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("CI", None)
    outputs = []
    for command in commands:
        proc = subprocess.run(
            ["bash", "-c", "URL=$(git remote get-url origin); " + command],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, f"{command}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        outputs.append(proc.stdout)
    split, linted, divided, ran = outputs
    assert re.match(r"split-commit: \d+ commits read: \d+ written \((\d+) examples\), \d+ skipped, 0 failed", split)
    written = int(re.search(r"\((\d+) examples\)", split).group(1))  # type: ignore[union-attr]
    assert written > 10
    assert f"{written} examples in {written} files: no errors, no quality findings" in linted
    tested = int(re.search(r"own-test: (\d+) examples", divided).group(1))  # type: ignore[union-attr]
    assert re.search(rf"\b{tested} passed\b", ran), ran[-2000:]
