"""The ``lsp`` source with real language servers on real repositories made here:
basedpyright, vtsls and gopls answer ``textDocument/definition`` and the definitions
found in another file become excerpts; a server is reused by the examples of one
revision and leaves no process behind; a missing, crashing or hanging server is said
once, in bounded time, and its examples get ``[]``.

rust-analyzer cannot be installed on the machines these tests run on (it downloads
a toolchain component), so Rust is tested with recorded answers only
(``test_retrieval_lsp.py``) and through a missing server here.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from gitrepos import make_repo
from test_retrieval_lsp import ANIMALS, MAIN, W6_OUTPUT

from pytest_editpred.example import Example
from pytest_editpred.retrieval.lsp import SERVERS, LanguageServers, ServerSpec
from pytest_editpred.scene import RepositoryCache, Scene, build_scene
from pytest_editpred.zeta import RelatedFile

MARK = "<|user_cursor|>"


def scene_of(
    tmp_path: Path, name: str, files: dict[str, str], cursor_path: str, before: str, history: str = ""
) -> Scene:
    """A scene of a new repository ``name`` holding ``files``, the cursor in
    ``cursor_path`` just before the first occurrence of ``before`` (after ``history``)."""
    repo, [sha] = make_repo(tmp_path / "repos", files, name=name)
    url = f"https://github.com/acme/{name}"
    return scene_at(tmp_path, url, repo, sha, files, cursor_path, before, history)


def scene_at(
    tmp_path: Path,
    url: str,
    repo: Path,
    sha: str,
    files: dict[str, str],
    cursor_path: str,
    before: str,
    history: str = "",
    text: str | None = None,
) -> Scene:
    text = files[cursor_path] if text is None else text
    at = text.index(before)
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    excerpt = text[line_start:at] + MARK + text[at : line_end if line_end != -1 else len(text)]
    example = Example(
        name=f"at {before}",
        repository_url=url,
        revision=sha,
        cursor_path=cursor_path,
        cursor_position=excerpt,
        edit_history=history,
    )
    return build_scene(example, RepositoryCache(tmp_path / "cache", {url: repo}))


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# -------------------------------------------------------------------- basedpyright

ZOO = {"animals.py": ANIMALS, "main.py": MAIN}


@pytest.mark.slow
def test_basedpyright_reproduces_w6_and_is_reused_at_one_revision(tmp_path: Path) -> None:
    repo, [sha] = make_repo(tmp_path / "repos", ZOO, name="zoo")
    url = "https://github.com/acme/zoo"
    first = scene_at(tmp_path, url, repo, sha, ZOO, "main.py", "print")
    # a second example at the revision: the history changes main.py in memory
    history = (
        "--- a/main.py\n+++ b/main.py\n@@ -1,6 +1,7 @@\n"
        "-from animals import make_dog\n+from animals import Animal, make_dog\n \n \n def greet(name):\n"
        "     dog = make_dog(name)\n+    pet = Animal(name)\n     print(dog.speak())\n"
    )
    edited = MAIN.replace("import make_dog", "import Animal, make_dog").replace(
        "    print", "    pet = Animal(name)\n    print"
    )
    second = scene_at(tmp_path, url, repo, sha, ZOO, "main.py", "Animal(", history, text=edited)
    assert second.buffers["main.py"] == edited
    with LanguageServers() as servers:
        assert servers(first) == W6_OUTPUT
        [pid] = servers.pids
        files = servers(second)
        assert servers.pids == [pid]  # the same process
        animals = next(file for file in files if file.path == "zoo/animals.py")
        # Animal (rows 0-5) is found: the server saw the edited buffer, not the disk
        assert animals.excerpts[0].text.startswith("class Animal:\n")
        assert servers.messages == []
        # nothing was written to the shared worktree
        assert (first.worktree() / "main.py").read_text() == MAIN
    assert servers.pids == []
    assert gone(pid)


# ------------------------------------------------------------------ vtsls, gopls

SHOP = {
    "tsconfig.json": '{"compilerOptions": {"strict": true}}\n',
    "src/money.ts": (
        "export interface Money {\n  cents: number;\n}\n\n"
        "export function format(m: Money): string {\n  return `${m.cents / 100}`;\n}\n"
    ),
    "src/main.ts": (
        "import { format, Money } from './money';\n\n"
        "const price: Money = { cents: 250 };\nconsole.log(format(price));\n"
    ),
}


def excerpt_texts(files: list[RelatedFile], path: str) -> list[str]:
    return [excerpt.text for file in files if file.path == path for excerpt in file.excerpts]


@pytest.mark.slow
def test_vtsls_finds_definitions_in_another_file(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "shop", SHOP, "src/main.ts", "console")
    with LanguageServers() as servers:
        files = servers(scene)
        assert servers.messages == []
    [money] = excerpt_texts(files, "shop/src/money.ts")
    assert "export interface Money {" in money and "export function format(m: Money): string {" in money


CALC = {
    "go.mod": "module example.com/calc\n\ngo 1.20\n",
    "ops/ops.go": "package ops\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
    "main.go": (
        'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/calc/ops"\n)\n\n'
        "func main() {\n\tfmt.Println(ops.Add(1, 2))\n}\n"
    ),
}


@pytest.mark.slow
def test_gopls_finds_definitions_in_another_file(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "calc", CALC, "main.go", "fmt.Println")
    with LanguageServers() as servers:
        files = servers(scene)
        assert servers.messages == []
    assert excerpt_texts(files, "calc/ops/ops.go") == ["func Add(a, b int) int {\n\treturn a + b\n}"]


# ------------------------------------------------------- missing, crashing, hanging


def pool_with(tmp_path: Path, script: str | None, **timeouts: float) -> LanguageServers:
    """A pool whose only PATH directory holds ``script`` as basedpyright's command."""
    folder = tmp_path / "bin"
    folder.mkdir()
    if script is not None:
        command = folder / SERVERS["basedpyright"].argv[0]
        command.write_text(script)
        command.chmod(0o755)
    return LanguageServers(path=str(folder), **timeouts)


def test_a_missing_server_is_said_once_and_gives_empty_lists(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "zoo", ZOO, "main.py", "print")
    with pool_with(tmp_path, None) as servers:
        assert servers(scene) == []
        assert servers(scene) == []
        assert servers.messages == [
            "basedpyright not found: pip install 'pytest-editpred[lsp]'; lsp context is empty for its files"
        ]


def test_a_file_with_no_server_gives_an_empty_list_and_no_message(tmp_path: Path) -> None:
    servers = LanguageServers(servers={})
    assert servers(scene_of(tmp_path, "zoo", ZOO, "main.py", "print")) == []
    assert servers.messages == [] and servers.pids == []


def test_rust_analyzer_missing_is_said_with_its_fix(tmp_path: Path) -> None:
    scene = scene_of(tmp_path, "kv", {"src/lib.rs": "fn a() -> u32 {\n    b()\n}\n"}, "src/lib.rs", "b()")
    with LanguageServers(path=str(tmp_path)) as servers:
        assert servers(scene) == []
    assert servers.messages == [
        "rust-analyzer not found: rustup component add rust-analyzer; lsp context is empty for its files"
    ]


def test_a_server_that_exits_at_once_is_said_once(tmp_path: Path) -> None:
    script = "#!/bin/sh\necho 'boom: no config' >&2\nexit 3\n"
    worktree = tmp_path / "zoo"
    worktree.mkdir()
    started = time.monotonic()
    with pool_with(tmp_path, script, start_timeout=20) as servers:
        for _ in range(2):
            got = servers.related_files(
                worktree=worktree,
                cursor_path="main.py",
                text=MAIN,
                cursor_offset=77,
                root_name="zoo",
                open_file=ZOO.get,
            )
            assert got == []
        [message] = servers.messages
    assert time.monotonic() - started < 20
    assert message.startswith("basedpyright exited (code 3): boom: no config: killed")
    assert "pip install 'pytest-editpred[lsp]'" in message


def test_a_server_that_never_answers_initialize_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = f"#!/bin/sh\necho $$ > {pidfile}\nexec {shutil.which('cat')} > /dev/null\n"
    worktree = tmp_path / "zoo"
    worktree.mkdir()
    started = time.monotonic()
    with pool_with(tmp_path, script, start_timeout=1) as servers:
        for _ in range(2):
            got = servers.related_files(
                worktree=worktree,
                cursor_path="main.py",
                text=MAIN,
                cursor_offset=77,
                root_name="zoo",
                open_file=ZOO.get,
            )
            assert got == []
        assert servers.messages == [
            "basedpyright did not answer 'initialize' within 1 s: killed (fix the server, or "
            "pip install 'pytest-editpred[lsp]'); lsp context is empty for its files"
        ]
    assert time.monotonic() - started < 15
    assert gone(int(pidfile.read_text()))


#: A server that initializes, then does ``MODE`` on its first definition request:
#: ``hang`` (never answers) or ``exit`` (exits with code 5).
FAKE_SERVER = """\
import json, os, sys
open(sys.argv[1], "w").write(str(os.getpid()))
def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line.startswith(b"Content-Length:"):
            length = int(line.split(b":")[1])
        elif line in (b"\\r\\n", b"\\n"):
            return json.loads(sys.stdin.buffer.read(length))
def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
    sys.stdout.buffer.flush()
while True:
    message = read()
    if message.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"definitionProvider": True}}})
    elif message.get("method") == "textDocument/definition":
        if sys.argv[2] == "exit":
            print("definition: crashed", file=sys.stderr)
            sys.exit(5)
"""


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("hang", "basedpyright did not answer 'textDocument/definition' within 1 s: killed"),
        ("exit", "basedpyright exited (code 5): definition: crashed: killed"),
    ],
)
def test_a_server_that_hangs_or_dies_on_a_request(tmp_path: Path, mode: str, said: str) -> None:
    pidfile = tmp_path / "pid"
    fake = tmp_path / "fake_server.py"
    fake.write_text(FAKE_SERVER)
    script = f"#!/bin/sh\nexec {sys.executable} {fake} {pidfile} {mode}\n"
    worktree = tmp_path / "zoo"
    worktree.mkdir()
    started = time.monotonic()
    with pool_with(tmp_path, script, start_timeout=20, request_timeout=1) as servers:
        for _ in range(2):
            got = servers.related_files(
                worktree=worktree,
                cursor_path="main.py",
                text=MAIN,
                cursor_offset=77,
                root_name="zoo",
                open_file=ZOO.get,
            )
            assert got == []
        [message] = servers.messages
        assert servers.pids == []
    assert time.monotonic() - started < 20
    assert message.startswith(said)
    assert gone(int(pidfile.read_text()))


def test_a_custom_server_spec_is_started_with_its_environment(tmp_path: Path) -> None:
    """``ServerSpec.env`` reaches the process (gopls gets GOPROXY=off this way)."""
    seen = tmp_path / "env"
    folder = tmp_path / "bin"
    folder.mkdir()
    command = folder / "fake-ls"
    command.write_text(f'#!/bin/sh\necho "$EDITPRED_TEST_VALUE" > {seen}\nexit 1\n')
    command.chmod(0o755)
    spec = ServerSpec("fake", ("fake-ls",), frozenset({"python"}), "no fix", {"EDITPRED_TEST_VALUE": "set"})
    worktree = tmp_path / "w"
    worktree.mkdir()
    with LanguageServers(servers={"fake": spec}, path=str(folder)) as servers:
        servers.related_files(
            worktree=worktree,
            cursor_path="m.py",
            text="x = 1\n",
            cursor_offset=0,
            root_name="w",
            open_file=lambda p: None,
        )
    assert seen.read_text() == "set\n"
    assert servers.messages[0].startswith("fake exited (code 1)")
