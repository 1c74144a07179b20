"""The HTML report: escaped, self-contained, and its filters work in a real browser.

The browser checks drive headless Chromium from the command line, no extra Python
package: the page reads its filters from the URL fragment on load, so
``--dump-dom file:///report.html#outcome=failed`` is the DOM after filtering. The
controls themselves are driven from a harness page that holds the report in an
iframe and fires the events a user's clicks and typing would.
Chromium is required (the CI installs it): when it is missing these tests FAIL.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from pytest_editpred.reports import render_html

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


def test_everything_is_escaped() -> None:
    page = render_html(records(), SUMMARY, title=f"Run {XSS}")
    assert XSS not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script") == 1  # the page's own script only
    assert "<title>Run &lt;script&gt;" in page


def test_self_contained() -> None:
    page = render_html(records(), SUMMARY, title="Run")
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert not re.search(r"""\s(src|href)\s*=""", page)
    assert "Content-Security-Policy" in page and "default-src &#x27;none&#x27;" in page


def test_cards_carry_filter_attributes_and_cursor_marks() -> None:
    page = render_html(records(), SUMMARY, title="Run")
    cards = parse_cards(page)
    assert len(cards) == 5
    # Problems first: errors, failures, then passes.
    assert [c["data-outcome"] for c in cards] == ["error", "failed", "failed", "passed", "passed"]
    swapped = next(c for c in cards if c["data-name"] == "calc: swapped operands")
    assert swapped["data-repo"] == CALC
    assert swapped["data-tags"] == '["completion", "operators"]'
    assert '<mark class="cursor" title="cursor">\u2038</mark>' in page
    assert "Expected (candidate 2)" in page
    assert '<span class="line chg">    return b - a<mark' in page  # the differing line is marked
    assert '<option value="https://github.com/acme/shapes.git">shapes</option>' in page


def test_summary_tiles() -> None:
    page = render_html(records(), SUMMARY, title="Run")
    assert "40.0%" in page  # pass rate
    assert "64.8" in page  # avg delta-chrF
    assert "50%" in page and "of 4 with a cursor" in page
    assert "95% CI" in page
    assert "All summary fields" in page


def test_degrades_without_views_or_summary() -> None:
    bare = [
        {"name": "only a patch", "outcome": "failed", "predicted_patch": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"},
        {"name": "only text", "outcome": "passed", "predicted_text": "x = 1\n"},
        {"name": "nothing", "outcome": "error"},
        {"outcome": "weird"},
    ]
    page = render_html(bare)
    cards = parse_cards(page)
    assert len(cards) == 4
    assert '<span class="line add">+b</span>' in page
    assert "No prediction." in page
    assert 'value="weird"' in page  # an unknown outcome still gets a checkbox
    assert "25.0%" in page  # pass rate computed from the records


def test_secrets_are_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDITPRED_API_KEY", "sk-html-secret-0123456789")
    leaky = [record("x", "error", CALC, [], reason="401 with sk-html-secret-0123456789")]
    assert "sk-html-secret-0123456789" not in render_html(leaky, {}, "t")


# --------------------------------------------------------------------------- browser


class _Cards(HTMLParser):
    """Collects the cards' attributes and the ``#shown`` counter."""

    def __init__(self) -> None:
        super().__init__()
        self.cards: list[dict[str, str | None]] = []
        self.ids: dict[str, dict[str, str | None]] = {}
        self.shown = ""
        self._in_shown = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "article" and "card" in (values.get("class") or "").split():
            self.cards.append(values)
        if values.get("id"):
            self.ids[str(values["id"])] = values
        self._in_shown = values.get("id") == "shown"

    def handle_data(self, data: str) -> None:
        if self._in_shown:
            self.shown += data
            self._in_shown = False


def parse_cards(page: str) -> list[dict[str, str | None]]:
    parser = _Cards()
    parser.feed(page)
    return parser.cards


def find_chromium() -> str:
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(candidate)
        if found:
            return found
    pytest.fail(
        "headless Chromium is needed to test the HTML report's filters and was not found; "
        "install it (Debian/Ubuntu: apt-get install -y chromium)",
        pytrace=False,
    )


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    command = [
        find_chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=2000",
        *args,
    ]
    env = {**os.environ, "HOME": str(tmp_path)}  # no crash reports or config in the real home
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, f"chromium failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "report.html"
    path.write_text(render_html(records(), SUMMARY, title="editpred: test run"), encoding="utf-8")
    return path


def visible(tmp_path: Path, page: Path, fragment: str = "") -> tuple[list[str], _Cards]:
    """Names of the cards the page shows after loading with ``#fragment``."""
    url = page.as_uri() + (f"#{fragment}" if fragment else "")
    dom = chromium(tmp_path, "--dump-dom", url).stdout
    parser = _Cards()
    parser.feed(dom)
    assert len(parser.cards) == 5, "the page did not render its cards"
    names = [str(c["data-name"]) for c in parser.cards if "hidden" not in c]
    assert parser.shown == str(len(names))  # the "showing N of M" counter agrees
    return names, parser


def test_browser_renders_every_card(tmp_path: Path, page: Path) -> None:
    names, parser = visible(tmp_path, page)
    assert len(names) == 5
    assert "hidden" in parser.ids["empty"]


def test_browser_outcome_filter(tmp_path: Path, page: Path) -> None:
    names, _ = visible(tmp_path, page, "outcome=failed")
    assert names == ["calc: swapped operands", f"shapes: injected {XSS}".lower()]
    names, _ = visible(tmp_path, page, "outcome=passed,error")
    assert sorted(names) == ["calc: complete sub", "shapes: patch only", "shapes: server down"]


def test_browser_repository_tag_and_search_filters(tmp_path: Path, page: Path) -> None:
    names, _ = visible(tmp_path, page, "repo=" + quote(SHAPES, safe=""))
    assert sorted(names) == ["shapes: injected <script>alert(1)</script>", "shapes: patch only", "shapes: server down"]
    names, _ = visible(tmp_path, page, "tag=completion")
    assert sorted(names) == ["calc: complete sub", "calc: swapped operands"]
    names, _ = visible(tmp_path, page, "repo=" + quote(SHAPES, safe="") + "&tag=rename&q=PATCH")
    assert names == ["shapes: patch only"]


def test_browser_nothing_matches(tmp_path: Path, page: Path) -> None:
    names, parser = visible(tmp_path, page, "outcome=")
    assert names == []
    assert "hidden" not in parser.ids["empty"]


def test_browser_runs_no_injected_script(tmp_path: Path, page: Path) -> None:
    dom = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    assert dom.count("<script") == 1
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom


def test_browser_screenshot(tmp_path: Path, page: Path) -> None:
    shot = tmp_path / "page.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,900", page.as_uri())
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 10_000  # a rendered page, not a blank image
    keep = os.environ.get("EDITPRED_KEEP_SCREENSHOT")
    if keep:  # for a human look: EDITPRED_KEEP_SCREENSHOT=/tmp/report.png pytest ...
        shutil.copy(shot, keep)


def test_views_of_different_files_say_which() -> None:
    r = record(
        "other file",
        "failed",
        CALC,
        [],
        expected_view={"path": "a.py", "expected": "x\u2038\n"},
        predicted_view={"path": "b.py", "predicted": "y\u2038\n"},
    )
    page = render_html([r])
    assert "Expected · a.py" in page and "Predicted · b.py" in page


#: Drives the report's own controls in an iframe, as a user would (untick a box,
#: pick from a list, type), then writes what the report shows into this page for
#: ``--dump-dom``. Each step records the names of the cards left visible and the
#: fragment the report wrote back, which makes the view a link that can be shared.
HARNESS = """<!doctype html><meta charset="utf-8"><pre id="out"></pre>
<iframe id="report" src="report.html"></iframe>
<script>
const frame = document.getElementById("report");
frame.addEventListener("load", () => {
  const doc = frame.contentDocument, out = [];
  const state = (step) => out.push(step + " | " + Array.from(doc.querySelectorAll("article.card"))
    .filter((c) => !c.hidden).map((c) => c.dataset.name).sort().join(" ; ")
    + " | " + frame.contentWindow.location.hash + " | " + doc.getElementById("shown").textContent);
  const fire = (el, type) => el.dispatchEvent(new Event(type, {bubbles: true}));
  const passed = doc.querySelector("input[name=outcome][value=passed]");
  passed.click();
  state("untick passed");
  const repo = doc.getElementById("f-repo");
  repo.value = REPO; fire(repo, "change");
  state("pick repository");
  const search = doc.getElementById("f-search");
  search.value = "server"; fire(search, "input");
  state("type server");
  passed.click(); search.value = ""; fire(search, "input"); repo.value = ""; fire(repo, "change");
  state("reset");
  document.getElementById("out").textContent = out.join("\\n");
});
</script>"""


def test_browser_controls_filter_and_write_the_fragment(tmp_path: Path, page: Path) -> None:
    harness = tmp_path / "harness.html"
    harness.write_text(HARNESS.replace("REPO", json.dumps(SHAPES)), encoding="utf-8")
    dom = chromium(tmp_path, "--allow-file-access-from-files", "--dump-dom", harness.as_uri()).stdout
    out = html.unescape(dom.split('<pre id="out">', 1)[1].split("</pre>", 1)[0]).splitlines()
    steps = {line.split(" | ")[0]: line.split(" | ")[1:] for line in out}
    assert list(steps) == ["untick passed", "pick repository", "type server", "reset"], dom[-2000:]
    xss, repo = f"shapes: injected {XSS}".lower(), "repo=" + quote(SHAPES, safe="")
    assert steps == {
        "untick passed": [f"calc: swapped operands ; {xss} ; shapes: server down", "#outcome=error%2Cfailed", "3"],
        "pick repository": [f"{xss} ; shapes: server down", f"#outcome=error%2Cfailed&{repo}", "2"],
        "type server": ["shapes: server down", f"#outcome=error%2Cfailed&{repo}&q=server", "1"],
        "reset": [f"calc: complete sub ; calc: swapped operands ; {xss} ; shapes: patch only ; shapes: server down", "", "5"],
    }
