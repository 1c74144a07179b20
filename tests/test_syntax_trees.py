"""Syntax trees parsed once per file version and reached incrementally (issue 25):
random edit histories on real-size files of every grammar give the trees, the syntax
ranges and the prompts of a full parse.

Real-size files: standard-library modules for Python; for Rust, Go, TypeScript and
TSX (Zed's grammar for JavaScript too), the sources of this project's fixture
repositories (evals/repos/src) joined into files of over 2,000 lines. An edit
history is 1-5 edits of the kinds a user makes: a line typed (a copy of another
line, a comment), a line repeated, a line deleted, an identifier renamed, a
half-typed token, a span cut out.
Some leave the file valid, some break it; both kinds must occur, or the test proves
less than it says. A broken Rust, TypeScript or TSX buffer is parsed whole again
(``WHOLE_ON_ERROR``: their error recovery can differ); every other tree is the
incremental one, broken or not.

``EDITPRED_TREE_CASES`` sets the number of histories per grammar (default 40).
"""

from __future__ import annotations

import os
import random
import re
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from pytest_editpred.example import Example, load_examples
from pytest_editpred.scene import Cursor, PredictionRequest
from pytest_editpred.zeta import ZetaFormat, build_input, format_prompt, prefill
from pytest_editpred.zeta._syntax import _parser, syntax_ranges
from pytest_editpred.zeta._trees import WHOLE_ON_ERROR, _bases, clear, parse, text_edit

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "evals" / "repos" / "src"
CASES = int(os.environ.get("EDITPRED_TREE_CASES", "40"))
EXTENSIONS = {"python": "py", "rust": "rs", "go": "go", "typescript": "ts", "tsx": "tsx"}
# Half-typed tokens: brackets, quotes, comment openers, operators, non-ASCII.
JUNK = [*"( ) { } [ ' ` ''' /* # // : ; , => é 😀".split(), '"', '"""', "\\", "if ", "x = ", "\n    "]


def _joined(pattern: str, lines: int = 2000) -> str:
    files = [path.read_text() for path in sorted(SOURCES.glob(pattern))]
    assert files, pattern
    out: list[str] = []
    while sum(text.count("\n") for text in out) < lines:
        out.extend(files)
    return "\n".join(out)


def _files(grammar: str) -> list[str]:
    if grammar == "python":
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        chosen = [stdlib / name for name in ("typing.py", "argparse.py", "inspect.py", "tarfile.py", "pathlib.py")]
        return [path.read_text(encoding="utf-8") for path in chosen]
    pattern = {
        "rust": "rustkv/*/src/*.rs",
        "go": "taskd/*/**/*.go",
        "typescript": "tsinventory/*/src/**/*.ts",
        "tsx": "tsinventory/*/src/**/*.ts",
    }[grammar]
    return [_joined(pattern)]


def _line_bounds(text: str, rng: random.Random) -> tuple[int, int]:
    """A random whole line: its start and its end after the newline."""
    at = rng.randrange(len(text))
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return start, len(text) if end < 0 else end + 1


def _edit(text: str, rng: random.Random, comment: str, careful: bool) -> tuple[str, int]:
    """One edit of a user's kind, and where it ended (the cursor after it). A
    ``careful`` user only renames, comments and repeats a line in place, which
    mostly keeps the file valid."""
    kind = rng.choice([2, 5, 6] if careful else [0, 1, 2, 3, 4, 5, 6])
    if kind == 5:  # a comment line typed
        at, _ = _line_bounds(text, rng)
        line = f"{comment} note {rng.randrange(1000)}\n"
        return text[:at] + line + text[at:], at + len(line) - 1
    if kind == 6:  # a line repeated in place
        start, end = _line_bounds(text, rng)
        line = text[start:end] if text[start:end].endswith("\n") else "\n" + text[start:end]
        return text[:end] + line + text[end:], end + len(line) - 1
    if kind == 0:  # a line typed: a copy of another line
        start, end = _line_bounds(text, rng)
        at, _ = _line_bounds(text, rng)
        line = text[start:end] if text[start:end].endswith("\n") else text[start:end] + "\n"
        return text[:at] + line + text[at:], at + len(line) - 1
    if kind == 1:  # a line deleted
        start, end = _line_bounds(text, rng)
        return text[:start] + text[end:], start
    if kind == 2:  # an identifier renamed (every occurrence in a stretch)
        names = re.findall(r"\b[a-z_][a-z0-9_]{3,}\b", text)
        old = rng.choice(names)
        at = rng.randrange(len(text))
        stretch = text[at : at + 3000]
        return text[:at] + re.sub(rf"\b{old}\b", old + "_renamed", stretch) + text[at + 3000 :], at
    if kind == 3:  # a half-typed token
        at = rng.randrange(len(text) + 1)
        typed = "".join(rng.choice(JUNK) for _ in range(rng.randint(1, 3)))
        return text[:at] + typed + text[at:], at + len(typed)
    at = rng.randrange(len(text))  # a span cut out
    end = min(len(text), at + rng.randint(1, 120))
    return text[:at] + text[end:], at


def _history(base: str, grammar: str, rng: random.Random) -> tuple[str, int]:
    text, cursor = base, 0
    comment = "#" if grammar == "python" else "//"
    careful = rng.random() < 0.5
    for _ in range(rng.randint(1, 5)):
        text, cursor = _edit(text, rng, comment, careful)
    return text, max(0, min(cursor, len(text)))


def _shape(tree: Any) -> list[tuple[Any, ...]]:
    """Every node of a tree, in order: kind, bytes, points, missing, named."""
    out: list[tuple[Any, ...]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        out.append((node.type, node.start_byte, node.end_byte, node.start_point, node.end_point, node.is_missing))
        stack.extend(reversed(node.children))
    return out


@pytest.mark.parametrize("grammar", list(EXTENSIONS))
def test_incremental_trees_and_ranges_are_a_full_parses(grammar: str) -> None:
    rng = random.Random(f"trees-{grammar}")
    bases = _files(grammar)
    parser = _parser(grammar)
    path = f"src/file.{EXTENSIONS[grammar]}"
    kept = broken = 0
    for case in range(CASES):
        base = rng.choice(bases)
        text, cursor = _history(base, grammar, rng)
        clear()
        full = parse(parser, grammar, text)  # no base: parsed whole
        expected = syntax_ranges(text, cursor, path, 0, len(text))
        clear()
        parse(parser, grammar, base)  # the file version, parsed once ...
        reached = parse(parser, grammar, text, base)  # ... and the buffer reached from it
        assert _shape(reached) == _shape(full), f"case {case}"
        clear()
        parse(parser, grammar, base)
        got = syntax_ranges(text, cursor, path, 0, len(text), base=base)
        assert got == expected, f"case {case}"
        # The base reached backwards from a first buffer, then a second buffer from it.
        first, _ = _history(base, grammar, rng)
        clear()
        parse(parser, grammar, first, base)  # first sight: parsed whole
        assert _shape(parse(parser, grammar, text, base)) == _shape(full), f"case {case}, after a first buffer"
        assert _shape(_bases.get(grammar, base)) == _shape(parser.parse(base.encode())), f"case {case}, the base"
        if full.root_node.has_error:
            broken += 1
        else:
            kept += 1
    # valid buffers and broken ones both occurred
    assert kept >= CASES // 5 and broken >= CASES // 10, (kept, broken)


def test_a_broken_typescript_buffer_is_parsed_whole() -> None:
    # Found by the random histories: this one insertion into the joined TypeScript
    # file gives a different tree incrementally than from scratch, so a TypeScript
    # tree with an error is parsed whole (WHOLE_ON_ERROR): the full parse's tree.
    base = _files("typescript")[0]
    text = base[:54800] + "x = #" + base[54800:]
    parser = _parser("typescript")
    clear()
    full = parse(parser, "typescript", text)
    assert full.root_node.has_error and "typescript" in WHOLE_ON_ERROR
    clear()
    parse(parser, "typescript", base)
    assert _shape(parse(parser, "typescript", text, base)) == _shape(full)


def _request(path: str, text: str, cursor: int, base: str | None) -> PredictionRequest:
    [example] = load_examples(ROOT / "evals" / "pyshapes--complete-radius.md")
    assert isinstance(example, Example)
    return PredictionRequest(
        example=example,
        buffers={path: text},
        cursor=Cursor.at(path, text, cursor),
        base_texts={path: base} if base is not None else {},
    )


@pytest.mark.parametrize("grammar", list(EXTENSIONS))
def test_prompts_are_the_same_with_and_without_the_base_tree(grammar: str) -> None:
    rng = random.Random(f"prompts-{grammar}")
    bases = _files(grammar)
    path = f"src/file.{EXTENSIONS[grammar]}"
    for case in range(max(4, CASES // 5)):
        base = rng.choice(bases)
        text, cursor = _history(base, grammar, rng)
        clear()
        alone = build_input(_request(path, text, cursor, None))
        clear()
        parse(_parser(grammar), grammar, base)  # the base seen before: reached incrementally
        reached = build_input(_request(path, text, cursor, base))
        assert reached == alone, f"case {case}"
        assert reached.syntax_ranges, f"case {case}: no syntax ranges, nothing compared"
        for fmt in ZetaFormat:
            prompt = format_prompt(reached, fmt)
            assert prompt == format_prompt(alone, fmt), f"case {case}, {fmt}"
            if prompt is not None:
                assert prefill(reached, fmt) == prefill(alone, fmt), f"case {case}, {fmt}"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("abc", "abc"),
        ("", "x"),
        ("x", ""),
        ("abc", "aXc"),
        ("aé", "aè"),  # same lead byte: the edit starts at the character, not inside it
        ("é😀b", "é😁b"),
        ("line\nabc\nend", "line\nabXYc\nend"),
        ("ab" * 5000 + "c" + "d" * 5000, "ab" * 5000 + "Q" + "d" * 5000),  # past a block
    ],
)
def test_text_edit_turns_the_old_bytes_into_the_new(old: str, new: str) -> None:
    a, b = old.encode(), new.encode()
    start, old_end, new_end, start_point, old_end_point, new_end_point = text_edit(a, b)
    assert a[:start] + b[start:new_end] + a[old_end:] == b
    assert a[:start] == b[:start] and a[old_end:] == b[new_end:]
    for data, offset in ((a, start), (a, old_end), (b, new_end)):
        assert offset == len(data) or data[offset] & 0xC0 != 0x80  # a character boundary
    assert start_point == (a[:start].count(b"\n"), start - (a.rfind(b"\n", 0, start) + 1))
    assert old_end_point[0] == a[:old_end].count(b"\n")
    assert new_end_point[0] == b[:new_end].count(b"\n")
    if old != new:
        assert b[start:new_end] or a[start:old_end]  # the edit is not empty


class _Recorder:
    """A real parser that notes, for every parse, whether it was incremental."""

    def __init__(self, parser: Any) -> None:
        self.parser, self.calls = parser, []

    def parse(self, data: bytes, old_tree: Any = None) -> Any:
        self.calls.append(("incremental" if old_tree is not None else "whole", data))
        return self.parser.parse(data, old_tree=old_tree) if old_tree is not None else self.parser.parse(data)


def test_a_file_version_is_parsed_whole_once_however_many_buffers_come_from_it() -> None:
    # Most corpora hold one example per file version: the first buffer is parsed
    # whole and its base is not; a second buffer reaches the base from the first
    # one's tree, and itself from the base's: no second full parse.
    base = _files("python")[0]
    first, second, third = (base.replace(word, word + " ", 1) for word in ("import ", "def ", "class "))
    recorder = _Recorder(_parser("python"))
    clear()
    parse(recorder, "python", first, base)  # type: ignore[arg-type]
    assert _bases.get("python", base) is None
    parse(recorder, "python", second, base)  # type: ignore[arg-type]
    parse(recorder, "python", third, base)  # type: ignore[arg-type]
    assert _bases.get("python", base) is not None
    assert recorder.calls == [
        ("whole", first.encode()),
        ("incremental", base.encode()),
        ("incremental", second.encode()),
        ("incremental", third.encode()),
    ]


def test_a_trial_reuses_the_buffers_tree() -> None:
    # The same buffer twice (two trials of one example): one tree.
    base = _files("python")[0]
    text = base.replace("import ", "import  ", 1)
    parser = _parser("python")
    clear()
    assert parse(parser, "python", text, base) is parse(parser, "python", text, base)


def test_a_trials_prompt_input_reuses_the_first_trials_cursor_parts() -> None:
    # The excerpt, syntax ranges and legacy ranges of one text and cursor are made
    # once; the next trial (a request built anew, equal texts) reads them back.
    from pytest_editpred.zeta._build import _cached_cursor_parts

    base = _files("python")[1]
    text = base.replace("import ", "import  ", 1)
    first = _request("src/a.py", text, 500, base)
    again = _request("src/a.py", "".join(text), 500, base)  # another object, same text
    built = build_input(first)
    hits = _cached_cursor_parts.cache_info().hits
    assert build_input(again) == built
    assert _cached_cursor_parts.cache_info().hits == hits + 1


def test_a_base_over_the_parse_limit_is_not_parsed() -> None:
    # The buffer was cut down from a file too big to parse: the buffer is parsed
    # alone, and its ranges are a full parse's.
    from pytest_editpred.zeta._syntax import MAX_PARSE_BYTES

    text = _files("python")[0]
    base = text + "#" * MAX_PARSE_BYTES
    clear()
    expected = syntax_ranges(text, 1000, "src/a.py", 0, len(text))
    clear()
    assert syntax_ranges(text, 1000, "src/a.py", 0, len(text), base=base) == expected
    other = text.replace("import ", "import  ", 1)  # a second buffer of that base
    syntax_ranges(other, 1000, "src/a.py", 0, len(other), base=base)
    assert _bases.get("python", base) is None
