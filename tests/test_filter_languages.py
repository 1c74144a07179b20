"""``editpred filter-languages``: Zed's ``ep filter-languages`` flags and rules on Zed's
own example files (four TypeScript, two Rust, one Python, one README) and on JSONL
built here; kept examples go out unchanged."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from zed_examples import ZED

from pytest_editpred.cli import main

TYPESCRIPT = [
    "vscode--add-async-and-await",
    "vscode--add-class-decorator",
    "vscode--add-interface-method",
    "vscode--log-object-property",
]
RUST = ["zed--add-eprintln", "zed--change-match-arm"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    status = main(["filter-languages", *args])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def names(lines: list[str]) -> list[str]:
    return [json.loads(line)["name"] for line in lines]


def test_languages_by_name_without_case(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(ZED), str(ZED / "zed--add-eprintln.md"), "-l", "TypeScript, rust")
    assert status == 0
    assert names(out) == TYPESCRIPT + RUST  # a file named twice is read once
    assert err == ["filter-languages: 6 of 8 examples kept"]


def test_kept_markdown_examples_are_copied_byte_for_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ts"
    status, stdout, err = run(capsys, str(ZED), "-l", "typescript", "-o", str(out))
    assert (status, err) == (0, [])
    assert stdout == [f"filter-languages: 4 of 8 examples kept, to {out}"]
    assert sorted(p.name for p in out.iterdir()) == [f"{name}.md" for name in TYPESCRIPT]
    for name in TYPESCRIPT:
        assert (out / f"{name}.md").read_bytes() == (ZED / f"{name}.md").read_bytes()


def test_extensions_a_leading_dot_and_the_file_name_without_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, str(ZED), "-e", ".rs,py")
    assert (status, names(out)) == (0, ["flask--add-test-function", *RUST])
    # hello-world's cursor is in README: no extension, so -e matches its file name
    status, out, _ = run(capsys, str(ZED / "hello-world--rename-accepted-group-by.md"), "-e", "readme")
    assert (status, names(out)) == (0, ["hello-world--rename-accepted-group-by"])


def test_unknown_languages_only_with_include_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, str(ZED), "-l", "python")
    assert names(out) == ["flask--add-test-function"]
    status, out, _ = run(capsys, str(ZED), "-l", "python", "--include-unknown")
    assert names(out) == ["flask--add-test-function", "hello-world--rename-accepted-group-by"]


def test_stats_and_top_excluded_go_to_stderr_when_stdout_is_jsonl(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(ZED), "-l", "rust", "--stats", "--show-top-excluded", "2")
    assert status == 0 and names(out) == RUST
    assert err == [
        "examples per language (kept of all):",
        "  TypeScript: 0 of 4",
        "  Rust: 2 of 2",
        "  Python: 0 of 1",
        "  unknown: 0 of 1",
        "top 2 excluded languages:",
        "  TypeScript: 4",
        "  Python: 1",
        "filter-languages: 2 of 8 examples kept",
    ]


def test_an_unknown_language_name_is_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(ZED), "-l", "rust,klingon")
    assert status == 0 and names(out) == RUST
    assert err[0] == (
        "editpred filter-languages: warning: no language is called 'klingon', so it keeps nothing "
        "(See --list for the names.)"
    )


def test_jsonl_lines_go_out_as_they_came_and_bad_ones_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def line(path: str, extra: str = "") -> str:
        return f'{{"repository_url": "u",  "revision": "r", "cursor_path": "{path}", "cursor_position": "x"{extra}}}'

    rows = [
        line("go.mod"),
        line("Makefile", ', "predictions": [{"provider": "zeta2"}]'),
        "{oops",
        line("src/App.TSX"),
        "",
        line("notes.xyz"),
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out.jsonl"
    status, stdout, err = run(capsys, str(source), "-l", "go mod,makefile,tsx", "-o", str(out), "--stats")
    assert status == 1
    assert err[0].startswith(f"{source}:3: invalid JSON: ")
    assert len(err) == 1
    assert out.read_text() == "\n".join([rows[0], rows[1], rows[3]]) + "\n"
    assert stdout == [
        "examples per language (kept of all):",
        "  Go Mod: 1 of 1",
        "  Makefile: 1 of 1",
        "  TSX: 1 of 1",
        "  unknown: 0 of 1",
        f"filter-languages: 3 of 4 examples kept, to {out}",
    ]


def test_jsonl_examples_into_a_folder_are_named_after_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = {"repository_url": "u", "revision": "r", "cursor_position": "x<|user_cursor|>"}
    rows = [base | {"name": "same", "cursor_path": "a.rs"}, base | {"name": "same", "cursor_path": "b.rs"}]
    rows.append(base | {"cursor_path": "c.rs"})
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "md"
    status, _, err = run(capsys, str(tmp_path / "in.jsonl"), "-l", "rust", "-o", str(out))
    assert (status, err) == (0, [])
    assert sorted(p.name for p in out.iterdir()) == ["in-2.md", "same-2.md", "same.md"]
    assert "```b.rs" in (out / "same-2.md").read_text()


def test_list_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--list")
    assert (status, err) == (0, [])
    assert out[0] == "Zed's embedded languages:"
    assert "  Go Mod              mod" in out
    assert "  JSDoc               (no suffix: only injected into other languages)" in out
    others = out.index("Others a corpus commonly holds:")
    assert "  Makefile            mk Makefile GNUmakefile" in out[others:]


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(ZED))
    assert (status, out) == (2, [])
    assert err == [
        "editpred filter-languages: no languages or extensions to keep "
        "(Give -l/--languages (see --list) or -e/--extensions, or both.)"
    ]
    status, _, err = run(capsys, "-l", "rust")
    assert (status, err) == (
        2,
        ["editpred filter-languages: no examples to filter (Give files or folders, or - for stdin.)"],
    )
    with pytest.raises(SystemExit) as raised:
        main(["filter-languages", str(ZED), "-l", "rust", "--show-top-excluded", "0"])
    assert raised.value.code == 2


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["filter-languages", "--help"])
    text = capsys.readouterr().out
    for option in ("-l A,B, --languages A,B", "-e X,Y, --extensions X,Y", "--include-unknown", "--list", "--stats"):
        assert option in text
    assert "--show-top-excluded N" in text and "-o OUT" in text and "--force" in text
    assert textwrap.dedent(text)


def test_folders_keep_their_layout_and_json_files_become_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_editpred.example import from_json, to_markdown

    record = {"name": "deep", "repository_url": "u", "revision": "r", "cursor_path": "src/lib.rs"}
    record |= {"cursor_position": "fn main() {}\n// ^[CURSOR_POSITION]\n", "expected_patches": []}
    (tmp_path / "in" / "sub").mkdir(parents=True)
    markdown = to_markdown(from_json(json.dumps(record)))
    (tmp_path / "in" / "sub" / "deep.md").write_text(markdown)
    (tmp_path / "in" / "one.json").write_text(json.dumps(record | {"name": "one"}, indent=2))
    status, _, err = run(capsys, str(tmp_path / "in"), "-l", "rust", "-o", str(tmp_path / "out"))
    assert (status, err) == (0, [])
    assert (tmp_path / "out" / "sub" / "deep.md").read_text() == markdown
    assert "# one\n" in (tmp_path / "out" / "one.md").read_text()
    status, out, _ = run(capsys, str(tmp_path / "in" / "one.json"), "-e", "rs")
    assert (status, [json.loads(line) for line in out]) == (0, [record | {"name": "one"}])
