"""Running git safely (``pytest_editpred/scene/_git.py``), against real git.

Every test runs the real ``git`` on real repositories made in temporary directories
(tests/gitrepos.py): ``CatFile`` reads blobs, trees and commits and reports missing
and ambiguous objects; ``parse_tree`` agrees with ``git ls-tree``; ``run`` returns
git's exit status and stderr and kills git with its children at the deadline; the
environment and ``CONFIG`` keep variables a git hook exported, the user's hooks and
credential helpers, and disallowed transports away from our git; and a command that
fails reaches the user as a ``GitError`` naming the command and quoting git.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import time
from pathlib import Path

import pytest
from gitrepos import Symlink, git, make_repo

from pytest_editpred import GitError, UncommittedDiffError
from pytest_editpred.scene import RepositoryCache
from pytest_editpred.scene._git import (
    CONFIG,
    LOCAL,
    NETWORK,
    NONE,
    CatFile,
    credential_helper,
    environment,
    parse_tree,
    run,
)

URL = "https://example.com/team/proj"
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
HELLO_BLOB = "ce013625030ba8dba906f756967f9e9ca394464a"  # "hello\n"
FILES: dict[str, str | bytes | Symlink | None] = {
    "README": "hello\n",
    "empty.txt": "",
    "data.bin": b"\x00\x01\xff\n\nbinary\n",
    "src/app.py": "x = 1\n",
    "link": Symlink("README"),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path, _ = make_repo(tmp_path, FILES)
    return path


def blob_id(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


# -- CatFile ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,content",
    [
        ("HEAD:README", b"hello\n"),
        ("HEAD:empty.txt", b""),
        ("HEAD:data.bin", b"\x00\x01\xff\n\nbinary\n"),
        ("HEAD:src/app.py", b"x = 1\n"),
        ("HEAD:link", b"README"),
    ],
    ids=["text", "empty", "binary", "nested", "symlink"],
)
def test_cat_file_reads_a_blob_whole(repo: Path, spec: str, content: bytes) -> None:
    batch = CatFile(repo / ".git")
    try:
        assert batch.get(spec) == (blob_id(content), "blob", content)
        assert batch.get(spec) == (blob_id(content), "blob", content)  # the pipe stays in step
        assert batch.alive
    finally:
        batch.close()


def test_cat_file_reads_a_commit_and_a_tree(repo: Path) -> None:
    batch = CatFile(repo / ".git")
    try:
        commit = git(repo, "rev-parse", "HEAD")
        tree = git(repo, "rev-parse", "HEAD^{tree}")
        assert batch.get("HEAD") == (
            commit,
            "commit",
            f"tree {tree}\nauthor Editpred Tests <tests@example.com> 1704067200 +0000\n"
            "committer Editpred Tests <tests@example.com> 1704067200 +0000\n\ninitial\n".encode(),
        )
        oid, kind, data = batch.get(f"{commit}^{{tree}}")
        assert (oid, kind) == (tree, "tree")
        assert parse_tree(data, 20)[b"README"] == (b"100644", HELLO_BLOB)
    finally:
        batch.close()


@pytest.mark.parametrize("spec", ["0" * 40, "HEAD:no-such-file", "HEAD:src/app.py/deeper", "no-such-ref", "", " "])
def test_cat_file_reports_a_missing_object_and_keeps_answering(repo: Path, spec: str) -> None:
    batch = CatFile(repo / ".git")
    try:
        assert batch.get(spec) == ("", "missing", b"")
        assert batch.alive
        assert batch.get("HEAD:README") == (HELLO_BLOB, "blob", b"hello\n")
    finally:
        batch.close()


def test_cat_file_reports_an_ambiguous_prefix(repo: Path) -> None:
    # Two blobs whose ids share their first four hex digits (git's shortest prefix).
    first: dict[str, bytes] = {}
    for i in itertools.count():
        content = f"blob {i}\n".encode()
        prefix = blob_id(content)[:4]
        if prefix in first:
            pair = (first[prefix], content)
            break
        first[prefix] = content
    for content in pair:
        assert git(repo, "hash-object", "-w", "--stdin", input=content) == blob_id(content)
    batch = CatFile(repo / ".git")
    try:
        assert batch.get(prefix) == ("", "ambiguous", b"")
        assert batch.alive
        full = blob_id(pair[1])
        assert batch.get(full) == (full, "blob", pair[1])
    finally:
        batch.close()


def test_cat_file_on_a_blobless_mirror_reports_a_missing_blob_instead_of_fetching_it(
    repo: Path, tmp_path: Path
) -> None:
    git(repo, "config", "uploadpack.allowFilter", "true")
    mirror = tmp_path / "mirror.git"
    cloned = run(
        [*CONFIG, "clone", "--bare", "-q", "--filter=blob:none", f"file://{repo}", str(mirror)], environment(LOCAL), 30
    )
    assert (cloned.returncode, cloned.stderr) == (0, b"")
    batch = CatFile(mirror)
    try:
        assert batch.get("HEAD^{tree}")[1] == "tree"  # trees are there
        # The blob is not: git may use no transport, dies, and the batch says "missing".
        assert batch.get("HEAD:README") == ("", "missing", b"")
        assert not batch.alive
    finally:
        batch.close()
    assert "README" not in git(mirror, "rev-list", "--objects", "--all", "--missing=print").split()


def test_cat_file_on_a_directory_that_is_no_repository_reports_missing(tmp_path: Path) -> None:
    batch = CatFile(tmp_path)
    assert batch.get("HEAD") == ("", "missing", b"")
    assert not batch.alive
    batch.close()


def test_close_ends_the_process_and_may_be_repeated(repo: Path) -> None:
    batch = CatFile(repo / ".git")
    assert batch.alive
    batch.close()
    assert not batch.alive
    batch.close()
    assert not batch.alive


# -- parse_tree ---------------------------------------------------------------------------------


def test_parse_tree_agrees_with_ls_tree(repo: Path) -> None:
    git(repo, "update-index", "--chmod=+x", "src/app.py")
    git(repo, "commit", "-q", "-m", "executable")
    batch = CatFile(repo / ".git")
    try:
        _, _, root = batch.get("HEAD^{tree}")
        _, _, src = batch.get("HEAD:src")
    finally:
        batch.close()
    for data, treeish in ((root, "HEAD"), (src, "HEAD:src")):
        listed = {}
        for row in git(repo, "ls-tree", treeish).splitlines():
            meta, name = row.split("\t")
            mode, _, oid = meta.split()
            listed[name.encode()] = (mode.lstrip("0").encode(), oid)  # ls-tree pads trees to 040000
        assert parse_tree(data, 20) == listed
    assert parse_tree(root, 20)[b"link"][0] == b"120000"
    assert parse_tree(src, 20) == {b"app.py": (b"100755", blob_id(b"x = 1\n"))}


@pytest.mark.parametrize(
    "data,size,entries",
    [
        (b"", 20, {}),
        (b"100644 a\0" + bytes(range(20)), 20, {b"a": (b"100644", bytes(range(20)).hex())}),
        (
            b"100644 with space\0" + b"\x11" * 20 + b"40000 d\0" + b"\x22" * 20,
            20,
            {b"with space": (b"100644", "11" * 20), b"d": (b"40000", "22" * 20)},
        ),
        (b"100644 caf\xc3\xa9 \xff\0" + b"\x33" * 20, 20, {b"caf\xc3\xa9 \xff": (b"100644", "33" * 20)}),
        (
            b"120000 l\0" + b"\x44" * 32 + b"160000 sub\0" + b"\x55" * 32,
            32,
            {b"l": (b"120000", "44" * 32), b"sub": (b"160000", "55" * 32)},
        ),
    ],
    ids=["empty", "one", "space-in-name", "non-utf8-name", "sha256"],
)
def test_parse_tree_reads_mode_name_and_id(data: bytes, size: int, entries: dict[bytes, tuple[bytes, str]]) -> None:
    assert parse_tree(data, size) == entries


# -- run: exit status, stdin, deadline -----------------------------------------------------------


def test_a_failing_command_comes_back_with_its_status_and_stderr(repo: Path) -> None:
    proc = run(["rev-parse", "--verify", "no-such-ref"], environment(NONE), 30, cwd=repo)
    assert (proc.args, proc.returncode, proc.stdout, proc.stderr) == (
        ["rev-parse", "--verify", "no-such-ref"],
        128,
        b"",
        b"fatal: Needed a single revision\n",
    )


def test_stdin_is_given_whole_and_otherwise_empty(repo: Path) -> None:
    given = run(["hash-object", "--stdin"], environment(NONE), 30, cwd=repo, stdin=b"hello\n")
    assert (given.returncode, given.stdout) == (0, f"{HELLO_BLOB}\n".encode())
    # Without stdin git reads an empty one at once: it never waits on ours.
    empty = run(["hash-object", "--stdin"], environment(NONE), 30, cwd=repo)
    assert (empty.returncode, empty.stdout) == (0, f"{EMPTY_BLOB}\n".encode())


def _state(pid: int) -> str | None:
    """The process's state letter (``Z``: a zombie, dead), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_a_command_past_its_deadline_is_killed_with_its_children(repo: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    alias = f"alias.wait=!echo $$ > {pidfile}; exec sleep 60"  # a real git running a real child
    started = time.monotonic()
    with pytest.raises(GitError) as info:
        run(["-c", alias, "wait"], environment(NONE), 1.5, cwd=repo)
    elapsed = time.monotonic() - started
    assert info.value.reason == "'git wait' did not finish within 1.5 s"
    assert info.value.fix == "Check the network and the remote, or raise the git timeout."
    assert 1.5 <= elapsed < 10
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _state(child) not in (None, "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _state(child) in (None, "Z")  # the sleep was killed too, not left running


def test_git_that_cannot_be_started_is_a_git_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GitError) as info:
        run(["version"], environment(NONE), 30)
    assert info.value.reason == "git could not be started: [Errno 2] No such file or directory: 'git'"
    assert info.value.fix == "Install git (2.29 or later) and put it on PATH."


def test_a_failed_git_command_reaches_the_user_naming_the_command_and_quoting_git(tmp_path: Path) -> None:
    (tmp_path / "not-a-repo").mkdir()
    with pytest.raises(GitError) as info:
        RepositoryCache(tmp_path / "cache", {URL: tmp_path / "not-a-repo"}).open(URL)
    # git's own words, from the same clone run directly (they vary across git versions)
    with pytest.raises(RuntimeError) as direct:
        git(tmp_path, "clone", "--bare", "-q", "--", str(tmp_path / "not-a-repo"), str(tmp_path / "direct"))
    stderr = str(direct.value).split(" failed: ", 1)[1].strip()
    assert stderr.startswith("fatal: ") and str(tmp_path / "not-a-repo") in stderr
    assert info.value.reason == f"git clone of {URL} failed (exit 128):\n{stderr}"


# -- the environment ------------------------------------------------------------------------------

HOOK_VARIABLES = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_GRAFT_FILE",
    "GIT_QUARANTINE_PATH",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_VALUE_0",
    "GIT_CONFIG_KEY_12",
    "GIT_CONFIG_VALUE_12",
]


@pytest.mark.parametrize("name", HOOK_VARIABLES)
def test_the_environment_drops_what_a_git_hook_exports(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(name, "/somewhere/else")
    monkeypatch.setenv("EDITPRED_UNRELATED", "kept")
    env = environment(NONE)
    assert name not in env
    assert env["EDITPRED_UNRELATED"] == "kept"


@pytest.mark.parametrize("name", ["GIT_DIRECTORY", "MY_GIT_DIR", "GIT_CONFIG_KEY_X", "GIT_AUTHOR_NAME"])
def test_the_environment_keeps_variables_that_only_look_alike(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(name, "value")
    assert environment(NONE)[name] == "value"


def test_the_environment_never_prompts_and_allows_only_the_given_protocols() -> None:
    env = environment(LOCAL, EDITPRED_GIT_USERNAME="u")
    assert {
        k: env[k]
        for k in (
            "GIT_TERMINAL_PROMPT",
            "GIT_ALLOW_PROTOCOL",
            "GCM_INTERACTIVE",
            "GIT_LFS_SKIP_SMUDGE",
            "EDITPRED_GIT_USERNAME",
        )
    } == {
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ALLOW_PROTOCOL": "file",
        "GCM_INTERACTIVE": "never",
        "GIT_LFS_SKIP_SMUDGE": "1",
        "EDITPRED_GIT_USERNAME": "u",
    }
    assert (NETWORK, LOCAL, NONE) == ("http:https:ssh", "file", "none")


def test_variables_a_hook_exported_cannot_aim_our_git_at_another_repository(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other, _ = make_repo(tmp_path, {"x": "x\n"}, name="other")
    git(repo, "config", "user.name", "Local Name")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.name")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "Injected")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.abbrev'='12'")
    control = dict(os.environ)  # what git would see without environment(): the proof it matters
    for env, git_dir, name, abbrev in (
        (environment(NONE), repo / ".git", "Local Name", 7),
        (control, other / ".git", "Injected", 12),
    ):
        found = run(["rev-parse", "--absolute-git-dir"], env, 30, cwd=repo).stdout.decode().strip()
        assert Path(found) == git_dir
        if env is control:
            continue  # the other repository has no user.name of its own
        assert run(["config", "--get", "user.name"], env, 30, cwd=repo).stdout == f"{name}\n".encode()
        short = run(["rev-parse", "--short", "HEAD"], env, 30, cwd=repo).stdout.decode().strip()
        assert len(short) == abbrev
    assert run(["config", "--get", "user.name"], control, 30, cwd=repo).stdout == b"Injected\n"
    assert len(run(["rev-parse", "--short", "HEAD"], control, 30, cwd=other).stdout.decode().strip()) == 12


def test_only_the_allowed_transports_run(repo: Path, tmp_path: Path) -> None:
    refused = run(["clone", "-q", "--bare", f"file://{repo}", str(tmp_path / "a.git")], environment(NONE), 30)
    assert (refused.returncode, refused.stderr) == (128, b"fatal: transport 'file' not allowed\n")
    allowed = run(["clone", "-q", "--bare", f"file://{repo}", str(tmp_path / "b.git")], environment(LOCAL), 30)
    assert allowed.returncode == 0 and (tmp_path / "b.git" / "HEAD").is_file()
    sentinel = tmp_path / "ran"
    for protocols in (NONE, LOCAL, NETWORK):  # the only values the package passes
        ext = run(
            [*CONFIG, "clone", "-q", f"ext::sh -c touch% {sentinel}", str(tmp_path / "c")], environment(protocols), 30
        )
        assert ext.returncode == 128 and b"transport 'ext' not allowed" in ext.stderr
    assert not sentinel.exists()


def test_config_overrides_the_users_hooks_and_housekeeping(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentinel = tmp_path / "hooked"
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {sentinel}\n")
    hook.chmod(0o755)
    config = tmp_path / "gitconfig"
    config.write_text("[core]\n\tfsmonitor = true\n[gc]\n\tauto = 1\n[advice]\n\tdetachedHead = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    for key, value in (
        ("core.hooksPath", os.devnull),
        ("core.fsmonitor", "false"),
        ("gc.auto", "0"),
        ("protocol.ext.allow", "never"),
        ("submodule.recurse", "false"),
        ("http.lowSpeedTime", "60"),
    ):
        got = run([*CONFIG, "config", "--get", key], environment(NONE), 30, cwd=repo)
        assert got.stdout == f"{value}\n".encode(), key
    ours = run([*CONFIG, "checkout", "-q", "-b", "ours"], environment(NONE), 30, cwd=repo)
    assert ours.returncode == 0 and not sentinel.exists()
    theirs = run(["checkout", "-q", "-b", "theirs"], environment(NONE), 30, cwd=repo)  # control: the hook is live
    assert theirs.returncode == 0 and sentinel.exists()


def test_the_credential_helper_answers_from_our_environment_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "gitconfig"
    config.write_text('[credential]\n\thelper = "!f() { echo username=intruder; echo password=stolen; }; f"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    ask = b"protocol=https\nhost=example.com\n\n"
    options, env = credential_helper("alice", "s3cr=t p@ss")
    assert env == {"EDITPRED_GIT_USERNAME": "alice", "EDITPRED_GIT_PASSWORD": "s3cr=t p@ss"}
    assert not any("alice" in option or "s3cr" in option for option in options)  # no secret on the command line
    filled = run([*options, "credential", "fill"], environment(NETWORK, **env), 30, cwd=tmp_path, stdin=ask)
    assert (filled.returncode, filled.stdout) == (
        0,
        b"protocol=https\nhost=example.com\nusername=alice\npassword=s3cr=t p@ss\n",
    )
    # A user without a password: git may not prompt for one.
    options, env = credential_helper("token", None)
    assert env == {"EDITPRED_GIT_USERNAME": "token"}
    unfilled = run([*options, "credential", "fill"], environment(NETWORK, **env), 30, cwd=tmp_path, stdin=ask)
    assert unfilled.returncode == 128
    assert unfilled.stderr == (
        b"fatal: could not read Password for 'https://token@example.com': terminal prompts disabled\n"
    )


@pytest.mark.parametrize(
    "user_config",
    ["[apply]\n\twhitespace = fix\n", "[apply]\n\twhitespace = error\n", "[core]\n\tautocrlf = true\n"],
    ids=["whitespace-fix", "whitespace-error", "autocrlf"],
)
def test_the_users_global_config_cannot_change_the_applied_uncommitted_diff(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_config: str
) -> None:
    commit = git(repo, "rev-parse", "HEAD")
    diff = "--- a/README\n+++ b/README\n@@ -1 +1,2 @@\n hello\n+trailing   \n"

    def applied(name: str) -> bytes | str:
        with RepositoryCache(tmp_path / name, {URL: repo}) as cache:
            mirror = cache.open(URL)
            try:
                tree = mirror.apply_diff(commit, diff)
            except UncommittedDiffError as error:
                return str(error.reason)
            return bytes((mirror.worktree(tree) / "README").read_bytes())

    plain = applied("plain")
    assert plain == b"hello\ntrailing   \n"
    config = tmp_path / "gitconfig"
    config.write_text(user_config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    assert applied("with-user-config") == plain


@pytest.mark.parametrize(
    ("raw_mode", "read_as"),
    [(b"40000", b"40000"), (b"040000", b"40000"), (b"100644", b"100644"), (b"100664", b"100644"),
     (b"100755", b"100755"), (b"120000", b"120000"), (b"160000", b"160000")],
)  # fmt: skip
def test_parse_tree_reads_the_modes_old_git_wrote_as_git_reads_them(raw_mode: bytes, read_as: bytes) -> None:
    oid = bytes(range(20))
    entries = parse_tree(raw_mode + b" name\0" + oid, 20)
    assert entries == {b"name": (read_as, oid.hex())}
