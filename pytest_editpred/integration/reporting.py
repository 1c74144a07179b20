"""What a run tells: summaries, files and gates, from the items' records.

Workers annotate each report with a plain-data record (``report.editpred``, from
:mod:`.annotate`), which xdist carries to the controller with the report; the
controller alone aggregates, prints and writes files (the gates: :mod:`.gates`), so
a summary appears once, also under ``-n``.

A report file that cannot be written (a full disk, a read-only directory, a path
that is a directory) is a warning line in the terminal summary, once per file,
naming the file, the error and the fix; the run goes on and its exit status stays
the items' own. A report is a by-product of the run: failing CI because the disk of
the HTML page filled up would hide the verdicts the run did produce, and the
warning says exactly what is missing.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, cast

import pytest

from .._exceptions import ConfigError, EditPredError
from . import RUN_KEY, options

# The Reporter is registered in every pytest run, also of a suite with no example:
# the collector, the runner and the example model load only once examples exist.
if TYPE_CHECKING:
    from ..reports import EvalRow, JsonlReport, Record
    from .collect import ExampleItem

__all__ = ["AfterReports", "Reporter"]


class AfterReports:
    """What is let go once every other ``logreport`` hook has seen a report (a
    plugin of its own, since the :class:`Reporter`'s hook must run before it):

    - the record's whole predicted file (``predicted_text``, put there by
      :func:`~.annotate.record_of`), once the JSONL record is written and, under xdist, the
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
        # The judge's problems (--editpred-qa), each once, from every worker.
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
            from .annotate import annotate

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
        rows = self._scores()
        if rows:
            data.update(Summary.from_scores([row.score for row in rows], [row.qa for row in rows]).to_summary_json())
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
            from ..reports import cursor_rate_line, qa_line, rates_line, trial_lines

            cursor = cursor_rate_line(self.records)
            qa = qa_line(self.records)
            self._lines = [
                rates_line(self.records, summary),
                *([cursor] if cursor else []),
                *trial_lines(self.records),
                *([qa] if qa else []),
            ]
        return self._lines

    def _write_files(self, summary: dict[str, Any]) -> None:
        summary_json = self._path("summary_json")
        if summary_json is not None:
            from ..reports import Summary, summary_json_text

            rows = self._scores()
            data = Summary.from_scores([row.score for row in rows], [row.qa for row in rows]).to_summary_json()
            try:
                _write(summary_json, summary_json_text(data) + "\n")
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
        from .gates import RunState, apply_gates

        state = RunState(partial=self.partial(), other_failures=self.other_failures, baseline=self.baseline)
        self.decisions.extend(apply_gates(self.config, session, summary, self.records, state))

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
        """``--editpred-qa``'s warnings: each problem once, and how many answers
        were not Zed's JSON (the items' ``qa.error``; ``qa.response`` keeps the text)."""
        from .._clip import escape_controls

        lines = [
            escape_controls(" ".join(f"editpred warning: judge: {message}".split("\n")))
            for message in self.judge_warnings
        ]
        asked = [r for r in self.records if isinstance(r.get("qa"), dict)]
        if not asked:
            return lines  # no judge: its package stays unimported
        from ..qa import PARSE_ERROR

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
