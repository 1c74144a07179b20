"""The one table of languages: Zed's embedded languages and the others, detection by
extension then file name (§2.3), and the grammar and tag its users read from it."""

from __future__ import annotations

from collections import Counter

import pytest

from pytest_editpred._languages import LANGUAGES, detection_key, find_language, language_of
from pytest_editpred.corpus._canvas import cursor_block, language
from pytest_editpred.zeta._syntax import language_for_path

#: Zed's embedded languages (crates/languages/src/*/config.toml), by name.
ZED = {
    "Shell Script",
    "C",
    "C++",
    "CSS",
    "Diff",
    "Git Commit",
    "Go",
    "Go Mod",
    "Go Work",
    "JavaScript",
    "JSDoc",
    "JSON",
    "JSONC",
    "Markdown",
    "Markdown-Inline",
    "Python",
    "Regular Expression",
    "Rust",
    "TSX",
    "TypeScript",
    "YAML",
}


def test_zeds_languages_are_all_there_and_marked() -> None:
    assert {language.name for language in LANGUAGES if language.zed} == ZED


def test_no_suffix_or_name_is_claimed_twice() -> None:
    """The table is read by lowercased suffix: two languages claiming one would make
    the second unreachable."""
    claims = Counter(suffix.lower() for language in LANGUAGES for suffix in set(s.lower() for s in language.suffixes))
    assert [suffix for suffix, n in claims.items() if n > 1] == []
    assert len({language.name.lower() for language in LANGUAGES}) == len(LANGUAGES)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("src/main.rs", "Rust"),
        ("pkg/A.PY", "Python"),  # the extension lowercased
        ("types.pyi", "Python"),
        ("x.mts", "TypeScript"),
        ("App.tsx", "TSX"),
        ("lib/x.cjs", "JavaScript"),
        ("include/x.h", "C++"),  # Zed reads a header as C++
        ("x.c", "C"),
        ("go.mod", "Go Mod"),  # by its extension, mod
        ("go.work", "Go Work"),
        ("Makefile", "Makefile"),  # no extension: the whole file name, lowercased
        ("docker/Dockerfile", "Dockerfile"),
        (".git/COMMIT_EDITMSG", "Git Commit"),
        ("flake.lock", "JSON"),  # the extension lock is unknown: the file name
        ("PKGBUILD", "Shell Script"),
        (".env", "Shell Script"),
        ("CMakeLists.txt", "Plain Text"),  # the extension wins
        ("docs/intro.MDX", "Markdown"),
        ("win\\path\\x.go", "Go"),
    ],
)
def test_detection_is_extension_then_file_name(path: str, name: str) -> None:
    found = language_of(path)
    assert found is not None and found.name == name


@pytest.mark.parametrize("path", ["README", ".bashrc", "x.unknownext", "notes.", "LICENSE"])
def test_unknown(path: str) -> None:
    """``.bashrc`` has no extension (a dot file) and the table holds ``bashrc``, as Zed's."""
    assert language_of(path) is None


def test_detection_key() -> None:
    assert detection_key("a/B.Tar.GZ") == ("gz", "b.tar.gz")
    assert detection_key("dir.d/Makefile") == ("", "makefile")
    assert detection_key(".bashrc") == ("", ".bashrc")


def test_find_language_ignores_case() -> None:
    assert find_language("c++") is find_language("C++") is language_of("x.cpp")
    assert find_language(" shell script ") is language_of("x.sh")
    assert find_language("cpp") is None  # names, not tags


def test_grammars_and_tags_come_from_the_table() -> None:
    """The Zeta prompt's grammars and the importers' tags, as they were before the
    table was one: JavaScript parses with TSX, a .tsx file is tagged typescript, a
    lone header c."""
    assert [language_for_path(p) for p in ("a.py", "a.rs", "a.ts", "a.tsx", "a.mjs", "a.go", "a.c", "Makefile")] == [
        "python",
        "rust",
        "typescript",
        "tsx",
        "tsx",
        "go",
        None,
        None,
    ]
    assert [language(p) for p in ("a.tsx", "a.h", "a.hpp", "a.sh", "a.kt", "a.ipynb", "README")] == [
        "typescript",
        "c",
        "cpp",
        "shell",
        "kotlin",
        "jupyter",
        None,
    ]


def test_the_cursor_marker_line_uses_the_languages_comment() -> None:
    """A Makefile's marker is a ``#`` comment now that the table knows it (it was ``//``)."""
    assert cursor_block("Makefile", "all:\n\tcc x.c\n", 1) == "all:\n#^[CURSOR_POSITION]\n\tcc x.c\n"
    assert cursor_block("x.rs", "fn main() {}\n", 3) == "fn main() {}\n// ^[CURSOR_POSITION]\n"
