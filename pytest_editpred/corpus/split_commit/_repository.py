"""A repository for split-commit, straight from git: opened, its revisions listed.

A working repository, a bare one or a ``.bundle`` (cloned bare into a temporary
folder); the commits of a range listed by one ``git rev-list``; files read through
one ``git cat-file --batch``. git runs isolated from the user's and the system's
configuration and attributes (they would change the diffs), may reach local
repositories only, and never fetches a partial clone's missing objects.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._exceptions import GitError, RepositoryError
from ...scene import GIT_CONFIG, GIT_LOCAL, GitCatFile, git_isolated_environment, git_kill, git_start

__all__ = [
    "DEFAULT_MAX_COUNT",
    "Repository",
    "check_revisions",
    "default_revisions",
    "list_commits",
    "open_repository",
]

GIT_TIMEOUT = 120.0
LOG_TIMEOUT = 1800.0
#: Without REVISIONS, the newest commits of HEAD: enough for a first corpus, quick to cut.
DEFAULT_MAX_COUNT = 100

#: What git must not take from anywhere else: the scene's pins, and the settings that
#: change a diff's text.
_CONFIG = [
    *GIT_CONFIG,
    *(
        arg
        for setting in (
            "core.quotePath=false",
            "log.showSignature=false",
            "diff.noprefix=false",
            "diff.mnemonicPrefix=false",
            "diff.relative=false",
            "color.ui=false",
            f"core.attributesFile={os.devnull}",
        )
        for arg in ("-c", setting)
    ),
]


def _environment(**extra: str) -> dict[str, str]:
    """The scene's environment for git, isolated from the user's and system's git
    configuration (they would change the diff), local repositories only, and no
    lazy fetch of a partial clone's missing objects."""
    return git_isolated_environment(GIT_LOCAL, GIT_NO_LAZY_FETCH="1", GIT_ATTR_NOSYSTEM="1", **extra)


def _start(args: list[str], **options: Any) -> subprocess.Popen[bytes]:
    return git_start(["git", *args], start_new_session=os.name == "posix", **options)


def _git(
    args: list[str], *, timeout: float = GIT_TIMEOUT, env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[int, bytes, str]:
    """``(status, stdout, first line of stderr)`` of ``git *args``, killed at ``timeout``."""
    proc = _start(
        [*_CONFIG, *args],
        cwd=cwd,
        env=env or _environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        git_kill(proc)
        raise GitError(f"git {args[0] if args else ''} did not finish within {timeout:g} s") from None
    except BaseException:
        git_kill(proc)
        raise
    lines = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
    return proc.returncode, out, (lines[0] if lines else "")


@dataclass
class Repository:
    """An opened repository: its git dir, ``origin`` URL (None for a bundle), and a
    temporary clone to remove at :meth:`close`."""

    path: str
    git_dir: Path
    origin: str | None
    temporary: Path | None = None
    _catfile: GitCatFile | None = field(default=None, repr=False)

    def read_blob(self, spec: str) -> bytes | None:
        """The object ``spec`` (``<commit>:<path>``), or None when it is not a blob
        (or cannot be read), through one persistent ``git cat-file --batch``."""
        if "\n" in spec:
            return None
        if self._catfile is None or not self._catfile.alive:
            self._catfile = GitCatFile(self.git_dir)
        try:
            _, kind, data = self._catfile.get(spec)
        except GitError:
            return None
        return data if kind == "blob" else None

    def shallow(self) -> frozenset[str]:
        """The commits a shallow clone was cut at (their parents are not here). The
        list is in the repository's common git dir, which a linked worktree's git dir
        (``.git/worktrees/NAME``) is not: git says where."""
        status, out, _ = _git([f"--git-dir={self.git_dir}", "rev-parse", "--git-path", "shallow"])
        if status:
            return frozenset()
        try:
            return frozenset(Path(os.path.abspath(os.fsdecode(out.strip()))).read_text().split())
        except OSError:
            return frozenset()

    def close(self) -> None:
        if self._catfile is not None:
            self._catfile.close()
            self._catfile = None
        if self.temporary is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)
            self.temporary = None

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_repository(path: str) -> Repository:
    """A working repository, a bare one, or a ``.bundle`` (cloned bare into a
    temporary directory, removed at close); :class:`RepositoryError` otherwise."""
    where = Path(path)
    fix = "Give a git repository (working or bare) or a .bundle file."
    if not where.exists():
        raise RepositoryError(f"{path}: no such file or directory", fix=fix)
    if where.is_file():
        temporary = Path(tempfile.mkdtemp(prefix="editpred-split-commit-"))
        status, _, err = _git(
            ["clone", "--bare", "--quiet", "--", str(where.resolve()), str(temporary / "repo.git")], timeout=LOG_TIMEOUT
        )
        if status:
            shutil.rmtree(temporary, ignore_errors=True)
            if _is_bundle(where):  # git writes a shallow clone's bundle without its cut parents
                raise RepositoryError(
                    f"{path}: git cannot read this bundle ({err or 'git clone failed'})",
                    fix="A bundle made in a shallow clone lacks the parents of its oldest commits: make it in a "
                    "full clone (git fetch --unshallow first), or give the repository itself.",
                )
            raise RepositoryError(f"{path}: not a git bundle ({err or 'git clone failed'})", fix=fix)
        return Repository(path, temporary / "repo.git", None, temporary)
    env = _environment(GIT_CEILING_DIRECTORIES=str(where.resolve().parent))
    status, out, err = _git(["rev-parse", "--absolute-git-dir"], env=env, cwd=where)
    if status:
        raise RepositoryError(f"{path}: not a git repository ({err})", fix=fix)
    git_dir = Path(out.decode(errors="surrogateescape").strip())
    status, out, _ = _git([f"--git-dir={git_dir}", "config", "--get", "remote.origin.url"], env=env)
    origin = out.decode(errors="replace").strip() if status == 0 else None
    return Repository(path, git_dir, origin or None)


def _is_bundle(path: Path) -> bool:
    """Does the file start with a git bundle's signature?"""
    try:
        with path.open("rb") as file:
            return file.read(16) in (b"# v2 git bundle\n", b"# v3 git bundle\n")
    except OSError:
        return False


# ---------------------------------------------------------------------------- revisions


_RANGE_FIX = "Give revisions as git does: HEAD, a sha, main~20..main, v1.0..v2.0."


def default_revisions(repo: Repository) -> list[str]:
    """``HEAD``, or every ref when HEAD names no commit (a bundle of branches only)."""
    status, _, _ = _git([f"--git-dir={repo.git_dir}", "rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    if status == 0:
        return ["HEAD"]
    status, out, _ = _git([f"--git-dir={repo.git_dir}", "for-each-ref", "--format=%(refname)"])
    refs = [ref for ref in out.decode(errors="surrogateescape").splitlines() if ref and not ref.startswith("-")]
    return refs or ["HEAD"]


def check_revisions(revisions: Sequence[str]) -> None:
    """Refuse a user's revision git would read as an option (``--output=...``)."""
    for revision in revisions:
        if revision.startswith("-") or not revision or "\n" in revision:
            raise RepositoryError(f"bad revision '{revision}'", fix=_RANGE_FIX)


def _limit(max_count: int | None) -> list[str]:
    return [] if max_count is None else [f"--max-count={max_count}"]


def list_commits(repo: Repository, revisions: Sequence[str], max_count: int | None = None) -> list[list[str]]:
    """``[sha, *parents]`` of every commit of the range, newest first (git log's
    order); :class:`RepositoryError` for a range git cannot walk."""
    status, out, err = _git(
        [
            f"--git-dir={repo.git_dir}",
            "rev-list",
            "--parents",
            *_limit(max_count),
            "--end-of-options",
            *revisions,
            "--",
        ],
        timeout=LOG_TIMEOUT,
    )
    if status:
        raise RepositoryError(f"{repo.path}: bad revision range {' '.join(revisions)} ({err})", fix=_RANGE_FIX)
    return [line.split() for line in out.decode(errors="replace").splitlines() if line.strip()]
