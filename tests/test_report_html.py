"""The HTML report: escaped, self-contained, and it reads records of any age.

These records are the older kind, without the ``diff`` field: the viewer builds its
diffs from their ``expected_view``/``predicted_view`` windows (numbered from the
window, and saying so), and records with less still render. The viewer's own
behaviour is tested in ``test_report_viewer.py``; the browser here is headless
Chromium over the DevTools protocol (``tests/cdp.py``).
Chromium is required (the CI installs it): when it is missing these tests FAIL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from cdp import Browser, find_chromium

from pytest_editpred.reports import render_html
from pytest_editpred.reports._viewer import summary_of, terminal_lines

CALC = "https://github.com/acme/calc"
SHAPES = "https://github.com/acme/shapes.git"
XSS = "<script>alert(1)</script>"


def record(name: str, outcome: str, repo: str, tags: list[str], **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "nodeid": f"evals/{name}.md::{name}",
        "path": f"/repo/evals/{name}.md",
        "repository_url": repo,
        "revision": "0123456789abcdef0123456789abcdef01234567",
        "tags": tags,
        "provider": "openai",
        "model": "qwen-coder-7b",
        "trial": 1,
        "outcome": outcome,
        "reason": None,
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.42}],
        "latency": 0.42,
        "cached": False,
        "predicted_patch": None,
        "predicted_text": None,
        "predicted_cursor": None,
        "matched_candidate": None,
        "metrics": {},
    }
    base.update(extra)
    return base


def view(before: str, expected: str, predicted: str, path: str = "calc.py") -> dict[str, str]:
    return {"path": path, "before": before, "expected": expected, "predicted": predicted}


def records() -> list[dict[str, Any]]:
    before = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\u2038\n"
    good = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\u2038\n"
    bad = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return b - a\u2038\n"
    injected = f"def sub(a, b):\n    return '{XSS}'\u2038\n"
    metrics = {
        "delta_chr_f": 100.0,
        "delta_chr_f_precision": 1.0,
        "delta_chr_f_recall": 1.0,
        "exact_lines_tp": 1,
        "exact_lines_fp": 0,
        "exact_lines_fn": 0,
        "cursor_exact_match": True,
        "cursor_distance": 0,
        "reversal_ratio": 0.0,
        "braces_disbalance": 0,
    }
    worse = {**metrics, "delta_chr_f": 41.25, "cursor_exact_match": False, "cursor_distance": 7, "exact_lines_fp": 1}
    return [
        record(
            "calc: complete sub",
            "passed",
            CALC,
            ["completion"],
            matched_candidate=1,
            best_candidate=1,
            metrics=metrics,
            expected_view=view(before, good, good),
            predicted_view=view(before, good, good),
        ),
        record(
            "calc: swapped operands",
            "failed",
            CALC,
            ["completion", "operators"],
            reason="the prediction matches no expected patch (best delta-chrF 41.2)",
            best_candidate=2,
            metrics=worse,
            expected_view=view(before, good, bad),
            predicted_view=view(before, good, bad),
            predicted_patch="--- a/calc.py\n+++ b/calc.py\n@@ -5 +5,2 @@\n def sub(a, b):\n+    return b - a\n",
        ),
        record(
            f"shapes: injected {XSS}",
            "failed",
            SHAPES,
            ["rename"],
            reason=f"reason with {XSS}",
            metrics=worse,
            predicted_text=injected,
            expected_view=view(before, good, injected),
            predicted_view={"path": "calc.py", "predicted": injected},
        ),
        record(
            "shapes: server down",
            "error",
            SHAPES,
            [],
            reason="infrastructure: the model server could not be reached",
            attempts=[
                {"ordinal": 1, "error": "ConnectError", "latency": 0.01},
                {"ordinal": 2, "error": "ConnectError", "latency": 0.01},
            ],
            latency=None,
        ),
        record(
            "shapes: patch only",
            "passed",
            SHAPES,
            ["rename"],
            metrics=metrics,
            predicted_patch="--- a/s.py\n+++ b/s.py\n@@ -1 +1 @@\n-old\n+new\n",
        ),
    ]


SUMMARY = {
    "total": 5,
    "passed": 2,
    "failed": 2,
    "error": 1,
    "pass_rate": 0.4,
    "total_examples": 4,
    "avg_delta_chr_f": 64.75,
    "cursor_exact_match_rate": 0.5,
    "cursor_total_evaluated": 4,
    "exact_lines_f1": 0.8,
}


# --------------------------------------------------------------------------- static


def index_of(page: str) -> dict[str, Any]:
    return json.loads(page.split('<script type="application/json" id="ep-index">', 1)[1].split("</script>", 1)[0])


def test_everything_is_escaped() -> None:
    page = render_html(records(), SUMMARY, title=f"Run {XSS}")
    assert XSS not in page and "alert(1)</script>" not in page
    assert len(re.findall(r"<script>", page)) == 1  # the page's own script only
    assert "<title>Run &lt;script&gt;" in page
    assert "\\u003cscript\\u003ealert(1)" in page  # record text is JSON, its < escaped


def test_self_contained() -> None:
    page = render_html(records(), SUMMARY, title="Run")
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert not re.search(r"""\s(src|href)\s*=\s*["'](?!#)""", page)
    assert "Content-Security-Policy" in page and "default-src &#x27;none&#x27;" in page


def test_summary_cards_use_the_run_summary() -> None:
    cards = index_of(render_html(records(), SUMMARY, title="Run"))["cards"]
    assert cards["counts"] == {"error": 1, "failed": 2, "passed": 2, "skipped": 0}
    assert cards["total"] == 5 and cards["pass_rate"]["estimate"] == 0.4
    assert cards["delta_chr_f"]["estimate"] is not None
    assert cards["cursor"]["of"] is not None


def test_secrets_are_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDITPRED_API_KEY", "sk-html-secret-0123456789")
    leaky = [record("x", "error", CALC, [], reason="401 with sk-html-secret-0123456789")]
    page = render_html(leaky, {}, "t")
    assert "sk-html-secret-0123456789" not in page and "401 with [redacted]" in page


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="module")
def browser() -> Any:
    chromium = find_chromium()
    if chromium is None:
        pytest.fail("headless Chromium is needed (Debian/Ubuntu: apt-get install -y chromium)", pytrace=False)
    with Browser(chromium, width=1200, height=900) as b:
        yield b


def show(b: Browser, tmp_path: Path, rows: list[dict[str, Any]], fragment: str = "", **kw: Any) -> None:
    page = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.html"
    page.write_text(render_html(rows, kw.get("summary"), title="t"), encoding="utf-8")
    b.open(page.as_uri() + fragment)


def test_legacy_views_become_diffs(browser: Browser, tmp_path: Path) -> None:
    show(browser, tmp_path, records(), "#item=" + quote("calc: swapped operands") + "&view=unified")
    browser.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    changed = browser.js(
        "Array.from(document.querySelectorAll('#detail .diffs .ln.add, #detail .diffs .ln.del'))"
        ".map(l => l.querySelector('.sg').textContent + l.querySelector('.tx').textContent)"
    )
    assert changed == ["-    return a - b\u2038", "+    return b - a\u2038"]
    assert "count from the recorded window" in browser.js("document.querySelector('#detail .legend').textContent")
    assert browser.js("document.querySelectorAll('#detail .cur').length") >= 2


def test_records_without_views_or_summary_render(browser: Browser, tmp_path: Path) -> None:
    bare = [
        {"name": "only a patch", "outcome": "failed", "predicted_patch": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"},
        {"name": "only text", "outcome": "passed", "predicted_text": "x = 1\n"},
        {"name": "nothing", "outcome": "error"},
        {"outcome": "weird"},
    ]
    show(browser, tmp_path, bare)
    assert browser.js("document.getElementById('shown').textContent") == "4"
    assert browser.js("document.querySelector('input[name=outcome][value=weird]') !== null")
    browser.js("document.getElementById('list').focus()")
    browser.key("j")
    browser.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    assert browser.js("document.querySelector('#detail h2').textContent") == "nothing"
    browser.key("j")
    browser.wait_for(
        "document.getElementById('detail').dataset.key === 'only a patch' && document.getElementById('detail').dataset.state === 'ready'"
    )
    assert "+b" in browser.js("document.getElementById('detail').innerText").replace("\n", "")


def test_browser_runs_no_injected_script(browser: Browser, tmp_path: Path) -> None:
    show(browser, tmp_path, records(), "#q=injected")
    assert browser.js("document.querySelectorAll('script:not([type])').length") == 1
    assert browser.js("document.querySelector('#spacer .row .name').textContent") == f"shapes: injected {XSS}"
    browser.click("#spacer .row")
    browser.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    assert XSS in browser.js("document.querySelector('#detail .reason').textContent")
    assert browser.js("document.querySelectorAll('#detail script').length") == 0


def test_views_of_different_files_say_which(browser: Browser, tmp_path: Path) -> None:
    r = record(
        "other file",
        "failed",
        CALC,
        [],
        expected_view={"path": "a.py", "expected": "x\u2038\n"},
        predicted_view={"path": "b.py", "predicted": "y\u2038\n"},
    )
    show(browser, tmp_path, [r], "#item=" + quote("other file"))
    browser.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    assert "a.py (expected) · b.py (predicted)" in browser.js("document.querySelector('#detail .legend').textContent")


def test_the_context_coverage_is_shown(browser: Browser, tmp_path: Path) -> None:
    # A context-only record (Zed's C2): the coverage's members are shown as numbers
    # with their meaning, from the nested editable_context_coverage of the record.
    coverage = {
        "lines_tp": 2,
        "lines_fp": 6,
        "lines_fn": 0,
        "lines_precision": 0.25,
        "lines_recall": 1.0,
        "lines_f1": 0.4,
        "files_tp": 1,
        "files_fp": 1,
        "files_fn": 0,
        "files_precision": 0.5,
        "files_recall": 1.0,
        "files_f1": 2 / 3,
    }
    metrics = {"delta_chr_f": 0.0, "editable_context_coverage": coverage, "retrieved_context_bytes": 33}
    r = record("c2", "passed", CALC, [], metrics=metrics, provider="context-only")
    show(browser, tmp_path, [r], "#item=c2")
    browser.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    shown = browser.js(
        "Object.fromEntries(Array.from(document.querySelectorAll('#detail dl.metrics > div'))"
        ".map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]))"
    )
    assert shown["context rows recall"].startswith("100")
    assert shown["context rows precision"].startswith("25")
    assert shown["context files precision"].startswith("50")
    assert shown["context bytes"] == "33"


def test_a_cursor_nobody_expected_is_na_not_a_miss(browser: Browser, tmp_path: Path) -> None:
    # Zed's metric calls the predicted cursor a miss when the best expected patch
    # marks none; the page says n/a, in the item's metrics and in the cursor card.
    metrics = {"delta_chr_f": 100.0, "cursor_exact_match": False, "cursor_distance": None}
    r = record("unmarked", "passed", CALC, [], metrics=metrics, expected_cursor=False, best_candidate=1)
    page = tmp_path / "unmarked.html"
    page.write_text(render_html([r], None, title="t", terminal=terminal_lines([r], summary_of([r]))))
    browser.open(page.as_uri() + "#item=unmarked")
    browser.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    shown = browser.js(
        "Object.fromEntries(Array.from(document.querySelectorAll('#detail dl.metrics > div'))"
        ".map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]))"
    )
    assert shown["cursor exact"] == "n/a"
    card = browser.js(
        "Array.from(document.querySelectorAll('#cards .tile')).filter(t => t.querySelector('.label').textContent"
        " === 'Cursor exact match').map(t => t.querySelector('.value').textContent + ' | ' + t.querySelector('.note').textContent)"
    )
    assert card == ["n/a | no scored prediction's best expected patch marks a cursor"]


def test_an_unusable_answer_still_shows_the_expected_edit(browser: Browser, tmp_path: Path) -> None:
    # An answer its format could not parse: no prediction, but the record's diff holds
    # the expected edit (against the unchanged text), and the viewer shows it.
    expected = {
        "hunks": [
            {"a": 5, "b": 5, "gap": 4, "above": [], "lines": [[" ", "def sub(a, b):"], ["+", "    return a - b"]]}
        ],
        "below": [],
        "tail": 0,
        "ca": None,
        "cb": None,
        "clipped": False,
    }
    empty = {"hunks": [], "below": [], "tail": 0, "ca": None, "cb": None, "clipped": False}
    excerpt = {"path": "calc.py", "start_line": 1, "end_line": 5, "cursor_line": 5, "cursor_column": 14,
               "text": {"first": 0, "lines": ["def sub(a, b):"], "total": 1}}  # fmt: skip
    diff = {"path": "calc.py", "relative": False, "predicted": empty, "expected": expected, "history": [],
            "excerpt": excerpt}  # fmt: skip
    r = record("unparsed", "failed", CALC, [], reason="unusable answer: no marker tags found in output", diff=diff)
    show(browser, tmp_path, [r], "#item=unparsed")
    browser.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    assert "return a - b" in browser.js("document.getElementById('detail').innerText")
