"""The ``editpred`` command itself: its subcommands, exit statuses and output rules.

Each subcommand's own work is tested in its file (``test_split_commit.py``,
``test_import.py``, ``test_lint.py``, ``test_split.py``, ``test_report_jsonl.py``);
here: the dispatch, ``editpred report`` as ``editpred-report``, and the console
every subcommand reports through.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from pytest_editpred.cli import Console, main

SUBCOMMANDS = (
    "split-commit", "import", "lint", "split", "truncate-patch", "filter-languages", "prompt", "judge", "repair",
    "distill", "context", "report",
)  # fmt: skip


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--help"])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert f"    {name}\n" in out or f"    {name} " in out, name


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_has_its_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main([name, "--help"])
    assert exit.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: editpred {name} ")


@pytest.mark.parametrize("argv", [[], ["no-such-command"], ["lint", "--no-such-option"]])
def test_a_usage_error_is_exit_status_2_in_one_short_message(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: editpred") and "Traceback" not in err
    assert err.splitlines()[-1].startswith("editpred")


def test_report_is_editpred_report_under_the_one_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "/nonexistent/report.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("editpred report: /nonexistent/report.jsonl: cannot read the JSONL report")
    assert "Traceback" not in err


def test_the_installed_command_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from pytest_editpred.cli import main; sys.exit(main())", "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "split-commit" in done.stdout, done.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_problem_is_one_line_naming_the_place_the_fix_and_no_control_character() -> None:
    out, err = io.StringIO(), io.StringIO()
    console = Console(out, err)
    console.problem("corpus/a.jsonl", "bad row:\nname \x1b[31m", "Fix the row.", line=7)
    assert err.getvalue() == "corpus/a.jsonl:7: bad row: name \\x1b[31m (Fix the row.)\n"
    assert console.problems == 1 and out.getvalue() == ""


def test_progress_is_drawn_on_a_terminal_only_and_cleared_before_other_output() -> None:
    piped = io.StringIO()
    Console(io.StringIO(), piped).progress(3, 10, "commits")
    assert piped.getvalue() == ""
    out, terminal = io.StringIO(), _Terminal()
    console = Console(out, terminal)
    console.progress(3, 10, "commits")
    console.summary("done")
    assert terminal.getvalue() == "\rcommits 3/10\x1b[K\r\x1b[K"
    assert out.getvalue() == "done\n"
