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

from .._example import Example
from .._exceptions import EditPredError
from .._load import load_examples
from . import TRIALS_KEY

__all__ = ["ExampleFile", "ExampleItem", "is_example_file"]

_UNSAFE_ID = re.compile(r"[\[\]\s]+|::")


def is_example_file(path: Path, config: pytest.Config, roots: list[Path]) -> bool:
    """``.md`` files whose first line is ``+++``; ``.json``/``.jsonl`` under the
    configured example directories or named on the command line."""
    suffix = path.suffix.lower()
    if suffix == ".md":
        from .._markdown import looks_like_example

        return looks_like_example(path)
    if suffix not in (".json", ".jsonl"):
        return False
    resolved = path.resolve()
    if any(resolved == root or root in resolved.parents for root in roots):
        return True
    return any(Path(arg.split("::")[0]).resolve() == resolved for arg in config.args)


def _item_name(base: str, taken: set[str], fallback: str) -> str:
    name = _UNSAFE_ID.sub("-", base).strip("-") or fallback
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate)
    return candidate


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
                name = _item_name(fallback, taken, self.path.stem)
                items.append(ExampleItem.from_parent(self, name=name, callobj=_run_example, error=loaded))
                continue
            base = _item_name(loaded.name, taken, self.path.stem)
            for trial in range(1, trials + 1):
                name = base if trials == 1 else f"{base}[t{trial}]"
                items.append(
                    ExampleItem.from_parent(self, name=name, callobj=_run_example, example=loaded, trial=trial)
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
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.example = example
        self.load_error = error
        self.trial = trial
        if example is not None:
            self.extra_keyword_matches.add(example.name)
            if example.repo_name:
                self.extra_keyword_matches.add(example.repo_name)
            for tag in example.tags:
                self.extra_keyword_matches.add(tag)
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tag):
                    self.config.addinivalue_line("markers", f"{tag}: editpred example tag")
                    self.add_marker(tag)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = None
        if self.example is not None:
            source = self.example.source
            line = source.expected_section_line or source.cursor_line or source.line
        elif self.load_error is not None:
            line = self.load_error.line
        return self.path, (line - 1 if line else 0), self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """Our own errors are messages for people, not tracebacks."""
        if isinstance(excinfo.value, EditPredError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)
