"""Every example checked before it is written: it loads, as the plugin will load it.

The example is written out and read back in its format, then its scene is rebuilt
on the parent's files: the edit history applies, the cursor excerpt is found once
(grown by whole lines around the cursor until it is), and the expected patch
applies and changes something. An example that fails here is never written: a
do-nothing target is a skip, anything else a failure of split-commit itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..._diff import apply_sections
from ..._exceptions import EditPredError
from ...example import Example, from_json, from_markdown, to_json, to_markdown
from ...scene import apply_patch, excerpt_matches, unified_diff
from .._quality import changed_rows
from ._cursor import MARKER
from ._patch import sequential
from ._rules import Skip

__all__ = ["Checked", "Unloadable", "check_example", "round_trip"]

Files = Callable[[str], "tuple[str, str] | None"]
#: What the example format reads as a cursor, wherever it is.
_MARKERS = (MARKER, "[CURSOR_POSITION]")


def round_trip(example: Example, fmt: str) -> Example:
    """The example as the plugin reads it back from ``fmt``."""
    if fmt == "jsonl":
        return from_json(json.dumps(to_json(example)))
    return from_markdown(to_markdown(example))


def _unique_excerpt(text: str, excerpt: str, offset: int, line_hint: int) -> tuple[str, int] | None:
    """The excerpt grown by whole lines of ``text`` around the occurrence nearest to
    ``line_hint`` (1-based) until it is found once: ``(excerpt, cursor offset)``."""
    found = excerpt_matches(text, excerpt)
    if len(found) == 1:
        return excerpt, offset
    if not found:
        return None
    starts: list[int] = []
    at = text.find(excerpt)
    while at != -1 and len(starts) < 10000:
        starts.append(at)
        at = text.find(excerpt, at + 1)
    start = min(starts, key=lambda s: abs(text.count("\n", 0, s) + 1 - line_hint))
    end = start + len(excerpt)
    cursor = start + offset
    while True:
        grown = False
        if start > 0:
            start = text.rfind("\n", 0, start - 1) + 1
            grown = True
        if end < len(text):
            nl = text.find("\n", end + 1)
            end = len(text) if nl == -1 else nl
            grown = True
        candidate = text[start:end]
        if len(excerpt_matches(text, candidate)) == 1:
            return candidate, cursor - start
        if not grown:
            return None


def _applied(diff: str, buffers: dict[str, str], files: Files) -> dict[str, str] | None:
    """The buffers ``diff`` leaves (a copy), or None when it does not apply."""
    result = dict(buffers)
    try:
        list(apply_sections(diff, result, files))
    except EditPredError:
        return None
    return result


def _zed_numbers_where_they_hold(example: Example, files: Files) -> Example:
    """The example with Zed's hunk headers, unless they put a hunk elsewhere.

    Zed keeps each history hunk's old start in the parent's numbering, though every
    hunk is a file section of its own applied to the text the sections before it
    left, where it starts at its new start. The start only breaks ties between the
    places a hunk's context occurs, so Zed's numbers hold wherever the context is
    found once (almost always); where it occurs more than once and Zed's start picks
    another place, or none, the diff (history, then expected patch) gets the
    sequential starts instead."""
    history = sequential(example.edit_history)
    patches = [sequential(patch) for patch in example.expected_patches]
    if history == example.edit_history and patches == list(example.expected_patches):
        return example
    fixed = example
    buffers: dict[str, str] = {}
    as_zed = _applied(example.edit_history, buffers, files)
    as_sequential = _applied(history, buffers, files) if history != example.edit_history else as_zed
    if as_sequential is not None and as_zed != as_sequential:
        fixed, as_zed = replace(fixed, edit_history=history), as_sequential
    if as_zed is None or not patches or patches[0] == example.expected_patches[0]:
        return fixed
    patched_as_zed = _applied(example.expected_patches[0], as_zed, files)
    patched_as_sequential = _applied(patches[0], as_zed, files)
    if patched_as_sequential is not None and patched_as_zed != patched_as_sequential:
        fixed = replace(fixed, expected_patches=(patches[0], *fixed.expected_patches[1:]))
    return fixed


@dataclass(frozen=True)
class Checked:
    """An example that loads, with what the quality rules on place need: the first
    and last row its expected patch changes in each file, and the cursor's row."""

    example: Example
    rows: dict[str, tuple[int, int]]
    cursor_row: int
    #: The moment and the outcome, hashed: the revision, the history, the cursor and
    #: every file as the expected patch leaves it. Two examples with one key are
    #: duplicates, as lint says, even when their texts differ (Zed's half-typed line
    #: can leave a no-op ``-x``/``+x`` pair in an expected patch).
    key: bytes = b""


class Unloadable(Exception):
    """The example would not load: a failure of split-commit, reported, never written;
    ``reason`` names the step that failed, for the summary."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def check_example(example: Example, files: Files, fmt: str, line_hint: int) -> Checked:
    """The example as the plugin will load it, made loadable (its excerpt grown until
    unique). Raises :class:`Skip` (``do-nothing-target``, ``cursor-at-end``,
    ``ambiguous-excerpt``, ``marker-in-text``) or :class:`Unloadable`."""
    if any(marker in text for text in (example.edit_history, *example.expected_patches) for marker in _MARKERS):
        raise Skip("marker-in-text")  # an expected patch would read it as its cursor
    example = _zed_numbers_where_they_hold(example, files)
    try:
        loaded = round_trip(example, fmt)
        loaded.cursor_excerpt()
    except EditPredError:  # the text holds a cursor marker of its own
        raise Skip("marker-in-text") from None
    buffers: dict[str, str] = {}
    try:
        applied = list(apply_sections(loaded.edit_history, buffers, files))
    except EditPredError as error:
        raise Unloadable(
            "history-does-not-apply", f"the edit history does not apply at the parent: {error.reason}"
        ) from None
    path = loaded.cursor_path
    if path not in buffers:
        opened = files(path)
        if opened is None:
            raise Unloadable("no-cursor-file", f"the cursor file {path} does not exist after the edit history")
        buffers[path] = opened[1]
    excerpt, offset = loaded.cursor_excerpt()
    unique = _unique_excerpt(buffers[path], excerpt, offset, line_hint)
    cursor = buffers[path].find(unique[0]) + unique[1] if unique is not None else 0
    if unique is None and excerpt.endswith("\n") and buffers[path].endswith(excerpt[:-1]):
        raise Skip("cursor-at-end")  # a fence always ends in a newline
    if unique is None:
        if excerpt_matches(buffers[path], excerpt):
            raise Skip("ambiguous-excerpt")
        raise Unloadable("excerpt-not-found", f"the cursor excerpt is not found in {path}")
    if unique[0] != excerpt:
        text, at = unique
        example = replace(example, cursor_position=text[:at] + MARKER + text[at:])
        loaded = round_trip(example, fmt)
        excerpt, offset = loaded.cursor_excerpt()
        if len(excerpt_matches(buffers[path], excerpt)) != 1:
            raise Unloadable("excerpt-not-found", f"the cursor excerpt is not found once in {path} once grown")
    if not loaded.expected_patches or not loaded.expected_patches[0].strip():
        raise Skip("do-nothing-target")
    try:
        patched = apply_patch(buffers, loaded.expected()[0], open_file=files, default_path=path)
    except EditPredError as error:
        raise Unloadable(
            "patch-does-not-apply", f"the expected patch does not apply after the edit history: {error.reason}"
        ) from None
    before = {p: (buffers[p] if p in buffers else (files(p) or (p, None))[1]) for p in patched.changed}
    if all(patched.buffers.get(p) == before[p] for p in patched.changed):
        raise Skip("do-nothing-target")
    rows = {
        p: changed_rows(before[p], patched.buffers.get(p))
        for p in patched.changed
        if patched.buffers.get(p) != before[p]
    }
    digest = hashlib.sha256()
    # The history as the scene holds it, as lint keys it: each section's edit diffed
    # anew, so two histories that differ only in how their text is cut (a line Zed
    # half-typed to its end in a hunk of its own, Zed's hunk numbers) are one.
    events = (
        part for a in applied for part in (a.path, a.old_path, unified_diff(a.path, a.old_path, a.before, a.after))
    )
    for part in (loaded.revision, *events, path, str(cursor)):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    for p in sorted(rows):
        digest.update(p.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(patched.buffers.get(p, "\0deleted").encode("utf-8", "surrogatepass") + b"\0")
    return Checked(example, rows, buffers[path].count("\n", 0, cursor), digest.digest())
