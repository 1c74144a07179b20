"""The JSONL report: durable lines, a torn last line tolerated, corruption located."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_editpred import ConfigError
from pytest_editpred.reports import JsonlReport, read_records, scrub_secrets


def record(name: str = "ex", **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "nodeid": f"evals/{name}.md::{name}",
        "path": f"/repo/evals/{name}.md",
        "repository_url": "https://github.com/acme/calc",
        "revision": "a" * 40,
        "tags": ["completion"],
        "provider": "oracle",
        "model": None,
        "trial": 1,
        "outcome": "passed",
        "reason": None,
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.25}],
        "latency": 0.25,
        "cached": False,
        "predicted_patch": "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-x\n+y\n",
        "predicted_text": None,
        "predicted_cursor": {"path": "calc.py", "offset": 3},
        "matched_candidate": 1,
        "metrics": {"delta_chr_f": 100.0, "cursor_exact_match": True},
    }
    base.update(extra)
    return base


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "out" / "run.jsonl"  # the parent is created
    records = [record("a"), record("b", outcome="failed", reason="wrong\nanswer"), record("c", tags=[])]
    with JsonlReport(path) as report:
        for r in records:
            report.append(r)
        assert report.count == 3
    assert path.read_text(encoding="utf-8").count("\n") == 3
    assert read_records(path) == records


def test_each_record_is_on_disk_before_append_returns(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    report = JsonlReport(path).open()
    report.append(record("a"))
    # Another reader sees the record while the report is still open.
    assert [r["name"] for r in read_records(path)] == ["a"]
    report.append(record("b"))
    assert [r["name"] for r in read_records(path)] == ["a", "b"]
    report.close()
    report.close()  # idempotent


def test_open_truncates_a_previous_run(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with JsonlReport(path) as report:
        report.append(record("old"))
    with JsonlReport(path) as report:
        report.append(record("new"))
    assert [r["name"] for r in read_records(path)] == ["new"]


def test_append_needs_open(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not open"):
        JsonlReport(tmp_path / "run.jsonl").append(record())


def test_a_killed_writer_leaves_every_finished_record(tmp_path: Path) -> None:
    """A real process is killed (SIGKILL, no cleanup) after three appends."""
    path = tmp_path / "run.jsonl"
    script = textwrap.dedent(
        f"""
        import os, signal
        from pytest_editpred.reports import JsonlReport
        report = JsonlReport({str(path)!r}).open()
        for i in range(3):
            report.append({{"name": f"r{{i}}", "outcome": "passed"}})
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], check=False)
    assert done.returncode != 0
    assert [r["name"] for r in read_records(path)] == ["r0", "r1", "r2"]


def test_a_torn_last_line_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    line = json.dumps(record("a"))
    path.write_text(line + "\n" + line[: len(line) // 2], encoding="utf-8")
    assert [r["name"] for r in read_records(path)] == ["a"]


def test_a_torn_multibyte_character_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    good = json.dumps(record("a"), ensure_ascii=False).encode()
    torn = json.dumps(record("ü→"), ensure_ascii=False).encode()
    cut = torn.index("→".encode()) + 1  # inside the 3-byte character
    path.write_bytes(good + b"\n" + torn[:cut])
    assert [r["name"] for r in read_records(path)] == ["a"]


def test_a_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(record("a")) + "\n\n" + json.dumps(record("b")), encoding="utf-8")
    assert [r["name"] for r in read_records(path)] == ["a", "b"]


def test_a_corrupt_middle_line_is_located(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    line = json.dumps(record("a"))
    path.write_text(line + "\n" + line[:20] + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_records(path)
    assert caught.value.path == str(path)
    assert caught.value.line == 2
    assert f"{path}:2" in str(caught.value)


def test_a_corrupt_terminated_last_line_is_an_error(tmp_path: Path) -> None:
    """A torn write never ends in a newline; a bad line that does is corruption."""
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(record("a")) + "\n{nope\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 2"):
        read_records(path)


def test_a_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a record object") as caught:
        read_records(path)
    assert caught.value.line == 1


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        read_records(tmp_path / "nope.jsonl")


def test_line_separators_inside_strings_do_not_split_records(tmp_path: Path) -> None:
    """U+2028, U+0085 and \\r are line breaks to str.splitlines, not to JSONL."""
    path = tmp_path / "run.jsonl"
    text = "a\u2028b\x85c\rd\ne"
    with JsonlReport(path) as report:
        report.append(record("a", predicted_text=text))
    assert read_records(path)[0]["predicted_text"] == text


def test_non_finite_numbers_are_written_as_null(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with JsonlReport(path) as report:
        report.append(record("a", metrics={"delta_chr_f": math.nan, "x": math.inf}, path=Path("/p")))
    raw = path.read_text(encoding="utf-8")
    assert "NaN" not in raw and "Infinity" not in raw
    back = read_records(path)[0]
    assert back["metrics"] == {"delta_chr_f": None, "x": None}
    assert back["path"] == "/p"


def test_no_secret_reaches_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-4f9a2c7e1b3d5f60"
    monkeypatch.setenv("EDITPRED_API_KEY", secret)
    monkeypatch.setenv("OPENAI_API_KEY", "other-secret-value-123")
    path = tmp_path / "run.jsonl"
    leaky = record(
        "a",
        outcome="error",
        reason=f"infrastructure: 401 for Authorization: Bearer {secret}",
        attempts=[{"ordinal": 1, "error": f"HTTP 401 (key {secret})", "latency": 0.1}],
    )
    with JsonlReport(path) as report:
        report.append(record("b"))
        report.append(leaky)
    raw = path.read_bytes()
    assert secret.encode() not in raw
    assert b"other-secret-value-123" not in raw
    back = read_records(path)[1]
    assert back["reason"] == "infrastructure: 401 for Authorization: Bearer [redacted]"
    assert leaky["reason"].endswith(secret)  # the caller's record is not mutated


def test_scrub_ignores_short_and_unrelated_values() -> None:
    env = {"API_KEY": "abc", "HOME": "/home/someone", "GITHUB_TOKEN": "ghp_abcdefgh12345"}
    value = {"a": ["abc /home/someone ghp_abcdefgh12345"], "n": 1}
    assert scrub_secrets(value, env) == {"a": ["abc /home/someone [redacted]"], "n": 1}
    assert scrub_secrets("nothing", {}) == "nothing"


def test_write_is_one_line_per_record_even_with_newlines(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with JsonlReport(path) as report:
        report.append(record("a", predicted_patch="x\ny\n" * 50))
    assert path.read_bytes().count(b"\n") == 1
    assert os.path.getsize(path) > 0
