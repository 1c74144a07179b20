"""``editpred lint``: every kind of finding, each as its exact line, on small broken
examples over a real git repository; and quiet on this repository's own corpus."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from gitrepos import make_repo
from zed_examples import FLASK_BUNDLE, FLASK_URL, ZED

from conftest import CALC, SUB
from pytest_editpred.cli import main

ROOT = Path(__file__).resolve().parents[1]
URL = "https://github.com/acme/calc"
#: The calc project's edit history, as the plugin tests' ``calc--sub`` example has it.
HISTORY = SUB[1 : SUB.index("\n## Cursor Position")]

CURSOR = """\
## Cursor Position

```calc.py
def sub(a, b):
#             ^[CURSOR_POSITION]
```
"""

GOOD_PATCH = """\
```diff
--- a/calc.py
+++ b/calc.py
@@ -8,1 +8,2 @@
 def sub(a, b):
+    return a - b
#                ^[CURSOR_POSITION]
```
"""


class Corpus:
    """A folder with a real repository mapped in ``pytest.ini`` and examples in ``evals/``."""

    def __init__(self, root: Path, ini_extra: str = "") -> None:
        self.root = root
        repo, shas = make_repo(root / "upstream", {"calc.py": CALC, "README.md": "# calc\n"})
        self.rev = shas[-1]
        (root / "pytest.ini").write_text(
            f"[pytest]\neditpred_cache_dir = .cache\neditpred_repos =\n    {URL} = upstream/repo\n" + ini_extra
        )
        (root / "evals").mkdir()

    def write(self, name: str, *sections: str, front: str = "") -> Path:
        text = f'+++\nrepository_url = "{URL}"\nrevision = "{self.rev}"\n{front}+++\n\n' + "\n".join(sections)
        path = self.root / "evals" / f"{name}.md"
        path.write_text(text)
        return path


def expected(*patches: str) -> str:
    return "## Expected Patch\n\n" + "\n".join(patches)


def rejected(patch: str) -> str:
    return "## Rejected Patch\n\n" + patch


def lint(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """Run ``editpred lint`` in ``root``: (status, stderr lines, stdout)."""
    before = Path.cwd()
    os.chdir(root)
    try:
        status = main(["lint", *args])
    finally:
        os.chdir(before)
    out, err = capsys.readouterr()
    return status, err.splitlines(), out


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return Corpus(tmp_path)


def test_a_good_example_has_no_findings(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    corpus.write("good", HISTORY, CURSOR, expected(GOOD_PATCH))
    status, err, out = lint(corpus.root, capsys, "evals")
    assert (status, err) == (0, [])
    assert out.startswith("1 example in 1 file: no errors, no quality findings (")


def test_an_example_that_does_not_load(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    (corpus.root / "evals" / "broken.md").write_text('+++\nrepository_url = "x"\n')
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/broken.md:1: the front matter has no closing '+++' line "
        "(Start the file with '+++' on its own line, then TOML with repository_url and revision strings, "
        "then a closing '+++' line.)"
    ]


def test_an_expected_patch_that_does_not_apply(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = GOOD_PATCH.replace(" def sub(a, b):", " def div(a, b):")
    corpus.write("stale", HISTORY, CURSOR, expected(GOOD_PATCH, wrong))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/stale.md:40: expected patch 2 does not apply: hunk context not found:     | def div(a, b): "
        "(The hunk's context and '-' lines must occur in the "
        "file exactly as written (whitespace included).)"
    ]


def test_a_rejected_patch_that_does_not_apply(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = GOOD_PATCH.replace(" def sub(a, b):", " def div(a, b):")
    corpus.write("rejected", HISTORY, CURSOR, expected(GOOD_PATCH), rejected(wrong))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/rejected.md:42: the rejected patch does not apply: hunk context not found:     | def div(a, b): "
        "(The hunk's context and '-' lines must occur in the file exactly as written (whitespace included).)"
    ]


def test_an_expected_patch_that_changes_nothing(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    same = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -6,1 +6,1 @@\n-    return a * b\n+    return a * b\n```\n"
    corpus.write("nothing", HISTORY, CURSOR, expected(GOOD_PATCH, same))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/nothing.md:38: expected patch 2 changes nothing (Give the patch the edit it expects, or delete it.)"
    ]


def test_a_rejected_patch_equal_to_an_expected_one(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    corpus.write("both", HISTORY, CURSOR, expected(GOOD_PATCH), rejected(GOOD_PATCH))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/both.md:40: the rejected patch is the same edit as expected patch 1 "
        "(An answer cannot be both expected and rejected: change or delete one of them.)"
    ]


def test_duplicates(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    corpus.write("first", HISTORY, CURSOR, expected(GOOD_PATCH))
    # the same moment and edit, written differently: a longer excerpt, a patch with more context
    cursor = CURSOR.replace("```calc.py\n", "```calc.py\n\n")
    patch = GOOD_PATCH.replace("@@ -8,1 +8,2 @@\n", "@@ -7,2 +7,3 @@\n \n")
    corpus.write("second", HISTORY, cursor, expected(patch))
    corpus.write("other-edit", HISTORY, CURSOR, expected(GOOD_PATCH.replace("a - b", "b - a")))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/second.md:1: duplicate of evals/first.md:1: the same repository, revision, history, cursor "
        "and expected edit (Delete one of them.)"
    ]


def test_a_cursor_outside_its_file(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    corpus.write("not-there", HISTORY, CURSOR.replace("def sub", "def pow"), expected(GOOD_PATCH))
    corpus.write("no-file", HISTORY, CURSOR.replace("```calc.py", "```nope.py"), expected(GOOD_PATCH))
    corpus.write(
        "past-end",
        HISTORY,
        CURSOR,
        expected(
            "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n+    # sum\n"
            "#                     ^[CURSOR_POSITION]\n     return a + b\n```\n"
        ),
    )
    far = GOOD_PATCH.replace("#                ^", "#                   ^")
    corpus.write("past-text", HISTORY, CURSOR, expected(far))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/no-file.md:21: failed to find cursor path nope.py at https://github.com/acme/calc "
        f"{corpus.rev} (Check the path against the repository at that revision.)",
        "evals/not-there.md:22: the cursor excerpt does not occur in calc.py at https://github.com/acme/calc "
        f"{corpus.rev} (after the edit history) (The cursor excerpt (without its marker line) must occur in "
        "the file as it is after the edit history.)",
        "evals/past-end.md:29: the cursor of expected patch 1 is 12 bytes past the end of its line (9 bytes) "
        "(Put the '^' of the [CURSOR_POSITION] line under a column of the line above it.)",
        "evals/past-text.md:29: expected patch 1 does not apply: the expected cursor is 2 bytes past the end of "
        "the text (Mark the cursor inline with <|user_cursor|>, or put a comment line under the cursor line with "
        "'^[CURSOR_POSITION]' under the cursor column or '<[CURSOR_POSITION]' indented to it.)",
    ]


def test_the_oracle_answer_fails(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    # the expected cursor is in README.md, which the history also edits: the oracle answers the
    # edit, but its cursor only ever in the cursor's file, so the verdict fails on the cursor
    readme = "--- a/README.md\n+++ b/README.md\n@@ -1,1 +1,2 @@\n # calc\n+\n"
    history = HISTORY.replace("```diff\n", "```diff\n" + readme, 1)
    patch = GOOD_PATCH.replace(
        "#                ^[CURSOR_POSITION]\n",
        "--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n-# calc\n+# Calc\n#  ^[CURSOR_POSITION]\n \n",
    )
    corpus.write("elsewhere", history, CURSOR, expected(patch))
    # README.md is in no buffer here: the oracle reads it from the repository, as the judge
    # does, and answers the edit; the cursor still cannot be in another file
    corpus.write(
        "unread",
        HISTORY,
        CURSOR,
        expected(patch.replace("@@ -1,2 +1,2 @@", "@@ -1,1 +1,1 @@").replace(" \n#  ^", "#  ^")),
    )
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/elsewhere.md:31: the oracle answer (expected patch 1) fails: the edit matches expected patch 1 "
        "but the cursor is elsewhere",
        "evals/elsewhere.md:34: quality: the expected patch edits 2 files (README.md, calc.py) [scattered-target]",
        "evals/unread.md:26: the oracle answer (expected patch 1) fails: the edit matches expected patch 1 "
        "but the cursor is elsewhere",
        "evals/unread.md:29: quality: the expected patch edits 2 files (README.md, calc.py) [scattered-target]",
    ]


def test_the_noop_answer_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = Corpus(tmp_path, "editpred_match = whitespace\n")
    spaced = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -6,1 +6,1 @@\n-    return a * b\n+    return a  *  b\n```\n"
    corpus.write("spaces", HISTORY, CURSOR, expected(spaced))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert err == [
        "evals/spaces.md:26: the noop answer (no change) passes: matches expected patch 1",
        "evals/spaces.md:29: quality: the expected patch changes only whitespace [whitespace-only]",
    ]


def test_examples_over_the_size_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = Corpus(tmp_path, "editpred_max_example_bytes = 600\neditpred_max_prediction_bytes = 50\n")
    corpus.write("big", HISTORY, CURSOR, expected(GOOD_PATCH), "\n" + "padding\n" * 100)
    corpus.write("patch", HISTORY, CURSOR, expected(GOOD_PATCH))
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    size = (corpus.root / "evals" / "big.md").stat().st_size
    assert err == [
        f"evals/big.md: the example file is {size:,} bytes, over the limit of 600 bytes for an example; it was "
        "not read (Split it into smaller examples, or raise the limit with --editpred-max-example-bytes "
        "(ini editpred_max_example_bytes).)",
        "evals/patch.md:29: expected patch 1 is 114 bytes, over the limit of 50 bytes for a prediction: a model "
        "that answers it exactly fails unjudged (Split the example, or raise --editpred-max-prediction-bytes "
        "(ini editpred_max_prediction_bytes).)",
    ]


def test_a_jsonl_line_is_named_by_its_line(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    line = {
        "name": "sub",
        "repository_url": URL,
        "revision": corpus.rev,
        "cursor_path": "calc.py",
        "cursor_position": "def pow(a, b):\n#             ^[CURSOR_POSITION]\n",
        "edit_history": "",
        "expected_patches": [],
    }
    (corpus.root / "evals" / "more.jsonl").write_text("\n" + json.dumps(line) + "\n")
    status, err, _ = lint(corpus.root, capsys, "evals")
    assert status == 1
    assert len(err) == 1 and err[0].startswith("evals/more.jsonl:2: the cursor excerpt does not occur in calc.py")


def test_repo_option_and_usage_errors(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    (corpus.root / "pytest.ini").write_text("[pytest]\neditpred_cache_dir = .cache\n")
    corpus.write("good", HISTORY, CURSOR, expected(GOOD_PATCH))
    status, err, _ = lint(corpus.root, capsys, "evals", "--editpred-offline")
    assert status == 1 and "--editpred-offline forbids fetching it" in err[0]
    status, err, _ = lint(corpus.root, capsys, "evals", "--editpred-repo", f"{URL}=upstream/repo")
    assert (status, err) == (0, [])
    status, err, _ = lint(corpus.root, capsys, "evals", "--editpred-repo", "nonsense")
    assert status == 2
    assert err == [
        "editpred lint: --editpred-repo 'nonsense': expected URL=PATH "
        "(For example --editpred-repo https://github.com/o/r=../r.bundle)"
    ]
    status, err, _ = lint(corpus.root, capsys, "missing")
    assert (status, err) == (2, ["missing: no such file or directory (Name example files or folders.)"])


def test_fifos_sockets_and_link_loops_are_never_opened(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO named like an example in a folder is skipped with a warning (opening it
    would wait for a writer forever); named directly, it, a socket, a link loop, a
    dangling link and a missing path are usage errors: exit 2, nothing checked."""
    import socket

    corpus.write("good", HISTORY, CURSOR, expected(GOOD_PATCH))
    evals = corpus.root / "evals"
    os.mkfifo(evals / "x.md")
    os.mkfifo(evals / "y.jsonl")
    os.symlink("loop.md", evals / "loop.md")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(evals / "s.json"))
    try:
        status, err, out = lint(corpus.root, capsys, "evals")
        fix = "(Move it out of the folder, or ignore this line: it is never read.)"
        assert status == 0
        assert err == [
            f"evals/loop.md: warning: skipped: it is a symbolic link loop, not a file {fix}",
            f"evals/s.json: warning: skipped: it is a socket, not a file {fix}",
            f"evals/x.md: warning: skipped: it is a FIFO (named pipe), not a file {fix}",
            f"evals/y.jsonl: warning: skipped: it is a FIFO (named pipe), not a file {fix}",
        ]
        assert out.startswith("1 example in 1 file: no errors")
        os.symlink("nowhere.md", evals / "dangling.md")
        status, err, out = lint(
            corpus.root, capsys, "evals/x.md", "evals/loop.md", "evals/s.json", "evals/dangling.md", "missing"
        )
        fix = "(Name example files or folders.)"
        assert (status, out) == (2, "")
        assert err == [
            f"evals/x.md: it is a FIFO (named pipe), not a file or folder {fix}",
            f"evals/loop.md: it is a symbolic link loop, not a file or folder {fix}",
            f"evals/s.json: it is a socket, not a file or folder {fix}",
            f"evals/dangling.md: it is a dangling symbolic link, not a file or folder {fix}",
            f"missing: no such file or directory {fix}",
        ]
    finally:
        server.close()


def test_quiet_on_this_repositorys_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    status, err, out = lint(ROOT, capsys, "evals/")
    assert (status, err) == (0, [])
    assert out.startswith("29 examples in 27 files: no errors, no quality findings")


def test_quiet_on_zeds_flask_example(capsys: pytest.CaptureFixture[str]) -> None:
    status, err, _ = lint(
        ROOT,
        capsys,
        str(ZED / "flask--add-test-function.md"),
        "--editpred-repo",
        f"{FLASK_URL}={FLASK_BUNDLE}",
    )
    assert (status, err) == (0, [])


def test_the_installed_command(tmp_path: Path) -> None:
    command = Path(sys.executable).parent / "editpred"
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "pytest_editpred.cli"]
    proc = subprocess.run([*argv, "lint", "evals/"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith("29 examples in 27 files: no errors, no quality findings")


def test_help_describes_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["lint", "--help"])
    text = capsys.readouterr().out
    for option in ("--editpred-repo URL=PATH", "--editpred-offline", "--editpred-cache-dir DIR", "PATH"):
        assert option in text
    assert textwrap.dedent(text)


def test_quiet_on_what_split_commit_and_import_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the corpus builders write is sound: lint finds nothing (oracle passes, noop
    fails, every patch applies), offline, the canvas repository from the package."""
    flask, imported = tmp_path / "flask", tmp_path / "imported"
    cut = ["split-commit", str(FLASK_BUNDLE), "HEAD~40..HEAD", "-o", str(flask), "-n", "2", "--url", FLASK_URL]
    assert main(cut) == 0
    samples = ZED.parent / "import-samples"
    for fmt, source in (("copilot-nes", samples / "copilot-nes"), ("nep", samples / "nep" / "sample.jsonl"),
                        ("crosscodeeval", samples / "crosscodeeval" / "sample.jsonl")):  # fmt: skip
        main(["import", fmt, str(source), "-o", str(imported / fmt)])  # 1: the samples' no-next-edit fixture
    capsys.readouterr()
    written = sorted(flask.glob("*.md")) + sorted(imported.rglob("*.md"))
    assert len(written) >= 10
    cache = str(tmp_path / "cache")
    status, err, out = lint(tmp_path, capsys, "flask", "imported", "--editpred-repo", f"{FLASK_URL}={FLASK_BUNDLE}",
                            "--editpred-offline", "--editpred-cache-dir", cache)  # fmt: skip
    assert (status, err) == (0, []), err
    assert out.startswith(f"{len(written)} examples in {len(written)} files: no errors, no quality findings")
