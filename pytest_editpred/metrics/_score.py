"""One score for a prediction, the way ``ep score`` does it: every expected patch
is scored, the best one wins, and every field is reported from the winner."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from .._text import Change, nbytes
from ..scene import EditEvent
from ._chrf import CHR_F_BETA, DeltaChrF, _NgramDelta, chr_f_of, ngram_delta
from ._context import ContextCoverage
from ._counts import ClassificationMetrics, exact_lines_match
from ._jump import JumpLocation, patch_location_match
from ._kept import KeptRate, compute_kept_rate
from ._reversal import ReversalDiffWarning, reversal_ratio
from ._smells import (
    braces_disbalance,
    has_isolated_whitespace_changes,
    token_changes,
    wrong_editable_region,
)
from ._tokens import LCSTooLarge


@dataclass(frozen=True)
class Candidate:
    """One expected patch, ready to score against.

    ``patch`` is the expected patch with its cursor lines removed, ``text`` the
    original after applying it, ``cursor`` the expected cursor as a character
    offset into ``text`` (None: the patch marks no cursor). ``change`` is
    ``change_between(original, text)`` when the caller knows it already.
    """

    patch: str
    text: str
    cursor: int | None = None
    change: Change | None = None


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
        "retrieved_context_bytes",
    }
)


# The fields ``PredictionScore::zero()`` leaves None (every other one is 0).
_ZERO_NONE = _SKIP_IF_NONE | {"wrong_editable_region"}


@dataclass(frozen=True)
class PredictionScore:
    """Zed's ``PredictionScore``, field for field (§5.2 ``score[]``, §4.2).

    The names are Zed's so that ``to_dict()`` can be compared with, or written as,
    the ``score`` array of ``ep score``'s JSON. ``editable_context_coverage`` is
    set only when the example or the prediction carries retrieved context, or in a
    context-only run (:mod:`._context`). ``retrieved_context_bytes`` is not one of
    Zed's fields (``ep`` reads it from the example when it summarises): it travels
    with the score so that every report summarises from the score alone.
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
    editable_context_coverage: ContextCoverage | None = None
    jump_location: JumpLocation | None = None
    retrieved_context_bytes: int | None = None

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
        coverage = values.get("editable_context_coverage")
        if isinstance(coverage, Mapping):
            values["editable_context_coverage"] = ContextCoverage.from_dict(coverage)
        return cls(**values)

    @classmethod
    def zero(cls, **values: Any) -> PredictionScore:
        """Zed's ``PredictionScore::zero()``: what a context-only run scores each
        example with (its coverage given in ``values``)."""
        base: dict[str, Any] = {
            f.name: None if f.name in _ZERO_NONE else 0.0 if str(f.type).startswith("float") else 0 for f in fields(cls)
        }
        base.update(delta_chr_f_beta=CHR_F_BETA, has_isolated_whitespace_changes=False, **values)
        return cls(**base)

    def to_dict(self) -> dict[str, Any]:
        """Zed's JSON: ``?`` fields left out when None, ``jump_location`` nested."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in _SKIP_IF_NONE:
                continue
            out[f.name] = value.to_dict() if isinstance(value, (JumpLocation, ContextCoverage)) else value
        return out


@dataclass(frozen=True)
class _CandidateScore:
    """What ranks a candidate. The rest of its fields (kept rate) are computed for
    the winner only: they are reported from it and decide nothing."""

    chr_f: DeltaChrF
    exact: ClassificationMetrics
    jump: JumpLocation

    def key(self) -> tuple[float, float, float]:
        return (self.chr_f.score, self.exact.f1, self.jump.lines_f1)


def _score_candidate(
    original: str, candidate: Candidate, actual_delta: _NgramDelta, actual_patch: str
) -> _CandidateScore:
    return _CandidateScore(
        chr_f_of(ngram_delta(original, candidate.text, candidate.change), actual_delta),
        exact_lines_match(candidate.patch, actual_patch),
        patch_location_match(candidate.patch, actual_patch),
    )


def _kept_rate(original: str, candidate: Candidate, actual_text: str) -> KeptRate | None:
    """The kept rate against the winner; None when its LCS is over the limit."""
    try:
        return compute_kept_rate(original, actual_text, candidate.text)
    except LCSTooLarge:
        return None


def _reversal(
    events: Sequence[EditEvent],
    cursor_path: str | None,
    excerpt_start_row: int | None,
    original: str,
    actual_text: str,
    notes: list[str] | None,
) -> float:
    """:func:`reversal_ratio`, its :class:`ReversalDiffWarning` turned into a note
    (other warnings pass through as they were)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ReversalDiffWarning)
        ratio = reversal_ratio(events, cursor_path, excerpt_start_row, original, actual_text)
    for warning in caught:
        if issubclass(warning.category, ReversalDiffWarning) and notes is not None:
            notes.append(str(warning.message))
        elif not issubclass(warning.category, ReversalDiffWarning):
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return ratio


def _byte_offset(text: str, offset: int) -> int:
    return nbytes(text[:offset])


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
    actual_change: Change | None = None,
    cumulative_logprob: float | None = None,
    avg_logprob: float | None = None,
    notes: list[str] | None = None,
) -> tuple[int | None, PredictionScore]:
    """Score one prediction the way ``ep score`` does (§4.2).

    Each candidate is scored; the best has the largest delta-chrF, ties going to
    exact-lines F1, then to jump-location line F1, then to the *later* candidate
    (Zed takes ``Iterator::max_by``, which returns the last of equal maxima).
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
    feed :func:`reversal_ratio`. ``actual_change`` is ``change_between(original,
    actual_text)`` when the caller knows it already.

    Cursor distance is in UTF-8 bytes between the expected cursor in the expected
    text and the actual cursor in the actual text, each counted from the start of
    its own text. When only one side has a cursor, it is a miss
    (``cursor_exact_match`` False, no distance); when neither has, both are None.

    Two bounds keep a pathological answer (a rewrite of thousands of lines) from
    taking minutes; each says so in ``notes`` when given. A kept rate whose LCS is
    over :data:`~._tokens.KEEP_MASK_CELL_LIMIT` cells is reported as None (unknown);
    a run of changed lines whose token LCS is over :data:`~._tokens.LCS_CELL_LIMIT`
    counts all its tokens as inserted and deleted.
    """
    if actual_patch is None:
        patch, actual_text, actual_change = "", original, None
    else:
        patch = actual_patch
    pool = list(candidates) or [Candidate("", original, None)]
    actual_delta = ngram_delta(original, actual_text, actual_change)
    best_index = 0
    best = _score_candidate(original, pool[0], actual_delta, patch)
    for index in range(1, len(pool)):
        scored = _score_candidate(original, pool[index], actual_delta, patch)
        if scored.key() >= best.key():  # Rust's max_by: the last of equal maxima
            best_index, best = index, scored
    chosen = pool[best_index]

    cursor_distance: int | None = None
    cursor_exact_match: bool | None = None
    if chosen.cursor is not None and actual_cursor is not None:
        cursor_distance = abs(_byte_offset(chosen.text, chosen.cursor) - _byte_offset(actual_text, actual_cursor))
        cursor_exact_match = cursor_distance == 0
    elif chosen.cursor is not None or actual_cursor is not None:
        cursor_exact_match = False

    tokens = token_changes(patch)
    chr_f, exact = best.chr_f, best.exact
    kept = _kept_rate(original, chosen, actual_text)
    if notes is not None and kept is None:
        notes.append("the kept rate is not computed: the change is too large to align unit by unit")
    if notes is not None and not tokens.minimal:
        notes.append("inserted/deleted tokens count every token of a run too large to align: upper bounds")
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
        reversal_ratio=_reversal(events, cursor_path, excerpt_start_row, original, actual_text, notes),
        cursor_distance=cursor_distance,
        cursor_exact_match=cursor_exact_match,
        wrong_editable_region=None if actual_patch is None else wrong_editable_region(patch),
        has_isolated_whitespace_changes=has_isolated_whitespace_changes(patch, cursor_row),
        inserted_tokens=tokens.inserted_tokens,
        deleted_tokens=tokens.deleted_tokens,
        kept_rate=None if kept is None else kept.kept_rate,
        recall_rate=None if kept is None else kept.recall_rate,
        kept_chars=None if kept is None else kept.kept_chars,
        correctly_deleted_chars=None if kept is None else kept.correctly_deleted_chars,
        discarded_chars=None if kept is None else kept.discarded_chars,
        cumulative_logprob=cumulative_logprob,
        avg_logprob=avg_logprob,
        jump_location=best.jump,
    )
    return (best_index if candidates else None), score
