"""The verdict: does the prediction match an expected patch, cursor included?

The completion function only predicts; this module decides. A prediction passes when
the buffers it produces equal the buffers one expected patch produces and, when that
patch marks a cursor, the predicted cursor is at the same place.

* A prediction without a cursor leaves it where an editor does after accepting an
  edit: at the end of the last inserted text in the cursor file, before the line
  break that ends it (unchanged when the cursor file is unchanged).
* Matching the Rejected Patch fails, even if an expected patch matches too.
* An example with no expected patch expects no change.
* ``whitespace`` mode compares texts after turning every run of whitespace (newlines
  included) into one space and dropping it at both ends; cursors are then compared
  by the number of non-whitespace characters before them.

Expected patches that do not apply make the *example* broken (an ERROR); a predicted
patch that does not apply is a wrong answer (FAILED).

Every candidate is scored once with Zed's metrics, in Zed's frame (:mod:`._frame`),
and the best is chosen by Zed's rule: the largest delta-chrF, then exact-lines F1,
then jump-location line F1, the **last** of equal candidates winning (Rust's
``Iterator::max_by``). That one candidate is the verdict's ``best``: the failure
diff, the metrics and every report name it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._exceptions import EditPredError, ExampleError
from .._text import Change, change_between, normalize_line_endings, normalized_offset
from ..example import ExpectedPatch
from ..scene import Buffers, EditEvent, Patched, apply_patch, created_paths, deleted_paths
from ._frame import scoring_frame
from ._prediction import Prediction

if TYPE_CHECKING:
    from ..metrics import PredictionScore

__all__ = [
    "MATCH_MODES",
    "Candidate",
    "Verdict",
    "default_cursor",
    "expected_candidates",
    "judge",
    "same_buffers",
]

MATCH_MODES = ("exact", "whitespace")
_WS = re.compile(r"\s+")

OpenFile = Callable[[str], "tuple[str, str] | None"]


@dataclass(frozen=True)
class Candidate:
    """One acceptable outcome: the buffers after an expected patch and its cursor.

    ``kept`` is :attr:`Patched.kept`: per path, the start and end the patch left as
    they were in the buffers it was applied to, which are the buffers it is judged
    against (:func:`judge` finds its changed region from there).
    """

    index: int
    patch: str
    buffers: Mapping[str, str]
    cursor: tuple[str, int] | None
    kept: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """What the item reports. ``matched`` is the index of the candidate that matched;
    ``best`` the one Zed's rule picks, which ``score`` describes; ``notes`` say where
    the scoring frame or a bound made the numbers differ from a plain reading."""

    passed: bool
    reason: str
    matched: int | None
    best: int | None
    candidates: tuple[Candidate, ...]
    predicted_buffers: Mapping[str, str]
    predicted_cursor: tuple[str, int] | None
    predicted_patch: str | None
    changed_paths: tuple[str, ...] = ()
    score: PredictionScore | None = None
    notes: tuple[str, ...] = ()


def default_cursor(before: str, after: str, cursor: int) -> int:
    """Where an editor leaves the cursor after accepting ``before`` → ``after``: the
    end of the last inserted text, before a line break that ends it (so the cursor
    stays on the last edited line). The cursor stays put when nothing changed."""
    if before == after:
        return cursor
    change = change_between(before, after)
    end = change.after_end
    return end - 1 if end > change.start and after[end - 1] == "\n" else end


def _normalize(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _cursor_key(text: str, offset: int, mode: str) -> int:
    if mode == "exact":
        return offset
    return len(_WS.sub("", text[:offset]))


def _same_text(a: str | None, b: str | None, mode: str) -> bool:
    if a is None or b is None:
        return a is b
    return a == b if mode == "exact" else _normalize(a) == _normalize(b)


def same_buffers(a: Mapping[str, str], b: Mapping[str, str], mode: str) -> bool:
    """The same files: the same texts, and the same files deleted
    (:class:`~pytest_editpred.scene.Buffers`: a deleted file no buffer held is no key,
    like a file nobody opened)."""
    if deleted_paths(a) != deleted_paths(b):
        return False
    return all(_same_text(a.get(p), b.get(p), mode) for p in set(a) | set(b))


def _state(buffers: Mapping[str, str], path: str) -> object:
    """A file's text in ``buffers``, ``None`` when it is no key (as the tree has it),
    :data:`_DELETED` when ``buffers`` deleted it."""
    return _DELETED if path in deleted_paths(buffers) else buffers.get(path)


_DELETED = object()


def expected_candidates(
    buffers: Mapping[str, str],
    expected: Sequence[ExpectedPatch],
    open_file: OpenFile | None,
    cursor_path: str,
    *,
    where: tuple[str | None, Sequence[int]] = (None, ()),
) -> tuple[Candidate, ...]:
    """Apply every expected patch; one that does not apply breaks the example."""
    path, lines = where
    if not expected:
        return (Candidate(0, "", buffers, None),)
    candidates = []
    for index, patch in enumerate(expected):
        try:
            patched = apply_patch(buffers, patch, open_file=open_file, default_path=cursor_path)
        except EditPredError as error:
            line = lines[index] + (error.line or 1) - 1 if index < len(lines) else None
            raise ExampleError(
                f"expected patch {index + 1} does not apply: {error.reason}",
                fix=error.fix,
                path=path,
                line=line,
            ) from error
        candidates.append(Candidate(index, patch.patch, patched.buffers, patched.cursor, patched.kept))
    return tuple(candidates)


def predicted_outcome(
    buffers: Mapping[str, str],
    cursor: tuple[str, int],
    prediction: Prediction,
    open_file: OpenFile | None,
) -> tuple[Mapping[str, str], tuple[str, int]]:
    """The buffers and cursor after the prediction (DiffError when it does not apply)."""
    path, offset = cursor
    predicted_offset = prediction.cursor
    if prediction.text is not None:  # text entering a buffer: Zed's line endings
        texts = {**buffers, path: normalize_line_endings(prediction.text)}
        result: Mapping[str, str] = Buffers(texts, deleted_paths(buffers), created_paths(buffers))
        if predicted_offset is not None:
            predicted_offset = normalized_offset(prediction.text, predicted_offset)
    elif prediction.patch:
        patched: Patched = apply_patch(buffers, prediction.patch, open_file=open_file, default_path=path)
        result = patched.buffers
    else:
        result = buffers
    new_text = result.get(path, "")
    if predicted_offset is not None:
        return result, (path, predicted_offset)
    return result, (path, default_cursor(buffers[path], new_text, offset))


def judge(
    buffers: Mapping[str, str],
    cursor: tuple[str, int],
    candidates: Sequence[Candidate],
    prediction: Prediction,
    *,
    rejected: Candidate | None = None,
    open_file: OpenFile | None = None,
    mode: str = "exact",
    events: Sequence[EditEvent] = (),
) -> Verdict:
    """Decide and score. Never raises for a wrong answer: the verdict says so.

    Every candidate is scored once, in Zed's frame (:mod:`._frame`); the best one by
    Zed's rule is the verdict's ``best``, named by the failure output and every
    report. Pass or fail is decided on the whole buffers, cursor included.
    """
    candidates = tuple(candidates)
    # What the completion function tells about its answer (a prompt the server cut,
    # see providers._base) leads the notes, which the record and the failure show.
    given = tuple(note for note in prediction.extra.get("notes", ()) if isinstance(note, str))
    try:
        predicted, predicted_cursor = predicted_outcome(buffers, cursor, prediction, open_file)
    except EditPredError as error:
        best, scored, notes = _score(buffers, cursor, candidates, buffers, None, prediction.patch, events)
        notes = given + notes
        return Verdict(
            False,
            f"the predicted patch does not apply: {error.reason}",
            None,
            best,
            candidates,
            buffers,
            None,
            prediction.patch,
            score=scored,
            notes=notes,
        )
    paths = set(predicted) | set(buffers) | deleted_paths(predicted) | deleted_paths(buffers)
    changed = tuple(sorted(p for p in paths if _state(predicted, p) != _state(buffers, p)))
    inside = 0 <= predicted_cursor[1] <= len(predicted.get(predicted_cursor[0], ""))
    best, scored, notes = _score(
        buffers, cursor, candidates, predicted, predicted_cursor if inside else None, prediction.patch, events
    )
    notes = given + notes

    def verdict(passed: bool, reason: str, matched: int | None = None) -> Verdict:
        return Verdict(
            passed,
            reason,
            matched,
            best,
            candidates,
            predicted,
            predicted_cursor if inside else None,
            prediction.patch,
            changed,
            scored,
            notes,
        )

    if not inside:
        return verdict(False, f"the predicted cursor {predicted_cursor[1]} is outside the file")
    if rejected is not None and same_buffers(predicted, rejected.buffers, mode):
        return verdict(False, "the prediction matches the Rejected Patch")
    cursor_misses = []
    for candidate in candidates:
        if not same_buffers(predicted, candidate.buffers, mode):
            continue
        if candidate.cursor is None:
            return verdict(True, f"matches expected patch {candidate.index + 1}", candidate.index)
        expected_path, expected_offset = candidate.cursor
        same_place = expected_path == predicted_cursor[0] and _cursor_key(
            candidate.buffers[expected_path], expected_offset, mode
        ) == _cursor_key(predicted[predicted_cursor[0]], predicted_cursor[1], mode)
        if same_place:
            return verdict(True, f"matches expected patch {candidate.index + 1}, cursor included", candidate.index)
        cursor_misses.append(candidate)
    if cursor_misses:
        miss = cursor_misses[0]
        return verdict(False, f"the edit matches expected patch {miss.index + 1} but the cursor is elsewhere")
    if not candidates[0].patch and len(candidates) == 1:
        reason = "the example expects no change, but the prediction changes " + ", ".join(changed)
    elif not changed:
        reason = f"the prediction changes nothing; {len(candidates)} expected patch(es) change the code"
    else:
        reason = f"the prediction matches none of the {len(candidates)} expected patch(es)"
    return verdict(False, reason)


def _score(
    buffers: Mapping[str, str],
    cursor: tuple[str, int],
    candidates: Sequence[Candidate],
    predicted: Mapping[str, str],
    predicted_cursor: tuple[str, int] | None,
    predicted_patch: str | None,
    events: Sequence[EditEvent],
) -> tuple[int | None, PredictionScore, tuple[str, ...]]:
    """Zed's metrics against every candidate, in Zed's frame: ``(best, score, notes)``.

    The frame is the cursor excerpt (:func:`scoring_frame`); the texts are the cursor
    file's, cut to it. Patches are the expected patches as written and the predicted
    patch as returned; a prediction given as text is diffed in the frame. A
    prediction that changes the file outside the frame is scored as no change, as
    Zed scores a patch that does not apply to its excerpt (Zed's models only ever
    rewrite a region inside it): so every metric costs at most what the frame,
    8,192 tokens around the cursor, costs.
    ``best`` is the index of the winning candidate (the only one for an example
    that expects no change).
    """
    from .._textdiff import diff_texts
    from ..metrics import Candidate as ScoredCandidate
    from ..metrics import score_prediction

    path, offset = cursor
    original = buffers.get(path, "")
    no_change = len(candidates) == 1 and not candidates[0].patch
    pool = [] if no_change else list(candidates)
    texts = [c.buffers.get(path, original) for c in pool]
    changes = [change_between(original, text, c.kept.get(path)) for c, text in zip(pool, texts)]
    frame = scoring_frame(original, offset, changes)
    notes: list[str] = []
    if frame.widened:
        notes.append(
            "an expected patch changes text outside Zed's cursor excerpt: the metrics' frame grows to rows "
            f"{frame.start_row + 1}-{frame.end_row + 1} (Zed would not score this example)"
        )
    actual = predicted.get(path, original)
    actual_change = change_between(original, actual)
    if frame.holds(actual_change):
        local_change = frame.local(actual_change)
        actual_text = frame.cut(actual, actual_change)
        actual_patch = predicted_patch
        if actual_patch is None:  # a text: diffed in the frame, with the file's row numbers
            actual_patch = diff_texts(frame.text, actual_text, f"a/{path}", f"b/{path}", first_row=frame.start_row).text
    else:
        actual_text, actual_patch = frame.text, ""
        local_change = frame.local(Change.none(len(original)))
        notes.append(
            "the prediction changes the cursor file outside Zed's frame, where its patch would not apply: "
            "as in Zed, every metric scores it as no change"
        )
    actual_cursor = cursor_row = None
    if predicted_cursor is not None and predicted_cursor[0] == path:
        actual_cursor = frame.offset(predicted_cursor[1], len(actual_text))
        cursor_row = actual.count("\n", 0, predicted_cursor[1])
    scored = [
        ScoredCandidate(
            c.patch,
            frame.cut(text, change),
            frame.offset(c.cursor[1], len(text) - len(original) + frame.end - frame.start)
            if c.cursor is not None and c.cursor[0] == path
            else None,
            frame.local(change),
        )
        for c, text, change in zip(pool, texts, changes)
    ]
    best, result = score_prediction(
        frame.text,
        scored,
        actual_text,
        actual_patch,
        actual_cursor,
        events,
        path,
        frame.start_row,
        cursor_row,
        actual_change=local_change,
        notes=notes,
    )
    return (0 if best is None else pool[best].index), result, tuple(notes)
