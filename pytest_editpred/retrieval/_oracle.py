"""§2.7 ``oracle_snippet`` and ``oracle_file``: the places the expected patches edit.

Training-data aids: they read the answer. Targets come from the patches' headers as
Zed's diff parser reads them (``O(L)`` in the patches' lines); a snippet is a hunk's
old rows padded by 10–40 pseudo-random rows each way (:func:`~._fxhash.oracle_padding`),
then snapped to block boundaries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from .._diff import Kind, classify
from ._buffer import Buffer
from ._fxhash import oracle_padding
from ._workspace import Workspace

__all__ = ["OracleTarget", "oracle_file", "oracle_snippet", "oracle_targets"]

_DEV_NULL: Final = "/dev/null"
_HUNK: Final = re.compile(r"@@\s+-(\d+)(?:,(\d+))?")


@dataclass
class OracleTarget:
    """A file an expected patch edits, with the old-side rows ``[start, end)`` of
    its hunks (hunks of later patches are not rebased: Zed does not either)."""

    path: str
    rows: list[tuple[int, int]] = field(default_factory=list)


def oracle_targets(patches: tuple[str, ...]) -> list[OracleTarget]:
    """Zed's ``oracle_targets_from_expected_patches``: targets unique by path, in
    first-seen order. An old path makes its target current (``/dev/null`` makes
    none current), a new path only when none is; a hunk header adds
    ``(A−1)..(A−1)+B`` to the current target (a missing count is 1)."""
    targets: dict[str, OracleTarget] = {}
    for patch in patches:
        current: OracleTarget | None = None
        for raw in patch.split("\n"):
            line = raw.removesuffix("\r")
            parsed = classify(line)
            if parsed.kind is Kind.OLD_PATH:
                current = (
                    None if parsed.text == _DEV_NULL else targets.setdefault(parsed.text, OracleTarget(parsed.text))
                )
            elif parsed.kind is Kind.NEW_PATH and parsed.text != _DEV_NULL:
                target = targets.setdefault(parsed.text, OracleTarget(parsed.text))
                current = current or target
            elif parsed.kind is Kind.HUNK_HEADER and parsed.start_line is not None and current is not None:
                match = _HUNK.match(line)
                if match is not None:
                    start = max(int(match.group(1)) - 1, 0)
                    count = 1 if match.group(2) is None else int(match.group(2))
                    current.rows.append((start, start + count))
    return list(targets.values())


def _open(space: Workspace, path: str) -> tuple[str, Buffer] | None:
    """The target's buffer: the path as written, else without its first component
    (a path that starts with the root name); a file the history created or deleted
    is no worktree entry."""
    head, _, rest = path.partition("/")
    for candidate in (path, rest) if rest and head else (path,):
        if candidate in space.untitled:
            continue
        buffer = space.buffer(candidate)
        if buffer is not None:
            return candidate, buffer
    return None


def _snippet(buffer: Buffer, path: str, start: int, end: int) -> tuple[int, int] | None:
    first = max(0, start - oracle_padding(path, start, 0))
    core_end = max(end, start + 1)  # a pure insertion still covers one row
    last = core_end + oracle_padding(path, end, 1)
    first = buffer.snap_start(first, start)
    last = buffer.snap_end(max(last - 1, 0), max(core_end - 1, 0)) + 1
    return (first, last) if first < last and first <= buffer.max_row else None


def oracle_snippet(space: Workspace) -> None:
    """A padded, snapped snippet per hunk; the ``m``-th snippet added gets order
    ``next_order + m``. Targets that cannot be opened take no number."""
    first = space.next_order()
    added = 0
    for target in oracle_targets(space.scene.example.expected_patches):
        if not target.rows or (found := _open(space, target.path)) is None:
            continue
        path, buffer = found
        for start, end in target.rows:
            rows = _snippet(buffer, target.path, start, end)
            points = None if rows is None else buffer.row_range(*rows)
            if points is not None:
                space.add(path, *points, first + added, "oracle_snippet")
                added += 1


def oracle_file(space: Workspace) -> None:
    """Each target's whole file, once per buffer, in target order."""
    first = space.next_order()
    seen: list[str] = []
    for target in oracle_targets(space.scene.example.expected_patches):
        found = _open(space, target.path)
        if found is not None and found[0] not in seen:
            space.add_whole(found[0], first + len(seen), "oracle_file")
            seen.append(found[0])
