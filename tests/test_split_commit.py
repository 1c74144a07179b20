"""``editpred split-commit``: examples cut out of real commits (zed-authoring-and-context.md §1).

The worked examples A, B and C of §1.11–§1.13 are reproduced field for field from
their diff texts, with a scripted RNG giving the draws Zed's seeds give (Zed's
ChaCha12 draws cannot be reproduced, only replayed). From real git repositories the
same commits give the same fields apart from what the RNG decides: the cursor's
column (A: the 80% branch or the line above, jitter) and the half-typed line (B: how
much of ``    work()`` is typed, hence the history's ``+P``, the expected patch's
``-P`` and the cursor column).

Every example written is then loaded by the plugin in a subprocess: all pass with
the ``oracle`` provider and all fail with ``noop``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepos import add_commit, git, make_bare, make_bundle, make_repo
from zed_examples import FLASK_BUNDLE, FLASK_URL

from pytest_editpred._exceptions import SplitPointError
from pytest_editpred.cli import main
from pytest_editpred.corpus._file_kinds import is_service_file
from pytest_editpred.corpus.split_commit import (
    Generated,
    Patch,
    SplitPoint,
    generate,
    locations,
    parse_patch,
    parse_split_point,
)
from pytest_editpred.example import Example, from_markdown

URL = "https://github.com/acme/m"

A_DIFF = (
    "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f():\n-    return 1\n+    return 2\n def g():\n"
    "-    return 1\n+    return 2\n"
)
A_HISTORY = (
    "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f():\n-    return 1\n+    return 2\n def g():\n     return 1\n"
)
A_TARGET = (
    "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f():\n     return 2\n def g():\n-    return 1\n+    return 2\n"
)
B_DIFF = (
    '// Add logging\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,4 @@\n def run():\n+    log("start")\n+    work()\n'
    "     return 0\n"
)
C_DIFF = (
    "--- a/calc.py\n+++ b/calc.py\n@@ -1,4 +1,4 @@\n def total(items):\n-    s = sum(items)\n"
    "+    s = sum(i.price for i in items)\n     return s\n \n"
)


class Scripted:
    """An RNG that replays Zed's draws: ``ints`` for ``random_range``, ``floats``
    for ``random_bool`` (below p is true)."""

    def __init__(self, ints: list[int], floats: list[float] = ()) -> None:  # type: ignore[assignment]
        self.ints, self.floats = list(ints), list(floats)

    def randint(self, a: int, b: int) -> int:
        value = self.ints.pop(0)
        assert a <= value <= b
        return value

    def random(self) -> float:
        return self.floats.pop(0)

    def shuffle(self, x: list[int]) -> None:
        pass


def split(diff: str, point: str, ints: list[int], floats: list[float] = ()) -> Generated:  # type: ignore[assignment]
    return split_patch(parse_patch(diff), point, ints, floats)


def split_patch(patch: Patch, point: str, ints: list[int], floats: list[float] = ()) -> Generated:  # type: ignore[assignment]
    rng = Scripted(ints, floats)
    generated = generate(patch, parse_split_point(point), rng, lambda g: None)
    assert rng.ints == [] and rng.floats == []  # every draw Zed makes, no more
    return generated


# --- the worked examples, from their diff texts -------------------------------------------


def test_example_a_seed_1_80_percent_branch() -> None:
    """--seed 1: human_edit_seed 9743, random_bool(0.8) true, no jitter."""
    g = split(A_DIFF, "2", [9743], [0.1, 0.5])
    assert (g.split, g.edit_history, g.expected_patch) == (2, A_HISTORY, A_TARGET)
    assert g.cursor_position == "def f():\n    return 2<|user_cursor|>\ndef g():\n    return 1"
    assert (g.cursor.filename, g.cursor.line, g.cursor.column, g.kind) == ("m.py", 2, 12, "same-file-near")


def test_example_a_seed_14_line_above() -> None:
    """--seed 14: 5610, then false: the line above the first target edit, inside ``()``."""
    g = split(A_DIFF, "2", [5610], [0.9, 0.5])
    assert g.cursor_position == "def f():\n    return 2\ndef g(<|user_cursor|>):\n    return 1"
    assert (g.cursor.line, g.cursor.column, g.kind) == (3, 6, "same-file-near")


def test_example_a_seed_0_jitter() -> None:
    """--seed 0: 7312, true, jitter d=4 downwards: column 8."""
    g = split(A_DIFF, "2", [7312, 4], [0.1, 0.1, 0.9])
    assert g.cursor_position == "def f():\n    retu<|user_cursor|>rn 2\ndef g():\n    return 1"


@pytest.mark.parametrize(
    ("seed", "typed", "column"),
    [(7312, "    work", 8), (3422, "    w", 5), (2974, "    work(", 9), (9743, "    work()", 10)],
)
def test_example_b_half_typed_line(seed: int, typed: str, column: int) -> None:
    """--seed 0, 5, 2, 1 (human_edit_seed 7312, 3422, 2974, 9743); 9743 is the no-op ``-T``/``+T`` target."""
    g = split(B_DIFF, "fim:1", [seed])
    assert g.edit_history == (
        f'// Add logging\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,4 @@\n def run():\n+    log("start")\n+{typed}\n'
        "     return 0\n"
    )
    assert g.expected_patch == (
        f'// Add logging\n--- a/app.py\n+++ b/app.py\n@@ -1,4 +1,4 @@\n def run():\n     log("start")\n-{typed}\n'
        "+    work()\n     return 0\n"
    )
    assert g.cursor_position == f'def run():\n    log("start")\n{typed}<|user_cursor|>\n    return 0'
    assert (g.cursor.filename, g.cursor.line, g.cursor.column, g.kind) == ("app.py", 3, column, "fim")


def test_example_b_index_split_is_the_same() -> None:
    assert split(B_DIFF, "1", [7312]) == split(B_DIFF, "fim:1", [7312])


def test_example_c_replacement_typed_mid_line() -> None:
    """--seed 0 (7312 % 76 = 16): ``    s = sum(i.pric`` typed, ``items)`` kept after it."""
    g = split(C_DIFF, "1", [7312])
    assert g.edit_history == (
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,4 +1,4 @@\n def total(items):\n-    s = sum(items)\n"
        "+    s = sum(i.pricitems)\n     return s\n \n"
    )
    assert g.expected_patch == (
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,4 +1,4 @@\n def total(items):\n-    s = sum(i.pricitems)\n"
        "+    s = sum(i.price for i in items)\n     return s\n \n"
    )
    assert g.cursor_position == "def total(items):\n    s = sum(i.prici<|user_cursor|>tems)\n    return s\n"
    assert (g.cursor.line, g.cursor.column, g.kind) == (2, 19, "fim")


def test_deleted_file_start_is_not_corrected() -> None:
    """§1.3: a split inside a deleted file: history ``+0,2`` with ``+++ b/F``, target ``+++ /dev/null``."""
    diff = "--- a/d.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-one\n-two\n-three\n"
    g = split(diff, "1", [1], [0.1, 0.5])
    assert g.edit_history == "--- a/d.txt\n+++ b/d.txt\n@@ -1,3 +0,2 @@\n-one\n two\n three\n"
    assert g.expected_patch == "--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-two\n-three\n"


# --- split points and service files ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "point"),
    [
        ("0.5", SplitPoint(None, 0.5)),
        ("1", SplitPoint(None, 1)),
        ("1.0", SplitPoint(None, 1.0)),
        ("fim", SplitPoint("fim")),
        ("cross-file:2", SplitPoint("cross-file", 2)),
        ("same-file-far:0.25", SplitPoint("same-file-far", 0.25)),
    ],
)
def test_split_point_syntax(text: str, point: SplitPoint) -> None:
    assert parse_split_point(text) == point


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("near:1", "invalid split point kind 'near' (expected fim, same-file-near, same-file-far, or cross-file)"),
        ("fim:", "missing split point after kind 'fim:'"),
        ("x.5", "invalid split point fraction 'x.5'"),
        ("-1", "invalid split point index '-1'"),
        ("abc", "invalid split point index 'abc'"),
    ],
)
def test_split_point_errors(text: str, message: str) -> None:
    with pytest.raises(SplitPointError) as caught:
        parse_split_point(text)
    assert caught.value.reason == message


@pytest.mark.parametrize(
    ("path", "service"),
    [
        ("package-lock.json", True),
        ("b/web/yarn.lock", True),
        ("./.github/workflows/ci.yml", True),
        ("lib/vendor/x.py", True),
        ("app.min.js", True),
        ("api.generated.ts", True),
        ("src/build.rs", False),
        ("builder/x.py", False),
        ("", True),
        ("/dev/null", True),
        (".circleci", True),
        ("src/app.py", False),
    ],
)
def test_service_files(path: str, service: bool) -> None:
    assert is_service_file(path) is service


def test_random_split_redraws_service_files() -> None:
    """The first target edit of a random split avoids service files for up to 10 draws."""
    diff = (
        "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,2 @@\n x\n+y\n"
        '--- a/package.json\n+++ b/package.json\n@@ -1,1 +1,2 @@\n {\n+ "a": 1\n'
        "--- a/b.py\n+++ b/b.py\n@@ -1,1 +1,2 @@\n x\n+z\n"
    )
    patch: Patch = parse_patch(diff)
    g = generate(
        patch, SplitPoint(), Scripted([1, 1, 2, 5], [0.1, 0.5]), lambda g: None
    )  # 1: package.json, redrawn to 2
    assert g.split == 2 and g.expected_patch.startswith("--- a/b.py")


# --- real repositories --------------------------------------------------------------------

LINES = [f"line{i} = {i}\n" for i in range(80)]


def far_file() -> str:
    return "".join(LINES)


def kinds_repo(root: Path) -> tuple[Path, list[str]]:
    """One commit with edits near each other, far apart (> 30 lines) and in two files."""
    changed = list(LINES)
    changed[5] = "line5 = 'five'\n"
    changed[6] = "line6 = 'six'\n"
    changed[60] = "line60 = 'sixty'\n"
    return make_repo(
        root,
        {"m.py": far_file(), "other.py": "def other():\n    return 0\n"},
        [{"m.py": "".join(changed), "other.py": "def other():\n    return 1\n    # done\n"}],
    )


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def examples(folder: Path) -> list[Example]:
    return [from_markdown(p.read_text()) for p in sorted(folder.glob("*.md"))]


def test_example_a_from_git(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Worked example A from a real commit; only the cursor's place is the RNG's."""
    repo, shas = make_repo(
        tmp_path,
        {"m.py": "def f():\n    return 1\ndef g():\n    return 1\n"},
        [{"m.py": "def f():\n    return 2\ndef g():\n    return 2\n"}],
    )
    out = tmp_path / "out"
    status, stdout, err = run_cli(capsys, "split-commit", str(repo), "-o", str(out), "--split", "2", "--url", URL)
    assert (status, err) == (0, "")
    assert (
        stdout == "split-commit: 2 commits read: 1 written (1 example), 1 skipped, 0 failed\n  skipped: 1 root-commit\n"
    )
    [path] = out.glob("*.md")
    assert path.name == f"m-{shas[1][:8]}-2.md"
    example = from_markdown(path.read_text())
    assert (example.name, example.repository_url, example.revision) == (f"m-{shas[1][:8]}-2", URL, shas[0])
    assert (example.cursor_path, example.edit_history, example.expected_patches) == ("m.py", A_HISTORY, (A_TARGET,))
    excerpt, _ = example.cursor_excerpt()
    assert excerpt == "def f():\n    return 2\ndef g():\n    return 1\n"  # the fence's newline added


def test_example_b_from_git(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Worked example B from a real commit (no ``//`` group header: git has none);
    how much of ``    work()`` is typed is the RNG's."""
    repo, shas = make_repo(
        tmp_path,
        {"app.py": "def run():\n    return 0\n"},
        [{"app.py": 'def run():\n    log("start")\n    work()\n    return 0\n'}],
    )
    out = tmp_path / "out"
    status, _, err = run_cli(capsys, "split-commit", str(repo), "-o", str(out), "--split", "fim:1", "--url", URL)
    assert (status, err) == (0, "")
    [example] = examples(out)
    typed = example.edit_history.splitlines()[5][1:]
    assert "    work()".startswith(typed.split("<")[0]) and typed.strip()
    assert example.edit_history == (
        f'--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,4 @@\n def run():\n+    log("start")\n+{typed}\n     return 0\n'
    )
    assert example.expected_patches == (
        f'--- a/app.py\n+++ b/app.py\n@@ -1,4 +1,4 @@\n def run():\n     log("start")\n-{typed}\n+    work()\n'
        "     return 0\n",
    )
    excerpt, offset = example.cursor_excerpt()
    assert excerpt == f'def run():\n    log("start")\n{typed}\n    return 0\n'
    assert (example.cursor_path, example.revision, excerpt[offset - 1]) == ("app.py", shas[0], typed[-1])


# The commit of kinds_repo has 9 edits: m.py -line5 -line6 +line5 +line6 (0-3), -line60 +line60
# (4-5, 54 lines below), other.py -return 0 +return 1 +# done (6-8).


@pytest.mark.parametrize(
    ("point", "split", "kind"),
    [
        ("fim", None, "fim"),
        ("same-file-near", None, "same-file-near"),
        ("same-file-far", 4, "same-file-far"),
        ("same-file-far:4", 4, "same-file-far"),
        ("fim:5", 5, "fim"),
        ("0.5", 4, None),
        ("2", 2, None),
        ("7", 7, None),
    ],
)
def test_every_kind_of_split_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], point: str, split: int | None, kind: str | None
) -> None:
    """Each split point gives an example of its kind (the first target edit is the
    cursor's line for fim, within 30 lines for near, further for far)."""
    repo, shas = kinds_repo(tmp_path)
    out = tmp_path / "out"
    # the far edits of kinds_repo share no name with the history: the unrelated-target rule would skip them
    status, stdout, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(out), "--split", point, "--url", URL, "--keep", "unrelated-target"
    )
    assert (status, err) == (0, "")
    assert (
        stdout == "split-commit: 2 commits read: 1 written (1 example), 1 skipped, 0 failed\n  skipped: 1 root-commit\n"
    )
    [example] = examples(out)
    if split is not None:
        assert example.name == f"m-{shas[1][:8]}-{split}"
    target = parse_patch(example.expected_patches[0])
    first = next(loc for loc in locations(target))
    cursor_line = example.cursor_position.split("<|user_cursor|>")[0].count("\n")  # rows above, in the excerpt
    assert first.filename == example.cursor_path
    if kind == "same-file-far":
        assert first.target_line > 40 and cursor_line < 10
    elif kind == "fim":
        assert "-" + example.edit_history.splitlines()[-1].strip()[1:] != ""  # a half-typed line is in the history
        assert first.kind == "-"


def test_cross_file_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``cross-file`` from the diff: the cursor stays in m.py, the target starts in
    other.py. From git too, though the history never opened other.py: the judge
    reads a file no buffer holds from the tree (Zed's rules keep such a split)."""
    repo, shas = kinds_repo(tmp_path)
    diff = git(repo, "diff", "HEAD~1", "HEAD") + "\n"
    g = generate(parse_patch(diff), parse_split_point("cross-file:6"), Scripted([1], [0.1, 0.5]), lambda g: None)
    assert (g.split, g.kind, g.cursor.filename) == (6, "cross-file", "m.py")
    assert g.expected_patch.startswith("--- a/other.py\n")
    out = tmp_path / "o"
    # other.py's edit shares no name with the history's (kinds_repo is numbers): kept on purpose
    status, stdout, _ = run_cli(
        capsys,
        "split-commit",
        str(repo),
        "-o",
        str(out),
        "--split",
        "cross-file",
        "--url",
        URL,
        "--keep",
        "unrelated-target",
    )
    assert (status, stdout) == (
        0,
        "split-commit: 2 commits read: 1 written (1 example), 1 skipped, 0 failed\n  skipped: 1 root-commit\n",
    )
    [example] = examples(out)
    assert example.cursor_path == "m.py" and "other.py" not in example.edit_history
    assert example.expected_patches[0].startswith("--- a/other.py\n")
    check_with_plugin(out, URL, repo)


def test_kind_with_wrong_class_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = kinds_repo(tmp_path)
    status, stdout, _ = run_cli(
        capsys, "split-commit", str(repo), "-o", str(tmp_path / "o"), "--split", "fim:2", "--url", URL
    )
    assert (status, stdout) == (
        0,
        "split-commit: 2 commits read: 0 written (0 examples), 2 skipped, 0 failed\n"
        "  skipped: 1 root-commit, 1 other-kind\n",
    )


def test_do_nothing_target_is_skipped_and_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``1.0`` splits after every edit: nothing is left to predict."""
    repo, _ = kinds_repo(tmp_path)
    out = tmp_path / "out"
    status, stdout, _ = run_cli(capsys, "split-commit", str(repo), "-o", str(out), "--split", "1.0", "--url", URL)
    assert (status, stdout) == (
        0,
        "split-commit: 2 commits read: 0 written (0 examples), 2 skipped, 0 failed\n"
        "  skipped: 1 root-commit, 1 do-nothing-target\n",
    )
    assert list(out.iterdir()) == []


def test_service_binary_merge_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = make_repo(
        tmp_path,
        {"a.py": "x = 1\n", "package-lock.json": "{}\n", "logo.png": b"\x89PNG\0\1"},
        [{"package-lock.json": '{"a": 1}\n'}, {"logo.png": b"\x89PNG\0\2"}],
    )
    git(repo, "checkout", "-q", "-b", "side", "HEAD~2")
    add_commit(repo, {"b.py": "y = 1\n"}, "side")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "side")
    status, stdout, err = run_cli(capsys, "split-commit", str(repo), "-o", str(tmp_path / "o"), "--url", URL)
    assert (status, err) == (0, "")
    assert stdout == (
        "split-commit: 5 commits read: 0 written (0 examples), 5 skipped, 0 failed\n"
        "  skipped: 1 merge, 1 root-commit, 1 do-nothing-target, 1 binary, 1 lockfile\n"
        "  files left out of the diffs: 1 binary, 1 lockfile\n"
    )  # b.py: its one edit is the whole commit, whatever the draw


def test_same_seed_same_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = kinds_repo(tmp_path)
    add_commit(repo, {"m.py": far_file().replace("line40 = 40", "line40 = 'forty'\nextra = 1")})
    runs = []
    for name in ("one", "two"):
        out = tmp_path / name
        status = run_cli(capsys, "split-commit", str(repo), "-o", str(out), "-n", "4", "--seed", "7", "--url", URL)[0]
        assert status == 0
        runs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert runs[0] == runs[1] and len(runs[0]) >= 2
    other = tmp_path / "other-seed"
    run_cli(capsys, "split-commit", str(repo), "-o", str(other), "-n", "4", "--seed", "8", "--url", URL)
    assert {p.name: p.read_bytes() for p in other.iterdir()} != runs[0]


def test_jsonl_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = kinds_repo(tmp_path)
    out = tmp_path / "ex.jsonl"
    status, _, _ = run_cli(
        capsys, "split-commit", str(repo), "-o", str(out), "--split", "2", "--format", "jsonl", "--url", URL
    )
    assert status == 0
    [line] = out.read_text().splitlines()
    assert (json.loads(line)["revision"], json.loads(line)["name"]) == (shas[0], f"m-{shas[1][:8]}-2")


def test_force_and_refusal_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = kinds_repo(tmp_path)
    out = tmp_path / "out"
    args = ["split-commit", str(repo), "-o", str(out), "--split", "2", "--url", URL]
    assert run_cli(capsys, *args)[0] == 0
    path = out / f"m-{shas[1][:8]}-2.md"
    path.write_text("mine")
    status, stdout, err = run_cli(capsys, *args)
    assert status == 1 and path.read_text() == "mine"
    assert err == f"{path}: exists already (Use --force to overwrite it, or another -o directory.)\n"
    assert stdout.endswith("0 written (0 examples), 2 skipped, 0 failed\n  skipped: 1 root-commit, 1 exists\n")
    assert run_cli(capsys, *args, "--force")[0] == 0
    assert path.read_text().startswith("+++\n")


def test_bare_and_bundle_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = kinds_repo(tmp_path)
    bare, bundle = make_bare(tmp_path, repo), make_bundle(tmp_path, repo)
    made = []
    for source in (repo, bare, bundle):
        out = tmp_path / f"out-{source.name}"
        assert run_cli(capsys, "split-commit", str(source), "-o", str(out), "--split", "2", "--url", URL)[0] == 0
        made.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert made[0] == made[1] == made[2] and len(made[0]) == 1


def test_origin_url_is_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = kinds_repo(tmp_path)
    git(repo, "remote", "add", "origin", "https://user:secret@example.com/acme/kinds.git")
    out = tmp_path / "out"
    assert run_cli(capsys, "split-commit", str(repo), "-o", str(out), "--split", "2")[0] == 0
    [example] = examples(out)
    assert example.repository_url == "https://example.com/acme/kinds.git"
    assert example.name.startswith("kinds-")


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("not-a-repo", "{plain}: not a git repository"),
        (
            "missing",
            "{missing}: no such file or directory (Give a git repository (working or bare) or a .bundle file.)",
        ),
        ("bad-revision", "{repo}: bad revision range nosuch..HEAD"),
        ("option-revision", "{repo}: bad revision '--all'"),
        ("bad-split", "--split: invalid split point kind 'near'"),
        (
            "no-origin",
            "{repo}: the repository has no origin remote to name in the examples "
            "(Give the repository's URL with --url URL.)",
        ),
        (
            "bundle-no-url",
            "{bundle}: a bundle has no origin URL to name in the examples (Give the repository's URL with --url URL.)",
        ),
        ("output-is-file", "{file}: it is a file, not a folder (Give -o a folder (it is made if missing).)"),
        ("not-a-bundle", "{file}: not a git bundle"),
    ],
)
def test_bad_inputs_one_line_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, message: str
) -> None:
    repo, _ = kinds_repo(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    file = tmp_path / "file.txt"
    file.write_text("x")
    bundle = make_bundle(tmp_path, repo)
    out = str(tmp_path / "out")
    url = ["--url", URL]
    argv = {
        "not-a-repo": [str(plain), "-o", out, *url],
        "missing": [str(tmp_path / "missing"), "-o", out, *url],
        "bad-revision": [str(repo), "nosuch..HEAD", "-o", out, *url],
        "option-revision": ["-o", out, *url, str(repo), "--", "--all"],
        "bad-split": [str(repo), "-o", out, "--split", "near:1", *url],
        "no-origin": [str(repo), "-o", out],
        "bundle-no-url": [str(bundle), "-o", out],
        "output-is-file": [str(repo), "-o", str(file), *url],
        "not-a-bundle": [str(file), "-o", out, *url],
    }[case]
    status, stdout, err = run_cli(capsys, "split-commit", *argv)
    expected = message.format(plain=plain, missing=tmp_path / "missing", repo=repo, bundle=bundle, file=file)
    assert (status, stdout) == (2, "")
    assert err.count("\n") == 1 and err.startswith(expected), err
    assert "Traceback" not in err


def test_argparse_errors_are_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["split-commit", str(tmp_path), "-o", str(tmp_path), "-n", "0"])
    assert caught.value.code == 2
    assert "invalid count '0'" in capsys.readouterr().err


def test_installed_command(tmp_path: Path) -> None:
    """The ``editpred`` entry point: a bad repository is one line, status 2; --help names every option."""
    proc = subprocess.run(
        ["editpred", "split-commit", str(tmp_path / "nope"), "-o", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"{tmp_path / 'nope'}: no such file or directory (Give a git repository (working or bare) or a .bundle file.)\n"
    )
    help_text = subprocess.run(
        ["editpred", "split-commit", "--help"], capture_output=True, text=True, timeout=120
    ).stdout
    for option in ("--output", "-n N", "--split", "--seed", "--url", "--format", "--force", "REVISIONS"):
        assert option in help_text


# --- the plugin loads every example: oracle passes, noop fails ---------------------------


def plugin(folder: Path, provider: str, url: str, repo: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(folder),
            "-p",
            "no:cacheprovider",
            f"--editpred-provider={provider}",
            "--editpred-repo",
            f"{url}={repo}",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=folder,
        env=env,
    )


def check_with_plugin(folder: Path, url: str, repo: Path) -> int:
    count = len(list(folder.glob("*.md")))
    assert count
    oracle = plugin(folder, "oracle", url, repo)
    assert oracle.returncode == 0 and f"{count} passed" in oracle.stdout, oracle.stdout[-3000:]
    noop = plugin(folder, "noop", url, repo)
    assert noop.returncode == 1 and f"{count} failed" in noop.stdout, noop.stdout[-3000:]
    return count


def test_examples_pass_oracle_fail_noop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = kinds_repo(tmp_path)
    add_commit(
        repo,
        {
            "m.py": far_file().replace("line40 = 40", "line40 = 'forty'\nextra = 1"),
            "new.py": "def new():\n    return [1, 2]\n",
        },
    )
    add_commit(repo, {"other.py": None, "m.py": far_file().replace("line3 = 3\n", "")})
    out = tmp_path / "out"
    out.mkdir()
    for point in ("fim", "same-file-near", "same-file-far", "0.5", "1"):
        made = tmp_path / f"made-{point}"
        status, _, err = run_cli(
            capsys, "split-commit", str(repo), "-o", str(made), "--split", point, "-n", "3", "--url", URL
        )
        assert (status, err) == (0, "")
        for example in made.glob("*.md"):  # one folder for all (--force would replace it whole)
            example.rename(out / f"{point}-{example.name}")
    assert check_with_plugin(out, URL, repo) >= 6


def test_flask_examples_pass_oracle_fail_noop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "flask"
    status, stdout, err = run_cli(
        capsys, "split-commit", str(FLASK_BUNDLE), "HEAD~25..HEAD", "-o", str(out), "-n", "2", "--url", FLASK_URL
    )
    assert (status, err) == (0, ""), err
    assert stdout.startswith("split-commit: ")
    assert check_with_plugin(out, FLASK_URL, FLASK_BUNDLE) >= 10


# --- Zed's token rules, from commits rebuilt as small repositories -------------------------


def commit_patch(repo: Path, sha: str) -> Patch:
    return parse_patch(git(repo, "show", "--format=", sha) + "\n")


def test_half_typed_line_follows_similars_alignment(tmp_path: Path) -> None:
    """flask 3652ecd9, split 1: ``similar`` replaces ``Get`` by ``Flask is a``, so a cut
    after ``Flask is`` keeps the rest of the old line (the former diff inserted the
    new words and kept nothing: ``…documentation. Flask is``)."""
    old = "Welcome to Flask's documentation. Get started with :doc:`installation`\n"
    new = "Welcome to Flask's documentation. Flask is a lightweight WSGI web application framework.\n"
    repo, shas = make_repo(
        tmp_path, {"index.rst": f"Title\n\n{old}and more\n"}, [{"index.rst": f"Title\n\n{new}and more\n"}]
    )
    g = split_patch(commit_patch(repo, shas[1]), "1", [19])
    typed = "Welcome to Flask's documentation. Flask is started with :doc:`installation`"
    assert g.edit_history.splitlines()[-2:] == [f"+{typed}", " and more"]
    assert f"-{typed}\n+{new}" in g.expected_patch
    assert (g.cursor.line, g.cursor.column) == (3, len("Welcome to Flask's documentation. Flask is") + 1)


def test_deleted_text_before_the_cut_is_kept(tmp_path: Path) -> None:
    """flask 04920b30, split 2: the deleted ``-dependency-path`` comes before the cut;
    Zed keeps it typed back (the former rule wrote ``cache: pip'requirements``)."""
    head, tail = "steps:\n  - uses: setup-python\n    with:\n", "  - run: pytest\n  - run: mypy\n"
    before = head + "      cache: 'pip'\n      cache-dependency-path: 'requirements/*.txt'\n" + tail
    after = head + "      cache: pip\n      cache-dependency-path: requirements*/*.txt\n" + tail
    repo, shas = make_repo(tmp_path, {"tests.yaml": before}, [{"tests.yaml": after}])
    g = split_patch(commit_patch(repo, shas[1]), "2", [66])
    assert "+      cache-dependency-path: pip'requirements\n" in g.edit_history
    assert "-      cache-dependency-path: pip'requirements\n+      cache: pip\n" in g.expected_patch


def test_hunk_header_comments_have_single_spaces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """flask 541bc8df: git's hunk header repeats a line with two spaces in a row;
    Zed reads the header's words, so the example's header has one."""
    heading = "page. Demonstrates using |fetch|_, |XMLHttpRequest|_,  and"
    body = [f"  row {i}\n" for i in range(9)]  # indented: git names the heading in the hunk header
    text = heading + "\n" + "".join(body)
    changed = heading + "\n" + "".join(body[:6]) + "  row six\n  row seven\n" + "".join(body[8:])
    repo, _ = make_repo(tmp_path, {"README.rst": text}, [{"README.rst": changed}])
    out = tmp_path / "out"
    status, _, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(out), "--split", "2", "--url", URL, "--keep", "all"
    )
    assert (status, err) == (0, "")
    [example] = examples(out)
    headers = [line for line in example.edit_history.splitlines() if line.startswith("@@")]
    assert [line.partition(" @@ ")[2] for line in headers] == [
        "page. Demonstrates using |fetch|_, |XMLHttpRequest|_, and"
    ]


def renumbering_repo(root: Path, rows: list[str]) -> tuple[Path, list[str]]:
    """Eight lines added near the top and two further down: a history of the first
    nine keeps the second hunk's old start in the parent's numbering (Zed's)."""
    changed = (
        rows[:3]
        + [f"new{i}\n" for i in range(8)]
        + rows[3:33]
        + ["x1\n", "result = compute(value, other)\n"]
        + rows[33:]
    )
    return make_repo(root, {"f.txt": "".join(rows)}, [{"f.txt": "".join(changed)}])


def history_starts(out: Path) -> list[tuple[int, int]]:
    [example] = examples(out)
    return [(h.old_start, h.new_start) for h in parse_patch(example.edit_history).hunks]


def test_history_hunks_keep_zeds_old_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = renumbering_repo(tmp_path, [f"row {i}\n" for i in range(50)])
    out = tmp_path / "out"
    status, _, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(out), "--split", "9", "--url", URL, "--keep", "all"
    )
    assert (status, err) == (0, "")
    assert history_starts(out) == [(1, 1), (31, 39)]  # 31 in the parent's rows, as Zed writes it


def test_zeds_old_start_is_renumbered_where_it_would_misplace_a_hunk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows that repeat every eight lines: the second hunk's context occurs at its
    place and eight rows above, where Zed's old start points; there the history
    would change another row, so that hunk gets its sequential start, and the
    example passes with the oracle."""
    rows = [f"row {i}\n" for i in range(5)] + [f"p{i}\n" for i in range(8)] * 6
    repo, _ = renumbering_repo(tmp_path, rows)
    out = tmp_path / "out"
    status, _, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(out), "--split", "9", "--url", URL, "--keep", "all"
    )
    assert (status, err) == (0, "")
    assert history_starts(out) == [(1, 1), (39, 39)]
    assert check_with_plugin(out, URL, repo) == 1


def test_tokens_are_zeds() -> None:
    """Identifier runs, whitespace runs (Rust's whitespace: not U+001C–U+001F), and
    single other characters."""
    from pytest_editpred.corpus.split_commit._half_typed import tokenize

    assert tokenize("a \x1c b_c1  (x)\n  y") == ["a", " ", "\x1c", " ", "b_c1", "  ", "(", "x", ")", "\n  ", "y"]
    assert tokenize("café = 1") == ["café", " ", "=", " ", "1"]
