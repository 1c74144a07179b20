"""What a run tells: item properties (JUnit), records, the terminal summary.

Workers annotate each report with a plain-data record (``report.editpred``), which
xdist carries to the controller with the report; the controller alone aggregates,
prints and writes files, so a summary appears once, also under ``-n``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .._exceptions import EditPredError, InfrastructureError
from .collect import ExampleItem
from .runner import PREPARED_KEY, RUN_KEY, Prepared

__all__ = ["Reporter", "annotate", "record_of"]


def _outcome(report: pytest.TestReport) -> str:
    if report.when != "call" and report.failed:
        return "error"
    return report.outcome


def record_of(item: ExampleItem, report: pytest.TestReport, error: BaseException | None) -> dict[str, Any]:
    """One plain-data record per item (and trial), for reports and comparisons."""
    example = item.example
    prepared: Prepared | None = item.stash.get(PREPARED_KEY, None)
    run = item.stash.get(RUN_KEY, None)
    settings = run.settings if run is not None else None
    prediction = prepared.prediction if prepared is not None else None
    verdict = prepared.verdict if prepared is not None else None
    record: dict[str, Any] = {
        "name": example.name if example is not None else item.name,
        "nodeid": item.nodeid,
        "path": str(item.path),
        "repository_url": example.repository_url if example is not None else None,
        "revision": example.revision if example is not None else None,
        "tags": list(example.tags) if example is not None else [],
        "provider": settings.provider if settings is not None else None,
        "model": (prediction.model if prediction and prediction.model else None)
        or (settings.model if settings is not None else None),
        "trial": item.trial,
        "outcome": _outcome(report),
        "reason": None,
        "attempts": [],
        "latency": round(prepared.latency, 6) if prepared is not None else None,
        "cached": bool(prediction.cached) if prediction is not None else False,
        "predicted_patch": prediction.patch if prediction is not None else None,
        "predicted_text": prediction.text if prediction is not None else None,
        "predicted_cursor": None,
        "matched_candidate": None,
        "metrics": {},
    }
    if prediction is not None:
        record["attempts"] = [
            {"ordinal": a.ordinal, "error": a.error, "latency": round(a.latency, 6)} for a in prediction.attempts
        ]
    elif error is not None and getattr(error, "attempts", None):
        record["attempts"] = [
            {"ordinal": a.ordinal, "error": a.error, "latency": round(a.latency, 6)} for a in error.attempts
        ]
    if verdict is not None:
        record["reason"] = verdict.reason
        record["matched_candidate"] = verdict.matched + 1 if verdict.matched is not None else None
        if verdict.predicted_cursor is not None:
            record["predicted_cursor"] = {"path": verdict.predicted_cursor[0], "offset": verdict.predicted_cursor[1]}
    if prepared is not None and prepared.properties.get("metrics"):
        record["metrics"] = prepared.properties["metrics"]
    if record["reason"] is None and prepared is not None and prepared.properties.get("reason"):
        record["reason"] = prepared.properties["reason"]
    if error is not None and record["outcome"] == "error":
        kind = "infrastructure" if isinstance(error, InfrastructureError) else "example"
        if not isinstance(error, EditPredError):
            kind = "exception"
        record["reason"] = f"{kind}: {error}" if isinstance(error, EditPredError) else f"{kind}: {error!r}"
    return record


def annotate(item: ExampleItem, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Write the item's facts into ``user_properties`` (so JUnit XML) and the report."""
    if report.when == "setup" and report.passed:
        return
    if report.when == "teardown" and not report.failed:
        return
    error = call.excinfo.value if call.excinfo is not None else None
    record = record_of(item, report, error)
    report.editpred = record  # type: ignore[attr-defined]
    properties = [
        ("editpred_provider", record["provider"]),
        ("editpred_model", record["model"]),
        ("editpred_outcome", record["outcome"]),
        ("editpred_reason", record["reason"]),
        ("editpred_matched_candidate", record["matched_candidate"]),
        ("editpred_latency", record["latency"]),
        ("editpred_trial", record["trial"]),
    ]
    for attempt in record["attempts"]:
        properties.append(
            (f"editpred_attempt_{attempt['ordinal']}", f"{attempt['error'] or 'ok'} {attempt['latency']:.3f}s")
        )
    for name, value in record["metrics"].items():
        properties.append((f"editpred_{name}", value))
    item.user_properties.extend((k, v) for k, v in properties if v is not None)
    report.user_properties = list(item.user_properties)


class Reporter:
    """Controller-side aggregation: counts, cancellation on -x, the summary."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.session: pytest.Session | None = None
        self.records: list[dict[str, Any]] = []

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "editpred", None)
        if isinstance(record, dict):
            self.records.append(record)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_runtest_logfinish(self) -> None:
        """``-x`` and ``--maxfail`` stop the session: drop the predictions in flight."""
        if self.session is not None and (self.session.shouldstop or self.session.shouldfail):
            self.cancel()

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self) -> None:
        self.cancel()

    def cancel(self) -> None:
        run = self.config.stash.get(RUN_KEY, None)
        if run is not None:
            run.cancel()

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        run = self.config.stash.get(RUN_KEY, None)
        if run is not None:
            run.close()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not self.records:
            return
        counts: dict[str, int] = {}
        for record in self.records:
            counts[record["outcome"]] = counts.get(record["outcome"], 0) + 1
        total = len(self.records)
        passed = counts.get("passed", 0)
        terminalreporter.write_sep("=", "editpred summary")
        parts = ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped") if counts.get(k))
        terminalreporter.write_line(
            f"{total} predictions: {parts}; pass rate {100 * passed / total:.1f}% (errors count as not passed)"
        )
