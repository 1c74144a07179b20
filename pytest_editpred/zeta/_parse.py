"""§9: the model's answer back to a new editable region, a cursor and a new excerpt.

A malformed answer is the model's fault, so it always surfaces as one
``PredictionError`` naming what was missing (Zed's message), never as an
``IndexError`` from hostile input: the item FAILS instead of erroring.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .._exceptions import PredictionError
from .._text import line_start
from ._formats import CURSOR_MARKER, NO_EDITS, AnyFormat, Zeta1Format, ZetaFormat, parse_usize, rust_lines
from ._input import ZetaInput
from ._multi_region import (
    MarkerError,
    apply_marker_span,
    apply_marker_span_v0316,
    apply_marker_span_v0317,
    apply_marker_span_v0318,
    collect_marker_tags,
    collect_relative_marker_tags,
)
from ._ranges import resolve_cursor_region

__all__ = [
    "ParsedOutput",
    "parse_output",
    "apply_to_excerpt",
    "output_has_edit_commands",
    "apply_edit_commands",
    "apply_variable_edit",
]

_SET: Final = "<|set|>"
_INSERT: Final = "<|insert|>"
_NO_EDITS_COMMAND: Final = "<|no_edits|>"


@dataclass(frozen=True)
class ParsedOutput:
    """Zed's ``ParsedOutput``: the new text of ``range_in_excerpt`` (character
    range of the *old* excerpt), the cursor as a character offset into that new
    text (None when the answer has none), and whether the answer said "no edits"
    explicitly (a sentinel or a repeated marker tag)."""

    new_editable_region: str
    range_in_excerpt: tuple[int, int]
    cursor_offset: int | None
    no_edits: bool = False


_FIXES: dict[ZetaFormat, str] = {
    ZetaFormat.v0226Hashline: (
        "Answer with the whole new region, or with <|set|>I:HH / <|insert|>I:HH commands, or <|no_edits|>."
    ),
    ZetaFormat.V0304VariableEdit: (
        "Answer with prefix lines, <|fim_middle|>, the new text, <|fim_suffix|>, suffix lines."
    ),
    ZetaFormat.V0306SeedMultiRegions: (
        "Answer with one <|marker_i|> ... <|marker_j|> span of the editable region, or NO_EDITS."
    ),
    ZetaFormat.V0317SeedMultiRegions: (
        "Answer with the new text between two relative tags such as <|marker-0|> and "
        "<|marker+1|>; the same tag twice means no edit."
    ),
}
_MARKER_FIX = "Answer with the new text between two <|marker_N|> tags of the prompt; the same tag twice means no edit."


def _fail(format: ZetaFormat, message: str) -> PredictionError:
    """Zed's message as is; the fix names the format and what it expects."""
    return PredictionError(message, fix=f"{format.value}: {_FIXES.get(format, _MARKER_FIX)}")


# -- §9.5 hashline -------------------------------------------------------------------

_RUST_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)
_HEX: Final = re.compile(r"\+?[0-9a-fA-F]+")


def output_has_edit_commands(output: str) -> bool:
    """§9.1: hashline answers are commands only when one of the tokens occurs."""
    return _SET in output or _INSERT in output or _NO_EDITS_COMMAND in output


def _line_ref(text: str) -> tuple[int, int] | None:
    """``I:HH`` (decimal line, hex ``u8`` hash), or None when malformed."""
    index_text, colon, hash_text = text.strip(_RUST_WHITESPACE).partition(":")
    if not colon:
        return None
    index = parse_usize(index_text)
    if index is None or not _HEX.fullmatch(hash_text):
        return None
    value = int(hash_text, 16)
    return (index, value) if value <= 255 else None


@dataclass(frozen=True)
class _Command:
    is_set: bool
    spec: str
    content: str


def _parse_commands(output: str) -> list[_Command]:
    """Each command line opens a command whose content runs up to the next command
    line (the raw slice, newlines included) or to the end of the output."""
    lines = output.split("\n")
    starts: list[int] = []
    position = 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1

    def opener(i: int) -> tuple[bool, str] | None:
        trimmed = lines[i].strip(_RUST_WHITESPACE)
        if trimmed.startswith(_SET):
            return True, trimmed[len(_SET) :]
        if trimmed.startswith(_INSERT):
            return False, trimmed[len(_INSERT) :]
        return None

    commands: list[_Command] = []
    i = 0
    while i < len(lines):
        head = opener(i)
        if head is None:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and opener(j) is None:
            j += 1
        content_start = min(starts[i + 1], len(output)) if i + 1 < len(lines) else len(output)
        content_end = starts[j] if j < len(lines) else len(output)
        commands.append(_Command(head[0], head[1], output[content_start:content_end]))
        i = j
    return commands


def _newline_terminated(text: str) -> str:
    return text + "\n" if text and not text.endswith("\n") else text


def apply_edit_commands(region: str, output: str) -> str:
    """§9.5: apply the valid ``<|set|>``/``<|insert|>`` commands (hashes must match
    the original lines); of overlapping sets, the one starting first wins."""
    if output.lstrip(_RUST_WHITESPACE).startswith(_NO_EDITS_COMMAND):
        return region
    lines = rust_lines(region)
    hashes = [sum(line.encode("utf-8")) % 256 for line in lines]

    def valid(ref: tuple[int, int] | None) -> bool:
        return ref is not None and ref[0] < len(lines) and hashes[ref[0]] == ref[1]

    sets: dict[int, tuple[int, str]] = {}
    before_first: list[str] = []
    after: dict[int, list[str]] = {}
    for command in _parse_commands(output):
        if command.is_set:
            first, dash, second = command.spec.partition("-")
            start_ref = _line_ref(first)
            end_ref = _line_ref(second) if dash else start_ref
            if valid(start_ref) and valid(end_ref):
                assert start_ref is not None and end_ref is not None
                if start_ref[0] <= end_ref[0]:
                    sets[start_ref[0]] = (end_ref[0], command.content)
        else:
            ref = _line_ref(command.spec)
            if ref is None:
                before_first.append(command.content)
            elif valid(ref):
                after.setdefault(ref[0], []).append(command.content)

    out: list[str] = [_newline_terminated(c) for c in before_first]
    i = 0
    while i < len(lines):
        if i in sets:
            end, content = sets[i]
            out.append(_newline_terminated(content))
            out.extend(_newline_terminated(c) for c in after.get(end, []))
            i = end + 1
            continue
        out.append(lines[i] + "\n")
        out.extend(_newline_terminated(c) for c in after.get(i, []))
        i += 1
    text = "".join(out)
    if not region.endswith("\n") and text.endswith("\n"):
        text = text[:-1]
    return text


# -- §9.6 variable edit -------------------------------------------------------------


def _find_at_line_start(text: str, needle: str, start: int) -> int:
    """The first index >= ``start`` at a line start where ``needle`` occurs, or -1."""
    position = start
    while True:
        found = text.find(needle, position)
        if found < 0:
            return -1
        if found == 0 or text[found - 1] == "\n":
            return found
        position = found + 1


def apply_variable_edit(context: str, output: str) -> tuple[str, tuple[int, int]]:
    """§9.6: the answer's context lines locate the edit in the context; returns the
    new text and the replaced character range of the context."""
    prefix: str
    for token in ("<|fim_middle|>\n", "<|fim_middle|>"):
        prefix, found, rest = output.partition(token)
        if found:
            break
    else:
        raise MarkerError("missing <|fim_middle|> in model output")
    new_text, suffix = rest, ""
    for token in ("<|fim_suffix|>\n", "<|fim_suffix|>"):
        head, found, tail = rest.partition(token)
        if found:
            new_text, suffix = head, tail
            break
    if not prefix and suffix.startswith("\n"):
        suffix = suffix[1:]
    prefix_at = _find_at_line_start(context, prefix, 0)
    if prefix_at < 0:
        raise MarkerError("could not locate prefix lines")
    start = prefix_at + len(prefix)
    if suffix:
        end = _find_at_line_start(context, suffix, start)
        if end < 0:
            raise MarkerError("could not locate suffix lines")
    else:
        end = len(context)
    return new_text, (start, end)


# -- §9.1 ---------------------------------------------------------------------------


def _new_region(
    output: str, format: ZetaFormat, old: str, context: str, editable: tuple[int, int], cursor: int
) -> tuple[str, tuple[int, int], bool]:
    """Per-format step 3 of §9.1: (new text, its range in the context, no-edits?)."""
    F = ZetaFormat
    if format is F.v0226Hashline:
        if output_has_edit_commands(output):
            new = apply_edit_commands(old, output)
            return new, editable, new == old and _NO_EDITS_COMMAND in output
        return output, editable, False
    if format is F.V0304VariableEdit:
        new, range_in_context = apply_variable_edit(context, output)
        return new, range_in_context, False
    if format is F.V0304SeedNoEdits:
        if output.startswith(NO_EDITS):
            return old, editable, True
        return output, editable, False
    if format is F.V0306SeedMultiRegions:
        if output.startswith(NO_EDITS):
            return old, editable, True
        return apply_marker_span(old, output), editable, False
    if format is F.V0316SeedMultiRegions:
        new = apply_marker_span_v0316(old, output)
    elif format is F.V0317SeedMultiRegions:
        new = apply_marker_span_v0317(old, output, max(cursor - editable[0], 0))
        tags = collect_relative_marker_tags(output)
        return new, editable, tags[0][0] == tags[-1][0]
    elif format in _V0318_OFFSETS:
        new = apply_marker_span_v0318(old, output)
    else:
        return output, editable, False
    numbered = collect_marker_tags(output)
    return new, editable, numbered[0][0] == numbered[-1][0]


_V0318_OFFSETS: Final = frozenset(
    {
        ZetaFormat.V0318SeedMultiRegions,
        ZetaFormat.V0420Diagnostics,
        ZetaFormat.V0608QwenMultiRegions,
        ZetaFormat.V0327SingleFile,
    }
)


def parse_output(output: str, input: ZetaInput, format: ZetaFormat) -> ParsedOutput:
    """§9.1 ``parse_zeta2_model_output``. For V0211Prefill, ``output`` must already
    start with the prefill (the client prepends it). Raises ``PredictionError`` when
    the answer is malformed."""
    if format is ZetaFormat.V0615HashRegions:
        raise _fail(
            format,
            "V0615HashRegions output addresses related-file context; use parse_zeta2_model_output_as_patch",
        )
    end_marker = format.end_marker
    if end_marker is not None and output.endswith(end_marker):
        output = output[: -len(end_marker)]
    region = resolve_cursor_region(input, format)
    es, ee = region.editable_range
    old = region.context_text[es:ee]
    try:
        new, range_in_context, no_edits = _new_region(output, format, old, region.context_text, (es, ee), region.cursor)
    except MarkerError as error:
        raise _fail(format, str(error)) from None
    except (IndexError, ValueError, OverflowError) as error:  # a guard, not a path
        raise _fail(format, f"unusable model output ({type(error).__name__}: {error})") from None
    cursor = new.find(CURSOR_MARKER)
    if cursor >= 0:
        new = new[:cursor] + new[cursor + len(CURSOR_MARKER) :]
    start = range_in_context[0] + region.context_range[0]
    end = range_in_context[1] + region.context_range[0]
    return ParsedOutput(new, (start, end), cursor if cursor >= 0 else None, no_edits)


def _hashed_apply(input: ZetaInput, output: str) -> tuple[str, int | None] | None:
    """V0615 answers patch any shown excerpt; only the replacements that fall inside
    the cursor excerpt (matched by file rows and checked by text) change it."""
    from ._hashed import parse_v0615_output, related_file_patch_path

    patch = parse_v0615_output(output, input)
    excerpt = input.cursor_excerpt
    if input.excerpt_start_row is None:  # no prompt is built without it (§7.3)
        return None
    cursor_path = related_file_patch_path(input.cursor_path, input.cursor_path)
    edits: list[tuple[int, int, str, int | None]] = []
    for edit in patch.edits:
        if edit.path != cursor_path:
            continue
        delta = edit.start_row - input.excerpt_start_row
        in_excerpt = line_start(excerpt, max(delta, 0))
        in_snippet = line_start(edit.old_text, max(-delta, 0))
        if in_excerpt is None or in_snippet is None:
            continue
        shift = in_excerpt - in_snippet
        for r in edit.replacements:
            start, end, text, at = r.start + shift, r.end + shift, r.text, r.cursor
            old_part = edit.old_text[r.start : r.end]
            if end == len(excerpt) + 1 and old_part.endswith("\n"):
                # the excerpt has no final newline (§3.1); the snippet does
                end, old_part = end - 1, old_part[:-1]
                text = text[:-1] if text.endswith("\n") else text
                at = None if at is None else min(at, len(text))
            if 0 <= start <= end <= len(excerpt) and excerpt[start:end] == old_part:
                edits.append((start, end, text, at))
    edits.sort(key=lambda e: (e[0], e[1]))
    out: list[str] = []
    position = 0
    length = 0
    cursor: int | None = None
    for start, end, text, text_cursor in edits:
        if start < position:
            continue
        out.append(excerpt[position:start])
        length += start - position
        if cursor is None and text_cursor is not None:
            cursor = length + text_cursor
        out.append(text)
        length += len(text)
        position = end
    out.append(excerpt[position:])
    new_excerpt = "".join(out)
    if new_excerpt == excerpt:
        return None
    return new_excerpt, cursor


def apply_to_excerpt(input: ZetaInput, format: AnyFormat, output: str) -> tuple[str, int | None] | None:
    """§9.4 in text form: the new cursor excerpt and the predicted cursor (a
    character offset into it), or None when the answer changes nothing.

    The region is replaced as whole lines, as applying Zed's patch would: both texts
    get a final newline when they lack one before comparing, and the one added to
    the old region is taken back. An empty answer is no prediction (the editor and
    the CLI skip it)."""
    if not output:
        return None
    if isinstance(format, Zeta1Format):
        from ._zeta1 import apply_zeta1_output

        zeta1: tuple[str, int | None] | None = apply_zeta1_output(input, output)
        return zeta1
    if format is ZetaFormat.V0615HashRegions:
        return _hashed_apply(input, output)
    parsed = parse_output(output, input, format)
    excerpt = input.cursor_excerpt
    start, end = parsed.range_in_excerpt
    old = excerpt[start:end]
    new = parsed.new_editable_region
    old_terminated, new_terminated = _newline_terminated(old), _newline_terminated(new)
    if old_terminated == new_terminated:
        return None
    tail = excerpt[end:]
    if old and not old.endswith("\n"):
        if new_terminated:
            body = new_terminated[:-1]
        else:
            body = ""
            tail = tail[1:] if tail.startswith("\n") else tail
    else:
        body = new_terminated
    cursor = None
    if parsed.cursor_offset is not None:
        cursor = start + min(parsed.cursor_offset, len(body))
    return excerpt[:start] + body + tail, cursor
