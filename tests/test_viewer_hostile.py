"""The viewer never hangs nor breaks on a record's data, whatever it holds.

A report read back comes from anywhere (a baseline, a shard, a hand-edited file). A
``diff`` whose hunk lines carried an op other than ``" "``, ``"-"``, ``"+"`` used to
loop the page's script forever once the item was opened with a baseline (the
comparison drew its predicted edit). Two layers keep that from happening: Python
rebuilds every record's diff into well-formed data before it goes into the page
(:func:`clean_edit_view`), and the script reads whatever it is given with walks that
always step forward and are bounded. Both are checked here, the first on its own in
Python, the second with the first switched off, and the two together through
``editpred-report --baseline OLD --html`` as the issue reported it; in headless
Chromium, each page must be ready within :data:`DEADLINE` seconds.
Chromium is required (the CI installs it): when it is missing these tests FAIL.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cdp import Browser, CDPError, chromium

from pytest_editpred.reports import edit_view, render_html
from pytest_editpred.reports._hunks import EXTRA_CONTEXT, MAX_LINES, MAX_NUMBER, clean_edit_view, view_diffs
from pytest_editpred.reports._viewer import page_data

DEADLINE = 5.0  # seconds from navigation to the item drawn; a sound page takes well under one
WIDTHS = [1400, 600]


BEFORE = "".join(f"line {n}\n" for n in range(1, 61)).replace("line 30\n", "def sub(a, b):\n")
EXPECTED = BEFORE.replace("def sub(a, b):\n", "def sub(a, b):\n    return a - b\n")
PREDICTED = BEFORE.replace("def sub(a, b):\n", "def sub(a, b):\n    return b - a\n")


def good_diff() -> dict[str, Any]:
    """A ``diff`` field as the plugin writes it (:func:`edit_view`), of a wrong answer."""
    cursor = BEFORE.index("def sub(a, b):") + len("def sub(a, b):")
    scene = SimpleNamespace(
        cursor=SimpleNamespace(path="calc.py", offset=cursor, row=29, column=14),
        buffers={"calc.py": BEFORE},
        events=(
            SimpleNamespace(
                path="calc.py",
                old_path="calc.py",
                diff="@@ -29,1 +29,2 @@\n line 29\n+def sub(a, b):\n",
                predicted=False,
            ),
        ),
    )
    verdict = SimpleNamespace(
        passed=False,
        best=0,
        candidates=(SimpleNamespace(buffers={"calc.py": EXPECTED}, cursor=None),),
        predicted_buffers={"calc.py": PREDICTED},
        predicted_cursor=None,
        changed_paths=("calc.py",),
    )
    out = edit_view(scene, verdict)
    assert out is not None
    return dict(out)


def hostile(change: Any) -> dict[str, Any]:
    """:func:`good_diff` with ``change(diff)`` applied to it, in all three line diffs."""
    diff = copy.deepcopy(good_diff())
    for key in ("predicted", "expected", "versus"):
        change(diff[key])
    return diff


def first_hunk(diff: dict[str, Any]) -> dict[str, Any]:
    hunk: dict[str, Any] = diff["hunks"][0]
    return hunk


def set_op(op: Any) -> Any:
    def change(diff: dict[str, Any]) -> None:
        first_hunk(diff)["lines"][1][0] = op

    return change


def set_hunk(key: str, value: Any) -> Any:
    def change(diff: dict[str, Any]) -> None:
        first_hunk(diff)[key] = value

    return change


def set_diff(key: str, value: Any) -> Any:
    def change(diff: dict[str, Any]) -> None:
        diff[key] = value

    return change


def set_line(index: int, value: Any) -> Any:
    def change(diff: dict[str, Any]) -> None:
        first_hunk(diff)["lines"][index] = value

    return change


#: name -> the record's ``diff``: each breaks the type or the range of one part of it
#: (all three line diffs, so the page meets it whichever it draws).
CASES: dict[str, Any] = {
    "unknown-op": lambda: hostile(set_op("x")),
    "op-of-length-2": lambda: hostile(set_op("+-")),
    "op-empty": lambda: hostile(set_op("")),
    "op-a-number": lambda: hostile(set_op(1)),
    "lines-not-a-list": lambda: hostile(set_hunk("lines", "+ return b - a")),
    "line-not-a-list": lambda: hostile(set_line(0, "  line 27")),
    "line-an-object": lambda: hostile(set_line(0, {"op": " ", "text": "line 27"})),
    "line-too-short": lambda: hostile(set_line(0, [" "])),
    "line-null": lambda: hostile(set_line(0, None)),
    "text-a-number": lambda: hostile(set_line(0, [" ", 27])),
    "huge-gap": lambda: hostile(set_hunk("gap", 10**18)),
    "huge-tail": lambda: hostile(set_diff("tail", 10**300)),
    "huge-line-number": lambda: hostile(set_hunk("a", 2**53 + 1)),
    "negative-gap": lambda: hostile(set_hunk("gap", -3)),
    "negative-tail": lambda: hostile(set_diff("tail", -10)),
    "negative-line-numbers": lambda: hostile(lambda d: first_hunk(d).update(a=-5, b=-1)),
    "negative-cursor": lambda: hostile(set_diff("ca", [-1, -1])),
    "cursor-of-strings": lambda: hostile(set_diff("cb", ["31", "4"])),
    "gap-a-string": lambda: hostile(set_hunk("gap", "many")),
    "above-too-long": lambda: hostile(set_hunk("above", ["x"] * 100_000)),
    "above-of-numbers": lambda: hostile(set_hunk("above", [1, 2, 3])),
    "below-an-object": lambda: hostile(set_diff("below", {"0": "line"})),
    "hunks-not-a-list": lambda: hostile(set_diff("hunks", {"0": {}})),
    "hunk-null": lambda: hostile(lambda d: d["hunks"].insert(0, None)),
    "many-lines": lambda: hostile(set_hunk("lines", [["+", f"line {n}"] for n in range(100_000)])),
    "many-empty-hunks": lambda: hostile(
        set_diff("hunks", [{"a": 1, "b": 1, "gap": 0, "above": [], "lines": []}] * 50_000)
    ),
    "history-of-numbers": lambda: {**good_diff(), "history": [{"path": 1, "diff": 2}, 3, None]},
    "history-diff-a-list": lambda: {**good_diff(), "history": [{"path": "calc.py", "diff": ["@@ -1 +1 @@"]}]},
    "excerpt-lines-a-string": lambda: {
        **good_diff(),
        "excerpt": {**good_diff()["excerpt"], "text": {"first": -4, "lines": "line 1", "total": "all"}},
    },
    "excerpt-a-list": lambda: {**good_diff(), "excerpt": [1, 2]},
    "other-files-an-object": lambda: {**good_diff(), "other_files": {"a.py": 1}},
    "path-a-number": lambda: {**good_diff(), "path": 7, "relative": "yes"},
}


def record(name: str, outcome: str, provider: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "nodeid": f"evals/{name}.md::{name}",
        "path": f"evals/{name}.md",
        "repository_url": "https://github.com/acme/calc",
        "revision": "0123456789abcdef",
        "tags": ["completion"],
        "provider": provider,
        "model": "m",
        "trial": 1,
        "outcome": outcome,
        "reason": "the prediction matches none of the 1 expected patch(es)",
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.5}],
        "latency": 0.5,
        "cached": False,
        "usage": {},
        "predicted_patch": None,
        "predicted_cursor": None,
        "prompt": "the prompt",
        "raw_output": "the answer",
        "matched_candidate": None,
        "best_candidate": 1,
        "metrics": {"delta_chr_f": 20.0},
        "notes": [],
    }
    base.update(extra)
    return base


def runs(cases: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One example per case, in both runs: this run's diff is the hostile one."""
    new = [record(name, "failed", "new", diff=make()) for name, make in cases.items()]
    old = [record(name, "failed", "old", diff=good_diff()) for name in cases]
    return new, old


# --------------------------------------------------------------------------- Python


def walk_line_diff(diff: Any) -> None:
    """Assert ``diff`` is a well-formed, bounded :class:`LineDiff`."""
    assert set(diff) == {"hunks", "below", "tail", "ca", "cb", "clipped"}
    assert isinstance(diff["clipped"], bool)
    assert type(diff["tail"]) is int and 0 <= diff["tail"] <= MAX_NUMBER
    assert isinstance(diff["below"], list) and len(diff["below"]) <= min(EXTRA_CONTEXT, diff["tail"])
    assert all(isinstance(t, str) for t in diff["below"])
    for cursor in (diff["ca"], diff["cb"]):
        assert cursor is None or (len(cursor) == 2 and all(type(n) is int and 0 <= n <= MAX_NUMBER for n in cursor))
    assert sum(len(h["lines"]) for h in diff["hunks"]) <= MAX_LINES
    for hunk in diff["hunks"]:
        assert set(hunk) == {"a", "b", "gap", "above", "lines"}
        assert all(type(hunk[k]) is int and 0 <= hunk[k] <= MAX_NUMBER for k in ("a", "b", "gap"))
        assert len(hunk["above"]) <= min(EXTRA_CONTEXT, hunk["gap"], max(0, hunk["a"] - 1))
        assert all(isinstance(t, str) for t in hunk["above"])
        assert hunk["lines"], "a hunk shows at least one line"
        for line in hunk["lines"]:
            assert isinstance(line, list) and len(line) == 2 and line[0] in (" ", "-", "+") and isinstance(line[1], str)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_diff_is_rebuilt_into_well_formed_bounded_data(case: str) -> None:
    out = view_diffs(record(case, "failed", "new", diff=CASES[case]()))
    assert out is not None
    for key in ("predicted", "expected", "versus"):
        if key in out:
            walk_line_diff(out[key])
    assert out["path"] is None or isinstance(out["path"], str)
    assert isinstance(out["relative"], bool)
    for entry in out.get("history", []):
        assert all(isinstance(entry[k], str) for k in ("path", "old_path", "diff"))
    excerpt = out.get("excerpt")
    if excerpt is not None:
        assert all(isinstance(t, str) for t in excerpt["text"]["lines"])
        assert all(type(excerpt["text"][k]) is int and excerpt["text"][k] >= 0 for k in ("first", "total"))
    assert all(isinstance(p, str) for p in out.get("other_files", []))
    if case == "many-lines":  # well-formed, only too long: cut, and the cut said
        assert "malformed" not in out and out["predicted"]["clipped"]
    else:
        assert out.get("malformed", 0) > 0  # and the page says how much was left out
    json.dumps(out, allow_nan=False)  # plain JSON


def test_a_sound_diff_is_kept_as_it_is() -> None:
    diff = good_diff()
    out = clean_edit_view(diff)
    assert "malformed" not in out
    assert out == {k: v for k, v in diff.items()}


def test_the_known_lines_of_a_hunk_survive_a_bad_one() -> None:
    out = clean_edit_view(hostile(set_op("x")))
    hunk = out["predicted"]["hunks"][0]
    original = good_diff()["predicted"]["hunks"][0]
    assert hunk["lines"] == original["lines"][:1] + original["lines"][2:]
    assert out["malformed"] == 3  # one line left out of each of the three diffs


def test_the_page_data_takes_fields_of_any_type() -> None:
    odd = record(
        "odd",
        "failed",
        "new",
        tags=7,
        trial=True,
        latency=10**400,
        metrics=["delta_chr_f", 1],
        attempts="one",
        usage={"prompt_tokens": {"deep": [1]}, "x": float("nan")},
        notes="a note",
        reason={"why": "a dict"},
        best_candidate="1",
        nodeid=5,
        diff=CASES["unknown-op"](),
    )
    index, details = page_data([odd], baseline=[record("odd", "passed", "old", tags="not-a-list", trial=10**30)])
    json.dumps([index, details], allow_nan=False)
    new, old = index["items"]
    assert new[4] == [] and new[7] == 1 and new[8] is None and old[7] == 1
    detail = details[0]
    assert detail["attempts"] == [] and detail["notes"][0].startswith("The viewer left out 3 malformed")
    assert detail["reason"] == '{"why": "a dict"}' and detail["nodeid"] == "5" and "best" not in detail
    assert detail["usage"] == {"prompt_tokens": '{"deep": [1]}', "x": None}


class Score(float):
    """A float of another type, as a record read by another tool might hold."""


def test_metrics_of_every_kind_become_finite_numbers_bools_or_null() -> None:
    """The page's fast paths (a plain float or int first) give what the general ones
    do: finite numbers as floats, bools and null kept, anything else left out (null
    in the list's columns)."""
    metrics = {
        "delta_chr_f": Score(12.5),
        "kept_rate": float("inf"),
        "recall_rate": float("nan"),
        "braces_disbalance": 10**400,
        "inserted_tokens": 3,
        "deleted_tokens": "4",
        "reversal_ratio": -0.0,
        "cursor_exact_match": True,
        "cursor_distance": None,
        "exact_lines_tp": 1,
        "exact_lines_fp": 0,
        "exact_lines_fn": 1,
    }
    index, details = page_data([record("odd", "failed", "new", metrics=metrics)])
    json.dumps([index, details], allow_nan=False)
    shown = details[0]["metrics"]
    assert shown["delta_chr_f"] == 12.5 and type(shown["delta_chr_f"]) is float
    assert shown["inserted_tokens"] == 3.0 and type(shown["inserted_tokens"]) is float
    assert shown["reversal_ratio"] == 0.0 and shown["cursor_exact_match"] is True and shown["cursor_distance"] is None
    assert shown["exact_lines_f1"] == pytest.approx(2 / 3)
    for gone in ("kept_rate", "recall_rate", "braces_disbalance", "deleted_tokens"):
        assert gone not in shown, gone
    names = [m["name"] for m in index["metrics"]]
    listed = dict(zip(names, index["items"][0][9]))
    assert listed["delta_chr_f"] == 12.5 and listed["kept_rate"] is None and listed["braces_disbalance"] is None
    assert listed["inserted_tokens"] == 3.0 and listed["cursor_exact_match"] is True


# --------------------------------------------------------------------------- Chromium


def open_within(b: Browser, page: Path, item: str) -> float:
    """Open ``page`` at ``#item=<item>``; the seconds until the item's detail is drawn,
    failing past :data:`DEADLINE` (a page whose script loops answers no evaluation:
    each waits only for what is left of the deadline)."""
    started = time.monotonic()
    ready = (
        "(() => { try { const d = document.getElementById('detail'); "
        f"return d.dataset.state === 'ready' && d.dataset.key === {json.dumps(item)}; "
        "} catch (e) { return false; } })()"
    )
    try:
        b.open(page.as_uri() + f"#item={item}", ready="true", timeout=DEADLINE)
        while not b.js(ready, timeout=max(DEADLINE - (time.monotonic() - started), 0.1)):
            if time.monotonic() - started > DEADLINE:
                raise CDPError("the item was not drawn")
            time.sleep(0.02)
    except CDPError as error:
        pytest.fail(f"{item}: the page was not ready within {DEADLINE} s ({error})", pytrace=False)
    return time.monotonic() - started


def exceptions(b: Browser) -> list[str]:
    """The uncaught exceptions (and rejected promises) the page reported since the
    last navigation: the events :meth:`Browser.open` has not drained yet."""
    found = []
    while not b.events.empty():
        event = b.events.get_nowait()
        if event.get("method") == "Runtime.exceptionThrown":
            details = event["params"]["exceptionDetails"]
            found.append(str(details.get("exception", {}).get("description") or details.get("text")))
    return found


def shown(b: Browser) -> dict[str, Any]:
    return b.js(
        """(() => { const d = document.getElementById('detail');
          return {kinds: Array.from(d.querySelectorAll('.diff .ln')).map(l => l.className),
                  broken: d.querySelectorAll('.broken').length, sides: d.querySelectorAll('.comparison .side').length,
                  text: d.innerText}; })()"""
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_hostile_diffs_never_hang_the_page(width: int, tmp_path: Path) -> None:
    new, old = runs(CASES)
    page = tmp_path / "hostile.html"
    page.write_text(render_html(new, None, title="hostile", baseline=old), encoding="utf-8")
    with Browser(chromium(), width=width, height=900) as b:
        for case in CASES:
            took = open_within(b, page, case)
            assert took < DEADLINE
            state = shown(b)
            assert state["broken"] == 0, (case, state["text"][:500])
            assert state["sides"] == 2, case  # the comparison, which used to loop, is drawn
            if case == "many-lines":  # no fault, only too long: cut, and said so
                assert "the rest of this diff is not shown" in state["text"]
            else:
                assert "malformed part(s) of this record's diff" in state["text"], case
            assert all(k.split()[0] == "ln" for k in state["kinds"])
            # the other views of the item draw too
            for tab in ("predicted", "expected"):
                if b.js(f"document.getElementById('tab-{tab}') !== null"):
                    b.click(f"#tab-{tab}")
                    b.wait_for(
                        f"document.getElementById('tab-{tab}').getAttribute('aria-selected') === 'true'", DEADLINE
                    )
            b.click("#view-split")
            b.wait_for("document.querySelector('#detail .diffs .diff.split') !== null", DEADLINE)
            assert exceptions(b) == [], case


def test_the_script_alone_tolerates_raw_hostile_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's rebuilding switched off: the script meets the records' diffs as they
    are, and still draws every item (the known lines of its diffs) in time."""
    from pytest_editpred.reports import _viewer

    monkeypatch.setattr(_viewer, "view_diffs", lambda record: record.get("diff"))
    new, old = runs(CASES)
    _, details = page_data(new, baseline=old)
    assert details[list(CASES).index("unknown-op")]["diff"]["predicted"]["hunks"][0]["lines"][1][0] == "x"
    page = tmp_path / "raw.html"
    page.write_text(render_html(new, None, title="raw", baseline=old), encoding="utf-8")
    with Browser(chromium(), width=1400, height=900) as b:
        for case in CASES:
            took = open_within(b, page, case)
            assert took < DEADLINE
            state = shown(b)
            assert state["sides"] == 2, case
            assert all(k.split()[0] == "ln" for k in state["kinds"])
            assert exceptions(b) == [], case
        b.click("#view-split")
        b.wait_for("document.querySelector('#detail .diffs .diff.split') !== null", DEADLINE)
        # the known lines of a diff with an unknown op are drawn, the unknown one is not
        open_within(b, page, "unknown-op")
        texts = b.js(
            "Array.from(document.querySelectorAll('#detail .side[data-run=new] .ln .tx')).map(t => t.textContent)"
        )
        assert "line 28" not in texts and ["line 27", "line 29", "def sub(a, b):", "    return b - a"] == texts[:4]


def test_editpred_report_with_a_baseline_opens_an_item_of_unknown_ops(tmp_path: Path) -> None:
    """The issue, as reported: ``editpred-report --baseline OLD --html`` on records
    whose diff lines carry unknown ops (well-typed JSON: strings), opened at ``#item=``."""
    from pytest_editpred.reports import report_main

    cases = {
        name: CASES[name] for name in ("unknown-op", "op-of-length-2", "op-empty", "negative-gap", "negative-tail")
    }
    cases["largest-gap-and-tail"] = lambda: hostile(lambda d: (first_hunk(d).update(gap=2**53), d.update(tail=2**53)))
    new, old = runs(cases)
    for r in new + old:  # a record to be summarised has all of Zed's metrics, or none
        r["metrics"] = {}
    for path, records in ((tmp_path / "new.jsonl", new), (tmp_path / "old.jsonl", old)):
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    page = tmp_path / "report.html"
    status = report_main([str(tmp_path / "new.jsonl"), "--baseline", str(tmp_path / "old.jsonl"), "--html", str(page)])
    assert status == 0 and page.exists()
    with Browser(chromium(), width=1400, height=900) as b:
        for case in cases:
            assert open_within(b, page, case) < DEADLINE
            assert shown(b)["sides"] == 2
            assert exceptions(b) == [], case
