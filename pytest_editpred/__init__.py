"""pytest-editpred: every edit-prediction example is a pytest item.

The public names are imported lazily, the error tree too, so ``import pytest_editpred``
(which pytest does on every run through the plugin entry point) loads no module of the
package: each name is imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._exceptions import *  # noqa: F403
    from ._cursor import ExpectedPatch, format_cursor_excerpt, parse_cursor_excerpt
    from ._diff import apply_to_string, parse_diff
    from ._example import Example, RecentFile, Source
    from ._json import from_json, from_jsonl, to_json
    from ._load import load_examples
    from ._markdown import from_markdown, to_markdown
    from ._patch import Patched, apply_patch
    from ._prediction import Attempt, Prediction
    from ._request import Cursor, EditEvent, Excerpt, PredictionRequest
    from ._settings import Settings

_LAZY = {
    "Example": "_example",
    "RecentFile": "_example",
    "Source": "_example",
    "ExpectedPatch": "_cursor",
    "parse_cursor_excerpt": "_cursor",
    "format_cursor_excerpt": "_cursor",
    "parse_diff": "_diff",
    "apply_to_string": "_diff",
    "from_markdown": "_markdown",
    "to_markdown": "_markdown",
    "from_json": "_json",
    "from_jsonl": "_json",
    "to_json": "_json",
    "load_examples": "_load",
    "Patched": "_patch",
    "apply_patch": "_patch",
    "Prediction": "_prediction",
    "Attempt": "_prediction",
    "PredictionRequest": "_request",
    "Cursor": "_request",
    "EditEvent": "_request",
    "Excerpt": "_request",
    "Settings": "_settings",
}

#: The error tree (``_exceptions.__all__``; tests/test_startup.py checks they agree).
_ERRORS = (
    "EditPredError", "ExampleError", "FormatError", "FrontMatterError", "HeadingLevelError",
    "IndentedCodeBlockError", "MissingCursorBlockError", "JSONFormatError", "CursorMarkerError",
    "DiffError", "DiffParseError", "ContextNotFoundError", "ContextNotUniqueError",
    "NoSuchPathError", "SceneError", "RefusedRepositoryError", "UnsafePathError",
    "InvalidRevisionError", "UnknownRevisionError", "MissingFileError", "UncommittedDiffError",
    "EditHistoryError", "CursorNotFoundError", "CursorAmbiguousError", "InfrastructureError",
    "GitError", "OfflineError", "ProviderUnavailableError", "MissingAnswerError", "PredictionError",
    "ConfigError",
)
_LAZY.update(dict.fromkeys(_ERRORS, "_exceptions"))

__all__ = sorted([*_LAZY, "__version__"])


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("pytest-editpred")
        except PackageNotFoundError:  # pragma: no cover - running from a checkout
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
