"""Real git repositories in temporary directories, for tests that must not mock git.

``make_repo`` builds a working repository with one commit per mapping and returns
the commit ids; ``make_bare`` and ``make_bundle`` turn it into the other sources a
URL can be mapped to; ``serve_http`` serves a directory of bare repositories over
loopback HTTP with ``git http-backend``, so the code paths for real remote URLs
(blobless clone, fetching one revision, lazy blob fetches) run without a network,
and can even be made to stall half-way through a pack to test a killed clone.

Everything here runs git with a fixed identity and dates and without the user's
global or system config, so the commit ids are the same on every machine.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = [
    "GIT_ENV",
    "HTTPServer",
    "Symlink",
    "add_commit",
    "git",
    "make_bare",
    "map_in_ini",
    "make_bundle",
    "make_repo",
    "serve_http",
    "snapshot",
]

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Editpred Tests",
    "GIT_AUTHOR_EMAIL": "tests@example.com",
    "GIT_COMMITTER_NAME": "Editpred Tests",
    "GIT_COMMITTER_EMAIL": "tests@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass(frozen=True)
class Symlink:
    """A file content that makes a symbolic link (mode 120000) to ``target``."""

    target: str


Files = Mapping[str, "str | bytes | Symlink | None"]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    return env


def git(cwd: Path, *args: str, input: bytes | None = None) -> str:
    """Run git in ``cwd`` and return its stdout; raise with stderr on failure."""
    proc = subprocess.run(["git", *args], cwd=cwd, env=_env(), input=input, capture_output=True, check=False)
    if proc.returncode:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode().strip()


def add_commit(repo: Path, files: Files, message: str = "change") -> str:
    """Write ``files`` (None deletes, :class:`Symlink` links) and commit; return the id."""
    for name, content in files.items():
        target = repo / name
        if target.is_symlink() or target.exists():
            target.unlink()
        if content is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Symlink):
            os.symlink(content.target, target)
        elif isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_bytes(content.encode())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def make_repo(
    root: Path, files: Files | None = None, commits: Sequence[Files] = (), *, name: str = "repo"
) -> tuple[Path, list[str]]:
    """A working repository ``root/name``: one commit of ``files``, then one per entry
    of ``commits``. Returns the path and the commit ids, oldest first."""
    repo = root / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "core.symlinks", "true")
    shas = [add_commit(repo, files or {"README": "hello\n"}, "initial")]
    shas += [add_commit(repo, change, f"commit {i + 2}") for i, change in enumerate(commits)]
    return repo, shas


def make_bare(root: Path, source: Path, name: str = "bare.git") -> Path:
    """A bare clone of ``source`` (a mapping target, or a repository to serve)."""
    git(root, "clone", "-q", "--bare", "--", str(source), str(root / name))
    return root / name


def make_bundle(root: Path, source: Path, name: str = "repo.bundle") -> Path:
    """A bundle of every branch and tag of ``source``."""
    git(source, "bundle", "create", str(root / name), "--branches", "--tags")
    return root / name


def snapshot(root: Path, *, skip: Path | None = None) -> set[str]:
    """Every path under ``root`` (relative), except under ``skip``: compare two of
    them to prove that nothing was written where it should not be."""
    found = set()
    for folder, dirs, files in os.walk(root):
        if skip is not None and Path(folder) == skip:
            dirs[:] = []
            continue
        for name in dirs + files:
            path = Path(folder, name)
            if skip is None or path != skip:
                found.add(str(path.relative_to(root)))
    return found


@dataclass
class HTTPServer:
    """A running loopback smart-HTTP git server (see :func:`serve_http`)."""

    base: str
    requests: list[str] = field(default_factory=list)
    stall_next: bool = False
    stalled: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        body = b""
        while size := int(handler.rfile.readline().split(b";")[0], 16):
            body += handler.rfile.read(size)
            handler.rfile.readline()
        handler.rfile.readline()
        return body
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))


def _handler(root: Path, server: HTTPServer, filters: bool) -> type[BaseHTTPRequestHandler]:
    config = {
        "uploadpack.allowAnySHA1InWant": "true",
        "uploadpack.allowFilter": str(filters).lower(),
    }

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self._cgi()

        def do_POST(self) -> None:
            self._cgi()

        def _cgi(self) -> None:
            server.requests.append(f"{self.command} {self.path}")
            path, _, query = self.path.partition("?")
            body = _read_body(self)
            env = _env() | {
                "GIT_PROJECT_ROOT": str(root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "REMOTE_ADDR": "127.0.0.1",
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                "GIT_CONFIG_COUNT": str(len(config)),
            }
            for i, (key, value) in enumerate(config.items()):
                env |= {f"GIT_CONFIG_KEY_{i}": key, f"GIT_CONFIG_VALUE_{i}": value}
            backend = ["git", "http-backend"]
            out = subprocess.run(backend, input=body, env=env, capture_output=True, check=False).stdout
            head, _, payload = out.partition(b"\r\n\r\n") if b"\r\n\r\n" in out else out.partition(b"\n\n")
            headers = [line.split(":", 1) for line in head.decode().splitlines() if ":" in line]
            status = next((int(v.split()[0]) for k, v in headers if k.lower() == "status"), 200)
            self.send_response(status)
            for key, value in headers:
                if key.lower() != "status":
                    self.send_header(key, value.strip())
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            start = payload.find(b"packfile\n")
            if server.stall_next and start >= 0:
                server.stall_next = False
                self.wfile.write(payload[: start + (len(payload) - start) // 2])
                self.wfile.flush()
                server.stalled.set()
                server.release.wait(120)
                return  # the connection closes short: the client's transfer fails
            self.wfile.write(payload)

    return Handler


@contextlib.contextmanager
def serve_http(root: Path, *, filters: bool = True) -> Iterator[HTTPServer]:
    """Serve the bare repositories under ``root`` at ``http://127.0.0.1:PORT/<name>``.

    ``filters=False`` makes the server refuse partial-clone filters, as some do.
    Set ``server.stall_next`` to make the next pack response send half its bytes,
    set ``stalled`` and wait for ``release``, then hang up.
    """
    server = HTTPServer(base="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(root, server, filters))
    httpd.daemon_threads = True
    server.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        httpd.shutdown()
        httpd.server_close()


def map_in_ini(pytester: Any, url: str, repo: Path | str) -> None:
    """A pytester project's ini: ``url`` mapped to the repository ``repo``, the mirror
    cache inside the test's own folder."""
    pytester.makeini(f"[pytest]\neditpred_cache_dir = .editpred-cache\neditpred_repos =\n    {url} = {repo}\n")
