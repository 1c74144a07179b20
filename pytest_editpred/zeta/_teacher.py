"""§12–§14: Zed's two teacher prompts (``teacher.md``, ``teacher_jumps.md``), the
parsing of their answers, and the code-block rules both use.

A teacher is a frontier chat model that Zed prompts in prose to produce training
data; here it lets any chat model (Anthropic, OpenAI-compatible) be evaluated on the
same prompt Zed would give it. Formatting and parsing are pure functions of a
:class:`ZetaInput`, so a cached answer parses the same way on every run.

Results are :class:`TextEdit` s rather than Zed's unified patch: an edit replaces
whole lines (old and new text both end at a line end), which is what applying Zed's
patch does, so the edited file is the same without a diff round trip.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .._exceptions import PredictionError
from .._text import nbytes
from ._formats import CURSOR_MARKER, ZetaFormat, rust_lines
from ._history import write_event
from ._input import ZetaInput
from ._ranges import resolve_cursor_region
from ._related import format_active_buffer_diagnostics_with_budget, format_related_files_within_budget
from ._teacher_templates import TEACHER_TEMPLATE

__all__ = [
    "TEACHER_FORMAT",
    "TextEdit",
    "TeacherRanges",
    "extract_all_codeblocks",
    "extract_editable_region",
    "extract_last_codeblock",
    "format_teacher_edit_history",
    "format_teacher_prompt",
    "is_no_edits",
    "parse_teacher_output",
    "teacher_ranges",
]

REGION_START = "<|editable_region_start|>\n"
REGION_END = "\n<|editable_region_end|>"
NO_EDITS = "NO_EDITS"
FENCE = "`````"

#: The CLI's ``teacher`` default format (§2.3): it picks the region budgets.
TEACHER_FORMAT = ZetaFormat.V0131GitMergeMarkersPrefix
EDIT_HISTORY_LINES = 128
CONTEXT_TOKENS = 1024
DIAGNOSTICS_TOKENS = 2000
_DIAGNOSTICS_HEADER = "<filename>diagnostics\n"  # §4.4's header, which the teacher drops

# Rust's char::is_whitespace (Python's str.strip also strips \x1c-\x1f).
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + ("\u2028\u2029\u202f\u205f\u3000")
)


def _trim(text: str) -> str:
    return text.strip(_RUST_WHITESPACE)


# -- §14 code blocks --------------------------------------------------------------


def _block(lines: list[str]) -> str:
    content = "\n".join(lines)
    return content + "\n" if content else ""


def _is_fence(line: str) -> bool:
    """A line that is only backticks once trimmed (its length is the fence's)."""
    fence = _trim(line)
    return len(fence) >= 3 and fence.count("`") == len(fence)


def extract_last_codeblock(text: str) -> str | None:
    """§14: the last closed backtick block; ``None`` when there is none (an
    unclosed fence included: the model stopped before finishing its answer)."""
    lines = rust_lines(text)
    close = next((i for i in range(len(lines) - 1, -1, -1) if _is_fence(lines[i])), None)
    if close is None:
        return None
    count = len(_trim(lines[close]))
    opener = "`" * count
    for start in range(close - 1, -1, -1):
        line = lines[start]
        if line.startswith(opener) and not line[count:].startswith("`"):
            return _block(lines[start + 1 : close])
    return None


def extract_all_codeblocks(text: str) -> list[str]:
    """§14: every top-level backtick block in order; shorter fences inside one are
    content, and a block never closed is not returned."""
    blocks: list[str] = []
    body: list[str] | None = None
    count = 0
    for line in rust_lines(text):
        if body is None:
            if line.startswith("```"):
                count = len(line) - len(line.lstrip("`"))
                body = []
        elif _is_fence(line) and len(_trim(line)) >= count:
            blocks.append(_block(body))
            body = None
        else:
            body.append(line)
    return blocks


def is_no_edits(response: str, *, trim_backticks: bool = True) -> bool:
    """§12.4 step 1 / §13.3 step 1: the last block is ``NO_EDITS``, or the response
    ends with it (the teacher also trims trailing backticks, so ``NO_EDITS`````
    counts; teacher-jumps trims whitespace only)."""
    last = extract_last_codeblock(response)
    if last is not None and _trim(last) == NO_EDITS:
        return True
    tail = response.rstrip(" \n`") if trim_backticks else _trim(response)
    return tail.endswith(NO_EDITS)


# -- §12.1 ranges ----------------------------------------------------------------


@dataclass(frozen=True)
class TeacherRanges:
    """§12.1: the context and editable ranges, as character offsets into the excerpt."""

    context_start: int
    editable_start: int
    editable_end: int
    context_end: int


def teacher_ranges(input: ZetaInput, format: ZetaFormat = TEACHER_FORMAT) -> TeacherRanges:
    """``resolved_excerpt_ranges_for_format``: §3.5 with the editable range made
    excerpt-absolute (so V0327 shows the whole excerpt)."""
    region = resolve_cursor_region(input, format)
    start, end = region.context_range
    return TeacherRanges(start, start + region.editable_range[0], start + region.editable_range[1], end)


# -- §12.2 the prompt --------------------------------------------------------------


def format_teacher_edit_history(edit_history: str) -> str:
    """``{{edit_history}}``: the raw history's last 128 lines, without its final newline."""
    lines = rust_lines(edit_history)
    if not lines:
        return "(No edit history)"
    if len(lines) > EDIT_HISTORY_LINES:
        return "\n".join(lines[-EDIT_HISTORY_LINES:]) + "\n[...truncated...]"
    return "\n".join(lines)


def _related_context(input: ZetaInput) -> str:
    if not input.related_files:
        return "(No context)"
    return format_related_files_within_budget(input.related_files, FENCE, FENCE + "\n\n", CONTEXT_TOKENS)


def _cursor_row(input: ZetaInput) -> int | None:
    if input.excerpt_start_row is None:
        return None
    return input.excerpt_start_row + input.cursor_excerpt.count("\n", 0, input.cursor_offset)


def _diagnostics(input: ZetaInput, format: ZetaFormat) -> str:
    """``{{diagnostics}}``: only V0420 shows them, under its own heading."""
    if format is not ZetaFormat.V0420Diagnostics:
        return ""
    text = format_active_buffer_diagnostics_with_budget(input.diagnostics, _cursor_row(input), DIAGNOSTICS_TOKENS)
    text = text.removeprefix(_DIAGNOSTICS_HEADER)
    return "# 4. Diagnostics\n\n" + (text or "No Diagnostics")


def _cursor_excerpt(input: ZetaInput, ranges: TeacherRanges) -> str:
    excerpt, cursor = input.cursor_excerpt, input.cursor_offset
    return (
        f"{FENCE}{input.cursor_path}\n"
        + excerpt[ranges.context_start : ranges.editable_start]
        + REGION_START
        + excerpt[ranges.editable_start : cursor]
        + CURSOR_MARKER
        + excerpt[cursor : ranges.editable_end]
        + REGION_END
        + excerpt[ranges.editable_end : ranges.context_end]
        + f"\n{FENCE}"
    )


def fill_template(template: str, **values: str) -> str:
    """Zed's plain replace of every occurrence, placeholder by placeholder, in this
    order (so a value holding a later placeholder's name is replaced too)."""
    for name in ("context", "edit_history", "diagnostics", "cursor_excerpt"):
        if name in values:
            template = template.replace("{{" + name + "}}", values[name])
    return template


def format_teacher_prompt(
    input: ZetaInput, format: ZetaFormat = TEACHER_FORMAT, *, edit_history: str | None = None
) -> str:
    """The ``teacher`` prompt (§12.2).

    ``edit_history`` is the example's raw ``Edit History`` text, which is what Zed
    shows; without it the input's events are written as Zed writes each one (§4.1).
    """
    if edit_history is None:
        edit_history = "".join(write_event(event) for event in input.events)
    return fill_template(
        TEACHER_TEMPLATE,
        context=_related_context(input),
        edit_history=format_teacher_edit_history(edit_history),
        diagnostics=_diagnostics(input, format),
        cursor_excerpt=_cursor_excerpt(input, teacher_ranges(input, format)),
    )


# -- §12.4 parsing -----------------------------------------------------------------


@dataclass(frozen=True)
class TextEdit:
    """Replace the whole lines ``old_text`` at ``start`` by ``new_text``.

    ``start`` is a character offset into the text the edit is anchored to (the
    cursor excerpt for the teacher; the snippet, at file row ``start_row``, for
    teacher-jumps). ``cursor`` is a character offset into ``new_text``, or ``None``.
    """

    path: str
    start: int
    old_text: str
    new_text: str
    cursor: int | None = None
    start_row: int = 0

    def apply(self, text: str, at: int = 0) -> tuple[str, int | None]:
        """``text`` with the edit made at offset ``at + start``, and the cursor in it.

        Whole-line rule of Zed's patches (§9.4): a non-empty new text ends with a
        newline where the old one was followed by one, so an empty new text deletes
        the old lines and a missing final newline changes nothing.
        """
        start = at + self.start
        end = start + len(self.old_text)
        if text[start:end] != self.old_text:
            raise ValueError(f"the edited text does not hold {self.old_text[:60]!r} at offset {start}")
        new = self.new_text
        if self.old_text:
            had_newline = self.old_text.endswith("\n") or text.startswith("\n", end)
            if not self.old_text.endswith("\n") and had_newline:
                end += 1
        else:
            had_newline = True
        if new and not new.endswith("\n") and had_newline:
            new += "\n"
        if not had_newline and new.endswith("\n"):
            new = new[:-1]
        cursor = None if self.cursor is None else start + min(max(self.cursor, 0), len(new))
        return text[:start] + new + text[end:], cursor


def extract_editable_region(text: str) -> str:
    """Between the **last** region markers (or the text's ends), one trailing
    newline removed; ``Invalid editable region markers`` when they cross."""
    start = text.rfind(REGION_START)
    start = 0 if start < 0 else start + len(REGION_START)
    end = text.rfind(REGION_END)
    end = len(text) if end < 0 else end
    if start >= end:
        raise PredictionError(
            "Invalid editable region markers: the answer's last <|editable_region_start|> "
            "does not come before its last <|editable_region_end|>",
            fix="The answer must hold one <|editable_region_start|> ... <|editable_region_end|> block.",
        )
    region = text[start:end]
    return region[:-1] if region.endswith("\n") else region


def _take_cursor(region: str) -> tuple[str, int | None]:
    """All cursor markers removed; the first one's position is the cursor."""
    position = region.find(CURSOR_MARKER)
    return region.replace(CURSOR_MARKER, ""), (None if position < 0 else position)


def _occurrences(text: str, needle: str) -> Iterator[int]:
    """Non-overlapping matches, as Rust's ``match_indices``."""
    if not needle:
        yield from range(len(text) + 1)
        return
    at = text.find(needle)
    while at >= 0:
        yield at
        at = text.find(needle, at + len(needle))


def _nearest(text: str, needle: str, cursor: int) -> int | None:
    """The match nearest ``cursor`` by UTF-8 byte distance; the first on ties."""
    if not needle:
        return min(max(cursor, 0), len(text))
    cursor_byte = nbytes(text[:cursor])
    best: tuple[int, int] | None = None
    for at in _occurrences(text, needle):
        distance = abs(nbytes(text[:at]) - cursor_byte)
        if best is None or distance < best[0]:
            best = (distance, at)
    return None if best is None else best[1]


def _cut(text: str, limit: int = 200) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def parse_teacher_output(
    input: ZetaInput | None, prompt: str | None, response: str, *, require_markers: bool = False
) -> TextEdit | None:
    """``TeacherPrompt::parse`` (§12.4): the new editable region, or ``None`` for
    ``NO_EDITS``. ``prompt`` is the prompt that was sent: the old region is read
    back from it, so prompt and parse cannot disagree.

    Zed takes an answer without region markers whole, explanation included;
    ``require_markers`` makes that a :class:`PredictionError` instead.
    """
    if is_no_edits(response):
        return None
    if not prompt:
        raise PredictionError("example prompt missing", fix="Pass the prompt that was sent to the model.")
    if input is None:
        raise PredictionError("example is missing prompt inputs", fix="Pass the ZetaInput the prompt was built from.")
    if require_markers and (REGION_START not in response or REGION_END not in response):
        raise PredictionError(
            f"the answer has no {REGION_START.strip()} ... {REGION_END.strip()} block and no {NO_EDITS}; "
            f"it was {_cut(response)}",
            fix="Check that the model follows the teacher prompt's output format.",
        )
    new, cursor = _take_cursor(extract_editable_region(response))
    old, _ = _take_cursor(extract_editable_region(prompt))
    if old.startswith("\n") and not new.startswith("\n"):
        new = "\n" + new
    at = _nearest(input.cursor_excerpt, old, input.cursor_offset)
    if at is None:
        raise PredictionError(
            "editable region not found in prompt content: the prompt's region does not "
            f"occur in the cursor excerpt ({_cut(old, 80)})",
            fix="Parse with the ZetaInput the prompt was built from.",
        )
    start_row = input.cursor_excerpt.count("\n", 0, at)
    return TextEdit(input.cursor_path, at, old, new, cursor, start_row)
