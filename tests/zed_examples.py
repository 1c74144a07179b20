"""Where the upstream Zed example files are: they are used as they are, never copied
into this project, so the tests look for them outside it.

In order: the directory named by ``EDITPRED_ZED_EXAMPLES``; ``shared/examples/zed``
beside this checkout; the same beside the repository this checkout was cloned from,
when that is a local path (a clone made in a temporary directory). When none exists
the first candidate is returned, and the tests that need the files fail naming it.
The flask bundle is found in ``shared/repos`` beside that directory.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["ZED", "VARIABLE", "FLASK_BUNDLE", "FLASK_URL"]

VARIABLE = "EDITPRED_ZED_EXAMPLES"
_ROOT = Path(__file__).resolve().parents[1]
_BESIDE = Path("shared", "examples", "zed")


def _origin() -> Path | None:
    """The local repository this checkout was cloned from, if any."""
    try:
        url = subprocess.run(
            ["git", "config", "--get", "remote.origin.url"], cwd=_ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not url or "://" in url.replace("file://", "", 1) or (":" in url and not url.startswith(("/", "file:"))):
        return None  # a remote URL: nothing beside it on this machine
    return Path(url.removeprefix("file://")).resolve()


def _find() -> Path:
    if named := os.environ.get(VARIABLE):
        return Path(named)
    candidates = [_ROOT.parent / _BESIDE]
    if (origin := _origin()) is not None:
        candidates.append(origin.parent / _BESIDE)
    return next((c for c in candidates if c.is_dir()), candidates[0])


ZED = _find()
# shared/repos/ beside shared/examples/zed: the real pallets/flask history up to the
# revision of the flask examples.
FLASK_BUNDLE = ZED.parents[1] / "repos" / "flask-2fec0b2.bundle"
FLASK_URL = "https://github.com/pallets/flask"
