"""The half-typed line: Zed's ``imitate_human_edits`` (zed-authoring-and-context.md §1.5).

When the next edit adds a line, the example pretends the user is in the middle of
typing it: a prefix ``P`` of the new line (with the rest of the old line kept when
it still looks like the rest of the new one) joins the edit history, the expected
patch replaces ``P`` by the whole line, and the cursor sits after the typed part.
Where to cut is drawn from weights that favour a pause after punctuation and at the
end of a word, over an alignment of the old and new lines' tokens.
"""

from __future__ import annotations

import re

from ..._similar import diff_ops
from ._cursor import Cursor
from ._patch import Hunk, Line, normalize_hunk, parsed

__all__ = ["MAX_HALF_TYPED_CHARS", "fuzzy_ratio", "half_typed", "imitate_human_edits", "position_weight", "tokenize"]

#: Lines longer than this (old and new together) are never half-typed: the token
#: alignment is quadratic in the worst case, and no one types a 2,000-character line.
MAX_HALF_TYPED_CHARS = 2000


def _is_ident(char: str) -> bool:
    return char.isalnum() or char == "_"


#: Rust's ``char::is_whitespace`` is Python's ``\s`` without the separators U+001C–U+001F.
_TOKEN = re.compile(r"[^\W]+|[^\S\x1c-\x1f]+|.", flags=re.S)


def tokenize(text: str) -> list[str]:
    """Runs of identifier characters, runs of whitespace, single other characters
    (Zed's: an identifier character is alphanumeric or ``_``; Python's classes miss
    only the combining marks Unicode calls Other_Alphabetic)."""
    return _TOKEN.findall(text) if text else []


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
    """Zed's ``fuzzy_ratio``: twice the characters a character diff keeps, over the
    UTF-8 lengths, in percent. A shortest edit script keeps exactly a longest common
    subsequence, so its length is rapidfuzz's (bit-parallel, in C)."""
    if not s1 and not s2:
        return 100
    if not s1 or not s2:
        return 0
    from rapidfuzz.distance import LCSseq

    matching = LCSseq.similarity(s1, s2)
    return 2 * matching * 100 // (len(s1.encode()) + len(s2.encode()))


def half_typed(old: str, new: str, seed: int) -> tuple[str, int] | None:
    """``(P, cursor byte column)``: ``new`` typed part way over ``old``, the rest of
    the old line kept when it still resembles the rest of the new one."""
    if len(old) + len(new) > MAX_HALF_TYPED_CHARS:
        return None
    ts, tt = tokenize(old), tokenize(new)
    ops = diff_ops(ts, tt)
    # The edit stream: each op writes its inserted text, then its deleted text (the
    # old text not yet erased); a pause may come after any character of it.
    candidates: list[tuple[int, int, str, int]] = []  # (weight, op, half, chars into it)
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
    k = 0  # where the rest of the old line starts, in old tokens (used on both lists, as Zed does)
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        old_text, new_text = "".join(ts[i1:i2]), "".join(tt[j1:j2])
        if index < op_index:  # passed: a deleted run before the cut is not erased yet
            parts.append(old_text if tag == "delete" else new_text)
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


def imitate_human_edits(source: str, target: str, seed: int) -> tuple[str, str, Cursor | None]:
    """§1.5: when the next edit adds a line, pretend it is half typed: ``+P`` joins
    the history, ``-P`` the target, and the cursor sits after the typed part."""
    (src, sources), (tgt, targets) = parsed(source), parsed(target)
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
        normalized = normalize_hunk(hunk)
        assert normalized is not None
        src.hunks.append(normalized)
    th = tgt.hunks[first.hunk_index]
    th.lines.insert(first.line_index, Line("-", partial))
    th.old_count += 1
    row = last.source_line if replacement and last is not None else first.target_line
    return src.to_text(), tgt.to_text(), Cursor(first.filename, row, column)
