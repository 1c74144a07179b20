"""``baseline``: a deterministic, offline next-edit heuristic — the floor to beat.

It is the default provider, so ``pytest evals/`` gives a real score on a fresh clone
with no model, no network and no key. It reads only what a model is given — the
buffers, the cursor and the user's edit events — never the example's expected or
rejected patches, its name, tags or reasoning. Each heuristic below is small, general
and language-agnostic where it can be (Python, Rust, Go, TypeScript); they are tried
in order of confidence and the first that proposes a change wins. When none applies,
the prediction is "no change".

1. ``complete-word``: finish the half-typed identifier left of the cursor from the
   buffers' own vocabulary.
2. ``carry-rename``: the user renamed ``old`` to ``new`` in their last edit; rename
   the remaining occurrences (in the enclosing function for a parameter or local,
   in the whole file for a definition).
3. ``mirror-addition``: the user's last edit added lines that copy the lines next to
   them with some words swapped (a new enum variant, field or case); add the same
   swapped copy next to the nearest similar block in the cursor file that lacks one.
4. ``pass-new-parameter``: the user added a parameter to a function; pass it at the
   function's call sites, and on to calls in its body that take a parameter of that
   name.
5. ``pass-new-keyword``: the user added ``key=value`` to a call; add it to the
   other calls of the same function, with the value adapted.
6. ``await-async-call``: the user made a function async; await the call they just
   added in it, and the function's calls from other async functions.
7. ``add-import``: the user's last edit uses a name the file neither defines nor
   imports; import it (from a sibling import, another buffer, or the stdlib).
"""

from __future__ import annotations

import posixpath
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from .._prediction import Prediction
from .._request import EditEvent, PredictionRequest
from .._settings import Settings
from ._registry import Completion

__all__ = ["baseline", "make_baseline"]

MODEL = "baseline"

_IDENT = re.compile(r"[A-Za-z_]\w*")
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
_PREFIX = re.compile(r"[A-Za-z_]\w*$")
_RECEIVER = re.compile(r"([A-Za-z_]\w*)\s*(\.|::|->)\s*$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


# --------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class _Edit:
    """Replace ``text[start:end]`` of the cursor file with ``new``."""

    start: int
    end: int
    new: str


@dataclass(frozen=True)
class _Result:
    """A heuristic's answer: edits to the cursor file, and which one the cursor
    follows (its end, in the new text); ``None`` lets the verdict place it.
    ``past_closers`` moves the cursor on to the end of the line when only closing
    punctuation follows it (an added argument completes the line: the user goes on
    from its end)."""

    edits: tuple[_Edit, ...]
    focus: int | None = None
    past_closers: bool = False


def _apply(text: str, result: _Result) -> tuple[str, int | None]:
    """The new text and cursor; overlapping edits keep the first one only."""
    order = sorted(range(len(result.edits)), key=lambda i: (result.edits[i].start, i))
    parts: list[str] = []
    pos = 0
    cursor = None
    for index in order:
        edit = result.edits[index]
        if edit.start < pos:
            continue
        parts.append(text[pos : edit.start])
        parts.append(edit.new)
        pos = edit.end
        if index == result.focus:
            cursor = sum(map(len, parts))
    parts.append(text[pos:])
    new_text = "".join(parts)
    if cursor is not None and result.past_closers:
        rest = re.match(r"[)\]}>\"'`,;:]*(?=\n|$)", new_text[cursor:])
        cursor += len(rest.group()) if rest else 0
    return new_text, cursor


def _focus_near(edits: Sequence[_Edit], offset: int) -> int | None:
    """The edit the cursor should follow: the first one ending at or after the
    user's cursor (the one they were about to make), else the last one before it."""
    if not edits:
        return None
    ahead = [i for i, e in enumerate(edits) if e.end >= offset]
    if ahead:
        return min(ahead, key=lambda i: edits[i].start)
    return max(range(len(edits)), key=lambda i: edits[i].start)


# --------------------------------------------------------------------------- diffs


@dataclass(frozen=True)
class _Change:
    """One run of removed and/or added lines of a hunk. ``at`` indexes the hunk's
    new-side lines where the added lines start (or would be)."""

    removed: tuple[str, ...]
    added: tuple[str, ...]
    at: int


@dataclass(frozen=True)
class _Hunk:
    new_start: int
    new_lines: tuple[str, ...]
    changes: tuple[_Change, ...]


def _parse_diff(diff: str) -> list[_Hunk]:
    """The hunks of a unified diff (tolerant: headers optional)."""
    hunks: list[_Hunk] = []
    start = 1
    new_lines: list[str] = []
    changes: list[_Change] = []
    removed: list[str] = []
    added: list[str] = []
    at = 0
    inside = False

    def close_change() -> None:
        nonlocal removed, added
        if removed or added:
            changes.append(_Change(tuple(removed), tuple(added), at))
        removed, added = [], []

    def close_hunk() -> None:
        close_change()
        if inside:
            hunks.append(_Hunk(start, tuple(new_lines), tuple(changes)))

    for line in diff.split("\n"):
        header = _HUNK.match(line)
        if header:
            close_hunk()
            start, new_lines, changes, inside = int(header.group(1)), [], [], True
            continue
        if not inside or line.startswith(("--- ", "+++ ", "\\")):
            continue
        tag, body = line[:1], line[1:]
        if tag == "-":
            if not removed and not added:
                at = len(new_lines)
            removed.append(body)
        elif tag == "+":
            if not removed and not added:
                at = len(new_lines)
            added.append(body)
            new_lines.append(body)
        elif tag == " " or line == "":
            close_change()
            new_lines.append(body)
    close_hunk()
    return hunks


def _substitution(old: str, new: str) -> tuple[dict[str, str], bool] | None:
    """Whether ``new`` is ``old`` with some words swapped (spacing may differ):
    the swap map, and whether a spacing change kept the next token's column
    (aligned code, as gofmt writes). None when the lines differ otherwise."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    if len(a) != len(b) or not a:
        return None
    if a[0].isspace() != b[0].isspace() or (a[0].isspace() and a[0] != b[0]):
        return None
    swaps: dict[str, str] = {}
    keeps_column = False
    col_a = col_b = 0
    for x, y in zip(a, b):
        if x != y:
            if x.isspace() and y.isspace():
                keeps_column = keeps_column or col_a + len(x) == col_b + len(y)
            elif x[0].isalnum() or x[0] == "_":
                if not (y[0].isalnum() or y[0] == "_") or swaps.setdefault(x, y) != y:
                    return None
            else:
                return None
        col_a += len(x)
        col_b += len(y)
    return (swaps, keeps_column) if swaps else None


# --------------------------------------------------------------------------- code shape


_LANGS = {".py": "py", ".pyi": "py", ".go": "go", ".rs": "rs"}
_LANGS.update(dict.fromkeys((".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"), "ts"))

_HEADERS: dict[str, tuple[re.Pattern[str], ...]] = {
    "py": (re.compile(r"^\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\("),),
    "go": (re.compile(r"^func\s+(?:\([^)]*\)\s*)?(?P<name>\w+)\s*[\[(]"),),
    "rs": (
        re.compile(
            r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe)\s+)*"
            r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+(?P<name>\w+)"
        ),
    ),
    "ts": (
        re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?P<name>[\w$]+)"),
        re.compile(
            r"^\s*(?:export\s+)?(?:const|let|var)\s+(?P<name>[\w$]+)\s*(?::[^=]+)?=\s*"
            r"(?:async\s+)?(?:\([^)]*\)|[\w$]+)\s*(?::[^=]+)?=>"
        ),
        re.compile(
            r"^\s*(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*"
            r"(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\((?:.*\)\s*(?::\s*[^{;=]+)?\{|[^)]*)\s*$"
        ),
    ),
}
_NOT_FUNCTIONS = frozenset(
    ("if", "for", "while", "switch", "catch", "return", "function", "with", "elif", "else", "match", "loop",
     "new", "await", "typeof")
)


def _lang(path: str) -> str:
    return _LANGS.get(posixpath.splitext(path)[1].lower(), "")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _header_name(line: str, lang: str) -> str | None:
    """The function a line starts to define, if it does."""
    patterns = _HEADERS.get(lang) or tuple(p for key in ("py", "go", "rs") for p in _HEADERS[key])
    for pattern in patterns:
        match = pattern.match(line)
        if match and match.group("name") not in _NOT_FUNCTIONS:
            return match.group("name")
    return None


def _signature_end(lines: Sequence[str], header: int, lang: str) -> int:
    """The row where a function's signature ends (its ``:`` or ``{``)."""
    for row in range(header, min(header + 20, len(lines))):
        code = lines[row].split("#")[0] if lang == "py" else lines[row].split("//")[0]
        if code.rstrip().endswith(":" if lang == "py" else "{"):
            return row
    return header


def _function_end(lines: Sequence[str], header: int, lang: str) -> int:
    """The last row of the function starting at ``header``, by indentation: the
    body is more indented; a closing brace at the header's level ends it."""
    base = _indent(lines[header])
    row = _signature_end(lines, header, lang)
    if lang != "py" and lines[row].rstrip().endswith("}"):
        return row
    end = row
    for index in range(row + 1, len(lines)):
        line = lines[index]
        if not line.strip():
            continue
        if _indent(line) > base:
            end = index
            continue
        if _indent(line) == base and line.lstrip().startswith(("}", ")")) and lang != "py":
            end = index
        break
    return end


def _enclosing_function(lines: Sequence[str], row: int, lang: str) -> tuple[int, int] | None:
    """The innermost function around ``row``: (header row, last row)."""
    for header in range(row, -1, -1):
        if _header_name(lines[header], lang) is None:
            continue
        end = _function_end(lines, header, lang)
        if end >= row:
            return header, end
    return None


def _unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(offset, char)`` for each character of ``text`` from ``start`` that is not
    inside a quoted string (nor one of its quotes): brackets and commas in strings
    do not count."""
    quote, index = "", start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        else:
            yield index, char
        index += 1


def _split_top(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` between commas outside brackets and quotes."""
    spans: list[tuple[int, int]] = []
    depth = start = 0
    for index, char in _unquoted(text):
        if char in "([{<" and not (char == "<" and text[index + 1 : index + 2] in ("=", " ")):
            depth += 1
        elif char in ")]}>" and not (char == ">" and text[index - 1 : index] in ("-", "=", " ")):
            depth -= 1
        elif char == "," and depth == 0:
            spans.append((start, index))
            start = index + 1
    if text[start:].strip() or spans:
        spans.append((start, len(text)))
    return spans


def _matching_paren(text: str, open_at: int) -> int | None:
    """The offset of the ``)`` closing the ``(`` at ``open_at``."""
    depth = 0
    for index, char in _unquoted(text, open_at):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index if char == ")" else None
    return None


_PARAM_PREFIX = re.compile(r"^(?:\.\.\.|\*\*?|&\s*(?:'\w+\s+)?|mut\s+|(?:public|private|protected|readonly)\s+)")


def _param_name(param: str) -> str | None:
    param = param.strip()
    while (stripped := _PARAM_PREFIX.sub("", param)) != param:
        param = stripped.strip()
    match = re.match(r"[A-Za-z_$][\w$]*", param)
    return match.group() if match else None


@dataclass(frozen=True)
class _Signature:
    name: str
    params: tuple[str, ...]

    @property
    def is_method(self) -> bool:
        return bool(self.params) and self.params[0] in ("self", "cls")

    def call_params(self, via_receiver: bool) -> tuple[str, ...]:
        """The parameters a call passes (``self`` is the receiver of a method call)."""
        return self.params[1:] if self.is_method and via_receiver else self.params


def _parse_signature(source: str, lang: str) -> _Signature | None:
    """Name and parameter names of the function defined at the start of ``source``."""
    name = _header_name(source, lang)
    if name is None:
        return None
    open_at = source.find("(", source.find(name) + len(name))
    close_at = _matching_paren(source, open_at) if open_at >= 0 else None
    if close_at is None:
        return None
    inner = source[open_at + 1 : close_at]
    names = [_param_name(inner[a:b]) for a, b in _split_top(inner)]
    return _Signature(name, tuple(n for n in names if n))


def _signature_at(lines: Sequence[str], header: int, lang: str) -> _Signature | None:
    end = _signature_end(lines, header, lang)
    return _parse_signature("\n".join(lines[header : end + 1]), lang)


# --------------------------------------------------------------------------- context


class _Context:
    """The request, with the views the heuristics share computed once."""

    def __init__(self, request: PredictionRequest) -> None:
        self.request = request
        self.path = request.cursor.path
        self.text = request.text
        self.offset = request.cursor.offset
        self.row = request.cursor.row
        self.lang = _lang(self.path)
        self.lines = self.text.split("\n")
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    @property
    def last_event(self) -> EditEvent | None:
        return self.request.events[-1] if self.request.events else None

    @cached_property
    def last_hunks(self) -> list[_Hunk]:
        event = self.last_event
        return _parse_diff(event.diff) if event is not None else []

    def event_lines(self, event: EditEvent) -> list[str]:
        """The lines of the event's file as the user left them."""
        return self.request.buffers.get(event.path, "").split("\n")

    def offset_of(self, row: int, column: int = 0) -> int:
        return self.starts[row] + column

    def row_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset)

    def function_at(self, row: int) -> tuple[int, int] | None:
        return _enclosing_function(self.lines, row, self.lang)

    def visible_names(self, row: int) -> set[str]:
        """Parameters of the function around ``row`` and names assigned in it above."""
        around = self.function_at(row)
        if around is None:
            return set()
        signature = _signature_at(self.lines, around[0], self.lang)
        names = set(signature.params) if signature else set()
        assignment = re.compile(
            r"(?:\b(?:const|let|var|for)\s+(?:mut\s+)?([A-Za-z_$][\w$]*))|^\s*([A-Za-z_]\w*)\s*(?::=|=(?!=))"
        )
        for line in self.lines[around[0] : row]:
            for match in assignment.finditer(line):
                names.add(match.group(1) or match.group(2))
        return names


def _locate(lines: Sequence[str], block: Sequence[str], hint: int) -> int | None:
    """The row where ``block`` appears in ``lines``, nearest to ``hint``."""
    if not block:
        return None
    found = [
        row
        for row in range(len(lines) - len(block) + 1)
        if lines[row] == block[0] and list(lines[row : row + len(block)]) == list(block)
    ]
    return min(found, key=lambda row: (abs(row - hint), row)) if found else None


# --------------------------------------------------------------------------- 1. complete-word


def _receiver_before(text: str, start: int) -> tuple[str, str] | None:
    match = _RECEIVER.search(text[max(0, start - 80) : start])
    return (match.group(1), match.group(2)) if match else None


def complete_word(ctx: _Context) -> _Result | None:
    """Finish the identifier the user is typing, from words in the buffers.

    Only when the cursor ends a word of 2+ characters that is not itself a known
    word. After ``recv.``, words seen after the same receiver win, then any member
    name; among the rest, the one used nearest the cursor (in the cursor file
    first), then the most frequent.
    """
    text, pos = ctx.text, ctx.offset
    line_start = ctx.starts[ctx.row]
    match = _PREFIX.search(text[line_start:pos])
    if match is None or len(match.group()) < 2 or (pos < len(text) and (text[pos].isalnum() or text[pos] == "_")):
        return None
    prefix, start = match.group(), pos - len(match.group())
    receiver = _receiver_before(text, start)
    seen: dict[str, list[tuple[int, int, tuple[str, str] | None]]] = {}
    for path, buffer in sorted(ctx.request.buffers.items(), key=lambda item: item[0] != ctx.path):
        here = path == ctx.path
        for word in _IDENT.finditer(buffer):
            if here and word.start() == start:
                continue
            if word.group() == prefix:
                return None  # already a complete word: nothing to finish
            if word.group().startswith(prefix):
                rank = (0, abs(word.start() - pos)) if here else (1, 0)
                seen.setdefault(word.group(), []).append((*rank, _receiver_before(buffer, word.start())))
    if not seen:
        return None
    candidates = list(seen)
    if receiver is not None:
        same = [w for w in candidates if any(r == receiver for *_, r in seen[w])]
        member = [w for w in candidates if any(r is not None and r[1] == receiver[1] for *_, r in seen[w])]
        candidates = same or member or candidates
    best = min(candidates, key=lambda w: (min(o[:2] for o in seen[w]), -len(seen[w]), w))
    return _Result((_Edit(start, pos, best),), focus=0)


# --------------------------------------------------------------------------- 2. carry-rename


def _renames(event: EditEvent) -> list[tuple[str, str, str]]:
    """``(old, new, new line)`` for each line of the event that only swapped one
    identifier for another."""
    found = []
    for hunk in _parse_diff(event.diff):
        for change in hunk.changes:
            if len(change.removed) != len(change.added):
                continue
            for old_line, new_line in zip(change.removed, change.added):
                swap = _substitution(old_line, new_line)
                if swap is None or len(swap[0]) != 1:
                    continue
                (old, new), = swap[0].items()
                if _IDENT.fullmatch(old) and _IDENT.fullmatch(new):
                    found.append((old, new, new_line))
    return found


def _rename_scope(ctx: _Context, event: EditEvent, old: str, new: str, sites: Sequence[str]) -> tuple[int, int]:
    """Rows to rename in: the function(s) where a parameter or local was renamed;
    the whole file for anything else (a definition, a name the function only
    uses, a rename made in another file)."""
    whole = (0, len(ctx.lines) - 1)
    if event.path != ctx.path:
        return whole
    rows: list[int] = []
    for site in sites:
        row = _locate(ctx.lines, [site], ctx.row)
        if row is None:
            return whole
        around = ctx.function_at(row)
        if around is None or new not in ctx.visible_names(around[1]):
            return whole  # a definition, or a name the function only uses
        rows.extend(around)
    return (min(rows), max(rows)) if rows else whole


def _defines(line: str, name: str, lang: str) -> bool:
    """Whether ``line`` looks like it defines ``name`` (function, parameter,
    variable, field, variant) rather than only using it."""
    word = re.escape(name)
    if _header_name(line, lang) is not None:
        return _header_name(line, lang) == name or bool(re.search(rf"\(.*(?<![\w$.]){word}\b", line))
    return bool(
        re.search(rf"\b(?:let|const|var|def|fn|func|class|struct|enum|type|interface|trait|mut)\s+{word}\b", line)
        or re.search(rf"(?<![\w$.]){word}\s*(?::(?!:)|=(?![=>])|:=)", line)
        or re.match(rf"\s*(?:pub\s+)?{word}\s*(?:[({{,]|$)", line)
    )


def carry_rename(ctx: _Context) -> _Result | None:
    """Rename what the user's last edit renamed, where it still has the old name.

    A swapped word counts as a rename when the user swapped it at a definition
    (a parameter, a function, a field...) or at two places or more; one changed
    argument is just a changed argument.
    """
    event = ctx.last_event
    if event is None:
        return None
    renames: dict[tuple[str, str], list[str]] = {}
    for old, new, line in _renames(event):
        renames.setdefault((old, new), []).append(line)
    history = [(o, n, line, _lang(e.path)) for e in ctx.request.events for o, n, line in _renames(e)]
    edits: list[_Edit] = []
    for (old, new), sites in renames.items():
        if any(o == old and n != new for o, n in renames):
            continue  # ambiguous
        evidence = [(line, lang) for o, n, line, lang in history if (o, n) == (old, new)]
        if len(evidence) < 2 and not any(_defines(line, new, lang) for line, lang in evidence):
            continue
        first, last = _rename_scope(ctx, event, old, new, sites)
        begin, end = ctx.offset_of(first), ctx.offset_of(last, len(ctx.lines[last]))
        for match in re.finditer(rf"(?<![\w$]){re.escape(old)}(?![\w$])", ctx.text[begin:end]):
            edits.append(_Edit(begin + match.start(), begin + match.end(), new))
    if not edits:
        return None
    return _Result(tuple(edits), _focus_near(edits, ctx.offset))


# --------------------------------------------------------------------------- 3. mirror-addition


_IMPORT_LINE = re.compile(r"\s*(?:import\b|from\s+\S+\s+import\b|use\s|#include\b|package\b|mod\s)")


@dataclass(frozen=True)
class _Mirror:
    swaps: dict[str, str]
    keeps_column: bool
    below: bool  # the copy went below its model


def _mirrors(lines: Sequence[str], hunk: _Hunk) -> Iterator[_Mirror]:
    """Added runs of the hunk that copy the same number of lines right above (or
    below) them with words swapped."""
    base = _locate(lines, hunk.new_lines, hunk.new_start - 1)
    view = list(lines) if base is not None else list(hunk.new_lines)
    offset = base if base is not None else 0
    for change in hunk.changes:
        size = len(change.added)
        if change.removed or not any(line.strip() for line in change.added):
            continue
        if any(_IMPORT_LINE.match(line) for line in change.added):
            continue  # a new import line says nothing about the rest of the code
        for start in _slides(view, offset + change.at, size):
            mirror = _mirror_at(view, start, size)
            if mirror is not None:
                yield mirror
                break


def _slides(view: Sequence[str], first: int, size: int) -> list[int]:
    """Where an added run of ``size`` lines at ``first`` could equally be: a diff
    may show ``}`` + ``if ...`` added for an added ``if ...`` + ``}``."""
    starts = [first]
    up = first
    while up > 0 and view[up - 1] == view[up + size - 1]:
        up -= 1
        starts.append(up)
    down = first
    while down + size < len(view) and view[down + size] == view[down]:
        down += 1
        starts.append(down)
    return starts


def _mirror_at(view: Sequence[str], start: int, size: int) -> _Mirror | None:
    """The run at ``start`` as a swapped copy of the lines above it, or below."""
    block = view[start : start + size]
    for below, model in ((True, view[max(0, start - size) : start]), (False, view[start + size : start + 2 * size])):
        if len(model) != size:
            continue
        pairs = [_substitution(m, b) for m, b in zip(model, block)]
        if not any(pairs) or any(p is None and m != b for p, m, b in zip(pairs, model, block)):
            continue
        swaps: dict[str, str] = {}
        for pair in filter(None, pairs):
            for key, value in pair[0].items():
                if swaps.setdefault(key, value) != value:
                    return None
        return _Mirror(swaps, any(pair[1] for pair in filter(None, pairs)), below)
    return None


def _swap_line(line: str, swaps: dict[str, str], keeps_column: bool) -> str:
    """``line`` with words swapped; with ``keeps_column``, spacing after a swap is
    resized so the next token stays in its column (at least one space)."""
    out: list[str] = []
    column = 0
    shifted = False
    tokens = _TOKEN.findall(line)
    for index, token in enumerate(tokens):
        if token in swaps:
            out.append(swaps[token])
            shifted = True
        elif token.isspace() and keeps_column and shifted and 0 < index < len(tokens) - 1:
            width = column + len(token) - sum(map(len, out))
            out.append(" " * max(1, width) if "\t" not in token else token)
            shifted = False
        else:
            out.append(token)
        column += len(token)
    return "".join(out)


def _block_at(lines: Sequence[str], row: int, limit: int = 16) -> int | None:
    """The last row of the block starting at ``row`` (its more-indented body and
    the bracket that closes it); None when longer than ``limit`` lines."""
    base = _indent(lines[row])
    opens = lines[row].rstrip()[-1:] in "{[(:"
    end = row
    for index in range(row + 1, len(lines)):
        line = lines[index]
        if index - row >= limit:
            return None
        if line.strip() and _indent(line) > base:
            end = index
            continue
        if opens and line.strip() and _indent(line) == base and line.lstrip()[:1] in "}])":
            end = index
        break
    return end


def _normalized(lines: Sequence[str]) -> list[str]:
    return [" ".join(line.split()) for line in lines]


def mirror_addition(ctx: _Context) -> _Result | None:
    """Repeat the user's "copy a neighbour and swap a word" addition elsewhere.

    The words swapped by the most additions of the last edit are the core (a new
    ``Float`` beside ``Int``); every block of the cursor file that mentions a core
    word gets its swapped copy, unless that copy already exists; the block nearest
    the cursor is the one predicted.
    """
    event = ctx.last_event
    if event is None:
        return None
    lines = ctx.event_lines(event)
    mirrors = [m for hunk in ctx.last_hunks for m in _mirrors(lines, hunk)]
    if not mirrors:
        return None
    counts = Counter(key for mirror in mirrors for key in mirror.swaps if len(key) > 1 and _IDENT.fullmatch(key))
    if not counts:
        return None
    top = max(counts.values())
    core = {key for key, count in counts.items() if count == top}
    swaps: dict[str, str] = {}
    for mirror in mirrors:
        for key, value in mirror.swaps.items():
            swaps.setdefault(key, value)
    keeps_column = any(m.keeps_column for m in mirrors)
    below = Counter(m.below for m in mirrors).most_common(1)[0][0]
    existing = _normalized(ctx.lines)
    best: tuple[int, int, int, list[str]] | None = None
    covered = -1
    for row, line in enumerate(ctx.lines):
        if row <= covered or not core & set(_IDENT.findall(line)) or _IMPORT_LINE.match(line):
            continue
        end = _block_at(ctx.lines, row)
        if end is None:
            continue
        covered = end
        block = ctx.lines[row : end + 1]
        copy = [_swap_line(b, swaps, keeps_column) for b in block]
        wanted = _normalized(copy)
        if copy == block or any(existing[r : r + len(wanted)] == wanted for r in range(len(existing))):
            continue
        distance = 0 if row <= ctx.row <= end else min(abs(ctx.row - row), abs(ctx.row - end))
        if best is None or distance < best[0]:
            best = (distance, row, end, copy)
    if best is None:
        return None
    _, row, end, copy = best
    if below:
        at = ctx.offset_of(end, len(ctx.lines[end]))
        new = "\n" + "\n".join(copy)
    else:
        at = ctx.offset_of(row)
        new = "\n".join(copy) + "\n"
    edit = _Edit(at, at, new)
    return _Result((edit,), None if not below else 0)


# --------------------------------------------------------------------------- 4. pass-new-parameter


def _new_parameters(ctx: _Context) -> list[tuple[_Signature, _Signature]]:
    """(before, after) signatures of functions whose parameters the last edit
    extended (the old parameters kept, in order)."""
    found = []
    event = ctx.last_event
    lang = _lang(event.path) if event else ""
    for hunk in ctx.last_hunks:
        for change in hunk.changes:
            olds = [s for s in (_parse_signature(line, lang) for line in change.removed) if s]
            news = [s for s in (_parse_signature(line, lang) for line in change.added) if s]
            for old in olds:
                for new in news:
                    if new.name != old.name or len(new.params) <= len(old.params):
                        continue
                    remaining = iter(new.params)
                    if all(p in remaining for p in old.params):
                        found.append((old, new))
    return found


def _is_member(name: str, buffers: Sequence[str]) -> bool:
    """Whether some buffer declares or reads a field called ``name``."""
    field = re.compile(
        rf"^\s*(?:pub\s+|readonly\s+)?{re.escape(name)}\??\s*:(?!:)|\.{re.escape(name)}(?![\w$(])", re.MULTILINE
    )
    return any(field.search(buffer) for buffer in buffers)


def _calls(ctx: _Context, name: str) -> Iterator[tuple[int, int, bool]]:
    """``(open paren, close paren, via receiver)`` of the calls of ``name``,
    definitions excluded."""
    for match in re.finditer(rf"(?<![\w$]){re.escape(name)}\s*\(", ctx.text):
        row = ctx.row_of(match.start())
        if _header_name(ctx.lines[row], ctx.lang) == name:
            continue
        open_at = match.end() - 1
        close_at = _matching_paren(ctx.text, open_at)
        if close_at is not None:
            yield open_at, close_at, ctx.text[ctx.starts[row] : match.start()].rstrip().endswith((".", "::", "->"))


def _argument_for(ctx: _Context, param: str, row: int, args: Sequence[str]) -> str | None:
    """What to pass for ``param`` at a call on ``row``: a variable of that name in
    scope, else the same field of the object the other arguments come from."""
    if param in ctx.visible_names(row):
        return param
    receivers = {m.group(1) for a in args if (m := re.fullmatch(r"\s*([A-Za-z_]\w*)\.[A-Za-z_]\w*\s*", a))}
    if len(receivers) == 1 and _is_member(param, list(ctx.request.buffers.values())):
        return f"{receivers.pop()}.{param}"
    return None


def _insert_argument(ctx: _Context, open_at: int, close_at: int, index: int, value: str) -> _Edit | None:
    """Insert ``value`` as the ``index``-th argument of a one-line call."""
    inner = ctx.text[open_at + 1 : close_at]
    if "\n" in inner:
        return None
    spans = _split_top(inner)
    if index >= len(spans):
        return _Edit(close_at, close_at, (", " if spans else "") + value)
    arg = inner[spans[index][0] :]
    start = open_at + 1 + spans[index][0] + len(arg) - len(arg.lstrip())
    return _Edit(start, start, value + ", ")


def _call_args(ctx: _Context, open_at: int, close_at: int) -> list[str] | None:
    """Positional arguments of a call, None when it has keyword arguments."""
    inner = ctx.text[open_at + 1 : close_at]
    args = [inner[a:b] for a, b in _split_top(inner)]
    if any(re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", arg) for arg in args):
        return None
    return args


def _definition(ctx: _Context, name: str) -> _Signature | None:
    """The signature of ``name`` as defined in a buffer (the cursor file first)."""
    for path, buffer in sorted(ctx.request.buffers.items(), key=lambda item: item[0] != ctx.path):
        lines = buffer.split("\n")
        lang = _lang(path)
        for row, line in enumerate(lines):
            if _header_name(line, lang) == name:
                return _signature_at(lines, row, lang)
    return None


def pass_new_parameter(ctx: _Context) -> _Result | None:
    """After a parameter is added to ``f``: pass it at ``f``'s call sites in the
    cursor file, and, inside ``f``, to calls of functions that take a parameter of
    the same name but are not given it yet."""
    if ctx.last_event is None or ctx.last_event.path != ctx.path:
        return None
    edits: list[_Edit] = []
    for old, new in _new_parameters(ctx):
        added = [p for p in new.params if p not in old.params]
        for open_at, close_at, via in _calls(ctx, new.name):
            args = _call_args(ctx, open_at, close_at)
            if args is None or len(args) != len(old.call_params(via)):
                continue
            params = new.call_params(via)
            for index, param in enumerate(params):
                value = _argument_for(ctx, param, ctx.row_of(open_at), args) if param in added else None
                position = sum(p not in added for p in params[:index])  # among the old arguments
                edit = _insert_argument(ctx, open_at, close_at, position, value) if value else None
                if edit:
                    edits.append(edit)
        edits.extend(_forward_parameters(ctx, new, added))
    if not edits:
        return None
    return _Result(tuple(edits), _focus_near(edits, ctx.offset), past_closers=True)


def _forward_parameters(ctx: _Context, function: _Signature, params: Sequence[str]) -> list[_Edit]:
    """Calls inside ``function`` that could take one of its new ``params``."""
    header = next((r for r, line in enumerate(ctx.lines) if _header_name(line, ctx.lang) == function.name), None)
    if header is None:
        return []
    first, last = header, _function_end(ctx.lines, header, ctx.lang)
    begin, end = ctx.offset_of(first), ctx.offset_of(last, len(ctx.lines[last]))
    edits = []
    signatures: dict[str, _Signature | None] = {}
    for match in re.finditer(r"(?<![\w$])([A-Za-z_]\w*)\s*\(", ctx.text[begin:end]):
        callee = match.group(1)
        if callee == function.name or callee in _NOT_FUNCTIONS:
            continue
        if callee not in signatures:
            signatures[callee] = _definition(ctx, callee)
        open_at = begin + match.end() - 1
        close_at = _matching_paren(ctx.text, open_at)
        signature = signatures[callee]
        args = _call_args(ctx, open_at, close_at) if close_at is not None else None
        if signature is None or close_at is None or args is None:
            continue
        taken = signature.call_params(ctx.text[begin : begin + match.start()].rstrip().endswith("."))
        for param in params:
            passed = any(re.search(rf"(?<![\w$]){re.escape(param)}(?![\w$])", a) for a in args)
            if param in taken and taken.index(param) == len(args) and not passed:
                edit = _insert_argument(ctx, open_at, close_at, len(args), param)
                if edit:
                    edits.append(edit)
    return edits


# --------------------------------------------------------------------------- 5. pass-new-keyword


_LINE_LIMITS = (79, 88, 99, 100, 119, 120)


def _added_keyword(old: str, new: str) -> tuple[str, str, str] | None:
    """``(callee, key, value)`` when ``new`` is ``old`` with ``key=value`` added to
    the arguments of a call of ``callee``."""
    head = len(posixpath.commonprefix([old, new]))
    tail = len(posixpath.commonprefix([old[head:][::-1], new[head:][::-1]]))
    if old != new[:head] + new[len(new) - tail :]:
        return None
    inserted = new[head : len(new) - tail]
    match = re.fullmatch(r",\s*([A-Za-z_]\w*)\s*=\s*([^,=]+?)\s*", inserted)
    if match is None:
        return None
    depth = 0
    for index in range(head - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(new[index], 0)
        if depth < 0:
            callee = re.search(r"([A-Za-z_]\w*)\s*$", new[:index])
            return (callee.group(1), match.group(1), match.group(2)) if callee else None
    return None


def _keywords(args: Sequence[str]) -> dict[str, str]:
    pairs = (re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(.+?)\s*", arg, re.DOTALL) for arg in args)
    return {m.group(1): m.group(2) for m in pairs if m}


def _adapt_value(key: str, value: str, target: dict[str, str], visible: set[str]) -> str | None:
    """The value to pass for ``key`` at a call with keywords ``target``, from the
    ``value`` the user passed: ``R.key`` becomes ``S.key`` where the call passes
    ``x=S.x``; a same-named variable stays if visible; a literal is copied."""
    if re.fullmatch(rf"[A-Za-z_]\w*\.{re.escape(key)}", value):
        receivers = {m.group(1) for k, v in target.items() if (m := re.fullmatch(rf"([A-Za-z_]\w*)\.{re.escape(k)}", v))}
        return f"{receivers.pop()}.{key}" if len(receivers) == 1 else None
    if value == key:
        return key if key in visible else None
    if re.fullmatch(r"-?[\d.]+|\"[^\"]*\"|'[^']*'|True|False|None|true|false|nil|null", value):
        return value
    return None


def _line_limit(ctx: _Context) -> int | None:
    """The line length the code seems formatted to: the smallest usual limit that
    the longest line of the buffers in this language fits."""
    longest = max(
        (len(line) for path, buffer in ctx.request.buffers.items() if _lang(path) == ctx.lang for line in buffer.split("\n")),
        default=0,
    )
    return next((limit for limit in _LINE_LIMITS if longest <= limit), None)


def _wrap_call(line: str, open_col: int, close_col: int, limit: int) -> str:
    """Black's split of a too-long one-line call: arguments on their own line,
    or one per line with a trailing comma when they do not fit either."""
    indent = " " * _indent(line)
    args = [line[open_col + 1 : close_col][a:b].strip() for a, b in _split_top(line[open_col + 1 : close_col])]
    inner = indent + "    " + ", ".join(args)
    if len(inner) > limit:
        inner = "\n".join(f"{indent}    {arg}," for arg in args)
    return f"{line[: open_col + 1]}\n{inner}\n{indent}{line[close_col:]}"


def pass_new_keyword(ctx: _Context) -> _Result | None:
    """After the user adds ``key=value`` to a call of ``f``: add it to the other
    calls of ``f`` in the cursor file that share a keyword with theirs (a new
    field passed to a constructor), adapting the value; Python lines that grow too
    long are split as Black does."""
    event = ctx.last_event
    if event is None:
        return None
    edits: list[_Edit] = []
    for hunk in ctx.last_hunks:
        for change in hunk.changes:
            if len(change.removed) != len(change.added):
                continue
            for old_line, new_line in zip(change.removed, change.added):
                added = _added_keyword(old_line, new_line)
                if added is None:
                    continue
                callee, key, value = added
                model_open = new_line.rfind(callee + "(") + len(callee)
                model_close = _matching_paren(new_line, model_open)
                if model_close is None:
                    continue
                model = _keywords([new_line[model_open + 1 : model_close][a:b] for a, b in _split_top(new_line[model_open + 1 : model_close])])
                for open_at, close_at, _ in _calls(ctx, callee):
                    edit = _keyword_edit(ctx, open_at, close_at, key, value, model)
                    if edit is not None:
                        edits.append(edit)
    if not edits:
        return None
    return _Result(tuple(edits), _focus_near(edits, ctx.offset), past_closers=True)


def _keyword_edit(ctx: _Context, open_at: int, close_at: int, key: str, value: str, model: dict[str, str]) -> _Edit | None:
    """Add ``key=value`` to a one-line call that lacks it but shares a keyword
    with the user's call ``model`` (so it is the same kind of call)."""
    inner = ctx.text[open_at + 1 : close_at]
    if "\n" in inner:
        return None
    target = _keywords([inner[a:b] for a, b in _split_top(inner)])
    if key in target or not set(target) & set(model):
        return None
    row = ctx.row_of(open_at)
    new_value = _adapt_value(key, value, target, ctx.visible_names(row))
    if new_value is None:
        return None
    addition = f", {key}={new_value}" if inner.strip() else f"{key}={new_value}"
    line = ctx.lines[row]
    open_col, close_col = open_at - ctx.starts[row], close_at - ctx.starts[row]
    new_line = line[:close_col] + addition + line[close_col:]
    limit = _line_limit(ctx)
    if ctx.lang == "py" and limit is not None and len(new_line) > limit:
        wrapped = _wrap_call(new_line, open_col, close_col + len(addition), limit)
        return _Edit(ctx.starts[row], ctx.starts[row] + len(line), wrapped)
    return _Edit(close_at, close_at, addition)


# --------------------------------------------------------------------------- 6. await-async-call


_ASSIGNED_CALL = re.compile(
    r"^(\s*(?:(?:const|let|var)\s+[\w$]+(?:\s*:[^=]+)?\s*=|[\w$.]+\s*=|return)\s+)(?!await\b)(?=[\w$.]+\s*\()"
)


def await_async_call(ctx: _Context) -> _Result | None:
    """After ``f`` became ``async``: await the calls the user just added to it
    (why else make it async), and ``f``'s own calls from async functions."""
    event = ctx.last_event
    if event is None or event.path != ctx.path or ctx.lang not in ("py", "ts"):
        return None
    removed = [line for hunk in ctx.last_hunks for change in hunk.changes for line in change.removed]
    added = [line for hunk in ctx.last_hunks for change in hunk.changes for line in change.added]
    became: list[str] = []
    for line in added:
        match = re.search(r"\basync\s+(?:function\s*\*?\s*|def\s+)([\w$]+)", line)
        name = re.escape(match.group(1)) if match else ""
        if match and any(re.search(rf"(?<![\w$]){name}(?![\w$])", r) and "async" not in r for r in removed):
            became.append(match.group(1))
    edits: list[_Edit] = []
    new_lines = {line.strip() for line in added}
    for name in became:
        word = rf"(?<![\w$]){re.escape(name)}(?![\w$])"
        header = next((r for r, line in enumerate(ctx.lines) if re.search(rf"\basync\b.*{word}", line)), None)
        if header is None:
            continue
        for row in range(header + 1, _function_end(ctx.lines, header, ctx.lang) + 1):
            match = _ASSIGNED_CALL.match(ctx.lines[row])
            if match and ctx.lines[row].strip() in new_lines:
                at = ctx.offset_of(row, match.end())
                edits.append(_Edit(at, at, "await "))
        for open_at, _, _ in _calls(ctx, name):
            row = ctx.row_of(open_at)
            around = ctx.function_at(row)
            chain = re.search(r"(?:[\w$]+\s*\.\s*)*[\w$]+\s*$", ctx.text[ctx.starts[row] : open_at])
            if around is None or "async" not in ctx.lines[around[0]] or chain is None:
                continue
            at = ctx.starts[row] + chain.start()
            if not ctx.text[ctx.starts[row] : at].rstrip().endswith("await"):
                edits.append(_Edit(at, at, "await "))
    if not edits:
        return None
    return _Result(tuple(edits), _focus_near(edits, ctx.offset))


# --------------------------------------------------------------------------- 7. add-import


_PY_STDLIB_NAMES: dict[str, str] = {
    **dict.fromkeys(("Path", "PurePath", "PurePosixPath"), "pathlib"),
    **dict.fromkeys(("dataclass", "field", "replace", "asdict", "astuple", "fields"), "dataclasses"),
    **dict.fromkeys(
        ("Any", "Optional", "Union", "TypeVar", "Generic", "Protocol", "cast", "overload",
         "TYPE_CHECKING", "ClassVar", "Literal", "Final", "NamedTuple", "TypedDict"),
        "typing",
    ),
    **dict.fromkeys(("defaultdict", "Counter", "OrderedDict", "deque", "namedtuple"), "collections"),
    **dict.fromkeys(("Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping", "Callable"), "collections.abc"),
    **dict.fromkeys(("partial", "reduce", "wraps", "lru_cache", "cached_property", "total_ordering"), "functools"),
    **dict.fromkeys(("Enum", "IntEnum", "Flag", "auto"), "enum"),
    **dict.fromkeys(("datetime", "date", "timedelta", "timezone"), "datetime"),
    **dict.fromkeys(("ABC", "abstractmethod"), "abc"),
    **dict.fromkeys(("contextmanager", "suppress", "ExitStack"), "contextlib"),
    **dict.fromkeys(("StringIO", "BytesIO"), "io"),
    "Decimal": "decimal",
    "Fraction": "fractions",
    "deepcopy": "copy",
    "dedent": "textwrap",
}
_PY_IMPORT = re.compile(r"^(?:from\s+(?P<from>[\w.]+)\s+import\s+(?P<names>[^()#]+?)\s*(?:#.*)?|import\s+(?P<module>[\w.]+))$")


@dataclass(frozen=True)
class _PyImport:
    """A one-line top-level import: ``from module import names`` or ``import module``."""

    row: int
    module: str
    names: str | None
    names_at: int  # column of ``names``

    @property
    def sort_key(self) -> tuple[int, str]:
        """isort's default order in a section: ``import x`` first, then ``from``."""
        return (0 if self.names is None else 1, self.module.lower())


def _py_imports(lines: Sequence[str]) -> list[_PyImport]:
    found = []
    for row, line in enumerate(lines):
        match = _PY_IMPORT.match(line)
        if match is None or (match.group("from") or match.group("module")) == "__future__":
            continue
        if match.group("from"):
            found.append(_PyImport(row, match.group("from"), match.group("names"), match.start("names")))
        else:
            found.append(_PyImport(row, match.group("module"), None, 0))
    return found


def _py_module_of(ctx: _Context, name: str) -> str | None:
    """Where ``name`` comes from: another buffer's absolute import, else the stdlib."""
    for path, buffer in sorted(ctx.request.buffers.items()):
        if path == ctx.path:
            continue
        for found in _py_imports(buffer.split("\n")):
            if found.names and not found.module.startswith(".") and name in _split_names(found.names):
                return found.module
    return _PY_STDLIB_NAMES.get(name)


def _split_names(names: str) -> list[str]:
    return [n.strip() for n in names.split(",") if n.strip()]


def _python_import(ctx: _Context, name: str, used_as_module: bool) -> _Edit | None:
    """Import ``name`` in a Python file: into an existing ``from M import`` line,
    or as a new line in the stdlib import block, in isort order."""
    module = _py_module_of(ctx, name)
    if module is None and used_as_module and name in sys.stdlib_module_names:
        module, name = name, ""
    if module is None:
        return None
    imports = _py_imports(ctx.lines)
    for found in imports:
        if name and found.module == module and found.names is not None:
            names = _split_names(found.names)
            merged = [*names, name]
            if names == sorted(names, key=str.lower):
                merged.sort(key=str.lower)
            start = ctx.starts[found.row] + found.names_at
            return _Edit(start, start + len(found.names), ", ".join(merged))
    stdlib = [f for f in imports if f.module.split(".")[0] in sys.stdlib_module_names]
    if not stdlib:
        return None
    block = [stdlib[0]]
    for found in stdlib[1:]:
        if found.row != block[-1].row + 1:
            break
        block.append(found)
    new = _PyImport(-1, module, name or None, 0)
    target = next((f.row for f in block if f.sort_key > new.sort_key), block[-1].row + 1)
    at = ctx.offset_of(target) if target < len(ctx.lines) else len(ctx.text)
    statement = f"from {module} import {name}" if name else f"import {module}"
    return _Edit(at, at, statement + "\n")


def _unknown_names(ctx: _Context, added: Sequence[str]) -> list[str]:
    """Names the added lines call or use as a type, module or decorator, that they
    do not bind and that appear nowhere else in the file (so nothing defines or
    imports them)."""
    rows = {r for line in added if (r := _locate(ctx.lines, [line], ctx.row)) is not None}
    rest = "\n".join(line for r, line in enumerate(ctx.lines) if r not in rows)
    names: list[str] = []
    for line in added:
        for match in re.finditer(r"(?<![\w$.])([A-Za-z_]\w*)", line):
            name = match.group(1)
            if name in names or re.search(rf"(?<![\w$]){name}(?![\w$])", rest):
                continue
            before, after = line[: match.start()], line[match.end() :]
            used = re.match(r"\s*[(.<\[]", after) or re.search(r"(?:@|:|->|\bnew)\s*$", before)
            if used and not any(_binds(other, name, ctx.lang) for other in added):
                names.append(name)
    return names


def _binds(line: str, name: str, lang: str) -> bool:
    """Whether ``line`` gives ``name`` a value (so it needs no import)."""
    word = re.escape(name)
    return bool(
        re.search(rf"\b(?:const|let|var|for|def|function|class|fn|func|as|import)\s+{word}\b", line)
        or re.search(rf"(?<![\w$.]){word}\s*(?::=|=(?![=>])|=>)", line)
        or re.search(rf"\([^()]*(?<![\w$.]){word}\b[^()]*\)\s*(?::[^=]+)?=>", line)
        or (_header_name(line, lang) is not None and re.search(rf"[(,]\s*{word}\s*[,):]", line))
    )


_TS_IMPORT = re.compile(r"^import\s+(?:type\s+)?\{(?P<names>[^}]*)\}\s+from\s+(?P<q>[\"'])(?P<module>[^\"']+)(?P=q);?\s*$")


def _ts_module_score(ctx: _Context, module: str, imported: Sequence[str], name: str) -> int:
    """How likely ``module`` provides ``name``: it certainly does when a buffer at
    that path exports it; else by the longest name prefix it shares with the
    module's file name or with a name imported from it (``formatMoney`` from
    ``./format`` for ``formatQuantity``), ending at a word boundary."""
    target = posixpath.normpath(posixpath.join(posixpath.dirname(ctx.path), module))
    export = re.compile(rf"^export\s+(?:async\s+)?(?:function|const|let|class|interface|type|enum)\s+{re.escape(name)}\b", re.MULTILINE)
    for path, buffer in ctx.request.buffers.items():
        if path != ctx.path and posixpath.splitext(path)[0] == target and export.search(buffer):
            return 1000
    stem = posixpath.basename(module).split(".")[0]
    score = len(stem) if stem and name.lower().startswith(stem.lower()) else 0
    for other in imported:
        common = len(posixpath.commonprefix([other, name]))
        if common >= 3 and (common == len(name) or name[common].isupper() or name[common] == "_"):
            score = max(score, common)
    return score


def _ts_import(ctx: _Context, name: str) -> _Edit | None:
    """Import ``name`` in a TypeScript file, into the ``import { ... }`` of the
    module most likely to provide it (in order if the names there are sorted)."""
    best: tuple[int, int, re.Match[str]] | None = None
    for row, line in enumerate(ctx.lines):
        match = _TS_IMPORT.match(line)
        if not match:
            continue
        imported = [n.removeprefix("type ").strip() for n in _split_names(match.group("names"))]
        score = _ts_module_score(ctx, match.group("module"), imported, name)
        if score and (best is None or score > best[0]):
            best = (score, row, match)
    if best is None:
        return None
    _, row, match = best
    names = _split_names(match.group("names"))
    plain = [n.removeprefix("type ").strip() for n in names]
    merged = [*names, name]
    if plain == sorted(plain, key=str.lower):
        merged.sort(key=lambda n: n.removeprefix("type ").strip().lower())
    start = ctx.starts[row] + match.start("names")
    return _Edit(start, start + len(match.group("names")), " " + ", ".join(merged) + " ")


def add_import(ctx: _Context) -> _Result | None:
    """Import a name the user just started using that the file does not know."""
    event = ctx.last_event
    if event is None or event.path != ctx.path or ctx.lang not in ("py", "ts"):
        return None
    added = [line for hunk in ctx.last_hunks for change in hunk.changes for line in change.added if line.strip()]
    for name in _unknown_names(ctx, added):
        if ctx.lang == "py":
            as_module = any(re.search(rf"(?<![\w.]){name}\.", line) for line in added)
            edit = _python_import(ctx, name, as_module)
        else:
            edit = _ts_import(ctx, name)
        if edit is not None:
            return _Result((edit,), None)
    return None


# --------------------------------------------------------------------------- provider


Heuristic = Callable[[_Context], "_Result | None"]

#: In order of confidence: the first that proposes a change wins.
HEURISTICS: tuple[tuple[str, Heuristic], ...] = (
    ("complete-word", complete_word),
    ("carry-rename", carry_rename),
    ("mirror-addition", mirror_addition),
    ("pass-new-parameter", pass_new_parameter),
    ("pass-new-keyword", pass_new_keyword),
    ("await-async-call", await_async_call),
    ("add-import", add_import),
)


def baseline(request: PredictionRequest) -> Prediction:
    """The first heuristic's change, as the new cursor-file text; else no change."""
    if request.cursor.path not in request.buffers:
        return Prediction.no_change(model=MODEL)
    ctx = _Context(request)
    for name, heuristic in HEURISTICS:
        result = heuristic(ctx)
        if result is None:
            continue
        text, cursor = _apply(ctx.text, result)
        if text != ctx.text:
            return Prediction(text=text, cursor=cursor, model=MODEL, extra={"heuristic": name})
    return Prediction.no_change(model=MODEL, extra={"heuristic": None})


def make_baseline(settings: Settings) -> Completion:
    return baseline
