"""The record: what a run tells about one item (one example, one trial), as plain data.

A :class:`Record` is built once per item by ``record_of``, in the ``annotate``
module of the pytest layer (the run, on the worker that ran the item), carried to
the xdist controller with the item's report, written as one line of the
``--editpred-report`` JSONL file, and read by every report: the terminal summary
and its lines (:mod:`._lines`), the HTML viewer, the comparison of two runs,
``editpred-report`` and the ``replay`` provider. It is the one contract between the
run and its reports, and it is the schema of a JSONL line.

**The field names and their order are the on-disk format.** A line is the record's
JSON in the order its keys were inserted, which is the order they are declared
below; other tools (``jq``, notebooks, an earlier version's baseline) read those
names. Do not rename, reorder or retype a field: add one (``NotRequired`` when only
some items have it; no reader needs a field, files of older versions lack it) and
say so in the changelog.

What the type does not say, because the JSON cannot:

* A float that is not finite (NaN, an infinity) is written as ``null``.
* Tuples are written as lists; a record read back has lists only.
* ``predicted_text`` is on every line of the file, but dropped from the records the
  run keeps after writing the line (a whole file per item, held to the end of a big
  run, costs memory; replay reads it from the file).
* A record read from a file is data from outside: :func:`~._check.check_record` holds it
  against this type before any report reads it (``read_records`` calls it for every
  line; see there). A field may be missing (files of older versions lack ``prompt``,
  ``notes``, ``best_candidate``, ``qa``, ...; hand-written ones lack more) and is checked
  when present; a record to be summarised must have ``name``, ``nodeid`` and
  ``outcome``. Keys the type does not declare (an older ``closest_candidate``, a
  newer field) are left alone.
"""

# No ``from __future__ import annotations`` here: a TypedDict needs its annotations
# evaluated to tell required keys from ``NotRequired`` ones at run time (in
# ``__required_keys__``, which tests/test_record.py compares with a real run's lines).
import sys
from typing import Annotated, Literal, NamedTuple

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # typing's own TypedDict of 3.10 does not know NotRequired
    from typing_extensions import NotRequired, TypedDict

__all__ = [
    "CONTEXT_ONLY",
    "ContextCoverageCounts",
    "EditView",
    "ExcerptLines",
    "ExcerptView",
    "HistoryEntry",
    "Hunk",
    "JumpLocationCounts",
    "LineDiff",
    "Metrics",
    "Outcome",
    "PredictedCursor",
    "Prompt",
    "Record",
    "RecordedAttempt",
    "RecordedQa",
    "RecordedRepair",
    "RepairCursor",
    "Within",
    "CursorView",
]

#: The ``provider`` of a record of a context-only run (``--editpred-context-only``):
#: no model answered, the context was scored.
CONTEXT_ONLY = "context-only"

#: An item's outcome as pytest reports it, plus ``error`` for a setup that failed
#: (an unreadable example, a missing answer, a broken completion fixture).
Outcome = Literal["passed", "failed", "skipped", "error"]

#: The prompt as the provider built it, every string clipped to ``RECORDED_CHARS``:
#: a string, chat messages (``[{"role": ..., "content": ...}, ...]``) or named parts
#: (a FIM prompt's ``{"prompt": ..., "suffix": ...}``).
Prompt = str | list[object] | dict[str, object]


class RecordedAttempt(TypedDict):
    """One request to the model (:class:`~pytest_editpred.judge.Attempt`)."""

    ordinal: int  # from 1
    error: str | None  # "timeout", "connect", "http-429", ...; None when it answered
    latency: float  # seconds, 6 decimals


class Within(NamedTuple):
    """The range of an ``Annotated`` integer field, both ends included: the check of a
    record read back refuses a number outside it (:func:`~._check.check_record`)."""

    low: int
    high: int


class RecordedQa(TypedDict, total=False):
    """The LLM judge's answer on the item's prediction: Zed's ``qa`` entry of an example
    (zed-qa-repair.md §2.9), its keys in Zed's order, each left out when absent.

    As Zed reads it: ``null`` is absent, an unknown key is ignored, and a confidence
    outside 0-255 (Zed's ``u8``) makes the record unreadable. No range is checked
    inside that: Zed stores a judge's 0 or 9 as it is.
    """

    reasoning: str | None  # the judge's reasoning; the whole answer when it could not be parsed
    reverts_edits: bool | None  # the judge says the prediction undoes what the user just did
    confidence: Annotated[int, Within(0, 255)] | None  # how likely a user accepts it, meant 1-5
    response: str | None  # the judge's raw answer
    error: str | None  # why there is no verdict: an answer that is no JSON, a judge not reached


class RepairCursor(TypedDict, total=False):
    """Where the repaired prediction leaves the cursor: Zed's ``ActualCursor``."""

    path: str
    row: int  # 0-based, in the cursor file's excerpt
    column: int  # UTF-8 bytes
    offset: int  # UTF-8 bytes into the excerpt
    editable_region_offset: int  # UTF-8 bytes into the region the teacher rewrote


class RecordedRepair(TypedDict, total=False):
    """``editpred repair``'s answer: the prediction Zed's ``ep repair`` appends
    (zed-qa-repair.md §3.8), its keys in Zed's order, each left out when absent. The
    record's own prediction stays as the run made it; ``editpred distill`` prefers this."""

    actual_patch: str  # the repaired patch; "" for NO_EDITS; absent when the answer did not parse
    actual_output: str  # the model's raw answer
    actual_cursor: RepairCursor
    error: str  # "Failed to parse repair response: ..." when it did not parse
    provider: str  # "repair"


class PredictedCursor(TypedDict):
    """The predicted cursor: a character offset into ``path`` after the edit."""

    path: str
    offset: int


class JumpLocationCounts(TypedDict):
    """Zed's ``patch_location_match`` counts (:class:`~pytest_editpred.metrics.JumpLocation`)."""

    files_tp: int
    files_fp: int
    files_fn: int
    lines_tp: int
    lines_fp: int
    lines_fn: int


class ContextCoverageCounts(TypedDict):
    """Zed's ``editable_context_coverage`` (:class:`~pytest_editpred.metrics.ContextCoverage`):
    did the context given to the model hold the rows the expected patch edits."""

    lines_tp: int
    lines_fp: int
    lines_fn: int
    lines_precision: float
    lines_recall: float
    lines_f1: float
    files_tp: int
    files_fp: int
    files_fn: int
    files_precision: float
    files_recall: float
    files_f1: float


class Metrics(TypedDict, total=False):
    """The record's ``metrics``: ``{}`` for a prediction that was not scored (an
    error, a skip, an answer that could not be used), else Zed's score JSON
    (:meth:`~pytest_editpred.metrics.PredictionScore.to_dict`), field for field.

    A scored prediction has every key down to ``deleted_tokens``; the ones after it
    only when they have a value (Zed's ``skip_serializing_if`` fields).
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
    kept_rate: float
    recall_rate: float
    kept_chars: int
    correctly_deleted_chars: int
    discarded_chars: int
    cumulative_logprob: float
    avg_logprob: float
    editable_context_coverage: ContextCoverageCounts
    jump_location: JumpLocationCounts
    retrieved_context_bytes: int  # not Zed's: the context's bytes, for the summary


class Hunk(TypedDict):
    """One hunk of a :class:`LineDiff` (see :mod:`._hunks`)."""

    a: int  # 1-based number of the hunk's first line, old side
    b: int  # the same, new side
    gap: int  # unchanged lines hidden between the previous hunk and this one
    above: list[str]  # up to EXTRA_CONTEXT of them, just above (shown on demand)
    lines: list[list[str]]  # [op, text] with op " ", "-" or "+"


class LineDiff(TypedDict):
    """The changed hunks of one text against another, with both cursors placed."""

    hunks: list[Hunk]
    below: list[str]  # lines after the last hunk, shown on demand
    tail: int  # how many lines follow the last hunk
    ca: list[int] | None  # old side's cursor: [1-based line, 0-based column]
    cb: list[int] | None  # new side's cursor
    clipped: bool  # the diff was cut at MAX_LINES


class HistoryEntry(TypedDict):
    """One edit of the edit history, as the viewer shows it."""

    path: str
    old_path: str
    diff: str  # clipped to MAX_TEXT_CHARS
    predicted: bool  # the edit was an accepted prediction


class ExcerptLines(TypedDict):
    """At most 51 lines of the excerpt, around the cursor."""

    first: int  # 0-based index in the excerpt of the first line kept
    lines: list[str]
    total: int  # lines of the whole excerpt


class ExcerptView(TypedDict):
    """Zed's cursor excerpt (8,192 tokens), located in the file."""

    path: str
    start_line: int  # 1-based, in the file
    end_line: int
    cursor_line: int  # 1-based
    cursor_column: int  # 0-based
    text: ExcerptLines


class EditView(TypedDict):
    """The record's ``diff``: the cursor file's edit as the prediction and the chosen
    expected patch make it, for the viewer (:func:`~pytest_editpred.reports.edit_view`)."""

    path: str
    relative: bool  # False: the line numbers are the file's own
    predicted: LineDiff  # before -> predicted
    expected: NotRequired[LineDiff]  # before -> the best expected patch, when there is one
    versus: NotRequired[LineDiff]  # expected -> predicted, when the prediction did not pass
    other_files: NotRequired[list[str]]  # other files the prediction changed, when any
    history: list[HistoryEntry]
    excerpt: ExcerptView


class CursorView(TypedDict):
    """A window of lines around the cursor with the cursor drawn as ``‸``: the
    ``expected_view`` and ``predicted_view`` of an item that did not pass (the same
    window for both)."""

    path: str
    before: str
    expected: str
    predicted: str


class Record(TypedDict):
    """One item (one example, one trial) of a run: one line of the JSONL report.

    The keys are declared in the order they are written (see the module docstring).
    """

    name: str  # the example's id, as -v shows it: a .md/.json file's stem, a .jsonl line's name
    nodeid: str  # pytest's node id, ending in [tN] when examples run N > 1 times
    path: str  # the example file
    repository_url: str | None  # credentials removed; None when the example could not be read
    revision: str | None
    tags: list[str]
    provider: str | None  # who answered: the provider, or a custom editpred_completion's qualified name
    model: str | None  # the model the answer names, else the configured one
    trial: int  # from 1
    outcome: Outcome
    reason: str | None  # why it passed or failed, or the error
    attempts: list[RecordedAttempt]
    latency: float | None  # seconds the prediction took; None when setup did not get that far
    cached: bool  # the answer came from the response cache
    usage: dict[str, int]  # token counts as the server named them
    predicted_patch: str | None
    predicted_text: NotRequired[str | None]  # in the file; dropped from the run's records once written
    predicted_cursor: PredictedCursor | None
    prompt: Prompt | None  # clipped to RECORDED_CHARS
    raw_output: str | None  # the model's raw answer, clipped to RECORDED_CHARS
    matched_candidate: int | None  # 1-based expected patch the prediction matched
    best_candidate: int | None  # 1-based expected patch the metrics were taken from (Zed's rule)
    expected_cursor: bool | None  # the best expected patch marks a cursor; None when not judged
    metrics: Metrics
    notes: list[str]
    # The LLM judge's answer (RecordedQa); None when no judge was asked: none was
    # configured, or the prediction changed nothing or could not be used.
    qa: RecordedQa | None
    # Written by editpred repair, on the records it asked about (Zed's repair prediction):
    repair: NotRequired[RecordedRepair]
    # Only for an item with a scene (judged, or its expected edit against no usable
    # answer) of a run that writes --editpred-html or --editpred-report:
    diff: NotRequired[EditView | None]
    # Only for a judged item that did not pass (None when no expected patch was best):
    expected_view: NotRequired[CursorView | None]
    predicted_view: NotRequired[CursorView | None]
