"""The work of ``editpred judge``: which records of a saved run the judge is asked
about, each one's prompt from its example's rebuilt scene, and the answers.

A record is judged as the run's ``--editpred-qa`` would have judged it
(``integration/second_opinion.py``): the prediction as the model gave it (its patch,
or the diff of its whole file against the cursor file), the scene rebuilt from the
example file the record names, the teacher prompt the record kept (when it is one
text) for the current file. Zed's skip rule (zed-qa-repair.md §2.2 step 1) comes
first: a record whose ``qa`` has a confidence is done, unless ``force``.

Every record is accounted for: judged, or left as it was with a named reason
(:data:`REASONS`). Reasons that are a problem (the record could have been judged but
was not) are told once per record, or once per distinct judge problem with the
records it cost; the others (nothing to judge) are only counted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PROBLEMS", "REASONS", "Judged", "Task", "ask_all", "finish", "plan"]

#: Why a record is written without a new verdict. The first three are no problem.
REASONS = (
    "already judged",
    "no prediction",
    "changes nothing",
    "example file gone",
    "example not in its file",
    "scene not rebuilt",
    "prompt not built",
    "judge gave no answer",
)
#: The reasons that make the command's exit status 1.
PROBLEMS = frozenset(REASONS[3:])


@dataclass
class Task:
    """One record to ask about: where it is (the report, its place among the reports
    given, the record's index in it), its prompt (one message, or the turns of a
    conversation: ``editpred repair``'s)."""

    report: Path
    file: int
    index: int
    prompt: str | list[dict[str, str]]


@dataclass
class Judged:
    """The outcome of one command run: verdicts by record, and what was left."""

    answers: dict[tuple[int, int], str] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _done(record: Mapping[str, Any]) -> bool:
    """§2.2 step 1: a verdict with a confidence; a parse error does not count."""
    qa = record.get("qa")
    return isinstance(qa, Mapping) and qa.get("confidence") is not None


def plan(
    reports: Sequence[tuple[Path, list[dict[str, Any]]]],
    *,
    force: bool,
    template: str | None,
    scene_of: Callable[[Any], Any],
    max_example_bytes: int,
    problem: Callable[[str, str, str], None],
    progress: Callable[[int], None],
) -> tuple[list[Task], Judged]:
    """The records to ask about, with their prompts, and those left (counted in the
    returned :class:`Judged`; each problem told through ``problem(where, message,
    fix)``). ``scene_of`` builds an example's scene (:class:`~..corpus.SceneBuilder`)."""
    from .._exceptions import EditPredError
    from ._records import Found, RecordExamples, predicted_patch

    judged = Judged()
    tasks: list[Task] = []
    examples = RecordExamples(scene_of, max_example_bytes)
    seen = 0
    for file, (report, records) in enumerate(reports):
        for index, record in enumerate(records):
            seen += 1
            progress(seen)
            where = f"{report}: record {record.get('nodeid') or record.get('name')!s}"
            if _done(record) and not force:
                judged.skip("already judged")
                continue
            patch, text = record.get("predicted_patch"), record.get("predicted_text")
            if patch is None and text is None:
                judged.skip("no prediction")
                continue
            if patch is not None and not str(patch).strip():
                judged.skip("changes nothing")
                continue
            example = examples.example(record, report)
            scene = examples.scene(record, report, example)
            if isinstance(scene, Found):
                judged.skip(scene.reason)
                problem(where, scene.message, scene.fix)
                continue
            patch = predicted_patch(record, scene)
            if patch is None:
                judged.skip("changes nothing")
                continue
            try:
                prompt = _prompt(record, scene, patch, template)
            except EditPredError as error:
                judged.skip("prompt not built")
                problem(where, f"no judge prompt: {error.reason}", error.fix)
                continue
            tasks.append(Task(report, file, index, prompt))
    return tasks, judged


def _prompt(record: Mapping[str, Any], scene: Any, patch: str, template: str | None) -> str:
    """The judge's prompt for the record's prediction, as the run builds it."""
    from ..qa import judge_prompt
    from ..zeta import build_input

    trial = record.get("trial")
    kept = record.get("prompt")
    return judge_prompt(
        build_input(scene.request(trial if isinstance(trial, int) and trial > 0 else 1)),
        patch,
        prompt=kept if isinstance(kept, str) else None,
        template=template,
    )


def ask_all(
    client: Any,
    tasks: Sequence[Task],
    concurrency: int,
    judged: Judged,
    progress: Callable[[int], None],
    lost: str = "judge gave no answer",
) -> dict[str, list[Task]]:
    """Ask the model about every task, ``concurrency`` at a time; the answers go
    to ``judged.answers``. Returns the model's problems: each distinct message with
    the tasks it cost (each counted under the reason ``lost``)."""
    from .._exceptions import EditPredError

    failures: dict[str, list[Task]] = {}

    async def main() -> None:
        gate = asyncio.Semaphore(concurrency)
        done = 0

        async def one(task: Task) -> None:
            nonlocal done
            async with gate:
                try:
                    answer = await client.ask(task.prompt)
                except EditPredError as error:
                    failures.setdefault(" ".join(str(error.reason).split()), []).append(task)
                    judged.skip(lost)
                else:
                    judged.answers[(task.file, task.index)] = answer.text
                done += 1
                progress(done)

        try:
            await asyncio.gather(*(one(task) for task in tasks))
        finally:
            await client.aclose()

    asyncio.run(main())
    # In the order the records come, not the order the answers did: the first one named.
    return {message: sorted(lost, key=lambda task: (task.file, task.index)) for message, lost in failures.items()}


def finish(console: Any, out: Path, judged: Judged, acceptable: int, unreadable: int, total: int, noun: str) -> int:
    """The command's last lines (the unreadable answers, the summary) and its exit
    status: 1 when a problem was said or a record was left for a reason that is one."""
    if unreadable:
        console.warning(
            str(out),
            f"{unreadable} answer{'s were' if unreadable > 1 else ' was'} not the judge's JSON "
            "(qa.error; asked again next time)",
        )
    skipped = sum(judged.skipped.values())
    reasons = ", ".join(f"{n} {reason}" for reason, n in judged.skipped.items())
    console.summary(
        f"judge: {len(judged.answers)} judged, {skipped} skipped" + (f" ({reasons})" if reasons else "")
        + f", {acceptable} acceptable; {total} {noun}{'s' * (total != 1)} written to {out}"
    )  # fmt: skip
    return 1 if console.problems or any(reason in PROBLEMS for reason in judged.skipped) else 0
