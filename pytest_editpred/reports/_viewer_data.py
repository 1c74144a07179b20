"""The viewer's record data, rebuilt into the types the page's script reads.

A record comes from a file (a baseline, a shard, one written by hand): nothing in it
is trusted to have its declared type. Everything the page gets is rebuilt here into
the types the script expects (strings, whole numbers, finite floats, bounded lists),
and an item's diffs by :func:`._hunks.view_diffs`.
"""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

from .._clip import clip
from ._record import Record

PAGE_TEXT_CHARS = 4_000  # of a prompt or a raw answer, in the page (the JSONL keeps more)
MAX_LIST = 20  # attempts, notes and usage entries of one item in the page
MAX_TRIAL = 1_000_000


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector held off: building a big page makes millions of
    small containers, none of them in a cycle (reference counting frees them), and
    each full collection would walk them all again (a fifth of the build)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _number(value: object) -> float | None:
    """A finite float, or None (for anything else: an int too big for a float too)."""
    kind = type(value)
    if kind is float:  # the common cases first: half a million calls for 10,000 items
        return cast(float, value) if math.isfinite(cast(float, value)) else None
    if kind is int:
        try:
            return float(cast(int, value))  # finite, or too big
        except OverflowError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _metrics(record: Record) -> dict[str, object]:
    """The record's metrics, their exact-lines F1 (which the record does not keep),
    and the context coverage's members as flat ``editable_context_*`` numbers."""
    given = record.get("metrics")
    metrics: dict[str, object] = {str(k): v for k, v in given.items()} if isinstance(given, Mapping) else {}
    coverage = metrics.get("editable_context_coverage")
    if isinstance(coverage, Mapping):
        metrics.update((f"editable_context_{key}", value) for key, value in coverage.items())
    tp, fp, fn = (_number(metrics.get(f"exact_lines_{k}")) for k in ("tp", "fp", "fn"))
    if tp is not None and fp is not None and fn is not None and "exact_lines_f1" not in metrics:
        metrics["exact_lines_f1"] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return metrics


def _strict(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _text(value: object, limit: int = PAGE_TEXT_CHARS) -> str | None:
    """A string field as the page shows it: None stays None, a string is clipped, any
    other value is shown as its JSON (a record written by another tool)."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = json.dumps(_strict(value), ensure_ascii=False, default=str)
    return clip(value, limit)


def _whole(value: object, low: int = 0, high: int = 10**9) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return None


def _scalar(value: object) -> str | int | float | bool | None:
    """A value the page prints as it is: a string, a finite number, a bool or None."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return _number(value)
    return _text(value, 200)


# Metric types that are never a mapping or a list: no ABC check for them.
_SCALARS = frozenset({float, int, bool, type(None), str})


def _metric(value: object) -> int | float | bool | None:
    """A metric as the page takes it: a bool, a finite number, or None."""
    if type(value) is float:  # :func:`_number`'s common case, without the call
        return value if math.isfinite(value) else None
    return value if value is None or isinstance(value, bool) else _number(value)


def _items(value: object) -> list[Any]:
    """A list field's items (a string or a mapping is not a list of them)."""
    return list(value[:MAX_LIST]) if isinstance(value, (list, tuple)) else []


def _tags(record: Record) -> list[str]:
    tags = record.get("tags")
    return [str(t) for t in tags] if isinstance(tags, (list, tuple)) else []


def _trial(record: Record) -> int:
    return _whole(record.get("trial"), 1, MAX_TRIAL) or 1


def _readable(record: Mapping[str, Any]) -> Record:
    """A copy of ``record`` whose ``metrics`` the summaries and the comparison can read
    (:mod:`._compare` and :mod:`._lines` take them as a mapping of numbers): a mapping,
    of bools, finite numbers and ``None`` (and the nested counts), else ``{}``."""
    given = record.get("metrics")
    metrics: dict[str, Any] = {}
    if isinstance(given, Mapping):
        for key, value in given.items():
            kind = type(value)
            if kind is float or kind is int:  # the common cases first: ABC checks cost 0.1 s
                keep = _number(value) is not None
            elif value is None or isinstance(value, (bool, Mapping)):
                keep = True
            else:
                keep = _number(value) is not None
            if keep:
                metrics[str(key)] = value
    return cast(Record, {**record, "metrics": metrics})
