"""Several processes on one cache, and processes killed half-way (real processes, SIGKILL).

The cache must clone each repository once however many workers start together, and a
clone or fetch killed at any point must leave a cache the next run repairs by itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from pytest_editpred.scene import RepositoryCache

sys.path.insert(0, str(Path(__file__).parent))
from gitrepos import (
    HTTPServer,
    add_commit,
    git,
    make_bare,
    make_bundle,
    make_repo,
    serve_http,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL and fork semantics are POSIX")

ROOT = Path(__file__).resolve().parents[1]
URL = "https://example.com/team/proj"
FILES = {f"pkg/module_{i}.py": f"VALUE = {i}\n" * 50 for i in range(300)} | {"README": "hello\n"}

# Each worker waits for the 'go' file, so all four really start together.
WORKER = """
import os, pathlib, sys, time
from pytest_editpred.scene._repository import RepositoryCache
cache, url, source, revision, path, go = sys.argv[1:]
pathlib.Path(f"{go}.{os.getpid()}").touch()
while not os.path.exists(go):
    time.sleep(0.001)
mappings = {url: pathlib.Path(source)} if source != "-" else {}
with RepositoryCache(pathlib.Path(cache), mappings) as repos:
    repo = repos.open(url)
    text = repo.read(repo.resolve(revision), path)
    assert repo.worktree_file(revision, path).read_text() == text
    print(text, end="")
"""


def spawn(cache: Path, url: str, source: Path | None, revision: str, path: str, go: Path) -> subprocess.Popen[str]:
    args = [str(cache), url, str(source) if source else "-", revision, path, str(go)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, *args],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def events(cache: Path, event: str) -> int:
    return sum(
        line.split("\t")[2] == event for log in (cache / "log").glob("*.log") for line in log.read_text().splitlines()
    )


def leftovers(cache: Path) -> list[Path]:
    return list((cache / "mirrors").glob(".tmp-*"))


def wait_for(condition: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, list[str]]:
    return make_repo(tmp_path / "src", FILES, [{"README": "second\n"}], name="proj")


@pytest.fixture
def served(source: tuple[Path, list[str]], tmp_path: Path) -> Iterator[tuple[HTTPServer, Path]]:
    root = tmp_path / "served"
    root.mkdir()
    bare = make_bare(root, source[0], "proj.git")
    with serve_http(root) as server:
        yield server, bare


@pytest.mark.parametrize("kind", ["plain", "bundle", "http"])
def test_four_processes_on_a_cold_cache_clone_once(
    kind: str, source: tuple[Path, list[str]], served: tuple[HTTPServer, Path], tmp_path: Path
) -> None:
    path, (first, second) = source
    server, _ = served
    url, mapped = {
        "plain": (URL, path),
        "bundle": (URL, make_bundle(tmp_path, path)),
        "http": (server.url("proj.git"), None),
    }[kind]
    cache, go = tmp_path / "cache", tmp_path / "go"
    workers = [
        spawn(cache, url, mapped, rev, name, go)
        for rev, name in [
            (first, "README"),
            (second, "README"),
            (second[:8], "pkg/module_7.py"),
            (first, "pkg/module_299.py"),
        ]
    ]
    wait_for(lambda: len(list(tmp_path.glob("go.*"))) == 4)
    go.touch()
    outputs = [worker.communicate(timeout=120) for worker in workers]
    assert [w.returncode for w in workers] == [0] * 4, [err for _, err in outputs]
    assert [out for out, _ in outputs] == [
        "hello\n",
        "second\n",
        FILES["pkg/module_7.py"],
        FILES["pkg/module_299.py"],
    ]
    assert events(cache, "clone") == 1
    assert events(cache, "worktree") == 2  # two revisions, each checked out once
    assert len(list((cache / "mirrors").glob("*.git"))) == 1 and not leftovers(cache)


def test_a_clone_killed_half_way_is_repaired_by_the_next_run(
    source: tuple[Path, list[str]], served: tuple[HTTPServer, Path], tmp_path: Path
) -> None:
    _path, (first, second) = source
    server, _ = served
    url, cache, go = server.url("proj.git"), tmp_path / "cache", tmp_path / "go"
    go.touch()
    server.stall_next = True
    worker = spawn(cache, url, None, second, "README", go)
    assert server.stalled.wait(60), worker.communicate()
    assert leftovers(cache)  # the clone is half-way, in its temp dir
    worker.send_signal(signal.SIGKILL)
    worker.communicate()
    # The orphaned git still holds the lock (it inherited it): nobody cleans under it.
    lock = next((cache / "locks").glob("*.lock"))
    with pytest.raises(Timeout):
        FileLock(lock).acquire(timeout=0.3)
    server.release.set()
    with RepositoryCache(cache) as repos:
        repo = repos.open(url)
        assert repo.read(second, "README") == "second\n"
        assert repo.read(first, "pkg/module_3.py") == FILES["pkg/module_3.py"]
    assert not leftovers(cache)
    assert events(cache, "clone") == 1  # the killed run never finished its clone


def test_a_fetch_killed_half_way_is_repaired_by_the_next_run(
    source: tuple[Path, list[str]], served: tuple[HTTPServer, Path], tmp_path: Path
) -> None:
    path, (first, _) = source
    server, bare = served
    url, cache, go = server.url("proj.git"), tmp_path / "cache", tmp_path / "go"
    with RepositoryCache(cache) as repos:
        assert repos.open(url).read(first, "README") == "hello\n"
    third = add_commit(path, {f"big/{i}.txt": os.urandom(2048).hex() for i in range(200)} | {"README": "third\n"})
    git(path, "push", "-q", str(bare), "main")
    go.touch()
    server.stall_next = True
    worker = spawn(cache, url, None, third, "README", go)
    assert server.stalled.wait(60), worker.communicate()
    worker.send_signal(signal.SIGKILL)
    worker.communicate()
    server.release.set()
    with RepositoryCache(cache) as repos:
        assert repos.open(url).read(third, "README") == "third\n"
    assert (events(cache, "clone"), events(cache, "fetch")) == (1, 1)


def test_stale_git_lock_files_are_cleared(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, (_first, _) = source
    cache = tmp_path / "cache"
    with RepositoryCache(cache, {URL: path}) as repos:
        mirror = repos.open(URL).path
    third = add_commit(path, {"README": "third\n"})
    stale = [
        mirror / name
        for name in (
            "shallow.lock",
            "packed-refs.lock",
            "config.lock",
            "HEAD.lock",
            f"refs/editpred/{third}.lock",
        )
    ]
    for lock in stale:
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text("left by a killed git\n")
    with RepositoryCache(cache, {URL: path}) as repos:
        assert repos.open(URL).read(third, "README") == "third\n"
    assert not any(lock.exists() for lock in stale)


def test_stale_temp_dirs_are_removed(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, (_first, _) = source
    cache = tmp_path / "cache"
    with RepositoryCache(cache, {URL: path}) as repos:
        mirror = repos.open(URL).path
    junk = mirror.with_name(f".tmp-{mirror.name[:-4]}-killed")
    (junk / "objects").mkdir(parents=True)
    (junk / "objects" / "half.pack").write_bytes(b"\0" * 100)
    add_commit(path, {"README": "third\n"})
    with RepositoryCache(cache, {URL: path}) as repos:
        repos.open(URL).resolve(git(path, "rev-parse", "HEAD"))  # a fetch takes the lock
    assert not junk.exists()


@pytest.mark.parametrize("damage", ["HEAD", "objects", "config"])
def test_a_broken_mirror_is_rebuilt(damage: str, source: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, (_first, second) = source
    cache = tmp_path / "cache"
    with RepositoryCache(cache, {URL: path}) as repos:
        mirror = repos.open(URL).path
    target = mirror / damage
    if target.is_dir():
        os.rename(target, tmp_path / "moved-objects")
    else:
        target.write_text("garbage [[[\n")
    with RepositoryCache(cache, {URL: path}) as repos:
        assert repos.open(URL).read(second, "README") == "second\n"
    assert (events(cache, "clone"), events(cache, "rebuild")) == (2, 1)
    assert not leftovers(cache)


def test_a_worktree_add_killed_half_way_is_redone(source: tuple[Path, list[str]], tmp_path: Path) -> None:
    """A killed ``git worktree add`` leaves its admin dir marked 'initializing'
    (a ``locked`` file), which ``git worktree prune`` respects; and no ``.ready``."""
    path, (_, second) = source
    cache = tmp_path / "cache"
    with RepositoryCache(cache, {URL: path}) as repos:
        repo = repos.open(URL)
        worktree = repo.worktree(second)
    admin = next((repo.path / "worktrees").iterdir())
    (admin / "locked").write_text("initializing\n")
    (admin / "index.lock").write_text("")
    (worktree.parent / f"{second}.ready").unlink()
    os.chmod(worktree, 0o755)
    for child in worktree.iterdir():
        if child.name != ".git":
            subprocess.run(["chmod", "-R", "u+w", str(child)], check=True)
            subprocess.run(["rm", "-rf", str(child)], check=True)
    with RepositoryCache(cache, {URL: path}) as repos:
        assert repos.open(URL).worktree(second) == worktree
    assert (worktree / "README").read_text() == "second\n"
    assert events(cache, "worktree") == 2
