"""``qa.QaResult``: the judge's verdict as Zed stores it (zed-qa-repair.md §2.9), and
what "judged acceptable" means."""

from __future__ import annotations

import json

import pytest

from pytest_editpred.qa import QaResult


def test_to_json_keeps_zeds_key_order_and_omits_absent_fields() -> None:
    full = QaResult(reasoning="r", reverts_edits=False, confidence=3, response="raw", error="e")
    assert list(full.to_json()) == ["reasoning", "reverts_edits", "confidence", "response", "error"]
    assert QaResult(confidence=0, reverts_edits=False).to_json() == {"reverts_edits": False, "confidence": 0}
    assert QaResult().to_json() == {}


def test_from_json_reads_back_what_to_json_wrote() -> None:
    result = QaResult(reasoning="r", reverts_edits=True, confidence=5, response="raw")
    assert QaResult.from_json(json.loads(json.dumps(result.to_json()))) == result


def test_from_json_is_lenient_about_missing_null_and_unknown_keys() -> None:
    assert QaResult.from_json(None) == QaResult()  # no judge was asked
    assert QaResult.from_json({}) == QaResult()
    assert QaResult.from_json({"confidence": None, "reasoning": None, "verdict": "x", "score": [1]}) == QaResult()
    assert QaResult.from_json({"error": "judge unreachable"}) == QaResult(error="judge unreachable")


@pytest.mark.parametrize(
    "value, message",
    [
        ({"confidence": 256}, "QA result field 'confidence' must be an integer 0-255, not 256"),
        ({"confidence": -1}, "QA result field 'confidence' must be an integer 0-255, not -1"),
        ({"confidence": 4.0}, "QA result field 'confidence' must be an integer 0-255, not 4.0"),
        ({"confidence": "4"}, "QA result field 'confidence' must be an integer 0-255, not a string"),
        ({"confidence": True}, "QA result field 'confidence' must be an integer 0-255, not true"),
        ({"reverts_edits": "false"}, "QA result field 'reverts_edits' must be true or false, not a string"),
        ({"reverts_edits": 0}, "QA result field 'reverts_edits' must be true or false, not 0"),
        ({"reasoning": 5}, "QA result field 'reasoning' must be a string, not 5"),
        ({"response": ["a"]}, "QA result field 'response' must be a string, not an array"),
        ({"error": {"type": "x"}}, "QA result field 'error' must be a string, not an object"),
        ([{"confidence": 4}], "a QA result must be a JSON object or null, not an array"),
        ("5", "a QA result must be a JSON object or null, not a string"),
    ],
)
def test_from_json_refuses_a_wrong_type_or_a_confidence_outside_a_byte(value: object, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        QaResult.from_json(value)
    assert str(raised.value) == message


def test_a_result_cannot_be_built_with_a_confidence_zed_could_not_store() -> None:
    with pytest.raises(ValueError, match="0-255"):
        QaResult(confidence=300)
    with pytest.raises(ValueError, match="0-255"):
        QaResult(confidence=True)


@pytest.mark.parametrize(
    "result, acceptable",
    [
        (QaResult(confidence=4, reverts_edits=False), True),
        (QaResult(confidence=5), True),  # reverts unknown: not said to revert
        (QaResult(confidence=9, reverts_edits=False), True),  # out of 1-5 but stored, as Zed does
        (QaResult(confidence=5, reverts_edits=True), False),
        (QaResult(confidence=3, reverts_edits=False), False),
        (QaResult(confidence=0), False),  # 256 wrapped
        (QaResult(reverts_edits=False), None),  # no confidence: nothing to judge by
        (QaResult(reasoning="x", response="x", error="Could not parse JSON from response"), None),
        (QaResult(), None),
    ],
)
def test_acceptable_is_confidence_4_or_more_and_no_revert(result: QaResult, acceptable: bool | None) -> None:
    assert result.acceptable is acceptable
