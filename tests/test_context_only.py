"""``--editpred-context-only``: Zed's ``ep eval --context-only`` through the plugin
(zed-authoring-and-context.md §4.6-§4.7).

The worked examples C1-C3 are ep JSON examples in a real repository; their stored
``prompt_inputs`` (cursor excerpt, excerpt start row, related files) are what is
scored, no model is called, and the report, the SummaryJson, the JSONL records and
the JUnit properties carry Zed's numbers field for field.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from gitrepos import make_repo

URL = "https://github.com/acme/proj"

# C1: src/app.py rows 10..14 are a..e; the expected patch deletes "d" (row 13).
C1_APP = "".join(f"line{i}\n" for i in range(10)) + "a\nb\nc\nd\ne\n"
# C2: src/app.py is the 3-line excerpt; src/util.py holds "    return 1" on row 41.
C2_APP = "import util\n\nrun()\n"
UTIL = "".join(f"# {i}\n" for i in range(40)) + "def helper():\n    return 1\n" + "".join(f"v{i}\n" for i in range(70))
# C3: the cursor is in src/a.rs, the edit in src/b.rs (rows 4-5).
A_RS = "fn a() {\n}\n"
B_RS = "".join(f"// {i}\n" for i in range(4)) + "fn b() {\n}\n"

C1_PATCH = "--- a/src/app.py\n+++ b/src/app.py\n@@ -13,3 +13,3 @@\n c\n-d\n+D\n e\n"
C2_PATCH = "--- a/src/util.py\n+++ b/src/util.py\n@@ -42,1 +42,2 @@\n     return 1\n+    # done\n"
C3_PATCH = "--- a/src/b.rs\n+++ b/src/b.rs\n@@ -5,2 +5,3 @@\n fn b() {\n+    todo!();\n }\n"
C2_RELATED = [
    {
        "path": "proj/src/util.py",
        "max_row": 110,
        "excerpts": [
            {
                "row_range": {"start": 40, "end": 42},
                "text": "def helper():\n    return 1\n",
                "order": 0,
                "context_source": "lsp",
            },
            {"row_range": {"start": 100, "end": 103}, "text": "x\ny\nz\n", "order": 1, "context_source": "bm25"},
        ],
    }
]


class Corpus:
    """The three examples, each at a revision where its files are as §4.7 says."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        _, self.shas = make_repo(
            pytester.path / "upstream",
            {"src/app.py": C1_APP, "src/a.rs": A_RS, "src/b.rs": B_RS},
            [{"src/app.py": C2_APP, "src/util.py": UTIL}],
        )
        pytester.makeini(
            textwrap.dedent(
                f"""
                [pytest]
                editpred_cache_dir = .editpred-cache
                editpred_repos =
                    {URL} = upstream/repo
                """
            )
        )
        shas = self.shas
        self.write("c1", shas[0], "src/app.py", "a\nb<|user_cursor|>\nc", C1_PATCH, "a\nb\nc\nd\ne", 10, None)
        self.write("c2", shas[1], "src/app.py", "import util\n<|user_cursor|>", C2_PATCH, C2_APP[:-1], 0, C2_RELATED)
        self.write("c3", shas[0], "src/a.rs", "fn a() {<|user_cursor|>", C3_PATCH, "fn a() {\n}", 0, None)

    def write(
        self, name: str, sha: str, path: str, cursor: str, patch: str | None, excerpt: str, row: int, related: Any
    ) -> None:
        inputs: dict[str, Any] = {"cursor_path": path, "cursor_excerpt": excerpt, "excerpt_start_row": row}
        if related is not None:
            inputs["related_files"] = related
        data = {
            "name": name,
            "repository_url": URL,
            "revision": sha,
            "cursor_path": path,
            "cursor_position": cursor,
            "expected_patches": [patch] if patch is not None else [],
            "prompt_inputs": inputs,
        }
        target = self.pytester.path / "evals" / f"{name}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(data))

    def run(self, *args: str) -> pytest.RunResult:
        # The context the examples carry (retrieval for those without: test_retrieval_run).
        return self.pytester.runpytest_subprocess("-p", "no:cacheprovider", "evals", "--editpred-no-retrieval", *args)


@pytest.fixture
def corpus(pytester: pytest.Pytester) -> Corpus:
    return Corpus(pytester)


def _records(path: Path) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_the_worked_examples_field_for_field(corpus: Corpus, pytester: pytest.Pytester) -> None:
    # No model is configured at all (openai with no model or URL would be a usage
    # error): a context-only run asks none.
    result = corpus.run(
        "--editpred-context-only",
        "--editpred-provider=openai",
        "--editpred-report=out.jsonl",
        "--editpred-summary-json=summary.json",
        "--junitxml=junit.xml",
    )
    # C1 holds its anchor; C2 holds its anchor (row 41) too; C3 misses both anchors
    # and the file: FAILED, saying so.
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "c3: the context misses 2 of the 2 rows and 1 of the 1 file the expected patch edits" in out
    # The report of §4.7 for C1 + C2 + C3: macro-mean rates, pooled counts.
    total = next(line for line in out.splitlines() if line.startswith("TOTAL / AVERAGE"))
    assert total.split()[3:] == "41.7% 66.7% 46.7% 7 8 2 50.0% 66.7% 55.6% 2 2 1".split()
    assert "Evaluated editable context coverage for 3 examples" in out
    assert "Retrieved context size: 33 bytes avg (1 examples)" in out
    assert "pass rate 66.7% of 3" in out and "delta-chrF" not in out  # no prediction was scored

    summary = json.loads((pytester.path / "summary.json").read_text())
    assert summary["total_examples"] == 3 and summary["avg_delta_chr_f"] == 0
    assert summary["editable_context_examples"] == 3
    assert (summary["editable_context_lines_tp"], summary["editable_context_lines_fp"]) == (7, 8)
    assert (summary["editable_context_files_tp"], summary["editable_context_files_fn"]) == (2, 1)
    assert summary["avg_editable_context_lines_precision"] == pytest.approx((1 + 0.25 + 0) / 3)
    assert summary["avg_editable_context_files_f1"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert (summary["avg_retrieved_context_bytes"], summary["retrieved_context_examples"]) == (33, 1)
    assert '"avg_retrieved_context_bytes": 33.0,' in (pytester.path / "summary.json").read_text()  # Zed's f64
    assert "avg_editable_context_coverage" not in summary  # the old version's name

    records = _records(pytester.path / "out.jsonl")
    assert {r["provider"] for r in records.values()} == {"context-only"}
    c2 = records["c2"]["metrics"]
    assert c2["editable_context_coverage"] == {
        "lines_tp": 2,
        "lines_fp": 6,
        "lines_fn": 0,
        "lines_precision": 0.25,
        "lines_recall": 1.0,
        "lines_f1": pytest.approx(0.4),
        "files_tp": 1,
        "files_fp": 1,
        "files_fn": 0,
        "files_precision": 0.5,
        "files_recall": 1.0,
        "files_f1": pytest.approx(2 / 3),
    }
    assert c2["retrieved_context_bytes"] == 33
    assert "retrieved_context_bytes" not in records["c1"]["metrics"]  # no related files: None
    assert records["c3"]["outcome"] == "failed"

    junit = ET.parse(pytester.path / "junit.xml")
    props = {
        p.get("name"): p.get("value")
        for case in junit.iter("testcase")
        if case.get("name", "").startswith("c2")
        for p in case.iter("property")
    }
    assert props["editpred_editable_context_lines_precision"] == "0.25"
    assert props["editpred_editable_context_files_tp"] == "1"
    assert props["editpred_retrieved_context_bytes"] == "33"
    assert props["editpred_provider"] == "context-only"


def test_an_example_with_no_expected_patch_has_no_row_but_its_bytes_count(
    corpus: Corpus, pytester: pytest.Pytester
) -> None:
    # c0 is C2's context with no expected patch: it PASSES, has no row in Zed's
    # table, and its 8 bytes of related file join C2's 33 in the mean: 41 over 2 is
    # 20.5 in the SummaryJson, printed 20 (Rust's {:.0} rounds half to even).
    tiny = [
        {"path": "proj/x.py", "max_row": 2, "excerpts": [{"row_range": {"start": 0, "end": 2}, "text": "a = 10\n\n"}]}
    ]
    corpus.write("c0", corpus.shas[0], "src/a.rs", "fn a() {<|user_cursor|>", None, "fn a() {\n}", 0, tiny)
    result = corpus.run("--editpred-context-only", "--editpred-summary-json=summary.json")
    result.assert_outcomes(passed=3, failed=1)
    lines = result.stdout.lines
    top = lines.index("─" * 120)
    assert lines[top + 1].startswith("Example ")
    table = lines[top + 3 : lines.index("─" * 120, top + 3)]
    assert [row.split()[0] for row in table] == ["c1", "c2", "c3"]
    assert "Evaluated editable context coverage for 3 examples" in lines
    assert "Retrieved context size: 20 bytes avg (2 examples)" in lines
    text = (pytester.path / "summary.json").read_text()
    assert '"avg_retrieved_context_bytes": 20.5,' in text
    assert json.loads(text)["total_retrieved_context_bytes"] == 41


def test_a_run_where_no_example_has_a_coverage_prints_nothing_after_the_table(corpus: Corpus) -> None:
    corpus.write("c0", corpus.shas[1], "src/app.py", "import util\n<|user_cursor|>", None, C2_APP[:-1], 0, C2_RELATED)
    result = corpus.run("-k", "c0", "--editpred-context-only")
    result.assert_outcomes(passed=1)
    lines = result.stdout.lines
    top = lines.index("─" * 120)
    assert lines[top + 2] == lines[top + 3] == "─" * 120  # the header, and no row
    assert lines[top + 4] == ""  # the blank line the plugin puts after every report
    out = result.stdout.str()
    for absent in ("TOTAL / AVERAGE", "Evaluated editable context coverage", "Retrieved context size"):
        assert absent not in out


def test_the_type_filter_and_the_budget_variants_of_c2(corpus: Corpus, pytester: pytest.Pytester) -> None:
    # --type=lsp: the bm25 excerpt is dropped: lines tp 2, fp 3 (P 40%); 27 bytes.
    corpus.run("-k", "c2", "--editpred-context-only", "--editpred-context-type=lsp", "--editpred-report=lsp.jsonl")
    lsp = _records(pytester.path / "lsp.jsonl")["c2"]["metrics"]
    assert (lsp["editable_context_coverage"]["lines_fp"], lsp["retrieved_context_bytes"]) == (3, 27)
    # --related-context-limit 3 (9 bytes): the lsp excerpt (27 bytes) is skipped, the
    # bm25 one (6) kept: lines tp 0, fp 6, fn 1, and the item FAILS (row 41 missed).
    result = corpus.run(
        "-k", "c2", "--editpred-context-only", "--editpred-related-context-limit=3", "--editpred-report=cut.jsonl"
    )
    result.assert_outcomes(failed=1)
    cut = _records(pytester.path / "cut.jsonl")["c2"]["metrics"]
    coverage = cut["editable_context_coverage"]
    assert (coverage["lines_tp"], coverage["lines_fp"], coverage["lines_fn"], cut["retrieved_context_bytes"]) == (
        0,
        6,
        1,
        6,
    )


def test_a_bad_context_type_is_one_usage_error(corpus: Corpus) -> None:
    result = corpus.run("--editpred-context-only", "--editpred-context-type=lsp,bm52")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert err.count("unknown context type 'bm52'") == 1 and "Traceback" not in err


def test_a_prediction_run_scores_the_context_a_completion_returns(corpus: Corpus, pytester: pytest.Pytester) -> None:
    # Not context-only: the completion answers and reports its context beside the
    # prediction; it is scored as Zed's editable_context_coverage, and the summary
    # prints Zed's two "Editable context" lines.
    pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction, RetrievedExcerpt, RetrievedFile

        @pytest.fixture(scope="session")
        def editpred_completion():
            def complete(request):
                found = RetrievedFile("proj/src/b.rs", 6, (RetrievedExcerpt(0, 6, "x\\n" * 6),))
                return Prediction(patch=None, context=(found,))
            return complete
        """
    )
    result = corpus.run("-k", "c3", "--editpred-report=out.jsonl")
    result.assert_outcomes(failed=1)  # no change is still the wrong answer
    metrics = _records(pytester.path / "out.jsonl")["c3"]["metrics"]
    # Retrieved: src/a.rs rows 0-1 (2 FP) and src/b.rs rows 0-5, all within 20 rows
    # of the anchors 4 and 5 (6 TP); both anchors held.
    coverage = metrics["editable_context_coverage"]
    assert (coverage["lines_tp"], coverage["lines_fp"], coverage["lines_fn"]) == (6, 2, 0)
    assert (coverage["files_tp"], coverage["files_fp"], coverage["files_fn"]) == (1, 1, 0)
    assert metrics["retrieved_context_bytes"] == 12
    assert "delta_chr_f" in metrics  # the prediction is scored as always
    out = result.stdout.str()
    assert "Editable context lines: P=75.0%, R=100.0%, F1=85.7% avg (1 evaluated, TP=6, FP=2, FN=0)" in out
    assert "Editable context files: P=50.0%, R=100.0%, F1=66.7% avg (1 evaluated, TP=1, FP=1, FN=0)" in out
