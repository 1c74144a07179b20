"""Hostile inputs: oversized examples, patches and answers, and unsafe paths.

Every input is built here. The big cases run pytest in a subprocess and check the
child's peak RSS (``RUSAGE_CHILDREN`` is the largest child so far, so a pass also
says no earlier child was bigger). Nothing is timed: how fast these are is shown by
``bench/bench_hostile.py``; the tests check the outcome, the message and memory.
"""

from __future__ import annotations

import resource
import textwrap
from pathlib import Path

import pytest
from gitrepos import make_repo

from conftest import SUB, Project
from pytest_editpred import from_markdown, load_examples
from pytest_editpred._diff import MAX_PLACING_CHARS, apply_hunks, parse_diff
from pytest_editpred._limits import DEFAULT_LIMITS

MAX_RSS_KB = 500 * 1024

BIG_URL = "https://github.com/acme/big"


def peak_child_rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def lines(count: int) -> str:
    """``count`` distinct 34-character lines."""
    return "".join(f"value_{i:07d} = {'x' * 10}{i:07d}\n" for i in range(count))


def big_repo(project: Project, files: dict[str, str]) -> str:
    """A second repository mapped beside the project's; its commit id."""
    _, shas = make_repo(project.pytester.path / "big", files)
    project.pytester.makeini(
        textwrap.dedent(
            f"""
            [pytest]
            editpred_cache_dir = .editpred-cache
            editpred_repos =
                {project.url} = upstream/repo
                {BIG_URL} = big/repo
            """
        )
    )
    return shas[-1]


def big_example(project: Project, name: str, rev: str, cursor_path: str, cursor: str, expected: str) -> Path:
    path = project.pytester.path / "evals" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'+++\nrepository_url = "{BIG_URL}"\nrevision = "{rev}"\n+++\n\n# {name}\n\n'
        f"## Cursor Position\n\n```{cursor_path}\n{cursor}```\n\n## Expected Patch\n\n```diff\n{expected}```\n"
    )
    return path


# --------------------------------------------------------------------------- sizes


@pytest.mark.xdist
def test_a_50_mb_example_is_refused_unread_and_the_others_run(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    big = project.example("calc--huge", SUB)
    with open(big, "a") as out:
        block = "x" * (1 << 20) + "\n"
        for _ in range(50):
            out.write(block)
    size = big.stat().st_size
    result = project.pytester.runpytest_subprocess("evals", "--editpred-provider=oracle", *plugin_args)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            f"*calc--huge.md: the example file is {size:,} bytes, over the limit of "
            f"{DEFAULT_LIMITS.max_example_bytes:,} bytes for an example; it was not read*",
            "*fix: *--editpred-max-example-bytes*",
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str() and "Traceback" not in result.stdout.str()
    assert peak_child_rss_kb() < MAX_RSS_KB


def test_the_example_limit_is_an_option_and_applies_to_each_jsonl_line(tmp_path: Path) -> None:
    small = tmp_path / "one.md"
    small.write_text("+++\n" + "x" * 100)
    [error] = load_examples(small, max_bytes=50)
    assert "is 104 bytes, over the limit of 50 bytes" in str(error)
    corpus = tmp_path / "set.jsonl"
    corpus.write_text('{"name": 1}\n' + "y" * 200 + "\n" + '{"name": 2}\n')
    loaded = load_examples(corpus, max_bytes=100)
    assert [getattr(entry, "line", None) for entry in loaded] == [1, 2, 3]
    assert "line 2 is larger than the limit of 100 bytes" in str(loaded[1])
    assert "not an example" not in str(loaded[1])


@pytest.mark.slow
def test_a_100000_hunk_expected_patch_is_refused_with_its_reason(project: Project, plugin_args: list[str]) -> None:
    original = lines(100_000)
    rev = big_repo(project, {"f.py": original})
    hunks = "".join(
        f"@@ -{i + 1},1 +{i + 1},1 @@\n-{line}+{line.upper()}"
        for i, line in enumerate(original.splitlines(keepends=True))
    )
    first = original.split("\n", 1)[0]
    path = big_example(
        project, "big--hunks", rev, "f.py", f"{first}\n#   ^[CURSOR_POSITION]\n", "--- a/f.py\n+++ b/f.py\n" + hunks
    )
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest_subprocess("evals", "--editpred-provider=oracle", *plugin_args)
    result.assert_outcomes(passed=1, errors=1)
    line = path.read_text().split("\n").index("```diff") + 2  # the patch's first line
    result.stdout.fnmatch_lines(
        [
            f"*big--hunks.md:{line + 2}: expected patch 1 does not apply: the diff places 100,000 hunks*"
            f"more than the limit of {MAX_PLACING_CHARS:,}*",
        ]
    )
    assert peak_child_rss_kb() < MAX_RSS_KB


def test_a_patch_of_many_hunks_under_the_budget_still_applies() -> None:
    original = lines(2_000)
    diff = "--- a/f.py\n+++ b/f.py\n" + "".join(
        f"@@ -{i + 1},1 +{i + 1},1 @@\n-{line}+{line.upper()}"
        for i, line in enumerate(original.splitlines(keepends=True))
    )
    [section] = parse_diff(diff)
    assert apply_hunks(original, section.hunks) == original.upper()


def test_a_9_5_mb_hunk_is_parsed_whole() -> None:
    count = 9_500_000 // 35
    body = lines(count)
    diff = "--- a/f.py\n+++ b/f.py\n@@ -1,1 +1,1 @@\n context\n" + "".join(
        "+" + line for line in body.splitlines(keepends=True)
    )
    assert len(diff) > 9_400_000
    [section] = parse_diff(diff)
    [hunk] = section.hunks
    assert hunk.context == "context\n"
    assert hunk.new_text() == "context\n" + body
    assert len(hunk.new_offsets) == count + 1
    example = from_markdown(
        '+++\nrepository_url = "u"\nrevision = "abc"\n+++\n\n# n\n\n## Cursor Position\n\n'
        "```f.py\ncontext\n// ^[CURSOR_POSITION]\n```\n\n## Expected Patch\n\n```diff\n" + diff + "```\n"
    )
    assert example.expected_patches == (diff,)


@pytest.mark.xdist
def test_a_huge_prediction_fails_with_the_limit_message(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    project.example("calc--sub-again", SUB)
    project.pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction

        GOOD = "--- a/calc.py\\n+++ b/calc.py\\n def sub(a, b):\\n+    return a - b\\n"
        HUGE = "--- a/calc.py\\n+++ b/calc.py\\n def sub(a, b):\\n" + "+    x = 1\\n" * 900_000

        @pytest.fixture(scope="session")
        def editpred_completion():
            def complete(request):
                huge = request.example.name.endswith("again")
                return Prediction(patch=HUGE if huge else GOOD, raw_output="answer")
            return complete
        """
    )
    result = project.pytester.runpytest_subprocess("evals", "-p", "no:randomly", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    size = len("--- a/calc.py\n+++ b/calc.py\n def sub(a, b):\n") + len("+    x = 1\n") * 900_000
    result.stdout.fnmatch_lines(
        [
            f"*calc--sub-again: the predicted patch is {size:,} bytes, over the limit of "
            f"{DEFAULT_LIMITS.max_prediction_bytes:,} bytes for a prediction, so it was not judged "
            "(raise it with --editpred-max-prediction-bytes*",
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str()
    assert peak_child_rss_kb() < MAX_RSS_KB


def test_the_prediction_limit_and_the_judge_timeout_are_options(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest(
        "evals", "--editpred-provider=oracle", "--editpred-max-prediction-bytes=10", *plugin_args
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the predicted patch is * bytes, over the limit of 10 bytes for a prediction*"])
    result = project.pytester.runpytest(
        "evals", "--editpred-provider=oracle", "--editpred-judge-timeout=0.000001", *plugin_args
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*judging stopped after * s, over the limit of 1e-06 s per item (--editpred-judge-timeout*"
            "the example's largest expected patch is*"
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str()


@pytest.mark.xdist
@pytest.mark.slow
def test_a_64_mib_cursor_file_is_handled(project: Project, plugin_args: list[str]) -> None:
    text = lines(64 * 1024 * 1024 // 34) + "def f():\n    return 1\n"
    rev = big_repo(project, {"f.py": text})
    big_example(
        project,
        "big--cursor",
        rev,
        "f.py",
        "def f():\n    return 1\n#   ^[CURSOR_POSITION]\n",
        "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n",
    )
    result = project.pytester.runpytest_subprocess("evals", "--editpred-provider=oracle", *plugin_args)
    result.assert_outcomes(passed=1)
    assert peak_child_rss_kb() < MAX_RSS_KB


# --------------------------------------------------------------------------- paths

UNSAFE = {
    "up": ("../x.py", "it contains '..'"),
    "abs": ("/abs/x.py", "it is absolute"),
    "git": (".git/config", "it names git's own '.git'"),
}


def history(path: str) -> str:
    return f"""
        ## Edit History

        ```diff
        --- /dev/null
        +++ b/{path}
        @@ -0,0 +1 @@
        +print(1)
        ```
    """


def test_unsafe_paths_in_history_expected_patches_and_predictions(project: Project, plugin_args: list[str]) -> None:
    tail = SUB.split("## Cursor Position", 1)[1]
    for name, (path, _) in UNSAFE.items():
        # The edit history creates the file first, then the usual example goes on.
        project.example(f"history-{name}", textwrap.dedent(history(path)) + "\n## Cursor Position" + tail)
        project.example(f"expected-{name}", SUB + f"\n```diff\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n```\n")
        project.example(f"predicted-{name}", SUB)
    project.pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction

        PATHS = {"up": "../x.py", "abs": "/abs/x.py", "git": ".git/config"}

        @pytest.fixture(scope="session")
        def editpred_completion():
            def complete(request):
                path = PATHS[request.example.name.rsplit("-", 1)[1]]
                return Prediction(patch=f"--- /dev/null\\n+++ b/{path}\\n@@ -0,0 +1 @@\\n+x\\n")
            return complete
        """
    )
    result = project.pytester.runpytest("evals", "-p", "no:randomly", *plugin_args)
    result.assert_outcomes(failed=3, errors=6)
    out = result.stdout.str()
    for name, (path, why) in UNSAFE.items():
        rule = f"unsafe path {path!a}: {why}"
        history_file = project.pytester.path / "evals" / f"history-{name}.md"
        line = history_file.read_text().split("\n").index(f"+++ b/{path}") + 1
        result.stdout.fnmatch_lines([f"*history-{name}.md:{line}: edit history: {rule}*"])
        expected_file = project.pytester.path / "evals" / f"expected-{name}.md"
        line = expected_file.read_text().split("\n").index(f"+++ b/{path}") + 1
        result.stdout.fnmatch_lines([f"*expected-{name}.md:{line}: expected patch 2: {rule}*"])
        result.stdout.fnmatch_lines([f"*predicted-{name}: the predicted patch does not apply: {rule}*"])
    assert "INTERNALERROR" not in out and "Traceback" not in out


@pytest.mark.parametrize("where", ["cursor", "recent"])
def test_the_cursor_path_and_recent_files_keep_the_same_rule(project: Project, where: str) -> None:
    if where == "cursor":
        project.example("bad", SUB.replace("```calc.py", "```../calc.py"))
        expected = "cursor path: unsafe path '../calc.py': it contains '..'"
    else:
        project.example("bad", "## Recently Opened Files\n\n```\n.git/config\n```\n" + SUB)
        expected = "recently opened file: unsafe path '.git/config': it names git's own '.git'"
    result = project.pytester.runpytest("evals", "--editpred-provider=oracle")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*bad.md:*: {expected}*"])
