"""Running git safely: the environment, the configuration, deadlines, and one
long-lived ``git cat-file --batch`` per repository.

Kept apart from :mod:`._repository` (what to ask git) because this is how any git
command must run here: without hooks, without the ``ext``/``fd`` transports, never
prompting, never aimed at the user's repository by variables a git hook exported,
and killed with its helpers when it overruns its deadline.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

from .._exceptions import GitError

__all__ = [
    "CONFIG",
    "LOCAL",
    "NETWORK",
    "NONE",
    "CatFile",
    "Completed",
    "Entries",
    "credential_helper",
    "environment",
    "isolated_environment",
    "kill",
    "parse_tree",
    "run",
    "start",
]

POSIX = os.name == "posix"
NETWORK, LOCAL, NONE = "http:https:ssh", "file", "none"  # GIT_ALLOW_PROTOCOL values
CONFIG = [
    arg
    for setting in (
        "protocol.ext.allow=never",
        "protocol.fd.allow=never",
        f"core.hooksPath={os.devnull}",
        "core.fsmonitor=false",
        "gc.auto=0",
        "maintenance.auto=false",
        "fetch.writeCommitGraph=false",
        "advice.detachedHead=false",
        "submodule.recurse=false",  # .gitmodules may name any URL
        "http.lowSpeedLimit=1000",
        "http.lowSpeedTime=60",  # a stalled transfer fails, not hangs
        # The user's config must not change the scene: `git apply` as the diff says, files as stored.
        "apply.whitespace=nowarn",
        "core.autocrlf=false",
        "core.eol=lf",
        "core.safecrlf=false",
    )
    for arg in ("-c", setting)
]
# Exported by git when pytest runs in a git hook: they would aim our git at the user's repo.
INHERITED = re.compile(
    r"GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|"
    r"NAMESPACE|PREFIX|SHALLOW_FILE|GRAFT_FILE|QUARANTINE_PATH|CONFIG_PARAMETERS|CONFIG_COUNT|"
    r"CONFIG_KEY_\d+|CONFIG_VALUE_\d+)"
)
Entries = dict[bytes, tuple[bytes, str]]
Completed = subprocess.CompletedProcess[bytes]
#: A credential helper that answers from *our* environment: credentials in a URL reach
#: git neither on its command line (which ``ps`` shows to every user) nor in the
#: mirror's config (``remote.origin.url`` holds the URL without them). The empty
#: helper first drops the user's own helpers, which would otherwise answer first.
_HELPER = (
    '!f() { test "$1" = get || exit 0; printf "username=%s\\n" "$EDITPRED_GIT_USERNAME"; '
    'if test -n "${EDITPRED_GIT_PASSWORD+set}"; then printf "password=%s\\n" "$EDITPRED_GIT_PASSWORD"; fi; }; f'
)


def credential_helper(user: str, password: str | None) -> tuple[list[str], dict[str, str]]:
    """``(git options, environment)`` that give git ``user`` and ``password`` for the
    fetch only; the options hold no secret, the environment is our children's alone."""
    env = {"EDITPRED_GIT_USERNAME": user}
    if password is not None:
        env["EDITPRED_GIT_PASSWORD"] = password
    return ["-c", "credential.helper=", "-c", f"credential.helper={_HELPER}"], env


def environment(protocols: str, **extra: str) -> dict[str, str]:
    """Ours, minus what a git hook exported; git may use only ``protocols``."""
    variables = {k: v for k, v in os.environ.items() if not INHERITED.fullmatch(k)}
    variables.update(
        GIT_TERMINAL_PROMPT="0", GIT_ALLOW_PROTOCOL=protocols, GCM_INTERACTIVE="never", GIT_LFS_SKIP_SMUDGE="1", **extra
    )
    return variables


def isolated_environment(protocols: str, **extra: str) -> dict[str, str]:
    """:func:`environment` without the user's and the system's git configuration, in
    the C locale: for output that must be the same on every machine (``editpred
    split-commit`` writes examples from ``git log -p``). A scene keeps the user's
    configuration (proxies, URL rewrites, credentials) and pins what would change it
    with :data:`CONFIG` instead."""
    variables = environment(protocols)
    variables.pop("GIT_CEILING_DIRECTORIES", None)
    variables.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C", **extra)
    return variables


def start(args: list[str], **options: Any) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(args, **options)
    except OSError as error:
        raise GitError(
            f"git could not be started: {error}", fix="Install git (2.29 or later) and put it on PATH."
        ) from None


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill git *and its helpers* (remote-https, ssh, index-pack): its process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL) if POSIX else proc.kill()
    except OSError:
        pass
    proc.wait()


def run(
    args: list[str],
    env: dict[str, str],
    timeout: float,
    *,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    keep_fds: tuple[int, ...] = (),
) -> Completed:
    """Run ``git *args`` with a hard deadline.

    Git gets its own session so that a timeout kills the whole tree (remote helpers,
    ssh, index-pack). It inherits the lock's descriptor, so if we are SIGKILLed our
    git still holds the lock until it exits: nobody cleans up under its feet."""
    proc = start(
        ["git", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        start_new_session=POSIX,
        pass_fds=keep_fds if POSIX else (),
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill(proc)
        command = next(arg for arg in args if not arg.startswith("-") and "=" not in arg)
        raise GitError(
            f"'git {command}' did not finish within {timeout:g} s",
            fix="Check the network and the remote, or raise the git timeout.",
        ) from None
    except BaseException:
        kill(proc)
        raise
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


#: Modes older git wrote, as git reads them (fsck accepts both).
_CANONICAL = {b"100664": b"100644"}


def parse_tree(data: bytes, oid_size: int) -> Entries:
    """A raw tree object as {name: (mode, oid)}: entries are ``mode SP name NUL oid``.

    Modes come back as git writes them today: old objects (git before 2006, flask's
    history of 2010 too) may say ``040000`` for a tree and ``100664`` for a file,
    which ``git ls-tree`` shows as ``040000 tree`` and ``100644 blob``.
    """
    entries: Entries = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        mode = data[at:space].lstrip(b"0")
        entries[data[space + 1 : nul]] = (_CANONICAL.get(mode, mode), data[nul + 1 : nul + 1 + oid_size].hex())
        at = nul + 1 + oid_size
    return entries


class CatFile:
    """One long-lived ``git cat-file --batch``: an object costs a pipe round trip, not
    a process start. No transport is allowed, so a blobless mirror never fetches
    behind our back (without timeout or lock): git 2.39 then dies on a missing
    object, which :meth:`get` reports as missing, and the caller fetches."""

    def __init__(self, git_dir: Path) -> None:
        self._proc = start(
            ["git", f"--git-dir={git_dir}", *CONFIG, "cat-file", "--batch"],
            env=environment(NONE),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def get(self, spec: str) -> tuple[str, str, bytes]:
        """(oid, type, content), or ("", "missing" | "ambiguous", b"")."""
        stdin, stdout = self._proc.stdin, self._proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(spec.encode() + b"\n")
            stdin.flush()
            header = stdout.readline()
        except OSError:
            header = b""
        fields = header.split()
        if len(fields) == 3 and fields[2].isdigit():
            size = int(fields[2])
            return fields[0].decode(), fields[1].decode(), stdout.read(size + 1)[:size]
        if header.endswith((b" missing\n", b" ambiguous\n")):
            return "", fields[-1].decode(), b""
        self.close()
        if not header:  # it died on an object it may not fetch
            return "", "missing", b""
        raise GitError(f"git cat-file --batch answered {header[:80]!r}")

    def close(self) -> None:
        try:
            if self._proc.stdin is not None:
                self._proc.stdin.close()  # git exits at the end of its input
        except OSError:
            pass  # it is dead already
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill(self._proc)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
