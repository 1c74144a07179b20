"""A message for people as pytest's report of an ERROR or a FAILED example.

pytest shows a failure twice: whole in its section, and as one line in the short
test summary. Off CI that line is the message's first line, trimmed; on CI (``$CI``
or ``$BUILD_NUMBER`` set) and with ``-vv`` pytest prints the summary's message
whole, so a plain string report would print every paragraph twice. The report built
here prints the paragraph whole in its section and gives the summary (and JUnit's
``message`` attribute) only the headline. It is made of the representation
pytest itself builds for ``pytest.fail(..., pytrace=False)``, which pytest-xdist
carries from worker to controller unchanged; where those classes are missing (a
future pytest), the paragraph is returned as the string pytest's docs sanction.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["paragraph_report"]

_WHERE = re.compile(r"(?P<path>[^\n]+?):(?P<line>\d+): (?P<what>[^\n]*)")


def paragraph_report(text: str, path: Path, line: int | None, *, body: str | None = None) -> Any:
    """The report of ``text``: its section prints it as it is (or ``body`` instead,
    ``""`` for none, as ``--tb=line`` wants), the short summary its first line
    (without the ``file:line:`` it starts with, which ``--tb=line`` and the summary's
    node id already give)."""
    shown = text if body is None else body
    try:
        from _pytest._code.code import ReprEntryNative, ReprExceptionInfo, ReprFileLocation, ReprTraceback
    except ImportError:  # pragma: no cover - a pytest without these classes
        return shown
    headline = text.split("\n", 1)[0]
    where = _WHERE.fullmatch(headline)
    if where is not None:
        crash = ReprFileLocation(where["path"], int(where["line"]), where["what"])
    else:
        prefix = f"{path}: "
        what = headline[len(prefix) :] if headline.startswith(prefix) else headline
        crash = ReprFileLocation(str(path), line or 0, what)
    lines = [shown if shown.endswith("\n") else shown + "\n"] if shown else []
    return ReprExceptionInfo(reprtraceback=ReprTraceback([ReprEntryNative(lines)], None, "native"), reprcrash=crash)
