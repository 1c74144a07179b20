"""``editpred split-commit`` under hostile input: every option bounded, every refusal
one line with the fix (exit status 2) before any work, nothing written outside
``-o`` (nor ``-o`` itself made by a usage error), big files left unread, a shallow
clone's boundary named as such, and progress only on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepos import add_commit, git, make_repo, snapshot
from test_split_commit import URL, run_cli
from test_split_commit_git import history_repo

from pytest_editpred.cli import main
from pytest_editpred.corpus.split_commit import MAX_FILE_BYTES

SPLIT_FIX = "(Give a fraction of the edits from 0 to 1 (0.5: half of them), or an edit index (3).)"


@pytest.mark.parametrize("point", ["2.5", "-0.5", "fim:1.5", "99999.0"])
def test_a_fraction_outside_0_1_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], point: str) -> None:
    repo, _ = history_repo(tmp_path)
    before = snapshot(tmp_path)
    status, out, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(tmp_path / "out"), "--split", point, "--url", URL
    )
    value = point.split(":")[-1]
    assert (status, out) == (2, "")
    assert err == f"--split: the split point fraction '{value}' is outside 0 to 1 {SPLIT_FIX}\n"
    assert snapshot(tmp_path) == before  # no -o folder made


def test_an_index_past_the_edits_is_clamped_as_in_zed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each commit of ``history_repo`` has 6 edits: 99999 is 6, after the last edit,
    whose expected patch is empty (``do-nothing-target``); 1.0 is the same."""
    repo, _ = history_repo(tmp_path)
    said = []
    for point in ("99999", "6", "1.0"):
        status, out, err = run_cli(
            capsys, "split-commit", str(repo), "-o", str(tmp_path / point), "--split", point, "--url", URL
        )
        assert (status, err) == (0, "")
        said.append(out)
    assert (
        said
        == [
            "split-commit: 5 commits read: 0 written (0 examples), 5 skipped, 0 failed\n"
            "  skipped: 1 root-commit, 4 do-nothing-target\n"
        ]
        * 3
    )


@pytest.mark.parametrize("samples", ["1001", "100000", "1000000000"])
def test_n_is_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str], samples: str) -> None:
    repo, _ = history_repo(tmp_path)
    before = snapshot(tmp_path)
    status, out, err = run_cli(capsys, "split-commit", str(repo), "-o", str(tmp_path / "out"), "-n", samples)
    assert (status, out) == (2, "")
    assert err == (
        f"-n: {samples} examples per commit is more than 1000 (Give -n from 1 to 1000: further draws of a "
        "commit's splits only repeat examples already made.)\n"
    )
    assert snapshot(tmp_path) == before


def test_a_usage_error_leaves_no_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = history_repo(tmp_path)
    before = snapshot(tmp_path)
    status, out, err = run_cli(
        capsys, "split-commit", str(repo), "nosuch..HEAD", "-o", str(tmp_path / "a" / "out"), "--url", URL
    )
    assert (status, out, err.count("\n")) == (2, "", 1)
    assert err.startswith(f"{repo}: bad revision range nosuch..HEAD")
    assert snapshot(tmp_path) == before


def test_progress_of_the_samples_is_drawn_on_a_terminal_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = history_repo(tmp_path, 2)
    args = [str(Path(sys.executable).with_name("editpred")), "split-commit", str(repo), "-n", "3", "--url", URL]
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [*args, "-o", str(tmp_path / "tty")], stderr=follower, stdout=subprocess.PIPE, check=False
        )
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is closed: all read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
    assert proc.returncode == 0
    # newest first: the second commit, then the root commit (no samples drawn)
    samples = [f"\rsplit-commit: commit 1/2, samples {n}/3\x1b[K".encode() for n in (1, 2)]
    commits = [f"\rsplit-commit: commits {n}/2\x1b[K".encode() for n in (1, 2)]
    assert drawn == b"".join(samples + commits) + b"\r\x1b[K"
    # into a pipe (or a file), nothing but the summary
    piped = subprocess.run([*args, "-o", str(tmp_path / "pipe")], capture_output=True, check=False)
    assert (piped.returncode, piped.stderr) == (0, b"")
    assert piped.stdout == proc.stdout


def test_a_file_over_the_size_limit_is_left_out_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 2-line edit in a file of just over 2 MB, beside an edit of a small file: the
    big file is left out of the diff by name, the small one makes the example; a
    commit that edits only the big file is skipped with the reason. (A 120 MB file,
    and the memory it cost before, is measured by bench/bench_split_commit_memory.py.)"""
    rows = [f"value_{i} = {i}\n" for i in range(MAX_FILE_BYTES // 16 + 1)]
    big = "".join(rows)
    assert len(big) > MAX_FILE_BYTES
    small = [f"small_{i} = {i}\n" for i in range(12)]
    repo, _ = make_repo(tmp_path, {"big.py": big, "small.py": "".join(small)})
    rows[5], rows[9] = "value_5 = 50\n", "value_9 = 90\n"
    small[2], small[6] = "small_2 = 20\n", "small_6 = 60\n"
    add_commit(repo, {"big.py": "".join(rows), "small.py": "".join(small)})
    rows[7] = "value_7 = 70\n"
    add_commit(repo, {"big.py": "".join(rows)})
    out = tmp_path / "out"
    status, stdout, err = run_cli(capsys, "split-commit", str(repo), "-o", str(out), "--url", URL, "--split", "2")
    assert (status, err) == (0, "")
    assert stdout == (
        "split-commit: 3 commits read: 1 written (1 example), 2 skipped, 0 failed\n"
        "  skipped: 1 root-commit, 1 big-file\n"
        "  files left out of the diffs: 2 big-file\n"
    )
    [written] = out.iterdir()
    assert "small.py" in written.read_text() and "big.py" not in written.read_text()


def test_a_big_binary_file_is_left_out_as_big(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """git does not diff a file over the limit, text or not; one under it that is
    binary stays ``binary``."""
    repo, _ = make_repo(tmp_path, {"blob.bin": b"\0" * (MAX_FILE_BYTES + 1), "small.bin": b"\0\1"})
    add_commit(repo, {"blob.bin": b"\0" * (MAX_FILE_BYTES + 2), "small.bin": b"\0\2"})
    status, stdout, _ = run_cli(capsys, "split-commit", str(repo), "-o", str(tmp_path / "out"), "--url", URL)
    assert status == 0
    assert stdout.splitlines()[-1] == "  files left out of the diffs: 1 binary, 1 big-file"


def test_a_shallow_clones_boundary_in_a_linked_worktree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A linked worktree's git dir (``.git/worktrees/NAME``) holds no ``shallow`` file:
    the boundary was called a root commit there."""
    repo, _ = history_repo(tmp_path)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{repo}", str(shallow))
    git(shallow, "worktree", "add", "-q", str(tmp_path / "linked"))
    status, stdout, _ = run_cli(
        capsys, "split-commit", str(tmp_path / "linked"), "-o", str(tmp_path / "out"), "--split", "2", "--url", URL
    )
    assert status == 0
    assert stdout == (
        "split-commit: 3 commits read: 2 written (2 examples), 1 skipped, 0 failed\n  skipped: 1 shallow-boundary\n"
    )


def test_a_bundle_of_a_shallow_clone_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = history_repo(tmp_path)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{repo}", str(shallow))
    bundle = tmp_path / "shallow.bundle"
    git(shallow, "bundle", "create", "-q", str(bundle), "--all")
    before = snapshot(tmp_path)
    status, stdout, err = run_cli(capsys, "split-commit", str(bundle), "-o", str(tmp_path / "out"), "--url", URL)
    assert (status, stdout, err.count("\n")) == (2, "", 1)
    assert err.startswith(f"{bundle}: git cannot read this bundle (")
    assert err.endswith(
        "(A bundle made in a shallow clone lacks the parents of its oldest commits: make it in a full clone "
        "(git fetch --unshallow first), or give the repository itself.)\n"
    )
    assert snapshot(tmp_path) == before


def test_output_with_zeds_no_op_pair_passes_its_own_lint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Zed's half-typed line typed to its end leaves ``-T``/``+T`` in the expected
    patch (§1.5 "Quirk"): such an example and the next split's, the same moment and
    outcome, must not both be written, and lint finds nothing in what was."""
    repo, _ = make_repo(
        tmp_path,
        {"m.py": "def f(x):\n    y = x\n    return y\n\n\ndef g(y):\n    return y\n"},
        [
            {
                "m.py": "def f(x):\n    y = x\n    y = y * 3\n    return y + 2\n    return y\n\n\n"
                "def g(y):\n    y = y - 1\n    return y + 2\n    return y\n"
            }
        ],
    )
    out = tmp_path / "out"
    status, _, err = run_cli(
        capsys, "split-commit", str(repo), "-o", str(out), "--split", "1", "-n", "10", "--keep", "all", "--url", URL
    )
    assert (status, err) == (0, "")
    texts = [path.read_text() for path in out.iterdir()]
    assert any("-    return y + 2\n+    return y + 2\n" in text for text in texts)  # the quirk is there
    status = main(["lint", str(out), "--editpred-repo", f"{URL}={repo}"])
    lint_out, lint_err = capsys.readouterr()
    assert (status, lint_err) == (0, "")
    assert lint_out.startswith(f"{len(texts)} examples in {len(texts)} files: no errors, no quality findings")
