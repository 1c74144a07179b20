"""The Example: one edit-prediction test case, with every field of Zed's ``ExampleSpec``.

Text fields keep Zed's raw form (the cursor block with its marker, expected patches
with their ``#  ^[CURSOR_POSITION]`` lines) so that a file read and written again is
the same file; the derived views (:meth:`Example.cursor_excerpt`,
:meth:`Example.expected`) are computed on demand.

Offsets in this package are **character offsets** into Python ``str`` (code points).
Zed counts UTF-8 bytes; every place that reads a Zed column converts it, so the
cursor lands on the same character as in Zed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._cursor import ExpectedPatch

__all__ = ["Example", "RecentFile", "Source", "ACCEPTED_PREDICTION_MARKER"]

ACCEPTED_PREDICTION_MARKER = "// User accepted prediction:"

_FILENAME_UNSAFE = re.compile(r"[\s:~^?*\[\\@{/<>|\"`]")


@dataclass(frozen=True)
class RecentFile:
    """An entry of Recently Opened/Viewed Files: a path and, maybe, a cursor offset."""

    path: str
    cursor_position: int | None = None


@dataclass(frozen=True)
class RetrievedExcerpt:
    """Rows ``[start_row, end_row)`` of a related file; lower ``order`` matters more.

    ``source`` is Zed's ``context_source`` as serialised (``lsp``, ``bm25``,
    ``current_file``, ...: serde's snake_case names), None when the excerpt was
    stored without one, which Zed reads as ``lsp``. ``ep eval --type`` keeps
    excerpts by it.
    """

    start_row: int
    end_row: int
    text: str
    order: int = 0
    source: str | None = None


#: Zed's ``ContextSource`` values as serde writes them (snake_case), the only ones an
#: excerpt's ``context_source`` may hold (an excerpt with none is ``lsp``, serde's
#: default); ``--editpred-context-type`` filters on these names.
CONTEXT_SOURCES = (
    "lsp",
    "cursor_excerpt",
    "current_file",
    "edit_history",
    "edit_history_file",
    "git_log",
    "bm25",
    "oracle_file",
    "oracle_snippet",
)


@dataclass(frozen=True)
class RetrievedFile:
    """A related file an ``ep`` pipeline retrieved for the prompt
    (``prompt_inputs.related_files`` of a JSON example)."""

    path: str
    max_row: int
    excerpts: tuple[RetrievedExcerpt, ...]


@dataclass(frozen=True)
class CarriedDiagnostic:
    """A diagnostic of the cursor file an ``ep`` pipeline recorded
    (``prompt_inputs.active_buffer_diagnostics``): rows ``[start_row, end_row)``."""

    severity: str
    message: str
    snippet: str
    start_row: int
    end_row: int


@dataclass(frozen=True)
class Source:
    """Where an example came from, so errors and IDE jumps point at the right line.

    All lines are 1-based lines of ``path``. ``history_blocks`` maps each edit-history
    fence to the file: ``(first line of the block in the concatenated history,
    file line of the block's first content line)``.
    """

    path: str | None = None
    line: int = 1
    name_line: int | None = None
    uncommitted_diff_line: int | None = None
    edit_history_line: int | None = None
    history_blocks: tuple[tuple[int, int], ...] = ()
    cursor_line: int | None = None
    expected_section_line: int | None = None
    expected_patch_lines: tuple[int, ...] = ()
    rejected_patch_line: int | None = None

    def history_line(self, line_in_history: int) -> int | None:
        """File line of a 1-based line of the concatenated edit history."""
        best = None
        for start, file_line in self.history_blocks:
            if start <= line_in_history:
                best = file_line + (line_in_history - start)
        return best if best is not None else self.edit_history_line


@dataclass(frozen=True)
class Example:
    """One example, field for field as in Zed's ``ExampleSpec``.

    ``uncommitted_diff_requires_edit_history_rollback`` is the front-matter key; in
    JSON it is ``uncommitted_diff_contains_edit_history``, as in Zed. ``source``
    does not take part in equality: an example read from markdown equals the same
    example read from JSON. ``related_files`` is pipeline context, not part of Zed's
    spec: the files an ``ep`` run retrieved (``prompt_inputs.related_files``), None
    when the example carries none; ``diagnostics`` likewise
    (``prompt_inputs.active_buffer_diagnostics``), and ``stored_excerpt`` with
    ``excerpt_start_row`` (``prompt_inputs.cursor_excerpt``: the excerpt that run
    showed the model).
    """

    name: str
    repository_url: str = field(repr=False)  # may hold credentials: never in a repr
    revision: str
    cursor_path: str
    cursor_position: str
    edit_history: str = ""
    expected_patches: tuple[str, ...] = ()
    rejected_patch: str | None = None
    tags: tuple[str, ...] = ()
    reasoning: str | None = None
    uncommitted_diff: str = ""
    uncommitted_diff_requires_edit_history_rollback: bool = False
    recently_opened_files: tuple[RecentFile, ...] = ()
    recently_viewed_files: tuple[RecentFile, ...] = ()
    related_files: tuple[RetrievedFile, ...] | None = field(default=None, compare=False)
    stored_excerpt: str | None = field(default=None, compare=False, repr=False)
    excerpt_start_row: int | None = field(default=None, compare=False)
    diagnostics: tuple[CarriedDiagnostic, ...] = field(default=(), compare=False)
    source: Source = field(default_factory=Source, compare=False, repr=False)

    @property
    def repo_name(self) -> str:
        """The repository's short name (``flask`` for .../pallets/flask.git), or ''."""
        url = self.repository_url.rstrip("/")
        tail = url.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        return tail[:-4] if tail.endswith(".git") else tail

    @property
    def filename(self) -> str:
        """Zed's ``filename()``: the name with characters unsafe in paths made ``-``."""
        return _FILENAME_UNSAFE.sub("-", self.name)

    @property
    def location(self) -> str:
        return f"{self.source.path}:{self.source.line}" if self.source.path else self.name

    def cursor_excerpt(self) -> tuple[str, int]:
        """The excerpt without its marker and the cursor's character offset in it,
        with the line endings a buffer holds (an ep JSON ``cursor_position`` may hold
        ``\\r\\n``; the excerpt is searched for in a buffer)."""
        from ._cursor import normalize_cursor_block, parse_cursor_excerpt

        try:
            return parse_cursor_excerpt(normalize_cursor_block(self.cursor_position))
        except Exception as error:  # EditPredError: add the file and line
            from .._exceptions import EditPredError

            if isinstance(error, EditPredError):
                raise error.locate(self.source.path, self.source.cursor_line) from None
            raise

    @cached_property
    def _expected(self) -> tuple[ExpectedPatch, ...]:
        from ._cursor import extract_cursor_from_patch

        return tuple(extract_cursor_from_patch(patch) for patch in self.expected_patches)

    def expected(self) -> tuple[ExpectedPatch, ...]:
        """Expected patches with their ``#  ^[CURSOR_POSITION]`` lines taken out."""
        return self._expected
