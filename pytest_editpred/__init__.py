"""pytest-editpred: every edit-prediction example is a pytest item.

The public names are imported lazily, the error tree too, so ``import pytest_editpred``
(which pytest does on every run through the plugin entry point) loads no module of the
package: each name is imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see: the names, re-exported (``X as X``)
    from ._diff import (
        apply_to_string as apply_to_string,
    )
    from ._diff import (
        parse_diff as parse_diff,
    )
    from ._exceptions import *  # noqa: F403
    from ._settings import (
        Settings as Settings,
    )
    from .example import (
        Example as Example,
    )
    from .example import (
        ExpectedPatch as ExpectedPatch,
    )
    from .example import (
        RecentFile as RecentFile,
    )
    from .example import (
        RetrievedExcerpt as RetrievedExcerpt,
    )
    from .example import (
        RetrievedFile as RetrievedFile,
    )
    from .example import (
        Source as Source,
    )
    from .example import (
        format_cursor_excerpt as format_cursor_excerpt,
    )
    from .example import (
        from_json as from_json,
    )
    from .example import (
        from_jsonl as from_jsonl,
    )
    from .example import (
        from_markdown as from_markdown,
    )
    from .example import (
        load_examples as load_examples,
    )
    from .example import (
        parse_cursor_excerpt as parse_cursor_excerpt,
    )
    from .example import (
        to_json as to_json,
    )
    from .example import (
        to_markdown as to_markdown,
    )
    from .judge import (
        Attempt as Attempt,
    )
    from .judge import (
        Prediction as Prediction,
    )
    from .scene import (
        Cursor as Cursor,
    )
    from .scene import (
        EditEvent as EditEvent,
    )
    from .scene import (
        Excerpt as Excerpt,
    )
    from .scene import (
        Patched as Patched,
    )
    from .scene import (
        PredictionRequest as PredictionRequest,
    )
    from .scene import (
        apply_patch as apply_patch,
    )

_LAZY = {
    "Example": "example",
    "RecentFile": "example",
    "RetrievedFile": "example",
    "RetrievedExcerpt": "example",
    "Source": "example",
    "ExpectedPatch": "example",
    "parse_cursor_excerpt": "example",
    "format_cursor_excerpt": "example",
    "parse_diff": "_diff",
    "apply_to_string": "_diff",
    "from_markdown": "example",
    "to_markdown": "example",
    "from_json": "example",
    "from_jsonl": "example",
    "to_json": "example",
    "load_examples": "example",
    "Patched": "scene",
    "apply_patch": "scene",
    "Prediction": "judge",
    "Attempt": "judge",
    "PredictionRequest": "scene",
    "Cursor": "scene",
    "EditEvent": "scene",
    "Excerpt": "scene",
    "Settings": "_settings",
}

#: The error tree (``_exceptions.__all__``; tests/test_startup.py checks they agree).
_ERRORS = (
    "EditPredError",
    "ExampleError",
    "FormatError",
    "FrontMatterError",
    "HeadingLevelError",
    "UnknownHeadingError",
    "IndentedCodeBlockError",
    "MissingCursorBlockError",
    "JSONFormatError",
    "CursorMarkerError",
    "DiffError",
    "DiffParseError",
    "ContextNotFoundError",
    "ContextNotUniqueError",
    "NoSuchPathError",
    "SceneError",
    "RefusedRepositoryError",
    "UnsafePathError",
    "InvalidRevisionError",
    "UnknownRevisionError",
    "MissingFileError",
    "UncommittedDiffError",
    "EditHistoryError",
    "CursorNotFoundError",
    "CursorAmbiguousError",
    "InfrastructureError",
    "GitError",
    "OfflineError",
    "ProviderUnavailableError",
    "MissingAnswerError",
    "PredictionError",
    "JudgeError",
    "JudgePromptError",
    "RepairError",
    "ConfigError",
    "ContextTypeError",
    "SplitPointError",
    "RepositoryError",
    "JudgeTemplateError",
    "RepairTemplateError",
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
