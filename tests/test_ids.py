"""Example ids (``pytest_editpred/example/_ids.py``), every rule of its docstring.

Parametrized tables of inputs and their exact ids: ``safe_id`` turns whitespace,
``[``, ``]``, ``.`` and ``::`` into ``-`` and trims dashes; ``example_id`` takes a
``.md``/``.json`` file's stem and a ``.jsonl`` line's (or a file-less example's)
name, each falling back to the other when it leaves nothing.
"""

from __future__ import annotations

import pytest

from pytest_editpred import Example, Source
from pytest_editpred.example import example_id, safe_id


@pytest.mark.parametrize(
    "text,expected",
    [
        ("plain-name_1", "plain-name_1"),
        # whitespace of every kind, a run of it one dash
        ("two words", "two-words"),
        ("tab\tand\nnewline", "tab-and-newline"),
        ("many   \t spaces", "many-spaces"),
        ("no\u00a0break", "no-break"),
        # pytest's parameter brackets
        ("trial[t2]", "trial-t2"),
        ("a[b]c", "a-b-c"),
        ("[]", ""),
        # '.' (pytest -v would show it as '::')
        ("error.rs", "error-rs"),
        ("a.b.c", "a-b-c"),
        ("v1..2", "v1-2"),
        # '::', the node-id separator; one ':' is fine
        ("mod::func", "mod-func"),
        ("a:b", "a:b"),
        ("a:::b", "a-:b"),
        ("a::::b", "a--b"),
        # a run of the character class is one dash, but '::' is its own
        ("a. [b]", "a-b"),
        ("a.::b", "a--b"),
        # dashes at the ends go, also ones that were there
        (" padded ", "padded"),
        ("--flag--", "flag"),
        ("[t1] name.", "t1-name"),
        # anything else stays as it is
        ("ünïcode/path(1)", "ünïcode/path(1)"),
        ("", ""),
        ("...", ""),
        (" :: ", ""),
    ],
)
def test_safe_id(text: str, expected: str) -> None:
    assert safe_id(text) == expected


def example(name: str, path: str | None) -> Example:
    return Example(
        name=name,
        repository_url="https://github.com/a/b",
        revision="abc1",
        cursor_path="f.py",
        cursor_position="x<|user_cursor|>",
        source=Source(path=path),
    )


@pytest.mark.parametrize(
    "name,path,expected",
    [
        # a .md or .json file holds one example: its id is the file's stem
        ("The Heading Name", "evals/flask--fix.md", "flask--fix"),
        ("ignored", "evals/sub dir/my example.json", "my-example"),
        ("ignored", "evals/upper.MD", "upper"),
        ("ignored", "evals/error.rs.md", "error-rs"),
        ("ignored", "evals/case[1].json", "case-1"),
        # ... unless the stem leaves nothing: then the name
        ("Fallback name", "evals/[].md", "Fallback-name"),
        ("Fallback name", "evals/....md", "Fallback-name"),
        # a .jsonl line's id is its name
        ("line name.v2", "corpus/set.jsonl", "line-name-v2"),
        # ... or, without one, the file's stem
        ("", "corpus/big set.jsonl", "big-set"),
        ("[]", "corpus/set.jsonl", "set"),
        # no file: the name, or nothing at all
        ("only::name", None, "only-name"),
        ("", None, ""),
        # another extension is not one example a file: the name first
        ("named", "notes/x.txt", "named"),
    ],
)
def test_example_id(name: str, path: str | None, expected: str) -> None:
    assert example_id(example(name, path)) == expected
