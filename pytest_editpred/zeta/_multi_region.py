"""§8: multi-region marker tags (V0306, V0316, V0317, V0318, V0327, V0420, V0608).

The editable region is cut into blocks at line starts; the prompt tags the block
edges and the model answers with a span between two tags. The same offsets must be
computed by the writer, the parser and the training encoder, so they live here
once. Offsets are characters; line counts are the only limits, so no byte sizes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from ._formats import CURSOR_MARKER, parse_usize

__all__ = [
    "MarkerError",
    "V0316_LIMITS",
    "V0318_LIMITS",
    "V0618_LIMITS",
    "compute_marker_offsets_with_limits",
    "compute_marker_offsets",
    "compute_marker_offsets_v0318",
    "marker_tag",
    "marker_tag_relative",
    "cursor_block_index",
    "nearest_marker_number",
    "write_editable_with_markers",
    "write_editable_byte_exact",
    "strip_marker_tags",
    "extract_marker_span",
    "collect_marker_tags",
    "collect_relative_marker_tags",
    "apply_marker_span",
    "apply_marker_span_v0316",
    "apply_marker_span_v0318",
    "apply_marker_span_v0317",
    "encode_from_old_and_new",
    "encode_from_old_and_new_v0316",
    "encode_from_old_and_new_v0317",
    "encode_from_old_and_new_v0318",
]

V0316_LIMITS: Final = (3, 8)
V0318_LIMITS: Final = (6, 16)
V0618_LIMITS: Final = (3, 32)
_NUDGE: Final = 5
MARKER_PREFIX: Final = "<|marker_"
RELATIVE_PREFIX: Final = "<|marker"
TAG_SUFFIX: Final = "|>"


class MarkerError(ValueError):
    """A marker answer that cannot be applied; the message is Zed's text. The
    parser turns it into a ``PredictionError``."""


# Rust's ``char::is_whitespace`` (Unicode White_Space); ``str.strip()`` would also
# strip \x1c-\x1f and make a different line blank.
_RUST_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)
_TAIL_WORDS: Final = frozenset({"break", "continue", "return", "throw", "end"})


def _good_start(line: str) -> bool:
    """A block may start here: not blank and not a structural tail (``}``, ``return``)."""
    trimmed = line.strip(_RUST_WHITESPACE)
    if not trimmed or trimmed[0] in "}])":
        return False
    return trimmed.rstrip(";") not in _TAIL_WORDS


def compute_marker_offsets_with_limits(text: str, min_lines: int, max_lines: int) -> list[int]:
    """§8.1: block edges, at blank-line splits (nudged up to 5 lines to a good start)
    or at the hard cap; always ``[0, ..., len(text)]``, strictly increasing."""
    if not text:
        return [0, 0]
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    starts: list[int] = []
    position = 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    count = len(lines)
    blank = [not line.strip(_RUST_WHITESPACE) for line in lines]
    good = [_good_start(line) for line in lines]

    def first_good(i: int) -> int | None:
        return next((j for j in range(i, min(i + _NUDGE, count)) if good[j]), None)

    offsets, last, i = [0], 0, 0
    while i < count:
        gap = i - last
        if gap >= min_lines and not blank[i] and blank[i - 1]:
            found = i if good[i] else first_good(i)
            target = i if found is None else found
            if count - target >= min_lines and starts[target] > offsets[-1]:
                offsets.append(starts[target])
                last, i = target, target + 1
                continue
        if gap >= max_lines:
            found = first_good(i)
            target = i if found is None else found
            if starts[target] > offsets[-1]:
                offsets.append(starts[target])
                last, i = target, target + 1
                continue
        i += 1
    if offsets[-1] != len(text):
        offsets.append(len(text))
    return offsets


def compute_marker_offsets(text: str) -> list[int]:
    """V0306/V0316/V0317 offsets (3, 8)."""
    return compute_marker_offsets_with_limits(text, *V0316_LIMITS)


def compute_marker_offsets_v0318(text: str) -> list[int]:
    """V0318/V0327/V0420/V0608 offsets (6, 16)."""
    return compute_marker_offsets_with_limits(text, *V0318_LIMITS)


def marker_tag(number: int) -> str:
    return f"{MARKER_PREFIX}{number}{TAG_SUFFIX}"


def marker_tag_relative(delta: int) -> str:
    """§8.4: ``<|marker-0|>``, ``<|marker+d|>``, ``<|marker-d|>``."""
    if delta == 0:
        return "<|marker-0|>"
    return f"<|marker{'+' if delta > 0 else '-'}{abs(delta)}|>"


def cursor_block_index(offsets: Sequence[int], cursor: int | None) -> int:
    """§8.4: the block ``k`` with ``o[k] <= cursor < o[k+1]``, else the last one."""
    position = 0 if cursor is None else cursor
    for k in range(len(offsets) - 1):
        if offsets[k] <= position < offsets[k + 1]:
            return k
    return max(len(offsets) - 2, 0)


def nearest_marker_number(offsets: Sequence[int], cursor: int | None) -> int:
    """§8.5: the 1-based marker nearest the cursor; ties go to the earlier one."""
    position = 0 if cursor is None else cursor
    best = min(range(len(offsets)), key=lambda k: (abs(offsets[k] - position), k))
    return best + 1


def _with_cursor(text: str, cursor: int | None) -> str:
    if cursor is None:
        return text
    return text[:cursor] + CURSOR_MARKER + text[cursor:]


def _blocks_with_cursor(text: str, offsets: Sequence[int], cursor: int | None) -> list[str]:
    """The blocks, the cursor inserted in the first with ``o[i] <= cursor <= o[i+1]``."""
    blocks: list[str] = []
    placed = cursor is None
    for k in range(len(offsets) - 1):
        block = text[offsets[k] : offsets[k + 1]]
        if not placed and cursor is not None and offsets[k] <= cursor <= offsets[k + 1]:
            block = _with_cursor(block, cursor - offsets[k])
            placed = True
        blocks.append(block)
    return blocks


def write_editable_with_markers(section: str, text: str, cursor: int | None, offsets: Sequence[int]) -> str:
    """§8.2 V0306 writer: ``section`` (what is written so far) plus the tags, each on
    its own line, each block after a newline. The newline check looks at the whole
    section, so none follows ``<<<<<<< CURRENT\\n``."""
    blocks = _blocks_with_cursor(text, offsets, cursor)
    out = section
    for i in range(len(offsets)):
        if out and not out.endswith("\n"):
            out += "\n"
        out += marker_tag(i + 1)
        if i < len(blocks):
            out += "\n" + blocks[i]
    return out


def write_editable_byte_exact(text: str, cursor: int | None, offsets: Sequence[int], tag: Callable[[int], str]) -> str:
    """§8.2 byte-exact writer (V0316/V0317/V0318): tag, block, tag, ..., no newlines
    added; ``tag(i)`` gives the text of the i-th (0-based) tag."""
    blocks = _blocks_with_cursor(text, offsets, cursor)
    parts: list[str] = []
    for i in range(len(offsets)):
        parts.append(tag(i))
        if i < len(blocks):
            parts.append(blocks[i])
    return "".join(parts)


def strip_marker_tags(text: str) -> str:
    """§8.3: drop every ``<|marker_…|>`` tag and one ``\\n`` right after it; an
    unterminated tag prefix is kept as text."""
    out: list[str] = []
    position = 0
    while True:
        start = text.find(MARKER_PREFIX, position)
        if start < 0:
            break
        end = text.find(TAG_SUFFIX, start + len(MARKER_PREFIX))
        if end < 0:
            break
        out.append(text[position:start])
        position = end + len(TAG_SUFFIX)
        if text.startswith("\n", position):
            position += 1
    out.append(text[position:])
    return "".join(out)


def _tag_number(text: str, tag_start: int, which: str) -> tuple[int, int]:
    """(number, end of tag) of the ``<|marker_N|>`` at ``tag_start``, or Zed's error."""
    number_start = tag_start + len(MARKER_PREFIX)
    number_end = text.find(TAG_SUFFIX, number_start)
    if number_end < 0:
        raise MarkerError(f"malformed {which} marker tag")
    number = parse_usize(text[number_start:number_end])
    if number is None:
        raise MarkerError(f"{which} marker number is not a valid integer")
    return number, number_end + len(TAG_SUFFIX)


def extract_marker_span(text: str) -> tuple[int, int, str]:
    """§8.3 (V0306): the first and last tag numbers and the content between them,
    minus one leading ``\\n``, inner tags stripped."""
    first = text.find(MARKER_PREFIX)
    if first < 0:
        raise MarkerError("no start marker found in output")
    start_number, first_end = _tag_number(text, first, "start")
    last = text.rfind(MARKER_PREFIX)
    if last < 0:
        raise MarkerError("no end marker found in output")
    end_number, _ = _tag_number(text, last, "end")
    if start_number == end_number:
        raise MarkerError(f"start and end markers are the same (marker {start_number})")
    content_start = first_end + (1 if text.startswith("\n", first_end) else 0)
    content = text[content_start : max(last, content_start)]
    return start_number, end_number, strip_marker_tags(content)


Tag = tuple[int, int, int]  # (value, tag start, tag end)


def collect_marker_tags(text: str) -> list[Tag]:
    """Every ``<|marker_N|>`` with a valid ``usize`` N; other tags stay text."""
    return _collect(text, MARKER_PREFIX, parse_usize)


_SIGNED: Final = re.compile(r"[+-]?[0-9]+")
_I64 = 2**63


def _parse_isize(text: str) -> int | None:
    """Rust's ``isize::from_str`` (64-bit): optional sign, ASCII digits."""
    if not _SIGNED.fullmatch(text):
        return None
    value = int(text)
    return value if -_I64 <= value < _I64 else None


def collect_relative_marker_tags(text: str) -> list[Tag]:
    """§8.4: ``<|marker±d|>`` tags; numbered ones (``_3``) do not parse and are skipped."""
    return _collect(text, RELATIVE_PREFIX, _parse_isize)


def _collect(text: str, prefix: str, parse: Callable[[str], int | None]) -> list[Tag]:
    tags: list[Tag] = []
    position = 0
    while True:
        start = text.find(prefix, position)
        if start < 0:
            return tags
        value_start = start + len(prefix)
        value_end = text.find(TAG_SUFFIX, value_start)
        if value_end >= 0:
            value = parse(text[value_start:value_end])
            if value is not None:
                tags.append((value, start, value_end + len(TAG_SUFFIX)))
                position = value_end + len(TAG_SUFFIX)
                continue
        position = value_start


def _numbered_boundaries(offsets: Sequence[int], start: int, end: int) -> tuple[int, int]:
    """Marker numbers to offsets with Zed's errors (§9.2 step 3)."""
    if start == 0 or end == 0:
        raise MarkerError("marker numbers are 1-indexed")
    if start > len(offsets):
        raise MarkerError("start marker number out of range")
    if end > len(offsets):
        raise MarkerError("end marker number out of range")
    start_offset, end_offset = offsets[start - 1], offsets[end - 1]
    if start_offset > end_offset:
        raise MarkerError("start marker must come before end marker")
    return start_offset, end_offset


def apply_marker_span(old: str, output: str) -> str:
    """§9.2 (V0306): replace the span between the first and last tag, the content's
    final newline matched to the old span's."""
    start_number, end_number, content = extract_marker_span(output)
    offsets = compute_marker_offsets(old)
    start, end = _numbered_boundaries(offsets, start_number, end_number)
    old_span = old[start:end]
    if old_span.endswith("\n"):
        if content and not content.endswith("\n"):
            content += "\n"
    elif content.endswith("\n"):
        content = content[:-1]
    return old[:start] + content + old[end:]


def _check_tags(tags: list[Tag]) -> None:
    if not tags:
        raise MarkerError("no marker tags found in output")
    if len(tags) == 1:
        raise MarkerError("only one marker tag found in output, expected at least two")


def _between_tags(output: str, tags: list[Tag]) -> str:
    """§9.3 step 4: the text between consecutive tags, tags removed, no normalization."""
    return "".join(output[tags[k][2] : tags[k + 1][1]] for k in range(len(tags) - 1))


def _apply_numbered(old: str, output: str, offsets: Sequence[int]) -> str:
    tags = collect_marker_tags(output)
    _check_tags(tags)
    if tags[0][0] == tags[-1][0]:
        return old
    start, end = _numbered_boundaries(offsets, tags[0][0], tags[-1][0])
    return old[:start] + _between_tags(output, tags) + old[end:]


def apply_marker_span_v0316(old: str, output: str) -> str:
    """§9.3 byte-exact, V0316 offsets; a repeated tag means no edit."""
    return _apply_numbered(old, output, compute_marker_offsets(old))


def apply_marker_span_v0318(old: str, output: str) -> str:
    """§9.3 byte-exact, V0318 offsets (also V0327, V0420, V0608)."""
    return _apply_numbered(old, output, compute_marker_offsets_v0318(old))


def apply_marker_span_v0317(old: str, output: str, cursor_in_old: int | None) -> str:
    """§9.3 with relative tags: tag ``d`` is offset ``anchor + d``, the anchor being
    the cursor's block in the old text."""
    tags = collect_relative_marker_tags(output)
    _check_tags(tags)
    if tags[0][0] == tags[-1][0]:
        return old
    offsets = compute_marker_offsets(old)
    anchor = cursor_block_index(offsets, cursor_in_old)

    def resolve(delta: int, which: str) -> int:
        index = anchor + delta
        if index < 0:
            raise MarkerError("relative marker maps before first marker")
        if index >= len(offsets):  # as Zed: the numbered tag's error (§9.3 step 3)
            raise MarkerError(f"{which} marker number out of range")
        return offsets[index]

    start, end = resolve(tags[0][0], "start"), resolve(tags[-1][0], "end")
    if start > end:
        raise MarkerError("start marker must come before end marker")
    return old[:start] + _between_tags(output, tags) + old[end:]


# -- §8.5 training encoders -------------------------------------------------------


def _newline_terminated(text: str) -> str:
    return text + "\n" if text and not text.endswith("\n") else text


def _common_prefix(a: bytes, b: bytes) -> int:
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return n


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    n = 0
    while n < limit and a[len(a) - 1 - n] == b[len(b) - 1 - n]:
        n += 1
    return n


def _char_to_byte(text: str, offsets: Sequence[int]) -> list[int]:
    return [len(text[:o].encode("utf-8")) for o in offsets]


def _choose_markers(old_b: bytes, new_b: bytes, offs: Sequence[int], adjust: bool) -> tuple[int, int, int, int]:
    """(start marker, end marker, common prefix, common suffix) of §7.7 step 2:
    the last marker at or before the change, the first at or after its end."""
    prefix = _common_prefix(old_b, new_b)
    suffix = _common_suffix(old_b, new_b, min(len(old_b), len(new_b)) - prefix)
    change_end = len(old_b) - suffix
    start = max(k for k in range(len(offs)) if offs[k] <= prefix)
    end = next((k for k in range(len(offs)) if offs[k] >= change_end), len(offs) - 1)
    if adjust and end < start:
        # only for an empty old text ([0, 0]); not in the spec: keep one block
        end = start
    if adjust and start == end:
        if end + 1 < len(offs):
            end += 1
        elif start > 0:
            start -= 1
    return start, end, prefix, suffix


def _encode_span(
    old: str,
    new: str,
    cursor_in_new: int | None,
    offsets: list[int],
    tag: Callable[[int], str],
) -> str:
    """The changed blocks of ``old`` rewritten as ``new`` with tags between them
    (§8.5 steps 1–5), computed on UTF-8 bytes as Zed does."""
    old_b, new_b = old.encode("utf-8"), new.encode("utf-8")
    offs = _char_to_byte(old, offsets)
    start, end, prefix, suffix = _choose_markers(old_b, new_b, offs, True)
    change_end = len(old_b) - suffix
    o_s, o_e = offs[start], offs[end]
    span = new_b[o_s : len(new_b) - (len(old_b) - o_e)]
    cursor_b = None
    if cursor_in_new is not None:
        cursor_b = len(new[:cursor_in_new].encode("utf-8")) - o_s
    old_mid = change_end - prefix
    new_mid = (len(new_b) - suffix) - prefix

    def mapped(old_pos: int) -> int:
        """An old block edge (absolute) as a position in the new span."""
        if old_pos <= prefix:
            return old_pos - o_s
        if old_pos >= change_end:
            return len(span) - (o_e - old_pos)
        scaled = prefix + ((old_pos - prefix) * new_mid) // max(old_mid, 1)
        return scaled - o_s

    out: list[bytes] = []
    previous = 0
    placed = cursor_b is None
    for k in range(start, end):
        out.append(tag(k).encode("utf-8"))
        if k == end - 1:
            edge = len(span)
        else:
            edge = min(max(mapped(offs[k + 1]), 0), len(span))
            if edge > 0 and span[edge - 1 : edge] != b"\n":
                newline = span.find(b"\n", edge)
                edge = len(span) if newline < 0 else newline + 1
            edge = max(edge, previous)
        block = span[previous:edge]
        if not placed and cursor_b is not None and previous <= cursor_b <= edge:
            at = cursor_b - previous
            block = block[:at] + CURSOR_MARKER.encode("utf-8") + block[at:]
            placed = True
        out.append(block)
        previous = edge
    out.append(tag(end).encode("utf-8"))
    return b"".join(out).decode("utf-8")


def encode_from_old_and_new(old: str, new: str, cursor_in_new: int | None, end_marker: str) -> str:
    """§8.5, the V0306 encoder: ``NO_EDITS\\n`` or one newline-framed span (no
    equal-marker adjustment, so an edit inside one block is not encodable)."""
    old, new = _newline_terminated(old), _newline_terminated(new)
    if old == new:
        return "NO_EDITS\n" + end_marker
    offsets = compute_marker_offsets(old)
    start, end, _, _ = _choose_markers(old.encode("utf-8"), new.encode("utf-8"), _char_to_byte(old, offsets), False)
    # marker offsets are line starts, hence the same edges in characters
    span_start, span_end = offsets[start], len(new) - (len(old) - offsets[end])
    span = new[span_start:span_end]
    if cursor_in_new is not None and span_start <= cursor_in_new <= span_end:
        span = _with_cursor(span, cursor_in_new - span_start)
    if span and not span.endswith("\n"):
        span += "\n"
    return f"{marker_tag(start + 1)}\n{span}{marker_tag(end + 1)}\n{end_marker}"


def _encode_numbered(old: str, new: str, cursor_in_new: int | None, end_marker: str, limits: tuple[int, int]) -> str:
    old, new = _newline_terminated(old), _newline_terminated(new)
    offsets = compute_marker_offsets_with_limits(old, *limits)
    if old == new:
        tag = marker_tag(nearest_marker_number(offsets, cursor_in_new))
        return f"{tag}{tag}{end_marker}"
    body = _encode_span(old, new, cursor_in_new, offsets, lambda k: marker_tag(k + 1))
    return body + end_marker


def encode_from_old_and_new_v0316(old: str, new: str, cursor_in_new: int | None, end_marker: str) -> str:
    """§8.5 for V0316: the answer a perfect model gives, byte-exact tags."""
    return _encode_numbered(old, new, cursor_in_new, end_marker, V0316_LIMITS)


def encode_from_old_and_new_v0318(old: str, new: str, cursor_in_new: int | None, end_marker: str) -> str:
    """§8.5 for V0318 (and V0327/V0420/V0608)."""
    return _encode_numbered(old, new, cursor_in_new, end_marker, V0318_LIMITS)


def encode_from_old_and_new_v0317(
    old: str,
    new: str,
    cursor_in_old: int | None,
    cursor_in_new: int | None,
    end_marker: str,
) -> str:
    """§8.5 for V0317: relative tags anchored at the old cursor's block."""
    old, new = _newline_terminated(old), _newline_terminated(new)
    if old == new:
        return f"<|marker-0|><|marker-0|>{end_marker}"
    offsets = compute_marker_offsets(old)
    anchor = cursor_block_index(offsets, cursor_in_old)
    body = _encode_span(old, new, cursor_in_new, offsets, lambda k: marker_tag_relative(k - anchor))
    return body + end_marker
