"""Reading a record back: a parsed JSON line held against :class:`~._record.Record`.

A record read from a file is data from outside (another machine, tool or version, a
hand edit): :func:`check_record` checks it field by field, down through the nested
types, before any report reads it, and names the first field that is not what the
type says in one line. The check is built from the type's own annotations, so a
field added to the record is checked without a word here (a field of a type the
checker does not know is a ``TypeError`` at the first check: teach it).
"""

# No ``from __future__ import annotations``: the checker reads the record types'
# evaluated annotations.
import json
import math
import sys
import types
import typing
from collections.abc import Callable
from functools import cache
from itertools import chain
from typing import Annotated, Any, Literal, cast, get_args, get_origin, get_type_hints

from ._record import ContextCoverageCounts, JumpLocationCounts, Metrics, Record, Within

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:  # typing's own TypedDict of 3.10 does not know NotRequired
    from typing_extensions import NotRequired

__all__ = ["IDENTITY", "MAX_RECORD_NUMBER", "RecordError", "check_record"]

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
    hints = get_type_hints(typed, include_extras=True)  # Annotated ranges kept
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
    if origin is Annotated:
        bounds = _within(tp)
        base = _describe(get_args(tp)[0])
        return f"{base} from {bounds.low} to {bounds.high}" if bounds is not None else base
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


def _within(tp: Any) -> Within | None:
    """The :class:`Within` range of an ``Annotated`` type, if it has one."""
    return next((extra for extra in getattr(tp, "__metadata__", ()) if isinstance(extra, Within)), None)


@cache
def _checker(tp: Any) -> _Check:
    """The check of a value against ``tp``, built once per type from its hints."""
    origin = get_origin(tp)
    if tp is object or tp is Any:
        return lambda value: None
    if origin is Annotated:
        base = _checker(get_args(tp)[0])
        bounds = _within(tp)
        if bounds is None:
            return base

        def within(value: object) -> None:
            base(value)
            number = cast(float, value)
            if not bounds.low <= number <= bounds.high:
                side = "a larger one" if number > bounds.high else "a smaller one"
                raise _Bad(f"must be {_describe(tp)}, not {side}")

        return within
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
            elif arg_origin is Annotated and get_args(arg)[0] in (int, str, bool):
                by_kind[get_args(arg)[0]] = _checker(arg)

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
