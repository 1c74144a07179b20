"""A wrong answer's report, written for the run's ``--tb`` and ``-v``.

pytest shortens a Python test's failure by ``--tb`` and lengthens its assertion
diffs by ``-vv``; an example's failure follows the same two dials:

* ``--tb=auto`` (the default), ``long``, ``native``: the reason, the best expected
  patch's metrics, the notes, and the diff's hunks nearest the cursor first, at most
  :data:`DEFAULT_HUNKS` of them and :data:`DEFAULT_LINES` lines, with a line saying
  how much more ``-vv`` shows;
* ``--tb=short``: the reason, the metrics and the one hunk nearest the cursor;
* ``--tb=line``: no body; pytest prints the item's one ``path:line: reason`` line;
* ``--tb=no``: pytest prints no failure section (the JUnit report still gets the
  default body);
* ``-vv`` (the assertion verbosity, so also the ini ``verbosity_assertions = 2``):
  the whole diff in file order, as far as :data:`~pytest_editpred.judge.MAX_DIFF_LINES`.

The prompt and the raw answer are report sections, which pytest prints or leaves out
by its own rules (``--show-capture``, ``--tb=no``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..judge import FailureDiff

__all__ = ["DEFAULT_HUNKS", "DEFAULT_LINES", "SHORT_LINES", "Failure"]

DEFAULT_HUNKS = 3
"""Hunks of the failure diff a default report shows: the one the edit was expected
at and the two nearest, enough to tell a wrong edit from a scattered answer."""

DEFAULT_LINES = 60
"""Lines of the failure diff a default report shows (a screenful)."""

SHORT_LINES = 20
"""Lines of the one hunk ``--tb=short`` shows."""

LEGEND = "‸ marks the cursors; - expected, + predicted"


@dataclass(frozen=True)
class Failure:
    """What a wrong answer's report is made of: ``headline`` (``name: reason``, the
    line ``--tb=line`` and the short test summary show), ``scores`` (the best
    expected patch and its metrics), the verdict's ``notes`` and the diff."""

    headline: str
    scores: str
    notes: tuple[str, ...]
    diff: FailureDiff

    def render(self, style: str, verbosity: int) -> str:
        """The report's body for ``--tb=style`` at assertion verbosity ``verbosity``."""
        from .._clip import escape_controls
        from ..judge import MAX_DIFF_LINES

        if style == "line":
            return ""
        short = style == "short"
        lines = [self.headline, self.scores]
        if short and self.notes:
            many = len(self.notes) != 1
            lines.append(f"({len(self.notes)} note{'s' if many else ''}: --tb=long shows {'them' if many else 'it'})")
        elif not short:
            lines.extend(f"note: {note}" for note in self.notes)
        if verbosity >= 2:
            legend, diff = LEGEND, self.diff.whole()
        elif short:
            legend = f"{LEGEND}; the hunk nearest the cursor"
            diff = self.diff.nearest(1, SHORT_LINES, "--tb=long or -vv shows more")
        else:
            more = "-vv shows them"
            if self.diff.size > MAX_DIFF_LINES:
                more = f"-vv shows the first {MAX_DIFF_LINES} lines of the whole diff"
            legend = f"{LEGEND}; the hunks nearest the cursor first"
            diff = self.diff.nearest(DEFAULT_HUNKS, DEFAULT_LINES, more)
        if diff:
            lines.extend((legend, diff.rstrip("\n")))
        return escape_controls("\n".join(lines))
