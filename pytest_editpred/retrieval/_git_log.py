"""§2.6 ``git_log``: the files most often committed together with the cursor file.

One ``git log`` of the last 5000 commits (``O(L)`` in its output), counted only for
the commits that touch the cursor file: Zed counts every pair of every commit, but
only the cursor file's pairs are ever read, so they are all that is counted here
(a commit touching 10 000 files costs 10 000 steps, not 50 million). At most 10
files are opened, each up to row 10 000.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from ._paths import path_key
from ._workspace import Workspace

__all__ = [
    "GIT_LOG_COMMIT_COUNT",
    "GIT_LOG_CONTEXT_FILE_COUNT",
    "GIT_LOG_CONTEXT_LINE_COUNT",
    "git_log",
    "related_paths",
]

GIT_LOG_COMMIT_COUNT: Final = 5000
GIT_LOG_CONTEXT_FILE_COUNT: Final = 10
GIT_LOG_CONTEXT_LINE_COUNT: Final = 10000
_HEADER: Final = "@@COMMIT "


def _commits(output: str) -> list[list[str]]:
    """The paths of each commit, as Zed parses them: the line right after each
    header is skipped (the blank line git writes before the names; after a commit
    without files, the next header, whose files then go to the previous commit,
    which makes the same pairs)."""
    commits: list[list[str]] = []
    skip = False
    for line in output.split("\n"):  # Rust's ``lines``: only ``\n`` ends a line
        line = line.removesuffix("\r")
        if skip:
            skip = False
            continue
        if line.startswith(_HEADER):
            commits.append([])
            skip = True
        elif line and commits:
            commits[-1].append(line)
    return commits


def related_paths(output: str, path: str) -> list[str]:
    """The 10 paths committed most often with ``path``: by count, then path order."""
    counts: Counter[str] = Counter()
    for files in _commits(output):
        if path in files:
            counts.update({other for other in files if other != path})
    ranked = sorted(counts, key=lambda p: (-counts[p], path_key(p)))
    return ranked[:GIT_LOG_CONTEXT_FILE_COUNT]


def git_log(space: Workspace) -> None:
    """Related path ``j`` gets order ``next_order + j``, its rows 0 … 10 000 (the
    end of the row, so inclusive); a path that cannot be opened (deleted since,
    quoted by git, not UTF-8) keeps its number unused. Nothing when git fails or
    prints something that is not UTF-8."""
    repository = space.scene.repository
    if repository is None:
        return
    raw = repository.log_names(space.scene.commit, GIT_LOG_COMMIT_COUNT)
    try:
        output = None if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError:
        output = None
    if output is None:
        return
    first = space.next_order()
    for index, path in enumerate(related_paths(output, space.scene.cursor.path)):
        buffer = space.buffer(path)
        if buffer is not None:
            end = buffer.row_end(min(GIT_LOG_CONTEXT_LINE_COUNT, buffer.max_row))
            space.add(path, (0, 0), end, first + index, "git_log")
