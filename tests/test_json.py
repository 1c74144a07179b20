"""JSON and JSONL examples with Zed's serde field names (zed-format.md §5.2)."""

from __future__ import annotations

import json

import pytest

from pytest_editpred import (
    Example,
    JSONFormatError,
    RecentFile,
    from_json,
    from_markdown,
    load_examples,
    to_json,
    to_markdown,
)

ZED_OUTPUT = {
    "name": "flask--x",
    "repository_url": "https://github.com/pallets/flask",
    "revision": "2fec0b206c6e83ea813ab26597e15c96fab08be7",
    "tags": ["t"],
    "uncommitted_diff": "",
    "recently_opened_files": [{"path": "a.py", "cursor_position": 4}, {"path": "b.py"}],
    "uncommitted_diff_contains_edit_history": True,
    "cursor_path": "tests/test_basic.py",
    "cursor_position": "de<|user_cursor|>\n",
    "edit_history": "--- a/f\n+++ b/f\n+de\n",
    "expected_patches": ["--- a/f\n+++ b/f\n-de\n+def\n"],
    "rejected_patch": "--- a/f\n+++ b/f\n-de\n+del\n",
    # pipeline fields `ep` adds are ignored
    "prompt_inputs": {"cursor_path": "x"},
    "predictions": [{"actual_output": "", "provider": "zeta2"}],
    "score": [{"delta_chr_f": 50.0}],
}


def test_ep_output_loads_as_is() -> None:
    example = from_json(json.dumps(ZED_OUTPUT), "x.json")
    assert example.name == "flask--x"
    assert example.uncommitted_diff_requires_edit_history_rollback is True
    assert example.recently_opened_files == (RecentFile("a.py", 4), RecentFile("b.py"))
    assert example.tags == ("t",)
    assert example.rejected_patch is not None


def test_json_round_trip_and_markdown_agree() -> None:
    example = from_json(json.dumps(ZED_OUTPUT))
    assert from_json(json.dumps(to_json(example))) == example
    assert from_markdown(to_markdown(example)) == example
    assert to_json(example)["uncommitted_diff_contains_edit_history"] is True


def test_jsonl_names_and_bad_lines(tmp_path) -> None:
    good = dict(ZED_OUTPUT, name="")
    text = json.dumps(good) + "\n\n" + "{not json\n" + json.dumps(ZED_OUTPUT) + "\n" + "[1]\n"
    path = tmp_path / "set.jsonl"
    path.write_text(text)
    results = load_examples(path)
    assert len(results) == 4
    first, bad, named, wrong = results
    assert isinstance(first, Example) and first.name == "set-0"
    assert isinstance(bad, JSONFormatError) and bad.line == 3 and bad.path == str(path)
    assert isinstance(named, Example) and named.name == "flask--x" and named.source.line == 4
    assert isinstance(wrong, JSONFormatError) and "JSON object" in wrong.reason


@pytest.mark.parametrize(
    "change,words",
    [
        ({"repository_url": None}, "repository_url"),
        ({"revision": 3}, "revision"),
        ({"expected_patches": "x"}, "expected_patches"),
        ({"recently_opened_files": [{"path": 1}]}, "recently_opened_files"),
        ({"cursor_position": ""}, "must not be empty"),
        ({"uncommitted_diff_contains_edit_history": "yes"}, "true or false"),
    ],
)
def test_wrong_fields_are_clear_errors(change: dict, words: str) -> None:
    data = dict(ZED_OUTPUT)
    for key, value in change.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    with pytest.raises(JSONFormatError) as info:
        from_json(json.dumps(data), "x.json")
    assert words in info.value.reason and info.value.path == "x.json"


def test_unknown_extension_and_unreadable_files(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("x")
    [error] = load_examples(tmp_path / "a.txt")
    assert "invalid example extension" in error.reason
    (tmp_path / "b.md").write_bytes(b"+++\n\xff\xfe\n")
    [error] = load_examples(tmp_path / "b.md")
    assert "UTF-8" in error.reason and error.line == 2
