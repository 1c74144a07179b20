"""``--editpred-accept``: make a failing item's prediction one more expected patch.

A reviewer who judges a "failed" prediction correct should not have to copy a diff
by hand. The prediction is added to the example's markdown file as a new fenced
block of the ``## Expected Patch`` section; everything else in the file stays byte
for byte, so the change is a clean, reviewable insertion in ``git diff``.

Where the block goes:

* after the last fenced block of the ``## Expected Patch`` section(s);
* under the ``## Expected Patch`` heading, if it has no block yet;
* in a new ``## Expected Patch`` section before ``## Rejected Patch`` (which
  must stay last, where Zed's ``to_markdown`` puts it), or at the end of the file.

The file is written atomically (a temporary file in the same directory, then
``os.replace``), and only after the new text has been parsed back and found to be
the old example plus this one patch: an example file is never left half-written
or silently changed in another way.

Only markdown is edited: a ``.json``/``.jsonl`` example holds its patches in JSON
strings, and rewriting JSON would reformat the whole file.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._files import write_atomic
from .._cursor import MARKER
from .._example import Example
from .._exceptions import ConfigError
from .._markdown import _fence, from_markdown

__all__ = ["accept_prediction", "cursor_marker_line", "with_cursor_line"]

_FRONT_MATTER = "+++\n"


def cursor_marker_line(column: int) -> str:
    """The ``#  ^[CURSOR_POSITION]`` line for a byte ``column`` of the line above.

    The ``#`` stands in for the diff line's one-character prefix, so the ``^``
    sits at byte ``column + 1`` of the marker line (zed-format.md §4.1 step 2).
    """
    if column < 0:
        raise ValueError(f"a cursor column cannot be negative, got {column}")
    return "#" + " " * column + "^" + MARKER


def with_cursor_line(patch: str, after_line: int, column: int) -> str:
    """``patch`` with a cursor line inserted after its 0-based line ``after_line``.

    That line must be a context or ``+`` line (Zed anchors the cursor to the last
    such line above the marker); ``column`` is a UTF-8 byte column of its content
    (without the diff prefix).
    """
    if MARKER in patch:
        raise ValueError("the patch already has a cursor line")
    lines = patch.split("\n")
    if patch.endswith("\n"):
        lines.pop()
    if not 0 <= after_line < len(lines):
        raise ValueError(f"line {after_line} is outside the patch's {len(lines)} lines")
    anchor = lines[after_line]
    header = anchor.startswith("+++") and anchor[3:4].isspace()
    if not (anchor[:1] in (" ", "") or (anchor[:1] == "+" and not header)):
        raise ValueError(f"the cursor must follow a context or '+' line, not {anchor!r}")
    content = anchor[1:]
    if column > len(content.encode()):
        raise ValueError(f"column {column} is past the end of {anchor!r}")
    lines.insert(after_line + 1, cursor_marker_line(column))
    return "\n".join(lines) + ("\n" if patch.endswith("\n") else "")


def _line_starts(text: str) -> list[int]:
    """Character offset of the start of every line, plus one past the end."""
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def _inline_text(token: Any) -> str:
    return "".join(c.content for c in token.children or () if c.type in ("text", "text_special"))


def _insertion_point(text: str, path: Path) -> tuple[int, bool]:
    """``(character offset, needs a heading)`` where the new block goes.

    Walks the same CommonMark tokens as :func:`from_markdown`, so a ``## Expected
    Patch`` inside a fence or a fence inside a list is seen exactly as Zed sees it.
    """
    from markdown_it import MarkdownIt

    end = text.find(_FRONT_MATTER, len(_FRONT_MATTER))
    body_start = end + len(_FRONT_MATTER) if text.startswith(_FRONT_MATTER) and end != -1 else 0
    first_line = text[:body_start].count("\n")
    tokens = MarkdownIt("commonmark").parse(text[body_start:])
    starts = _line_starts(text)

    def offset(line: int) -> int:  # a 0-based line of the body -> offset in text
        return starts[min(first_line + line, len(starts) - 1)]

    section: bytes | None = None
    last_fence: int | None = None
    expected_heading: int | None = None
    rejected_heading: int | None = None
    for index, token in enumerate(tokens):
        if token.map is None:
            continue
        if token.type == "heading_open" and token.tag == "h2":
            # ASCII case-insensitive, as Zed (and from_markdown) compare titles.
            section = _inline_text(tokens[index + 1]).encode().lower()
            if section == b"expected patch" and expected_heading is None:
                expected_heading = offset(token.map[1])
            if section == b"rejected patch" and rejected_heading is None:
                rejected_heading = offset(token.map[0])
        elif token.type == "fence" and section == b"expected patch":
            last_fence = offset(token.map[1])
    if last_fence is not None:
        return last_fence, False
    if expected_heading is not None:
        return expected_heading, False
    if rejected_heading is not None:
        return rejected_heading, True
    return len(text), True


def _refuse(path: Path, reason: str) -> ConfigError:
    return ConfigError(
        reason,
        fix="Add the expected patch to the example by hand (only markdown examples are edited).",
        path=path,
    )


def accept_prediction(
    path: str | os.PathLike[str],
    predicted_patch: str,
    cursor_line: tuple[int, int] | None = None,
) -> int | None:
    """Add ``predicted_patch`` to the example at ``path`` as a new expected patch.

    ``cursor_line`` is ``(index, column)``: put a cursor line after the patch's
    0-based line ``index`` (a context or ``+`` line), at UTF-8 byte ``column`` of
    that line's content (see :func:`with_cursor_line`). Pass None to write the patch
    as it is, e.g. one that already carries its ``#  ^[CURSOR_POSITION]`` line, or
    none (then the cursor is not scored for this candidate).

    Returns the 1-based line of the new block's opening fence, or None when the
    example already has exactly this expected patch (nothing is written).
    Raises :class:`ConfigError` for a path that is not a markdown example, and the
    example's own errors when the file does not parse.
    """
    where = Path(path)
    if where.suffix.lower() != ".md":
        raise _refuse(where, f"cannot accept a prediction into {where.name}: only .md examples are edited")
    patch = predicted_patch if cursor_line is None else with_cursor_line(predicted_patch, *cursor_line)
    data = where.read_bytes()
    text = data.decode("utf-8")
    example = from_markdown(text, where)
    content = patch if patch.endswith("\n") or not patch else patch + "\n"  # as a fence holds it
    if content in example.expected_patches:
        return None

    at, heading = _insertion_point(text, where)
    block = _fence(patch, "diff")
    before, after = text[:at], text[at:]
    lead = "" if not before or before.endswith("\n") else "\n"
    if before and not before.endswith("\n\n") and before.strip():
        lead += "\n"
    insert = lead + ("## Expected Patch\n\n" if heading else "") + block
    if after and not after.startswith("\n"):
        insert += "\n"
    new_text = before + insert + after
    fence_line = (before + lead + ("## Expected Patch\n\n" if heading else "")).count("\n") + 1

    written = from_markdown(new_text, where)
    same_rest = _without_patches(written) == _without_patches(example)
    if written.expected_patches != (*example.expected_patches, content) or not same_rest:
        raise _refuse(where, "adding the expected patch would change the example in another way")
    _write_atomically(where, new_text.encode("utf-8"))
    return fence_line


def _without_patches(example: Example) -> Example:
    return replace(example, expected_patches=())


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step, keeping its permissions."""
    write_atomic(path, data, mode=path.stat().st_mode & 0o7777)
