"""The judge's second opinion on each prediction (``--editpred-qa``).

A prediction that changes something is shown to the judge as Zed's ``ep qa`` shows
it (:func:`pytest_editpred.qa.judge_prompt`: the edit history and the prediction as
word diffs, the current file as the prompt's teacher showed it, else the excerpt),
without the expected patch. The request is made where the prediction was made, in
the prefetcher's task, so the judge's latency overlaps the other items' as the
model's does; the answer is parsed as Zed parses it and kept on the item for its
record (``qa``). It never changes the item's outcome.

Whatever goes wrong with the judge (a prompt that cannot be built, a judge that
refuses, cannot be reached, or is missing from the cache in replay-only mode) is the
item's ``qa.error``, one line; each distinct problem is said once per run at the end
(:meth:`SecondOpinion.take_messages`), and an answer that is not Zed's JSON is
counted there too.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runner import Prepared

__all__ = ["MAX_JUDGED_LINES", "SecondOpinion", "judge_patch"]

#: The most changed lines (``+``/``-`` lines of the predicted patch and the edit
#: history together) the judge is shown. Zed's word diff is Myers' on tokens, O((N+M)·D)
#: in pure Python here: a few changed lines cost milliseconds, but a run of 300 lines
#: rewritten whole costs 11 s (bench/bench_word_diff.py). Past this bound the item's
#: ``qa.error`` says so and no request is made, so no answer of a model can hold a run
#: for minutes.
MAX_JUDGED_LINES = 400


def _changed_lines(diff: str) -> int:
    return sum(1 for line in diff.split("\n") if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def judge_patch(prepared: Prepared) -> str | None:
    """The prediction as the judge sees it: the model's patch as it gave it, or the
    unified diff of the text it gave against the cursor file; None when it changes
    nothing (nothing to judge)."""
    from .._text import normalize_line_endings
    from ..scene import unified_diff

    prediction = prepared.prediction
    if prediction is None:
        return None
    if prediction.patch is not None:
        return prediction.patch if prediction.patch.strip() else None
    if prediction.text is None:
        return None
    path = prepared.scene.cursor.path
    before = prepared.scene.buffers.get(path, "")
    after = normalize_line_endings(prediction.text)
    return unified_diff(path, path, before, after) if after != before else None


@dataclass
class SecondOpinion:
    """One run's judge: its client, its template and what it has to say."""

    client: Any  # providers.JudgeClient
    template: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _problems: dict[str, None] = field(default_factory=dict)
    _told: set[str] = field(default_factory=set)
    unreadable: int = 0

    @property
    def label(self) -> str:
        return f"{self.client.name} {self.client.settings.model}"

    async def judge(self, prepared: Prepared) -> Prepared:
        """Ask the judge about ``prepared``'s prediction; its answer goes to
        ``prepared.qa`` (None when there is nothing to judge)."""
        from .._exceptions import EditPredError
        from ..qa import PARSE_ERROR, judge_prompt, parse_judge_answer
        from ..zeta import build_input

        patch = judge_patch(prepared)
        if patch is None or prepared.prediction_error is not None:
            return prepared
        try:
            prediction = prepared.prediction
            prompt = prediction.extra.get("prompt") if prediction is not None else None
            request = prepared.scene.request(prepared.item.trial)
            inputs = build_input(request)
            changed = _changed_lines(patch) + sum(_changed_lines(event.diff) for event in inputs.events)
            if changed > MAX_JUDGED_LINES:
                prepared.qa = {
                    "error": f"not judged: the prediction and the edit history change {changed} lines, more than "
                    f"the {MAX_JUDGED_LINES} the judge's word diff is given (it grows with the square of a "
                    "rewritten run)"
                }
                return prepared
            text = judge_prompt(
                inputs,
                patch,
                prompt=prompt if isinstance(prompt, str) else None,
                template=self.template,
            )
            answer = await self.client.ask(text)
        except EditPredError as error:
            message = " ".join(str(error.reason if hasattr(error, "reason") else error).split())
            self._said(f"the judge ({self.label}) gave no answer: {message}")
            prepared.qa = {"error": message}
            return prepared
        result = parse_judge_answer(answer.text)
        if result.error == PARSE_ERROR:
            with self._lock:
                self.unreadable += 1
        prepared.qa = result.to_json()
        return prepared

    def _said(self, message: str) -> None:
        with self._lock:
            self._problems.setdefault(message)

    def take_messages(self) -> list[str]:
        """The problems this process has not told yet (each once)."""
        with self._lock:
            new = [m for m in self._problems if m not in self._told]
            self._told.update(new)
        return new
