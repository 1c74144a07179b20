"""A cooperative deadline for judging one item (``--editpred-judge-timeout``).

Judging is pure Python on texts that come from outside (the model's answer, the
example's expected patches), so a huge or pathological input could keep an item
busy for minutes. A thread cannot be interrupted safely, so the heavy loops (the
metrics, the text diffs) call :func:`check` now and then instead; past the
deadline it raises :class:`JudgeTimeout`, which the runner turns into one FAILED or
ERROR item (see ``Run.conclude``) and the run goes on. Outside :func:`deadline`
:func:`check` does nothing, so library callers of the metrics are never cut short.

The deadline is a :class:`contextvars.ContextVar`: each thread (the prefetchers'
threads build scenes, the main thread judges) has its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["JudgeTimeout", "check", "deadline"]

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("editpred_judge_deadline", default=None)


class JudgeTimeout(Exception):
    """Judging went past its deadline; ``seconds`` is the limit that was given.

    Not an :class:`~pytest_editpred._exceptions.EditPredError`: no code on the way
    up may take it for a wrong answer or a broken example; only the runner, which
    set the deadline, decides what it means.
    """

    def __init__(self, seconds: float) -> None:
        super().__init__(f"judging took more than {seconds:g} s")
        self.seconds = seconds


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Run the body with :func:`check` raising once ``seconds`` have passed."""
    token = _DEADLINE.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check() -> None:
    """Raise :class:`JudgeTimeout` if the current deadline has passed (cheap: one
    context-variable read and one clock read)."""
    current = _DEADLINE.get()
    if current is not None and time.monotonic() > current[0]:
        raise JudgeTimeout(current[1])
