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
* no two examples are the same moment with the same expected edit.

Nothing here imports pytest. The run shares one
:class:`~pytest_editpred.scene.RepositoryCache` (one ``git cat-file`` process per
repository, trees and applied diffs cached) and reuses a scene for examples that
describe the same moment, so a thousand examples take seconds, not a pytest run each.

The settings come as the plugin takes them: ``--editpred-repo`` and
``--editpred-offline`` from the caller, the rest from the ini file pytest would read
for the same paths (:func:`find_ini`; ``pytest.toml``, ``pytest.ini``,
``pyproject.toml``, ``tox.ini``, ``setup.cfg``), with paths relative to its folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import ConfigError, EditPredError, ExampleError
from .._limits import DEFAULT_LIMITS, Limits

__all__ = [
    "Finding",
    "IniFile",
    "LintResult",
    "LintSettings",
    "example_files",
    "find_ini",
    "lint",
    "settings_from",
]

#: Files of a directory that could be examples; ``.md`` ones must start with ``+++``.
_SUFFIXES = (".md", ".json", ".jsonl")
#: Folders a walk never enters: version control, caches, dependencies.
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "target", "venv"})
#: How far into a ``.json``/``.jsonl`` file met in a walk we look for an example's key.
_SNIFF_BYTES = 64 * 1024


@dataclass(frozen=True, order=True)
class Finding:
    """One problem: the file, its 1-based line (None when the file as a whole is
    wrong), what is wrong and, when known, the fix."""

    path: str
    line: int | None
    message: str
    fix: str | None = field(default=None, compare=False)

    @property
    def _key(self) -> tuple[str, int, str]:
        return (self.path, self.line or 0, self.message)


@dataclass(frozen=True)
class LintSettings:
    """What the plugin would use: URL mappings, offline, the mirror cache, limits and
    the match mode (ini ``editpred_match``)."""

    cache_dir: Path
    mappings: Mapping[str, Path] = field(default_factory=dict)
    offline: bool = False
    limits: Limits = DEFAULT_LIMITS
    match: str = "exact"


@dataclass
class LintResult:
    """Every finding, in file and line order, and what was looked at."""

    findings: list[Finding]
    files: int
    examples: int
    seconds: float


# --------------------------------------------------------------------------- ini


@dataclass(frozen=True)
class IniFile:
    """The configuration pytest would read: its file (None: none found) and its
    keys, each a string or a list of strings."""

    path: Path | None
    values: Mapping[str, Any]

    @property
    def base(self) -> Path:
        """The folder relative paths of the ini are taken from (the plugin's rule)."""
        return self.path.parent if self.path is not None else Path.cwd()

    def lines(self, key: str) -> list[str]:
        """A ``linelist`` key as pytest reads it: a list as it is, a string line by
        line, stripped, blank lines dropped."""
        value = self.values.get(key)
        if value is None:
            return []
        if isinstance(value, (list, tuple)):
            return [str(v).strip() for v in value if str(v).strip()]
        return [line.strip() for line in str(value).split("\n") if line.strip()]

    def text(self, key: str) -> str | None:
        value = self.values.get(key)
        if value is None or value == "":
            return None
        return str(value).strip() if not isinstance(value, bool) else ("true" if value else "false")


_CONFIG_NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        loaded: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        return loaded
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read it as TOML: {error}", fix="Fix the file's TOML syntax.") from None


def _ini_section(path: Path, section: str) -> dict[str, Any] | None:
    import iniconfig  # pytest's own ini parser (a dependency of pytest): the same reading

    try:
        parsed = iniconfig.IniConfig(str(path))
    except (OSError, UnicodeDecodeError, iniconfig.ParseError) as error:
        raise ConfigError(f"{path}: cannot read it as an ini file: {error}", fix="Fix the file's syntax.") from None
    if section not in parsed:
        return None
    return dict(parsed[section].items())


def _config_of(path: Path) -> dict[str, Any] | None:
    """pytest's ``load_config_dict_from_file``: the keys, or None when the file holds
    no pytest configuration (so the search goes on)."""
    if path.suffix == ".ini":
        found = _ini_section(path, "pytest")
        if found is None and path.name in ("pytest.ini", ".pytest.ini"):
            return {}  # always the configuration, even empty
        return found
    if path.suffix == ".cfg":
        return _ini_section(path, "tool:pytest")
    if path.suffix == ".toml":
        data = _load_toml(path)
        if path.name in ("pytest.toml", ".pytest.toml"):
            return dict(data.get("pytest", {}))
        tool = data.get("tool", {}).get("pytest", {})
        if not isinstance(tool, dict):
            return None
        native = {k: v for k, v in tool.items() if k != "ini_options"}
        ini = tool.get("ini_options")
        if native:
            return native
        return dict(ini) if isinstance(ini, dict) else None
    return None


def find_ini(paths: Sequence[Path], invocation_dir: Path | None = None) -> IniFile:
    """The configuration file pytest would find for ``paths`` run from
    ``invocation_dir``: from the common ancestor of the paths' folders upwards, the
    first of ``pytest.toml``, ``.pytest.toml``, ``pytest.ini``, ``.pytest.ini``,
    ``pyproject.toml``, ``tox.ini``, ``setup.cfg`` in a folder that holds pytest
    configuration. Raises :class:`ConfigError` for a file that cannot be parsed."""
    here = (invocation_dir or Path.cwd()).absolute()
    folders = []
    for path in paths:
        absolute = Path(os.path.abspath(here / path))
        if absolute.exists():
            folders.append(absolute if absolute.is_dir() else absolute.parent)
    ancestor = Path(os.path.commonpath(folders)) if folders else here
    for base in (ancestor, *ancestor.parents):
        for name in _CONFIG_NAMES:
            candidate = base / name
            if candidate.is_file():
                values = _config_of(candidate)
                if values is not None:
                    return IniFile(candidate, values)
    return IniFile(None, {})


def _number(ini: IniFile, key: str, kind: type[int] | type[float], default: float) -> Any:
    raw = ini.text(key)
    if raw is None:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = 0
    if not value > 0:
        raise ConfigError(f"ini {key}: bad value {raw!r}", fix=f"Give {key} a positive number in {ini.path}.")
    return value


def settings_from(
    ini: IniFile,
    repos: Iterable[str] = (),
    *,
    offline: bool = False,
    cache_dir: str | None = None,
) -> LintSettings:
    """The settings the plugin would take from ``ini`` and these options (the command
    line wins; mapping paths in the ini are relative to its folder)."""
    from ..scene import parse_repo_mapping

    mappings: dict[str, Path] = {}
    for line in ini.lines("editpred_repos"):
        url, path = parse_repo_mapping(line, ini=True)
        mappings[url] = (ini.base / path).resolve()
    for item in repos:
        url, path = parse_repo_mapping(item, ini=False)
        mappings[url] = Path(path).expanduser().resolve()
    if cache_dir:
        cache = Path(cache_dir).expanduser().resolve()
    elif (ini_cache := ini.text("editpred_cache_dir")) is not None:
        cache = (ini.base / Path(ini_cache).expanduser()).resolve()
    else:
        from ..scene import default_cache_dir

        cache = default_cache_dir()
    ini_offline = (ini.text("editpred_offline") or "").lower() in ("1", "true", "yes", "on")
    match = ini.text("editpred_match") or "exact"
    if match not in ("exact", "whitespace"):
        raise ConfigError(f"ini editpred_match: bad value {match!r}", fix="Use exact or whitespace.")
    limits = Limits(
        max_response_bytes=DEFAULT_LIMITS.max_response_bytes,
        max_example_bytes=_number(ini, "editpred_max_example_bytes", int, DEFAULT_LIMITS.max_example_bytes),
        max_prediction_bytes=_number(ini, "editpred_max_prediction_bytes", int, DEFAULT_LIMITS.max_prediction_bytes),
        judge_seconds=_number(ini, "editpred_judge_timeout", float, DEFAULT_LIMITS.judge_seconds),
    )
    return LintSettings(cache, mappings, offline or ini_offline, limits, match)


# ------------------------------------------------------------------------- files


def _sniffed(path: Path) -> bool:
    """A ``.json``/``.jsonl`` file met in a walk is an example file only if it names a
    repository: a ``package.json`` or ``tsconfig.json`` of a fixture is not."""
    try:
        with open(path, "rb") as handle:
            return b'"repository_url"' in handle.read(_SNIFF_BYTES)
    except OSError:
        return False


def example_files(paths: Sequence[Path]) -> tuple[list[Path], list[Finding]]:
    """The example files of ``paths``, in order, each once: a file named is taken as
    it is (its loading says what is wrong with it); a folder is walked, sorted, for
    ``.md`` files that start with ``+++`` and ``.json``/``.jsonl`` files that hold
    examples, skipping hidden folders and dependency folders. A path that does not
    exist is a finding."""
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
                    if looks_like_example(candidate) if suffix == ".md" else _sniffed(candidate):
                        files.append(candidate)
        else:
            findings.append(Finding(str(path), None, "no such file or directory", "Name example files or folders."))
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
    files, findings = example_files(paths)
    linter = _Linter(settings)
    examples = 0
    try:
        for done, file in enumerate(files):
            for loaded in load_examples(file, max_bytes=settings.limits.max_example_bytes):
                if isinstance(loaded, EditPredError):
                    findings.append(Finding(loaded.path or str(file), loaded.line, loaded.reason, loaded.fix or None))
                    continue
                examples += 1
                findings.extend(_guarded(linter, loaded))
            if progress is not None:
                progress(done + 1, len(files))
    finally:
        linter.close()
    findings.sort(key=lambda f: f._key)
    return LintResult(findings, len(files), examples, time.perf_counter() - start)


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
