"""imara-diff's ``Histogram`` diff, the line and token diff behind Zed's reversal ratio.

Zed's ``text_diff`` diffs with ``imara_diff::diff(Algorithm::Histogram, ..)``. This
is a port of that algorithm (imara-diff 0.1, no post-processing):

* the common prefix and suffix are trimmed;
* in each region, the *before* side's token occurrences are counted, and the
  *after* side is scanned for the common run whose rarest token is rarest (a
  longer run wins among equally rare ones, the first found among equal ones); the
  region is split around it, left part first;
* a region with nothing in common is one change; a region whose common tokens
  all occur more than 63 times (``MAX_CHAIN_LEN``) falls back to a Myers diff
  (:func:`myers_diff`): git's xdiff, which imara-diff's Myers follows (tokens
  missing from the other side pruned first, the middle-snake recursion, its cost
  heuristics). Checked against imara-diff on random inputs, the histogram part
  agrees exactly; the Myers fallback can break ties differently.

:func:`histogram_diff` returns the changes as ``(before_start, before_end,
after_start, after_end)`` index ranges, in order, separated by at least one common
token, which is what imara-diff hands its sink.

Cost and bound: trimming is linear with a tiny constant (slice comparisons); after
it, a region costs its number of *after* tokens that occur on the before side
plus the runs it extends, so a small change costs little however large the file.
Splitting is usually balanced, but a region can peel off one match at a time
(every other line of a file changed): imara-diff is quadratic there. So
:func:`histogram_diff` counts that work, and past ``budget`` steps
(:data:`DEFAULT_BUDGET`, about a second of Python) the regions still to do go to
the Myers fallback instead, whose search per split xdiff's heuristics cap at
``max(256, sqrt(n))`` edit steps. The result then says so (:attr:`Diff.exact` is
False), so the caller can tell it may differ from Zed's; within the budget it is
exact. Measured: a 20,000-line whole-file rewrite takes 0.1-1.7 s, and the
adversarial every-other-line rewrite about 4 s (budget hit).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .._deadline import check as check_deadline

__all__ = ["DEFAULT_BUDGET", "MAX_CHAIN_LEN", "Change", "Diff", "histogram_diff", "myers_diff"]

#: A token occurring more often than this in a region is never a split point.
MAX_CHAIN_LEN = 63
#: Histogram work (scanned and extended tokens) before the rest goes to Myers.
DEFAULT_BUDGET = 2_000_000

Change = tuple[int, int, int, int]

# xdiff / imara-diff Myers constants
_SNAKE_CNT = 20
_K_HEUR = 4
_HEUR_MIN_COST = 256
_MAX_COST_MIN = 256
_MAX_EQLIMIT = 1024
_PRUNE_WINDOW = 100
#: before-regions up to this size are counted directly, larger ones by bisection
_POPULATE_LIMIT = 2048


@dataclass(frozen=True)
class Diff:
    """The changes, and whether they are exactly imara-diff's (the budget held)."""

    changes: list[Change]
    exact: bool = True


def _intern(before: Sequence[Hashable], after: Sequence[Hashable]) -> tuple[list[int], list[int]]:
    ids: dict[Hashable, int] = {}
    b = [ids.setdefault(token, len(ids)) for token in before]
    a = [ids.setdefault(token, len(ids)) for token in after]
    return b, a


def _common_run(b: Sequence[object], a: Sequence[object], limit: int, from_end: bool) -> int:
    """How many tokens ``b`` and ``a`` share at the start (or the end), at most
    ``limit``: galloping, then bisection, on slice comparisons (C speed)."""

    def same(lo: int, hi: int) -> bool:  # are tokens [lo, hi) from that side equal?
        if from_end:
            return b[len(b) - hi : len(b) - lo] == a[len(a) - hi : len(a) - lo]
        return b[lo:hi] == a[lo:hi]

    if same(0, limit):
        return limit
    good, step = 0, 1
    while good + step <= limit and same(good, good + step):
        good += step
        step *= 2
    bad = min(limit, good + step)
    while bad - good > 1:
        mid = (good + bad) // 2
        if same(good, mid):
            good = mid
        else:
            bad = mid
    return good


def trim(before: Sequence[object], after: Sequence[object]) -> tuple[int, int]:
    """The lengths of the common prefix and of the common suffix (not overlapping)."""
    prefix = _common_run(before, after, min(len(before), len(after)), False)
    limit = min(len(before), len(after)) - prefix
    return prefix, _common_run(before, after, limit, True)


def _moved(changes: list[Change], offset: int) -> list[Change]:
    return [(s1 + offset, e1 + offset, s2 + offset, e2 + offset) for s1, e1, s2, e2 in changes]


class _Histogram:
    def __init__(self, b: list[int], a: list[int], budget: int) -> None:
        self.b = b
        self.a = a
        self.budget = budget
        self.exact = True
        self.changes: list[Change] = []
        self.positions: dict[int, list[int]] = {}
        for index, token in enumerate(b):
            self.positions.setdefault(token, []).append(index)
        positions = self.positions
        #: the after positions whose token occurs somewhere on the before side
        self.candidates = [index for index, token in enumerate(a) if token in positions]

    def run(self, b0: int, b1: int, a0: int, a1: int) -> None:
        stack = [(b0, b1, a0, a1)]
        changes = self.changes
        while stack:
            check_deadline()  # --editpred-judge-timeout
            b0, b1, a0, a1 = stack.pop()
            if b0 == b1:
                if a0 != a1:
                    changes.append((b0, b0, a0, a1))
                continue
            if a0 == a1:
                changes.append((b0, b1, a0, a0))
                continue
            if self.budget <= 0:
                self.exact = False
                lcs = None
            else:
                lcs = self._find_lcs(b0, b1, a0, a1)
            if lcs is None:
                for s1, e1, s2, e2 in myers_diff(self.b[b0:b1], self.a[a0:a1]):
                    changes.append((b0 + s1, b0 + e1, a0 + s2, a0 + e2))
                continue
            start1, start2, length = lcs
            if length == 0:
                changes.append((b0, b1, a0, a1))
                continue
            stack.append((start1 + length, b1, start2 + length, a1))
            stack.append((b0, start1, a0, start2))

    def _find_lcs(self, b0: int, b1: int, a0: int, a1: int) -> tuple[int, int, int] | None:
        """imara-diff's ``find_lcs`` on ``b[b0:b1]`` × ``a[a0:a1]``: ``(start1, start2,
        len)``, len 0 when nothing is common, None when Myers must take over.

        A small region is counted the way imara-diff does (``populate``); a large
        one looks its counts up in the whole-text occurrence lists by bisection, and
        scans only the after positions whose token occurs on the before side at all,
        so that a region costs what it has in common, not its length.
        """
        b, a = self.b, self.a
        region: dict[int, list[int]] | _RegionOccurrences
        if b1 - b0 <= _POPULATE_LIMIT:
            region = {}
            for i in range(b0, b1):
                found = region.get(b[i])
                if found is None:
                    region[b[i]] = [i]
                else:
                    found.append(i)
            scan: Sequence[int] = range(a0, a1)
            index, end_index = 0, a1 - a0
            scanned = (b1 - b0) + (a1 - a0)
        else:
            region = _RegionOccurrences(self.positions, b0, b1)
            scan = self.candidates
            index, end_index = bisect_left(scan, a0), bisect_left(scan, a1)
            scanned = end_index - index
        min_occurrences = MAX_CHAIN_LEN + 1
        found_common = False
        best_start1 = best_start2 = best_len = 0
        work = 0
        while index < end_index:
            pos = scan[index]
            token = a[pos]
            where = region.get(token)
            if not where:
                index += 1
                continue
            found_common = True
            count = len(where)
            if count > min_occurrences:
                index += 1
                continue
            # update_lcs: try the token's occurrences on the before side
            next_pos = pos + 1
            k = 0
            token_idx1 = where[0]
            while True:
                occ = count
                start1, start2 = token_idx1, pos
                while start1 > b0 and start2 > a0 and b[start1 - 1] == a[start2 - 1]:
                    start1 -= 1
                    start2 -= 1
                    other = len(region[b[start1]])
                    if other < occ:
                        occ = other
                end1, end2 = token_idx1 + 1, pos + 1
                while end1 < b1 and end2 < a1 and b[end1] == a[end2]:
                    other = len(region[b[end1]])
                    if other < occ:
                        occ = other
                    end1 += 1
                    end2 += 1
                work += end1 - start1
                if next_pos < end2:
                    next_pos = end2
                length = end2 - start2
                if best_len < length or min_occurrences > occ:
                    min_occurrences = occ
                    best_start1, best_start2, best_len = start1, start2, length
                # the next occurrence past this run: imara-diff compares it, region-
                # relative, with the run's end on the *after* side (``end2``)
                k += 1
                limit = end2 - a0 + b0
                while k < count and where[k] <= limit:
                    k += 1
                if k >= count:
                    break
                token_idx1 = where[k]
            if scan is self.candidates:
                index = bisect_left(scan, next_pos, index + 1, end_index)
            else:
                index = next_pos - a0
        self.budget -= work + scanned
        if found_common and min_occurrences > MAX_CHAIN_LEN:
            return None
        return best_start1, best_start2, best_len


class _RegionOccurrences:
    """``token -> its positions in b[b0:b1]``, read off the whole-text lists."""

    __slots__ = ("positions", "b0", "b1", "cache")

    def __init__(self, positions: dict[int, list[int]], b0: int, b1: int) -> None:
        self.positions = positions
        self.b0 = b0
        self.b1 = b1
        self.cache: dict[int, Sequence[int]] = {}

    def get(self, token: int) -> Sequence[int] | None:
        found = self.cache.get(token)
        if found is None:
            where = self.positions.get(token)
            if where is None:
                found = []
            else:
                lo, hi = bisect_left(where, self.b0), bisect_left(where, self.b1)
                # more than MAX_CHAIN_LEN + 1 are only ever counted
                found = where[lo:hi] if hi - lo <= MAX_CHAIN_LEN + 1 else _Many(hi - lo)
            self.cache[token] = found
        return found

    def __getitem__(self, token: int) -> Sequence[int]:
        found = self.get(token)
        assert found is not None
        return found


class _Many(Sequence[int]):
    """The occurrences of a token too common to split at: only their number."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> int:  # type: ignore[override]
        raise IndexError("a token this common is never a split point")


def histogram_diff(before: Sequence[Hashable], after: Sequence[Hashable], *, budget: int = DEFAULT_BUDGET) -> Diff:
    """imara-diff's histogram diff of two token sequences (see the module docstring)."""
    prefix, suffix = trim(before, after)
    n, m = len(before), len(after)
    if prefix == n == m:
        return Diff([])
    b, a = _intern(before[prefix : n - suffix], after[prefix : m - suffix])
    histogram = _Histogram(b, a, budget)
    histogram.run(0, len(b), 0, len(a))
    return Diff(_moved(histogram.changes, prefix), histogram.exact)


# ----------------------------------------------------------------------------- Myers


def _sqrt(value: int) -> int:
    """imara-diff's cheap square root: ``1 << (bit_length / 2)``."""
    return 1 << (value.bit_length() // 2)


def _classify(tokens: list[int], other: list[int], limit: int) -> list[int]:
    """Per token: 0 = absent from ``other``, 1 = present, 2 = very common there."""
    counts: dict[int, int] = {}
    for token in other:
        counts[token] = counts.get(token, 0) + 1
    out = []
    for token in tokens:
        seen = counts.get(token, 0)
        out.append(0 if seen == 0 else 2 if seen >= limit else 1)
    return out


def _prune(tokens: list[int], status: list[int], changed: list[bool]) -> tuple[list[int], list[int]]:
    """imara-diff's ``prune_unmatched_tokens``: drop the tokens missing from the other
    side, and the very common ones sitting among such tokens.

    A very common token is dropped when, in the runs of unmatched and very common
    tokens next to it (up to the nearest matched token, within a window of 100),
    there are unmatched tokens on both sides and more than three times as many
    unmatched as very common ones, itself included (``should_prune_common_line``;
    the threshold is the one that agrees best with imara-diff on random inputs).
    The backward window starts where imara-diff starts it: at index 100, not at
    ``pos - 100``, so it can reach far back. Prefix counts make each test O(1).
    """
    n = len(tokens)
    zeros = [0] * (n + 1)
    commons = [0] * (n + 1)
    previous_match = [-1] * n  # the last matched (status 1) index before i
    last = -1
    for i, state in enumerate(status):
        zeros[i + 1] = zeros[i] + (state == 0)
        commons[i + 1] = commons[i] + (state == 2)
        previous_match[i] = last
        if state == 1:
            last = i
    next_match = [n] * n  # the first matched index after i
    last = n
    for i in range(n - 1, -1, -1):
        next_match[i] = last
        if status[i] == 1:
            last = i
    kept: list[int] = []
    indices: list[int] = []
    for i, token in enumerate(tokens):
        state = status[i]
        prune = state == 0
        if state == 2:
            lo = max(previous_match[i] + 1, _PRUNE_WINDOW if i > _PRUNE_WINDOW else 0)
            unmatched_before = zeros[i] - zeros[lo] if lo < i else 0
            if unmatched_before:
                common_before = commons[i] - commons[lo]
                hi = min(next_match[i], n, i + _PRUNE_WINDOW)
                unmatched_after = zeros[hi] - zeros[i + 1] if hi > i + 1 else 0
                if unmatched_after:
                    common_after = commons[hi] - commons[i + 1]
                    unmatched = unmatched_before + unmatched_after
                    prune = unmatched > 3 * (common_before + common_after + 1)
        if prune:
            changed[i] = True
        else:
            kept.append(token)
            indices.append(i)
    return kept, indices


class _Myers:
    """xdiff's divide and conquer over the middle snake, with its heuristics."""

    def __init__(self, t1: list[int], t2: list[int], c1: list[bool], c2: list[bool]) -> None:
        self.t1, self.t2, self.c1, self.c2 = t1, t2, c1, c2
        ndiags = len(t1) + len(t2) + 3
        self.offset = len(t2) + 1
        self.kvdf = [0] * (ndiags + 2)
        self.kvdb = [0] * (ndiags + 2)
        self.max_cost = max(_sqrt(ndiags), _MAX_COST_MIN)

    def run(self, off1: int, lim1: int, off2: int, lim2: int, need_min: bool) -> None:
        t1, t2 = self.t1, self.t2
        stack = [(off1, lim1, off2, lim2, need_min)]
        while stack:
            check_deadline()  # --editpred-judge-timeout
            off1, lim1, off2, lim2, need_min = stack.pop()
            while off1 < lim1 and off2 < lim2 and t1[off1] == t2[off2]:
                off1 += 1
                off2 += 1
            while off1 < lim1 and off2 < lim2 and t1[lim1 - 1] == t2[lim2 - 1]:
                lim1 -= 1
                lim2 -= 1
            if off1 == lim1:
                for i in range(off2, lim2):
                    self.c2[i] = True
            elif off2 == lim2:
                for i in range(off1, lim1):
                    self.c1[i] = True
            else:
                i1, i2, min_lo, min_hi = self.split(off1, lim1, off2, lim2, need_min)
                stack.append((i1, lim1, i2, lim2, min_hi))
                stack.append((off1, i1, off2, i2, min_lo))

    def split(self, off1: int, lim1: int, off2: int, lim2: int, need_min: bool) -> tuple[int, int, bool, bool]:
        t1, t2 = self.t1, self.t2
        o = self.offset
        kvdf, kvdb = self.kvdf, self.kvdb
        dmin, dmax = off1 - lim2, lim1 - off2
        fmid, bmid = off1 - off2, lim1 - lim2
        odd = (fmid - bmid) & 1
        fmin = fmax = fmid
        bmin = bmax = bmid
        kvdf[fmid + o] = off1
        kvdb[bmid + o] = lim1
        big = lim1 + lim2 + 1
        ec = 1
        while True:
            got_snake = False
            if fmin > dmin:
                fmin -= 1
                kvdf[fmin - 1 + o] = -1
            else:
                fmin += 1
            if fmax < dmax:
                fmax += 1
                kvdf[fmax + 1 + o] = -1
            else:
                fmax -= 1
            for d in range(fmax, fmin - 1, -2):
                if kvdf[d - 1 + o] >= kvdf[d + 1 + o]:
                    i1 = kvdf[d - 1 + o] + 1
                else:
                    i1 = kvdf[d + 1 + o]
                prev1 = i1
                i2 = i1 - d
                while i1 < lim1 and i2 < lim2 and t1[i1] == t2[i2]:
                    i1 += 1
                    i2 += 1
                if i1 - prev1 > _SNAKE_CNT:
                    got_snake = True
                kvdf[d + o] = i1
                if odd and bmin <= d <= bmax and kvdb[d + o] <= i1:
                    return i1, i2, True, True
            if bmin > dmin:
                bmin -= 1
                kvdb[bmin - 1 + o] = big
            else:
                bmin += 1
            if bmax < dmax:
                bmax += 1
                kvdb[bmax + 1 + o] = big
            else:
                bmax -= 1
            for d in range(bmax, bmin - 1, -2):
                if kvdb[d - 1 + o] < kvdb[d + 1 + o]:
                    i1 = kvdb[d - 1 + o]
                else:
                    i1 = kvdb[d + 1 + o] - 1
                prev1 = i1
                i2 = i1 - d
                while i1 > off1 and i2 > off2 and t1[i1 - 1] == t2[i2 - 1]:
                    i1 -= 1
                    i2 -= 1
                if prev1 - i1 > _SNAKE_CNT:
                    got_snake = True
                kvdb[d + o] = i1
                if not odd and fmin <= d <= fmax and i1 <= kvdf[d + o]:
                    return i1, i2, True, True
            if need_min:
                ec += 1
                continue
            if got_snake and ec > _HEUR_MIN_COST:
                best = 0
                found: tuple[int, int] | None = None
                for d in range(fmax, fmin - 1, -2):
                    dd = d - fmid if d > fmid else fmid - d
                    i1 = kvdf[d + o]
                    i2 = i1 - d
                    v = (i1 - off1) + (i2 - off2) - dd
                    if (
                        v > _K_HEUR * ec
                        and v > best
                        and off1 + _SNAKE_CNT <= i1 < lim1
                        and off2 + _SNAKE_CNT <= i2 < lim2
                    ):
                        k = 1
                        while t1[i1 - k] == t2[i2 - k]:
                            if k == _SNAKE_CNT:
                                best = v
                                found = (i1, i2)
                                break
                            k += 1
                if found is not None:
                    return found[0], found[1], True, False
                best = 0
                for d in range(bmax, bmin - 1, -2):
                    dd = d - bmid if d > bmid else bmid - d
                    i1 = kvdb[d + o]
                    i2 = i1 - d
                    v = (lim1 - i1) + (lim2 - i2) - dd
                    if (
                        v > _K_HEUR * ec
                        and v > best
                        and off1 < i1 <= lim1 - _SNAKE_CNT
                        and off2 < i2 <= lim2 - _SNAKE_CNT
                    ):
                        k = 0
                        while t1[i1 + k] == t2[i2 + k]:
                            if k == _SNAKE_CNT - 1:
                                best = v
                                found = (i1, i2)
                                break
                            k += 1
                if found is not None:
                    return found[0], found[1], False, True
            if ec >= self.max_cost:
                fbest = fbest1 = -1
                for d in range(fmax, fmin - 1, -2):
                    i1 = min(kvdf[d + o], lim1)
                    i2 = i1 - d
                    if lim2 < i2:
                        i1 = lim2 + d
                        i2 = lim2
                    if fbest < i1 + i2:
                        fbest = i1 + i2
                        fbest1 = i1
                bbest = bbest1 = big + big
                for d in range(bmax, bmin - 1, -2):
                    i1 = max(off1, kvdb[d + o])
                    i2 = i1 - d
                    if i2 < off2:
                        i1 = off2 + d
                        i2 = off2
                    if i1 + i2 < bbest:
                        bbest = i1 + i2
                        bbest1 = i1
                if (lim1 + lim2) - bbest < fbest - (off1 + off2):
                    return fbest1, fbest - fbest1, True, False
                return bbest1, bbest - bbest1, False, True
            ec += 1


def myers_diff(before: Sequence[Hashable], after: Sequence[Hashable], *, minimal: bool = False) -> list[Change]:
    """imara-diff's Myers diff (git's xdiff): tokens missing from the other side are
    pruned first, then the middle-snake recursion with xdiff's cost heuristics."""
    prefix, suffix = trim(before, after)
    b, a = _intern(before[prefix : len(before) - suffix], after[prefix : len(after) - suffix])
    n, m = len(b), len(a)
    changed1 = [False] * n
    changed2 = [False] * m
    status1 = _classify(b, a, min(_sqrt(n), _MAX_EQLIMIT))
    status2 = _classify(a, b, min(_sqrt(m), _MAX_EQLIMIT))
    t1, idx1 = _prune(b, status1, changed1)
    t2, idx2 = _prune(a, status2, changed2)
    c1 = [False] * len(t1)
    c2 = [False] * len(t2)
    if t1 or t2:
        _Myers(t1, t2, c1, c2).run(0, len(t1), 0, len(t2), minimal)
    for i, flag in enumerate(c1):
        if flag:
            changed1[idx1[i]] = True
    for i, flag in enumerate(c2):
        if flag:
            changed2[idx2[i]] = True
    return _moved(_hunks(changed1, changed2), prefix)


def _hunks(changed1: list[bool], changed2: list[bool]) -> list[Change]:
    """Pair the removed and the added runs, walking the kept tokens of both sides in
    step (imara-diff's ``process_changes_with_sink``)."""
    out: list[Change] = []
    n, m = len(changed1), len(changed2)
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and not changed1[i] and not changed2[j]:
            i += 1
            j += 1
            continue
        s1, s2 = i, j
        while i < n and changed1[i]:
            i += 1
        while j < m and changed2[j]:
            j += 1
        if (s1, s2) == (i, j):  # one side ran out of tokens: the rest of the other
            i, j = n, m
        out.append((s1, i, s2, j))
    return out
