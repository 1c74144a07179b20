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
* :func:`editable_context_coverage` (authoring-and-context §4): did the context
  handed to the model (cursor excerpt, related files) hold the rows the expected
  patch edits? Not a prediction metric: ``ep eval --context-only`` scores retrieval.

:func:`score_prediction` combines them the way ``ep score`` does: each expected
patch is scored, the best one wins (ties to the last, as Rust's ``max_by``), and
every field is reported from the winner.

Every metric costs what the *change* costs, not the text: the texts are cut to
local windows around the changed region where the result cannot differ
(``_local``), and the LCS steps trim common ends first. Answers too large to align
(thousands of changed lines) hit documented bounds that the score reports.

One module per metric (``_chrf``, ``_counts``, ``_kept``, ``_reversal``,
``_smells``, ``_jump``), the tokenizer and LCS they share (``_tokens``), the local
windows (``_local``) and the score that combines them (``_score``).

Zed works on UTF-8 bytes, this package on ``str``. Where Zed's metric is a *count of
bytes* (kept/discarded chars, cursor distance, the 512-byte bail-out) we encode and
count bytes; where it counts ``char``s (chrF n-grams, reversal) Python's code points
are the same thing.

Known drift from Zed, all in places Zed's result depends on a third-party diff:

* :func:`reversal_ratio` diffs with a port of imara-diff's histogram diff, as Zed
  does (``_histogram``). Only its Myers fallback, for a region whose common lines
  all occur more than 63 times, follows git's xdiff and may break ties unlike
  imara-diff; and past a work budget (a pathological whole-file rewrite) the rest
  of a diff goes to that fallback, with a ``ReversalDiffWarning``.
* Character classes follow Rust's ``char::is_whitespace`` exactly (an explicit
  table), but "identifier character" is Python's ``\\w`` (``str.isalnum`` or ``_``),
  which differs from Rust's ``is_alphanumeric`` on a few exotic code points.
"""

from __future__ import annotations

from ._chrf import CHR_F_BETA, CHR_F_CHAR_ORDER, DeltaChrF, collapse_whitespace, delta_chr_f
from ._context import (
    CONTEXT_SOURCES,
    CONTEXT_TYPES,
    DEFAULT_RELATED_CONTEXT_LIMIT,
    LINE_RELEVANCE_WINDOW,
    ContextCoverage,
    ContextEvaluation,
    ContextFile,
    ContextSummary,
    ExpectedContext,
    RelatedExcerptLike,
    RelatedFileLike,
    RetrievedContext,
    context_budget_bytes,
    context_coverage,
    editable_context_coverage,
    excerpt_source,
    expected_context,
    filter_context_sources,
    format_context_report,
    limit_retrieved_context_to_bytes,
    parse_context_types,
    retrieved_context,
    strip_first_component,
)
from ._counts import ClassificationMetrics, exact_lines_match
from ._histogram import histogram_diff
from ._jump import JUMP_LOCATION_TOLERANCE, JumpLocation, patch_location_match
from ._kept import KEPT_RATE_MAX_LENGTH_DELTA, KeptRate, compute_kept_rate
from ._reversal import compute_reversal_overlap, reversal_ratio
from ._score import Candidate, PredictionScore, score_prediction
from ._smells import (
    TokenChanges,
    braces_disbalance,
    has_isolated_whitespace_changes,
    text_braces_disbalance,
    token_changes,
    wrong_editable_region,
)
from ._tokens import comparison_units, lcs_length, tokenize

__all__ = [
    "CHR_F_BETA",
    "CHR_F_CHAR_ORDER",
    "CONTEXT_SOURCES",
    "CONTEXT_TYPES",
    "DEFAULT_RELATED_CONTEXT_LIMIT",
    "JUMP_LOCATION_TOLERANCE",
    "KEPT_RATE_MAX_LENGTH_DELTA",
    "LINE_RELEVANCE_WINDOW",
    "Candidate",
    "ClassificationMetrics",
    "ContextCoverage",
    "ContextEvaluation",
    "ContextFile",
    "ContextSummary",
    "DeltaChrF",
    "ExpectedContext",
    "JumpLocation",
    "KeptRate",
    "PredictionScore",
    "RelatedExcerptLike",
    "RelatedFileLike",
    "RetrievedContext",
    "TokenChanges",
    "braces_disbalance",
    "collapse_whitespace",
    "comparison_units",
    "compute_kept_rate",
    "compute_reversal_overlap",
    "context_budget_bytes",
    "context_coverage",
    "delta_chr_f",
    "editable_context_coverage",
    "exact_lines_match",
    "excerpt_source",
    "expected_context",
    "filter_context_sources",
    "format_context_report",
    "has_isolated_whitespace_changes",
    "histogram_diff",
    "lcs_length",
    "limit_retrieved_context_to_bytes",
    "parse_context_types",
    "patch_location_match",
    "retrieved_context",
    "reversal_ratio",
    "score_prediction",
    "strip_first_component",
    "text_braces_disbalance",
    "token_changes",
    "tokenize",
    "wrong_editable_region",
]
