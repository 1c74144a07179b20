"""Building corpora: examples cut from a repository's history, imported from the
public next-edit data sets, checked and split (``zed-authoring-and-context.md``
§1–§3, ``datasets.md``). No pytest here: the ``editpred`` command drives it.
"""

from ._import import Imported, ImportSourceError, Skipped, import_examples
from ._lint import Finding, LintResult, LintSettings, find_ini, lint, settings_from
from ._split import SplitResult, SplitSpec, parse_spec, split
from ._split_commit import (
    DEFAULT_MAX_COUNT,
    Options,
    RepositoryError,
    check_revisions,
    count_commits,
    default_revisions,
    open_repository,
    parse_split_point,
    read_commits,
    split_commit,
)
from ._write import ExampleWriter, Format

__all__ = [
    "DEFAULT_MAX_COUNT",
    "Options",
    "RepositoryError",
    "check_revisions",
    "count_commits",
    "default_revisions",
    "open_repository",
    "parse_split_point",
    "read_commits",
    "split_commit",
    "ExampleWriter",
    "ImportSourceError",
    "Imported",
    "Skipped",
    "Finding",
    "Format",
    "LintResult",
    "LintSettings",
    "SplitResult",
    "SplitSpec",
    "find_ini",
    "import_examples",
    "lint",
    "parse_spec",
    "settings_from",
    "split",
]
