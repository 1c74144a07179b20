"""``editpred-report``: judge one or more JSONL reports as one run, after the fact.

A corpus split over CI shards or machines writes one ``--editpred-report`` file per
shard; this reads them all and prints the same summary the run prints, writes the
SummaryJson and the HTML viewer, and applies the gates::

    editpred-report shard1.jsonl shard2.jsonl --html out.html --summary-json s.json --fail-under 60
    editpred-report new.jsonl --baseline old.jsonl --html compare.html
    editpred-report judged.jsonl --fail-under-qa 70

Exit status: 0 when the gates pass (or there is none), 1 when the pass rate is
below ``--fail-under``, the LLM judge's judged-acceptable rate below
``--fail-under-qa`` or, with ``--fail-on-regression``, an example regressed, 2 for
a file that cannot be read or written, shards that repeat an item, or
``--fail-under-qa`` over records none of which has the judge's verdict.

The files come from elsewhere (another machine, tool or version; a hand edit), so
every record is read through :func:`~pytest_editpred.reports.read_records`, which
holds it against the record type, and nothing bad in them is a traceback:

* a record that is no record (a field missing or of the wrong type, a number out of
  range, metrics that are no whole score, a line that is not an object) is **skipped**
  with one line on stderr, ``editpred-report: old.jsonl:3: record field 'metrics'
  must be an object, not a list (skipped)``, and the other records are summarised:
  the line is whole, so the rest of the file is still the run's records, and a
  summary of them with every record left out named is worth more than none;
* a line that is not JSON, a file that cannot be read, shards that overlap, or no
  record left: the command **stops** with one line and exit status 2 (the file is
  damaged or no report: what follows a broken line is not known to be records);
* a gate over skipped records is **not applied**, and the status is 2: a pass rate
  without the skipped records (``--fail-under``, skipped in the reports) or a
  comparison that cannot see them regress (``--fail-on-regression``, skipped in
  either file) would pass a run on what it could not read. Exit status 1 stays a
  gate that was applied and failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._record import Record

__all__ = ["main"]


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Summarise, render and gate one or more pytest-editpred JSONL reports."
    )
    parser.add_argument("reports", nargs="+", type=Path, help="--editpred-report files (shards of one run)")
    parser.add_argument("--html", type=Path, help="write the HTML viewer here")
    parser.add_argument("--summary-json", type=Path, help="write Zed's SummaryJson here")
    parser.add_argument(
        "--fail-under", type=float, metavar="PCT", help="exit 1 when the pass rate is below PCT percent"
    )
    parser.add_argument(
        "--fail-under-qa",
        type=float,
        metavar="PCT",
        help="exit 1 when the LLM judge's judged-acceptable rate (confidence >= 4, not reverting; "
        "over the predictions it answered) is below PCT percent",
    )
    parser.add_argument("--baseline", type=Path, help="compare with this earlier JSONL report")
    parser.add_argument(
        "--fail-on-regression", action="store_true", help="with --baseline: exit 1 when an example regressed"
    )
    parser.add_argument("--title", default="pytest-editpred report", help="title of the HTML page")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every example in the table")
    parser.add_argument("--summary-limit", type=int, default=20, help="rows of the per-example table")
    return parser


def _read(paths: Sequence[Path], skip: Callable[[str], None]) -> list[Record]:
    """The records of ``paths``, checked (``complete``: they are summarised); each
    record skipped is told to ``skip`` in one line."""
    from ._jsonl import read_records

    records: list[Record] = []
    seen: dict[tuple[str, object], Path] = {}
    for path in paths:
        for record in read_records(path, skip=skip, complete=True):
            key = (str(record.get("nodeid") or record.get("name")), record.get("trial"))
            if key in seen:
                raise ValueError(
                    f"{path} repeats {key[0]} (trial {key[1]}) from {seen[key]}: shards of one run must not overlap"
                )
            seen[key] = path
            records.append(record)
    return records


def _write(path: Path, text: str) -> None:
    from .._files import write_atomic

    write_atomic(path, text.encode("utf-8"))


def main(argv: Sequence[str] | None = None, prog: str = "editpred-report") -> int:
    """The command; ``prog`` names it in usage and messages (``editpred report`` too)."""
    args = _parser(prog).parse_args(argv)
    from .._exceptions import EditPredError
    from ._lines import gate_figures
    from ._qa import qa_counts, qa_line
    from ._record import CONTEXT_ONLY
    from ._summary import Summary, eval_rows, format_eval_report, summary_json_text
    from ._viewer import render_html, summary_of, terminal_lines

    skipped: dict[str, int] = {"reports": 0, "baseline": 0}

    def skipper(source: str) -> Callable[[str], None]:
        def skip(line: str) -> None:
            skipped[source] += 1
            print(f"{prog}: {line}", file=sys.stderr)

        return skip

    try:
        records = _read(args.reports, skipper("reports"))
        baseline = _read([args.baseline], skipper("baseline")) if args.baseline else None
    except EditPredError as error:  # one line: where, what, and the fix
        where = f"{error.where}: " if error.where else ""
        fix = f" ({error.fix})" if error.fix else ""
        print(f"{prog}: {where}{error.reason}{fix}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    if not records:
        told = f" ({skipped['reports']} skipped)" if skipped["reports"] else ""
        print(f"{prog}: the reports hold no record{told}", file=sys.stderr)
        return 2
    out = sys.stdout
    rows = eval_rows(records)
    if rows:
        context_only = all(r.get("provider") == CONTEXT_ONLY for r in records if r.get("metrics"))
        report = format_eval_report(rows, limit=args.summary_limit, verbose=args.verbose, context_only=context_only)
        out.write(report + "\n")
    summary = summary_of(records)
    qa = qa_line(records)
    terminal = [*terminal_lines(records, summary), *([qa] if qa else [])]
    for line in terminal:
        out.write(line + "\n")
    status = 0
    comparison = None
    if baseline is not None:
        from ._compare import compare

        comparison = compare(baseline, records)
        out.write(comparison.format() + "\n")
    try:
        if args.summary_json:
            data = Summary.from_scores([row.score for row in rows], [row.qa for row in rows]).to_summary_json()
            _write(args.summary_json, summary_json_text(data) + "\n")
            out.write(f"editpred summary: {args.summary_json}\n")
        if args.html:
            _write(args.html, render_html(records, summary, title=args.title, baseline=baseline, terminal=terminal))
            out.write(f"editpred html: {args.html}\n")
    except OSError as error:
        print(f"{prog}: cannot write: {error}", file=sys.stderr)
        return 2
    if args.fail_under is not None and skipped["reports"]:
        out.write(
            f"gate: not applied: {skipped['reports']} record(s) of the reports were skipped, "
            "and a pass rate without them says nothing about them\n"
        )
        status = 2
    elif args.fail_under is not None:
        rate, required, shown, shown_required = gate_figures(summary["passed"], summary["total"], args.fail_under)
        if rate >= required:
            out.write(f"gate: pass rate {shown}% >= {shown_required}% required: the run passes\n")
        else:
            out.write(
                f"gate: pass rate {shown}% < {shown_required}% required: the run fails (errors count as not passed)\n"
            )
            status = max(status, 1)
    acceptable, judged = qa_counts(records) if args.fail_under_qa is not None else (0, 0)
    if args.fail_under_qa is not None and skipped["reports"]:
        out.write(
            f"qa gate: not applied: {skipped['reports']} record(s) of the reports were skipped, "
            "and the judge's rate without them says nothing about them\n"
        )
        status = 2
    elif args.fail_under_qa is not None and not judged:
        asked = sum(1 for record in records if record.get("qa") is not None)
        what = f"the judge answered none of the {asked} asked with a confidence" if asked else "no judge was asked"
        print(
            f"{prog}: --fail-under-qa gates on the LLM judge's verdicts, and no record has one ({what}); "
            "give reports of a run with a judge, or drop --fail-under-qa",
            file=sys.stderr,
        )
        status = 2
    elif args.fail_under_qa is not None:
        rate, required, shown, shown_required = gate_figures(acceptable, judged, args.fail_under_qa)
        side, outcome = (">=", "passes") if rate >= required else ("<", "fails")
        out.write(
            f"qa gate: judged-acceptable rate {shown}% {side} {shown_required}% required: the run {outcome} "
            f"({acceptable} of the {judged} predictions the judge answered)\n"
        )
        if rate < required:
            status = max(status, 1)
    if comparison is not None and args.fail_on_regression and (skipped["reports"] or skipped["baseline"]):
        out.write(
            f"regression gate: not applied: {skipped['reports'] + skipped['baseline']} record(s) were skipped, "
            "and an example among them could have regressed\n"
        )
        status = 2
    elif comparison is not None and args.fail_on_regression:
        if comparison.regressions:
            out.write(f"regression gate: {len(comparison.regressions)} example(s) regressed: the run fails\n")
            status = max(status, 1)
        else:
            out.write("regression gate: no example regressed\n")
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
