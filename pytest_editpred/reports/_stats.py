"""How sure a run's numbers are: intervals, pass@k, pass^k, paired differences.

An eval set of twenty examples cannot tell 60 % from 70 %, and differences of a few
chrF points are noise (peers.md §D). So every rate gets a Wilson interval, every mean
a bootstrap interval, and a comparison of two runs on the same examples gets a
*paired* interval: each example is its own control, which is far tighter than two
independent intervals.

The unit of sampling is the **example**. With ``--editpred-trials N`` an example is
predicted N times, and its trials are not N independent samples: a deterministic
provider answers the same N times. So a run's pass rate gets
:func:`clustered_rate_interval` (a Wilson interval over the effective number of
independent outcomes, the trials of one example clustered) and its mean
:func:`cluster_bootstrap_mean_interval` (examples resampled with all their trials).
On one trial per example both are exactly the plain :func:`wilson_interval` and
:func:`bootstrap_mean_interval`; on repeats that agree they are the same again, so
repeating a deterministic provider never narrows an interval.

Pure standard library; every resampling is seeded, so a report is reproducible.
Bad arguments (``k`` larger than the number of trials, runs of different lengths)
come from the user's options, hence :class:`ConfigError`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain
from statistics import NormalDist

from .._exceptions import ConfigError

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Interval",
    "bootstrap_mean_interval",
    "cluster_bootstrap_mean_interval",
    "clustered_rate_interval",
    "paired_mean_difference",
    "paired_rate_difference",
    "pass_at_k",
    "pass_at_k_single",
    "pass_hat_k",
    "pass_hat_k_single",
    "wilson_interval",
]

DEFAULT_CONFIDENCE = 0.95
DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval ``[low, high]``.

    With no data at all the estimate is NaN: nothing was measured.
    """

    estimate: float
    low: float
    high: float
    confidence: float = DEFAULT_CONFIDENCE

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high

    @property
    def excludes_zero(self) -> bool:
        """For a difference: is it distinguishable from no difference?"""
        return self.low > 0 or self.high < 0


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, trials: int, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """The Wilson score interval of a rate ``successes / trials``.

    Unlike the textbook ``p ± z·sqrt(p(1-p)/n)`` it never leaves [0, 1] and does not
    collapse to a point at 0 % or 100 %, which small eval sets hit all the time.
    No trials: estimate NaN, interval [0, 1].
    """
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise ConfigError(f"a rate needs 0 <= successes <= trials, got {successes}/{trials}")
    z = _z(confidence)
    if trials == 0:
        return Interval(math.nan, 0.0, 1.0, confidence)
    return _wilson(successes / trials, trials, z, successes == 0, successes == trials, confidence)


def _wilson(p: float, n: float, z: float, none: bool, every: bool, confidence: float) -> Interval:
    """Wilson's formula for a rate ``p`` measured on ``n`` (possibly effective,
    fractional) independent outcomes."""
    z2 = z * z
    denominator = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At 0 % and 100 % the bound is exactly 0 (1); floating point leaves ~1e-17.
    low = 0.0 if none else max(0.0, center - half)
    high = 1.0 if every else min(1.0, center + half)
    return Interval(p, low, high, confidence)


def clustered_rate_interval(examples: Sequence[tuple[int, int]], confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """The pass rate of a run whose examples were each predicted one or more times,
    from ``(trials, passed)`` per example, with a Wilson interval over *examples*.

    The trials of one example are clustered: they share the example's difficulty,
    and a deterministic provider gives the same answer every time, so they are not
    independent samples. The method is Wilson's score interval on the *effective
    sample size* (Kish's design effect), the standard correction for clustered
    binary outcomes:

    * the estimate is ``p = Σ passed / Σ trials`` (each prediction counts once, as in
      the run's counts; with equal trials it is the mean of the examples' own rates);
    * its variance, clustered by example, is the linearised (sandwich, "CR0")
      variance of that ratio: ``v = Σ (passed_i − p·trials_i)² / (Σ trials)²``;
    * the effective sample size is ``n_eff = p(1−p) / v``, at most ``Σ trials``, and
      the interval is Wilson's formula with ``n = n_eff``.

    One trial per example gives ``v = p(1−p)/N``, so ``n_eff = N`` and the interval is
    exactly :func:`wilson_interval` ``(passed, N)``. Trials that repeat their example's
    outcome (a deterministic provider) give the same ``v`` and again ``n_eff = N``
    examples: repeats add no information and the interval does not narrow. Trials
    that disagree within examples while the examples agree with each other (a
    sampling model) lower ``v`` and bring ``n_eff`` toward the number of predictions.
    When every prediction passed, or none did, ``v`` is 0 and ``n_eff`` is the number
    of examples. Closed form and exact (rational arithmetic up to Wilson's formula):
    no resampling, so the interval is the same on every run and in any order.
    No examples: estimate NaN, interval [0, 1].
    """
    z = _z(confidence)
    for n, c in examples:
        if n < 1 or not 0 <= c <= n:
            raise ConfigError(f"an example needs 1 <= trials and 0 <= passed <= trials, got {c}/{n}")
    total = sum(n for n, _ in examples)
    passed = sum(c for _, c in examples)
    if total == 0:
        return Interval(math.nan, 0.0, 1.0, confidence)
    p = Fraction(passed, total)
    variance = sum(((c - p * n) ** 2 for n, c in examples), Fraction(0)) / total**2
    spread = p * (1 - p)
    if variance == 0:
        effective = Fraction(len(examples)) if spread == 0 else Fraction(total)
    else:
        effective = min(spread / variance, Fraction(total))
    return _wilson(float(p), float(effective), z, passed == 0, passed == total, confidence)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    return ordered[below] + (ordered[above] - ordered[below]) * fraction


def bootstrap_mean_interval(
    values: Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Percentile bootstrap interval of a mean (e.g. the mean delta-chrF).

    Scores are bounded and skewed (many 0s and 100s), so a normal interval would
    misplace the bounds; resampling the examples makes no such assumption. Seeded,
    and sorted first: the same values give the same interval in any order (xdist
    delivers results in a different order every run). Each value is one example: for
    several trials of an example, :func:`cluster_bootstrap_mean_interval`.
    """
    return cluster_bootstrap_mean_interval([[v] for v in values], confidence=confidence, resamples=resamples, seed=seed)


def cluster_bootstrap_mean_interval(
    groups: Sequence[Sequence[float]],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Percentile *cluster* bootstrap interval of the mean of all values, one group
    of values per example (its trials).

    Examples are resampled with replacement, each with all its trials, and the mean
    of every value drawn is taken: the trials of one example are never treated as
    independent samples. With one value per example this is exactly
    :func:`bootstrap_mean_interval`; with trials that repeat their example's value it
    is the same interval again. Seeded and sorted first, so the same groups give the
    same interval in any order. Empty groups are ignored; no values: all NaN.
    """
    _z(confidence)
    if resamples < 1:
        raise ConfigError(f"resamples must be at least 1, got {resamples}")
    data = sorted(tuple(sorted(float(v) for v in group)) for group in groups if len(group))
    n = len(data)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, confidence)
    count = sum(len(group) for group in data)
    estimate = math.fsum(chain.from_iterable(data)) / count
    rng = random.Random(seed)
    if count == n:
        # One value per example (one trial each, the usual run): the same draws as
        # below, all resamples in one call, each resample's mean one fsum. Linear in
        # ``n * resamples`` either way, but about 2.5 times faster.
        values = [group[0] for group in data]
        drawn_values = rng.choices(values, k=n * resamples)
        means = [math.fsum(drawn_values[at : at + n]) / n for at in range(0, n * resamples, n)]
    else:
        means = []
        for _ in range(resamples):
            drawn = rng.choices(data, k=n)
            means.append(math.fsum(chain.from_iterable(drawn)) / sum(len(group) for group in drawn))
    means.sort()
    alpha = 1 - confidence
    return Interval(estimate, _quantile(means, alpha / 2), _quantile(means, 1 - alpha / 2), confidence)


def _check_trials(n: int, c: int, k: int) -> None:
    if k < 1:
        raise ConfigError(f"k must be at least 1, got {k}")
    if not 0 <= c <= n:
        raise ConfigError(f"an example needs 0 <= passed <= trials, got {c}/{n}")
    if k > n:
        raise ConfigError(
            f"pass@{k} needs at least {k} trials per example, one has {n}",
            fix=f"Run at least {k} trials per example, or ask for a smaller k.",
        )


def pass_at_k_single(n: int, c: int, k: int) -> float:
    """Chance that at least one of ``k`` trials passes, from ``c`` passes in ``n``.

    The unbiased estimator of Chen et al. 2021: ``1 - C(n-c, k) / C(n, k)``, i.e.
    drawing ``k`` of the ``n`` trials without replacement, not ``1 - (1-c/n)^k``
    (which is biased low for small ``n``).
    """
    _check_trials(n, c, k)
    if n - c < k:
        return 1.0
    total = math.comb(n, k)
    # Subtract in integers: one rounding, so pass@1 is exactly c/n.
    return (total - math.comb(n - c, k)) / total


def pass_hat_k_single(n: int, c: int, k: int) -> float:
    """Chance that all ``k`` trials pass (pass^k): ``C(c, k) / C(n, k)``.

    The reliability counterpart of pass@k: a model that passes half the time has a
    good pass@5 and a terrible pass^5.
    """
    _check_trials(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def pass_at_k(trials: Sequence[tuple[int, int]], k: int) -> float:
    """pass@k over examples: the mean of :func:`pass_at_k_single` over
    ``(trials, passed)`` pairs. NaN for no examples."""
    if not trials:
        return math.nan
    return math.fsum(pass_at_k_single(n, c, k) for n, c in trials) / len(trials)


def pass_hat_k(trials: Sequence[tuple[int, int]], k: int) -> float:
    """pass^k over examples: the mean of :func:`pass_hat_k_single`. NaN for none."""
    if not trials:
        return math.nan
    return math.fsum(pass_hat_k_single(n, c, k) for n, c in trials) / len(trials)


def paired_mean_difference(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """``mean(a) - mean(b)`` for two runs over the same examples, paired bootstrap.

    ``a[i]`` and ``b[i]`` must be the same example. Resampling examples (pairs)
    keeps each example's difficulty in both runs, so only the *change* varies;
    the mean of the resampled ``a`` minus that of ``b`` is the mean of the
    resampled per-example differences.
    """
    if len(a) != len(b):
        raise ConfigError(
            f"a paired comparison needs the same examples in both runs, got {len(a)} and {len(b)} values",
            fix="Compare runs over the same examples, in the same order.",
        )
    differences = [float(x) - float(y) for x, y in zip(a, b, strict=True)]  # same length: checked above
    return bootstrap_mean_interval(differences, confidence=confidence, resamples=resamples, seed=seed)


def paired_rate_difference(
    a: Sequence[bool],
    b: Sequence[bool],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Pass rate of ``a`` minus pass rate of ``b`` over the same examples.

    A rate is the mean of 0/1 outcomes, so this is :func:`paired_mean_difference`
    on them; the bootstrap needs no normal approximation, which matters when the
    two runs disagree on only a handful of examples.
    """
    return paired_mean_difference(
        [1.0 if x else 0.0 for x in a],
        [1.0 if x else 0.0 for x in b],
        confidence=confidence,
        resamples=resamples,
        seed=seed,
    )
