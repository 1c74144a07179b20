"""``baseline``: a deterministic, offline next-edit heuristic, the floor to beat.

A score means little without a floor: this provider predicts with no model, no
network and no key, so ``pytest evals/`` scores something on a fresh clone (it is
the default provider), and a model must beat it to be worth its cost. It reads only
what a model is given (the buffers, the cursor and the user's edit events), never
the example's expected or rejected patches, its name, tags or reasoning.

Seven small heuristics, one module each, are tried in order of confidence and the
first that proposes a change wins; when none applies, the prediction is "no change":
``complete-word``, ``carry-rename``, ``mirror-addition``, ``pass-new-parameter``,
``pass-new-keyword``, ``await-async-call``, ``add-import``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..._settings import Settings
from ...judge import Prediction
from ...scene import PredictionRequest
from .. import Completion
from ._add_import import add_import
from ._await_async_call import await_async_call
from ._carry_rename import carry_rename
from ._complete_word import complete_word
from ._context import Context
from ._edits import Result, apply_result
from ._mirror_addition import mirror_addition
from ._pass_new_keyword import pass_new_keyword
from ._pass_new_parameter import pass_new_parameter

__all__ = ["HEURISTICS", "Heuristic", "baseline", "make_baseline"]

MODEL = "baseline"

Heuristic = Callable[[Context], Result | None]

#: In order of confidence: the first that proposes a change wins.
HEURISTICS: tuple[tuple[str, Heuristic], ...] = (
    ("complete-word", complete_word),
    ("carry-rename", carry_rename),
    ("mirror-addition", mirror_addition),
    ("pass-new-parameter", pass_new_parameter),
    ("pass-new-keyword", pass_new_keyword),
    ("await-async-call", await_async_call),
    ("add-import", add_import),
)


def baseline(request: PredictionRequest) -> Prediction:
    """The first heuristic's change, as the new cursor-file text; else no change.
    ``extra["heuristic"]`` names the heuristic that answered (None for none)."""
    if request.cursor.path not in request.buffers:
        return Prediction.no_change(model=MODEL)
    ctx = Context(request)
    for name, heuristic in HEURISTICS:
        result = heuristic(ctx)
        if result is None:
            continue
        text, cursor = apply_result(ctx.text, result)
        if text != ctx.text:
            return Prediction(text=text, cursor=cursor, model=MODEL, extra={"heuristic": name})
    return Prediction.no_change(model=MODEL, extra={"heuristic": None})


def make_baseline(settings: Settings) -> Completion:
    """The registry's factory: the baseline has nothing to configure, so every
    ``settings`` give the same completion function."""
    return baseline
