"""Argument types and options the subcommands share, so one bad value reads the same
everywhere and a run's option is spelled on a command as on ``pytest``."""

from __future__ import annotations

import argparse
from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["add_run_options", "positive_count"]


def add_run_options(parser: Any, names: Collection[str], short: Mapping[str, str] | None = None) -> None:
    """Add the run's options ``names`` (``--editpred-x``, as pytest takes them, from the
    one option table), each also under its ``short`` flag when it has one."""
    from .._options import OPTIONS, REPORT_OPTIONS, argparse_kwargs

    short = short or {}
    for option in OPTIONS + REPORT_OPTIONS:
        if option.name in short:
            parser.add_argument(short[option.name], option.flag, **argparse_kwargs(option))
        elif option.name in names:
            parser.add_argument(option.flag, **argparse_kwargs(option))


def positive_count(text: str) -> int:
    """A whole number of 1 or more (``-n``, ``--num-groups``, ``--show-top-excluded``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid count '{text}': give a whole number of 1 or more") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid count '{text}': give a whole number of 1 or more")
    return value
