"""The HTML viewer at scale: a 10,000-item report from 2,000-line files, in headless Chromium.

Prints the file size, the time to build it in Python, and in Chromium the time to
first contentful paint, to the list drawn (the page's ``editpred-list-drawn`` mark),
to filter (typing into the name filter, and ticking an outcome box, measured from
the event to the next frame painted) and to open an item (its chunk unpacked and
its card drawn).

    python bench/bench_html.py [--items 10000] [--lines 2000] [--keep report.html] [--no-browser] [--qa]

``--qa`` gives every prediction a judge's answer (a run with a judge: a reasoning
of about 300 characters, 2% judge errors) and times filtering by the verdict too.

``--no-browser`` stops after the Python side: the run's summary (``summary_of`` and
the terminal's lines, with their intervals) and the page's build, timed apart, and
the page's size.

Targets: first paint under 2 s, filtering under 200 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cdp import Browser, find_chromium  # noqa: E402

from pytest_editpred.reports import (
    edit_view,
    render_html,  # noqa: E402
)

WORDS = "value index result count total items buffer cursor offset length handle parse render update state".split()


def source(rng: random.Random, lines: int) -> str:
    out = []
    for n in range(lines):
        indent = "    " * rng.randint(0, 3)
        out.append(
            f"{indent}{rng.choice(WORDS)}_{n} = {rng.choice(WORDS)}({rng.choice(WORDS)}, {rng.randint(0, 999)})  # {rng.choice(WORDS)}"
        )
    return "\n".join(out) + "\n"


_SOURCES: dict[tuple[int, int], str] = {}


def judged(rng: random.Random) -> dict[str, Any]:
    """A judge's answer as the record keeps it (Zed's ``qa``)."""
    if rng.random() < 0.02:
        return {"error": "the judge could not be reached: ConnectError"}
    reasoning = " ".join(rng.choice(WORDS) for _ in range(45)).capitalize() + "."
    confidence, reverts = rng.randint(1, 5), rng.random() < 0.1
    answer = json.dumps({"reasoning": reasoning, "reverts_edits": reverts, "confidence": confidence})
    return {"reasoning": reasoning, "reverts_edits": reverts, "confidence": confidence, "response": answer}


def one(rng: random.Random, n: int, lines: int) -> dict[str, Any]:
    """One record; its file is one of 50 generated ones (making 10,000 files of 2,000
    random lines would take longer than everything measured), edited at its own place."""
    key = (n % 50, lines)
    if key not in _SOURCES:
        _SOURCES[key] = source(random.Random(key[0]), lines)
    text = _SOURCES[key]
    rows = text.split("\n")
    at = rng.randint(5, lines - 6)
    cursor = sum(len(r) + 1 for r in rows[:at]) + len(rows[at])
    added = f"    {rng.choice(WORDS)}_{n} = {rng.choice(WORDS)}({rng.choice(WORDS)})"
    expected = "\n".join(rows[: at + 1] + [added] + rows[at + 1 :])
    outcome = rng.choices(["passed", "failed", "error"], [55, 40, 5])[0]
    if outcome == "passed":
        predicted = expected
    else:
        predicted = "\n".join(
            rows[: at + 1] + [added.replace("(", "[").replace(")", "]"), rows[at + 1] + "  # changed"] + rows[at + 2 :]
        )
    exp_cursor = expected.index(added) + len(added)
    scene = SimpleNamespace(
        cursor=SimpleNamespace(path="src/module.py", offset=cursor, row=at, column=len(rows[at])),
        buffers={"src/module.py": text},
        events=(
            SimpleNamespace(
                path="src/module.py",
                old_path="src/module.py",
                diff=f"@@ -{at},2 +{at},3 @@\n {rows[at - 1]}\n+{rows[at]}\n {rows[at + 1]}\n",
                predicted=False,
            ),
        ),
    )
    verdict = SimpleNamespace(
        passed=outcome == "passed",
        best=0,
        candidates=(SimpleNamespace(buffers={"src/module.py": expected}, cursor=("src/module.py", exp_cursor)),),
        predicted_buffers={"src/module.py": predicted},
        predicted_cursor=("src/module.py", exp_cursor),
        changed_paths=("src/module.py",),
    )
    chrf = 100.0 if outcome == "passed" else round(rng.uniform(0, 90), 2)
    name = f"{rng.choice(['flask', 'zed', 'tokio', 'react'])}--{rng.choice(WORDS)}-{n:05d}"
    record: dict[str, Any] = {
        "name": name,
        "nodeid": f"evals/{name}.md::{name}",
        "path": f"/ci/evals/{name}.md",
        "repository_url": f"https://github.com/acme/{name.split('--')[0]}",
        "revision": "0" * 40,
        "tags": rng.sample(WORDS, 2),
        "provider": "openai",
        "model": "qwen-coder-7b",
        "trial": 1,
        "outcome": outcome,
        "reason": "matches expected patch 1"
        if outcome == "passed"
        else "the prediction matches none of the 1 expected patch(es)",
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.4}],
        "latency": round(rng.uniform(0.1, 3.0), 3),
        "cached": False,
        "usage": {"prompt_tokens": 4000, "completion_tokens": 60},
        "prompt": "<|editable_region|>\n" + "\n".join(rows[max(0, at - 150) : at + 150]),
        "raw_output": added,
        "best_candidate": 1,
        "matched_candidate": 1 if outcome == "passed" else None,
        "notes": [],
        "metrics": {
            "delta_chr_f": chrf,
            "delta_chr_f_true_positives": 10,
            "delta_chr_f_false_positives": 0,
            "delta_chr_f_false_negatives": 0,
            "delta_chr_f_precision": chrf / 100,
            "delta_chr_f_recall": chrf / 100,
            "delta_chr_f_beta": 0.5,
            "braces_disbalance": 0,
            "exact_lines_tp": 1,
            "exact_lines_fp": 0,
            "exact_lines_fn": 0,
            "reversal_ratio": 0.0,
            "cursor_distance": 0,
            "cursor_exact_match": True,
            "wrong_editable_region": False,
            "has_isolated_whitespace_changes": False,
            "inserted_tokens": 5,
            "deleted_tokens": 0,
            "kept_rate": 1.0,
            "recall_rate": 1.0,
            "kept_chars": 30,
            "correctly_deleted_chars": 0,
            "discarded_chars": 0,
        },
    }
    if outcome == "error":
        record.update(metrics={}, reason="infrastructure: the model server could not be reached", latency=None)
    else:
        record["diff"] = edit_view(scene, verdict)
    return record


def with_qa(rng: random.Random, records: list[dict[str, Any]]) -> None:
    """A judge's answer for every prediction that ran (an error asked no judge)."""
    for record in records:
        record["qa"] = judged(rng) if record["outcome"] != "error" else None


def frame_after(b: Browser, action: str) -> float:
    """Milliseconds from running ``action`` (which fires the event) to the next painted frame."""
    return b.js(
        "new Promise((done) => { const t0 = performance.now();"
        + action
        + "; requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0)); })"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path)
    parser.add_argument(
        "--no-browser", action="store_true", help="time the Python side only (the summary and the page's build)"
    )
    parser.add_argument("--qa", action="store_true", help="records with a judge's answer (a run with a judge)")
    args = parser.parse_args()
    chromium = None if args.no_browser else find_chromium()
    if chromium is None and not args.no_browser:
        print("headless Chromium is needed: apt-get install -y chromium", file=sys.stderr)
        return 2
    rng = random.Random(14)
    started = time.perf_counter()
    records = [one(rng, n, args.lines) for n in range(args.items)]
    if args.qa:
        with_qa(random.Random(35), records)  # its own generator: the records are those of a run without
    made = time.perf_counter() - started
    from pytest_editpred.reports._viewer import summary_of, terminal_lines

    started = time.perf_counter()
    summary = summary_of(records)
    terminal = terminal_lines(records, summary)  # the run has these already (its terminal summary)
    summarised = time.perf_counter() - started
    started = time.perf_counter()
    page = render_html(records, summary, title="bench", terminal=terminal)
    rendered = time.perf_counter() - started
    print(
        f"summary (summary_of and the terminal's lines, intervals included) {summarised:.2f} s, "
        f"page built in {rendered:.2f} s: {summarised + rendered:.2f} s together"
    )
    if chromium is None:
        print(f"page: {len(page.encode('utf-8')) / 1e6:.1f} MB")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.keep or Path(tmp) / "report.html")
        path.write_text(page, encoding="utf-8")
        size = path.stat().st_size
        print(
            f"{args.items:,} items from {args.lines:,}-line files: records made in {made:.1f} s, page rendered in {rendered:.2f} s"
        )
        print(f"file size: {size / 1e6:.1f} MB ({size / args.items / 1e3:.2f} KB per item)")
        paints, drawn, first_search, search, tick, verdict, opened = [], [], [], [], [], [], []
        with Browser(chromium, width=1400, height=900) as b:
            for _ in range(args.runs):
                b.open(path.as_uri())
                paints.append(b.js("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN"))
                drawn.append(b.js("performance.getEntriesByName('editpred-list-drawn')[0].startTime"))
                b.js(
                    "new Promise((done) => setTimeout(done, 500))"
                )  # the page settled, as a user's first keystroke finds it
                first_search.append(
                    frame_after(
                        b,
                        "const s = document.getElementById('f-search'); s.value = 'flask--value'; s.dispatchEvent(new Event('input', {bubbles: true}))",
                    )
                )
                shown = b.js("document.getElementById('shown').textContent")
                for query in ("zed--", "react--parse", "tokio--state-0", "value", ""):
                    search.append(
                        frame_after(
                            b,
                            f"const s = document.getElementById('f-search'); s.value = {query!r}; "
                            "s.dispatchEvent(new Event('input', {bubbles: true}))",
                        )
                    )
                for _ in range(2):
                    tick.append(frame_after(b, "document.querySelector('input[name=outcome][value=passed]').click()"))
                    if args.qa:
                        verdict.append(
                            frame_after(b, "document.querySelector('input[name=qa][value=acceptable]').click()")
                        )
                opened.append(
                    b.js(
                        "new Promise((done) => { const t0 = performance.now(); document.querySelector('#spacer .row').click();"
                        " const wait = () => document.getElementById('detail').dataset.state === 'ready' ? done(performance.now() - t0) : setTimeout(wait, 1);"
                        " wait(); })"
                    )
                )
        med = statistics.median
        print(
            f"first contentful paint: {med(paints):.0f} ms (median of {args.runs}; runs {', '.join(f'{x:.0f}' for x in paints)})"
        )
        print(f"list drawn:             {med(drawn):.0f} ms")
        print(
            f"filter by name:         {med(search):.1f} ms to the next frame (median of {len(search)}; "
            f"the first keystroke after load {med(first_search):.1f} ms, {shown} shown)"
        )
        print(f"filter by outcome:      {med(tick):.1f} ms to the next frame")
        if verdict:
            print(f"filter by the judge:    {med(verdict):.1f} ms to the next frame")
        print(f"open an item:           {med(opened):.1f} ms (its chunk unpacked, card drawn)")
        ok = med(paints) < 2000 and med(drawn) < 2000 and max(med(search), med(tick), med(first_search)) < 200
        ok = ok and (not verdict or med(verdict) < 200)
        print("targets (first paint < 2 s, filter < 200 ms):", "met" if ok else "NOT met")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
