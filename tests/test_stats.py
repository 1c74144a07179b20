"""Intervals, pass@k, pass^k and paired differences (pytest_editpred.reports._stats)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_editpred import ConfigError
from pytest_editpred.reports._stats import (
    Interval,
    bootstrap_mean_interval,
    paired_mean_difference,
    paired_rate_difference,
    pass_at_k,
    pass_at_k_single,
    pass_hat_k,
    pass_hat_k_single,
    wilson_interval,
)

Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal


# ------------------------------------------------------------------------------ Wilson


def test_wilson_8_of_10_published_values() -> None:
    # The textbook values for 8/10 at 95 %: [0.4902, 0.9433].
    interval = wilson_interval(8, 10)
    assert interval.estimate == 0.8
    assert interval.low == pytest.approx(0.4902, abs=1e-4)
    assert interval.high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_8_of_10_by_the_formula() -> None:
    # center = (p + z²/2n) / (1 + z²/n), half = z/(1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)
    p, n, z2 = 0.8, 10, Z95**2
    center = (p + z2 / 20) / (1 + z2 / 10)
    half = Z95 / (1 + z2 / 10) * math.sqrt(p * (1 - p) / n + z2 / 400)
    interval = wilson_interval(8, 10)
    assert interval.low == pytest.approx(center - half, rel=1e-12)
    assert interval.high == pytest.approx(center + half, rel=1e-12)


def test_wilson_at_the_edges() -> None:
    # 0/10: low is 0, high is z²/n / (1 + z²/n) = 0.2775 (a Wald interval would be [0, 0]).
    zero = wilson_interval(0, 10)
    assert zero.low == 0.0
    assert zero.high == pytest.approx(0.2775, abs=1e-4)
    full = wilson_interval(10, 10)
    assert full.high == 1.0
    assert full.low == pytest.approx(1 - 0.2775, abs=1e-4)
    empty = wilson_interval(0, 0)
    assert math.isnan(empty.estimate) and (empty.low, empty.high) == (0.0, 1.0)


def test_wilson_confidence_widens_the_interval() -> None:
    narrow = wilson_interval(30, 60, confidence=0.80)
    wide = wilson_interval(30, 60, confidence=0.99)
    assert wide.low < narrow.low < 0.5 < narrow.high < wide.high


@pytest.mark.parametrize(("successes", "trials"), [(11, 10), (-1, 10), (0, -1)])
def test_wilson_rejects_impossible_counts(successes: int, trials: int) -> None:
    with pytest.raises(ConfigError):
        wilson_interval(successes, trials)


@settings(database=None, deadline=None)
@given(st.integers(0, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_contains_the_estimate(counts: tuple[int, int]) -> None:
    successes, trials = counts
    interval = wilson_interval(successes, trials)
    assert 0.0 <= interval.low <= interval.high <= 1.0
    if trials:
        assert interval.low - 1e-12 <= successes / trials <= interval.high + 1e-12


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_is_deterministic() -> None:
    values = [0, 12.5, 100, 47, 88, 3, 61, 100, 0, 75]
    first = bootstrap_mean_interval(values)
    assert bootstrap_mean_interval(values) == first
    assert bootstrap_mean_interval(values, seed=0) == first
    assert bootstrap_mean_interval(values, seed=1) != first
    assert first.estimate == pytest.approx(sum(values) / len(values))
    assert first.low < first.estimate < first.high


def test_bootstrap_of_constant_values_is_a_point() -> None:
    interval = bootstrap_mean_interval([42.0] * 7)
    assert (interval.estimate, interval.low, interval.high) == (42.0, 42.0, 42.0)


def test_bootstrap_width_matches_the_normal_approximation() -> None:
    # 400 coin flips: the standard error of the mean is 0.5/20 = 0.025, so a 95 %
    # interval is about ±0.049. The bootstrap must land near that.
    values = [1.0, 0.0] * 200
    interval = bootstrap_mean_interval(values)
    half_width = (interval.high - interval.low) / 2
    assert 0.040 < half_width < 0.058
    assert 0.5 in interval


def test_bootstrap_empty_and_bad_arguments() -> None:
    empty = bootstrap_mean_interval([])
    assert math.isnan(empty.estimate) and math.isnan(empty.low)
    with pytest.raises(ConfigError):
        bootstrap_mean_interval([1.0], resamples=0)
    with pytest.raises(ConfigError):
        bootstrap_mean_interval([1.0], confidence=1.5)


# ---------------------------------------------------------------------- pass@k, pass^k


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 0.4),  # k = 1 is the plain pass rate
        (5, 2, 5, 1.0),  # all 5 drawn: the 2 passes are among them
        (5, 2, 4, 1.0),  # only 3 failures: any 4 include a pass
        (5, 0, 3, 0.0),
        (10, 3, 2, 1 - 21 / 45),  # 1 - C(7,2)/C(10,2)
        (4, 1, 2, 0.5),  # 1 - C(3,2)/C(4,2) = 1 - 3/6
    ],
)
def test_pass_at_k_known_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k_single(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 0.4),
        (5, 2, 2, 0.1),  # C(2,2)/C(5,2) = 1/10
        (5, 2, 3, 0.0),  # cannot draw 3 passes from 2
        (5, 5, 5, 1.0),
        (10, 7, 3, 35 / 120),  # C(7,3)/C(10,3)
    ],
)
def test_pass_hat_k_known_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_hat_k_single(n, c, k) == pytest.approx(expected)


def test_pass_at_k_and_pass_hat_k_average_over_examples() -> None:
    trials = [(5, 2), (5, 5), (5, 0)]
    # k=1: (0.4 + 1 + 0) / 3; k=2: pass@2 = (1 - C(3,2)/C(5,2)) = 0.7 -> (0.7 + 1 + 0)/3
    assert pass_at_k(trials, 1) == pytest.approx(1.4 / 3)
    assert pass_at_k(trials, 2) == pytest.approx(1.7 / 3)
    # pass^2: (0.1 + 1 + 0) / 3
    assert pass_hat_k(trials, 2) == pytest.approx(1.1 / 3)
    assert math.isnan(pass_at_k([], 1)) and math.isnan(pass_hat_k([], 1))


@settings(database=None, deadline=None)
@given(st.integers(1, 20).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_bounds_pass_hat_k(case: tuple[int, int, int]) -> None:
    n, c, k = case
    # all k pass implies at least one passes; both sit between 0 and 1, and k = 1
    # gives the plain rate for both.
    assert 0.0 <= pass_hat_k_single(n, c, k) <= pass_at_k_single(n, c, k) <= 1.0
    assert pass_at_k_single(n, c, 1) == pytest.approx(c / n)
    assert pass_hat_k_single(n, c, 1) == pytest.approx(c / n)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 1, 4), (3, 1, 0), (3, 4, 1), (3, -1, 1)])
def test_pass_at_k_rejects_bad_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ConfigError):
        pass_at_k_single(n, c, k)
    with pytest.raises(ConfigError):
        pass_hat_k_single(n, c, k)


# ------------------------------------------------------------------ paired differences


def test_paired_mean_difference_cancels_example_difficulty() -> None:
    # Run a is exactly 1 better on every example, but examples vary wildly: the
    # paired interval is the point 1, where two separate intervals would overlap.
    b = [0.0, 90.0, 10.0, 55.0, 100.0, 30.0]
    a = [x + 1 for x in b]
    difference = paired_mean_difference(a, b)
    assert (difference.estimate, difference.low, difference.high) == pytest.approx((1, 1, 1))
    assert difference.excludes_zero
    separate_a, separate_b = bootstrap_mean_interval(a), bootstrap_mean_interval(b)
    assert separate_a.low < separate_b.high  # unpaired, the runs look the same


def test_paired_rate_difference() -> None:
    a = [True] * 6 + [False] * 4
    b = [True] * 3 + [False] * 7
    difference = paired_rate_difference(a, b)
    assert difference.estimate == pytest.approx(0.3)
    assert difference.low <= 0.3 <= difference.high
    same = paired_rate_difference(a, a)
    assert (same.estimate, same.low, same.high) == (0.0, 0.0, 0.0)
    assert not same.excludes_zero
    assert paired_rate_difference(a, b) == difference  # seeded


def test_paired_difference_needs_the_same_examples() -> None:
    with pytest.raises(ConfigError):
        paired_mean_difference([1.0, 2.0], [1.0])


def test_interval_contains() -> None:
    interval = Interval(0.5, 0.25, 0.75)
    assert 0.25 in interval and 0.75 in interval and 0.8 not in interval


def test_bootstrap_interval_does_not_depend_on_the_order_of_the_values() -> None:
    from pytest_editpred.reports._stats import bootstrap_mean_interval

    values = [0.0, 100.0, 45.5, 12.0, 88.0, 100.0, 0.0, 67.25]
    assert bootstrap_mean_interval(values) == bootstrap_mean_interval(list(reversed(values)))
