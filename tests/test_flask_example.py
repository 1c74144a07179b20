"""Zed's real ``flask--add-test-function.md`` against the real flask history.

The example's cursor file, ``tests/test_basic.py``, has 1,893 lines after the edit
history (51,831 characters), so Zed's cursor excerpt (rows 924-1834 of it) is not the
whole file; it has 10 expected patches, all replacing the half-typed ``de`` line:

1. ``def test_():`` / ``    ``                   6. ``def test_static_():`` / ``    pass``
2. ``def test_():`` / ``    pass``               7. ``def test_static_(app, client):`` / ``    ``
3. ``def test_(app, client):`` / ``    ``       8. ``def test_static_(app, client):`` / ``    pass``
4. ``def test_(app, client):`` / ``    pass``   9. ``def test_static_folder():`` / ``    pass``
5. ``def test_static_():`` / ``    ``          10. ``def test_static_route_with_host_matching(app, client):`` / ``    ``

Every number asserted below is worked out by hand from the rules of
zed-format.md §4 in the comments next to it.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
from zed_examples import FLASK_BUNDLE, FLASK_URL, ZED

EXAMPLE = ZED / "flask--add-test-function.md"
NAME = "flask--add-test-function"

# A completion function that types a wrong but close answer at the cursor, or a wrong
# answer far away (an import at the top of the file, outside Zed's excerpt).
CONFTEST = """
import pytest
from pytest_editpred import Prediction

ANSWER = {answer!r}


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        text = request.text
        if ANSWER == "far":
            return Prediction(text="import os\\n" + text)
        start = text.rindex("\\nde\\n", 0, request.cursor.offset + 1) + 1
        return Prediction(text=text[:start] + "def test_static_folder():\\n    return\\n" + text[start + 3 :])

    return complete
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository cache for the module: the bundle is cloned once."""
    return tmp_path_factory.mktemp("flask-cache")


@pytest.fixture
def pytester(pytester: pytest.Pytester, cache: Path) -> pytest.Pytester:
    pytester.makeini(f"[pytest]\neditpred_cache_dir = {cache}\n")
    return pytester


def run(pytester: pytest.Pytester, args: list[str], *options: str, answer: str | None = None) -> dict[str, Any]:
    assert EXAMPLE.is_file() and FLASK_BUNDLE.is_file(), f"missing {EXAMPLE} or {FLASK_BUNDLE}"
    shutil.copy(EXAMPLE, pytester.path / EXAMPLE.name)  # used as it is, in a temporary directory
    if answer is not None:
        pytester.makeconftest(CONFTEST.format(answer=answer))
    report = pytester.path / "report.jsonl"
    result = pytester.runpytest_subprocess(
        EXAMPLE.name,
        "-p",
        "no:cacheprovider",
        f"--editpred-repo={FLASK_URL}={FLASK_BUNDLE}",
        f"--editpred-report={report}",
        *options,
        *args,
    )
    [record] = [json.loads(line) for line in report.read_text().splitlines()]
    record["stdout"] = result.stdout.str()
    return record


def test_the_oracle_passes_with_the_first_patch_scored(pytester: pytest.Pytester, plugin_args: list[str]) -> None:
    record = run(pytester, plugin_args, "--editpred-provider=oracle")
    assert record["outcome"] == "passed", record["stdout"][-3000:]
    assert record["matched_candidate"] == record["best_candidate"] == 1
    metrics = record["metrics"]
    assert metrics["delta_chr_f"] == 100.0  # the same edit as patch 1, and no other patch is that edit
    # "-de", "+def test_():", "+    ": every changed line of patch 1 exactly.
    assert (metrics["exact_lines_tp"], metrics["exact_lines_fp"], metrics["exact_lines_fn"]) == (3, 0, 0)
    # Comparison units new in the prediction: def, " ", test_, (, ), :, "\n", "    " =
    # 3+1+5+1+1+1+1+4 = 17 bytes, all of them in the reference; "de" (2) deleted by both.
    assert (metrics["kept_chars"], metrics["correctly_deleted_chars"], metrics["discarded_chars"]) == (17, 2, 0)
    assert metrics["kept_rate"] == metrics["recall_rate"] == 1.0
    assert metrics["cursor_exact_match"] is True and metrics["cursor_distance"] == 0
    assert record["notes"] == []


def test_a_no_change_answer_reports_the_last_candidate(pytester: pytest.Pytester, plugin_args: list[str]) -> None:
    record = run(pytester, plugin_args, "--editpred-provider=noop")
    assert record["outcome"] == "failed"
    # No change scores delta-chrF 0 and exact-lines F1 0 against every patch, and jump
    # location F1 0 (precision 1: nothing predicted; recall 0: the "-de" row missed):
    # all ten tie, and Rust's max_by keeps the last.
    assert record["best_candidate"] == 10
    assert "best: expected patch 10 of 10" in record["stdout"]
    metrics = record["metrics"]
    assert metrics["delta_chr_f"] == 0.0 and metrics["delta_chr_f_true_positives"] == 0
    # Patch 10's changed lines: "-de", "+def test_static_route_with_host_matching(app, client):", "+    ".
    assert (metrics["exact_lines_tp"], metrics["exact_lines_fp"], metrics["exact_lines_fn"]) == (0, 0, 3)
    assert metrics["kept_rate"] == 0.0 and metrics["recall_rate"] == 0.0  # the reference edits, the candidate not
    # Patch 10's cursor: column 4 of the line after the 54-character def line (55 with
    # its newline), so 59 bytes after the line start; the user's stays after "de" (2).
    assert metrics["cursor_distance"] == 57 and metrics["cursor_exact_match"] is False
    assert metrics["jump_location"] == {
        "files_tp": 0,
        "files_fp": 0,
        "files_fn": 1,
        "lines_tp": 0,
        "lines_fp": 0,
        "lines_fn": 1,
    }


def test_a_wrong_answer_at_the_cursor_is_scored_against_the_closest_patch(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    record = run(pytester, plugin_args, answer="near")
    assert record["outcome"] == "failed"
    assert record["best_candidate"] == 9  # "def test_static_folder():" is patch 9's first line
    stdout = record["stdout"]
    assert "best: expected patch 9 of 10" in stdout
    assert "-    pass" in stdout and "+    return" in stdout  # the failure diff is against patch 9
    metrics = record["metrics"]
    # "-de" and "+def test_static_folder():" are patch 9's; "+    return" is not, "+    pass" missed.
    assert (metrics["exact_lines_tp"], metrics["exact_lines_fp"], metrics["exact_lines_fn"]) == (2, 1, 1)
    # New units: def, " ", test_static_folder, (, ), :, "\n", "    " (3+1+18+1+1+1+1+4 =
    # 30 bytes, kept) and "return" (6, discarded); the reference's "pass" is 4. "de" (2)
    # is deleted by both. kept = 32/38, recall = 32/36.
    assert (metrics["kept_chars"], metrics["correctly_deleted_chars"], metrics["discarded_chars"]) == (30, 2, 6)
    assert metrics["kept_rate"] == pytest.approx(32 / 38) and metrics["recall_rate"] == pytest.approx(32 / 36)
    # Patch 9's cursor is at byte 23 of its def line; the prediction's, after "    return"
    # on the next line, at 26 + 10 = 36.
    assert metrics["cursor_distance"] == 13
    assert 0 < metrics["delta_chr_f"] < 100


def test_a_wrong_answer_outside_the_excerpt_is_scored_as_no_change(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    record = run(pytester, plugin_args, answer="far")
    assert record["outcome"] == "failed"
    # The import lands on row 1, far above the excerpt (rows 924-1834), where Zed's
    # patch would not apply: every metric scores it as no change, as for noop.
    metrics = record["metrics"]
    assert metrics["delta_chr_f"] == 0.0 and metrics["kept_rate"] == 0.0
    assert (metrics["exact_lines_tp"], metrics["exact_lines_fp"], metrics["exact_lines_fn"]) == (0, 0, 3)
    assert metrics["jump_location"]["files_fn"] == 1 and metrics["jump_location"]["lines_fn"] == 1
    assert record["best_candidate"] == 10  # every key ties at 0: the last wins
    assert any("outside Zed's frame" in note for note in record["notes"])
    assert "note: the prediction changes the cursor file outside Zed's frame" in record["stdout"]
    # its cursor (after the import) is outside the frame too: a miss, no distance
    assert metrics["cursor_exact_match"] is False and "cursor_distance" not in metrics


def test_the_suite_uses_the_real_example_unchanged() -> None:
    text = EXAMPLE.read_text()
    assert text.count("```diff") == 11  # the edit history and ten expected patches
    assert 'repository_url = "https://github.com/pallets/flask"' in textwrap.dedent(text)
