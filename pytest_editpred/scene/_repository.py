"""A cache of bare git mirrors: object reads without checkouts, worktrees on demand.

An eval run reads a few files at a few hundred revisions of a handful of
repositories, often from several pytest-xdist workers at once. So:

* one bare mirror per repository (:attr:`RepoURL.key`), cloned blobless; a missing
  revision is fetched by itself, never by re-cloning;
* files are read from git objects through ONE ``git cat-file --batch`` process per
  repository: a pipe round trip instead of a process start per read;
* an uncommitted diff is applied to a private index (``git apply --cached``), which
  gives a tree id without touching any working tree;
* worktrees are made only when asked, once, and shared read-only across runs;
* every mutation holds a per-repository file lock, and clones land by an atomic
  rename, so concurrent or killed runs leave a cache the next run can use;
* a cache directory that is read-only or full is one :class:`InfrastructureError`
  (or :class:`GitError`, when git is the one that could not write) per item that
  needs to write to it, naming the directory and the fix, never an ``OSError``
  traceback; a read-only cache that already holds what a run needs still serves
  it, since reading writes nothing.

Git only ever sees URLs, revisions and paths that :mod:`._urls` accepted; it runs
(through :mod:`._git`) without hooks, without the ``ext``/``fd`` transports, and with
``file`` only when the user mapped the URL to a local repository.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from inspect import signature
from pathlib import Path
from types import MappingProxyType
from typing import Any

from filelock import FileLock, Timeout

from .._disk import describe, filename_of, is_disk_fault, remedy
from .._eol import in_file_styles
from .._exceptions import (
    GitError,
    InfrastructureError,
    InvalidRevisionError,
    MissingFileError,
    OfflineError,
    RefusedRepositoryError,
    UncommittedDiffError,
    UnknownRevisionError,
    UnsafePathError,
)
from .._files import write_atomic
from .._text import detect_line_ending
from ._git import (
    CONFIG,
    LOCAL,
    NETWORK,
    NONE,
    CatFile,
    Completed,
    Entries,
    credential_helper,
    environment,
    parse_tree,
    run,
)
from ._urls import (
    RepoURL,
    follow_link,
    join_inside,
    parse_url,
    redact_all,
    split_path,
    url_key,
    validate_revision,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "Repository",
    "RepositoryCache",
    "default_cache_dir",
    "join_inside",
    "strip_diff_path_prefix",
]

DEFAULT_TIMEOUT = 600.0
_FILE_MODES, _LINK, _TREE = (b"100644", b"100755"), b"120000", b"40000"
_MAX_LINKS, _MAX_TREES = 40, 4096
_NO_MAPPINGS: Mapping[str, Path] = MappingProxyType({})
#: What git says when the disk refuses a write, and the errno it stands for.
_GIT_DISK_FAULTS = {
    "No space left on device": errno.ENOSPC,
    "Disk quota exceeded": errno.EDQUOT,
    "File too large": errno.EFBIG,
    "Read-only file system": errno.EROFS,
}
_ELSEWHERE = "set editpred_cache_dir (or EDITPRED_CACHE_DIR) to a writable directory with free space"
#: Repositories shipped with the package, mapped under the user's mappings (which win):
#: the blank canvas imported examples are built on (datasets.md §0), so they run
#: offline on a fresh clone with nothing to configure.
BUILTIN_REPOS: Mapping[str, Path] = MappingProxyType(
    {
        "https://github.com/octocat/hello-world": Path(__file__).parent / "repos" / "hello-world-7fd1a60.bundle",
    }
)


def default_cache_dir() -> Path:
    """The platform's user cache dir, not ``.pytest_cache``: ``--cache-clear`` would
    otherwise throw every mirror away. ``EDITPRED_CACHE_DIR`` overrides it."""
    if override := os.environ.get("EDITPRED_CACHE_DIR"):
        return Path(override).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return (Path(local) if local else home / "AppData" / "Local") / "pytest-editpred" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "pytest-editpred"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else home / ".cache") / "pytest-editpred"


def strip_diff_path_prefix(diff: str, repo_name: str) -> str:
    """Zed's ``strip_diff_path_prefix``: old examples say ``--- a/<repo>/path``. A
    ``diff --git`` line is stripped too, or ``git apply`` finds the names inconsistent."""
    prefix = f"{repo_name}/"

    def strip(line: str) -> str:
        for head in ("--- a/", "+++ b/"):
            if line.startswith(head + prefix):
                return head + line[len(head + prefix) :]
        if line.startswith(f"diff --git a/{prefix}"):
            return line.replace(f" a/{prefix}", " a/", 1).replace(f" b/{prefix}", " b/", 1)
        return line

    return "".join(map(strip, diff.splitlines(keepends=True))) if repo_name else diff


def _make_read_only(root: Path) -> None:
    """Shared worktrees are read-only, so a caller's stray write fails at once rather
    than corrupting every other caller's view. Symlinks are skipped: chmod follows them."""
    for folder, _, files in os.walk(root):
        for name in files:
            if not os.path.islink(path := os.path.join(folder, name)):
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~0o222)
        os.chmod(folder, 0o555)


def _remove_tree(path: Path) -> None:
    def make_writable(func: Any, target: str, _: Any) -> None:
        os.chmod(os.path.dirname(target), 0o755)
        func(target)

    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path, onerror=make_writable)


class RepositoryCache:
    """Bare mirrors under ``cache_dir``, one per repository, shared by every process.

    ``mappings`` sends URLs (compared by :func:`url_key`) to a local clone, bare
    repository or ``.bundle``; ``offline`` forbids every other source (an offline
    miss names ``offline_by`` as what forbids it, and ``offline_fill`` as the way to
    fill the cache). ``timeout`` (seconds) bounds each git command, so no run can hang.
    """

    def __init__(
        self,
        cache_dir: Path,
        mappings: Mapping[str, Path] = _NO_MAPPINGS,
        offline: bool = False,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        offline_by: str = "--editpred-offline",
        offline_fill: str = "run once without --editpred-offline",
    ) -> None:
        self.dir = Path(os.path.abspath(Path(cache_dir).expanduser()))
        if ".pytest_cache" in self.dir.parts:
            raise GitError(
                f"the repository cache {self.dir} is inside .pytest_cache, which "
                "'pytest --cache-clear' deletes with every mirror in it",
                fix="Set EDITPRED_CACHE_DIR to a directory outside .pytest_cache.",
            )
        self.offline, self.timeout = offline, timeout
        # What keeps it offline and how the cache is filled, as an offline miss says.
        self.offline_by, self.offline_fill = offline_by, offline_fill
        self.mappings = {
            url_key(url): Path(os.path.abspath(Path(path).expanduser()))
            for url, path in {**BUILTIN_REPOS, **mappings}.items()
        }
        self._repos: dict[str, Repository] = {}
        self._mutex = threading.Lock()

    def open(self, url: str) -> Repository:
        """The repository of ``url``, cloning its mirror first if there is none."""
        parsed = parse_url(url, mapped=True)
        source = self.mappings.get(parsed.key)
        if source is None and parsed.kind == "local":
            parse_url(url)  # not mapped after all: raise the refusal with its reason
        if source is not None and not source.exists():
            raise RefusedRepositoryError(
                f"{parsed.display} is mapped to {source}, which does not exist",
                fix="Map it to a clone, a bare repository or a .bundle file that exists.",
            )
        with self._mutex:
            if (repo := self._repos.get(parsed.key)) is None:
                repo = self._repos[parsed.key] = Repository(self, parsed, source)
        repo._ensure_mirror()
        return repo

    def close(self) -> None:
        with self._mutex:
            for repo in self._repos.values():
                repo.close()

    def fault(self, error: OSError) -> InfrastructureError:
        """A disk fault of the cache as one message: the directory, the error, the fix."""
        name = filename_of(error)
        detail = f" ({name})" if name and name != str(self.dir) else ""
        return InfrastructureError(
            f"the repository cache {self.dir} cannot be written: {describe(error)}{detail}",
            fix=remedy(error, f"the repository cache {self.dir}", _ELSEWHERE),
        )

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Around every write to the cache: a read-only, full or misplaced cache
        directory is the environment's fault, told in one message, not a traceback.

        Our own writes fail with an ``OSError``; git's fail with a :class:`GitError`
        quoting git, which gains the directory and the fix here.
        """
        try:
            yield
        except OSError as error:
            if not is_disk_fault(error):
                raise
            raise self.fault(error) from None
        except GitError as error:
            sign = next((s for s in _GIT_DISK_FAULTS if s in error.reason), None)
            if sign is None or error.fix:
                raise
            raise GitError(
                f"{error.reason}\n(the repository cache {self.dir} cannot be written: {sign})",
                fix=remedy(OSError(_GIT_DISK_FAULTS[sign], sign), f"the repository cache {self.dir}", _ELSEWHERE),
            ) from None

    def __enter__(self) -> RepositoryCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Repository:
    """One mirror, safe to share between threads. ``close()`` only stops the cat-file
    process, which restarts on the next read: closing never breaks another user."""

    def __init__(self, cache: RepositoryCache, url: RepoURL, source: Path | None) -> None:
        self.url, self.source, self.name = url, source, url.name
        self.path = cache.dir / "mirrors" / f"{url.slug}.git"
        self._cache, self._timeout = cache, cache.timeout
        self._worktrees = cache.dir / "worktrees" / url.slug
        self._applied_dir = cache.dir / "applied" / url.slug
        # filelock >= 3.30 lends us the lock's descriptor, for our git children to inherit.
        hook: dict[str, Any] = {}
        if "on_acquired" in signature(FileLock).parameters:
            hook["on_acquired"] = self._remember_fd
        lock_file = cache.dir / "locks" / f"{url.slug}.lock"
        self._lock = FileLock(lock_file, timeout=cache.timeout + 60, **hook)
        self._lock_fd = -1
        self._batch: CatFile | None = None
        self._batch_mutex = threading.Lock()
        self._ready = False
        # Credentials of the URL, for git's fetches only (never its command line or config).
        credentials = url.credentials if source is None else None
        self._credential_args, self._credential_env = credential_helper(*credentials) if credentials else ([], {})
        self._trees: OrderedDict[str, Entries] = OrderedDict()
        self._roots: dict[str, str] = {}
        self._commits: dict[str, str] = {}
        self._applied: dict[str, str] = {}
        self._bases: dict[str, str] = {}

    # -- running git and locking ----------------------------------------------------

    @property
    def _protocols(self) -> str:
        if self.source is not None:
            return LOCAL
        return NONE if self._cache.offline else NETWORK

    def _git(
        self, *args: str, git_dir: bool = True, cwd: Path | None = None, stdin: bytes | None = None, **env: str
    ) -> Completed:
        head = [f"--git-dir={self.path}"] if git_dir else []
        keep = (self._lock_fd,) if self._lock.is_locked and self._lock_fd >= 0 else ()
        try:
            return run(
                [*CONFIG, *self._credential_args, *head, *args],
                environment(self._protocols, **self._credential_env, **env),
                self._timeout,
                cwd=cwd,
                stdin=stdin,
                keep_fds=keep,
            )
        except GitError as error:  # a timeout: say which repository
            raise GitError(f"{error.reason} ({self.url.display})", fix=error.fix) from None

    def _failed(self, what: str, proc: Completed) -> GitError:
        stderr = proc.stderr.decode(errors="replace").strip()
        for secret in self._credential_env.values():  # git may echo them
            stderr = stderr.replace(secret, "***") if secret else stderr
        stderr = redact_all(stderr.replace(self.url.url, self.url.display))
        return GitError(f"{what} of {self.url.display} failed (exit {proc.returncode}):\n{stderr}")

    def _log(self, event: str, detail: str) -> None:
        """Mutations are logged in the cache, so 'why did this clone again?' has an answer."""
        log = self._cache.dir / "log" / f"{self.url.slug}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a") as handle:
            now = time.strftime("%Y-%m-%dT%H:%M:%S")
            handle.write(f"{now}\t{os.getpid()}\t{event}\t{detail}\n")

    def _remember_fd(self, fd: int) -> None:
        self._lock_fd = fd

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The cross-process lock (re-entrant, per thread); whoever takes it first
        clears what a killed run left behind. Every mutation runs under it, so its
        disk faults (the lock file's, the clone's, the log's) are told here, once."""
        with self._cache.writing():
            Path(self._lock.lock_file).parent.mkdir(parents=True, exist_ok=True)
            try:
                self._lock.acquire()
            except Timeout:
                raise GitError(
                    f"another process held {self._lock.lock_file} for too long",
                    fix="If no other run is active, delete that file.",
                ) from None
            try:
                if self._lock.lock_counter == 1:
                    self._clear_leftovers()
                yield
            finally:
                self._lock.release()

    def _clear_leftovers(self) -> None:
        """Under the lock no git of ours writes to this mirror, so temp clones, git
        ``*.lock`` files (``shallow.lock``, ``index.lock``...) and worktrees marked
        'initializing' (we never lock one) are a killed run's."""
        for stale in self.path.parent.glob(f".tmp-{self.url.slug}-*"):
            _remove_tree(stale)
        for folder, dirs, files in os.walk(self.path):
            if folder == str(self.path) and "objects" in dirs:
                dirs.remove("objects")  # huge, and handled below
            for name in files:
                if name.endswith(".lock"):
                    os.unlink(os.path.join(folder, name))
        for pattern in ("objects/pack/*.lock", "objects/info/**/*.lock", "worktrees/*/locked"):
            for stale in self.path.glob(pattern):
                stale.unlink()

    # -- the mirror -------------------------------------------------------------------

    def _healthy(self) -> bool:
        """The fsck-lite check: git accepts it as a repository."""
        if not (self.path / "HEAD").is_file():
            return False
        return self._git("rev-parse", "--git-dir").returncode == 0

    def _ensure_mirror(self) -> None:
        if not self._ready and not self._healthy():
            self._need_network("a mirror")
            with self._locked():
                if not self._healthy():
                    self._clone_locked()
        elif not self._ready and self._credential_args:
            self._scrub_remote()
        self._ready = True

    def _scrub_remote(self) -> None:
        """A mirror cloned from a URL with credentials by an older version kept them in
        its config: set it to the URL without them."""
        if self._git("config", "--get", "remote.origin.url").stdout.decode().strip() != self.url.git_url:
            with self._locked():
                self._git("remote", "set-url", "origin", self.url.git_url)

    def _need_network(self, what: str) -> None:
        if self._cache.offline and self.source is None:
            by = self._cache.offline_by
            raise OfflineError(
                f"{what} of {self.url.display} is not in the repository cache {self._cache.dir}, "
                f"and {by} forbids fetching it",
                fix="Map the URL to a local clone or bundle with --editpred-repo "
                f"{self.url.display}=PATH, or {self._cache.offline_fill} to fill the cache.",
            )

    def _clone_locked(self) -> None:
        """Clone next to the mirror, then rename: a mirror that exists is complete."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():  # it failed the health check
            os.rename(self.path, trash := self.path.with_name(f".tmp-{self.url.slug}-broken"))
            _remove_tree(trash)
            self._log("rebuild", "the mirror failed 'git rev-parse --git-dir'")
        tmp = tempfile.mkdtemp(dir=self.path.parent, prefix=f".tmp-{self.url.slug}-")
        source = str(self.source) if self.source else self.url.git_url
        for options in ([] if self.source else ["--filter=blob:none"], []):
            proc = self._git("clone", "--bare", "--quiet", "--template=", *options, "--", source, tmp, git_dir=False)
            if not proc.returncode or not options or b"filter" not in proc.stderr.lower():
                break
            _remove_tree(Path(tmp))  # the server refused the filter: clone everything
        if proc.returncode:
            _remove_tree(Path(tmp))
            error = self._failed("git clone", proc)
            if self.source is None:  # an unmapped URL: say how to do without the network
                error.fix = (
                    "Check the URL and the network, or map the URL to a local clone or bundle with "
                    f"--editpred-repo {self.url.display}=PATH (ini editpred_repos); with the "
                    "repository cache filled once, --editpred-offline runs without the network."
                )
            raise error
        os.rename(tmp, self.path)
        self._log("clone", str(self.source or self.url.display))

    def _fetch_locked(self, revision: str) -> None:
        """The revision alone (then shallow, for servers that refuse a deep want of an
        id), then every branch and tag: the only way to find an abbreviated id."""
        source = str(self.source) if self.source else self.url.git_url
        if self._git("config", "--get", "remote.origin.url").stdout.decode().strip() != source:
            self._git("remote", "set-url", "origin", source)
        attempts = []
        if len(revision) in (40, 64):  # a server can only be asked for a full id
            want = f"+{revision}:refs/editpred/{revision}"  # a ref, so that it is kept
            attempts.append(["--no-tags", "origin", want])
            if self.source is None:
                attempts.append(["--no-tags", "--depth=1", "origin", want])
        if self.source is not None:
            attempts.append(["origin", "+refs/*:refs/*"])
        else:
            attempts.append(["origin", "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"])
        for args in attempts:
            proc = self._git("fetch", "--quiet", "--no-write-fetch-head", *args)
            self._restart_batch()
            if self._commit(revision):
                self._log("fetch", revision)
                return
        if proc.returncode:
            raise self._failed(f"git fetch of revision {revision}", proc)

    # -- objects ----------------------------------------------------------------------

    def _restart_batch(self) -> None:
        with self._batch_mutex:
            if self._batch is not None:
                self._batch.close()
                self._batch = None

    def _object(self, spec: str) -> tuple[str, str, bytes]:
        with self._batch_mutex:
            if self._batch is None or not self._batch.alive:
                self._batch = CatFile(self.path)
            return self._batch.get(spec)

    def _commit(self, revision: str) -> str | None:
        oid, kind, _ = self._object(f"{revision}^{{commit}}")
        if kind == "ambiguous":
            raise InvalidRevisionError(
                f"revision {revision} is ambiguous in {self.url.display}",
                fix="Give more hexadecimal digits of the commit id.",
            )
        return oid or None

    def _valid(self, revision: str) -> str:
        try:
            return validate_revision(revision)
        except InvalidRevisionError as error:
            raise InvalidRevisionError(f"{error.reason} (repository {self.url.display})") from None

    def resolve(self, revision: str) -> str:
        """The full commit id of ``revision``, fetching it if the mirror lacks it."""
        rev = self._valid(revision)
        if rev not in self._commits:
            if (sha := self._commit(rev)) is None:
                self._need_network(f"revision {rev}")
                with self._locked():
                    if (sha := self._commit(rev)) is None:
                        self._fetch_locked(rev)
                        sha = self._commit(rev)
            if sha is None:
                raise UnknownRevisionError(f"revision {rev} is not a commit of {self.url.display}")
            self._commits[rev] = sha
        return self._commits[rev]

    def _data(self, oid: str, what: str) -> bytes:
        """An object's content. A blobless mirror fetches a missing blob here, under
        the lock and the timeout, unless offline."""
        found, _, data = self._object(oid)
        if not found:
            self._need_network(what)
            with self._locked():
                proc = self._git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "origin", oid)
            if proc.returncode:
                raise self._failed(f"git fetch of {what}", proc)
            found, _, data = self._object(oid)
        if not found:
            raise GitError(
                f"object {oid} ({what}) is missing from the mirror of {self.url.display}",
                fix=f"Delete {self.path} to have it cloned again.",
            )
        return data

    def _entries(self, oid: str, data: bytes | None = None) -> Entries:
        entries = self._trees.get(oid)
        if entries is None:
            raw = data if data is not None else self._data(oid, "a tree")
            entries = self._trees[oid] = parse_tree(raw, len(oid) // 2)
            if len(self._trees) > _MAX_TREES:
                self._trees.popitem(last=False)
        return entries

    def _root(self, treeish: str) -> str:
        """The root tree of a commit or tree id (fetching a missing commit)."""
        rev = self._valid(treeish)
        if rev not in self._roots:
            oid, _, data = self._object(f"{rev}^{{tree}}")
            if not oid:
                self.resolve(rev)
                oid, _, data = self._object(f"{rev}^{{tree}}")
            self._entries(oid, data)
            self._roots[rev] = oid
        return self._roots[rev]

    def _lookup(self, treeish: str, path: str) -> tuple[bytes, str] | None:
        """Walk the trees to ``path``'s (mode, oid), following symlinks that stay in the
        repository as a checkout would; None when no file is there."""
        root = tree = self._root(treeish)
        todo, walked, links = list(split_path(path)), list[str](), 0
        while todo:
            name = todo.pop(0)
            entry = self._entries(tree).get(name.encode("utf-8", "surrogateescape"))
            if entry is None:
                return None
            mode, oid = entry
            if mode == _LINK:
                links += 1
                target = self._data(oid, f"symlink {path}").decode("utf-8", "surrogateescape")
                try:
                    if links > _MAX_LINKS:
                        raise UnsafePathError(f"a symlink to {target!r}, which loops")
                    todo = [*follow_link(walked, target), *todo]
                except UnsafePathError as error:
                    raise UnsafePathError(
                        f"{path} at {treeish} in {self.url.display} goes through {error.reason}",
                        fix="Name the file the symlink points to, if it is in the repository.",
                    ) from None
                walked, tree = [], root
                if not todo:
                    return None
            elif todo:
                if mode != _TREE:
                    return None
                walked.append(name)
                tree = oid
            else:
                return (mode, oid) if mode in _FILE_MODES else None
        return None

    def read(self, treeish: str, path: str) -> str | None:
        """The text of ``path`` at a commit or tree id, or None if no file is there."""
        found = self._lookup(treeish, path)
        if found is None:
            return None
        data = self._data(found[1], f"the contents of {path} at {treeish}")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise MissingFileError(
                f"{path} at {treeish} in {self.url.display} is not UTF-8 text (a binary file? byte {error.start})",
                fix="Point the example at a text file.",
            ) from None

    def exists(self, treeish: str, path: str) -> bool:
        """Whether ``path`` is a file at ``treeish`` (its contents are not read)."""
        return self._lookup(treeish, path) is not None

    def log_names(self, commit: str, count: int) -> bytes | None:
        """Zed's ``git log -<count> --pretty=tformat:@@COMMIT %H --name-only``, from
        ``commit``: the paths each of its last ``count`` commits touched (the mirror
        holds the same history as a checkout), or None when git fails. Git's defaults
        apply, rename detection and path quoting included, as they do for Zed."""
        proc = self._git("log", f"-{count}", "--pretty=tformat:@@COMMIT %H", "--name-only", self._valid(commit), "--")
        return None if proc.returncode else proc.stdout

    def tracked_paths(self, commit: str) -> list[str] | None:
        """The paths ``git ls-files`` lists in a checkout of ``commit`` (its tree's
        files and submodules, in git's order), or None when git fails or a path is
        not UTF-8. Files an uncommitted diff adds are not tracked: ``git apply``
        does not stage them."""
        proc = self._git("ls-tree", "-r", "-z", "--name-only", "--full-tree", self._valid(commit), "--")
        if proc.returncode:
            return None
        try:
            return [p.decode("utf-8") for p in proc.stdout.split(b"\0") if p]
        except UnicodeDecodeError:
            return None

    # -- diffs and worktrees -------------------------------------------------------------

    def apply_diff(self, commit: str, diff: str) -> str:
        """The tree id of ``commit`` with ``diff`` applied by ``git apply``, no checkout."""
        base = self.resolve(commit)
        diff = strip_diff_path_prefix(diff, self.name)
        key = hashlib.sha256(f"{base}\0{diff}".encode()).hexdigest()
        if key not in self._applied:
            record = self._applied_dir / f"{key}.tree"
            tree = record.read_text().strip() if record.is_file() else ""
            if not tree or self._object(tree)[1] != "tree":  # not cached, or gone
                with self._cache.writing():
                    tree = self._apply(base, diff) if diff.strip() else self._root(base)
                    write_atomic(self._applied_dir / f"{tree}.base", base)
                    write_atomic(record, tree)
            self._applied[key], self._bases[tree] = tree, base
        return self._applied[key]

    def _apply(self, base: str, diff: str) -> str:
        for line in diff.splitlines():  # a blobless mirror: fetch what git apply reads
            if line.startswith("--- a/"):
                try:
                    found = self._lookup(base, line[6:].split("\t")[0].rstrip())
                except (UnsafePathError, InvalidRevisionError):
                    found = None  # git apply explains it better
                if found is not None:
                    self._data(found[1], line[6:])
        (self._cache.dir / "tmp").mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self._cache.dir / "tmp") as scratch:
            index = str(Path(scratch) / "index")  # a private index needs no lock
            refused = self._apply_to_index(base, diff, index)
            if refused is not None:
                # A diff with "\n" endings (markdown holds no "\r") over files stored
                # with "\r\n": applied in the files' own style, as Zed saves an edited
                # buffer with the line ending its file had.
                styled = in_file_styles(diff, lambda path: self._stored_style(base, path))
                if styled == diff or self._apply_to_index(base, styled, index) is not None:
                    raise UncommittedDiffError(
                        f"git apply refused the uncommitted diff at {base} of {self.url.display}:\n" + refused
                    )
            proc = self._git("write-tree", GIT_INDEX_FILE=index)
            if proc.returncode:
                raise self._failed("git write-tree", proc)
        return proc.stdout.decode().strip()

    def _apply_to_index(self, base: str, diff: str, index: str) -> str | None:
        """``diff`` applied to ``index`` (read from ``base`` first); git's complaint
        when it refuses the diff, else None."""
        proc = self._git("read-tree", base, GIT_INDEX_FILE=index)
        if proc.returncode:
            raise self._failed("git read-tree", proc)
        proc = self._git("apply", "--cached", "-", stdin=diff.encode(), GIT_INDEX_FILE=index)
        return proc.stderr.decode(errors="replace").strip() if proc.returncode else None

    def _stored_style(self, treeish: str, path: str) -> str | None:
        """The line ending ``path`` is stored with at ``treeish`` (Zed's
        ``LineEnding::detect``), or None when there is no such file."""
        try:
            found = self._lookup(treeish, path)
        except (UnsafePathError, InvalidRevisionError):
            return None  # git apply explains it better
        return None if found is None else detect_line_ending(self._data(found[1], path))

    def _base_of(self, tree: str) -> str | None:
        if tree not in self._bases and (record := self._applied_dir / f"{tree}.base").is_file():
            self._bases[tree] = record.read_text().strip()
        return self._bases.get(tree)

    def worktree(self, treeish: str) -> Path:
        """A read-only checkout of a commit, or of a tree from :meth:`apply_diff` (its
        base commit with the diff applied), made on first request and then reused."""
        rev = self._valid(treeish)
        base = self._base_of(rev)
        name = rev if base else self.resolve(rev)
        path, ready = self._worktrees / name, self._worktrees / f"{name}.ready"
        if not self._worktree_ok(path, ready):
            with self._locked():
                if not self._worktree_ok(path, ready):
                    self._add_worktree(path, ready, base or name, rev if base else None)
        return path

    def worktree_file(self, treeish: str, path: str) -> Path:
        """``path`` in :meth:`worktree`, refusing symlinks that leave the worktree."""
        return join_inside(self.worktree(treeish), path)

    def _worktree_ok(self, path: Path, ready: Path) -> bool:
        try:
            gitdir = (path / ".git").read_text().partition("gitdir:")[2].strip()
        except OSError:
            return False
        return ready.is_file() and bool(gitdir) and Path(gitdir).is_dir()

    def _add_worktree(self, path: Path, ready: Path, commit: str, tree: str | None) -> None:
        ready.unlink(missing_ok=True)
        _remove_tree(path)
        self._git("worktree", "prune")
        path.parent.mkdir(parents=True, exist_ok=True)
        checkout = ["--no-checkout"] if tree else []  # a tree is read in below
        proc = self._git("worktree", "add", "--detach", *checkout, "--", str(path), commit)
        if not proc.returncode and tree:
            proc = self._git("read-tree", "--reset", "-u", tree, git_dir=False, cwd=path)
        if proc.returncode:
            _remove_tree(path)
            self._git("worktree", "prune")
            self._need_network(f"the files of {tree or commit}")
            raise self._failed(f"git worktree add of {tree or commit}", proc)
        _make_read_only(path)
        write_atomic(ready, f"{commit} {tree or ''}\n")
        self._log("worktree", str(path))

    def close(self) -> None:
        self._restart_batch()

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Repository({self.url.display!r}, path={str(self.path)!r})"
