"""A newcomer's mistakes: every one answered once and clearly.

1. a configuration mistake is one usage error before the first item runs;
2. an ERROR's message appears once, one paragraph: file, line, reason, fix;
3. every tag is a registered marker (hyphens included), ids are pasteable, ``-k``
   matches the repository, the README's ``-k``/``-m`` select something in ``evals/``;
4. results name who answered: a custom fixture by its qualified name, and its model;
5. no answer (a replay or replay-only cache miss) is an ERROR, never a FAILED;
9. messages: fix lines name real options, bad TOML has one line number, a clone
   that fails says how to do without the network.

Everything runs for real: pytester sessions plainly and under ``-n 2``, a real git
repository, the loopback model server of ``tests/llm_server.py``.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project

ROOT = Path(__file__).resolve().parents[1]
RIGHT = "\n    return a - b"


def output(result: pytest.RunResult) -> str:
    return result.stdout.str() + "\n" + result.stderr.str()


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def junit_properties(path: Path) -> dict[str, dict[str, str]]:
    root = ET.parse(path).getroot()
    return {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }


# ---------------------------------------------------- 1. one usage error, before any item


MISTAKES = {
    "openai-without-model": (["--editpred-provider=openai"], "needs a model name"),
    "openai-without-base-url": (["--editpred-provider=openai", "--editpred-model=m"], "needs a base URL"),
    "replay-without-file": (["--editpred-provider=replay"], "needs a replay file"),
    "replay-file-missing": (
        ["--editpred-provider=replay", "--editpred-replay=nowhere.jsonl"],
        "cannot read the replay file",
    ),
    "trials-0": (["--editpred-trials", "0"], "--editpred-trials is 0, but it must be at least 1"),
    "fail-under-150": (["--editpred-fail-under", "150"], "must be from 0 to 100"),
    "min-delta-chrf-101": (["--editpred-min-delta-chrf", "101"], "must be from 0 to 100"),
    "max-reversal-1.5": (["--editpred-max-reversal", "1.5"], "must be from 0 to 1"),
    "regression-without-baseline": (["--editpred-fail-on-regression"], "no --editpred-baseline was given"),
    "concurrency-negative": (["--editpred-concurrency=-2"], "--editpred-concurrency is -2"),
    "retries-negative": (["--editpred-retries=-1"], "--editpred-retries is -1"),
    "timeout-negative": (["--editpred-timeout=-5"], "--editpred-timeout is -5"),
    "max-tokens-negative": (["--editpred-max-tokens=-1"], "--editpred-max-tokens is -1"),
    "summary-limit-negative": (["--editpred-summary-limit=-1"], "--editpred-summary-limit is -1"),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
@pytest.mark.xdist
def test_a_configuration_mistake_is_one_usage_error(project: Project, plugin_args: list[str], mistake: str) -> None:
    for name in ("calc--a", "calc--b", "calc--c"):
        project.example(name, SUB)
    args, expected = MISTAKES[mistake]
    result = project.pytester.runpytest("evals", *args, *plugin_args)
    text = output(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, text
    errors = [line for line in text.splitlines() if line.startswith("ERROR: editpred:")]
    assert len(errors) == 1 and expected in errors[0], text
    assert "fix:" in text  # the way out, on the next line
    for noise in ("Traceback", "INTERNALERROR", "raise ", "_exceptions.ConfigError"):
        assert noise not in text, text
    assert len(result.stderr.lines) <= 4, result.stderr.str()
    assert not re.search(r"\b\d+ (passed|failed|errors?)\b", text), text  # no item ran


def test_an_ini_value_out_of_range_names_the_ini_key(project: Project) -> None:
    project.example("calc--a", SUB)
    with (project.pytester.path / "tox.ini").open("a") as ini:  # Project's ini (makeini)
        ini.write("\neditpred_fail_under = 120\n")
    result = project.pytester.runpytest("evals")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: editpred: ini editpred_fail_under is 120, but it must be from 0 to 100*",
            "*fix: Give the ini key editpred_fail_under a value from 0 to 100.*",
        ]
    )


def test_a_suite_without_examples_is_not_checked_for_provider_options(pytester: pytest.Pytester) -> None:
    # The provider is built only when examples were collected: a project's own unit
    # tests run whatever the editpred provider options say.
    pytester.makepyfile(test_unit="def test_one():\n    pass\n")
    pytester.runpytest("--editpred-provider=openai").assert_outcomes(passed=1)


@pytest.mark.xdist
def test_provider_options_do_not_stop_a_custom_fixture(project: Project, plugin_args: list[str]) -> None:
    # Only the provider that answers is built: a conftest's own editpred_completion
    # runs whatever --editpred-provider says.
    project.example("calc--a", SUB)
    project.pytester.makeconftest(CUSTOM)
    project.pytester.runpytest("evals", "--editpred-provider=openai", *plugin_args).assert_outcomes(passed=1)


# --------------------------------------------------------------------- 2. ERRORs, once


BROKEN = """
## Edit History

```diff
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def nowhere(a, b):
-    return a + b
+    return a + c
```

## Cursor Position

```calc.py
def add(a, b):
#       ^[CURSOR_POSITION]
```
"""


@pytest.fixture(params=["local", "on-ci"])
def summary_style(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Off CI pytest trims the short summary's message to its first line; on CI
    (``$CI`` or ``$BUILD_NUMBER`` set) it prints the message whole, so a message
    for people must still be printed once."""
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    if request.param == "on-ci":
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    return request.param


def summary_lines(text: str) -> list[str]:
    """The lines of the short test summary (pytest's index of the ERRORs)."""
    return text.split("short test summary info", 1)[1].splitlines()[1:-1]


def test_a_broken_example_is_one_paragraph(project: Project, plugin_args: list[str], summary_style: str) -> None:
    path = project.example("calc--broken", BROKEN)
    result = project.pytester.runpytest("evals", "-rE", *plugin_args)
    result.assert_outcomes(errors=1)
    text = output(result)
    assert "During handling of the above exception" not in text, text
    assert "Traceback" not in text and "Failed:" not in text, text
    # One paragraph: where (file:line), what, and the fix, each once.
    [where] = [line for line in text.splitlines() if line.startswith(f"{path}:")]
    assert re.fullmatch(rf"{re.escape(str(path))}:\d+: the edit history does not apply.*", where), where
    assert text.count("fix: Each edit-history hunk must match") == 1, text
    # The summary names the item and what went wrong, on one line.
    [summary] = summary_lines(text)
    assert summary.startswith("ERROR evals/calc--broken.md::calc--broken - the edit history does not apply"), summary


def test_an_unreachable_server_is_one_paragraph(project: Project, plugin_args: list[str], summary_style: str) -> None:
    path = project.example("calc--sub", SUB)
    gone = LLMServer.start()
    url = gone.url
    gone.close()  # nothing listens there now: connection refused
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=llamacpp-infill",
        f"--editpred-base-url={url}",
        "--editpred-retries=1",
        "--editpred-cache=off",
        *plugin_args,
    )
    result.assert_outcomes(errors=1)
    text = output(result)
    assert "During handling of the above exception" not in text, text
    assert "Traceback" not in text, text
    [summary] = summary_lines(text)
    assert summary.startswith("ERROR evals/calc--sub.md::calc--sub - POST"), summary
    body = text.split("short test summary info", 1)[0]
    [paragraph] = [line for line in body.splitlines() if "failed after 1 attempt" in line]
    assert paragraph.startswith(f"{path}: POST {url}/infill failed after 1 attempt"), paragraph
    assert text.count("fix: Check that the model server is up") == 1, text


def test_a_wrong_answer_is_summarised_by_its_headline(
    project: Project, plugin_args: list[str], summary_style: str
) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest("evals", "--editpred-provider=noop", *plugin_args)
    result.assert_outcomes(failed=1)
    text = output(result)
    assert "Traceback" not in text and "Failed:" not in text, text
    [summary] = summary_lines(text)
    assert summary.startswith("FAILED evals/calc--sub.md::calc--sub - calc--sub: the prediction changes"), summary
    # The verdict's second line (the best candidate and its numbers) is in the section only.
    assert text.count("best: expected patch 1 of 1 (Zed's rule)") == 1, text


# ------------------------------------------------------------------------ 3. selection


@pytest.mark.xdist
def test_hyphenated_tags_are_registered_markers(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--tagged", SUB, tags=("accepted-prediction", "error-handling"))
    project.example("calc--plain", SUB, tags=("rename",))
    base = ["evals", "--editpred-provider=oracle", "--strict-markers", *plugin_args]

    def selected(expression: str) -> list[tuple[str, str]]:
        result = project.pytester.runpytest(*base, "-m", expression, "-v")
        assert result.ret == pytest.ExitCode.OK, output(result)
        return sorted(
            set(re.findall(r"::(calc--\w+) PASSED|PASSED evals/\S+::(calc--\w+)", result.stdout.str())) - {("", "")}
        )

    def names(found: list[tuple[str, str]]) -> list[str]:
        return sorted(a or b for a, b in found)

    assert names(selected("accepted-prediction")) == ["calc--tagged"]
    assert names(selected("error-handling or rename")) == ["calc--plain", "calc--tagged"]
    assert names(selected("not accepted-prediction")) == ["calc--plain"]


def test_a_tag_that_cannot_be_a_marker_is_said_once_and_changes_nothing(project: Project) -> None:
    # "skip" would skip the item if it were a marker; "needs review" cannot be named by -m.
    project.example("calc--a", SUB, tags=("skip", "needs review"))
    project.example("calc--b", SUB, tags=("skip",))
    result = project.pytester.runpytest("evals", "--editpred-provider=oracle", "--strict-markers")
    result.assert_outcomes(passed=2)
    text = output(result)
    assert text.count("the tag 'skip' is not a marker") == 1, text
    assert text.count("the tag 'needs review' is not a marker") == 1, text
    project.pytester.runpytest("evals", "--editpred-provider=oracle", "-k", "skip").assert_outcomes(passed=2)


NAMED = "# Carry the rename through error.rs\n" + SUB


@pytest.mark.xdist
def test_ids_are_file_stems_pasteable_and_spelled_once(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--rename-error", NAMED)
    report = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(
        "evals", "-v", "--editpred-provider=noop", f"--editpred-report={report}", *plugin_args
    )
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    # -v shows the id as it is (a dot in it would show as '::'), and the failure's
    # header, the summary table and the record spell it the same way.
    assert re.search(
        r"^(\[gw\d\] \[100%\] FAILED )?evals/calc--rename-error\.md::calc--rename-error( FAILED)?", text, re.M
    ), text
    assert "::rs" not in text and "error.rs" not in text, text
    assert re.search(r"^_+ calc--rename-error _+$", text, re.M), text
    assert re.search(r"^calc--rename-error\s+\d", text, re.M), text
    [record] = records(report)
    assert record["name"] == "calc--rename-error"
    # Pasted back, the id selects the item.
    again = project.pytester.runpytest("evals/calc--rename-error.md::calc--rename-error", "--editpred-provider=oracle")
    again.assert_outcomes(passed=1)


def test_a_jsonl_name_with_a_dot_is_a_pasteable_id(project: Project) -> None:
    from pytest_editpred import from_markdown, to_json

    source = project.example("calc--sub", SUB)
    example = from_markdown(source.read_text(), source)
    line = dict(to_json(example))
    line["name"] = "calc.sub v2"
    source.unlink()
    (project.pytester.path / "evals" / "more.jsonl").write_text(json.dumps(line) + "\n")
    result = project.pytester.runpytest("evals", "-v", "--editpred-provider=oracle")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*evals/more.jsonl::calc-sub-v2 PASSED*"])
    project.pytester.runpytest("evals/more.jsonl::calc-sub-v2", "--editpred-provider=oracle").assert_outcomes(passed=1)


def test_k_matches_the_repository_name(project: Project, plugin_args: list[str]) -> None:
    project.example("subtract", SUB)  # the file name does not say "calc"; the repository does
    result = project.pytester.runpytest("evals", "--editpred-provider=oracle", "-k", "calc", *plugin_args)
    result.assert_outcomes(passed=1)


def _readme_selections() -> list[list[str]]:
    """The ``-k X`` and ``-m X`` the README shows with ``pytest evals/``."""
    text = (ROOT / "README.md").read_text()
    found = []
    for match in re.finditer(r"`((?:pytest evals/ )?-[km] [^`]+)`", text):
        words = shlex.split(match.group(1))
        found.append(words[words.index("evals/") + 1 :] if "evals/" in words else words)
    return found


@pytest.mark.slow
def test_the_readmes_k_and_m_examples_select_something_in_evals() -> None:
    selections = _readme_selections()
    assert selections, "the README shows no -k or -m example"
    for args in selections:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "evals/",
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                *args,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        collected = [line for line in result.stdout.splitlines() if line.startswith("evals/")]
        assert collected, f"README's `{' '.join(args)}` selects nothing in evals/:\n{result.stdout}{result.stderr}"


# --------------------------------------------------------------------- 4. who answered


CUSTOM = """
import pytest
from pytest_editpred import Prediction

LINE = "def sub(a, b):\\n"


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        text = request.text.replace(LINE, LINE + "    return a - b\\n")
        return Prediction(text=text, model="my-model" if request.example.name.endswith("--a") else None)

    return complete
"""


@pytest.mark.xdist
def test_a_custom_fixture_is_recorded_by_its_qualified_name(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)  # its prediction names no model
    project.pytester.makeconftest(CUSTOM)
    report, xml = project.pytester.path / "r.jsonl", project.pytester.path / "j.xml"
    result = project.pytester.runpytest(
        "evals", "--editpred-model=not-this-one", f"--editpred-report={report}", f"--junitxml={xml}", *plugin_args
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["editpred: provider=conftest.editpred_completion, match=exact*"])
    assert "provider=baseline" not in result.stdout.str()
    by_name = {r["name"]: r for r in records(report)}
    assert {r["provider"] for r in by_name.values()} == {"conftest.editpred_completion"}
    assert by_name["calc--a"]["model"] == "my-model"
    assert by_name["calc--b"]["model"] is None  # not --editpred-model: that model did not answer
    props = junit_properties(xml)
    assert props["calc--a"]["editpred_provider"] == "conftest.editpred_completion"
    assert props["calc--a"]["editpred_model"] == "my-model"


def test_the_built_in_provider_is_recorded_by_its_name(project: Project) -> None:
    project.example("calc--a", SUB)
    report = project.pytester.path / "r.jsonl"
    project.pytester.runpytest("evals", "--editpred-provider=oracle", f"--editpred-report={report}").assert_outcomes(
        passed=1
    )
    [record] = records(report)
    assert record["provider"] == "oracle"


def test_qualified_names_of_completion_functions() -> None:
    import functools

    from pytest_editpred.integration.runner import qualified_name

    def fixture():
        def complete(request):
            return None

        return complete

    class Model:
        def complete(self, request):
            return None

        def __call__(self, request):
            return None

    here = f"{__name__}.test_qualified_names_of_completion_functions"
    assert qualified_name(fixture()) == here
    assert qualified_name(functools.partial(fixture(), 1)) == here
    assert qualified_name(Model().complete) == here  # a class inside the fixture: the fixture
    assert qualified_name(Model()) == here
    assert qualified_name(json.dumps) == "json.dumps"
    assert qualified_name(json.JSONEncoder().encode) == "json.encoder.JSONEncoder.encode"


# ------------------------------------------------------------------ 5. no answer: ERROR


@pytest.mark.xdist
def test_a_replay_file_without_the_answer_is_an_error(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--a", SUB)
    project.example("calc--b", SUB)
    first = project.pytester.path / "first.jsonl"
    project.pytester.runpytest("evals", "--editpred-provider=oracle", f"--editpred-report={first}").assert_outcomes(
        passed=2
    )
    kept = [r for r in records(first) if r["name"] == "calc--a"]
    replay = project.pytester.path / "replay.jsonl"
    replay.write_text("".join(json.dumps(r) + "\n" for r in kept))
    report = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=replay",
        f"--editpred-replay={replay}",
        f"--editpred-report={report}",
        *plugin_args,
    )
    result.assert_outcomes(passed=1, errors=1)  # never FAILED: no answer is not a wrong answer
    text = output(result)
    assert "missing answer: the replay file" in text and "'calc--b'" in text, text
    result.stdout.fnmatch_lines(["*2 predictions: 1 passed, 1 error; pass rate 50.0% of 2*"])
    missing = {r["name"]: r for r in records(report)}["calc--b"]
    assert missing["outcome"] == "error" and missing["reason"].startswith("missing answer:")


@pytest.mark.xdist
def test_a_replay_only_cache_miss_is_an_error(project: Project, llm_server: LLMServer, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer(RIGHT)
    args = ["evals", "--editpred-provider=llamacpp-infill", f"--editpred-base-url={llm_server.url}"]
    project.pytester.runpytest(*args).assert_outcomes(passed=1)
    report = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(
        *args, "--editpred-cache=replay-only", "--editpred-trials=2", f"--editpred-report={report}", *plugin_args
    )
    result.assert_outcomes(passed=1, errors=1)  # trial 2 was never asked: no answer
    assert len(llm_server.requests) == 1  # replay-only sent nothing
    text = output(result)
    assert "missing answer: the request to" in text and "--editpred-cache=readwrite" in text, text
    [miss] = [r for r in records(report) if r["trial"] == 2]
    assert miss["outcome"] == "error" and miss["reason"].startswith("missing answer:")


def test_missing_answer_is_an_infrastructure_error() -> None:
    from pytest_editpred import InfrastructureError, MissingAnswerError, PredictionError

    assert issubclass(MissingAnswerError, InfrastructureError)
    assert not issubclass(MissingAnswerError, PredictionError)


# ------------------------------------------------------------------------ 9. messages


def test_every_option_a_message_names_exists() -> None:
    from pytest_editpred.integration.options import OPTIONS, REPORT_OPTIONS

    flags = {option.flag for option in OPTIONS + REPORT_OPTIONS}
    unknown = []
    for path in sorted((ROOT / "pytest_editpred").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for flag in re.findall(r"--editpred-[a-z0-9-]*[a-z0-9]", line):
                if flag not in flags and flag != "--editpred-x":  # options.py's docstring pattern
                    unknown.append(f"{path.relative_to(ROOT)}:{number}: {flag}")
    assert not unknown, "\n".join(unknown)


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        ('repository_url = "x"\nrevision = \n', 3),
        ('repository_url = "x"\nrevision = "abc\n', 3),
        ('repository_url = "x"\nrevision = "abc"\ntags = [\n', 4),
    ],
    ids=["value", "string", "end"],
)
def test_bad_toml_has_one_line_number_the_files(toml: str, line: int) -> None:
    from pytest_editpred import FrontMatterError, from_markdown

    with pytest.raises(FrontMatterError) as caught:
        from_markdown(f"+++\n{toml}+++\n", "x.md")
    message = str(caught.value)
    assert caught.value.line == line and message.startswith(f"x.md:{line}: the front matter is not valid TOML")
    assert not re.search(r"\bline \d", message), message  # no second, different number


def test_a_clone_that_fails_says_how_to_do_without_the_network(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    gone = LLMServer.start()
    url = gone.url
    gone.close()  # nothing listens: git's clone fails at once, without DNS
    pytester.makeini("[pytest]\neditpred_cache_dir = .editpred-cache\n")
    body = textwrap.dedent(SUB).lstrip("\n")
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / "calc--sub.md").write_text(
        f'+++\nrepository_url = "{url}/acme/calc"\nrevision = "{"a" * 40}"\n+++\n\n{body}'
    )
    result = pytester.runpytest("evals", "--editpred-provider=oracle", *plugin_args)
    result.assert_outcomes(errors=1)
    text = output(result)
    assert "git clone of" in text, text
    result.stdout.fnmatch_lines([f"*fix: *--editpred-repo {url}/acme/calc=PATH*--editpred-offline*"])
