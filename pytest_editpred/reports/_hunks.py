"""Line diffs for the HTML viewer: only the changed hunks, with line numbers, a few
lines of context, more context on demand, and the cursors placed.

A hunk is plain data (it goes into the page's JSON)::

    {"a": 41, "b": 41,            # 1-based number of the hunk's first line, each side
     "gap": 37,                   # unchanged lines hidden between the previous hunk and this one
     "above": ["...", ...],       # up to EXTRA_CONTEXT of them, just above (shown on demand)
     "lines": [[" ", "text"], ["-", "old"], ["+", "new"], ...]}

and a diff is ``{"hunks": [...], "below": [...], "tail": n, "ca": [line, column] | None,
"cb": [line, column] | None, "clipped": bool}`` where ``ca``/``cb`` are the cursors
of the old and the new side (1-based line, 0-based column in characters), ``below``
the lines after the last hunk shown on demand and ``tail`` how many lines follow it.

Cost is proportional to the change: the common head and tail of the texts are cut
at C speed first, only the middle goes through :mod:`difflib`, and a middle of more
than :data:`MAX_ALIGNED` lines is one replacement block. Every diff is bounded: at
most :data:`MAX_LINES` lines and :data:`MAX_LINE_CHARS` characters a line, and a cut
says so (``clipped``).

A record's ``diff`` comes from a file, so the page never takes it as it is:
:func:`view_diffs` rebuilds it field by field (:func:`clean_edit_view`) into exactly
the shapes above. A line whose op is not ``" "``, ``"-"`` or ``"+"``, or that is not
an ``[op, text]`` pair of strings, is left out; a count or a line number that is not
a whole number between 0 and :data:`MAX_NUMBER` is left out or clamped; lists are cut
to the bounds above. What was left out or corrected is counted in the result's
``malformed``, and the page says so.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict, cast

from .._clip import clip
from ._record import EditView, ExcerptLines, ExcerptView, HistoryEntry, Hunk, LineDiff, Record

if TYPE_CHECKING:
    from ..judge import Verdict
    from ..scene import Scene

__all__ = [
    "CONTEXT",
    "CURSOR",
    "EXTRA_CONTEXT",
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "MAX_NUMBER",
    "ViewerDiffs",
    "WindowDiffs",
    "clean_edit_view",
    "edit_view",
    "line_diff",
    "view_diffs",
]

CURSOR = "\u2038"  # ‸, as record views draw the cursor
CONTEXT = 3
EXTRA_CONTEXT = 12
MAX_LINES = 300
MAX_LINE_CHARS = 400
MAX_ALIGNED = 2000
MAX_TEXT_CHARS = 12_000  # edit-history diffs and the excerpt, in the record
EXCERPT_RADIUS = 25  # lines either side of the cursor's, of the excerpt in the record
MAX_NUMBER = 1_000_000_000  # a line number, column or count the page takes from a record
MAX_HISTORY = 100  # edit-history entries the page shows (the rest are counted)
MAX_OTHER_FILES = 100  # other changed files the page names (the rest are counted)


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines if text else []


def _clip_line(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[:MAX_LINE_CHARS] + f"… [{len(line) - MAX_LINE_CHARS:,} more characters]"


def _position(text: str, offset: int | None) -> tuple[int, int] | None:
    """0-based (row, column) of a character offset, None when there is none."""
    if offset is None or not 0 <= offset <= len(text):
        return None
    row = text.count("\n", 0, offset)
    return row, offset - (text.rfind("\n", 0, offset) + 1)


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib opcodes of two line lists, with the common head and tail cut first."""
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    ops: list[tuple[str, int, int, int, int]] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    if mid_a or mid_b:
        middle: Sequence[tuple[str, int, int, int, int]]
        if len(mid_a) > MAX_ALIGNED or len(mid_b) > MAX_ALIGNED or not (mid_a and mid_b):
            middle = [("replace" if mid_a and mid_b else "delete" if mid_a else "insert", 0, len(mid_a), 0, len(mid_b))]
        else:
            middle = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_opcodes()
        ops.extend((tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle)
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def line_diff(
    a: str,
    b: str,
    *,
    cursor_a: int | None = None,
    cursor_b: int | None = None,
    first_a: int = 1,
    first_b: int | None = None,
    context: int = CONTEXT,
) -> LineDiff:
    """The hunks of ``a`` → ``b`` (see the module docstring). ``cursor_a``/``cursor_b``
    are character offsets; the lines holding them are shown even when unchanged.
    ``first_a``/``first_b`` number the texts' first lines (a window of a file)."""
    first_b = first_a if first_b is None else first_b
    la, lb = _split(a), _split(b)
    pa, pb = _position(a, cursor_a), _position(b, cursor_b)
    ops = _opcodes(la, lb)
    # Which old-side rows of equal blocks to show: next to a change, or near a cursor.
    keep: set[int] = set()
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "equal":
            continue
        if index > 0:
            keep.update(range(i1, min(i1 + context, i2)))
        if index < len(ops) - 1:
            keep.update(range(max(i2 - context, i1), i2))
        for row in ([pa[0]] if pa and i1 <= pa[0] < i2 else []) + (
            [pb[0] - j1 + i1] if pb and j1 <= pb[0] < j2 else []
        ):
            keep.update(range(max(row - context, i1), min(row + context + 1, i2)))
    hunks: list[Hunk] = []
    current: Hunk | None = None
    total = 0
    clipped = False

    def start(na: int, nb: int) -> Hunk:
        hunk: Hunk = {"a": na + first_a, "b": nb + first_b, "gap": 0, "above": [], "lines": []}
        hunks.append(hunk)
        return hunk

    def emit(op: str, text: str, na: int, nb: int) -> None:
        nonlocal current, total, clipped
        if total >= MAX_LINES:
            clipped = True
            return
        if current is None:
            current = start(na, nb)
        current["lines"].append([op, _clip_line(text)])
        total += 1

    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i1, i2):
                if k in keep:
                    emit(" ", la[k], k, j1 + k - i1)
                else:
                    current = None  # a hidden line ends the hunk
            continue
        for k in range(i1, i2):
            emit("-", la[k], k, j1)
        for k in range(j1, j2):
            emit("+", lb[k], i2, k)
    hidden_after = len(la) - _last_old_row(hunks, first_a)
    diff: LineDiff = {
        "hunks": hunks,
        "below": [_clip_line(x) for x in la[len(la) - hidden_after :][:EXTRA_CONTEXT]] if hunks else [],
        "tail": hidden_after if hunks else 0,
        "ca": [pa[0] + first_a, pa[1]] if pa else None,
        "cb": [pb[0] + first_b, pb[1]] if pb else None,
        "clipped": clipped,
    }
    _fix_gaps(hunks, la, first_a)
    return diff


def _last_old_row(hunks: list[Hunk], first_a: int) -> int:
    """0-based old-side row just after the last hunk."""
    if not hunks:
        return 0
    last = hunks[-1]
    return last["a"] - first_a + sum(1 for op, _ in last["lines"] if op != "+")


def _fix_gaps(hunks: list[Hunk], la: list[str], first_a: int) -> None:
    """Exact ``gap`` counts and ``above`` lines, from the hunks' own line numbers."""
    previous_end = 0
    for hunk in hunks:
        row = hunk["a"] - first_a
        hunk["gap"] = row - previous_end
        hunk["above"] = [_clip_line(x) for x in la[max(row - EXTRA_CONTEXT, previous_end) : row]]
        previous_end = row + sum(1 for op, _ in hunk["lines"] if op != "+")


def _strip_cursor(text: object) -> tuple[str | None, int | None]:
    """A view text with its drawn cursor taken out, and the cursor's offset."""
    if not isinstance(text, str):
        return None, None
    at = text.find(CURSOR)
    if at < 0:
        return text, None
    return text[:at] + text[at + 1 :], at


def _view_text(view: object, key: str) -> object:
    if isinstance(view, str):
        return view
    if isinstance(view, Mapping):
        value = view.get(key)
        return value if value is not None else view.get("text")
    return None


class _ViewerDiffsBase(TypedDict):
    path: str | None
    relative: bool  # True: the line numbers are the window's, not the file's


class ViewerDiffs(_ViewerDiffsBase, total=False):
    """An item's diffs as the page gets them (:func:`view_diffs`): a record's ``diff``
    (an :class:`EditView`) rebuilt into well-formed data, or, for an older record
    without one, the diffs of its cursor windows (``expected_view``/``predicted_view``),
    numbered from the window's first line unless the window says where it starts.
    Not a record's field: the page's (the keys an :class:`EditView` has mean the same)."""

    paths: dict[str, str]  # {"expected": ..., "predicted": ...} when they differ
    versus: LineDiff
    predicted: LineDiff
    expected: LineDiff
    other_files: list[str]
    history: list[HistoryEntry]
    history_more: int  # entries past MAX_HISTORY, not shown
    excerpt: ExcerptView
    malformed: int  # parts of the record's diff left out or corrected (see the module docstring)


#: The name older code imported; the windows' diffs are one case of :class:`ViewerDiffs`.
WindowDiffs = ViewerDiffs


def _whole(value: object, low: int = 0) -> int | None:
    """``value`` when it is a whole number in ``[low, MAX_NUMBER]`` (not a bool), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= MAX_NUMBER:
        return value
    return None


_OPS = frozenset((" ", "-", "+"))


def _plain_texts(texts: list[object]) -> bool:
    """Every item a ``str`` (not a subclass) no longer than a diff line may be: then
    :meth:`_Cleaner.texts` keeps the list as it is. Checked in C, not line by line."""
    return not texts or (set(map(type, texts)) == {str} and max(map(len, cast("list[str]", texts))) <= MAX_LINE_CHARS)


def _plain_lines(lines: list[object]) -> bool:
    """Every item an ``[op, text]`` list with a known op and a :func:`_plain_texts`
    text: then :meth:`_Cleaner.hunk` takes every line as it is."""
    if not lines:
        return True
    if set(map(type, lines)) != {list} or set(map(len, cast("list[list[object]]", lines))) != {2}:
        return False
    ops, texts = zip(*cast("list[list[object]]", lines))
    return set(map(type, ops)) == {str} and set(ops) <= _OPS and _plain_texts(list(texts))


class _Cleaner:
    """Rebuilds record data into the viewer's shapes, counting what it had to drop
    or correct (``bad``). Every walk is bounded by the limits of the module, not by
    the size of the data it is given."""

    def __init__(self) -> None:
        self.bad = 0
        self.cut = False  # a diff's lines were cut at MAX_LINES

    def count(self, value: object) -> int:
        """A count: clamped into ``[0, MAX_NUMBER]``, 0 when it is no whole number."""
        found = _whole(value)
        if found is not None:
            return found
        self.bad += 1
        if isinstance(value, int) and not isinstance(value, bool) and value > MAX_NUMBER:
            return MAX_NUMBER
        return 0

    def text(self, value: object) -> str | None:
        if isinstance(value, str):
            return value
        if value is not None:
            self.bad += 1
        return None

    def texts(self, value: object, limit: int) -> list[str]:
        """At most ``limit`` strings of a list, each clipped as a diff line is."""
        if type(value) is list and len(value) <= limit and _plain_texts(value):
            return list(value)  # what the loop below makes of it, without a call per line
        if not isinstance(value, list):
            if value is not None:
                self.bad += 1
            return []
        if len(value) > limit:
            self.bad += 1
        out: list[str] = []
        for item in value[:limit]:
            if isinstance(item, str):
                out.append(_clip_line(item))
            else:
                self.bad += 1
        return out

    def cursor(self, value: object) -> list[int] | None:
        if value is None:
            return None
        if isinstance(value, (list, tuple)) and len(value) == 2:
            line, column = _whole(value[0]), _whole(value[1])
            if line is not None and column is not None:
                return [line, column]
        self.bad += 1
        return None

    def line_diff(self, value: object) -> LineDiff | None:
        """A :class:`LineDiff` of well-formed hunks, at most :data:`MAX_LINES` lines."""
        if not isinstance(value, Mapping):
            self.bad += 1
            return None
        raw_hunks = value.get("hunks")
        if not isinstance(raw_hunks, list):
            self.bad += 1
            raw_hunks = []
        hunks: list[Hunk] = []
        room = MAX_LINES
        self.cut = False
        for raw in raw_hunks[:MAX_LINES]:
            if room <= 0:
                self.cut = True
                break
            hunk = self.hunk(raw, room)
            if hunk is None:
                continue
            if hunk["lines"]:
                room -= len(hunk["lines"])
                hunks.append(hunk)
            else:
                self.bad += 1  # a hunk with no line shows nothing
        clipped = value.get("clipped") is True or self.cut or len(raw_hunks) > MAX_LINES
        tail = self.count(value.get("tail", 0))
        below = self.texts(value.get("below", []), EXTRA_CONTEXT)
        if len(below) > tail:
            self.bad += 1
            below = below[:tail]
        return {
            "hunks": hunks,
            "below": below if hunks else [],
            "tail": tail if hunks else 0,
            "ca": self.cursor(value.get("ca")),
            "cb": self.cursor(value.get("cb")),
            "clipped": clipped,
        }

    def hunk(self, value: object, room: int) -> Hunk | None:
        """A hunk with its known lines (at most ``room``), None when its line numbers
        are not numbers (nothing of it could be placed)."""
        if not isinstance(value, Mapping):
            self.bad += 1
            return None
        a, b = _whole(value.get("a")), _whole(value.get("b"))
        if a is None or b is None:
            self.bad += 1
            return None
        raw_lines = value.get("lines")
        if not isinstance(raw_lines, list):
            self.bad += 1
            raw_lines = []
        lines: list[list[str]] = []
        if type(raw_lines) is list and len(raw_lines) <= room and _plain_lines(raw_lines):
            lines = list(map(list, raw_lines))  # well formed: what the loop below makes of it, in C
        else:
            if len(raw_lines) > room:
                self.cut = True
            for line in raw_lines[:room]:
                if (
                    isinstance(line, (list, tuple))
                    and len(line) == 2
                    and line[0] in (" ", "-", "+")
                    and isinstance(line[1], str)
                ):
                    lines.append([line[0], _clip_line(line[1])])
                else:
                    self.bad += 1
        gap = self.count(value.get("gap", 0))
        above = self.texts(value.get("above", []), EXTRA_CONTEXT)
        fits = max(0, min(gap, a - 1, b - 1))  # the lines above are hidden ones, numbered from 1
        if len(above) > fits:
            self.bad += 1
            above = above[len(above) - fits :] if fits else []
        return {"a": a, "b": b, "gap": gap, "above": above, "lines": lines}

    def history(self, value: object) -> tuple[list[HistoryEntry], int]:
        if not isinstance(value, list):
            if value is not None:
                self.bad += 1
            return [], 0
        out: list[HistoryEntry] = []
        for entry in value[:MAX_HISTORY]:
            if not isinstance(entry, Mapping):
                self.bad += 1
                continue
            path, diff = self.text(entry.get("path")), self.text(entry.get("diff"))
            if path is None or diff is None:
                self.bad += 1
                continue
            old_path = self.text(entry.get("old_path"))
            out.append(
                {
                    "path": path,
                    "old_path": old_path if old_path is not None else path,
                    "diff": clip(diff, MAX_TEXT_CHARS),
                    "predicted": entry.get("predicted") is True,
                }
            )
        return out, max(0, len(value) - MAX_HISTORY)

    def excerpt(self, value: object) -> ExcerptView | None:
        if value is None:
            return None
        text = value.get("text") if isinstance(value, Mapping) else None
        if not isinstance(value, Mapping) or not isinstance(text, Mapping):
            self.bad += 1
            return None
        path = self.text(value.get("path"))
        start = _whole(value.get("start_line"), 1)
        if path is None or start is None:
            self.bad += 1
            return None
        lines = self.texts(text.get("lines"), 2 * EXCERPT_RADIUS + 1)
        return {
            "path": path,
            "start_line": start,
            "end_line": self.count(value.get("end_line")),
            "cursor_line": self.count(value.get("cursor_line")),
            "cursor_column": self.count(value.get("cursor_column")),
            "text": {"first": self.count(text.get("first")), "lines": lines, "total": self.count(text.get("total"))},
        }

    def paths(self, value: object) -> list[str]:
        if not isinstance(value, list):
            if value is not None:
                self.bad += 1
            return []
        out = [_clip_line(p) for p in value[:MAX_OTHER_FILES] if isinstance(p, str)]
        self.bad += sum(1 for p in value[:MAX_OTHER_FILES] if not isinstance(p, str))
        if len(value) > MAX_OTHER_FILES:
            out.append(f"… and {len(value) - MAX_OTHER_FILES:,} more")
        return out


def clean_edit_view(value: Mapping[str, object]) -> ViewerDiffs:
    """A record's ``diff`` field (an :class:`EditView` read from a file: anything at
    all) rebuilt into well-formed, bounded viewer data; ``malformed`` counts what was
    left out or corrected (absent when nothing was)."""
    cleaner = _Cleaner()
    path = value.get("path")
    relative = value.get("relative", False)
    if not isinstance(relative, bool):
        cleaner.bad += 1
        relative = False
    out: ViewerDiffs = {"path": cleaner.text(path), "relative": relative}
    for key in ("predicted", "expected", "versus"):
        if key in value:
            diff = cleaner.line_diff(value[key])
            if diff is not None:
                out[key] = diff
    if "other_files" in value:
        out["other_files"] = cleaner.paths(value["other_files"])
    history, more = cleaner.history(value.get("history"))
    out["history"] = history
    if more:
        out["history_more"] = more
    excerpt = cleaner.excerpt(value.get("excerpt"))
    if excerpt is not None:
        out["excerpt"] = excerpt
    if cleaner.bad:
        out["malformed"] = cleaner.bad
    return out


def view_diffs(record: Record) -> ViewerDiffs | None:
    """The viewer's diffs of a record: its ``diff`` field when the plugin wrote one
    (see :func:`edit_view`; rebuilt by :func:`clean_edit_view`, since a record comes
    from a file), else computed from ``expected_view``/``predicted_view``, the windows
    around the cursor older records carry (numbered from the window's first line:
    ``relative`` says the numbers are not the file's)."""
    given = record.get("diff")
    if isinstance(given, Mapping) and isinstance(given.get("predicted"), Mapping):
        return clean_edit_view(given)
    ev, pv = record.get("expected_view"), record.get("predicted_view")
    expected, ce = _strip_cursor(_view_text(ev, "expected"))
    predicted, cp = _strip_cursor(_view_text(pv, "predicted"))
    before_raw = next((v.get("before") for v in (pv, ev) if isinstance(v, Mapping) and v.get("before")), None)
    before, cb = _strip_cursor(before_raw)
    if expected is None and predicted is None:
        return None
    paths = [_clip_line(p) if isinstance(p, str) else None for p in (_view_path(ev), _view_path(pv))]
    starts = (v.get("start_line") for v in (ev, pv) if isinstance(v, Mapping))  # an older record's window may say
    start = next((line for line in map(_whole, starts) if line), None)  # from 1 (not 0, nor a bool)
    first = start if start is not None else 1
    out: ViewerDiffs = {"path": paths[0] or paths[1], "relative": start is None}
    if paths[0] and paths[1] and paths[0] != paths[1]:
        out["paths"] = {"expected": paths[0], "predicted": paths[1]}
    if expected is not None and predicted is not None:
        out["versus"] = line_diff(expected, predicted, cursor_a=ce, cursor_b=cp, first_a=first)
    if before is not None:
        if predicted is not None:
            out["predicted"] = line_diff(before, predicted, cursor_a=cb, cursor_b=cp, first_a=first)
        if expected is not None:
            out["expected"] = line_diff(before, expected, cursor_a=cb, cursor_b=ce, first_a=first)
    return out


def _view_path(view: object) -> object:
    return view.get("path") if isinstance(view, Mapping) else None


class _Comparison(TypedDict, total=False):
    """The keys of an :class:`EditView` between ``predicted`` and ``history``."""

    expected: LineDiff
    versus: LineDiff
    other_files: list[str]


def edit_view(scene: Scene | None, verdict: Verdict | None) -> EditView | None:
    """The record's ``diff`` field, for the viewer: the cursor file's edit as the
    chosen expected candidate (``verdict.best``, Zed's rule) and the prediction make
    it, as hunks with the file's own line numbers, both cursors placed; the edit
    history's diffs and the cursor excerpt (Zed's 8,192-token one), bounded.

    ``scene`` and ``verdict`` are the plugin's :class:`Scene` and :class:`Verdict`
    (read by attribute only). None when nothing was judged.
    """
    if verdict is None or scene is None:
        return None
    from ..scene import compute_excerpt

    cursor = scene.cursor
    path = cursor.path
    before = scene.buffers.get(path, "")
    predicted = verdict.predicted_buffers.get(path, before)
    predicted_cursor = (
        verdict.predicted_cursor[1] if verdict.predicted_cursor and verdict.predicted_cursor[0] == path else None
    )
    predicted_diff = line_diff(before, predicted, cursor_a=cursor.offset, cursor_b=predicted_cursor)
    between: _Comparison = {}
    if verdict.best is not None and 0 <= verdict.best < len(verdict.candidates):
        candidate = verdict.candidates[verdict.best]
        expected = candidate.buffers.get(path, before)
        expected_cursor = candidate.cursor[1] if candidate.cursor and candidate.cursor[0] == path else None
        between["expected"] = line_diff(before, expected, cursor_a=cursor.offset, cursor_b=expected_cursor)
        if not verdict.passed:
            between["versus"] = line_diff(expected, predicted, cursor_a=expected_cursor, cursor_b=predicted_cursor)
    others = sorted(p for p in getattr(verdict, "changed_paths", ()) if p != path)
    if others:
        between["other_files"] = others
    history: list[HistoryEntry] = [
        {"path": e.path, "old_path": e.old_path, "diff": clip(e.diff, MAX_TEXT_CHARS), "predicted": bool(e.predicted)}
        for e in getattr(scene, "events", ())
    ]
    excerpt = compute_excerpt(before, cursor.offset)
    # One literal, so the keys are in the record's order (the JSONL's bytes).
    return {
        "path": path,
        "relative": False,
        "predicted": predicted_diff,
        **between,
        "history": history,
        "excerpt": {
            "path": path,
            "start_line": excerpt.start_row + 1,
            "end_line": excerpt.start_row + max(len(_split(excerpt.text)), 1),
            "cursor_line": cursor.row + 1,
            "cursor_column": cursor.column,
            "text": _around(excerpt.text, cursor.row - excerpt.start_row),
        },
    }


def _around(text: str, row: int, radius: int = EXCERPT_RADIUS) -> ExcerptLines:
    """At most ``2 * radius + 1`` lines of ``text`` around ``row``: ``{first, lines}``
    with ``first`` the 0-based index of the first line kept."""
    lines = _split(text)
    first = max(0, min(row - radius, len(lines) - 2 * radius - 1))
    kept = [_clip_line(x) for x in lines[first : first + 2 * radius + 1]]
    return {"first": first, "lines": kept, "total": len(lines)}
