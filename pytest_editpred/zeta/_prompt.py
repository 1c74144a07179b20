"""§5 and §6: assembling a prompt, byte for byte, for every ``ZetaFormat``.

The cursor section is built first because every family gives the rest of the budget
(history, diagnostics, related files) only what it leaves; the final check then
refuses (``None``) a prompt over the unmargined budget, as Zed does, rather than
sending a truncated one.
"""

from __future__ import annotations

import math

from .._text import nbytes
from ._formats import (
    CURSOR_MARKER,
    MERGE_CURRENT,
    MERGE_SEPARATOR,
    AnyFormat,
    Family,
    Zeta1Format,
    ZetaFormat,
    rust_lines,
)
from ._history import format_edit_history_within_budget
from ._input import RelatedFile, ZetaInput, estimate_tokens
from ._multi_region import (
    compute_marker_offsets,
    compute_marker_offsets_v0318,
    cursor_block_index,
    marker_tag,
    marker_tag_relative,
    write_editable_byte_exact,
    write_editable_with_markers,
)
from ._ranges import CursorRegion, resolve_cursor_region
from ._related import (
    filter_redundant_excerpts,
    format_active_buffer_diagnostics_with_budget,
    format_related_files_within_budget,
    offset_range_to_row_range,
)

__all__ = [
    "apply_prompt_budget_margin",
    "format_prompt",
    "cursor_section",
    "prefill",
    "hashline_line_hash",
]

_FIM_PREFIX, _FIM_SUFFIX, _FIM_MIDDLE, _FILE_SEP = (
    "<|fim_prefix|>",
    "<|fim_suffix|>",
    "<|fim_middle|>",
    "<|file_sep|>",
)
_SEED_SUFFIX, _SEED_PREFIX, _SEED_MIDDLE, _FILENAME = (
    "<[fim-suffix]>",
    "<[fim-prefix]>",
    "<[fim-middle]>",
    "<filename>",
)
_TOKEN_LEN = 14  # len("<[fim-prefix]>") == len("<[fim-middle]>") == len("<|fim_suffix|>")


def apply_prompt_budget_margin(max_tokens: int) -> int:
    """§1.1: ``floor(max * 0.9)`` in f64, the budget every section shares."""
    return math.floor(max_tokens * 0.9)


def _nl(text: str) -> str:
    """ "+nl" of §6: a newline unless what is written so far already ends with one."""
    return text if text.endswith("\n") else text + "\n"


def _editable_with_cursor(region: CursorRegion) -> str:
    es, ee = region.editable_range
    cursor = min(max(region.cursor, es), ee)
    ctx = region.context_text
    return ctx[es:cursor] + CURSOR_MARKER + ctx[cursor:ee]


def hashline_line_hash(line: str) -> int:
    """§6: the sum of the line's UTF-8 bytes mod 256."""
    return sum(line.encode("utf-8")) % 256


def _hashline_lines(editable: str, cursor: int) -> str:
    """§6 hashline: ``\\n{i}:{hh}|{line}``, the cursor shown only strictly inside a line."""
    out: list[str] = []
    offset = 0
    for i, line in enumerate(rust_lines(editable)):
        shown = line
        if offset < cursor < offset + len(line):
            shown = line[: cursor - offset] + CURSOR_MARKER + line[cursor - offset :]
        out.append(f"\n{i}:{hashline_line_hash(line):02x}|{shown}")
        offset += len(line) + 1
    return "".join(out)


def cursor_section(input: ZetaInput, format: ZetaFormat, region: CursorRegion) -> str:
    """§6: the cursor-file section (the "cursor prefix" of the seed/Qwen families)."""
    ctx = region.context_text
    es, ee = region.editable_range
    before, editable, after = ctx[:es], ctx[es:ee], ctx[ee:]
    cursor_in_editable = min(max(region.cursor - es, 0), len(editable))
    path = input.cursor_path
    hdr = f"{_FILE_SEP}{path}\n"
    F = ZetaFormat
    if format is F.V0112MiddleAtEnd:
        s = hdr + _FIM_PREFIX + "\n" + before + _FIM_SUFFIX + "\n" + after
        s = _nl(s) + _FIM_MIDDLE + "current\n" + _editable_with_cursor(region)
        return _nl(s) + _FIM_MIDDLE + "updated\n"
    if format in (F.V0113Ordered, F.V0114180EditableRegion):
        s = _nl(hdr + _FIM_PREFIX + "\n" + before) + _FIM_MIDDLE + "current\n"
        s = _nl(s + _editable_with_cursor(region)) + _FIM_SUFFIX + "\n" + after
        return _nl(s) + _FIM_MIDDLE + "updated\n"
    if format is F.V0120GitMergeMarkers:
        s = _nl(hdr + _FIM_PREFIX + before + _FIM_SUFFIX + after)
        s += _FIM_MIDDLE + MERGE_CURRENT + _editable_with_cursor(region)
        return _nl(s) + MERGE_SEPARATOR
    if format in (F.V0131GitMergeMarkersPrefix, F.V0211Prefill):
        s = hdr + _FIM_PREFIX + before + MERGE_CURRENT + _editable_with_cursor(region)
        s = _nl(s) + MERGE_SEPARATOR + _FIM_SUFFIX + after
        return _nl(s) + _FIM_MIDDLE
    seed_hdr = f"{_FILENAME}{path}\n"
    if format in (F.V0211SeedCoder, F.V0331SeedCoderModelPy, F.V0304SeedNoEdits):
        s = seed_hdr + before + MERGE_CURRENT + _editable_with_cursor(region)
        return _nl(s) + MERGE_SEPARATOR
    if format is F.v0226Hashline:
        s = hdr + _FIM_PREFIX + "\n" + before + _FIM_MIDDLE + "current"
        s = _nl(s + _hashline_lines(editable, cursor_in_editable)) + _FIM_SUFFIX + "\n" + after
        return _nl(s) + _FIM_MIDDLE + "updated\n"
    if format is F.V0304VariableEdit:
        cursor = min(max(region.cursor, 0), len(ctx))
        return _nl(hdr + ctx[:cursor] + CURSOR_MARKER + ctx[cursor:]) + _FIM_PREFIX + "\n"
    if format is F.V0306SeedMultiRegions:
        s = write_editable_with_markers(
            seed_hdr + before + MERGE_CURRENT,
            editable,
            cursor_in_editable,
            compute_marker_offsets(editable),
        )
        return _nl(s) + MERGE_SEPARATOR
    if format is F.V0316SeedMultiRegions:
        offsets = compute_marker_offsets(editable)
        body = write_editable_byte_exact(editable, cursor_in_editable, offsets, lambda i: marker_tag(i + 1))
        return _nl(seed_hdr + before + body)
    if format is F.V0317SeedMultiRegions:
        offsets = compute_marker_offsets(editable)
        anchor = cursor_block_index(offsets, cursor_in_editable)
        body = write_editable_byte_exact(
            editable, cursor_in_editable, offsets, lambda i: marker_tag_relative(i - anchor)
        )
        return _nl(seed_hdr + before + body)
    if format in (
        F.V0318SeedMultiRegions,
        F.V0420Diagnostics,
        F.V0327SingleFile,
        F.V0608QwenMultiRegions,
    ):
        offsets = compute_marker_offsets_v0318(editable)
        body = write_editable_byte_exact(editable, cursor_in_editable, offsets, lambda i: marker_tag(i + 1))
        header = hdr if format is F.V0608QwenMultiRegions else seed_hdr
        return _nl(header + before + body)
    raise ValueError(f"{format} has no cursor section (V0615 is built by _hashed)")


def _related_files(input: ZetaInput, region: CursorRegion) -> tuple[RelatedFile, ...]:
    """§5 step 3: the related files minus what the context already shows (§4.3)."""
    files = tuple(input.related_files or ())
    if input.excerpt_start_row is None:
        return files
    first, last = offset_range_to_row_range(input.cursor_excerpt, *region.context_range)
    start = input.excerpt_start_row
    return filter_redundant_excerpts(files, input.cursor_path, (first + start, last + start))


def _cursor_row(input: ZetaInput, region: CursorRegion) -> int | None:
    """§5 step 4: the cursor's buffer row, for the diagnostics' order."""
    if input.excerpt_start_row is None:
        return None
    end = region.context_range[0] + region.cursor
    return input.excerpt_start_row + input.cursor_excerpt.count("\n", 0, end)


def _suffix_section(token: str, region: CursorRegion) -> str:
    """§5.2: the token then the text after the editable range, newline-terminated."""
    return _nl(token + region.context_text[region.editable_range[1] :])


def _est(*parts: str | int) -> int:
    """``est`` of a concatenation: lengths added before dividing (§1.1)."""
    return estimate_tokens(sum(p if isinstance(p, int) else nbytes(p) for p in parts))


def _with_nl(section: str) -> str:
    return section + "\n" if section else ""


def format_prompt(input: ZetaInput, format: AnyFormat, max_tokens: int | None = None) -> str | None:
    """§5: the prompt for ``format`` (without the V0211Prefill prefill, which the
    client appends: see :func:`prefill`), or None when it exceeds ``max_tokens``
    (default: the format's, §1.1). Zeta 1 (no budget, §10) and V0615 are built by
    their own modules."""
    if isinstance(format, Zeta1Format):
        from ._zeta1 import format_zeta1_prompt

        zeta1: str = format_zeta1_prompt(input)
        return zeta1
    budget_max = format.default_max_tokens if max_tokens is None else max_tokens
    if format is ZetaFormat.V0615HashRegions:
        from ._hashed import format_v0615_prompt

        result: str | None = format_v0615_prompt(input, budget_max)
        return result
    region = resolve_cursor_region(input, format)
    files = _related_files(input, region)
    budget = apply_prompt_budget_margin(budget_max)
    section = cursor_section(input, format, region)
    events = input.events
    count = format.max_edit_events
    family = format.family

    if family is Family.FILE_SEP:
        remaining = max(budget - _est(section), 0)
        history = format_edit_history_within_budget(events, _FILE_SEP, "edit history", remaining, count)
        remaining = max(remaining - _est(history), 0)
        related = format_related_files_within_budget(files, _FILE_SEP, "", remaining)
        prompt = related + history + section
    elif family is Family.QWEN:
        suffix = _suffix_section(_FIM_SUFFIX, region)
        after_cursor = max(budget - (_est(section, _TOKEN_LEN) + _est(suffix, 2 * _TOKEN_LEN)), 0)
        history = format_edit_history_within_budget(events, _FILE_SEP, "edit_history", after_cursor, count)
        remaining = max(after_cursor - _est(history, 1), 0)
        related = format_related_files_within_budget(files, _FILE_SEP, "", remaining)
        prompt = _FIM_PREFIX + _with_nl(related) + _with_nl(history) + section + suffix + _FIM_MIDDLE
    else:
        suffix = _suffix_section(_SEED_SUFFIX, region)
        after_cursor = max(budget - (_est(suffix, _TOKEN_LEN) + _est(section, _TOKEN_LEN)), 0)
        history = format_edit_history_within_budget(events, _FILENAME, "edit_history", after_cursor, count)
        if family is Family.SINGLE_FILE:
            prompt = suffix + _SEED_PREFIX + _with_nl(history) + section + _SEED_MIDDLE
        else:
            after_history = max(after_cursor - _est(history, 1), 0)
            diagnostics = ""
            if format is ZetaFormat.V0420Diagnostics:
                diagnostics = format_active_buffer_diagnostics_with_budget(
                    input.diagnostics, _cursor_row(input, region), after_history
                )
            after_diagnostics = max(after_history - _est(diagnostics, 1), 0)
            related = format_related_files_within_budget(files, _FILENAME, "", after_diagnostics)
            prompt = (
                suffix
                + _SEED_PREFIX
                + _with_nl(diagnostics)
                + _with_nl(related)
                + _with_nl(history)
                + section
                + _SEED_MIDDLE
            )
    if _est(prompt) > budget_max:
        return None
    return prompt


def prefill(input: ZetaInput, format: ZetaFormat) -> str:
    """§5.5: the start of the editable text V0211Prefill puts in the model's mouth
    (cut at a line or word edge); the caller appends it to the prompt and prepends
    it to the answer before parsing. Empty for every other format."""
    if not format.uses_prefill:
        return ""
    region = resolve_cursor_region(input, format)
    es, ee = region.editable_range
    editable = region.context_text[es:ee]
    limit = math.floor(nbytes(editable) * 0.1)
    # the longest character prefix within ``limit`` bytes (a char-boundary cut)
    n = len(editable.encode("utf-8")[:limit].decode("utf-8", "ignore"))
    head = editable[:n]
    newline = head.rfind("\n")
    if newline >= 0:
        k = newline + 1
        while k < len(editable) and editable[k] == "\n":
            k += 1
        return editable[:k]
    space = head.rfind(" ")
    if space >= 0:
        return head[:space]
    return head
