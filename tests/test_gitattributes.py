"""``.gitattributes`` read as git reads it (``corpus/_gitattributes.py``).

Every case is checked against ``git check-attr`` itself, in a real repository whose
``.gitattributes`` files (root and nested) hold the patterns corpus tools meet:
names at any depth, anchored paths, ``**``, character classes, quoted patterns, the
``binary`` macro, a macro of the root file, later lines and deeper files winning,
unsetting, and the lines git refuses (``!`` patterns, folder patterns).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import git, make_repo

from pytest_editpred.corpus._gitattributes import AttributeReader, parse_attributes

ROOT = """\
# comments and blank lines are skipped

*.pb.go linguist-generated
/top.txt linguist-vendored
docs/**/*.min.js linguist-generated=true
gen/** linguist-generated
*.bin binary
[attr]made linguist-generated -diff
*.made made
"quoted name.txt" linguist-vendored
data/[ab]?.csv -diff
!negated.txt linguist-generated
folder/ linguist-generated
keep.pb.go -linguist-generated
"""
NESTED = """\
*.txt linguist-generated
/anchored.go linguist-vendored
deep/** -linguist-generated
"""
PATHS = [
    "x.pb.go",
    "a/b/x.pb.go",
    "keep.pb.go",
    "a/keep.pb.go",
    "top.txt",
    "a/top.txt",
    "docs/x.min.js",
    "docs/a/b/x.min.js",
    "other/x.min.js",
    "gen/a.py",
    "gen/a/b.py",
    "a/gen/b.py",
    "img.bin",
    "a/img.bin",
    "x.made",
    "quoted name.txt",
    "data/a1.csv",
    "data/c1.csv",
    "data/a12.csv",
    "negated.txt",
    "folder/x.py",
    "sub/a.txt",
    "sub/anchored.go",
    "sub/x/anchored.go",
    "sub/deep/a.txt",
    "sub/x/deep/a.txt",
    "plain.py",
]
ATTRIBUTES = ("linguist-generated", "linguist-vendored", "diff", "merge", "text")


def check_attr(repo: Path, path: str) -> dict[str, bool | str]:
    """What git says of ``path``: set (True), unset (False) or a value; unspecified left out."""
    out = git(repo, "check-attr", *ATTRIBUTES, "--", path)
    found: dict[str, bool | str] = {}
    for line in out.splitlines():
        _, name, value = line.rsplit(": ", 2)
        if value == "set":
            found[name] = True
        elif value == "unset":
            found[name] = False
        elif value != "unspecified":
            found[name] = value
    return found


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {".gitattributes": ROOT, "sub/.gitattributes": NESTED, "README": "x\n"}
    path, _ = make_repo(tmp_path_factory.mktemp("attributes"), files)
    return path


@pytest.mark.parametrize("path", PATHS)
def test_the_same_attributes_as_git_check_attr(repo: Path, path: str) -> None:
    reader = AttributeReader(lambda name: (repo / name).read_text() if (repo / name).is_file() else None)
    got = {name: value for name, value in reader(path).items() if name in ATTRIBUTES}
    assert got == check_attr(repo, path)


def test_each_folder_is_read_once() -> None:
    asked: list[str] = []

    def read(name: str) -> str | None:
        asked.append(name)
        return "*.go linguist-generated\n" if name == "a/.gitattributes" else None

    reader = AttributeReader(read)
    assert reader("a/x.go") == {"linguist-generated": True}
    assert reader("a/y.go") == {"linguist-generated": True}
    assert reader("b/y.go") == {}
    assert asked == [".gitattributes", "a/.gitattributes", "b/.gitattributes"]


def test_a_pattern_git_refuses_is_skipped_not_an_error() -> None:
    parsed = parse_attributes("!x linguist-generated\n[unclosed linguist-generated\nok.txt -diff\n")
    assert len(parsed.lines) == 2  # the '[' is a literal character when it is never closed
