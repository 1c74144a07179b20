"""Writing a file so that readers see the old one or the new one, never half of it;
and reading one only when it is a file.

Caches and reports are shared between xdist workers and outlive killed runs, so
every file pytest-editpred writes goes through :func:`write_atomic`.

A path someone else chose may be a FIFO (opening it for reading waits for a writer,
forever), a socket, a device or a symbolic link that loops: :func:`open_regular`
opens without waiting and refuses what is not a regular file, and
:func:`special_kind` names such a thing for a message without opening it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotRegularFile", "open_regular", "special_kind", "write_atomic"]

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegularFile(OSError):
    """The path is there but is no file to read: ``strerror`` says what it is."""


def _kind_of_mode(mode: int) -> str | None:
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


def special_kind(path: Path) -> str | None:
    """What ``path`` is when it is neither a regular file nor a folder (``"a FIFO
    (named pipe)"``, ``"a symbolic link loop"``, ``"a dangling symbolic link"``,
    ...), or None; a path that does not exist at all is None too (``path.exists()``
    says so). Only ``stat`` is called: nothing is opened."""
    try:
        return _kind_of_mode(os.stat(path).st_mode)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link loop"
        if error.errno in (errno.ENOENT, errno.ENOTDIR) and os.path.islink(path):
            return "a dangling symbolic link"
        return None


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading in binary, or :class:`NotRegularFile` (an
    :class:`OSError`) when it is a FIFO, socket or device: opened without blocking
    (a FIFO with no writer would wait forever) and checked before the first read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:  # a socket cannot be opened at all; a loop is ELOOP
        kind = special_kind(path)
        if kind is None:
            raise
        raise NotRegularFile(error.errno, f"it is {kind}, not a file", str(path)) from None
    try:
        kind = _kind_of_mode(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotRegularFile(errno.EINVAL, f"it is {kind}, not a file", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def write_atomic(path: Path, data: str | bytes, *, mode: int = 0o644, sync: bool = True) -> None:
    """Replace ``path`` with ``data``: a temporary file in the same directory, synced,
    then renamed over it. ``mode`` defaults to world-readable (a shared cache).

    ``sync=False`` skips the ``fsync``: readers still never see half a file, but a
    power cut may lose it. For outputs made again by running the command again (a
    corpus of thousands of small files, where one ``fsync`` each is most of the time).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
            out.flush()
            if sync:
                os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
