"""The viewer from real runs: its numbers are the terminal's, in a run and after it.

* In a run (plainly and under ``-n 2``), ``--editpred-html`` cards carry the terminal
  summary's numbers: counts, pass rate and its interval, mean delta-chrF and its.
* ``editpred-report`` on the run's JSONL (whole, or split in shards) prints the same
  summary lines, writes the same SummaryJson, renders the same cards and applies
  the gate.
* The shipped corpus (evals/) with failures, errors, trials and a baseline is
  rendered and looked at in Chromium at 1400 and 600 px wide.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cdp import Browser, find_chromium

from conftest import SUB, Project
from pytest_editpred.reports import read_records, render_html
from pytest_editpred.reports._cli import main as report_main

ROOT = Path(__file__).resolve().parents[1]


def index_of(page: str) -> dict[str, Any]:
    raw = page.split('<script type="application/json" id="ep-index">', 1)[1].split("</script>", 1)[0]
    return json.loads(raw)


def rates_line(text: str) -> str:
    return next(line for line in text.splitlines() if re.match(r"\d+ predictions: ", line))


def card_numbers(cards: dict[str, Any]) -> dict[str, str]:
    """The cards' numbers as the terminal formats them."""
    out = {
        "passed": str(cards["counts"]["passed"]),
        "total": str(cards["total"]),
        "rate": f"{100 * cards['pass_rate']['estimate']:.1f}",
    }
    if cards["pass_rate"]["low"] is not None:
        out["ci"] = f"{100 * cards['pass_rate']['low']:.1f}-{100 * cards['pass_rate']['high']:.1f}"
    if "delta_chr_f" in cards:
        out["chrf"] = f"{cards['delta_chr_f']['estimate']:.1f}"
        out["scored"] = str(cards["scored"])
    return out


def terminal_numbers(line: str) -> dict[str, str]:
    found = re.search(r"pass rate ([\d.]+)%(?: of \d+)? \[95% CI ([\d.]+-[\d.]+)", line)
    assert found, line
    total = re.match(r"(\d+) predictions", line)
    passed = re.search(r"(\d+) passed", line)
    out = {"passed": passed[1] if passed else "0", "total": total[1] if total else "", "rate": found[1], "ci": found[2]}
    chrf = re.search(r"mean delta-chrF ([\d.]+)(?: over (\d+) scored)?", line)
    if chrf:
        out["chrf"] = chrf[1]
        if chrf[2]:
            out["scored"] = chrf[2]
    return out


def same(cards: dict[str, str], terminal: dict[str, str]) -> None:
    assert {k: v for k, v in cards.items() if k in terminal} == terminal


@pytest.fixture
def run(project: Project, plugin_args: list[str]) -> tuple[pytest.RunResult, Path]:
    pytester = project.pytester
    project.example("sub", SUB)
    project.example("sub-again", SUB, tags=("again",))
    project.example("wrong", SUB.replace("return a - b", "return a + b"))
    broken = pytester.path / "evals" / "broken.md"
    broken.write_text(f'+++\nrepository_url = "{project.url}"\nrevision = "{"0" * 40}"\n+++\n' + textwrap.dedent(SUB))
    result = pytester.runpytest(
        *plugin_args,
        "--editpred-provider=oracle",
        "--editpred-report=r.jsonl",
        "--editpred-html=r.html",
        "--editpred-summary-json=s.json",
        "-p",
        "no:cacheprovider",
    )
    return result, pytester.path


@pytest.mark.xdist
def test_in_run_cards_are_the_terminal_numbers(run: tuple[pytest.RunResult, Path]) -> None:
    result, path = run
    text = result.stdout.str()
    line = rates_line(text)
    assert "1 error" in line, line
    index = index_of((path / "r.html").read_text(encoding="utf-8"))
    same(card_numbers(index["cards"]), terminal_numbers(line))
    assert index["terminal"][0] == line
    assert index["cards"]["counts"]["error"] == 1


@pytest.mark.xdist
def test_editpred_report_judges_the_jsonl_as_the_run_did(
    run: tuple[pytest.RunResult, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result, path = run
    line = rates_line(result.stdout.str())
    status = report_main(
        [
            str(path / "r.jsonl"),
            "--html",
            str(path / "after.html"),
            "--summary-json",
            str(path / "after.json"),
            "--fail-under",
            "90",
        ]
    )
    out = capsys.readouterr().out
    assert status == 1 and "gate: pass rate" in out and "< 90% required: the run fails" in out
    assert rates_line(out) == line
    assert json.loads((path / "after.json").read_text()) == json.loads((path / "s.json").read_text())
    during = index_of((path / "r.html").read_text(encoding="utf-8"))["cards"]
    after = index_of((path / "after.html").read_text(encoding="utf-8"))["cards"]
    assert after == during
    # shards: the same run split in two files is judged as one
    lines = (path / "r.jsonl").read_text().splitlines(keepends=True)
    (path / "a.jsonl").write_text("".join(lines[::2]))
    (path / "b.jsonl").write_text("".join(lines[1::2]))
    assert (
        report_main(
            [
                str(path / "a.jsonl"),
                str(path / "b.jsonl"),
                "--summary-json",
                str(path / "shards.json"),
                "--fail-under",
                "10",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert rates_line(out) == line and "the run passes" in out
    assert json.loads((path / "shards.json").read_text()) == json.loads((path / "s.json").read_text())
    # overlapping shards are refused, not counted twice
    assert report_main([str(path / "r.jsonl"), str(path / "a.jsonl")]) == 2
    assert "must not overlap" in capsys.readouterr().err


def test_editpred_report_console_script_entry_point() -> None:
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["editpred-report"] == "pytest_editpred.reports._cli:main"
    done = subprocess.run(
        [sys.executable, "-m", "pytest_editpred.reports._cli", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "--fail-under" in done.stdout


# --------------------------------------------------------------------------- the shipped corpus


def run_evals(tmp: Path, report: Path, *args: str) -> None:
    env = {**os.environ, "EDITPRED_CACHE_DIR": str(tmp / "repos")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals/",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--editpred-report={report}",
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert report.exists(), done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def corpus_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("corpus")
    run_evals(tmp, tmp / "old.jsonl", "--editpred-provider=oracle", "-k", "not rustkv")
    run_evals(tmp, tmp / "new.jsonl", "--editpred-trials=2", "-k", "not taskd")
    # errors: the taskd examples against a model server that is not there
    run_evals(
        tmp,
        tmp / "down.jsonl",
        "--editpred-provider=openai",
        "--editpred-base-url=http://127.0.0.1:9",
        "--editpred-model=m",
        "--editpred-retries=1",
        "--editpred-trials=2",
        "-k",
        "taskd",
    )
    records = read_records(tmp / "new.jsonl") + read_records(tmp / "down.jsonl")
    page = tmp / "corpus.html"
    page.write_text(
        render_html(records, None, title="corpus", baseline=read_records(tmp / "old.jsonl")), encoding="utf-8"
    )
    return page


def layout(b: Browser) -> dict[str, Any]:
    return b.js(
        """(() => {
          const first = document.querySelector('#detail .diffs .diff .ln.add, #detail .diffs .diff .ln.del, #detail .diffs .diff .ln.chg');
          const r = first ? first.getBoundingClientRect() : null, card = document.getElementById('detail').getBoundingClientRect();
          return {scrollWidth: document.documentElement.scrollWidth, width: document.documentElement.clientWidth,
                  first: r && {top: r.top, bottom: r.bottom, left: r.left, right: r.right},
                  card: {left: card.left, right: card.right}, height: window.innerHeight,
                  diffScroll: first ? first.closest('.diff').scrollWidth - first.closest('.diff').clientWidth : 0};
        })()"""
    )


@pytest.mark.parametrize("width", [1400, 600])
@pytest.mark.slow
def test_corpus_screenshots(corpus_page: Path, width: int, tmp_path: Path) -> None:
    chromium = find_chromium()
    if chromium is None:
        pytest.fail("headless Chromium is needed (apt-get install -y chromium)", pytrace=False)
    with Browser(chromium, width=width, height=900) as b:
        b.open(corpus_page.as_uri())
        index = b.js("JSON.parse(document.getElementById('ep-index').textContent).cards.counts")
        assert index["failed"] and index["error"] and index["passed"]
        assert b.js("document.getElementById('compare').hidden") is False
        assert "regressed" in b.js("document.getElementById('compare').innerText")
        assert b.js("document.querySelectorAll('#spacer .row .dots').length") > 0  # trials inside their example
        assert b.js(
            "document.querySelector('#spacer .row .dot.error, #spacer .row .badge.error') !== null"
        )  # errors come first
        b.click("input[name=outcome][value=error]")  # then look at the failures
        b.key("n")  # the first failure, as a reviewer starts
        b.wait_for("document.getElementById('detail').dataset.state === 'ready'")
        assert b.js("document.querySelector('#detail .badge').textContent") == "failed"
        shot = b.screenshot(tmp_path / f"corpus-{width}.png")
        assert shot.startswith(b"\x89PNG") and len(shot) > 20_000
        keep = os.environ.get("EDITPRED_KEEP_SCREENSHOT")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / f"corpus-{width}.png").write_bytes(shot)
        box = layout(b)
        assert box["scrollWidth"] <= box["width"], box  # no horizontal scrolling of the page
        assert box["first"] is not None, "the failure shows no changed line"
        # the first changed line is on screen and inside its card, nothing to scroll
        assert 0 <= box["first"]["top"] and box["first"]["bottom"] <= box["height"], box
        assert box["card"]["left"] <= box["first"]["left"] and box["first"]["right"] <= box["card"]["right"] + 1, box
        assert box["diffScroll"] <= 0, box
        if width == 600:  # narrow: one column, the list gives way to the item
            assert b.js("getComputedStyle(document.getElementById('list-pane')).display") == "none"
            b.key("Escape")
            b.wait_for("getComputedStyle(document.getElementById('list-pane')).display !== 'none'")
            assert b.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        else:
            assert b.js("document.querySelector('#detail .diff').classList.contains('split')")
