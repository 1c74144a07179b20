"""``editpred truncate-patch``: Zed's ``ep truncate-patch`` rule (groups counted by the
hunks that hold a ``///`` banner, ``--current-file-only``, ``//`` lines dropped, Zed's
serializer), on Zed's own example files and on examples over a real repository whose
truncated patches ``editpred lint`` then checks."""

from __future__ import annotations

import io
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from gitrepos import make_repo
from zed_examples import FLASK_BUNDLE, FLASK_URL, ZED

from conftest import CALC
from pytest_editpred.cli import main
from pytest_editpred.corpus import truncate_patch
from pytest_editpred.example import from_markdown, load_examples

URL = "https://github.com/acme/calc"
CALLER = "from a import add\n\nprint(add(1, 2))\n"

#: A reordered patch of three groups over two files, as an LLM writes one: the first
#: banner in the header, the others at the end of the hunk before their group (where
#: Zed's parser keeps them), a ``//`` note inside a hunk, a ``diff --git`` line pair
#: between files, and the expected cursor's line.
REORDERED = """\
/// Group 1: the definition
--- a/a.py
+++ b/a.py
@@ -1,2 +1,2 @@
-def add(a, b):
+def plus(a, b):
     return a + b
// keep the body
/// Group 2: its use in a.py
--- a/a.py
+++ b/a.py
@@ -5,2 +5,2 @@
 def mul(a, b):
-    return a * b
+    return plus(0, a) * b
#                  ^[CURSOR_POSITION]
/// Group 3: the caller
diff --git a/b.py b/b.py
index 1111111..2222222 100644
--- a/b.py
+++ b/b.py
@@ -1,3 +1,3 @@
-from a import add
+from a import plus
 \n-print(add(1, 2))
+print(plus(1, 2))
"""

FIRST = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-def add(a, b):\n+def plus(a, b):\n     return a + b\n"
SECOND = (
    "--- a/a.py\n+++ b/a.py\n@@ -5,2 +5,2 @@\n def mul(a, b):\n-    return a * b\n+    return plus(0, a) * b\n"
    "#                  ^[CURSOR_POSITION]\n"
)
THIRD = (
    "--- a/b.py\n+++ b/b.py\n@@ -1,3 +1,3 @@\n-from a import add\n+from a import plus\n \n-print(add(1, 2))\n"
    "+print(plus(1, 2))\n"
)


def test_groups_are_counted_by_the_hunks_that_hold_a_banner() -> None:
    """Hunk 0 holds group 2's banner, hunk 1 group 3's: N keeps hunks up to the N-th
    of them. The ``diff --git`` pair is Garbage of hunk 1, kept (Zed keeps it)."""
    git_lines = "diff --git a/b.py b/b.py\nindex 1111111..2222222 100644\n"
    assert truncate_patch(REORDERED, 1).patch == FIRST
    assert truncate_patch(REORDERED, 2).patch == FIRST + SECOND + git_lines
    assert truncate_patch(REORDERED, 3).patch == FIRST + SECOND + git_lines + THIRD
    assert truncate_patch(REORDERED, 9).patch == truncate_patch(REORDERED, 3).patch


def test_current_file_only_drops_other_files_but_counts_them() -> None:
    assert truncate_patch(REORDERED, 3, "a.py").patch == FIRST + SECOND + "diff --git a/b.py b/b.py\n" + (
        "index 1111111..2222222 100644\n"
    )
    assert truncate_patch(REORDERED, 3, "b.py").patch == THIRD
    # group 1 is a.py's, counted though dropped: nothing of b.py is reached
    assert truncate_patch(REORDERED, 1, "b.py").patch == ""


def test_the_expected_cursor_goes_with_its_hunk() -> None:
    assert not truncate_patch(REORDERED, 2).lost_cursor
    assert truncate_patch(REORDERED, 1).lost_cursor
    assert not truncate_patch(FIRST, 1).lost_cursor  # a patch without a cursor loses none


def test_every_hunk_gets_its_own_header_and_banners_without_groups_keep_all() -> None:
    """Two hunks of one file under one header come out with a header each (Zed's
    serializer); with no banner at all every hunk is one group."""
    patch = "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-x\n+y\n@@ -9,1 +9,1 @@ def f():\n-u\n+v\n"
    assert truncate_patch(patch, 1).patch == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-x\n+y\n--- a/a.py\n+++ b/a.py\n@@ -9,1 +9,1 @@ def f():\n-u\n+v\n"
    )


def run(capsys: pytest.CaptureFixture[str], *args: str, cwd: Path | None = None) -> tuple[int, str, list[str]]:
    before = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        status = main(["truncate-patch", *args])
    finally:
        os.chdir(before)
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


def test_zeds_examples_print_as_jsonl_with_only_the_first_patch_rewritten(capsys: pytest.CaptureFixture[str]) -> None:
    """Zed's eval files hold no banner: each first patch is written back as Zed's
    serializer writes it, which for these one-hunk patches is the patch itself,
    cursor line included; the flask example's other nine patches are untouched."""
    status, out, err = run(capsys, str(ZED), "--num-groups", "1")
    assert status == 0
    assert err == ["truncate-patch: 8 examples read, 8 written (8 truncated to 1 group, 0 without an expected patch)"]
    printed = [json.loads(line) for line in out.splitlines()]
    originals = {e.name: e for e in (load_examples(p)[0] for p in sorted(ZED.glob("*.md")))}
    assert [p["name"] for p in printed] == sorted(originals)
    for record in printed:
        original = originals[record["name"]]
        assert record["expected_patches"] == list(original.expected_patches)
        assert record["cursor_position"] == original.cursor_position
    flask = next(r for r in printed if r["name"] == "flask--add-test-function")
    assert len(flask["expected_patches"]) == 10 and "^[CURSOR_POSITION]" in flask["expected_patches"][0]


def test_a_truncated_zed_example_still_passes_lint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    status, stdout, err = run(capsys, str(ZED / "flask--add-test-function.md"), "--num-groups", "1", "-o", str(out))
    assert (status, stdout.splitlines()[-1][:34]) == (0, "truncate-patch: 1 example read, 1 ")
    assert err == []
    written = out / "flask--add-test-function.md"
    assert from_markdown(written.read_text(), written) == load_examples(ZED / "flask--add-test-function.md")[0]
    assert main(["lint", str(written), "--editpred-repo", f"{FLASK_URL}={FLASK_BUNDLE}"]) == 0
    assert capsys.readouterr().err == ""


def example(rev: str, patch: str) -> str:
    """An example whose history did group 1 (``add`` renamed ``plus`` in a.py)."""
    history = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-def add(a, b):\n+def plus(a, b):\n     return a + b\n"
    return (
        f'+++\nrepository_url = "{URL}"\nrevision = "{rev}"\n+++\n\n# rename\n\n## Edit History\n\n'
        f"```diff\n{history}```\n\n## Cursor Position\n\n```a.py\ndef plus(a, b):\n#        ^[CURSOR_POSITION]\n```\n\n"
        f"## Expected Patch\n\n```diff\n{patch}```\n"
    )


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    """A folder with a real repository mapped in ``pytest.ini``; the revision."""
    _, shas = make_repo(tmp_path / "upstream", {"a.py": CALC, "b.py": CALLER})
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\neditpred_cache_dir = .cache\neditpred_repos =\n    {URL} = upstream/repo\n"
    )
    return tmp_path, shas[-1]


def test_truncated_examples_apply_and_pass_lint(project: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    """The history did group 1; the expected patch is groups 2 and 3 (its header holds
    group 2's banner). One group keeps a.py's hunk with the cursor; the result loads,
    applies to the repository, passes the oracle and fails noop."""
    root, rev = project
    patch = REORDERED[REORDERED.index("/// Group 2") :]
    (root / "in").mkdir()
    (root / "in" / "rename.md").write_text(example(rev, patch))
    status, stdout, err = run(capsys, "in", "--num-groups", "1", "-o", "out", cwd=root)
    assert (status, err) == (0, [])
    assert stdout == (
        "truncate-patch: 1 example read, 1 written (1 truncated to 1 group, 0 without an expected patch), to out\n"
    )
    cut = from_markdown((root / "out" / "rename.md").read_text())
    assert cut.expected_patches == (SECOND + "diff --git a/b.py b/b.py\nindex 1111111..2222222 100644\n",)
    before = Path.cwd()
    os.chdir(root)
    try:
        assert main(["lint", "out", "in"]) == 0
    finally:
        os.chdir(before)
    assert "no errors" in capsys.readouterr().out


def test_jsonl_keeps_every_other_field_and_a_cursor_cut_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {
        "name": "r",
        "repository_url": URL,
        "revision": "abc",
        "cursor_path": "a.py",
        "cursor_position": "def plus(a, b):\n#        ^[CURSOR_POSITION]\n",
        "expected_patches": [REORDERED[REORDERED.index("/// Group 2") :], "--- a/a.py\n+++ b/a.py\n"],
        "predictions": [{"provider": "zeta2", "actual_output": "x"}],
    }
    (tmp_path / "in.jsonl").write_text(json.dumps(record) + "\n")
    out = tmp_path / "out.jsonl"
    source = str(tmp_path / "in.jsonl")
    status, stdout, err = run(capsys, source, "--num-groups", "1", "--current-file-only", "-o", str(out))
    assert (status, err) == (0, [])
    assert stdout.endswith("(1 truncated to 1 group, 0 without an expected patch), to " + str(out) + "\n")
    (written,) = [json.loads(line) for line in out.read_text().splitlines()]
    git_lines = "diff --git a/b.py b/b.py\nindex 1111111..2222222 100644\n"  # Garbage of a.py's hunk
    assert written == record | {"expected_patches": [SECOND + git_lines, "--- a/a.py\n+++ b/a.py\n"]}
    # a patch whose cursor is in its second group loses it when cut to one
    record["expected_patches"] = [FIRST + "/// Group 2\n" + THIRD + "# ^[CURSOR_POSITION]\n"]
    (tmp_path / "in.jsonl").write_text(json.dumps(record) + "\n")
    status, stdout, err = run(capsys, str(tmp_path / "in.jsonl"), "--num-groups", "1", "-o", str(out), "--force")
    assert status == 0
    assert stdout.startswith("truncate-patch: 1 example read, 1 written (1 truncated to 1 group, 0 without an ")
    assert "; 1 expected cursor cut with its hunk, to " in stdout
    assert json.loads(out.read_text())["expected_patches"] == [FIRST]


def test_no_expected_patch_is_a_warning_and_goes_out_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = '{"name":"bare", "repository_url":"u","revision":"r","cursor_path":"a.py","cursor_position":"x|"}'
    (tmp_path / "in.jsonl").write_text(line + "\n")
    status, out, err = run(capsys, str(tmp_path / "in.jsonl"), "--num-groups", "2")
    assert status == 0
    assert out == line + "\n"  # as it came in, byte for byte
    assert err == [
        f"{tmp_path / 'in.jsonl'}:1: warning: bare has no expected patch to truncate: written unchanged "
        "(Give it an expected patch, or leave it out of the input.)",
        "truncate-patch: 1 example read, 1 written (0 truncated to 2 groups, 1 without an expected patch)",
    ]


def test_bad_records_are_one_line_each_and_the_rest_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {"name": "g", "repository_url": "u", "revision": "r", "cursor_path": "a.py"}
    good |= {"cursor_position": "x<|user_cursor|>", "expected_patches": [FIRST]}
    (tmp_path / "in.jsonl").write_text(json.dumps(good) + "\n{not json\n" + json.dumps({"name": "n"}) + "\n")
    status, out, err = run(capsys, str(tmp_path / "in.jsonl"), str(tmp_path / "missing"), "--num-groups", "1")
    assert status == 1
    assert [json.loads(line)["name"] for line in out.splitlines()] == ["g"]
    where = tmp_path / "in.jsonl"
    assert err[0].startswith(f"{where}:2: invalid JSON: ")
    assert err[1] == (
        f"{where}:3: the example has no 'cursor_path' "
        "(Write one Example object with Zed's field names (see the README).)"
    )
    assert err[2] == f"{tmp_path / 'missing'}: no such file or folder (Give .md, .json or .jsonl examples, or folders.)"
    assert err[3].startswith("truncate-patch: 1 example read, 1 written")


def test_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    record = {"repository_url": "u", "revision": "r", "cursor_path": "a.py", "cursor_position": "x<|user_cursor|>"}
    record["expected_patches"] = [REORDERED]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((json.dumps(record) + "\n").encode())))
    status, out, _ = run(capsys, "-", "--num-groups", "1")
    assert status == 0
    assert json.loads(out)["expected_patches"] == [FIRST]


def test_an_existing_output_is_refused_and_force_writes_over_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    source = str(ZED / "zed--add-eprintln.md")
    status, stdout, err = run(capsys, source, "--num-groups", "1", "-o", str(out))
    refused = f"{out}: it exists (Name a new output, or pass --force to write over it.)"
    assert (status, stdout, err) == (2, "", [refused])
    assert out.read_text() == "old\n"
    status, _, _ = run(capsys, source, "--num-groups", "1", "-o", str(out), "--force")
    assert status == 0 and json.loads(out.read_text())["name"] == "zed--add-eprintln"
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "keep.txt").write_text("x")
    status, _, err = run(capsys, source, "--num-groups", "1", "-o", str(folder))
    assert (status, err) == (2, [f"{folder}: it exists (Name a new output, or pass --force to write over it.)"])
    status, _, err = run(capsys, source, "--num-groups", "1", "-o", str(folder / "keep.txt"))
    assert status == 2 and err == [
        f"{folder / 'keep.txt'}: it is a file, not a folder for .md examples (Name a folder, or a .jsonl file.)"
    ]


def test_usage_errors_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["x.md", "--num-groups", "0"], ["x.md"], ["x.md", "--num-groups", "two"]):
        with pytest.raises(SystemExit) as raised:
            main(["truncate-patch", *args])
        assert raised.value.code == 2
    assert "--num-groups" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["truncate-patch", "--help"])
    text = capsys.readouterr().out
    for option in ("--num-groups N", "--current-file-only", "-o OUT", "--force", "PATH"):
        assert option in text
    assert textwrap.dedent(text)
