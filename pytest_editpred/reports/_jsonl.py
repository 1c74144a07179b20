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

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from .._exceptions import ConfigError
from .._safe_json import loads_bounded
from ._record import Record

__all__ = ["JsonlReport", "read_records", "scrub_secrets"]

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


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """Every record of a JSONL report, in file order.

    A last line without its newline that is not valid JSON is the torn write of a
    killed run and is dropped. Any other bad line (or a line that is not a JSON
    object) is a :class:`ConfigError` naming the file and 1-based line: the file
    is a user's option value (``--editpred-baseline``), not ours to guess at.
    Blank lines are skipped.

    A line that is a JSON object is taken as a :class:`Record` without checking its
    fields: a file of an older version may lack some, and the readers allow for it.
    """
    where = Path(path)
    try:
        data = where.read_bytes()
    except OSError as error:
        raise ConfigError(
            f"cannot read the JSONL report: {error.strerror or error}",
            fix="Give the path of a file written by --editpred-report.",
            path=where,
        ) from None
    # Split on b"\n" only: str.splitlines would also break at U+2028 or \x85, which
    # ensure_ascii=False leaves unescaped inside strings.
    lines = data.split(b"\n")
    torn = not data.endswith(b"\n")
    records: list[Record] = []
    for number, raw in enumerate(lines, start=1):
        last = number == len(lines)
        if not raw.strip():
            continue
        try:
            value = loads_bounded(raw.decode("utf-8"))  # too deep: a JSONDecodeError, not a RecursionError
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            if last and torn:
                break  # the run was killed in the middle of this line
            raise ConfigError(
                f"line {number} is not valid JSON: {error}",
                fix="The report is corrupt; run again to write a new one.",
                path=where,
                line=number,
            ) from None
        if not isinstance(value, dict):
            raise ConfigError(
                f"line {number} is a JSON {type(value).__name__}, not a record object",
                fix="Give the path of a file written by --editpred-report.",
                path=where,
                line=number,
            )
        records.append(cast(Record, value))  # as written by JsonlReport.append; not validated
    return records
