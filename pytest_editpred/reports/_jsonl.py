"""The JSONL record file: one JSON object per item and trial, written as it finishes.

A run can be killed at any moment (Ctrl-C, a CI timeout, an OOM). Each record is
therefore written with a single ``write`` of one complete line, flushed and fsynced
before :meth:`JsonlReport.append` returns: the file always holds every record that
finished, plus at most one torn last line, which :func:`read_records` drops.

The file describes *one* run, so :meth:`JsonlReport.open` truncates it: appending a
second run to the first would make ``--editpred-baseline`` pair a run with itself.

Records carry no credentials, but error messages (``reason``, attempt errors) quote
whatever a server or library said, and that can echo a header or a URL with a token.
:func:`scrub_secrets` replaces the values of secret-looking environment variables
before anything reaches the disk (the HTML report uses it too).
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from .._exceptions import ConfigError
from .._safe_json import check_depth
from ._check import RecordError, check_record
from ._record import Record

__all__ = [
    "MAX_RECORD_BYTES",
    "JSONLineError",
    "JsonlReport",
    "LineTooLong",
    "json_lines",
    "read_records",
    "scrub_secrets",
]

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
# Shorter values ("1", "true", "dev") are settings, not secrets, and replacing them
# would mangle ordinary text.
_MIN_SECRET_LENGTH = 8
REDACTED = "[redacted]"


def _secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_SECRET_LENGTH}
    # Longest first, so a secret that contains another is replaced whole.
    return sorted(values, key=len, reverse=True)


def scrub_secrets(value: Any, environ: Mapping[str, str] | None = None) -> Any:
    """``value`` with every secret-looking environment value replaced by ``[redacted]``.

    A variable is secret-looking when its name contains KEY, TOKEN, SECRET,
    PASSWORD, CREDENTIAL or AUTH and its value has at least 8 characters. Works on
    nested dicts and lists; returns new containers, never mutates ``value``.
    """
    secrets = _secret_values(environ)
    return _scrub(value, secrets) if secrets else value


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, Mapping):
        return {key: _scrub(item, secrets) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(item, secrets) for item in value]
    return value


def _strict(value: Any) -> Any:
    """NaN and infinities as ``null``: strict JSON readers (jq, browsers) reject them."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(key): _strict(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(item) for item in value]
    return value


def encode_record(record: Mapping[str, Any]) -> str:
    """One record as one line of strict JSON, without the newline.

    ``json.dumps`` escapes ``\\n`` inside strings, so the line never breaks; other
    objects (a ``Path``) are written as their ``str``.
    """
    return json.dumps(
        _strict(scrub_secrets(record)), ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str
    )


class JsonlReport:
    """Write a run's records to ``path``, one line each, durable as they come.

    Usage: ``open()`` at session start (truncates), ``append(record)`` per item and
    trial, ``close()`` at the end; or use it as a context manager. Only the
    process that aggregates (the xdist controller) should own one.

    A write that fails (a full disk: ``ENOSPC``; ``ulimit -f``: ``EFBIG``) raises
    the ``OSError`` *after* cutting the file back to its last complete record, so
    the file stays a valid report of the records before the failure (the caller
    decides whether to go on; the plugin stops writing and says so once). Records
    are written with ``os.write`` on a descriptor, not through a buffered file: a
    buffer that failed to flush would try again, and fail again, on close.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._size = 0  # bytes of complete records in the file
        self.count = 0

    @property
    def closed(self) -> bool:
        return self._fd is None

    def open(self) -> JsonlReport:
        """Create (or truncate) the file and its parent directories."""
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
            self._fd = os.open(self.path, flags, 0o666)
            self._size = 0
            self.count = 0
        return self

    def append(self, record: Record) -> None:
        """Write one record as a line, then fsync it; on failure, undo the partial line."""
        if self._fd is None:
            raise ValueError(f"the JSONL report {self.path} is not open; call open() first")
        data = (encode_record(record) + "\n").encode("utf-8")
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)
        except OSError:
            self._cut_back()
            raise
        self._size += len(data)
        self.count += 1

    def _cut_back(self) -> None:
        """Drop a partly written line: shrinking a file needs no free space."""
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, self._size)
            os.lseek(self._fd, self._size, os.SEEK_SET)
        except OSError:
            pass  # read_records still drops a torn last line

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> JsonlReport:  # noqa: PYI034 (typing.Self needs 3.11)
        return self.open()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


#: The longest line a record may take. A run writes a record's prompt and raw answer
#: clipped to 200,000 characters, its predicted patch and text each up to
#: ``--editpred-max-prediction-bytes`` (8 MiB); with JSON's escapes at their worst
#: (six bytes for a control character) that is under 100 MiB. A longer line is
#: refused unread, so a file with no newline in it cannot fill the memory.
MAX_RECORD_BYTES = 128 * 1024 * 1024

#: Integers longer than this are read as floats (±inf past 10**308): Python's own
#: int limit (4,300 digits) would raise a ValueError inside ``json.loads`` instead of
#: letting the check name the field; no field may hold more than 16 digits anyway.
_MAX_INT_DIGITS = 100


def _int(text: str) -> int | float:
    return int(text) if len(text) <= _MAX_INT_DIGITS else float(text)


class JSONLineError(ValueError):
    """Line ``line`` of a JSONL file is not JSON (``cause``: the decoding error, also
    for JSON nested deeper than 100 or bytes that are not UTF-8)."""

    def __init__(self, line: int, cause: ValueError) -> None:
        self.line = line
        self.cause = cause
        super().__init__(f"line {line} is not valid JSON: {cause}")


class LineTooLong(ValueError):
    """A line over :data:`MAX_RECORD_BYTES`, yielded (not raised) by
    :func:`json_lines`: only this line is bad, the ones after it are whole."""

    def __init__(self) -> None:
        super().__init__(f"is longer than {MAX_RECORD_BYTES:,} bytes")


def json_lines(file: BinaryIO) -> Iterator[tuple[int, object]]:
    """``(line number, value)`` of every line of a JSONL file from outside.

    Lines are split on ``\\n`` only: ``str.splitlines`` would also split at U+2028 or
    U+0085, which records written with ``ensure_ascii=False`` hold unescaped inside
    strings. Blank lines are passed over, a UTF-8 byte-order mark at the start is
    ignored, and a last line without its newline that is not JSON (the torn write
    of a killed run) is dropped. A line over :data:`MAX_RECORD_BYTES` is read past
    without being kept and yields a :class:`LineTooLong` as its value; any other
    line that is not JSON raises :class:`JSONLineError` (the line cannot be told
    from the next, so the caller stops). Nesting is bounded by ``_safe_json`` (100),
    integers by ``_MAX_INT_DIGITS``; an ``OSError`` of the file is the caller's.
    """
    number = 0
    while True:
        raw = file.readline(MAX_RECORD_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_RECORD_BYTES:  # read on to the end of the line, keeping nothing
            while not raw.endswith(b"\n"):
                raw = file.readline(1024 * 1024)
                if not raw:
                    break
            yield number, LineTooLong()
            continue
        if number == 1 and raw.startswith(codecs.BOM_UTF8):  # saved by an editor that marks UTF-8
            raw = raw[len(codecs.BOM_UTF8) :]
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
            check_depth(text)  # too deep: a JSONDecodeError, not a RecursionError
            value = json.loads(text, parse_int=_int)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            if not raw.endswith(b"\n"):
                return  # the run was killed in the middle of this line
            raise JSONLineError(number, error) from None
        yield number, value


def read_records(
    path: str | os.PathLike[str],
    *,
    skip: Callable[[str], None] | None = None,
    complete: bool = False,
) -> list[Record]:
    """Every record of a JSONL report, in file order, each held against the
    :class:`Record` type by :func:`~pytest_editpred.reports.check_record` first.

    This is the one reader of records from outside: ``editpred-report`` and ``pytest
    --editpred-baseline`` read through it (the replay provider reads its lines with
    :func:`json_lines` and checks the fields it answers from). What a line can be,
    and what follows:

    * blank: passed over; the last line, without its newline, not JSON: the torn
      write of a killed run, dropped (every finished record is before it);
    * not JSON (also: nested deeper than 100, not UTF-8), or a file that cannot be
      read: **stop**, a :class:`ConfigError` naming the file and line. The file is
      then no report, or is damaged where its lines are: what follows such a line
      cannot be trusted to be whole records, and a summary of "the rest" would pass
      off an unknown part of the run as the run;
    * JSON that is not a record (not an object, a field of the wrong type, a number
      out of range; with ``complete``, a missing ``name``, ``nodeid`` or ``outcome``
      or metrics that are no whole score), or a line over :data:`MAX_RECORD_BYTES`:
      the line is whole, so only this record is bad. With ``skip``, ``skip`` gets
      one line, ``<file>:<line>: record field 'metrics' must be an object, not a
      list (skipped)``, and the other records still count (a file of another tool
      or version, or edited by hand, still yields its good records, and every record
      left out is named). Without ``skip``, a :class:`ConfigError` as above: a
      caller that did not ask to skip gets every record or none.

    ``complete``: the records will be summarised (see ``check_record``), as the
    commands ask; without it, partial records (a test's) read as far as they go.
    A valid record is returned as written (a NaN written as ``null`` stays None).
    """
    from .._files import open_regular

    where = Path(path)
    fix = "Give the path of a file written by --editpred-report."
    records: list[Record] = []
    try:
        with open_regular(where) as file:  # a FIFO named as the report must not wait forever
            for number, value in json_lines(file):
                try:
                    if isinstance(value, LineTooLong):
                        raise RecordError(None, str(value))
                    records.append(check_record(value, complete=complete))
                except RecordError as error:
                    if skip is None:
                        raise ConfigError(str(error), fix=fix, path=where, line=number) from None
                    skip(f"{where}:{number}: {error} (skipped)")
    except OSError as error:  # cannot open, or a read that fails half-way (EIO)
        raise ConfigError(f"cannot read the JSONL report: {error.strerror or error}", fix=fix, path=where) from None
    except JSONLineError as error:
        raise ConfigError(
            str(error), fix="The report is corrupt; run again to write a new one.", path=where, line=error.line
        ) from None
    return records
