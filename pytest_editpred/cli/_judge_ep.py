"""``editpred judge`` on ep JSON: Zed's ``ep qa`` on the examples Zed's own pipeline
wrote (``ep predict``'s output: ``prompt_inputs``, ``prompt``, ``predictions``), the
``qa`` list written back in Zed's place and field names (zed-qa-repair.md §2.2, §2.9).

A file is ep JSON when its first line is a JSON object that is not a record of a run
(no ``nodeid``). Each example's first prediction is judged, as ``ep qa`` judges it,
unless its ``qa[0]`` has a confidence (``--force`` asks again); the prompt is
:func:`pytest_editpred.qa.ep_judge_prompt`'s. Every line is written back in order,
the judged ones with ``qa`` set (the verdict first, ``null`` for every later
prediction), the others as they were.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._console import Console

__all__ = ["is_ep_file", "run_ep"]

#: The first line read to tell an ep file from a run's report.
_PEEK_BYTES = 1 << 20


def is_ep_file(path: Path) -> bool:
    """Whether ``path`` holds ep JSON examples rather than a run's records: its first
    non-empty line (read up to 1 MiB) is a JSON object without ``nodeid``. Anything
    that cannot be read so (a FIFO, a folder, no file) is left to the report reader,
    which names the problem."""
    from .._files import open_regular
    from .._safe_json import loads_bounded

    try:
        with open_regular(path) as file:
            for line in iter(lambda: file.readline(_PEEK_BYTES), b""):
                if line.strip():
                    value = loads_bounded(line)
                    return isinstance(value, dict) and "nodeid" not in value
    except (OSError, ValueError):
        return False
    return False


def _examples(path: Path, limit: int) -> list[tuple[int, dict[str, Any]]]:
    """Every line of the ep JSONL file ``path`` as a JSON object, with its line
    number (blank lines dropped); :class:`ConfigError` naming the line for one that
    is not, or is over ``limit`` bytes, or for a file that cannot be read."""
    from .._exceptions import ConfigError
    from .._files import open_regular
    from .._safe_json import loads_bounded

    examples: list[tuple[int, dict[str, Any]]] = []
    try:
        with open_regular(path) as file:
            for number, line in enumerate(iter(lambda: file.readline(limit + 1), b""), 1):
                if len(line) > limit:
                    raise ConfigError(
                        f"line {number} is over {limit:,} bytes",
                        fix="Raise --editpred-max-example-bytes.",
                        path=str(path),
                        line=number,
                    )
                if not line.strip():
                    continue
                try:
                    value = loads_bounded(line)
                except ValueError:
                    value = None
                if not isinstance(value, dict):
                    raise ConfigError(
                        f"line {number} is not an ep JSON example object",
                        fix="Give JSONL files of ep examples (one JSON object a line), or a run's JSONL report.",
                        path=str(path),
                        line=number,
                    )
                examples.append((number, value))
    except OSError as error:
        raise ConfigError(
            f"cannot read: {error.strerror or error}", fix="Give a readable ep JSONL file.", path=str(path)
        ) from None
    return examples


def _done(example: Mapping[str, Any]) -> bool:
    """§2.2 step 1: ``qa[0]`` with a confidence."""
    qa = example.get("qa")
    first = qa[0] if isinstance(qa, list) and qa else None
    return isinstance(first, Mapping) and first.get("confidence") is not None


def run_ep(
    args: argparse.Namespace, console: Console, paths: list[Path], client: Any, template: str | None, limit: int
) -> int:
    """The command on the ep files ``paths``: exit status as for reports."""
    import os

    from .._exceptions import EditPredError
    from ..qa import PARSE_ERROR, ep_judge_prompt, parse_judge_answer
    from ..reports import with_ep_qa
    from ._judging import Judged, Task, ask_all, finish

    files: list[tuple[Path, list[tuple[int, dict[str, Any]]]]] = []
    for path in paths:
        try:
            files.append((path, _examples(path, limit)))
        except EditPredError as error:
            console.problem(error.path or str(path), error.reason, error.fix or None, line=error.line)
            return 2
    judged = Judged()
    tasks: list[Task] = []
    for file, (path, examples) in enumerate(files):
        for index, (line, example) in enumerate(examples):
            if _done(example) and not args.force:
                judged.skip("already judged")
                continue
            if not example.get("predictions"):
                judged.skip("no prediction")
                continue
            try:
                prompt = ep_judge_prompt(example, template=template, path=str(path), line=line)
            except EditPredError as error:
                judged.skip("prompt not built")
                console.problem(str(path), f"no judge prompt: {error.reason}", error.fix or None, line=line)
                continue
            tasks.append(Task(path, file, index, prompt))
    failures = ask_all(
        client, tasks, client.settings.concurrency, judged, lambda n: console.progress(n, len(tasks), "judging")
    )
    for message, lost in failures.items():
        others = f" and {len(lost) - 1} other example{'s' * (len(lost) > 2)}" if len(lost) > 1 else ""
        first = lost[0]
        console.problem(
            f"{first.report}:{files[first.file][1][first.index][0]}: example{others}",
            f"the judge ({client.name} {client.settings.model}) gave no answer: {message}",
            "Check the judge's server, model and key (--judge-base-url, --judge-model, --judge-api-key-env), "
            "or its cache (--cache), and run again: the examples judged are kept.",
        )
    acceptable = unreadable = 0
    out: Path = args.output
    part = out.with_name(f".{out.name}.{os.getpid()}.part")
    try:
        with part.open("w", encoding="utf-8") as sink:
            for file, (_, examples) in enumerate(files):
                for index, (_, example) in enumerate(examples):
                    text = judged.answers.get((file, index))
                    if text is not None:
                        result = parse_judge_answer(text)
                        acceptable += result.acceptable is True
                        unreadable += result.error == PARSE_ERROR
                        rest = [None] * (len(example["predictions"]) - 1)
                        example = with_ep_qa(example, [result.to_json(), *rest])
                    # As serde_json writes it: compact, non-ASCII as it is.
                    sink.write(json.dumps(example, ensure_ascii=False, separators=(",", ":")) + "\n")
        os.replace(part, out)
    except OSError as error:
        part.unlink(missing_ok=True)
        console.problem(str(out), f"cannot write: {error.strerror or error}", "Give -o a place you can write to.")
        return 2
    total = sum(len(examples) for _, examples in files)
    return finish(console, out, judged, acceptable, unreadable, total, "example")
