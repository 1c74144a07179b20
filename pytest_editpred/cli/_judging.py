"""The work of ``editpred judge``: which records of a saved run the judge is asked
about, each one's prompt from its example's rebuilt scene, and the answers.

A record is judged as the run's ``--editpred-judge`` would have judged it
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
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PROBLEMS", "REASONS", "Judged", "Task", "ask_all", "example_path", "plan"]

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
    """One record to judge: where it is (report file, index in it), its prompt."""

    report: Path
    index: int
    prompt: str


@dataclass
class Judged:
    """The outcome of one command run: verdicts by record, and what was left."""

    answers: dict[tuple[Path, int], str] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _done(record: Mapping[str, Any]) -> bool:
    """§2.2 step 1: a verdict with a confidence; a parse error does not count."""
    qa = record.get("qa")
    return isinstance(qa, Mapping) and qa.get("confidence") is not None


def example_path(record: Mapping[str, Any], report: Path) -> Path:
    """The example file: as the record names it (a run writes it absolute), else
    relative to the report's folder."""
    path = Path(str(record.get("path") or ""))
    return path if path.is_absolute() else report.parent / path


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
    from ..corpus import named_examples

    judged = Judged()
    tasks: list[Task] = []
    files: dict[Path, dict[str, Any] | EditPredError] = {}
    scenes: dict[tuple[Path, str], Any] = {}
    seen = 0
    for report, records in reports:
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
            if patch is not None and not patch.strip():
                judged.skip("changes nothing")
                continue
            path = example_path(record, report)
            key = path.resolve() if path.exists() else path
            if key not in files:
                try:
                    files[key] = _examples_of(key, max_example_bytes, named_examples)
                except EditPredError as error:
                    files[key] = error
            examples = files[key]
            if isinstance(examples, EditPredError):
                judged.skip("example file gone")
                problem(where, f"its example {path} cannot be read: {examples.reason}", examples.fix)
                continue
            name = str(record.get("name") or "")
            example = examples.get(name)
            if example is None:
                judged.skip("example not in its file")
                problem(
                    where,
                    f"its example file {path} has no example named {name!r}",
                    "Judge the report of a run of the example files as they are now, or run them again.",
                )
                continue
            try:
                if (key, name) not in scenes:
                    scenes[(key, name)] = scene_of(example)
                scene = scenes[(key, name)]
            except EditPredError as error:
                judged.skip("scene not rebuilt")
                problem(where, f"its example {path}: {error.reason}", error.fix)
                continue
            try:
                prompt = _prompt(record, scene, patch, text, template)
            except EditPredError as error:
                judged.skip("prompt not built")
                problem(where, f"no judge prompt: {error.reason}", error.fix)
                continue
            if prompt is None:
                judged.skip("changes nothing")
                continue
            tasks.append(Task(report, index, prompt))
    return tasks, judged


def _examples_of(path: Path, max_bytes: int, named_examples: Any) -> dict[str, Any]:
    """The readable examples of ``path`` by the name a run gives them; an
    :class:`ExampleError` for a file that is gone or cannot be read."""
    from .._exceptions import ExampleError

    if not path.is_file() or not os.access(path, os.R_OK):
        raise ExampleError(
            "no such file" if not path.exists() else "not a readable file",
            fix="Run the judge where the run ran (the records name the example files), or restore the file.",
        )
    return {named.run_name: named.example for named in named_examples(path, max_bytes) if named.error is None}


def _prompt(record: Mapping[str, Any], scene: Any, patch: str | None, text: str | None, template: str | None) -> Any:
    """The judge's prompt for the record's prediction, as the run builds it; None
    when the prediction's whole file equals the cursor file (nothing to judge)."""
    from .._text import normalize_line_endings
    from ..qa import judge_prompt
    from ..scene import unified_diff
    from ..zeta import build_input

    if patch is None:
        path = scene.cursor.path
        before = scene.buffers.get(path, "")
        after = normalize_line_endings(str(text))
        if after == before:
            return None
        patch = unified_diff(path, path, before, after)
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
) -> dict[str, list[Task]]:
    """Ask the judge about every task, ``concurrency`` at a time; the answers go
    to ``judged.answers``. Returns the judge's problems: each distinct message with
    the tasks it cost (counted as ``judge gave no answer``)."""
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
                    judged.skip("judge gave no answer")
                else:
                    judged.answers[(task.report, task.index)] = answer.text
                done += 1
                progress(done)

        try:
            await asyncio.gather(*(one(task) for task in tasks))
        finally:
            await client.aclose()

    asyncio.run(main())
    return failures
