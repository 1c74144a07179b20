"""The bootstrap's resampling (pytest_editpred.reports._stats): its draws are uniform
and its intervals are those of the textbook bootstrap.

The intervals are drawn by a fast mechanism (binomial counts for shared values, table
lookups of random words: see ``_resample_totals``), so these tests check it against
what it replaces: ``random.choices`` of ``n`` examples per resample, the slow and
obviously correct bootstrap. Every test is seeded: each outcome is fixed, and the
tolerances are several Monte-Carlo standard errors wide.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from pytest_editpred.reports._stats import (
    SHARED_ROWS,
    _binomial,
    _resample_totals,
    bootstrap_mean_interval,
    cluster_bootstrap_mean_interval,
)


def chi2_999(df: int) -> float:
    """The 99.9 % quantile of the chi-square distribution (Wilson-Hilferty: within
    1 % of the exact value from 10 degrees of freedom; a little above it below)."""
    z = 3.0902323061678132
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3 + 1.0


def chi_square(observed: Sequence[float], expected: Sequence[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected))


def reference_interval(groups: Sequence[Sequence[float]], resamples: int = 2000, seed: int = 99) -> tuple[float, float]:
    """The percentile cluster bootstrap as a textbook writes it: ``n`` examples drawn
    with ``random.choices``, the mean of all their values, the 2.5 and 97.5 % points."""
    rng = random.Random(seed)
    means = []
    for _ in range(resamples):
        drawn = rng.choices(groups, k=len(groups))
        means.append(math.fsum(v for group in drawn for v in group) / sum(len(group) for group in drawn))
    means.sort()
    bounds = []
    for q in (0.025, 0.975):
        position = q * (resamples - 1)
        below = math.floor(position)
        above = min(below + 1, resamples - 1)
        bounds.append(means[below] + (means[above] - means[below]) * (position - below))
    return bounds[0], bounds[1]


def spread(groups: Sequence[Sequence[float]]) -> float:
    """The standard error of the mean over examples (each example's values summed)."""
    sums = [math.fsum(g) for g in groups]
    sizes = [len(g) for g in groups]
    ratio = math.fsum(sums) / sum(sizes)
    residuals = [s - ratio * n for s, n in zip(sums, sizes)]
    return math.sqrt(math.fsum(r * r for r in residuals)) / sum(sizes)


def chrf_like(rng: random.Random, n: int) -> list[float]:
    """Scores as a run makes them: many 100s (passes), some 0s, the rest spread."""
    return [rng.choices([100.0, 0.0, round(rng.uniform(0, 90), 2)], [55, 10, 35])[0] for _ in range(n)]


def _data() -> dict[str, list[list[float]]]:
    rng = random.Random(1)
    return {
        "uniform, 40 examples (a part block)": [[rng.uniform(0, 100)] for _ in range(40)],
        "uniform, 300 examples (a block and a part)": [[rng.uniform(0, 100)] for _ in range(300)],
        "chrF-like, 1,500 examples (shared values)": [[v] for v in chrf_like(rng, 1500)],
        "0/1, 800 examples (only shared values)": [[float(rng.random() < 0.3)] for _ in range(800)],
        "skewed, 600 examples": [[rng.expovariate(1.0) ** 2] for _ in range(600)],
        "trials, unequal, 500 examples": [[rng.uniform(0, 100) for _ in range(1 + i % 3)] for i in range(500)],
        "trials, 3 each, 400 examples": [[rng.choice([0.0, 50.0, 100.0]) for _ in range(3)] for _ in range(400)],
    }


DATA = _data()


@pytest.mark.parametrize("name", list(DATA))
def test_the_interval_agrees_with_the_textbook_bootstrap(name: str) -> None:
    groups = DATA[name]
    fast = cluster_bootstrap_mean_interval(groups)
    low, high = reference_interval(groups)
    # Each bound is a Monte-Carlo estimate from 2,000 resamples, off by about 0.06-0.1
    # standard errors of the mean; 0.5 of one is several times the two together.
    tolerance = 0.5 * spread(groups)
    assert fast.low == pytest.approx(low, abs=tolerance)
    assert fast.high == pytest.approx(high, abs=tolerance)
    assert fast.estimate == pytest.approx(math.fsum(v for g in groups for v in g) / sum(map(len, groups)))


@pytest.mark.parametrize(("rows", "shared"), [(37, 0), (300, 0), (1_000, 0), (700, 400), (256 + 255, 0)])
def test_every_example_is_drawn_equally_often(rows: int, shared: int) -> None:
    """The draws themselves: put the examples in groups (one each when they are
    few), count the draws landing in each group over many resamples (indicator
    columns sum to counts, exactly), and compare with the uniform expectation by a
    chi-square test. ``shared`` rows are one repeated row, drawn as a binomial count."""
    assert shared == 0 or shared >= SHARED_ROWS
    distinct = rows - shared
    groups = distinct if distinct <= 64 else 12
    columns = [[1.0 if i % groups == g else 0.0 for i in range(distinct)] + [0.0] * shared for g in range(groups)]
    columns.append([0.0] * distinct + [1.0] * shared)  # the shared row's own count
    resamples = 300_000 // rows
    totals = _resample_totals(columns, resamples, random.Random(rows))
    assert all(sum(t) == rows for t in totals)  # every resample draws n rows, exactly
    counted = [math.fsum(t[g] for t in totals) for g in range(groups + 1)]
    expected = [resamples * sum(column) for column in columns]
    kept = [(o, e) for o, e in zip(counted, expected) if e]
    statistic = chi_square([o for o, _ in kept], [e for _, e in kept])
    assert statistic < chi2_999(len(kept) - 1), (statistic, counted, expected)


def test_the_resampled_means_have_the_bootstrap_s_mean_and_variance() -> None:
    # 70,000 examples: 273 blocks of 256 and one of 112, each count a binomial draw.
    rng = random.Random(8)
    values = [rng.uniform(0, 100) for _ in range(70_000)]
    n = len(values)
    resamples = 60
    means = [total / n for (total,) in _resample_totals([sorted(values)], resamples, random.Random(1))]
    mean = math.fsum(values) / n
    se = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n / n)
    average = math.fsum(means) / resamples
    assert abs(average - mean) < 4 * se / math.sqrt(resamples)
    variance = math.fsum((m - average) ** 2 for m in means) / (resamples - 1)
    assert 0.5 < variance / se**2 < 1.6  # chi-square with 59 degrees of freedom, 99.9 %


def test_the_interval_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    rng = random.Random(9)
    covered = 0
    trials = 300
    for t in range(trials):
        sample = [rng.expovariate(0.1) for _ in range(60)]  # skewed, true mean 10
        covered += 10.0 in bootstrap_mean_interval(sample, resamples=500, seed=t)
    # The percentile bootstrap of a skewed mean covers a little under 95 % at n=60.
    assert 0.89 <= covered / trials <= 0.98, covered


def test_shared_values_and_their_repeats_give_the_same_interval() -> None:
    values = chrf_like(random.Random(10), 2000)
    once = bootstrap_mean_interval(values)
    assert cluster_bootstrap_mean_interval([[v] * 3 for v in values]) == once
    assert bootstrap_mean_interval(list(reversed(values))) == once
    assert bootstrap_mean_interval(values, seed=1) != once


def test_the_draws_are_fixed_by_the_seed() -> None:
    """The same seed, the same draws: pinned, so a change to the mechanism is seen
    (numbers from this implementation; ``random.Random`` and ``randbytes`` are
    reproducible across Python versions)."""
    values = chrf_like(random.Random(11), 1000)
    first = bootstrap_mean_interval(values)
    assert bootstrap_mean_interval(values) == first
    assert (round(first.low, 9), round(first.high, 9)) == PINNED


PINNED = (69.3046635, 73.950164)  # the same on Python 3.10 to 3.13


@pytest.mark.parametrize(("trials", "p"), [(30, 0.4), (40, 0.1), (25, 0.8), (1, 0.3), (200, 0.05)])
def test_binomial_counts_follow_the_binomial_distribution(trials: int, p: float) -> None:
    rng = random.Random(trials)
    draws = 20_000
    counts = [0] * (trials + 1)
    for _ in range(draws):
        counts[_binomial(rng, trials, p)] += 1
    pmf = [math.comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(trials + 1)]
    # Pool the tails so every cell expects at least 20.
    cells_o: list[float] = []
    cells_e: list[float] = []
    o = e = 0.0
    for k in range(trials + 1):
        o += counts[k]
        e += pmf[k] * draws
        if e >= 20:
            cells_o.append(o)
            cells_e.append(e)
            o = e = 0.0
    cells_o[-1] += o
    cells_e[-1] += e
    statistic = chi_square(cells_o, cells_e)
    df = len(cells_o) - 1
    assert statistic < chi2_999(df), (statistic, df)


def test_binomial_edges() -> None:
    rng = random.Random(0)
    assert _binomial(rng, 0, 0.5) == 0
    assert _binomial(rng, 10, 0.0) == 0
    assert _binomial(rng, 10, 1.0) == 10
