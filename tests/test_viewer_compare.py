"""The viewer's comparison with a baseline, in headless Chromium, wide and narrow.

Two runs of the same examples by two providers: the filters never empty the list
wrongly (choosing the baseline's provider lists the examples the baseline ran) and the
detail pane follows the list; an item in both runs shows both predictions, the
baseline's and this run's, right under its diff; line numbers of 4 to 6 digits stay on
one line, split or unified; ``#item=NAME&open=prompt`` (or ``raw``) opens that section
and scrolls to it. Each is checked at 1400 and at 600 pixels wide.
Chromium is required (the CI installs it): when it is missing these tests FAIL.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cdp import Browser, chromium

from pytest_editpred.reports import edit_view, render_html

CALC = "https://github.com/acme/calc"
NEW, OLD = "zeta-new", "old-provider"
WIDTHS = [1400, 600]


def numbered(lines: int, at: int, text: str) -> str:
    """A file of ``lines`` lines, ``text`` on line ``at`` (1-based)."""
    return "".join(f"{text}\n" if n == at else f"line {n}\n" for n in range(1, lines + 1))


def diff_of(before: str, predicted: str, expected: str, cursor: int) -> dict[str, Any]:
    """The record's ``diff`` field as the plugin writes it (:func:`edit_view`)."""
    row = before.count("\n", 0, cursor)
    scene = SimpleNamespace(
        cursor=SimpleNamespace(
            path="calc.py", offset=cursor, row=row, column=cursor - before.rfind("\n", 0, cursor) - 1
        ),
        buffers={"calc.py": before},
        events=(
            SimpleNamespace(
                path="calc.py",
                old_path="calc.py",
                diff=f"@@ -{row},1 +{row},2 @@\n line\n+def sub(a, b):\n",
                predicted=False,
            ),
        ),
    )
    verdict = SimpleNamespace(
        passed=predicted == expected,
        best=0,
        candidates=(SimpleNamespace(buffers={"calc.py": expected}, cursor=None),),
        predicted_buffers={"calc.py": predicted},
        predicted_cursor=None,
        changed_paths=("calc.py",),
    )
    out = edit_view(scene, verdict)
    assert out is not None
    return out


def example(lines: int, at: int, predicted_body: str) -> tuple[dict[str, Any], str]:
    """The diff of a prediction adding ``predicted_body`` under ``def sub`` on line ``at``."""
    before = numbered(lines, at, "def sub(a, b):")
    expected = before.replace("def sub(a, b):\n", "def sub(a, b):\n    return a - b\n")
    predicted = before.replace("def sub(a, b):\n", f"def sub(a, b):\n    {predicted_body}\n")
    cursor = before.index("def sub(a, b):") + len("def sub(a, b):")
    return diff_of(before, predicted, expected, cursor), predicted


def record(name: str, outcome: str, provider: str, **extra: Any) -> dict[str, Any]:
    chrf = 100.0 if outcome == "passed" else 30.0
    base: dict[str, Any] = {
        "name": name,
        "nodeid": f"evals/{name}.md::{name}",
        "path": f"evals/{name}.md",
        "repository_url": CALC,
        "revision": "0123456789abcdef",
        "tags": ["completion"],
        "provider": provider,
        "model": "zeta-2" if provider == NEW else "qwen-old",
        "trial": 1,
        "outcome": outcome,
        "reason": None if outcome == "passed" else "the prediction matches none of the 1 expected patch(es)",
        "attempts": [{"ordinal": 1, "error": None, "latency": 0.5}],
        "latency": 0.5,
        "cached": False,
        "usage": {},
        "predicted_patch": None,
        "predicted_cursor": None,
        "prompt": "<|prompt|>\n" + "context line\n" * 300 + "the end of the prompt",
        "raw_output": "<|answer|>\n" + "answer line\n" * 200 + "the end of the answer",
        "matched_candidate": 1 if outcome == "passed" else None,
        "best_candidate": 1,
        "metrics": {"delta_chr_f": chrf, "exact_lines_tp": 1, "exact_lines_fp": 0, "exact_lines_fn": 0},
        "notes": [],
    }
    base.update(extra)
    return base


def runs() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """This run (provider ``zeta-new``) and the baseline (``old-provider``)."""
    right, _ = example(1_200, 1_000, "return a - b")  # four-digit line numbers
    wrong, _ = example(1_200, 1_000, "return b - a")
    big_new, _ = example(123_460, 123_400, "return a + b")  # six digits
    big_old, _ = example(123_460, 123_400, "return a * b")
    new = [
        record("calc-sub", "passed", NEW, diff=right),
        record("big-file", "failed", NEW, diff=big_new),
        record("new-only", "failed", NEW, diff=wrong),
    ]
    old = [
        record("calc-sub", "failed", OLD, diff=wrong),
        record("big-file", "failed", OLD, diff=big_old),
        # an outcome this run has none of: its box must still be there to tick
        record("old-only", "error", OLD, reason="infrastructure: the server could not be reached", metrics={}),
    ]
    return new, old


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    new, old = runs()
    path = tmp_path_factory.mktemp("compare") / "compare.html"
    path.write_text(render_html(new, None, title="compare", baseline=old), encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def browser(request: pytest.FixtureRequest) -> Any:
    with Browser(chromium(), width=request.param, height=900) as b:
        yield b


def open_page(b: Browser, page: Path, fragment: str, key: str | None) -> None:
    b.open(page.as_uri() + fragment, timeout=20)
    if key is None:
        b.wait_for("document.getElementById('detail').dataset.state === 'empty'", 10)
        return
    b.wait_for(
        f"document.getElementById('detail').dataset.state === 'ready' && "
        f"document.getElementById('detail').dataset.key === {json.dumps(key)}",
        10,
    )


def names(b: Browser) -> list[str]:
    return b.js("Array.from(document.querySelectorAll('#spacer .row')).map(r => r.dataset.key)")


def choose(b: Browser, select: str, value: str) -> None:
    b.js(
        f"(() => {{ const s = document.getElementById({json.dumps(select)}); s.value = {json.dumps(value)}; "
        "s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )


def search(b: Browser, text: str) -> None:
    b.js(
        "(() => { const s = document.getElementById('f-search'); "
        f"s.value = {json.dumps(text)}; s.dispatchEvent(new Event('input', {{bubbles: true}})); }})()"
    )


def detail_state(b: Browser) -> dict[str, Any]:
    return b.js(
        """(() => { const d = document.getElementById('detail');
          return {state: d.dataset.state, key: d.dataset.key ?? null, text: d.innerText,
                  open: document.getElementById('main').classList.contains('open'),
                  list: getComputedStyle(document.getElementById('list-pane')).display}; })()"""
    )


# --------------------------------------------------------------------------- (a) filters


def test_the_baselines_provider_lists_the_baselines_examples_and_the_detail_follows(
    browser: Browser, page: Path
) -> None:
    b = browser
    open_page(b, page, "#item=calc-sub", "calc-sub")
    assert sorted(names(b)) == ["big-file", "calc-sub", "new-only", "old-only"]
    choose(b, "f-provider", OLD)
    assert sorted(names(b)) == ["big-file", "calc-sub", "old-only"]  # what the baseline ran, not an empty list
    b.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    assert detail_state(b)["key"] == "calc-sub"  # still listed: still shown
    choose(b, "f-provider", NEW)
    assert sorted(names(b)) == ["big-file", "calc-sub", "new-only"]
    # a filter that hides the item: the detail pane lets it go, and says why
    search(b, "big")
    assert names(b) == ["big-file"]
    b.wait_for("document.getElementById('detail').dataset.state === 'empty'")
    shown = detail_state(b)
    assert shown["key"] is None and "calc-sub is hidden by the filters" in shown["text"]
    assert not shown["open"] and shown["list"] != "none"  # narrow: the list is back on screen
    assert "item=calc-sub" in b.js("location.hash")  # loosen the filter and the item comes back
    search(b, "")
    b.wait_for("document.getElementById('detail').dataset.key === 'calc-sub'")
    b.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    # nothing matches: the pane says so
    search(b, "no such example")
    b.wait_for("document.getElementById('detail').dataset.state === 'empty'")
    assert names(b) == [] and "No item matches the filters" in detail_state(b)["text"]


def test_an_outcome_only_the_baseline_has_can_be_listed(browser: Browser, page: Path) -> None:
    b = browser
    open_page(b, page, "#status=missing", None)
    assert names(b) == ["old-only"]  # an error in the baseline: listed though this run has no error
    assert b.js("document.querySelector('input[name=outcome][value=error]').checked") is True
    b.click("input[name=outcome][value=error]")
    assert names(b) == []
    b.click("input[name=outcome][value=error]")
    assert names(b) == ["old-only"]


# --------------------------------------------------------------------------- (b) both predictions


def test_an_item_in_both_runs_shows_both_predictions_under_its_diff(browser: Browser, page: Path) -> None:
    b = browser
    open_page(b, page, "#item=calc-sub", "calc-sub")
    sides = b.js(
        """(() => { const c = document.querySelector('#detail .comparison'), parts = Array.from(c.parentNode.children);
          return {order: parts.map(p => p.className || p.tagName).filter(x => x !== 'reason' && x !== 'trials'),
                  sides: Array.from(c.querySelectorAll('.side')).map(s => {
            const r = s.getBoundingClientRect();
            return {run: s.dataset.run, text: s.innerText.replaceAll('\u2038', ''),
                    added: Array.from(s.querySelectorAll('.ln.add .tx'))
                      .map(t => t.textContent.replaceAll('\u2038', '')),
                    left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }),
            card: document.getElementById('detail').getBoundingClientRect().right}; })()"""
    )
    # right under the item's own diff and metrics, before the facts and the story
    assert sides["order"][:5] == ["card-head", "diffs", "metrics", "comparison", "facts"]
    old, new = sides["sides"]
    assert old["run"] == "old" and old["text"].startswith("Baseline") and OLD in old["text"]
    assert old["added"] == ["    return b - a"] and "failed" in old["text"]
    assert new["run"] == "new" and new["text"].startswith("This run") and NEW in new["text"]
    assert new["added"] == ["    return a - b"] and "passed" in new["text"]
    if b.width == 1400:  # beside each other
        assert abs(old["top"] - new["top"]) < 1 and old["right"] <= new["left"]
    else:  # one above the other, each as wide as the card allows
        assert old["bottom"] <= new["top"]
    assert max(old["right"], new["right"]) <= sides["card"] + 1
    assert b.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # an item only this run has: the baseline's side says so
    open_page(b, page, "#item=new-only", "new-only")
    text = b.js("document.querySelector('#detail .side[data-run=old]').innerText")
    assert "Not in the baseline" in text


# --------------------------------------------------------------------------- (c) line numbers

ONE_LINE = """(() => {
  const out = [];
  for (const s of document.querySelectorAll(%s)) {
    if (!s.textContent) continue;
    const range = document.createRange(); range.selectNodeContents(s);
    const rects = range.getClientRects(), box = s.getBoundingClientRect(), text = range.getBoundingClientRect();
    out.push({n: s.textContent, lines: rects.length,
              inside: text.left >= box.left - 0.5 && text.right <= box.right + 0.5});
  }
  return out; })()"""


@pytest.mark.parametrize("view", ["split", "unified"])
@pytest.mark.parametrize(("item", "digits"), [("calc-sub", 4), ("big-file", 6)])
def test_line_numbers_of_four_to_six_digits_stay_on_one_line(
    browser: Browser, page: Path, view: str, item: str, digits: int
) -> None:
    b = browser
    open_page(b, page, f"#item={item}&view={view}&open=history,excerpt", item)
    shown = b.js(ONE_LINE % json.dumps("#detail .diff .na, #detail .diff .nb"))
    assert {len(x["n"]) for x in shown} >= {digits}
    wrapped = [x for x in shown if x["lines"] != 1 or not x["inside"]]
    assert not wrapped, wrapped[:5]
    assert b.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


# --------------------------------------------------------------------------- (d) #open=


@pytest.mark.parametrize("section", ["prompt", "raw"])
def test_a_link_opens_the_prompt_or_the_raw_answer_and_scrolls_to_it(
    browser: Browser, page: Path, section: str
) -> None:
    b = browser
    open_page(b, page, f"#item=big-file&open={section}", "big-file")
    other = "raw" if section == "prompt" else "prompt"
    state = b.js(
        f"""(() => {{ const d = document.querySelector('#detail details.{section}'), r = d.getBoundingClientRect();
          return {{open: d.open, top: r.top, height: innerHeight, scrolled: scrollY,
                   other: document.querySelector('#detail details.{other}').open}}; }})()"""
    )
    assert state["open"] and not state["other"]
    assert 0 <= state["top"] < state["height"] / 2, state  # its head on screen, at the top
    assert state["scrolled"] > 0  # it was below the fold
    assert f"open={section}" in b.js("location.hash")
    # opening the other one keeps both in the link, and a redraw keeps both open
    b.click(f"#detail details.{other} > summary")
    b.wait_for("new URLSearchParams(location.hash.slice(1)).get('open') === 'prompt,raw'")
    b.click("#view-unified")
    b.wait_for("document.getElementById('detail').dataset.state === 'ready'")
    assert b.js(
        "Array.from(document.querySelectorAll('#detail details.prompt, #detail details.raw')).map(d => d.open)"
    ) == [
        True,
        True,
    ]
    b.click(f"#detail details.{section} > summary")
    b.wait_for(f"new URLSearchParams(location.hash.slice(1)).get('open') === '{other}'")
