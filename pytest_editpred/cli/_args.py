"""Argument types the subcommands share, so one bad value reads the same everywhere."""

from __future__ import annotations

import argparse

__all__ = ["positive_count"]


def positive_count(text: str) -> int:
    """A whole number of 1 or more (``-n``, ``--num-groups``, ``--show-top-excluded``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid count '{text}': give a whole number of 1 or more") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid count '{text}': give a whole number of 1 or more")
    return value
