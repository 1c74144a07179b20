"""Report writers that need no pytest: the JSONL record file, the HTML page, the
comparison of two runs and ``--editpred-accept``.

They take plain records (see ``record_of`` in :mod:`pytest_editpred.integration.reporting`)
so they can be used and tested without a session, and run again on a saved JSONL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._accept import accept_prediction, cursor_marker_line, with_cursor_line
from ._compare import Comparison, ExampleChange, compare
from ._jsonl import JsonlReport, read_records, scrub_secrets

if TYPE_CHECKING:
    from ._viewer import render_html

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


def __getattr__(name: str) -> Any:
    # The viewer (with the metrics its diffs use) is imported on first use of
    # render_html, so importing the package for JSONL or --editpred-accept stays light.
    if name == "render_html":
        from ._viewer import render_html

        globals()[name] = render_html
        return render_html
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
