"""Reading and writing Zed's markdown format, rule by rule (zed-format.md §1, §7)."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import SUB, Project
from pytest_editpred import (
    CursorMarkerError,
    ExampleError,
    FrontMatterError,
    HeadingLevelError,
    IndentedCodeBlockError,
    MissingCursorBlockError,
)
from pytest_editpred._exceptions import UnknownHeadingError
from pytest_editpred.example import (
    ACCEPTED_PREDICTION_MARKER,
    Example,
    RecentFile,
    from_markdown,
    looks_like_example,
    to_markdown,
)

FRONT = '+++\nrepository_url = "https://github.com/o/r"\nrevision = "abc123"\n+++\n'
CURSOR = "## Cursor Position\n\n```src/a.py\nx = 1\n# ^[CURSOR_POSITION]\n```\n"


def md(body: str, front: str = FRONT) -> str:
    return front + "\n" + textwrap.dedent(body)


def test_minimal_example() -> None:
    example = from_markdown(md(CURSOR), "ex.md")
    assert example.repository_url == "https://github.com/o/r"
    assert example.revision == "abc123"
    assert example.name == "ex"
    assert example.cursor_path == "src/a.py"
    assert example.cursor_position == "x = 1\n# ^[CURSOR_POSITION]\n"
    assert example.edit_history == "" and example.expected_patches == ()
    assert example.source.cursor_line == 9  # the first line inside the fence


def test_front_matter_fields() -> None:
    front = (
        '+++\nrepository_url = "git@github.com:o/r"\nrevision = "abc"\n'
        'tags = ["a", "b"]\nuncommitted_diff_requires_edit_history_rollback = true\n'
        "unknown = 1\n+++\n"
    )
    example = from_markdown(md(CURSOR, front))
    assert example.tags == ("a", "b")
    assert example.uncommitted_diff_requires_edit_history_rollback is True
    assert example.repo_name == "r"


@pytest.mark.parametrize(
    "text,line,words",
    [
        ("no front matter\n", 1, "no front matter"),
        ("\ufeff+++\n", 1, "byte-order mark"),
        ("+++\r\nrepository_url = 'x'\r\n+++\r\n", 1, "CRLF"),
        ('+++\nrepository_url = "x"\nrevision = "y"\n', 1, "no closing"),
        ('+++\nrepository_url = "x"\nrevision = \n+++\n', 3, "not valid TOML"),
        ('+++\nrevision = "y"\n+++\n', 1, "repository_url"),
        ('+++\nrepository_url = "x"\nrevision = 5\n+++\n', 3, "revision"),
        ('+++\nrepository_url = "x"\nrevision = "y"\ntags = "a"\n+++\n', 4, "tags"),
    ],
)
def test_bad_front_matter_is_an_error_with_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(FrontMatterError) as info:
        from_markdown(text + "\n" + CURSOR, "bad.md")
    assert info.value.line == line
    assert words in info.value.reason
    assert info.value.path == "bad.md" and info.value.fix


def test_h1_is_the_name_and_the_last_h1_wins_and_inline_code_is_dropped() -> None:
    example = from_markdown(md("# first\n\n# Second `code` name\n\n" + CURSOR))
    assert example.name == "Second  name"


def test_section_titles_are_ascii_case_insensitive() -> None:
    body = (
        "## EDIT HISTORY\n\n```diff\n--- a/f\n+++ b/f\n-a\n+b\n```\n\n"
        + CURSOR
        + "\n## expected patch\n\n```diff\none\n```\n"
    )
    example = from_markdown(md(body))
    assert example.edit_history == "--- a/f\n+++ b/f\n-a\n+b\n"
    assert example.expected_patches == ("one\n",)


def test_code_blocks_before_any_h2_are_ignored() -> None:
    """(Under an unknown ``##`` heading Zed ignores them too; here that heading is an
    error: see test_an_unknown_heading_is_an_error_naming_the_nearest_one.)"""
    body = "```diff\nbefore\n```\n\n" + CURSOR
    example = from_markdown(md(body))
    assert example.edit_history == "" and example.expected_patches == ()


def test_h3_and_h4_do_not_change_the_section() -> None:
    body = "## Expected Patch\n\n### First\n\n```diff\na\n```\n\n#### Second\n\n```diff\nb\n```\n\n"
    example = from_markdown(md(CURSOR + "\n" + body))
    assert example.expected_patches == ("a\n", "b\n")


@pytest.mark.parametrize("level", [5, 6])
def test_h5_and_h6_are_errors(level: int) -> None:
    text = md(CURSOR + "\n" + "#" * level + " deep\n")
    with pytest.raises(HeadingLevelError) as info:
        from_markdown(text, "x.md")
    assert info.value.reason == f"Unexpected heading level: h{level}"
    assert info.value.line == text.split("\n").index("#" * level + " deep") + 1


def test_indented_code_block_is_an_error_with_its_line() -> None:
    text = md(CURSOR + "\nparagraph\n\n    indented code\n")
    with pytest.raises(IndentedCodeBlockError) as info:
        from_markdown(text, "x.md")
    assert info.value.line == text.split("\n").index("    indented code") + 1


def test_setext_heading_is_a_heading() -> None:
    body = "Edit History\n------------\n\n```diff\n--- a/f\n+++ b/f\n-a\n+b\n```\n\n" + CURSOR
    assert from_markdown(md(body)).edit_history.startswith("--- a/f")


@pytest.mark.parametrize(
    "body,words",
    [
        ("", "Missing cursor position codeblock"),
        ("## Cursor Position\n\n```\nx\n# ^[CURSOR_POSITION]\n```\n", "no info string"),
        ("## Cursor Position\n\n```a.py\n```\n", "empty"),
    ],
)
def test_missing_cursor_block(body: str, words: str) -> None:
    with pytest.raises(MissingCursorBlockError) as info:
        from_markdown(md(body), "x.md")
    assert words in info.value.reason


def test_blocks_per_section() -> None:
    body = (
        "## Uncommitted Diff\n\n```diff\nfirst\n```\n\n```diff\nlast\n```\n\n"
        "## Edit History\n\n```diff\none\n```\n\n```diff\ntwo\n```\n\n"
        + CURSOR
        + "\n## Expected Patch\n\n```diff\np1\n```\n\n```diff\np2\n```\n\n"
        "## Rejected Patch\n\n```diff\nr1\n```\n\n```diff\nr2\n```\n"
    )
    example = from_markdown(md(body))
    assert example.uncommitted_diff == "last\n"
    assert example.edit_history == "one\ntwo\n"
    assert example.expected_patches == ("p1\n", "p2\n")
    assert example.rejected_patch == "r2\n"
    lines = md(body).split("\n")
    assert example.source.expected_patch_lines == (lines.index("p1") + 1, lines.index("p2") + 1)


def test_recent_files_split_at_the_last_tab() -> None:
    body = (
        "## Recently Opened Files\n\n```\na.py\t12\nb c.py\n  \nd.py\tx\ne\tf.py\t7\n```\n\n"
        "## Recently Viewed Files\n\n```\nz.py\t3\n```\n\n" + CURSOR
    )
    example = from_markdown(md(body))
    assert example.recently_opened_files == (
        RecentFile("a.py", 12),
        RecentFile("b c.py"),
        RecentFile("d.py"),
        RecentFile("e\tf.py", 7),
    )
    assert example.recently_viewed_files == (RecentFile("z.py", 3),)


def test_accepted_marker_is_a_paragraph_right_above_the_fence() -> None:
    body = (
        "## Edit History\n\n```diff\none\n```\n\n"
        f"{ACCEPTED_PREDICTION_MARKER}\n```diff\ntwo\n```\n\n"
        f"{ACCEPTED_PREDICTION_MARKER}\n\nother text\n\n```diff\nthree\n```\n\n" + CURSOR
    )
    example = from_markdown(md(body))
    assert example.edit_history == f"one\n{ACCEPTED_PREDICTION_MARKER}\ntwo\nthree\n"


def test_free_paragraph_before_a_block_does_not_leak_into_it() -> None:
    body = "## Edit History\n\nSome words\n```diff\n--- a/f\n```\n\n" + CURSOR
    assert from_markdown(md(body)).edit_history == "--- a/f\n"


def test_history_lines_map_back_to_the_file() -> None:
    text = md("## Edit History\n\n```diff\nl1\nl2\n```\n\n```diff\nl3\n```\n\n" + CURSOR)
    example = from_markdown(text)
    lines = text.split("\n")
    assert example.source.history_line(2) == lines.index("l2") + 1
    assert example.source.history_line(3) == lines.index("l3") + 1


def test_reasoning_is_read_back() -> None:
    example = from_markdown(md("## Reasoning\n\nBecause the user\ntyped `de`.\n\n" + CURSOR))
    assert example.reasoning == "Because the user\ntyped `de`."


def test_cursor_error_points_at_the_cursor_block() -> None:
    example = from_markdown(md("## Cursor Position\n\n```a.py\nno marker\n```\n"), "x.md")
    with pytest.raises(CursorMarkerError) as info:
        example.cursor_excerpt()
    assert info.value.path == "x.md" and info.value.line == example.source.cursor_line


FULL = Example(
    name="full example",
    repository_url="https://github.com/o/r",
    revision="0123abcd",
    cursor_path="src/a b.py",
    cursor_position="x = 1\n# ^[CURSOR_POSITION]\n",
    edit_history=f"--- a/f\n+++ b/f\n-a\n+b\n{ACCEPTED_PREDICTION_MARKER}\n--- a/f\n+++ b/f\n-b\n+c\n",
    expected_patches=("--- a/f\n+++ b/f\n-c\n+d\n# ^[CURSOR_POSITION]\n", "```\nfenced\n```\n"),
    rejected_patch="--- a/f\n+++ b/f\n-c\n+e\n",
    tags=("rename", 'we"ird'),
    reasoning="The user renamed it.\n\nSo finish.",
    uncommitted_diff="--- a/g\n+++ b/g\n@@ -1 +1 @@\n-1\n+2\n",
    uncommitted_diff_requires_edit_history_rollback=True,
    recently_opened_files=(RecentFile("a.py", 3), RecentFile("b.py")),
    recently_viewed_files=(RecentFile("c.py", 0),),
)


def test_round_trip_keeps_every_field_including_reasoning() -> None:
    text = to_markdown(FULL)
    again = from_markdown(text)
    assert again == FULL
    assert to_markdown(again) == text


def test_round_trip_of_an_empty_history() -> None:
    example = Example("n", "https://h/o/r", "ab", "a.py", "x<|user_cursor|>\n")
    text = to_markdown(example)
    assert "(No edit history)" in text
    assert from_markdown(text) == example


def test_looks_like_example(tmp_path) -> None:
    (tmp_path / "e.md").write_text(FRONT)
    (tmp_path / "r.md").write_text("# README\n")
    assert looks_like_example(tmp_path / "e.md")
    assert not looks_like_example(tmp_path / "r.md")
    assert not looks_like_example(tmp_path / "missing.md")


# ------------------------------------------------------------ unknown ## headings


TYPO = "## Expected Patches\n\n```diff\n--- a/src/a.py\n+++ b/src/a.py\n-x = 1\n+x = 2\n```\n"


def test_an_unknown_heading_is_an_error_naming_the_nearest_one() -> None:
    """Zed reads ``## Expected Patches`` as no section and drops its block: the example
    would expect no change, and a model predicting none would pass it."""
    text = md(CURSOR + "\n" + TYPO)
    with pytest.raises(UnknownHeadingError) as info:
        from_markdown(text, "typo.md")
    error = info.value
    assert isinstance(error, ExampleError)
    assert (error.path, error.line) == ("typo.md", text.split("\n").index("## Expected Patches") + 1)
    assert error.reason == (
        "unknown heading '## Expected Patches': did you mean '## Expected Patch'? "
        "(Zed's ep would drop the blocks under it without a word)"
    )
    assert "## Reasoning" in error.fix and "## Rejected Patch" in error.fix


@pytest.mark.parametrize(
    ("heading", "hint"),
    [
        ("## Cursor position:", "did you mean '## Cursor Position'?"),
        ("## Edit Histroy", "did you mean '## Edit History'?"),
        ("## Rejected Patches", "did you mean '## Rejected Patch'?"),
        ("## Recently Viewed", "did you mean '## Recently Viewed Files'?"),
        ("## Reasons", "did you mean '## Reasoning'?"),
        ("## Notes", "it names none of Zed's sections"),
        ("## `Expected Patch`", "did you mean '## Expected Patch'?"),  # Zed reads its text: ''
    ],
)
def test_every_unknown_heading_is_named_with_its_line(heading: str, hint: str) -> None:
    text = md(CURSOR + "\n" + heading + "\n\nSome words.\n")
    with pytest.raises(UnknownHeadingError) as info:
        from_markdown(text, "x.md")
    assert info.value.reason.startswith(f"unknown heading '{heading}'")
    assert hint in info.value.reason
    assert info.value.line == text.split("\n").index(heading) + 1


def test_a_setext_heading_says_it_is_one() -> None:
    """A paragraph line right above ``---`` is an H2: the message says why it is a
    heading at all, and how to make the ``---`` a rule."""
    text = md(CURSOR + "\nSome words\n---\n")
    with pytest.raises(UnknownHeadingError) as info:
        from_markdown(text, "x.md")
    assert info.value.reason.startswith("unknown heading 'Some words' (a heading: the line under it is '---')")
    assert info.value.line == text.split("\n").index("Some words") + 1
    assert "blank line above the '---'" in info.value.fix
    assert from_markdown(md(CURSOR + "\nSome words\n\n---\n")).expected_patches == ()  # a rule: fine


def test_control_characters_in_an_unknown_heading_are_shown_escaped() -> None:
    with pytest.raises(UnknownHeadingError) as info:
        from_markdown(md(CURSOR + "\n## Expected\x1b[2J Patch\n"), "x.md")
    assert "'## Expected\\x1b[2J Patch'" in info.value.reason and "\x1b" not in str(info.value)


@pytest.mark.parametrize(
    "heading",
    [
        "Uncommitted Diff",
        "Recently Opened Files",
        "Recently Viewed Files",
        "Edit History",
        "Cursor Position",
        "Expected Patch",
        "Rejected Patch",
        "Reasoning",
    ],
)
def test_every_heading_zed_reads_or_writes_is_accepted_in_any_case(heading: str) -> None:
    """Zed's sections (zed-format.md §1.1, §1.3) and ``## Reasoning``, which Zed
    writes; case-insensitive, as Zed compares them. H3/H4 never count."""
    for spelling in (heading, heading.upper(), heading.lower()):
        body = f"## {spelling}\n\n### any note\n\n#### another\n\nText.\n\n" + CURSOR
        assert from_markdown(md(body)).cursor_path == "src/a.py"


def test_what_to_markdown_writes_reads_back_with_every_section() -> None:
    example = replace(
        from_markdown(md(CURSOR + "\n## Expected Patch\n\n```diff\na\n```\n\n## Rejected Patch\n\n```diff\nb\n```\n")),
        reasoning="Why.",
        uncommitted_diff="--- a/f\n+++ b/f\n",
        recently_opened_files=(RecentFile("a.py", 3),),
        recently_viewed_files=(RecentFile("b.py"),),
        edit_history="--- a/f\n+++ b/f\n-a\n+b\n",
    )
    again = from_markdown(to_markdown(example))
    assert replace(again, source=example.source) == example


def test_an_edit_history_with_a_unicode_line_separator_round_trips() -> None:
    """The loader splits at ``\\n`` only, as Zed does; writing must too: a history line
    holding U+2028 then the accepted-prediction marker is one line, not a marker."""
    history = f"--- a/f\n+++ b/f\n-a\n+b\u2028{ACCEPTED_PREDICTION_MARKER}\n"
    example = replace(from_markdown(md(CURSOR)), edit_history=history)
    assert from_markdown(to_markdown(example)).edit_history == history


def test_recent_files_are_split_at_newlines_only() -> None:
    body = "## Recently Opened Files\n\n```\na\u2028b.py\t4\nc.py\n```\n\n" + CURSOR
    assert from_markdown(md(body)).recently_opened_files == (RecentFile("a\u2028b.py", 4), RecentFile("c.py"))


def test_lint_reports_an_unknown_heading_as_one_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_editpred.cli import main

    (tmp_path / "evals").mkdir()
    text = md(CURSOR + "\n" + TYPO)
    (tmp_path / "evals" / "typo.md").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "evals"]) == 1
    out, err = capsys.readouterr()
    line = text.split("\n").index("## Expected Patches") + 1
    assert err.splitlines() == [
        f"evals/typo.md:{line}: unknown heading '## Expected Patches': did you mean '## Expected Patch'? "
        f"(Zed's ep would drop the blocks under it without a word) ({UnknownHeadingError.default_fix})"
    ]
    assert out.startswith("0 examples in 1 file: 1 error, no quality findings")


def test_a_typo_in_a_heading_is_an_error_item_and_noop_no_longer_passes(project: Project) -> None:
    """Before: the typo made an example that expects no change, so ``noop`` PASSED it."""
    broken = SUB.replace("## Expected Patch\n", "## Expected Patches\n")
    assert broken != SUB
    path = project.example("calc--typo", broken)
    result = project.pytester.runpytest("evals", "--editpred-provider=noop", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    line = path.read_text().split("\n").index("## Expected Patches") + 1
    # Once in the error's paragraph; the short summary (pytest's index) repeats it
    # whole under CI=true, truncated otherwise: it is not counted.
    body = out.split("short test summary info", 1)[0]
    assert body.count("unknown heading '## Expected Patches': did you mean '## Expected Patch'?") == 1, out
    assert f"evals/calc--typo.md:{line}" in out
    path.write_text(path.read_text().replace("## Expected Patches\n", "## Expected Patch\n"))
    project.pytester.runpytest("evals", "--editpred-provider=noop", "-p", "no:cacheprovider").assert_outcomes(failed=1)
