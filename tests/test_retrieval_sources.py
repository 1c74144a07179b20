"""The rules of each editable source (§2.2–§2.8), one hand-made scene each,
the odd ones included: BM25 reads the oldest eight history entries and files from
disk, git log's quoted paths keep their order number, the oracle's `-- ` misreading."""

from __future__ import annotations

from pathlib import Path

from retrieval_scenes import scene_of

from pytest_editpred.retrieval import retrieve
from pytest_editpred.retrieval._bm25 import query_terms
from pytest_editpred.retrieval._history import edit_entries
from pytest_editpred.retrieval._oracle import oracle_targets
from pytest_editpred.retrieval._workspace import Workspace

LONG = "".join(f"row_{k:03} = {k}\n\n" if k % 2 else f"row_{k:03} = {k}\n" for k in range(60))


def lines(count: int, word: str = "line") -> str:
    return "".join(f"{word}_{k} = {k}\n" for k in range(count))


def section(path: str, row: int, old: str, new: str) -> str:
    """A one-line replacement at 0-based ``row``."""
    return f"--- a/{path}\n+++ b/{path}\n@@ -{row + 1},1 +{row + 1},1 @@\n-{old}\n+{new}\n"


def rows(files, path: str) -> list[tuple[int, int, int, str]]:  # type: ignore[no-untyped-def]
    [file] = [f for f in files if f.path.endswith("/" + path)]
    return [(e.start_row, e.end_row, e.order, e.context_source) for e in file.excerpts]


# ------------------------------------------------------------------------------ history


def test_close_edits_of_one_file_are_one_event_far_ones_two(tmp_path: Path) -> None:
    text = lines(80)
    near = section("a.py", 10, "line_10 = 10", "line_10 = 100") + section("a.py", 18, "line_18 = 18", "line_18 = 180")
    far = section("a.py", 10, "line_10 = 10", "line_10 = 100") + section("a.py", 60, "line_60 = 60", "line_60 = 600")
    for history, count in ((near, 1), (far, 2)):
        with scene_of(
            tmp_path / str(count),
            "p",
            {"a.py": text},
            cursor_path="a.py",
            cursor="<|user_cursor|>line_0 = 0\n",
            history=history,
        ) as scene:
            entries = edit_entries(scene.events, scene.buffers)
            assert len(entries) == count
            buffer = scene.buffers["a.py"]
            assert buffer.count("\n", 0, entries[0].start) == 10
            if count == 1:
                assert buffer.count("\n", 0, entries[0].end) == 18
                assert rows(retrieve(scene, "edit-history"), "a.py") == [(0, 38, 1, "edit_history")]
            else:
                # rows 0..30 (order 1) and 40..80 (order 2): ten rows apart, two excerpts
                assert rows(retrieve(scene, "edit-history"), "a.py") == [
                    (0, 30, 1, "edit_history"),
                    (40, 80, 2, "edit_history"),
                ]


def test_at_most_ten_entries_the_oldest_dropped(tmp_path: Path) -> None:
    files = {f"f{k}.py": f"name_{k} = 0\n" for k in range(12)}
    history = "".join(section(f"f{k}.py", 0, f"name_{k} = 0", f"name_{k} = 1") for k in range(12))
    with scene_of(
        tmp_path,
        "p",
        {**files, "main.py": "x = 1\n"},
        cursor_path="main.py",
        cursor="x<|user_cursor|> = 1\n",
        history=history,
    ) as scene:
        assert [e.path for e in edit_entries(scene.events, scene.buffers)] == [f"f{k}.py" for k in range(2, 12)]
        files_out = retrieve(scene, "edit-history-file")
        assert [(f.path, f.excerpts[0].order) for f in files_out] == [(f"p/f{k}.py", k - 2) for k in range(2, 12)]


def test_an_edit_too_big_to_diff_is_not_recorded(tmp_path: Path) -> None:
    big = "x" * 7000
    history = section("a.py", 0, "line_0 = 0", big) + section("b.py", 0, "line_0 = 0", "line_0 = 1")
    with scene_of(
        tmp_path,
        "p",
        {"a.py": lines(3), "b.py": lines(3)},
        cursor_path="b.py",
        cursor="line_1<|user_cursor|> = 1\n",
        history=history,
    ) as scene:
        assert [e.path for e in edit_entries(scene.events, scene.buffers)] == ["b.py"]


def test_a_later_edit_moves_an_earlier_entrys_rows(tmp_path: Path) -> None:
    """Entries are anchored: ten rows inserted above an entry's range move it down."""
    insert = "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,11 @@\n line_0 = 0\n" + "".join(f"+new_{k}\n" for k in range(10))
    history = section("a.py", 50, "line_50 = 50", "line_50 = 5") + insert
    with scene_of(
        tmp_path, "p", {"a.py": lines(80)}, cursor_path="a.py", cursor="<|user_cursor|>line_2 = 2\n", history=history
    ) as scene:
        first, second = edit_entries(scene.events, scene.buffers)
        buffer = scene.buffers["a.py"]
        assert buffer.count("\n", 0, first.start) == 60
        assert buffer.count("\n", 0, second.start) == 1


def test_a_file_the_history_creates_has_no_related_file_but_takes_an_order(tmp_path: Path) -> None:
    create = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+brand = 1\n+new = 2\n"
    history = create + section("a.py", 0, "line_0 = 0", "line_0 = 1")
    with scene_of(
        tmp_path, "p", {"a.py": lines(3)}, cursor_path="a.py", cursor="line_1<|user_cursor|> = 1\n", history=history
    ) as scene:
        entries = edit_entries(scene.events, scene.buffers)
        assert [(e.path, e.untitled) for e in entries] == [("new.py", True), ("a.py", False)]
        files = retrieve(scene, "edit-history,edit-history-file")
        assert [f.path for f in files] == ["p/a.py"]
        assert rows(files, "a.py") == [(0, 3, 2, "edit_history")]


# ------------------------------------------------------------------------------- cursor


def test_cursor_excerpt_is_forty_one_rows_snapped(tmp_path: Path) -> None:
    text = lines(100)
    with scene_of(tmp_path, "p", {"a.py": text}, cursor_path="a.py", cursor="line_50 = <|user_cursor|>50\n") as scene:
        # rows 30..70, inclusive: the text ends at the end of row 70
        [excerpt] = retrieve(scene, "editable")[0].excerpts
    assert (excerpt.start_row, excerpt.end_row, excerpt.context_source) == (0, 100, "cursor_excerpt")
    with scene_of(
        tmp_path / "2", "p", {"a.py": text}, cursor_path="a.py", cursor="line_50 = <|user_cursor|>50\n"
    ) as scene:
        space = Workspace(scene, "p")
        from pytest_editpred.retrieval._sources import cursor_excerpt

        cursor_excerpt(space)
        [excerpt] = space.related_files()[0].excerpts
    assert (excerpt.start_row, excerpt.end_row) == (30, 70)
    assert excerpt.text.startswith("line_30 = 30\n") and excerpt.text.endswith("line_70 = 70")


# --------------------------------------------------------------------------------- bm25


def test_bm25_queries_the_oldest_eight_history_entries(tmp_path: Path) -> None:
    files = {f"f{k}.py": f"zebra{chr(97 + k)}{chr(97 + k)} = 0\n" for k in range(10)}
    history = "".join(
        section(f"f{k}.py", 0, f"zebra{chr(97 + k)}{chr(97 + k)} = 0", f"zebra{chr(97 + k)}{chr(97 + k)} = 1")
        for k in range(10)
    )
    with scene_of(
        tmp_path,
        "p",
        {**files, "main.py": "x = 1\n"},
        cursor_path="main.py",
        cursor="x<|user_cursor|> = 1\n",
        history=history,
    ) as scene:
        entries = edit_entries(scene.events, scene.buffers)
        assert len(entries) == 10
        query = query_terms(Workspace(scene, "p"), entries)
    words = [f"zebra{chr(97 + k)}{chr(97 + k)}" for k in range(10)]
    assert [query.get(word) for word in words] == [2.0] * 8 + [None, None]
    assert query["main"] == 3.0 and query["py"] == 3.0


def test_bm25_indexes_tracked_files_on_disk_and_applies_rows_to_buffers(tmp_path: Path) -> None:
    """The index reads the disk (two rows of quokka.py); the chunk's rows are then
    applied to the buffer, where the history put two other rows first. A file the
    uncommitted diff adds is untracked: not indexed."""
    history = "--- a/quokka.py\n+++ b/quokka.py\n@@ -1,1 +1,3 @@\n+added_a = 1\n+added_b = 2\n quokka_one = 1\n"
    added = "--- /dev/null\n+++ b/quokka_extra.py\n@@ -0,0 +1 @@\n+quokka_extra = quokka\n"
    with scene_of(
        tmp_path,
        "p",
        {"quokka.py": "quokka_one = 1\nquokka_two = 2\n", "main.py": "quokka = 1\n"},
        cursor_path="main.py",
        cursor="quokka<|user_cursor|> = 1\n",
        history=history,
        uncommitted=added,
    ) as scene:
        files = retrieve(scene, "bm25")
    by_path = {f.path: f for f in files}
    assert set(by_path) == {"p/main.py", "p/quokka.py"}
    [excerpt] = by_path["p/quokka.py"].excerpts
    assert (excerpt.start_row, excerpt.end_row, excerpt.text) == (0, 2, "added_a = 1\nadded_b = 2\n")


def test_bm25_reads_the_saved_cursor_buffer_when_lsp_ran(tmp_path: Path) -> None:
    """Zed's lsp step saves the cursor buffer: 60 rows where the disk has 10, so the
    cursor file has two chunks instead of one."""
    grow = "--- a/main.py\n+++ b/main.py\n@@ -10,1 +10,51 @@\n line_9 = 9\n" + "".join(
        f"+line_{k} = {k}\n" for k in range(10, 60)
    )
    with scene_of(
        tmp_path, "p", {"main.py": lines(10)}, cursor_path="main.py", cursor="line_1<|user_cursor|> = 1\n", history=grow
    ) as scene:
        assert rows(retrieve(scene, "bm25"), "main.py") == [(0, 10, 0, "bm25")]
        assert rows(retrieve(scene, "lsp,bm25"), "main.py") == [(0, 60, 0, "bm25")]


def test_bm25_takes_at_most_three_chunks_of_a_file(tmp_path: Path) -> None:
    big = "".join(f"wombat_{k} = wombat\n" for k in range(400))  # 13 chunks of 40 rows
    with scene_of(
        tmp_path,
        "p",
        {"big.py": big, "main.py": "wombat = 1\n"},
        cursor_path="main.py",
        cursor="wombat<|user_cursor|> = 1\n",
    ) as scene:
        space = Workspace(scene, "p")
        from pytest_editpred.retrieval._bm25 import bm25

        bm25(space, [], False)
    assert len(space.ranges["big.py"]) == 3 and len(space.ranges["main.py"]) == 1


# ------------------------------------------------------------------------------ git log


def test_git_log_quoted_paths_keep_their_order_and_rows_stop_at_10000(tmp_path: Path) -> None:
    huge = lines(10_005)
    commits = [{"a.py": "a = 2\n", "ü.py": "u = 1\n", "huge.py": huge}, {"a.py": "a = 3\n", "ü.py": "u = 2\n"}]
    with scene_of(
        tmp_path, "kit", {"a.py": "a = 1\n"}, commits=commits, cursor_path="a.py", cursor="a = <|user_cursor|>3\n"
    ) as scene:
        files = retrieve(scene, "git-log")
    # "\303\274.py" (2 commits) comes first and cannot be opened: order 0 unused
    assert [(f.path, f.excerpts[0].order) for f in files] == [("kit/huge.py", 1)]
    [excerpt] = files[0].excerpts
    assert (excerpt.start_row, excerpt.end_row) == (0, 10_000)
    assert excerpt.text.endswith("line_10000 = 10000") and files[0].max_row == 10_005


# ------------------------------------------------------------------------------- oracle


def test_oracle_targets_follow_zeds_diff_parser() -> None:
    patch = (
        "--- a/x.py\n+++ b/x.py\n@@ -3 +3 @@\n-old\n+new\n"
        "--- /dev/null\n+++ b/created.py\n@@ -0,0 +1,2 @@\n+a\n+b\n"
        "--- a/y.py\n+++ b/y.py\n@@ -10,4 +10,3 @@\n--- z.py\n@@ -20,2 +20,2 @@\n"
    )
    targets = oracle_targets((patch, "--- a/x.py\n+++ b/x.py\n@@ -40,0 +41,1 @@\n+more\n"))
    assert [(t.path, t.rows) for t in targets] == [
        ("x.py", [(2, 3), (39, 39)]),
        ("created.py", [(0, 0)]),
        ("y.py", [(9, 13)]),
        ("z.py", [(19, 21)]),  # the removed line "-- z.py" ("--- z.py") reads as an old path
    ]


def test_oracle_skips_what_it_cannot_open_and_snaps_an_insertion_to_one_row(tmp_path: Path) -> None:
    patch = (
        "--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-a\n+b\n"
        "--- a/lib/src/vals.py\n+++ b/lib/src/vals.py\n@@ -31,0 +31,1 @@\n+v = 1\n"
    )
    vals = "".join(f"v{k} = {k}\n" for k in range(100))
    with scene_of(
        tmp_path,
        "lib",
        {"src/vals.py": vals},
        cursor_path="src/vals.py",
        cursor="v1 = <|user_cursor|>1\n",
        expected=[patch],
    ) as scene:
        [file] = retrieve(scene, "oracle-snippet")
        [excerpt] = file.excerpts
        # the root-prefixed path opens src/vals.py; the missing file took no order
        from pytest_editpred.retrieval import oracle_padding

        start = 30 - oracle_padding("lib/src/vals.py", 30, 0)
        end = 31 + oracle_padding("lib/src/vals.py", 30, 1)
        assert (file.path, excerpt.start_row, excerpt.end_row, excerpt.order) == ("lib/src/vals.py", start, end, 0)
        [file] = retrieve(scene, "oracle-file")
        assert [(e.start_row, e.end_row, e.order) for e in file.excerpts] == [(0, 100, 0)]


def test_renamed_and_deleted_files_in_the_history(tmp_path: Path) -> None:
    """A renamed buffer keeps its entries under its new path; a buffer the history
    deletes is closed, so its entries no longer count."""
    rename = "--- a/a.py\n+++ b/b.py\n@@ -1,1 +1,1 @@\n-line_0 = 0\n+line_0 = 5\n"
    delete = "--- a/c.py\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-line_0 = 1\n-line_1 = 1\n-line_2 = 2\n"
    history = section("c.py", 0, "line_0 = 0", "line_0 = 1") + rename + delete
    with scene_of(
        tmp_path,
        "p",
        {"a.py": lines(3), "c.py": lines(3), "m.py": "m = 1\n"},
        cursor_path="m.py",
        cursor="m<|user_cursor|> = 1\n",
        history=history,
    ) as scene:
        assert [(e.path, e.untitled) for e in edit_entries(scene.events, scene.buffers)] == [("b.py", False)]
        files = retrieve(scene, "edit-history")
    assert [(f.path, rows(files, f.path.split("/")[-1])) for f in files] == [("p/b.py", [(0, 3, 1, "edit_history")])]


def test_an_event_whose_edits_cancel_out_is_dropped_when_it_closes(tmp_path: Path) -> None:
    there = section("a.py", 5, "line_5 = 5", "line_5 = 50")
    back = section("a.py", 5, "line_5 = 50", "line_5 = 5")
    history = there + back + section("b.py", 0, "line_0 = 0", "line_0 = 1")
    with scene_of(
        tmp_path,
        "p",
        {"a.py": lines(10), "b.py": lines(3)},
        cursor_path="b.py",
        cursor="line_1<|user_cursor|> = 1\n",
        history=history,
    ) as scene:
        assert [e.path for e in edit_entries(scene.events, scene.buffers)] == ["b.py"]
        # still pending, the same two edits would be an entry: the last event is not re-diffed
        pending = edit_entries(scene.events[:2], {**scene.buffers, "a.py": lines(10)})
        assert [e.path for e in pending] == ["a.py"]
