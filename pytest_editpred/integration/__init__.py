"""The pytest integration: options, collection, the run and its reports.

Only the stash keys live here, so that the plugin module can name them without
importing the heavier modules before a hook needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .runner import Prepared, Run  # noqa: F401 (named in the StashKey strings below)

__all__ = ["ROOTS_KEY", "TRIALS_KEY", "RUN_KEY", "PREPARED_KEY", "SETUP_ERROR_KEY"]

ROOTS_KEY = pytest.StashKey[list[Path]]()
TRIALS_KEY = pytest.StashKey[int]()
RUN_KEY = pytest.StashKey["Run"]()
PREPARED_KEY = pytest.StashKey["Prepared"]()
SETUP_ERROR_KEY = pytest.StashKey[Any]()
