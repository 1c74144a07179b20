"""Comparing two runs: per-example status, paired differences, the terminal block."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_editpred.reports import compare


def rec(name: str, outcome: str, chrf: float | None = None, trial: int = 1, file: str | None = None) -> dict[str, Any]:
    metrics = {} if chrf is None else {"delta_chr_f": chrf}
    return {
        "name": name,
        "nodeid": f"{file or 'evals/' + name + '.md'}::{name}" + (f"[t{trial}]" if trial > 1 else ""),
        "trial": trial,
        "outcome": outcome,
        "metrics": metrics,
    }


def statuses(comparison: Any) -> dict[str, str]:
    return {c.name: c.status for c in comparison.changes}


def test_statuses_by_outcome_then_chrf() -> None:
    old = [
        rec("fixed", "failed", 40.0),
        rec("broke", "passed", 100.0),
        rec("errored", "passed", 100.0),
        rec("recovered", "error"),
        rec("better", "failed", 30.0),
        rec("worse", "failed", 60.0),
        rec("same", "passed", 100.0),
        rec("noise", "failed", 50.0),
        rec("gone", "passed", 90.0),
        rec("failed-to-error", "failed", 20.0),
    ]
    new = [
        rec("fixed", "passed", 35.0),  # outcome first: improved although chrF dropped
        rec("broke", "failed", 100.0),
        rec("errored", "error"),
        rec("recovered", "passed", 80.0),
        rec("better", "failed", 45.0),
        rec("worse", "failed", 59.5),
        rec("same", "passed", 100.0),
        rec("noise", "failed", 50.0 + 1e-12),
        rec("fresh", "passed", 70.0),
        rec("failed-to-error", "error"),  # both not passed, no chrF on one side
    ]
    comparison = compare(old, new)
    assert statuses(comparison) == {
        "fixed": "improved",
        "broke": "regressed",
        "errored": "regressed",
        "recovered": "improved",
        "better": "improved",
        "worse": "regressed",
        "same": "unchanged",
        "noise": "unchanged",
        "gone": "missing",
        "fresh": "new",
        "failed-to-error": "unchanged",
    }
    assert comparison.counts == {"improved": 3, "regressed": 3, "unchanged": 3, "new": 1, "missing": 1}
    assert [c.name for c in comparison.regressions] == ["broke", "errored", "worse"]
    assert [c.name for c in comparison.improvements] == ["better", "fixed", "recovered"]
    # Listed regressed first, then improved, new, missing, unchanged.
    assert [c.status for c in comparison.changes][:3] == ["regressed"] * 3
    assert comparison.changes[-1].status == "unchanged"
    worse = next(c for c in comparison.changes if c.name == "worse")
    assert worse.delta_chr_f_change == pytest.approx(-0.5)


def test_chrf_tolerance() -> None:
    old, new = [rec("a", "failed", 50.0)], [rec("a", "failed", 50.4)]
    assert statuses(compare(old, new)) == {"a": "improved"}
    assert statuses(compare(old, new, chrf_tolerance=0.5)) == {"a": "unchanged"}


def test_paired_differences() -> None:
    """Pass rate goes from 2/4 to 3/4: +25 points; chrF over the pairs scored in both."""
    old = [rec("a", "passed", 100.0), rec("b", "failed", 20.0), rec("c", "failed", 40.0), rec("d", "passed", 90.0)]
    new = [rec("a", "passed", 100.0), rec("b", "passed", 60.0), rec("c", "failed", 40.0), rec("d", "error")]
    comparison = compare(old, new)
    assert comparison.paired_pass_examples == 4
    assert comparison.pass_rate_difference.estimate == pytest.approx(0.0)  # b +1, d -1
    assert comparison.paired_chrf_examples == 3  # d has no chrF in the new run
    assert comparison.delta_chr_f_difference.estimate == pytest.approx(40.0 / 3)
    low, high = comparison.delta_chr_f_difference.low, comparison.delta_chr_f_difference.high
    assert low <= comparison.delta_chr_f_difference.estimate <= high


def test_a_clear_improvement_excludes_zero() -> None:
    old = [rec(f"e{i}", "failed", 10.0) for i in range(20)]
    new = [rec(f"e{i}", "passed", 90.0) for i in range(20)]
    comparison = compare(old, new)
    assert comparison.pass_rate_difference.estimate == pytest.approx(1.0)
    assert comparison.pass_rate_difference.excludes_zero
    text = comparison.format()
    assert "+100.0 pts" in text and "a real change" in text
    assert "improved (20):" in text and "  e0: failed -> passed (chrF 10.0 -> 90.0)" in text.splitlines()


def test_trials_are_averaged_per_example_not_paired() -> None:
    """Old ran one trial, new three: compared by example, trials averaged."""
    old = [rec("a", "passed", 100.0), rec("b", "failed", 30.0)]
    new = [
        rec("a", "passed", 100.0, 1),
        rec("a", "failed", 40.0, 2),
        rec("a", "passed", 100.0, 3),
        rec("b", "failed", 30.0, 1),
        rec("b", "skipped", None, 2),  # a skipped trial does not count
        rec("b", "failed", 30.0, 3),
    ]
    comparison = compare(old, new)
    a = next(c for c in comparison.changes if c.name == "a")
    assert a.status == "regressed"
    assert a.new_pass_rate == pytest.approx(2 / 3)
    assert a.new_delta_chr_f == pytest.approx(80.0)
    assert a.new_outcomes == ("passed", "failed", "passed")
    assert "2/3 passed" in comparison.format()
    b = next(c for c in comparison.changes if c.name == "b")
    assert b.status == "unchanged"
    assert comparison.paired_pass_examples == 2


def test_an_example_skipped_everywhere_has_no_result() -> None:
    comparison = compare([rec("a", "passed", 100.0)], [rec("a", "skipped")])
    assert statuses(comparison) == {"a": "missing"}
    assert math.isnan(comparison.pass_rate_difference.estimate)
    assert "n/a" in comparison.format()


def test_same_name_in_two_files_is_told_apart() -> None:
    old = [rec("x", "passed", 100.0, file="evals/a.md"), rec("x", "failed", 0.0, file="evals/b.md")]
    new = [rec("x", "passed", 100.0, file="evals/a.md"), rec("x", "passed", 100.0, file="evals/b.md")]
    assert statuses(compare(old, new)) == {"evals/a.md::x": "unchanged", "evals/b.md::x": "improved"}


def test_empty_runs() -> None:
    comparison = compare([], [])
    assert comparison.changes == ()
    assert comparison.regressions == []
    assert "0 improved" in comparison.format()


def test_format_block() -> None:
    old = [rec("alpha", "passed", 100.0), rec("beta", "passed", 95.0), rec("gamma", "failed", 10.0)]
    new = [rec("alpha", "failed", 42.1), rec("beta", "passed", 95.0), rec("delta", "passed", 100.0)]
    text = compare(old, new).format()
    lines = text.splitlines()
    assert lines[0] == "compared 3 old and 3 new examples: 0 improved, 1 regressed, 1 unchanged, 1 new, 1 missing"
    assert lines[1].startswith("  pass rate   -50.0 pts [")
    assert "paired bootstrap over 2 examples" in lines[1]
    assert lines[2].startswith("  delta-chrF  -28.95 [")
    assert lines[3:] == ["regressed (1):", "  alpha: passed -> failed (chrF 100.0 -> 42.1)"]


def test_to_dict_is_plain_data() -> None:
    import json

    data = compare([rec("a", "passed", 1.0)], [rec("b", "passed", 1.0)]).to_dict()
    assert data["pass_rate_difference"]["estimate"] is None  # NaN: nothing shared
    assert {c["status"] for c in data["changes"]} == {"new", "missing"}
    json.dumps(data, allow_nan=False)


def test_deterministic() -> None:
    old = [rec(f"e{i}", "passed" if i % 2 else "failed", float(i)) for i in range(15)]
    new = [rec(f"e{i}", "passed" if i % 3 else "failed", float(i * 2)) for i in range(15)]
    assert compare(old, new).format() == compare(old, new).format()
