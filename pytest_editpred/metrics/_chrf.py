"""delta-chrF (§4.3): do the predicted character n-gram changes match the expected ones?"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

from .._deadline import check as check_deadline
from .._text import Change, change_between, common_prefix_length, common_suffix_length
from ._local import local_window
from ._tokens import RUST_WHITESPACE

CHR_F_CHAR_ORDER = 6
CHR_F_BETA = 0.5


@dataclass(frozen=True)
class DeltaChrF:
    """The result of :func:`delta_chr_f`: score 0–100, P/R averaged over the orders
    (0–1), and TP/FP/FN summed over the orders."""

    score: float
    precision: float
    recall: float
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    beta: float = CHR_F_BETA


# Rust's ``char::is_whitespace`` without ``\n`` (``\r`` collapses to a space here).
_SPACE_RUN = re.compile("[" + re.escape("".join(sorted(RUST_WHITESPACE - {"\n"}))) + "]+")
_NEWLINE_RUN = re.compile(r"\n+")


def collapse_whitespace(text: str) -> str:
    """Zed's ``collapse_whitespace`` (§4.3 step 2).

    Zed pushes a space unless the last *whitespace it pushed* was a space, a ``\\n``
    unless it was a ``\\n``, and any other character forgets the last one. That is:
    every run of non-newline whitespace becomes one space and every run of ``\\n``
    one ``\\n``, but the two kinds alternate freely, so ``" \\n "`` stays as it is.
    """
    return _NEWLINE_RUN.sub("\n", _SPACE_RUN.sub(" ", text))


def _changed_region(original: str, modified: str) -> tuple[str, str]:
    """Zed's ``extract_changed_regions``: the changed middle with ``order - 1`` chars
    of context on each side (§4.3 step 3).

    This is part of the result, not only a speed-up: when a text is unchanged its
    region is at most 5 chars long, and an order with no n-grams at all on either
    side scores P = R = 1 (step 4). Two identical texts have no changed region at
    all: both are ``""`` (Zed's unit test ``"identical text"``), so a change that
    whitespace collapsing undoes counts as none in every order.
    """
    if original == modified:
        return "", ""
    prefix = common_prefix_length(original, modified)
    suffix = common_suffix_length(original, modified, min(len(original) - prefix, len(modified) - prefix))
    context = CHR_F_CHAR_ORDER - 1
    before, after = min(prefix, context), min(suffix, context)
    start = prefix - before
    return (
        original[start : len(original) - suffix + after],
        modified[start : len(modified) - suffix + after],
    )


# Regions longer than this are aligned line by line first, so that n-grams inside
# common blocks cancel without being counted (same numbers, much less work).
_ALIGN_THRESHOLD = 2000


def _line_blocks(before: str, after: str) -> list[tuple[int, int, int]]:
    """Common blocks ``(start in before, start in after, length)`` in chars.

    Any alignment will do: n-grams lying entirely inside a block that occurs in
    both texts cancel in the delta, so skipping them changes no count.
    """
    a_lines = before.split("\n")
    b_lines = after.split("\n")
    a_starts = [0]
    for line in a_lines:
        a_starts.append(a_starts[-1] + len(line) + 1)
    b_starts = [0]
    for line in b_lines:
        b_starts.append(b_starts[-1] + len(line) + 1)
    blocks = []
    matcher = SequenceMatcher(None, a_lines, b_lines, autojunk=False)
    for i, j, size in matcher.get_matching_blocks():
        if size:
            # The lines of the block, with their newlines except after the last line.
            length = a_starts[i + size] - a_starts[i]
            if i + size == len(a_lines) or j + size == len(b_lines):
                length -= 1
            blocks.append((a_starts[i], b_starts[j], length))
    return blocks


def _free_positions(length: int, n: int, blocks: Iterable[tuple[int, int]]) -> Iterable[int]:
    """Start positions of the n-grams not lying entirely inside one of ``blocks``."""
    at = 0
    last = length - n  # last start position
    for start, size in blocks:
        inside_from, inside_to = start, start + size - n  # inclusive range
        if inside_to < inside_from:
            continue
        yield from range(at, min(inside_from, last + 1))
        at = max(at, inside_to + 1)
    yield from range(at, last + 1)


_ORDERS = range(1, CHR_F_CHAR_ORDER + 1)
_LIST_LIMIT = 20_000  # characters of a region counted through one list (about 1 MB of n-grams)


class _NgramDelta:
    """``count(after) - count(before)`` per n-gram, for one (before, after) pair,
    split into what was added (``added``) and what was removed (``removed``); an
    n-gram's order is its length, so one dict holds all six orders. Computed once
    per pair: the actual side is shared by every candidate. ``totals[n]`` is the
    size of the order-``n`` delta and ``present[n]`` says whether either side has
    an n-gram of that order at all (step 4's P = R = 1 case).

    The per-n-gram work is one list and one C-level ``Counter`` per side and two
    comprehensions: a candidate costs about 0.1 ms on the few-line regions edits
    have.
    """

    __slots__ = ("added", "removed", "totals", "present", "unchanged")

    def __init__(self, before: str, after: str, unchanged: bool = False) -> None:
        self.unchanged = unchanged  # the whole texts are equal (not only this region)
        blocks = _line_blocks(before, after) if len(before) + len(after) > _ALIGN_THRESHOLD else None
        totals = [0] * (CHR_F_CHAR_ORDER + 1)
        if blocks is None and len(before) + len(after) <= _LIST_LIMIT:
            # The common case, a few lines. N-grams lying wholly inside the texts'
            # common prefix (or suffix) sit at the same places on both sides and
            # cancel: only the others are counted, every order in one list.
            prefix = common_prefix_length(before, after)
            suffix = common_suffix_length(before, after, min(len(before), len(after)) - prefix)
            spans = [
                (
                    max(prefix - n + 1, 0),
                    min(len(before) - n, len(before) - suffix - 1) + 1,
                    min(len(after) - n, len(after) - suffix - 1) + 1,
                )
                for n in _ORDERS
            ]
            old = Counter([before[i : i + n] for n, (first, end, _) in zip(_ORDERS, spans) for i in range(first, end)])
            new = Counter([after[i : i + n] for n, (first, _, end) in zip(_ORDERS, spans) for i in range(first, end)])
            removed = {gram: d for gram, count in old.items() if (d := count - new.get(gram, 0)) > 0}
            added = dict(new)
            for gram in old.keys() & new.keys():
                d = new[gram] - old[gram]
                if d > 0:
                    added[gram] = d
                else:
                    del added[gram]
            # added - removed is (n-grams after) - (n-grams before) for each order;
            # only the (few) removed ones need looking at.
            for gram, d in removed.items():
                totals[len(gram)] += 2 * d
            for n, (first, old_end, new_end) in zip(_ORDERS, spans):
                totals[n] += max(new_end - first, 0) - max(old_end - first, 0)
        else:
            # Order by order from generators: a list of every n-gram would hold six
            # strings per character (2 GB for a 5 MB region) where the counters hold
            # each distinct n-gram once. Inside common line blocks n-grams cancel.
            old, new = Counter(), Counter()
            for n in _ORDERS:
                check_deadline()
                if blocks is None:
                    old.update(before[i : i + n] for i in range(len(before) - n + 1))
                    new.update(after[i : i + n] for i in range(len(after) - n + 1))
                else:
                    old.update(
                        before[i : i + n] for i in _free_positions(len(before), n, ((a, s) for a, _, s in blocks))
                    )
                    new.update(after[i : i + n] for i in _free_positions(len(after), n, ((b, s) for _, b, s in blocks)))
            check_deadline()
            added = {gram: d for gram, count in new.items() if (d := count - old.get(gram, 0)) > 0}
            removed = {gram: d for gram, count in old.items() if (d := count - new.get(gram, 0)) > 0}
            for delta in (added, removed):
                for gram, d in delta.items():
                    totals[len(gram)] += d
        self.added, self.removed, self.totals = added, removed, totals
        longest = max(len(before), len(after))
        self.present = [n <= longest for n in range(CHR_F_CHAR_ORDER + 1)]

    def true_positives(self, other: _NgramDelta) -> list[int]:
        """Per order, the size of the multiset intersection of the two deltas."""
        tp = [0] * (CHR_F_CHAR_ORDER + 1)
        for mine, theirs in ((self.added, other.added), (self.removed, other.removed)):
            for gram in mine.keys() & theirs.keys():
                a, b = mine[gram], theirs[gram]
                tp[len(gram)] += a if a < b else b
        return tp


def ngram_delta(original: str, modified: str, change: Change | None = None) -> _NgramDelta:
    """The n-gram delta of one pair, on its local window (:mod:`._local`): the
    collapsed window is a slice of the collapsed text holding the changed region
    and its context, so the region, and every count, is the same as on the whole.

    ``change`` is ``change_between(original, modified)`` when the caller has it
    already (the verdict found every candidate's on the whole file). Computed once
    per text: the actual side's delta is shared by every candidate.
    """
    change = change_between(original, modified) if change is None else change
    lo, hi = local_window(original, change)
    base = collapse_whitespace(original[lo:hi])
    changed = collapse_whitespace(modified[lo : hi + change.shift])
    return _NgramDelta(*_changed_region(base, changed), unchanged=change.empty)


def delta_chr_f(original: str, expected: str, actual: str) -> DeltaChrF:
    """Zed's delta-chrF (§4.3): chrF over the n-gram *changes* original→expected
    versus original→actual, orders 1–6, β = 0.5 (precision weighs more).

    Scoring the deltas rather than the texts means an unchanged file scores 0, not
    99: only the edit is judged. Whitespace runs are collapsed first (Zed's
    ``Collapse`` mode), so indentation width barely matters.
    """
    return chr_f_of(ngram_delta(original, expected), ngram_delta(original, actual))


def chr_f_of(expected_delta: _NgramDelta, actual_delta: _NgramDelta) -> DeltaChrF:
    """:func:`delta_chr_f` from the two sides' :func:`ngram_delta`."""
    if expected_delta.unchanged and actual_delta.unchanged:
        return DeltaChrF(100.0, 1.0, 1.0)
    true_positives = expected_delta.true_positives(actual_delta)
    sum_precision = sum_recall = 0.0
    tp = fp = fn = 0
    for n in range(1, CHR_F_CHAR_ORDER + 1):
        if not expected_delta.present[n] and not actual_delta.present[n]:
            sum_precision += 1.0
            sum_recall += 1.0
            continue
        hits = true_positives[n]
        misses, extra = expected_delta.totals[n] - hits, actual_delta.totals[n] - hits
        if hits:  # precision and recall are 0, not undefined, with a 0 denominator
            sum_precision += hits / (hits + extra)
            sum_recall += hits / (hits + misses)
        tp += hits
        fp += extra
        fn += misses
    precision = sum_precision / CHR_F_CHAR_ORDER
    recall = sum_recall / CHR_F_CHAR_ORDER
    beta2 = CHR_F_BETA * CHR_F_BETA
    if precision + recall == 0:
        score = 0.0
    else:
        score = (1 + beta2) * precision * recall / (beta2 * precision + recall) * 100
    return DeltaChrF(score, precision, recall, tp, fp, fn)
