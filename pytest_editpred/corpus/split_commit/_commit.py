"""One commit, cut into examples: what split-commit does for each commit it reads.

Files an example cannot hold, and those the quality rules leave out (lockfiles,
generated and vendored code), are left out of the diff; the rest is Zed's input.
Each sample draws a split, generates it, and keeps it only when no quality rule
holds for it and it loads (:func:`check_example`); a random split turned down is
drawn again. Every commit ends written, skipped for a named reason, or failed (an
example that would not load, a bug of split-commit reported as such).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace

from ..._exceptions import EditPredError
from ..._text import normalize_line_endings
from ...example import Example
from .._file_kinds import file_rule, is_changelog, is_service_file
from .._gitattributes import AttributeReader
from .._quality import FILE_RULES, MAX_HISTORY_LINES, MAX_TARGET_LINES, NEAR_ROWS, RULE_NAMES, quality_findings
from ._check import Checked, Unloadable, check_example
from ._diffs import Commit, FileDiff
from ._generate import Generated, generate
from ._patch import locations, parse_patch
from ._points import SplitPoint
from ._repository import Repository
from ._rules import Skip, order

__all__ = [
    "MAX_DIFF_BYTES",
    "MAX_EDITS",
    "MAX_SAMPLES",
    "PLACE_RULES",
    "CommitResult",
    "Options",
    "repo_name",
    "split_commit",
]


#: The quality rules on where the target is: they need the expected patch applied.
PLACE_RULES = frozenset({"scattered-target", "unrelated-target"})

#: A commit with more edits than this, or a larger diff, is skipped as ``too-big``:
#: Zed has no limit, but an example of thousands of lines teaches nothing and costs.
MAX_EDITS = 5000
MAX_DIFF_BYTES = 2_000_000
#: ``-n`` at most: samples per commit. A commit the size rules let through has at
#: most ``MAX_HISTORY_LINES`` + 1 (201) splits, and the draws past a few hundred only
#: repeat examples already written (dropped as duplicates); each costs a check of
#: a few milliseconds, so a bound is what keeps a typo (-n 100000) from running for
#: hours on one commit. Five times the splits any such commit has is never needed.
MAX_SAMPLES = 1000


@dataclass(frozen=True)
class Options:
    point: SplitPoint = SplitPoint()
    samples: int = 1
    seed: int = 0
    url: str = ""
    fmt: str = "markdown"
    #: The quality rules that apply (all but those ``--keep`` names).
    rules: frozenset[str] = frozenset(RULE_NAMES)


@dataclass
class CommitResult:
    """What one commit gave: its examples, why samples gave none, the examples that
    would not load (reason, message), and the files left out of its diff."""

    sha: str
    examples: list[Example] = field(default_factory=list)
    #: Each example's :attr:`Checked.key`: equal keys are duplicates.
    keys: list[bytes] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, str]] = field(default_factory=list)
    left_out: Counter[str] = field(default_factory=Counter)

    @property
    def outcome(self) -> str:
        """``failed`` (any sample would not load), ``written`` or ``skipped``."""
        if self.failures:
            return "failed"
        return "written" if self.examples else "skipped"

    @property
    def reason(self) -> str:
        """Why a skipped commit gave nothing: its first reason in the summary's order."""
        return min(self.skipped, key=order) if self.skipped else "no-edits"


def repo_name(url: str) -> str:
    """The last path segment of the URL (``.git`` dropped; ``host:path`` understood)."""
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return (tail[:-4] if tail.endswith(".git") else tail) or "repo"


class _ParentFiles:
    """The parent's files, read on demand through ``cat-file`` and kept for the
    commit, with their ``.gitattributes``; texts as an editor's buffer holds them."""

    def __init__(self, repo: Repository, parent: str) -> None:
        self.repo, self.parent = repo, parent
        self.cache: dict[str, str | None] = {}
        self.attributes = AttributeReader(self.text)

    def text(self, path: str) -> str | None:
        if path not in self.cache:
            data = self.repo.read_blob(f"{self.parent}:{path}")
            try:
                text = None if data is None else data.decode()
            except UnicodeDecodeError:
                text = None
            self.cache[path] = None if text is None else normalize_line_endings(text)
        return self.cache[path]

    def __call__(self, path: str) -> tuple[str, str] | None:
        text = self.text(path)
        return None if text is None else (path, text)


def _created_head(diff: FileDiff) -> str:
    """The first lines a created file is created with (its ``+`` lines)."""
    return "\n".join(line[1:] for line in diff.text.split("\n")[3:] if line.startswith("+"))


def _kept_files(commit: Commit, files: _ParentFiles, rules: Collection[str], result: CommitResult) -> str:
    """The diff of the files an example can hold and no rule leaves out."""
    texts: list[str] = []
    active = [rule for rule in FILE_RULES if rule in rules]
    for diff in commit.files:
        if diff.left_out is not None:
            result.left_out[diff.left_out] += 1
            continue
        if not diff.text:
            continue  # a pure rename or mode change
        if active:
            head = files.text(diff.path) if diff.old is not None else _created_head(diff)
            rule = file_rule(diff.path, files.attributes(diff.path), head)
            if rule in active:
                result.left_out[rule] += 1
                continue
        texts.append(diff.text)
    return "".join(texts)


def _bounds(num_edits: int, rules: Collection[str]) -> tuple[int, int]:
    """The splits the size rules can accept: every edit before the split is a changed
    line of the history (``big-history``), and, when the target is not cut to its
    next edit (``scattered-target`` kept), every edit after it one of the target
    (``big-target``); the half-typed line may add one to each."""
    lo, hi = 1, num_edits
    if "big-target" in rules and "scattered-target" not in rules:
        lo = max(lo, num_edits - MAX_TARGET_LINES)
    if "big-history" in rules:
        hi = min(hi, MAX_HISTORY_LINES)
    return lo, hi


def split_commit(
    repo: Repository,
    commit: Commit,
    options: Options,
    shallow: Collection[str] = frozenset(),
    progress: Callable[[int], None] | None = None,
) -> CommitResult:
    """The examples of one commit (``options.samples`` of them at most), with why
    samples gave none, the examples that would not load and the files left out;
    ``progress`` is told the number of samples done after each (many samples of a
    big commit take a while)."""
    result = CommitResult(commit.sha)

    def skip(reason: str) -> CommitResult:
        result.skipped[reason] += 1
        return result

    if len(commit.parents) > 1:
        return skip("merge")
    if not commit.parents:
        return skip("shallow-boundary" if commit.sha in shallow else "root-commit")
    if commit.unreadable is not None:
        return skip("missing-object")
    if commit.size > MAX_DIFF_BYTES:
        return skip("too-big")
    parent = commit.parents[0]
    files = _ParentFiles(repo, parent)
    patch = parse_patch(_kept_files(commit, files, options.rules, result))
    edits = locations(patch)
    if not edits:
        return skip(min(result.left_out, key=order) if result.left_out else "no-edits")
    if len(edits) > MAX_EDITS:
        return skip("too-big")
    if "service-file" in options.rules and all(is_service_file(e.filename) for e in edits):
        return skip("service-file")
    bounds = _bounds(len(edits), options.rules)
    if bounds[0] > bounds[1] and options.point.value is None:
        return skip("big-target")
    cut = NEAR_ROWS if "scattered-target" in options.rules else None

    def avoid(path: str) -> bool:
        """A first target edit in a changelog gives a target the rule skips: the cut
        keeps that file alone."""
        return cut is not None and "changelog" in options.rules and is_changelog(path)

    name_base = f"{repo_name(options.url)}-{commit.sha[:8]}"
    seen: set[bytes] = set()
    names: set[str] = set()
    for sample in range(options.samples):
        if progress is not None and sample:
            progress(sample)
        rng = random.Random(((options.seed + sample) % 2**64) ^ int(commit.sha, 16))
        kept: dict[int, Checked] = {}

        def build(generated: Generated) -> Example:
            return Example(
                name=f"{name_base}-{generated.split}",
                repository_url=options.url,
                revision=parent,
                cursor_path=generated.cursor.filename,
                cursor_position=generated.cursor_position,
                edit_history=generated.edit_history,
                expected_patches=(generated.expected_patch,),
            )

        def accept(generated: Generated, kept: dict[int, Checked] = kept) -> Skip | None:
            example = build(generated)

            def junk(rows: list[dict[str, tuple[int, int]]] | None = None, row: int | None = None) -> Skip | None:
                findings = quality_findings(
                    example.edit_history,
                    example.expected_patches,
                    example.cursor_path,
                    text_of=files.text,
                    attributes_of=files.attributes,
                    rules=options.rules if rows is None else options.rules & PLACE_RULES,
                    rows=rows,
                    cursor_row=row,
                )
                return Skip(findings[0].rule, findings[0].message) if findings else None

            refused = junk()  # the rules that need no applied patch first: they are cheap
            if refused is not None:
                return refused
            try:
                checked = check_example(example, files, options.fmt, generated.cursor.line)
                refused = junk([checked.rows], checked.cursor_row)
                if refused is not None:
                    return refused
                kept[id(generated)] = checked
            except Skip as skip:
                return skip
            except Unloadable as failure:
                result.failures.append((failure.reason, f"split {generated.split}: {failure}"))
                return Skip("failed")
            except EditPredError as error:  # not foreseen: a failure to report, never a stop
                result.failures.append(("error", f"split {generated.split}: {error.reason}"))
                return Skip("failed")
            return None

        try:
            generated = generate(patch, options.point, rng, accept, bounds, cut, avoid)
        except Skip as refused:
            if refused.reason != "failed":
                result.skipped[refused.reason] += 1
            continue
        checked = kept[id(generated)]
        example, key = checked.example, checked.key
        if key in seen:
            result.skipped["duplicate"] += 1
            continue
        seen.add(key)
        if example.name in names:
            example = replace(example, name=f"{example.name}-{sample}")
        names.add(example.name)
        result.examples.append(example)
        result.keys.append(key)
    return result
