"""What one item tells: its record, its JUnit properties and ``--editpred-accept``.

On the worker that ran the item, :func:`annotate` builds the item's
:class:`~pytest_editpred.reports.Record` (:func:`record_of`), writes its facts into
``user_properties`` (so the JUnit XML) and hangs the record on the report
(``report.editpred``), which xdist carries to the controller, where the
:class:`~.reporting.Reporter` aggregates it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import pytest

from .._exceptions import EditPredError, InfrastructureError, MissingAnswerError
from . import PREPARED_KEY, RUN_KEY, SETUP_ERROR_KEY, options

if TYPE_CHECKING:
    from ..judge import Prediction
    from ..reports import CursorView, Outcome, Prompt, Record, RecordedAttempt, RecordedQa
    from .collect import ExampleItem
    from .runner import Prepared

__all__ = ["annotate", "qa_properties", "record_of"]

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
        # The LLM judge's answer (QaResult.to_json(), or {"error": ...}), when one was asked.
        "qa": cast("RecordedQa", prepared.qa) if prepared is not None and prepared.qa is not None else None,
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
    properties.extend(qa_properties(record))
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


def qa_properties(record: Record) -> list[tuple[str, object]]:
    """The LLM judge's answer as JUnit properties: ``editpred_qa_confidence``,
    ``editpred_qa_reverts_edits`` and ``editpred_qa_error``, each when the answer has
    it (the reasoning and the raw answer stay in the JSONL record: a CI's test
    report is no place for paragraphs)."""
    qa = record.get("qa") or {}
    return [(f"editpred_qa_{key}", qa.get(key)) for key in ("confidence", "reverts_edits", "error") if key in qa]


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
