"""One running language server, driven through pygls's LSP client (asyncio).

Everything here runs on the pool's private event loop (:mod:`._pool`). A server is
started in its own process group, so a server that forks (vtsls runs tsserver, gopls
runs ``go list``) is killed whole; its standard error is drained into the last few
lines, which say why it died, since a pipe nobody reads would stall it.

Buffers are given to the server as Zed gives the cursor buffer: ``didOpen`` with the
buffer's text (after the edit history), ``didChange`` with the whole text when the
next example at the revision has the same file with other text, ``didClose`` when it
has another file. Zed also *saves* the cursor buffer to disk before asking; the
worktree here is shared and read-only, so nothing is saved. The answers are the
same: LSP makes an open document's text the truth for that file (the server must not
read it from disk while it is open), for the file itself and for the server's view of
the project, and the definitions asked for are in the open file and in files the
server reads from disk, which are the worktree's either way. Only files other than
the cursor file that the edit history changed are seen as on disk, unedited, by the
server, as in Zed, which registers only the cursor buffer with its servers.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._retrieve import Location, Position

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

__all__ = ["Server", "ServerFailed"]

_STDERR_LINES = 5


class ServerFailed(Exception):
    """The server died or stopped answering; ``str`` says which, for one line."""


def _locations(answer: Any) -> list[Location]:
    """A definition answer as locations: ``Location`` and ``Location[]`` by ``range``,
    ``LocationLink[]`` by ``targetSelectionRange`` (§2.9.4)."""
    from lsprotocol import types
    from pygls.uris import to_fs_path

    if answer is None:
        return []
    found: list[Location] = []
    for entry in answer if isinstance(answer, (list, tuple)) else [answer]:
        if isinstance(entry, types.LocationLink):
            uri, span = entry.target_uri, entry.target_selection_range
        elif isinstance(entry, types.Location):
            uri, span = entry.uri, entry.range
        else:
            continue
        path = to_fs_path(uri)
        if path is None:
            continue
        found.append(Location(path, (span.start.line, span.start.character), (span.end.line, span.end.character)))
    return found


class Server:
    """A started server: ``start``, then ``locate`` as many times as needed, then ``stop``."""

    def __init__(self, name: str, argv: Sequence[str], root: Path, env: Mapping[str, str]) -> None:
        self.name = name
        self.argv = tuple(argv)
        self.root = root
        self.env = dict(env)
        self.client: LanguageClient | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.definitions = False
        self.type_definitions = False
        self._open: tuple[str, int, str] | None = None  # uri, version, text
        self._drain: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    def why_dead(self) -> str:
        """``exited (code 1): last stderr line`` for a message."""
        code = None if self.process is None else self.process.returncode
        tail = next((line for line in reversed(self.stderr) if line.strip()), "")
        return f"exited (code {code})" + (f": {tail.strip()[:200]}" if tail else "")

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        with contextlib.suppress(Exception):
            while line := await stream.readline():
                self.stderr.append(line.decode("utf-8", errors="replace"))

    async def start(self, timeout: float) -> None:
        """Start the process and initialize it within ``timeout`` seconds."""
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient

        client = self.client = LanguageClient("pytest-editpred", "0")
        _answer_server_requests(client, self.root)
        await client.start_io(*self.argv, cwd=str(self.root), env=self.env, start_new_session=True)
        # pygls keeps the process it started here; it is needed to drain and to kill it
        self.process = client._server
        if self.process is not None and self.process.stderr is not None:
            self._drain = asyncio.get_running_loop().create_task(self._read_stderr(self.process.stderr))
        uri = self.root.as_uri()
        params = types.InitializeParams(
            process_id=os.getpid(),
            root_uri=uri,
            root_path=str(self.root),
            workspace_folders=[types.WorkspaceFolder(uri, self.root.name)],
            capabilities=types.ClientCapabilities(
                general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
                workspace=types.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
                text_document=types.TextDocumentClientCapabilities(
                    synchronization=types.TextDocumentSyncClientCapabilities(),
                    definition=types.DefinitionClientCapabilities(link_support=True),
                    type_definition=types.TypeDefinitionClientCapabilities(link_support=True),
                ),
            ),
        )
        try:
            result = await asyncio.wait_for(client.initialize_async(params), timeout)
        except asyncio.TimeoutError:
            raise ServerFailed(f"did not answer 'initialize' within {timeout:g} s") from None
        except Exception:
            await self._exited()
            raise ServerFailed(self.why_dead()) from None
        capabilities = result.capabilities
        self.definitions = bool(capabilities.definition_provider)
        self.type_definitions = bool(capabilities.type_definition_provider)
        client.initialized(types.InitializedParams())

    async def _exited(self) -> None:
        """Give a dying process a moment to exit, so its exit code and last words are known."""
        if self.process is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), 2)
        if self._drain is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._drain), 1)

    def _show(self, uri: str, language_id: str, text: str) -> None:
        """Make ``uri`` the one open document, holding ``text``."""
        from lsprotocol import types

        client = self.client
        assert client is not None
        if self._open is not None and self._open[0] == uri:
            if self._open[2] == text:
                return
            version = self._open[1] + 1
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
            self._open = uri, version, text
            return
        if self._open is not None:
            client.text_document_did_close(
                types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self._open[0]))
            )
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=0, text=text)
            )
        )
        self._open = uri, 0, text

    async def locate(
        self, uri: str, language_id: str, text: str, positions: Sequence[Position], timeout: float
    ) -> list[tuple[list[Location], list[Location]]]:
        """Definitions and type definitions at every position of ``uri`` holding
        ``text``, all asked at once and answered within ``timeout`` seconds; a request
        the server refuses (an error answer) counts as no location, as Zed logs and
        ignores it."""
        from lsprotocol import types

        client = self.client
        assert client is not None
        if not self.alive():
            await self._exited()
            raise ServerFailed(self.why_dead())
        self._show(uri, language_id, text)

        async def ask(method: str, position: Position) -> list[Location]:
            document = types.TextDocumentIdentifier(uri=uri)
            where = types.Position(line=position[0], character=position[1])
            try:
                if method == "definition":
                    answer = await client.text_document_definition_async(types.DefinitionParams(document, where))
                else:
                    answer = await client.text_document_type_definition_async(
                        types.TypeDefinitionParams(document, where)
                    )
            except RuntimeError:  # the process exited: pygls fails the pending requests
                raise
            except Exception:
                return []
            return _locations(answer)

        async def both(position: Position) -> tuple[list[Location], list[Location]]:
            found = await ask("definition", position) if self.definitions else []
            typed = await ask("typeDefinition", position) if self.type_definitions else []
            return found, typed

        try:
            return list(await asyncio.wait_for(asyncio.gather(*(both(p) for p in positions)), timeout))
        except asyncio.TimeoutError:
            raise ServerFailed(f"did not answer 'textDocument/definition' within {timeout:g} s") from None
        except RuntimeError:
            await self._exited()
            raise ServerFailed(self.why_dead()) from None

    async def stop(self, timeout: float = 5.0) -> None:
        """``shutdown`` and ``exit``, then the process group is killed if still there."""
        client = self.client
        if client is not None and self.alive() and not client.stopped:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_async(None), timeout)
                client.exit(None)
                assert self.process is not None
                await asyncio.wait_for(self.process.wait(), timeout)
        await self.kill()

    async def kill(self) -> None:
        process = self.process
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # its own group (start_new_session)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), 5)
        if self.client is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.stop(), 5)  # type: ignore[no-untyped-call]
        if self._drain is not None:
            self._drain.cancel()


def _answer_server_requests(client: LanguageClient, root: Path) -> None:
    """What an editor answers to a server's own requests: no settings (Zed's defaults
    are the servers'), the one workspace folder, and yes to registrations and
    progress; the notifications an editor shows are dropped."""
    from lsprotocol import types

    def configuration(params: types.ConfigurationParams) -> list[Any]:
        return [None for _ in params.items]

    def folders(params: Any) -> list[types.WorkspaceFolder]:
        return [types.WorkspaceFolder(root.as_uri(), root.name)]

    def nothing(params: Any) -> None:
        return None

    handlers: dict[str, Callable[[Any], Any]] = {
        types.WORKSPACE_CONFIGURATION: configuration,
        types.WORKSPACE_WORKSPACE_FOLDERS: folders,
    }
    for method in (
        types.CLIENT_REGISTER_CAPABILITY,
        types.CLIENT_UNREGISTER_CAPABILITY,
        types.WINDOW_WORK_DONE_PROGRESS_CREATE,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
        types.WINDOW_LOG_MESSAGE,
        types.WINDOW_SHOW_MESSAGE,
        types.PROGRESS,
        types.TELEMETRY_EVENT,
    ):
        handlers[method] = nothing
    for method, handler in handlers.items():
        client.feature(method)(handler)
