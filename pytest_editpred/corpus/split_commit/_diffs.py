"""A commit's diff as split-commit reads it: file by file, from git's own output.

The diffs of a range come from one ``git diff-tree --stdin -p`` read as it streams,
with no work tree and an empty index, so no checkout's ``.gitattributes`` (the
commit's own are read by the quality rules) changes them. A commit git cannot read
(a missing object in a partial or damaged clone) is counted and skipped: the diff
process is started again after it, so the run goes on.

Each file is kept only when an example can hold it: text, UTF-8, ending in a newline,
with a path an example can name (git's C-quoted paths decoded) and no changed line
that reads as a diff header; the rest is left out of the diff and counted by reason.
A CRLF file's carriage returns are dropped: the scene reads files as an editor's
buffer holds them, with ``\\n`` line endings.

A file over :data:`MAX_FILE_BYTES` on either side is left out (``big-file``) before
anyone reads it: git is told to treat it as binary (``core.bigFileThreshold``, so it
does not load it to diff it either), and its size is asked of git. A two-line edit in
a 120 MB file would otherwise have its text read, decoded, normalised and searched
whole, several copies at once (2 GB of memory).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from ..._exceptions import EditPredError
from ...scene import git_kill, split_path
from ._patch import header_path
from ._repository import _CONFIG, LOG_TIMEOUT, Repository, _environment, _start

__all__ = ["MAX_FILE_BYTES", "Commit", "FileDiff", "git_path", "read_diffs", "representable"]

#: A file larger than this (before or after the commit) is left out of its diff as
#: ``big-file``: the size of the diff limit (``MAX_DIFF_BYTES``), far above a source
#: file anyone types in, and a bound on the memory one file can cost.
MAX_FILE_BYTES = 2_000_000

_DIFF_OPTIONS = [
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "-p",
    "-M",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "-U3",
    "--inter-hunk-context=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "-O/dev/null",
    "--full-index",
    "--format=%x00%H",
]
_NO_BLOB = "0" * 40


@dataclass(frozen=True)
class FileDiff:
    """One file of a commit: its path at the parent (``old``, None when created) and
    in the commit (``new``, None when deleted), and Zed's input text for it, or the
    reason it is left out (``text`` is then empty)."""

    old: str | None
    new: str | None
    text: str = ""
    left_out: str | None = None
    #: The blobs of a file git did not diff (``binary``), to ask their sizes.
    blobs: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """The name the example uses: the path at the parent, where the history applies."""
        return self.old if self.old is not None else (self.new or "")


@dataclass
class Commit:
    """A commit: its sha, parents, files and the size of its diff; ``unreadable``
    holds git's message when the diff could not be read."""

    sha: str
    parents: list[str]
    files: list[FileDiff] = field(default_factory=list)
    size: int = 0
    unreadable: str | None = None


_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def git_path(raw: bytes) -> bytes:
    """A path of a ``---``/``+++`` line as git writes it: its C quoting undone
    (``"a/q\\"x\\303\\251"``), the tab git puts after a name with a space dropped."""
    raw = raw.rstrip(b"\t") if raw.endswith(b"\t") else raw
    if not (len(raw) >= 2 and raw[:1] == b'"' and raw[-1:] == b'"'):
        return raw
    out = bytearray()
    body, at = raw[1:-1], 0
    while at < len(body):
        if body[at : at + 1] == b"\\" and at + 1 < len(body):
            nxt = body[at + 1 : at + 2]
            if nxt.isdigit():
                out.append(int(body[at + 1 : at + 4], 8) & 0xFF)
                at += 4
                continue
            out.append(_ESCAPES.get(nxt, nxt[0]))
            at += 2
            continue
        out.append(body[at])
        at += 1
    return bytes(out)


def _name(raw: bytes) -> str | None:
    """A decoded ``---``/``+++`` path without its ``a/``/``b/`` (None: /dev/null);
    raises UnicodeDecodeError for a name that is not UTF-8."""
    path = git_path(raw).decode("utf-8")
    return None if path == "/dev/null" else path[2:]


def representable(path: str) -> bool:
    """Whether an example can name ``path``: the scene's path rule (no control
    character, backslash, ``..`` or ``.git``) and no spaces at its ends, which a
    markdown fence's info string (the cursor block's) would drop."""
    if path != path.strip():
        return False
    try:
        split_path(path)
    except EditPredError:
        return False
    return True


_HEADER_LIKE = re.compile(rb"^(?:---|\+\+\+)\s")


def _file(block: list[bytes]) -> FileDiff:
    """One ``diff --git`` block as Zed's input text, or a :class:`FileDiff` saying
    why it is left out."""
    old_raw = new_raw = b""
    hunk_at = None
    modes: list[bytes] = []
    blobs: tuple[str, ...] = ()
    binary = False
    for index, line in enumerate(block):
        if line.startswith(b"@@"):
            hunk_at = index
            break
        if line.startswith((b"Binary files ", b"GIT binary patch")):
            binary = True
        elif line.startswith(b"--- "):
            old_raw = line[4:]
        elif line.startswith(b"+++ "):
            new_raw = line[4:]
        elif line.startswith((b"new file mode ", b"deleted file mode ", b"old mode ", b"new mode ")):
            modes.append(line.rsplit(b" ", 1)[-1])
        elif line.startswith(b"index "):
            fields = line.split()
            if len(fields) == 3:
                modes.append(fields[2])
            shas = fields[1].decode(errors="replace").split("..")
            blobs = tuple(sha for sha in shas if sha != _NO_BLOB)
    try:
        old, new = _name(old_raw) if old_raw else None, _name(new_raw) if new_raw else None
    except UnicodeDecodeError:
        return FileDiff(None, None, left_out="odd-path")
    if b"160000" in modes:
        return FileDiff(old, new, left_out="submodule")
    if binary:
        return FileDiff(old, new, left_out="binary", blobs=blobs)
    if hunk_at is None:
        return FileDiff(old, new)  # a pure rename or mode change: no hunk, as in Zed
    if b"120000" in modes:
        return FileDiff(old, new, left_out="symlink")
    if any(path is not None and not representable(path) for path in (old, new)):
        return FileDiff(old, new, left_out="odd-path")
    body = block[hunk_at:]
    if any(line.startswith(b"\\ ") for line in body):
        # Zed keeps "\ No newline at end of file" as Garbage, which the split moves
        # away from its line: the history would then not rebuild the file.
        return FileDiff(old, new, left_out="no-final-newline")
    lines = [line[:-1] if line.endswith(b"\r") else line for line in body]
    if any(b"\r" in line for line in lines):
        return FileDiff(old, new, left_out="lone-cr")
    if any(_HEADER_LIKE.match(line) for line in lines):
        return FileDiff(old, new, left_out="header-like-line")
    try:
        text = b"\n".join(lines).decode("utf-8")
    except UnicodeDecodeError:
        return FileDiff(old, new, left_out="non-utf8")
    # A rename keeps its old name on both sides: the history applies at the parent.
    name = old if old is not None else new
    assert name is not None
    head_old = "/dev/null" if old is None else header_path("a/", name)
    head_new = "/dev/null" if new is None else header_path("b/", name)
    return FileDiff(old, new, f"--- {head_old}\n+++ {head_new}\n{text.rstrip(chr(10))}\n")


def _commit(sha: str, parents: list[str], body: list[bytes]) -> Commit:
    commit = Commit(sha, parents, size=sum(len(line) + 1 for line in body))
    block: list[bytes] | None = None
    for line in [*body, b"diff --git"]:
        if line.startswith(b"diff --git"):
            if block:
                commit.files.append(_file(block))
            block = []
        elif block is not None:
            block.append(line)
    return commit


def read_diffs(
    repo: Repository, commits: Sequence[list[str]], max_file_bytes: int = MAX_FILE_BYTES
) -> Iterator[Commit]:
    """Each of ``commits`` (``[sha, parent]``) with its diff, in order; a file over
    ``max_file_bytes`` on either side is left out as ``big-file``, unread.

    When git stops at a commit it cannot read (a missing object), that commit comes
    with ``unreadable`` set and a new ``git diff-tree`` reads the rest. git writes a
    commit's header before reading its files, so the commit it died in is the last
    header seen, unless it died before any output of the next one: the last commit
    is then diffed alone to tell which."""
    by_sha = {entry[0]: entry for entry in commits}
    remaining = list(commits)
    while remaining:
        done: set[str] = set()
        died: tuple[str | None, str] | None = None
        for sha, body, error in _diff_tree(repo, remaining, max_file_bytes):
            if error is None:
                done.add(sha)
                yield _big_files(repo, _commit(sha, by_sha[sha][1:], body), max_file_bytes)
            else:
                died = (sha or None, error)
        if died is None:
            return
        last, message = died
        rest = [entry for entry in remaining if entry[0] not in done]
        if last is not None:
            alone = list(_diff_tree(repo, [by_sha[last]], max_file_bytes))
            if len(alone) == 1 and alone[0][2] is None:
                yield _big_files(repo, _commit(last, by_sha[last][1:], alone[0][1]), max_file_bytes)
                rest = [entry for entry in rest if entry[0] != last]
                last = None
        if last is None and not rest:
            return
        culprit = last if last is not None else rest[0][0]
        yield Commit(culprit, by_sha[culprit][1:], unreadable=message)
        remaining = [entry for entry in rest if entry[0] != culprit]


def _big_files(repo: Repository, commit: Commit, max_file_bytes: int) -> Commit:
    """The commit with its files git did not diff that are over ``max_file_bytes``
    (git leaves them undiffed as binary) left out as ``big-file``."""
    blobs = [blob for diff in commit.files if diff.blobs for blob in diff.blobs]
    if not blobs:
        return commit
    sizes = _sizes(repo, blobs)
    commit.files = [
        replace(diff, left_out="big-file") if any(sizes.get(blob, 0) > max_file_bytes for blob in diff.blobs) else diff
        for diff in commit.files
    ]
    return commit


def _sizes(repo: Repository, blobs: Sequence[str]) -> dict[str, int]:
    """The size of each blob, from one ``git cat-file --batch-check`` (a blob git
    cannot find is left out: its file is counted as binary, as before)."""
    proc = _start(
        [*_CONFIG, f"--git-dir={repo.git_dir}", "cat-file", "--batch-check=%(objectname) %(objectsize)"],
        env=_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        out, _ = proc.communicate("".join(f"{blob}\n" for blob in blobs).encode(), timeout=LOG_TIMEOUT)
    except BaseException:
        git_kill(proc)
        raise
    sizes = {}
    for line in out.decode(errors="replace").splitlines():
        name, _, size = line.partition(" ")
        if size.isdigit():
            sizes[name] = int(size)
    return sizes


def _diff_tree(
    repo: Repository, commits: Sequence[list[str]], max_file_bytes: int
) -> Iterator[tuple[str, list[bytes], str | None]]:
    """``(sha, diff lines, None)`` for each commit git diffs; when git stops early,
    last ``(the commit whose header came last, or "", [], git's message)``."""
    # No work tree and an empty index: the checkout's (or the caller's folder's)
    # .gitattributes would otherwise make files "binary" or change their diff; the
    # attributes that count are the commit's own, read by the quality rules.
    with tempfile.TemporaryFile() as errors, tempfile.TemporaryDirectory(prefix="editpred-") as nowhere:
        proc = _start(
            [
                *_CONFIG,
                "-c",
                f"core.bigFileThreshold={max_file_bytes}",
                f"--git-dir={repo.git_dir}",
                "diff-tree",
                "--stdin",
                "--always",
                *_DIFF_OPTIONS,
            ],
            env=_environment(GIT_WORK_TREE=nowhere, GIT_INDEX_FILE=os.path.join(nowhere, "index")),
            cwd=Path(nowhere),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        timer = threading.Timer(LOG_TIMEOUT, git_kill, (proc,))
        timer.daemon = True
        timer.start()
        feeder = threading.Thread(target=_feed, args=(proc.stdin, commits), daemon=True)
        feeder.start()
        current: str | None = None
        body: list[bytes] = []
        try:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw[:-1] if raw.endswith(b"\n") else raw
                if line.startswith(b"\x00"):
                    if current is not None:
                        yield current, body, None
                    current, body = line[1:].decode(errors="replace").strip(), []
                elif current is not None:
                    body.append(line)
            proc.wait()
            if proc.returncode == 0:
                if current is not None:
                    yield current, body, None
                return
            errors.seek(0)
            lines = errors.read().decode(errors="replace").strip().splitlines()
            yield current or "", [], lines[-1] if lines else f"git diff-tree failed with status {proc.returncode}"
        finally:
            timer.cancel()
            if proc.poll() is None:
                git_kill(proc)
            proc.wait()
            feeder.join(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()


def _feed(stdin: IO[bytes] | None, commits: Sequence[list[str]]) -> None:
    assert stdin is not None
    try:
        for entry in commits:
            stdin.write(f"{entry[0]} {entry[1]}\n".encode())
        stdin.close()
    except OSError:  # git stopped reading (it died): what it did not read is read again
        pass
