"""The summary's lines of text, from records: the pass rate and mean delta-chrF with
their intervals, the cursor exact-match rate, the trials and the groups.

The terminal summary prints them, the HTML page shows them verbatim, and
``editpred-report`` prints them for a saved JSONL file: one code, so the three can
never disagree. They need nothing but records (and the run's counts), no pytest.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from .._exceptions import ConfigError
from ._record import CONTEXT_ONLY, Record
from ._stats import (
    bootstrap_mean_interval,
    cluster_bootstrap_mean_interval,
    clustered_rate_interval,
    pass_at_k_single,
    pass_hat_k_single,
)

__all__ = [
    "GROUPS",
    "by_example",
    "cursor_rate_line",
    "excluded",
    "gate_figures",
    "group_lines",
    "rates_line",
    "trial_lines",
]

#: What ``--editpred-group-by`` can group by.
GROUPS = ("repository", "tag")

_TRIAL_SUFFIX = re.compile(r"\[t\d+\]$")


def by_example(records: Sequence[Record]) -> dict[str, list[Record]]:
    """The records that ran (skipped ones left out), by example: its items' node id
    without the trial suffix (``[t2]``), so the trials of one example are one cluster."""
    examples: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        if record["outcome"] != "skipped":
            examples[_TRIAL_SUFFIX.sub("", record["nodeid"])].append(record)
    return examples


def excluded(records: Sequence[Record]) -> str:
    """What a mean over scored predictions leaves out, e.g. ``3 errors excluded``."""
    counts = Counter(r["outcome"] for r in records if r["outcome"] != "skipped" and not r["metrics"])
    labels = {
        "error": ("error", "errors"),
        "failed": ("unscored failure", "unscored failures"),
        "passed": ("unscored pass", "unscored passes"),
    }
    parts = [f"{n} {labels.get(k, (k, k))[n != 1]}" for k, n in sorted(counts.items())]
    return f"{' and '.join(parts)} excluded" if parts else ""


def rates_line(records: Sequence[Record], summary: Mapping[str, Any]) -> str:
    """The run's pass rate and mean delta-chrF, each with its denominator and a 95%
    interval over *examples* (trials of one example clustered: see
    :func:`~pytest_editpred.reports.clustered_rate_interval` and
    :func:`~pytest_editpred.reports.cluster_bootstrap_mean_interval`).

    ``summary`` holds the run's counts: ``total`` (the predictions that ran) and
    ``passed``, ``failed``, ``error``, ``skipped``."""
    total = summary["total"]
    parts = ", ".join(
        f"{summary[k]} {k}{'s' if k == 'error' and summary[k] != 1 else ''}"
        for k in ("passed", "failed", "error", "skipped")
        if summary[k]
    )
    if not total:
        return f"{len(records)} predictions: {parts}"
    examples = by_example(records)
    rate = clustered_rate_interval([(len(rs), sum(r["outcome"] == "passed" for r in rs)) for rs in examples.values()])
    clustered = f" over {len(examples)} examples, trials clustered" if len(examples) < total else ""
    line = (
        f"{total} predictions: {parts}; pass rate {100 * summary['passed'] / total:.1f}% of {total} "
        f"[95% CI {100 * rate.low:.1f}-{100 * rate.high:.1f}{clustered}] (errors count as not passed)"
    )
    # A context-only record's zero score is no prediction's: no delta-chrF to average.
    chrf = [
        [r["metrics"]["delta_chr_f"] for r in rs if r["metrics"] and r.get("provider") != CONTEXT_ONLY]
        for rs in examples.values()
    ]
    scored = sum(len(values) for values in chrf)
    if scored:
        mean = cluster_bootstrap_mean_interval(chrf, confidence=0.95)
        interval = f" [95% CI {mean.low:.1f}-{mean.high:.1f}]" if scored > 1 else ""
        line += f"; mean delta-chrF {mean.estimate:.1f} over {scored} scored{interval}"
    left_out = excluded(records)
    if left_out:
        line += f"; {left_out}"
    return line


def cursor_rate_line(records: Sequence[Record]) -> str | None:
    """The cursor exact-match rate over the scored predictions whose best expected
    patch marks a cursor (a patch without one cannot be matched by a cursor: such a
    prediction is ``n/a``, never a miss). None when no record says either way."""
    scored = [r for r in records if r["metrics"]]
    marked = [r for r in scored if r.get("expected_cursor")]
    if not marked:
        if any(r.get("expected_cursor") is False for r in scored):
            return "cursor exact match n/a (no scored prediction's best expected patch marks a cursor)"
        return None
    exact = sum(r["metrics"].get("cursor_exact_match") is True for r in marked)
    return (
        f"cursor exact match {100 * exact / len(marked):.1f}% ({exact} of {len(marked)} scored predictions "
        "whose best expected patch marks a cursor)"
    )


def trial_lines(records: Sequence[Record]) -> list[str]:
    """pass@1, pass@k (unbiased) and pass^k over examples run k > 1 times."""
    outcomes: dict[str, list[bool]] = defaultdict(list)
    unreadable = 0
    for record in records:
        if record["outcome"] == "skipped":
            continue
        # Items of an example run N > 1 times end in [tN] (names never hold "["); an
        # unreadable file is one item without it, and has no trials to count.
        example, suffixed = _TRIAL_SUFFIX.subn("", record["nodeid"])
        if suffixed:
            outcomes[example].append(record["outcome"] == "passed")
        else:
            unreadable += 1
    k = min((len(v) for v in outcomes.values()), default=1)
    if k < 2:
        return []
    trials = [(len(v), sum(v)) for v in outcomes.values()]
    p1 = clustered_rate_interval(trials)  # the trials of one example are clustered
    at_k = bootstrap_mean_interval([pass_at_k_single(n, c, k) for n, c in trials], confidence=0.95)
    hat_k = bootstrap_mean_interval([pass_hat_k_single(n, c, k) for n, c in trials], confidence=0.95)
    left_out = f" ({unreadable} unreadable example file(s) left out)" if unreadable else ""
    return [
        (
            f"trials: {len(trials)} examples x {k}{left_out}: "
            f"pass@1 {100 * p1.estimate:.1f}% [95% CI {100 * p1.low:.1f}-{100 * p1.high:.1f}], "
            f"pass@{k} {100 * at_k.estimate:.1f}% [{100 * at_k.low:.1f}-{100 * at_k.high:.1f}], "
            f"pass^{k} {100 * hat_k.estimate:.1f}% [{100 * hat_k.low:.1f}-{100 * hat_k.high:.1f}]"
        )
    ]


def _repo_label(url: str | None) -> str:
    """``calc`` for .../acme/calc, .../acme/calc.git and git@host:acme/calc.git."""
    tail = (url or "").rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return tail.removesuffix(".git") or (url or "?")


def group_lines(records: Sequence[Record], group: str) -> list[str]:
    """``by repository:`` or ``by tag:`` and a line per repository or tag: passed of
    those that ran, and the mean delta-chrF of the scored ones. A record with no tag
    is under ``(no tag)``; a record with several tags counts under each. A ``group``
    not in :data:`GROUPS` is a :class:`ConfigError`."""
    if group not in GROUPS:
        raise ConfigError(f"--editpred-group-by {group!r}", fix=f"Use one of {', '.join(GROUPS)}.")
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        if group == "repository":
            groups[_repo_label(record["repository_url"])].append(record)
        else:
            for tag in record["tags"] or ["(no tag)"]:
                groups[tag].append(record)
    lines = [f"by {group}:"]
    for name in sorted(groups):
        members = [r for r in groups[name] if r["outcome"] != "skipped"]
        if not members:
            lines.append(f"  {name:<30} all skipped")
            continue
        passed = sum(r["outcome"] == "passed" for r in members)
        chrf = [r["metrics"]["delta_chr_f"] for r in members if r["metrics"]]
        mean = f", mean delta-chrF {sum(chrf) / len(chrf):.1f}" if chrf else ""
        left_out = excluded(members)
        mean += f" ({left_out})" if left_out and chrf else ""
        lines.append(f"  {name:<30} {passed}/{len(members)} passed ({100 * passed / len(members):.0f}%){mean}")
    return lines


def gate_figures(passed: int, total: int, fail_under: float) -> tuple[Fraction, Fraction, str, str]:
    """The gate's rate and threshold, exact, and as printed: the threshold as the user
    wrote it, the rate with the fewest decimals (at least one) that keep it on its
    side of the threshold (never ``55.2% < 55.2%``)."""
    rate = Fraction(100 * passed, total) if total else Fraction(0)
    required = Fraction(repr(float(fail_under)))  # the decimal that was typed, not its binary neighbour
    shown_required = f"{fail_under:g}" if Fraction(f"{fail_under:g}") == required else repr(float(fail_under))
    digits = 1
    while True:  # ends: a rate that differs from the threshold does so by some decimal
        scaled = round(rate * 10**digits)  # exact decimal rounding, no float on the way
        rounded = Fraction(scaled, 10**digits)
        if (rounded >= required) == (rate >= required) and (rounded == required) == (rate == required):
            break
        digits += 1
    whole, fraction = divmod(abs(scaled), 10**digits)
    shown = f"{'-' if scaled < 0 else ''}{whole}.{fraction:0{digits}d}"
    return rate, required, shown, shown_required
