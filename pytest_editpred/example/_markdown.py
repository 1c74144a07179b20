"""Read and write examples in Zed's markdown format (zed-format.md §1).

Reading follows Zed's ``ExampleSpec::from_markdown`` event by event, on
markdown-it-py's CommonMark tokens (Zed uses pulldown-cmark, also CommonMark), with
four deliberate differences, each an error where Zed is silent or loses data:

* bad or missing front matter is a :class:`FrontMatterError` (Zed drops it);
* ``## Reasoning`` is read back (Zed writes it but cannot read it);
* a ``##`` heading that is no section is an :class:`UnknownHeadingError` naming the
  nearest section (Zed reads it as "other" and drops the blocks under it, so a typo
  such as ``## Expected Patches`` silently made an example that expects no change);
* several cursor markers are refused (see :mod:`._cursor`).
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._exceptions import (
    EditPredError,
    FormatError,
    FrontMatterError,
    HeadingLevelError,
    IndentedCodeBlockError,
    MissingCursorBlockError,
    UnknownHeadingError,
)
from .._text import line_starts
from ._example import ACCEPTED_PREDICTION_MARKER, Example, RecentFile, Source

__all__ = ["expected_patch_insertion_point", "fence", "from_markdown", "looks_like_example", "to_markdown"]

FRONT_MATTER = "+++\n"

_SECTIONS = {
    b"uncommitted diff": "uncommitted_diff",
    b"recently opened files": "recently_opened_files",
    b"recently viewed files": "recently_viewed_files",
    b"edit history": "edit_history",
    b"cursor position": "cursor_position",
    b"expected patch": "expected_patch",
    b"rejected patch": "rejected_patch",
    b"reasoning": "reasoning",
}
#: The headings as Zed's ``to_markdown`` writes them, for messages.
_HEADINGS = (
    "Uncommitted Diff",
    "Recently Opened Files",
    "Recently Viewed Files",
    "Edit History",
    "Cursor Position",
    "Expected Patch",
    "Rejected Patch",
    "Reasoning",
)

_md: Any = None


def _parser() -> Any:
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        # Only headings' inline text is read: inline parsing, the most of a parse,
        # is done for them alone (:func:`_inline_text`).
        _md = MarkdownIt("commonmark").disable(["inline", "text_join"])
    return _md


def _toml_loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib.loads(text)


def looks_like_example(path: Path) -> bool:
    """A markdown file is an example when its first line is ``+++``.

    Only the first 64 bytes are read: a 50 MB file without a newline must not be
    read whole just to be recognised (its size is checked when it is loaded)."""
    from .._files import open_regular

    try:
        with open_regular(path) as handle:  # a FIFO named x.md must not hang the walk
            first = handle.readline(64)
            if len(first) == 64 and not first.endswith(b"\n"):
                return False
            return first.rstrip(b"\r\n") in (b"+++", b"\xef\xbb\xbf+++")
    except OSError:
        return False


def _front_matter(text: str, path: str | None) -> tuple[dict[str, Any], str, int]:
    """Split and check the front matter: ``(fields, rest, lines before rest)``."""
    if not text.startswith(FRONT_MATTER):
        if text.startswith("\ufeff"):
            reason = "the file starts with a byte-order mark; Zed's format needs '+++' at byte 0"
            fix = "Save the file as UTF-8 without a BOM."
        elif text.startswith("+++\r\n"):
            reason = "the file has CRLF line endings; Zed's format needs LF ('+++\\n')"
            fix = "Convert the file to LF line endings."
        else:
            reason = "no front matter: the file must start with a '+++' line"
            fix = None
        raise FrontMatterError(reason, fix=fix, path=path, line=1)
    end = text.find(FRONT_MATTER, len(FRONT_MATTER))
    if end == -1:
        raise FrontMatterError("the front matter has no closing '+++' line", path=path, line=1)
    body = text[len(FRONT_MATTER) : end]
    try:
        fields = _toml_loads(body)
    except Exception as error:  # tomllib.TOMLDecodeError, by any name
        # tomllib counts lines from the front matter's first line, the file from its
        # '+++': one number, the file's, in the location; the message keeps the column.
        message = str(error)
        match = re.search(r"\s*\(at line (\d+), column (\d+)\)", message)
        if match:
            line = 1 + int(match.group(1))
            message = f"{message[: match.start()]}{message[match.end() :]} (column {match.group(2)})"
        else:
            at_end = re.search(r"\s*\(at end of document\)", message)
            line = 2 + body.count("\n") - (1 if body.endswith("\n") else 0) if at_end else 2
            if at_end:
                message = message[: at_end.start()] + message[at_end.end() :] + " (at the end of the front matter)"
        raise FrontMatterError(f"the front matter is not valid TOML: {message}", path=path, line=line) from None
    for key in ("repository_url", "revision"):
        if key not in fields:
            raise FrontMatterError(f"the front matter has no '{key}'", path=path, line=1)
        if not isinstance(fields[key], str) or not fields[key].strip():
            raise FrontMatterError(f"'{key}' must be a non-empty string", path=path, line=_key_line(body, key))
    tags = fields.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise FrontMatterError("'tags' must be a list of strings", path=path, line=_key_line(body, "tags"))
    flag = fields.get("uncommitted_diff_requires_edit_history_rollback", False)
    if not isinstance(flag, bool):
        raise FrontMatterError(
            "'uncommitted_diff_requires_edit_history_rollback' must be true or false",
            path=path,
            line=_key_line(body, "uncommitted_diff_requires_edit_history_rollback"),
        )
    return (fields, *_body(text))


def _body(text: str) -> tuple[str, int]:
    """The markdown after a closed front matter, and the number of lines before it."""
    rest_start = text.find(FRONT_MATTER, len(FRONT_MATTER)) + len(FRONT_MATTER)
    rest = text[rest_start:]
    stripped = rest.lstrip()
    return stripped, text[: rest_start + len(rest) - len(stripped)].count("\n")


def _key_line(body: str, key: str) -> int:
    for number, line in enumerate(body.split("\n"), start=2):
        if line.lstrip().startswith(key):
            return number
    return 1


def _inline_text(token: Any, env: dict[str, Any]) -> str:
    """The heading's text as Zed sees it: Text events only (inline code is dropped).
    ``env`` holds the document's link references, which inline parsing resolves."""
    parts = []
    md = _parser()
    for child in md.inline.parse(token.content, md, env, []):
        if child.type in ("text", "text_special"):
            parts.append(child.content)
    return "".join(parts)


def _unknown_heading(heading: str, source: str, markup: str, where: str | None, line: int) -> UnknownHeadingError:
    """The error for a ``##`` heading that is no section, naming the nearest one.

    ``heading`` is the title as Zed reads it (its text, inline code dropped),
    ``source`` as written. Titles compare ASCII case-insensitively, as Zed's do, so
    the nearest is looked for among the lower-cased ones and named as Zed writes it.
    """
    from .._clip import escape_controls

    text = escape_controls(" ".join(heading.split()))
    written = escape_controls(" ".join(source.split()))
    setext = markup == "-"  # a paragraph line with a '---' line right under it
    what = f"'{written}' (a heading: the line under it is '---')" if setext else f"'## {written}'"
    if text != written:
        what += f", read as '{text}'"
    known = {name.lower(): name for name in _HEADINGS}
    nearest = difflib.get_close_matches((text or written).lower(), list(known), n=1, cutoff=0.6)
    hint = f"did you mean '## {known[nearest[0]]}'?" if nearest else "it names none of Zed's sections"
    reason = f"unknown heading {what}: {hint} (Zed's ep would drop the blocks under it without a word)"
    fix = None
    if setext:
        fix = "Put a blank line above the '---' line (then it is a rule), or write the section as '## Name'."
    return UnknownHeadingError(reason, fix=fix, path=where, line=line)


def _parse_recent_files(text: str) -> tuple[RecentFile, ...]:
    files = []
    for raw in text.split("\n"):  # Zed's lines(): not at U+2028, U+0085, ... (splitlines)
        line = raw.strip()
        if not line:
            continue
        path, tab, offset = line.rpartition("\t")
        if not tab:
            files.append(RecentFile(line))
            continue
        try:
            files.append(RecentFile(path, int(offset.strip())))
        except ValueError:
            files.append(RecentFile(path))
    return tuple(files)


def from_markdown(text: str, path: str | Path | None = None) -> Example:
    """Parse one example. Every problem is an :class:`EditPredError` with a line."""
    where = str(path) if path is not None else None
    try:
        return _from_markdown(text, where)
    except EditPredError:
        raise
    except Exception as error:  # a bug or a parser surprise must still name the file
        raise FormatError(f"cannot read the example: {error!r}", path=where, line=1) from error


def _from_markdown(text: str, where: str | None) -> Example:
    fields, rest, offset = _front_matter(text, where)
    env: dict[str, Any] = {}
    tokens = _parser().parse(rest, env)
    lines = rest.split("\n")

    name = ""
    name_line: int | None = None
    section: str | None = None
    section_line: dict[str, int] = {}
    uncommitted_diff, uncommitted_line = "", None
    opened: tuple[RecentFile, ...] = ()
    viewed: tuple[RecentFile, ...] = ()
    history: list[str] = []
    history_blocks: list[tuple[int, int]] = []
    history_lines = 0
    cursor_path, cursor_position, cursor_line = "", "", None
    expected: list[str] = []
    expected_lines: list[int] = []
    rejected: str | None = None
    rejected_line: int | None = None
    reasoning: str | None = None
    reasoning_start: int | None = None
    paragraph = ""

    def line_of(token: Any) -> int:
        return offset + int(token.map[0]) + 1

    def end_reasoning(until: int) -> None:
        nonlocal reasoning, reasoning_start
        if reasoning_start is not None:
            reasoning = "\n".join(lines[reasoning_start:until]).strip()
            reasoning_start = None

    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "heading_open":
            paragraph = ""
            level = int(token.tag[1])
            if level in (1, 2):
                end_reasoning(token.map[0])
            if level == 1:
                name = _inline_text(tokens[index + 1], env)
                name_line = line_of(token)
            elif level == 2:
                heading = _inline_text(tokens[index + 1], env)
                section = _SECTIONS.get(heading.encode().lower())
                if section is None:
                    raise _unknown_heading(heading, tokens[index + 1].content, token.markup, where, line_of(token))
                section_line.setdefault(section, line_of(token))
                if section == "reasoning":
                    reasoning_start = token.map[1]
            elif level > 4:
                raise HeadingLevelError(f"Unexpected heading level: h{level}", path=where, line=line_of(token))
        elif kind == "paragraph_open":
            paragraph = ""
        elif kind == "inline" and tokens[index - 1].type == "paragraph_open":
            paragraph = token.content
        elif kind == "code_block":
            raise IndentedCodeBlockError("Unexpected indented codeblock", path=where, line=line_of(token))
        elif kind == "fence":
            accepted = paragraph.strip() == ACCEPTED_PREDICTION_MARKER
            paragraph = ""
            content = token.content
            body_line = line_of(token) + 1
            if section == "uncommitted_diff":
                uncommitted_diff, uncommitted_line = content, body_line
            elif section == "recently_opened_files":
                opened = _parse_recent_files(content)
            elif section == "recently_viewed_files":
                viewed = _parse_recent_files(content)
            elif section == "edit_history":
                if accepted:
                    history.append(ACCEPTED_PREDICTION_MARKER + "\n")
                    history_lines += 1
                history_blocks.append((history_lines + 1, body_line))
                history.append(content)
                history_lines += content.count("\n")
            elif section == "cursor_position":
                cursor_path, cursor_position, cursor_line = token.info.strip(), content, body_line
            elif section == "expected_patch":
                expected.append(content)
                expected_lines.append(body_line)
            elif section == "rejected_patch":
                rejected, rejected_line = content, body_line
        elif kind.endswith("_open"):
            paragraph = ""
    end_reasoning(len(lines))

    if not cursor_path or not cursor_position:
        if cursor_line is None:
            reason = "Missing cursor position codeblock"
        elif not cursor_path:
            reason = "Missing cursor position codeblock path: the fence has no info string"
        else:
            reason = "Missing cursor position codeblock content: the fence is empty"
        line = cursor_line - 1 if cursor_line else section_line.get("cursor_position", 1)
        raise MissingCursorBlockError(reason, path=where, line=line)
    if where is not None and not name:
        name = Path(where).stem
    source = Source(
        path=where,
        line=1,
        name_line=name_line,
        uncommitted_diff_line=uncommitted_line,
        edit_history_line=section_line.get("edit_history"),
        history_blocks=tuple(history_blocks),
        cursor_line=cursor_line,
        expected_section_line=section_line.get("expected_patch"),
        expected_patch_lines=tuple(expected_lines),
        rejected_patch_line=rejected_line,
    )
    return Example(
        name=name,
        repository_url=fields["repository_url"],
        revision=fields["revision"],
        cursor_path=cursor_path,
        cursor_position=cursor_position,
        edit_history="".join(history),
        expected_patches=tuple(expected),
        rejected_patch=rejected,
        tags=tuple(fields.get("tags", ())),
        reasoning=reasoning or None,
        uncommitted_diff=uncommitted_diff,
        uncommitted_diff_requires_edit_history_rollback=fields.get(
            "uncommitted_diff_requires_edit_history_rollback", False
        ),
        recently_opened_files=opened,
        recently_viewed_files=viewed,
        source=source,
    )


# --------------------------------------------------------------------------- writing


def _toml_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


def fence(content: str, info: str = "") -> str:
    """A fence longer than any run of backticks inside, so the content stays intact."""
    longest = max((len(run) for run in re.findall(r"`{3,}", content)), default=0)
    ticks = "`" * max(3, longest + 1)
    if "`" in info:
        tildes = max((len(run) for run in re.findall(r"~{3,}", content)), default=0)
        ticks = "~" * max(3, tildes + 1)
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{ticks}{info}\n{body}{ticks}\n"


def _recent(files: Iterable[RecentFile]) -> str:
    return "".join(
        f"{f.path}\t{f.cursor_position}\n" if f.cursor_position is not None else f"{f.path}\n" for f in files
    )


def _history_blocks(history: str) -> list[tuple[bool, str]]:
    """Split the edit history at accepted-prediction markers: (accepted, block text)."""
    blocks: list[tuple[bool, str]] = []
    accepted = False
    current: list[str] = []
    for line in re.findall(r"[^\n]*\n|[^\n]+$", history):  # at \n only, as the loader reads
        if line.rstrip("\n") == ACCEPTED_PREDICTION_MARKER:
            if current or accepted:
                blocks.append((accepted, "".join(current)))
            accepted, current = True, []
        else:
            current.append(line)
    if current or accepted:
        blocks.append((accepted, "".join(current)))
    return blocks


def _diff_text(diff: str) -> str:
    """A diff as markdown can hold it: a lone ``\\r`` in a line's text would be read
    as a line break that makes the rest of the line garbage, so such a line is
    written as the lines a buffer holds (the diff engine reads it the same way)."""
    from .._eol import split_lone_carriage_returns

    return split_lone_carriage_returns(diff)


def to_markdown(example: Example) -> str:
    """Write the example in Zed's layout; :func:`from_markdown` reads it back equal.

    Text fields are written in fences, which always end in a newline: a field
    without a final newline gains one (as in Zed). Markdown reads ``\\r\\n`` and a
    lone ``\\r`` as ``\\n``: an example whose texts hold them reads back with the
    line endings a buffer holds, and its diffs with a lone ``\\r`` are written as
    the lines it makes (:func:`_diff_text`), so it still means the same edits.
    """
    out = [
        "+++\n",
        f"repository_url = {_toml_string(example.repository_url)}\n",
        f"revision = {_toml_string(example.revision)}\n",
    ]
    if example.tags:
        out.append("tags = [" + ", ".join(_toml_string(t) for t in example.tags) + "]\n")
    if example.uncommitted_diff_requires_edit_history_rollback:
        out.append("uncommitted_diff_requires_edit_history_rollback = true\n")
    out.append("+++\n\n")
    if example.name:
        out.append(f"# {_escape_heading(example.name)}\n\n")
    if example.reasoning:
        out.append(f"## Reasoning\n\n{example.reasoning.strip()}\n\n")
    if example.uncommitted_diff:
        out.append("## Uncommitted Diff\n\n" + fence(_diff_text(example.uncommitted_diff), "diff") + "\n")
    if example.recently_opened_files:
        out.append("## Recently Opened Files\n\n" + fence(_recent(example.recently_opened_files)) + "\n")
    if example.recently_viewed_files:
        out.append("## Recently Viewed Files\n\n" + fence(_recent(example.recently_viewed_files)) + "\n")
    out.append("## Edit History\n\n")
    blocks = _history_blocks(example.edit_history)
    if not blocks:
        out.append("(No edit history)\n\n")
    for accepted, block in blocks:
        if accepted:
            out.append(ACCEPTED_PREDICTION_MARKER + "\n")
        out.append(fence(_diff_text(block), "diff") + "\n")
    out.append("## Cursor Position\n\n" + fence(example.cursor_position, example.cursor_path) + "\n")
    if example.expected_patches:
        out.append("## Expected Patch\n\n")
        out.extend(fence(_diff_text(patch), "diff") + "\n" for patch in example.expected_patches)
    if example.rejected_patch is not None:
        out.append("## Rejected Patch\n\n" + fence(_diff_text(example.rejected_patch), "diff") + "\n")
    return "".join(out).rstrip("\n") + "\n"


def _escape_heading(name: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#&!])", r"\\\1", name.strip())


def expected_patch_insertion_point(text: str) -> tuple[int, bool]:
    """``(character offset, needs a heading)`` where a new expected patch block goes
    (``--editpred-accept``): after the last one, else under the heading, else before
    the rejected patches, else at the end.

    Walks the tokens :func:`from_markdown` reads (its parser, its heading text), so
    a ``## Expected Patch`` inside a fence or a fence inside a list is seen exactly
    as Zed sees it. ``text`` has been read as an example already.
    """
    body, first_line = _body(text)
    env: dict[str, Any] = {}
    tokens = _parser().parse(body, env)
    starts = line_starts(text)
    if starts[-1] != len(text):  # one past the end: a last line without a newline
        starts.append(len(text))

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
            section = _inline_text(tokens[index + 1], env).encode().lower()
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
