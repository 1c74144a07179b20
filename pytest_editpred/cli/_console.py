"""What a command says: one line per problem, progress on a terminal, a summary.

Every command of ``editpred`` reports the same way, so a user (or a script reading
the output) learns it once: a problem is one line ``path:line: message (fix)`` on
standard error and the work goes on; a warning is such a line too, ``where: warning:
message (fix)``, and no problem (the exit status stays 0); progress is drawn only on
a terminal, never into a pipe or a file; the summary is the last line on standard
output.
"""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["Console"]


class Console:
    """The output of one command run; counts its problems for the exit status."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.problems = 0
        self._drawn = False

    @property
    def interactive(self) -> bool:
        return self.err.isatty()

    def problem(self, where: str, message: str, fix: str | None = None, line: int | None = None) -> None:
        """One line naming the file (and line or row), what is wrong and the fix."""
        self.problems += 1
        self._clear()
        place = f"{where}:{line}" if line is not None else where
        self.err.write(f"{place}: {_one_line(message)}" + (f" ({_one_line(fix)})" if fix else "") + "\n")

    def warning(
        self, where: str, message: str, fix: str | None = None, *, line: int | None = None, label: str = "warning"
    ) -> None:
        """One line like a problem's, ``where: warning: message (fix)``, that leaves
        the exit status alone: the work was done, but not quite as asked (``label``
        names the kind: a lint quality finding says ``quality``)."""
        self._clear()
        place = f"{where}:{line}" if line is not None else where
        self.err.write(f"{place}: {label}: {_one_line(message)}" + (f" ({_one_line(fix)})" if fix else "") + "\n")

    def progress(self, done: int, total: int | None, what: str) -> None:
        """``what done/total`` redrawn in place on a terminal; nothing otherwise."""
        if not self.interactive:
            return
        self.err.write(f"\r{what} {done}" + (f"/{total}" if total is not None else "") + "\x1b[K")
        self.err.flush()
        self._drawn = True

    def summary(self, text: str, *, err: bool = False) -> None:
        """The last line of the command, on standard output; on standard error
        (``err``) when standard output carries the command's data (JSONL)."""
        self._clear()
        (self.err if err else self.out).write(text + "\n")

    def _clear(self) -> None:
        if self._drawn:
            self.err.write("\r\x1b[K")
            self._drawn = False


def _one_line(text: str) -> str:
    """Control characters shown escaped: a message may quote outside data."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in " ".join(text.split("\n")))
