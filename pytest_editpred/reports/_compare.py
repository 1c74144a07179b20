"""Compare two runs over the same examples: what got better, what got worse, and is
the overall change more than noise.

The unit is the **example**, not the record. Records are grouped by example name,
and the trials of one example are averaged into its pass rate (passed trials over
the trials that ran; errors count as not passed, skipped trials do not count) and
its mean delta-chrF (over the trials that were scored). Trial *i* of one run has
nothing to do with trial *i* of the other (both are independent samples), so
trials are never paired with each other; and the bootstrap resamples examples,
because the trials of one example are not independent.

An example present in both runs is

* **improved** / **regressed** when its pass rate went up / down; when the pass
  rate is the same, when its mean delta-chrF went up / down by more than
  ``chrf_tolerance`` (both runs must have scored it);
* **unchanged** otherwise.

An example with results only in the new run is **new**, only in the old run
**missing** (an example skipped in every trial has no result).

Two files can give examples the same name; such a name is told apart by the file
part of its node id (``evals/a.md::x`` and ``evals/b.md::x``), which is relative to
the rootdir and so the same on every machine.

The records are taken as their type says: a file's are read through
:func:`~pytest_editpred.reports.read_records` with ``complete=True`` first (by
``editpred-report --baseline`` and ``pytest --editpred-baseline``), which skips,
naming it, any record that is not one, so nothing here has to guess at a field.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._record import Record
from ._stats import Interval, paired_mean_difference

__all__ = ["Comparison", "ExampleChange", "compare"]

IMPROVED = "improved"
REGRESSED = "regressed"
UNCHANGED = "unchanged"
NEW = "new"
MISSING = "missing"
STATUSES = (IMPROVED, REGRESSED, UNCHANGED, NEW, MISSING)

_EPSILON = 1e-9


@dataclass(frozen=True)
class _Aggregate:
    """One example in one run: its trials' outcomes and scores."""

    outcomes: tuple[str, ...]
    chrf: tuple[float, ...]

    @property
    def ran(self) -> int:
        return sum(1 for o in self.outcomes if o != "skipped")

    @property
    def pass_rate(self) -> float | None:
        return sum(1 for o in self.outcomes if o == "passed") / self.ran if self.ran else None

    @property
    def mean_chrf(self) -> float | None:
        return math.fsum(self.chrf) / len(self.chrf) if self.chrf else None


@dataclass(frozen=True)
class ExampleChange:
    """How one example fared in the old and the new run.

    Rates are fractions (0-1), delta-chrF is on its 0-100 scale; a side with no
    result is None. ``old_outcomes``/``new_outcomes`` list the trials in order.
    """

    name: str
    status: str
    old_pass_rate: float | None = None
    new_pass_rate: float | None = None
    old_delta_chr_f: float | None = None
    new_delta_chr_f: float | None = None
    old_outcomes: tuple[str, ...] = ()
    new_outcomes: tuple[str, ...] = ()

    @property
    def delta_chr_f_change(self) -> float | None:
        if self.old_delta_chr_f is None or self.new_delta_chr_f is None:
            return None
        return self.new_delta_chr_f - self.old_delta_chr_f

    def describe(self) -> str:
        """``passed -> failed (chrF 80.0 -> 42.1)``: one line for the terminal."""
        old = _outcomes_text(self.old_outcomes)
        new = _outcomes_text(self.new_outcomes)
        text = f"{old} -> {new}"
        if self.old_delta_chr_f is not None or self.new_delta_chr_f is not None:
            text += f" (chrF {_number(self.old_delta_chr_f)} -> {_number(self.new_delta_chr_f)})"
        return text


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`.

    ``pass_rate_difference`` and ``delta_chr_f_difference`` are new minus old over
    the examples both runs measured (``paired_pass_examples`` and
    ``paired_chrf_examples`` of them), with a paired-bootstrap interval; their
    estimate is NaN when no example is shared.
    """

    changes: tuple[ExampleChange, ...]
    pass_rate_difference: Interval
    delta_chr_f_difference: Interval
    paired_pass_examples: int
    paired_chrf_examples: int
    old_examples: int
    new_examples: int
    confidence: float = field(default=0.95)

    def _with(self, status: str) -> list[ExampleChange]:
        return [c for c in self.changes if c.status == status]

    @property
    def regressions(self) -> list[ExampleChange]:
        return self._with(REGRESSED)

    @property
    def improvements(self) -> list[ExampleChange]:
        return self._with(IMPROVED)

    @property
    def counts(self) -> dict[str, int]:
        """Examples per status, every status present (0 when none)."""
        return {status: len(self._with(status)) for status in STATUSES}

    def format(self) -> str:
        """A short block for the terminal: counts, differences, the regressed and the
        improved examples."""
        counts = self.counts
        level = f"{round(self.confidence * 100)}%"
        lines = [
            f"compared {self.old_examples} old and {self.new_examples} new examples: "
            + ", ".join(f"{counts[s]} {s}" for s in STATUSES),
            "  pass rate   "
            + _difference(self.pass_rate_difference, scale=100, unit=" pts", digits=1)
            + f"  ({level} paired bootstrap over {self.paired_pass_examples} examples)",
            "  delta-chrF  "
            + _difference(self.delta_chr_f_difference, scale=1, unit="", digits=2)
            + f"  ({level} paired bootstrap over {self.paired_chrf_examples} examples)",
        ]
        for label, changes in (("regressed", self.regressions), ("improved", self.improvements)):
            if changes:
                lines.append(f"{label} ({len(changes)}):")
                lines.extend(f"  {c.name}: {c.describe()}" for c in changes)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for a JSON file or the HTML report)."""

        def interval(value: Interval) -> dict[str, float | None]:
            return {
                key: None if math.isnan(v) else v
                for key, v in (("estimate", value.estimate), ("low", value.low), ("high", value.high))
            }

        return {
            "counts": self.counts,
            "pass_rate_difference": interval(self.pass_rate_difference),
            "delta_chr_f_difference": interval(self.delta_chr_f_difference),
            "paired_pass_examples": self.paired_pass_examples,
            "paired_chrf_examples": self.paired_chrf_examples,
            "changes": [
                {
                    "name": c.name,
                    "status": c.status,
                    "old_pass_rate": c.old_pass_rate,
                    "new_pass_rate": c.new_pass_rate,
                    "old_delta_chr_f": c.old_delta_chr_f,
                    "new_delta_chr_f": c.new_delta_chr_f,
                    "old_outcomes": list(c.old_outcomes),
                    "new_outcomes": list(c.new_outcomes),
                }
                for c in self.changes
            ],
        }


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _outcomes_text(outcomes: Sequence[str]) -> str:
    if not outcomes:
        return "absent"
    if len(set(outcomes)) == 1:
        return outcomes[0] if len(outcomes) == 1 else f"{outcomes[0]} x{len(outcomes)}"
    passed = sum(1 for o in outcomes if o == "passed")
    return f"{passed}/{len(outcomes)} passed"


def _difference(value: Interval, *, scale: float, unit: str, digits: int) -> str:
    if math.isnan(value.estimate):
        return "n/a (no example in both runs)"
    verdict = "a real change" if value.excludes_zero else "within noise"
    return (
        f"{value.estimate * scale:+.{digits}f}{unit} "
        f"[{value.low * scale:+.{digits}f}, {value.high * scale:+.{digits}f}] {verdict}"
    )


def _file_of(record: Record) -> str:
    nodeid = str(record.get("nodeid") or "")
    return nodeid.split("::", 1)[0] if nodeid else str(record.get("path") or "")


def _keys(*runs: Sequence[Record]) -> dict[int, str]:
    """The example key of every record (by ``id``): its name, plus its file when two
    files give the same name in either run."""
    files: dict[str, set[str]] = {}
    for run in runs:
        for record in run:
            files.setdefault(str(record.get("name")), set()).add(_file_of(record))
    keys: dict[int, str] = {}
    for run in runs:
        for record in run:
            name = str(record.get("name"))
            keys[id(record)] = f"{_file_of(record)}::{name}" if len(files[name]) > 1 else name
    return keys


def _aggregate(records: Iterable[Record], keys: Mapping[int, str]) -> dict[str, _Aggregate]:
    trials: dict[str, list[tuple[int, str, float | None]]] = {}
    for record in records:
        metrics = record.get("metrics") or {}
        chrf = metrics.get("delta_chr_f")
        score = None
        if isinstance(chrf, (int, float)) and not isinstance(chrf, bool) and math.isfinite(chrf):  # a bool is no score
            score = float(chrf)
        trial = record.get("trial")
        order = trial if isinstance(trial, int) else 0
        trials.setdefault(keys[id(record)], []).append((order, str(record.get("outcome")), score))
    out: dict[str, _Aggregate] = {}
    for key, rows in trials.items():
        rows.sort(key=lambda row: row[0])
        aggregate = _Aggregate(
            tuple(o for _, o, _ in rows),
            tuple(s for _, o, s in rows if s is not None and o != "skipped"),
        )
        if aggregate.ran:  # skipped in every trial: no result
            out[key] = aggregate
    return out


def _status(old: _Aggregate, new: _Aggregate, tolerance: float) -> str:
    old_rate, new_rate = old.pass_rate, new.pass_rate
    assert old_rate is not None and new_rate is not None
    if abs(new_rate - old_rate) > _EPSILON:
        return IMPROVED if new_rate > old_rate else REGRESSED
    old_chrf, new_chrf = old.mean_chrf, new.mean_chrf
    if old_chrf is not None and new_chrf is not None and abs(new_chrf - old_chrf) > tolerance:
        return IMPROVED if new_chrf > old_chrf else REGRESSED
    return UNCHANGED


def compare(
    old: Sequence[Record],
    new: Sequence[Record],
    *,
    chrf_tolerance: float = _EPSILON,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> Comparison:
    """Compare the records of an old and a new run (see the module docstring).

    ``chrf_tolerance`` is the smallest change of an example's mean delta-chrF
    (0-100 scale) that counts as improved/regressed; by default any change beyond
    rounding. Changes are listed regressed first, then improved, new, missing,
    unchanged, each by name. The intervals are seeded, so reproducible.
    """
    keys = _keys(old, new)
    before = _aggregate(old, keys)
    after = _aggregate(new, keys)
    changes: list[ExampleChange] = []
    pass_pairs: list[tuple[float, float]] = []
    chrf_pairs: list[tuple[float, float]] = []
    for name in sorted(before.keys() | after.keys()):
        a, b = before.get(name), after.get(name)
        if a is not None and b is not None:
            status = _status(a, b, chrf_tolerance)
            assert a.pass_rate is not None and b.pass_rate is not None
            pass_pairs.append((b.pass_rate, a.pass_rate))
            if a.mean_chrf is not None and b.mean_chrf is not None:
                chrf_pairs.append((b.mean_chrf, a.mean_chrf))
        else:
            status = NEW if a is None else MISSING
        changes.append(
            ExampleChange(
                name=name,
                status=status,
                old_pass_rate=a.pass_rate if a else None,
                new_pass_rate=b.pass_rate if b else None,
                old_delta_chr_f=a.mean_chrf if a else None,
                new_delta_chr_f=b.mean_chrf if b else None,
                old_outcomes=a.outcomes if a else (),
                new_outcomes=b.outcomes if b else (),
            )
        )
    order = {REGRESSED: 0, IMPROVED: 1, NEW: 2, MISSING: 3, UNCHANGED: 4}
    changes.sort(key=lambda c: (order[c.status], c.name))

    def difference(pairs: list[tuple[float, float]]) -> Interval:
        return paired_mean_difference(
            [n for n, _ in pairs], [o for _, o in pairs], confidence=confidence, resamples=resamples, seed=seed
        )

    return Comparison(
        changes=tuple(changes),
        pass_rate_difference=difference(pass_pairs),
        delta_chr_f_difference=difference(chrf_pairs),
        paired_pass_examples=len(pass_pairs),
        paired_chrf_examples=len(chrf_pairs),
        old_examples=len(before),
        new_examples=len(after),
        confidence=confidence,
    )
