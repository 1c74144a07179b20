"""The judge's answer (a record's ``qa``) in the HTML viewer, in headless Chromium.

Each item with a ``qa`` shows the judge's verdict (judged acceptable: confidence 4 or
more and not reverting), its confidence, its reverts flag, its reasoning (folded when
long) and the error when the judge could not be used; the list filters by verdict
(acceptable / unacceptable / not judged / judge error) and by the reverts flag, and
sorts by confidence, all kept in the URL fragment like the other filters. The
reasoning and the raw answer are model output: a hostile one stays text, in a plain
page and a gzipped one, and a 100 KB one is clipped in the page. Records of an older
version (no ``qa``) show as before: no judge filter, no judge section.
Chromium is required (the CI installs it): when it is missing these tests FAIL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cdp import Browser, chromium
from test_report_viewer import (
    EXPECTED,
    EXPECTED_CURSOR,
    WRONG,
    choose,
    good_diff,
    metrics,
    names,
    open_item,
    record,
    sub_diff,
)

from pytest_editpred.reports import render_html
from pytest_editpred.reports._viewer import PAGE_TEXT_CHARS, page_data

#: Model output that would run code, close the data element or open a comment if it
#: ever became markup.
HOSTILE = (
    '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    "<!-- </SCRIPT > &amp; \u2028 <style>body{display:none}</style>"
)
LONG = "</script>" + "the judge thinks at length. " * 3_600 + HOSTILE  # about 100 KB
LONG_ANSWER = json.dumps({"reasoning": LONG, "confidence": 3})
FENCED = '```json\n{"reasoning": "It completes sub.", "reverts_edits": false, "confidence": 5}\n```'


def qa(confidence: int | None, reverts: bool | None, reasoning: str | None = None, **extra: Any) -> dict[str, Any]:
    """A ``qa`` value as Zed stores it: absent fields left out."""
    value = {"reasoning": reasoning, "reverts_edits": reverts, "confidence": confidence, **extra}
    return {k: v for k, v in value.items() if v is not None}


def corpus() -> list[dict[str, Any]]:
    good, bad = good_diff(), sub_diff(WRONG, passed=False, predicted_cursor=None)
    failed = {"metrics": metrics(40.0, False), "diff": bad}
    return [
        record(
            "exact-and-accepted",
            "passed",
            metrics=metrics(100.0),
            diff=good,
            qa=qa(5, False, "It completes sub.", response=FENCED),
        ),
        record("wrong-but-acceptable", "failed", **failed, qa=qa(4, False, "Plausible: the user may want b - a.")),
        record("reverting", "failed", **failed, qa=qa(5, True, "It undoes the user's new def.")),
        record("low-confidence", "failed", **failed, qa=qa(2, False, "Unlikely to be accepted.")),
        record("judge-down", "failed", **failed, qa={"error": "the judge could not be reached: ConnectError"}),
        record(
            "judge-garbage",
            "failed",
            **failed,
            qa={"reasoning": HOSTILE, "response": HOSTILE, "error": "Could not parse JSON from response"},
        ),
        record("long-reasoning", "failed", **failed, qa=qa(3, None, LONG, response=LONG_ANSWER)),
        record("changed-nothing", "failed", **failed, qa=None),
        record("older-version", "failed", **failed),  # no qa key at all
        *[
            record(
                "trials",
                "passed" if t == 1 else "failed",
                metrics=metrics(100.0 if t == 1 else 30.0),
                diff=good if t == 1 else bad,
                trial=t,
                nodeid=f"evals/trials.md::trials[t{t}]",
                qa=qa(5 if t == 1 else 2, False, f"trial {t}"),
            )
            for t in (1, 2)
        ],
    ]


@pytest.fixture(scope="module")
def browser() -> Any:
    with Browser(chromium(), width=1400, height=900) as b:
        yield b


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("qa") / "report.html"
    path.write_text(render_html(corpus(), None, title="judged"), encoding="utf-8")
    return path


def shown_count(b: Browser) -> int:
    return int(b.js("document.getElementById('shown').textContent"))


def pwned(b: Browser) -> bool:
    return bool(
        b.js("window.__pwned !== undefined || document.querySelectorAll('#detail img, #detail style').length > 0")
    )


# --------------------------------------------------------------------------- static


def test_index_and_details_carry_the_judges_answer() -> None:
    records = corpus()
    index, details = page_data(records)
    entries = {item[1] + (f"#{item[7]}" if item[1] == "trials" else ""): item[11] for item in index["items"]}
    assert entries == {
        "exact-and-accepted": ["acceptable", False, 5],
        "wrong-but-acceptable": ["acceptable", False, 4],
        "reverting": ["unacceptable", True, 5],  # confident, but it reverts
        "low-confidence": ["unacceptable", False, 2],
        "judge-down": ["error", None, None],
        "judge-garbage": ["error", None, None],
        "long-reasoning": ["unacceptable", None, 3],
        "changed-nothing": None,
        "older-version": None,
        "trials#1": ["acceptable", False, 5],
        "trials#2": ["unacceptable", False, 2],
    }
    by_name = {r["name"]: d for r, d in zip(records, details, strict=True)}
    assert by_name["exact-and-accepted"]["qa"] == {
        "state": "acceptable",
        "reverts": False,
        "confidence": 5,
        "reasoning": "It completes sub.",
        "response": FENCED,
    }
    # an answer that was not JSON is its own reasoning: the raw answer is not repeated
    assert by_name["judge-garbage"]["qa"] == {
        "state": "error",
        "reasoning": HOSTILE,
        "error": "Could not parse JSON from response",
    }
    long = by_name["long-reasoning"]["qa"]
    assert len(LONG) > 100_000 and long["reasoning_chars"] == len(LONG)
    assert (
        PAGE_TEXT_CHARS < len(long["reasoning"]) < PAGE_TEXT_CHARS + 100 and "characters not shown" in long["reasoning"]
    )
    assert long["reasoning"].endswith(HOSTILE) and PAGE_TEXT_CHARS < len(long["response"]) < PAGE_TEXT_CHARS + 100
    assert "qa" not in by_name["changed-nothing"] and "qa" not in by_name["older-version"]


def test_a_malformed_qa_is_left_out_and_noted() -> None:
    records = [
        record("typed-wrong", "failed", qa={"confidence": 300, "reverts_edits": "false", "reasoning": 7, "extra": 1}),
        record("float-confidence", "failed", qa={"confidence": 4.0, "reverts_edits": True}),
        record("bool-confidence", "failed", qa={"confidence": True}),
        record("not-an-object", "failed", qa=["confidence", 5]),
    ]
    index, details = page_data(records)
    assert [item[11] for item in index["items"]] == [
        ["error", None, None],  # nothing of its type is left: no verdict
        ["error", True, None],
        ["error", None, None],
        None,
    ]
    assert details[0]["qa"] == {"state": "error"}
    assert details[0]["notes"] == [
        "The viewer left out the judge's reasoning, reverts_edits, confidence: of the wrong type (reasoning, "
        "response and error are strings, reverts_edits true or false, confidence a whole number 0–255)."
    ]
    assert "confidence" in details[1]["notes"][0] and "confidence" in details[2]["notes"][0]
    assert "qa" not in details[3]
    assert details[3]["notes"] == ["The viewer left out this record's judge answer (qa): a list, not an object."]


def test_model_output_never_becomes_markup() -> None:
    text = render_html(corpus(), None, title="judged")
    # the one executable script and the data elements, nothing else; nothing of HOSTILE survives as markup
    assert text.count("<script") == text.count("</script>") == 1 + 1 + len(re.findall(r'id="ep-chunk-', text))
    assert "<img" not in text and "<style>body" not in text and "<!--" not in text and "\u2028" not in text
    # the 100 KB reasoning and its raw answer are clipped in the page (7,200 sentences in the record)
    assert text.count("the judge thinks at length.") < 2 * PAGE_TEXT_CHARS / 28 + 10


# --------------------------------------------------------------------------- browser


def test_filter_by_verdict_and_reverts(browser: Browser, page: Path) -> None:
    b = browser
    b.open(page.as_uri() + "#sort=name")
    assert shown_count(b) == 10  # the two trials are one row
    boxes = b.js(
        "Array.from(document.querySelectorAll('input[name=qa]'))"
        ".map(x => x.value + ' ' + x.parentNode.textContent.trim())"
    )
    # counted per prediction, as the outcomes are
    assert boxes == [
        "acceptable acceptable 3",
        "unacceptable unacceptable 4",
        "none not judged 2",
        "error judge error 2",
    ]
    b.click("input[name=qa][value=acceptable]")  # untick
    b.click("input[name=qa][value=unacceptable]")
    assert names(b) == ["changed-nothing", "judge-down", "judge-garbage", "older-version"]
    assert "qa=none%2Cerror" in b.js("location.hash")
    b.click("input[name=qa][value=none]")
    assert names(b) == ["judge-down", "judge-garbage"]
    b.open(page.as_uri() + "#qa=acceptable&sort=name")
    # an example of several trials is listed when one of them has the verdict (as for outcomes)
    assert names(b) == ["exact-and-accepted", "trials", "wrong-but-acceptable"]
    assert b.js("document.querySelector('input[name=qa][value=error]').checked") is False
    choose(b, "f-reverts", "yes")
    assert names(b) == []  # none of the acceptable ones reverts
    b.click("input[name=qa][value=unacceptable]")
    assert names(b) == ["reverting"]
    assert "reverts=yes" in b.js("location.hash")
    choose(b, "f-reverts", "unknown")  # not said: the judge gave no flag, or none was asked
    assert names(b) == ["long-reasoning"]
    choose(b, "f-reverts", "no")
    assert names(b) == ["exact-and-accepted", "low-confidence", "trials", "wrong-but-acceptable"]
    # the verdict filter and the outcome filter combine
    b.open(page.as_uri() + "#qa=acceptable&outcome=failed&sort=name")
    assert names(b) == ["trials", "wrong-but-acceptable"]


def test_sort_by_confidence(browser: Browser, page: Path) -> None:
    b = browser
    b.open(page.as_uri() + "#sort=qa_confidence&dir=desc")
    assert b.js("document.getElementById('f-sort').value") == "qa_confidence"
    # trials: the mean of 5 and 2; ties by name; no confidence last, by name
    assert names(b) == [
        "exact-and-accepted",
        "reverting",
        "wrong-but-acceptable",
        "trials",
        "long-reasoning",
        "low-confidence",
        "changed-nothing",
        "judge-down",
        "judge-garbage",
        "older-version",
    ]
    b.click("#f-dir")
    assert names(b)[:6] == [
        "low-confidence",
        "long-reasoning",
        "trials",
        "wrong-but-acceptable",
        "exact-and-accepted",
        "reverting",
    ]
    assert names(b)[6:] == ["changed-nothing", "judge-down", "judge-garbage", "older-version"]
    rows = b.js(
        "Object.fromEntries(Array.from(document.querySelectorAll('#spacer .row'))"
        ".map(r => [r.dataset.key, r.querySelector('.meta').textContent]))"
    )
    # beside the chrF: the judge's confidence (the mean over trials), whether it reverts, or its error
    assert rows["reverting"] == "calc · chrF 40.0 · judge 5/5 reverts · 0.50 s · completion"
    assert rows["trials"] == "calc · chrF 65.0 · judge 3.5/5 · 0.50 s · completion"
    assert rows["judge-down"] == "calc · chrF 40.0 · judge error · 0.50 s · completion"
    assert "judge" not in rows["older-version"]


def test_detail_shows_verdict_confidence_reverts_and_reasoning(browser: Browser, page: Path) -> None:
    b = browser
    open_item(b, page, "wrong-but-acceptable")
    answer = b.js("document.querySelector('#detail .qa-answer').innerText")
    assert "judged acceptable" in answer
    assert "confidence 4 (1–5" in answer and "reverts the user's edits: no" in answer
    assert b.js("document.querySelector('#detail .qa-reasoning').textContent") == "Plausible: the user may want b - a."
    assert b.js("document.querySelector('#detail details.qa')") is None  # short: not folded
    open_item(b, page, "reverting")
    assert b.js("document.querySelector('#detail .qa-answer .badge').textContent") == "judged unacceptable"
    assert "reverts the user's edits: yes" in b.js("document.querySelector('#detail .qa-answer').innerText")
    open_item(b, page, "exact-and-accepted", "&open=qa-raw")
    assert b.js("document.querySelector('#detail details.qa-raw').open") is True
    assert b.js("document.querySelector('#detail details.qa-raw pre').textContent") == FENCED
    open_item(b, page, "judge-down")
    answer = b.js("document.querySelector('#detail .qa-answer').innerText")
    assert "judge error" in answer and "confidence –" in answer and "reverts the user's edits: not said" in answer
    assert (
        b.js("document.querySelector('#detail .qa-answer .broken').textContent")
        == "The judge's answer could not be used: the judge could not be reached: ConnectError"
    )
    open_item(b, page, "trials", "&trial=2")
    assert b.js("document.querySelector('#detail .qa-reasoning').textContent") == "trial 2"
    open_item(b, page, "older-version")
    assert b.js("document.querySelector('#detail .qa-answer')") is None


def test_hostile_and_long_reasoning_stay_text(
    browser: Browser, page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_editpred.reports import _viewer

    b = browser
    gzipped = tmp_path / "gz.html"
    monkeypatch.setattr(_viewer, "COMPRESS_ABOVE", 0)
    text = render_html(corpus(), None, title="gz")
    assert 'type="application/x-editpred-gzip"' in text
    gzipped.write_text(text, encoding="utf-8")
    for where in (page, gzipped):
        open_item(b, where, "judge-garbage")
        assert b.js("document.querySelector('#detail .qa-reasoning').textContent") == HOSTILE
        assert b.js("document.querySelector('#detail details.qa-raw')") is None  # the same text: shown once
        assert not pwned(b) and b.js("getComputedStyle(document.body).display") != "none"
        open_item(b, where, "long-reasoning")
        folded = b.js("document.querySelector('#detail details.qa')")
        assert folded is not None
        assert b.js("document.querySelector('#detail details.qa').open") is False
        summary = b.js("document.querySelector('#detail details.qa summary').textContent")
        assert re.fullmatch(r"Reasoning \(4,0\d\d characters shown of 100,\d{3}\)", summary), summary
        b.click("#detail details.qa summary")
        b.wait_for("location.hash.includes('open=qa')")
        shown = b.js("document.querySelector('#detail details.qa pre').textContent")
        assert shown.startswith("</script>the judge thinks") and shown.endswith(HOSTILE)
        assert not pwned(b)


def test_records_without_qa_show_as_before(browser: Browser, tmp_path: Path) -> None:
    old = [{k: v for k, v in r.items() if k != "qa"} for r in corpus()]
    path = tmp_path / "old.html"
    path.write_text(render_html(old, None, title="older"), encoding="utf-8")
    b = browser
    b.open(path.as_uri() + "#qa=error&reverts=yes&sort=qa_confidence")
    # no judge controls, and a fragment naming them changes nothing
    assert (
        b.js("document.querySelectorAll('input[name=qa], #f-reverts, #f-sort option[value=qa_confidence]').length") == 0
    )
    assert shown_count(b) == 10 and b.js("document.getElementById('f-sort').value") == "default"
    assert "qa=" not in b.js("location.hash") and "reverts=" not in b.js("location.hash")
    assert all(
        "judge" not in m
        for m in b.js("Array.from(document.querySelectorAll('#spacer .row .meta')).map(m => m.textContent)")
    )
    open_item(b, path, "wrong-but-acceptable")
    assert b.js("document.querySelector('#detail .qa-answer')") is None
    # a run with a judge that judged nothing (every prediction unchanged) is the same
    none = [dict(r, qa=None) for r in old]
    path.write_text(render_html(none, None, title="nothing judged"), encoding="utf-8")
    b.open(path.as_uri())
    assert b.js("document.querySelectorAll('input[name=qa], #f-reverts').length") == 0


def test_the_baselines_side_shows_its_judge(browser: Browser, tmp_path: Path) -> None:
    new = [
        record(
            "sub",
            "failed",
            metrics=metrics(40.0, False),
            diff=sub_diff(WRONG, passed=False, predicted_cursor=None),
            qa=qa(4, False, "fine"),
        )
    ]
    base = [
        record(
            "sub",
            "passed",
            metrics=metrics(100.0),
            diff=sub_diff(EXPECTED, passed=True, predicted_cursor=EXPECTED_CURSOR),
        )
    ]
    path = tmp_path / "compare.html"
    path.write_text(render_html(new, None, title="compared", baseline=base), encoding="utf-8")
    open_item(browser, path, "sub")
    sides = browser.js(
        "Array.from(document.querySelectorAll('#detail .comparison .side .who')).map(s => s.textContent)"
    )
    assert "judge" not in sides[0] and sides[1].endswith("· judge 4/5")
