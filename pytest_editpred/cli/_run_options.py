"""A run's options outside pytest: the ini file pytest would find for the files a
command is given, under the command line's ``--editpred-*`` options.

``editpred prompt`` and ``editpred judge`` read the run's settings (provider, judge,
repositories, response cache) by the plugin's own option table and rules
(:mod:`pytest_editpred._options`); this is where the two find that ini file and the
folder pytest's rootdir would be.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["run_options"]


def run_options(paths: Sequence[Path], args: argparse.Namespace) -> tuple[Any, Path]:
    """The run's :class:`~pytest_editpred._options.IniOptions` for ``paths`` (the
    ini file pytest would find, then ``args``) and the rootdir a run would have: the
    ini file's folder, else the paths' common folder. A :class:`ConfigError` for an
    ini file that cannot be parsed."""
    from .._options import IniOptions
    from ..corpus import find_ini

    ini = find_ini(paths)
    if ini.path is not None:
        root = ini.path.parent
    else:  # pytest's rootdir without an ini file: the files' common folder
        root = Path(os.path.commonpath([os.path.abspath(path.parent) for path in paths]))
    return IniOptions(option=args, inipath=ini.path, rootpath=root, ini=ini.values), root
