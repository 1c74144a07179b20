"""The repository cache against real git repositories built in tmp dirs (no mocks).

Mapped sources (a working repo, a bare repo, a bundle) cover the local paths; a
loopback ``git http-backend`` covers real remote URLs: blobless clone, fetching one
revision, lazy blob fetches and offline refusals.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_editpred import (
    GitError,
    InvalidRevisionError,
    MissingFileError,
    OfflineError,
    RefusedRepositoryError,
    UncommittedDiffError,
    UnknownRevisionError,
    UnsafePathError,
)
from pytest_editpred.scene._repository import (
    RepositoryCache,
    default_cache_dir,
    join_inside,
    strip_diff_path_prefix,
)

sys.path.insert(0, str(Path(__file__).parent))
from gitrepos import (
    HTTPServer,
    Symlink,
    add_commit,
    git,
    make_bare,
    make_bundle,
    make_repo,
    serve_http,
    snapshot,
)

URL = "https://example.com/team/proj"
FIRST: dict[str, str | bytes | Symlink] = {
    "README": "hello\n",
    "src/app.py": "def f():\n    return 1\n",
    "bin.dat": bytes(range(256)),
    "docs/readme-link": Symlink("../README"),
    "dirlink": Symlink("src"),
    "escape": Symlink("../../etc/passwd"),
    "absolute": Symlink("/etc/passwd"),
    "loop": Symlink("loop2"),
    "loop2": Symlink("loop"),
}
SECOND = {"src/app.py": "def f():\n    return 2\n", "new.txt": "new\n"}
GOOD_DIFF = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 2\n+    return 3\n"
BAD_DIFF = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 99\n+    return 3\n"

Source = tuple[Path, list[str]]
Served = tuple[HTTPServer, str, Path, list[str]]
CacheFactory = Callable[..., RepositoryCache]


@pytest.fixture
def source(tmp_path: Path) -> Source:
    return make_repo(tmp_path / "src", FIRST, [SECOND], name="proj")


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def make_cache(cache_dir: Path) -> Iterator[CacheFactory]:
    caches: list[RepositoryCache] = []

    def make(mappings: dict[str, Path] | None = None, **options: object) -> RepositoryCache:
        caches.append(RepositoryCache(cache_dir, mappings or {}, **options))  # type: ignore[arg-type]
        return caches[-1]

    yield make
    for cache in caches:
        cache.close()


def log_events(cache_dir: Path, event: str) -> int:
    return sum(
        line.split("\t")[2] == event
        for log in (cache_dir / "log").glob("*.log")
        for line in log.read_text().splitlines()
    )


# -- sources --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["plain", "bare", "bundle"])
def test_read_files_at_revisions_from_every_kind_of_source(
    kind: str, source: Source, tmp_path: Path, make_cache: CacheFactory
) -> None:
    path, (first, second) = source
    mapped = {
        "plain": lambda: path,
        "bare": lambda: make_bare(tmp_path, path),
        "bundle": lambda: make_bundle(tmp_path, path),
    }[kind]()
    repo = make_cache({URL: mapped}).open(URL)
    assert repo.read(first, "src/app.py") == "def f():\n    return 1\n"
    assert repo.read(second, "src/app.py") == "def f():\n    return 2\n"
    assert repo.read(first, "new.txt") is None
    assert repo.read(second, "new.txt") == "new\n"
    assert repo.resolve(second) == second


def test_an_ssh_form_url_mapped_to_a_local_path(source: Source, make_cache: CacheFactory) -> None:
    path, (first, _) = source
    cache = make_cache({"git@example.com:team/proj": path})
    for spelling in ("git@example.com:team/proj", "ssh://git@example.com/team/proj.git", URL):
        assert cache.open(spelling).read(first, "README") == "hello\n"
    assert cache.open(URL) is cache.open("git@example.com:team/proj.git")
    assert len(list((cache.dir / "mirrors").glob("*.git"))) == 1


def test_a_mapping_to_nothing_is_refused(tmp_path: Path, make_cache: CacheFactory) -> None:
    with pytest.raises(RefusedRepositoryError, match="does not exist"):
        make_cache({URL: tmp_path / "missing"}).open(URL)


def test_an_abbreviated_revision(source: Source, make_cache: CacheFactory) -> None:
    path, (first, second) = source
    repo = make_cache({URL: path}).open(URL)
    assert repo.resolve(second[:7]) == second
    assert repo.resolve(second[:4].upper()) == second
    assert repo.read(first[:8], "README") == "hello\n"


def test_unknown_and_invalid_revisions(source: Source, make_cache: CacheFactory) -> None:
    repo = make_cache({URL: source[0]}).open(URL)
    with pytest.raises(UnknownRevisionError) as info:
        repo.resolve("0" * 40)
    assert "0" * 40 in info.value.reason and URL in info.value.reason
    with pytest.raises(UnknownRevisionError):
        repo.read("deadbeef", "README")
    for bad in ("HEAD", "main", "-x", "abc"):
        with pytest.raises(InvalidRevisionError, match="example.com"):
            repo.resolve(bad)
        with pytest.raises(InvalidRevisionError):
            repo.read(bad, "README")


def test_a_new_commit_is_fetched_not_recloned(
    source: Source, tmp_path: Path, make_cache: CacheFactory, cache_dir: Path
) -> None:
    path, (first, _) = source
    bundle = make_bundle(tmp_path, path)
    make_cache({URL: bundle}).open(URL).read(first, "README")
    third = add_commit(path, {"README": "changed\n"})
    make_bundle(tmp_path, path)  # the same bundle file, now with the new commit
    repo = make_cache({URL: bundle}).open(URL)
    assert repo.read(third, "README") == "changed\n"
    assert repo.read(third[:10], "README") == "changed\n"
    assert (log_events(cache_dir, "clone"), log_events(cache_dir, "fetch")) == (1, 1)


def test_a_commit_no_branch_reaches_is_fetched_by_id(source: Source, make_cache: CacheFactory) -> None:
    path, _ = source
    make_cache({URL: path}).open(URL)
    git(path, "checkout", "-q", "--detach")
    detached = add_commit(path, {"README": "detached\n"})
    git(path, "checkout", "-q", "main")
    assert make_cache({URL: path}).open(URL).read(detached, "README") == "detached\n"


def test_a_changed_mapping_is_fetched_from(source: Source, tmp_path: Path, make_cache: CacheFactory) -> None:
    path, (first, _) = source
    make_cache({URL: path}).open(URL).read(first, "README")
    other, _ = make_repo(tmp_path / "elsewhere", {"README": "hello\n"}, [{"README": "moved\n"}])
    moved = git(other, "rev-parse", "HEAD")
    assert make_cache({URL: other}).open(URL).read(moved, "README") == "moved\n"


# -- reading --------------------------------------------------------------------------


def test_read_and_exists(source: Source, make_cache: CacheFactory, cache_dir: Path) -> None:
    path, (first, second) = source
    repo = make_cache({URL: path}).open(URL)
    assert repo.exists(second, "src/app.py") and repo.exists(second, "./src//app.py")
    assert not repo.exists(second, "src") and repo.read(second, "src") is None
    assert not repo.exists(first, "nope.txt") and repo.read(first, "src/nope/deeper") is None
    assert repo.read(first, "README/x") is None
    assert repo.read(first, "docs/readme-link") == "hello\n"  # a symlink inside the tree
    assert repo.read(first, "dirlink/app.py") == "def f():\n    return 1\n"
    with pytest.raises(MissingFileError, match="not UTF-8"):
        repo.read(first, "bin.dat")
    tree = git(path, "rev-parse", f"{first}^{{tree}}")
    assert repo.read(tree, "README") == "hello\n"
    assert not (cache_dir / "worktrees").exists()


def test_reads_share_one_cat_file_process(source: Source, make_cache: CacheFactory) -> None:
    path, (first, second) = source
    repo = make_cache({URL: path}).open(URL)
    repo.read(first, "README")
    process = repo._batch
    for _ in range(50):
        assert repo.read(second, "new.txt") == "new\n"
    assert repo._batch is process
    repo.close()
    assert repo._batch is None
    assert repo.read(first, "README") == "hello\n"  # closing is not final


@pytest.mark.parametrize("path", ["/etc/passwd", "../x", "a/../../x", "a\\..\\x", "a\x00b", ".git/config"])
def test_paths_outside_the_repository_are_refused(path: str, source: Source, make_cache: CacheFactory) -> None:
    repo = make_cache({URL: source[0]}).open(URL)
    with pytest.raises(UnsafePathError):
        repo.read(source[1][0], path)
    with pytest.raises(UnsafePathError):
        repo.exists(source[1][0], path)


@pytest.mark.parametrize(("path", "why"), [("escape", "leaves"), ("absolute", "absolute"), ("loop", "loops")])
def test_symlinks_out_of_the_tree_are_refused(path: str, why: str, source: Source, make_cache: CacheFactory) -> None:
    repo = make_cache({URL: source[0]}).open(URL)
    with pytest.raises(UnsafePathError, match=why):
        repo.read(source[1][0], path)


def test_threads_share_a_repository(source: Source, make_cache: CacheFactory) -> None:
    path, (first, second) = source
    repo = make_cache({URL: path}).open(URL)
    jobs = [
        (first, "README", "hello\n"),
        (second, "new.txt", "new\n"),
        (second[:6], "src/app.py", SECOND["src/app.py"]),
    ]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda job: repo.read(job[0], job[1]) == job[2], jobs * 40))
    assert all(results)


# -- the uncommitted diff ----------------------------------------------------------------


def test_apply_diff(source: Source, make_cache: CacheFactory, cache_dir: Path) -> None:
    path, (_first, second) = source
    repo = make_cache({URL: path}).open(URL)
    tree = repo.apply_diff(second, GOOD_DIFF)
    assert repo.read(tree, "src/app.py") == "def f():\n    return 3\n"
    assert repo.read(tree, "new.txt") == "new\n"
    assert repo.read(second, "src/app.py") == "def f():\n    return 2\n"
    assert repo.apply_diff(second[:8], GOOD_DIFF) == tree
    assert make_cache({URL: path}).open(URL).apply_diff(second, GOOD_DIFF) == tree  # on disk too
    assert repo.apply_diff(second, "") == git(path, "rev-parse", f"{second}^{{tree}}")
    assert git(path, "status", "--porcelain") == ""
    assert not (cache_dir / "worktrees").exists()


def test_apply_diff_strips_the_repository_name_prefix(source: Source, make_cache: CacheFactory) -> None:
    path, (_, second) = source
    repo = make_cache({URL: path}).open(URL)
    prefixed = GOOD_DIFF.replace("a/src", "a/proj/src").replace("b/src", "b/proj/src")
    assert repo.apply_diff(second, prefixed) == repo.apply_diff(second, GOOD_DIFF)
    with_git_header = "diff --git a/proj/src/app.py b/proj/src/app.py\n" + prefixed
    assert repo.apply_diff(second, with_git_header) == repo.apply_diff(second, GOOD_DIFF)


def test_strip_diff_path_prefix() -> None:
    diff = "--- a/flask/x.py\n+++ b/flask/x.py\n@@ -1 +1 @@\n--- a/flask/kept\n+++ b/flaskette/y\n"
    assert strip_diff_path_prefix(diff, "flask") == (
        "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n--- a/kept\n+++ b/flaskette/y\n"
    )
    assert strip_diff_path_prefix(diff, "") == diff


def test_a_diff_that_does_not_apply(source: Source, make_cache: CacheFactory) -> None:
    path, (_, second) = source
    repo = make_cache({URL: path}).open(URL)
    with pytest.raises(UncommittedDiffError) as info:
        repo.apply_diff(second, BAD_DIFF)
    assert "patch does not apply" in info.value.reason and second in info.value.reason
    with pytest.raises(UncommittedDiffError, match="outside|\\.\\."):
        repo.apply_diff(second, GOOD_DIFF.replace("src/app.py", "../evil.py"))


# -- worktrees ---------------------------------------------------------------------------


def test_worktrees_are_made_on_request_and_reused(source: Source, make_cache: CacheFactory, cache_dir: Path) -> None:
    path, (first, second) = source
    repo = make_cache({URL: path}).open(URL)
    repo.read(second, "README")
    assert not (cache_dir / "worktrees").exists()
    tree = repo.worktree(second[:7])
    assert tree.name == second and tree.parent.parent == cache_dir / "worktrees"
    assert (tree / "src" / "app.py").read_text() == SECOND["src/app.py"]
    assert not os.stat(tree / "README").st_mode & stat.S_IWUSR  # shared: read-only
    assert repo.worktree(second) == tree
    assert make_cache({URL: path}).open(URL).worktree(second) == tree  # the next run
    assert log_events(cache_dir, "worktree") == 1
    assert repo.worktree(first) != tree


def test_a_worktree_of_an_applied_diff(source: Source, make_cache: CacheFactory) -> None:
    path, (_, second) = source
    repo = make_cache({URL: path}).open(URL)
    tree_id = repo.apply_diff(second, GOOD_DIFF)
    tree = repo.worktree(tree_id)
    assert tree.name == tree_id
    assert (tree / "src" / "app.py").read_text() == "def f():\n    return 3\n"
    assert git(tree, "rev-parse", "HEAD") == second  # the base, with the diff uncommitted
    assert git(tree, "diff", "--stat", "HEAD").startswith("src/app.py")
    assert make_cache({URL: path}).open(URL).worktree(tree_id) == tree


def test_a_damaged_worktree_is_made_again(source: Source, make_cache: CacheFactory, cache_dir: Path) -> None:
    path, (_, second) = source
    repo = make_cache({URL: path}).open(URL)
    tree = repo.worktree(second)
    os.chmod(tree, 0o755)
    (tree / ".git").unlink()
    assert make_cache({URL: path}).open(URL).worktree(second) == tree
    assert (tree / "new.txt").read_text() == "new\n"
    assert log_events(cache_dir, "worktree") == 2


def test_reading_through_a_worktree_refuses_symlinks_out(source: Source, make_cache: CacheFactory) -> None:
    path, (first, _) = source
    repo = make_cache({URL: path}).open(URL)
    assert repo.worktree_file(first, "docs/readme-link").read_text() == "hello\n"
    for link in ("escape", "absolute"):
        with pytest.raises(UnsafePathError, match="out of the worktree"):
            repo.worktree_file(first, link)
    with pytest.raises(UnsafePathError):
        join_inside(repo.worktree(first), "../x")


def test_the_worktree_of_an_unknown_revision(source: Source, make_cache: CacheFactory) -> None:
    repo = make_cache({URL: source[0]}).open(URL)
    with pytest.raises(UnknownRevisionError):
        repo.worktree("1234567")


# -- refusals and safety -------------------------------------------------------------------

REFUSED = [
    "ext::sh -c touch% {sentinel}",
    "ext::sh -c touch {sentinel}",
    "fd::17",
    "file:///etc",
    "-uhelp",
    "--upload-pack=touch {sentinel}",
    "--upload-pack=touch /tmp/x",
    "http://exa mple",
    "file::{sentinel}",
    "https::example.com/a/b",
]


@pytest.mark.parametrize("template", REFUSED)
@pytest.mark.parametrize("other_mappings", [False, True])
def test_refused_urls_run_nothing_and_write_nothing(
    template: str,
    other_mappings: bool,
    source: Source,
    tmp_path: Path,
    make_cache: CacheFactory,
    cache_dir: Path,
) -> None:
    sentinel = tmp_path / "pwned"
    url = template.format(sentinel=sentinel)
    before, tmp_before = snapshot(tmp_path, skip=cache_dir), set(os.listdir("/tmp"))
    cache = make_cache({URL: source[0]} if other_mappings else {})
    with pytest.raises(RefusedRepositoryError):
        cache.open(url)
    assert not sentinel.exists()
    assert snapshot(tmp_path, skip=cache_dir) == before
    assert not (cache_dir / "mirrors").exists()
    assert not {"x", "pwned"} & (set(os.listdir("/tmp")) - tmp_before)


def test_a_mapped_url_is_only_a_key(source: Source, make_cache: CacheFactory) -> None:
    """Mapped, even ``file:///...`` or ``ext::...`` text is fine: git only sees the path."""
    path, (first, _) = source
    for key in ("file:///srv/proj", "ext::proj", "proj-local"):
        assert make_cache({key: path}).open(key).read(first, "README") == "hello\n"
    with pytest.raises(RefusedRepositoryError):
        make_cache({"-uhelp": path})


def test_nothing_is_written_outside_the_cache(
    source: Source, tmp_path: Path, make_cache: CacheFactory, cache_dir: Path
) -> None:
    path, (first, second) = source

    def contents() -> dict[str, bytes]:
        return {str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()}

    before, files = snapshot(tmp_path, skip=cache_dir), contents()
    repo = make_cache({URL: path}).open(URL)
    repo.read(first, "README")
    repo.resolve(second[:6])
    repo.worktree(repo.apply_diff(second, GOOD_DIFF))
    repo.worktree(first)
    assert snapshot(tmp_path, skip=cache_dir) == before
    assert contents() == files


def test_environment_and_user_config_cannot_redirect_git(
    source: Source, tmp_path: Path, make_cache: CacheFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A git hook exports GIT_DIR/GIT_INDEX_FILE; a user config may hold hooks or an
    insteadOf that rewrites URLs to ``ext::``. None of it may reach our git."""
    path, (_, second) = source
    sentinel = tmp_path / "hooked"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "post-checkout").write_text(f"#!/bin/sh\ntouch {sentinel}\n")
    (hooks / "post-checkout").chmod(0o755)
    config = tmp_path / "gitconfig"
    config.write_text(
        f"[core]\n\thooksPath = {hooks}\n[init]\n\ttemplateDir = {tmp_path / 'none'}\n"
        f'[url "ext::sh -c touch% {sentinel}% #"]\n\tinsteadOf = https://example.org/\n'
    )
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_DIR", str(path / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "foreign-index"))
    repo = make_cache({URL: path}).open(URL)
    repo.apply_diff(second, GOOD_DIFF)
    repo.worktree(second)
    assert not sentinel.exists() and not (tmp_path / "foreign-index").exists()
    with pytest.raises(GitError):
        make_cache(timeout=20).open("https://example.org/team/proj")
    assert not sentinel.exists()
    assert git(path, "status", "--porcelain") == ""


def test_without_git_on_path(
    source: Source, tmp_path: Path, make_cache: CacheFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GitError, match="git could not be started"):
        make_cache({URL: source[0]}).open(URL)


def test_the_cache_is_never_in_pytest_cache(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="pytest_cache"):
        RepositoryCache(tmp_path / ".pytest_cache" / "editpred")


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EDITPRED_CACHE_DIR", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("EDITPRED_CACHE_DIR")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert default_cache_dir() == tmp_path / "xdg" / "pytest-editpred"
        monkeypatch.delenv("XDG_CACHE_HOME")
        assert default_cache_dir() == Path.home() / ".cache" / "pytest-editpred"
    assert ".pytest_cache" not in default_cache_dir().parts


# -- remote URLs over loopback HTTP and offline runs -----------------------------------------


@pytest.fixture
def served(source: Source, tmp_path: Path) -> Iterator[Served]:
    path, shas = source
    root = tmp_path / "served"
    root.mkdir()
    bare = make_bare(root, path, "proj.git")
    with serve_http(root) as server:
        yield server, server.url("proj.git"), bare, shas


def test_a_remote_is_cloned_blobless_and_fetched_one_revision_at_a_time(
    served: Served, source: Source, make_cache: CacheFactory, cache_dir: Path
) -> None:
    _server, url, bare, (_first, second) = served
    repo = make_cache().open(url)
    assert git(repo.path, "config", "remote.origin.partialclonefilter") == "blob:none"
    assert repo.read(second, "src/app.py") == SECOND["src/app.py"]
    third = add_commit(source[0], {"README": "third\n"})
    git(source[0], "push", "-q", str(bare), "main")
    assert repo.read(third, "README") == "third\n"
    assert repo.read(third, "new.txt") == "new\n"
    assert (log_events(cache_dir, "clone"), log_events(cache_dir, "fetch")) == (1, 1)
    tree = repo.apply_diff(second, GOOD_DIFF)
    assert (repo.worktree(tree) / "src" / "app.py").read_text().endswith("return 3\n")


def test_a_server_that_refuses_filters(source: Source, tmp_path: Path, make_cache: CacheFactory) -> None:
    root = tmp_path / "served"
    root.mkdir()
    make_bare(root, source[0], "proj.git")
    with serve_http(root, filters=False) as server:
        assert make_cache().open(server.url("proj.git")).read(source[1][1], "new.txt") == "new\n"


def test_offline_without_a_mirror(served: Served, make_cache: CacheFactory, cache_dir: Path) -> None:
    server, url, _, (_first, _) = served
    with pytest.raises(OfflineError) as info:
        make_cache(offline=True).open(url)
    message = str(info.value)
    assert url in message and "--editpred-repo" in message and "--editpred-offline" in message
    assert server.requests == []
    assert not (cache_dir / "mirrors").exists()


def test_offline_with_a_mirror_that_lacks_the_revision_or_the_blob(
    served: Served, source: Source, make_cache: CacheFactory
) -> None:
    server, url, bare, (first, second) = served
    make_cache().open(url).read(first, "README")
    third = add_commit(source[0], {"README": "third\n"})
    git(source[0], "push", "-q", str(bare), "main")
    server.requests.clear()
    repo = make_cache(offline=True).open(url)
    assert repo.read(first, "README") == "hello\n"  # cached: fine offline
    with pytest.raises(OfflineError) as info:
        repo.resolve(third)
    assert third in str(info.value) and url in str(info.value) and "--editpred-repo" in str(info.value)
    with pytest.raises(OfflineError):
        repo.read(second, "new.txt")  # the commit is there, the blob is not (blobless)
    assert server.requests == []


def test_local_mappings_work_offline(source: Source, make_cache: CacheFactory) -> None:
    path, (_, second) = source
    assert make_cache({URL: path}, offline=True).open(URL).read(second, "new.txt") == "new\n"


def test_credentials_stay_out_of_errors(served: Served, make_cache: CacheFactory) -> None:
    _server, url, _, _ = served
    secret_url = url.replace("http://", "http://alice:s3cret@")
    repo = make_cache().open(secret_url)
    with pytest.raises(UnknownRevisionError) as info:
        repo.resolve("0" * 40)
    assert "s3cret" not in str(info.value) and "***@" in str(info.value)
    with pytest.raises(GitError) as failed:
        make_cache().open(secret_url.replace("proj.git", "nothing.git"))
    assert "s3cret" not in str(failed.value)
    assert "s3cret" not in repr(repo)


def test_a_stalled_remote_times_out(served: Served, make_cache: CacheFactory, cache_dir: Path) -> None:
    server, url, _, _ = served
    server.stall_next = True
    started = time.monotonic()
    with pytest.raises(GitError, match="'git clone' did not finish within 2 s") as info:
        make_cache(timeout=2).open(url)
    assert url in str(info.value)
    assert time.monotonic() - started < 30
    server.release.set()
    assert list((cache_dir / "mirrors").glob("*.git")) == []
