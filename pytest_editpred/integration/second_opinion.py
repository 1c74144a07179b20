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
(:meth:`SecondOpinion.take_messages`); a prompt too large to build is only the
item's ``qa.error``. Answers that are not Zed's JSON are counted by the reporter.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runner import Prepared

__all__ = ["SecondOpinion", "judge_patch"]


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

    @property
    def label(self) -> str:
        return f"{self.client.name} {self.client.settings.model}"

    async def judge(self, prepared: Prepared) -> Prepared:
        """Ask the judge about ``prepared``'s prediction; its answer goes to
        ``prepared.qa`` (None when there is nothing to judge)."""
        from .._exceptions import EditPredError, JudgePromptError
        from ..qa import judge_prompt, parse_judge_answer
        from ..zeta import build_input

        patch = judge_patch(prepared)
        if patch is None or prepared.prediction_error is not None:
            return prepared
        try:
            prediction = prepared.prediction
            prompt = prediction.extra.get("prompt") if prediction is not None else None
            request = prepared.scene.request(prepared.item.trial)
            text = judge_prompt(
                build_input(request),
                patch,
                prompt=prompt if isinstance(prompt, str) else None,
                template=self.template,
            )
            answer = await self.client.ask(text)
        except JudgePromptError as error:  # this prediction's own problem: its qa.error only
            prepared.qa = {"error": " ".join(error.reason.split())}
            return prepared
        except EditPredError as error:
            message = " ".join(str(error.reason if hasattr(error, "reason") else error).split())
            self._said(f"the judge ({self.label}) gave no answer: {message}")
            prepared.qa = {"error": message}
            return prepared
        prepared.qa = parse_judge_answer(answer.text).to_json()
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
