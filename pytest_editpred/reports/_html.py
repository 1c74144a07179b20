"""The HTML report: one self-contained page to review a run by eye.

Numbers say *how much* a model got wrong; only reading the predictions says *how*.
The page is a viewer (:mod:`._viewer`): a list of every example, filtered and
sorted, and for the one opened its whole story: the prediction against the chosen
expected patch as a diff with line numbers and both cursors, the edit history, the
excerpt, the prompt and the raw answer, the metrics, the attempts, and with a
baseline the earlier run's prediction beside it.

Self-contained on purpose: the page is a CI artifact opened from disk, perhaps
years later, so it loads nothing (no fonts, no scripts, no images) and a
Content-Security-Policy forbids it to. Record data is embedded as JSON that cannot
close its element; the one script is static, allowed by its hash only, and builds
the page with ``textContent``, so even a prediction containing ``</script>`` could
not run code.

The view (filters, sort, the item opened, unified or split) lives in the URL
fragment (``#outcome=failed,error&repo=URL&tag=T&q=text&sort=delta_chr_f&dir=desc&item=NAME&view=split``):
a view can be bookmarked or linked, and a headless browser can load one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["CURSOR", "OUTCOMES", "render_html"]

CURSOR = "\u2038"  # ‸, how the record views draw the cursor
OUTCOMES = ("error", "failed", "passed", "skipped")  # the order of problems first


def render_html(
    records: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any] | None = None,
    title: str = "Edit-prediction report",
    *,
    baseline: Sequence[Mapping[str, Any]] | None = None,
    terminal: Sequence[str] | None = None,
) -> str:
    """The whole report page as one string (write it with ``encoding="utf-8"``):
    the viewer of :mod:`._viewer` (``baseline``: the records of an earlier run, to
    show the comparison with it; ``terminal``: the summary lines the terminal
    printed, so their intervals are not computed again).

    ``records`` are :func:`record_of` dicts. An item's diffs come from its ``diff``
    field (:func:`~pytest_editpred.reports._hunks.edit_view`: the file's own line
    numbers, the edit history, the excerpt), else from ``expected_view`` /
    ``predicted_view`` (``{path, before, expected | predicted}`` windows with the
    cursor drawn as ``‸``), else the predicted patch. ``summary`` is the run's
    (SummaryJson fields plus ``passed``/``failed``/``error``/``skipped``/``total``/
    ``pass_rate``); without it, :func:`~pytest_editpred.reports._viewer.summary_of`
    computes it from the records as the run does. Secret-looking environment values
    are scrubbed from everything shown.
    """
    from ._viewer import render_viewer

    return render_viewer(records, summary, title, baseline=baseline, terminal=terminal)
