"""The HTML viewer in headless Chromium, driven as a user drives it.

Real input through the DevTools protocol (``tests/cdp.py``, over
``--remote-debugging-pipe``: no extra package): mouse clicks on the outcome boxes,
the hunk expanders, the unified/split buttons and the comparison filter, typing in
the search box, ``n``/``p``/``j``/``k`` on the keyboard. Each step checks what the
page shows: the rows listed and their order, the diff's lines, their line numbers,
the cursor marks, the URL fragment.
Chromium is required (the CI installs it): when it is missing these tests FAIL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cdp import Browser, chromium

from pytest_editpred.reports import render_html
from pytest_editpred.reports._hunks import edit_view, line_diff
from pytest_editpred.reports._viewer import page_data

CALC = "https://github.com/acme/calc"
SHAPES = "https://github.com/acme/shapes"
HOSTILE = "</script><img src=x onerror=window.__pwned=1>"

BEFORE = "".join(f"line {n}\n" for n in range(1, 41)).replace("line 20\n", "def sub(a, b):\n")
EXPECTED = BEFORE.replace("def sub(a, b):\n", "def sub(a, b):\n    return a - b\n")
WRONG = BEFORE.replace("def sub(a, b):\n", "def sub(a, b):\n    return b - a\n")


def diff_field(
    before: str,
    expected: str,
    predicted: str,
    *,
    passed: bool,
    cursor: int,
    expected_cursor: int | None,
    predicted_cursor: int | None,
    path: str = "calc.py",
) -> dict[str, Any]:
    """The ``diff`` field as the plugin writes it, through :func:`edit_view`."""
    row = before.count("\n", 0, cursor)
    scene = SimpleNamespace(
        cursor=SimpleNamespace(path=path, offset=cursor, row=row, column=cursor - before.rfind("\n", 0, cursor) - 1),
        buffers={path: before},
        events=(
            SimpleNamespace(
                path=path,
                old_path=path,
                diff="--- a/calc.py\n+++ b/calc.py\n@@ -19,1 +19,2 @@\n line 19\n+def sub(a, b):\n",
                predicted=False,
            ),
        ),
    )
    verdict = SimpleNamespace(
        passed=passed,
        best=0,
        candidates=(
            SimpleNamespace(
                buffers={path: expected}, cursor=(path, expected_cursor) if expected_cursor is not None else None
            ),
        ),
        predicted_buffers={path: predicted},
        predicted_cursor=(path, predicted_cursor) if predicted_cursor is not None else None,
        changed_paths=(path,),
    )
    out = edit_view(scene, verdict)
    assert out is not None
    return out


CURSOR = BEFORE.index("def sub(a, b):") + len("def sub(a, b):")  # where the user stopped typing
EXPECTED_CURSOR = EXPECTED.index("a - b") + len("a - b")


def sub_diff(predicted: str, *, passed: bool, predicted_cursor: int | None) -> dict[str, Any]:
    """The ``diff`` field of a prediction of the ``sub`` example (BEFORE to EXPECTED)."""
    return diff_field(
        BEFORE,
        EXPECTED,
        predicted,
        passed=passed,
        cursor=CURSOR,
        expected_cursor=EXPECTED_CURSOR,
        predicted_cursor=predicted_cursor,
    )


def good_diff() -> dict[str, Any]:
    """A prediction that is the expected edit, cursor included."""
    return sub_diff(EXPECTED, passed=True, predicted_cursor=EXPECTED_CURSOR)


def record(name: str, outcome: str, repo: str = CALC, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "nodeid": f"evals/{name}.md::{name}",
        "path": f"/repo/evals/{name}.md",
        "repository_url": repo,
        "revision": "0123456789abcdef",
        "tags": ["completion"],
        "provider": "openai",
        "model": "qwen",
        "trial": 1,
        "outcome": outcome,
        "reason": None,
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.5}],
        "latency": 0.5,
        "cached": False,
        "usage": {},
        "predicted_patch": None,
        "predicted_text": None,
        "predicted_cursor": None,
        "prompt": None,
        "raw_output": None,
        "matched_candidate": None,
        "best_candidate": 1,
        "metrics": {},
        "notes": [],
    }
    base.update(extra)
    return base


FULL = {
    "delta_chr_f_true_positives": 10,
    "delta_chr_f_false_positives": 0,
    "delta_chr_f_false_negatives": 0,
    "delta_chr_f_beta": 0.5,
    "wrong_editable_region": False,
    "has_isolated_whitespace_changes": False,
    "inserted_tokens": 3,
    "deleted_tokens": 0,
    "kept_rate": 1.0,
    "recall_rate": 1.0,
    "kept_chars": 5,
    "correctly_deleted_chars": 0,
    "discarded_chars": 0,
}


def metrics(chrf: float, cursor: bool | None = True) -> dict[str, Any]:
    return {
        **FULL,
        "delta_chr_f": chrf,
        "delta_chr_f_precision": chrf / 100,
        "delta_chr_f_recall": chrf / 100,
        "exact_lines_tp": 1 if chrf == 100 else 0,
        "exact_lines_fp": 0 if chrf == 100 else 1,
        "exact_lines_fn": 0 if chrf == 100 else 1,
        "cursor_exact_match": cursor,
        "cursor_distance": 0 if cursor else 5,
        "reversal_ratio": 0.0,
        "braces_disbalance": 0,
    }


def corpus() -> list[dict[str, Any]]:
    good = good_diff()
    bad = sub_diff(WRONG, passed=False, predicted_cursor=WRONG.index("b - a") + 1)
    hostile_text = BEFORE.replace("def sub(a, b):\n", f"def sub(a, b):\n    return '{HOSTILE}'\n")
    hostile = sub_diff(hostile_text, passed=False, predicted_cursor=None)
    return [
        record("calc-complete-sub", "passed", metrics=metrics(100.0), matched_candidate=1, diff=good, latency=0.25),
        record(
            "calc-swapped-operands",
            "failed",
            metrics=metrics(41.0, False),
            diff=bad,
            latency=1.5,
            reason="the prediction matches none of the 1 expected patch(es)",
            prompt="<|prompt|> " + HOSTILE,
            raw_output="b - a",
        ),
        record(
            f"shapes-{HOSTILE}",
            "failed",
            SHAPES,
            metrics=metrics(12.5, False),
            diff=hostile,
            latency=0.9,
            tags=["rename", HOSTILE],
            reason=f"reason {HOSTILE}",
        ),
        record(
            "shapes-server-down",
            "error",
            SHAPES,
            latency=None,
            tags=[],
            reason="infrastructure: the model server could not be reached (fix: start it, or set --editpred-base-url)",
            attempts=[
                {"ordinal": 1, "error": "ConnectError", "latency": 0.01},
                {"ordinal": 2, "error": "ConnectError", "latency": 0.02},
            ],
        ),
        *[
            record(
                "calc-trials",
                "passed" if t != 2 else "failed",
                metrics=metrics(100.0 if t != 2 else 30.0),
                diff=good if t != 2 else bad,
                trial=t,
                nodeid=f"evals/calc-trials.md::calc-trials[t{t}]",
                latency=0.1 * t,
            )
            for t in (1, 2, 3)
        ],
    ]


def baseline() -> list[dict[str, Any]]:
    good = good_diff()
    return [
        record("calc-complete-sub", "failed", metrics=metrics(20.0), diff=good),
        record("calc-swapped-operands", "passed", metrics=metrics(100.0), diff=good),
        record("old-only", "passed", metrics=metrics(100.0)),
    ]


@pytest.fixture(scope="module")
def browser() -> Any:
    with Browser(chromium(), width=1400, height=900) as b:
        yield b


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("viewer")
    plain, compared = root / "report.html", root / "compare.html"
    plain.write_text(render_html(corpus(), None, title=f"run {HOSTILE}"), encoding="utf-8")
    compared.write_text(render_html(corpus(), None, title="compared", baseline=baseline()), encoding="utf-8")
    return {"plain": plain, "compare": compared}


def open_item(b: Browser, page: Path, item: str, more: str = "") -> None:
    """Open ``page`` at ``#item=<item><more>`` and wait until that item's detail is drawn."""
    b.open(page.as_uri() + f"#item={item}{more}")
    detail_ready(b, item)


def choose(b: Browser, select: str, value: str) -> None:
    """Pick ``value`` in the ``<select id=select>`` as a user does: it changes, then says so."""
    b.js(
        f"(() => {{ const s = document.getElementById({json.dumps(select)}); s.value = {json.dumps(value)}; "
        "s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )


def names(b: Browser) -> list[str]:
    return b.js("Array.from(document.querySelectorAll('#spacer .row')).map(r => r.dataset.key)")


def detail_ready(b: Browser, key: str | None = None) -> None:
    want = f" && document.getElementById('detail').dataset.key === {json.dumps(key)}" if key else ""
    b.wait_for(f"document.getElementById('detail').dataset.state === 'ready'{want}")


def lines(b: Browser) -> list[dict[str, Any]]:
    """The shown diff's lines: kind, old and new line numbers, text, cursor marks."""
    return b.js(
        """Array.from(document.querySelectorAll('#detail .diffs .diff .ln')).map(l => ({
          kind: l.classList.contains('add') ? '+' : l.classList.contains('del') ? '-' : l.classList.contains('chg') ? '~' : ' ',
          a: l.dataset.a === undefined ? null : Number(l.dataset.a), b: l.dataset.b === undefined ? null : Number(l.dataset.b),
          text: Array.from(l.querySelectorAll('.tx')).map(t => t.textContent.replaceAll('\u2038', '')).join(' | '),
          marks: Array.from(l.querySelectorAll('.cur')).map(c => c.className),
          words: Array.from(l.querySelectorAll('.tx')).map(t => Array.from(t.querySelectorAll('.wd')).map(w => w.textContent).join('')).filter(Boolean)}))"""
    )


# --------------------------------------------------------------------------- static


def test_line_diff_numbers_context_and_cursors() -> None:
    a = "".join(f"l{n}\n" for n in range(1, 61))
    b = a.replace("l20\n", "L20\nnew\n").replace("l50\n", "")
    diff = line_diff(a, b, cursor_a=a.index("l30"), cursor_b=b.index("L20") + 2)
    first, cursor_hunk, last = diff["hunks"]
    assert (first["a"], first["b"], first["gap"], len(first["above"])) == (17, 17, 16, 12)
    assert first["lines"] == [
        [" ", "l17"],
        [" ", "l18"],
        [" ", "l19"],
        ["-", "l20"],
        ["+", "L20"],
        ["+", "new"],
        [" ", "l21"],
        [" ", "l22"],
        [" ", "l23"],
    ]
    assert [x[1] for x in cursor_hunk["lines"]] == [f"l{n}" for n in range(27, 34)]  # the cursor's line, unchanged
    assert (last["a"], last["b"], last["lines"][3]) == (47, 48, ["-", "l50"])
    assert diff["ca"] == [30, 0] and diff["cb"] == [20, 2]
    assert diff["tail"] == 7 and diff["below"] == [f"l{n}" for n in range(54, 61)]


def test_line_diff_is_bounded() -> None:
    a = "x\n" * 5000
    b = "y\n" * 5000
    diff = line_diff(a, b)
    assert diff["clipped"] and sum(len(h["lines"]) for h in diff["hunks"]) == 300
    long = line_diff("a\n", "b" * 10_000 + "\n")
    assert len(long["hunks"][0]["lines"][1][1]) < 500


def test_page_embeds_no_markup_from_records() -> None:
    page = render_html(corpus(), None, title=f"run {HOSTILE}")
    assert "<img" not in page and HOSTILE not in page
    assert page.count("<script") == page.count("</script>")
    assert len(re.findall(r"<script>", page)) == 1  # the one executable script, allowed by its hash
    assert not re.search(r"""\s(src|href)\s*=\s*["'](?!#)""", page)  # loads nothing
    assert "<link" not in page and "url(" not in page


def test_page_inlines_the_asset_files_and_allows_the_script_by_hash() -> None:
    """The page's one style sheet and one script are the shipped asset files, byte for
    byte, and its Content-Security-Policy allows that script by its sha256 hash."""
    import base64
    import hashlib
    from html import unescape
    from importlib.resources import files

    assets = files("pytest_editpred.reports") / "assets"
    css = (assets / "viewer.css").read_bytes().decode("utf-8")
    js = (assets / "viewer.js").read_bytes().decode("utf-8")
    page = render_html(corpus(), None, title="assets")
    assert re.findall(r"<style>(.*?)</style>", page, re.S) == [css]
    assert re.findall(r"<script>(.*?)</script>", page, re.S) == [js]

    def source(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"

    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert meta is not None
    policy = dict(d.strip().split(" ", 1) for d in unescape(meta[1]).split(";"))
    assert policy["script-src"] == source(js)
    assert policy["style-src"] in ("'unsafe-inline'", source(css))  # inline styles run no code


def test_page_size_is_bounded_per_item() -> None:
    huge = [
        record(f"big-{n}", "failed", prompt="p" * 200_000, raw_output="r" * 200_000, metrics=metrics(1.0))
        for n in range(20)
    ]
    _, details = page_data(huge)
    assert all(len(d["prompt"]) < 4_100 and len(d["raw"]) < 4_100 for d in details)  # the JSONL keeps 200,000
    from pytest_editpred.reports._viewer_assets import CSS, JS

    # the page itself (its script and style sheet, and 10 KB), then about 8 KB an item
    assert len(render_html(huge)) < len(JS) + len(CSS) + 10_000 + 20 * 9_000


# --------------------------------------------------------------------------- browser


def test_list_filters_by_outcome_search_and_repo(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    b.resize(1400, 900)
    b.open(pages["plain"].as_uri())
    assert b.js("document.getElementById('shown').textContent") == "5"  # trials of one example are one row
    assert names(b) == [
        "shapes-server-down",
        "calc-swapped-operands",
        "calc-trials",
        f"shapes-{HOSTILE}",
        "calc-complete-sub",
    ]
    b.click("input[name=outcome][value=passed]")  # untick
    assert names(b) == ["shapes-server-down", "calc-swapped-operands", "calc-trials", f"shapes-{HOSTILE}"]
    assert b.js("location.hash") == "#outcome=error%2Cfailed"
    b.click("#f-search")
    b.type("calc")
    assert names(b) == ["calc-swapped-operands", "calc-trials"]
    assert "q=calc" in b.js("location.hash")
    for _ in "calc":
        b.key("Backspace")
    choose(b, "f-repo", SHAPES)
    assert names(b) == ["shapes-server-down", f"shapes-{HOSTILE}"]
    b.click("input[name=outcome][value=passed]")
    choose(b, "f-tag", "rename")
    assert names(b) == [f"shapes-{HOSTILE}"]
    # the hostile text is text: no element was made of it, nothing ran
    assert b.js("document.querySelectorAll('img').length") == 0 and b.js("window.__pwned === undefined")
    assert b.js("document.querySelector('#spacer .row .name').textContent") == f"shapes-{HOSTILE}"
    assert b.js("document.title") == f"run {HOSTILE}"


def test_sorting_by_metric_and_latency(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    b.open(pages["plain"].as_uri() + "#sort=delta_chr_f&dir=desc")
    # mean chrF: complete-sub 100, trials 76.7, swapped 41, hostile 12.5; the error has none: last
    assert names(b) == [
        "calc-complete-sub",
        "calc-trials",
        "calc-swapped-operands",
        f"shapes-{HOSTILE}",
        "shapes-server-down",
    ]
    b.click("#f-dir")
    assert names(b)[:4] == [f"shapes-{HOSTILE}", "calc-swapped-operands", "calc-trials", "calc-complete-sub"]
    assert "dir=desc" not in b.js("location.hash")
    choose(b, "f-sort", "latency")
    assert names(b) == [
        "calc-trials",
        "calc-complete-sub",
        f"shapes-{HOSTILE}",
        "calc-swapped-operands",
        "shapes-server-down",
    ]
    choose(b, "f-sort", "name")
    assert names(b) == sorted(names(b))


def test_keyboard_next_and_previous_failure(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    b.open(pages["plain"].as_uri() + "#sort=name")
    b.click("#list")
    order = names(b)
    assert order == [
        "calc-complete-sub",
        "calc-swapped-operands",
        "calc-trials",
        f"shapes-{HOSTILE}",
        "shapes-server-down",
    ]
    b.key("n")
    detail_ready(b, "calc-swapped-operands")
    b.key("n")
    detail_ready(b, "calc-trials")  # a failed trial makes the example a failure
    b.key("n")
    detail_ready(b, f"shapes-{HOSTILE}")
    b.key("n")
    detail_ready(b, "shapes-server-down")
    b.key("n")  # no failure after the last: stays
    detail_ready(b, "shapes-server-down")
    b.key("p")
    detail_ready(b, f"shapes-{HOSTILE}")
    b.key("p")
    detail_ready(b, "calc-trials")
    b.key("k")
    detail_ready(b, "calc-swapped-operands")
    b.key("k")
    detail_ready(b, "calc-complete-sub")  # k: previous item, passed or not
    assert b.js("document.querySelector('#spacer .row[aria-selected=true]').dataset.key") == "calc-complete-sub"
    assert b.js("document.getElementById('list').getAttribute('aria-activedescendant')") == "row-0"
    assert "item=calc-complete-sub" in b.js("location.hash")


def test_diff_lines_numbers_cursors_and_changed_characters(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    open_item(b, pages["plain"], "calc-swapped-operands", "&view=unified")
    shown = lines(b)
    changed = [x for x in shown if x["kind"] != " "]
    assert changed == [
        {"kind": "-", "a": 21, "b": None, "text": "    return a - b", "marks": ["cur a"], "words": ["a - b"]},
        {"kind": "+", "a": None, "b": 21, "text": "    return b - a", "marks": ["cur b"], "words": ["b - a"]},
    ]
    assert [x["a"] for x in shown] == [18, 19, 20, 21, None, 22, 23, 24]
    # the cursors sit where the expected patch and the prediction put them
    assert (
        b.js(
            "document.querySelector('#detail .ln.del .tx').firstChild.nodeType === 3 && "
            "document.querySelector('#detail .ln.del .cur').previousSibling.textContent"
        )
        == "a - b"
    )
    assert b.js("document.querySelector('#detail .ln.add .cur').nextSibling.textContent") == " - a"
    # the whole story: reason, metrics with meanings, attempts, prompt, edit history, excerpt
    text = b.js("document.getElementById('detail').innerText")
    for needle in (
        "the prediction matches none",
        "delta-chrF",
        "character n-gram",
        "provider",
        "qwen",
        "Attempts (1)",
        "Prompt (",
        "Raw answer",
        "Edit history (1 edit",
        "Excerpt the model saw: calc.py lines 1–40",
        "evals/calc-swapped-operands.md::calc-swapped-operands",
    ):
        assert needle in text, needle


def test_expanding_a_hunk_and_switching_split(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    open_item(b, pages["plain"], "calc-swapped-operands", "&view=unified")
    assert b.js("document.querySelector('#detail .expand').textContent") == "show 12 more lines above (of 17 hidden)"
    b.click("#detail .expand[data-hunk='0']")
    detail_ready(b, "calc-swapped-operands")
    assert [x["a"] for x in lines(b)][:3] == [6, 7, 8]
    b.click("#detail .expand[data-hunk='below']")
    detail_ready(b)
    assert [x["a"] for x in lines(b)][-1] == 36
    b.click("#view-split")
    detail_ready(b)
    assert b.js("document.querySelector('#detail .diff').classList.contains('split')")
    assert "view=split" in b.js("location.hash")
    pair = [x for x in lines(b) if x["kind"] == "~"]
    assert pair == [
        {
            "kind": "~",
            "a": 21,
            "b": 21,
            "text": "    return a - b |     return b - a",
            "marks": ["cur a", "cur b"],
            "words": ["a - b", "b - a"],
        }
    ]
    b.key("u")
    detail_ready(b)
    assert not b.js("document.querySelector('#detail .diff').classList.contains('split')")
    b.click("#tab-predicted")
    detail_ready(b)
    assert [x["kind"] + x["text"] for x in lines(b) if x["kind"] != " "] == ["+    return b - a"]


def test_passed_items_show_their_edit_compactly(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    open_item(b, pages["plain"], "calc-complete-sub")
    shown = lines(b)
    # the added line, three lines of context around it and around the cursor: not the 40-line file
    assert [(x["kind"], x["a"], x["b"]) for x in shown] == [
        (" ", 17, 17),
        (" ", 18, 18),
        (" ", 19, 19),
        (" ", 20, 20),
        ("+", None, 21),
        (" ", 21, 22),
        (" ", 22, 23),
        (" ", 23, 24),
    ]
    assert b.js("document.getElementById('tab-predicted').getAttribute('aria-selected')") == "true"


def test_trials_are_inside_their_example(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    open_item(b, pages["plain"], "calc-trials")
    assert b.js("document.querySelector('#spacer .row[data-key=calc-trials] .badge').textContent") == "2/3 passed"
    assert b.js("Array.from(document.querySelectorAll('#detail .trial')).map(t => t.textContent.trim())") == [
        "trial 1 passed",
        "trial 2 failed",
        "trial 3 passed",
    ]
    assert b.js("document.querySelector('#detail .trial[aria-pressed=true]').textContent.trim()") == "trial 2 failed"
    b.click("#detail .trial:nth-of-type(3)")
    b.wait_for("location.hash.includes('trial=3')")
    detail_ready(b)
    assert b.js("document.querySelector('#detail .badge').textContent") == "passed"


def test_error_shows_message_and_fix(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    open_item(b, pages["plain"], "shapes-server-down")
    assert (
        b.js("document.querySelector('#detail .reason').textContent")
        == "infrastructure: the model server could not be reached"
    )
    assert b.js("document.querySelector('#detail .fix').textContent") == "Fix: start it, or set --editpred-base-url"
    assert "ConnectError" in b.js("document.querySelector('#detail table.attempts').innerText")


def test_fragment_restores_the_view(browser: Browser, pages: dict[str, Path]) -> None:
    b = browser
    b.open(
        pages["plain"].as_uri()
        + "#outcome=failed&sort=delta_chr_f&dir=desc&item=calc-trials&trial=2&view=split&tab=versus"
    )
    detail_ready(b, "calc-trials")
    assert names(b) == ["calc-trials", "calc-swapped-operands", f"shapes-{HOSTILE}"]
    assert b.js("document.querySelector('input[name=outcome][value=passed]').checked") is False
    assert b.js("document.getElementById('f-sort').value") == "delta_chr_f"
    assert b.js("document.querySelector('#detail .diff').classList.contains('split')")
    assert b.js("document.querySelector('#detail .trial[aria-pressed=true]').textContent.trim()") == "trial 2 failed"


def test_comparison_view(browser: Browser, pages: dict[str, Path]) -> None:
    from pytest_editpred.reports import compare

    b = browser
    b.open(pages["compare"].as_uri())
    result = compare(baseline(), corpus())
    counts = result.counts
    text = b.js("document.getElementById('compare').innerText")
    for status, n in counts.items():
        assert f"{n} {status}" in text
    lines_ = result.format().splitlines()
    assert lines_[1].split("pass rate", 1)[1].split("(")[0].strip() in text  # the same difference and interval
    assert lines_[2].split("delta-chrF", 1)[1].split("(")[0].strip() in text
    assert b.js("document.querySelector('#spacer .row[data-key=calc-swapped-operands] .badge.regressed') !== null")
    b.click("input[name=status][value=unchanged]")
    b.click("input[name=status][value=new]")
    b.click("input[name=status][value=missing]")
    b.click("input[name=status][value=improved]")
    assert names(b) == ["calc-swapped-operands"]
    assert "status=regressed" in b.js("location.hash")
    b.click("#spacer .row")
    detail_ready(b, "calc-swapped-operands")
    sides = b.js(
        "Array.from(document.querySelectorAll('#detail .comparison .side')).map(s => s.innerText.replaceAll('\u2038', ''))"
    )
    assert sides[0].startswith("Baseline") and "passed" in sides[0] and "return a - b" in sides[0]
    assert sides[1].startswith("This run") and "failed" in sides[1] and "return b - a" in sides[1]
    b.open(pages["compare"].as_uri() + "#status=missing")
    assert names(b) == ["old-only"]


def test_big_pages_are_compressed_and_still_open(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_editpred.reports import _viewer

    monkeypatch.setattr(_viewer, "COMPRESS_ABOVE", 0)
    page = tmp_path / "gz.html"
    text = render_html(corpus(), None, title="gz")
    assert 'type="application/x-editpred-gzip"' in text and "return b - a" not in text
    page.write_text(text, encoding="utf-8")
    browser.resize(1400, 900)
    open_item(browser, page, "calc-swapped-operands", "&view=unified")
    assert [x["text"] for x in lines(browser) if x["kind"] == "+"] == ["    return b - a"]
