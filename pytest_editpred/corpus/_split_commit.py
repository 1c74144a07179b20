"""Examples cut out of real commits: Zed's ``ep split-commit``, read from git
(``zed-authoring-and-context.md`` §1).

Zed's input is a commit whose hunks an LLM has already put in the order a person
would type them; ours is the commit as recorded, in file and hunk order, read from
the repository with one ``git log -p`` and one ``git cat-file --batch``. From there
the rules are Zed's, rule by rule: the edit model and its serializer (§1.3), the
split (§1.4), the half-typed line (§1.5), the cursor and its excerpt (§1.6), the
split kinds (§1.7), service files (§1.8), ``-n`` (§1.9).

Where Zed cannot be followed, because its example would not load here, we depart and
say so (each is listed in :data:`DEPARTURES`): ``revision`` is the parent's full sha
(it resolves offline), a renamed file keeps its old name on both sides (Zed writes
the new one, which does not exist at the parent), the cursor excerpt grows by whole
lines until it is unique in its file, and every example is *checked* before it is
written: the edit history applies at the parent, the excerpt is found once, the
expected patch applies and changes something. So an example written here passes
with the ``oracle`` provider and fails with ``noop``, by construction.

Randomness is Python's :class:`random.Random`, seeded from ``--seed`` and the
commit's sha (never the salted ``hash()``), with Zed's draws in Zed's order; Zed's
ChaCha12 ``StdRng`` cannot be reproduced, so a seed gives other draws than in Zed
but always the same ones here.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Protocol

from .._diff import apply_sections
from .._exceptions import EditPredError, GitError
from ..example import Example, from_json, from_markdown, to_json, to_markdown
from ..scene import GIT_CONFIG, GIT_LOCAL, git_isolated_environment, git_kill, git_start

__all__ = [
    "DEPARTURES",
    "KINDS",
    "Commit",
    "CommitResult",
    "Cursor",
    "Generated",
    "Hunk",
    "Line",
    "Options",
    "Patch",
    "Repository",
    "RepositoryError",
    "SplitFailure",
    "SplitPoint",
    "SplitPointError",
    "check_revisions",
    "classify",
    "count_commits",
    "DEFAULT_MAX_COUNT",
    "default_revisions",
    "cursor_excerpt",
    "extract_edits",
    "generate",
    "generate_at",
    "imitate_human_edits",
    "is_service_file",
    "locations",
    "open_repository",
    "parse_patch",
    "parse_split_point",
    "read_commits",
    "repo_name",
    "sample_cursor_position",
    "split_commit",
    "split_ordered_patch",
]

KINDS = ("fim", "same-file-near", "same-file-far", "cross-file")
MARKER = "<|user_cursor|>"
SAME_FILE_NEAR_LINE_THRESHOLD = 30
#: A commit with more edits than this, or a larger diff, is skipped as ``too big``:
#: Zed has no limit, but an example of thousands of lines teaches nothing and costs.
MAX_EDITS = 5000
MAX_DIFF_BYTES = 2_000_000
#: Lines longer than this are never half-typed (the token diff is quadratic).
MAX_HALF_TYPED_CHARS = 2000
#: Generations tried in all for one kind-based split (Zed: 10 per candidate, unbounded).
MAX_KIND_ATTEMPTS = 200
GIT_TIMEOUT = 120.0
LOG_TIMEOUT = 1800.0

DEPARTURES = (
    "input: the commit as recorded (file and hunk order), read from git, not an LLM-reordered diff",
    "revision: the parent's full sha, not '<sha>~1'",
    "name: <repo>-<sha8>-<split> (a second sample at the same split adds -<i>); Zed: <repo>-<sha8>[-<i>]",
    "renames: the old path on both sides (Zed: the new one, absent at the parent); pure renames vanish as in Zed",
    "binary, symlink, non-UTF-8, CRLF files and files without a final newline are left out of the diff; "
    "a commit with nothing else is skipped",
    "merge and root commits are skipped; so are commits whose edits are all in service files",
    f"commits over {MAX_EDITS} edits or {MAX_DIFF_BYTES} diff bytes are skipped as too big (Zed: no limit)",
    "a pure insertion not right after the last history edit gets its half-typed line as a new history hunk "
    "at the target's place (Zed inserts it after the last history edit, wherever that is)",
    "the expected patch keeps only the files open after the history (those it touched and the cursor's) "
    "and files it creates: the oracle applies it to the open buffers alone",
    "the cursor excerpt grows by whole lines around it until it occurs once in the file",
    "every example is checked before writing (history applies, excerpt unique, expected patch applies and "
    "changes something); a do-nothing target is skipped and counted, a failing one is a problem",
    "an explicit kind:value split that classifies otherwise is a skip (Zed: an error)",
    "the RNG is Python's random.Random seeded with (seed + i) ^ int(sha, 16); Zed's draws are not reproduced",
)


class SplitPointError(EditPredError):
    default_fix = (
        "Give a fraction (0.5), an index (3), a kind (fim, same-file-near, same-file-far, cross-file) or kind:value."
    )


class SplitFailure(Exception):
    """This split cannot give an example; ``reason`` is the skip counter's key."""

    def __init__(self, message: str, reason: str = "failed") -> None:
        super().__init__(message)
        self.reason = reason


# ---------------------------------------------------------------------------
# §1.2 split points


@dataclass(frozen=True)
class SplitPoint:
    """``kind`` (one of :data:`KINDS`) and/or ``value`` (a float fraction or an int
    index); neither is Zed's default, a random split."""

    kind: str | None = None
    value: float | int | None = None

    def __str__(self) -> str:
        if self.kind and self.value is not None:
            return f"{self.kind}:{self.value}"
        return self.kind or ("random" if self.value is None else str(self.value))


def _parse_value(text: str) -> float | int:
    if "." in text:
        try:
            return float(text)
        except ValueError:
            raise SplitPointError(f"invalid split point fraction '{text}'") from None
    if not text.isdigit():  # Rust's usize parse: digits only (a '+' aside)
        raise SplitPointError(f"invalid split point index '{text}'")
    return int(text)


def parse_split_point(text: str) -> SplitPoint:
    """Zed's ``parse_split_point``: ``kind:value``, a kind, a fraction (has a ``.``)
    or an index; the error messages are Zed's."""
    if ":" in text:
        kind, value = text.split(":", 1)
        if kind not in KINDS:
            raise SplitPointError(
                f"invalid split point kind '{kind}' (expected fim, same-file-near, same-file-far, or cross-file)"
            )
        if not value:
            raise SplitPointError(f"missing split point after kind '{kind}:'")
        return SplitPoint(kind, _parse_value(value))
    if text in KINDS:
        return SplitPoint(text)
    return SplitPoint(None, _parse_value(text))


def resolve_split_value(value: float | int, num_edits: int) -> int:
    """A fraction gives ``min(floor(f × n), n)`` (negative saturates to 0), an index ``min(i, n)``."""
    if isinstance(value, float):
        product = value * num_edits
        if product != product or product <= 0:  # NaN or negative: Rust's cast gives 0
            return 0
        return min(int(product) if product < 2**63 else num_edits, num_edits)
    return min(value, num_edits)


# ---------------------------------------------------------------------------
# §1.3 the edit model


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
            name = _header_path(h.filename)
            out.append("--- /dev/null\n" if h.old_start == 0 and h.old_count == 0 else f"--- a/{name}\n")
            out.append("+++ /dev/null\n" if h.new_start == 0 and h.new_count == 0 else f"+++ b/{name}\n")
            out.append(f"@@ -{h.old_start},{h.old_count} +{h.new_start},{h.new_count} @@ {h.comment}".rstrip() + "\n")
            out.extend(line.render() + "\n" for line in h.lines)
        return "".join(out)

    @property
    def num_edits(self) -> int:
        return sum(1 for h in self.hunks for line in h.lines if line.kind in "+-")


def _header_path(name: str) -> str:
    """Zed writes the name as it is; one with whitespace or a quote is quoted, so
    that the tolerant parser here (and Zed's) reads the whole name back."""
    if re.search(r'[\s"\\]', name):
        return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return name


def _rust_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


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


def _unquote_name(name: str) -> str:
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        return re.sub(r"\\(.)", r"\1", name[1:-1])
    return name


def parse_patch(text: str) -> Patch:
    """Zed's ``Patch::parse_unified_diff``; the header keeps only its ``//`` lines (§1.4 step 3)."""
    header: list[str] = []
    hunks: list[Hunk] = []
    current = ""
    file_set = False
    hunk: Hunk | None = None
    in_header = True
    for line in _rust_lines(text):
        is_path = line.startswith(("--- ", "+++ "))
        if in_header and not (is_path or line.startswith("@@")):
            header.append(line)
            continue
        in_header = False
        if line.startswith("@@"):
            if hunk is not None and hunk.lines:
                hunks.append(hunk)
            match = re.match(r"@@\s+-(\S*)\s+\+(\S*)\s+@@ ?(.*)$", line)
            old, new, comment = (match.group(1), match.group(2), match.group(3)) if match else ("", "", "")
            (os_, oc), (ns, nc) = _range(old), _range(new)
            hunk = Hunk(current, os_, oc, ns, nc, comment, [], inherited=not file_set)
            file_set = False
        elif is_path:
            name = _unquote_name(line[4:].strip())
            if name.startswith(("a/", "b/")):
                name = name[2:]
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


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> tuple[Patch, list[Location]]:
    """A patch text parsed once for the read-only steps (never mutate the result)."""
    patch = parse_patch(text)
    return patch, locations(patch)


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


def _normalize(h: Hunk, context: int = 3) -> Hunk | None:
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
    return [n for n in (_normalize(h) for h in hunks) if n is not None]


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


def split_ordered_patch(patch: Patch, split: int) -> tuple[str, str]:
    """``(source, target)`` texts: the first ``split`` edits, and the rest on top of
    them with the ``//`` group header active at the first target edit."""
    source, target = extract_edits(patch, set(range(split)))
    if target.hunks:
        header: str | None = None
        edits = locations(patch)
        if split < len(edits):
            for h in reversed(patch.hunks[: edits[split].hunk_index]):
                comments = _trailing_comments(_garbage_tail(h))
                if comments:
                    header = "".join(c + "\n" for c in comments)
                    break
        if header is None:
            comments = _trailing_comments(_rust_lines(patch.header))
            if comments:
                header = "".join(c + "\n" for c in comments)
        if header is not None:
            target.header = header
    source_lines = _rust_lines(source.to_text())
    while source_lines and source_lines[-1].startswith("//"):
        source_lines.pop()
    source_text = "".join(line + "\n" for line in source_lines)
    return source_text, target.to_text()


def _garbage_tail(h: Hunk) -> list[str]:
    """The hunk's last lines while they are Garbage (blank ones are skipped later)."""
    tail: list[str] = []
    for line in reversed(h.lines):
        if line.kind != "?":
            break
        tail.insert(0, line.text)
    return tail


# ---------------------------------------------------------------------------
# §1.5 the half-typed line


def _is_ident(char: str) -> bool:
    return char.isalnum() or char == "_"


def tokenize(text: str) -> list[str]:
    return re.findall(r"[^\W]+|\s+|.", text, flags=re.S) if text else []


def _myers(a: Sequence[str], b: Sequence[str], max_d: int = 4000) -> list[str] | None:
    """A shortest edit script as steps ``=``, ``-``, ``+`` (None past ``max_d``)."""
    prefix = 0
    while prefix < len(a) and prefix < len(b) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < len(a) - prefix and suffix < len(b) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    a2, b2 = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    n, m = len(a2), len(b2)
    v = {1: 0}
    trace: list[dict[int, int]] = []
    done = False
    for d in range(min(n + m, max_d) + 1):
        trace.append(dict(v))
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[k - 1] < v[k + 1]):
                x = v[k + 1]
            else:
                x = v[k - 1] + 1
            y = x - k
            while x < n and y < m and a2[x] == b2[y]:
                x, y = x + 1, y + 1
            v[k] = x
            if x >= n and y >= m:
                done = True
                break
        if done:
            break
    if not done:
        return None
    steps: list[str] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        vd = trace[d]
        k = x - y
        if d == 0:
            steps.extend("=" * x)
            break
        if k == -d or (k != d and vd[k - 1] < vd[k + 1]):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = vd[prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            steps.append("=")
            x, y = x - 1, y - 1
        steps.append("+" if x == prev_x else "-")
        x, y = prev_x, prev_y
    steps.reverse()
    return ["="] * prefix + steps + ["="] * suffix


def _ops(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]] | None:
    """``similar``'s ops: runs of Equal, and Insert/Delete/Replace between them."""
    steps = _myers(a, b)
    if steps is None:
        return None
    ops: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    at = 0
    while at < len(steps):
        if steps[at] == "=":
            start = at
            while at < len(steps) and steps[at] == "=":
                at += 1
            count = at - start
            ops.append(("equal", i, i + count, j, j + count))
            i, j = i + count, j + count
            continue
        di = dj = 0
        while at < len(steps) and steps[at] != "=":
            if steps[at] == "-":
                di += 1
            else:
                dj += 1
            at += 1
        tag = "replace" if di and dj else ("delete" if di else "insert")
        ops.append((tag, i, i + di, j, j + dj))
        i, j = i + di, j + dj
    return ops


def position_weight(text: str, offset: int) -> int:
    """How likely a person pauses typing at ``offset`` (characters) of ``text``."""
    if offset == 0:
        return 1
    prev = text[offset - 1]
    nxt = text[offset] if offset < len(text) else None
    if prev in ",;:([{":
        return 10
    if prev in ")]}":
        return 8
    if prev in ".+-*/=<>&|!":
        return 5
    if _is_ident(prev) and (nxt is None or not _is_ident(nxt)):
        return 8
    if prev.isspace():
        return 6
    if _is_ident(prev):
        return 1
    return 3


def fuzzy_ratio(s1: str, s2: str) -> int:
    if not s1 and not s2:
        return 100
    if not s1 or not s2:
        return 0
    steps = _myers(list(s1), list(s2))
    matching = steps.count("=") if steps is not None else 0
    return 2 * matching * 100 // (len(s1.encode()) + len(s2.encode()))


def half_typed(old: str, new: str, seed: int) -> tuple[str, int] | None:
    """``(P, cursor byte column)``: ``new`` typed part way over ``old``, the rest of
    the old line kept when it still resembles the rest of the new one."""
    if len(old) + len(new) > MAX_HALF_TYPED_CHARS:
        return None
    ts, tt = tokenize(old), tokenize(new)
    ops = _ops(ts, tt)
    if ops is None:
        return None
    candidates: list[tuple[int, int, str, int]] = []  # (weight, op, half, chars typed in it)
    t_off = 0
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        old_text, new_text = "".join(ts[i1:i2]), "".join(tt[j1:j2])
        if tag in ("insert", "replace"):
            for cut in range(1, len(new_text) + 1):
                if new[: t_off + cut].strip():
                    candidates.append((position_weight(new, t_off + cut), index, "ins", cut))
        if tag in ("delete", "replace"):
            candidates.extend((2, index, "del", cut) for cut in range(1, len(old_text) + 1))
        t_off += len(new_text)
    if not candidates:
        return None
    total = sum(c[0] for c in candidates)
    if total == 0:
        chosen = candidates[seed % len(candidates)]
    else:
        goal, running = seed % total, 0
        chosen = candidates[-1]
        for candidate in candidates:
            running += candidate[0]
            if running > goal:
                chosen = candidate
                break
    _, op_index, half, cut = chosen
    parts: list[str] = []
    k = 0
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        old_text, new_text = "".join(ts[i1:i2]), "".join(tt[j1:j2])
        if index < op_index:
            if tag != "delete":
                parts.append(new_text)
            if tag != "insert":
                k = i2
            continue
        if half == "ins":
            parts.append(new_text[:cut])
        elif tag == "replace":
            parts.append(new_text + old_text[:cut])
        else:
            parts.append(old_text[:cut])
        if tag in ("equal", "replace"):
            k = i2
        elif tag == "delete":
            k = i1 + min(len(old_text[:cut].encode()), i2 - i1)
        break
    typed = "".join(parts)
    rest_old, rest_new = "".join(ts[k:]), "".join(tt[k:])
    result = typed + rest_old if fuzzy_ratio(rest_old, rest_new) > 35 else typed
    return result, min(len(typed.encode()) + 1, len(result.encode()))


@dataclass(frozen=True)
class Cursor:
    """File, 1-based line and UTF-8 byte column, as Zed's split-commit keeps them."""

    filename: str
    line: int
    column: int


def imitate_human_edits(source: str, target: str, seed: int) -> tuple[str, str, Cursor | None]:
    """§1.5: when the next edit adds a line, pretend it is half typed: ``+P`` joins
    the history, ``-P`` the target, and the cursor sits after the typed part."""
    (src, sources), (tgt, targets) = _parsed(source), _parsed(target)
    if not tgt.hunks or not targets or targets[0].kind != "+":
        return source, target, None
    first = targets[0]
    last = sources[-1] if sources else None
    replacement = (
        last is not None
        and last.kind == "-"
        and last.filename == first.filename
        and last.target_line == first.target_line
    )
    if replacement:
        assert last is not None
        old = last.text
    else:
        old = ""
        if any(s.filename == first.filename and s.target_line == first.target_line for s in sources):
            return source, target, None
    if old == first.text:
        return source, target, None
    typed = half_typed(old, first.text, seed)
    if typed is None:
        return source, target, None
    partial, column = typed
    if not partial.strip() or partial == old:
        return source, target, None
    src, tgt = src.copy(), tgt.copy()
    if replacement or (
        last is not None
        and last.kind == "+"
        and last.filename == first.filename
        and last.target_line + 1 == first.target_line
    ):
        assert last is not None
        h = src.hunks[last.hunk_index]
        h.lines.insert(last.line_index + 1, Line("+", partial))
        h.new_count += 1
    else:  # typed where the target adds it: a hunk of its own, after the history
        th = tgt.hunks[first.hunk_index]
        lines: list[Line] = []
        for li, line in enumerate(th.lines):
            if li == first.line_index:
                lines.append(Line("+", partial))
            elif line.kind in " -":
                lines.append(Line(" ", line.text))
        old_count = sum(1 for line in lines if line.kind == " ")
        start = th.new_start
        hunk = Hunk(th.filename, start if old_count else 0, old_count, start, old_count + 1, th.comment, lines)
        normalized = _normalize(hunk)
        assert normalized is not None
        src.hunks.append(normalized)
    th = tgt.hunks[first.hunk_index]
    th.lines.insert(first.line_index, Line("-", partial))
    th.old_count += 1
    row = last.source_line if replacement and last is not None else first.target_line
    return src.to_text(), tgt.to_text(), Cursor(first.filename, row, column)


# ---------------------------------------------------------------------------
# §1.6 the cursor


class Rng(Protocol):
    """The draws split-commit makes (:class:`random.Random` has them)."""

    def randint(self, a: int, b: int) -> int: ...

    def random(self) -> float: ...

    def shuffle(self, x: list[int]) -> None: ...


def _nbytes(text: str) -> int:
    return len(text.encode())


def sample_cursor_position(source: str, target: str, rng: Rng) -> Cursor:
    """Zed's ``sample_cursor_position``: the end of the last history edit (80%) or
    just above the first target edit, then a 20% chance of a 1..5 byte jitter."""
    sources, (tgt, targets) = _parsed(source)[1], _parsed(target)

    def end_of_source() -> tuple[Cursor, int] | None:
        if not sources:
            return None
        last = sources[-1]
        length = _nbytes(last.text) if last.kind == "+" else 1
        return Cursor(last.filename, last.target_line, length), length

    def start_of_target() -> tuple[Cursor, int] | None:
        if not targets:
            return None
        first = targets[0]
        h = tgt.hunks[first.hunk_index]
        prev = h.lines[first.line_index - 1].text if first.line_index > 0 else ""
        length = max(_nbytes(prev), 1) - 1
        return Cursor(first.filename, max(first.target_line - 1, 1), max(length - 1, 0)), length

    order = (end_of_source, start_of_target) if rng.random() < 0.8 else (start_of_target, end_of_source)
    found = order[0]() or order[1]()
    if found is None:
        raise SplitFailure("failed to sample cursor position")
    cursor, length = found
    if rng.random() < 0.2:
        d = rng.randint(1, 5)
        column = min(cursor.column + d, length) if rng.random() < 0.5 else max(cursor.column - d, 0)
        cursor = replace(cursor, column=column)
    return cursor


def _new_side(h: Hunk) -> tuple[list[str], int]:
    lines = [line.text for line in h.lines if line.kind in " +"]
    if lines:
        return lines, h.new_start
    return [line.text for line in h.lines if line.kind == "-"], h.old_start


def _floor_column(text: str, column: int) -> int:
    """A byte column as a character offset, floored to a character boundary."""
    data = text.encode()[: min(column, _nbytes(text))]
    return len(data.decode(errors="ignore"))


def cursor_excerpt(cursor: Cursor, source: str, target: str) -> tuple[str, bool] | None:
    """Zed's ``get_cursor_excerpt``: the lines of one hunk with the marker on the
    cursor line; ``(text, marked)``, marked False when no line is the cursor's."""
    (src, sources), (tgt, _) = _parsed(source), _parsed(target)
    lines: list[str] = []
    first_line = 0
    if sources and sources[-1].filename == cursor.filename and sources[-1].target_line == cursor.line:
        lines, first_line = _new_side(src.hunks[sources[-1].hunk_index])
    else:
        th = next((h for h in tgt.hunks if h.filename == cursor.filename), None)
        if th is not None:
            lines, first_line = [line.text for line in th.lines if line.kind in "- "], th.new_start
            if not lines:
                lines = [line.text for line in th.lines]
        else:
            sh = next((h for h in src.hunks if h.filename == cursor.filename), None)
            if sh is not None:
                lines, first_line = _new_side(sh)
    if not lines:
        return None
    marked = False
    out = []
    for i, text in enumerate(lines):
        if first_line + i == cursor.line:
            at = _floor_column(text, cursor.column)
            text = text[:at] + MARKER + text[at:]
            marked = True
        out.append(text)
    return "\n".join(out), marked


# ---------------------------------------------------------------------------
# §1.7, §1.8 kinds and service files


def classify(target: str, cursor: Cursor, from_imitation: bool) -> str | None:
    targets = _parsed(target)[1]
    if not targets:
        return None
    edit = targets[0]
    if edit.filename != cursor.filename:
        return "cross-file"
    if from_imitation and edit.target_line == cursor.line:
        return "fim"
    if abs(edit.target_line - cursor.line) <= SAME_FILE_NEAR_LINE_THRESHOLD:
        return "same-file-near"
    return "same-file-far"


_SERVICE_NAMES = frozenset(
    {
        "package.json",
        "package-lock.json",
        "pnpm-lock.yaml",
        "Cargo.lock",
        "yarn.lock",
        "bun.lock",
        "bun.lockb",
        "go.sum",
        "composer.lock",
        "Gemfile.lock",
        "Pipfile.lock",
        "poetry.lock",
        "uv.lock",
        ".gitlab-ci.yml",
        ".travis.yml",
        "azure-pipelines.yml",
        "Jenkinsfile",
    }
)
_SERVICE_DIRS = frozenset({"dist", "build", "coverage", "node_modules", "vendor"})


def is_service_file(path: str) -> bool:
    """Zed's ``is_service_file``: lock files, CI configuration, generated and vendored code."""
    path = path.strip()
    if path.startswith(("a/", "b/")):
        path = path[2:]
    while path.startswith("./"):
        path = path[2:]
    if not path or path == "/dev/null":
        return True
    parts = path.split("/")
    name = parts[-1]
    if name in _SERVICE_NAMES or name.endswith((".min.js", ".bundle.js", ".pb.go")) or ".generated." in name:
        return True
    if path == ".github/workflows" or path.startswith(".github/workflows/"):
        return True
    if path == ".circleci" or path.startswith(".circleci/"):
        return True
    return any(part in _SERVICE_DIRS for part in parts)


# ---------------------------------------------------------------------------
# §1.4 the algorithm


@dataclass(frozen=True)
class Generated:
    """One split: Zed's output fields, before they become an :class:`Example`."""

    split: int
    edit_history: str
    expected_patch: str
    cursor: Cursor
    cursor_position: str
    kind: str | None
    from_imitation: bool


def generate_at(patch: Patch, split: int, rng: Rng) -> Generated:
    """``generate_split_commit_at_split`` plus the excerpt (§1.4 steps 6–7)."""
    source, target = split_ordered_patch(patch, split)
    human_edit_seed = rng.randint(1, 10000)
    source, target, cursor = imitate_human_edits(source, target, human_edit_seed)
    from_imitation = cursor is not None
    if cursor is None:
        cursor = sample_cursor_position(source, target, rng)
    kind = classify(target, cursor, from_imitation)
    excerpt = cursor_excerpt(cursor, source, target)
    if excerpt is None:
        raise SplitFailure("failed to generate cursor excerpt", "no cursor excerpt")
    if not excerpt[1]:
        raise SplitFailure(f"the cursor line {cursor.line} is outside its excerpt", "no cursor excerpt")
    if split == 0:
        target = ""
    return Generated(split, _sequential(source), _sequential(target), cursor, excerpt[0], kind, from_imitation)


def _sequential(text: str) -> str:
    """The patch with each hunk's old start made the row it applies at.

    Zed's headers keep a history hunk's old start in the parent's numbering, but
    every hunk is its own file section, applied to the text the hunks before it left:
    there it starts at its *new* start. The start only breaks ties between places
    where the context occurs, so a wrong one makes a repeated context unplaceable.
    A creation (old count 0) and a deletion (new start 0) keep Zed's numbers."""
    if not text:
        return text
    patch = parse_patch(text)
    changed = False
    for h in patch.hunks:
        if h.old_count and h.new_start and h.old_start != h.new_start:
            h.old_start = h.new_start
            changed = True
    return patch.to_text() if changed else text


def generate(
    patch: Patch, point: SplitPoint, rng: Rng, accept: Callable[[Generated], bool] = lambda g: True
) -> Generated:
    """Choose the split as §1.4 step 5 says and generate it; ``accept`` turns down a
    generated split (one that would not load), which kind-based sampling then skips
    like Zed's failed generations."""
    num_edits = patch.num_edits
    if num_edits == 0:
        raise SplitFailure("no edits found in commit", "no edits")
    edits = locations(patch)
    if point.kind is None and point.value is None:
        split = rng.randint(1, num_edits)
        for _ in range(9):
            if split >= num_edits or not is_service_file(edits[split].filename):
                break
            split = rng.randint(1, num_edits)
        return generate_at(patch, split, rng)
    if point.kind is None:
        assert point.value is not None
        return generate_at(patch, resolve_split_value(point.value, num_edits), rng)
    if point.value is not None:
        split = resolve_split_value(point.value, num_edits)
        generated = generate_at(patch, split, rng)
        if generated.kind != point.kind:
            raise SplitFailure(
                f"split point {split} classified as {generated.kind or 'empty-target'}, expected {point.kind}",
                "other kind",
            )
        return generated
    candidates = []
    for split in range(1, num_edits):
        prev, nxt = edits[split - 1], edits[split]
        if is_service_file(nxt.filename):
            continue
        if point.kind == "fim" and nxt.kind != "+":
            continue
        if point.kind == "same-file-far" and (
            prev.filename != nxt.filename or abs(nxt.target_line - prev.target_line) <= SAME_FILE_NEAR_LINE_THRESHOLD
        ):
            continue
        if point.kind == "cross-file" and prev.filename == nxt.filename:
            continue
        candidates.append(split)
    rng.shuffle(candidates)
    attempts = 0
    for split in candidates:
        for _ in range(10):
            attempts += 1
            if attempts > MAX_KIND_ATTEMPTS:
                break
            try:
                generated = generate_at(patch, split, rng)
            except SplitFailure:
                continue
            if generated.kind == point.kind and accept(generated):
                return generated
    raise SplitFailure(f"no split point found matching {point.kind}", "no split of that kind")


# ---------------------------------------------------------------------------
# git


#: What ``git log -p`` must not take from anywhere else: the scene's pins, and the
#: settings that change a diff's text.
_CONFIG = [
    *GIT_CONFIG,
    *(
        arg
        for setting in (
            "core.quotePath=false",
            "log.showSignature=false",
            "diff.noprefix=false",
            "diff.mnemonicPrefix=false",
            "color.ui=false",
        )
        for arg in ("-c", setting)
    ),
]


def _environment(**extra: str) -> dict[str, str]:
    """The scene's environment for git, isolated from the user's and system's git
    configuration (they would change the diff), local repositories only."""
    return git_isolated_environment(GIT_LOCAL, **extra)


def _start(args: list[str], **options: Any) -> subprocess.Popen[bytes]:
    return git_start(["git", *args], start_new_session=os.name == "posix", **options)


def _git(
    args: list[str], *, timeout: float = GIT_TIMEOUT, env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[int, bytes, str]:
    """``(status, stdout, first line of stderr)`` of ``git *args``, killed at ``timeout``."""
    proc = _start(
        [*_CONFIG, *args],
        cwd=cwd,
        env=env or _environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        git_kill(proc)
        raise GitError(f"git {args[0] if args else ''} did not finish within {timeout:g} s") from None
    except BaseException:
        git_kill(proc)
        raise
    lines = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
    return proc.returncode, out, (lines[0] if lines else "")


class RepositoryError(EditPredError):
    """REPO or REVISIONS cannot be read: a usage error, exit status 2."""


@dataclass
class Repository:
    """An opened repository: its git dir, ``origin`` URL (None for a bundle), and a
    temporary clone to remove at :meth:`close`."""

    path: str
    git_dir: Path
    origin: str | None
    temporary: Path | None = None
    _catfile: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def read_blob(self, spec: str) -> bytes | None:
        """The object ``spec`` (``<commit>:<path>``), or None when it is not a blob."""
        if self._catfile is None or self._catfile.poll() is not None:
            self._catfile = _start(
                [*_CONFIG, f"--git-dir={self.git_dir}", "cat-file", "--batch"],
                env=_environment(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        stdin, stdout = self._catfile.stdin, self._catfile.stdout
        assert stdin is not None and stdout is not None
        if "\n" in spec:
            return None
        stdin.write(spec.encode() + b"\n")
        stdin.flush()
        fields = stdout.readline().split()
        if len(fields) != 3 or not fields[2].isdigit():
            return None
        data = stdout.read(int(fields[2]) + 1)[:-1]
        return data if fields[1] == b"blob" else None

    def close(self) -> None:
        if self._catfile is not None:
            if self._catfile.stdin is not None:
                self._catfile.stdin.close()
            try:
                self._catfile.wait(timeout=10)
            except subprocess.TimeoutExpired:
                git_kill(self._catfile)
            if self._catfile.stdout is not None:
                self._catfile.stdout.close()
            self._catfile = None
        if self.temporary is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)
            self.temporary = None

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_repository(path: str) -> Repository:
    """A working repository, a bare one, or a ``.bundle`` (cloned bare into a
    temporary directory, removed at close); :class:`RepositoryError` otherwise."""
    where = Path(path)
    fix = "Give a git repository (working or bare) or a .bundle file."
    if not where.exists():
        raise RepositoryError(f"{path}: no such file or directory", fix=fix)
    if where.is_file():
        temporary = Path(tempfile.mkdtemp(prefix="editpred-split-commit-"))
        status, _, err = _git(
            ["clone", "--bare", "--quiet", "--", str(where.resolve()), str(temporary / "repo.git")], timeout=LOG_TIMEOUT
        )
        if status:
            shutil.rmtree(temporary, ignore_errors=True)
            raise RepositoryError(f"{path}: not a git bundle ({err or 'git clone failed'})", fix=fix)
        return Repository(path, temporary / "repo.git", None, temporary)
    env = _environment(GIT_CEILING_DIRECTORIES=str(where.resolve().parent))
    status, out, err = _git(["rev-parse", "--absolute-git-dir"], env=env, cwd=where)
    if status:
        raise RepositoryError(f"{path}: not a git repository ({err})", fix=fix)
    git_dir = Path(out.decode(errors="surrogateescape").strip())
    status, out, _ = _git([f"--git-dir={git_dir}", "config", "--get", "remote.origin.url"], env=env)
    origin = out.decode(errors="replace").strip() if status == 0 else None
    return Repository(path, git_dir, origin or None)


# ---------------------------------------------------------------------------
# commits


@dataclass
class Commit:
    """A commit and its diff as Zed's input text (file headers and hunks only)."""

    sha: str
    parents: list[str]
    diff: str = ""
    left_out: Counter[str] = field(default_factory=Counter)  # files not in ``diff``: binary, ...
    submodule: bool = False
    size: int = 0


_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def _git_path(raw: bytes) -> bytes:
    """A path of a ``---``/``+++`` line: git's C quoting undone, its tab dropped."""
    raw = raw.rstrip(b"\t")
    if not (len(raw) >= 2 and raw[:1] == b'"' and raw[-1:] == b'"'):
        return raw
    out = bytearray()
    body, at = raw[1:-1], 0
    while at < len(body):
        if body[at : at + 1] == b"\\" and at + 1 < len(body):
            nxt = body[at + 1 : at + 2]
            if nxt.isdigit():
                out.append(int(body[at + 1 : at + 4], 8) & 0xFF)
                at += 4
                continue
            out.append(_ESCAPES.get(nxt, nxt[0]))
            at += 2
            continue
        out.append(body[at])
        at += 1
    return bytes(out)


def _file_text(block: list[bytes], commit: Commit) -> str | None:
    """One ``diff --git`` block as Zed's input, or None (counted) when left out."""
    old = new = b""
    hunk_at = None
    modes: list[bytes] = []
    for index, line in enumerate(block):
        if line.startswith(b"@@"):
            hunk_at = index
            break
        if line.startswith((b"Binary files ", b"GIT binary patch")):
            commit.left_out["binary"] += 1
            return None
        if line.startswith(b"--- "):
            old = _git_path(line[4:])
        elif line.startswith(b"+++ "):
            new = _git_path(line[4:])
        elif line.startswith((b"new file mode ", b"deleted file mode ", b"old mode ", b"new mode ")):
            modes.append(line.rsplit(b" ", 1)[-1])
        elif line.startswith(b"index ") and len(line.split()) == 3:
            modes.append(line.split()[2])
    if b"160000" in modes:
        commit.submodule = True
        return None
    if hunk_at is None:
        return None  # a pure rename or mode change: no hunk, as in Zed
    if b"120000" in modes:
        commit.left_out["symlink"] += 1
        return None
    body = b"\n".join(block[hunk_at:])
    if b"\r" in body:
        commit.left_out["CRLF"] += 1
        return None
    if b"\n\\ " in b"\n" + body:
        # Zed keeps "\ No newline at end of file" as Garbage, which the split moves
        # away from its line: the history would then not rebuild the file.
        commit.left_out["no final newline"] += 1
        return None
    try:
        old_path = old.decode() if old == b"/dev/null" else old.decode()[2:]
        new_path = new.decode() if new == b"/dev/null" else new.decode()[2:]
        text = body.decode()
    except UnicodeDecodeError:
        commit.left_out["non-UTF-8"] += 1
        return None
    # A rename keeps its old name on both sides: the history applies at the parent.
    name = new_path if old_path == "/dev/null" else old_path
    head_old = "/dev/null" if old_path == "/dev/null" else f"a/{_header_path(name)}"
    head_new = "/dev/null" if new_path == "/dev/null" else f"b/{_header_path(name)}"
    return f"--- {head_old}\n+++ {head_new}\n{text.rstrip(chr(10))}\n"


def _commit(header: bytes, body: list[bytes]) -> Commit:
    fields = header.decode().split()
    commit = Commit(fields[0], fields[1:])
    texts: list[str] = []
    block: list[bytes] | None = None
    for line in body + [b"diff --git"]:
        if line.startswith(b"diff --git"):
            if block:
                text = _file_text(block, commit)
                if text is not None:
                    texts.append(text)
            block = []
        elif block is not None:
            block.append(line)
    commit.diff = "".join(texts)
    commit.size = sum(len(line) + 1 for line in body)
    return commit


def default_revisions(repo: Repository) -> list[str]:
    """``HEAD``, or every ref when HEAD names no commit (a bundle of branches only)."""
    status, _, _ = _git([f"--git-dir={repo.git_dir}", "rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    if status == 0:
        return ["HEAD"]
    status, out, _ = _git([f"--git-dir={repo.git_dir}", "for-each-ref", "--format=%(refname)"])
    refs = [ref for ref in out.decode(errors="surrogateescape").splitlines() if ref and not ref.startswith("-")]
    return refs or ["HEAD"]


def check_revisions(revisions: Sequence[str]) -> None:
    """Refuse a user's revision git would read as an option (``--output=...``)."""
    for revision in revisions:
        if revision.startswith("-") or not revision or "\n" in revision:
            raise RepositoryError(
                f"bad revision '{revision}'", fix="Give revisions as git does: HEAD, a sha, main~20..main, v1.0..v2.0."
            )


#: Without REVISIONS, the newest commits of HEAD: enough for a first corpus, quick to cut.
DEFAULT_MAX_COUNT = 100


def _limit(max_count: int | None) -> list[str]:
    return [] if max_count is None else [f"--max-count={max_count}"]


def count_commits(repo: Repository, revisions: Sequence[str], max_count: int | None = None) -> int:
    """How many commits the range holds (at most ``max_count``); :class:`RepositoryError`
    for a bad range."""
    status, out, err = _git(
        [f"--git-dir={repo.git_dir}", "rev-list", "--count", *_limit(max_count), "--end-of-options", *revisions, "--"]
    )
    if status:
        raise RepositoryError(
            f"{repo.path}: bad revision range {' '.join(revisions)} ({err})",
            fix="Give revisions as git does: HEAD, a sha, main~20..main, v1.0..v2.0.",
        )
    return int(out.strip() or 0)


def read_commits(repo: Repository, revisions: Sequence[str], max_count: int | None = None) -> Iterator[Commit]:
    """Every commit of the range (the newest ``max_count``) with its diff against its
    (first) parent, from one ``git log -p`` read as it streams; merges come with no diff."""
    with tempfile.TemporaryFile() as errors:
        proc = _start(
            [
                *_CONFIG,
                f"--git-dir={repo.git_dir}",
                "log",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "-p",
                "-M",
                "--diff-algorithm=myers",
                "--indent-heuristic",
                "-U3",
                "--inter-hunk-context=0",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                "--no-relative",
                "-O/dev/null",
                "--format=%x00%H %P",
                *_limit(max_count),
                "--end-of-options",
                *revisions,
                "--",
            ],
            env=_environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        timer = threading.Timer(LOG_TIMEOUT, git_kill, (proc,))
        timer.daemon = True
        timer.start()
        try:
            yield from _stream(proc.stdout)
        finally:
            timer.cancel()
            if proc.poll() is None:
                git_kill(proc)
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if proc.returncode:
            errors.seek(0)
            message = errors.read().decode(errors="replace").strip().splitlines()
            raise GitError(f"git log failed: {message[0] if message else f'status {proc.returncode}'}")


def _stream(stdout: IO[bytes] | None) -> Iterator[Commit]:
    assert stdout is not None
    header: bytes | None = None
    body: list[bytes] = []
    for raw in stdout:
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if line.startswith(b"\x00"):
            if header is not None:
                yield _commit(header, body)
            header, body = line[1:], []
        elif header is not None:
            body.append(line)
    if header is not None:
        yield _commit(header, body)


# ---------------------------------------------------------------------------
# one commit → examples


@dataclass(frozen=True)
class Options:
    point: SplitPoint = SplitPoint()
    samples: int = 1
    seed: int = 0
    url: str = ""
    fmt: str = "markdown"


@dataclass
class CommitResult:
    examples: list[Example] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def repo_name(url: str) -> str:
    """The last path segment of the URL (``.git`` dropped; ``host:path`` understood)."""
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return (tail[:-4] if tail.endswith(".git") else tail) or "repo"


class _Buffers:
    """The parent's files, read on demand through ``cat-file`` and kept per commit."""

    def __init__(self, repo: Repository, parent: str) -> None:
        self.repo, self.parent = repo, parent
        self.cache: dict[str, str | None] = {}

    def __call__(self, path: str) -> tuple[str, str] | None:
        if path not in self.cache:
            data = self.repo.read_blob(f"{self.parent}:{path}")
            try:
                self.cache[path] = None if data is None else data.decode()
            except UnicodeDecodeError:
                self.cache[path] = None
        text = self.cache[path]
        return None if text is None else (path, text)


def _find_once(text: str, excerpt: str) -> list[int]:
    """Where the scene finds the excerpt: the first place, and a second if any."""
    first = text.find(excerpt)
    if first == -1:
        return []
    second = text.find(excerpt, first + max(len(excerpt), 1))
    if second != -1 or (not excerpt and text):
        return [first, second]
    return [first]


def _unique_excerpt(text: str, excerpt: str, offset: int, line_hint: int) -> tuple[str, int] | None:
    """The excerpt grown by whole lines of ``text`` around the occurrence nearest to
    ``line_hint`` (1-based) until it is found once: ``(excerpt, cursor offset)``."""
    found = _find_once(text, excerpt)
    if len(found) == 1:
        return excerpt, offset
    if not found:
        return None
    starts: list[int] = []
    at = text.find(excerpt)
    while at != -1 and len(starts) < 10000:
        starts.append(at)
        at = text.find(excerpt, at + 1)
    start = min(starts, key=lambda s: abs(text.count("\n", 0, s) + 1 - line_hint))
    end = start + len(excerpt)
    cursor = start + offset
    while True:
        grown = False
        if start > 0:
            start = text.rfind("\n", 0, start - 1) + 1
            grown = True
        if end < len(text):
            nl = text.find("\n", end + 1)
            end = len(text) if nl == -1 else nl
            grown = True
        candidate = text[start:end]
        if len(_find_once(text, candidate)) == 1:
            return candidate, cursor - start
        if not grown:
            return None


def _round_trip(example: Example, fmt: str) -> Example:
    if fmt == "jsonl":
        return from_json(json.dumps(to_json(example)))
    return from_markdown(to_markdown(example))


def _check(example: Example, buffers_of: _Buffers, fmt: str, line_hint: int) -> tuple[Example | None, str]:
    """The example as the plugin will load it, made loadable: ``(example, "")``, or
    ``(None, reason)``; the reason ``do-nothing target`` is a skip, others problems."""
    from ..scene import apply_patch

    loaded = _round_trip(example, fmt)
    buffers: dict[str, str] = {}
    try:
        list(apply_sections(loaded.edit_history, buffers, buffers_of))
    except EditPredError as error:
        return None, f"the edit history does not apply at the parent: {error.reason}"
    path = loaded.cursor_path
    if path not in buffers:
        opened = buffers_of(path)
        if opened is None:
            return None, f"the cursor file {path} does not exist after the edit history"
        buffers[path] = opened[1]
    if loaded.expected_patches and loaded.expected_patches[0]:
        # The oracle applies the expected patch to the open buffers only (the files
        # the history touched and the cursor's): hunks of other files are dropped.
        target = parse_patch(loaded.expected_patches[0])
        kept = [h for h in target.hunks if h.filename in buffers or (h.old_start == 0 and h.old_count == 0)]
        if len(kept) != len(target.hunks):
            text = Patch(target.header, kept).to_text() if kept else ""
            example = replace(example, expected_patches=(text,))
            loaded = _round_trip(example, fmt)
    excerpt, offset = loaded.cursor_excerpt()
    unique = _unique_excerpt(buffers[path], excerpt, offset, line_hint)
    if unique is None and excerpt.endswith("\n") and buffers[path].endswith(excerpt[:-1]):
        return None, "cursor on a last line without newline"  # a fence always ends in one
    if unique is None:
        return None, f"the cursor excerpt is not found once in {path}"
    if unique[0] != excerpt:
        text, at = unique
        example = replace(example, cursor_position=text[:at] + MARKER + text[at:])
        loaded = _round_trip(example, fmt)
        excerpt, offset = loaded.cursor_excerpt()
        if len(_find_once(buffers[path], excerpt)) != 1:
            return None, f"the cursor excerpt is not found once in {path}"
    if not loaded.expected_patches or not loaded.expected_patches[0].strip():
        return None, "do-nothing target"
    try:
        patched = apply_patch(buffers, loaded.expected()[0], default_path=path)
    except EditPredError as error:
        return None, f"the expected patch does not apply after the edit history: {error.reason}"
    before = {p: (buffers[p] if p in buffers else (buffers_of(p) or (p, None))[1]) for p in patched.changed}
    if all(patched.buffers.get(p) == before[p] for p in patched.changed):
        return None, "do-nothing target"
    return example, ""


def split_commit(repo: Repository, commit: Commit, options: Options) -> CommitResult:
    """The examples of one commit (``options.samples`` of them at most), with what
    was skipped and why, and the problems (examples that would not load)."""
    result = CommitResult()
    if len(commit.parents) > 1:
        result.skipped["merge"] += 1
        return result
    if not commit.parents:
        result.skipped["root commit"] += 1
        return result
    if commit.submodule:
        result.skipped["submodule"] += 1
        return result
    if commit.size > MAX_DIFF_BYTES:
        result.skipped["too big"] += 1
        return result
    patch = parse_patch(commit.diff)
    edits = locations(patch)
    if not edits:
        reason = next(iter(commit.left_out), "no edits")
        result.skipped[reason] += 1
        return result
    if len(edits) > MAX_EDITS:
        result.skipped["too big"] += 1
        return result
    if all(is_service_file(e.filename) for e in edits):
        result.skipped["service files only"] += 1
        return result
    parent = commit.parents[0]
    buffers_of = _Buffers(repo, parent)
    name_base = f"{repo_name(options.url)}-{commit.sha[:8]}"
    seen: set[str] = set()
    names: set[str] = set()
    for sample in range(options.samples):
        rng = random.Random(((options.seed + sample) % 2**64) ^ int(commit.sha, 16))
        checked: dict[int, tuple[Example | None, str]] = {}

        def build(generated: Generated) -> Example:
            return Example(
                name=f"{name_base}-{generated.split}",
                repository_url=options.url,
                revision=parent,
                cursor_path=generated.cursor.filename,
                cursor_position=generated.cursor_position,
                edit_history=generated.edit_history,
                expected_patches=(generated.expected_patch,),
            )

        def accept(generated: Generated, checked: dict[int, tuple[Example | None, str]] = checked) -> bool:
            outcome = _check(build(generated), buffers_of, options.fmt, generated.cursor.line)
            checked[id(generated)] = outcome
            return outcome[0] is not None

        try:
            generated = generate(patch, options.point, rng, accept)
        except SplitFailure as failure:
            result.skipped[failure.reason] += 1
            continue
        example, why = checked.get(id(generated)) or _check(
            build(generated), buffers_of, options.fmt, generated.cursor.line
        )
        if example is None:
            if why in ("do-nothing target", "cursor on a last line without newline"):
                result.skipped[why] += 1
            else:
                result.problems.append(f"split {generated.split}: {why}")
            continue
        key = to_markdown(replace(example, name=""))
        if key in seen:
            result.skipped["duplicate"] += 1
            continue
        seen.add(key)
        if example.name in names:
            example = replace(example, name=f"{example.name}-{sample}")
        names.add(example.name)
        result.examples.append(example)
    return result
