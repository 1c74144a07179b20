"""The record: what a run tells about one item (one example, one trial), as plain data.

A :class:`Record` is built once per item by ``record_of``, in the ``reporting``
module of the pytest layer (the run, on the worker that ran the item), carried to
the xdist controller with the item's report, written as one line of the
``--editpred-report`` JSONL file, and read by every report: the terminal summary
and its lines (:mod:`._lines`), the HTML viewer, the comparison of two runs,
``editpred-report`` and the ``replay`` provider. It is the one contract between the
run and its reports, and it is the schema of a JSONL line.

**The field names and their order are the on-disk format.** A line is the record's
JSON in the order its keys were inserted, which is the order they are declared
below; other tools (``jq``, notebooks, an earlier version's baseline) read those
names. Do not rename, reorder or retype a field: add one (as ``NotRequired``, so
that older files still read) and say so in the changelog.

What the type does not say, because the JSON cannot:

* A float that is not finite (NaN, an infinity) is written as ``null``.
* Tuples are written as lists; a record read back has lists only.
* ``predicted_text`` is on every line of the file, but dropped from the records the
  run keeps after writing the line (a whole file per item, held to the end of a big
  run, costs memory; replay reads it from the file).
* A record read from a file is data from outside: :func:`check_record` holds it
  against this type before any report reads it (``read_records`` calls it for every
  line; see there). A field may be missing (files of older versions lack ``prompt``,
  ``notes``, ``best_candidate``, ...; hand-written ones lack more) and is checked
  when present; a record to be summarised must have ``name``, ``nodeid`` and
  ``outcome``. Keys the type does not declare (an older ``closest_candidate``, a
  newer field) are left alone.
"""

# No ``from __future__ import annotations`` here: a TypedDict needs its annotations
# evaluated to tell required keys from ``NotRequired`` ones at run time (in
# ``__required_keys__``, which tests/test_record.py compares with a real run's lines).
import json
import math
import sys
import types
import typing
from collections.abc import Callable
from functools import cache
from itertools import chain
from typing import Any, Literal, cast, get_args, get_origin, get_type_hints

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # typing's own TypedDict of 3.10 does not know NotRequired
    from typing_extensions import NotRequired, TypedDict

__all__ = [
    "CONTEXT_ONLY",
    "MAX_RECORD_NUMBER",
    "RecordError",
    "check_record",
    "ContextCoverageCounts",
    "EditView",
    "ExcerptLines",
    "ExcerptView",
    "HistoryEntry",
    "Hunk",
    "JumpLocationCounts",
    "LineDiff",
    "Metrics",
    "Outcome",
    "PredictedCursor",
    "Prompt",
    "Record",
    "RecordedAttempt",
    "CursorView",
]

#: The ``provider`` of a record of a context-only run (``--editpred-context-only``):
#: no model answered, the context was scored.
CONTEXT_ONLY = "context-only"

#: An item's outcome as pytest reports it, plus ``error`` for a setup that failed
#: (an unreadable example, a missing answer, a broken completion fixture).
Outcome = Literal["passed", "failed", "skipped", "error"]

#: The prompt as the provider built it, every string clipped to ``RECORDED_CHARS``:
#: a string, chat messages (``[{"role": ..., "content": ...}, ...]``) or named parts
#: (a FIM prompt's ``{"prompt": ..., "suffix": ...}``).
Prompt = str | list[object] | dict[str, object]


class RecordedAttempt(TypedDict):
    """One request to the model (:class:`~pytest_editpred.judge.Attempt`)."""

    ordinal: int  # from 1
    error: str | None  # "timeout", "connect", "http-429", ...; None when it answered
    latency: float  # seconds, 6 decimals


class PredictedCursor(TypedDict):
    """The predicted cursor: a character offset into ``path`` after the edit."""

    path: str
    offset: int


class JumpLocationCounts(TypedDict):
    """Zed's ``patch_location_match`` counts (:class:`~pytest_editpred.metrics.JumpLocation`)."""

    files_tp: int
    files_fp: int
    files_fn: int
    lines_tp: int
    lines_fp: int
    lines_fn: int


class ContextCoverageCounts(TypedDict):
    """Zed's ``editable_context_coverage`` (:class:`~pytest_editpred.metrics.ContextCoverage`):
    did the context given to the model hold the rows the expected patch edits."""

    lines_tp: int
    lines_fp: int
    lines_fn: int
    lines_precision: float
    lines_recall: float
    lines_f1: float
    files_tp: int
    files_fp: int
    files_fn: int
    files_precision: float
    files_recall: float
    files_f1: float


class Metrics(TypedDict, total=False):
    """The record's ``metrics``: ``{}`` for a prediction that was not scored (an
    error, a skip, an answer that could not be used), else Zed's score JSON
    (:meth:`~pytest_editpred.metrics.PredictionScore.to_dict`), field for field.

    A scored prediction has every key down to ``deleted_tokens``; the ones after it
    only when they have a value (Zed's ``skip_serializing_if`` fields).
    """

    delta_chr_f: float
    delta_chr_f_true_positives: int
    delta_chr_f_false_positives: int
    delta_chr_f_false_negatives: int
    delta_chr_f_precision: float
    delta_chr_f_recall: float
    delta_chr_f_beta: float
    braces_disbalance: int
    exact_lines_tp: int
    exact_lines_fp: int
    exact_lines_fn: int
    reversal_ratio: float
    cursor_distance: int | None
    cursor_exact_match: bool | None
    wrong_editable_region: bool | None
    has_isolated_whitespace_changes: bool
    inserted_tokens: int
    deleted_tokens: int
    kept_rate: float
    recall_rate: float
    kept_chars: int
    correctly_deleted_chars: int
    discarded_chars: int
    cumulative_logprob: float
    avg_logprob: float
    editable_context_coverage: ContextCoverageCounts
    jump_location: JumpLocationCounts
    retrieved_context_bytes: int  # not Zed's: the context's bytes, for the summary


class Hunk(TypedDict):
    """One hunk of a :class:`LineDiff` (see :mod:`._hunks`)."""

    a: int  # 1-based number of the hunk's first line, old side
    b: int  # the same, new side
    gap: int  # unchanged lines hidden between the previous hunk and this one
    above: list[str]  # up to EXTRA_CONTEXT of them, just above (shown on demand)
    lines: list[list[str]]  # [op, text] with op " ", "-" or "+"


class LineDiff(TypedDict):
    """The changed hunks of one text against another, with both cursors placed."""

    hunks: list[Hunk]
    below: list[str]  # lines after the last hunk, shown on demand
    tail: int  # how many lines follow the last hunk
    ca: list[int] | None  # old side's cursor: [1-based line, 0-based column]
    cb: list[int] | None  # new side's cursor
    clipped: bool  # the diff was cut at MAX_LINES


class HistoryEntry(TypedDict):
    """One edit of the edit history, as the viewer shows it."""

    path: str
    old_path: str
    diff: str  # clipped to MAX_TEXT_CHARS
    predicted: bool  # the edit was an accepted prediction


class ExcerptLines(TypedDict):
    """At most 51 lines of the excerpt, around the cursor."""

    first: int  # 0-based index in the excerpt of the first line kept
    lines: list[str]
    total: int  # lines of the whole excerpt


class ExcerptView(TypedDict):
    """Zed's cursor excerpt (8,192 tokens), located in the file."""

    path: str
    start_line: int  # 1-based, in the file
    end_line: int
    cursor_line: int  # 1-based
    cursor_column: int  # 0-based
    text: ExcerptLines


class EditView(TypedDict):
    """The record's ``diff``: the cursor file's edit as the prediction and the chosen
    expected patch make it, for the viewer (:func:`~pytest_editpred.reports.edit_view`)."""

    path: str
    relative: bool  # False: the line numbers are the file's own
    predicted: LineDiff  # before -> predicted
    expected: NotRequired[LineDiff]  # before -> the best expected patch, when there is one
    versus: NotRequired[LineDiff]  # expected -> predicted, when the prediction did not pass
    other_files: NotRequired[list[str]]  # other files the prediction changed, when any
    history: list[HistoryEntry]
    excerpt: ExcerptView


class CursorView(TypedDict):
    """A window of lines around the cursor with the cursor drawn as ``‸``: the
    ``expected_view`` and ``predicted_view`` of an item that did not pass (the same
    window for both)."""

    path: str
    before: str
    expected: str
    predicted: str


class Record(TypedDict):
    """One item (one example, one trial) of a run: one line of the JSONL report.

    The keys are declared in the order they are written (see the module docstring).
    """

    name: str  # the example's id, as -v shows it: a .md/.json file's stem, a .jsonl line's name
    nodeid: str  # pytest's node id, ending in [tN] when examples run N > 1 times
    path: str  # the example file
    repository_url: str | None  # credentials removed; None when the example could not be read
    revision: str | None
    tags: list[str]
    provider: str | None  # who answered: the provider, or a custom editpred_completion's qualified name
    model: str | None  # the model the answer names, else the configured one
    trial: int  # from 1
    outcome: Outcome
    reason: str | None  # why it passed or failed, or the error
    attempts: list[RecordedAttempt]
    latency: float | None  # seconds the prediction took; None when setup did not get that far
    cached: bool  # the answer came from the response cache
    usage: dict[str, int]  # token counts as the server named them
    predicted_patch: str | None
    predicted_text: NotRequired[str | None]  # in the file; dropped from the run's records once written
    predicted_cursor: PredictedCursor | None
    prompt: Prompt | None  # clipped to RECORDED_CHARS
    raw_output: str | None  # the model's raw answer, clipped to RECORDED_CHARS
    matched_candidate: int | None  # 1-based expected patch the prediction matched
    best_candidate: int | None  # 1-based expected patch the metrics were taken from (Zed's rule)
    expected_cursor: bool | None  # the best expected patch marks a cursor; None when not judged
    metrics: Metrics
    notes: list[str]
    qa: NotRequired[dict[str, Any] | None]  # the judge's answer (--editpred-judge); None when not asked
    # Only for an item with a scene (judged, or its expected edit against no usable
    # answer) of a run that writes --editpred-html or --editpred-report:
    diff: NotRequired[EditView | None]
    # Only for a judged item that did not pass (None when no expected patch was best):
    expected_view: NotRequired[CursorView | None]
    predicted_view: NotRequired[CursorView | None]


# ----------------------------------------------------------------------------- reading

#: The largest number a record may hold, either sign: the largest integer a double,
#: and so JavaScript (the HTML viewer), holds exactly. No count, offset, score or
#: latency comes near it, and sums of 10**9 of them cannot overflow a float.
MAX_RECORD_NUMBER = 2**53

#: The fields a record cannot be summarised without: every version wrote them, and
#: every report keys on them (an example is its name and its node id, whose file part
#: tells same-named examples apart and whose ``[tN]`` groups trials; the counts are
#: outcomes).
IDENTITY = ("name", "nodeid", "outcome")


class RecordError(ValueError):
    """A JSON value that is not a :class:`Record`: ``field`` (``"metrics"``,
    ``"attempts[0].latency"``, ``'usage["x"]'``; None for the value as a whole) and
    what is wrong with it. The message is one line and quotes no text of the value,
    only field names of the type and escaped, clipped keys."""

    def __init__(self, field: str | None, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"record field '{field}' {problem}" if field is not None else f"the line {problem}")


def check_record(value: object, *, complete: bool = False) -> Record:
    """``value`` (a parsed JSON line) as a :class:`Record`, or :class:`RecordError`
    naming the first field that is not what the type says.

    * Every declared field is checked when present, down through the nested types
      (``attempts[0].latency``, ``diff.predicted.hunks[3].lines``); undeclared keys
      are not looked at. A missing field is no error (older files lack some).
    * Numbers: a bool is not a number; an ``int`` field takes integers only; every
      number is finite and within ±:data:`MAX_RECORD_NUMBER`. A ``float`` field also
      takes ``null``, which is how the writer writes NaN.
    * ``complete``: the record is going to be summarised (a command's table, rates,
      comparison, Zed's SummaryJson): ``name``, ``nodeid`` and ``outcome`` must then
      be there (:data:`IDENTITY`), and ``metrics``, unless ``{}``, must be a whole
      :class:`~pytest_editpred.metrics.PredictionScore`: every field a scored
      prediction always has, present and not ``null`` (see :class:`Metrics`), and a
      ``jump_location`` or ``editable_context_coverage`` whole too. Without it, a
      partial record (a test's, a notebook's) reads as far as it goes.

    Returns ``value`` itself, unchanged: a valid record is read as it was written.
    """
    if not isinstance(value, dict):
        kind = _JSON_TYPES.get(type(value), type(value).__name__)
        raise RecordError(None, f"is a JSON {kind}, not a record object")
    if complete:
        missing = next((key for key in IDENTITY if key not in value), None)
        if missing is not None:
            raise RecordError(missing, "is missing")
    try:
        _checker(Record)(value)
        if complete and value.get("metrics"):
            _check_score(value["metrics"])
    except _Bad as bad:
        raise RecordError("".join(reversed(bad.path)).lstrip("."), bad.problem) from None
    return cast(Record, value)


class _Bad(Exception):
    """A check failed: ``path`` is the field's name from the inside out (each
    container adds its part as the error passes it, so a valid record builds none)."""

    def __init__(self, problem: str, *path: str) -> None:
        self.problem = problem
        self.path = list(path)


_Check = Callable[[object], None]

_JSON_TYPES = {
    dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"
}  # fmt: skip


def _kind(value: object) -> str:
    """What a JSON value is, in JSON's words (never its text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number" if math.isfinite(value) else "NaN" if math.isnan(value) else "a number out of range"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _key(key: str) -> str:
    """A key of the data in a field name: escaped (no control character or quote can
    break the line it is printed on) and clipped."""
    shown = json.dumps(key[:40], ensure_ascii=True)
    return shown if len(key) <= 40 else shown[:-1] + '..."'


def _hints(typed: type) -> dict[str, Any]:
    hints = get_type_hints(typed)
    for key, hint in hints.items():
        while get_origin(hint) is NotRequired:  # typing_extensions' on 3.10: not stripped
            hint = get_args(hint)[0]
        hints[key] = hint
    return hints


def _is_typeddict(tp: object) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _describe(tp: Any) -> str:
    """What a field of type ``tp`` must be, in JSON's words."""
    origin = get_origin(tp)
    if tp is type(None):
        return "null"
    if tp is str:
        return "a string"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number or null"
    if tp is bool:
        return "a boolean"
    if origin is Literal:
        return "one of " + ", ".join(json.dumps(arg) for arg in get_args(tp))
    if origin is list:
        return "a list"
    if origin is dict or _is_typeddict(tp):
        return "an object"
    if origin in (typing.Union, types.UnionType):
        parts = [_describe(arg) for arg in get_args(tp) if arg is not type(None)]
        if type(None) in get_args(tp) and "null" not in " ".join(parts):
            parts.append("null")
        return ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0]
    return "anything"


def _number(value: object, integer: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and isinstance(value, float)):
        raise _Bad(f"must be {'an integer' if integer else 'a number'}, not {_kind(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Bad(f"must be a finite number (NaN is written as null), not {_kind(value)}")
    if abs(value) > MAX_RECORD_NUMBER:
        raise _Bad("must be a number within ±2**53, not a larger one")


def _leaves(value: list[object], tp: Any) -> bool:
    """A quick yes for a list of plain strings or integers in range, or of lists of
    them (in C: a diff's hundreds of ``[op, text]`` lines are checked without a
    Python call per line); no means: look at each element."""
    if get_origin(tp) is list:
        return set(map(type, value)) <= {list} and _leaves(
            list(chain.from_iterable(cast(list[list[object]], value))), get_args(tp)[0]
        )
    if tp is str:
        return set(map(type, value)) <= {str}
    if tp is int and set(map(type, value)) <= {int}:
        numbers = cast(list[int], value)
        return not numbers or -MAX_RECORD_NUMBER <= min(numbers) <= max(numbers) <= MAX_RECORD_NUMBER
    return False


@cache
def _checker(tp: Any) -> _Check:
    """The check of a value against ``tp``, built once per type from its hints."""
    origin = get_origin(tp)
    if tp is object or tp is Any:
        return lambda value: None
    if tp in (int, float):
        integer = tp is int

        def number(value: object) -> None:
            if value is None and not integer:
                return  # NaN, as the writer writes it
            _number(value, integer)

        return number
    if tp in (str, bool, type(None)):

        def exact(value: object) -> None:
            if type(value) is not tp:
                raise _Bad(f"must be {_describe(tp)}, not {_kind(value)}")

        return exact
    if origin is Literal:
        allowed = get_args(tp)

        def literal(value: object) -> None:
            if not isinstance(value, str) or value not in allowed:
                shown = "another string" if isinstance(value, str) else _kind(value)
                raise _Bad(f"must be {_describe(tp)}, not {shown}")

        return literal
    if origin is list:
        item_type = get_args(tp)[0]
        item = _checker(item_type)
        leafy = item_type in (str, int) or (get_origin(item_type) is list and get_args(item_type)[0] in (str, int))

        def items(value: object) -> None:
            if not isinstance(value, list):
                raise _Bad(f"must be a list, not {_kind(value)}")
            if leafy and _leaves(value, item_type):
                return
            for index, element in enumerate(value):
                try:
                    item(element)
                except _Bad as bad:
                    bad.path.append(f"[{index}]")
                    raise

        return items
    if origin is dict:
        member = _checker(get_args(tp)[1])  # JSON keys are strings

        def mapping(value: object) -> None:
            if not isinstance(value, dict):
                raise _Bad(f"must be an object, not {_kind(value)}")
            for key, element in value.items():
                try:
                    member(element)
                except _Bad as bad:
                    bad.path.append(f"[{_key(key)}]")
                    raise

        return mapping
    if _is_typeddict(tp):
        fields = {key: _checker(hint) for key, hint in _hints(tp).items()}

        def typed(value: object) -> None:
            if not isinstance(value, dict):
                raise _Bad(f"must be an object, not {_kind(value)}")
            for key, check in fields.items():
                if key in value:
                    try:
                        check(value[key])
                    except _Bad as bad:
                        bad.path.append(f".{key}")
                        raise

        return typed
    if origin in (typing.Union, types.UnionType):
        members = get_args(tp)
        nullable = type(None) in members
        # The member a JSON value of each kind is checked against (every union of the
        # record has at most one of each kind): its own message is the precise one.
        by_kind: dict[type, _Check] = {}
        for arg in members:
            arg_origin = get_origin(arg)
            if arg is float:
                by_kind.setdefault(float, _checker(arg))
                by_kind.setdefault(int, _checker(arg))
            elif arg in (int, str, bool):
                by_kind[arg] = _checker(arg)
            elif arg_origin is list:
                by_kind[list] = _checker(arg)
            elif arg_origin is dict or _is_typeddict(arg):
                by_kind[dict] = _checker(arg)
            elif arg_origin is Literal:
                by_kind[str] = _checker(arg)

        def union(value: object) -> None:
            if value is None and nullable:
                return
            check = by_kind.get(type(value))
            if check is None:
                raise _Bad(f"must be {_describe(tp)}, not {_kind(value)}")
            check(value)

        return union
    raise TypeError(f"check_record does not know the type {tp!r}")  # a new field's type: teach it


@cache
def _score_fields() -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The Metrics keys a scored prediction always has (those up to ``deleted_tokens``
    whose type does not allow None: ``to_dict`` leaves out Zed's optional ones when
    None), and the keys of the nested score objects."""
    hints = _hints(Metrics)
    names = list(hints)
    always = tuple(
        name
        for name in names[: names.index("deleted_tokens") + 1]
        if type(None) not in get_args(hints[name]) and hints[name] is not type(None)
    )
    nested = {
        "jump_location": tuple(_hints(JumpLocationCounts)),
        "editable_context_coverage": tuple(_hints(ContextCoverageCounts)),
    }
    return always, nested


def _check_score(metrics: Metrics) -> None:
    always, nested = _score_fields()
    values = cast(dict[str, object], metrics)
    for key in always:
        if values.get(key) is None:
            state = "is missing" if key not in values else "is null"
            raise _Bad(f"{state}, and a scored prediction always has it", f".{key}", "metrics")
    for name, keys in nested.items():
        part = values.get(name)
        if not isinstance(part, dict):
            continue  # absent or null: not scored (checked as a type already)
        for key in keys:
            if part.get(key) is None:
                state = "is missing" if key not in part else "is null"
                raise _Bad(f"{state}, and a scored prediction always has it", f".{key}", f".{name}", "metrics")
        extra = next((key for key in part if key not in keys), None)
        if extra is not None:
            raise _Bad("is not a field of it", f"[{_key(extra)}]", f".{name}", "metrics")
