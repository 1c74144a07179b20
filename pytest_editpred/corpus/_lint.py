"""Checking a corpus before anyone trusts its numbers (``editpred lint``).

A broken example does not make a run fail loudly: it is one ERROR among hundreds,
or worse, an example that no answer can pass (or that doing nothing passes) quietly
moves the pass rate. So every example is put through what the plugin does with it,
in-process and offline, and every problem becomes one :class:`Finding` with its
file and line:

* it loads (:func:`~pytest_editpred.example.load_examples`), within the size limit;
* its scene rebuilds (:func:`~pytest_editpred.scene.build_scene`): the repository,
  the revision, the uncommitted diff, the edit history and the cursor, which must be
  in its file;
* every expected patch, and the rejected patch, applies
  (:func:`~pytest_editpred.judge.expected_candidates`) and changes something; an
  expected cursor stays inside its line and its file; no expected patch is bigger
  than a prediction may be (the oracle's answer would fail unjudged);
* the rejected patch is not the same edit as an expected one;
* the ``oracle`` provider's answer passes and the ``noop`` provider's fails, judged
  by :func:`~pytest_editpred.judge.judge` under the judging deadline, as an item is;
* no two examples are the same moment with the same expected edit;
* and, told apart as *quality findings* (not errors: the exit status stays 0), every
  quality rule of :mod:`._quality` that holds: lockfiles, generated and vendored
  files, service files, whitespace-only and version-bump targets, whole-file
  deletions and creations, expected patches and histories over their size limits.
  split-commit reads its examples through the same rules, so a corpus it wrote has
  quality findings only for the rules ``--keep`` turned off.

Nothing here imports pytest. The run shares one
:class:`~pytest_editpred.scene.RepositoryCache` (one ``git cat-file`` process per
repository, trees and applied diffs cached) and reuses a scene for examples that
describe the same moment, so a thousand examples take seconds, not a pytest run each.

The settings come as the plugin takes them (:mod:`._ini`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import EditPredError, ExampleError
from ._ini import LintSettings

__all__ = ["Finding", "LintResult", "example_files", "lint", "unusable"]

#: Files of a directory that could be examples; ``.md`` ones must start with ``+++``.
_SUFFIXES = (".md", ".json", ".jsonl")
#: Folders a walk never enters: version control, caches, dependencies.
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "target", "venv"})
_FIX_SKIPPED = "Move it out of the folder, or ignore this line: it is never read."
#: How far into a ``.json``/``.jsonl`` file met in a walk we look for an example's key.
_SNIFF_BYTES = 64 * 1024


@dataclass(frozen=True, order=True)
class Finding:
    """One problem: the file, its 1-based line (None when the file as a whole is
    wrong), what is wrong and, when known, the fix. ``rule`` names the quality rule
    of a quality finding; an error has none."""

    path: str
    line: int | None
    message: str
    fix: str | None = field(default=None, compare=False)
    rule: str | None = field(default=None, compare=False)

    @property
    def is_error(self) -> bool:
        return self.rule is None

    @property
    def _key(self) -> tuple[str, int, str]:
        return (self.path, self.line or 0, self.message)


@dataclass
class LintResult:
    """Every finding, in file and line order, and what was looked at."""

    findings: list[Finding]
    files: int
    examples: int
    seconds: float
    #: Examples with at least one quality finding.
    junk: int = 0
    #: FIFOs, sockets, devices and link loops met in a walk, never opened.
    skipped: list[Finding] = field(default_factory=list)


# ------------------------------------------------------------------------- files


def _sniffed(path: Path) -> bool:
    """A ``.json``/``.jsonl`` file met in a walk is an example file only if it names a
    repository: a ``package.json`` or ``tsconfig.json`` of a fixture is not."""
    from .._files import open_regular

    try:
        with open_regular(path) as handle:
            return b'"repository_url"' in handle.read(_SNIFF_BYTES)
    except OSError:
        return False


def unusable(path: Path) -> Finding | None:
    """Why a path named on the command line cannot be read for examples (it does not
    exist, or is a FIFO, socket, device, dangling link or link loop), or None. A
    usage error: the command stops before any work (exit 2). Nothing is opened."""
    from .._files import special_kind

    kind = special_kind(path)
    if kind is not None:
        return Finding(str(path), None, f"it is {kind}, not a file or folder", "Name example files or folders.")
    if not os.path.lexists(path):
        return Finding(str(path), None, "no such file or directory", "Name example files or folders.")
    return None


def example_files(paths: Sequence[Path], skipped: list[Finding] | None = None) -> tuple[list[Path], list[Finding]]:
    """The example files of ``paths``, in order, each once: a file named is taken as
    it is (its loading says what is wrong with it); a folder is walked, sorted, for
    ``.md`` files that start with ``+++`` and ``.json``/``.jsonl`` files that hold
    examples, skipping hidden folders and dependency folders. A path named that
    cannot be read (:func:`unusable`) is a finding. A FIFO, socket, device or link
    loop met in a walk under an example's name is never opened: it is added to
    ``skipped`` (when given), one finding each."""
    from .._files import special_kind
    from ..example import looks_like_example

    files: list[Path] = []
    findings: list[Finding] = []
    for path in paths:
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
                for name in sorted(names):
                    candidate = Path(folder, name)
                    suffix = candidate.suffix.lower()
                    if suffix not in _SUFFIXES:
                        continue
                    kind = special_kind(candidate)
                    if kind is not None:
                        if skipped is not None:
                            skipped.append(
                                Finding(str(candidate), None, f"skipped: it is {kind}, not a file", _FIX_SKIPPED)
                            )
                        continue
                    if looks_like_example(candidate) if suffix == ".md" else _sniffed(candidate):
                        files.append(candidate)
        else:
            findings.append(
                unusable(path) or Finding(str(path), None, "not a file or folder", "Name example files or folders.")
            )
    seen: set[Path] = set()
    unique = []
    for file in files:
        key = file.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(file)
    return unique, findings


# ---------------------------------------------------------------------- checking


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class _Linter:
    """One run: the repository cache, the scenes already built, the providers and
    the examples seen (for duplicates)."""

    def __init__(self, settings: LintSettings) -> None:
        from .._settings import Settings
        from ..providers import get_provider
        from ..scene import RepositoryCache

        self.settings = settings
        self.cache = RepositoryCache(settings.cache_dir, settings.mappings, offline=settings.offline)
        self.oracle = get_provider("oracle")(Settings(provider="oracle"))
        self.noop = get_provider("noop")(Settings(provider="noop"))
        self.scenes: dict[tuple[Any, ...], Any] = {}
        self.seen: dict[tuple[Any, ...], str] = {}
        self.attributes: dict[tuple[Any, ...], Any] = {}  # (repository, tree) -> AttributeReader

    def close(self) -> None:
        self.cache.close()

    # -- one example ------------------------------------------------------------

    def scene(self, example: Any) -> Any:
        """The example's scene; an earlier example of the same moment lends its own."""
        from ..scene import build_scene

        key = (
            example.repository_url,
            example.revision,
            example.uncommitted_diff,
            example.uncommitted_diff_requires_edit_history_rollback,
            example.edit_history,
            example.cursor_path,
            example.cursor_position,
            example.recently_opened_files,
            example.recently_viewed_files,
        )
        scene = self.scenes.get(key)
        if scene is None:
            scene = self.scenes[key] = build_scene(example, self.cache)
        return dataclasses.replace(scene, example=example)

    def check(self, example: Any) -> list[Finding]:
        from ..example import extract_cursor_from_patch
        from ..judge import same_buffers

        source = example.source
        path = source.path or example.name
        findings: list[Finding] = []

        def add(message: str, line: int | None, fix: str | None = None) -> None:
            findings.append(Finding(path, line if line is not None else source.line, message, fix))

        def add_error(error: EditPredError, prefix: str = "") -> None:
            add(prefix + error.reason, error.line, error.fix or None)

        patch_lines = source.expected_patch_lines

        def patch_line(index: int) -> int | None:
            found: int | None = patch_lines[index] if index < len(patch_lines) else source.expected_section_line
            return found

        for index, patch in enumerate(example.expected_patches):
            size = _utf8_size(patch)
            if size > self.settings.limits.max_prediction_bytes:
                add(
                    f"expected patch {index + 1} is {size:,} bytes, over the limit of "
                    f"{self.settings.limits.max_prediction_bytes:,} bytes for a prediction: "
                    "a model that answers it exactly fails unjudged",
                    patch_line(index),
                    "Split the example, or raise --editpred-max-prediction-bytes (ini editpred_max_prediction_bytes).",
                )
        try:
            scene = self.scene(example)
        except EditPredError as error:
            add_error(error)
            return findings
        candidates, broken = self._candidates(example, scene, add, patch_line)
        findings.extend(self._quality(example, scene, None if broken else candidates, patch_line))
        rejected = None
        if example.rejected_patch is not None:
            from ..judge import Candidate, expected_candidates

            try:
                [applied] = expected_candidates(
                    scene.buffers,
                    [extract_cursor_from_patch(example.rejected_patch)],
                    scene.open_file,
                    scene.cursor.path,
                    where=(source.path, (source.rejected_patch_line or source.line,)),
                )
            except ExampleError as error:
                cause = error.__cause__ if isinstance(error.__cause__, EditPredError) else error
                add(f"the rejected patch does not apply: {cause.reason}", error.line, cause.fix or None)
            else:
                rejected = Candidate(-1, applied.patch, applied.buffers, applied.cursor)
                if same_buffers(rejected.buffers, scene.buffers, "exact"):
                    add("the rejected patch changes nothing", source.rejected_patch_line)
        if broken:
            return findings  # the oracle's and noop's verdicts need every patch applied
        expects_change = any(patch.strip() for patch in example.expected_patches)
        unchanged = set()
        for candidate in candidates if expects_change else ():
            if same_buffers(candidate.buffers, scene.buffers, "exact"):
                unchanged.add(candidate.index)
                add(
                    f"expected patch {candidate.index + 1} changes nothing",
                    patch_line(candidate.index),
                    "Give the patch the edit it expects, or delete it.",
                )
        same_as_rejected = set()
        if rejected is not None:
            for candidate in candidates:
                if same_buffers(candidate.buffers, rejected.buffers, "exact"):
                    same_as_rejected.add(candidate.index)
                    add(
                        f"the rejected patch is the same edit as expected patch {candidate.index + 1}",
                        source.rejected_patch_line,
                        "An answer cannot be both expected and rejected: change or delete one of them.",
                    )
        self._verdicts(example, scene, candidates, rejected, expects_change, unchanged, same_as_rejected, add)
        self._duplicate(example, scene, candidates, add)
        return findings

    def _quality(
        self, example: Any, scene: Any, candidates: tuple[Any, ...] | None, patch_line: Callable[[int], int | None]
    ) -> list[Finding]:
        """The quality rules that hold for the example, as split-commit reads them:
        files at the example's revision (its uncommitted diff applied), their
        ``.gitattributes`` read once per revision, and, when every expected patch
        applies (``candidates``), where each one changes the buffers."""
        from ..scene import deleted_paths
        from ._gitattributes import AttributeReader
        from ._quality import changed_rows, quality_findings

        read: dict[str, str | None] = dict(scene.base_texts)  # what the scene read from the tree already

        def text_of(path: str) -> str | None:
            if path not in read:
                opened = scene.open_file(path)
                read[path] = None if opened is None else str(opened[1])
            return read[path]

        key = (scene.repository.url.key if scene.repository is not None else example.repository_url, scene.tree)
        reader = self.attributes.get(key)
        if reader is None:
            reader = self.attributes[key] = AttributeReader(text_of)
        rows = None
        if candidates is not None and example.expected_patches:
            rows = []
            for candidate in candidates:
                changed = {}
                for path in set(candidate.buffers) | set(scene.buffers) | deleted_paths(candidate.buffers):
                    after = candidate.buffers.get(path)
                    before = scene.buffers[path] if path in scene.buffers else text_of(path)
                    if after != before:
                        changed[path] = changed_rows(before, after)
                rows.append(changed)
        source = example.source
        found = []
        for quality in quality_findings(
            example.edit_history,
            example.expected_patches,
            scene.cursor.path,
            text_of=text_of,
            attributes_of=reader,
            rows=rows,
            cursor_row=scene.cursor.row,
        ):
            if quality.message.startswith("the edit history"):
                line = source.edit_history_line
            elif quality.message.startswith("the cursor file"):
                line = source.cursor_line
            else:
                line = patch_line(0)
            found.append(
                Finding(
                    source.path or example.name,
                    line or source.line,
                    quality.message,
                    f"a quality rule, not an error: drop the example unless it is meant "
                    f"(split-commit keeps such examples only with --keep {quality.rule})",
                    rule=quality.rule,
                )
            )
        return found

    def _candidates(
        self,
        example: Any,
        scene: Any,
        add: Callable[..., None],
        patch_line: Callable[[int], int | None],
    ) -> tuple[tuple[Any, ...], bool]:
        """Every expected patch applied, each on its own so that every one that does
        not apply is told; and every expected cursor checked against its line and file."""
        from ..judge import expected_candidates

        expected = example.expected()
        if not expected:
            return expected_candidates(scene.buffers, (), scene.open_file, scene.cursor.path), False
        candidates = []
        broken = False
        for index, patch in enumerate(expected):
            line = patch_line(index)
            try:
                [candidate] = expected_candidates(
                    scene.buffers,
                    [patch],
                    scene.open_file,
                    scene.cursor.path,
                    where=(example.source.path, (line or example.source.line,)),
                )
            except ExampleError as error:
                broken = True
                cause = error.__cause__ if isinstance(error.__cause__, EditPredError) else error
                add(f"expected patch {index + 1} does not apply: {cause.reason}", error.line, cause.fix or None)
                continue
            candidates.append(dataclasses.replace(candidate, index=index))
            if patch.cursor_line is not None and patch.cursor_line >= 0:
                kept = patch.patch.split("\n")
                content = kept[patch.cursor_line][1:] if patch.cursor_line < len(kept) else ""
                width = _utf8_size(content)
                if patch.cursor_column > width:
                    add(
                        f"the cursor of expected patch {index + 1} is {patch.cursor_column - width} bytes past "
                        f"the end of its line ({width} bytes)",
                        line,
                        "Put the '^' of the [CURSOR_POSITION] line under a column of the line above it.",
                    )
            if candidate.cursor is not None:
                where, offset = candidate.cursor
                text = candidate.buffers.get(where)
                if text is None or not 0 <= offset <= len(text):
                    add(f"expected patch {index + 1} puts the cursor outside {where}", line)
        return tuple(candidates), broken

    def _verdicts(
        self,
        example: Any,
        scene: Any,
        candidates: tuple[Any, ...],
        rejected: Any,
        expects_change: bool,
        unchanged: set[int],
        same_as_rejected: set[int],
        add: Callable[..., None],
    ) -> None:
        """The oracle must pass and noop must fail, judged as the plugin judges an
        item; a failure already explained by a finding above is not told twice."""
        source = example.source
        line = source.expected_section_line or source.cursor_line
        for name, completion in (("oracle", self.oracle), ("noop", self.noop)):
            if name == "noop" and (not expects_change or unchanged):
                continue  # expected no change (noop must pass), or already told
            if name == "oracle" and 0 in same_as_rejected:
                continue
            try:
                prediction = completion(scene.request())
            except EditPredError as error:  # the plugin's item would be an ERROR
                add(f"the {name} provider cannot answer: {error.reason}", line)
                continue
            verdict, timed_out = self._judge(scene, candidates, rejected, prediction)
            if timed_out is not None:
                add(
                    f"judging the {name} answer took over {timed_out:g} s, the limit per item",
                    line,
                    "Split the example, or raise --editpred-judge-timeout (ini editpred_judge_timeout).",
                )
            elif name == "oracle" and not verdict.passed:
                add(f"the oracle answer (expected patch 1) fails: {verdict.reason}", line)
            elif name == "noop" and verdict.passed:
                add(f"the noop answer (no change) passes: {verdict.reason}", line)

    def _judge(
        self, scene: Any, candidates: tuple[Any, ...], rejected: Any, prediction: Any
    ) -> tuple[Any, float | None]:
        from .._deadline import JudgeTimeout, deadline
        from ..judge import judge

        try:
            with deadline(self.settings.limits.judge_seconds):
                return judge(
                    scene.buffers,
                    (scene.cursor.path, scene.cursor.offset),
                    candidates,
                    prediction,
                    rejected=rejected,
                    open_file=scene.open_file,
                    mode=self.settings.match,
                    events=scene.events,
                ), None
        except JudgeTimeout as timeout:
            return None, timeout.seconds

    def _duplicate(self, example: Any, scene: Any, candidates: tuple[Any, ...], add: Callable[..., None]) -> None:
        """Same repository, revision (and uncommitted diff), edit history, cursor and
        expected edits: the second is told, naming the first."""
        from ..scene import deleted_paths

        repository = scene.repository
        url = repository.url.key if repository is not None else example.repository_url
        outcomes = []
        for candidate in candidates:
            digest = hashlib.sha256()
            for path in sorted(candidate.buffers):
                text = candidate.buffers[path]
                if text is not scene.buffers.get(path) and text != scene.buffers.get(path):
                    digest.update(path.encode("utf-8", "surrogatepass") + b"\0")
                    digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
            for path in sorted(set(scene.buffers) - set(candidate.buffers) | deleted_paths(candidate.buffers)):
                digest.update(b"deleted\0" + path.encode("utf-8", "surrogatepass") + b"\0")
            outcomes.append((digest.hexdigest(), candidate.cursor))
        key = (
            url,
            scene.tree,
            tuple((e.path, e.old_path, e.diff, e.predicted) for e in scene.events),
            scene.cursor.path,
            scene.cursor.offset,
            frozenset(outcomes),
        )
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = example.location
        else:
            add(
                f"duplicate of {first}: the same repository, revision, history, cursor and expected edit",
                example.source.line,
                "Delete one of them.",
            )


def lint(
    paths: Sequence[Path],
    settings: LintSettings,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> LintResult:
    """Check every example under ``paths``; never raises for a broken example (every
    problem is a :class:`Finding`), only :class:`ConfigError` for bad settings."""
    from ..example import load_examples

    start = time.perf_counter()
    skipped: list[Finding] = []
    files, findings = example_files(paths, skipped)
    linter = _Linter(settings)
    examples = junk = 0
    try:
        for done, file in enumerate(files):
            for loaded in load_examples(file, max_bytes=settings.limits.max_example_bytes):
                if isinstance(loaded, EditPredError):
                    findings.append(Finding(loaded.path or str(file), loaded.line, loaded.reason, loaded.fix or None))
                    continue
                examples += 1
                found = list(_guarded(linter, loaded))
                junk += any(not finding.is_error for finding in found)
                findings.extend(found)
            if progress is not None:
                progress(done + 1, len(files))
    finally:
        linter.close()
    findings.sort(key=lambda f: f._key)
    return LintResult(findings, len(files), examples, time.perf_counter() - start, junk, skipped)


def _guarded(linter: _Linter, example: Any) -> Iterator[Finding]:
    """The example's findings; an unexpected exception is one finding too, so one
    broken example never stops the check of the others."""
    try:
        yield from linter.check(example)
    except EditPredError as error:
        yield Finding(
            error.path or example.source.path or example.name,
            error.line or example.source.line,
            error.reason,
            error.fix or None,
        )
    except RecursionError:
        yield Finding(example.source.path or example.name, example.source.line, "the example is too deeply nested")
    except Exception as error:  # noqa: BLE001 - a finding, never a traceback
        yield Finding(
            example.source.path or example.name,
            example.source.line,
            f"checking the example failed unexpectedly: {type(error).__name__}: {error}",
            "Report this as a bug of pytest-editpred, with the example.",
        )
