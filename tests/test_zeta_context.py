"""What goes into a Zeta prompt besides the cursor file: related files (§4.2).

Zed's related files come from its context retrieval; pytest-editpred takes them from
an ``ep`` JSON example's ``prompt_inputs.related_files`` when it carries them (as
retrieved), else from the example's recently viewed and opened files, read from the
repository at the revision when they are not among the edited buffers.
"""

from __future__ import annotations

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401

from conftest import SUB, Project
from pytest_editpred import Cursor, JSONFormatError, PredictionRequest
from pytest_editpred.example._json import example_from_dict
from pytest_editpred.zeta import ZetaFormat, build_input, format_prompt

TEXT = "fn main() {\n    helper();\n}\n"


def _ep_example(related: object) -> dict[str, object]:
    return {
        "name": "ep",
        "repository_url": "https://github.com/o/r",
        "revision": "abc",
        "cursor_path": "src/main.rs",
        "cursor_position": "    helper();\n<|user_cursor|>",
        "edit_history": "",
        "expected_patches": [],
        "prompt_inputs": {"cursor_path": "src/main.rs", "related_files": related},
    }


def test_an_ep_examples_retrieved_context_is_the_prompts_related_files() -> None:
    related = [
        {
            "path": "src/util.rs",
            "max_row": 40,
            "in_open_source_repo": False,
            "excerpts": [{"row_range": {"start": 3, "end": 4}, "text": "fn helper() {}", "order": 0}],
        }
    ]
    example = example_from_dict(_ep_example(related))
    request = PredictionRequest(
        example, {"src/main.rs": TEXT}, Cursor.at("src/main.rs", TEXT, TEXT.index("    helper"))
    )
    prompt = format_prompt(build_input(request), ZetaFormat.V0211SeedCoder)
    assert prompt is not None
    # §4.2: header, the text and its newline, "...\n" as rows 4-40 are left out; §5.2:
    # the related section and its newline come right after the prefix token.
    assert prompt.startswith("<[fim-suffix]>")
    assert "<[fim-prefix]><filename>src/util.rs\nfn helper() {}\n...\n\n<filename>src/main.rs\n" in prompt


@pytest.mark.parametrize(
    "related",
    [{"path": "x"}, [{"path": "x", "max_row": 1}], [{"path": "x", "max_row": 1, "excerpts": [{"text": "t"}]}]],
)
def test_malformed_retrieved_context_is_one_clear_error(related: object) -> None:
    with pytest.raises(JSONFormatError, match="related_files"):
        example_from_dict(_ep_example(related), path="ep.json")


def test_a_recently_viewed_file_is_read_from_the_repository(
    project: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    # README.md is in the repository but not edited: the prompt shows it as a related file
    project.example("calc--sub", SUB + "\n## Recently Viewed Files\n\n```\nREADME.md\n```\n")
    llm_server.answer("<|marker_1|><|marker_1|>")
    result = project.pytester.runpytest(
        "evals",
        "--editpred-provider=openai",
        f"--editpred-base-url={llm_server.url}",
        "--editpred-model=m",
        "--editpred-prompt-format=zeta2.1",
        "--editpred-cache=off",
        "--editpred-no-retrieval",  # the recently viewed file is the related file
        *plugin_args,
    )
    result.assert_outcomes(failed=1)  # the model answered "no edits"
    [seen] = llm_server.requests
    assert "<[fim-prefix]><filename>README.md\n# calc\n\n<filename>edit_history\n" in seen.body["prompt"]


def test_diagnostics_are_shown_only_where_the_example_carries_them() -> None:
    data = _ep_example(None)
    request_of = lambda example: PredictionRequest(  # noqa: E731
        example, {"src/main.rs": TEXT}, Cursor.at("src/main.rs", TEXT, TEXT.index("    helper"))
    )
    plain = format_prompt(build_input(request_of(example_from_dict(data))), ZetaFormat.V0420Diagnostics)
    assert plain is not None and "diagnostics" not in plain
    data["prompt_inputs"] = {
        "active_buffer_diagnostics": [
            {
                "severity": "error",
                "message": "cannot find function `helper`",
                "snippet": "    helper();",
                "snippet_buffer_row_range": {"start": 1, "end": 2},
                "diagnostic_range_in_snippet": {"start": 4, "end": 10},
            },
        ]
    }
    prompt = format_prompt(build_input(request_of(example_from_dict(data))), ZetaFormat.V0420Diagnostics)
    assert prompt is not None
    # §4.4: the header, then each diagnostic as *message*: and its snippet in a fence; §5.2: first after the prefix
    assert (
        "<[fim-prefix]><filename>diagnostics\n*cannot find function `helper`*:\n```\n    helper();\n```\n\n" in prompt
    )
