"""The part of the cursor file a model sees and the part it may rewrite.

Every prompt format shows the model a *context* (whole lines around the cursor, cut as
Zed cuts its cursor excerpt, §3.5) and marks an *editable region* inside it (whole
lines around the cursor row). The answer replaces the region; everything outside it
is kept as the user left it. Keeping this in one place means all formats agree on
what "the region" is, and parsing can turn any answer back into the full new text of
the cursor file plus a cursor offset in it.

Choice (Zed's budgets are in tokens and vary by format): the region is the cursor
row and up to ``EDITABLE_LINES_BEFORE`` rows above and ``EDITABLE_LINES_AFTER`` rows
below it, clipped to the context; the context is Zed's cursor excerpt within
``CONTEXT_TOKENS`` (bytes/3 a line). The region runs from the start of its first
line to the end of its last line, *without* that line's newline; the empty "row"
after a file's final newline is left out of it unless the cursor is there, so a
rewritten region cannot eat the final newline.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...scene import PredictionRequest, compute_excerpt

__all__ = ["Answer", "Window", "window_for", "EDITABLE_LINES_BEFORE", "EDITABLE_LINES_AFTER", "CONTEXT_TOKENS"]

EDITABLE_LINES_BEFORE = 10
EDITABLE_LINES_AFTER = 10
CONTEXT_TOKENS = 8192


@dataclass(frozen=True)
class Answer:
    """A parsed model answer: the full new text of the cursor file and the cursor
    (a character offset into that text), or ``text=None`` for "no edit"."""

    text: str | None
    cursor: int | None = None


@dataclass(frozen=True)
class Window:
    """Offsets into ``text`` (the cursor file): context ⊇ region ∋ cursor."""

    path: str
    text: str
    context_start: int
    region_start: int
    cursor: int
    region_end: int
    context_end: int

    @property
    def at_file_start(self) -> bool:
        return self.context_start == 0

    @property
    def before_region(self) -> str:
        """Context above the region; ends with a newline unless empty."""
        return self.text[self.context_start : self.region_start]

    @property
    def region(self) -> str:
        return self.text[self.region_start : self.region_end]

    @property
    def region_before_cursor(self) -> str:
        return self.text[self.region_start : self.cursor]

    @property
    def region_after_cursor(self) -> str:
        return self.text[self.cursor : self.region_end]

    @property
    def after_region(self) -> str:
        """Context below the region; starts with a newline unless empty."""
        return self.text[self.region_end : self.context_end]

    @property
    def region_start_row(self) -> int:
        return self.text.count("\n", 0, self.region_start)

    def replace_region(self, new_region: str, cursor_in_region: int | None) -> Answer:
        """Put ``new_region`` exactly in place of the region (Zeta 1 and chat)."""
        new_text = self.text[: self.region_start] + new_region + self.text[self.region_end :]
        return Answer(new_text, self._cursor(new_region, cursor_in_region))

    def replace_region_lines(self, new_region: str, cursor_in_region: int | None) -> Answer:
        """Replace the region *with its newline* by ``new_region`` as whole lines.

        This is Zed's zeta2 ``parse-output`` rule (§5.4): old and new region both get
        a final newline when non-empty, so an empty answer deletes the region's lines
        and a missing final newline in the answer changes nothing.
        """
        end = self.region_end
        had_newline = end < len(self.text) and self.text[end] == "\n"
        if had_newline:
            end += 1
        if new_region and not new_region.endswith("\n"):
            new_region += "\n"
        if not had_newline and new_region.endswith("\n"):
            new_region = new_region[:-1]
        new_text = self.text[: self.region_start] + new_region + self.text[end:]
        return Answer(new_text, self._cursor(new_region, cursor_in_region))

    def insert_at_cursor(self, completion: str) -> Answer:
        """Fill-in-the-middle: insert at the cursor, which ends after the insertion."""
        if not completion:
            return Answer(None)
        new_text = self.text[: self.cursor] + completion + self.text[self.cursor :]
        return Answer(new_text, self.cursor + len(completion))

    def _cursor(self, new_region: str, cursor_in_region: int | None) -> int | None:
        if cursor_in_region is None:
            return None
        return self.region_start + min(max(cursor_in_region, 0), len(new_region))


def window_for(
    request: PredictionRequest,
    *,
    lines_before: int = EDITABLE_LINES_BEFORE,
    lines_after: int = EDITABLE_LINES_AFTER,
    max_tokens: int = CONTEXT_TOKENS,
) -> Window:
    """The context and editable region of ``request``'s cursor file.

    Only the rows of the region are walked (``find``/``rfind`` from the cursor): the
    file around them is never split into lines."""
    text = request.text
    cursor = min(max(request.cursor.offset, 0), len(text))
    excerpt = compute_excerpt(text, cursor, max_tokens)
    row = text.count("\n", 0, cursor)
    first = max(excerpt.start_row, row - max(lines_before, 0))
    last = min(excerpt.end_row, row + max(lines_after, 0))
    line_start = region_start = text.rfind("\n", 0, cursor) + 1  # the cursor's row
    for _ in range(row - first):
        region_start = text.rfind("\n", 0, region_start - 1) + 1
    region_end = _line_end(text, cursor)
    for _ in range(last - row):
        line_start = region_end + 1
        region_end = _line_end(text, line_start)
    if last > row and line_start == region_end == len(text):
        region_end = line_start - 1  # the empty "row" after a final newline is not a line to rewrite
    context_start = cursor - excerpt.cursor_offset
    return Window(
        path=request.cursor.path,
        text=text,
        context_start=context_start,
        region_start=region_start,
        cursor=cursor,
        region_end=region_end,
        context_end=context_start + len(excerpt.text),
    )


def _line_end(text: str, start: int) -> int:
    """The end (the ``\\n`` or ``len``) of the row starting at ``start``."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end
