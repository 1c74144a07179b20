"""Building corpora: examples cut from a repository's history, imported from the
public next-edit data sets, checked, split, truncated and filtered by language
(``zed-authoring-and-context.md`` §1–§3, ``datasets.md``). No pytest here: the ``editpred`` command drives it.
"""

from ._context import with_context
from ._import import Imported, ImportSourceError, Skipped, import_examples
from ._ini import IniFile, LintSettings, find_ini, settings_from
from ._languages import LanguageFilter, parse_list
from ._lint import Finding, LintResult, lint, unusable
from ._prompt import PromptSettings, Rendered, no_prompt, render_prompts
from ._quality import RULE_NAMES, RULES, QualityFinding, Rule, quality_findings
from ._scenes import NamedExample, SceneBuilder, named_examples
from ._split import SplitResult, SplitSpec, parse_spec, split
from ._stream import Item, Output, Problem, read_items
from ._truncate import Truncated, truncate_patch
from ._write import ExampleWriter, Format, OutputFolder, OutputRefused, file_stem, output_refusal
from .split_commit import (
    COMMIT_REASONS,
    DEFAULT_MAX_COUNT,
    FILE_REASONS,
    Options,
    check_revisions,
    default_revisions,
    list_commits,
    open_repository,
    order,
    parse_split_point,
    read_diffs,
    split_commit,
)

__all__ = [
    "Item",
    "LanguageFilter",
    "Output",
    "Problem",
    "Truncated",
    "parse_list",
    "read_items",
    "truncate_patch",
    "COMMIT_REASONS",
    "DEFAULT_MAX_COUNT",
    "FILE_REASONS",
    "Options",
    "QualityFinding",
    "RULES",
    "RULE_NAMES",
    "Rule",
    "check_revisions",
    "default_revisions",
    "list_commits",
    "open_repository",
    "order",
    "parse_split_point",
    "quality_findings",
    "read_diffs",
    "split_commit",
    "ExampleWriter",
    "OutputFolder",
    "OutputRefused",
    "file_stem",
    "output_refusal",
    "ImportSourceError",
    "Imported",
    "Skipped",
    "Finding",
    "IniFile",
    "Format",
    "LintResult",
    "LintSettings",
    "NamedExample",
    "PromptSettings",
    "SceneBuilder",
    "named_examples",
    "Rendered",
    "SplitResult",
    "SplitSpec",
    "find_ini",
    "import_examples",
    "lint",
    "unusable",
    "no_prompt",
    "parse_spec",
    "render_prompts",
    "settings_from",
    "split",
    "with_context",
]
