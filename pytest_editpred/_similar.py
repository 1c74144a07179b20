"""The ``similar`` crate's diff of two sequences, as Zed reads it (``TextDiff::ops``).

Zed aligns tokens with ``similar`` 2.x: Myers' divide-and-conquer with its middle
snake, then the ``Compact`` hook (deletions and insertions slid to meet their
neighbours), then the ``Replace`` hook (each run of deletions and insertions between
two equal runs one op). Many edit scripts are equally short; which one a diff picks
decides where split-commit cuts a half-typed line and how a word diff reads, so the
port follows ``similar``'s order of work step by step (zed-qa-repair.md §1.4;
``algorithms/myers.rs``, ``compact.rs`` and ``replace.rs`` of ``similar`` 2.2.1,
unchanged up to 2.7.0). Python's ``difflib`` and a textbook Myers find other
scripts.

Time is O((N+M)·D) and memory O(N+M) for N and M items that differ in D places.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["Op", "diff_ops"]


class Op(NamedTuple):
    """``tag`` is ``equal``, ``delete``, ``insert`` or ``replace``: ``old[i1:i2]``
    becomes ``new[j1:j2]`` (as ``difflib``'s opcodes)."""

    tag: str
    i1: int
    i2: int
    j1: int
    j2: int


def _prefix(old: Sequence[object], a: int, b: int, new: Sequence[object], c: int, d: int) -> int:
    n = 0
    while a + n < b and c + n < d and old[a + n] == new[c + n]:
        n += 1
    return n


def _suffix(old: Sequence[object], a: int, b: int, new: Sequence[object], c: int, d: int) -> int:
    n = 0
    while b - n > a and d - n > c and old[b - n - 1] == new[d - n - 1]:
        n += 1
    return n


def _middle_snake(old: Sequence[object], a: int, b: int, new: Sequence[object], c: int, d: int) -> tuple[int, int]:
    """``find_middle_snake``: the forward and backward searches, each diagonal from
    the highest down, the forward one tested for overlap only when ``n − m`` is odd."""
    n, m = b - a, d - c
    delta = n - m
    odd = delta % 2 == 1
    forward: dict[int, int] = {1: 0}
    backward: dict[int, int] = {1: 0}
    for depth in range((n + m + 1) // 2 + 1):
        for k in range(depth, -depth - 1, -2):
            if k == -depth or (k != depth and forward.get(k - 1, 0) < forward.get(k + 1, 0)):
                x = forward.get(k + 1, 0)
            else:
                x = forward.get(k - 1, 0) + 1
            y = x - k
            x0, y0 = x, y
            if x < n and 0 <= y < m:  # Rust's y wraps below 0 and fails the test
                x += _prefix(old, a + x, b, new, c + y, d)
            forward[k] = x
            if odd and abs(k - delta) <= depth - 1 and x + backward.get(delta - k, 0) >= n:
                return a + x0, c + y0
        for k in range(depth, -depth - 1, -2):
            if k == -depth or (k != depth and backward.get(k - 1, 0) < backward.get(k + 1, 0)):
                x = backward.get(k + 1, 0)
            else:
                x = backward.get(k - 1, 0) + 1
            y = x - k
            if x < n and 0 <= y < m:
                advance = _suffix(old, a, a + n - x, new, c, c + m - y)
                x, y = x + advance, y + advance
            backward[k] = x
            if not odd and abs(k - delta) <= depth and x + forward.get(delta - k, 0) >= n:
                return a + n - x, c + m - y
    raise AssertionError("Myers' search ends with a snake")  # pragma: no cover - a snake always exists


def _myers(old: Sequence[object], new: Sequence[object]) -> list[list[int]]:
    """``conquer``'s raw ops, in order: ``[tag, old start, new start, old len, new len]``
    with tag 0 equal, 1 delete, 2 insert. An explicit stack stands for the recursion
    (left part, right part, then the remembered common suffix)."""
    ops: list[list[int]] = []
    stack: list[tuple[int, int, int, int, int]] = [(0, 0, len(old), 0, len(new))]
    while stack:
        job, a, b, c, d = stack.pop()
        if job == 1:  # a remembered common suffix: a, c its starts, b its length
            ops.append([0, a, c, b, b])
            continue
        p = _prefix(old, a, b, new, c, d)
        if p:
            ops.append([0, a, c, p, p])
        a, c = a + p, c + p
        s = _suffix(old, a, b, new, c, d)
        b, d = b - s, d - s
        if s:
            stack.append((1, b, s, d, 0))
        if a == b and c == d:
            pass
        elif c == d:
            ops.append([1, a, c, b - a, 0])
        elif a == b:
            ops.append([2, a, c, 0, d - c])
        else:
            x, y = _middle_snake(old, a, b, new, c, d)
            stack.append((0, x, b, y, d))
            stack.append((0, a, x, c, y))
    return ops


def _empty(op: list[int]) -> bool:
    return op[3] == 0 and op[4] == 0


def _slide_up(ops: list[list[int]], old: Sequence[object], new: Sequence[object], i: int) -> int:
    """``shift_diff_ops_up``: an insertion moves up while the equal run above ends
    as it does; a deletion (its new range empty) never moves, but meets its kind."""
    while i > 0:
        prev, cur = ops[i - 1], ops[i]
        if prev[0] == 0:
            length = _suffix(old, prev[1], prev[1] + prev[3], new, cur[2], cur[2] + cur[4])
            if length:
                if i + 1 < len(ops) and ops[i + 1][0] == 0:
                    after = ops[i + 1]
                    after[1] -= length
                    after[2] -= length
                    after[3] += length
                    after[4] += length
                else:
                    ops.insert(i + 1, [0, prev[1] + prev[3] - length, cur[2] + cur[4] - length, length, length])
                cur[1] -= length
                cur[2] -= length
                prev[3] -= length
                prev[4] -= length
                if _empty(prev):
                    del ops[i - 1]
                    i -= 1
            elif _empty(prev):
                del ops[i - 1]
                i -= 1
            else:
                break
        elif prev[0] != cur[0]:
            ops[i - 1], ops[i] = cur, prev
            i -= 1
        else:
            prev[3] += cur[3]
            prev[4] += cur[4]
            del ops[i]
            i -= 1
    return i


def _slide_down(ops: list[list[int]], old: Sequence[object], new: Sequence[object], i: int) -> int:
    """``shift_diff_ops_down``: an insertion moves down while the equal run below
    starts as it does."""
    while i + 1 < len(ops):
        cur, nxt = ops[i], ops[i + 1]
        if nxt[0] == 0:
            length = _prefix(old, nxt[1], nxt[1] + nxt[3], new, cur[2], cur[2] + cur[4])
            if length:
                if i > 0 and ops[i - 1][0] == 0:
                    before = ops[i - 1]
                    before[3] += length
                    before[4] += length
                else:
                    ops.insert(i, [0, nxt[1], cur[2], length, length])
                    i += 1
                cur[1] += length
                cur[2] += length
                nxt[1] += length
                nxt[2] += length
                nxt[3] -= length
                nxt[4] -= length
                if _empty(nxt):
                    del ops[i + 1]
            elif _empty(nxt):
                del ops[i + 1]
            else:
                break
        elif nxt[0] != cur[0]:
            ops[i], ops[i + 1] = nxt, cur
            i += 1
        else:
            cur[3] += nxt[3]
            cur[4] += nxt[4]
            del ops[i + 1]
    return i


def _compact(ops: list[list[int]], old: Sequence[object], new: Sequence[object]) -> None:
    """``cleanup_diff_ops``: every deletion slid up then down, then every insertion."""
    for tag in (1, 2):
        i = 0
        while i < len(ops):
            if ops[i][0] == tag:
                i = _slide_up(ops, old, new, i)
                i = _slide_down(ops, old, new, i)
            i += 1


def _replace(ops: list[list[int]]) -> list[Op]:
    """The ``Replace`` hook: equal runs merged, and each run of deletions and
    insertions between them one op (an empty equal run still separates them)."""
    out: list[Op] = []
    equal: list[int] | None = None
    deleted: list[int] | None = None  # old start, old len, new start
    inserted: list[int] | None = None  # old start, new start, new len

    def flush_changes() -> None:
        nonlocal deleted, inserted
        if deleted is not None and inserted is not None:
            out.append(Op("replace", deleted[0], deleted[0] + deleted[1], inserted[1], inserted[1] + inserted[2]))
        elif deleted is not None:
            out.append(Op("delete", deleted[0], deleted[0] + deleted[1], deleted[2], deleted[2]))
        elif inserted is not None:
            out.append(Op("insert", inserted[0], inserted[0], inserted[1], inserted[1] + inserted[2]))
        deleted = inserted = None

    def flush_equal() -> None:
        nonlocal equal
        if equal is not None:
            out.append(Op("equal", equal[0], equal[0] + equal[2], equal[1], equal[1] + equal[2]))
            equal = None

    for tag, old_start, new_start, old_len, new_len in ops:
        if tag == 0:
            flush_changes()
            if equal is None:
                equal = [old_start, new_start, old_len]
            else:
                equal[2] += old_len
        elif tag == 1:
            flush_equal()
            if deleted is None:
                deleted = [old_start, old_len, new_start]
            else:
                deleted[1] += old_len
        else:
            flush_equal()
            if inserted is None:
                inserted = [old_start, new_start, new_len]
            else:
                inserted[2] += new_len
    flush_equal()
    flush_changes()
    return out


def diff_ops(old: Sequence[object], new: Sequence[object]) -> list[Op]:
    """``similar::capture_diff_slices(Algorithm::Myers, old, new)``: Myers, Compact,
    Replace. Items compare with ``==``. A zero-length op may remain where ``similar``
    leaves one."""
    ops = _myers(old, new)
    _compact(ops, old, new)
    return _replace(ops)
