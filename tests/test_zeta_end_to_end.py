"""Zeta 2 and Zeta 2.1 end to end: the plugin, a real loopback server, Zed's bytes.

The server plays a model served by vLLM or SGLang: it checks the prompt it receives
byte for byte against the one Zed v1.15 builds for the example (written out below
from the spec's rules, zeta-prompts.md §4.1, §5.2, §6 and §8.2), then answers in the
format, right or wrong. The example is tests/conftest.py's ``SUB``: the user typed
``def sub(a, b):`` at the end of calc.py and the cursor sits after the colon.
"""

from __future__ import annotations

import json

import pytest
from llm_server import LLMServer, Recorded, llm_server_fixture  # noqa: F401

from conftest import SUB, Project

BEFORE_CURSOR = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef sub(a, b):"
HISTORY = (
    # §4.1: the seed family's section name, then write_event: headers from the path
    # components, the event's hunk as Zed's diff of the buffer (3 lines of context).
    "<filename>edit_history\n"
    "--- a/calc.py\n+++ b/calc.py\n"
    "@@ -4,3 +4,6 @@\n \n def mul(a, b):\n     return a * b\n+\n+\n+def sub(a, b):\n"
)
# §5.2 order: suffix section (nothing after the editable region, so the token and a
# newline), the prefix token, the history and its newline, the cursor prefix (§6),
# the middle token, and no newline at the end.
ZETA2_PROMPT = (
    "<[fim-suffix]>\n"
    "<[fim-prefix]>" + HISTORY + "\n"
    "<filename>calc.py\n<<<<<<< CURRENT\n" + BEFORE_CURSOR + "<|user_cursor|>\n=======\n"
    "<[fim-middle]>"
)
# V0318: the byte-exact marker writer (§8.2) over one block (9 lines: no split at the
# (6, 16) limits of §8.1), then the section's newline.
ZETA2_1_PROMPT = (
    "<[fim-suffix]>\n"
    "<[fim-prefix]>" + HISTORY + "\n"
    "<filename>calc.py\n<|marker_1|>" + BEFORE_CURSOR + "<|user_cursor|>\n<|marker_2|>\n"
    "<[fim-middle]>"
)
RIGHT_BODY = BEFORE_CURSOR + "\n    return a - b<|user_cursor|>\n"
WRONG_BODY = BEFORE_CURSOR + "\n    return a + b<|user_cursor|>\n"
END = "<[end▁of▁sentence]>"

ANSWERS = {
    # Zeta 2 writes the whole new region and the merge marker (§2.1, §9.1)
    "zeta2": (ZETA2_PROMPT, RIGHT_BODY + ">>>>>>> UPDATED\n", WRONG_BODY + ">>>>>>> UPDATED\n", []),
    # Zeta 2.1 writes a byte-exact span between numbered markers (§9.3); the server
    # stops at the end-of-sentence token, which it does not echo
    "zeta2.1": (
        ZETA2_1_PROMPT,
        "<|marker_1|>" + RIGHT_BODY + "<|marker_2|>",
        "<|marker_1|>" + WRONG_BODY + "<|marker_2|>",
        [END],
    ),
}


def args(server: LLMServer, prompt_format: str, *extra: str) -> list[str]:
    return [
        "evals",
        "--editpred-provider=openai",
        f"--editpred-base-url={server.url}",
        "--editpred-model=zeta-served",
        f"--editpred-prompt-format={prompt_format}",
        "--editpred-cache=off",
        "--editpred-no-retrieval",  # Zed's editor prompt, no ep context (test_retrieval_run has it)
        *extra,
    ]


@pytest.mark.parametrize("prompt_format", ["zeta2", "zeta2.1"])
@pytest.mark.parametrize("right", [True, False], ids=["right", "wrong"])
def test_zeta2_and_zeta2_1_end_to_end(
    project: Project, llm_server: LLMServer, plugin_args: list[str], prompt_format: str, right: bool
) -> None:
    expected_prompt, right_answer, wrong_answer, stop = ANSWERS[prompt_format]

    def model(request: Recorded) -> str:
        if request.body.get("prompt") != expected_prompt:
            return "the prompt was not Zed's"
        return right_answer if right else wrong_answer

    project.example("calc--sub", SUB)
    llm_server.answer(model)
    report = project.pytester.path / "r.jsonl"
    result = project.pytester.runpytest(*args(llm_server, prompt_format, f"--editpred-report={report}"), *plugin_args)
    [seen] = llm_server.requests
    assert seen.body["prompt"] == expected_prompt
    assert seen.body.get("stop", []) == stop
    [record] = [json.loads(line) for line in report.read_text().splitlines()]
    assert record["prompt"] == expected_prompt and record["raw_output"] == (right_answer if right else wrong_answer)
    if right:
        result.assert_outcomes(passed=1)
        assert record["metrics"]["delta_chr_f"] == 100.0 and record["metrics"]["cursor_exact_match"] is True
    else:
        result.assert_outcomes(failed=1)
        assert record["reason"] == "the prediction matches none of the 1 expected patch(es)"
        result.stdout.fnmatch_lines(
            [
                "*+    return a + b‸",
                "*Captured editpred prompt call*",
                "<[fim-suffix]>",
                "*Captured editpred raw output call*",
            ]
        )


def test_a_malformed_zeta2_1_answer_fails_and_names_what_is_missing(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    project.example("calc--sub", SUB)
    llm_server.answer("    return a - b\n")
    result = project.pytester.runpytest(*args(llm_server, "zeta2.1"), *plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the model's answer cannot be used*no marker tags found in output*"])


def test_an_unknown_format_is_one_usage_error_listing_zeds_names(project: Project, llm_server: LLMServer) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest(*args(llm_server, "seed"))
    assert result.ret != 0 and not llm_server.requests
    output = result.stdout.str() + result.stderr.str()
    assert "`seed` matched more than one of:" in output and "- V0318SeedMultiRegions" in output
