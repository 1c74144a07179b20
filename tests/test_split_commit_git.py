"""``editpred split-commit`` reading real repositories: every commit accounted for.

Odd paths (spaces, quotes, non-ASCII) round-trip through the markdown and JSONL
writers, lint and the plugin; paths an example cannot name (a tab, a newline, a
backslash) are left out by name. The five real commits of
``split-commit-cases.bundle`` give examples that load. A missing object, a shallow
clone's boundary and a submodule are skipped and counted, and the run goes on. The
summary adds up: read = written + skipped + failed, each by reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from gitrepos import add_commit, git, make_repo
from test_split_commit import URL, check_with_plugin, examples, run_cli
from zed_examples import FLASK_BUNDLE, FLASK_URL

from pytest_editpred.cli import main
from pytest_editpred.corpus.split_commit import Commit, Options, git_path, split_commit
from pytest_editpred.example import from_json

CASES = FLASK_BUNDLE.parent / "split-commit-cases.bundle"
BEFORE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
AFTER = "def f():\n    return 10\n\n\ndef g():\n    return 20\n"


def summary(stdout: str) -> dict[str, object]:
    """The summary's counts: read, written, examples, skipped, failed, and each
    reason line as a dict under its label (``skipped:`` as ``skipped by reason``)."""
    head = re.match(
        r"split-commit: (\d+) commits read: (\d+) written \((\d+) examples?\), (\d+) skipped, (\d+) failed", stdout
    )
    assert head is not None, stdout
    found: dict[str, object] = dict(zip(("read", "written", "examples", "skipped", "failed"), map(int, head.groups())))
    for line in stdout.splitlines()[1:]:
        label, _, counts = line.strip().partition(": ")
        found[label + (" by reason" if label in ("skipped", "failed") else "")] = {
            reason: int(n) for n, reason in (item.split(" ", 1) for item in counts.split(", "))
        }
    return found


def lint_clean(folder: Path, url: str, repo: Path, capsys: pytest.CaptureFixture[str]) -> str:
    status = main(["lint", str(folder), "--editpred-repo", f"{url}={repo}"])
    out, err = capsys.readouterr()
    assert status == 0 and "no errors" in out, err
    return err


# --- paths ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        (b"a/plain.py", b"a/plain.py"),
        (b"a/dir x/a b.py\t", b"a/dir x/a b.py"),  # git ends a name with a space with a tab
        (b'"a/q\\"uote.py"', b'a/q"uote.py'),
        (b'"a/caf\\303\\251.py"', "a/café.py".encode()),
        (b'"a/tab\\there.py"', b"a/tab\there.py"),
        (b'"a/new\\nline.py"', b"a/new\nline.py"),
        (b'"a/back\\\\slash.py"', b"a/back\\slash.py"),
    ],
)
def test_git_quoted_paths_are_read_as_git_writes_them(raw: bytes, path: bytes) -> None:
    assert git_path(raw) == path


ODD = ["dir x/a b.py", 'say "hi".py', "café/naïve.py", "two  spaces.py", "#hash.py", "a`tick.py"]
UNNAMEABLE = ["tab\there.py", "new\nline.py", "back\\slash.py", " lead.py"]


@pytest.fixture(scope="module")
def odd_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("odd")
    repo, _ = make_repo(root, {name: BEFORE for name in ODD + UNNAMEABLE})
    for name in ODD + UNNAMEABLE:
        add_commit(repo, {name: AFTER}, f"edit {name!r}")
    return repo


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["markdown", "jsonl"])
def test_odd_paths_round_trip_and_unnameable_ones_are_left_out(
    odd_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out = tmp_path / "out"
    status, stdout, err = run_cli(
        capsys, "split-commit", str(odd_repo), "-o", str(out), "--format", fmt, "--split", "2", "--url", URL
    )
    assert (status, err) == (0, "")
    counts = summary(stdout)
    assert (counts["read"], counts["written"], counts["failed"]) == (11, len(ODD), 0)
    assert counts["skipped by reason"] == {"root-commit": 1, "odd-path": len(UNNAMEABLE)}
    assert counts["files left out of the diffs"] == {"odd-path": len(UNNAMEABLE)}
    if fmt == "jsonl":
        loaded = [from_json(line) for line in (out / "examples.jsonl").read_text().splitlines()]
    else:
        loaded = examples(out)
    assert sorted(example.cursor_path for example in loaded) == sorted(ODD)
    for example in loaded:
        assert f"{example.cursor_path}" in example.edit_history or '"' in example.edit_history
    lint_clean(out, URL, odd_repo, capsys)
    if fmt == "markdown":
        check_with_plugin(out, URL, odd_repo)


def test_a_path_with_a_space_is_quoted_whole(
    odd_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--- "a/dir x/a b.py"``, not ``--- a/"dir x/a b.py"`` (which read back as a
    name with quotes in it, growing at every round trip)."""
    out = tmp_path / "out"
    run_cli(capsys, "split-commit", str(odd_repo), "-o", str(out), "--split", "2", "--url", URL)
    [example] = [e for e in examples(out) if e.cursor_path == "dir x/a b.py"]
    assert example.edit_history.startswith('--- "a/dir x/a b.py"\n+++ "b/dir x/a b.py"\n')
    assert example.expected_patches[0].startswith('--- "a/dir x/a b.py"\n+++ "b/dir x/a b.py"\n')


# --- the five real commits split-commit failed on ------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("case", "seed"), [(1, 25), (2, 0), (3, 2), (4, 0), (5, 0)])
@pytest.mark.parametrize("keep", [[], ["--keep", "all"]])
def test_the_five_bundled_commits_give_examples_that_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: int, seed: int, keep: list[str]
) -> None:
    """Each split at the failing seed, and two more samples, loads or is skipped by
    name: the history of a commit that edits ``Cargo.toml`` and ``cli/Cargo.toml``
    used to place its second section in the first file."""
    out = tmp_path / "out"
    status, stdout, err = run_cli(
        capsys,
        "split-commit",
        str(CASES),
        f"case-{case}^!",
        "-o",
        str(out),
        "--seed",
        str(seed),
        "-n",
        "3",
        "--url",
        "https://example.com/x",
        *keep,
    )
    assert (status, err) == (0, ""), err
    counts = summary(stdout)
    assert counts["failed"] == 0 and counts["read"] == 1
    if counts["written"]:
        lint_clean(out, "https://example.com/x", CASES, capsys)
        check_with_plugin(out, "https://example.com/x", CASES)
    else:
        assert counts["skipped"], stdout


# --- what cannot be read -------------------------------------------------------------------


def history_repo(root: Path, count: int = 5) -> tuple[Path, list[str]]:
    """Commits that each edit two lines of a.py and one of b.py."""
    lines = [f"value_{i} = {i}\n" for i in range(12)]
    repo, shas = make_repo(root, {"a.py": "".join(lines), "b.py": "b = 0\n"})
    for step in range(1, count):
        lines[step] = f"value_{step} = {step * 100}\n"
        lines[step + 5] = f"value_{step + 5} = {step * 1000}\n"
        shas.append(add_commit(repo, {"a.py": "".join(lines), "b.py": f"b = {step}\n"}))
    return repo, shas


def test_a_missing_object_skips_its_commits_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, shas = history_repo(tmp_path)
    blob = git(repo, "rev-parse", f"{shas[2]}:b.py")  # new in commit 2, old in commit 3
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    out = tmp_path / "out"
    status, stdout, err = run_cli(capsys, "split-commit", str(repo), "-o", str(out), "--split", "2", "--url", URL)
    assert (status, err) == (0, "")
    counts = summary(stdout)
    assert counts["read"] == 5 and counts["failed"] == 0
    assert counts["skipped by reason"] == {"root-commit": 1, "missing-object": 2}
    assert counts["written"] == 2 and {e.revision for e in examples(out)} == {shas[0], shas[3]}


def test_a_shallow_clones_oldest_commit_is_no_root_commit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = history_repo(tmp_path)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{repo}", str(shallow))
    status, stdout, _ = run_cli(
        capsys, "split-commit", str(shallow), "-o", str(tmp_path / "out"), "--split", "2", "--url", URL
    )
    counts = summary(stdout)
    assert status == 0 and counts["skipped by reason"] == {"shallow-boundary": 1}
    assert counts["read"] == 3 and counts["written"] == 2


def test_a_submodule_is_left_out_and_a_commit_of_it_alone_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, shas = history_repo(tmp_path, 3)
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{shas[0]},vendor-lib")
    git(repo, "commit", "-q", "-m", "add a submodule")
    git(repo, "update-index", "--cacheinfo", f"160000,{shas[1]},vendor-lib")
    (repo / "a.py").write_text((repo / "a.py").read_text().replace("value_0 = 0", "value_0 = -1"))
    git(repo, "add", "a.py")
    git(repo, "commit", "-q", "-m", "bump it, and edit")
    status, stdout, _ = run_cli(capsys, "split-commit", str(repo), "-o", str(tmp_path / "out"), "--url", URL)
    counts = summary(stdout)
    assert status == 0 and counts["failed"] == 0
    assert counts["skipped by reason"]["submodule"] == 1  # type: ignore[index]
    assert counts["files left out of the diffs"] == {"submodule": 2}


def test_files_an_example_cannot_hold_are_left_out_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lone carriage return, and a deleted SQL comment (``-- x`` is ``--- x``, which
    Zed's diff reader takes for a file header), are left out, each by its name."""
    repo, _ = make_repo(tmp_path, {"cr.txt": b"a\rb\nc\n", "q.sql": "-- old\nselect 1;\nselect 2;\n"})
    add_commit(repo, {"cr.txt": b"a\rB\nc\nd\n"})
    add_commit(repo, {"q.sql": "select 1;\nselect 2;\nselect 3;\n"})
    status, stdout, _ = run_cli(capsys, "split-commit", str(repo), "-o", str(tmp_path / "out"), "--url", URL)
    counts = summary(stdout)
    assert status == 0 and counts["skipped by reason"] == {"root-commit": 1, "lone-cr": 1, "header-like-line": 1}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["markdown", "jsonl"])
def test_a_crlf_file_is_cut_as_its_buffer_holds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    """A Windows file's carriage returns leave the diff, as they leave the buffer the
    scene reads: the example loads, in markdown (which cannot hold a ``\\r``) and in
    JSONL alike, and the oracle passes it."""
    crlf = BEFORE.replace("\n", "\r\n").encode()
    repo, _ = make_repo(tmp_path, {"win.py": crlf})
    add_commit(repo, {"win.py": AFTER.replace("\n", "\r\n").encode()})
    out = tmp_path / "out"
    status, stdout, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(out), "--split", "2", "--url", URL, "--format", fmt
    )
    assert (status, err) == (0, "")
    assert summary(stdout)["written"] == 1
    if fmt == "jsonl":
        assert "\\r" not in (out / "examples.jsonl").read_text()  # not even escaped in the JSON
    lint_clean(out, URL, repo, capsys)
    if fmt == "markdown":
        [example] = examples(out)
        assert "\r" not in example.edit_history + example.expected_patches[0]
        check_with_plugin(out, URL, repo)


def test_a_name_two_commits_share_is_made_unique(tmp_path: Path) -> None:
    """Two shas with one 8-digit prefix (a large history has some) name two examples
    alike: the second takes 16 digits of its sha."""
    from pytest_editpred.cli._split_commit import _write
    from pytest_editpred.corpus import ExampleWriter
    from pytest_editpred.example import Example

    writer = ExampleWriter(tmp_path, "markdown")
    first, second = "abcdef12" + "0" * 32, "abcdef12" + "1" * 32
    example = Example(
        name="m-abcdef12-2", repository_url=URL, revision="f" * 40, cursor_path="m.py",
        cursor_position="x<|user_cursor|>\n", edit_history="", expected_patches=("",),
    )  # fmt: skip
    assert _write(writer, example, first) and _write(writer, example, second)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-abcdef12-2.md", "m-abcdef1211111111-2.md"]


def test_the_same_change_in_two_commits_is_written_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A change made twice on one parent (a cherry-pick onto another branch) is the
    same moment: the second is a duplicate, as lint would say."""
    repo, shas = make_repo(tmp_path, {"a.py": BEFORE})
    add_commit(repo, {"a.py": AFTER}, "on main")
    git(repo, "checkout", "-q", "-b", "side", shas[0])
    add_commit(repo, {"a.py": AFTER}, "the same, on a branch")
    out = tmp_path / "out"
    status, stdout, _ = run_cli(
        capsys, "split-commit", str(repo), "main", "side", "-o", str(out), "--split", "2", "--url", URL
    )
    counts = summary(stdout)
    assert status == 0 and counts["written"] == 1
    assert counts["skipped by reason"] == {"root-commit": 1, "duplicate": 1}
    lint_clean(out, URL, repo, capsys)


# --- the command ---------------------------------------------------------------------------


def test_revisions_may_follow_the_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = history_repo(tmp_path)
    status, stdout, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(tmp_path / "out"), "--split", "2", "--url", URL, "HEAD~2..HEAD"
    )
    assert (status, err) == (0, "")
    assert summary(stdout)["read"] == 2


def test_a_second_run_into_the_same_folder_says_so_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = history_repo(tmp_path)
    out = tmp_path / "out"
    args = ["split-commit", str(repo), "-o", str(out), "--split", "2", "--url", URL]
    assert run_cli(capsys, *args)[0] == 0
    status, stdout, err = run_cli(capsys, *args)
    assert status == 1
    assert re.fullmatch(
        rf"{re.escape(str(out))}: 4 examples exist already \(the first: m-[0-9a-f]{{8}}-2\.md\) "
        r"\(Use --force to overwrite them, or another -o directory\.\)\n",
        err,
    ), err
    counts = summary(stdout)
    assert counts["written"] == 0 and counts["skipped by reason"] == {"root-commit": 1, "exists": 4}


@pytest.mark.slow
def test_the_summary_adds_up_on_real_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """read = written + skipped + failed, every skipped commit has a reason, and the
    JSONL holds the examples the summary counts."""
    out = tmp_path / "flask.jsonl"
    status, stdout, err = run_cli(
        capsys, "split-commit", str(FLASK_BUNDLE), "HEAD~400..HEAD", "-o", str(out), "--format", "jsonl",
        "-n", "2", "--url", FLASK_URL,
    )  # fmt: skip
    assert (status, err) == (0, "")
    counts = summary(stdout)
    assert counts["read"] == counts["written"] + counts["skipped"] + counts["failed"]  # type: ignore[operator]
    assert sum(counts["skipped by reason"].values()) == counts["skipped"]  # type: ignore[union-attr]
    assert counts["failed"] == 0 and counts["examples"] >= counts["written"]  # type: ignore[operator]
    assert len(out.read_text().splitlines()) == counts["examples"]
    assert all(json.loads(line)["revision"] for line in out.read_text().splitlines())


def test_one_commit_read_in_process(tmp_path: Path) -> None:
    """``split_commit`` on a :class:`Commit` whose diff could not be read says so."""
    from pytest_editpred.corpus.split_commit import open_repository

    repo, shas = history_repo(tmp_path, 2)
    with open_repository(str(repo)) as opened:
        result = split_commit(opened, Commit(shas[1], [shas[0]], unreadable="fatal: unable to read x"), Options())
    assert (result.outcome, result.reason) == ("skipped", "missing-object")
