"""Writing a file so that readers see the old one or the new one, never half of it.

Caches and reports are shared between xdist workers and outlive killed runs, so
every file pytest-editpred writes goes through :func:`write_atomic`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


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
