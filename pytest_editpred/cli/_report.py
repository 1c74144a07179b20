"""``editpred report``: ``editpred-report`` under the one command (``main`` hands it
its arguments untouched; this only lists it in ``editpred --help``)."""

from __future__ import annotations

from typing import Any

__all__ = ["register"]


def register(subparsers: Any) -> None:
    subparsers.add_parser("report", help="summarise, render and gate JSONL reports (also editpred-report)")
