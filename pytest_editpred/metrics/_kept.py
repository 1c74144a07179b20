"""Kept rate and recall (§4.5): how much of what the model typed survives in the
expected text, and how much of the expected edit it made.

Each text is compared with the base on its own local window (:mod:`._local`): the
units of the window are the whole text's units there, and the LCS trims the same
common prefix and suffix, so what a text adds and which base units it deletes come
out as on the whole text, at a cost proportional to its change. The base units are
matched across the two comparisons by their offsets in the base.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .._text import change_between, nbytes
from ._local import local_window
from ._tokens import KEEP_MASK_CELL_LIMIT, comparison_units, lcs_keep_masks

KEPT_RATE_MAX_LENGTH_DELTA = 512


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
    bytes are not compared at all (§7.12): they are a different edit, and the
    quadratic LCS would be wasted on them. Both rates are then 0, and, as in Zed,
    ``candidate_new_chars`` and ``reference_new_chars`` are the size changes
    ``|len(candidate) - len(base)|`` and ``|len(reference) - len(base)|`` (in
    bytes, even when a text shrank), ``discarded_chars`` is the candidate's, and
    every other count is 0. An LCS over more than ``KEEP_MASK_CELL_LIMIT`` cells
    raises :class:`~._tokens.LCSTooLarge` (the caller reports the rates as unknown).
    """
    if base == candidate == reference:
        return KeptRate(1.0, 1.0, context_chars=nbytes(base))
    base_len = nbytes(base)
    candidate_change = abs(nbytes(candidate) - base_len)
    reference_change = abs(nbytes(reference) - base_len)
    if abs(candidate_change - reference_change) > KEPT_RATE_MAX_LENGTH_DELTA:
        return KeptRate(
            0.0,
            0.0,
            discarded_chars=candidate_change,
            candidate_new_chars=candidate_change,
            reference_new_chars=reference_change,
        )

    by_candidate = _edit(base, candidate)
    by_reference = _edit(base, reference)
    candidate_new, reference_new = by_candidate.new_units, by_reference.new_units
    candidate_new_chars, reference_new_chars = by_candidate.new_chars, by_reference.new_chars
    candidate_deleted_chars = sum(by_candidate.deleted.values())
    reference_deleted_chars = sum(by_reference.deleted.values())
    correctly_deleted_chars = sum(
        size for offset, size in by_candidate.deleted.items() if offset in by_reference.deleted
    )
    context_chars = nbytes(candidate) - candidate_new_chars
    keep_new, _ = lcs_keep_masks(candidate_new, reference_new, KEEP_MASK_CELL_LIMIT)
    kept_chars = sum(nbytes(u) for u, kept in zip(candidate_new, keep_new) if kept)

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


@dataclass(frozen=True)
class _Edit:
    """What a text does to the base: the units it adds (in order) and the base units
    it deletes (base offset -> bytes)."""

    new_units: tuple[str, ...]
    new_chars: int
    deleted: dict[int, int]


@lru_cache(maxsize=16)  # the (base, candidate) pair is the same for every reference
def _edit(base: str, text: str) -> _Edit:
    change = change_between(base, text)
    lo, hi = local_window(base, change)
    base_units = comparison_units(base[lo:hi])
    text_units = comparison_units(text[lo : hi + change.shift])
    keep_text, keep_base = lcs_keep_masks(text_units, base_units, KEEP_MASK_CELL_LIMIT)
    new_units = tuple(u for u, kept in zip(text_units, keep_text) if not kept)
    deleted: dict[int, int] = {}
    offset = lo
    for unit, kept in zip(base_units, keep_base):
        if not kept:
            deleted[offset] = nbytes(unit)
        offset += len(unit)
    return _Edit(new_units, sum(map(nbytes, new_units)), deleted)
