"""Loading example files (``pytest_editpred/example/_load.py``): the extensions, the
size limit, and broken files coming back as errors in their place.

Each test writes real files (markdown, ``.json``, ``.jsonl``, a directory, a FIFO,
a sparse file) to a temporary directory, calls :func:`load_examples`, and checks the
examples it returns or the exact error: its type, reason, fix, file and line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_editpred import (
    EditPredError,
    Example,
    FormatError,
    FrontMatterError,
    HeadingLevelError,
    JSONFormatError,
    MissingCursorBlockError,
    load_examples,
)
from pytest_editpred._limits import DEFAULT_LIMITS
from pytest_editpred.example._load import EXTENSIONS, too_big

URL = "https://github.com/acme/calc"
MARKDOWN = f"""+++
repository_url = "{URL}"
revision = "abc123"
+++

# Add sub

## Cursor Position

```calc.py
def sub(a, b):<|user_cursor|>
```
"""
RECORD = {
    "name": "sub",
    "repository_url": URL,
    "revision": "abc123",
    "cursor_path": "calc.py",
    "cursor_position": "def sub(a, b):<|user_cursor|>\n",
    "edit_history": "",
    "expected_patches": [],
}
LIMIT_FIX = (
    "Split it into smaller examples, or raise the limit with --editpred-max-example-bytes "
    "(ini editpred_max_example_bytes)."
)


def only(loaded: list[Example | EditPredError]) -> Example | EditPredError:
    assert len(loaded) == 1, loaded
    return loaded[0]


def example_of(loaded: list[Example | EditPredError]) -> Example:
    entry = only(loaded)
    assert isinstance(entry, Example), entry
    return entry


def error_of(loaded: list[Example | EditPredError]) -> EditPredError:
    entry = only(loaded)
    assert isinstance(entry, EditPredError), entry
    return entry


# -- the three formats --------------------------------------------------------------------------


def test_a_markdown_file_is_one_example(tmp_path: Path) -> None:
    path = tmp_path / "add-sub.md"
    path.write_text(MARKDOWN)
    example = example_of(load_examples(path))
    assert (example.name, example.repository_url, example.revision, example.cursor_path) == (
        "Add sub",
        URL,
        "abc123",
        "calc.py",
    )
    assert example.cursor_position == "def sub(a, b):<|user_cursor|>\n"
    assert (example.source.path, example.source.cursor_line) == (str(path), 11)


def test_a_json_file_is_one_example_named_by_its_stem_when_it_has_no_name(tmp_path: Path) -> None:
    path = tmp_path / "from-ep.json"
    path.write_text(json.dumps(dict(RECORD, name="")))
    example = example_of(load_examples(str(path)))  # a str path works too
    assert (example.name, example.cursor_path, example.source.path, example.source.line) == (
        "from-ep",
        "calc.py",
        str(path),
        1,
    )
    assert example == example_of(load_examples(tmp_path / "from-ep.json"))


def test_markdown_and_json_of_one_example_load_equal(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(MARKDOWN)
    (tmp_path / "a.json").write_text(json.dumps(dict(RECORD, name="Add sub")))
    assert example_of(load_examples(tmp_path / "a.md")) == example_of(load_examples(tmp_path / "a.json"))


def test_a_jsonl_file_is_one_example_a_line_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    lines = [json.dumps(dict(RECORD, name="first")), "", "   ", json.dumps(dict(RECORD, name="")), ""]
    path.write_text("\n".join(lines))
    loaded = load_examples(path)
    assert [(e.name, e.source.line) for e in loaded if isinstance(e, Example)] == [("first", 1), ("corpus-3", 4)]
    assert len(loaded) == 2


def test_a_jsonl_file_with_crlf_line_endings_loads(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    lines = [json.dumps(dict(RECORD, name="a")), json.dumps(dict(RECORD, name="b"))]
    path.write_bytes("".join(line + "\r\n" for line in lines).encode())
    assert [getattr(e, "name", None) for e in load_examples(path)] == ["a", "b"]


@pytest.mark.parametrize("suffix", [".MD", ".Json", ".JSONL"])
def test_extensions_are_matched_without_case(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"upper{suffix}"
    path.write_text(MARKDOWN if suffix.lower() == ".md" else json.dumps(RECORD))
    assert example_of(load_examples(path)).cursor_path == "calc.py"
    assert EXTENSIONS == (".md", ".json", ".jsonl")


@pytest.mark.parametrize("name,suffix", [("notes.txt", ".txt"), ("example.markdown", ".markdown"), ("README", "")])
def test_another_extension_is_refused_unread(tmp_path: Path, name: str, suffix: str) -> None:
    path = tmp_path / name
    path.write_text(MARKDOWN)
    error = error_of(load_examples(path))
    assert type(error) is FormatError
    assert (error.reason, error.fix, error.path, error.line) == (
        f"{name} has invalid example extension '{suffix}'",
        "Name example files *.md, *.json or *.jsonl.",
        str(path),
        None,
    )


def test_a_directory_is_not_walked_but_refused_as_one_file(tmp_path: Path) -> None:
    # load_examples reads files; finding them in a directory is the collector's job.
    folder = tmp_path / "evals"
    folder.mkdir()
    (folder / "a.md").write_text(MARKDOWN)
    error = error_of(load_examples(folder))
    assert (type(error), error.reason, error.path) == (
        FormatError,
        "evals has invalid example extension ''",
        str(folder),
    )
    named = tmp_path / "looks-like.md"
    named.mkdir()
    error = error_of(load_examples(named))
    assert (type(error), error.reason, error.path) == (FormatError, "cannot read the file: Is a directory", str(named))


@pytest.mark.parametrize("name", ["gone.md", "gone.json", "gone.jsonl"])
def test_a_missing_file_is_one_error(tmp_path: Path, name: str) -> None:
    error = error_of(load_examples(tmp_path / name))
    assert (type(error), error.reason, error.path) == (
        FormatError,
        "cannot read the file: No such file or directory",
        str(tmp_path / name),
    )


# -- the size limit -----------------------------------------------------------------------------


def test_too_big_is_the_one_message(tmp_path: Path) -> None:
    error = too_big(tmp_path / "x.md", 1_234_567, 1_000_000)
    assert type(error) is FormatError
    assert str(error) == (
        f"{tmp_path / 'x.md'}: the example file is 1,234,567 bytes, over the limit of 1,000,000 bytes for an "
        f"example; it was not read\n  fix: {LIMIT_FIX}"
    )
    unknown = too_big(tmp_path / "x.jsonl", None, 50, line=3, what="line 3")
    assert str(unknown) == (
        f"{tmp_path / 'x.jsonl'}:3: line 3 is larger than the limit of 50 bytes for an example; it was not read"
        f"\n  fix: {LIMIT_FIX}"
    )


@pytest.mark.parametrize("suffix", [".md", ".json"])
def test_a_file_at_the_limit_is_read_and_one_byte_over_it_is_not(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"edge{suffix}"
    text = MARKDOWN if suffix == ".md" else json.dumps(RECORD)
    path.write_text(text)
    size = len(text.encode())
    assert isinstance(only(load_examples(path, max_bytes=size)), Example)
    error = error_of(load_examples(path, max_bytes=size - 1))
    assert (type(error), error.path, error.line, error.fix) == (FormatError, str(path), None, LIMIT_FIX)
    assert error.reason == (
        f"the example file is {size:,} bytes, over the limit of {size - 1:,} bytes for an example; it was not read"
    )


def _bytes_read() -> int:
    """Bytes this process has read through read() calls so far (Linux)."""
    for row in Path("/proc/self/io").read_text().splitlines():
        if row.startswith("rchar:"):
            return int(row.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts bytes read through /proc/self/io")
def test_an_oversized_file_is_refused_unread_at_the_default_limit(tmp_path: Path) -> None:
    path = tmp_path / "huge.md"
    with open(path, "wb") as handle:  # 8 GiB, sparse: nothing written but its size
        handle.truncate(8 << 30)
    before = _bytes_read()
    error = error_of(load_examples(path))
    assert _bytes_read() - before < 1 << 20  # reading it would count 16 MiB at least
    assert error.reason == (
        f"the example file is 8,589,934,592 bytes, over the limit of {DEFAULT_LIMITS.max_example_bytes:,} "
        "bytes for an example; it was not read"
    )
    assert DEFAULT_LIMITS.max_example_bytes == 16 * 1024 * 1024


@pytest.mark.parametrize("name", ["pipe.md", "pipe.jsonl"])
def test_a_fifo_is_refused_unread(tmp_path: Path, name: str) -> None:
    # No writer: opening it to read as a file would wait forever; it is refused instead.
    path = tmp_path / name
    os.mkfifo(path)
    error = error_of(load_examples(path, max_bytes=100))
    assert (error.reason, error.fix, error.line) == (
        "it is a FIFO (named pipe), not a file; it was not read",
        "Name an example file; a pipe, socket or device is never read.",
        None,
    )


def test_the_limit_applies_to_each_jsonl_line_and_keeps_every_line_in_its_place(tmp_path: Path) -> None:
    small = json.dumps(dict(RECORD, name="s"))
    limit = len(small.encode())
    big = json.dumps(dict(RECORD, name="big", edit_history="y" * limit))
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join([small, big, small.replace('"s"', '"t"'), big]))  # the last line has no newline
    loaded = load_examples(path, max_bytes=limit)
    assert [
        (type(e).__name__, getattr(e, "name", None), e.line if isinstance(e, EditPredError) else e.source.line)
        for e in loaded
    ] == [("Example", "s", 1), ("FormatError", None, 2), ("Example", "t", 3), ("FormatError", None, 4)]
    assert isinstance(loaded[1], EditPredError) and loaded[1].reason == (
        f"line 2 is larger than the limit of {limit:,} bytes for an example; it was not read"
    )
    assert loaded[1].path == str(path) and loaded[1].fix == LIMIT_FIX


def test_a_jsonl_line_exactly_at_the_limit_is_read_also_before_crlf(tmp_path: Path) -> None:
    line = json.dumps(dict(RECORD, name="edge"))
    path = tmp_path / "edge.jsonl"
    path.write_bytes((line + "\r\n" + line).encode())
    loaded = load_examples(path, max_bytes=len(line.encode()))
    assert [getattr(e, "name", None) for e in loaded] == ["edge", "edge"]


# -- broken files: the error names the file and the line ----------------------------------------


@pytest.mark.parametrize(
    "text,kind,reason,line",
    [
        ("no front matter\n", FrontMatterError, "no front matter: the file must start with a '+++' line", 1),
        (
            '+++\nrepository_url = \nrevision = "x"\n+++\n',
            FrontMatterError,
            "the front matter is not valid TOML: Invalid value (column 18)",
            2,
        ),
        ('+++\nrevision = "abc"\n+++\n', FrontMatterError, "the front matter has no 'repository_url'", 1),
        (
            f'+++\nrepository_url = "{URL}"\nrevision = 7\n+++\n',
            FrontMatterError,
            "'revision' must be a non-empty string",
            3,
        ),
        (
            f'+++\nrepository_url = "{URL}"\nrevision = "abc"\n+++\n\n# N\n\n##### deep\n',
            HeadingLevelError,
            "Unexpected heading level: h5",
            8,
        ),
        (
            f'+++\nrepository_url = "{URL}"\nrevision = "abc"\n+++\n\n# N\n\n## Edit History\n',
            MissingCursorBlockError,
            "Missing cursor position codeblock",
            1,
        ),
    ],
    ids=["no-front-matter", "bad-toml", "no-url", "revision-not-string", "h5", "no-cursor"],
)
def test_a_malformed_markdown_file_names_file_and_line(
    tmp_path: Path, text: str, kind: type[EditPredError], reason: str, line: int
) -> None:
    path = tmp_path / "broken.md"
    path.write_text(text)
    error = error_of(load_examples(path))
    assert (type(error), error.reason, error.path, error.line) == (kind, reason, str(path), line)
    assert str(error).startswith(f"{path}:{line}: {reason}\n  fix: ")


@pytest.mark.parametrize(
    "text,reason,line",
    [
        (
            '{\n  "name": "x",\n  oops\n}\n',
            "invalid JSON: Expecting property name enclosed in double quotes (column 3)",
            3,
        ),
        ("[1, 2]", "an example must be a JSON object, not list", 1),
        (json.dumps({k: v for k, v in RECORD.items() if k != "revision"}), "the example has no 'revision'", 1),
        ("", "invalid JSON: Expecting value (column 1)", 1),
    ],
    ids=["syntax", "not-an-object", "missing-field", "empty"],
)
def test_a_malformed_json_file_names_file_and_line(tmp_path: Path, text: str, reason: str, line: int) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text)
    error = error_of(load_examples(path))
    assert (type(error), error.reason, error.path, error.line) == (JSONFormatError, reason, str(path), line)
    fix = "Write one Example object with Zed's field names (see the README)."
    assert str(error) == f"{path}:{line}: {reason}\n  fix: {fix}"


def test_a_malformed_jsonl_line_is_an_error_in_its_place(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([json.dumps(RECORD), "{not json", json.dumps(dict(RECORD, name="z")), '"text"']) + "\n")
    loaded = load_examples(path)
    assert len(loaded) == 4
    assert [getattr(e, "name", None) for e in loaded] == ["sub", None, "z", None]
    second, fourth = loaded[1], loaded[3]
    assert isinstance(second, JSONFormatError) and isinstance(fourth, JSONFormatError)
    assert (second.reason, second.path, second.line) == (
        "invalid JSON: Expecting property name enclosed in double quotes (column 2)",
        str(path),
        2,
    )
    assert (fourth.reason, fourth.line) == ("an example must be a JSON object, not str", 4)


@pytest.mark.parametrize(
    "name,data,line",
    [
        ("bad.md", b'+++\nrepository_url = "u"\n\xff\n+++\n', 3),
        ("bad.json", b'{"name":\n\n "\xc3"}', 3),
        ("bad.jsonl", json.dumps(RECORD).encode() + b"\n" + b'{"name": "\xe2\x82"}\n', 2),
    ],
)
def test_a_file_that_is_not_utf8_names_its_line(tmp_path: Path, name: str, data: bytes, line: int) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    error = error_of(load_examples(path))
    assert (type(error), error.reason, error.fix, error.path, error.line) == (
        FormatError,
        "the file is not valid UTF-8",
        "Save it as UTF-8.",
        str(path),
        line,
    )
