"""Zed's edit model for split-commit (``reorder_patch.rs``, zed-authoring-and-context.md §1.3).

A commit's diff as Zed's ``Patch``: hunks of Context, Addition, Deletion and Garbage
lines, every ``+``/``-`` line one *edit*, numbered in file order. The first
``split`` edits become the edit history (:func:`extract_edits`'s *extracted*), the
rest the expected patch on top of them (its *remainder*). The serializer gives every
hunk its own file header, as Zed's does, so each hunk is a file section of its own
for the scene and applies to the text the hunks before it left.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

from ..._diff import classify, quote_path, split_lines

__all__ = [
    "Hunk",
    "Line",
    "Location",
    "Patch",
    "cut_target",
    "extract_edits",
    "header_path",
    "locations",
    "normalize_hunk",
    "parse_patch",
    "parsed",
    "sequential",
    "split_ordered_patch",
]


@dataclass(frozen=True)
class Line:
    """``kind`` is ``+``, ``-``, `` `` or ``?`` (Zed's Garbage: ``text`` is the whole line)."""

    kind: str
    text: str

    def render(self) -> str:
        return self.text if self.kind == "?" else self.kind + self.text


@dataclass
class Hunk:
    filename: str
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    comment: str = ""
    lines: list[Line] = field(default_factory=list)
    inherited: bool = False

    def copy(self) -> Hunk:
        return replace(self, lines=list(self.lines))


@dataclass
class Patch:
    header: str
    hunks: list[Hunk]

    def copy(self) -> Patch:
        return Patch(self.header, [h.copy() for h in self.hunks])

    def to_text(self) -> str:
        """Zed's ``Patch::to_string``: every hunk with its own file header."""
        out = [self.header]
        for h in self.hunks:
            out.append("--- /dev/null\n" if h.old_start == 0 and h.old_count == 0 else f"--- {header_path('a/', h)}\n")
            out.append("+++ /dev/null\n" if h.new_start == 0 and h.new_count == 0 else f"+++ {header_path('b/', h)}\n")
            out.append(f"@@ -{h.old_start},{h.old_count} +{h.new_start},{h.new_count} @@ {h.comment}".rstrip() + "\n")
            out.extend(line.render() + "\n" for line in h.lines)
        return "".join(out)

    @property
    def num_edits(self) -> int:
        return sum(1 for h in self.hunks for line in h.lines if line.kind in "+-")


def header_path(prefix: str, hunk: Hunk | str) -> str:
    """The ``---``/``+++`` path token: Zed writes ``a/NAME``; a name with whitespace,
    a quote or a backslash is quoted whole (``"a/dir x/a b.py"``), which the scene's
    diff reader, and Zed's, read back as the name."""
    name = hunk if isinstance(hunk, str) else hunk.filename
    return quote_path(prefix + name)


_HUNK_HEADER = re.compile(r"@@\s+-(\S*)\s+\+(\S*)\s+@@ ?(.*)$")


def _range(text: str) -> tuple[int, int]:
    start, comma, count = text.partition(",")
    try:
        first = int(start)
    except ValueError:
        first = 0
    if not comma:
        return first, 1
    try:
        return first, int(count)
    except ValueError:
        return first, 0


def parse_patch(text: str) -> Patch:
    """Zed's ``Patch::parse_unified_diff``; the header keeps only its ``//`` lines
    (§1.4 step 3). A ``---``/``+++`` path is read as the scene reads it (quotes
    and all, ``a/``/``b/`` dropped), so a name written by :func:`header_path` comes back."""
    header: list[str] = []
    hunks: list[Hunk] = []
    current = ""
    file_set = False
    hunk: Hunk | None = None
    in_header = True
    for line in split_lines(text):
        is_path = line.startswith(("--- ", "+++ "))
        if in_header and not (is_path or line.startswith("@@")):
            header.append(line)
            continue
        in_header = False
        if line.startswith("@@"):
            if hunk is not None and hunk.lines:
                hunks.append(hunk)
            match = _HUNK_HEADER.match(line)
            old, new, comment = (match.group(1), match.group(2), match.group(3)) if match else ("", "", "")
            comment = " ".join(comment.split())  # Zed reads the header's words: runs of spaces become one
            (os_, oc), (ns, nc) = _range(old), _range(new)
            hunk = Hunk(current, os_, oc, ns, nc, comment, [], inherited=not file_set)
            file_set = False
        elif is_path:
            # ``a/`` (``b/``) dropped from a ``---`` (``+++``) line, as the writer puts them
            name = classify(line).text
            if name != "/dev/null":
                current, file_set = name, True
        elif hunk is None:
            continue  # between a file header and its first hunk: nowhere to keep it
        elif line[:1] in ("+", "-", " "):
            hunk.lines.append(Line(line[0], line[1:]))
        else:
            hunk.lines.append(Line("?", line))
    if hunk is not None and hunk.lines:
        hunks.append(hunk)
    if len(header) >= 2 and header[-2].startswith("diff --git") and header[-1].startswith("index "):
        header = header[:-2]
    kept = [line for line in header if line.startswith("//")]
    return Patch("".join(line + "\n" for line in kept), hunks)


@dataclass(frozen=True)
class Location:
    """Zed's ``edit_locations`` entry (1-based lines), with the edit itself."""

    filename: str
    source_line: int
    target_line: int
    hunk_index: int
    line_index: int
    kind: str
    text: str


def locations(patch: Patch) -> list[Location]:
    found: list[Location] = []
    for hi, h in enumerate(patch.hunks):
        old, new = h.old_start, h.new_start
        for li, line in enumerate(h.lines):
            if line.kind == " ":
                old, new = old + 1, new + 1
            elif line.kind == "+":
                found.append(Location(h.filename, old, new, hi, li, "+", line.text))
                new += 1
            elif line.kind == "-":
                found.append(Location(h.filename, old, new, hi, li, "-", line.text))
                old += 1
    return found


@functools.lru_cache(maxsize=32)
def parsed(text: str) -> tuple[Patch, list[Location]]:
    """A patch text parsed once for the read-only steps (never mutate the result)."""
    patch = parse_patch(text)
    return patch, locations(patch)


def normalize_hunk(h: Hunk, context: int = 3) -> Hunk | None:
    """``normalize_hunks(3)``: at most ``context`` non-edit lines on each side of the
    changes, Garbage outside kept at the edges, counts recounted; None if no change."""
    changes = [i for i, line in enumerate(h.lines) if line.kind in "+-"]
    if not changes:
        return None
    first, last = changes[0], changes[-1]
    lead, body, trail = h.lines[:first], h.lines[first : last + 1], h.lines[last + 1 :]
    keep_lead, keep_trail = lead[max(len(lead) - context, 0) :], trail[:context]
    dropped_lead = lead[: max(len(lead) - context, 0)]
    dropped_trail = trail[context:]
    skipped = sum(1 for line in dropped_lead if line.kind == " ")
    lines = (
        [line for line in dropped_lead if line.kind == "?"]
        + keep_lead
        + body
        + keep_trail
        + [line for line in dropped_trail if line.kind == "?"]
    )
    old_count = sum(1 for line in lines if line.kind in " -")
    new_count = sum(1 for line in lines if line.kind in " +")
    return replace(
        h,
        old_start=h.old_start + skipped,
        new_start=h.new_start + skipped,
        old_count=old_count,
        new_count=new_count,
        lines=lines,
    )


def _normalized(hunks: list[Hunk]) -> list[Hunk]:
    return [n for n in (normalize_hunk(h) for h in hunks) if n is not None]


def extract_edits(patch: Patch, selected: set[int]) -> tuple[Patch, Patch]:
    """``(extracted, remainder)``: the patch of the ``selected`` edits alone, and the
    patch of the rest on top of them (``reorder_patch.rs``, §1.3)."""
    extracted: list[Hunk] = []
    remainder: list[Hunk] = []
    index = 0
    new_delta = old_delta = 0
    for h in patch.hunks:
        if not h.inherited:
            new_delta = old_delta = 0
        ex = replace(h, new_start=h.new_start + new_delta, lines=[])
        re_ = replace(h, old_start=h.old_start + old_delta, lines=[])
        for line in h.lines:
            if line.kind not in "+-":
                ex.lines.append(line)
                re_.lines.append(line)
                continue
            chosen = index in selected
            index += 1
            if line.kind == "+":
                if chosen:
                    ex.lines.append(line)
                    re_.lines.append(Line(" ", line.text))
                    re_.old_count += 1
                    old_delta += 1
                else:
                    ex.new_count -= 1
                    new_delta -= 1
                    re_.lines.append(line)
            else:
                if chosen:
                    ex.lines.append(line)
                    re_.old_count -= 1
                    old_delta -= 1
                else:
                    ex.lines.append(Line(" ", line.text))
                    ex.new_count += 1
                    new_delta += 1
                    re_.lines.append(line)
        extracted.append(ex)
        remainder.append(re_)
    return Patch(patch.header, _normalized(extracted)), Patch(patch.header, _normalized(remainder))


def _trailing_comments(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    found: list[str] = []
    for line in reversed(lines):
        if not line.startswith("//"):
            break
        found.insert(0, line)
    return found


def _garbage_tail(h: Hunk) -> list[str]:
    """The hunk's last lines while they are Garbage (blank ones are skipped later)."""
    tail: list[str] = []
    for line in reversed(h.lines):
        if line.kind != "?":
            break
        tail.insert(0, line.text)
    return tail


def split_ordered_patch(patch: Patch, split: int, edits: list[Location] | None = None) -> tuple[str, str]:
    """``(source, target)`` texts: the first ``split`` edits, and the rest on top of
    them with the ``//`` group header active at the first target edit (``edits``:
    the patch's :func:`locations`, when the caller has them)."""
    source, target = extract_edits(patch, set(range(split)))
    if target.hunks:
        header: str | None = None
        edits = edits if edits is not None else locations(patch)
        if split < len(edits):
            for h in reversed(patch.hunks[: edits[split].hunk_index]):
                comments = _trailing_comments(_garbage_tail(h))
                if comments:
                    header = "".join(c + "\n" for c in comments)
                    break
        if header is None:
            comments = _trailing_comments(split_lines(patch.header))
            if comments:
                header = "".join(c + "\n" for c in comments)
        if header is not None:
            target.header = header
    source_lines = split_lines(source.to_text())
    while source_lines and source_lines[-1].startswith("//"):
        source_lines.pop()
    source_text = "".join(line + "\n" for line in source_lines)
    return source_text, target.to_text()


def sequential(text: str) -> str:
    """The patch with each hunk's old start made the row it applies at.

    Zed's headers keep a history hunk's old start in the parent's numbering, but
    every hunk is its own file section, applied to the text the hunks before it left:
    there it starts at its *new* start. The start only breaks ties between places
    where the context occurs, so a wrong one makes a repeated context unplaceable.
    A creation (old count 0) and a deletion (new start 0) keep Zed's numbers."""
    if not text:
        return text
    patch = parsed(text)[0].copy()  # the steps before have parsed it already
    changed = False
    for h in patch.hunks:
        if h.old_count and h.new_start and h.old_start != h.new_start:
            h.old_start = h.new_start
            changed = True
    return patch.to_text() if changed else text


def cut_target(target: str, rows: int) -> str:
    """The expected patch cut to its next edit: the edits of the first target edit's
    file whose run of changed lines starts within ``rows`` rows after that edit,
    taken out of the rest with Zed's own :func:`extract_edits`; the rest of the
    commit is not part of the example. A run (changed lines with no context line
    between them) is kept whole: a cut inside one leaves half a statement."""
    patch, edits = parsed(target)
    if not edits:
        return target
    first = edits[0]
    selected: set[int] = set()
    run_start: Location | None = None
    for index, edit in enumerate(edits):
        previous = edits[index - 1] if index else None
        contiguous = (
            previous is not None
            and previous.hunk_index == edit.hunk_index
            and all(
                line.kind in "+-" for line in patch.hunks[edit.hunk_index].lines[previous.line_index : edit.line_index]
            )
        )
        if not contiguous:
            run_start = edit
        assert run_start is not None
        if edit.filename == first.filename and run_start.target_line - first.target_line <= rows:
            selected.add(index)
    if len(selected) == len(edits):
        return target
    return extract_edits(patch, selected)[0].to_text()
