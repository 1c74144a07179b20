"""Collection: example files become collectors, examples become items.

Items are ``pytest.Function`` objects under a ``pytest.Module`` with ``obj = None``
(as pytest's own doctest collector), so fixtures, ``-k``, ``-m``, xdist and IDEs
work through public API only. A file that cannot be read becomes an item that
ERRORs: a collection error would stop the whole session.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .._exceptions import EditPredError
from ..example import Example, example_id, load_examples, unique_id
from . import PREPARED_KEY, TRIALS_KEY
from .paragraph import paragraph_report

__all__ = ["ExampleFile", "ExampleItem", "is_example_file", "tag_hints"]

#: A tag pytest's ``-m`` can name (its grammar's identifier characters, hyphens
#: included; not ``:`` or ``(``, which end a marker's name where it is registered, nor
#: a leading ``_``, which pytest refuses).
_MARKER_NAME = re.compile(r"[^\W_][\w+./\\-]*")
_MARK_KEYWORDS = frozenset({"and", "or", "not"})
#: pytest's own markers, which change how an item runs: a tag spelled so must not
#: skip, xfail or re-parametrise an example (and ours, which every example has).
_RESERVED_MARKERS = frozenset({"skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "editpred"})
_TAG_HINTS = pytest.StashKey[dict[str, str]]()


def tag_hints(config: pytest.Config) -> list[str]:
    """One line per tag of the collected examples that could not be a marker."""
    return list(config.stash.get(_TAG_HINTS, {}).values())


def _mark_tag(item: pytest.Item, tag: str) -> None:
    """Make ``tag`` a registered marker of ``item`` (so ``-m`` and ``--strict-markers``
    work), or remember the one-line hint saying why it cannot be."""
    if _MARKER_NAME.fullmatch(tag) and tag not in _MARK_KEYWORDS and tag not in _RESERVED_MARKERS:
        registered = item.config.stash.setdefault(_REGISTERED, set())
        if tag not in registered:
            registered.add(tag)
            item.config.addinivalue_line("markers", f"{tag}: editpred example tag")
        item.add_marker(tag)
        return
    hints = item.config.stash.setdefault(_TAG_HINTS, {})
    if tag in hints:
        return
    if tag in _RESERVED_MARKERS or tag in _MARK_KEYWORDS:
        why = f"'{tag}' is pytest's own" + (
            " operator" if tag in _MARK_KEYWORDS else " marker, which would change how the item runs"
        )
    else:
        why = "pytest's -m names hold only letters, digits and '_-.+/', and do not start with '_'"
    hints[tag] = f"editpred: the tag {tag!r} is not a marker ({why}); select it with -k, or rename the tag"


_REGISTERED = pytest.StashKey[set[str]]()


def is_example_file(path: Path, config: pytest.Config, roots: list[Path]) -> bool:
    """``.md`` files whose first line is ``+++``; ``.json``/``.jsonl`` under the
    configured example directories or named on the command line."""
    suffix = path.suffix.lower()
    if suffix == ".md":
        from ..example import looks_like_example

        return looks_like_example(path)
    if suffix not in (".json", ".jsonl"):
        return False
    resolved = path.resolve()
    if any(resolved == root or root in resolved.parents for root in roots):
        return True
    return any(Path(arg.split("::")[0]).resolve() == resolved for arg in config.args)


_SKIPPED_JSON = pytest.StashKey[dict[str, int]]()


def note_skipped_json(path: Path, config: pytest.Config) -> None:
    """Count a ``.json``/``.jsonl`` file that is not collected although a directory
    holding it was named on the command line: the run says so once
    (:func:`collection_hints`), since a corpus left out without a word looks like a
    smaller corpus. Other JSON files of a project are not examples, so they are
    counted, never collected as errors."""
    resolved = path.resolve()
    for arg in config.args:
        named = Path(arg.split("::")[0])
        try:
            directory = named.resolve()
        except OSError:
            continue
        if directory.is_dir() and directory in resolved.parents:
            counts = config.stash.setdefault(_SKIPPED_JSON, {})
            counts[arg] = counts.get(arg, 0) + 1
            return


def collection_hints(config: pytest.Config) -> list[str]:
    """The lines said once after collection: tags that could not be markers, and
    JSON files left out of a directory named on the command line."""
    lines = tag_hints(config)
    for arg, count in config.stash.get(_SKIPPED_JSON, {}).items():
        lines.append(
            f"editpred: {count} .json/.jsonl file{'s' if count > 1 else ''} under {arg} "
            f"{'were' if count > 1 else 'was'} not collected as examples: JSON examples are collected "
            "under editpred_paths (ini; default 'evals') or when the file itself is named on the command line"
        )
    return lines


def _run_example(editpred_prediction: Any) -> None:
    """The call phase: judge the prediction made during setup."""
    editpred_prediction.conclude()


def _max_example_bytes(config: pytest.Config) -> int:
    """``--editpred-max-example-bytes``: files over it are refused before they are
    read (an ERROR item). A bad value is the usage error the session reports."""
    from .._exceptions import ConfigError
    from .._limits import DEFAULT_LIMITS
    from .options import limits_from

    try:
        return limits_from(config).max_example_bytes
    except ConfigError:
        return DEFAULT_LIMITS.max_example_bytes


class ExampleFile(pytest.Module):
    """One ``.md``, ``.json`` or ``.jsonl`` file of examples."""

    obj = None  # nothing to import: the examples are data

    def collect(self) -> list[pytest.Item]:
        trials = int(self.config.stash.get(TRIALS_KEY, 1))
        items: list[pytest.Item] = []
        taken: set[str] = set()
        for loaded in load_examples(self.path, max_bytes=_max_example_bytes(self.config)):
            if isinstance(loaded, EditPredError):
                line = loaded.line if self.path.suffix.lower() == ".jsonl" else None
                fallback = f"{self.path.stem}-{line - 1}" if line is not None else self.path.stem
                name = unique_id(fallback, taken, self.path.stem)
                items.append(ExampleItem.from_parent(self, name=name, callobj=_run_example, error=loaded))
                continue
            base = unique_id(example_id(loaded), taken, self.path.stem)
            for trial in range(1, trials + 1):
                name = base if trials == 1 else f"{base}[t{trial}]"
                items.append(
                    ExampleItem.from_parent(
                        self, name=name, callobj=_run_example, example=loaded, trial=trial, example_id=base
                    )
                )
        return items


class ExampleItem(pytest.Function):
    """One example (and trial). ``example`` is None when the file was unreadable;
    ``error`` then says why, and setup raises it."""

    def __init__(
        self,
        *,
        example: Example | None = None,
        error: EditPredError | None = None,
        trial: int = 1,
        example_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.example = example
        self.load_error = error
        self.trial = trial
        # The one spelling of the example's name (the id without "[tN]"): the summary,
        # the JSONL and HTML reports and replay files use it.
        self.example_id = example_id or self.name
        # Who answered: --editpred-provider's name, or a custom fixture's function.
        self.answered_by: str | None = None
        if example is not None:
            self.extra_keyword_matches.add(example.name)  # the "# Name" heading, for -k
            if example.repo_name:
                self.extra_keyword_matches.add(example.repo_name)  # -k flask
            for tag in example.tags:
                self.extra_keyword_matches.add(tag)
                _mark_tag(self, tag)

    def error_message(self, error: EditPredError) -> str:
        """The one paragraph an ERROR shows: where (the example's file when the error
        knows no place of its own, as a server's), what, and the fix."""
        return str(error) if error.where else f"{self.path}: {error}"

    def report_of(self, message: str, body: str | None = None) -> Any:
        """The report of an ERROR or FAILED message (:mod:`.paragraph`); ``body``,
        when given, is printed in its place."""
        return paragraph_report(message, self.path, self._line(), body=body)

    def _line(self) -> int | None:
        """The 1-based line this example starts its verdict at, if known."""
        if self.example is not None:
            source = self.example.source
            return source.expected_section_line or source.cursor_line or source.line
        return self.load_error.line if self.load_error is not None else None

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self._line()
        return self.path, (line - 1 if line else 0), self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """Our own errors and verdicts are messages for people, not tracebacks. A
        FAILED one follows ``--tb`` and ``-vv`` (:mod:`.failure`): ``--tb=line``
        prints its headline alone, a wrong answer's report is made for the style."""
        if isinstance(excinfo.value, EditPredError):
            return self.report_of(self.error_message(excinfo.value))
        if isinstance(excinfo.value, pytest.fail.Exception) and not excinfo.value.pytrace:
            message = excinfo.value.msg or ""
            style = self.config.getoption("tbstyle", "auto")
            prepared = self.stash.get(PREPARED_KEY, None)
            failure = prepared.failure if prepared is not None else None
            if failure is not None:
                verbosity = self.config.get_verbosity(pytest.Config.VERBOSITY_ASSERTIONS)
                return self.report_of(message, failure.render(style, verbosity))
            return self.report_of(message, "" if style == "line" else None)
        return super().repr_failure(excinfo)
