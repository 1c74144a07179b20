"""``qa.parse_judge_answer``: the judge's raw answer read as Zed reads it (zed-qa-repair.md §2.8).

Every row of §2.8's table of checked cases, the answers of §6's E1-E3, and the
serde_json rules a Python ``json.loads`` would get wrong on its own.
"""

from __future__ import annotations

import pytest

from pytest_editpred.qa import PARSE_ERROR, QaResult, parse_judge_answer


def verdict(text: str) -> tuple[str | None, bool | None, int | None, str | None]:
    result = parse_judge_answer(text)
    assert result.response == text  # always the raw answer, untrimmed
    return result.reasoning, result.reverts_edits, result.confidence, result.error


def failed(text: str) -> QaResult:
    return QaResult(reasoning=text, response=text, error=PARSE_ERROR)


# -- §2.8's table -----------------------------------------------------------------------------------


def test_prose_then_a_json_fence_holding_a_valid_object() -> None:
    text = 'I think so.\n\n```json\n{"reasoning": "ok", "reverts_edits": false, "confidence": 4}\n```\nDone.\n'
    assert verdict(text) == ("ok", False, 4, None)


def test_a_bare_object_with_blank_lines_around_it() -> None:
    text = '\n\n  {"reasoning": "bare", "reverts_edits": true, "confidence": 1}  \n\n'
    assert verdict(text) == ("bare", True, 1, None)


def test_fields_of_the_wrong_type_are_absent_and_no_error() -> None:
    assert verdict('{"reasoning":"x","reverts_edits":"false","confidence":"4"}') == ("x", None, None, None)


def test_a_python_block_then_bare_json_after_it_is_an_error() -> None:
    """The first block is tried, not the JSON after it; the whole text is not JSON."""
    text = '```python\nprint("hi")\n```\n{"confidence": 3}\n'
    assert parse_judge_answer(text) == failed(text)


def test_an_unclosed_fence_runs_to_the_end_and_confidence_wraps_modulo_256() -> None:
    assert verdict('```\n{"confidence": 300, "reverts_edits": true}') == (None, True, 44, None)


def test_a_float_confidence_is_absent_without_error() -> None:
    assert verdict('```\n{"confidence": 4.0}\n```') == (None, None, None, None)


def test_an_indented_fence_is_no_fence() -> None:
    text = '  ```json\n  {"confidence": 4}\n  ```\n'
    assert parse_judge_answer(text) == failed(text)


def test_a_bare_number_parses_with_every_field_absent() -> None:
    assert verdict("5") == (None, None, None, None)
    assert verdict('"just a string"') == (None, None, None, None)


def test_with_duplicate_keys_the_last_one_wins() -> None:
    assert verdict('{"confidence": 2, "confidence": 5}') == (None, None, 5, None)


# -- §6's answers ----------------------------------------------------------------------------------

E1 = (
    "The user renamed `items` to `entries` in `__init__`, but `total` still reads `self.items`.\n"
    "Updating it finishes the rename.\n\n```json\n{\n"
    '  "reasoning": "Completes the items -> entries rename in total().",\n'
    '  "reverts_edits": false,\n  "confidence": 5\n}\n```\n'
)
E2 = (
    '\n{"reasoning": "Uses the new parameter, but switching to a template literal is not implied by the history.", '
    '"reverts_edits": false, "confidence": 2}\n'
)
E3 = (
    "Reasonable completion of the new function.\n\n```json\n"
    "{'reasoning': 'completes mul like add/sub', 'reverts_edits': False, 'confidence': 4}\n```\n"
)


def test_e1_a_fenced_answer_is_stored_in_zeds_key_order() -> None:
    stored = parse_judge_answer(E1).to_json()
    assert stored == {
        "reasoning": "Completes the items -> entries rename in total().",
        "reverts_edits": False,
        "confidence": 5,
        "response": E1,
    }
    assert list(stored) == ["reasoning", "reverts_edits", "confidence", "response"]


def test_e2_a_bare_answer_is_read_whole() -> None:
    assert parse_judge_answer(E2).to_json() == {
        "reasoning": "Uses the new parameter, but switching to a template literal is not implied by the history.",
        "reverts_edits": False,
        "confidence": 2,
        "response": E2,
    }


def test_e3_python_literals_are_no_json_and_the_raw_answer_is_kept() -> None:
    result = parse_judge_answer(E3)
    assert result.to_json() == {"reasoning": E3, "response": E3, "error": "Could not parse JSON from response"}
    assert result.acceptable is None


# -- missing fields, out-of-range confidence, types ------------------------------------------------


def test_missing_fields_are_absent() -> None:
    assert verdict('{"reasoning": "only this"}') == ("only this", None, None, None)
    assert verdict("{}") == (None, None, None, None)
    assert verdict('{"reasoning": null, "reverts_edits": null, "confidence": null}') == (None, None, None, None)


@pytest.mark.parametrize(
    "literal, confidence",
    [
        ("0", 0),
        ("9", 9),  # no range check: stored as is
        ("255", 255),
        ("256", 0),
        ("18446744073709551615", 255),  # 2**64 - 1: the largest u64
        ("18446744073709551616", None),  # beyond u64: serde_json reads a float
        ("123456789012345678901234567890", None),
        ("-1", None),
        ("-0", None),  # serde_json reads -0 as a float
        ("4.0", None),
        ("4e0", None),
        ("true", None),  # a boolean is no integer (Python's bool is an int)
        ('"4"', None),
        ("[4]", None),
    ],
)
def test_confidence_is_an_integer_0_to_2_64_minus_1_taken_modulo_256(literal: str, confidence: int | None) -> None:
    assert parse_judge_answer(f'{{"confidence": {literal}}}').confidence == confidence
    assert parse_judge_answer(f'{{"confidence": {literal}}}').error is None


def test_reverts_edits_must_be_a_json_boolean() -> None:
    assert parse_judge_answer('{"reverts_edits": 1}').reverts_edits is None
    assert parse_judge_answer('{"reverts_edits": true}').reverts_edits is True


# -- strict JSON as serde_json reads it -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"confidence": NaN}',
        '{"confidence": Infinity}',
        '{"confidence": 1e400}',  # out of a double's range
        '{"confidence": 1' + "0" * 400 + "}",  # an integer out of a double's range
        '{"confidence": 4,}',  # trailing comma
        '{"confidence": 4} and that is all',  # something after the value
        '// verdict\n{"confidence": 4}',  # a comment
        '{"reasoning": "\\ud800"}',  # a lone surrogate escape
        "[" * 128 + "]" * 128,  # deeper than serde_json's recursion limit
        "",
        "   \n",
    ],
)
def test_what_serde_json_refuses_is_a_parse_error(text: str) -> None:
    assert parse_judge_answer(text) == failed(text)


def test_nesting_serde_json_accepts_still_parses() -> None:
    assert verdict("[" * 127 + "]" * 127) == (None, None, None, None)


def test_the_whole_answer_is_trimmed_as_rust_trims() -> None:
    """``\\x1c`` is no whitespace to Rust (Python's ``str.strip`` would drop it); a
    no-break space is."""
    assert parse_judge_answer('\xa0{"confidence": 3}\u3000').confidence == 3
    text = '\x1c{"confidence": 3}'
    assert parse_judge_answer(text) == failed(text)


def test_only_the_first_block_is_tried() -> None:
    text = '```\nnot json\n```\n```json\n{"confidence": 5}\n```\n'
    assert parse_judge_answer(text) == failed(text)


def test_crlf_answers_split_as_rust_lines_split() -> None:
    assert verdict('```json\r\n{"confidence": 4,\r\n "reasoning": "crlf"}\r\n```\r\n') == ("crlf", None, 4, None)
