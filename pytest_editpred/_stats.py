"""How sure a run's numbers are: intervals, pass@k, pass^k, paired differences.

An eval set of twenty examples cannot tell 60 % from 70 %, and differences of a few
chrF points are noise (peers.md §D). So every rate gets a Wilson interval, every mean
a bootstrap interval, and a comparison of two runs on the same examples gets a
*paired* interval: each example is its own control, which is far tighter than two
independent intervals.

Pure standard library; every resampling is seeded, so a report is reproducible.
Bad arguments (``k`` larger than the number of trials, runs of different lengths)
come from the user's options, hence :class:`ConfigError`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from ._exceptions import ConfigError

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Interval",
    "bootstrap_mean_interval",
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


def wilson_interval(
    successes: int, trials: int, confidence: float = DEFAULT_CONFIDENCE
) -> Interval:
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
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    center = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # At 0 % and 100 % the bound is exactly 0 (1); floating point leaves ~1e-17.
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == trials else min(1.0, center + half)
    return Interval(p, low, high, confidence)


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
    delivers results in a different order every run).
    """
    _z(confidence)
    if resamples < 1:
        raise ConfigError(f"resamples must be at least 1, got {resamples}")
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, confidence)
    data = sorted(float(v) for v in values)
    estimate = math.fsum(data) / n
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(data, k=n)) / n for _ in range(resamples))
    alpha = 1 - confidence
    return Interval(
        estimate, _quantile(means, alpha / 2), _quantile(means, 1 - alpha / 2), confidence
    )


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
            f"a paired comparison needs the same examples in both runs, got {len(a)} "
            f"and {len(b)} values",
            fix="Compare runs over the same examples, in the same order.",
        )
    differences = [float(x) - float(y) for x, y in zip(a, b)]
    return bootstrap_mean_interval(
        differences, confidence=confidence, resamples=resamples, seed=seed
    )


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
