"""``editpred prompt``: what it prints is what a run sends.

Each format is run for real (the plugin, in-process, against the loopback model
server of ``llm_server``, which records the raw bytes of every request body), then
``editpred prompt`` is asked for the same example with the same settings: ``--json``
must print those bytes exactly, and the prompt text must be the prompt in them.
The repositories are real git repositories made in the test's folder, and Zed's own
example files are used where they are (``zed_examples.ZED``).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401
from zed_examples import FLASK_BUNDLE, FLASK_URL, ZED

from conftest import CALC, SUB, Project
from pytest_editpred.cli import main
from pytest_editpred.zeta import ZetaFormat

# (provider, --editpred-prompt-format, model): every prompt the project can send. Each
# is a child run (2-3 s here): Zed's variants beyond the aliases' are the slow share.
ALIASED = ("V0211SeedCoder", "V0318SeedMultiRegions", "V0615HashRegions")
FORMATS = [
    *[("openai", name, "served") for name in ("zeta", "zeta2", "zeta2.1", "sweep")],
    *[
        pytest.param("openai", variant.name, "served", marks=() if variant.name in ALIASED else pytest.mark.slow)
        for variant in ZetaFormat
    ],
    ("openai", "infer", "sweep-next-edit-1.5b"),  # the Sweep prompt, inferred from the model's name
    ("openai-chat", "infer", "served"),  # the plain chat prompt
    ("openai-chat", "teacher", "served"),
    ("openai-chat", "teacher-jumps", "served"),
    ("anthropic", "teacher", "claude"),
    ("anthropic", "teacher-jumps", "claude"),
    ("llamacpp-infill", "infer", "served"),
    ("mistral-fim", "infer", "served"),
]


def editpred(capsysbinary: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, bytes, str]:
    """``editpred ARGV`` in this process: its status, standard output's exact bytes, standard error."""
    capsysbinary.readouterr()
    status = main(list(argv))
    out, err = capsysbinary.readouterr()
    return status, out, err.decode()


def prompt_in(path: str, body: dict[str, Any]) -> str:
    """The prompt in a recorded request body, as ``editpred prompt`` says it prints it:
    a raw prompt as it is, chat messages and named parts each under a ``[name]`` line,
    separated by a blank line, Anthropic's one user message as its text."""
    if path == "/v1/messages":
        [message] = body["messages"]
        return str(message["content"])
    if path == "/v1/chat/completions":
        return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in body["messages"])
    if path == "/infill":
        return f"[input_prefix]\n{body['input_prefix']}\n\n[input_suffix]\n{body['input_suffix']}"
    if path == "/v1/fim/completions":
        return f"[prompt]\n{body['prompt']}\n\n[suffix]\n{body['suffix']}"
    return str(body["prompt"])


def sent_by_a_run(pytester: pytest.Pytester, server: LLMServer, *args: str) -> tuple[str, bytes, dict[str, Any]]:
    """The one request a real run sends: its path, raw body bytes and parsed body."""
    server.answer("")  # whatever the answer: only the request matters here
    pytester.runpytest(*args, f"--editpred-base-url={server.url}", "--editpred-cache=off", "-p", "no:cacheprovider")
    [seen] = server.requests
    return seen.path, seen.raw, seen.body


def with_related_files(project: Project) -> Path:
    """``SUB`` as a JSON example whose prompt inputs carry retrieved context (an
    excerpt of the cursor file): V0615HashRegions builds its prompt from it alone."""
    from pytest_editpred import from_markdown, to_json

    path = project.example("calc--sub", SUB)
    record = to_json(from_markdown(path.read_text(), path))
    path.unlink()
    excerpt = {"row_range": {"start": 0, "end": 8}, "text": CALC + "\n\ndef sub(a, b):\n"}
    record["prompt_inputs"] = {"related_files": [{"path": "calc.py", "max_row": 8, "excerpts": [excerpt]}]}
    json_path = path.with_suffix(".json")
    json_path.write_text(json.dumps(record))
    return json_path


@pytest.mark.parametrize("provider,prompt_format,model", FORMATS, ids=lambda value: str(value))
def test_every_format_prints_what_a_run_sends(
    project: Project,
    llm_server: LLMServer,
    capsysbinary: pytest.CaptureFixture[bytes],
    provider: str,
    prompt_format: str,
    model: str,
) -> None:
    example = with_related_files(project) if prompt_format == "V0615HashRegions" else project.example("calc--sub", SUB)
    options = [
        f"--editpred-provider={provider}",
        f"--editpred-prompt-format={prompt_format}",
        f"--editpred-model={model}",
    ]
    path, raw, body = sent_by_a_run(project.pytester, llm_server, "evals", *options)

    status, out, err = editpred(capsysbinary, "prompt", str(example), *options, "--json")
    assert (status, err) == (0, "")
    assert out == raw + b"\n"

    status, out, err = editpred(capsysbinary, "prompt", str(example), *options)
    assert (status, err) == (0, "")
    assert out == prompt_in(path, body).encode()  # byte for byte, no newline added
    assert out  # a prompt was shown, not nothing


INI_FILES = {
    "tox.ini": """
        [pytest]
        editpred_cache_dir = .editpred-cache
        editpred_repos =
            {url} = upstream/repo
        editpred_provider = openai
        editpred_model = from-the-ini
        editpred_prompt_format = zeta2.1
        editpred_max_tokens = 77
        editpred_temperature = 0.5
        editpred_stop =
            STOP-ONE
            STOP-TWO
        editpred_extra_body = {{"top_p": 0.25, "seed": 7}}
        """,
    # TOML's own types: numbers, lists
    "pyproject.toml": """
        [tool.pytest.ini_options]
        editpred_cache_dir = ".editpred-cache"
        editpred_repos = ["{url} = upstream/repo"]
        editpred_provider = "openai"
        editpred_model = "from-the-ini"
        editpred_prompt_format = "zeta2.1"
        editpred_max_tokens = 77
        editpred_temperature = 0.5
        editpred_stop = ["STOP-ONE", "STOP-TWO"]
        editpred_extra_body = '{{"top_p": 0.25, "seed": 7}}'
        """,
}


@pytest.mark.parametrize("ini_name", INI_FILES)
def test_the_ini_file_a_run_reads_is_read(
    project: Project, llm_server: LLMServer, capsysbinary: pytest.CaptureFixture[bytes], ini_name: str
) -> None:
    """Provider, model, format, sampling options and extra_body from the ini file, the
    repository mapping and cache too: nothing on either command line but the example."""
    (project.pytester.path / "tox.ini").unlink()  # the Project's own
    ini = textwrap.dedent(INI_FILES[ini_name]).format(url=project.url)
    (project.pytester.path / ini_name).write_text(ini)
    example = project.example("calc--sub", SUB)
    _, raw, body = sent_by_a_run(project.pytester, llm_server, "evals")
    assert body["model"] == "from-the-ini" and body["top_p"] == 0.25 and body["max_tokens"] == 77
    assert body["stop"][:2] == ["STOP-ONE", "STOP-TWO"]
    status, out, err = editpred(capsysbinary, "prompt", str(example), "--json")
    assert (status, err, out) == (0, "", raw + b"\n")

    # The command line wins over the ini file, as in a run.
    llm_server.requests.clear()
    override = ["--editpred-model=from-the-command-line", "--editpred-max-tokens=5", "--editpred-stop=X"]
    _, raw, body = sent_by_a_run(project.pytester, llm_server, "evals", *override)
    assert body["model"] == "from-the-command-line" and body["stop"][0] == "X"
    status, out, err = editpred(capsysbinary, "prompt", str(example), "--json", *override)
    assert (status, err, out) == (0, "", raw + b"\n")


def test_where_zed_sends_nothing_it_says_so_as_the_run_does(
    project: Project, llm_server: LLMServer, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """V0615HashRegions without retrieved context: Zed builds no prompt, a run sends
    nothing and fails the item; the command says why in one line, exit status 1."""
    example = project.example("calc--sub", SUB)
    options = ["--editpred-provider=openai", "--editpred-model=m", "--editpred-prompt-format=V0615HashRegions"]
    options.append("--editpred-no-retrieval")  # no related files: lsp would find calc.py, where the cursor is
    llm_server.answer("")
    result = project.pytester.runpytest("evals", *options, f"--editpred-base-url={llm_server.url}")
    result.stdout.fnmatch_lines(["*Zed sends no prompt here: the V0615HashRegions prompt*"])
    assert llm_server.requests == []
    status, out, err = editpred(capsysbinary, "prompt", str(example), *options)
    assert (status, out) == (1, b"")
    [line] = err.splitlines()
    assert line.startswith(f"{example}:1: Zed sends no prompt here: the V0615HashRegions prompt")


@pytest.fixture(scope="module")
def flask_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository cache for the module: the flask bundle is cloned once."""
    return tmp_path_factory.mktemp("flask-cache")


# (Zed's example, provider, format, text near its cursor every prompt holds). The
# flask one: a 1,893-line cursor file in the real flask history; hello-world: an
# accepted prediction in its history, its repository the bundle the package ships.
ZED_CASES = [
    ("flask--add-test-function.md", "openai", "zeta2.1", "def test_static_url_path():"),
    ("flask--add-test-function.md", "openai", "zeta", "def test_static_url_path():"),
    ("flask--add-test-function.md", "openai-chat", "teacher", "def test_static_url_path():"),
    ("hello-world--rename-accepted-group-by.md", "openai", "zeta2", "function groupByCat"),
    ("hello-world--rename-accepted-group-by.md", "anthropic", "teacher-jumps", "function groupByCat"),
]


@pytest.mark.parametrize("name,provider,prompt_format,near_cursor", ZED_CASES)
def test_zeds_examples_in_place(
    pytester: pytest.Pytester,
    llm_server: LLMServer,
    capsysbinary: pytest.CaptureFixture[bytes],
    flask_cache: Path,
    name: str,
    provider: str,
    prompt_format: str,
    near_cursor: str,
) -> None:
    """Zed's real example files, read where they are."""
    example = ZED / name
    assert example.is_file() and FLASK_BUNDLE.is_file(), f"missing {example} or {FLASK_BUNDLE}"
    options = [
        f"--editpred-repo={FLASK_URL}={FLASK_BUNDLE}",
        f"--editpred-cache-dir={flask_cache}",
        f"--editpred-provider={provider}",
        f"--editpred-prompt-format={prompt_format}",
        "--editpred-model=served",
    ]
    path, raw, body = sent_by_a_run(pytester, llm_server, str(example), f"--rootdir={pytester.path}", *options)
    status, out, err = editpred(capsysbinary, "prompt", str(example), *options, "--json")
    assert (status, err, out) == (0, "", raw + b"\n")
    status, out, err = editpred(capsysbinary, "prompt", str(example), *options)
    assert (status, err) == (0, "")
    assert out == prompt_in(path, body).encode()
    assert near_cursor in out.decode()


# -- several examples ---------------------------------------------------------------


def test_several_examples_each_under_a_header(project: Project, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    first = project.example("calc--sub", SUB)
    second = project.example("calc--sub-again", SUB)
    options = ["--editpred-provider=openai", "--editpred-model=m", "--editpred-prompt-format=zeta2"]
    prompts = []
    for example in (first, second):
        status, out, _ = editpred(capsysbinary, "prompt", str(example), *options)
        assert status == 0 and b"==>" not in out
        prompts.append(out)
    status, out, err = editpred(capsysbinary, "prompt", str(first), str(second), *options)
    assert (status, err) == (0, "")
    # head's layout: a header line, the prompt as it is, a newline before the next header.
    assert out == (f"==> {first} <==\n".encode() + prompts[0] + f"\n==> {second} <==\n".encode() + prompts[1])
    status, out, err = editpred(capsysbinary, "prompt", str(first), str(second), *options, "--json")
    assert status == 0
    bodies = [json.loads(line) for line in out.decode().split("\n")[:-1]]
    assert [body["prompt"] for body in bodies] == [p.decode() for p in prompts]


def test_a_jsonl_file_names_each_line_as_its_item(project: Project, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A ``.jsonl`` file of two examples (the second's name repeats the first's):
    headers name them ``FILE::ID`` as pytest's node ids do, numbered alike."""
    from pytest_editpred import from_markdown, to_json

    path = project.example("calc--sub", SUB)
    record = to_json(from_markdown(path.read_text(), path))
    path.unlink()
    corpus = project.pytester.path / "evals" / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(dict(record, name="swap")) for _ in range(2)) + "\n")
    status, out, err = editpred(
        capsysbinary, "prompt", str(corpus), "--editpred-provider=mistral-fim", "--editpred-model=m"
    )
    assert (status, err) == (0, "")
    headers = [line for line in out.decode().split("\n") if line.startswith("==> ")]
    assert headers == [f"==> {corpus}::swap <==", f"==> {corpus}::swap-2 <=="]


# -- what cannot be shown -----------------------------------------------------------

OPENAI = ["--editpred-provider=openai", "--editpred-model=m"]


@pytest.mark.parametrize(
    "argv,message",
    [
        (["nothere.md", *OPENAI], "nothere.md: cannot read it: No such file or directory (Name an example file*"),
        (["tox.ini", *OPENAI], "tox.ini: is not an example file (Name a .md, .json or .jsonl example.)"),
        (["evals", *OPENAI], "evals: is a folder, not an example file (Name the example files*"),
        (
            ["evals/calc--sub.md", *OPENAI, "--editpred-prompt-format=V9999Nothing"],
            "editpred prompt: unknown prompt format for provider 'openai': `V9999Nothing` did not match any of*",
        ),
        (["evals/calc--sub.md", "--editpred-provider=gpt-please"], "editpred prompt: unknown provider 'gpt-please'*"),
        (
            ["evals/calc--sub.md", "--editpred-provider=openai"],
            "editpred prompt: provider 'openai' needs a model name*",
        ),
        (["evals/calc--sub.md", *OPENAI, "--editpred-max-tokens=0"], "editpred prompt: --editpred-max-tokens is 0*"),
        (["evals/calc--sub.md", *OPENAI, "--editpred-extra-body=[1]"], "editpred prompt: --editpred-extra-body*"),
        # The run's default provider, and the others that ask no model: nothing to show.
        (["evals/calc--sub.md"], "editpred prompt: provider 'baseline' sends no prompt*(*openai-chat*)"),
        (["evals/calc--sub.md", "--editpred-provider=oracle"], "editpred prompt: provider 'oracle' sends no prompt*"),
        (["evals/calc--sub.md", "--editpred-provider=replay"], "editpred prompt: provider 'replay' sends no prompt*"),
    ],
    ids=[
        "missing",
        "not-an-example",
        "folder",
        "format",
        "provider",
        "no-model",
        "bad-number",
        "bad-json",
        "baseline",
        "oracle",
        "replay",
    ],
)
def test_a_usage_error_is_one_line_and_status_2(
    project: Project, capsysbinary: pytest.CaptureFixture[bytes], argv: list[str], message: str
) -> None:
    import fnmatch

    project.example("calc--sub", SUB)
    status, out, err = editpred(capsysbinary, "prompt", *argv)
    assert (status, out) == (2, b"")
    [line] = err.splitlines()
    assert fnmatch.fnmatch(line, message), line


def test_a_context_only_run_sends_no_prompt(project: Project, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    example = project.example("calc--sub", SUB)
    ini = project.pytester.path / "tox.ini"
    ini.write_text(ini.read_text() + "\neditpred_context_only = true\n")
    status, out, err = editpred(capsysbinary, "prompt", str(example), *OPENAI)
    assert (status, out) == (2, b"")
    [line] = err.splitlines()
    assert line.startswith(f"editpred prompt: ini editpred_context_only is set in {ini}: a run scores the context")


def test_an_example_that_cannot_be_shown_is_one_line_and_the_others_print(
    project: Project, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    good = project.example("calc--sub", SUB)
    no_revision = project.pytester.path / "evals" / "no-revision.md"
    no_revision.write_text(f'+++\nrepository_url = "{project.url}"\n+++\n\n' + textwrap.dedent(SUB))
    elsewhere = project.pytester.path / "evals" / "elsewhere.md"
    elsewhere.write_text(
        good.read_text().replace(project.url, "https://github.com/acme/not-mapped")
    )  # never fetched: the command does not touch the network
    status, out, err = editpred(capsysbinary, "prompt", str(no_revision), str(good), str(elsewhere), *OPENAI)
    assert status == 1
    first, second = err.splitlines()
    assert first.startswith(f"{no_revision}:") and "revision" in first
    assert second.startswith(f"{elsewhere}:") and "github.com/acme/not-mapped is not in the repository cache" in second
    assert "editpred prompt forbids fetching it" in second and "--editpred-repo" in second
    status_alone, alone, _ = editpred(capsysbinary, "prompt", str(good), *OPENAI)
    assert status_alone == 0
    assert out == f"==> {good} <==\n".encode() + alone  # the good one, under its header


def test_a_conftests_own_completion_sends_no_provider_prompt(
    project: Project, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A run answers the examples under a ``conftest.py`` that overrides
    ``editpred_completion`` with that function, not the provider: the command says so."""
    answered = project.example("calc--sub", SUB, folder="evals/own")
    (answered.parent / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture(scope='session')\ndef editpred_completion():\n    return None\n"
    )
    status, out, err = editpred(capsysbinary, "prompt", str(answered), *OPENAI)
    assert (status, out) == (2, b"")
    [line] = err.splitlines()
    assert line.startswith(f"{answered}: {answered.parent / 'conftest.py'}:5 defines its own editpred_completion")
    assert "not provider 'openai'" in line

    plain = project.example("calc--sub", SUB)
    status, out, err = editpred(capsysbinary, "prompt", str(answered), str(plain), *OPENAI)
    assert status == 1 and len(err.splitlines()) == 1
    assert out.startswith(f"==> {plain} <==\n".encode())
