"""Line endings as Zed's buffers hold them: ``\\n`` in every buffer, in markdown and in
ep JSON alike, for repository files, histories, expected patches, imported texts and
answers; the style a file is stored with still known where it matters (the tree, the
worktree, ``PredictionRequest.line_endings``).

Zed's rule (its ``text`` crate): ``LineEnding::normalize`` makes every ``\\r\\n`` and
every lone ``\\r`` a ``\\n``; ``LineEnding::detect`` reads the first ``\\n`` in the
first 1,000 bytes. Every repository here is a real one, made in ``tmp_path``.
"""

from __future__ import annotations

import dataclasses
import json
import sysconfig
from pathlib import Path

import pytest
from gitrepos import make_repo, map_in_ini

from pytest_editpred import Prediction, UncommittedDiffError, from_markdown
from pytest_editpred._diff import apply_to_string, parse_diff
from pytest_editpred._eol import in_file_styles, split_lone_carriage_returns
from pytest_editpred._text import detect_line_ending, normalize_line_endings, normalized_offset
from pytest_editpred._textdiff import diff_texts
from pytest_editpred.cli import main
from pytest_editpred.example import Example, from_json, to_json, to_markdown
from pytest_editpred.example._cursor import normalize_cursor_block
from pytest_editpred.judge import expected_candidates, judge
from pytest_editpred.scene import RepositoryCache, build_scene

STDLIB = Path(sysconfig.get_paths()["stdlib"])
URL = "https://github.com/acme/windows"
#: The endings of a mixed file, line after line.
MIXED = ("\r\n", "\n", "\r")


def join(lines: list[str], style: str) -> str:
    """``lines`` each ended by ``style``'s ending: ``crlf``, ``cr``, ``lf`` or ``mixed``."""
    if style == "mixed":
        return "".join(line + MIXED[index % 3] for index, line in enumerate(lines))
    ending = {"crlf": "\r\n", "cr": "\r", "lf": "\n"}[style]
    return "".join(line + ending for line in lines)


# ----------------------------------------------------------------------- Zed's rules


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("a\r\nb\r\n", "a\nb\n"),
        ("a\rb\r", "a\nb\n"),
        ("a\r\r\nb", "a\n\nb"),  # a lone \r, then a pair
        ("a\n\rb", "a\n\nb"),
        ("no carriage return\n", "no carriage return\n"),
    ],
)
def test_normalize_is_zeds_regex(text: str, normal: str) -> None:
    assert normalize_line_endings(text) == normal


def test_an_offset_moves_with_the_pairs_before_it_and_a_cursor_inside_a_pair_ends_its_line() -> None:
    text = "ab\r\ncd\r\nef"
    normal = normalize_line_endings(text)
    for offset, char in ((0, "a"), (4, "c"), (8, "e")):
        assert normal[normalized_offset(text, offset)] == char
    assert normalized_offset(text, 3) == 2 == normal.index("\n")  # between \r and \n: the line's end
    assert normalized_offset(text, len(text)) == len(normal)
    assert normalized_offset("a\rb", 2) == 2  # a lone \r is one character either way


@pytest.mark.parametrize(
    ("text", "style"),
    [
        ("a\r\nb\n", "\r\n"),
        ("a\nb\r\n", "\n"),  # the first newline decides
        ("no newline", "\n"),  # Zed's default
        ("a\rb\rc\r", "\n"),  # lone \r: there is no \n to read
        ("x" * 998 + "\r\n", "\r\n"),  # the \n is byte 1,000
        ("x" * 999 + "\r\n", "\n"),  # past the first 1,000 bytes
        ("é" * 499 + "\r\n", "\r\n"),  # 998 bytes, then the pair
    ],
)
def test_detect_reads_the_first_newline_in_the_first_thousand_bytes(text: str, style: str) -> None:
    assert detect_line_ending(text) == style
    assert detect_line_ending(text.encode()) == style


# ----------------------------------------------------------------------- the diff engine


def test_a_diff_written_from_a_crlf_text_applies_to_the_buffer_of_that_text() -> None:
    before = join(["def f():", "    return 1", ""], "crlf")
    after = join(["def f():", "    return 2", ""], "crlf")
    diff = diff_texts(before, after, "a/f.py", "b/f.py").text
    assert "\r\n" in diff
    assert apply_to_string(diff, normalize_line_endings(before)) == normalize_line_endings(after)


def test_a_lone_carriage_return_in_a_line_is_a_line_break_not_the_end_of_the_diff() -> None:
    diff = "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n a = 1\r# old mac line\n-b = 2\n+b = 3\rc = 4\n d = 5\n"
    [section] = parse_diff(diff)
    [hunk] = section.hunks
    assert hunk.context == "a = 1\n# old mac line\nb = 2\nd = 5\n"
    assert hunk.new_text() == "a = 1\n# old mac line\nb = 3\nc = 4\nd = 5\n"


def test_markdown_holds_a_diff_with_lone_carriage_returns_as_the_lines_they_make() -> None:
    before = join(["x = 1", "y = 2", "z = 3"], "cr")
    after = join(["x = 1", "y = 20", "z = 3"], "cr")
    diff = diff_texts(before, after, "a/m.py", "b/m.py").text
    written = split_lone_carriage_returns(diff)
    assert "\r" not in written
    assert written.splitlines()[2] == "@@ -1,3 +1,3 @@"  # one line: 3 rows, the last "\r" ends the third
    assert "No newline" not in written
    read_back = normalize_line_endings(written)  # what markdown's reader gives
    assert apply_to_string(read_back, normalize_line_endings(before)) == normalize_line_endings(after)
    assert apply_to_string(diff, normalize_line_endings(before)) == normalize_line_endings(after)
    assert split_lone_carriage_returns("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\r\n+b\r\n") == (
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\r\n+b\r\n"  # CRLF alone: kept as it is
    )


def test_a_diff_is_written_in_the_style_of_the_files_it_edits() -> None:
    diff = (
        "--- a/w.c\n+++ b/w.c\n@@ -1,2 +1,2 @@\n-int a;\n+int b;\n \n"
        "--- a/u.c\n+++ b/u.c\n@@ -1 +1 @@\n-x\n+y\n"
        "--- /dev/null\n+++ b/new.c\n@@ -0,0 +1 @@\n+z\n"
    )
    styles = {"w.c": "\r\n", "u.c": "\n"}
    assert in_file_styles(diff, styles.get) == (
        "--- a/w.c\n+++ b/w.c\n@@ -1,2 +1,2 @@\n-int a;\r\n+int b;\r\n \r\n"
        "--- a/u.c\n+++ b/u.c\n@@ -1 +1 @@\n-x\n+y\n"
        "--- /dev/null\n+++ b/new.c\n@@ -0,0 +1 @@\n+z\n"
    )


def test_a_cursor_block_holds_what_a_buffer_holds() -> None:
    assert normalize_cursor_block("a = 1\r\nb<|user_cursor|> = 2\r\n") == "a = 1\nb<|user_cursor|> = 2\n"
    # between the \r and the \n of a pair: the end of the line's text, not a new line
    assert normalize_cursor_block("a = 1\r<|user_cursor|>\nb = 2") == "a = 1<|user_cursor|>\nb = 2"


# ----------------------------------------------------------------------- a real repository


def calc_lines() -> list[str]:
    return ["def add(a, b):", "    return a + b", "", "", "def mul(a, b):", "    return a * b"]


HISTORY_LINES = [*calc_lines(), "", "", "def sub(a, b):"]
EXPECTED_LINES = [*HISTORY_LINES, "    return a - b"]
STYLES = ("crlf", "cr", "mixed")


@pytest.fixture
def windows(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose files are committed with CRLF, lone CR and mixed endings."""
    files = {f"{style}.py": join(calc_lines(), style) for style in STYLES}
    files["lf.py"] = join(calc_lines(), "lf")
    repo, [rev] = make_repo(tmp_path / "upstream", files)
    return repo, rev


def stored_example(style: str, rev: str, name: str) -> Example:
    """An example whose history, expected patch and cursor were written from the
    file's stored text, ``\\r`` and all (as a tool reading the file's bytes writes it)."""
    path = f"{style}.py"
    stored, typed, wanted = (join(lines, style) for lines in (calc_lines(), HISTORY_LINES, EXPECTED_LINES))
    cursor = typed.index("def sub(a, b):") + len("def sub(a, b):")
    return Example(
        name=name,
        repository_url=URL,
        revision=rev,
        cursor_path=path,
        cursor_position=typed[typed.index("def mul") : cursor] + "<|user_cursor|>" + typed[cursor:],
        edit_history=diff_texts(stored, typed, f"a/{path}", f"b/{path}").text,
        expected_patches=(diff_texts(typed, wanted, f"a/{path}", f"b/{path}").text,),
    )


def test_the_scene_holds_lf_buffers_and_remembers_the_stored_style(tmp_path: Path, windows) -> None:
    repo, rev = windows
    cache = RepositoryCache(tmp_path / "cache", {URL: repo})
    for style, remembered in (("crlf", "\r\n"), ("cr", "\n"), ("mixed", "\r\n")):
        example = stored_example(style, rev, style)
        for loaded in (example, from_markdown(to_markdown(example)), from_json(json.dumps(to_json(example)))):
            scene = build_scene(loaded, cache)
            path = f"{style}.py"
            assert scene.buffers[path] == join(HISTORY_LINES, "lf")
            assert scene.base_texts[path] == join(calc_lines(), "lf")
            assert scene.request().line_endings == {path: remembered}
            unopened = "mixed.py" if style == "crlf" else "crlf.py"
            assert scene.request().file_text(unopened) == join(calc_lines(), "lf")
            assert scene.cursor.offset == len(join(HISTORY_LINES, "lf")) - 1
            assert "\r" not in "".join(event.diff for event in scene.events)
            [candidate] = expected_candidates(scene.buffers, loaded.expected(), scene.open_file, scene.cursor.path)
            assert candidate.buffers[path] == join(EXPECTED_LINES, "lf")
            # The worktree keeps the stored bytes.
            assert (scene.worktree() / path).read_bytes() == join(calc_lines(), style).encode()
    cache.close()


def test_an_answer_that_reproduces_the_files_endings_is_the_same_edit_as_its_lf_twin(tmp_path: Path, windows) -> None:
    repo, rev = windows
    cache = RepositoryCache(tmp_path / "cache", {URL: repo})
    for style in STYLES:
        scene = build_scene(stored_example(style, rev, style), cache)
        candidates = expected_candidates(scene.buffers, scene.example.expected(), scene.open_file, scene.cursor.path)
        path, typed, wanted = f"{style}.py", join(HISTORY_LINES, style), join(EXPECTED_LINES, style)
        cursor = (scene.cursor.path, scene.cursor.offset)
        answers = {
            "stored text": Prediction(text=wanted),
            "lf text": Prediction(text=normalize_line_endings(wanted)),
            "stored patch": Prediction(patch=diff_texts(typed, wanted, f"a/{path}", f"b/{path}").text),
            "lf patch": Prediction(
                patch=diff_texts(normalize_line_endings(typed), normalize_line_endings(wanted), path, path).text
            ),
        }
        verdicts = {name: judge(scene.buffers, cursor, candidates, answer) for name, answer in answers.items()}
        assert all(v.passed for v in verdicts.values()), {n: v.reason for n, v in verdicts.items()}
        scores = {name: v.score for name, v in verdicts.items()}
        assert scores["stored text"] == scores["lf text"]
        if style == "crlf":  # a lone "\r" is no line end of a diff: those patches are other diffs
            assert scores["stored patch"] == scores["lf patch"]
        # The cursor given in the stored text's offsets lands on the same place.
        at = wanted.index("a - b")
        placed = judge(scene.buffers, cursor, candidates, Prediction(text=wanted, cursor=at))
        assert placed.predicted_cursor == (path, normalize_line_endings(wanted).index("a - b"))
        wrong = judge(scene.buffers, cursor, candidates, Prediction(text=wanted.replace("a - b", "b - a")))
        assert not wrong.passed
    cache.close()


def test_an_lf_uncommitted_diff_over_a_crlf_file_applies_in_the_files_style(tmp_path: Path, windows) -> None:
    """Markdown cannot hold ``\\r``: an uncommitted diff over a CRLF file read from
    markdown has ``\\n`` lines, and is applied as Zed saves an edited buffer, in the
    file's own style."""
    repo, rev = windows
    cache = RepositoryCache(tmp_path / "cache", {URL: repo})
    uncommitted = (
        "--- a/crlf.py\n+++ b/crlf.py\n@@ -1,2 +1,2 @@\n-def add(a, b):\n+def add(a, b, c):\n     return a + b\n"
    )
    example = Example(
        name="lf-diff",
        repository_url=URL,
        revision=rev,
        cursor_path="crlf.py",
        cursor_position="def add(a, b, c):<|user_cursor|>",
        uncommitted_diff=uncommitted,
    )
    scene = build_scene(from_markdown(to_markdown(example)), cache)
    assert scene.buffers["crlf.py"].startswith("def add(a, b, c):\n    return a + b\n")
    assert scene.line_endings["crlf.py"] == "\r\n"
    stored = (scene.worktree() / "crlf.py").read_bytes()
    assert stored.startswith(b"def add(a, b, c):\r\n    return a + b\r\n") and b"\r\n" * 2 in stored
    broken = dataclasses.replace(example, uncommitted_diff=uncommitted.replace("a + b", "a - b"))
    with pytest.raises(UncommittedDiffError, match="git apply refused the uncommitted diff") as caught:
        build_scene(broken, cache)
    assert "crlf.py" in str(caught.value)  # git's own complaint, about the diff as written
    cache.close()


def test_an_uncommitted_diff_creating_a_crlf_file_keeps_its_bytes_in_the_tree(tmp_path: Path, windows) -> None:
    repo, rev = windows
    cache = RepositoryCache(tmp_path / "cache", {URL: repo})
    text = join(["int main() {", "    return 0;", "}"], "crlf")
    example = Example(
        name="created",
        repository_url=URL,
        revision=rev,
        cursor_path="main.c",
        cursor_position="int main() {\r\n    return<|user_cursor|> 0;\r\n",
        uncommitted_diff=diff_texts("", text, "/dev/null", "b/main.c").text,
    )
    as_json, as_markdown = from_json(json.dumps(to_json(example))), from_markdown(to_markdown(example))
    for loaded, style in ((as_json, "\r\n"), (as_markdown, "\n")):
        scene = build_scene(loaded, cache)
        assert scene.buffers["main.c"] == normalize_line_endings(text)
        assert scene.line_endings["main.c"] == style  # markdown cannot hold the \r
        assert scene.cursor.offset == len("int main() {\n    return")
        stored = (scene.worktree() / "main.c").read_bytes()
        assert stored == (text if style == "\r\n" else normalize_line_endings(text)).encode()
    cache.close()


def write_examples(root: Path, rev: str) -> list[str]:
    """One markdown and one JSONL example per stored style; their names."""
    (root / "evals").mkdir()
    names, lines = [], []
    for style in STYLES:
        names.append(f"{style}-md")
        (root / "evals" / f"{style}-md.md").write_bytes(to_markdown(stored_example(style, rev, f"{style}-md")).encode())
        names.append(f"{style}-jsonl")
        lines.append(json.dumps(to_json(stored_example(style, rev, f"{style}-jsonl"))))
    (root / "evals" / "windows.jsonl").write_text("\n".join(lines) + "\n")
    return names


def test_the_plugin_judges_crlf_examples_in_both_formats(pytester: pytest.Pytester, windows) -> None:
    repo, rev = windows
    map_in_ini(pytester, URL, repo)
    names = write_examples(pytester.path, rev)
    count = len(names)
    run = ("evals", "evals/windows.jsonl", "-p", "no:cacheprovider")
    pytester.runpytest(*run, "--editpred-provider=oracle").assert_outcomes(passed=count)
    noop = pytester.runpytest(*run, "--editpred-provider=noop")
    noop.assert_outcomes(failed=count)
    noop.stdout.fnmatch_lines(["*the prediction changes nothing*"])
    for kind in ("stored text", "lf text", "stored patch"):
        answers = []
        for name in names:
            style = name.split("-")[0]
            typed, wanted = join(HISTORY_LINES, style), join(EXPECTED_LINES, style)
            if kind == "lf text":
                answers.append({"name": name, "text": normalize_line_endings(wanted)})
            elif kind == "stored text":
                answers.append({"name": name, "text": wanted})
            else:
                patch = diff_texts(typed, wanted, f"a/{style}.py", f"b/{style}.py").text
                answers.append({"name": name, "patch": patch})
        replay = pytester.path / "answers.jsonl"
        replay.write_text("".join(json.dumps(answer) + "\n" for answer in answers))
        result = pytester.runpytest(*run, "--editpred-provider=replay", f"--editpred-replay={replay}")
        result.assert_outcomes(passed=count)


# ----------------------------------------------------------------------- imported data sets


def nep_rows() -> list[dict[str, str]]:
    """NEP-style rows made from standard-library modules: whole modules and windows,
    every one starting with a newline as NEP's windows often do, with CRLF, mixed and
    lone-CR endings. The user renames a name on one line; the next edit renames it on
    another."""
    rows = []
    modules = ["argparse.py", "ast.py", "json/decoder.py", "textwrap.py", "configparser.py", "difflib.py"]
    for index, module in enumerate(modules):
        lines = ["", *(STDLIB / module).read_text(encoding="utf-8").split("\n")]
        if index % 2:  # a window of the module, as NEP has
            lines = ["", *lines[200:700]]
        defs = [n for n, line in enumerate(lines) if line.lstrip().startswith("def ") and "(self" in line]
        first, second = defs[len(defs) // 2], defs[len(defs) // 2 + 1]
        current = list(lines)
        current[first] = current[first].replace("(self", "(me", 1)
        new = list(current)
        new[second] = new[second].replace("(self", "(me", 1)
        style = ("crlf", "mixed", "crlf", "cr", "crlf", "mixed")[index]
        rows.append(
            {
                "commit": f"{index:040x}",
                "message": f"rename self in {module}",
                "old_file": f"src/{Path(module).name}",
                "new_file": f"src/{Path(module).name}",
                "status": "M",
                "old_contents": join(lines, style),
                "current_contents": join(current, style),
                "new_contents": join(new, style),
                "text": "(ignored)",
            }
        )
    return rows


def copilot_fixture(root: Path) -> Path:
    """A Copilot recording of a CRLF document: the user adds a field, the next edit
    and a scored next edit add another."""
    directory = root / "crlf-struct"
    directory.mkdir(parents=True)
    text = "struct P {\r\n    int x;\r\n};\r\n"
    at = text.index("};")
    log = [
        {"kind": "documentEncountered", "id": 0, "relativePath": "src\\p.h", "time": 3},
        {"kind": "setContent", "id": 0, "content": text, "time": 2},
        {"kind": "changed", "id": 0, "edit": [[at, at, "    int y;\r\n"]], "time": 1},
    ]
    after = at + len("    int y;\r\n")
    recording = {"log": log, "nextUserEdit": {"relativePath": "src/p.h", "edit": [[after, after, "    int z;\r\n"]]}}
    (directory / "recording.w.json").write_text(json.dumps(recording))
    uri = "file:///c%3a/w/src/p.h"
    scored = [
        {"documentUri": uri, "edit": [[after, after, "    long z;\r\n"]], "scoreCategory": "nextEdit"},
        {"documentUri": uri, "edit": [[after, after, "    int y;\r\n"]], "scoreCategory": "bad"},
    ]
    (directory / "scoredEdits.w.json").write_text(json.dumps({"edits": scored, "scoringContext": {}}))
    return root


def crosscodeeval_rows() -> list[dict[str, object]]:
    return [
        {
            "prompt": "def area(r):\r\n    return ",
            "groundtruth": "3.14 * r * r",
            "right_context": "\r\n\r\n\r\ndef volume(r):\r\n    return 0\r\n",
            "metadata": {"task_id": "cce/crlf/0", "file": "geo.py"},
        }
    ]


@pytest.mark.slow
def test_imported_crlf_data_sets_judge_the_same_in_both_formats(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """NEP rows of real-size standard-library files with Windows, mixed and lone-CR
    endings, a CRLF Copilot recording and a CRLF CrossCodeEval row, imported as
    markdown and as ep JSONL: ``oracle`` passes every one, ``noop`` fails every one,
    and the benchmark's own answers, ``\\r`` and all, replayed, pass."""
    pytester.makeini("[pytest]\neditpred_cache_dir = .editpred-cache\n")
    rows = nep_rows()
    nep = tmp_path / "nep.jsonl"
    nep.write_text("".join(json.dumps(row) + "\n" for row in rows))
    cce = tmp_path / "cce.jsonl"
    cce.write_text("".join(json.dumps(row) + "\n" for row in crosscodeeval_rows()))
    copilot = copilot_fixture(tmp_path / "copilot")
    out = pytester.path / "evals"
    for fmt in ("markdown", "jsonl"):
        for source, kind in ((nep, "nep"), (cce, "crosscodeeval"), (copilot, "copilot-nes")):
            target = out / f"{kind}-{fmt}"
            assert main(["import", kind, str(source), "-o", str(target), "--format", fmt]) == 0
    markdown = sorted(str(p) for p in out.glob("*-markdown/*.md"))
    jsonl = sorted(str(p) for p in out.glob("*-jsonl/examples.jsonl"))
    count = len(rows) + 2
    assert len(markdown) == count and len(jsonl) == 3
    assert b"\\r\\n" in (out / "nep-jsonl" / "examples.jsonl").read_bytes()  # kept byte for byte in ep JSON
    for paths in (markdown, jsonl):
        pytester.runpytest(*paths, "--editpred-provider=oracle", "--editpred-offline").assert_outcomes(passed=count)
        pytester.runpytest(*paths, "--editpred-provider=noop", "--editpred-offline").assert_outcomes(failed=count)
        replay = tmp_path / "answers.jsonl"
        replay.write_text(
            "".join(
                json.dumps({"name": f"nep-{number:03d}", "text": row["new_contents"]}) + "\n"
                for number, row in enumerate(rows, 1)
            )
        )
        nep_paths = [p for p in paths if "nep-" in p]
        result = pytester.runpytest(
            *nep_paths, "--editpred-provider=replay", f"--editpred-replay={replay}", "--editpred-offline"
        )
        result.assert_outcomes(passed=len(rows))
