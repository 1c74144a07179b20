"""One split of a commit: Zed's ``generate_evaluation_example_from_ordered_commit``
(zed-authoring-and-context.md §1.4).

Choose where to cut (the split point, or Zed's random draw avoiding service files),
cut the patch into edit history and expected patch, half-type the next line if it
adds one, place the cursor, classify the split and cut the cursor excerpt.
``accept`` is asked of every generated split (is it an example we keep?): a random
split it turns down is drawn again, as Zed redraws a split that lands in a service
file, and kind-based sampling tries its next candidate, as Zed does after a failed
generation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._file_kinds import is_service_file
from ._cursor import Cursor, Rng, cursor_excerpt, sample_cursor_position
from ._half_typed import imitate_human_edits
from ._kinds import SAME_FILE_NEAR_LINE_THRESHOLD, classify
from ._patch import Location, Patch, cut_target, locations, split_ordered_patch
from ._points import SplitPoint, resolve_split_value
from ._rules import Skip

__all__ = ["MAX_DRAWS", "MAX_KIND_ATTEMPTS", "Generated", "generate", "generate_at"]

#: Generations tried in all for one kind-based split (Zed: 10 per candidate, unbounded).
MAX_KIND_ATTEMPTS = 200
#: Random splits drawn for one example (each with Zed's own redraws off service files).
MAX_DRAWS = 10


@dataclass(frozen=True)
class Generated:
    """One split: Zed's output fields, before they become an example."""

    split: int
    edit_history: str
    expected_patch: str
    cursor: Cursor
    cursor_position: str
    kind: str | None
    from_imitation: bool


def generate_at(
    patch: Patch, split: int, rng: Rng, cut: int | None = None, edits: list[Location] | None = None
) -> Generated:
    """``generate_split_commit_at_split`` plus the excerpt (§1.4 steps 6–7); with
    ``cut``, the expected patch is cut to its next edit (:func:`cut_target`).
    ``edits``: the patch's :func:`locations`, when the caller has them."""
    source, target = split_ordered_patch(patch, split, edits)
    human_edit_seed = rng.randint(1, 10000)
    source, target, cursor = imitate_human_edits(source, target, human_edit_seed)
    from_imitation = cursor is not None
    if cursor is None:
        cursor = sample_cursor_position(source, target, rng)
    kind = classify(target, cursor, from_imitation)
    excerpt = cursor_excerpt(cursor, source, target)
    if excerpt is None:
        raise Skip("no-cursor-excerpt", "failed to generate cursor excerpt")
    if not excerpt[1]:
        raise Skip("no-cursor-excerpt", f"the cursor line {cursor.line} is outside its excerpt")
    if split == 0:
        target = ""
    elif cut is not None:  # after the excerpt, which may come from a hunk the cut drops
        target = cut_target(target, cut)
    return Generated(split, source, target, cursor, excerpt[0], kind, from_imitation)


def _random_split(rng: Rng, bounds: tuple[int, int], avoid: Callable[[str], bool], edits: list[Location]) -> int:
    """Zed's ``sample_split_point``: 1..=n (here within ``bounds``), drawn again (10
    draws in all) while the first target edit is in a service file (or another file
    ``avoid`` names: one whose target a quality rule would skip)."""
    num_edits = len(edits)
    split = rng.randint(*bounds)
    for _ in range(9):
        if split >= num_edits or not (is_service_file(edits[split].filename) or avoid(edits[split].filename)):
            break
        split = rng.randint(*bounds)
    return split


def generate(
    patch: Patch,
    point: SplitPoint,
    rng: Rng,
    accept: Callable[[Generated], Skip | None],
    bounds: tuple[int, int] | None = None,
    cut: int | None = None,
    avoid: Callable[[str], bool] = lambda path: False,
) -> Generated:
    """Choose the split as §1.4 step 5 says, generate it, and ask ``accept``.

    ``accept`` gives the reason a generated split is turned down (it would not load,
    a quality rule skips it), or None. A random split it turns down is drawn again
    (:data:`MAX_DRAWS` draws in all); kind-based sampling tries its next candidate.
    ``bounds`` (``lo``, ``hi``) narrows both to the splits the size rules can
    accept (Zed draws from 1 to the number of edits); ``cut`` is passed on to
    :func:`generate_at`; ``avoid`` names files a first target edit should not be in,
    drawn again like Zed's service files. Raises :class:`Skip` when nothing is found, with the last
    reason met."""
    num_edits = patch.num_edits
    if num_edits == 0:
        raise Skip("no-edits", "no edits found in commit")
    edits = locations(patch)
    lo, hi = bounds if bounds is not None else (1, num_edits)

    def checked(generated: Generated) -> Generated:
        refused = accept(generated)
        if refused is not None:
            raise refused
        return generated

    if point.kind is None and point.value is None:
        last: Skip | None = None
        for _ in range(MAX_DRAWS):
            try:
                return checked(generate_at(patch, _random_split(rng, (lo, hi), avoid, edits), rng, cut, edits))
            except Skip as skip:
                last = skip
        assert last is not None
        raise last
    if point.kind is None:
        assert point.value is not None
        return checked(generate_at(patch, resolve_split_value(point.value, num_edits), rng, cut, edits))
    if point.value is not None:
        split = resolve_split_value(point.value, num_edits)
        generated = generate_at(patch, split, rng, cut, edits)
        if generated.kind != point.kind:
            raise Skip(
                "other-kind",
                f"split point {split} classified as {generated.kind or 'empty-target'}, expected {point.kind}",
            )
        return checked(generated)
    candidates = []
    for split in range(max(lo, 1), min(hi + 1, num_edits)):
        prev, nxt = edits[split - 1], edits[split]
        if is_service_file(nxt.filename) or avoid(nxt.filename):
            continue
        if point.kind == "fim" and nxt.kind != "+":
            continue
        if point.kind == "same-file-far" and (
            prev.filename != nxt.filename or abs(nxt.target_line - prev.target_line) <= SAME_FILE_NEAR_LINE_THRESHOLD
        ):
            continue
        if point.kind == "cross-file" and prev.filename == nxt.filename:
            continue
        candidates.append(split)
    rng.shuffle(candidates)
    attempts = 0
    refused: Skip | None = None
    for split in candidates:
        for _ in range(10):
            attempts += 1
            if attempts > MAX_KIND_ATTEMPTS:
                break
            try:
                generated = generate_at(patch, split, rng, cut, edits)
            except Skip:
                continue
            if generated.kind != point.kind:
                continue
            refused = accept(generated)
            if refused is None:
                return generated
    raise refused or Skip("no-split-of-kind", f"no split point found matching {point.kind}")
