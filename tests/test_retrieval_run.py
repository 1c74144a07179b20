"""Context retrieval where Zed's pipeline runs it (zed-context-retrieval.md §0): a run
whose provider builds Zed's prompts retrieves the related files of an example that
has none, caches them with the responses, and ``editpred context`` writes them into
the examples. Real git repositories, the real language servers (vtsls here: it lives
outside the venv, so a PATH without it is a machine without it), the loopback server.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from gitrepos import make_repo
from llm_server import LLMServer, llm_server_fixture  # noqa: F401
from test_retrieval_lsp_servers import SHOP

from pytest_editpred.cli import main
from pytest_editpred.example import from_jsonl, from_markdown, to_json

URL = "https://github.com/acme/shop"
EXAMPLE = """
## Edit History

```diff
--- a/src/main.ts
+++ b/src/main.ts
@@ -3,2 +3,3 @@
 const price: Money = { cents: 250 };
 console.log(format(price));
+const total: Money = { cents: price.cents * 2 };
```

## Cursor Position

```src/main.ts
const total: Money = { cents: price.cents * 2 };
#                                               ^[CURSOR_POSITION]
```

## Expected Patch

```diff
--- a/src/main.ts
+++ b/src/main.ts
@@ -5,1 +5,2 @@
 const total: Money = { cents: price.cents * 2 };
+console.log(format(total));
```
"""
# Zeta 2's prompt starts so; the related files come next, then the edit history.
HEAD = "<[fim-suffix]>\n<[fim-prefix]>"
RELATED = "<filename>shop/src/money.ts\n"


@pytest.fixture
def shop(pytester: pytest.Pytester) -> Path:
    """A project whose repository is the TypeScript ``shop``, with one example."""
    repo, [sha] = make_repo(pytester.path / "upstream", SHOP, name="shop")
    (pytester.path / "tox.ini").write_text(
        f"[pytest]\neditpred_cache_dir = .editpred-cache\neditpred_repos =\n    {URL} = {repo}\n"
    )
    return write_example(pytester.path / "evals" / "shop.md", sha)


def write_example(path: Path, sha: str, body: str = EXAMPLE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'+++\nrepository_url = "{URL}"\nrevision = "{sha}"\n+++\n\n' + textwrap.dedent(body).lstrip())
    return path


def args(server: LLMServer, *extra: str) -> list[str]:
    return [
        "evals",
        "--editpred-provider=openai",
        f"--editpred-base-url={server.url}",
        "--editpred-model=zeta-served",
        "--editpred-prompt-format=zeta2",
        *extra,
    ]


def prompts(server: LLMServer) -> list[str]:
    return [str(request.body["prompt"]) for request in server.requests]


def without_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH holds git and nothing else: no vtsls, no node (the venv's scripts are
    still searched, and hold no TypeScript server)."""
    bin_dir = tmp_path / "bin-git-only"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bin_dir))


def header(result: pytest.RunResult) -> str:
    [line] = [line for line in result.outlines if line.startswith("editpred: provider=")]
    return line


@pytest.mark.slow
def test_retrieval_on_and_off_differ_exactly_by_the_related_files(
    pytester: pytest.Pytester, shop: Path, llm_server: LLMServer
) -> None:
    llm_server.answer("")
    on = pytester.runpytest(*args(llm_server, "--editpred-cache=off"))
    off = pytester.runpytest(*args(llm_server, "--editpred-cache=off", "--editpred-no-retrieval"))
    assert "related files=retrieved (lsp) unless the example has them" in header(on)
    assert "related files=recently viewed/opened files (--editpred-no-retrieval)" in header(off)
    with_context, without = prompts(llm_server)
    assert with_context.startswith(HEAD + "<filename>shop/")
    related = with_context[len(HEAD) : with_context.index("<filename>edit_history")]
    assert RELATED in related
    assert "export function format(m: Money): string {" in related and "export interface Money {" in related
    assert without == HEAD + with_context[len(HEAD) + len(related) :]
    assert "context retrieval" not in on.stdout.str()  # vtsls answered: nothing to warn of


@pytest.mark.slow
def test_the_cache_replays_retrieval_without_any_server(
    pytester: pytest.Pytester, shop: Path, llm_server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.answer("")
    first_report, second_report = pytester.path / "first.jsonl", pytester.path / "second.jsonl"
    pytester.runpytest(*args(llm_server, f"--editpred-report={first_report}"))
    [sent] = prompts(llm_server)
    assert RELATED in sent
    without_servers(tmp_path, monkeypatch)
    replayed = pytester.runpytest(
        *args(llm_server, "--editpred-cache=replay-only", f"--editpred-report={second_report}")
    )
    [first] = [json.loads(line) for line in first_report.read_text().splitlines()]
    [second] = [json.loads(line) for line in second_report.read_text().splitlines()]
    # The model's answer came from the cache too: the request's bytes hashed alike.
    assert len(llm_server.requests) == 1 and second["cached"] is True
    assert second["prompt"] == first["prompt"] == sent and second["outcome"] == first["outcome"]
    assert "context retrieval" not in replayed.stdout.str()

    # An example whose context was never retrieved: its ERROR says so, once.
    write_example(pytester.path / "evals" / "other.md", shop.read_text().split('"')[3], EXAMPLE.replace("* 2", "* 3"))
    missing = pytester.runpytest(*args(llm_server, "--editpred-cache=replay-only"))
    missing.assert_outcomes(failed=1, errors=1)
    assert len([line for line in missing.outlines if "missing context: the related files" in line]) >= 1
    assert "cache is replay-only, so nothing was retrieved" in missing.stdout.str()


def test_a_missing_server_is_one_warning_and_zeds_empty_lsp_context(
    pytester: pytest.Pytester, shop: Path, llm_server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_example(pytester.path / "evals" / "other.md", shop.read_text().split('"')[3], EXAMPLE.replace("* 2", "* 3"))
    llm_server.answer("")
    without_servers(tmp_path, monkeypatch)
    on = pytester.runpytest(*args(llm_server, "--editpred-cache=off"))
    pytester.runpytest(*args(llm_server, "--editpred-cache=off", "--editpred-no-retrieval"))
    warnings = [line for line in on.outlines if "context retrieval" in line]
    assert warnings == [
        "editpred warning: context retrieval: vtsls not found: npm install -g @vtsls/language-server; "
        "lsp context is empty for its files"
    ]
    sent = prompts(llm_server)
    assert len(sent) == 4 and sorted(sent[:2]) == sorted(sent[2:])  # no related file, as with retrieval off
    assert all("<filename>shop/" not in prompt for prompt in sent)


@pytest.mark.parametrize("carried", [[], "own"])
def test_an_example_that_carries_related_files_keeps_them(
    pytester: pytest.Pytester, shop: Path, llm_server: LLMServer, carried: object
) -> None:
    own = [
        {"path": "shop/notes.txt", "max_row": 1, "excerpts": [{"row_range": {"start": 0, "end": 1}, "text": "NOTE\n"}]}
    ]
    data = to_json(from_markdown(shop.read_text(), shop))
    data["prompt_inputs"] = {"related_files": own if carried == "own" else []}
    shop.unlink()
    (shop.parent / "shop.json").write_text(json.dumps(data))
    llm_server.answer("")
    pytester.runpytest(*args(llm_server, "--editpred-cache=off"))
    [prompt] = prompts(llm_server)
    assert "money.ts" not in prompt  # never retrieved (vtsls would find money.ts)
    if carried == "own":
        assert prompt.startswith(HEAD + "<filename>shop/notes.txt\nNOTE\n")
    else:
        assert prompt.startswith(HEAD + "<filename>edit_history")


def test_the_retrieval_options_are_checked(pytester: pytest.Pytester, shop: Path, llm_server: LLMServer) -> None:
    result = pytester.runpytest(*args(llm_server, "--editpred-retrieval-type=lsp,bogus"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [line] = [line for line in result.errlines if "editpred" in line]
    assert "--editpred-retrieval-type: unknown context type 'bogus'" in line
    # The ini key takes the same values; --editpred-no-retrieval wins over it.
    ini = pytester.path / "tox.ini"
    ini.write_text(ini.read_text() + "editpred_retrieval_type = current-file\n")
    llm_server.answer("")
    current = pytester.runpytest(*args(llm_server, "--editpred-cache=off"))
    assert "related files=retrieved (current-file)" in header(current)
    off = pytester.runpytest(*args(llm_server, "--editpred-cache=off", "--editpred-no-retrieval"))
    assert "(--editpred-no-retrieval)" in header(off)
    with_file, without = prompts(llm_server)
    assert with_file.startswith(HEAD + "<filename>shop/src/main.ts\n") and without.startswith(
        HEAD + "<filename>edit_history"
    )


def test_context_only_scores_the_retrieved_context(
    pytester: pytest.Pytester, shop: Path, llm_server: LLMServer
) -> None:
    reports = []
    for extra in ("--editpred-retrieval-type=current-file", "--editpred-no-retrieval"):
        report = pytester.path / f"r{len(reports)}.jsonl"
        pytester.runpytest("evals", "--editpred-context-only", extra, f"--editpred-report={report}")
        [record] = [json.loads(line) for line in report.read_text().splitlines()]
        reports.append(record["metrics"])
    retrieved, none = reports
    assert retrieved["retrieved_context_bytes"] > 0 and not none.get("retrieved_context_bytes")
    assert retrieved["editable_context_coverage"]["files_tp"] == 1


# --------------------------------------------------------------- editpred context


def context(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["context", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_editpred_context_writes_related_files_that_load_and_round_trip(
    pytester: pytest.Pytester, shop: Path, capsys: pytest.CaptureFixture[str], llm_server: LLMServer
) -> None:
    out = pytester.path / "with-context.jsonl"
    status, stdout, err = context(capsys, str(shop), "-o", str(out), "--type", "current-file")
    assert status == 0 and err == "" and "context: 1 example written to" in stdout
    [example] = from_jsonl(out.read_text(), out)
    assert not isinstance(example, Exception) and example.related_files is not None
    [file] = example.related_files
    assert file.path == "shop/src/main.ts" and {e.source for e in file.excerpts} == {"current_file"}
    line = json.loads(out.read_text())
    assert set(line["prompt_inputs"]["related_files"][0]) == {"path", "max_row", "excerpts", "in_open_source_repo"}

    # Read again: they are kept (ep's rule), so the output is the input, byte for byte.
    again = pytester.path / "again.jsonl"
    assert context(capsys, str(out), "-o", str(again))[0] == 0
    assert again.read_bytes() == out.read_bytes()
    # --force retrieves anew; --type none is Zed's empty list.
    assert context(capsys, str(out), "-o", str(again), "--force", "--type", "none", "--overwrite")[0] == 0
    assert json.loads(again.read_text())["prompt_inputs"]["related_files"] == []

    # A later run shows them, with no server asked.
    (pytester.path / "evals" / "shop.md").unlink()
    shutil.copy(out, pytester.path / "evals" / "shop.jsonl")
    llm_server.answer("")
    pytester.runpytest(*args(llm_server, "--editpred-cache=off"))
    [prompt] = prompts(llm_server)
    assert prompt.startswith(HEAD + "<filename>shop/src/main.ts\n")


def test_editpred_context_bad_input_is_one_line_each(
    pytester: pytest.Pytester, shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = pytester.path / "out.jsonl"
    status, _, err = context(capsys, str(shop), "-o", str(out), "--type", "current-file,bogus")
    assert status == 2 and err.count("\n") == 1 and "unknown context type 'bogus'" in err
    status, _, err = context(capsys, str(shop), "-o", str(pytester.path / "folder"))
    assert status == 2 and err.count("\n") == 1 and "is not a .jsonl file" in err
    out.write_text("keep\n")
    status, _, err = context(capsys, str(shop), "-o", str(out), "--type", "current-file")
    assert status == 2 and "it exists" in err and "--overwrite" in err and out.read_text() == "keep\n"
    # An example whose revision is not there: one line, and the others are written.
    broken = write_example(pytester.path / "evals" / "broken.md", "0" * 40)
    status, stdout, err = context(capsys, str(shop), str(broken), "--type", "current-file")
    assert status == 1 and err.count(f"{broken}") == 1
    assert len(stdout.splitlines()) == 1 and json.loads(stdout)["name"]


@pytest.mark.slow
def test_editpred_context_asks_the_language_server_by_default(
    pytester: pytest.Pytester, shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, stdout, err = context(capsys, str(shop))
    assert status == 0, err
    files = json.loads(stdout)["prompt_inputs"]["related_files"]
    assert "shop/src/money.ts" in [file["path"] for file in files]
    assert all(e["context_source"] == "lsp" for file in files for e in file["excerpts"])
    assert os.path.exists(pytester.path / "upstream")


# ------------------------------------------------------------------ this repository's evals/

EVALS = Path(__file__).resolve().parent.parent / "evals"
FIXTURES = ("pyshapes", "rustkv", "tsinventory", "taskd")


def split_prompt(prompt: str, cursor_path: str) -> tuple[str, str, str]:
    """A Zeta 2 prompt as its suffix section, its related files section and what
    follows (the edit history, else the cursor file)."""
    head = prompt.index("<[fim-prefix]>") + len("<[fim-prefix]>")
    body = prompt[head:]
    at = body.find("<filename>edit_history\n")
    if at < 0:
        at = body.index(f"<filename>{cursor_path}\n")
    return prompt[:head], body[:at], body[at:]


@pytest.mark.slow
def test_the_evals_folder_with_retrieval_on_and_off_differs_only_by_the_related_files(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    from pytest_editpred.example import load_examples

    shutil.copytree(EVALS, pytester.path / "evals", ignore=shutil.ignore_patterns("src", "*.py"))
    mappings = "".join(
        f"    https://github.com/editpred-fixtures/{name} = {EVALS / 'repos' / name}.bundle\n" for name in FIXTURES
    )
    (pytester.path / "tox.ini").write_text(
        f"[pytest]\neditpred_cache_dir = .editpred-cache\neditpred_repos =\n{mappings}"
    )
    examples = [e for path in sorted((pytester.path / "evals").glob("*.md")) for e in load_examples(path)]
    llm_server.answer("")
    common = (
        "--editpred-cache=off",
        "--editpred-concurrency=1",
        "-p",
        "no:randomly",
        *map(str, sorted((pytester.path / "evals").glob("*.md"))),
    )
    on = pytester.runpytest(*args(llm_server, *common)[1:])
    sent_on = prompts(llm_server)
    pytester.runpytest(*args(llm_server, *common, "--editpred-no-retrieval")[1:])
    sent_off = prompts(llm_server)[len(sent_on) :]
    assert len(sent_on) == len(sent_off) == len(examples)
    changed = 0
    for example, with_context, without in zip(examples, sent_on, sent_off):
        assert not isinstance(example, Exception)
        head_on, related_on, rest_on = split_prompt(with_context, example.cursor_path)
        head_off, related_off, rest_off = split_prompt(without, example.cursor_path)
        assert head_on == head_off and rest_on == rest_off, example.name
        assert related_on == "" or related_on.startswith("<filename>"), example.name
        changed += related_on != related_off
    assert changed >= len(examples) // 2  # the servers found definitions for most
    # rust-analyzer cannot be installed here: said once, its examples get Zed's [].
    assert len([line for line in on.outlines if "context retrieval: rust-analyzer" in line]) <= 1


def test_editpred_prompt_shows_the_context_a_run_retrieves(
    pytester: pytest.Pytester, shop: Path, capsys: pytest.CaptureFixture[str], llm_server: LLMServer
) -> None:
    shown = []
    for extra in (["--editpred-retrieval-type", "current-file"], ["--editpred-no-retrieval"]):
        options = ["--editpred-provider=openai", "--editpred-model=m", "--editpred-prompt-format=zeta2", *extra]
        assert main(["prompt", str(shop), *options]) == 0
        shown.append(capsys.readouterr().out)
        llm_server.answer("")
        pytester.runpytest(*args(llm_server, "--editpred-cache=off", *extra))
        capsys.readouterr()  # the run's own output
    assert shown == prompts(llm_server)
    assert shown[0].startswith(HEAD + "<filename>shop/src/main.ts\n") and HEAD + "<filename>edit_history" in shown[1]
