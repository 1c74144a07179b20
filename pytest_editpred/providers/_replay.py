"""``replay``: answer from a JSONL file of earlier predictions, without any model.

Why: to re-score a past run (new metrics, fixed examples) or to score predictions
made elsewhere (Zed's ``ep``, a notebook) with exactly the same pipeline.

The file (``settings.replay_path``, ``--editpred-replay``) has one JSON object per
line; blank lines are skipped. Two forms are accepted, and may be mixed:

* a run-report record::

      {"name": "flask--add-import", "trial": 1,
       "predicted_patch": "--- a/app.py\\n+++ b/app.py\\n@@ ...",   # or "predicted_text"
       "predicted_cursor": 123, "model": "zeta", "raw_output": "...", ...}

* the simple form::

      {"name": "flask--add-import", "patch": "...", "cursor": 123}    # or "text"

A run-report line is a :class:`~pytest_editpred.reports.Record`; the simple form is
a :class:`SimpleAnswer`. Neither is checked as a whole: the fields replay reads are
checked one by one, and every other field is ignored.

``name`` is the example's name. ``cursor`` (``predicted_cursor``) is optional: a
character offset into the cursor file *after* the patch (an object with an
``offset`` is accepted too). ``patch`` is a unified diff; ``text`` the whole new
cursor file; neither means "no change". Other keys are ignored, except ``error``:
a record with an error and no answer replays that failure.

``name`` is matched against the item's id (the file stem of a ``.md``/``.json``
example, the name of a ``.jsonl`` line: what a run report records), then the
example's own name (its ``# Name`` heading, as Zed's ``ep`` writes it), then Zed's
``filename()`` of it.

Lookup: the record for (name, trial); else the record for the name (a later line
replaces an earlier one with the same key). A name the file does not have is a
:class:`MissingAnswerError`: no answer is not a wrong answer, so the item is an
ERROR (counted as not passed), never a FAILED.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

from .._exceptions import ConfigError, MissingAnswerError, PredictionError
from .._settings import Settings
from ..example import example_id
from ..judge import Prediction
from ..scene import PredictionRequest
from ._registry import Completion

if TYPE_CHECKING:
    from ..reports import PredictedCursor, Record

__all__ = ["Replay", "ReplayRecord", "SimpleAnswer", "load_replay", "make_replay"]


class SimpleAnswer(TypedDict, total=False):
    """The simple form of a replay line (see the module docstring); ``name`` is the
    one key it must have."""

    name: str
    trial: int | None
    patch: str | None
    text: str | None
    cursor: int | PredictedCursor | None  # a character offset, or an object with one
    error: str | None


@dataclass(frozen=True)
class ReplayRecord:
    """One line of a replay file, normalised."""

    name: str
    trial: int | None
    patch: str | None
    text: str | None
    cursor: int | None
    model: str | None
    raw_output: str | None
    error: str | None
    line: int


def _cursor(value: object, where: str) -> int | None:
    if isinstance(value, dict):
        value = value.get("offset")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: the cursor {value!r} is not a character offset", fix=_FIX)
    return value


def _string(record: Record | SimpleAnswer, keys: tuple[str, ...], where: str) -> str | None:
    for key in keys:
        value = record.get(key)
        if value is not None:
            if not isinstance(value, str):
                raise ConfigError(f"{where}: {key!r} must be a string", fix=_FIX)
            return value
    return None


_FIX = 'Write one JSON object a line: {"name": ..., "patch": ..., "cursor": ...}.'


def _record(data: object, line: int, where: str) -> ReplayRecord:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ConfigError(f"{where}: each line must be a JSON object with a string 'name'", fix=_FIX)
    # Either form, or a mix of both: each field read is checked here, not the whole.
    answer = cast("Record | SimpleAnswer", data)
    trial = answer.get("trial")
    if trial is not None and (isinstance(trial, bool) or not isinstance(trial, int)):
        raise ConfigError(f"{where}: 'trial' must be an integer", fix=_FIX)
    patch = _string(answer, ("predicted_patch", "patch"), where)
    text = _string(answer, ("predicted_text", "text"), where)
    if patch is not None and text is not None:
        raise ConfigError(f"{where}: give a patch or a text, not both", fix=_FIX)
    error = answer.get("error")
    model = answer.get("model")
    return ReplayRecord(
        name=answer["name"],
        trial=trial,
        patch=patch,
        text=text,
        cursor=_cursor(answer.get("predicted_cursor", answer.get("cursor")), where),
        model=model if isinstance(model, str) else None,
        raw_output=_string(answer, ("raw_output",), where),
        error=None if error in (None, "") else str(error),
        line=line,
    )


def load_replay(path: Path) -> tuple[dict[tuple[str, int], ReplayRecord], dict[str, ReplayRecord]]:
    """The records by (name, trial) and by name; :class:`ConfigError` on a bad file.

    The lines are read by the reports' :func:`~pytest_editpred.reports.json_lines`,
    as every JSONL file from outside: split on ``\\n`` only (a run's record holds
    U+2028 unescaped inside its strings, which ``str.splitlines`` would split at),
    nesting and line length bounded, a torn last line dropped. Any bad line stops
    the run before its first item (a usage error naming file and line): an answer
    skipped would turn into a "missing answer" ERROR that hides the file's fault.
    """
    from ..reports import JSONLineError, LineTooLong, json_lines

    by_trial: dict[tuple[str, int], ReplayRecord] = {}
    by_name: dict[str, ReplayRecord] = {}
    try:
        with Path(path).open("rb") as file:
            for number, data in json_lines(file):
                where = f"{path}:{number}"
                if isinstance(data, LineTooLong):
                    raise ConfigError(f"{where}: the line {data}", fix=_FIX)
                record = _record(data, number, where)
                if record.trial is not None:
                    by_trial[(record.name, record.trial)] = record
                by_name[record.name] = record
    except OSError as error:
        raise ConfigError(
            f"cannot read the replay file {path}: {error}", fix="Give --editpred-replay an existing JSONL file."
        ) from None
    except JSONLineError as error:  # too deep, or not UTF-8, is "not JSON" too
        message = error.cause.msg if isinstance(error.cause, json.JSONDecodeError) else str(error.cause)
        raise ConfigError(f"{path}:{error.line}: not JSON ({message})", fix=_FIX) from None
    return by_trial, by_name


class Replay:
    """Answers from a replay file, looked up by example name and trial."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.by_trial, self.by_name = load_replay(self.path)

    def __repr__(self) -> str:
        return f"Replay({str(self.path)!r}, {len(self.by_name)} names)"

    def lookup(self, name: str, trial: int) -> ReplayRecord | None:
        return self.by_trial.get((name, trial)) or self.by_name.get(name)

    def complete(self, request: PredictionRequest) -> Prediction:
        example = request.example
        names = dict.fromkeys(n for n in (example_id(example), example.name, example.filename) if n)
        record = next((r for r in (self.lookup(n, request.trial) for n in names) if r is not None), None)
        if record is None:
            raise MissingAnswerError(
                f"missing answer: the replay file {self.path} has no answer for "
                f"{' or '.join(map(repr, names))} (trial {request.trial})",
                fix="Add a line with this name to the replay file, or run the model on this example.",
            )
        where = f"{self.path}:{record.line}"
        if record.error is not None and record.patch is None and record.text is None:
            raise PredictionError(f"the replayed run recorded an error for {example.name!r} ({where}): {record.error}")
        return Prediction(
            patch=record.patch,
            text=record.text,
            cursor=record.cursor,
            raw_output=record.raw_output if record.raw_output is not None else (record.patch or record.text),
            model=record.model or "replay",
            extra={"provider": "replay", "replay": where},
        )


def make_replay(settings: Settings) -> Completion:
    """The ``replay`` provider: answers from ``settings.replay_path``."""
    if settings.replay_path is None:
        raise ConfigError(
            "provider 'replay' needs a replay file",
            fix="Give --editpred-replay PATH, a JSONL file of earlier predictions.",
        )
    return Replay(settings.replay_path).complete
