"""``editpred import`` (and ``split-commit``, through the same writer) under hostile
output paths and row names: a symbolic link as ``-o`` or inside it, names too long or
no names at all, repeated names, ``--force`` onto an old folder or an input, and
failed usage. Each case asserts the exact lines, the exit status, and that nothing
appeared outside ``-o`` (a snapshot of the whole temporary folder)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from gitrepos import make_repo, snapshot

from pytest_editpred.cli import main

NEP = {
    "commit": "a" * 40,
    "message": "m",
    "old_file": "x.go",
    "new_file": "x.go",
    "status": "M",
    "old_contents": "a\nb\n",
    "current_contents": "a\nbb\n",
    "new_contents": "aa\nbb\n",
}
SUMMARY = "(scored edits or retrieved context an example has no place for)"
LINK_FIX = "(Give -o a real folder, not a link.)"


def cce(task: str) -> dict[str, Any]:
    return {"prompt": "x = ", "groundtruth": "1", "right_context": "\n", "metadata": {"task_id": task, "file": "a.py"}}


def jsonl(path: Path, *rows: object) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def copilot(root: Path, name: str = "fixture") -> Path:
    """One good Copilot NES fixture directory."""
    directory = root / name
    directory.mkdir()
    log = [
        {"kind": "documentEncountered", "id": 0, "relativePath": "a.py", "time": 2},
        {"kind": "setContent", "id": 0, "content": "x = 1\n", "time": 1},
    ]
    recording = {"log": log, "nextUserEdit": {"relativePath": "a.py", "edit": [[4, 5, "2"]]}}
    (directory / "recording.w.json").write_text(json.dumps(recording), encoding="utf-8")
    return directory


def sources(root: Path) -> dict[str, Path]:
    return {
        "nep": jsonl(root / "nep.jsonl", NEP),
        "crosscodeeval": jsonl(root / "cce.jsonl", cce("t1")),
        "copilot-nes": copilot(root),
    }


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- symbolic links


@pytest.mark.parametrize("fmt", ["nep", "crosscodeeval", "copilot-nes"])
def test_a_symbolic_link_as_output_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    (tmp_path / "in").mkdir()
    source = sources(tmp_path / "in")[fmt]
    system = tmp_path / "system"  # stands for /etc or another folder the user never meant
    system.mkdir()
    link = tmp_path / "link"
    link.symlink_to(system)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    before = snapshot(tmp_path)
    for output, target in ((link, system), (dangling, tmp_path / "nowhere")):
        for force in ((), ("--force",)):
            code, out, err = cli(capsys, "import", fmt, source, "-o", output, *force)
            assert (code, out) == (2, "")
            assert err == (
                f"{output}: it is a symbolic link (to {target}); examples are never written through a link {LINK_FIX}\n"
            )
    assert snapshot(tmp_path) == before


def test_a_symbolic_link_inside_the_output_is_never_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = jsonl(tmp_path / "nep.jsonl", NEP)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "nep-001.md").symlink_to(outside)
    code, stdout, err = cli(capsys, "import", "nep", source, "-o", out)
    assert code == 1
    fix = "(Use --force to overwrite it, or another -o directory.)"
    assert err == f"{out / 'nep-001.md'}: not written: it exists already {fix}\n"
    assert outside.read_text() == "keep me\n" and (out / "nep-001.md").is_symlink()
    # --force replaces the folder whole: the link goes, its target stays as it was
    code, stdout, err = cli(capsys, "import", "nep", source, "-o", out, "--force")
    assert (code, err) == (0, "")
    assert not (out / "nep-001.md").is_symlink() and (out / "nep-001.md").read_text().startswith("+++\n")
    assert outside.read_text() == "keep me\n"
    assert snapshot(tmp_path) == {"nep.jsonl", "precious.txt", "out", "out/nep-001.md"}


def test_split_commit_refuses_a_symbolic_link_as_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = make_repo(tmp_path, {"a.py": "x = 1\ny = 2\n"}, [{"a.py": "x = 10\ny = 20\n"}])
    system = tmp_path / "system"
    system.mkdir()
    link = tmp_path / "link"
    link.symlink_to(system)
    before = snapshot(tmp_path, skip=repo)
    code, out, err = cli(capsys, "split-commit", repo, "-o", link, "--url", "https://github.com/acme/a")
    assert (code, out) == (2, "")
    assert err == (
        f"{link}: it is a symbolic link (to {system}); examples are never written through a link "
        "(Give -o a real folder, not a link.)\n"
    )
    assert snapshot(tmp_path, skip=repo) == before and not any(system.iterdir())


# --------------------------------------------------------------------------- names


def test_long_task_ids_are_bounded_and_never_collide(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long_a, long_b = "a" * 200 + "x" * 100, "a" * 200 + "y" * 100
    source = jsonl(tmp_path / "cce.jsonl", cce(long_a), cce(long_b), cce("after"))
    out = tmp_path / "out"
    code, stdout, err = cli(capsys, "import", "crosscodeeval", source, "-o", out)
    assert code == 0
    stem_a = "a" * 109 + "-" + hashlib.sha256(long_a.encode()).hexdigest()[:10]
    stem_b = "a" * 109 + "-" + hashlib.sha256(long_b.encode()).hexdigest()[:10]
    why = "its name is too long for a file name (cut, with a hash of the whole name)"
    assert err.splitlines() == [
        f"{source}:1: warning: {long_a!r} written as {stem_a}.md: {why}",
        f"{source}:2: warning: {long_b!r} written as {stem_b}.md: {why}",
    ]
    assert stdout == f"editpred import: 3 examples written to {out}, 0 skipped, 0 dropped {SUMMARY}\n"
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{stem_a}.md", f"{stem_b}.md", "after.md"])


@pytest.mark.parametrize("force", [(), ("--force",)])
def test_names_that_are_no_file_names_and_repeated_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], force: tuple[str, ...]
) -> None:
    source = jsonl(tmp_path / "cce.jsonl", cce(".."), cce("."), cce("..."), cce(""), cce("t"), cce("t"))
    out = tmp_path / "out"
    if force:
        out.mkdir()
        (out / "old.md").write_text("+++\n")
    code, stdout, err = cli(capsys, "import", "crosscodeeval", source, "-o", out, *force)
    assert code == 0
    assert err.splitlines() == [
        f"{source}:1: warning: '..' written as crosscodeeval-001.md: its name '..' is no usable file name",
        f"{source}:2: warning: '.' written as crosscodeeval-002.md: its name '.' is no usable file name",
        f"{source}:3: warning: '...' written as crosscodeeval-003.md: its name '...' is no usable file name",
        f"{source}:4: warning: '' written as crosscodeeval-004.md: its name '' is no usable file name",
        f"{source}:6: warning: 't' written as t-2.md: an earlier example of this run is written as t.md",
    ]
    assert stdout == f"editpred import: 6 examples written to {out}, 0 skipped, 0 dropped {SUMMARY}\n"
    assert sorted(p.name for p in out.iterdir()) == [f"crosscodeeval-00{n}.md" for n in range(1, 5)] + [
        "t-2.md",
        "t.md",
    ]
    assert snapshot(tmp_path) == {"cce.jsonl", "out"} | {f"out/{p.name}" for p in out.iterdir()}


def test_copilot_names_equal_but_for_case_get_a_suffix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # copilot names an example after its folder; Fix.md and fix.md are one file on
    # a case-insensitive file system, so the second is fix-2.md everywhere
    root = tmp_path / "fixtures"
    root.mkdir()
    copilot(root, "Fix")
    copilot(root, "fix")
    out = tmp_path / "out"
    code, stdout, err = cli(capsys, "import", "copilot-nes", root, "-o", out)
    assert code == 0
    assert err == (
        f"{root / 'fix'}: warning: 'fix' written as fix-2.md: an earlier example of this run is written as Fix.md\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["Fix.md", "fix-2.md"]


# --------------------------------------------------------------------------- the output folder


def test_failed_usage_leaves_no_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(tmp_path)
    out = tmp_path / "deep" / "out"
    code, stdout, err = cli(capsys, "import", "nep", tmp_path / "missing.jsonl", "-o", out)
    assert (code, stdout) == (2, "")
    missing = tmp_path / "missing.jsonl"
    assert err == f"{missing}: {missing} is not a file (Give the path of a .jsonl file.)\n"
    assert snapshot(tmp_path) == before
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    code, stdout, err = cli(capsys, "import", "nep", fifo, "-o", out)
    assert (code, err) == (2, f"{fifo}: {fifo} is not a file (Give the path of a .jsonl file.)\n")
    assert snapshot(tmp_path) == before | {"pipe.jsonl"}


def test_force_replaces_the_old_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    many = jsonl(tmp_path / "many.jsonl", NEP, NEP, NEP)
    assert cli(capsys, "import", "nep", many, "-o", out)[0] == 0
    assert sorted(p.name for p in out.iterdir()) == ["nep-001.md", "nep-002.md", "nep-003.md"]
    one = jsonl(tmp_path / "one.jsonl", {**NEP, "new_contents": "aaa\nbb\n"})
    code, stdout, err = cli(capsys, "import", "nep", one, "-o", out, "--force")
    assert (code, err) == (0, "")
    assert stdout == f"editpred import: 1 example written to {out}, 0 skipped, 0 dropped {SUMMARY}\n"
    assert [p.name for p in out.iterdir()] == ["nep-001.md"]  # the folder holds what the command said
    assert "aaa" in (out / "nep-001.md").read_text()
    assert snapshot(tmp_path) == {"many.jsonl", "one.jsonl", "out", "out/nep-001.md"}


def test_force_refuses_an_output_that_is_or_holds_an_input_or_other_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    source = jsonl(data / "nep.jsonl", NEP)
    fixture = copilot(data)
    before = snapshot(tmp_path)
    fix = "(Give -o a folder apart from the inputs.)"
    for fmt, given, out in (
        ("nep", source, data),  # holds the input
        ("copilot-nes", fixture, fixture),  # is the input
        ("copilot-nes", fixture, fixture / "out"),  # lies inside it
    ):
        if out == fixture / "out":
            out.mkdir()
        code, stdout, err = cli(capsys, "import", fmt, given, "-o", out, "--force")
        assert (code, stdout) == (2, "")
        assert err == f"{out}: --force would replace it, and it is, holds or lies inside the input {given} {fix}\n"
    (fixture / "out").rmdir()
    assert snapshot(tmp_path) == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "conftest.py").write_text("")
    (other / "old.md").write_text("+++\n")
    code, stdout, err = cli(capsys, "import", "nep", source, "-o", other, "--force")
    assert (code, stdout) == (2, "")
    assert err == (
        f"{other}: --force replaces the folder whole, and it holds 'conftest.py', which is no example file "
        "(Give -o a folder of its own, or move the other files out of it.)\n"
    )
    assert sorted(p.name for p in other.iterdir()) == ["conftest.py", "old.md"]


# --------------------------------------------------------------------------- copilot messages


@pytest.mark.parametrize(
    ("recording", "line"),
    [
        (
            {"log": {"kind": "setContent"}},
            "'log' must be a list, not an object (Give 'log' the list of the recording's entries, as Copilot "
            "writes it; or drop the fixture.)",
        ),
        (
            {
                "log": [
                    {"kind": "documentEncountered", "id": 0, "relativePath": "a.py", "time": 2},
                    {"kind": "setContent", "id": 0, "content": "x\n", "time": 1},
                ],
                "nextUserEdit": {"relativePath": "a.py", "edit": [[0, 99, "y"]]},
            },
            "'nextUserEdit.edit'[0] end 99 is outside the document (2 UTF-16 units) (An offset counts UTF-16 "
            "units of the document's text at that point, from 0 to its length: correct the edit, or drop the "
            "fixture.)",
        ),
    ],
)
def test_copilot_messages_carry_their_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recording: object, line: str
) -> None:
    directory = tmp_path / "bad"
    directory.mkdir()
    (directory / "recording.w.json").write_text(json.dumps(recording), encoding="utf-8")
    code, stdout, err = cli(capsys, "import", "copilot-nes", directory, "-o", tmp_path / "out")
    assert code == 1
    assert err == f"{directory / 'recording.w.json'}: {line}\n"
    assert stdout == f"editpred import: 0 examples written to {tmp_path / 'out'}, 1 skipped, 0 dropped {SUMMARY}\n"


# --------------------------------------------------------------------------- the other corpus writers


def test_truncate_patch_and_filter_languages_share_the_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link as -o is refused; --force replaces a folder whole (its old examples
    go), and is refused when the folder holds the input."""
    from zed_examples import ZED

    source = ZED / "zed--add-eprintln.md"
    system = tmp_path / "system"
    system.mkdir()
    link = tmp_path / "link"
    link.symlink_to(system)
    for command in (["truncate-patch", "--num-groups", "1"], ["filter-languages", "-e", "rs"]):
        code, out, err = cli(capsys, *command, source, "-o", link, "--force")
        assert (code, out) == (2, "")
        assert err == (
            f"{link}: it is a symbolic link (to {system}); examples are never written through a link {LINK_FIX}\n"
        )
        folder = tmp_path / "out"
        folder.mkdir()
        (folder / "stale.md").write_text("+++\n")
        code, _, err = cli(capsys, *command, source, "-o", folder, "--force")
        assert (code, err) == (0, "")
        assert [p.name for p in folder.iterdir()] == ["zed--add-eprintln.md"]
        inside = folder / "zed--add-eprintln.md"
        code, out, err = cli(capsys, *command, inside, "-o", folder, "--force")
        assert (code, out) == (2, "")
        assert err == (
            f"{folder}: --force would replace it, and it is, holds or lies inside the input {inside} "
            "(Give -o a folder apart from the inputs.)\n"
        )
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    assert not any(system.iterdir())
    assert snapshot(tmp_path) == {"system", "link"}
