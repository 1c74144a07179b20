"""Real disk faults for tests: a full file system and a read-only one.

``chmod`` does not stop root (and the suite runs as root in CI), so a read-only
directory is a small tmpfs remounted ``ro``: the kernel refuses every write with
``EROFS``, whoever asks. A full disk is a small tmpfs filled to the last byte, so a
write fails with a real ``ENOSPC``. Both need ``mount``; a test that cannot mount
(no root, no CAP_SYS_ADMIN, a container without it) is skipped, and says why.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

__all__ = ["full_disk", "read_only_dir", "tmpfs"]

PAGE = 4096


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


def tmpfs(path: Path, request: pytest.FixtureRequest, size: str = "256k") -> Path:
    """Mount a fresh tmpfs of ``size`` at ``path`` (made if missing), unmounted at
    the end of the test; skip the test if this machine does not allow mounting."""
    path.mkdir(parents=True, exist_ok=True)
    try:
        done = _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path))
    except FileNotFoundError:
        pytest.skip("no mount command here: cannot make a real full or read-only file system")
    if done.returncode:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")
    request.addfinalizer(lambda: subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False))
    return path


def read_only_dir(path: Path, request: pytest.FixtureRequest, files: dict[str, str] | None = None) -> Path:
    """A directory on a read-only file system, holding ``files``: writes fail with EROFS."""
    tmpfs(path, request)
    for name, text in (files or {}).items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    remount_read_only(path)
    return path


def remount_read_only(path: Path) -> None:
    done = _mount("-o", "remount,ro", str(path))
    if done.returncode:
        pytest.skip(f"remounting a tmpfs read-only is not permitted here: {done.stderr.strip()}")
    probe = path / ".probe"
    try:
        probe.touch()
    except OSError:
        return
    probe.unlink()
    pytest.skip("a read-only remount still accepts writes here")


def full_disk(path: Path, request: pytest.FixtureRequest, free_pages: int = 0, size: str = "256k") -> Path:
    """A tmpfs filled by ``filler`` until ``ENOSPC``, then ``free_pages`` pages freed.

    tmpfs counts whole pages, so freeing ``n`` pages lets exactly ``n * 4096`` bytes
    of data be written afterwards (creating empty files and directories still works,
    as on a real full disk).
    """
    tmpfs(path, request, size)
    fd = os.open(path / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        block = b"\0" * PAGE
        while True:
            try:
                os.write(fd, block)
            except OSError:
                break
        if free_pages:
            size_now = os.fstat(fd).st_size
            os.ftruncate(fd, size_now - size_now % PAGE - free_pages * PAGE)
    finally:
        os.close(fd)
    return path
