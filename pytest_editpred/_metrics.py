"""Zed's edit-prediction scoring metrics, ported exactly (zed-format.md §4.2–§4.7).

Every metric here answers one question about a predicted edit, always *relative to
the original text*: scoring the texts themselves would reward copying the file.

* :func:`delta_chr_f` (§4.3): do the predicted character n-gram *changes* match the
  expected ones? The headline number, 0–100.
* :func:`exact_lines_match` (§4.4): how many changed diff lines are exactly right.
* :func:`compute_kept_rate` (§4.5): how much of what the model typed survives in the
  expected text (kept rate), and how much of the expected edit it made (recall).
* :func:`reversal_ratio` (§4.6): how much of the prediction undoes the user's own
  last edit.
* :func:`braces_disbalance`, :func:`wrong_editable_region`,
  :func:`has_isolated_whitespace_changes`, :func:`token_changes` (§4.2): cheap
  smells of a broken prediction.
* :func:`patch_location_match` (§4.7): does the prediction edit the expected places;
  only the last tie-break between several expected patches.

:func:`score_prediction` combines them the way ``ep score`` does: each expected
patch is scored, the best one wins, and every field is reported from the winner.

Zed works on UTF-8 bytes, this package on ``str``. Where Zed's metric is a *count of
bytes* (kept/discarded chars, cursor distance, the 512-byte bail-out) we encode and
count bytes; where it counts ``char``s (chrF n-grams, reversal) Python's code points
are the same thing.

Known drift from Zed, all in places Zed's result depends on a third-party diff:

* :func:`reversal_ratio` uses :mod:`difflib` where Zed uses imara-diff's histogram
  diff (§7.11); the edits it finds, and so the ratio, can differ slightly.
* Character classes follow Rust's ``char::is_whitespace`` exactly (an explicit
  table), but "identifier character" is Python's ``\\w`` (``str.isalnum`` or ``_``),
  which differs from Rust's ``is_alphanumeric`` on a few exotic code points.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from difflib import SequenceMatcher
from typing import Any

from ._cursor import _nbytes
from ._diff import Edit, Hunk, Kind, apply_hunks, classify, parse_diff, split_lines
from ._exceptions import DiffError
from ._request import EditEvent

__all__ = [
    "CHR_F_BETA",
    "CHR_F_CHAR_ORDER",
    "JUMP_LOCATION_TOLERANCE",
    "KEPT_RATE_MAX_LENGTH_DELTA",
    "Candidate",
    "ClassificationMetrics",
    "DeltaChrF",
    "JumpLocation",
    "KeptRate",
    "PredictionScore",
    "TokenChanges",
    "braces_disbalance",
    "collapse_whitespace",
    "comparison_units",
    "compute_kept_rate",
    "compute_reversal_overlap",
    "delta_chr_f",
    "exact_lines_match",
    "has_isolated_whitespace_changes",
    "lcs_length",
    "patch_location_match",
    "reversal_ratio",
    "score_prediction",
    "text_braces_disbalance",
    "token_changes",
    "tokenize",
    "wrong_editable_region",
]

CHR_F_CHAR_ORDER = 6
CHR_F_BETA = 0.5
KEPT_RATE_MAX_LENGTH_DELTA = 512
JUMP_LOCATION_TOLERANCE = 20

# Rust's ``char::is_whitespace`` (the Unicode White_Space property), minus ``\n``.
# Python's ``str.isspace`` also accepts U+001C..U+001F, which Rust does not.
_SPACE_CLASS = "\t\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_RUST_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)


def _is_blank(text: str) -> bool:
    """Rust's ``s.trim().is_empty()``."""
    return all(c in _RUST_WHITESPACE for c in text)


# ---------------------------------------------------------------- classification counts


@dataclass(frozen=True)
class ClassificationMetrics:
    """Zed's ``ClassificationMetrics``: TP/FP/FN of two multisets (§4.3 step 4).

    Precision and recall are 0, not undefined, when their denominator is 0: a
    prediction that changes nothing has no precision to speak of.
    """

    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0

    @classmethod
    def from_counts(cls, expected: dict[str, int], actual: dict[str, int]) -> ClassificationMetrics:
        tp = fp = fn = 0
        for key, want in expected.items():
            got = actual.get(key, 0)
            if got > want:
                fp += got - want
            else:
                fn += want - got
            tp += min(want, got)
        for key, got in actual.items():
            if key not in expected:
                fp += got
        return cls(tp, fp, fn)

    @property
    def precision(self) -> float:
        denominator = self.true_positives + self.false_positives
        return self.true_positives / denominator if denominator else 0.0

    @property
    def recall(self) -> float:
        denominator = self.true_positives + self.false_negatives
        return self.true_positives / denominator if denominator else 0.0

    @property
    def f1(self) -> float:
        precision, recall = self.precision, self.recall
        if precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)


# ---------------------------------------------------------------------------- delta chrF


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


_SPACE_RUN = re.compile(f"[{_SPACE_CLASS}]+")
_NEWLINE_RUN = re.compile(r"\n+")


def collapse_whitespace(text: str) -> str:
    """Zed's ``collapse_whitespace`` (§4.3 step 2).

    Zed pushes a space unless the last *whitespace it pushed* was a space, a ``\\n``
    unless it was a ``\\n``, and any other character forgets the last one. That is:
    every run of non-newline whitespace becomes one space and every run of ``\\n``
    one ``\\n``, but the two kinds alternate freely, so ``" \\n "`` stays as it is.
    """
    return _NEWLINE_RUN.sub("\n", _SPACE_RUN.sub(" ", text))


def _common_prefix_len(a: str, b: str) -> int:
    """Length of the common prefix, by binary search on C-speed slice comparisons."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix_len(a: str, b: str, limit: int) -> int:
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _changed_region(original: str, modified: str) -> tuple[str, str]:
    """Zed's ``extract_changed_regions``: the changed middle with ``order - 1`` chars
    of context on each side (§4.3 step 3).

    This is part of the result, not only a speed-up: when a text is unchanged its
    region is at most 5 chars long, and an order with no n-grams at all on either
    side scores P = R = 1 (step 4).
    """
    prefix = _common_prefix_len(original, modified)
    suffix = _common_suffix_len(
        original, modified, min(len(original) - prefix, len(modified) - prefix)
    )
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


class _NgramDelta:
    """``count(after) - count(before)`` per n-gram for one (before, after) pair."""

    def __init__(self, before: str, after: str) -> None:
        self.before = before
        self.after = after
        self.blocks: list[tuple[int, int, int]] | None = None
        if len(before) + len(after) > _ALIGN_THRESHOLD:
            self.blocks = _line_blocks(before, after)

    def bag(self, n: int) -> tuple[bool, dict[str, int]]:
        """(any n-gram at all, the delta as a bag with ``¬`` for removed n-grams)."""
        before, after = self.before, self.after
        if len(before) < n and len(after) < n:
            return False, {}
        if self.blocks is None:
            old = Counter(before[i : i + n] for i in range(len(before) - n + 1))
            new = Counter(after[i : i + n] for i in range(len(after) - n + 1))
        else:
            old = Counter(
                before[i : i + n]
                for i in _free_positions(len(before), n, ((a, s) for a, _, s in self.blocks))
            )
            new = Counter(
                after[i : i + n]
                for i in _free_positions(len(after), n, ((b, s) for _, b, s in self.blocks))
            )
        bag = dict(new - old)
        bag.update(("¬" + gram, count) for gram, count in (old - new).items())
        return True, bag


def delta_chr_f(original: str, expected: str, actual: str) -> DeltaChrF:
    """Zed's delta-chrF (§4.3): chrF over the n-gram *changes* original→expected
    versus original→actual, orders 1–6, β = 0.5 (precision weighs more).

    Scoring the deltas rather than the texts means an unchanged file scores 0, not
    99: only the edit is judged. Whitespace runs are collapsed first (Zed's
    ``Collapse`` mode), so indentation width barely matters.
    """
    if original == expected == actual:
        return DeltaChrF(100.0, 1.0, 1.0)
    base = collapse_whitespace(original)
    want = collapse_whitespace(expected)
    got = collapse_whitespace(actual)
    expected_delta = _NgramDelta(*_changed_region(base, want))
    actual_delta = _NgramDelta(*_changed_region(base, got))
    sum_precision = sum_recall = 0.0
    tp = fp = fn = 0
    for n in range(1, CHR_F_CHAR_ORDER + 1):
        expected_any, expected_bag = expected_delta.bag(n)
        actual_any, actual_bag = actual_delta.bag(n)
        if not expected_any and not actual_any:
            sum_precision += 1.0
            sum_recall += 1.0
            continue
        counts = ClassificationMetrics.from_counts(expected_bag, actual_bag)
        sum_precision += counts.precision
        sum_recall += counts.recall
        tp += counts.true_positives
        fp += counts.false_positives
        fn += counts.false_negatives
    precision = sum_precision / CHR_F_CHAR_ORDER
    recall = sum_recall / CHR_F_CHAR_ORDER
    beta2 = CHR_F_BETA * CHR_F_BETA
    if precision + recall == 0:
        score = 0.0
    else:
        score = (1 + beta2) * precision * recall / (beta2 * precision + recall) * 100
    return DeltaChrF(score, precision, recall, tp, fp, fn)


# ---------------------------------------------------------------------------- exact lines

_PATCH_META = ("---", "+++", "@@", "diff ", "index ")


def _changed_lines(patch: str) -> dict[str, int]:
    """Zed's ``extract_changed_lines_from_diff``: ``+``/``-`` lines, prefix kept."""
    counts: Counter[str] = Counter()
    for line in split_lines(patch):
        if line.startswith(_PATCH_META):
            continue
        if line.startswith(("+", "-")):
            counts[line] += 1
    return counts


def exact_lines_match(expected_patch: str, actual_patch: str) -> ClassificationMetrics:
    """Exact lines match (§4.4): the multisets of changed lines, whitespace and all.

    Unlike chrF this is strict: the same change at another indentation misses
    (§7.13).
    """
    return ClassificationMetrics.from_counts(
        _changed_lines(expected_patch), _changed_lines(actual_patch)
    )


# -------------------------------------------------------------------------------- braces


def text_braces_disbalance(text: str) -> int:
    """``|#{ - #}| + |#( - #)| + |#[ - #]|``."""
    return (
        abs(text.count("{") - text.count("}"))
        + abs(text.count("(") - text.count(")"))
        + abs(text.count("[") - text.count("]"))
    )


def braces_disbalance(original: str, actual: str) -> int:
    """Brackets the prediction left unbalanced that were balanced before (§4.2).

    Only the increase counts (saturating at 0): an excerpt often cuts a block in
    half, and that is not the model's fault.
    """
    return max(0, text_braces_disbalance(actual) - text_braces_disbalance(original))


# ----------------------------------------------------------------------------- tokenizer

# Greedy, longest first. The spec lists ``>>>=``, ``<<=``, ``::``, ``->``, ``=>``,
# ``==``, ``!=``, ``//``, ``/*`` and "…"; the rest is the usual C-family set.
_OPERATORS = (
    ">>>=",
    "<<=", ">>=", ">>>", "===", "!==", "**=", "//=", "...", "..=", "<=>", "&&=", "||=",
    "??=",
    "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", "++", "--", "**", "..", "//", "/*", "*/", "??", "?.",
    ":=",
)  # fmt: skip
_UNIT = re.compile(
    r"\n+"
    f"|[{_SPACE_CLASS}]+"
    r"|\w+"
    "|" + "|".join(re.escape(op) for op in sorted(_OPERATORS, key=len, reverse=True)) + "|.",
    re.DOTALL,
)
_UNDERSCORES = re.compile(r"_+|[^_]+")


def _split_identifier(run: str) -> list[str]:
    """``my_HTTPServer2x`` → ``my``, ``_``, ``HTTP``, ``Server2x``.

    Boundaries: around ``_`` runs; before an upper-case letter that follows a
    non-upper-case character (``myH``); before the last upper-case letter of a
    capital run that is followed by a lower-case one (``HTTPServer``). Digits stick
    to the word before them.
    """
    parts: list[str] = []
    for segment in _UNDERSCORES.findall(run):
        if segment[0] == "_" or segment.islower() or segment.isupper() or segment.isdigit():
            parts.append(segment)
            continue
        start = 0
        for k in range(1, len(segment)):
            char = segment[k]
            if not char.isupper():
                continue
            previous = segment[k - 1]
            if not previous.isupper() or (k + 1 < len(segment) and segment[k + 1].islower()):
                parts.append(segment[start:k])
                start = k
        parts.append(segment[start:])
    return parts


def comparison_units(text: str) -> list[str]:
    """The kept-rate units (§4.5): tokens with identifier pieces merged back whole.

    Their concatenation is ``text``. Comparing whole identifiers means renaming
    ``fooBar`` to ``fooBaz`` keeps nothing of it.
    """
    return _UNIT.findall(text)


def tokenize(text: str) -> list[str]:
    """Zed's metrics tokenizer (§4.5): lossless, so the tokens join back to ``text``.

    Runs of ``\\n``, runs of other whitespace, identifier pieces (split at ``_``
    runs and camelCase boundaries), multi-char operators (greedy, longest first)
    and single punctuation characters.
    """
    tokens: list[str] = []
    for unit in _UNIT.findall(text):
        if unit[0] == "_" or unit[0].isalnum():
            tokens.extend(_split_identifier(unit))
        else:
            tokens.append(unit)
    return tokens


# ------------------------------------------------------------------------ LCS keep-masks


def _lcs_columns(a: Sequence[str], b: Sequence[str]) -> list[int]:
    """The LCS table of ``a`` (rows) × ``b`` (columns), as bit-vectors.

    Bit-parallel LCS (Allison–Dix / Hyyrö): after ``j`` columns, bit ``i`` of
    ``V[j]`` is 0 exactly when ``dp[i+1][j] = dp[i][j] + 1``. So
    ``dp[i][j] = i - popcount(V[j] & (2**i - 1))``: the same table as Zed's
    quadratic DP, in ``len(b)`` big-integer steps.
    """
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    columns = [v]
    for token in b:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
        columns.append(v)
    return columns


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of a longest common subsequence of ``a`` and ``b``."""
    if not a or not b:
        return 0
    return len(a) - _lcs_columns(a, b)[-1].bit_count()


def _lcs_keep_masks(a: Sequence[str], b: Sequence[str]) -> tuple[list[bool], list[bool]]:
    """Which items of ``a`` and of ``b`` lie on a longest common subsequence.

    Zed trims the common prefix and suffix, fills one DP table and walks it back
    twice, once per side, each walk preferring to drop *its own* side's item on a
    tie ("one-sided tie-breaking"). The two masks may thus come from two different
    (equally long) alignments, and neither depends on the argument order.
    """
    n, m = len(a), len(b)
    if not n or not m:
        return [False] * n, [False] * m
    if list(a) == list(b):
        return [True] * n, [True] * m
    prefix = 0
    while prefix < min(n, m) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(n, m) - prefix and a[n - 1 - suffix] == b[m - 1 - suffix]:
        suffix += 1
    keep_a = [True] * prefix + [False] * (n - prefix - suffix) + [True] * suffix
    keep_b = [True] * prefix + [False] * (m - prefix - suffix) + [True] * suffix
    a_mid = a[prefix : n - suffix]
    b_mid = b[prefix : m - suffix]
    if not a_mid or not b_mid:
        return keep_a, keep_b
    columns = _lcs_columns(a_mid, b_mid)

    def dp(i: int, j: int) -> int:
        return i - (columns[j] & ((1 << i) - 1)).bit_count()

    i, j = len(a_mid), len(b_mid)
    while i > 0 and j > 0:
        if a_mid[i - 1] == b_mid[j - 1]:
            keep_a[prefix + i - 1] = True
            i -= 1
            j -= 1
        elif dp(i - 1, j) >= dp(i, j - 1):
            i -= 1
        else:
            j -= 1
    i, j = len(a_mid), len(b_mid)
    while i > 0 and j > 0:
        if a_mid[i - 1] == b_mid[j - 1]:
            keep_b[prefix + j - 1] = True
            i -= 1
            j -= 1
        elif dp(i, j - 1) >= dp(i - 1, j):
            j -= 1
        else:
            i -= 1
    return keep_a, keep_b


# ----------------------------------------------------------------------------- kept rate


@dataclass(frozen=True)
class KeptRate:
    """The result of :func:`compute_kept_rate`; every ``*_chars`` is a UTF-8 byte count."""

    kept_rate: float
    recall_rate: float
    kept_chars: int = 0
    correctly_deleted_chars: int = 0
    discarded_chars: int = 0
    candidate_new_chars: int = 0
    candidate_deleted_chars: int = 0
    reference_new_chars: int = 0
    reference_deleted_chars: int = 0
    context_chars: int = 0


def compute_kept_rate(base: str, candidate: str, reference: str) -> KeptRate:
    """Zed's kept rate and recall rate (§4.5).

    ``kept_rate``: of what the candidate (the prediction) inserted and deleted, the
    share the reference (the expected text) inserted or deleted too; ``recall_rate``:
    the same share of what the reference did. Compared by whole identifiers, counted
    in bytes.

    Predictions whose size change differs from the reference's by more than 512
    bytes are not compared at all (both rates 0; §7.12): they are a different edit,
    and the quadratic LCS would be wasted on them.
    """
    if base == candidate == reference:
        return KeptRate(1.0, 1.0, context_chars=_nbytes(base))
    base_len = _nbytes(base)
    candidate_change = abs(_nbytes(candidate) - base_len)
    reference_change = abs(_nbytes(reference) - base_len)
    if abs(candidate_change - reference_change) > KEPT_RATE_MAX_LENGTH_DELTA:
        return KeptRate(0.0, 0.0, discarded_chars=candidate_change)

    base_units = comparison_units(base)
    candidate_units = comparison_units(candidate)
    reference_units = comparison_units(reference)
    keep_candidate, keep_base_c = _lcs_keep_masks(candidate_units, base_units)
    keep_reference, keep_base_r = _lcs_keep_masks(reference_units, base_units)

    candidate_new = [u for u, kept in zip(candidate_units, keep_candidate) if not kept]
    reference_new = [u for u, kept in zip(reference_units, keep_reference) if not kept]
    candidate_new_chars = sum(map(_nbytes, candidate_new))
    reference_new_chars = sum(map(_nbytes, reference_new))
    context_chars = sum(_nbytes(u) for u, kept in zip(candidate_units, keep_candidate) if kept)
    keep_new, _ = _lcs_keep_masks(candidate_new, reference_new)
    kept_chars = sum(_nbytes(u) for u, kept in zip(candidate_new, keep_new) if kept)

    candidate_deleted_chars = reference_deleted_chars = correctly_deleted_chars = 0
    for unit, in_candidate, in_reference in zip(base_units, keep_base_c, keep_base_r):
        size = _nbytes(unit)
        if not in_candidate:
            candidate_deleted_chars += size
        if not in_reference:
            reference_deleted_chars += size
        if not in_candidate and not in_reference:
            correctly_deleted_chars += size

    hits = kept_chars + correctly_deleted_chars
    candidate_edit = candidate_new_chars + candidate_deleted_chars
    reference_edit = reference_new_chars + reference_deleted_chars
    if candidate_edit:
        kept_rate = hits / candidate_edit
    else:
        kept_rate = 1.0 if reference_edit == 0 else 0.0
    if reference_edit:
        recall_rate = hits / reference_edit
    else:
        recall_rate = 1.0 if candidate_edit == 0 else 0.0
    return KeptRate(
        kept_rate,
        recall_rate,
        kept_chars=kept_chars,
        correctly_deleted_chars=correctly_deleted_chars,
        discarded_chars=candidate_new_chars - kept_chars,
        candidate_new_chars=candidate_new_chars,
        candidate_deleted_chars=candidate_deleted_chars,
        reference_new_chars=reference_new_chars,
        reference_deleted_chars=reference_deleted_chars,
        context_chars=context_chars,
    )


# ------------------------------------------------------------------------ reversal ratio

_MAX_REFINE_BYTES = 512
_MAX_REFINE_LINES = 8
_NEW_START = re.compile(r"\+(\d+)")


@dataclass(frozen=True)
class _TextEdit:
    """Replace ``old`` at ``[start, end)`` of the old text with ``new``."""

    start: int
    end: int
    old: str
    new: str


def _lines_inclusive(text: str) -> list[str]:
    """Rust's ``split_inclusive('\\n')``: lines with their newlines."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _starts(pieces: Sequence[str]) -> list[int]:
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece))
    return starts


def _granular_edits(old: str, new: str) -> list[_TextEdit]:
    """Zed's ``text_diff``: a line diff whose small hunks are refined to tokens.

    A hunk of at most 8 lines and 512 bytes on both sides is re-diffed on the
    metrics tokens. Zed diffs with imara-diff's histogram algorithm; difflib's
    matcher (autojunk off) can align some changes differently (§7.11).
    """
    old_lines, new_lines = _lines_inclusive(old), _lines_inclusive(new)
    old_starts, new_starts = _starts(old_lines), _starts(new_lines)
    edits: list[_TextEdit] = []
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        o_start, o_end = old_starts[i1], old_starts[i2]
        n_start, n_end = new_starts[j1], new_starts[j2]
        old_part, new_part = old[o_start:o_end], new[n_start:n_end]
        refine = (
            old_part
            and new_part
            and i2 - i1 <= _MAX_REFINE_LINES
            and j2 - j1 <= _MAX_REFINE_LINES
            and _nbytes(old_part) <= _MAX_REFINE_BYTES
            and _nbytes(new_part) <= _MAX_REFINE_BYTES
        )
        if not refine:
            edits.append(_TextEdit(o_start, o_end, old_part, new_part))
            continue
        old_tokens, new_tokens = tokenize(old_part), tokenize(new_part)
        old_offsets, new_offsets = _starts(old_tokens), _starts(new_tokens)
        inner = SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
        for tag2, a1, a2, b1, b2 in inner.get_opcodes():
            if tag2 == "equal":
                continue
            start, end = o_start + old_offsets[a1], o_start + old_offsets[a2]
            edits.append(
                _TextEdit(start, end, old[start:end], new_part[new_offsets[b1] : new_offsets[b2]])
            )
    return edits


def _is_subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(char in it for char in short)


def _normalize_edits(edits: Iterable[_TextEdit]) -> list[_TextEdit]:
    """Turn "pure extension" edits into the insertions or deletions they are.

    ``epr`` → ``eprintln!()`` inserts ``intln!()``; it does not delete ``epr``.
    The kept characters are matched greedily from the left.
    """
    out: list[_TextEdit] = []
    for edit in edits:
        old, new = edit.old, edit.new
        if old and new and len(old) < len(new) and _is_subsequence(old, new):
            k = 0
            run: list[str] = []
            for char in new:
                if k < len(old) and char == old[k]:
                    if run:
                        out.append(_TextEdit(edit.start + k, edit.start + k, "", "".join(run)))
                        run = []
                    k += 1
                else:
                    run.append(char)
            if run:
                out.append(_TextEdit(edit.start + k, edit.start + k, "", "".join(run)))
        elif old and new and len(new) < len(old) and _is_subsequence(new, old):
            k = 0
            run_start: int | None = None
            for p, char in enumerate(old):
                if k < len(new) and char == new[k]:
                    if run_start is not None:
                        at = edit.start
                        out.append(_TextEdit(at + run_start, at + p, old[run_start:p], ""))
                        run_start = None
                    k += 1
                elif run_start is None:
                    run_start = p
            if run_start is not None:
                at = edit.start
                out.append(_TextEdit(at + run_start, at + len(old), old[run_start:], ""))
        else:
            out.append(edit)
    return out


def compute_reversal_overlap(before: str, current: str, predicted: str) -> float:
    """Zed's ``compute_reversal_overlap`` (§4.6), as a ratio.

    ``before`` is the text before the user's last edit, ``current`` after it (the
    original the model saw), ``predicted`` the model's text. The ratio is the share
    of the prediction's changed characters that remove what the user added or
    restore what the user deleted.
    """
    history = _normalize_edits(_granular_edits(before, current))
    prediction = _normalize_edits(_granular_edits(current, predicted))
    additions: list[tuple[int, int]] = []  # ranges in ``current``
    deletions: list[tuple[int, str]] = []  # (position in ``current``, deleted text)
    shift = 0
    for edit in history:
        at = edit.start + shift
        if edit.new:
            additions.append((at, at + len(edit.new)))
        if edit.old:
            deletions.append((at, edit.old))
        shift += len(edit.new) - len(edit.old)

    reversed_additions = 0
    restored_deletions = 0
    total = 0
    for edit in prediction:
        total += len(edit.new) + len(edit.old)
        for start, end in additions:
            overlap = min(edit.end, end) - max(edit.start, start)
            if overlap > 0:
                reversed_additions += overlap
        if edit.new:
            for position, deleted in deletions:
                if edit.start <= position < edit.end or position == edit.start:
                    restored_deletions += lcs_length(deleted, edit.new)
    if total == 0:
        return 0.0
    return (reversed_additions + restored_deletions) / total


def _drop_first_component(path: str) -> str | None:
    _, sep, rest = path.partition("/")
    return rest if sep and rest else None


def _event_matches(path: str, cursor_path: str | None) -> bool:
    """Is this event about the cursor file? Either path may carry a repository-name
    prefix (``tree-sitter/crates/...``), as old examples do."""
    if cursor_path is None:
        return True
    return cursor_path in (path, _drop_first_component(path)) or (
        path == _drop_first_component(cursor_path)
    )


def _event_hunks(diff: str) -> list[tuple[Hunk, int | None]]:
    """The hunks of an event diff with the 0-based new-file row each starts at.

    Zed's event diffs have no file header; ours may. The row comes from the
    header's ``+N`` (the new text is what the excerpt shows), or None.
    """
    if not any(classify(line).kind is Kind.OLD_PATH for line in split_lines(diff)):
        diff = "--- a/file\n+++ b/file\n" + diff
    sections = parse_diff(diff)
    lines = split_lines(diff)
    out: list[tuple[Hunk, int | None]] = []
    for section in sections:
        for hunk in section.hunks:
            row: int | None = None
            index = hunk.line - 1
            if 0 <= index < len(lines):
                header = classify(lines[index])
                if header.kind is Kind.HUNK_HEADER:
                    match = _NEW_START.search(lines[index])
                    row = max(int(match.group(1)) - 1, 0) if match else header.start_line
            out.append((hunk, row))
    return out


def _reversed(hunk: Hunk, start_line: int | None) -> Hunk:
    """The hunk that undoes ``hunk``: its new text as context, its edits inverted."""
    edits: list[Edit] = []
    shift = 0
    for edit in sorted(hunk.edits, key=lambda e: e.start):
        start = edit.start + shift
        edits.append(Edit(start, start + len(edit.text), hunk.context[edit.start : edit.end]))
        shift += len(edit.text) - (edit.end - edit.start)
    return Hunk(hunk.new_text(), edits, start_line, hunk.line)


def reversal_ratio(
    events: Sequence[EditEvent],
    cursor_path: str | None,
    excerpt_start_row: int | None,
    original: str,
    actual: str,
) -> float:
    """How much of the prediction undoes the user's last edit, 0–1 (§4.6).

    Only the **last** event for the cursor file counts (``cursor_path`` None: every
    event does), and 0 is returned when it is an accepted prediction, empty, or
    does not undo cleanly. With ``excerpt_start_row``, the event's hunks that touch
    the excerpt's rows are undone on the excerpt (``original``); without it, the
    whole event is undone, hunk by hunk, skipping hunks that do not apply.

    Drift from Zed (§7.11): Zed finds the edits with imara-diff's histogram diff;
    :mod:`difflib` may align a change differently, so ratios can differ slightly.
    """
    relevant = [event for event in events if _event_matches(event.path, cursor_path)]
    if not relevant:
        return 0.0
    last = relevant[-1]
    if last.predicted or not last.diff.strip():
        return 0.0
    try:
        hunks = _event_hunks(last.diff)
    except DiffError:
        return 0.0
    if excerpt_start_row is not None:
        first, end = excerpt_start_row, excerpt_start_row + len(split_lines(original))
        undo: list[Hunk] = []
        for hunk, row in hunks:
            if row is None:
                undo.append(_reversed(hunk, None))
                continue
            new_text = hunk.new_text()
            rows = new_text.count("\n") + (0 if new_text.endswith("\n") or not new_text else 1)
            if row + rows <= first or row >= end:
                continue
            undo.append(_reversed(hunk, row - first if row >= first else None))
        if not undo:
            return 0.0
        try:
            before = apply_hunks(original, undo)
        except DiffError:
            return 0.0
    else:
        before = original
        for hunk, row in hunks:
            try:
                before = apply_hunks(before, [_reversed(hunk, row)])
            except DiffError:
                continue
    return compute_reversal_overlap(before, original, actual)


# ------------------------------------------------------------------ metrics patch parser


@dataclass(frozen=True)
class _PatchHunk:
    """A hunk as Zed's metrics ``Patch`` parser sees it (§4.7).

    ``lines`` are ``(prefix, text)`` with prefix ``" "``, ``"+"`` or ``"-"``. Unlike
    the tolerant applier, an empty line is garbage here, not context, and is
    skipped; a ``@@`` line that is not a valid header still starts a hunk (rows 0).
    """

    path: str
    old_start: int
    new_start: int
    lines: tuple[tuple[str, str], ...]


_HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _strip_path(rest: str) -> str:
    path = rest.split("\t", 1)[0].strip()
    return path[2:] if path.startswith(("a/", "b/")) else path


def _parse_patch(patch: str) -> list[_PatchHunk]:
    hunks: list[_PatchHunk] = []
    old_path = new_path = ""
    old_start = new_start = 0
    lines: list[tuple[str, str]] = []

    def flush() -> None:
        if lines:
            path = new_path if new_path and new_path != "/dev/null" else old_path
            hunks.append(_PatchHunk(path, old_start, new_start, tuple(lines)))
            lines.clear()

    for line in split_lines(patch):
        if line.startswith("+++ "):
            new_path = _strip_path(line[4:])
        elif line.startswith("--- "):
            flush()
            old_path = new_path = _strip_path(line[4:])
            old_start = new_start = 0
        elif line.startswith("@@"):
            flush()
            match = _HUNK_HEADER.match(line)
            old_start, new_start = (int(match[1]), int(match[2])) if match else (0, 0)
        elif line[:1] in ("+", "-", " "):
            lines.append((line[0], line[1:]))
    flush()
    return hunks


def wrong_editable_region(actual_patch: str) -> bool:
    """True when the first hunk opens with 3 or more deletions (§4.2).

    That is what a model does when it was shown the wrong region: it deletes the
    lines it does not recognise before writing its own.
    """
    hunks = _parse_patch(actual_patch)
    if not hunks:
        return False
    deletions = 0
    for prefix, _ in hunks[0].lines:
        if prefix != "-":
            break
        deletions += 1
    return deletions >= 3


def has_isolated_whitespace_changes(actual_patch: str, cursor_row: int | None = None) -> bool:
    """A blank ``+``/``-`` line with no non-blank change beside it (§4.2).

    Models often add or drop an empty line for no reason; such a change inside a
    real edit is fine, alone it is noise. The scan around a blank line stops at
    context lines. A blank line *added* on the cursor's row (``cursor_row`` is
    0-based, in the frame of the patch's ``+N`` header numbers) is excused: the user
    is about to type there.
    """
    cursor_line = None if cursor_row is None else cursor_row + 1
    for hunk in _parse_patch(actual_patch):
        lines = hunk.lines
        new_line = hunk.new_start
        for index, (prefix, text) in enumerate(lines):
            if prefix == " ":
                new_line += 1
                continue
            if prefix == "+":
                here = new_line
                new_line += 1
                if _is_blank(text) and cursor_line == here:
                    continue
            if not _is_blank(text):
                continue
            if _isolated(lines, index):
                return True
    return False


def _isolated(lines: Sequence[tuple[str, str]], index: int) -> bool:
    for neighbours in (reversed(lines[:index]), lines[index + 1 :]):
        for prefix, text in neighbours:
            if prefix == " ":
                break
            if not _is_blank(text):
                return False
    return True


@dataclass(frozen=True)
class TokenChanges:
    inserted_tokens: int = 0
    deleted_tokens: int = 0


def _token_diff(old_lines: list[str], new_lines: list[str]) -> tuple[int, int]:
    old_tokens = tokenize("\n".join(old_lines))
    new_tokens = tokenize("\n".join(new_lines))
    common = lcs_length(old_tokens, new_tokens)
    return len(new_tokens) - common, len(old_tokens) - common


def token_changes(actual_patch: str) -> TokenChanges:
    """Tokens inserted and deleted by a patch (§4.2), run of ``-``/``+`` lines by run.

    Zed diffs each run's tokens with ``similar``'s Myers diff. Myers finds a
    *shortest* edit script, and the number of insertions and deletions in any
    shortest script is fixed (``len - LCS`` on each side), so we count with an
    exact LCS instead of porting Myers; difflib's matcher, which is not minimal,
    would over-count.
    """
    inserted = deleted = 0
    old_run: list[str] = []
    new_run: list[str] = []

    def flush() -> None:
        nonlocal inserted, deleted
        if old_run or new_run:
            ins, dele = _token_diff(old_run, new_run)
            inserted += ins
            deleted += dele
            old_run.clear()
            new_run.clear()

    for line in split_lines(actual_patch):
        if line.startswith(("---", "+++")):
            flush()
        elif line.startswith("-"):
            old_run.append(line[1:])
        elif line.startswith("+"):
            new_run.append(line[1:])
        else:
            flush()
    flush()
    return TokenChanges(inserted, deleted)


# ------------------------------------------------------------------------- jump location


@dataclass(frozen=True)
class JumpLocation:
    """Zed's ``patch_location_match`` counts (§4.7): edited files and edited rows.

    Precision and recall are 1 when all the counts are 0 (both patches empty): the
    prediction went nowhere and neither should it.
    """

    files_tp: int = 0
    files_fp: int = 0
    files_fn: int = 0
    lines_tp: int = 0
    lines_fp: int = 0
    lines_fn: int = 0

    @staticmethod
    def _rates(tp: int, fp: int, fn: int) -> tuple[float, float]:
        if tp == fp == fn == 0:
            return 1.0, 1.0
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        return precision, recall

    @staticmethod
    def _f1(precision: float, recall: float) -> float:
        return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)

    @property
    def lines_precision(self) -> float:
        return self._rates(self.lines_tp, self.lines_fp, self.lines_fn)[0]

    @property
    def lines_recall(self) -> float:
        return self._rates(self.lines_tp, self.lines_fp, self.lines_fn)[1]

    @property
    def lines_f1(self) -> float:
        return self._f1(*self._rates(self.lines_tp, self.lines_fp, self.lines_fn))

    @property
    def files_f1(self) -> float:
        return self._f1(*self._rates(self.files_tp, self.files_fp, self.files_fn))

    def to_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _anchors(patch: str) -> dict[str, set[int]]:
    """Per file, the 0-based old rows a patch edits.

    A deleted line anchors at its row. A run of ``+`` lines with no ``-`` line in it
    (a pure insertion) anchors at the rows on either side of the insertion point.
    """
    out: dict[str, set[int]] = {}
    for hunk in _parse_patch(patch):
        rows = out.setdefault(hunk.path, set())
        row = max(hunk.old_start - 1, 0)
        lines = hunk.lines
        index = 0
        while index < len(lines):
            if lines[index][0] == " ":
                row += 1
                index += 1
                continue
            run_start = index
            while index < len(lines) and lines[index][0] != " ":
                index += 1
            run = lines[run_start:index]
            if any(prefix == "-" for prefix, _ in run):
                for prefix, _ in run:
                    if prefix == "-":
                        rows.add(row)
                        row += 1
            else:
                if row > 0:
                    rows.add(row - 1)
                rows.add(row)
    return out


def patch_location_match(expected_patch: str, actual_patch: str) -> JumpLocation:
    """Does the prediction edit where the expected patch does (§4.7)?

    Files are matched by path (an actual path may drop its first component, for
    repo-prefixed paths); rows greedily, nearest first, within ±20 rows.
    """
    expected = _anchors(expected_patch)
    actual = _anchors(actual_patch)
    files_tp = files_fp = lines_tp = lines_fp = lines_fn = 0
    matched: set[str] = set()
    for path, rows in actual.items():
        target = path if path in expected else None
        if target is None:
            _, sep, rest = path.partition("/")
            if sep and rest in expected:
                target = rest
        if target is None or target in matched:
            files_fp += 1
            lines_fp += len(rows)
            continue
        matched.add(target)
        files_tp += 1
        free = sorted(expected[target])
        for row in sorted(rows):
            best = None
            for candidate in free:
                distance = abs(candidate - row)
                if distance <= JUMP_LOCATION_TOLERANCE and (
                    best is None or distance < abs(best - row)
                ):
                    best = candidate
            if best is None:
                lines_fp += 1
            else:
                free.remove(best)
                lines_tp += 1
        lines_fn += len(free)
    files_fn = 0
    for path, rows in expected.items():
        if path not in matched:
            files_fn += 1
            lines_fn += len(rows)
    return JumpLocation(files_tp, files_fp, files_fn, lines_tp, lines_fp, lines_fn)


# -------------------------------------------------------------------------- the score


@dataclass(frozen=True)
class Candidate:
    """One expected patch, ready to score against.

    ``patch`` is the expected patch with its cursor lines removed, ``text`` the
    original after applying it, ``cursor`` the expected cursor as a character
    offset into ``text`` (None: the patch marks no cursor).
    """

    patch: str
    text: str
    cursor: int | None = None


# Zed's ``Option`` fields serialised with ``skip_serializing_if = "Option::is_none"``
# (the ``?`` fields of §5.2). ``wrong_editable_region`` is an Option without ``?``:
# it is written as null.
_SKIP_IF_NONE = frozenset(
    {
        "cursor_distance",
        "cursor_exact_match",
        "kept_rate",
        "recall_rate",
        "kept_chars",
        "correctly_deleted_chars",
        "discarded_chars",
        "cumulative_logprob",
        "avg_logprob",
        "editable_context_coverage",
        "jump_location",
    }
)


@dataclass(frozen=True)
class PredictionScore:
    """Zed's ``PredictionScore``, field for field (§5.2 ``score[]``, §4.2).

    The names are Zed's so that ``to_dict()`` can be compared with, or written as,
    the ``score`` array of ``ep score``'s JSON.
    """

    delta_chr_f: float
    delta_chr_f_true_positives: int
    delta_chr_f_false_positives: int
    delta_chr_f_false_negatives: int
    delta_chr_f_precision: float
    delta_chr_f_recall: float
    delta_chr_f_beta: float
    braces_disbalance: int
    exact_lines_tp: int
    exact_lines_fp: int
    exact_lines_fn: int
    reversal_ratio: float
    cursor_distance: int | None
    cursor_exact_match: bool | None
    wrong_editable_region: bool | None
    has_isolated_whitespace_changes: bool
    inserted_tokens: int
    deleted_tokens: int
    kept_rate: float | None = None
    recall_rate: float | None = None
    kept_chars: int | None = None
    correctly_deleted_chars: int | None = None
    discarded_chars: int | None = None
    cumulative_logprob: float | None = None
    avg_logprob: float | None = None
    editable_context_coverage: float | None = None
    jump_location: JumpLocation | None = None

    @property
    def exact_lines(self) -> ClassificationMetrics:
        return ClassificationMetrics(self.exact_lines_tp, self.exact_lines_fp, self.exact_lines_fn)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PredictionScore:
        """The inverse of :meth:`to_dict` (records travel between processes as dicts)."""
        values: dict[str, Any] = {f.name: data.get(f.name) for f in fields(cls)}
        jump = values.get("jump_location")
        if isinstance(jump, Mapping):
            values["jump_location"] = JumpLocation(**jump)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Zed's JSON: ``?`` fields left out when None, ``jump_location`` nested."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in _SKIP_IF_NONE:
                continue
            out[f.name] = value.to_dict() if isinstance(value, JumpLocation) else value
        return out


@dataclass(frozen=True)
class _CandidateScore:
    chr_f: DeltaChrF
    exact: ClassificationMetrics
    kept: KeptRate
    jump: JumpLocation

    def key(self) -> tuple[float, float, float]:
        return (self.chr_f.score, self.exact.f1, self.jump.lines_f1)


def _score_candidate(
    original: str, candidate: Candidate, actual_text: str, actual_patch: str
) -> _CandidateScore:
    return _CandidateScore(
        delta_chr_f(original, candidate.text, actual_text),
        exact_lines_match(candidate.patch, actual_patch),
        compute_kept_rate(original, actual_text, candidate.text),
        patch_location_match(candidate.patch, actual_patch),
    )


def _byte_offset(text: str, offset: int) -> int:
    return _nbytes(text[:offset])


def score_prediction(
    original: str,
    candidates: Sequence[Candidate],
    actual_text: str,
    actual_patch: str | None,
    actual_cursor: int | None,
    events: Sequence[EditEvent] = (),
    cursor_path: str | None = None,
    excerpt_start_row: int | None = None,
    cursor_row: int | None = None,
    *,
    cumulative_logprob: float | None = None,
    avg_logprob: float | None = None,
) -> tuple[int | None, PredictionScore]:
    """Score one prediction the way ``ep score`` does (§4.2).

    Each candidate is scored; the best has the largest delta-chrF, ties going to
    exact-lines F1, then to jump-location line F1, then to the earlier candidate.
    Every content field is reported from that one candidate, so the numbers in a
    score always describe the same comparison. Returns ``(index of the best, score)``;
    with no candidates the prediction is scored against "no change" and the index is
    None.

    ``actual_patch`` None means the model gave no usable patch: it is scored as a
    no-op (empty patch, ``actual_text`` taken to be ``original``). A caller with
    only a predicted *text* must diff it into a patch first. ``actual_cursor`` is a
    character offset into ``actual_text``; ``cursor_row`` the 0-based row of the
    cursor in the frame of the actual patch's ``@@`` line numbers (it excuses a
    blank line added there). ``events``, ``cursor_path`` and ``excerpt_start_row``
    feed :func:`reversal_ratio`.

    Cursor distance is in UTF-8 bytes between the expected cursor in the expected
    text and the actual cursor in the actual text, each counted from the start of
    its own text. When only one side has a cursor, it is a miss
    (``cursor_exact_match`` False, no distance); when neither has, both are None.
    """
    if actual_patch is None:
        patch, actual_text = "", original
    else:
        patch = actual_patch
    pool = list(candidates) or [Candidate("", original, None)]
    best_index = 0
    best = _score_candidate(original, pool[0], actual_text, patch)
    for index in range(1, len(pool)):
        scored = _score_candidate(original, pool[index], actual_text, patch)
        if scored.key() > best.key():
            best_index, best = index, scored
    chosen = pool[best_index]

    cursor_distance: int | None = None
    cursor_exact_match: bool | None = None
    if chosen.cursor is not None and actual_cursor is not None:
        cursor_distance = abs(
            _byte_offset(chosen.text, chosen.cursor) - _byte_offset(actual_text, actual_cursor)
        )
        cursor_exact_match = cursor_distance == 0
    elif chosen.cursor is not None or actual_cursor is not None:
        cursor_exact_match = False

    tokens = token_changes(patch)
    chr_f, exact, kept = best.chr_f, best.exact, best.kept
    score = PredictionScore(
        delta_chr_f=chr_f.score,
        delta_chr_f_true_positives=chr_f.true_positives,
        delta_chr_f_false_positives=chr_f.false_positives,
        delta_chr_f_false_negatives=chr_f.false_negatives,
        delta_chr_f_precision=chr_f.precision,
        delta_chr_f_recall=chr_f.recall,
        delta_chr_f_beta=chr_f.beta,
        braces_disbalance=braces_disbalance(original, actual_text),
        exact_lines_tp=exact.true_positives,
        exact_lines_fp=exact.false_positives,
        exact_lines_fn=exact.false_negatives,
        reversal_ratio=reversal_ratio(
            events, cursor_path, excerpt_start_row, original, actual_text
        ),
        cursor_distance=cursor_distance,
        cursor_exact_match=cursor_exact_match,
        wrong_editable_region=None if actual_patch is None else wrong_editable_region(patch),
        has_isolated_whitespace_changes=has_isolated_whitespace_changes(patch, cursor_row),
        inserted_tokens=tokens.inserted_tokens,
        deleted_tokens=tokens.deleted_tokens,
        kept_rate=kept.kept_rate,
        recall_rate=kept.recall_rate,
        kept_chars=kept.kept_chars,
        correctly_deleted_chars=kept.correctly_deleted_chars,
        discarded_chars=kept.discarded_chars,
        cumulative_logprob=cumulative_logprob,
        avg_logprob=avg_logprob,
        jump_location=best.jump,
    )
    return (best_index if candidates else None), score
