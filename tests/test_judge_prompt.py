"""``qa.judge_prompt``: the judge's prompt as ``ep qa`` builds it (zed-qa-repair.md §2.2-§2.6).

E1-E3 of §6 byte for byte, through a template file that holds §2.3's structure with
stand-in text for Zed's prose (Zed's ``qa.md`` is not ours to copy): the three
placeholders filled, the excerpt taken from a real teacher prompt (E2, written by
the project's own teacher formatter) or built from the inputs (E1, E3). Then the
default template's structure, the template file's errors and Zed's prompt errors.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_editpred._exceptions import ConfigError, JSONFormatError, JudgeError, JudgePromptError, JudgeTemplateError
from pytest_editpred.qa import DEFAULT_JUDGE_TEMPLATE, PLACEHOLDERS, ep_judge_prompt, judge_prompt, load_judge_template
from pytest_editpred.zeta import Event, ExcerptRanges, ZetaInput, format_teacher_prompt

# §2.3's 43 lines, each ⟨…⟩ standing for a line of Zed's prose.
STRUCTURE = [
    "⟨one line: you are judging an edit-prediction model that sees recent edits and predicts the next one⟩",
    "",
    "⟨one line: all diffs below are word diffs⟩",
    "",
    "⟨lead-in line⟩",
    "- ⟨the model should finish partly applied refactors/changes⟩",
    "- ⟨the model should stay consistent with existing patterns and style⟩",
    "- ⟨the model must not delete/revert just-added text unless the user undid it⟩",
    "",
    "## ⟨heading: edit history⟩",
    "```````",
    "{edit_history}",
    "```````",
    "",
    "## ⟨heading: current file⟩",
    "⟨one-line description⟩",
    "{cursor_excerpt}",
    "",
    "## ⟨heading: predicted next edit⟩",
    "```````",
    "{actual_patch_word_diff}",
    "```````",
    "",
    "## ⟨heading: evaluate⟩",
    "",
    "1. **reverts_edits**: ⟨question⟩",
    "",
    "2. **confidence**: ⟨question⟩",
    *(f"   - {n} = ⟨…⟩" for n in range(1, 6)),
    "",
    "⟨one line: output JSON in this format⟩",
    "",
    "```",
    "{",
    '    "reasoning": "⟨placeholder text⟩",',
    '    "reverts_edits": true/false,',
    '    "confidence": 1-5',
    "}",
    "```",
]
TEMPLATE = "\n".join(STRUCTURE) + "\n"


@pytest.fixture
def template(tmp_path: Path) -> str:
    path = tmp_path / "qa.md"
    path.write_text(TEMPLATE, encoding="utf-8")
    return load_judge_template(path)


def filled(history: str, excerpt: str, patch: str) -> str:
    return (
        TEMPLATE.replace("{edit_history}", history)
        .replace("{cursor_excerpt}", excerpt)
        .replace("{actual_patch_word_diff}", patch)
    )


# -- E1: a rename continued; a Zeta2 prompt, so the excerpt comes from the inputs ---------------------

E1_INPUTS = ZetaInput(
    cursor_path="src/cart.py",
    cursor_excerpt=(
        "class Cart:\n    def __init__(self):\n        self.entries = []\n\n    def total(self):\n"
        "        return sum(item.price for item in self.items)\n"
    ),
    cursor_offset=56,
    excerpt_start_row=None,
    events=(
        Event(
            "shop/src/cart.py",
            "shop/src/cart.py",
            "@@ -1,6 +1,6 @@\n class Cart:\n     def __init__(self):\n-        self.items = []\n"
            "+        self.entries = []\n \n     def total(self):\n",
        ),
    ),
)
E1_PATCH = (
    "--- a/src/cart.py\n+++ b/src/cart.py\n@@ -3,4 +3,4 @@\n         self.entries = []\n \n     def total(self):\n"
    "-        return sum(item.price for item in self.items)\n+        return sum(item.price for item in self.entries)\n"
)
E1_ZETA2_PROMPT = "<|file_sep|>src/cart.py\n<|fim_prefix|>class Cart:\n<|fim_middle|>current\n"
E1_HISTORY = (
    "--- ashop/src/cart.py\n+++ bshop/src/cart.py\n@@ -1,6 +1,6 @@\n class Cart:\n     def __init__(self):\n"
    "        self.[-items-]{+entries+} = []\n \n     def total(self):\n\n\n"
)
E1_EXCERPT = (
    "`````src/cart.py\n<|editable_region_start|>\nclass Cart:\n    def __init__(self):\n"
    "        self.entries<|user_cursor|> = []\n\n    def total(self):\n"
    "        return sum(item.price for item in self.items)\n\n<|editable_region_end|>\n`````"
)
E1_WORD_DIFF = (
    "--- a/src/cart.py\n+++ b/src/cart.py\n@@ -3,4 +3,4 @@\n         self.entries = []\n \n     def total(self):\n"
    "        return sum(item.price for item in self.[-items-]{+entries+})\n"
)
# §6 E1's "assembled middle of the prompt", template lines 10 to 22.
E1_MIDDLE = (
    "\n".join(
        [
            "## ⟨heading: edit history⟩",
            "```````",
            "--- ashop/src/cart.py",
            "+++ bshop/src/cart.py",
            "@@ -1,6 +1,6 @@",
            " class Cart:",
            "     def __init__(self):",
            "        self.[-items-]{+entries+} = []",
            " ",
            "     def total(self):",
            "",
            "",
            "",
            "```````",
            "",
            "## ⟨heading: current file⟩",
            "⟨one-line description⟩",
            "`````src/cart.py",
            "<|editable_region_start|>",
            "class Cart:",
            "    def __init__(self):",
            "        self.entries<|user_cursor|> = []",
            "",
            "    def total(self):",
            "        return sum(item.price for item in self.items)",
            "",
            "<|editable_region_end|>",
            "`````",
            "",
            "## ⟨heading: predicted next edit⟩",
            "```````",
            "--- a/src/cart.py",
            "+++ b/src/cart.py",
            "@@ -3,4 +3,4 @@",
            "         self.entries = []",
            " ",
            "     def total(self):",
            "        return sum(item.price for item in self.[-items-]{+entries+})",
            "",
            "```````",
        ]
    )
    + "\n"
)


def test_e1_byte_for_byte(template: str) -> None:
    prompt = judge_prompt(E1_INPUTS, E1_PATCH, prompt=E1_ZETA2_PROMPT, template=template)
    assert prompt == filled(E1_HISTORY, E1_EXCERPT, E1_WORD_DIFF)
    middle = prompt[prompt.index("## ⟨heading: edit history⟩") : prompt.index("\n## ⟨heading: evaluate⟩")]
    assert middle == E1_MIDDLE


# -- E2: a teacher prompt, so the excerpt is the block the teacher saw ------------------------------

E2_EXCERPT_TEXT = 'import { log } from "./log.js";\n\nfunction greet(name) {\n  log("hello");\n}\n\ngreet("ann");\n'
E2_REGION, E2_CONTEXT = (33, 74), (0, 89)
E2_INPUTS = ZetaInput(
    cursor_path="web/app.js",
    cursor_excerpt=E2_EXCERPT_TEXT,
    cursor_offset=52,
    excerpt_start_row=0,
    events=(
        Event(
            "site/web/app.js",
            "site/web/app.js",
            '@@ -1,5 +1,5 @@\n import { log } from "./log.js";\n \n-function greet() {\n+function greet(name) {\n'
            '   log("hello");\n }\n',
        ),
    ),
    excerpt_ranges=ExcerptRanges(E2_REGION, E2_REGION, E2_REGION, E2_CONTEXT, E2_CONTEXT, E2_CONTEXT),
)
E2_PATCH = (
    '--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n-  log("hello");\n'
    "+  log(`hello ${name}`);\n }\n"
)
E2_BLOCK = (
    '`````web/app.js\nimport { log } from "./log.js";\n\n<|editable_region_start|>\n'
    'function greet(name<|user_cursor|>) {\n  log("hello");\n}\n\n<|editable_region_end|>\ngreet("ann");\n\n`````'
)
E2_HISTORY = (
    '--- asite/web/app.js\n+++ bsite/web/app.js\n@@ -1,5 +1,5 @@\n import { log } from "./log.js";\n \n'
    'function greet({+name+}) {\n   log("hello");\n }\n\n\n'
)
E2_WORD_DIFF = (
    '--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n  log([-"-]{+`+}hello[-"-]'
    "{+ ${name}`+});\n }\n"
)


def test_e2_byte_for_byte_with_the_projects_own_teacher_prompt(template: str) -> None:
    teacher = format_teacher_prompt(E2_INPUTS)
    assert "# 3. Current File\n\n" + E2_BLOCK + "\n" in teacher  # the teacher wrote §6's block
    prompt = judge_prompt(E2_INPUTS, E2_PATCH, prompt=teacher, template=template)
    assert prompt == filled(E2_HISTORY, E2_BLOCK, E2_WORD_DIFF)


def test_the_excerpt_comes_from_the_prompt_not_the_inputs(template: str) -> None:
    """§2.5(a): whatever the inputs say, a stored teacher prompt's block is shown (its
    fence may be any length; Zed's five backticks and the example's path replace it)."""
    teacher = "intro\n# 3. Current File\n\n```````web/app.js\nTHE BLOCK\n```````\n\n-----\n"
    prompt = judge_prompt(E2_INPUTS, E2_PATCH, prompt=teacher, template=template)
    assert "\n`````web/app.js\nTHE BLOCK\n`````\n" in prompt


# -- E3: two events, a partial line, no prompt --------------------------------------------------------

E3_INPUTS = ZetaInput(
    cursor_path="utils/math.py",
    cursor_excerpt="def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n\ndef mul(\n",
    cursor_offset=74,
    excerpt_start_row=None,
    events=(
        Event(
            "calc/utils/math.py",
            "calc/utils/math.py",
            "@@ -1,2 +1,5 @@\n def add(a, b):\n     return a + b\n+\n+def sub(a, b):\n+    return a - b\n",
        ),
        Event(
            "calc/utils/math.py",
            "calc/utils/math.py",
            "@@ -3,3 +3,5 @@\n \n def sub(a, b):\n     return a - b\n+\n+def mul(\n",
        ),
    ),
)
E3_PATCH = (
    "--- a/utils/math.py\n+++ b/utils/math.py\n@@ -6,2 +6,3 @@\n \n-def mul(\n+def mul(a, b):\n+    return a * b\n"
)
E3_HISTORY = (
    "--- acalc/utils/math.py\n+++ bcalc/utils/math.py\n@@ -1,2 +1,5 @@\n def add(a, b):\n     return a + b\n"
    "{+\ndef sub(a, b):\n    return a - b+}\n\n\n--- acalc/utils/math.py\n+++ bcalc/utils/math.py\n"
    "@@ -3,3 +3,5 @@\n \n def sub(a, b):\n     return a - b\n{+\ndef mul(+}\n\n\n"
)
E3_EXCERPT = (
    "`````utils/math.py\n<|editable_region_start|>\ndef add(a, b):\n    return a + b\n\ndef sub(a, b):\n"
    "    return a - b\n\ndef mul(<|user_cursor|>\n\n<|editable_region_end|>\n`````"
)
E3_WORD_DIFF = "--- a/utils/math.py\n+++ b/utils/math.py\n@@ -6,2 +6,3 @@\n \ndef mul({+a, b):\n    return a * b+}\n"


def test_e3_byte_for_byte(template: str) -> None:
    prompt = judge_prompt(E3_INPUTS, E3_PATCH, template=template)
    assert prompt == filled(E3_HISTORY, E3_EXCERPT, E3_WORD_DIFF)


# -- the ep JSON front door -----------------------------------------------------------------------------


def ep_example(inputs: ZetaInput, patch: str | None, prompt: str | None = None) -> dict[str, object]:
    """An example as ``ep`` writes it: byte offsets, tagged events, the spec flattened."""
    example: dict[str, object] = {
        "cursor_path": inputs.cursor_path,
        "prompt_inputs": {
            "cursor_path": inputs.cursor_path,
            "cursor_excerpt": inputs.cursor_excerpt,
            "cursor_offset_in_excerpt": len(inputs.cursor_excerpt[: inputs.cursor_offset].encode()),
            "events": [
                {"event": "BufferChange", "path": e.path, "old_path": e.old_path, "diff": e.diff, "predicted": False}
                for e in inputs.events
            ],
        },
        "predictions": [{"actual_patch": patch, "actual_output": "…", "provider": "teacher"}],
    }
    if prompt is not None:
        example["prompt"] = {"input": prompt, "expected_output": "", "provider": "teacher"}
    return example


@pytest.mark.parametrize(
    "inputs, patch, prompt",
    [(E1_INPUTS, E1_PATCH, E1_ZETA2_PROMPT), (E2_INPUTS, E2_PATCH, format_teacher_prompt(E2_INPUTS))],
    ids=["E1", "E2"],
)
def test_an_ep_example_gives_the_same_prompt(inputs: ZetaInput, patch: str, prompt: str, template: str) -> None:
    assert ep_judge_prompt(ep_example(inputs, patch, prompt), template=template) == judge_prompt(
        inputs, patch, prompt=prompt, template=template
    )


def test_an_ep_example_counts_the_cursor_in_bytes() -> None:
    inputs = ZetaInput("é.py", "café = 1\n", 4, None)  # after "café": 5 bytes
    example = ep_example(inputs, "")
    assert example["prompt_inputs"]["cursor_offset_in_excerpt"] == 5  # type: ignore[index]
    assert "`````é.py\n<|editable_region_start|>\ncafé<|user_cursor|> = 1\n" in ep_judge_prompt(example)
    example["prompt_inputs"]["cursor_offset_in_excerpt"] = 4  # type: ignore[index]
    with pytest.raises(JSONFormatError, match="at a character's start"):
        ep_judge_prompt(example)


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"predictions": []}, "no predictions available"),
        ({"predictions": None}, "no predictions available"),
        (
            {"predictions": [{"actual_output": "x", "provider": "teacher"}]},
            "no actual_patch available (run predict first)",
        ),
        ({"prompt_inputs": None}, "prompt_inputs missing (run context retrieval first)"),
        ({"prompt": {"input": "# 3. Current File\n\nno fence"}}, "failed to extract cursor excerpt"),
    ],
)
def test_zeds_prompt_errors_for_an_ep_example(change: dict[str, object], reason: str) -> None:
    example = ep_example(E1_INPUTS, E1_PATCH) | change
    with pytest.raises(JudgePromptError) as raised:
        ep_judge_prompt(example, path="run.jsonl", line=7)
    assert raised.value.reason.startswith(reason)
    assert str(raised.value).startswith(f"run.jsonl:7: {reason}")
    assert "\n" not in raised.value.reason and raised.value.fix


@pytest.mark.parametrize(
    "change, message",
    [
        ({"predictions": {"0": {}}}, "'predictions' must be a list"),
        ({"predictions": ["patch"]}, "'predictions[0]' must be an object"),
        ({"predictions": [{"actual_patch": 3}]}, "'predictions[0].actual_patch' must be a string"),
        ({"prompt": {"input": ["x"]}}, "'prompt.input' must be a string"),
        ({"prompt": "x"}, "'prompt' must be an object"),
        ({"prompt_inputs": []}, "'prompt_inputs' must be an object"),
        ({"prompt_inputs": {"cursor_excerpt": 1}}, "'prompt_inputs.cursor_excerpt' must be a string"),
        ({"cursor_path": None}, "'cursor_path' must be a string"),
    ],
)
def test_a_malformed_ep_example_names_the_field(change: dict[str, object], message: str) -> None:
    with pytest.raises(JSONFormatError) as raised:
        ep_judge_prompt(ep_example(E1_INPUTS, E1_PATCH) | change, path="run.jsonl", line=2)
    assert str(raised.value).startswith(f"run.jsonl:2: {message}")


def test_a_malformed_event_is_named() -> None:
    example = ep_example(E1_INPUTS, E1_PATCH)
    example["prompt_inputs"]["events"] = [{"path": "a", "old_path": "a"}]  # type: ignore[index]
    with pytest.raises(JSONFormatError, match=r"'prompt_inputs\.events\[\]\.diff' must be a string"):
        ep_judge_prompt(example)


# -- filling rules -----------------------------------------------------------------------------------


def test_placeholders_are_replaced_in_zeds_order_on_the_result_so_far() -> None:
    """A history holding ``{actual_patch_word_diff}`` receives the word diff, as in Zed;
    a patch holding ``{edit_history}`` is left as it is."""
    inputs = ZetaInput(
        "a.py", "x\n", 0, None, events=(Event("a.py", "a.py", "@@ -1 +1 @@\n-{actual_patch_word_diff}\n"),)
    )
    prompt = judge_prompt(inputs, "@@ -1 +1 @@\n-{edit_history}\n+y\n")
    assert "[-@@ -1 +1 @@\n[-{edit_history}-]{+y+}\n-]" in prompt
    assert prompt.count("[-{edit_history}-]{+y+}") == 2  # in the history and in its own fence


def test_no_events_and_an_empty_patch_leave_empty_fences(template: str) -> None:
    prompt = judge_prompt(ZetaInput("a.py", "x", 1, None), "", template=template)
    assert prompt.count("```````\n\n```````") == 2


def test_the_accepted_prediction_flag_and_any_count_of_events_are_shown_as_they_are() -> None:
    events = tuple(Event("p/a.py", "p/old.py", f"@@ -{i} +{i} @@\n-a\n+b\n", predicted=i % 2 == 0) for i in range(40))
    prompt = judge_prompt(ZetaInput("a.py", "x", 0, None, events=events), "")
    assert prompt.count("--- ap/old.py\n+++ bp/a.py\n") == 40
    assert "User accepted prediction" not in prompt


# -- the default template -----------------------------------------------------------------------------


def shape(line: str) -> str:
    """A template line with its prose taken out: what §2.3 fixes about it."""
    for pattern in (r"## ", r"- ", r"1\. \*\*reverts_edits\*\*: ", r"2\. \*\*confidence\*\*: ", r"   - [1-5] = "):
        found = re.match(pattern, line)
        if found:
            return found.group() + "…"
    if line.startswith("```") or line in ("{", "}", "", *PLACEHOLDERS) or line.startswith('    "'):
        return re.sub(r'"reasoning": ".*"', '"reasoning": "…"', line)
    return "…"


def test_the_default_template_has_zeds_structure_line_for_line() -> None:
    ours = DEFAULT_JUDGE_TEMPLATE.split("\n")
    assert DEFAULT_JUDGE_TEMPLATE.endswith("\n") and len(ours) - 1 == 43
    assert [shape(line) for line in ours] == [shape(line) for line in TEMPLATE.split("\n")]
    assert ours[36:43] == [
        "```",
        "{",
        ours[38],
        '    "reverts_edits": true/false,',
        '    "confidence": 1-5',
        "}",
        "```",
    ]


def test_the_default_template_gives_the_same_filled_middle_as_zeds() -> None:
    prompt = judge_prompt(E1_INPUTS, E1_PATCH, prompt=E1_ZETA2_PROMPT)
    body = E1_MIDDLE.split("\n", 1)[1]  # from the fence under the first heading
    body = body.replace("## ⟨heading: current file⟩\n⟨one-line description⟩\n", "{current}").replace(
        "## ⟨heading: predicted next edit⟩\n", "{predicted}"
    )
    head, rest = body.split("{current}")
    excerpt, patch = rest.split("{predicted}")
    assert head in prompt and excerpt in prompt and patch in prompt


# -- the template file ----------------------------------------------------------------------------------


def test_a_template_file_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "qa.md"
    path.write_bytes(TEMPLATE.encode() + b"no final newline")
    assert load_judge_template(path) == TEMPLATE + "no final newline"


def error_of(path: Path) -> JudgeTemplateError:
    with pytest.raises(JudgeTemplateError) as raised:
        load_judge_template(path)
    assert isinstance(raised.value, ConfigError) and not isinstance(raised.value, JudgeError)
    assert "\n" not in raised.value.reason and raised.value.fix
    return raised.value


def test_a_missing_or_unreadable_template_file(tmp_path: Path) -> None:
    missing = error_of(tmp_path / "nope.md")
    assert str(missing).startswith(f"{tmp_path / 'nope.md'}: the judge template does not exist\n  fix: ")
    directory = error_of(tmp_path)
    assert directory.reason.startswith("the judge template cannot be read: Is a directory")


def test_a_template_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "qa.md"
    path.write_bytes(b"one\ntwo\nthr\xe9e\n" + TEMPLATE.encode())
    error = error_of(path)
    assert (error.line, error.reason) == (3, "the judge template is not UTF-8 (byte 11 is 0xe9)")
    assert error.fix == "Save the template as UTF-8."


@pytest.mark.parametrize(
    "old, new, reason, line",
    [
        ("{cursor_excerpt}", "the excerpt", "the judge template has no {cursor_excerpt} placeholder", None),
        ("{edit_history}", "{edit_histroy}", "the judge template misspells {edit_history} as {edit_histroy}", 12),
        (
            "{actual_patch_word_diff}",
            "{actual_patch}",
            "the judge template misspells {actual_patch_word_diff} as {actual_patch}",
            21,
        ),
        (
            "{cursor_excerpt}",
            "{{cursor_excerpt}}",
            "the judge template writes {{cursor_excerpt}} with doubled braces; it takes {cursor_excerpt}",
            17,
        ),
    ],
)
def test_a_placeholder_missing_or_misspelled_is_named(
    tmp_path: Path, old: str, new: str, reason: str, line: int | None
) -> None:
    path = tmp_path / "qa.md"
    path.write_text(TEMPLATE.replace(old, new), encoding="utf-8")
    error = error_of(path)
    assert (error.reason, error.line, error.path) == (reason, line, str(path))


# -- Zed's prompt errors ---------------------------------------------------------------------------------


def test_a_missing_patch_or_missing_inputs_is_zeds_error() -> None:
    with pytest.raises(JudgePromptError, match=r"^no actual_patch available \(run predict first\)"):
        judge_prompt(E1_INPUTS, None)
    with pytest.raises(JudgePromptError, match=r"^prompt_inputs missing \(run context retrieval first\)"):
        judge_prompt(None, E1_PATCH)


@pytest.mark.parametrize(
    "prompt",
    [
        "# 3. Current File\n\nno block at all\n",  # no backtick after the heading
        "# 3. Current File\n\n`````",  # no line after the fence
        "# 3. Current File\n\n`````a.py\nnever closed\n````\n",  # closed by fewer backticks
    ],
)
def test_a_teacher_prompt_without_its_block_fails_with_no_fallback(prompt: str) -> None:
    with pytest.raises(JudgePromptError, match=r"^failed to extract cursor excerpt"):
        judge_prompt(E1_INPUTS, E1_PATCH, prompt=prompt)
