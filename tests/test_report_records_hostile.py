"""Records from outside: every malformed record is one line, never a traceback.

A JSONL record read back is data from outside (another machine, tool or version, a
hand edit). The installed commands (``editpred-report``, ``editpred report``) and
``pytest --editpred-baseline`` read it through ``read_records``, which holds each
record against the :class:`~pytest_editpred.reports.Record` type: a bad record is
one line naming the file, the line and the field, and is skipped while the good
records are still summarised; a line that is not JSON stops the command (exit
status 2); a gate over skipped records is not applied (exit status 2, never 1).

Before the reader checked records, each case below ended in a traceback (exit
status 1 for the commands, an uncaught error after every item for pytest), or
passed silently with no line naming it.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import SUB, Project
from pytest_editpred import ConfigError
from pytest_editpred._safe_json import JSONDepthError, check_depth
from pytest_editpred.metrics import PredictionScore
from pytest_editpred.providers._replay import load_replay
from pytest_editpred.reports import JsonlReport, RecordError, check_record, read_records


def score(chrf: float) -> dict[str, Any]:
    """Whole metrics, as a scored prediction's are written."""
    return PredictionScore.zero(delta_chr_f=chrf, exact_lines_tp=1, exact_lines_fn=1).to_dict()


def record(name: str, outcome: str = "passed", chrf: float = 100.0, **extra: Any) -> dict[str, Any]:
    """A record as a run writes it (every field, in the type's order)."""
    base: dict[str, Any] = {
        "name": name,
        "nodeid": f"evals/{name}.md::{name}",
        "path": f"evals/{name}.md",
        "repository_url": "https://github.com/acme/calc",
        "revision": "a" * 40,
        "tags": ["completion"],
        "provider": "oracle",
        "model": None,
        "trial": 1,
        "outcome": outcome,
        "reason": None,
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.25}],
        "latency": 0.25,
        "cached": False,
        "usage": {"prompt_tokens": 12},
        "predicted_patch": None,
        "predicted_text": "def sub(a, b):\n    return a - b\n",
        "predicted_cursor": {"path": "calc.py", "offset": 3},
        "prompt": None,
        "raw_output": None,
        "matched_candidate": 1 if outcome == "passed" else None,
        "best_candidate": 1,
        "expected_cursor": False,
        "metrics": score(chrf),
        "notes": [],
    }
    base.update(extra)
    return base


def line(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def bad(**changes: Any) -> Callable[[], str]:
    """A bad record: a good one with ``changes`` (a value of ``...`` removes the key)."""

    def make() -> str:
        value = record("calc--bad")
        for key, new in changes.items():
            if new is ...:
                del value[key]
            else:
                value[key] = new
        return line(value)

    return make


def nested(levels: int) -> object:
    value: object = 1.0
    for _ in range(levels):
        value = {"x": value}
    return value


def deep_metrics() -> str:
    """Metrics nested 99 deep: under the reader's JSON depth limit (100), so the
    line parses and only the type can refuse it."""
    text = line(record("calc--bad", metrics={**score(50.0), "delta_chr_f": nested(97)}))
    check_depth(text, 99)
    with pytest.raises(JSONDepthError):
        check_depth(text, 98)
    return text


def without_score_field() -> str:
    metrics = score(50.0)
    del metrics["braces_disbalance"]
    return line(record("calc--bad", metrics=metrics))


def jump_location_with_a_stranger() -> str:
    jump = {k: 0 for k in ("files_tp", "files_fp", "files_fn", "lines_tp", "lines_fp", "lines_fn")}
    return line(record("calc--bad", metrics={**score(50.0), "jump_location": {**jump, "extra": 1}}))


#: (id, the bad line, what its message must say). The comments say what the command
#: did with it before (``editpred-report``, ``--html`` for notes); the others it took
#: silently, as good records.
CASES: list[tuple[str, Callable[[], str], str]] = [
    ("int-name", bad(name=5), "record field 'name' must be a string, not an integer"),  # TypeError: len()
    ("no-name", bad(name=...), "record field 'name' is missing"),  # KeyError
    ("no-nodeid", bad(nodeid=...), "record field 'nodeid' is missing"),  # all such records one example
    ("metrics-list", bad(metrics=[1, 2]), "record field 'metrics' must be an object, not a list"),  # AttributeError
    ("metrics-string", bad(metrics="good"), "record field 'metrics' must be an object, not a string"),
    (
        "metric-string",
        bad(metrics={**score(50.0), "delta_chr_f": "high"}),
        "record field 'metrics.delta_chr_f' must be a number, not a string",  # ValueError: format code 'f'
    ),
    ("notes-int", bad(notes=3), "record field 'notes' must be a list, not an integer"),
    ("metrics-99-deep", deep_metrics, "record field 'metrics.delta_chr_f' must be a number, not an object"),
    ("outcome-unknown", bad(outcome="xpassed"), "record field 'outcome' must be one of "),
    ("trial-string", bad(trial="1"), "record field 'trial' must be an integer, not a string"),
    ("attempts-object", bad(attempts={"ordinal": 1}), "record field 'attempts' must be a list, not an object"),
    (
        "attempt-latency-string",
        bad(attempts=[{"ordinal": 1, "error": None, "latency": "slow"}]),
        "record field 'attempts[0].latency' must be a number, not a string",
    ),
    ("not-an-object", lambda: "[1, 2]", "the line is a JSON list, not a record object"),  # stopped: exit 2
    (
        "trial-5000-digits",  # ValueError from json.loads itself: Python's 4,300-digit limit
        lambda: bad(trial=1)().replace('"trial": 1', '"trial": 1' + "0" * 5000),
        "record field 'trial' must be an integer, not a number out of range",
    ),
    ("latency-1e400", lambda: bad(latency=1.0)().replace('"latency": 1.0', '"latency": 1e400'), "'latency' must be a"),
    ("latency-NaN", lambda: bad(latency=1.0)().replace('"latency": 1.0', '"latency": NaN'), "'latency' must be a"),
    ("count-2**60", bad(usage={"prompt_tokens": 2**60}), "record field 'usage[\"prompt_tokens\"]' must be a number"),
    ("bool-chrf", bad(metrics={**score(50.0), "delta_chr_f": True}), "'metrics.delta_chr_f' must be a number, not a"),
    ("partial-score", without_score_field, "record field 'metrics.braces_disbalance' is missing"),  # None.__format__
    ("jump-location-extra-key", jump_location_with_a_stranger, "record field 'metrics.jump_location[\"extra\"]'"),
    (
        "key-with-escapes",  # the key is shown escaped: it cannot break the line or colour the terminal
        bad(usage={"\n\x1b[31mgate: passed": "1"}),
        "record field 'usage[\"\\n\\u001b[31mgate: passed\"]' must be an integer, not a string",
    ),
]


def write_file(path: Path, names: tuple[str, str] = ("calc--a", "calc--b")) -> dict[int, tuple[str, str]]:
    """A file of one good passed and one good failed record around every bad case;
    the bad cases by line number."""
    a, b = names
    lines = [line(record(a, "passed", 100.0))]
    where: dict[int, tuple[str, str]] = {}
    for case, make, message in CASES:
        lines.append(make())
        where[len(lines)] = (case, message)
    lines.append(line(record(b, "failed", 40.0)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return where


def command(name: str) -> list[str]:
    """The installed console script (``editpred-report`` or ``editpred report``)."""
    script, *sub = name.split()
    found = Path(sysconfig.get_path("scripts")) / script
    path = str(found) if found.exists() else shutil.which(script)
    assert path, f"the console script {script} is not installed (pip install -e .)"
    return [path, *sub]


def run(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(name), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def assert_told_once(output: str, prefix: str, where: dict[int, tuple[str, str]]) -> None:
    """Exactly one line per bad record, naming the file, its line and the field."""
    told = [text for text in output.splitlines() if prefix in text]
    for number, (case, message) in where.items():
        mine = [text for text in told if f"{prefix}{number}: " in text]
        assert len(mine) == 1, f"{case}: {mine or told}"
        assert message in mine[0] and mine[0].endswith("(skipped)"), f"{case}: {mine[0]}"
    assert len(told) == len(where), "\n".join(told)


def assert_no_traceback(*outputs: str) -> None:
    for output in outputs:
        assert "Traceback" not in output and "INTERNALERROR" not in output, output[-3000:]


# ----------------------------------------------------------------------- the commands


@pytest.mark.parametrize("name", ["editpred-report", "editpred report"])
def test_each_bad_record_is_one_line_and_the_good_ones_are_summarised(name: str, tmp_path: Path) -> None:
    where = write_file(tmp_path / "r.jsonl")
    done = run(name, "r.jsonl", cwd=tmp_path)
    assert_no_traceback(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    assert_told_once(done.stderr, f"{name}: r.jsonl:", where)
    assert len(done.stderr.splitlines()) == len(CASES)  # nothing else on stderr
    assert "2 predictions: 1 passed, 1 failed; pass rate 50.0% of 2" in done.stdout
    assert "mean delta-chrF 70.0 over 2 scored" in done.stdout
    assert "calc--bad" not in done.stdout


def test_baseline_html_and_summary_json_read_the_good_records_only(tmp_path: Path) -> None:
    new = write_file(tmp_path / "new.jsonl")
    old = write_file(tmp_path / "old.jsonl", names=("calc--b", "calc--a"))  # a passed before, b failed
    done = run(
        "editpred-report",
        "new.jsonl",
        "--baseline",
        "old.jsonl",
        "--html",
        "page.html",
        "--summary-json",
        "summary.json",
        cwd=tmp_path,
    )
    assert_no_traceback(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    assert_told_once(done.stderr, "editpred-report: new.jsonl:", new)
    assert_told_once(done.stderr, "editpred-report: old.jsonl:", old)
    assert "compared 2 old and 2 new examples: 1 improved, 1 regressed, 0 unchanged, 0 new, 0 missing" in done.stdout
    assert (tmp_path / "page.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the summary JSON")

    summary = json.loads((tmp_path / "summary.json").read_text(), parse_constant=refuse)
    assert summary["total_examples"] == 2 and summary["avg_delta_chr_f"] == 70.0


@pytest.mark.parametrize(
    ("gate", "baseline_bad"),
    [(["--fail-under", "10"], False), (["--fail-on-regression"], True), (["--fail-on-regression"], False)],
    ids=["fail-under", "regression-baseline-bad", "regression-reports-bad"],
)
def test_a_gate_over_skipped_records_is_not_applied(gate: list[str], baseline_bad: bool, tmp_path: Path) -> None:
    good = "\n".join(line(record(n)) for n in ("calc--a", "calc--b")) + "\n"
    broken = good + bad(metrics=[1])() + "\n"
    (tmp_path / "new.jsonl").write_text(good if baseline_bad else broken)
    (tmp_path / "old.jsonl").write_text(broken if baseline_bad else good)
    done = run("editpred-report", "new.jsonl", "--baseline", "old.jsonl", *gate, cwd=tmp_path)
    assert_no_traceback(done.stdout, done.stderr)
    # Not 0: the gate could not see every record; not 1: no gate failed.
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not applied: 1 record(s)" in done.stdout
    assert done.stderr.count("(skipped)") == 1
    # The same files without the bad record pass the gate.
    (tmp_path / "new.jsonl").write_text(good)
    (tmp_path / "old.jsonl").write_text(good)
    assert run("editpred-report", "new.jsonl", "--baseline", "old.jsonl", *gate, cwd=tmp_path).returncode == 0


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{nope", "r.jsonl:2: line 2 is not valid JSON"),
        ("[" * 101 + "]" * 101, "r.jsonl:2: line 2 is not valid JSON: JSON nested deeper than 100 levels"),
        ('{"name": "\xff"}', "r.jsonl:2: line 2 is not valid JSON"),
    ],
    ids=["not-json", "101-deep", "not-utf8"],
)
def test_a_line_that_is_not_json_stops_the_command_in_one_line(text: str, said: str, tmp_path: Path) -> None:
    good = line(record("calc--a"))
    (tmp_path / "r.jsonl").write_bytes(
        (good + "\n").encode() + text.encode("latin-1" if "\xff" in text else "utf-8") + b"\n" + good.encode()
    )
    done = run("editpred-report", "r.jsonl", cwd=tmp_path)
    assert_no_traceback(done.stdout, done.stderr)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()] and said in done.stderr, done.stderr
    assert done.stdout == ""


def test_a_file_of_bad_records_only_holds_no_record(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text(bad(name=5)() + "\n")
    done = run("editpred-report", "r.jsonl", cwd=tmp_path)
    assert_no_traceback(done.stdout, done.stderr)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "editpred-report: r.jsonl:1: record field 'name' must be a string, not an integer (skipped)",
        "editpred-report: the reports hold no record (1 skipped)",
    ]


def test_a_line_over_the_size_limit_is_skipped_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_editpred.reports import _jsonl

    monkeypatch.setattr(_jsonl, "MAX_RECORD_BYTES", 4000)
    good = line(record("calc--a"))
    assert len(good) < 4000
    path = tmp_path / "r.jsonl"
    huge = line(record("calc--big", predicted_text="x" * 10_000))
    path.write_text(f"{good}\n{huge}\n{good}\n{huge}")  # the last one without its newline, too
    skipped: list[str] = []
    assert len(read_records(path, skip=skipped.append, complete=True)) == 2
    assert skipped == [
        f"{path}:2: the line is longer than 4,000 bytes (skipped)",
        f"{path}:4: the line is longer than 4,000 bytes (skipped)",
    ]


# ----------------------------------------------------------------------------- pytest


@pytest.mark.xdist
def test_a_baseline_with_bad_records_still_compares_the_good_ones(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    old = project.pytester.path / "old.jsonl"
    where = write_file(old, names=("calc--b", "calc--a"))  # a failed before, b passed
    page = project.pytester.path / "page.html"
    result = project.pytester.runpytest(
        "evals", "--editpred-provider=oracle", f"--editpred-baseline={old}", f"--editpred-html={page}", *plugin_args
    )
    output = result.stdout.str() + result.stderr.str()
    assert_no_traceback(output)
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*2 predictions: 2 passed*",
            "compared 2 old and 2 new examples: 1 improved, 0 regressed, 1 unchanged, 0 new, 0 missing",
            "improved (1):",
            "  calc--a: failed -> passed (chrF 40.0 -> 100.0)",
        ]
    )
    # Once each, in the terminal summary, where a report's other faults are told.
    assert_told_once(output, f"editpred warning: --editpred-baseline {old.resolve()}:", where)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.xdist
def test_the_regression_gate_refuses_a_baseline_with_bad_records(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    old = project.pytester.path / "old.jsonl"
    old.write_text(line(record("calc--a", "failed", 40.0)) + "\n" + bad(metrics="x")() + "\n")
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=oracle",
        f"--editpred-baseline={old}",
        "--editpred-fail-on-regression",
        *plugin_args,
    )
    output = result.stdout.str() + result.stderr.str()
    assert_no_traceback(output)
    # Before the first item: the gate could pass the run on the record it cannot read.
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--editpred-baseline: 1 record(s) of *old.jsonl cannot be read, and --editpred-fail-on-regression needs*",
            f"{old.resolve()}:2: record field 'metrics' must be an object, not a string (skipped)",
        ]
    )


# ----------------------------------------------------------------------------- replay


def test_replay_reads_a_runs_records_split_on_newlines_only(tmp_path: Path) -> None:
    """A model's answer may hold U+2028 or U+0085, which the report writes unescaped:
    the replay file is split where the report's lines end, not inside a string."""
    path = tmp_path / "r.jsonl"
    text = "def sub(a, b):\u2028\x85\n    return a - b\n"
    with JsonlReport(path) as report:
        report.append(record("calc--a", predicted_text=text, raw_output="x\u2028y"))
    by_trial, _ = load_replay(path)
    assert by_trial["calc--a", 1].text == text and by_trial["calc--a", 1].raw_output == "x\u2028y"
    assert read_records(path)[0]["predicted_text"] == text


def test_replay_names_the_line_of_a_huge_number(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"name": "calc--a", "patch": ""}\n{"name": "calc--b", "trial": 1' + "0" * 5000 + "}\n")
    with pytest.raises(ConfigError) as caught:  # was a bare ValueError out of json.loads: INTERNALERROR
        load_replay(path)
    assert str(caught.value).startswith(f"{path}:2: 'trial' must be an integer")


def test_numbers_are_checked_as_the_type_says() -> None:
    ok = record("calc--a", latency=None, attempts=[{"ordinal": 1, "error": None, "latency": None}])
    assert check_record(ok, complete=True) is ok  # NaN is written as null: a float field takes it
    with pytest.raises(RecordError, match="'metrics.delta_chr_f' is null"):
        check_record(record("calc--a", metrics={**score(1.0), "delta_chr_f": None}), complete=True)
    with pytest.raises(RecordError, match="'trial' must be an integer, not a boolean"):
        check_record(record("calc--a", trial=True))
    with pytest.raises(RecordError, match="'latency' must be a finite number"):
        check_record(record("calc--a", latency=math.inf))
    # An older file's record: no prompt, notes, best candidate; a closest_candidate.
    old = {k: v for k, v in record("calc--a").items() if k not in ("prompt", "notes", "best_candidate")}
    assert check_record({**old, "closest_candidate": 1}, complete=True)


@pytest.mark.parametrize(
    "argv",
    [
        ["report"],
        ["distill", "-o", "{tmp}/out"],
        [
            "judge",
            "-o",
            "{tmp}/out.jsonl",
            "--judge=openai-chat",
            "--judge-model=m",
            "--judge-base-url=http://127.0.0.1:9",
        ],
        ["repair", "-o", "{tmp}/out.jsonl", "--base-url=http://127.0.0.1:9"],
    ],
    ids=["report", "distill", "judge", "repair"],
)
def test_a_fifo_named_as_the_report_is_one_line_not_a_wait(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    from pytest_editpred.cli import main

    fifo = tmp_path / "run.jsonl"
    os.mkfifo(fifo)  # opened for reading with no writer, it would wait forever
    status = main([argv[0], str(fifo), *(arg.replace("{tmp}", str(tmp_path)) for arg in argv[1:])])
    err = capsys.readouterr().err
    assert status == 2
    [line] = err.strip().splitlines()
    assert f"{fifo}: cannot read the JSONL report: it is a FIFO (named pipe), not a file" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]  # nothing written
