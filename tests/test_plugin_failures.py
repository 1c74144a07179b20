"""A wrong answer's report in whole pytest sessions, at real size: a 2,000-line file
whose expected edit is at the cursor (row 1000) and an answer that misses it and
changes five places far apart (rows 10, 500, 990, 1500, 1990).

Each ``--tb`` style and ``-vv`` prints exactly the lines checked here, off CI and on
CI (``$CI`` set: pytest then prints the short summary's message whole), plainly and
under ``-n 2``; the prompt and the raw answer are report sections, shown or left out
by pytest's rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import make_repo, map_in_ini

URL = "https://github.com/acme/big"
BEFORE = "".join(f"value_{i} = compute({i})\n" for i in range(2000))

EXAMPLE = """\
+++
repository_url = "{url}"
revision = "{revision}"
+++

## Cursor Position

```big.py
value_1000 = compute(1000)
#                    ^[CURSOR_POSITION]
```

## Expected Patch

```diff
--- a/big.py
+++ b/big.py
@@ -1001,1 +1001,1 @@
-value_1000 = compute(1000)
+value_1000 = compute(1000, fast=True)
#                                    ^[CURSOR_POSITION]
```
"""

COMPLETION = """
import pytest
from pytest_editpred import Prediction


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        text = request.text
        for i in (10, 500, 990, 1500, 1990):
            text = text.replace(f"value_{i} = compute({i})\\n", f"value_{i} = compute({i}, slow=True)\\n")
        return Prediction(text=text, raw_output="raw answer here", extra={"prompt": "the prompt"})

    return complete
"""


def plain(i: int) -> str:
    return f"value_{i} = compute({i})"


def slow(i: int) -> str:
    return f"value_{i} = compute({i}, slow=True)"


def hunk(row: int, old: str, new: str) -> list[str]:
    """The unified hunk of one changed line at 0-based ``row``, 3 lines of context."""
    return [
        f"@@ -{row - 2},7 +{row - 2},7 @@",
        *(f" {plain(j)}" for j in range(row - 3, row)),
        f"-{old}",
        f"+{new}",
        *(f" {plain(j)}" for j in range(row + 1, row + 4)),
    ]


HEADLINE = "big--one: the prediction matches none of the 1 expected patch(es)"
SCORES = "best: expected patch 1 of 1 (Zed's rule); delta-chrF 0.0, reversal 0.00"
# The answer changes rows outside Zed's 8,192-token excerpt of this 48 KB file.
NOTE = (
    "note: the prediction changes the cursor file outside Zed's frame, where its patch would not apply: "
    "as in Zed, every metric scores it as no change"
)
LEGEND = "‸ marks the cursors; - expected, + predicted"
HEADER = ["--- expected/big.py", "+++ predicted/big.py"]
AT_CURSOR = hunk(1000, "value_1000 = compute(1000, fast=True‸)", plain(1000))  # the expected edit, missed
LAST = hunk(1990, plain(1990), "value_1990 = compute(1990, slow=True‸)")  # the predicted cursor: its last edit
SECTIONS = [
    "------------------------ Captured editpred prompt call -------------------------",
    "the prompt",
    "---------------------- Captured editpred raw output call -----------------------",
    "raw answer here",
]


@pytest.fixture(params=["local", "on-ci"])
def ci(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Off CI, or on CI (``$CI`` set); an 80-column terminal either way."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    if request.param == "on-ci":
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    return request.param == "on-ci"


@pytest.fixture
def example(pytester: pytest.Pytester) -> Path:
    _, shas = make_repo(pytester.path / "upstream", {"big.py": BEFORE})
    map_in_ini(pytester, URL, "upstream/repo")
    pytester.makeconftest(COMPLETION)
    path = pytester.path / "evals" / "big--one.md"
    path.parent.mkdir()
    path.write_text(EXAMPLE.format(url=URL, revision=shas[-1]))
    return path


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    result = pytester.runpytest("evals", *args)
    result.assert_outcomes(failed=1)
    return result


def section(result: pytest.RunResult) -> list[str]:
    """The lines of the FAILURES section (xdist's ``[gw0]`` lines left out)."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith("=") and " FAILURES " in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    return [line for line in lines[start + 1 : end] if not line.startswith("[gw")]


def failure_section(result: pytest.RunResult) -> list[str]:
    """The one failure's lines after its ``___ big--one ___`` title."""
    title, *body = section(result)
    assert title.strip("_") == " big--one ", title
    return body


def summary_line(result: pytest.RunResult) -> str:
    [line] = [line for line in result.stdout.lines if line.startswith("FAILED ")]
    return line


def expected_summary(ci: bool, verbose: bool = False) -> str:
    """pytest cuts the short summary's message to the terminal's width, except on CI
    and with -vv."""
    if ci or verbose:
        return f"FAILED evals/big--one.md::big--one - {HEADLINE}"
    return "FAILED evals/big--one.md::big--one - big--one: the prediction matches none of..."


@pytest.mark.xdist
def test_the_default_report_shows_the_hunks_nearest_the_cursor_first(
    example: Path, ci: bool, plugin_args: list[str], pytester: pytest.Pytester
) -> None:
    result = run(pytester, *plugin_args)
    assert failure_section(result) == [
        HEADLINE,
        SCORES,
        NOTE,
        f"{LEGEND}; the hunks nearest the cursor first",
        *HEADER,
        *AT_CURSOR,
        *hunk(990, plain(990), slow(990)),
        *hunk(500, plain(500), slow(500)),
        "... 27 more lines of diff, 3 more hunks: -vv shows them",
        *SECTIONS,
    ]
    assert summary_line(result) == expected_summary(ci)


@pytest.mark.xdist
def test_what_a_teardown_writes_still_follows_the_failure(
    example: Path, ci: bool, plugin_args: list[str], pytester: pytest.Pytester
) -> None:
    """The plugin takes an example's passed teardown reports out of pytest's list of
    them (searching it for each failure is quadratic) unless they hold a teardown
    section: what a fixture's teardown prints is shown as pytest shows it."""
    pytester.makeconftest(
        COMPLETION
        + """

@pytest.fixture(autouse=True)
def goodbye():
    yield
    print("written in teardown")
"""
    )
    body = failure_section(run(pytester, *plugin_args))
    assert body[-2:] == [
        "--------------------------- Captured stdout teardown ---------------------------",
        "written in teardown",
    ]


def test_long_is_the_default(example: Path, ci: bool, pytester: pytest.Pytester) -> None:
    default = failure_section(run(pytester))
    assert failure_section(run(pytester, "--tb=long")) == default
    # Report sections follow pytest's rules: --show-capture=no leaves them out.
    assert failure_section(run(pytester, "--show-capture=no")) == default[: -len(SECTIONS)]


def test_tb_short_shows_the_reason_the_scores_and_the_nearest_hunk(
    example: Path, ci: bool, pytester: pytest.Pytester
) -> None:
    result = run(pytester, "--tb=short")
    assert failure_section(result) == [
        HEADLINE,
        SCORES,
        "(1 note: --tb=long shows it)",
        f"{LEGEND}; the hunk nearest the cursor",
        *HEADER,
        *AT_CURSOR,
        "... 45 more lines of diff, 5 more hunks: --tb=long or -vv shows more",
        *SECTIONS,
    ]
    assert summary_line(result) == expected_summary(ci)


def test_tb_line_is_one_line_per_failure(example: Path, ci: bool, pytester: pytest.Pytester) -> None:
    line = f"{example}:{EXAMPLE.splitlines().index('## Expected Patch') + 1}: {HEADLINE}"
    result = run(pytester, "--tb=line", "--show-capture=no")
    assert section(result) == [line]
    assert summary_line(result) == expected_summary(ci)
    # The report sections follow pytest's rules: pytest prints them with --tb=line
    # (before the line, as for a Python test's captured output), --show-capture=no not.
    shown = section(run(pytester, "--tb=line"))
    assert shown[-1] == line
    assert set(shown[:-1]) <= set(SECTIONS)


def test_tb_no_prints_no_failure_section(example: Path, ci: bool, pytester: pytest.Pytester) -> None:
    result = run(pytester, "--tb=no")
    assert not any("FAILURES" in line or line.startswith(("big--one:", "@@")) for line in result.stdout.lines)
    assert summary_line(result) == expected_summary(ci)


def test_vv_shows_the_whole_diff_in_file_order(example: Path, ci: bool, pytester: pytest.Pytester) -> None:
    whole = [
        *HEADER,
        *hunk(10, plain(10), slow(10)),
        *hunk(500, plain(500), slow(500)),
        *hunk(990, plain(990), slow(990)),
        *AT_CURSOR,
        *hunk(1500, plain(1500), slow(1500)),
        *LAST,
    ]
    result = run(pytester, "-vv")
    assert failure_section(result) == [HEADLINE, SCORES, NOTE, LEGEND, *whole, *SECTIONS]
    assert summary_line(result) == expected_summary(ci, verbose=True)
    # -vv with --tb=short: the whole diff too, the notes still counted.
    short = failure_section(run(pytester, "-vv", "--tb=short"))
    assert short == [HEADLINE, SCORES, "(1 note: --tb=long shows it)", LEGEND, *whole, *SECTIONS]
    # The assertion verbosity alone does it too.
    assert failure_section(run(pytester, "-o", "verbosity_assertions=2")) == failure_section(result)


UNUSABLE = """
import pytest
from pytest_editpred import PredictionError


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        raise PredictionError("no marker tags found in output")

    return complete
"""


def test_every_failure_is_one_line_with_tb_line(example: Path, ci: bool, pytester: pytest.Pytester) -> None:
    # An answer that cannot be used is FAILED with a message of its own: one line too.
    pytester.makeconftest(UNUSABLE)
    where = f"{example}:{EXAMPLE.splitlines().index('## Expected Patch') + 1}"
    headline = "big--one: the model's answer cannot be used: no marker tags found in output"
    assert section(run(pytester, "--tb=line")) == [f"{where}: {headline}"]
    assert failure_section(run(pytester)) == [headline]
