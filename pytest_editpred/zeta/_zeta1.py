"""§10 Zeta 1 (``zeta_prompt::zeta1``): the instruction prompt and its answer.

Zeta 1 is not a ``ZetaFormat``: it has its own template, its own history rendering
(``User edited path:`` and a fenced diff, the last 6 events, no token budget) and a
lenient answer cleaner that never fails. The editable region is ``editable_350`` in
the context ``editable_350_context_150`` (§3.4), both syntax-aware.

The v1.15 layout differs from the project's older Zeta 1 code
(``providers/_prompts.py``), see §16: paths unquoted, the diff verbatim with a
newline before the closing fence, 6 events instead of a 2048-token budget,
``<|start_of_file|>`` only when the excerpt starts the file, and an answer without
region markers taken whole instead of refused.
"""

from __future__ import annotations

from ._formats import CURSOR_MARKER
from ._history import path_components
from ._input import Event, ZetaInput
from ._ranges import compute_editable_and_context_ranges, compute_legacy_excerpt_ranges

__all__ = [
    "INSTRUCTION",
    "ZETA1_CURSOR",
    "START_OF_FILE",
    "REGION_START",
    "REGION_END",
    "MAX_EVENTS",
    "STOP_TOKENS",
    "zeta1_ranges",
    "format_zeta1_event",
    "format_zeta1_events",
    "format_zeta1_excerpt",
    "format_zeta1_prompt",
    "clean_zeta1_model_output",
    "apply_zeta1_output",
]

INSTRUCTION = (
    "You are a code completion assistant and your task is to analyze user edits and then "
    "rewrite an excerpt that the user provides, suggesting the appropriate edits within the "
    "excerpt, taking into account the cursor location."
)
ZETA1_CURSOR = "<|user_cursor_is_here|>"
START_OF_FILE = "<|start_of_file|>"
REGION_START = "<|editable_region_start|>"
REGION_END = "<|editable_region_end|>"
#: §10 "the last 6 events".
MAX_EVENTS = 6
#: §10: the editor stops on the end marker followed by 0 to 3 newlines.
STOP_TOKENS = tuple(REGION_END + "\n" * count for count in range(4))
#: §3.4: Zeta 1's (editable, context) token budgets.
_BUDGETS = (350, 150)

Range = tuple[int, int]


def zeta1_ranges(input: ZetaInput) -> tuple[Range, Range]:
    """``(editable_350, editable_350_context_150)`` as character ranges of the excerpt.

    With ``syntax_ranges`` the ranges are computed (§3.3 with budgets 350/150, which
    is what §3.4 stores in those two fields); otherwise the precomputed
    ``excerpt_ranges`` are read; with neither, they are computed without syntax.
    """
    if input.syntax_ranges is not None:
        return compute_editable_and_context_ranges(
            input.cursor_excerpt, input.cursor_offset, input.syntax_ranges, *_BUDGETS
        )
    ranges = input.excerpt_ranges or compute_legacy_excerpt_ranges(input.cursor_excerpt, input.cursor_offset, None)
    return ranges.editable_350, ranges.editable_350_context_150


def format_zeta1_event(event: Event) -> str:
    """One event: a rename line pair, then ``User edited path:`` and the diff fenced.

    Paths are written as ``Path::display()`` does, unquoted and not normalized. The
    diff is verbatim and followed by ``\\n``, so a diff ending in a newline leaves a
    blank line before the closing fence. An empty ``old_path`` counts as no rename.
    """
    text = ""
    if event.old_path and path_components(event.old_path) != path_components(event.path):
        text += f"User renamed {event.old_path} to {event.path}\n\n"
    if event.diff:
        text += f"User edited {event.path}:\n```diff\n{event.diff}\n```"
    return text


def format_zeta1_events(events: tuple[Event, ...] | list[Event]) -> str:
    """The last :data:`MAX_EVENTS` events, oldest first, joined by a blank line;
    events that render empty are skipped. No token budget."""
    rendered = (format_zeta1_event(event) for event in list(events)[-MAX_EVENTS:])
    return "\n\n".join(text for text in rendered if text)


def format_zeta1_excerpt(input: ZetaInput, editable: Range, context: Range) -> str:
    """The fenced excerpt with the region markers and the Zeta 1 cursor.

    ``<|start_of_file|>`` is written only when the excerpt starts the file
    (``excerpt_start_row == 0``) and the context starts the excerpt.
    """
    excerpt, cursor = input.cursor_excerpt, input.cursor_offset
    (es, ee), (cs, ce) = editable, context
    if not 0 <= cs <= es <= cursor <= ee <= ce <= len(excerpt):
        raise ValueError(f"Zeta 1 needs context {context} ⊇ editable {editable} ∋ cursor {cursor} within the excerpt")
    start_of_file = f"{START_OF_FILE}\n" if input.excerpt_start_row == 0 and cs == 0 else ""
    return (
        f"```{input.cursor_path}\n"
        f"{start_of_file}"
        f"{excerpt[cs:es]}"
        f"{REGION_START}\n"
        f"{excerpt[es:cursor]}{ZETA1_CURSOR}{excerpt[cursor:ee]}"
        f"\n{REGION_END}"
        f"{excerpt[ee:ce]}"
        "\n```"
    )


def format_zeta1_prompt(input: ZetaInput) -> str:
    """§10: the whole prompt; it ends with ``### Response:\\n``."""
    editable, context = zeta1_ranges(input)
    return (
        f"### Instruction:\n{INSTRUCTION}\n\n"
        f"### User Edits:\n\n{format_zeta1_events(input.events)}"
        f"\n\n### User Excerpt:\n\n{format_zeta1_excerpt(input, editable, context)}"
        "\n\n### Response:\n"
    )


def _clean(output: str) -> tuple[str, int | None]:
    """The new region and where the first Zeta 1 cursor stood in it (None when there
    is none, or it stood outside the region)."""
    cursor = output.find(ZETA1_CURSOR)
    text = output.replace(ZETA1_CURSOR, "")
    start = text.find(REGION_START)
    if start < 0:
        start = 0
    else:
        start += len(REGION_START)
        if text.startswith("\n", start):
            start += 1
    end = text.find(REGION_END)
    if end < 0:
        end = len(text)
    elif end > 0 and text[end - 1] == "\n":
        end -= 1
    if start > end:
        return "", None
    region = text[start:end]
    if cursor < 0 or not start <= cursor <= end:
        return region, None
    return region, cursor - start


def clean_zeta1_model_output(output: str) -> str:
    """§10 ``clean_zeta1_model_output``: the text between the region markers (each
    optional), one ``\\n`` trimmed inside each, with the first Zeta 1 cursor turned
    into ``<|user_cursor|>``. Never an error: a start after the end gives ``""``."""
    region, cursor = _clean(output)
    if cursor is None:
        return region
    return region[:cursor] + CURSOR_MARKER + region[cursor:]


def apply_zeta1_output(input: ZetaInput, output: str) -> tuple[str, int | None] | None:
    """The answer as ``(new cursor excerpt, cursor)``: the cleaned region replaces the
    editable range; the cursor (a character offset into the new excerpt) is where
    the model put ``<|user_cursor_is_here|>``, or None. An empty answer means no
    prediction (None), as in Zed's client.
    """
    if not output:
        return None
    (es, ee), _ = zeta1_ranges(input)
    region, cursor = _clean(output)
    excerpt = input.cursor_excerpt
    return excerpt[:es] + region + excerpt[ee:], None if cursor is None else es + cursor
