"""``editpred distill REPORT.jsonl... -o DIR``: Zed's ``ep distill`` on a saved run.

Each example a run predicted becomes an example file whose expected patches are the
run's predictions for it (zed-qa-repair.md §4, through :func:`pytest_editpred.qa.distill`):
a teacher model labels a corpus this way. The predictions chosen are Zed's: the
first repair (``editpred repair``'s, a record's ``repair``) alone when the example has
one; else every prediction of the example (each trial's), in order, the same patch
twice giving one expected patch. Everything else of the example is kept (history,
cursor, rejected patch).

Where this differs from ``ep`` on purpose: an example whose predictions change
nothing (or whose repair is ``NO_EDITS`` or did not parse) is not written (Zed writes
it with the expected patch ``""``, or none; an expected
patch here must change something, and ``editpred lint`` refuses one that does not),
but skipped with that reason. Every record is accounted for: its example written,
or skipped with a named reason. The folder is written as the other corpus commands
write theirs: made beside and renamed into place, never through a link.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._args import add_run_options
from ._console import Console

__all__ = ["register", "run"]

TAKEN = ("repo", "cache_dir", "max_example_bytes")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "distill",
        help="write the examples of a saved run with its predictions as their expected patches (Zed's ep distill)",
        description=(
            "Write each example a run predicted (the example file each record names) to DIR as a .md file whose "
            "expected patches are the run's predictions for it (Zed's ep distill): the first repair (editpred repair) "
            "alone when there is one, else every trial's prediction that changes something, in order. Every record is "
            "counted: its example written, or skipped with a named reason (no prediction, changes nothing, example "
            "file gone, example not in its file, scene not rebuilt, repair not parsed, repair is no edit). Exit 0 "
            "when every record was used; 1 when some could not be (each one line); 2 for a usage error, a report "
            "that cannot be read or an output that cannot be written."
        ),
    )
    parser.add_argument("reports", metavar="REPORT", nargs="+", type=Path, help="a JSONL report of a run")
    parser.add_argument("-o", "--output", type=Path, metavar="DIR", required=True, help="the folder to write")
    parser.add_argument("--force", action="store_true", help="replace DIR whole when it exists")
    add_run_options(parser, TAKEN)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    from .._exceptions import ConfigError
    from .._options import limits_from, repo_cache_dir, repo_mappings
    from ..corpus import ExampleWriter, SceneBuilder
    from ._records import example_path, read_reports
    from ._run_options import run_options

    writer = ExampleWriter(args.output, force=args.force, rename=True, inputs=[])
    refused = writer.refusal()
    if refused is None and args.output.exists() and not args.force and any(args.output.iterdir()):
        refused = ("it exists", "Name a new folder, or pass --force to replace it.")
    if refused is not None:
        console.problem(str(args.output), *refused)
        return 2
    reports = read_reports(args.reports, console)
    if reports is None:
        return 2
    try:
        examples = {example_path(record, report) for report, records in reports for record in records}
        source, _ = run_options([p for p in examples if p.exists()] or [p for p, _ in reports], args)
        scenes = SceneBuilder(repo_cache_dir(source), repo_mappings(source), command="editpred distill")
        limit = limits_from(source).max_example_bytes
    except ConfigError as error:
        console.problem(error.path or "editpred distill", error.reason, error.fix or None, line=error.line)
        return 2
    try:
        chosen, skipped = _chosen(reports, scenes, limit, console)
    finally:
        scenes.close()
    written = 0
    try:
        for example in chosen:
            writer.write(example)
            written += 1
        writer.close()
    except OSError as error:
        writer.abort()
        console.problem(str(args.output), f"cannot write: {error.strerror or error}", "Give -o a folder you can write.")
        return 2
    reasons = ", ".join(f"{n} {reason}" for reason, n in skipped.items())
    total = sum(len(records) for _, records in reports)
    console.summary(
        f"distill: {written} example{'s' * (written != 1)} written to {args.output} from {total} record"
        f"{'s' * (total != 1)}" + (f"; {sum(skipped.values())} skipped ({reasons})" if reasons else "")
    )
    problems = {"example file gone", "example not in its file", "scene not rebuilt"}
    return 1 if console.problems or problems & set(skipped) else 0


def _chosen(
    reports: list[tuple[Path, list[Any]]], scenes: Any, limit: int, console: Console
) -> tuple[list[Any], dict[str, int]]:
    """The distilled examples, in the order their first record comes, and the
    records skipped by reason (each problem told)."""
    from ..qa import ExamplePrediction, distill
    from ._records import Found, RecordExamples, predicted_patch

    found = RecordExamples(scenes.scene, limit)
    skipped: dict[str, int] = {}
    # Per example: the example, its records' predictions, their repairs, how many records.
    chosen: dict[tuple[Path, str], tuple[Any, list[ExamplePrediction], list[ExamplePrediction], list[int]]] = {}

    def skip(reason: str, records: int = 1) -> None:
        skipped[reason] = skipped.get(reason, 0) + records

    for report, records in reports:
        for record in records:
            where = f"{report}: record {record.get('nodeid') or record.get('name')!s}"
            if record.get("predicted_patch") is None and record.get("predicted_text") is None:
                skip("no prediction")
                continue
            example = found.example(record, report)
            scene = found.scene(record, report, example)
            if isinstance(scene, Found):
                skip(scene.reason)
                console.problem(where, scene.message, scene.fix)
                continue
            _, predictions, repairs, used = chosen.setdefault(found.key(record, report), (example, [], [], [0]))
            repair = record.get("repair")
            if isinstance(repair, dict):  # editpred repair's; read_records checked its fields
                repairs.append(ExamplePrediction.from_json(repair))
            patch = predicted_patch(record, scene)
            if patch is None and not repairs:
                skip("changes nothing")
                continue
            used[0] += 1
            if patch is not None:
                predictions.append(ExamplePrediction(patch, provider=str(record.get("provider") or "")))
    out = []
    for example, predictions, repairs, used in chosen.values():
        if repairs:  # Zed: the first repair alone
            first = repairs[0]
            if first.actual_patch is None:
                skip("repair not parsed", used[0])
                continue
            if not first.actual_patch.strip():
                skip("repair is no edit", used[0])
                continue
            out.append(distill(example, [first]))
            continue
        unique = list({p.actual_patch: p for p in predictions if p.actual_patch}.values())
        if unique:
            out.append(distill(example, unique))
    return out, skipped
