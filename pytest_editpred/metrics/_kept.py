"""Kept rate and recall (§4.5): how much of what the model typed survives in the
expected text, and how much of the expected edit it made."""

from __future__ import annotations

from dataclasses import dataclass

from .._cursor import _nbytes
from ._tokens import comparison_units, lcs_keep_masks

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
    keep_candidate, keep_base_c = lcs_keep_masks(candidate_units, base_units)
    keep_reference, keep_base_r = lcs_keep_masks(reference_units, base_units)

    candidate_new = [u for u, kept in zip(candidate_units, keep_candidate) if not kept]
    reference_new = [u for u, kept in zip(reference_units, keep_reference) if not kept]
    candidate_new_chars = sum(map(_nbytes, candidate_new))
    reference_new_chars = sum(map(_nbytes, reference_new))
    context_chars = sum(_nbytes(u) for u, kept in zip(candidate_units, keep_candidate) if kept)
    keep_new, _ = lcs_keep_masks(candidate_new, reference_new)
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
