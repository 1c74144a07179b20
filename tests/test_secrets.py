"""Secrets never leave: the API key (even when a server echoes it back, even with
``--showlocals``) and the credentials of a repository URL (in reports, the
summary, the caches and the mirror's git config).

The key's variable is deliberately *not* named like a secret (no KEY/TOKEN in it),
so the JSONL report's environment-based scrubbing cannot hide a leak: the
transport's own redaction must. A real loopback model server plays the model and a
real loopback git server (with HTTP Basic auth) the remote.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import pickle
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import gitrepos
import pytest
from gitrepos import git, make_bare, make_repo
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project
from pytest_editpred import ConfigError, PredictionError, Settings
from pytest_editpred.providers.transport._http import HTTPTransport, api_key
from pytest_editpred.providers.transport._secret import (
    REDACTED,
    Secret,
    redact,
    redact_data,
)
from pytest_editpred.scene import RepositoryCache
from pytest_editpred.scene import redact as redact_url
from pytest_editpred.scene._urls import parse_url

KEY = "sk-sesame-7f3a9c2e1d"
KEY_ENV = "EDITPRED_MODEL_SESAME"  # not secret-looking by name, on purpose
URL_PASSWORD = "s3cr3t-url-pass-91"
URL_TOKEN = "ghp0urltoken5531xyz"
WRONG = "\n    return a * b"


# -- the Secret and the redaction -------------------------------------------------------


def test_a_secret_never_shows_its_text() -> None:
    secret = Secret(KEY)
    for shown in (repr(secret), str(secret), f"{secret}", f"{secret!r:>20}", repr({"k": secret}), repr([secret])):
        assert KEY not in shown and "***" in shown
    assert secret.reveal() == KEY and secret.prefixed("Bearer ").reveal() == f"Bearer {KEY}"
    assert bool(secret) and not Secret("")
    with pytest.raises(TypeError, match="never pickled"):
        pickle.dumps(secret)


def test_redaction_reaches_text_and_parsed_json() -> None:
    assert redact(f"a {KEY} b {KEY}", Secret(KEY)) == f"a {REDACTED} b {REDACTED}"
    data = {"choices": [{"text": f"x{KEY}"}], KEY: 1, "n": 2}
    assert redact_data(data, Secret(KEY)) == {"choices": [{"text": f"x{REDACTED}"}], REDACTED: 1, "n": 2}
    assert redact_data(data, None) is data


def test_a_key_a_header_cannot_carry_is_refused_without_quoting_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in (KEY + "\n", KEY + " ", "sk-é" + KEY):
        monkeypatch.setenv(KEY_ENV, bad)
        with pytest.raises(ConfigError, match="an HTTP header cannot carry") as error:
            api_key(Settings(api_key_env=KEY_ENV))
        assert KEY not in str(error.value)
    monkeypatch.setenv(KEY_ENV, KEY)
    assert repr(api_key(Settings(api_key_env=KEY_ENV))) == "***"


def test_a_key_echoed_in_a_200_answer_is_redacted_before_anyone_sees_it(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    llm_server.answer(lambda request: f"echo {request.headers['authorization']}")
    settings = Settings(base_url=llm_server.url, api_key_env=KEY_ENV, retries=1)

    async def once() -> object:
        http = HTTPTransport(settings)
        try:
            return await http.post_json(llm_server.url + "/v1/completions", {"prompt": "p"})
        finally:
            await http.aclose()

    response = asyncio.run(once())
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent
    assert KEY not in response.text and REDACTED in response.text  # type: ignore[attr-defined]
    assert response.data["choices"][0]["text"] == f"echo Bearer {REDACTED}"  # type: ignore[attr-defined]
    llm_server.raw(f'{{"no choices": "{KEY}"}}'.encode())
    llm_server.raw(f"not json {KEY}".encode())
    assert KEY not in asyncio.run(once()).text  # type: ignore[attr-defined]
    with pytest.raises(PredictionError) as error:
        asyncio.run(once())
    assert KEY not in str(error.value) and REDACTED in str(error.value)


# -- repository URL credentials ---------------------------------------------------------


def test_url_credentials_are_split_from_what_git_sees() -> None:
    url = parse_url(f"https://user:{URL_PASSWORD}@github.com/acme/calc.git")
    assert url.git_url == "https://github.com/acme/calc.git" and url.credentials == ("user", URL_PASSWORD)
    token = parse_url(f"https://{URL_TOKEN}@github.com/acme/calc")
    assert token.git_url == "https://github.com/acme/calc" and token.credentials == (URL_TOKEN, None)
    assert parse_url("https://u:p%40ss@host/a/b").credentials == ("u", "p@ss")
    assert parse_url("ssh://git:pw@host/a/b").git_url == "ssh://git@host/a/b"
    assert parse_url("git@github.com:a/b").git_url == "git@github.com:a/b"
    assert redact_url(f"https://{URL_TOKEN}@github.com/acme/calc") == "https://***@github.com/acme/calc"


@contextlib.contextmanager
def serve_with_basic_auth(root: Path, user: str, password: str) -> Iterator[tuple[str, list[str | None]]]:
    """:func:`gitrepos.serve_http`'s smart-HTTP server behind HTTP Basic auth: it
    answers 401 until the right credentials come; every Authorization header seen is kept."""
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    seen: list[str | None] = []
    backend = gitrepos._handler(root, gitrepos.HTTPServer(base=""), True)

    class Handler(backend):  # type: ignore[valid-type, misc]
        def _cgi(self) -> None:
            seen.append(self.headers.get("Authorization"))
            if self.headers.get("Authorization") != expected:
                gitrepos._read_body(self)
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            super()._cgi()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_git_gets_url_credentials_for_the_fetch_only_never_in_the_mirror_config(tmp_path: Path) -> None:
    repo, shas = make_repo(tmp_path / "work", {"calc.py": "x = 1\n"}, [{"calc.py": "x = 2\n"}])
    root = tmp_path / "served"
    root.mkdir()
    make_bare(root, repo, "calc.git")
    with serve_with_basic_auth(root, "user", URL_PASSWORD) as (base, seen):
        host = base.removeprefix("http://")
        url = f"http://user:{URL_PASSWORD}@{host}/calc.git"
        with RepositoryCache(tmp_path / "cache") as cache:
            repository = cache.open(url)
            assert repository.read(shas[-1], "calc.py") == "x = 2\n"  # cloned, blobs fetched with the credentials
        assert any(header and header.startswith("Basic ") for header in seen)
    mirror = repository.path
    assert git(mirror, "config", "--get", "remote.origin.url") == f"{base}/calc.git"
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert URL_PASSWORD.encode() not in path.read_bytes(), path


def test_a_mirror_an_older_version_cloned_with_credentials_is_scrubbed(tmp_path: Path) -> None:
    repo, shas = make_repo(tmp_path / "work", {"calc.py": "x = 1\n"})
    root = tmp_path / "served"
    root.mkdir()
    make_bare(root, repo, "calc.git")
    with serve_with_basic_auth(root, "user", URL_PASSWORD) as (base, _):
        url = f"http://user:{URL_PASSWORD}@{base.removeprefix('http://')}/calc.git"
        with RepositoryCache(tmp_path / "cache") as cache:
            mirror = cache.open(url).path
        git(mirror, "config", "remote.origin.url", url)  # what an older version left
        with RepositoryCache(tmp_path / "cache") as cache:
            assert cache.open(url).read(shas[0], "calc.py") == "x = 1\n"
    assert URL_PASSWORD not in (mirror / "config").read_text()


# -- through the plugin -------------------------------------------------------------------

NOWHERE = """
## Cursor Position

```calc.py
def nowhere_in_the_file(x):
#                        ^[CURSOR_POSITION]
```

## Expected Patch

```diff
--- a/calc.py
+++ b/calc.py
@@ -1,1 +1,1 @@
-def add(a, b):
+def add(a, b, c):
```
"""

BROKEN_PROVIDER = '''
import pytest
from pytest_editpred.providers._fim import LlamaCppInfill


class Broken(LlamaCppInfill):
    """A provider plugin with a bug: an unexpected error with the key in reach."""

    def headers(self, key):
        api_key = key
        raise RuntimeError("a bug in a provider plugin")


@pytest.fixture(scope="session")
def editpred_completion(editpred_settings):
    return Broken(editpred_settings).complete
'''


def _credentialed(project: Project, name: str, body: str, url: str) -> Path:
    path = project.example(name, body)
    path.write_text(path.read_text().replace(project.url, url, 1))
    return path


def _outputs(root: Path) -> Iterator[Path]:
    """Every file a run wrote: reports, caches, mirrors, logs (not the inputs)."""
    for path in root.rglob("*"):
        if path.is_file() and "upstream" not in path.parts and "evals" not in path.parts:
            yield path


def _leaks(result: pytest.RunResult, root: Path) -> tuple[list[str], int]:
    """Where any secret is found (the terminal, a file), and how many files were read."""
    text = result.stdout.str() + result.stderr.str()
    found = [f"{secret} in the terminal" for secret in (KEY, URL_PASSWORD, URL_TOKEN) if secret in text]
    checked = 0
    for path in _outputs(root):
        data = path.read_bytes()
        found += [f"{secret} in {path}" for secret in (KEY, URL_PASSWORD, URL_TOKEN) if secret.encode() in data]
        checked += 1
    return found, checked


@pytest.mark.xdist
def test_no_secret_reaches_any_output_of_a_failing_run(
    project: Project, llm_server: LLMServer, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key the server echoes, a URL with a password and one with a token, under
    failures, errors, --showlocals and every report: grep everything written."""
    monkeypatch.setenv(KEY_ENV, KEY)
    with_password = f"https://user:{URL_PASSWORD}@github.com/acme/calc"
    with_token = f"https://{URL_TOKEN}@github.com/acme/calc"
    _credentialed(project, "calc--echo", SUB, with_password)
    _credentialed(project, "calc--envelope", SUB, with_token)
    _credentialed(project, "calc--refused", SUB, with_password)
    _credentialed(project, "calc--nowhere", NOWHERE, with_token)  # a scene ERROR quoting the URL
    llm_server.answer(lambda request: WRONG + f"  # {request.headers.get('authorization')}")
    llm_server.raw(lambda request: f'{{"content_missing": "{request.headers.get("authorization")}"}}'.encode())
    llm_server.fail(401, message=f"invalid api key {KEY}")
    files = project.pytester.path
    out = files / "out"
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=llamacpp-infill",
        f"--editpred-base-url={llm_server.url}",
        f"--editpred-api-key-env={KEY_ENV}",
        f"--editpred-response-cache-dir={files / 'responses'}",
        f"--junitxml={out / 'j.xml'}",
        f"--editpred-report={out / 'r.jsonl'}",
        f"--editpred-html={out / 'r.html'}",
        f"--editpred-summary-json={out / 's.json'}",
        "--showlocals",
        "-rA",
        "-vv",
        *plugin_args,
    )
    result.assert_outcomes(failed=2, errors=2)
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in llm_server.requests)
    assert REDACTED in (out / "r.jsonl").read_text()  # the echo was there, and hidden
    assert {p.name for p in out.iterdir()} >= {"j.xml", "r.jsonl", "r.html", "s.json"}
    assert list((files / "responses").rglob("*.json")), "the echoed answer was cached (redacted)"
    assert list((files / ".editpred-cache").rglob("config")), "the mirror exists"
    leaks, checked = _leaks(result, files)
    assert not leaks and checked > 10


@pytest.mark.xdist
def test_showlocals_never_prints_the_key_of_an_unexpected_error(
    project: Project, llm_server: LLMServer, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    _credentialed(project, "calc--sub", SUB, f"https://user:{URL_PASSWORD}@github.com/acme/calc")
    project.pytester.makeconftest(BROKEN_PROVIDER)
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=llamacpp-infill",
        f"--editpred-base-url={llm_server.url}",
        f"--editpred-api-key-env={KEY_ENV}",
        "--showlocals",
        "--tb=long",
        *plugin_args,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*RuntimeError: a bug in a provider plugin*", "*api_key*= ****"])
    assert not _leaks(result, project.pytester.path)[0]
    assert not llm_server.requests
