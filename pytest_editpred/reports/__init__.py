"""Report writers that need no pytest: the JSONL record file, the HTML page, the
comparison of two runs and ``--editpred-accept``.

They take plain records (see ``record_of`` in :mod:`pytest_editpred.integration.reporting`)
so they can be used and tested without a session, and run again on a saved JSONL.
"""

from __future__ import annotations

from ._accept import accept_prediction, cursor_marker_line, with_cursor_line
from ._compare import Comparison, ExampleChange, compare
from ._html import render_html
from ._jsonl import JsonlReport, read_records, scrub_secrets

__all__ = [
    "Comparison",
    "ExampleChange",
    "JsonlReport",
    "accept_prediction",
    "compare",
    "cursor_marker_line",
    "read_records",
    "render_html",
    "scrub_secrets",
    "with_cursor_line",
]
