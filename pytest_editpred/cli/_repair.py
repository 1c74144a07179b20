"""``editpred repair REPORT.jsonl... -o OUT.jsonl --backend NAME``: Zed's ``ep repair``
on a saved run.

The predictions a judge rejected (they revert the user's edits, or its confidence
is at most ``--confidence-threshold``), or, where no judge looked, those whose
scores are flagged (a reversal ratio over 0.9, an edit outside the editable region),
are sent back to a model as the third turn of the teacher's conversation; its answer
is read into the prediction Zed appends (``NO_EDITS``, ``KEEP_PREVIOUS``, a new
region, or a parse error) and written as the record's ``repair``, beside the run's
own prediction, which is kept. ``editpred distill`` then prefers it.

The model's requests go through the run's transport and response cache, as the
judge's do. Exit 0 when every record that needed a repair was asked; 1 when some
could not be (each distinct problem said once, with the records it cost); 2 for a
usage error, a report that cannot be read, or an output that cannot be written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._args import add_run_options, positive_count
from ._console import Console

__all__ = ["register", "run"]

#: Zed's models and answer budget for ``ep repair`` (zed-qa-repair.md §3.1).
MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.2"}
MAX_TOKENS = 16384
SHORT = {"concurrency": "--concurrency", "cache": "--cache"}
TAKEN = ("repo", "cache_dir", "response_cache_dir", "timeout", "retries", "max_example_bytes", "max_response_bytes")

DESCRIPTION = """\
Send the predictions of a saved run (a JSONL report written by --editpred-report)
that need it back to a model, as Zed's 'ep repair' does, and write the records to
OUT with the repaired prediction as 'repair' beside the run's own.

A record needs repair when its judge's verdict (run with --editpred-qa, or
'editpred judge') says it reverts the user's edits or has a confidence of at most
--confidence-threshold; with no verdict, when its scores show a reversal ratio
over 0.9 or an edit outside the editable region. The conversation is the teacher's
prompt and answer the record kept, then the repair message (the prediction as a
word diff, the feedback, the token counts): a run of Zed's teacher prompt
(anthropic, or openai-chat with --editpred-prompt-format teacher). A record that
has a repair with a patch is not asked again (--force asks again).

The answer is read as Zed reads it: KEEP_PREVIOUS anywhere keeps the teacher's
prediction, NO_EDITS is no edit, otherwise the new editable region; one that cannot
be read is written with Zed's 'error' and no patch.

Exit status: 0 when every record that needed a repair was asked; 1 when some could
not be (each problem said once); 2 for a usage error, a report that cannot be read,
or an output that cannot be written."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "repair",
        help="send a saved run's rejected predictions back to a model (Zed's ep repair) and write the repairs",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("reports", metavar="REPORT", nargs="+", type=Path, help="a JSONL report of a run")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", required=True, help="the .jsonl file to write")
    parser.add_argument(
        "--backend",
        default="anthropic",
        choices=("anthropic", "openai", "openai-chat"),
        help="the model's API: anthropic (default, Zed's), openai (Zed's: max_completion_tokens), "
        "openai-chat (max_tokens: llama.cpp, vLLM, Ollama)",
    )
    parser.add_argument("--model", help="the model (default: Zed's, claude-sonnet-4-6 or gpt-5.2)")
    parser.add_argument("--base-url", help="the model's server (default: ini editpred_base_url)")
    parser.add_argument("--api-key-env", help="the environment variable holding its API key (default: the run's)")
    parser.add_argument(
        "--max-tokens", type=positive_count, default=MAX_TOKENS, help=f"the answer budget (Zed: {MAX_TOKENS})"
    )
    parser.add_argument("--template", type=Path, help="the repair template (Zed's repair.md gives Zed's message)")
    parser.add_argument(
        "--confidence-threshold",
        type=_threshold,
        default=2,
        metavar="N",
        help="repair a judged prediction whose confidence is at most N (default 2, Zed's)",
    )
    parser.add_argument("--force", action="store_true", help="ask again about records repaired already")
    parser.add_argument("--overwrite", action="store_true", help="write over an output file that exists")
    add_run_options(parser, TAKEN, SHORT)
    parser.set_defaults(run=run)


def _threshold(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 255:
        raise argparse.ArgumentTypeError(f"invalid threshold '{text}': give a confidence from 0 to 255 (Zed's: 2)")
    return value


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import EditPredError
    from ..qa import parse_repair_answer
    from ._judging import ask_all
    from ._records import jsonl_refusal, read_reports, write_records
    from ._repairing import PROBLEMS, REASONS, plan

    out: Path = args.output
    refused = jsonl_refusal(out, args.overwrite)
    if refused is not None:
        console.problem(str(out), *refused)
        return 2
    reports = read_reports(args.reports, console)
    if reports is None:
        return 2
    try:
        client, template, scenes, limit = _model(args, reports)
    except EditPredError as error:
        console.problem(error.path or "editpred repair", error.reason, error.fix or None, line=error.line)
        return 2
    total = sum(len(records) for _, records in reports)
    told: dict[tuple[str, str], list[str]] = {}
    fixes: dict[tuple[str, str], str] = {}

    def problem(reason: str, where: str, message: str, fix: str) -> None:
        told.setdefault((reason, message), []).append(where)
        fixes[(reason, message)] = fix

    try:
        tasks, done = plan(
            reports,
            force=args.force,
            threshold=args.confidence_threshold,
            template=template,
            scene_of=scenes.scene,
            max_example_bytes=limit,
            problem=problem,
            progress=lambda n: console.progress(n, total, "reading"),
        )
    finally:
        scenes.close()
    failures = ask_all(
        client,
        tasks,
        client.settings.concurrency,
        done,
        lambda n: console.progress(n, len(tasks), "repairing"),
        lost="model gave no answer",
    )
    for message, lost in failures.items():
        key = ("model gave no answer", f"the model ({client.name} {client.settings.model}) gave no answer: {message}")
        told[key] = [f"{task.report}: record {_name(reports, task.file, task.index)}" for task in lost]
        fixes[key] = (
            "Check the model's server, name and key (--base-url, --model, --api-key-env), or its cache (--cache), "
            "and run again: the records repaired are kept."
        )
    for (reason, message), places in told.items():
        others = f" and {len(places) - 1} other record{'s' * (len(places) > 2)}" if len(places) > 1 else ""
        console.problem(places[0] + others, message, fixes[(reason, message)])
    repaired = unparsed = 0
    by_place = {(task.file, task.index): task for task in tasks}

    def with_repair(file: int, index: int, record: dict[str, Any]) -> dict[str, Any]:
        nonlocal repaired, unparsed
        answer = done.answers.get((file, index))
        if answer is None:
            return record
        task = by_place[(file, index)]
        prediction = parse_repair_answer(answer, task.previous, task.input, task.teacher_prompt)
        repaired += prediction.actual_patch is not None
        unparsed += prediction.actual_patch is None
        return _placed(record, prediction.to_json())

    try:
        write_records(out, reports, with_repair)
    except OSError as error:
        console.problem(str(out), f"cannot write: {error.strerror or error}", "Give -o a place you can write to.")
        return 2
    if unparsed:
        console.warning(
            str(out),
            f"{unparsed} answer{'s were' if unparsed > 1 else ' was'} not read as a repair "
            "(repair.error; asked again next time)",
        )
    skipped = sum(done.skipped.values())
    reasons = ", ".join(f"{done.skipped[r]} {r}" for r in REASONS if r in done.skipped)
    console.summary(
        f"repair: {len(done.answers)} asked, {repaired} repaired, {unparsed} not parsed; {skipped} skipped"
        + (f" ({reasons})" if reasons else "")
        + f"; {total} record{'s' * (total != 1)} written to {out}"
    )
    return 1 if console.problems or any(reason in PROBLEMS for reason in done.skipped) else 0


def _name(reports: list[tuple[Path, list[dict[str, Any]]]], file: int, index: int) -> str:
    record = reports[file][1][index]
    return str(record.get("nodeid") or record.get("name"))


def _placed(record: dict[str, Any], repair: dict[str, Any]) -> dict[str, Any]:
    """``record`` with ``repair`` where the record type declares it: after ``qa``."""
    placed: dict[str, Any] = {}
    for key, value in record.items():
        if key != "repair":
            placed[key] = value
        if key == "qa":
            placed["repair"] = repair
    placed.setdefault("repair", repair)
    return placed


def _model(args: argparse.Namespace, reports: list[tuple[Path, list[dict[str, Any]]]]) -> tuple[Any, Any, Any, int]:
    """The model's client, the repair template's text (None: ours), the scene
    builder and the example size limit, from the options and the run's settings."""
    from dataclasses import replace

    from .._exceptions import ConfigError
    from .._options import limits_from, repo_cache_dir, repo_mappings, settings_from
    from ..corpus import SceneBuilder
    from ..providers import JudgeClient
    from ..qa import load_repair_template
    from ._records import example_path
    from ._run_options import run_options

    examples = {example_path(record, report) for report, records in reports for record in records}
    present = [path for path in examples if path.exists()] or [path for path, _ in reports]
    source, root = run_options(present, args)
    settings = settings_from(source, lambda: root / ".pytest_cache" / "d" / "editpred-responses")
    model = args.model or MODELS.get(args.backend)
    if not model:
        raise ConfigError(f"the backend {args.backend!r} needs a model name", fix="Give --model, the model to ask.")
    base_url = args.base_url or settings.base_url
    if not base_url:
        raise ConfigError(
            "no server named for the model",
            fix="Give --base-url (e.g. https://api.anthropic.com, or a local server), or ini editpred_base_url.",
        )
    repairer = replace(
        settings,
        provider=args.backend,
        model=model,
        base_url=base_url,
        api_key_env=args.api_key_env or settings.api_key_env,
        max_tokens=args.max_tokens,
        stop=(),
        extra_body={},
        replay_path=None,
    )
    client = JudgeClient(repairer, args.backend)
    template = load_repair_template(args.template) if args.template is not None else None
    scenes = SceneBuilder(repo_cache_dir(source), repo_mappings(source), command="editpred repair")
    return client, template, scenes, limits_from(source).max_example_bytes
