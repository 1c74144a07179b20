"""The example format: Zed's markdown and ep JSON, read and written, and the cursor
markers inside them (``../shared/reference/zed-format.md`` §1–§2).

The first stage of the pipeline: a file becomes an :class:`Example`, a plain frozen
record that names a repository state and the edit a model should make there. Nothing
here touches git, a model or pytest.
"""

from ._cursor import (
    MARKER,
    ExpectedPatch,
    byte_to_char,
    extract_cursor_from_patch,
    format_cursor_excerpt,
    parse_cursor_excerpt,
)
from ._example import (
    ACCEPTED_PREDICTION_MARKER,
    CONTEXT_SOURCES,
    Example,
    RecentFile,
    RetrievedExcerpt,
    RetrievedFile,
    Source,
)
from ._ids import example_id, safe_id, unique_id
from ._json import from_json, from_jsonl, related_files_from_json, related_files_to_json, to_json
from ._load import load_examples
from ._markdown import expected_patch_insertion_point, fence, from_markdown, looks_like_example, to_markdown

__all__ = [
    "ACCEPTED_PREDICTION_MARKER",
    "CONTEXT_SOURCES",
    "MARKER",
    "Example",
    "ExpectedPatch",
    "RecentFile",
    "RetrievedExcerpt",
    "RetrievedFile",
    "Source",
    "byte_to_char",
    "example_id",
    "expected_patch_insertion_point",
    "extract_cursor_from_patch",
    "fence",
    "format_cursor_excerpt",
    "from_json",
    "from_jsonl",
    "from_markdown",
    "load_examples",
    "looks_like_example",
    "parse_cursor_excerpt",
    "related_files_from_json",
    "related_files_to_json",
    "safe_id",
    "to_json",
    "to_markdown",
    "unique_id",
]
