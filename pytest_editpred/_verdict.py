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
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._cursor import ExpectedPatch
from ._exceptions import EditPredError, ExampleError
from ._patch import Patched, apply_patch
from ._prediction import Prediction

__all__ = ["Candidate", "Verdict", "judge", "score", "default_cursor", "MATCH_MODES"]

MATCH_MODES = ("exact", "whitespace")
CURSOR_MARK = "‸"  # drawn into texts in failure output
_WS = re.compile(r"\s+")

OpenFile = Callable[[str], "tuple[str, str] | None"]


@dataclass(frozen=True)
class Candidate:
    """One acceptable outcome: the buffers after an expected patch and its cursor."""

    index: int
    patch: str
    buffers: Mapping[str, str]
    cursor: tuple[str, int] | None


@dataclass(frozen=True)
class Verdict:
    """What the item reports. ``matched`` is the index of the candidate that matched;
    ``closest`` the one the failure output compares against."""

    passed: bool
    reason: str
    matched: int | None
    closest: int | None
    candidates: tuple[Candidate, ...]
    predicted_buffers: Mapping[str, str]
    predicted_cursor: tuple[str, int] | None
    predicted_patch: str | None
    changed_paths: tuple[str, ...] = ()
    details: str = field(default="", repr=False)


def default_cursor(before: str, after: str, cursor: int) -> int:
    """Where an editor leaves the cursor after accepting ``before`` → ``after``: the
    end of the last inserted text, before a line break that ends it (so the cursor
    stays on the last edited line). The cursor stays put when nothing changed."""
    if before == after:
        return cursor
    limit = min(len(before), len(after))
    head = 0
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    end = len(after) - tail
    return end - 1 if end > head and after[end - 1] == "\n" else end


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


def _same_buffers(a: Mapping[str, str], b: Mapping[str, str], mode: str) -> bool:
    return all(_same_text(a.get(p), b.get(p), mode) for p in set(a) | set(b))


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
        candidates.append(Candidate(index, patch.patch, patched.buffers, patched.cursor))
    return tuple(candidates)


def predicted_outcome(
    buffers: Mapping[str, str],
    cursor: tuple[str, int],
    prediction: Prediction,
    open_file: OpenFile | None,
) -> tuple[Mapping[str, str], tuple[str, int]]:
    """The buffers and cursor after the prediction (DiffError when it does not apply)."""
    path, offset = cursor
    if prediction.text is not None:
        result: Mapping[str, str] = {**buffers, path: prediction.text}
    elif prediction.patch:
        patched: Patched = apply_patch(buffers, prediction.patch, open_file=open_file, default_path=path)
        result = patched.buffers
    else:
        result = buffers
    new_text = result.get(path, "")
    if prediction.cursor is not None:
        return result, (path, prediction.cursor)
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
) -> Verdict:
    """Decide. Never raises for a wrong answer: the verdict says so."""
    try:
        predicted, predicted_cursor = predicted_outcome(buffers, cursor, prediction, open_file)
    except EditPredError as error:
        return Verdict(
            False,
            f"the predicted patch does not apply: {error.reason}",
            None,
            0 if candidates else None,
            tuple(candidates),
            buffers,
            None,
            prediction.patch,
        )
    changed = tuple(sorted(p for p in set(predicted) | set(buffers) if predicted.get(p) != buffers.get(p)))
    if predicted_cursor[1] > len(predicted.get(predicted_cursor[0], "")) or predicted_cursor[1] < 0:
        return Verdict(False, f"the predicted cursor {predicted_cursor[1]} is outside the file", None, 0,
                       tuple(candidates), predicted, None, prediction.patch, changed)

    def verdict(passed: bool, reason: str, matched: int | None, closest: int | None) -> Verdict:
        return Verdict(passed, reason, matched, closest, tuple(candidates), predicted, predicted_cursor,
                       prediction.patch, changed)

    if rejected is not None and _same_buffers(predicted, rejected.buffers, mode):
        return verdict(False, "the prediction matches the Rejected Patch", None, closest_candidate(candidates, predicted, cursor[0]))
    cursor_misses = []
    for candidate in candidates:
        if not _same_buffers(predicted, candidate.buffers, mode):
            continue
        if candidate.cursor is None:
            return verdict(True, f"matches expected patch {candidate.index + 1}", candidate.index, candidate.index)
        expected_path, expected_offset = candidate.cursor
        same_place = expected_path == predicted_cursor[0] and _cursor_key(
            candidate.buffers[expected_path], expected_offset, mode
        ) == _cursor_key(predicted[predicted_cursor[0]], predicted_cursor[1], mode)
        if same_place:
            return verdict(True, f"matches expected patch {candidate.index + 1}, cursor included", candidate.index, candidate.index)
        cursor_misses.append(candidate)
    if cursor_misses:
        miss = cursor_misses[0]
        return verdict(
            False,
            f"the edit matches expected patch {miss.index + 1} but the cursor is elsewhere",
            None,
            miss.index,
        )
    if not candidates[0].patch and len(candidates) == 1:
        reason = "the example expects no change, but the prediction changes " + ", ".join(changed)
    elif not changed:
        reason = f"the prediction changes nothing; {len(candidates)} expected patch(es) change the code"
    else:
        reason = f"the prediction matches none of the {len(candidates)} expected patch(es)"
    return verdict(False, reason, None, closest_candidate(candidates, predicted, cursor[0]))


def closest_candidate(candidates: Sequence[Candidate], predicted: Mapping[str, str], path: str) -> int | None:
    """The candidate most like the prediction, by character similarity of the texts."""
    if not candidates:
        return None

    def similarity(candidate: Candidate) -> float:
        paths = sorted(set(candidate.buffers) | set(predicted))
        a = "\n".join(candidate.buffers.get(p, "") for p in paths)
        b = "\n".join(predicted.get(p, "") for p in paths)
        return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()

    return max(candidates, key=similarity).index


def draw_cursor(text: str, offset: int | None) -> str:
    if offset is None or not 0 <= offset <= len(text):
        return text
    return text[:offset] + CURSOR_MARK + text[offset:]


def failure_diff(verdict: Verdict, original: Mapping[str, str], cursor_path: str, context: int = 3) -> str:
    """A unified diff from the closest expected result to the predicted one, every
    changed file, with both cursors drawn in as ``‸``."""
    if verdict.closest is None:
        return ""
    candidate = verdict.candidates[verdict.closest]
    paths = sorted(
        p for p in set(candidate.buffers) | set(verdict.predicted_buffers)
        if candidate.buffers.get(p) != verdict.predicted_buffers.get(p) or p == cursor_path
    )
    chunks = []
    for path in paths:
        expected = candidate.buffers.get(path, "")
        predicted = verdict.predicted_buffers.get(path, "")
        if candidate.cursor and candidate.cursor[0] == path:
            expected = draw_cursor(expected, candidate.cursor[1])
        if verdict.predicted_cursor and verdict.predicted_cursor[0] == path:
            predicted = draw_cursor(predicted, verdict.predicted_cursor[1])
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                predicted.splitlines(keepends=True),
                f"expected/{path}",
                f"predicted/{path}",
                n=context,
            )
        )
        chunks.append(diff if diff.endswith("\n") or not diff else diff + "\n")
    return "".join(chunks)


def score(
    verdict: Verdict,
    buffers: Mapping[str, str],
    cursor_path: str,
    events: Sequence[Any] = (),
) -> tuple[int | None, Any]:
    """Zed's metrics for the prediction against every candidate: ``(best, score)``.

    The texts are the whole cursor file before and after (Zed uses the cursor
    excerpt, which is the whole file minus its final newline for files under about
    24 KB). Patches are the expected patches as written and the predicted patch as
    returned; a prediction given as text is diffed into a patch first.
    """
    from .metrics import Candidate as ScoredCandidate
    from .metrics import score_prediction
    from ._scene import unified_diff

    original = buffers.get(cursor_path, "")
    actual = verdict.predicted_buffers.get(cursor_path, original)
    actual_patch = verdict.predicted_patch
    if actual_patch is None:
        actual_patch = unified_diff(cursor_path, cursor_path, original, actual) if actual != original else ""
    actual_cursor = None
    cursor_row = None
    if verdict.predicted_cursor is not None and verdict.predicted_cursor[0] == cursor_path:
        actual_cursor = verdict.predicted_cursor[1]
        cursor_row = actual.count("\n", 0, actual_cursor)
    no_change = len(verdict.candidates) == 1 and not verdict.candidates[0].patch
    candidates = [] if no_change else [
        ScoredCandidate(
            c.patch,
            c.buffers.get(cursor_path, original),
            c.cursor[1] if c.cursor is not None and c.cursor[0] == cursor_path else None,
        )
        for c in verdict.candidates
    ]
    best, result = score_prediction(
        original,
        candidates,
        actual,
        actual_patch,
        actual_cursor,
        events,
        cursor_path,
        0,
        cursor_row,
    )
    return (None if best is None else verdict.candidates[best].index), result
