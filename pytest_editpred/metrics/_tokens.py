"""Zed's tokenizer, its whitespace rules and the LCS under the kept rate and the
reversal ratio."""

from __future__ import annotations

import re
from collections.abc import Sequence

# Rust's ``char::is_whitespace`` (the Unicode White_Space property), minus ``\n``.
# Python's ``str.isspace`` also accepts U+001C..U+001F, which Rust does not.
SPACE_CLASS = "\t\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
RUST_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)


def is_blank(text: str) -> bool:
    """Rust's ``s.trim().is_empty()``."""
    return all(c in RUST_WHITESPACE for c in text)


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
    f"|[{SPACE_CLASS}]+"
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


def lcs_keep_masks(a: Sequence[str], b: Sequence[str]) -> tuple[list[bool], list[bool]]:
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
