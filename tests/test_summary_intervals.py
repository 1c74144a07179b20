"""Honest aggregates: intervals over examples, denominators, exclusions,
an unrounded gate and partial runs labelled as such.

The statistics are checked on their own (pytest_editpred.reports._stats) and through real
runs: the shipped corpus ``evals/`` with the offline baseline in a subprocess, and
pytester projects (tests/conftest.py) plainly and under ``-n 2``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_plugin_reports import BROKEN_HISTORY, only_line, scripted

from conftest import SUB, Project
from pytest_editpred.reports import gate_figures
from pytest_editpred.reports._stats import (
    bootstrap_mean_interval,
    cluster_bootstrap_mean_interval,
    clustered_rate_interval,
    wilson_interval,
)

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

ROOT = Path(__file__).resolve().parents[1]
CI = re.compile(r"\[95% CI (\d+\.\d)-(\d+\.\d)")

outcomes_per_example = st.lists(st.booleans(), min_size=1, max_size=60)


# --------------------------------------------------------------------- the statistics


@settings(database=None, deadline=None)
@given(outcomes_per_example, st.integers(1, 6))
def test_repeating_every_outcome_k_times_leaves_the_interval_as_it_was(outcomes: list[bool], k: int) -> None:
    # A deterministic provider: each example's k trials agree. Repeats add no information.
    once = wilson_interval(sum(outcomes), len(outcomes))
    assert clustered_rate_interval([(1, int(o)) for o in outcomes]) == once
    assert clustered_rate_interval([(k, k * int(o)) for o in outcomes]) == once


@settings(database=None, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=40))
def test_the_interval_lies_between_the_examples_and_the_predictions(passed: list[int]) -> None:
    # n_eff is at most the number of predictions: never narrower than treating all
    # trials as independent, and it contains the estimate.
    examples = [(3, c) for c in passed]
    clustered = clustered_rate_interval(examples)
    independent = wilson_interval(sum(passed), 3 * len(passed))
    assert clustered.high - clustered.low >= independent.high - independent.low - 1e-12
    assert clustered.low - 1e-12 <= sum(passed) / (3 * len(passed)) <= clustered.high + 1e-12


def test_trials_that_disagree_within_examples_narrow_toward_the_predictions() -> None:
    # Every example passes 1 of 3: the examples agree, the trials look independent.
    assert clustered_rate_interval([(3, 1)] * 20) == wilson_interval(20, 60)
    # Half pass 3 of 3, half 0 of 3: as wide as 20 examples, not 60 predictions.
    assert clustered_rate_interval([(3, 3)] * 10 + [(3, 0)] * 10) == wilson_interval(10, 20)
    empty = clustered_rate_interval([])
    assert (empty.low, empty.high) == (0.0, 1.0)


def test_the_cluster_bootstrap_resamples_examples_not_trials() -> None:
    values = [0.0, 10.0, 55.5, 100.0, 100.0, 42.0]
    once = bootstrap_mean_interval(values)
    assert cluster_bootstrap_mean_interval([[v] for v in values]) == once
    thrice = cluster_bootstrap_mean_interval([[v, v, v] for v in values])
    assert (thrice.low, thrice.high) == pytest.approx((once.low, once.high), abs=1e-9)
    assert cluster_bootstrap_mean_interval([[v] for v in reversed(values)]) == once


@pytest.mark.parametrize(
    ("passed", "total", "required", "shown", "passes"),
    [
        (16, 29, 55.2, "55.17", False),  # was "55.2% < 55.2%"
        (1, 2, 40, "50.0", True),
        (1, 2, 50, "50.0", True),  # equal passes
        (2, 3, 66.7, "66.67", False),
        (2, 3, 66.66666666666667, "66.666666666666667", False),  # 200/3 is below the float's decimal
        (1, 3, 33.333, "33.3333", True),
    ],
)
def test_the_gate_compares_exactly_and_prints_enough_digits(
    passed: int, total: int, required: float, shown: str, passes: bool
) -> None:
    rate, threshold, text, _ = gate_figures(passed, total, required)
    assert rate == Fraction(100 * passed, total)
    assert (rate >= threshold) is passes
    assert text == shown
    assert (Fraction(text) >= threshold) is passes


# ------------------------------------------------------------------- the shipped corpus


def run_evals(tmp_path: Path, *args: str) -> str:
    env = {**os.environ, "EDITPRED_CACHE_DIR": str(tmp_path / "repos")}
    env.pop("EDITPRED_EXAMPLE_SERVER", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "evals/", "-p", "no:cacheprovider", "--editpred-provider=baseline", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "editpred summary" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


@pytest.mark.parametrize("jobs", [[], ["-n", "2"]], ids=["plain", "xdist"])
@pytest.mark.slow
def test_trials_of_a_deterministic_provider_do_not_narrow_the_pass_rate_interval(
    tmp_path: Path, jobs: list[str]
) -> None:
    one = only_line(run_evals(tmp_path, *jobs), r"^\d+ predictions: ")
    three_out = run_evals(tmp_path, "--editpred-trials", "3", *jobs)
    three = only_line(three_out, r"^\d+ predictions: ")
    examples = int(one.split()[0])
    assert three.startswith(f"{3 * examples} predictions: ")
    assert f"over {examples} examples, trials clustered" in three, three
    (low1, high1), (low3, high3) = (map(float, CI.search(line).groups()) for line in (one, three))
    assert high3 - low3 >= high1 - low1, (one, three)
    assert (low3, high3) == (low1, high1)  # the baseline answers the same every time
    # The mean delta-chrF is resampled by example too, and pass@1 is the clustered rate.
    chrf1 = re.search(r"mean delta-chrF [\d.]+ over \d+ scored \[95% CI ([\d.]+)-([\d.]+)\]", one)
    chrf3 = re.search(r"mean delta-chrF [\d.]+ over \d+ scored \[95% CI ([\d.]+)-([\d.]+)\]", three)
    assert chrf1 and chrf3 and chrf1.groups() == chrf3.groups(), (one, three)
    trials = only_line(three_out, r"^trials: ")
    assert f"[95% CI {low1:.1f}-{high1:.1f}]" in trials, trials


# ------------------------------------------------------------------ through the plugin

NO_CURSOR = SUB.replace("#                ^[CURSOR_POSITION]\n", "")


@pytest.mark.xdist
def test_cursor_rate_counts_only_expected_patches_with_a_cursor(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", NO_CURSOR)
    scripted(project, {})
    result = project.pytester.runpytest("evals", *plugin_args)
    result.assert_outcomes(passed=2)
    line = only_line(result.stdout.str(), r"^cursor exact match")
    # calc--b's answer has a cursor and its patch none: n/a, not a miss (Zed's ep
    # eval would count it as one), in the table and in both cursor lines.
    assert line == "cursor exact match 100.0% (1 of 1 scored predictions whose best expected patch marks a cursor)"
    assert only_line(result.stdout.str(), r"^Cursor: ") == "Cursor: 1/1 exact matches (100.0%), avg distance: 0.0 bytes"
    assert only_line(result.stdout.str(), r"^calc--b ").split()[-1] == "n/a"
    assert only_line(result.stdout.str(), r"^TOTAL / AVERAGE").split()[-2] == "100%"


@pytest.mark.xdist
def test_a_run_where_no_patch_marks_a_cursor_says_so_everywhere(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", NO_CURSOR)
    project.example("calc--b", NO_CURSOR)
    scripted(project, {})
    paths = {name: project.pytester.path / name for name in ("r.jsonl", "j.xml", "s.json", "p.html")}
    result = project.pytester.runpytest(
        "evals",
        f"--editpred-report={paths['r.jsonl']}",
        f"--junitxml={paths['j.xml']}",
        f"--editpred-summary-json={paths['s.json']}",
        f"--editpred-html={paths['p.html']}",
        *plugin_args,
    )
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert [only_line(out, rf"^calc--{x} ").split()[-1] for x in "ab"] == ["n/a", "n/a"]
    assert only_line(out, r"^TOTAL / AVERAGE").split()[-2] == "n/a"
    assert only_line(out, r"^Cursor: ") == "Cursor: n/a (no prediction's best expected patch marks a cursor)"
    assert only_line(out, r"^cursor exact match") == (
        "cursor exact match n/a (no scored prediction's best expected patch marks a cursor)"
    )
    assert "exact matches" not in out
    # JSONL: Zed's metric as computed, and whether it counts.
    records = [json.loads(line) for line in paths["r.jsonl"].read_text().splitlines()]
    assert [(r["expected_cursor"], r["metrics"]["cursor_exact_match"]) for r in records] == [(False, False)] * 2
    # JUnit says n/a where the metric would read as a miss.
    cases = ET.parse(paths["j.xml"]).getroot().iter("testcase")
    values = [{p.get("name"): p.get("value") for p in case.iter("property")} for case in cases]
    assert [v["editpred_cursor_exact_match"] for v in values] == ["n/a", "n/a"]
    # The summary JSON is Zed's SummaryJson: ep eval's count, a cursor on either side.
    summary = json.loads(paths["s.json"].read_text())
    assert (summary["cursor_total_evaluated"], summary["cursor_exact_match_rate"]) == (2, 0.0)
    # The page's cursor card says n/a, not "0 of 2".
    index = page_index(paths["p.html"].read_text())
    assert index["cards"]["cursor"] == {
        "rate": None,
        "exact": 0,
        "of": 0,
        "which": "no scored prediction's best expected patch marks a cursor",
    }


def page_index(page: str) -> dict:
    return json.loads(page.split('<script type="application/json" id="ep-index">', 1)[1].split("</script>", 1)[0])


@pytest.mark.xdist
def test_the_mean_says_what_it_excludes(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB, tags=("python",))
    project.example("calc--b", SUB, tags=("python",))
    project.example("calc--broken", BROKEN_HISTORY, tags=("python",))
    scripted(project, {})
    result = project.pytester.runpytest("evals", "--editpred-group-by", "tag", *plugin_args)
    result.assert_outcomes(passed=2, errors=1)
    line = only_line(result.stdout.str(), r"^\d+ predictions: ")
    assert line.startswith("3 predictions: 2 passed, 1 error; pass rate 66.7% of 3 [95% CI "), line
    assert line.endswith("mean delta-chrF 100.0 over 2 scored [95% CI 100.0-100.0]; 1 error excluded"), line
    assert "trials clustered" not in line
    result.stdout.re_match_lines([r"^  python +2/3 passed \(67%\), mean delta-chrF 100\.0 \(1 error excluded\)$"])


@pytest.mark.xdist
def test_the_gate_does_not_round_its_way_to_a_contradiction(project: Project, plugin_args: list[str]) -> None:
    for name in ("calc--a", "calc--b", "calc--c"):
        project.example(name, SUB)
    scripted(project, {"calc--c": "wrong"})
    result = project.pytester.runpytest("evals", "--editpred-fail-under", "66.7", *plugin_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    line = only_line(result.stdout.str(), r"^gate:")
    assert line.startswith("gate: pass rate 66.67% < 66.7% required: the run fails (2 of 3 passed;"), line
    result = project.pytester.runpytest("evals", "--editpred-fail-under", "66.6", *plugin_args)
    assert result.ret == pytest.ExitCode.OK
    assert only_line(result.stdout.str(), r"^gate:").startswith("gate: pass rate 66.7% >= 66.6% required")


@pytest.mark.xdist
def test_a_run_stopped_by_maxfail_is_labelled_partial(project: Project, plugin_args: list[str]) -> None:
    for name in ("calc--a", "calc--b", "calc--c", "calc--d"):
        project.example(name, SUB)
    scripted(project, {"*": "wrong"})
    result = project.pytester.runpytest("evals", "-x", "--editpred-fail-under", "0", *plugin_args)
    out = result.stdout.str()
    line = only_line(out, r"^partial: ")
    match = re.match(
        r"partial: stopped after (\d) of 4 items \((.+)\); every number below is over those (\d) only$", line
    )
    assert match and match.group(1) == match.group(3) and int(match.group(1)) < 4, line
    assert "stopping after" in match.group(2), line
    # The label comes first, and the gate is not applied to a partial run.
    assert out.index("partial: ") < out.index(" predictions: ")
    assert "gate: not applied: the run stopped early, after" in only_line(out, r"^gate:")
    whole = project.pytester.runpytest("evals", *plugin_args)
    assert "partial:" not in whole.stdout.str()


def test_a_run_interrupted_by_ctrl_c_is_labelled_partial(project: Project) -> None:
    # KeyboardInterrupt is what Ctrl-C raises in pytest's main thread. (Under xdist a
    # Ctrl-C reaches the controller, which ends the workers: that path is -x's above.)
    for name in ("calc--a", "calc--b", "calc--c"):
        project.example(name, SUB)
    scripted(project, {})
    conftest = project.pytester.path / "conftest.py"
    conftest.write_text(
        conftest.read_text() + "\n\ndef pytest_runtest_setup(item):\n"
        "    if item.name == 'calc--c':\n"
        "        raise KeyboardInterrupt\n"
    )
    result = project.pytester.runpytest_subprocess("evals")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    line = only_line(result.stdout.str(), r"^partial: ")
    assert line == "partial: stopped after 2 of 3 items (interrupted); every number below is over those 2 only"
