"""Options and files a run does not use are said, once (issue 24, "the second hour")."""

from __future__ import annotations

import json

import pytest

from conftest import SUB, Project


def test_a_zeta_format_given_to_a_chat_provider_is_a_usage_error(project: Project) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest_subprocess(
        "evals",
        "-p",
        "no:cacheprovider",
        "--editpred-provider=openai-chat",
        "--editpred-base-url=http://127.0.0.1:9",
        "--editpred-model=m",
        "--editpred-prompt-format=zeta2",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert err.count("provider 'openai-chat' does not speak the prompt format 'zeta2'") == 1
    assert "--editpred-provider openai" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--editpred-provider=oracle", "--editpred-model=zeta"], "provider 'oracle' does not use --editpred-model"),
        (
            ["--editpred-provider=noop", "--editpred-prompt-format=zeta2", "--editpred-temperature=0.5"],
            "provider 'noop' does not use --editpred-prompt-format, --editpred-temperature: ignored",
        ),
    ],
)
def test_an_option_the_provider_does_not_read_is_said_once(project: Project, args: list[str], said: str) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest_subprocess("evals", "-p", "no:cacheprovider", *args)
    assert result.stdout.str().count(said) == 1
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)


def test_options_the_provider_reads_are_not_flagged(project: Project) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest_subprocess("evals", "-p", "no:cacheprovider", "--editpred-provider=oracle")
    result.assert_outcomes(passed=1)
    assert "does not use" not in result.stdout.str()


def test_json_files_left_out_of_a_named_directory_are_said_once(project: Project) -> None:
    # Three .jsonl examples in corpus/, which is not under editpred_paths (evals):
    # named on the command line, the directory's markdown example runs and the run
    # says, once, that the JSON files were not collected and how to include them.
    project.example("calc--md", SUB, folder="corpus")
    line = {"repository_url": project.url, "revision": project.rev, "cursor_path": "calc.py"}
    for name in ("a", "b", "c"):
        (project.pytester.path / "corpus" / f"{name}.jsonl").write_text(
            json.dumps({**line, "cursor_position": "def add<|user_cursor|>"}) + "\n"
        )
    result = project.pytester.runpytest_subprocess("corpus", "-p", "no:cacheprovider", "--editpred-provider=oracle")
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert out.count("3 .json/.jsonl files under corpus were not collected as examples") == 1
    assert "editpred_paths" in out
    # Named by itself, a file is collected.
    named = project.pytester.runpytest_subprocess(
        "corpus/a.jsonl", "-p", "no:cacheprovider", "--editpred-provider=noop"
    )
    assert "not collected" not in named.stdout.str()
    assert named.parseoutcomes().get("passed", 0) + named.parseoutcomes().get("failed", 0) == 1


def test_other_json_files_of_a_project_are_no_errors(project: Project) -> None:
    # A directory of package.json-like files named on the command line: counted and
    # said, never collected, never an error.
    folder = project.pytester.path / "web"
    folder.mkdir()
    (folder / "package.json").write_text('{"name": "web"}')
    (folder / "tsconfig.json").write_text("{ not json")
    result = project.pytester.runpytest_subprocess("web", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    out = result.stdout.str()
    assert "2 .json/.jsonl files under web were not collected" in out
    assert "ERROR" not in out and "Traceback" not in out


def test_the_provider_line_is_there_when_the_examples_live_elsewhere(project: Project) -> None:
    # No evals/ directory: the header cannot foresee examples, so the provider line
    # comes once collection has found them, and only once.
    project.example("calc--sub", SUB, folder="corpus")
    result = project.pytester.runpytest_subprocess("corpus", "-p", "no:cacheprovider", "--editpred-provider=oracle")
    result.assert_outcomes(passed=1)
    assert result.stdout.str().count("editpred: provider=oracle") == 1
    # A suite without examples gets no such line.
    (project.pytester.path / "test_plain.py").write_text("def test_x():\n    pass\n")
    plain = project.pytester.runpytest_subprocess("test_plain.py", "-p", "no:cacheprovider")
    plain.assert_outcomes(passed=1)
    assert "editpred:" not in plain.stdout.str()


@pytest.mark.parametrize(
    "args",
    [["--editpred-max-tokens=-1"], ["--editpred-extra-body=[1]"], ["--editpred-context-type=lsp,nope"]],
)
def test_a_bad_option_value_stops_the_run_before_collection(project: Project, args: list[str]) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest_subprocess("evals", "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "collected" not in result.stdout.str()  # nothing was collected first
    assert result.stderr.str().count("ERROR: editpred:") == 1
