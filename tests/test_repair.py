"""Zed's ``ep repair`` core (zed-qa-repair.md §3): when a prediction needs repair, the
repair message on the specification's worked examples R1 and R2, the token counts,
the template file, and every form of the answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_editpred._exceptions import EditPredError, PredictionError, RepairError, RepairTemplateError
from pytest_editpred.qa import (
    DEFAULT_REPAIR_TEMPLATE,
    ActualCursor,
    ExamplePrediction,
    QaResult,
    load_repair_template,
    needs_repair,
    parse_repair_answer,
    quality_feedback,
    repair_conversation,
    repair_message,
    teacher_prediction,
    token_change_info,
)
from pytest_editpred.zeta import ZetaInput

# --------------------------------------------------------------- the worked example E2

EXCERPT = 'import { log } from "./log.js";\n\nfunction greet(name) {\n  log("hello");\n}\n\ngreet("ann");\n'
INPUT = ZetaInput(cursor_path="web/app.js", cursor_excerpt=EXCERPT, cursor_offset=52, excerpt_start_row=0)
# E2's "# 3. Current File" block, as the teacher prompt holds it (the rest of the
# prompt is prose that no step reads).
PROMPT = (
    "You are an edit prediction assistant.\n\n# 3. Current File\n\n"
    '`````web/app.js\nimport { log } from "./log.js";\n\n<|editable_region_start|>\n'
    'function greet(name<|user_cursor|>) {\n  log("hello");\n}\n\n<|editable_region_end|>\n'
    'greet("ann");\n\n`````\n'
)
TEACHER_OUTPUT = (
    "Use the new parameter.\n\n`````\n<|editable_region_start|>\n"
    "function greet(name) {\n  log(`hello ${name}`);\n}\n<|editable_region_end|>\n`````\n"
)
E2_PATCH = (
    "--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n"
    '-  log("hello");\n+  log(`hello ${name}`);\n }\n'
)
E2_QA = QaResult(
    reasoning="Uses the new parameter, but switching to a template literal is not implied by the history.",
    reverts_edits=False,
    confidence=2,
    response='\n{"reasoning": "...", "reverts_edits": false, "confidence": 2}\n',
)
TEACHER = ExamplePrediction(E2_PATCH, TEACHER_OUTPUT, provider="teacher")

# §3.4's structure, its prose written as the specification writes it: a template file
# "holding the specified structure" (44 lines, no final newline).
SPEC_TEMPLATE = """\
# ⟨H1: repair request⟩

⟨one line: your previous prediction has quality problems; produce a better one⟩

## ⟨heading: quality feedback⟩

{quality_feedback}

{token_change_info}

## ⟨heading: your previous prediction (word-diff format)⟩

`````
{actual_patch_word_diff}
`````

## ⟨heading: instructions⟩

⟨one line: follow the original rules and output format; key rules follow⟩

- ⟨never undo/revert the user's recent edits; a line removed in the history must not come back⟩
- ⟨if the prediction would move the code back towards its pre-edit state, output `NO_EDITS`⟩
- ⟨when unsure, predict only the small high-confidence part⟩

## ⟨heading: output format⟩

⟨one line: same output format as before, plus one addition⟩

- ⟨if nothing should change, output `NO_EDITS`⟩
- ⟨new: if the previous prediction was in fact right, output `KEEP_PREVIOUS`⟩

  `````
  KEEP_PREVIOUS
  `````

  ⟨one line: when to use KEEP_PREVIOUS⟩

⟨one line: NO_EDITS and KEEP_PREVIOUS are not interchangeable⟩
- ⟨NO_EDITS = make no change, discarding the previous prediction⟩
- ⟨KEEP_PREVIOUS = the previous prediction is right, use it as is⟩

## ⟨heading: your improved prediction⟩

⟨one line: briefly explain what was wrong (or why it was right), then give the output⟩"""


@pytest.fixture
def spec_template(tmp_path: Path) -> Path:
    path = tmp_path / "repair.md"
    path.write_text(SPEC_TEMPLATE, encoding="utf-8")
    return path


def test_the_teacher_prediction_is_derived_again_from_prompt_and_answer() -> None:
    # What parse-output stores before repair: one hunk over the whole region.
    assert teacher_prediction(INPUT, PROMPT, TEACHER_OUTPUT) == TEACHER


# ------------------------------------------------------------------------- R1, byte for byte


R1_LAYOUT = """\
## ⟨heading: quality feedback⟩

- **Reverts the user's edits**: no
- **Confidence**: 2/5
- **Reviewer's reasoning**: Uses the new parameter, but switching to a template literal is not implied by the history.


## Token changes

- **Tokens deleted**: 2
- **Tokens inserted**: 7

## ⟨heading: your previous prediction (word-diff format)⟩

`````
--- a/web/app.js
+++ b/web/app.js
@@ -3,3 +3,3 @@
 function greet(name) {
  log([-"-]{+`+}hello[-"-]{+ ${name}`+});
 }

`````
"""

R1_ANSWER = (
    "The previous prediction rewrote the string literal as a template literal; concatenation is the\n"
    "style this file already uses, so I keep the edit but match it.\n\n`````\n<|editable_region_start|>\n"
    'function greet(name) {\n  log("hello " + name);<|user_cursor|>\n}\n<|editable_region_end|>\n`````\n'
)
R1_PATCH = (
    "--- a/web/app.js\n+++ b/web/app.js\n@@ -3,3 +3,3 @@\n function greet(name) {\n"
    '-  log("hello");\n+  log("hello " + name);\n }\n'
)


def test_r1_needs_repair_on_the_judges_confidence() -> None:
    assert needs_repair(E2_QA, {"reversal_ratio": 0.0, "wrong_editable_region": False})


def test_r1_placeholders() -> None:
    assert quality_feedback(E2_QA, None) == (
        "- **Reverts the user's edits**: no\n- **Confidence**: 2/5\n"
        "- **Reviewer's reasoning**: Uses the new parameter, but switching to a template literal "
        "is not implied by the history."
    )
    assert token_change_info(E2_PATCH) == "\n## Token changes\n\n- **Tokens deleted**: 2\n- **Tokens inserted**: 7"


def test_r1_message_with_the_specified_template_file(spec_template: Path) -> None:
    template = load_repair_template(spec_template)
    assert template == SPEC_TEMPLATE
    message = repair_message(E2_PATCH, E2_QA, None, template=template)
    lines = SPEC_TEMPLATE.split("\n")
    # Lines 1-4 and 16-44 hold no placeholder and come through as they are; lines
    # 5-15 are R1's "message layout".
    assert message == "\n".join(lines[:4]) + "\n" + R1_LAYOUT + "\n".join(lines[15:])


def test_r1_conversation_repeats_the_teacher_turns() -> None:
    message = repair_message(E2_PATCH, E2_QA, None)
    assert repair_conversation(PROMPT, TEACHER_OUTPUT, message) == [
        {"role": "user", "content": PROMPT},
        {"role": "assistant", "content": TEACHER_OUTPUT},
        {"role": "user", "content": message},
    ]


def test_r1_answer_parses_to_the_appended_prediction() -> None:
    repaired = parse_repair_answer(R1_ANSWER, TEACHER, INPUT, PROMPT)
    assert repaired == ExamplePrediction(
        R1_PATCH, R1_ANSWER, ActualCursor("web/app.js", row=3, column=23, offset=79, editable_region_offset=46),
        provider="repair",
    )  # fmt: skip
    # §6 R1's "Appended prediction", key order included
    expected = (
        '{"actual_patch":' + json.dumps(R1_PATCH) + ',"actual_output":' + json.dumps(R1_ANSWER) + ","
        '"actual_cursor":{"path":"web/app.js","row":3,"column":23,"offset":79,"editable_region_offset":46},'
        '"provider":"repair"}'
    )
    assert json.dumps(repaired.to_json(), separators=(",", ":")) == expected
    assert ExamplePrediction.from_json(json.loads(expected)) == repaired


# ------------------------------------------------------------------------------------ R2

R2_METRICS = {"reversal_ratio": 0.95, "wrong_editable_region": False, "discarded_chars": 120, "exact_lines_fp": 7}
K = ActualCursor("web/app.js", row=3, column=10, offset=66, editable_region_offset=33)
P = ExamplePrediction(E2_PATCH, TEACHER_OUTPUT, K, provider="teacher")


def test_r2_needs_repair_on_the_scores() -> None:
    assert needs_repair(None, R2_METRICS)


def test_r2_feedback() -> None:
    assert quality_feedback(None, R2_METRICS) == (
        "Nobody has reviewed this prediction, but automatic scoring found possible problems:\n\n"
        "- The reversal ratio is high (0.95): the prediction may undo changes the user made on purpose. "
        "Check it again: keep it if its edits really continue what the user did, otherwise predict "
        "something that carries the user's intent forward.\n"
        "- The prediction may be too large or too speculative. Review it, then keep it or make it more "
        "focused, for example: - write a function's outline without its body - make only the first "
        "logical step of a larger change\n            Smaller predictions are more likely to be right.\n"
        "\n"
        "If the previous prediction was right after all, output `KEEP_PREVIOUS`. If no edit should be "
        "made and you do not see how to improve it, output `NO_EDITS`."
    )


def test_r2_keep_previous() -> None:
    answer = (
        "The flagged reversal is the user's own pattern being completed, so the previous edit stands.\n\n"
        "`````\nKEEP_PREVIOUS\n`````\n"
    )
    repaired = parse_repair_answer(answer, P, INPUT, PROMPT)
    assert repaired.to_json() == {
        "actual_patch": E2_PATCH, "actual_output": answer, "actual_cursor": K.to_json(), "provider": "repair",
    }  # fmt: skip
    # a previous prediction without a cursor: the key is omitted
    bare = parse_repair_answer(answer, ExamplePrediction(E2_PATCH, TEACHER_OUTPUT), INPUT, PROMPT)
    assert list(bare.to_json()) == ["actual_patch", "actual_output", "provider"]


def test_r2_no_edits_variant() -> None:
    answer = "The reversal is real: nothing should change.\n\n`````\nNO_EDITS\n`````\n"
    repaired = parse_repair_answer(answer, P, INPUT, PROMPT)
    assert json.dumps(repaired.to_json(), separators=(",", ":")) == (
        '{"actual_patch":"","actual_output":' + json.dumps(answer) + ',"provider":"repair"}'
    )


# ---------------------------------------------------------------- §3.2 triggers, one by one

PARSE_ERROR = QaResult(reasoning="not json", response="not json", error="Could not parse JSON from response")
FLAGGED = {"reversal_ratio": 0.99, "wrong_editable_region": True}


@pytest.mark.parametrize(
    ("qa", "metrics", "threshold", "needed"),
    [
        # QA present: its verdict decides, the scores are not consulted
        (QaResult(reverts_edits=True, confidence=5), {}, 2, True),
        (QaResult(reverts_edits=False, confidence=2), {}, 2, True),
        (QaResult(reverts_edits=False, confidence=3), FLAGGED, 2, False),
        (QaResult(reverts_edits=False, confidence=3), {}, 3, True),
        (QaResult(confidence=0), {}, 2, True),  # 256 wrapped to 0 is <= threshold
        (QaResult(reverts_edits=True), {}, 2, True),
        (QaResult(reasoning="fine", reverts_edits=False), FLAGGED, 2, False),  # no confidence: no repair
        (PARSE_ERROR, FLAGGED, 2, False),  # neither signal: no repair, whatever the scores say
        # QA absent: the scores
        (None, {"reversal_ratio": 0.95}, 2, True),
        (None, {"reversal_ratio": 0.9}, 2, False),
        (None, {"reversal_ratio": 0.9000000001}, 2, False),  # the f32 0.9 itself
        (None, {"reversal_ratio": 0.90000004}, 2, True),  # the next f32 above it
        (None, {"reversal_ratio": None}, 2, False),  # NaN, as a record writes it
        (None, {"reversal_ratio": 0.1, "wrong_editable_region": True}, 2, True),
        (None, {"reversal_ratio": 0.1, "wrong_editable_region": None}, 2, False),
        (None, {"reversal_ratio": 0.1, "discarded_chars": 500, "exact_lines_fp": 50}, 2, False),  # not a trigger
        (None, {}, 2, False),  # not scored
        (None, None, 2, False),
        # no judge's answer is no QA: no judge asked, or a judge that was not reached
        (QaResult(), FLAGGED, 2, True),
        (QaResult(error="judge unreachable: connection refused"), FLAGGED, 2, True),
        (QaResult(error="judge unreachable: connection refused"), {}, 2, False),
    ],
)
def test_needs_repair(qa: QaResult | None, metrics: dict[str, object] | None, threshold: int, needed: bool) -> None:
    assert needs_repair(qa, metrics, threshold=threshold) is needed


def test_feedback_of_a_verdict_with_absent_fields() -> None:
    assert quality_feedback(QaResult(response="{}"), None) == (
        "- **Reverts the user's edits**: unknown\n- **Confidence**: unknown/5\n"
        "- **Reviewer's reasoning**: No reasoning provided"
    )
    assert quality_feedback(QaResult(reverts_edits=True, confidence=1, reasoning="a\nb"), None) == (
        "- **Reverts the user's edits**: yes\n- **Confidence**: 1/5\n- **Reviewer's reasoning**: a\nb"
    )


def test_feedback_of_a_wrong_editable_region_alone() -> None:
    assert quality_feedback(None, {"reversal_ratio": 0.2, "wrong_editable_region": True}) == (
        "Nobody has reviewed this prediction, but automatic scoring found possible problems:\n\n"
        "- The prediction may change code outside the editable region, or not line up with its "
        "boundaries. Change only the editable region and keep to its boundaries.\n\n"
        "If the previous prediction was right after all, output `KEEP_PREVIOUS`. If no edit should be "
        "made and you do not see how to improve it, output `NO_EDITS`."
    )


def test_too_large_needs_both_counts_over_their_limits() -> None:
    def too_large(metrics: dict[str, object]) -> bool:
        feedback = quality_feedback(None, {"wrong_editable_region": True, **metrics})
        return feedback.count("\n- ") == 2 and "too large" in feedback

    assert too_large({"discarded_chars": 81, "exact_lines_fp": 6})
    assert not too_large({"discarded_chars": 80, "exact_lines_fp": 6})
    assert not too_large({"discarded_chars": 81, "exact_lines_fp": 5})
    assert not too_large({"exact_lines_fp": 9})  # absent discarded_chars counts as 0


def test_no_feedback_without_a_verdict_or_a_flag() -> None:
    with pytest.raises(RepairError, match="no quality feedback available"):
        quality_feedback(None, {"reversal_ratio": 0.5})
    with pytest.raises(RepairError):
        quality_feedback(QaResult(error="judge unreachable"), {})


# ----------------------------------------------------------------- §3.6 token counts


def _counts(patch: str) -> tuple[int, int]:
    info = token_change_info(patch)
    deleted = int(info.split("**Tokens deleted**: ")[1].split("\n")[0])
    inserted = int(info.split("**Tokens inserted**: ")[1].split("\n")[0])
    return deleted, inserted


@pytest.mark.parametrize(
    ("patch", "counts"),
    [
        # a run's old and new lines are pooled and diffed as token sequences
        ("-foo bar\n+foo baz\n", (1, 1)),
        ("-a\n+b\n-c\n+d\n", (2, 2)),  # interleaved: "a\nc" against "b\nd"
        # a context line, an empty line and a "\ No newline" line end the run
        ("-foo bar\n context\n+foo baz\n", (3, 3)),
        ("-foo bar\n\n+foo baz\n", (3, 3)),
        ("-foo bar\n\\ No newline at end of file\n+foo baz\n", (3, 3)),
        # so do headers: "---", "+++", "@@", "diff ", "index "
        ("-foo bar\n@@ -1 +1 @@\n+foo baz\n", (3, 3)),
        ("-foo bar\ndiff --git a/x b/x\n+foo baz\n", (3, 3)),
        ("-foo bar\nindex 1..2\n+foo baz\n", (3, 3)),
        ("-foo bar\n+++ b/x\n+foo baz\n", (3, 3)),
        # ... and a deleted line starting with "--" reads as a header, so ends the run
        ("-foo\n--- x\n+foo\n", (1, 1)),
        # an empty run counts nothing (a removed and an added blank line)
        ("-\n+\n", (0, 0)),
        ("-\n", (0, 0)),
        # the metrics tokenizer: camelCase segments, operators, newline runs
        ("-fooBar\n+fooBaz\n", (1, 1)),
        ("-a->b\n+a=>b\n", (1, 1)),
        ("-x <- y\n+x < - y\n", (1, 3)),
        ("-a\n-\n-b\n+a\n+b\n", (1, 1)),  # "\n\n" against "\n"
        ("-a = 1\n+a = 1\n", (0, 0)),
        ("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n-old_name = value\n+new_name = value\n", (1, 1)),
    ],
)
def test_token_counts(patch: str, counts: tuple[int, int]) -> None:
    assert _counts(patch) == counts


def test_the_note_comes_over_100_tokens_on_either_side() -> None:
    words = " ".join(["x"] * 50)  # 50 words and 49 spaces: 99 tokens
    assert _counts(f"+{words} \n") == (0, 100)
    assert "Note" not in token_change_info(f"+{words} \n")
    assert _counts(f"+{words}\n+y\n") == (0, 101)  # and "\n", "y"
    assert "> **Note:**" in token_change_info(f"+{words}\n+y\n")
    assert token_change_info(f"-{words} y\n") == (
        "\n## Token changes\n\n- **Tokens deleted**: 101\n- **Tokens inserted**: 0\n\n"
        "> **Note:** Many tokens change. Prefer a narrower edit that touches only the lines that must "
        "change over rewriting large sections."
    )


# ------------------------------------------------------------------ the template and its fill


def test_placeholders_are_filled_in_zeds_order_everywhere() -> None:
    template = "{token_change_info}|{quality_feedback}|{actual_patch_word_diff}|{quality_feedback}"
    qa = QaResult(reasoning="see {token_change_info}", confidence=1, response="r")
    message = repair_message("-a\n+b\n", qa, None, template=template)
    info = token_change_info("-a\n+b\n")
    # the reasoning's "{token_change_info}" is filled too, as the value came first
    assert message.count(info) == 3
    assert message.split("|")[2] == "[-a-]{+b+}\n"


def _shape(line: str) -> str:
    """What the structure of a template line is, whatever its prose says."""
    if line.startswith("{") or set(line.strip()) <= {"`"} or line.strip() == "KEEP_PREVIOUS":
        return line
    for prefix in ("## ", "# ", "- ", "  "):
        if line.startswith(prefix):
            return prefix + "…"
    return "…"


def test_the_default_template_has_the_specified_structure() -> None:
    assert not DEFAULT_REPAIR_TEMPLATE.endswith("\n")
    assert [_shape(line) for line in DEFAULT_REPAIR_TEMPLATE.split("\n")] == [
        _shape(line) for line in SPEC_TEMPLATE.split("\n")
    ]
    for name in ("{quality_feedback}", "{token_change_info}", "{actual_patch_word_diff}"):
        assert DEFAULT_REPAIR_TEMPLATE.count(name) == 1
    for sentinel in ("`NO_EDITS`", "`KEEP_PREVIOUS`"):
        assert sentinel in DEFAULT_REPAIR_TEMPLATE


def _error(path: Path) -> RepairTemplateError:
    with pytest.raises(RepairTemplateError) as caught:
        load_repair_template(path)
    error = caught.value
    assert error.path == str(path)
    assert "\n" not in error.reason and error.fix
    return error


def test_a_template_that_misspells_a_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text(SPEC_TEMPLATE.replace("{quality_feedback}", "{quality_feedbak}"), encoding="utf-8")
    error = _error(path)
    assert error.reason == "the repair template has no {quality_feedback}: is {quality_feedbak} meant to be it?"
    assert error.line == 7
    path.write_text(SPEC_TEMPLATE.replace("{token_change_info}", "{ token change info }"), encoding="utf-8")
    assert _error(path).line == 9


def test_a_template_without_a_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text(SPEC_TEMPLATE.replace("{actual_patch_word_diff}", "(the diff)"), encoding="utf-8")
    error = _error(path)
    assert error.reason == "the repair template has no {actual_patch_word_diff} placeholder"
    assert "{actual_patch_word_diff}" in error.fix


def test_a_template_with_double_braces(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text(SPEC_TEMPLATE.replace("{token_change_info}", "{{token_change_info}}"), encoding="utf-8")
    error = _error(path)
    assert error.reason == "the repair template writes {{token_change_info}}: its placeholders take single braces"
    assert error.line == 9


def test_a_template_that_cannot_be_read(tmp_path: Path) -> None:
    assert _error(tmp_path / "missing.md").reason == "the repair template does not exist"
    assert _error(tmp_path).reason.startswith("the repair template cannot be read")  # a directory
    path = tmp_path / "latin1.md"
    path.write_bytes(SPEC_TEMPLATE.encode() + b"\n\xe9t\xe9")
    error = _error(path)
    assert error.reason.startswith("the repair template is not UTF-8")
    assert error.line == 45


def test_errors_are_editpred_errors() -> None:
    assert issubclass(RepairTemplateError, EditPredError) and issubclass(RepairError, EditPredError)


def test_the_conversation_needs_the_teacher_turns() -> None:
    with pytest.raises(RepairError, match="no prompt"):
        repair_conversation(None, TEACHER_OUTPUT, "m")
    with pytest.raises(RepairError, match="answer is empty"):
        repair_conversation(PROMPT, "", "m")


# --------------------------------------------------------------------- §3.7 every form


def test_keep_previous_anywhere_wins() -> None:
    for answer in (
        "KEEP_PREVIOUS",
        "I will not use KEEP_PREVIOUS here.\n\n`````\nNO_EDITS\n`````",
        "`````\n<|editable_region_start|>\nx\n<|editable_region_end|>\n`````\n(KEEP_PREVIOUS)",
    ):
        assert parse_repair_answer(answer, P, INPUT, PROMPT) == ExamplePrediction(E2_PATCH, answer, K, None, "repair")
    # a previous prediction that did not parse is kept as "no edit", without a cursor
    unparsed = ExamplePrediction(None, "garbage", None, "Invalid editable region markers", "teacher")
    assert parse_repair_answer("KEEP_PREVIOUS", unparsed, INPUT, PROMPT).actual_patch == ""
    # case-sensitive: "keep_previous" is no sentinel (Zed then takes the answer whole)
    assert "+keep_previous\n" in (parse_repair_answer("keep_previous", P, INPUT, PROMPT).actual_patch or "")


@pytest.mark.parametrize(
    "answer",
    [
        "Nothing to do.\n\n`````\nNO_EDITS\n`````\n",
        "```\n  NO_EDITS  \n```",  # the last block, trimmed
        "Nothing to do: NO_EDITS",
        "NO_EDITS``` \n\n",  # trailing backticks, spaces and newlines are stripped
    ],
)
def test_no_edits(answer: str) -> None:
    assert parse_repair_answer(answer, P, INPUT, PROMPT) == ExamplePrediction("", answer, provider="repair")


def test_a_rewrite_without_a_cursor() -> None:
    answer = "`````\n<|editable_region_start|>\nfunction greet(name) {\n  log(name);\n}\n<|editable_region_end|>\n`````"
    repaired = parse_repair_answer(answer, P, INPUT, PROMPT)
    assert repaired.actual_patch == E2_PATCH.replace("+  log(`hello ${name}`);", "+  log(name);")
    assert repaired.actual_cursor is None and repaired.error is None


def test_a_cursor_on_the_regions_first_line_counts_the_column_from_the_excerpt_line() -> None:
    answer = (
        "`````\n<|editable_region_start|>\nfunc<|user_cursor|>tion greet(name) {\n  log(name);\n}\n"
        "<|editable_region_end|>\n`````"
    )
    cursor = parse_repair_answer(answer, P, INPUT, PROMPT).actual_cursor
    assert cursor == ActualCursor("web/app.js", row=2, column=4, offset=37, editable_region_offset=4)


def test_cursor_offsets_are_utf8_bytes() -> None:
    excerpt = "é = 1\nx = 'ü'\n"
    prompt = (
        "# 3. Current File\n\n`````a.py\né = 1\n"
        "<|editable_region_start|>\nx = 'ü'<|user_cursor|>\n\n<|editable_region_end|>\n`````"
    )
    zeta = ZetaInput(cursor_path="a.py", cursor_excerpt=excerpt, cursor_offset=13, excerpt_start_row=0)
    answer = "<|editable_region_start|>\nx = 'üü'<|user_cursor|>\n<|editable_region_end|>"
    repaired = parse_repair_answer(answer, P, zeta, prompt)
    assert repaired.actual_patch == "--- a/a.py\n+++ b/a.py\n@@ -2,1 +2,1 @@\n-x = 'ü'\n+x = 'üü'\n"
    # "é = 1\n" is 7 bytes; "x = 'üü'" is 10
    assert repaired.actual_cursor == ActualCursor("a.py", row=1, column=10, offset=17, editable_region_offset=10)


REGION_X = "<|editable_region_start|>\nx\n<|editable_region_end|>"


@pytest.mark.parametrize(
    ("answer", "input", "prompt", "message"),
    [
        (
            "<|editable_region_end|>\nx\n<|editable_region_start|>\n",
            INPUT,
            PROMPT,
            "Failed to parse repair response: Invalid editable region markers",
        ),
        (
            REGION_X,
            ZetaInput(cursor_path="web/app.js", cursor_excerpt="other text\n", cursor_offset=0, excerpt_start_row=0),
            PROMPT,
            "Failed to parse repair response: editable region not found in prompt content",
        ),
        (REGION_X, INPUT, None, "Failed to parse repair response: example prompt missing"),
        (REGION_X, None, PROMPT, "Failed to parse repair response: example is missing prompt inputs"),
    ],
)  # fmt: skip
def test_an_answer_that_cannot_be_placed_is_a_prediction_with_an_error(
    answer: str, input: ZetaInput | None, prompt: str | None, message: str
) -> None:
    repaired = parse_repair_answer(answer, P, input, prompt)
    assert repaired.actual_patch is None and repaired.actual_cursor is None
    assert repaired.error is not None and repaired.error.startswith(message)
    assert repaired.to_json() == {"actual_output": answer, "error": repaired.error, "provider": "repair"}


def test_an_answer_without_region_markers_is_taken_whole_as_zed_does() -> None:
    answer = "function greet(name) {\n  log(name);\n}"
    assert parse_repair_answer(answer, P, INPUT, PROMPT).actual_patch == (
        E2_PATCH.replace("+  log(`hello ${name}`);", "+  log(name);")
    )


def test_a_region_that_starts_with_a_newline_keeps_it() -> None:
    excerpt = "a\n\nb\n"
    prompt = "`````f\na\n<|editable_region_start|>\n\nb<|user_cursor|>\n<|editable_region_end|>\n`````"
    zeta = ZetaInput(cursor_path="f", cursor_excerpt=excerpt, cursor_offset=4, excerpt_start_row=0)
    answer = "<|editable_region_start|>\nB\n<|editable_region_end|>"
    # the old region "\nb" is found at offset 2 (row 1); the new one becomes "\nB", so
    # the blank line stays (without the newline it would be deleted)
    assert parse_repair_answer(answer, P, zeta, prompt).actual_patch == (
        "--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n \n-b\n+B\n"
    )


def test_teacher_prediction_raises_what_repair_records() -> None:
    with pytest.raises(PredictionError, match="^Invalid editable region markers"):
        teacher_prediction(INPUT, PROMPT, "<|editable_region_end|>\nx\n<|editable_region_start|>\n")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "a prediction must be an object"),
        ({"actual_patch": 3}, "prediction.actual_patch must be a string"),
        (
            {"actual_cursor": {"path": "a", "row": 1, "column": 2}},
            "actual_cursor.offset must be a non-negative integer",
        ),
        ({"actual_cursor": {"path": "a", "row": True, "column": 2, "offset": 3}}, "actual_cursor.row must be"),
        ({"actual_cursor": {"row": 1, "column": 2, "offset": 3}}, "actual_cursor.path must be a string"),
        ({"actual_cursor": "x"}, "actual_cursor must be an object"),
    ],
)
def test_reading_a_prediction_of_the_wrong_shape(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ExamplePrediction.from_json(value)


def test_reading_a_prediction_leniently() -> None:
    value = {"actual_patch": None, "actual_output": None, "provider": "teacher", "cumulative_logprob": -1.5}
    assert ExamplePrediction.from_json(value) == ExamplePrediction(None, "", provider="teacher")
    cursor = {"path": "a", "row": 1, "column": 2, "offset": 3, "editable_region_offset": None}
    assert ActualCursor.from_json(cursor) == ActualCursor("a", 1, 2, 3)
    assert ActualCursor.from_json(cursor).to_json() == {"path": "a", "row": 1, "column": 2, "offset": 3}
