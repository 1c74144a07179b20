"""The work of ``editpred repair``: which records of a saved run are sent back to a
model, each one's three-turn conversation, and the answers read into Zed's repair
prediction (zed-qa-repair.md §3.3).

A record is repaired as ``ep repair`` repairs an example: not when it has a repair
already (§3.3 step 1) or needs none (§3.2: the judge's verdict, else the scores);
then its teacher prediction is derived again from the prompt and answer the record
kept (Zed's parse-output: the run's patch is not trusted to be in the teacher's
frame), and the conversation is the teacher's prompt, its answer and the repair
message. Every record is accounted for: asked, or left with a named reason
(:data:`REASONS`); the reasons from ``example file gone`` on are problems.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._judging import Judged, Task

__all__ = ["PROBLEMS", "REASONS", "RepairTask", "plan", "teacher_prompt_text"]

#: Why a record is written without a new repair. The first three are no problem.
REASONS = (
    "already repaired",
    "not needed",
    "no prediction",
    "example file gone",
    "example not in its file",
    "scene not rebuilt",
    "no teacher prompt",
    "teacher answer empty",
    "not a teacher prediction",
    "message not built",
    "model gave no answer",
)
#: The reasons that make the command's exit status 1.
PROBLEMS = frozenset(REASONS[3:])


@dataclass
class RepairTask(Task):
    """A record to repair, with what reading the answer needs: the teacher
    prediction it repairs (``KEEP_PREVIOUS`` keeps it), the prompt's inputs and
    the teacher prompt the new region is found against."""

    previous: Any = None  # qa.ExamplePrediction
    input: Any = None  # zeta.ZetaInput
    teacher_prompt: str = ""


def teacher_prompt_text(prompt: object) -> str | None:
    """The teacher prompt a record kept, as the one text Zed repeats: the prompt
    itself, or the content of its one user message (plain, or Anthropic's text
    blocks); None for any other shape (a FIM prompt, a conversation)."""
    if isinstance(prompt, str):
        return prompt
    if not (isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], Mapping)):
        return None
    message = prompt[0]
    content = message.get("content")
    if message.get("role") != "user":
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, Mapping) and b.get("type") == "text" for b in content):
        texts = [block.get("text") for block in content]
        return "".join(t for t in texts if isinstance(t, str)) if all(isinstance(t, str) for t in texts) else None
    return None


def _repaired(record: Mapping[str, Any]) -> bool:
    """§3.3 step 1: a repair with a patch (``""`` counts) is done."""
    repair = record.get("repair")
    return isinstance(repair, Mapping) and isinstance(repair.get("actual_patch"), str)


def plan(
    reports: Sequence[tuple[Path, list[dict[str, Any]]]],
    *,
    force: bool,
    threshold: int,
    template: str | None,
    scene_of: Callable[[Any], Any],
    max_example_bytes: int,
    problem: Callable[[str, str, str, str], None],
    progress: Callable[[int], None],
) -> tuple[list[RepairTask], Judged]:
    """The records to repair, with their conversations, and those left (counted in
    the returned :class:`Judged`; each problem told through ``problem(reason, where,
    message, fix)``). ``scene_of`` builds an example's scene."""
    from .._clip import RECORDED_CHARS
    from .._exceptions import EditPredError
    from ..qa import (
        DEFAULT_REPAIR_TEMPLATE,
        QaResult,
        needs_repair,
        repair_conversation,
        repair_message,
        teacher_prediction,
    )
    from ..zeta import build_input
    from ._records import Found, RecordExamples

    judged = Judged()
    tasks: list[RepairTask] = []
    examples = RecordExamples(scene_of, max_example_bytes)
    seen = 0

    def left(reason: str, where: str, message: str, fix: str) -> None:
        judged.skip(reason)
        problem(reason, where, message, fix)

    for file, (report, records) in enumerate(reports):
        for index, record in enumerate(records):
            seen += 1
            progress(seen)
            where = f"{report}: record {record.get('nodeid') or record.get('name')!s}"
            if _repaired(record) and not force:
                judged.skip("already repaired")
                continue
            metrics = record.get("metrics") if isinstance(record.get("metrics"), Mapping) else None
            qa = QaResult.from_json(record.get("qa"))  # read_records checked it
            if not needs_repair(qa, metrics, threshold=threshold):
                judged.skip("not needed")
                continue
            if record.get("predicted_patch") is None and record.get("predicted_text") is None:
                judged.skip("no prediction")
                continue
            prompt = teacher_prompt_text(record.get("prompt"))
            if prompt is None or len(prompt) > RECORDED_CHARS:
                why = "keeps no teacher prompt" if prompt is None else "kept its prompt clipped"
                left("no teacher prompt", where, f"its record {why} to repeat to the model",
                     "Repair a run of Zed's teacher prompt (anthropic, or openai-chat with "
                     "--editpred-prompt-format teacher): its records keep the prompt.")  # fmt: skip
                continue
            output = record.get("raw_output")
            if not isinstance(output, str) or not output or len(output) > RECORDED_CHARS:
                left("teacher answer empty", where, "its record keeps no whole answer of the teacher to repeat",
                     "Repair a run whose records keep the model's raw answer.")  # fmt: skip
                continue
            example = examples.example(record, report)
            scene = examples.scene(record, report, example)
            if isinstance(scene, Found):
                left(scene.reason, where, scene.message, scene.fix)
                continue
            trial = record.get("trial")
            try:
                input = build_input(scene.request(trial if isinstance(trial, int) and trial > 0 else 1))
                previous = teacher_prediction(input, prompt, output)
            except EditPredError as error:
                left("not a teacher prediction", where, f"its answer is not read as a teacher's: {error.reason}",
                     "Repair a run of Zed's teacher prompt (--editpred-prompt-format teacher).")  # fmt: skip
                continue
            try:
                message = repair_message(
                    previous.actual_patch or "", qa, metrics, template=template or DEFAULT_REPAIR_TEMPLATE
                )
                conversation = repair_conversation(prompt, output, message)
            except EditPredError as error:
                left("message not built", where, f"no repair message: {error.reason}", error.fix)
                continue
            tasks.append(RepairTask(report, file, index, conversation, previous, input, prompt))
    return tasks, judged
