"""Line endings of whole diffs, where a diff's bytes matter as written: ``git apply``
and markdown.

Text entering a buffer is normalised line by line by the diff engine
(:mod:`._diff`); two places see a diff's bytes before that:

* the uncommitted diff goes through real ``git apply``, which matches context
  lines byte for byte. A diff with ``\\n`` endings over a file stored with
  ``\\r\\n`` (any diff read from markdown, which cannot hold ``\\r``) is retried in
  the file's own style (:func:`in_file_styles`), as Zed saves an edited buffer
  with the line ending its file had;
* markdown reads a lone ``\\r`` as a line break, which would end a diff line in
  the middle and make its rest a garbage line. :func:`split_lone_carriage_returns`
  writes such a line as the lines a buffer holds, and the hunk's counts with them.

Both walk a diff the way ``git apply`` reads it: after a ``@@ -a,b +c,d @@`` header,
the next lines are the hunk's by its counts (so a deleted ``-- x`` line is content,
not a file header); without counts (Zed's tolerant ``@@ @@``), each line is read by
:func:`~._diff.classify`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ._diff import DEV_NULL, Kind, classify

__all__ = ["in_file_styles", "split_lone_carriage_returns"]

_COUNTS = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_LINES = re.compile(r"[^\n]*\n|[^\n]+$")

#: What a line of a diff is, for these two rewrites.
_OLD_PATH, _HEADER, _CONTENT, _OTHER = "old-path", "header", "content", "other"


def _walk(lines: list[str]) -> Iterator[tuple[str, str]]:
    """``(role, value)`` per line: the old path of a ``---`` line, or ``""``."""
    old = new = 0  # lines of the hunk still to come, by its header's counts
    in_section = False
    for raw in lines:
        body = raw[:-1] if raw.endswith("\n") else raw
        body = body[:-1] if body.endswith("\r") else body
        if old > 0 or new > 0:
            first = body[:1]
            if first in (" ", ""):
                old, new = old - 1, new - 1
                yield _CONTENT, ""
                continue
            if first in ("-", "+"):
                old, new = (old - 1, new) if first == "-" else (old, new - 1)
                yield _CONTENT, ""
                continue
            if first == "\\":
                yield _OTHER, ""
                continue
            old = new = 0  # a short hunk: read the line as any other
        parsed = classify(body)
        if parsed.kind is Kind.OLD_PATH:
            in_section = True
            yield _OLD_PATH, parsed.text
        elif parsed.kind is Kind.HUNK_HEADER:
            counts = _COUNTS.match(body)
            if counts is not None:
                old, new = int(counts.group(2) or 1), int(counts.group(4) or 1)
            yield _HEADER, ""
        elif parsed.kind in (Kind.CONTEXT, Kind.DELETION, Kind.ADDITION) and in_section:
            yield _CONTENT, ""
        else:
            if parsed.kind is Kind.GARBAGE:
                in_section = False
            yield _OTHER, ""


def in_file_styles(diff: str, style_of: Callable[[str], str | None]) -> str:
    """``diff`` with the content lines of each file section ending as its file's lines
    do: ``\\r\\n`` where ``style_of(old path)`` says the file is stored with ``\\r\\n``
    (lines already ending so are kept). ``style_of`` gives None for a file it does
    not know, whose lines are kept as written."""
    lines = _LINES.findall(diff)
    out: list[str] = []
    crlf = False
    for raw, (role, value) in zip(lines, _walk(lines)):
        if role == _OLD_PATH:
            crlf = value != DEV_NULL and style_of(value) == "\r\n"
        elif role == _CONTENT and crlf and raw.endswith("\n") and not raw.endswith("\r\n"):
            raw = raw[:-1] + "\r\n"
        out.append(raw)
    return "".join(out)


def split_lone_carriage_returns(diff: str) -> str:
    """``diff`` with each content line whose text holds a lone ``\\r`` written as the
    lines that ``\\r`` makes in a buffer, each with the line's own prefix (``+a\\rb``
    becomes ``+a`` and ``+b``), and the counts of its hunk's header grown to match.
    A file's last ``\\r`` (a content line ending ``\\r\\n``, then a ``\\ No newline``
    line ending ``\\n``) is its last line break: the line ends ``\\n`` and the
    ``\\ No newline`` line goes. Other line ends (``\\r\\n`` included) are kept. A
    diff without a lone ``\\r`` is returned as it is."""
    if "\r" not in diff.replace("\r\n", ""):
        return diff
    lines = _LINES.findall(diff)
    out: list[str] = []
    header: int | None = None  # the index in ``out`` of the current hunk's header
    grown = [0, 0]
    skip = -1  # a "\ No newline" line the line before it made untrue
    for index, (raw, (role, _)) in enumerate(zip(lines, _walk(lines))):
        if index == skip:
            continue
        if role in (_HEADER, _OLD_PATH):
            _grow(out, header, grown)
            header, grown = (len(out) if role == _HEADER else None), [0, 0]
        end = "\r\n" if raw.endswith("\r\n") else "\n" if raw.endswith("\n") else ""
        body = raw[: len(raw) - len(end)]
        if not end and body.endswith("\r"):  # the last line: its "\r" is read as its end
            body, end = body[:-1], "\r"
        elif role == _CONTENT and end == "\r\n" and _no_newline_after(lines, index):
            end, skip = "\n", index + 1  # the file ends with that "\r": a line break (see _diff)
        if role != _CONTENT or "\r" not in body[1:]:
            out.append(body + end)
            continue
        prefix, pieces = body[:1], body[1:].split("\r")
        out.extend(prefix + piece + "\n" for piece in pieces[:-1])
        out.append(prefix + pieces[-1] + end)
        more = len(pieces) - 1
        grown[0] += more if prefix != "+" else 0
        grown[1] += more if prefix != "-" else 0
    _grow(out, header, grown)
    return "".join(out)


def _no_newline_after(lines: list[str], index: int) -> bool:
    """A ``\\ No newline`` line with a plain ``\\n`` end follows line ``index``."""
    after = lines[index + 1] if index + 1 < len(lines) else ""
    return after.startswith("\\") and not after.endswith("\r\n")


def _grow(out: list[str], header: int | None, grown: list[int]) -> None:
    """The header at ``out[header]`` with its counts grown by ``grown`` (old, new)."""
    if header is None or grown == [0, 0]:
        return
    line = out[header]
    counts = _COUNTS.match(line)
    if counts is None:
        return
    old = int(counts.group(2) or 1) + grown[0]
    new = int(counts.group(4) or 1) + grown[1]
    head = f"@@ -{counts.group(1)},{old} +{counts.group(3)},{new} @@"
    out[header] = head + line[counts.end() :]
