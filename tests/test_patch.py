"""Applying a patch to buffers (``pytest_editpred/scene/_patch.py``), rule by rule.

Each test applies a small hand-written patch to in-memory buffers with
:func:`apply_patch` and compares the whole :class:`Patched` result (buffers, cursor,
changed files, kept bounds) or the exact error (type, reason, fix, line) with what
the module's docstrings promise: per-file application, created, deleted and renamed
files, the path rule checked before anything is applied, context not found or not
unique, the ``kept`` bounds, and the expected cursor carried by an ``ExpectedPatch``.
"""

from __future__ import annotations

import dataclasses

import pytest

from pytest_editpred import (
    ContextNotFoundError,
    ContextNotUniqueError,
    CursorMarkerError,
    DiffError,
    ExpectedPatch,
    NoSuchPathError,
    Patched,
    UnsafePathError,
    apply_patch,
    parse_diff,
)
from pytest_editpred.example import extract_cursor_from_patch
from pytest_editpred.scene import Buffers
from pytest_editpred.scene._patch import check_section_paths

TEXT = "one\ntwo\nthree\nfour\n"
PATH_FIX = "Name files by their path relative to the repository root, without '..' or '.git'."


def section(old: str, new: str, *body: str, header: str = "@@ @@") -> str:
    """One file section: ``--- old``, ``+++ new``, a hunk header, the body lines."""
    return f"--- {old}\n+++ {new}\n{header}\n" + "".join(line + "\n" for line in body)


# -- buffers, files created, deleted and renamed --------------------------------------------


def test_an_edit_in_place_changes_that_buffer_only_and_not_the_callers_mapping() -> None:
    buffers = {"a.py": TEXT, "b.py": "bee\n"}
    patched = apply_patch(buffers, section("a/a.py", "b/a.py", "-two", "+TWO", header="@@ -2,1 +2,1 @@"))
    assert patched == Patched(
        buffers={"a.py": "one\nTWO\nthree\nfour\n", "b.py": "bee\n"},
        cursor=None,
        changed=("a.py",),
        kept={"a.py": (4, 11)},
    )
    assert buffers == {"a.py": TEXT, "b.py": "bee\n"}


def test_a_multi_file_patch_changes_each_file_it_names_in_order() -> None:
    patch = section("a/b.py", "b/b.py", "-bee", "+BEE") + section("a/a.py", "b/a.py", "-one", "+ONE")
    patched = apply_patch({"a.py": TEXT, "b.py": "bee\n"}, patch)
    assert dict(patched.buffers) == {"a.py": "ONE\ntwo\nthree\nfour\n", "b.py": "BEE\n"}
    assert patched.changed == ("b.py", "a.py")
    assert patched.kept == {"b.py": (0, 0), "a.py": (0, 15)}


def test_a_created_file_is_a_new_buffer_and_says_nothing_of_what_it_kept() -> None:
    patch = section("/dev/null", "b/pkg/new.py", "+x = 1", "+y = 2", header="@@ -0,0 +1,2 @@")
    patched = apply_patch({"a.py": TEXT}, patch)
    assert patched == Patched({"a.py": TEXT, "pkg/new.py": "x = 1\ny = 2\n"}, None, ("pkg/new.py",), {})


def test_a_deleted_file_leaves_the_buffers_and_is_said_deleted() -> None:
    patch = section("a/a.py", "/dev/null", "-one", "-two", "-three", "-four", header="@@ -1,4 +0,0 @@")
    patched = apply_patch({"a.py": TEXT, "b.py": "bee\n"}, patch)
    assert patched == Patched(Buffers({"b.py": "bee\n"}, frozenset({"a.py"})), None, ("a.py",), {})
    assert patched.buffers != {"b.py": "bee\n"}  # not the buffers of a patch that never opened a.py


def test_a_file_deleted_before_it_was_opened_is_opened_by_its_candidate_path() -> None:
    asked: list[str] = []

    def open_file(path: str) -> tuple[str, str] | None:
        asked.append(path)
        return ("src/gone.py", "bye\n") if path == "src/gone.py" else None

    patched = apply_patch({}, "--- a/proj/src/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", open_file=open_file)
    assert asked == ["proj/src/gone.py", "src/gone.py"]  # itself, then without its first component
    assert patched == Patched(Buffers({}, frozenset({"src/gone.py"})), None, ("src/gone.py",), {})


def test_a_file_of_the_tree_wins_over_an_open_buffer_named_without_its_first_component() -> None:
    opened = {"cli/Cargo.toml": "[dependencies]\nx = 1\n"}
    patch = section("a/cli/Cargo.toml", "b/cli/Cargo.toml", " [dependencies]", "-x = 1", "+x = 2")
    patched = apply_patch(
        {"Cargo.toml": "[dependencies]\nx = 1\n"}, patch, open_file=lambda p: (p, opened[p]) if p in opened else None
    )
    assert patched.buffers == {"Cargo.toml": "[dependencies]\nx = 1\n", "cli/Cargo.toml": "[dependencies]\nx = 2\n"}


def test_a_rename_with_an_edit_moves_the_buffer() -> None:
    patched = apply_patch({"old.py": "a\nb\n"}, section("a/old.py", "b/new.py", " a", "-b", "+B"))
    assert patched == Patched(Buffers({"new.py": "a\nB\n"}, frozenset({"old.py"})), None, ("new.py",), {})
    assert patched.buffers.created == {"new.py"}


def test_a_rename_without_hunks_moves_the_text_unchanged() -> None:
    patched = apply_patch({"old.py": "a\n", "x.py": "x\n"}, "--- a/old.py\n+++ b/new.py\n")
    assert patched == Patched(Buffers({"x.py": "x\n", "new.py": "a\n"}, frozenset({"old.py"})), None, ("new.py",), {})


def test_each_hunk_is_placed_in_the_text_the_previous_one_left() -> None:
    # The second hunk's context exists only after the first hunk's edit (Zed's rule).
    patch = section("a/a.py", "b/a.py", "-two", "+TWO") + "@@ @@\n TWO\n-three\n+THREE\n"
    patched = apply_patch({"a.py": TEXT}, patch)
    assert patched.buffers["a.py"] == "one\nTWO\nTHREE\nfour\n"
    assert patched.kept == {"a.py": (4, 5)}


def test_a_later_section_on_the_same_file_sees_the_earlier_ones_result() -> None:
    patch = section("a/a.py", "b/a.py", "-two", "+TWO") + section("a/a.py", "b/a.py", " TWO", "-three", "+3")
    patched = apply_patch({"a.py": TEXT}, patch)
    assert patched == Patched({"a.py": "one\nTWO\n3\nfour\n"}, None, ("a.py",), {"a.py": (4, 5)})


def test_a_path_with_the_repository_name_in_front_finds_the_buffer() -> None:
    patched = apply_patch({"src/a.py": TEXT}, section("a/calc/src/a.py", "b/calc/src/a.py", "-one", "+1"))
    assert patched.buffers == {"src/a.py": "1\ntwo\nthree\nfour\n"} and patched.changed == ("src/a.py",)


def test_a_file_read_through_open_file_is_changed_but_its_bounds_are_not_reported() -> None:
    patched = apply_patch(
        {"a.py": TEXT},
        section("a/disk.py", "b/disk.py", "-disk", "+DISK") + section("a/a.py", "b/a.py", "-four", "+4"),
        open_file=lambda path: ("disk.py", "disk\n") if path == "disk.py" else None,
    )
    assert dict(patched.buffers) == {"a.py": "one\ntwo\nthree\n4\n", "disk.py": "DISK\n"}
    assert patched.changed == ("disk.py", "a.py")
    assert patched.kept == {"a.py": (14, 0)}


# -- paths that name nothing we know ----------------------------------------------------------


def test_a_path_that_names_nothing_is_an_error() -> None:
    with pytest.raises(NoSuchPathError) as info:
        apply_patch({"a.py": TEXT}, section("a/missing.py", "b/missing.py", "-one", "+1"))
    assert info.value.reason == "no such path: missing.py"
    assert info.value.fix == "Use a path relative to the repository root, as in '--- a/src/app.py'."


def test_default_path_takes_a_section_whose_path_names_nothing() -> None:
    patched = apply_patch({"a.py": TEXT}, section("a/file", "b/file", "-one", "+1"), default_path="a.py")
    assert patched == Patched({"a.py": "1\ntwo\nthree\nfour\n"}, None, ("a.py",), {"a.py": (0, 15)})


def test_a_default_path_that_is_not_open_does_not_help() -> None:
    with pytest.raises(NoSuchPathError) as info:
        apply_patch({"a.py": TEXT}, section("a/file", "b/file", "-one", "+1"), default_path="b.py")
    assert info.value.reason == "no such path: file"


# -- the path rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "patch,reason,line",
    [
        (section("a/../x", "b/../x", "-one", "+1"), "unsafe path '../x': it contains '..'", 1),
        (section("/dev/null", "/etc/x", "+x"), "unsafe path '/etc/x': it is absolute", 1),
        (
            section("a/.git/config", "b/.git/config", "-a", "+b"),
            "unsafe path '.git/config': it names git's own '.git'",
            1,
        ),
        (
            section("a/src/.GIT/hooks/x", "b/src/.GIT/hooks/x", "-a", "+b"),
            "unsafe path 'src/.GIT/hooks/x': it names git's own '.git'",
            1,
        ),
        (section("a/C:/x.py", "b/C:/x.py", "-a", "+b"), "unsafe path 'C:/x.py': it is absolute", 1),
        (section("a/src/./../../x", "b/src/./../../x", "-a", "+b"), "unsafe path 'src/./../../x': it contains '..'", 1),
        (
            section("a/x\x01y", "b/x\x01y", "-a", "+b"),
            "unsafe path 'x\\x01y': it contains NUL or control characters",
            1,
        ),
        # only the new name is unsafe: a rename out of the repository
        (section("a/a.py", "b/../outside.py", "-one", "+1"), "unsafe path '../outside.py': it contains '..'", 1),
        # the line is the unsafe section's, relative to the patch
        (
            section("a/a.py", "b/a.py", "-one", "+1") + section("a/../x", "b/../x", "-a", "+b"),
            "unsafe path '../x': it contains '..'",
            6,
        ),
    ],
    ids=[
        "dotdot",
        "absolute",
        "dot-git",
        "dot-git-any-case",
        "drive-letter",
        "dot-then-dotdot",
        "control",
        "rename-target",
        "second-section",
    ],
)
def test_a_patch_naming_an_unsafe_path_is_refused(patch: str, reason: str, line: int) -> None:
    with pytest.raises(UnsafePathError) as info:
        apply_patch({"a.py": TEXT}, patch)
    assert (info.value.reason, info.value.fix, info.value.line) == (reason, PATH_FIX, line)
    assert str(info.value) == f"{reason}\n  fix: {PATH_FIX}"


def test_an_unsafe_path_is_refused_before_anything_is_applied() -> None:
    asked: list[str] = []

    def open_file(path: str) -> tuple[str, str] | None:
        asked.append(path)
        return (path, "disk\n")

    patch = section("a/disk.py", "b/disk.py", "-disk", "+DISK") + section("/dev/null", "b/../../etc/cron", "+x")
    with pytest.raises(UnsafePathError) as info:
        apply_patch({}, patch, open_file=open_file)
    assert info.value.line == 6
    assert asked == []  # the first, safe section never even opened its file


def test_check_section_paths_accepts_dev_null_and_plain_paths() -> None:
    sections = parse_diff(
        section("/dev/null", "b/new.py", "+x")
        + section("a/old.py", "/dev/null", "-x")
        + section("a/d/e.py", "b/d/f.py", "-a", "+b")
    )
    assert [(s.old_path, s.new_path, s.line) for s in sections] == [
        ("/dev/null", "new.py", 1),
        ("old.py", "/dev/null", 5),
        ("d/e.py", "d/f.py", 9),
    ]
    check_section_paths(sections)  # raises nothing


def test_check_section_paths_refuses_with_the_rules_own_message_at_the_sections_line() -> None:
    sections = parse_diff(section("a/ok.py", "b/ok.py", "-a", "+b") + section("a/ok.py", "b//abs.py", "-a", "+b"))
    with pytest.raises(UnsafePathError) as info:
        check_section_paths(sections)
    assert (info.value.reason, info.value.line) == ("unsafe path '/abs.py': it is absolute", 6)


# -- context not found, not unique --------------------------------------------------------------


def test_a_context_that_is_not_in_the_file() -> None:
    with pytest.raises(ContextNotFoundError) as info:
        apply_patch({"a.py": TEXT}, section("a/a.py", "b/a.py", " three", "-five", "+5", header="@@ -3,2 +3,2 @@"))
    assert info.value.reason == "hunk context not found:\n    | three\n    | five"
    assert info.value.line == 3  # the hunk's header line in the patch
    assert info.value.fix.startswith("The hunk's context and '-' lines must occur in the file exactly")


def test_a_context_that_occurs_twice_without_a_header_line() -> None:
    with pytest.raises(ContextNotUniqueError) as info:
        apply_patch({"a.py": "x\ny\nx\ny\n"}, section("a/a.py", "b/a.py", " x", "-y", "+Y"))
    assert info.value.reason == "hunk context is not unique: it occurs 2 times (at lines 1, 3):\n    | x\n    | y"
    assert info.value.line == 3


def test_a_context_that_occurs_twice_and_not_at_the_headers_line() -> None:
    with pytest.raises(ContextNotUniqueError) as info:
        apply_patch({"a.py": "x\ny\nx\ny\n"}, section("a/a.py", "b/a.py", " x", "-y", "+Y", header="@@ -2,2 +2,2 @@"))
    assert info.value.reason == (
        "hunk context is not unique: it occurs 2 times (at lines 1, 3) and none starts at the header's line 2:"
        "\n    | x\n    | y"
    )


def test_the_headers_line_picks_one_of_a_repeated_context() -> None:
    patch = section("a/a.py", "b/a.py", " x", "-y", "+Y", header="@@ -3,2 +3,2 @@")
    patched = apply_patch({"a.py": "x\ny\nx\ny\n"}, patch)
    assert patched == Patched({"a.py": "x\ny\nx\nY\n"}, None, ("a.py",), {"a.py": (6, 0)})


def test_all_sections_share_one_placing_budget() -> None:
    # 1,000 one-hunk sections on a 2 MB file search 2,000,005,000 characters: over the
    # limit together, though each section alone is one linear search.
    text = "a" * 2_000_000 + "\nend\n"
    patch = "".join(section("a/f", "b/f", " end") for _ in range(1001))
    with pytest.raises(DiffError) as info:
        apply_patch({"f": text}, patch)
    assert info.value.reason == (
        "the diff places 1,000 hunks in files of up to 2,000,005 characters: each hunk is placed by searching "
        "its whole file (Zed's rule), 2,000,005,000 characters in all, more than the limit of 2,000,000,000"
    )
    assert info.value.line == 4 * 999 + 3  # the header of the 1,000th section's hunk
    under = apply_patch({"f": text}, "".join(section("a/f", "b/f", " end") for _ in range(999)))
    assert under.buffers["f"] == text and under.kept == {"f": (len(text), len(text))}


# -- what the patch says it kept ----------------------------------------------------------------


@pytest.mark.parametrize(
    "before,patch,after,kept",
    [
        (TEXT, section("a/f", "b/f", "-two", "+TWO"), "one\nTWO\nthree\nfour\n", (4, 11)),
        (TEXT, section("a/f", "b/f", " one", "+half"), "one\nhalf\ntwo\nthree\nfour\n", (4, 15)),
        (TEXT, section("a/f", "b/f", "-four"), "one\ntwo\nthree\n", (14, 0)),
        (TEXT, section("a/f", "b/f", "-one", "+ONE") + "@@ @@\n-four\n+FOUR\n", "ONE\ntwo\nthree\nFOUR\n", (0, 0)),
        (TEXT, section("a/f", "b/f", " two", " three"), TEXT, (19, 19)),  # context only: nothing edited
        ("ab\n", section("a/f", "b/f", "-ab", "+ac"), "ac\n", (0, 0)),  # whole lines: no shared characters claimed
    ],
    ids=["middle", "insertion", "deletion-at-end", "both-ends", "context-only", "one-line"],
)
def test_kept_bounds_are_the_untouched_head_and_tail(
    before: str, patch: str, after: str, kept: tuple[int, int]
) -> None:
    patched = apply_patch({"f": before}, patch)
    assert patched.buffers["f"] == after
    assert patched.kept == {"f": kept}
    head, tail = kept
    assert after[:head] == before[:head]
    assert after[len(after) - tail :] == before[len(before) - tail :]


def test_patched_is_frozen_and_kept_defaults_to_empty() -> None:
    patched = Patched({"f": "x"}, None, ("f",))
    assert patched.kept == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(patched, "cursor", ("f", 0))  # noqa: B010


# -- the expected cursor ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "patch,buffers,cursor,shown",
    [
        # on an added line: the caret's column minus the '+' prefix
        (section("a/a.py", "b/a.py", "-two", "+TWO", "#  ^[CURSOR_POSITION]"), {"a.py": TEXT}, ("a.py", 6), "one\nTW|"),
        # on a context line
        (
            section("a/a.py", "b/a.py", " three", "#    ^[CURSOR_POSITION]", "-four", "+4"),
            {"a.py": TEXT},
            ("a.py", 12),
            "one\ntwo\nthre|",
        ),
        # '<' marks column 0; before any context or '+' line it is the first hunk's start
        ("--- a/a.py\n+++ b/a.py\n# <[CURSOR_POSITION]\n@@ @@\n-two\n+TWO\n", {"a.py": TEXT}, ("a.py", 4), "one\n|"),
        # in a later hunk: that hunk's own position, not Zed's accumulated offset
        (
            section("a/a.py", "b/a.py", " one", "-two", "+TWO")
            + "@@ @@\n three\n-four\n+FOUR\n#   ^[CURSOR_POSITION]\n",
            {"a.py": TEXT},
            ("a.py", 17),
            "one\nTWO\nthree\nFOU|",
        ),
        # in the second file of the patch
        (
            section("a/a.py", "b/a.py", "-one", "+ONE")
            + section("a/b.py", "b/b.py", "-bee", "+BEE", "# ^[CURSOR_POSITION]"),
            {"a.py": TEXT, "b.py": "alpha\nbee\n"},
            ("b.py", 7),
            "alpha\nB|",
        ),
        # in a renamed file: the new name
        (
            section("a/old.py", "b/new.py", "-x", "+xyz", "#  ^[CURSOR_POSITION]"),
            {"old.py": "x\n"},
            ("new.py", 2),
            "xy|",
        ),
        # columns are UTF-8 bytes: 'é' is two bytes, so byte 3 is the third character
        (section("a/u.py", "b/u.py", "-x", "+é = 1", "#   ^[CURSOR_POSITION]"), {"u.py": "x\n"}, ("u.py", 2), "é |"),
        # a column is not clamped to its line (Zed): it runs on into the next one
        (section("a/a.py", "b/a.py", "-one", "+1", "#     ^[CURSOR_POSITION]"), {"a.py": TEXT}, ("a.py", 5), "1\ntwo|"),
    ],
    ids=[
        "added-line",
        "context-line",
        "before-any-line",
        "later-hunk",
        "second-file",
        "renamed",
        "multi-byte",
        "unclamped",
    ],
)
def test_the_expected_cursor_lands_where_the_patch_marks_it(
    patch: str, buffers: dict[str, str], cursor: tuple[str, int], shown: str
) -> None:
    expected = extract_cursor_from_patch(patch)
    assert expected.has_cursor
    patched = apply_patch(buffers, expected)
    assert patched.cursor == cursor
    path, offset = cursor
    assert patched.buffers[path][:offset] + "|" == shown


def test_an_expected_patch_built_by_hand_carries_its_cursor() -> None:
    patch = section("a/a.py", "b/a.py", "-two", "+TWO")
    assert apply_patch({"a.py": TEXT}, ExpectedPatch(patch, cursor_line=4, cursor_column=3)).cursor == ("a.py", 7)
    assert apply_patch({"a.py": TEXT}, ExpectedPatch(patch)).cursor is None


def test_a_plain_string_patch_has_no_cursor_even_with_a_marker_line() -> None:
    # Only an ExpectedPatch carries a cursor; in a string the marker line is garbage.
    patched = apply_patch({"a.py": TEXT}, section("a/a.py", "b/a.py", "-two", "+TWO", "#  ^[CURSOR_POSITION]"))
    assert patched == Patched({"a.py": "one\nTWO\nthree\nfour\n"}, None, ("a.py",), {"a.py": (4, 11)})


def test_a_cursor_column_inside_a_multi_byte_character_is_an_error() -> None:
    expected = extract_cursor_from_patch(section("a/u.py", "b/u.py", "-x", "+é = 1", "# ^[CURSOR_POSITION]"))
    assert expected.cursor_column == 1
    with pytest.raises(CursorMarkerError) as info:
        apply_patch({"u.py": "x\n"}, expected)
    assert info.value.reason == (
        "the expected cursor falls inside a multi-byte character (Zed counts columns in UTF-8 bytes)"
    )
    assert info.value.fix == "Move the '^' so that its byte column is the start of a character."


def test_a_cursor_column_past_the_end_of_the_text_is_an_error() -> None:
    marker = "#" + " " * 9 + "^[CURSOR_POSITION]"  # byte column 9 on the 2-character last line "4\n"
    expected = extract_cursor_from_patch(section("a/a.py", "b/a.py", "-four", "+4", marker))
    with pytest.raises(CursorMarkerError) as info:
        apply_patch({"a.py": TEXT}, expected)
    assert info.value.reason == "the expected cursor is 7 bytes past the end of the text"
