"""``editpred import``: the mapping of ``datasets.md`` rule by rule, on the shared
samples as they are and on hand-made fixtures and rows, and the proof that every
written example passes with ``oracle`` and fails with ``noop`` offline, on the canvas
shipped with the package (no ``--editpred-repo``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from zed_examples import ZED

from pytest_editpred.cli import main
from pytest_editpred.corpus import Imported, ImportSourceError, Skipped, import_examples
from pytest_editpred.corpus import _canvas as common
from pytest_editpred.example import from_markdown, to_markdown

SAMPLES = ZED.parent / "import-samples"  # found as the Zed examples are (tests/zed_examples.py)
CANVAS = (
    'repository_url = "https://github.com/octocat/hello-world"\nrevision = "7fd1a60b01f91b314f59955a4e4d4e80d8edf11d"\n'
)


def items(fmt: str, source: Path) -> list[Imported | Skipped]:
    return list(import_examples(fmt, source))


def only(fmt: str, source: Path) -> Imported:
    [item] = items(fmt, source)
    assert isinstance(item, Imported), item
    return item


def fixture(
    root: Path,
    name: str,
    log: list[dict[str, Any]],
    next_edit: dict[str, Any] | None,
    scored: list[dict[str, Any]] | None = None,
) -> Path:
    """A Copilot fixture directory; ``log`` entries get times, ``setContent`` ids."""
    directory = root / name
    directory.mkdir(parents=True)
    recording: dict[str, Any] = {"log": [{"time": 1700000000000 - i, **entry} for i, entry in enumerate(log)]}
    if next_edit is not None:
        recording["nextUserEdit"] = next_edit
    (directory / "recording.w.json").write_text(json.dumps(recording), encoding="utf-8")
    if scored is not None:
        data = {"edits": scored, "scoringContext": {"kind": "recording", "recording": recording}}
        (directory / "scoredEdits.w.json").write_text(json.dumps(data), encoding="utf-8")
    return directory


def doc(key: int, path: str, content: str) -> list[dict[str, Any]]:
    return [
        {"kind": "documentEncountered", "id": key, "relativePath": path},
        {"kind": "setContent", "id": key, "content": content},
    ]


def jsonl(path: Path, *rows: object) -> Path:
    path.write_text(
        "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows), encoding="utf-8"
    )
    return path


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- the samples


def test_copilot_sample_shout_exact_markdown() -> None:
    """UTF-16 offsets past 'héllo 👋' (the emoji counts two), no selection (cursor at the
    end of the last replacement), a nextUserEdit path spelled ../../../home/..., two
    nextEdit edits with the same resulting text (one patch), a null 'valid' edit
    (dropped) and a 'bad' one (the Rejected Patch)."""
    item = only("copilot-nes", SAMPLES / "copilot-nes" / "shout-add-parameter")
    assert item.dropped == 1
    assert to_markdown(item.example) == (
        "+++\n" + CANVAS + 'tags = ["copilot-nes", "typescript"]\n+++\n\n# shout-add-parameter\n\n'
        "## Uncommitted Diff\n\n```diff\n--- /dev/null\n+++ b/shout/shout.ts\n@@ -0,0 +1,4 @@\n"
        '+const greeting = "héllo 👋";\n+function shout(msg: string) {\n+    return msg.toUpperCase();\n+}\n```\n\n'
        "## Edit History\n\n```diff\n--- a/shout/shout.ts\n+++ b/shout/shout.ts\n@@ -1,4 +1,4 @@\n"
        ' const greeting = "héllo 👋";\n-function shout(msg: string) {\n+function shout(msg: string, times: number) {\n'
        "     return msg.toUpperCase();\n }\n```\n\n"
        "## Cursor Position\n\n```shout/shout.ts\n"
        'const greeting = "héllo 👋";\nfunction shout(msg: string, times: number) {\n'
        "//                                       ^[CURSOR_POSITION]\n    return msg.toUpperCase();\n}\n```\n\n"
        "## Expected Patch\n\n```diff\n--- a/shout/shout.ts\n+++ b/shout/shout.ts\n@@ -1,4 +1,4 @@\n"
        ' const greeting = "héllo 👋";\n function shout(msg: string, times: number) {\n'
        "-    return msg.toUpperCase();\n+    return msg.toUpperCase().repeat(times);\n }\n```\n\n"
        "## Rejected Patch\n\n```diff\n--- a/shout/shout.ts\n+++ b/shout/shout.ts\n@@ -1,4 +1,4 @@\n"
        ' const greeting = "héllo 👋";\n function shout(msg: string, times: number) {\n'
        '-    return msg.toUpperCase();\n+    return msg.toUpperCase() + "!";\n }\n```\n'
    )


def test_copilot_sample_counter_two_documents_backslash_paths() -> None:
    """Backslash paths become '/', both documents are created, each change is a
    history block in log order, the selection is the cursor, and the two nextEdit
    texts that differ are two expected patches."""
    example = only("copilot-nes", SAMPLES / "copilot-nes" / "counter-declare-in-header").example
    assert example.name == "counter-declare-in-header"
    assert example.tags == ("copilot-nes", "cpp")
    assert example.cursor_path == "counter/src/counter.h"
    assert example.uncommitted_diff.count("--- /dev/null\n") == 2
    assert "+++ b/counter/src/counter.cpp\n" in example.uncommitted_diff
    assert example.edit_history.index("counter.cpp") < example.edit_history.index("counter.h")
    assert example.cursor_excerpt() == (
        "public:\n    void add(int n);\n\nprivate:\n    int total = 0;\n};",
        len("public:\n    void add(int n);\n\n"),
    )
    assert example.expected_patches == (
        "--- a/counter/src/counter.h\n+++ b/counter/src/counter.h\n@@ -3,7 +3,7 @@\n class Counter {\n public:\n"
        "     void add(int n);\n-\n+    void reset();\n private:\n     int total = 0;\n };\n",
        "--- a/counter/src/counter.h\n+++ b/counter/src/counter.h\n@@ -4,6 +4,7 @@\n public:\n"
        "     void add(int n);\n \n+    void reset();\n private:\n     int total = 0;\n };\n",
    )
    assert example.rejected_patch is not None and "+    int reset();\n" in example.rejected_patch


def test_copilot_sample_directory_skips_the_fixture_without_next_edit() -> None:
    results = items("copilot-nes", SAMPLES / "copilot-nes")
    assert [type(r).__name__ for r in results] == ["Imported", "Skipped", "Imported"]
    skipped = results[1]
    assert isinstance(skipped, Skipped)
    assert skipped.where.endswith("no-next-edit/recording.w.json")
    assert skipped.message == "the recording has no nextUserEdit: there is no next edit to predict"


def test_nep_sample_exact() -> None:
    results = items("nep", SAMPLES / "nep" / "sample.jsonl")
    assert [r.example.name for r in results if isinstance(r, Imported)] == ["nep-001", "nep-002", "nep-003"]
    first = results[0]
    assert isinstance(first, Imported) and first.line == 1
    assert to_markdown(first.example) == (
        "+++\n" + CANVAS + 'tags = ["nep", "python"]\n+++\n\n# nep-001\n\n'
        "## Uncommitted Diff\n\n```diff\n--- /dev/null\n+++ b/pkg/stack.py\n@@ -0,0 +1,7 @@\n"
        "+\n+class Stack:\n+    def __init__(self):\n+        self.items = []\n+\n+    def push(self, x):\n"
        "+        self.items.append(x)\n```\n\n"
        "## Edit History\n\n```diff\n--- a/pkg/stack.py\n+++ b/pkg/stack.py\n@@ -5,3 +5,6 @@\n \n"
        "     def push(self, x):\n         self.items.append(x)\n+\n+    def pop(self):\n"
        "+        return self.items.pop()\n```\n\n"
        "## Cursor Position\n\n```pkg/stack.py\n        self.items.append(x)\n\n    def pop(self):\n"
        "        return self.items.pop()\n        #                      ^[CURSOR_POSITION]\n```\n\n"
        "## Expected Patch\n\n```diff\n--- a/pkg/stack.py\n+++ b/pkg/stack.py\n@@ -8,3 +8,6 @@\n \n"
        "     def pop(self):\n         return self.items.pop()\n+\n+    def peek(self):\n"
        "+        return self.items[-1]\n```\n"
    )
    third = results[2]
    assert isinstance(third, Imported)
    assert third.example.tags == ("nep", "javascript")
    # the cursor: the end of the last line the history changed
    assert third.example.cursor_excerpt()[1] == len("const PI = Math.PI;")


def test_crosscodeeval_sample_exact() -> None:
    first, second = items("crosscodeeval", SAMPLES / "crosscodeeval" / "sample.jsonl")
    assert isinstance(first, Imported) and isinstance(second, Imported)
    assert (first.dropped, second.dropped) == (1, 0)  # the retrieved chunk
    example = first.example
    assert example.name == "project_cc_python-1"
    assert example.tags == ("crosscodeeval", "python")
    assert example.edit_history == ""
    assert example.cursor_path == "appcfg/paths.py"
    excerpt, offset = example.cursor_excerpt()
    assert excerpt[:offset].endswith('base = os.environ.get("APP_HOME", ".")\n    return ')
    assert example.expected_patches == (
        "--- a/appcfg/paths.py\n+++ b/appcfg/paths.py\n@@ -2,7 +2,7 @@\n \n def config_path(name):\n"
        '     base = os.environ.get("APP_HOME", ".")\n-    return \n+    return os.path.join(base, name)\n \n \n'
        " def read_config(name):\n",
    )


# --------------------------------------------------------------------------- hand-made fixtures


def test_utf16_offsets_after_an_emoji(tmp_path: Path) -> None:
    """'a😀b': the emoji is UTF-16 units 1-2, so 'b' is at 3 (character 2)."""
    log = [
        *doc(0, "e.ts", "x😀y = 1;\nz = 2;\n"),
        {"kind": "changed", "id": 0, "edit": [[3, 4, "yy"]], "v": 2},
        {"kind": "selectionChanged", "id": 0, "selection": [[5, 5]]},
    ]
    directory = fixture(tmp_path, "emoji", log, {"relativePath": "e.ts", "edit": [[15, 16, "3"]]})
    example = only("copilot-nes", directory).example
    assert example.edit_history == ("--- a/e.ts\n+++ b/e.ts\n@@ -1,2 +1,2 @@\n-x😀y = 1;\n+x😀yy = 1;\n z = 2;\n")
    assert example.cursor_excerpt() == ("x😀yy = 1;\nz = 2;", 4)
    assert example.expected_patches == ("--- a/e.ts\n+++ b/e.ts\n@@ -1,2 +1,2 @@\n x😀yy = 1;\n-z = 2;\n+z = 3;\n",)


def test_utf16_offset_inside_an_emoji_is_skipped(tmp_path: Path) -> None:
    log = [*doc(0, "e.ts", "x😀y\n"), {"kind": "changed", "id": 0, "edit": [[2, 2, "!"]]}]
    directory = fixture(tmp_path, "split", log, {"relativePath": "e.ts", "edit": [[0, 0, "a"]]})
    [skipped] = items("copilot-nes", directory)
    assert isinstance(skipped, Skipped)
    assert skipped.message == (
        "log entry 2 (changed): 'edit'[0] start 2 falls inside a character outside the BMP "
        "(between its two UTF-16 units)"
    )


def test_backslash_paths_and_next_edit_in_another_document(tmp_path: Path) -> None:
    """The cursor in one document, the next edit in another whose path is spelled
    with backslashes and a different root: matched by unique basename."""
    log = [
        *doc(0, "src\\lib\\api.py", "def f(x):\n    return x\n"),
        *doc(1, "src\\main.py", "from lib.api import f\nprint(f(1))\n"),
        {"kind": "changed", "id": 0, "edit": [[6, 7, "x, y"]]},
        {"kind": "selectionChanged", "id": 0, "selection": [[10, 10]]},
    ]
    next_edit = {"relativePath": "..\\..\\Users\\x\\proj\\src\\main.py", "edit": [[30, 31, "1, 2"]]}
    example = only("copilot-nes", fixture(tmp_path, "two-docs", log, next_edit)).example
    assert example.cursor_path == "src/lib/api.py"
    assert example.tags == ("copilot-nes", "python")
    assert example.uncommitted_diff == (
        "--- /dev/null\n+++ b/src/lib/api.py\n@@ -0,0 +1,2 @@\n+def f(x):\n+    return x\n"
        "--- /dev/null\n+++ b/src/main.py\n@@ -0,0 +1,2 @@\n+from lib.api import f\n+print(f(1))\n"
    )
    assert example.expected_patches == (
        "--- a/src/main.py\n+++ b/src/main.py\n@@ -1,2 +1,2 @@\n from lib.api import f\n-print(f(1))\n"
        "+print(f(1, 2))\n",
    )


def test_later_set_content_crlf_and_dropped_scored_edits(tmp_path: Path) -> None:
    """A second setContent is a history block; CRLF kept byte for byte; valid,
    unscored and null edits dropped, a nextEdit equal to the next user edit kept once."""
    log = [
        *doc(0, "w.c", "int a;\r\nint b;\r\n"),
        {"kind": "setContent", "id": 0, "content": "int a;\r\nint bb;\r\n"},
        {"kind": "changed", "id": 0, "edit": [[0, 0, "// x\r\n"]]},
    ]
    uri = "file:///c%3a/dev/proj/w.c"
    scored = [
        {"documentUri": uri, "edit": [[23, 23, "int c;\r\n"]], "scoreCategory": "nextEdit", "score": 1},
        {"documentUri": uri, "edit": [[0, 0, "?"]], "scoreCategory": "valid", "score": 0.1},
        {"documentUri": uri, "edit": [[0, 0, "!"]], "scoreCategory": "unscored", "score": 0},
        {"documentUri": uri, "edit": None, "scoreCategory": "valid", "score": 0},
    ]
    item = only(
        "copilot-nes", fixture(tmp_path, "crlf", log, {"relativePath": "w.c", "edit": [[23, 23, "int c;\r\n"]]}, scored)
    )
    assert item.dropped == 3
    example = item.example
    assert example.edit_history == (
        "--- a/w.c\n+++ b/w.c\n@@ -1,2 +1,2 @@\n int a;\r\n-int b;\r\n+int bb;\r\n"
        "--- a/w.c\n+++ b/w.c\n@@ -1,2 +1,3 @@\n+// x\r\n int a;\r\n int bb;\r\n"
    )
    assert example.expected_patches == (
        "--- a/w.c\n+++ b/w.c\n@@ -1,3 +1,4 @@\n // x\r\n int a;\r\n int bb;\r\n+int c;\r\n",
    )
    # no selection: the end of the last replacement, in the excerpt a buffer holds
    assert example.cursor_excerpt() == ("// x\nint a;\nint bb;", len("// x\n"))


@pytest.mark.parametrize(
    ("recording", "message"),
    [
        ({"log": []}, "the recording has no nextUserEdit: there is no next edit to predict"),
        ([1], "the recording is a list, not an object"),
        (
            {"log": [{"kind": "setContent", "id": 3, "content": "x"}], "nextUserEdit": None},
            "log entry 0 (setContent): document 3 was not encountered before (no documentEncountered)",
        ),
        (
            {"log": [*doc(0, "/etc/passwd", "x\n")]},
            "log entry 0 (documentEncountered): relativePath: unsafe path '/etc/passwd': it is absolute",
        ),
        (
            {"log": [*doc(0, "a.py", "x\n"), {"kind": "changed", "id": 0, "edit": [[0, 9, "y"]]}]},
            "log entry 2 (changed): 'edit'[0] end 9 is outside the document (2 UTF-16 units)",
        ),
        (
            {"log": doc(0, "a.py", "x\n"), "nextUserEdit": {"relativePath": "b.py", "edit": [[0, 0, "y"]]}},
            "no encountered document matches 'b.py'",
        ),
        (
            {"log": doc(0, "a.py", "x\n"), "nextUserEdit": {"relativePath": "a.py", "edit": [[0, 1, "x"]]}},
            "the nextUserEdit changes nothing: there is no next edit to predict",
        ),
    ],
)
def test_bad_fixtures_are_skipped_with_their_reason(tmp_path: Path, recording: object, message: str) -> None:
    directory = tmp_path / "bad"
    directory.mkdir()
    (directory / "recording.w.json").write_text(json.dumps(recording), encoding="utf-8")
    [skipped] = items("copilot-nes", directory)
    assert isinstance(skipped, Skipped) and skipped.message == message


def test_copilot_json_errors_name_the_line(tmp_path: Path) -> None:
    directory = tmp_path / "broken"
    directory.mkdir()
    (directory / "recording.w.json").write_text('{\n "log": [\n  {,}\n ]\n}\n', encoding="utf-8")
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "recording.w.json").write_text("[" * 500 + "]" * 500, encoding="utf-8")
    broken, deep = items("copilot-nes", tmp_path)
    assert isinstance(broken, Skipped) and isinstance(deep, Skipped)
    assert (broken.where, broken.line) == (str(directory / "recording.w.json"), 3)
    assert broken.message.startswith("not JSON: Expecting property name")
    assert deep.message == "not JSON: JSON nested deeper than 100 levels (column 101)"


def test_copilot_source_errors(tmp_path: Path) -> None:
    with pytest.raises(ImportSourceError, match="holds no fixture"):
        items("copilot-nes", tmp_path)
    with pytest.raises(ImportSourceError, match="is not a directory"):
        items("copilot-nes", tmp_path / "missing")


# --------------------------------------------------------------------------- JSONL rows

GOOD_NEP = {
    "commit": "a" * 40,
    "message": "m",
    "old_file": "x.go",
    "new_file": "x.go",
    "status": "M",
    "old_contents": "a\nb\n",
    "current_contents": "a\nbb\n",
    "new_contents": "aa\nbb\n",
    "text": "t",
}


def test_nep_bad_lines_each_one_skip_with_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "MAX_ITEM_BYTES", 4096)
    source = jsonl(
        tmp_path / "nep.jsonl",
        GOOD_NEP,
        "{not json",
        "",
        [1, 2],
        {**GOOD_NEP, "old_contents": 3},
        {k: v for k, v in GOOD_NEP.items() if k != "new_contents"},
        "[" * 300 + "]" * 300,
        {**GOOD_NEP, "new_contents": GOOD_NEP["current_contents"]},
        {**GOOD_NEP, "new_file": "../x.go"},
        json.dumps({**GOOD_NEP, "text": "x" * 5000}),
        GOOD_NEP,
    )
    results = items("nep", source)
    assert [(r.line, r.message) for r in results if isinstance(r, Skipped)] == [
        (2, "the line is not JSON: Expecting property name enclosed in double quotes (column 2)"),
        (4, "the row is a list, not an object"),
        (5, "field 'old_contents' must be a string, not a number"),
        (6, "missing field 'new_contents'"),
        (7, "the line is not JSON: JSON nested deeper than 100 levels (column 101)"),
        (8, "no next edit: new_contents equals current_contents"),
        (9, "new_file: unsafe path '../x.go': it contains '..'"),
        (10, "the line is longer than 4096 bytes"),
    ]
    assert [r.example.name for r in results if isinstance(r, Imported)] == ["nep-001", "nep-011"]


def test_crosscodeeval_bad_rows(tmp_path: Path) -> None:
    good = {"prompt": "x = ", "groundtruth": "1", "right_context": "\n", "metadata": {"task_id": "t/1", "file": "a.py"}}
    source = jsonl(
        tmp_path / "cce.jsonl",
        good,
        {**good, "metadata": {"file": "a.py"}},
        {**good, "metadata": "m"},
        {**good, "groundtruth": ""},
    )
    results = items("crosscodeeval", source)
    assert isinstance(results[0], Imported) and results[0].example.name == "t-1"
    assert [(r.line, r.message) for r in results if isinstance(r, Skipped)] == [
        (2, "missing field 'metadata.task_id'"),
        (3, "field 'metadata' must be an object, not a string"),
        (4, "no next edit: groundtruth is empty"),
    ]


def test_nep_emoji_row_round_trips(tmp_path: Path) -> None:
    row = {
        **GOOD_NEP,
        "old_contents": "s = '👋'\nt = 1\n",
        "current_contents": "s = '👋👋'\nt = 1\n",
        "new_contents": "s = '👋👋'\nt = 2\n",
    }
    example = only("nep", jsonl(tmp_path / "e.jsonl", row)).example
    assert example.cursor_excerpt() == ("s = '👋👋'\nt = 1", len("s = '👋👋'"))
    assert from_markdown(to_markdown(example)) == example


# --------------------------------------------------------------------------- the command


def test_cli_summary_counts_and_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = jsonl(tmp_path / "nep.jsonl", GOOD_NEP, "oops", {**GOOD_NEP, "new_file": 7}, GOOD_NEP)
    out = tmp_path / "out"
    code, stdout, stderr = cli(capsys, "import", "nep", source, "-o", out)
    assert code == 1
    assert stderr.splitlines() == [
        f"{source}:2: the line is not JSON: Expecting value (column 1) (Each line must be one JSON object.)",
        f"{source}:3: field 'new_file' must be a string, not a number (Correct 'new_file'.)",
    ]
    assert stdout == (
        f"editpred import: 2 examples written to {out}, 2 skipped, 0 dropped "
        "(scored edits or retrieved context an example has no place for)\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["nep-001.md", "nep-004.md"]
    # again: the examples exist, so each is a skip; with --force they are overwritten
    code, stdout, stderr = cli(capsys, "import", "nep", source, "-o", out)
    assert code == 1 and ", 4 skipped," in stdout
    assert stderr.splitlines()[-1] == (
        f"{out}: 2 examples not written: they exist already (the first: nep-001.md) "
        "(Use --force to overwrite them, or another -o directory.)"
    )  # one line for them all, not one per file
    good = jsonl(tmp_path / "good.jsonl", GOOD_NEP)
    assert cli(capsys, "import", "nep", good, "-o", out, "--force")[0] == 0


def test_cli_dropped_count_and_jsonl_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, stderr = cli(capsys, "import", "copilot-nes", SAMPLES / "copilot-nes", "-o", tmp_path / "md")
    assert code == 1 and stderr.count("\n") == 1 and "no-next-edit/recording.w.json: " in stderr
    assert ": 2 examples written to " in stdout and ", 1 skipped, 1 dropped " in stdout
    code, stdout, _ = cli(
        capsys,
        "import",
        "crosscodeeval",
        SAMPLES / "crosscodeeval" / "sample.jsonl",
        "-o",
        tmp_path / "js",
        "--format",
        "jsonl",
    )
    assert code == 0 and ", 0 skipped, 1 dropped " in stdout
    lines = (tmp_path / "js" / "examples.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["name"] for line in lines] == ["project_cc_python-1", "project_cc_typescript-7"]


def test_cli_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, stderr = cli(capsys, "import", "nep", tmp_path / "missing.jsonl", "-o", tmp_path / "out")
    assert (
        code == 2
        and stderr
        == f"{tmp_path / 'missing.jsonl'}: {tmp_path / 'missing.jsonl'} is not a file "
        "(Give the path of a .jsonl file.)\n"
    )
    (tmp_path / "file").write_text("x")
    assert cli(capsys, "import", "nep", tmp_path / "file", "-o", tmp_path / "file")[0] == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["import", "bogus", str(tmp_path), "-o", str(tmp_path)])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    assert "--force" in capsys.readouterr().out


# --------------------------------------------------------------------------- oracle passes, noop fails


def _pytest(
    directory: Path, provider: str, cache: Path, *extra: str, into: tuple[str, ...] = ("made", "samples")
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EDITPRED_CACHE_DIR": str(cache)}
    env.pop("PYTEST_ADDOPTS", None)
    paths = [str(directory / "out" / name) for name in into if (directory / "out" / name).is_dir()]
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *paths,
            "-p",
            "no:cacheprovider",
            "-q",
            f"--editpred-provider={provider}",
            "--editpred-offline",
            *extra,
        ],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """Every sample and hand-made case imported into one directory with no ini file."""
    root = tmp_path_factory.mktemp("imported")
    out = root / "out"
    made = root / "made"
    fixture(
        made,
        "emoji",
        [
            *doc(0, "e.ts", "x😀y = 1;\nz = 2;\n"),
            {"kind": "changed", "id": 0, "edit": [[3, 4, "yy"]]},
            {"kind": "selectionChanged", "id": 0, "selection": [[5, 5]]},
        ],
        {"relativePath": "e.ts", "edit": [[15, 16, "3"]]},
    )
    fixture(
        root / "other",
        "two-docs",
        [
            *doc(0, "src\\lib\\api.py", "def f(x):\n    return x\n"),
            *doc(1, "src\\main.py", "from lib.api import f\nprint(f(1))\n"),
            {"kind": "changed", "id": 0, "edit": [[6, 7, "x, y"]]},
        ],
        {"relativePath": "src\\main.py", "edit": [[30, 31, "1, 2"]]},
    )
    fixture(
        made,
        "crlf",
        [*doc(0, "w.c", "int a;\r\nint b;\r\n"), {"kind": "setContent", "id": 0, "content": "int a;\r\nint bb;\r\n"}],
        {"relativePath": "w.c", "edit": [[17, 17, "int c;\r\n"]]},
    )
    emoji_row = {
        **GOOD_NEP,
        "new_file": "e.py",
        "old_contents": "s = '👋'\nt = 1\n",
        "current_contents": "s = '👋👋'\nt = 1\n",
        "new_contents": "s = '👋👋'\nt = 2\n",
    }
    sources = [
        ("copilot-nes", made, "made"),
        ("nep", jsonl(root / "nep.jsonl", emoji_row), "made"),
        ("copilot-nes", root / "other", "other"),
    ]
    if SAMPLES.is_dir():  # the samples' nep-001 would collide with the hand-made one: another directory
        sources += [
            ("copilot-nes", SAMPLES / "copilot-nes", "samples"),
            ("nep", SAMPLES / "nep" / "sample.jsonl", "samples"),
            ("crosscodeeval", SAMPLES / "crosscodeeval" / "sample.jsonl", "samples"),
        ]
    for fmt, source, into in sources:
        assert main(["import", fmt, str(source), "-o", str(out / into)]) in (0, 1)
    return root, len(list(out.glob("made/*.md")) + list(out.glob("samples/*.md")))


def test_every_imported_example_passes_with_oracle_offline(imported: tuple[Path, int], tmp_path: Path) -> None:
    root, count = imported
    result = _pytest(root, "oracle", tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{count} passed" in result.stdout.splitlines()[-1]


def test_every_imported_example_fails_with_noop(imported: tuple[Path, int], tmp_path: Path) -> None:
    root, count = imported
    result = _pytest(root, "noop", tmp_path / "cache", into=("made", "samples", "other"))
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1].startswith(f"{count + 1} failed in ")


def test_a_next_edit_in_an_untouched_file_passes_with_oracle(imported: tuple[Path, int], tmp_path: Path) -> None:
    root, _ = imported
    result = _pytest(root, "oracle", tmp_path / "cache", into=("other",))
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_explicit_mapping_wins_over_the_shipped_canvas(imported: tuple[Path, int], tmp_path: Path) -> None:
    root, _ = imported
    missing = tmp_path / "elsewhere.bundle"
    result = _pytest(
        root, "oracle", tmp_path / "cache", f"--editpred-repo=https://github.com/octocat/hello-world={missing}"
    )
    assert result.returncode != 0
    assert f"is mapped to {missing}, which does not exist" in result.stdout + result.stderr


def test_the_import_samples_are_there() -> None:
    assert (SAMPLES / "nep" / "sample.jsonl").is_file(), f"the import samples are not in {SAMPLES}"
