"""Disk faults are messages, not crashes.

Reports that cannot be written (a full disk, a read-only directory, a path that is
a directory) are one warning line each in the terminal summary, naming the file,
the error and the fix; the items still run, the summary still prints, the exit
status stays the items' own and no temporary file is left. A repository cache that
is read-only or full is one ERROR per item, naming the directory and the fix.

The faults are real: a tmpfs filled to the last page gives ``ENOSPC``, a tmpfs
remounted read-only gives ``EROFS`` (root ignores ``chmod``), ``RLIMIT_FSIZE`` in a
child process gives ``EFBIG`` (see tests/mounts.py). Every plugin-level test runs
plainly and under ``-n 2``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mounts import full_disk, read_only_dir, remount_read_only, tmpfs

from conftest import SUB, Project
from pytest_editpred.reports import read_records

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

# Examples whose name has "bad" get a wrong answer, the others the right one.
COMPLETION = """
import pytest
from pytest_editpred import Prediction

LINE = "def sub(a, b):\\n"


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        body = "a * b" if "bad" in request.example.name else "a - b"
        return Prediction(text=request.text.replace(LINE, LINE + f"    return {body}\\n"), model="scripted")
    return complete
"""


def examples(project: Project, *names: str) -> None:
    project.pytester.makeconftest(COMPLETION)
    for name in names:
        project.example(name, SUB)


def run(project: Project, plugin_args: list[str], *args: str) -> pytest.RunResult:
    """One in-process run of the examples in ``evals`` with ``args``."""
    return project.pytester.runpytest("evals", *args, *plugin_args)


def assert_no_crash(output: str, *also: str) -> None:
    """The fault was a message: no traceback, no internal error (nor any of ``also``)."""
    for word in ("Traceback", "INTERNALERROR", *also):
        assert word not in output, output


def lines_matching(output: str, pattern: str) -> list[str]:
    return [line for line in output.splitlines() if re.search(pattern, line)]


def leftovers(folder: Path) -> list[str]:
    """Temporary files a writer may have left (ours are ``.<name>.<random>.tmp``)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and "tmp" in p.name)


def report_args(folder: Path) -> list[str]:
    return [
        f"--editpred-report={folder / 'r.jsonl'}",
        f"--editpred-html={folder / 'r.html'}",
        f"--editpred-summary-json={folder / 'summary.json'}",
    ]


def assert_one_warning(output: str, path: Path, error: str, fix: str) -> str:
    """Exactly one warning names ``path``, with the error and the fix on its line."""
    found = lines_matching(output, rf"^editpred warning: .*{re.escape(str(path))}\b")
    assert len(found) == 1, f"expected one warning for {path}, got {found}\n{output}"
    assert error in found[0] and fix in found[0], found[0]
    return found[0]


# ------------------------------------------------------------------------- full disk


@pytest.mark.xdist
def test_reports_on_a_full_disk_are_one_warning_each(
    project: Project, plugin_args: list[str], request: pytest.FixtureRequest
) -> None:
    examples(project, "calc--a", "calc--b", "calc--bad")
    disk = full_disk(project.pytester.path / "full", request)
    result = run(project, plugin_args, *report_args(disk))
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the items' own status, not the reports'
    out = result.stdout.str()
    assert_no_crash(out)
    assert len(lines_matching(out, r"^3 predictions: 2 passed, 1 failed")) == 1, out  # the summary printed
    error = "No space left on device [ENOSPC]"
    fix = f"Free space on the disk of {disk}, or point"
    line = assert_one_warning(out, disk / "r.jsonl", error, fix + " --editpred-report elsewhere")
    assert "holds only the first 0 of 3 records (writing record 1 failed)" in line, line
    assert_one_warning(out, disk / "r.html", error, fix + " --editpred-html elsewhere")
    assert_one_warning(out, disk / "summary.json", error, fix + " --editpred-summary-json elsewhere")
    assert len(lines_matching(out, r"^editpred warning:")) == 3, out
    # No "written" line for a file that was not; nothing half-written; no temp file.
    assert not lines_matching(out, r"^editpred (records|html|summary):"), out
    assert sorted(p.name for p in disk.iterdir()) == ["filler", "r.jsonl"]
    assert read_records(disk / "r.jsonl") == []


@pytest.mark.xdist
def test_all_passing_run_on_a_full_disk_still_passes(
    project: Project, plugin_args: list[str], request: pytest.FixtureRequest
) -> None:
    examples(project, "calc--a")
    disk = full_disk(project.pytester.path / "full", request)
    result = run(project, plugin_args, *report_args(disk))
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert len(lines_matching(result.stdout.str(), r"^editpred warning:")) == 3


@pytest.mark.xdist
def test_a_jsonl_report_that_fills_the_disk_keeps_every_complete_record(
    project: Project, plugin_args: list[str], request: pytest.FixtureRequest
) -> None:
    """Room for some records only: the file keeps the complete ones (the torn one is
    cut back), stops, and says how many of how many it holds."""
    names = [f"calc--{i:02d}" for i in range(12)]
    examples(project, *names)
    disk = full_disk(project.pytester.path / "full", request, free_pages=1)
    report = disk / "r.jsonl"
    result = run(project, plugin_args, f"--editpred-report={report}")
    result.assert_outcomes(passed=12)
    assert result.ret == pytest.ExitCode.OK
    out = result.stdout.str()
    line = assert_one_warning(out, report, "No space left on device [ENOSPC]", "Free space on the disk of")
    held = int(re.search(r"holds only the first (\d+) of 12 records", line).group(1))
    assert 0 < held < 12, line
    records = read_records(report)
    assert len(records) == held
    assert report.read_bytes().endswith(b"\n")  # no torn line: the partial write was cut
    assert all(r["outcome"] == "passed" and r["name"] in names for r in records)
    assert leftovers(disk) == []


def test_jsonl_report_under_a_file_size_limit_keeps_complete_records(tmp_path: Path) -> None:
    """``ulimit -f`` (RLIMIT_FSIZE) in a child process: the write that crosses it
    fails with EFBIG (CPython ignores SIGXFSZ); the file is cut to whole records."""
    path = tmp_path / "r.jsonl"
    script = textwrap.dedent(
        f"""
        import errno, json, resource, signal, sys
        from pytest_editpred.reports import JsonlReport
        # Under the limit, bytecode written for a module imported later would be cut
        # short (CPython does not check the write) and break every later process
        # sharing the test session's PYTHONPYCACHEPREFIX: write none from here on.
        sys.dont_write_bytecode = True
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        report = JsonlReport({str(path)!r}).open()
        written = 0
        try:
            for i in range(100):
                report.append({{"name": f"r{{i}}", "outcome": "passed", "text": "x" * 150}})
                written += 1
        except OSError as error:
            print(json.dumps({{"written": written, "errno": errno.errorcode[error.errno]}}))
        report.close()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["errno"] == "EFBIG" and 0 < outcome["written"] < 100
    records = read_records(path)
    assert [r["name"] for r in records] == [f"r{i}" for i in range(outcome["written"])]
    assert path.read_bytes().endswith(b"\n") and path.stat().st_size <= 1000


# ------------------------------------------------------------------- read-only and dirs


@pytest.mark.xdist
def test_reports_in_a_read_only_directory(
    project: Project, plugin_args: list[str], request: pytest.FixtureRequest
) -> None:
    examples(project, "calc--a", "calc--bad")
    folder = read_only_dir(project.pytester.path / "ro", request)
    nested = folder / "deeper"  # its parent cannot even be made
    args = [f"--editpred-report={folder / 'r.jsonl'}", f"--editpred-html={nested / 'r.html'}",
            f"--editpred-summary-json={folder / 'summary.json'}"]  # fmt: skip
    result = run(project, plugin_args, *args)
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert_no_crash(out)
    error = "Read-only file system [EROFS]"
    assert_one_warning(
        out, folder / "r.jsonl", error, "is on a read-only file system: point --editpred-report elsewhere"
    )
    assert_one_warning(out, nested / "r.html", error, "point --editpred-html elsewhere")
    assert_one_warning(out, folder / "summary.json", error, "point --editpred-summary-json elsewhere")
    assert len(lines_matching(out, r"^2 predictions: 1 passed, 1 failed")) == 1, out
    assert list(folder.iterdir()) == []


@pytest.mark.xdist
def test_report_paths_that_are_directories(project: Project, plugin_args: list[str]) -> None:
    examples(project, "calc--a")
    out_dir = project.pytester.path / "out"
    for name in ("r.jsonl", "r.html", "summary.json"):
        (out_dir / name).mkdir(parents=True)
    result = run(project, plugin_args, *report_args(out_dir))
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    out = result.stdout.str()
    for name, option in (("r.jsonl", "report"), ("r.html", "html"), ("summary.json", "summary-json")):
        assert_one_warning(out, out_dir / name, "Is a directory [EISDIR]", "The path is a directory: name a file")
        assert f"--editpred-{option} elsewhere" in out
    assert sorted(p.name for p in out_dir.iterdir()) == ["r.html", "r.jsonl", "summary.json"]  # no temp file
    assert all(not any((out_dir / name).iterdir()) for name in ("r.jsonl", "r.html", "summary.json"))


# -------------------------------------------------------------------- repository cache


def run_with_cache(project: Project, plugin_args: list[str], cache: Path) -> pytest.RunResult:
    return run(project, plugin_args, f"--editpred-cache-dir={cache}")


def assert_cache_errors(project: Project, plugin_args: list[str], cache: Path, error: str, fix: str) -> None:
    """Two examples run with the repository cache ``cache``, which cannot be written:
    each is one short ERROR naming the cache, ``error`` and ``fix``."""
    names = ("calc--0", "calc--1")
    examples(project, *names)
    result = run_with_cache(project, plugin_args, cache)
    count = len(names)
    result.assert_outcomes(errors=count)
    out = result.stdout.str()
    assert_no_crash(out, "OSError")
    for name in names:
        section = out.split(f"ERROR at setup of {name} ")[1].split("ERROR at setup of")[0]
        assert f"the repository cache {cache} cannot be written" in section, section
        assert error in section and fix in section, section
    # A few lines per item, not a traceback.
    errors_part = out.split("= ERRORS =")[1].split("editpred summary")[0]
    assert len(errors_part.splitlines()) < 20 * count, errors_part


@pytest.mark.xdist
def test_a_read_only_cache_is_one_error_per_item(
    project: Project, plugin_args: list[str], request: pytest.FixtureRequest
) -> None:
    cache = read_only_dir(project.pytester.path / "cache", request)
    assert_cache_errors(
        project, plugin_args, cache, "Read-only file system [EROFS]",
        f"fix: The repository cache {cache} is on a read-only file system: set editpred_cache_dir",
    )  # fmt: skip


@pytest.mark.xdist
def test_a_full_cache_is_one_error_per_item(
    project: Project, plugin_args: list[str], request: pytest.FixtureRequest
) -> None:
    cache = full_disk(project.pytester.path / "cache", request)
    assert_cache_errors(
        project, plugin_args, cache, "No space left on device",
        f"fix: Free space on the repository cache {cache}, or set editpred_cache_dir",
    )  # fmt: skip


@pytest.mark.xdist
def test_a_read_only_cache_that_holds_everything_still_serves(
    project: Project, plugin_args: list[str], request: pytest.FixtureRequest
) -> None:
    """Reading writes nothing: a cache filled by an earlier run, then made read-only
    (a CI image, a shared mount), runs the same examples with no error."""
    examples(project, "calc--a", "calc--bad")
    cache = tmpfs(project.pytester.path / "cache", request, size="16m")
    run_with_cache(project, plugin_args, cache).assert_outcomes(passed=1, failed=1)
    remount_read_only(cache)
    result = run_with_cache(project, plugin_args, cache)
    result.assert_outcomes(passed=1, failed=1)
    assert "cannot be written" not in result.stdout.str()
