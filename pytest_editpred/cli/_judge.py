"""``editpred judge REPORT.jsonl... -o OUT.jsonl --judge NAME --judge-model M``: Zed's
``ep qa`` on a saved run.

The run's ``--editpred-qa`` asks the judge while it predicts; this asks it
afterwards, about the predictions a JSONL report kept, and makes no new prediction.
Each record is judged as the run would have judged it (:mod:`._judging`); every
record is written to OUT, in order, with its new ``qa`` or, when it was not judged,
the ``qa`` it had. The judge's options are the run's, with the same names in the
ini file (``editpred_qa``, ``editpred_qa_model``, ...), and its requests go
through the run's transport and response cache, so a replay-only run
(``--cache replay-only``) reads the answers a run cached and needs no judge server.
Given ep JSON examples instead of reports, it is ``ep qa`` on them (:mod:`._judge_ep`).

Exit 0 when every record that could be judged was; 1 when some could not be (each
said in one line: the record, what is wrong, the fix); 2 for a usage error, a report
that cannot be read, or an output that cannot be written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._args import add_run_options
from ._console import Console

__all__ = ["register", "run"]

#: The run's options, each also taken by a short name (``--judge`` for
#: ``--editpred-qa``, the run's name of the judge) and, like a run, from the ini file.
SHORT = {
    "qa": "--judge",
    "qa_model": "--judge-model",
    "qa_base_url": "--judge-base-url",
    "qa_api_key_env": "--judge-api-key-env",
    "qa_template": "--judge-template",
    "qa_max_tokens": "--judge-max-tokens",
    "concurrency": "--concurrency",
    "cache": "--cache",
}
#: The run's options taken by their pytest names only: where the examples'
#: repositories and the responses are, and the transport's limits.
TAKEN = ("repo", "cache_dir", "response_cache_dir", "timeout", "retries", "max_example_bytes", "max_response_bytes")

DESCRIPTION = """\
Ask a judge model about the predictions of a saved run (a JSONL report written by
--editpred-report), as Zed's 'ep qa' does and as the run's --editpred-qa would
have, and write the records to OUT with 'qa' filled. No prediction is made.

A record is judged when its prediction changes something and its 'qa' has no
confidence yet (Zed's rule: a verdict that could not be read is asked again; --force
asks about every record). Its example's scene is rebuilt from the example file the
record names, from the repository cache or a mapping (nothing is fetched). Every
record is written, in order; one that is not judged keeps its 'qa', and the summary
counts it under its reason.

Settings come from the ini file pytest would use for the examples (editpred_qa,
editpred_qa_model, editpred_qa_base_url, editpred_qa_api_key_env,
editpred_qa_template, editpred_qa_max_tokens, editpred_repos,
editpred_response_cache_dir, ...), overridden by the options. The response cache is
the run's (default: pytest's cache folder under the rootdir), so --cache
replay-only judges from a run's cached answers without a server.

Given ep JSONL files instead (examples Zed's pipeline wrote, with prompt_inputs
and predictions), it is Zed's 'ep qa' on them: each example's first prediction is
judged unless its qa[0] has a confidence, and every example is written back with
Zed's qa list (the verdict, then null for each later prediction).

Exit status: 0 when every record that could be judged was; 1 when some could not be
(each said in one line); 2 for a usage error, a report that cannot be read, or an
output that cannot be written."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "judge",
        help="ask a judge model about a saved run's predictions (Zed's ep qa) and write the records with qa",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "reports", metavar="REPORT", nargs="+", type=Path, help="a JSONL report of a run, or ep JSONL examples"
    )
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", required=True, help="the .jsonl file to write")
    parser.add_argument("--force", action="store_true", help="ask about records judged already too")
    parser.add_argument("--overwrite", action="store_true", help="write over an output file that exists")
    add_run_options(parser, TAKEN, SHORT)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import EditPredError
    from ..qa import PARSE_ERROR, parse_judge_answer
    from ._judge_ep import is_ep_file, run_ep
    from ._judging import ask_all, finish, plan
    from ._records import jsonl_refusal, read_reports, write_records

    out: Path = args.output
    refused = jsonl_refusal(out, args.overwrite)
    if refused is not None:
        console.problem(str(out), *refused)
        return 2
    ep = [path for path in args.reports if is_ep_file(path)]
    if ep:  # Zed's ep qa on ep JSON examples
        if len(ep) != len(args.reports):
            console.problem(
                str(next(path for path in args.reports if path not in ep)),
                f"is a run's report, and {ep[0]} holds ep JSON examples",
                "Judge reports and ep JSON files in separate commands.",
            )
            return 2
        try:
            (client, template), scenes, limit = _judge(args, [(path, []) for path in ep])
            scenes.close()
        except EditPredError as error:
            console.problem(error.path or "editpred judge", error.reason, error.fix or None, line=error.line)
            return 2
        return run_ep(args, console, ep, client, template, limit)
    reports = read_reports(args.reports, console)
    if reports is None:
        return 2
    try:
        judge, scenes, limit = _judge(args, reports)
    except EditPredError as error:
        console.problem(error.path or "editpred judge", error.reason, error.fix or None, line=error.line)
        return 2
    client, template = judge
    total = sum(len(records) for _, records in reports)
    try:
        tasks, judged = plan(
            reports,
            force=args.force,
            template=template,
            scene_of=scenes.scene,
            max_example_bytes=limit,
            problem=console.problem,
            progress=lambda n: console.progress(n, total, "reading"),
        )
    finally:
        scenes.close()
    failures = ask_all(
        client,
        tasks,
        client.settings.concurrency,
        judged,
        lambda n: console.progress(n, len(tasks), "judging"),
    )
    for message, lost in failures.items():
        first = lost[0]
        others = f" and {len(lost) - 1} other record{'s' * (len(lost) > 2)}" if len(lost) > 1 else ""
        record = reports[first.file][1][first.index]
        console.problem(
            f"{first.report}: record {record.get('nodeid') or record.get('name')}{others}",
            f"the judge ({client.name} {client.settings.model}) gave no answer: {message}",
            "Check the judge's server, model and key (--judge-base-url, --judge-model, --judge-api-key-env), "
            "or its cache (--cache), and run again: the records judged are kept.",
        )
    acceptable = unreadable = 0

    def with_verdict(file: int, index: int, record: dict[str, Any]) -> dict[str, Any]:
        nonlocal acceptable, unreadable
        text = judged.answers.get((file, index))
        if text is not None:
            result = parse_judge_answer(text)
            acceptable += result.acceptable is True
            unreadable += result.error == PARSE_ERROR
            record["qa"] = result.to_json()
        return record

    try:
        write_records(out, reports, with_verdict)
    except OSError as error:
        console.problem(str(out), f"cannot write: {error.strerror or error}", "Give -o a place you can write to.")
        return 2
    return finish(console, out, judged, acceptable, unreadable, total, "record")


def _judge(args: argparse.Namespace, reports: list[tuple[Path, list[dict[str, Any]]]]) -> tuple[Any, Any, int]:
    """The judge (client and template), the scene builder and the example size
    limit, from the run's settings for these records' examples."""
    from .._exceptions import ConfigError
    from .._options import judge_from, limits_from, repo_cache_dir, repo_mappings, settings_from
    from ..corpus import SceneBuilder
    from ..providers import JudgeClient
    from ..qa import load_judge_template
    from ._records import example_path
    from ._run_options import run_options

    examples = {example_path(record, report) for report, records in reports for record in records}
    present = [path for path in examples if path.exists()] or [path for path, _ in reports]
    source, root = run_options(present, args)
    # A run's response cache without ini editpred_response_cache_dir: pytest's cache folder.
    settings = settings_from(source, lambda: root / ".pytest_cache" / "d" / "editpred-responses")
    judge = judge_from(source, settings)
    if judge is None:
        raise ConfigError(
            "no judge named",
            fix="Give --judge NAME (openai, openai-chat, anthropic) and --judge-model, or ini editpred_qa.",
        )
    name, judge_settings, template = judge
    client = JudgeClient(judge_settings, name)
    text = load_judge_template(template) if template is not None else None
    scenes = SceneBuilder(repo_cache_dir(source), repo_mappings(source), command="editpred judge")
    return (client, text), scenes, limits_from(source).max_example_bytes
