"""The gates: what decides a run's exit status when the user asks for one.

Without a gate the exit status is pytest's (1 when any item fails). A gate makes it
follow one figure of the run instead, and several must all hold:

* ``--editpred-fail-under PCT``: the pass rate (errors count as not passed);
* ``--editpred-fail-under-qa PCT``: the judged-acceptable rate, the share of the
  predictions the LLM judge answered that it judged acceptable (confidence >= 4,
  not reverting: :func:`~pytest_editpred.reports.qa_acceptable`);
* ``--editpred-fail-on-regression``, with ``--editpred-baseline``: no example
  regressed.

None is applied to a run stopped early (a rate over the items that ran says
nothing of the others) or one where a test or collector that is not an example
failed (a gate about examples must not excuse it); each says what it decided in
one line. A gate on the judge that finds no verdict in the run is a usage error
(exit status 4), never a pass: the run was asked to gate on something it does not
have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from . import options

if TYPE_CHECKING:
    from ..reports import Record

__all__ = ["RunState", "apply_gates"]

_DECIDABLE = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)


@dataclass(frozen=True)
class RunState:
    """What the gates need to know of the run besides its records and counts."""

    partial: str | None  # "after 2 of 29 items (why)" for a run stopped early, else None
    other_failures: int  # failed tests and collectors that are not examples
    baseline: Sequence[Record] | None  # the --editpred-baseline records, when given


def apply_gates(
    config: pytest.Config,
    session: pytest.Session,
    summary: dict[str, Any],
    records: Sequence[Record],
    run: RunState,
) -> list[str]:
    """Apply the gates asked for to ``session.exitstatus``; the lines that say what
    each decided, for the terminal summary."""
    from ..reports import gate_figures

    decisions: list[str] = []
    verdicts: list[bool] = []  # each gate applied: did it hold?
    decidable = session.exitstatus in _DECIDABLE
    not_applied: str | None = None  # why no gate is applied to this run
    if run.partial:
        not_applied = f"the run stopped early, {run.partial}"
    elif run.other_failures:
        not_applied = f"{run.other_failures} test(s) or collector(s) that are not examples failed"
    fail_under = options.get(config, "fail_under")
    if fail_under is not None and run.partial:
        decisions.append(
            f"gate: not applied: {not_applied}; a pass rate of the examples that ran says nothing about the others"
        )
    elif fail_under is not None and not_applied:
        decisions.append(f"gate: not applied: {not_applied}, and the pass rate cannot excuse them")
    elif fail_under is not None and decidable:
        total = summary["total"]
        rate, required, shown, shown_required = gate_figures(summary["passed"], total, fail_under)
        counted = f"{summary['passed']} of {total} passed"
        verdicts.append(rate >= required)
        if verdicts[-1]:
            decisions.append(
                f"gate: pass rate {shown}% >= {shown_required}% required: the run passes ({counted}; "
                f"{summary['failed']} failed and {summary['error']} errors are within the limit)"
            )
        else:
            decisions.append(
                f"gate: pass rate {shown}% < {shown_required}% required: the run fails "
                f"({counted}; errors count as not passed)"
            )
    usage = _qa_gate(config, records, run, decidable, decisions, verdicts)
    regressed = False
    if run.baseline is not None:
        from ..reports import compare

        comparison = compare(run.baseline, records)
        decisions.append(comparison.format())
        if options.get(config, "fail_on_regression"):
            # Like the pass-rate gate, this gate decides the exit status on its own:
            # no regression passes a run whose items fail (as before); with other
            # gates, all must hold. Not applied where the pass-rate gate is not.
            if comparison.regressions:
                regressed = True
                decisions.append(f"regression gate: {len(comparison.regressions)} example(s) regressed: the run fails")
            elif not_applied:
                why = f"the run stopped early, {run.partial}" if run.partial else "tests that are not examples failed"
                decisions.append(f"regression gate: no example regressed, but not applied: {why}")
            elif decidable:
                failed_gate = not all(verdicts)
                verdicts.append(True)
                decisions.append(
                    "regression gate: no example regressed"
                    + ("" if failed_gate else ": the run passes (failing items are not regressions)")
                )
    if usage:
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
    elif regressed:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif verdicts:
        session.exitstatus = pytest.ExitCode.OK if all(verdicts) else pytest.ExitCode.TESTS_FAILED
    return decisions


def _qa_gate(
    config: pytest.Config,
    records: Sequence[Record],
    run: RunState,
    decidable: bool,
    decisions: list[str],
    verdicts: list[bool],
) -> bool:
    """``--editpred-fail-under-qa``: its line in ``decisions``, its verdict in
    ``verdicts`` when applied (not to a run stopped early or whose other tests
    failed, as the pass-rate gate; ``decidable``: the run ended in a status a gate
    decides, not an interruption or an internal error). True for a usage error: no
    prediction has the judge's verdict."""
    from ..reports import gate_figures, qa_counts

    fail_under_qa = options.get(config, "fail_under_qa")
    if fail_under_qa is None:
        return False
    if run.partial:
        decisions.append(
            f"qa gate: not applied: the run stopped early, {run.partial}; "
            "a rate of the examples that ran says nothing about the others"
        )
        return False
    if run.other_failures:
        decisions.append(
            f"qa gate: not applied: {run.other_failures} test(s) or collector(s) that are not examples failed, "
            "and the judge's rate cannot excuse them"
        )
        return False
    if not decidable:
        return False
    acceptable, judged = qa_counts(records)
    if not judged:
        asked = sum(1 for record in records if record.get("qa") is not None)
        what = (
            f"the judge answered none of the {asked} predictions it was asked about with a confidence"
            if asked
            else "no judge was asked about any prediction"
        )
        decisions.append(
            f"qa gate: usage error: --editpred-fail-under-qa gates on the LLM judge's verdicts, and this run has "
            f"none ({what}); run with a judge that answers, or drop --editpred-fail-under-qa"
        )
        return True
    rate, required, shown, shown_required = gate_figures(acceptable, judged, fail_under_qa)
    verdicts.append(rate >= required)
    counted = f"{acceptable} of the {judged} predictions the judge answered"
    side, outcome = (">=", "passes") if verdicts[-1] else ("<", "fails")
    decisions.append(
        f"qa gate: judged-acceptable rate {shown}% {side} {shown_required}% required: the run {outcome} "
        f"({counted}; acceptable: confidence >= 4, not reverting)"
    )
    return False
