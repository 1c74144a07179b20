"""Disk faults told as one sentence: what failed, the error, and what to do about it.

A full disk, a read-only mount or a path that is a directory is not a bug of
pytest-editpred and not a bug of the example: the user can fix it in seconds if the
message says which file and what to change, and cannot if it is a 100-line
traceback. Reports, the repository cache and ``--editpred-accept`` all use these
words, so the same fault reads the same wherever it happens.
"""

from __future__ import annotations

import errno
import os

__all__ = ["DISK_FULL", "NOT_WRITABLE", "describe", "filename_of", "is_disk_fault", "remedy"]

#: The disk (or the user's quota, or the file-size limit) has no room for the write.
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
#: The place cannot be written at all, whatever the size.
NOT_WRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
_WRONG_KIND = frozenset({errno.EISDIR, errno.ENOTDIR})


def is_disk_fault(error: BaseException) -> bool:
    """Whether ``error`` is the environment refusing a write (not a bug to trace)."""
    return isinstance(error, OSError) and error.errno in DISK_FULL | NOT_WRITABLE | _WRONG_KIND


def describe(error: OSError) -> str:
    """``No space left on device [ENOSPC]``: the words, then the code people search for."""
    words = error.strerror or str(error)
    code = errno.errorcode.get(error.errno or -1)
    return f"{words} [{code}]" if code else words


def remedy(error: OSError, where: str, elsewhere: str) -> str:
    """What to do, as an imperative sentence.

    ``where`` names the place that failed ("that disk", "the repository cache
    /x"); ``elsewhere`` is the way to pick another place ("give --editpred-html a
    path on another disk"), which is always a fix.
    """
    number = error.errno
    if number in (errno.ENOSPC, errno.EDQUOT):
        return f"Free space on {where}, or {elsewhere}."
    if number == errno.EFBIG:
        return f"The file-size limit (ulimit -f) is too small for the file: raise it, or {elsewhere}."
    if number == errno.EROFS:
        return f"{where[:1].upper()}{where[1:]} is on a read-only file system: {elsewhere}."
    if number in (errno.EACCES, errno.EPERM):
        return f"This user may not write to {where}: fix its permissions, or {elsewhere}."
    if number == errno.EISDIR:
        return f"The path is a directory: name a file (for example inside it), or {elsewhere}."
    if number == errno.ENOTDIR:
        return f"A parent of the path is a file, not a directory: {elsewhere}."
    return f"Check {where}, or {elsewhere}."


def filename_of(error: OSError) -> str | None:
    """The file the failed call named, if any (``os.write`` on a descriptor names none)."""
    name = error.filename
    return os.fsdecode(name) if isinstance(name, (str, bytes)) else None
