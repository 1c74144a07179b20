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
from collections import Counter
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
    # Σ (c − p·n)² / T², in integers: Σ (c·T − P·n)² / T⁴ (Fractions cost 0.1 s at 10,000).
    variance = Fraction(sum((c * total - passed * n) ** 2 for n, c in examples), total**4)
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

    Every resample is ``n`` examples drawn uniformly with replacement, exactly; how
    the draws are made (:func:`_resample_totals`) is what keeps 10,000 examples
    (20 million draws at the default 2,000 resamples) to a fraction of a second.
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
    if all(len(group) == len(data[0]) for group in data):
        # Every example has as many values (one trial each, the usual run): a
        # resample's mean is the mean of its examples' means. An example whose trials
        # agree has that value as its mean, exactly, so repeats give the same interval.
        means = [group[0] if group[0] == group[-1] else math.fsum(group) / len(group) for group in data]
        resampled = [total / n for (total,) in _resample_totals([means], resamples, rng)]
    else:
        sums = [math.fsum(group) for group in data]
        sizes = [float(len(group)) for group in data]
        resampled = [total / size for total, size in _resample_totals([sums, sizes], resamples, rng)]
    resampled.sort()
    alpha = 1 - confidence
    return Interval(estimate, _quantile(resampled, alpha / 2), _quantile(resampled, 1 - alpha / 2), confidence)


#: A row shared by at least this many examples (delta-chrF 100, pass@k's few levels)
#: has its number of draws drawn as one binomial count (:func:`_resample_totals`),
#: where it would take that many draws.
SHARED_ROWS = 256
_BLOCK = 256  # rows of a block: one of them is one random byte (:func:`_resample_totals`)


def _resample_totals(columns: Sequence[Sequence[float]], resamples: int, rng: random.Random) -> list[tuple[float, ...]]:
    """For each of ``resamples`` resamples of the ``n`` rows of ``columns`` (``n``
    rows drawn uniformly with replacement), each column's sum over the rows drawn.

    Exact multinomial resampling, at C speed where ``rng.choices`` loops in Python.
    The rows are split into parts, and how many of a resample's ``n`` draws land in
    each part is drawn as a chain of binomial counts (given the draws still to make
    and the rows not yet split off: the multinomial's own decomposition). The parts:

    * each row shared by at least :data:`SHARED_ROWS` examples (equal in every
      column): all its draws add the same, so its count is all it needs;
    * the other rows, in blocks of 256: a random byte (``rng.randbytes``) picks a
      row of a block, and ``map`` looks it up in the block's table at C speed;
    * the fewer than 256 rows left, ``r``: each repeated ``m = 256 // r`` times in a
      table of ``m·r`` entries, and the bytes past it rejected (``bytes.translate``
      deletes them) and drawn again.

    So every row is drawn with probability exactly ``1/n``: no modulo bias (its
    bound is 0), only the binomial sampler's floating point (:func:`_binomial`).

    One resample at a time: memory stays at a few times ``n``. A total is the float
    sum of the draws (``sum``: ``math.fsum`` would cost half as much again) and of
    ``count * value`` per shared row, so for a seed it is the same on every platform;
    Python 3.12's ``sum`` rounds more closely than 3.11's, which can move a bound by
    about 1e-13 between the two.
    """
    n = len(columns[0])
    rows = list(zip(*columns))
    shared = sorted((row, times) for row, times in Counter(rows).items() if times >= SHARED_ROWS)
    common = {row for row, _ in shared}
    rest = [row for row in rows if row not in common]
    # (rows in the part, the shared row or None, the block's tables, the bytes rejected)
    parts: list[tuple[int, tuple[float, ...] | None, list[list[float]], bytes]] = [
        (times, row, [], b"") for row, times in shared
    ]
    for start in range(0, len(rest), _BLOCK):
        block = rest[start : start + _BLOCK]
        repeat = _BLOCK // len(block)
        tables = [list(column) * repeat for column in zip(*block)]
        parts.append((len(block), None, tables, bytes(range(repeat * len(block), _BLOCK))))
    totals: list[tuple[float, ...]] = []
    for _ in range(resamples):
        left = n  # draws still to make
        pool = n  # rows not yet split off
        sums: list[list[float]] = [[] for _ in columns]
        for size, row, tables, rejected in parts:
            drawn = _binomial(rng, left, size / pool)
            pool -= size
            left -= drawn
            if not drawn:
                continue
            if row is not None:
                for column, value in zip(sums, row):
                    column.append(drawn * value)
                continue
            picked = rng.randbytes(drawn)
            if rejected:
                picked = picked.translate(None, rejected)
                while len(picked) < drawn:
                    picked += rng.randbytes(drawn - len(picked)).translate(None, rejected)
            for column, table in zip(sums, tables):
                column.append(sum(map(table.__getitem__, picked)))
        totals.append(tuple(map(sum, sums)))
    return totals


def _binomial(rng: random.Random, trials: int, p: float) -> int:
    """A binomial variate: successes in ``trials`` trials of probability ``p``.

    Python 3.12's ``random.binomialvariate``, algorithm for algorithm (Devroye's
    geometric method below 10 expected successes, else Hörmann's BTRS transformed
    rejection with squeeze), here so that the draws are the same on every supported
    Python (3.10 and 3.11 have none). Both are exact samplers: their only error is
    floating point's (``log``, ``lgamma``), about 1e-15 of a probability. A uniform
    draw of exactly 0.0, which would divide by zero or take ``log(0)``, is drawn
    again (``1 - random()`` for the logarithms): a chance of 2**-53 each.
    """
    if p <= 0.0 or trials == 0:
        return 0
    if p >= 1.0:
        return trials
    if p > 0.5:
        return trials - _binomial(rng, trials, 1.0 - p)
    uniform = rng.random
    if trials * p < 10.0:
        # Devroye's geometric method: O(trials·p).
        successes = position = 0
        c = math.log(1.0 - p)
        if not c:
            return 0
        while True:
            position += math.floor(math.log(1.0 - uniform()) / c) + 1
            if position > trials:
                return successes
            successes += 1
    # BTRS (Hörmann 1993): transformed rejection with squeeze, O(1).
    spq = math.sqrt(trials * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = trials * p + 0.5
    vr = 0.92 - 4.2 / b
    setup = False
    alpha = lpq = h = 0.0
    mode = 0
    while True:
        u = uniform() - 0.5
        us = 0.5 - abs(u)
        if not us:
            continue
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > trials:
            continue
        v = 1.0 - uniform()
        if us >= 0.07 and v <= vr:
            return k
        if not setup:
            alpha = (2.83 + 5.1 / b) * spq
            lpq = math.log(p / (1.0 - p))
            mode = math.floor((trials + 1) * p)
            h = math.lgamma(mode + 1) + math.lgamma(trials - mode + 1)
            setup = True
        v *= alpha / (a / (us * us) + b)
        if math.log(v) <= h - math.lgamma(k + 1) - math.lgamma(trials - k + 1) + (k - mode) * lpq:
            return k


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
