"""What a run tells: item properties (JUnit), records, summaries, files and gates.

Workers annotate each report with a plain-data record (``report.editpred``), which
xdist carries to the controller with the report; the controller alone aggregates,
prints and writes files, so a summary appears once, also under ``-n``.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from .._exceptions import ConfigError, EditPredError, InfrastructureError
from .._prediction import Prediction
from . import options
from .collect import ExampleItem
from .runner import PREPARED_KEY, RUN_KEY, SETUP_ERROR_KEY, Prepared

__all__ = ["Reporter", "annotate", "record_of"]

VIEW_LINES = 15


def _outcome(report: pytest.TestReport) -> str:
    if report.when != "call" and report.failed:
        return "error"
    return report.outcome


def _attempts(source: Any) -> list[dict[str, Any]]:
    return [
        {"ordinal": a.ordinal, "error": a.error, "latency": round(a.latency, 6)}
        for a in getattr(source, "attempts", None) or ()
    ]


def _view(text: str, offset: int | None, row: int) -> str:
    """Lines around ``row`` with the cursor drawn in, for the HTML report."""
    from .._verdict import draw_cursor

    drawn = draw_cursor(text, offset)
    lines = drawn.split("\n")
    start = max(row - VIEW_LINES, 0)
    return "\n".join(lines[start : row + VIEW_LINES + 1])


def _views(prepared: Prepared) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    verdict = prepared.verdict
    if verdict is None or verdict.best is None:
        return None, None
    path = prepared.scene.cursor.path
    before = prepared.scene.buffers.get(path, "")
    candidate = verdict.candidates[verdict.best]
    expected = candidate.buffers.get(path, "")
    predicted = verdict.predicted_buffers.get(path, "")
    expected_cursor = candidate.cursor[1] if candidate.cursor and candidate.cursor[0] == path else None
    predicted_cursor = verdict.predicted_cursor[1] if verdict.predicted_cursor else None
    row = prepared.scene.cursor.row
    view = {
        "path": path,
        "before": _view(before, prepared.scene.cursor.offset, row),
        "expected": _view(expected, expected_cursor, row),
        "predicted": _view(predicted, predicted_cursor, row),
    }
    return view, view


def _model_texts(
    prediction: Prediction | None, prepared: Prepared | None, error: BaseException | None
) -> tuple[Any, str | None]:
    """The prompt the provider sent and the model's raw answer, clipped to
    :data:`RECORDED_CHARS` each (an unusable answer hangs them on its error)."""
    from .._clip import RECORDED_CHARS, clip, clip_prompt

    source: Any = prediction
    if prediction is None:
        source = (prepared.prediction_error if prepared is not None else None) or error
    prompt = (prediction.extra if prediction is not None else {}).get("prompt", getattr(source, "prompt", None))
    raw = getattr(source, "raw_output", None)
    return (
        clip_prompt(prompt, RECORDED_CHARS) if prompt is not None else None,
        clip(raw, RECORDED_CHARS) if isinstance(raw, str) else None,
    )


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
        "model": (prediction.model if prediction is not None else None)
        or (settings.model if settings is not None else None),
        "trial": item.trial,
        "outcome": _outcome(report),
        "reason": None,
        "attempts": _attempts(prediction) or _attempts(error),
        "latency": round(prepared.latency, 6) if prepared is not None else None,
        "cached": bool(prediction.cached) if prediction is not None else False,
        "usage": dict(prediction.usage) if prediction is not None else {},
        "predicted_patch": prediction.patch if prediction is not None else None,
        "predicted_text": prediction.text if prediction is not None else None,
        "predicted_cursor": None,
        "prompt": None,
        "raw_output": None,
        "matched_candidate": None,
        "best_candidate": None,
        "metrics": {},
        "notes": [],
    }
    record["prompt"], record["raw_output"] = _model_texts(prediction, prepared, error)
    if prepared is not None:
        record["metrics"] = prepared.properties.get("metrics", {})
        record["reason"] = prepared.properties.get("reason")
        record["matched_candidate"] = prepared.properties.get("matched_candidate")
    if verdict is not None:
        record["best_candidate"] = verdict.best + 1 if verdict.best is not None else None
        record["notes"] = list(verdict.notes)
        if verdict.predicted_cursor is not None:
            record["predicted_cursor"] = {"path": verdict.predicted_cursor[0], "offset": verdict.predicted_cursor[1]}
        if prepared is not None and record["outcome"] != "passed":
            record["expected_view"], record["predicted_view"] = _views(prepared)
    if error is not None and record["outcome"] == "error":
        if isinstance(error, InfrastructureError):
            record["reason"] = f"infrastructure: {error}"
        elif isinstance(error, EditPredError):
            record["reason"] = f"example: {error}"
        else:
            record["reason"] = f"exception: {error!r}"
    return record


def annotate(item: ExampleItem, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Write the item's facts into ``user_properties`` (so JUnit XML) and the report."""
    if (report.when == "setup" and report.passed) or (report.when == "teardown" and not report.failed):
        return
    error = item.stash.get(SETUP_ERROR_KEY, None) or (call.excinfo.value if call.excinfo is not None else None)
    record = record_of(item, report, error)
    report.editpred = record  # type: ignore[attr-defined]
    properties: list[tuple[str, Any]] = [
        ("editpred_provider", record["provider"]),
        ("editpred_model", record["model"]),
        ("editpred_outcome", record["outcome"]),
        ("editpred_reason", record["reason"]),
        ("editpred_matched_candidate", record["matched_candidate"]),
        ("editpred_best_candidate", record["best_candidate"]),
        ("editpred_latency", record["latency"]),
        ("editpred_trial", record["trial"]),
        ("editpred_cached", record["cached"] or None),
    ]
    for note in record["notes"]:
        properties.append(("editpred_note", note))
    for attempt in record["attempts"]:
        properties.append(
            (f"editpred_attempt_{attempt['ordinal']}", f"{attempt['error'] or 'ok'} {attempt['latency']:.3f}s")
        )
    for name, value in record["metrics"].items():
        if not isinstance(value, dict):
            properties.append((f"editpred_{name}", value))
    item.user_properties.extend((k, v) for k, v in properties if v is not None)
    report.user_properties = list(item.user_properties)
    if report.when == "call" and report.failed and item.config.getoption("editpred_accept", False):
        _accept(item, report)


def _accept(item: ExampleItem, report: pytest.TestReport) -> None:
    """``--editpred-accept``: the prediction becomes a new Expected Patch of its file."""
    prepared: Prepared | None = item.stash.get(PREPARED_KEY, None)
    if prepared is None or prepared.verdict is None or item.trial != 1 or item.path.suffix != ".md":
        return
    from ..reports import accept_prediction
    from .._scene import unified_diff

    verdict = prepared.verdict
    scene = prepared.scene
    patches: list[str] = []
    cursor_line = None
    for path in verdict.changed_paths:
        before = scene.buffers.get(path)
        after = verdict.predicted_buffers.get(path)
        diff = unified_diff(path, path, before, after)
        if verdict.predicted_cursor and verdict.predicted_cursor[0] == path and after is not None:
            found = _cursor_line(diff, after, verdict.predicted_cursor[1])
            if found is not None:
                cursor_line = (found[0] + sum(p.count("\n") for p in patches), found[1])
        patches.append(diff)
    if not patches:
        return
    try:
        line = accept_prediction(item.path, "".join(patches), cursor_line)
    except (EditPredError, ValueError) as error:
        item.add_report_section("call", "editpred accept", f"not accepted: {error}")
        return
    if line is not None:
        report.sections.append(("editpred accept", f"added as expected patch at {item.path.name}:{line}"))


def _cursor_line(diff: str, text: str, offset: int) -> tuple[int, int] | None:
    """The line of ``diff`` (context or ``+``) that holds the cursor, and its byte
    column; None when the cursor's line is not in the diff."""
    from .._diff import Kind, classify

    row = text.count("\n", 0, offset)
    column = len(text[text.rfind("\n", 0, offset) + 1 : offset].encode())
    new_row: int | None = None
    for index, line in enumerate(diff.split("\n")):
        kind = classify(line).kind
        if kind is Kind.HUNK_HEADER:
            new_row = int(line.split("+", 1)[1].split(",")[0].split()[0]) - 1
        elif new_row is not None and kind in (Kind.CONTEXT, Kind.ADDITION):
            if new_row == row:
                return index, column
            new_row += 1
    return None


class Reporter:
    """Controller-side aggregation: summary, files, gates and cancellation on -x."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.session: pytest.Session | None = None
        self.records: list[dict[str, Any]] = []
        self.jsonl: Any = None
        self.decisions: list[str] = []
        self.written: list[str] = []
        # Failed reports that are not examples' (unit tests, collection errors): the
        # pass-rate gate is about examples and must not turn these into a pass.
        self.other_failures = 0
        # The baseline, read before the report file is opened: they may be one file.
        self.baseline: list[dict[str, Any]] | None = None
        _check_options(config)

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def _path(self, name: str) -> Path | None:
        value = options.get(self.config, name)
        return Path(value).expanduser().resolve() if value else None

    @pytest.hookimpl(tryfirst=True)  # before xdist starts its workers
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session
        baseline = self._path("baseline")
        if baseline is not None and not self.is_worker:
            from ..reports import read_records

            # Read before the run (a bad path must not cost a whole eval) and before
            # the report file is opened, which truncates it: they may be one file.
            try:
                self.baseline = read_records(baseline)
            except (EditPredError, OSError) as error:
                raise pytest.UsageError(f"editpred: --editpred-baseline: cannot read {baseline}: {error}") from None
        report = self._path("report")
        if report is not None and not self.is_worker:
            from ..reports import JsonlReport

            self.jsonl = JsonlReport(report)
            self.jsonl.open()
            self.written.append(f"records: {report}")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.is_worker:
            return
        record = getattr(report, "editpred", None)
        if not isinstance(record, dict):
            if report.failed:
                self.other_failures += 1
            return
        self.records.append(record)
        if self.jsonl is not None:
            self.jsonl.append(record)  # flushed: an interrupted run keeps what it finished

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Every example gets its record, also one that stopped before the prediction
        fixture ran (a skip mark, a failing ``editpred_completion`` fixture): the
        summary counts it and a comparison sees it skipped or failed, not missing."""
        report = yield
        if isinstance(item, ExampleItem) and getattr(report, "editpred", None) is None:
            annotate(item, call, report)
        return report

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and not self.is_worker:
            self.other_failures += 1

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

    # ------------------------------------------------------------ aggregates

    def _scores(self) -> list[tuple[str, Any]]:
        from ..metrics import PredictionScore

        rows = []
        for record in self.records:
            if record["metrics"]:
                label = record["name"] if record["trial"] == 1 else f"{record['name']}[t{record['trial']}]"
                rows.append((label, PredictionScore.from_dict(record["metrics"])))
        return rows

    def summary(self) -> dict[str, Any]:
        from .._summary import Summary

        counts = {k: sum(r["outcome"] == k for r in self.records) for k in ("passed", "failed", "error", "skipped")}
        total = len(self.records) - counts["skipped"]
        data: dict[str, Any] = {}
        scores = [score for _, score in self._scores()]
        if scores:
            data.update(Summary.from_scores(scores).to_summary_json())
        data.update(counts, total=total, pass_rate=counts["passed"] / total if total else None)
        return data

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        run = self.config.stash.get(RUN_KEY, None)
        if run is not None:
            run.close()
        if self.is_worker:
            return
        if self.jsonl is not None:
            self.jsonl.close()
        if not self.records:
            return
        summary = self.summary()
        self._write_files(summary)
        self._gate(session, summary)

    def _write_files(self, summary: dict[str, Any]) -> None:
        summary_json = self._path("summary_json")
        if summary_json is not None:
            from .._summary import Summary

            scores = [score for _, score in self._scores()]
            data = Summary.from_scores(scores).to_summary_json()
            _write(summary_json, json.dumps(data, indent=2) + "\n")
            self.written.append(f"summary: {summary_json}")
        html = self._path("html")
        if html is not None:
            from ..reports import render_html

            _write(html, render_html(self.records, summary, title="pytest-editpred report"))
            self.written.append(f"html: {html}")

    def _gate(self, session: pytest.Session, summary: dict[str, Any]) -> None:
        fail_under = options.get(self.config, "fail_under")
        total = summary["total"]
        rate = 100 * summary["passed"] / total if total else 0.0
        stopped = session.shouldstop or session.shouldfail
        if fail_under is not None and stopped:
            self.decisions.append(
                f"gate: not applied: the run stopped early ({stopped}); a pass rate of the "
                "examples that ran says nothing about the others"
            )
        elif fail_under is not None and self.other_failures:
            self.decisions.append(
                f"gate: not applied: {self.other_failures} test(s) or collector(s) that are not "
                "examples failed, and the pass rate cannot excuse them"
            )
        elif fail_under is not None and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            if rate >= fail_under:
                session.exitstatus = pytest.ExitCode.OK
                self.decisions.append(
                    f"gate: pass rate {rate:.1f}% >= {fail_under:g}% required: the run passes "
                    f"({summary['failed']} failed and {summary['error']} errors are within the limit)"
                )
            else:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
                self.decisions.append(
                    f"gate: pass rate {rate:.1f}% < {fail_under:g}% required: the run fails "
                    "(errors count as not passed)"
                )
        if self.baseline is not None:
            from ..reports import compare

            comparison = compare(self.baseline, self.records)
            self.decisions.append(comparison.format())
            if options.get(self.config, "fail_on_regression"):
                if comparison.regressions:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
                    self.decisions.append(
                        f"regression gate: {len(comparison.regressions)} example(s) regressed: the run fails"
                    )
                else:
                    self.decisions.append("regression gate: no example regressed")

    # --------------------------------------------------------------- printing

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not self.records:
            return
        from .._summary import format_eval_report

        write = terminalreporter.write_line
        terminalreporter.write_sep("=", "editpred summary")
        rows = self._scores()
        if rows:
            verbose = self.config.get_verbosity() > 0
            limit = options.get(self.config, "summary_limit")
            for line in format_eval_report(rows, limit=limit, verbose=verbose).rstrip("\n").split("\n"):
                write(line)
            write("")
        summary = self.summary()
        write(_rates_line(self.records, summary))
        for line in _trial_lines(self.records):
            write(line)
        for group in _groups(self.config):
            for line in _group_lines(self.records, group):
                write(line)
        for line in self.decisions:
            for part in line.rstrip("\n").split("\n"):
                write(part)
        for line in self.written:
            write(f"editpred {line}")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _rates_line(records: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    from .._stats import bootstrap_mean_interval, wilson_interval

    total = summary["total"]
    parts = ", ".join(f"{summary[k]} {k}" for k in ("passed", "failed", "error", "skipped") if summary[k])
    if not total:
        return f"{len(records)} predictions: {parts}"
    rate = wilson_interval(summary["passed"], total)
    line = (
        f"{total} predictions: {parts}; pass rate {100 * summary['passed'] / total:.1f}% "
        f"[95% CI {100 * rate.low:.1f}-{100 * rate.high:.1f}] (errors count as not passed)"
    )
    chrf = [r["metrics"]["delta_chr_f"] for r in records if r["metrics"]]
    if len(chrf) > 1:
        mean = bootstrap_mean_interval(chrf, confidence=0.95)
        line += f"; mean delta-chrF {mean.estimate:.1f} [95% CI {mean.low:.1f}-{mean.high:.1f}]"
    return line


_TRIAL_SUFFIX = re.compile(r"\[t\d+\]$")


def _trial_lines(records: list[dict[str, Any]]) -> list[str]:
    """pass@1, pass@k (unbiased) and pass^k over examples run k > 1 times."""
    from .._stats import bootstrap_mean_interval, pass_at_k_single, pass_hat_k_single, wilson_interval

    by_example: dict[str, list[bool]] = defaultdict(list)
    unreadable = 0
    for record in records:
        if record["outcome"] == "skipped":
            continue
        # Items of an example run N > 1 times end in [tN] (names never hold "["); an
        # unreadable file is one item without it, and has no trials to count.
        example, suffixed = _TRIAL_SUFFIX.subn("", record["nodeid"])
        if suffixed:
            by_example[example].append(record["outcome"] == "passed")
        else:
            unreadable += 1
    k = min((len(v) for v in by_example.values()), default=1)
    if k < 2:
        return []
    trials = [(len(v), sum(v)) for v in by_example.values()]
    n_total = sum(n for n, _ in trials)
    passed = sum(c for _, c in trials)
    p1 = wilson_interval(passed, n_total)
    at_k = bootstrap_mean_interval([pass_at_k_single(n, c, k) for n, c in trials], confidence=0.95)
    hat_k = bootstrap_mean_interval([pass_hat_k_single(n, c, k) for n, c in trials], confidence=0.95)
    left_out = f" ({unreadable} unreadable example file(s) left out)" if unreadable else ""
    return [
        (
            f"trials: {len(trials)} examples x {k}{left_out}: pass@1 {100 * p1.estimate:.1f}% [95% CI {100 * p1.low:.1f}-{100 * p1.high:.1f}], "
            f"pass@{k} {100 * at_k.estimate:.1f}% [{100 * at_k.low:.1f}-{100 * at_k.high:.1f}], "
            f"pass^{k} {100 * hat_k.estimate:.1f}% [{100 * hat_k.low:.1f}-{100 * hat_k.high:.1f}]"
        )
    ]


GROUPS = ("repository", "tag")


def _repo_label(url: str | None) -> str:
    """``calc`` for .../acme/calc, .../acme/calc.git and git@host:acme/calc.git."""
    tail = (url or "").rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return tail.removesuffix(".git") or (url or "?")


def _check_options(config: pytest.Config) -> None:
    """Read every report option once, at configure time: a bad value is a usage
    error now, not an INTERNALERROR after the whole run."""
    try:
        for option in options.REPORT_OPTIONS:
            options.get(config, option.name)
        for group in _groups(config):
            if group not in GROUPS:
                raise ConfigError(f"--editpred-group-by {group!r}", fix=f"Use one of {', '.join(GROUPS)}.")
    except ConfigError as error:
        raise pytest.UsageError(f"editpred: {error}") from None


def _groups(config: pytest.Config) -> list[str]:
    """``--editpred-group-by`` values; an ini line may hold several (``tag repository``)."""
    groups: list[str] = []
    for entry in options.get(config, "group_by") or ():
        for group in re.split(r"[\s,]+", str(entry)):
            if group and group not in groups:
                groups.append(group)
    return groups


def _group_lines(records: list[dict[str, Any]], group: str) -> list[str]:
    if group not in GROUPS:
        raise ConfigError(f"--editpred-group-by {group!r}", fix=f"Use one of {', '.join(GROUPS)}.")
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        if group == "repository":
            groups[_repo_label(record["repository_url"])].append(record)
        else:
            for tag in record["tags"] or ["(no tag)"]:
                groups[tag].append(record)
    lines = [f"by {group}:"]
    for name in sorted(groups):
        members = groups[name]
        passed = sum(r["outcome"] == "passed" for r in members)
        chrf = [r["metrics"]["delta_chr_f"] for r in members if r["metrics"]]
        mean = f", mean delta-chrF {sum(chrf) / len(chrf):.1f}" if chrf else ""
        lines.append(f"  {name:<30} {passed}/{len(members)} passed ({100 * passed / len(members):.0f}%){mean}")
    return lines
