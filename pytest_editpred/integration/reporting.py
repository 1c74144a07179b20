"""What a run tells: item properties (JUnit), records, summaries, files and gates.

Workers annotate each report with a plain-data record (``report.editpred``), which
xdist carries to the controller with the report; the controller alone aggregates,
prints and writes files, so a summary appears once, also under ``-n``.

A report file that cannot be written (a full disk, a read-only directory, a path
that is a directory) is a warning line in the terminal summary, once per file,
naming the file, the error and the fix; the run goes on and its exit status stays
the items' own. A report is a by-product of the run: failing CI because the disk of
the HTML page filled up would hide the verdicts the run did produce, and the
warning says exactly what is missing.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Generator
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, cast

import pytest

from .._exceptions import ConfigError, EditPredError, InfrastructureError, MissingAnswerError
from . import PREPARED_KEY, RUN_KEY, SETUP_ERROR_KEY, options

# The Reporter is registered in every pytest run, also of a suite with no example:
# the collector, the runner and the example model load only once examples exist.
if TYPE_CHECKING:
    from ..judge import Prediction
    from ..reports import CursorView, EvalRow, JsonlReport, Outcome, Prompt, Record, RecordedAttempt
    from .collect import ExampleItem
    from .runner import Prepared

__all__ = ["AfterReports", "Reporter", "annotate", "record_of"]

VIEW_LINES = 15


def _outcome(report: pytest.TestReport) -> Outcome:
    if report.when != "call" and report.failed:
        return "error"
    return report.outcome


def _attempts(source: Any) -> list[RecordedAttempt]:
    return [
        {"ordinal": a.ordinal, "error": a.error, "latency": round(a.latency, 6)}
        for a in getattr(source, "attempts", None) or ()
    ]


def _view(text: str, offset: int | None, row: int) -> str:
    """Lines around ``row`` with the cursor drawn in, for the HTML report."""
    from ..judge import draw_cursor

    drawn = draw_cursor(text, offset)
    lines = drawn.split("\n", row + VIEW_LINES + 1)[: row + VIEW_LINES + 1]  # not the rest of the file
    return "\n".join(lines[max(row - VIEW_LINES, 0) :])


def _views(prepared: Prepared) -> tuple[CursorView | None, CursorView | None]:
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
    view: CursorView = {
        "path": path,
        "before": _view(before, prepared.scene.cursor.offset, row),
        "expected": _view(expected, expected_cursor, row),
        "predicted": _view(predicted, predicted_cursor, row),
    }
    return view, view


def _model_texts(
    prediction: Prediction | None, prepared: Prepared | None, error: BaseException | None
) -> tuple[Prompt | None, str | None]:
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


def _wants_views(config: pytest.Config) -> bool:
    """The HTML viewer's diffs and cursor windows cost a few ms an item: only for a run
    writing a page or a JSONL report (which ``editpred-report --html`` turns into one
    later)."""
    return bool(options.get(config, "html") or options.get(config, "report"))


def record_of(item: ExampleItem, report: pytest.TestReport, error: BaseException | None) -> Record:
    """One plain-data record per item (and trial), for reports and comparisons: the
    :class:`~pytest_editpred.reports.Record` (its keys in this order are a JSONL line's)."""
    from ..scene import redact

    example = item.example
    prepared: Prepared | None = item.stash.get(PREPARED_KEY, None)
    run = item.stash.get(RUN_KEY, None)
    settings = run.settings if run is not None else None
    prediction = prepared.prediction if prepared is not None else None
    verdict = prepared.verdict if prepared is not None else None
    # An answer that could not be used, or a request that failed, carries on its
    # error what the Prediction would have: the prompt sent, attempts, usage.
    unusable = (prepared.prediction_error if prepared is not None else None) or error
    usage = getattr(unusable, "usage", None)
    record: Record = {
        "name": getattr(item, "example_id", None) or item.name,  # the id's spelling, as in -v
        "nodeid": item.nodeid,
        "path": str(item.path),
        "repository_url": redact(example.repository_url) if example is not None else None,
        "revision": example.revision if example is not None else None,
        "tags": list(example.tags) if example is not None else [],
        # Who answered: a custom editpred_completion by its qualified name (runner.qualified_name).
        "provider": getattr(item, "answered_by", None) or (settings.provider if settings is not None else None),
        "model": (prediction.model if prediction is not None else None)
        or (
            settings.model
            if settings is not None and getattr(item, "answered_by", None) in (None, settings.provider)
            else None
        ),
        "trial": item.trial,
        "outcome": _outcome(report),
        "reason": None,
        "attempts": _attempts(prediction) or _attempts(unusable),
        "latency": round(prepared.latency, 6) if prepared is not None else None,
        "cached": bool(prediction.cached) if prediction is not None else False,
        "usage": dict(prediction.usage) if prediction is not None else dict(usage) if isinstance(usage, dict) else {},
        "predicted_patch": prediction.patch if prediction is not None else None,
        "predicted_text": prediction.text if prediction is not None else None,
        "predicted_cursor": None,
        "prompt": None,
        "raw_output": None,
        "matched_candidate": None,
        "best_candidate": None,
        "expected_cursor": None,
        "metrics": {},
        "notes": [],
        "qa": prepared.qa if prepared is not None else None,
    }
    record["prompt"], record["raw_output"] = _model_texts(prediction, prepared, error)
    if prepared is not None:
        record["metrics"] = prepared.properties.get("metrics", {})
        record["reason"] = prepared.properties.get("reason")
        record["matched_candidate"] = prepared.properties.get("matched_candidate")
    if verdict is not None:
        record["best_candidate"] = verdict.best + 1 if verdict.best is not None else None
        # Does the best expected patch mark a cursor (in the cursor file, where the
        # metrics look)? Only those predictions count in the cursor exact-match rate.
        best = verdict.candidates[verdict.best] if verdict.best is not None else None
        record["expected_cursor"] = bool(
            best is not None
            and best.cursor is not None
            and prepared is not None
            and best.cursor[0] == prepared.scene.cursor.path
        )
        record["notes"] = list(verdict.notes)
        if prepared is not None and _wants_views(item.config):
            from ..reports import edit_view

            record["diff"] = edit_view(prepared.scene, verdict)
        if verdict.predicted_cursor is not None:
            record["predicted_cursor"] = {"path": verdict.predicted_cursor[0], "offset": verdict.predicted_cursor[1]}
        if prepared is not None and record["outcome"] != "passed" and _wants_views(item.config):
            record["expected_view"], record["predicted_view"] = _views(prepared)
    elif prepared is not None and prepared.candidates and _wants_views(item.config):
        # Not judged (the answer could not be used, or a context-only run): the
        # viewer still shows the edit that was expected, against no prediction, from
        # the candidate Zed's rule picks for a no-op (the last of equals).
        from ..judge import Verdict
        from ..reports import edit_view

        unjudged = Verdict(
            passed=False,
            reason="",
            matched=None,
            best=len(prepared.candidates) - 1,
            candidates=prepared.candidates,
            predicted_buffers=prepared.scene.buffers,
            predicted_cursor=None,
            predicted_patch=None,
        )
        record["diff"] = edit_view(prepared.scene, unjudged)
    if error is not None and record["outcome"] == "error":
        if isinstance(error, MissingAnswerError):
            record["reason"] = str(error)  # "missing answer: ..." (not the model's fault)
        elif isinstance(error, InfrastructureError):
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
    report.editpred = record  # type: ignore[attr-defined]  # our own attribute: xdist carries it to the controller
    properties: list[tuple[str, object]] = [
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
        if name == "cursor_exact_match" and value is not None and record["expected_cursor"] is False:
            properties.append((f"editpred_{name}", "n/a"))  # no cursor expected: nothing to miss
        elif not isinstance(value, dict):
            properties.append((f"editpred_{name}", value))
        elif name == "editable_context_coverage":  # flat, under the summary's names
            properties.extend((f"editpred_editable_context_{key}", figure) for key, figure in value.items())
    item.user_properties.extend((k, v) for k, v in properties if v is not None)
    report.user_properties = list(item.user_properties)
    run = item.stash.get(RUN_KEY, None)
    told = run.take_context_messages() if run is not None else []
    if told:  # a language server's problem, said once per run (the controller gathers them)
        report.editpred_context = told  # type: ignore[attr-defined]  # our own attribute, as report.editpred
    judged = run.take_judge_messages() if run is not None else []
    if judged:  # the judge's problems, said once per run as the servers' are
        report.editpred_judge = judged  # type: ignore[attr-defined]  # our own attribute, as report.editpred
    if report.when == "call" and report.failed and item.config.getoption("editpred_accept", False):
        from .._clip import escape_controls

        status, message = _accept(item)
        # Carried to the xdist controller with the report, which prints one line per file.
        accepted = {"path": str(item.path), "status": status, "message": message}
        report.editpred_accept = accepted  # type: ignore[attr-defined]  # our own attribute, as report.editpred
        report.sections.append(("editpred accept", escape_controls(message)))


def _accept(item: ExampleItem) -> tuple[str, str]:
    """``--editpred-accept``: the prediction becomes a new Expected Patch of its file.

    Returns ``(status, message)``: ``added`` (where, and every control or invisible
    character written as it is), ``unchanged`` (the example already has this
    patch), ``skipped`` (there is nothing to accept, and why) or ``refused``
    (:func:`accept_prediction` said no, and why). Every trial is accepted: trials
    may answer differently, and identical answers are written once.
    """
    prepared: Prepared | None = item.stash.get(PREPARED_KEY, None)
    if item.path.suffix.lower() != ".md":
        return "skipped", f"not accepted: only .md examples are edited, not {item.path.suffix} files"
    if prepared is None or prepared.verdict is None:
        if prepared is not None and prepared.prediction_error is not None:
            return "skipped", "not accepted: the model's answer could not be used"
        return "skipped", "not accepted: no prediction was judged"
    from ..judge import same_buffers
    from ..reports import accept_prediction
    from ..scene import split_path, unified_diff

    verdict = prepared.verdict
    scene = prepared.scene
    run = item.stash.get(RUN_KEY, None)
    mode = run.match if run is not None else "exact"
    if verdict.passed:
        return "skipped", f"not accepted: the prediction already {verdict.reason} (it failed a threshold)"
    if prepared.rejected is not None and same_buffers(verdict.predicted_buffers, prepared.rejected.buffers, mode):
        return "skipped", "not accepted: the prediction is the example's Rejected Patch"
    for path in verdict.changed_paths:
        try:
            split_path(path)
        except EditPredError as error:
            return "refused", f"refused: the prediction names an {error.reason}; it is never written into a corpus"
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
        if verdict.reason.startswith("the predicted patch does not apply"):
            first_line = verdict.reason.split("\n")[0]  # not the hunk it quotes below
            return "skipped", f"not accepted: {first_line}"
        return "skipped", "not accepted: the prediction changes nothing"
    notes: list[str] = []
    try:
        line = accept_prediction(item.path, "".join(patches), cursor_line, notes=notes)
    except EditPredError as error:
        return "refused", f"refused: {error.reason}" + (f" (fix: {error.fix})" if error.fix else "")
    except (ValueError, OSError) as error:
        return "refused", f"refused: {error}"
    if line is None:
        return "unchanged", "not added: the example already has this expected patch"
    return "added", f"added as expected patch at {item.path.name}:{line}" + "".join(f"; {n}" for n in notes)


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


class AfterReports:
    """What is let go once every other ``logreport`` hook has seen a report (a
    plugin of its own, since the :class:`Reporter`'s hook must run before it):

    - the record's whole predicted file (``predicted_text``, put there by
      :func:`record_of`), once the JSONL record is written and, under xdist, the
      worker's report sent on. Replay reads it from the JSONL; kept on every report, a
      run would hold every answer's file to the end;
    - an example's passed setup and teardown reports from the terminal's list of
      them. pytest keeps every passed setup and teardown report of the run there and,
      for each failure it prints, looks through the whole list for the item's
      teardown report (to print what its teardown wrote): 3.3 s of a 21 s run of
      2,000 failures, growing with the square of the failures (a corpus the model
      mostly fails).
      Nothing else reads that list, and a teardown report that holds a teardown
      section stays, so the same is printed.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "editpred", None)
        if isinstance(record, dict):
            record.pop("predicted_text", None)
        if report.when != "call" and report.passed and _is_example_id(report.nodeid):
            if report.when == "teardown" and any("teardown" in name for name, _ in report.sections):
                return
            terminal = self.config.pluginmanager.get_plugin("terminalreporter")
            passed = getattr(terminal, "stats", {}).get("")
            if passed and passed[-1] is report:
                passed.pop()


class Reporter:
    """Controller-side aggregation: summary, files, gates and cancellation on -x."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.session: pytest.Session | None = None
        self.records: list[Record] = []
        self.jsonl: JsonlReport | None = None
        self.decisions: list[str] = []
        self.written: list[str] = []
        # Report files that could not be written: one warning line each.
        self.faults: list[str] = []
        # The JSONL report's failed write, told at the end when the total is known.
        self.jsonl_fault: tuple[Path, int, OSError] | None = None
        # --editpred-accept outcomes per example file, in order.
        self.accepts: dict[str, list[str]] = {}
        # Context retrieval's problems (a language server missing, dead or hung),
        # each once, from every worker.
        self.context_warnings: dict[str, None] = {}
        # The judge's problems (--editpred-judge), each once, from every worker.
        self.judge_warnings: dict[str, None] = {}
        # Failed reports that are not examples' (unit tests, collection errors): the
        # pass-rate gate is about examples and must not turn these into a pass.
        self.other_failures = 0
        # The baseline, read before the report file is opened: they may be one file.
        self.baseline: list[Record] | None = None
        self._lines: list[str] | None = None
        # Example items collected (None: unknown) and why the run was interrupted, if
        # it was: a summary over fewer items than collected says it is partial.
        self.collected: int | None = None
        self.interrupted: str | None = None
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
            # A record that is no record is skipped and told once, a warning line of
            # the terminal summary; the comparison covers the others. A file that is
            # not JSON is a usage error, and so are skipped records when the
            # regression gate is asked for: the record it cannot read could be the
            # regression, and the gate would pass the run on what it did not see.
            skipped: list[str] = []
            try:
                self.baseline = read_records(baseline, skip=skipped.append, complete=True)
            except (EditPredError, OSError) as error:
                raise pytest.UsageError(f"editpred: --editpred-baseline: cannot read {baseline}: {error}") from None
            if skipped and options.get(self.config, "fail_on_regression"):
                raise pytest.UsageError(
                    f"editpred: --editpred-baseline: {len(skipped)} record(s) of {baseline} cannot be read, and "
                    "--editpred-fail-on-regression needs every one:\n" + "\n".join(skipped)
                )
            self.faults.extend(f"editpred warning: --editpred-baseline {line}" for line in skipped)
        report = self._path("report")
        if report is not None and not self.is_worker:
            from ..reports import JsonlReport

            try:
                self.jsonl = JsonlReport(report).open()
            except OSError as error:
                self.jsonl = None
                self._fault("the JSONL report", report, "--editpred-report", error)
            else:
                self.written.append(f"records: {report}")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.is_worker:
            return
        for message in getattr(report, "editpred_context", None) or ():
            self.context_warnings.setdefault(str(message))
        for message in getattr(report, "editpred_judge", None) or ():
            self.judge_warnings.setdefault(str(message))
        annotated = getattr(report, "editpred", None)
        if not isinstance(annotated, dict):
            if report.failed:
                self.other_failures += 1
            return
        record = cast("Record", annotated)  # record_of's, also through xdist (a plain dict then)
        self.records.append(record)
        accept = getattr(report, "editpred_accept", None)
        if isinstance(accept, dict):
            self.accepts.setdefault(str(accept["path"]), []).append(str(accept["message"]))
        if self.jsonl is not None:
            try:
                self.jsonl.append(record)  # fsynced: an interrupted run keeps what it finished
            except OSError as error:
                # The file keeps every record before this one (the partial line is cut):
                # stop writing rather than leave a gap, and tell it once at the end.
                self.jsonl_fault = (self.jsonl.path, self.jsonl.count, error)
                self._close_jsonl()

    def _close_jsonl(self) -> None:
        jsonl, self.jsonl = self.jsonl, None
        if jsonl is not None:
            try:
                jsonl.close()
            except OSError as error:  # some file systems report a failed write at close
                self._fault("the JSONL report", jsonl.path, "--editpred-report", error)

    def _fault(self, what: str, path: Path, option: str, error: OSError, detail: str = "") -> None:
        """Remember one report that could not be written, as its warning line."""
        from .._disk import describe, remedy

        fix = remedy(error, f"the disk of {path.parent}", f"point {option} elsewhere")
        self.faults.append(f"editpred warning: {what} {path} {detail or 'was not written'}: {describe(error)}. {fix}")
        self.written = [line for line in self.written if not line.endswith(f": {path}")]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Every example gets its record, also one that stopped before the prediction
        fixture ran (a skip mark, a failing ``editpred_completion`` fixture): the
        summary counts it and a comparison sees it skipped or failed, not missing."""
        report = yield
        if _is_example_item(item) and getattr(report, "editpred", None) is None:
            annotate(item, call, report)
        return report

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and not self.is_worker:
            self.other_failures += 1

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not self.is_worker:
            self.collected = sum(_is_example_item(item) for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under xdist the controller collects nothing; every worker sends the same
        node ids, and an example's is its ``.md``/``.json``/``.jsonl`` file's."""
        self.collected = sum(_is_example_id(nodeid) for nodeid in ids)

    def pytest_runtest_logfinish(self) -> None:
        """``-x`` and ``--maxfail`` stop the session: drop the predictions in flight."""
        if self.session is not None and (self.session.shouldstop or self.session.shouldfail):
            self.cancel()

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # Ctrl-C, or xdist ending the session on -x / --maxfail ("stopping after ...").
        self.interrupted = str(excinfo.value).strip() or "interrupted"
        self.cancel()

    def cancel(self) -> None:
        run = self.config.stash.get(RUN_KEY, None)
        if run is not None:
            run.cancel()

    # ------------------------------------------------------------ aggregates

    def _scores(self) -> list[EvalRow]:
        from ..reports import eval_rows

        return eval_rows(self.records)

    def partial(self) -> str | None:
        """``after 2 of 29 items (why)`` when the summary covers fewer example items
        than were collected, or the run was stopped (``-x``, ``--maxfail``, Ctrl-C, a
        crashed worker); None for a whole run."""
        session = self.session
        ran = len({record["nodeid"] for record in self.records})
        stopped = (session.shouldstop or session.shouldfail) if session is not None else False
        short = self.collected is not None and ran < self.collected
        if not (stopped or self.interrupted or short):
            return None
        why = (
            stopped
            if isinstance(stopped, str)
            else self.interrupted or ("stopped early" if stopped else "the other items did not report")
        )
        of = f" of {self.collected}" if self.collected is not None else ""
        return f"after {ran}{of} items ({why})"

    def summary(self) -> dict[str, Any]:
        from ..reports import Summary

        counts = {k: sum(r["outcome"] == k for r in self.records) for k in ("passed", "failed", "error", "skipped")}
        total = len(self.records) - counts["skipped"]
        data: dict[str, Any] = {}
        scores = [row.score for row in self._scores()]
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
            if run is not None:
                # Every report has gone to the controller, which prints the failures;
                # an xdist worker's terminal summary goes nowhere, yet rendering its
                # failures cost 0.3 ms an example (pytest matches each failure against
                # every passed report: 0.6 s for 1,000 failures). --tb=no skips it.
                self.config.option.tbstyle = "no"
            return
        self._close_jsonl()
        if self.jsonl_fault is not None:
            path, count, error = self.jsonl_fault
            self._fault(
                "the JSONL report",
                path,
                "--editpred-report",
                error,
                f"holds only the first {count} of {len(self.records)} records (writing record {count + 1} failed)",
            )
            self.jsonl_fault = None
        if not self.records:
            return
        summary = self.summary()
        self._write_files(summary)
        self._gate(session, summary)

    def _result_lines(self, summary: dict[str, Any]) -> list[str]:
        """The pass rate, cursor and trial lines, computed once (the bootstrap costs
        seconds at 10,000 items): the terminal prints them, the HTML page shows them."""
        if self._lines is None:
            from ..reports import cursor_rate_line, rates_line, trial_lines

            cursor = cursor_rate_line(self.records)
            self._lines = [rates_line(self.records, summary), *([cursor] if cursor else []), *trial_lines(self.records)]
        return self._lines

    def _write_files(self, summary: dict[str, Any]) -> None:
        summary_json = self._path("summary_json")
        if summary_json is not None:
            from ..reports import Summary

            scores = [row.score for row in self._scores()]
            data = Summary.from_scores(scores).to_summary_json()
            try:
                _write(summary_json, json.dumps(data, indent=2) + "\n")
            except OSError as error:
                self._fault("the summary JSON", summary_json, "--editpred-summary-json", error)
            else:
                self.written.append(f"summary: {summary_json}")
        html = self._path("html")
        if html is not None:
            from ..reports import render_html

            try:
                page = render_html(
                    self.records,
                    summary,
                    title="pytest-editpred report",
                    baseline=self.baseline,
                    terminal=self._result_lines(summary),
                )
                _write(html, page)
            except OSError as error:
                self._fault("the HTML report", html, "--editpred-html", error)
            else:
                self.written.append(f"html: {html}")

    def _gate(self, session: pytest.Session, summary: dict[str, Any]) -> None:
        fail_under = options.get(self.config, "fail_under")
        total = summary["total"]
        partial = self.partial()
        if fail_under is not None and partial:
            self.decisions.append(
                f"gate: not applied: the run stopped early, {partial}; "
                "a pass rate of the examples that ran says nothing about the others"
            )
        elif fail_under is not None and self.other_failures:
            self.decisions.append(
                f"gate: not applied: {self.other_failures} test(s) or collector(s) that are not "
                "examples failed, and the pass rate cannot excuse them"
            )
        elif fail_under is not None and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            rate, required, shown, shown_required = _gate_figures(summary["passed"], total, fail_under)
            counted = f"{summary['passed']} of {total} passed"
            if rate >= required:
                session.exitstatus = pytest.ExitCode.OK
                self.decisions.append(
                    f"gate: pass rate {shown}% >= {shown_required}% required: the run passes ({counted}; "
                    f"{summary['failed']} failed and {summary['error']} errors are within the limit)"
                )
            else:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
                self.decisions.append(
                    f"gate: pass rate {shown}% < {shown_required}% required: the run fails "
                    f"({counted}; errors count as not passed)"
                )
        if self.baseline is not None:
            from ..reports import compare

            comparison = compare(self.baseline, self.records)
            self.decisions.append(comparison.format())
            if options.get(self.config, "fail_on_regression"):
                # Like the pass-rate gate, this gate decides the exit status on its
                # own: no regression passes a run whose items fail (as before); with
                # both gates, both must hold. Not applied where the pass-rate gate is not.
                if comparison.regressions:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
                    self.decisions.append(
                        f"regression gate: {len(comparison.regressions)} example(s) regressed: the run fails"
                    )
                elif partial or self.other_failures:
                    why = f"the run stopped early, {partial}" if partial else "tests that are not examples failed"
                    self.decisions.append(f"regression gate: no example regressed, but not applied: {why}")
                elif session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
                    failed_gate = fail_under is not None and session.exitstatus == pytest.ExitCode.TESTS_FAILED
                    if not failed_gate:
                        session.exitstatus = pytest.ExitCode.OK
                    self.decisions.append(
                        "regression gate: no example regressed"
                        + ("" if failed_gate else ": the run passes (failing items are not regressions)")
                    )

    # --------------------------------------------------------------- printing

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.is_worker or not (
            self.records or self.faults or self.accepts or self.context_warnings or self.judge_warnings
        ):
            return
        write = terminalreporter.write_line
        terminalreporter.write_sep("=", "editpred summary")
        if self.records:
            self._print_results(write)
        if self.accepts:
            from .._clip import escape_controls

            for path, messages in self.accepts.items():
                # One line, escaped: a message may quote the answer or a path, and a
                # raw CR would send the terminal back over the line it ends.
                line = f"editpred accept: {_relative(self.config, path)}: {_tally(messages)}"
                write(escape_controls(" ".join(line.split("\n"))))
        if self.context_warnings:
            from .._clip import escape_controls

            for message in self.context_warnings:  # a dead server's words may hold anything
                line = escape_controls(" ".join(f"editpred warning: context retrieval: {message}".split("\n")))
                terminalreporter.write_line(line, yellow=True, bold=True)
        for line in self._judge_lines():
            terminalreporter.write_line(line, yellow=True, bold=True)
        for line in self.faults:
            terminalreporter.write_line(line, yellow=True, bold=True)

    def _judge_lines(self) -> list[str]:
        """``--editpred-judge``'s warnings: each problem once, and how many answers
        were not Zed's JSON (the items' ``qa.error``; ``qa.response`` keeps the text)."""
        from .._clip import escape_controls
        from ..qa import PARSE_ERROR

        lines = [
            escape_controls(" ".join(f"editpred warning: judge: {message}".split("\n")))
            for message in self.judge_warnings
        ]
        asked = [r for r in self.records if isinstance(r.get("qa"), dict)]
        unread = sum(1 for r in asked if (r.get("qa") or {}).get("error") == PARSE_ERROR)
        if unread:
            lines.append(
                f"editpred warning: judge: {unread} of {len(asked)} answers were not the JSON the template asks "
                "for (qa.error; the answer is in qa.response): check the judge's template and model"
            )
        return lines

    def _print_results(self, write: Callable[[str], None]) -> None:
        from ..reports import format_eval_report, group_lines

        partial = self.partial()
        if partial:
            ran = len({record["nodeid"] for record in self.records})
            write(f"partial: stopped {partial}; every number below is over those {ran} only")
        rows = self._scores()
        if rows:
            verbose = self.config.get_verbosity() > 0
            limit = options.get(self.config, "summary_limit")
            context_only = bool(options.get(self.config, "context_only"))
            report = format_eval_report(rows, limit=limit, verbose=verbose, context_only=context_only)
            for line in report.rstrip("\n").split("\n"):
                write(line)
            write("")
        for line in self._result_lines(self.summary()):
            write(line)
        for group in _groups(self.config):
            for line in group_lines(self.records, group):
                write(line)
        for line in self.decisions:
            for part in line.rstrip("\n").split("\n"):
                write(part)
        for line in self.written:
            write(f"editpred {line}")


def _write(path: Path, text: str) -> None:
    """Write a report file whole or not at all: a temporary file in the same
    directory, renamed over ``path``, and removed on any error (a full disk must
    not leave 0-byte ``.tmp`` files beside the reports)."""
    from .._files import write_atomic

    write_atomic(path, text.encode("utf-8"))


def _relative(config: pytest.Config, path: str) -> str:
    try:
        return os.path.relpath(path, config.rootpath)
    except ValueError:  # another drive on Windows
        return path


def _tally(messages: list[str]) -> str:
    """One line for all accepts into one file: each distinct message once, counted."""
    counts: dict[str, int] = {}
    for message in messages:
        counts[message] = counts.get(message, 0) + 1
    return "; ".join(m if n == 1 else f"{m} (x{n})" for m, n in counts.items())


def _gate_figures(passed: int, total: int, fail_under: float) -> tuple[Fraction, Fraction, str, str]:
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


def _is_example_item(item: Any) -> TypeGuard[ExampleItem]:
    """Is ``item`` an example? Asked of every item of every suite, without importing
    the collector: while its module is not loaded, no item can be one."""
    collect = sys.modules.get(f"{__package__}.collect")
    return collect is not None and isinstance(item, collect.ExampleItem)


def _is_example_id(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0].lower().endswith((".md", ".json", ".jsonl"))


def _check_options(config: pytest.Config) -> None:
    """Read every report option once, at configure time: a bad value is a usage
    error now, not an INTERNALERROR after the whole run."""
    try:
        for option in options.REPORT_OPTIONS:
            options.get(config, option.name)
        groups = _groups(config)
        if groups:  # the reports package loads only for a run that groups
            from ..reports import GROUPS

            for group in groups:
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
