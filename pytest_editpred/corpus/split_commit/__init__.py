"""Examples cut out of real commits: Zed's ``ep split-commit``, read from git.

Zed's input is a commit whose hunks an LLM has already put in the order a person
would type them; ours is the commit as recorded, in file and hunk order, read from
the repository (:mod:`._repository`, :mod:`._diffs`). From there the rules are
Zed's, rule by rule: the edit model and its serializer (:mod:`._patch`), the split
points (:mod:`._points`), the split (:mod:`._generate`), the half-typed line
(:mod:`._half_typed`), the cursor and its excerpt (:mod:`._cursor`), the split kinds
(:mod:`._kinds`). What we add: the quality rules that keep junk out
(``corpus._quality``), a check that every example loads before it is written
(:mod:`._check`), and an account of every commit (:mod:`._commit`, with every reason
named in :mod:`._rules`).

Where Zed cannot be followed, because its example would not load here or would be
junk, we depart and say so (the README's table of differences from ``ep``).
Randomness is Python's :class:`random.Random`, seeded from ``--seed`` and the
commit's sha, with Zed's draws in Zed's order; Zed's ChaCha12 ``StdRng`` cannot be
reproduced, so a seed gives other draws than in Zed but always the same ones here.
"""

from ._check import Unloadable, check_example
from ._commit import MAX_DIFF_BYTES, MAX_EDITS, MAX_SAMPLES, CommitResult, Options, repo_name, split_commit
from ._cursor import MARKER, Cursor, Rng, cursor_excerpt, sample_cursor_position
from ._diffs import MAX_FILE_BYTES, Commit, FileDiff, git_path, read_diffs
from ._generate import Generated, generate, generate_at
from ._half_typed import fuzzy_ratio, half_typed, imitate_human_edits, position_weight, tokenize
from ._kinds import KINDS, classify
from ._patch import Hunk, Line, Location, Patch, extract_edits, locations, parse_patch, split_ordered_patch
from ._points import SplitPoint, parse_split_point, resolve_split_value
from ._repository import (
    DEFAULT_MAX_COUNT,
    Repository,
    check_revisions,
    default_revisions,
    list_commits,
    open_repository,
)
from ._rules import COMMIT_REASONS, FILE_REASONS, REASONS, Skip, order

__all__ = [
    "COMMIT_REASONS",
    "DEFAULT_MAX_COUNT",
    "FILE_REASONS",
    "KINDS",
    "MARKER",
    "MAX_DIFF_BYTES",
    "MAX_EDITS",
    "MAX_FILE_BYTES",
    "MAX_SAMPLES",
    "REASONS",
    "Commit",
    "CommitResult",
    "Cursor",
    "FileDiff",
    "Generated",
    "Hunk",
    "Line",
    "Location",
    "Options",
    "Patch",
    "Repository",
    "Rng",
    "Skip",
    "SplitPoint",
    "Unloadable",
    "check_example",
    "check_revisions",
    "classify",
    "cursor_excerpt",
    "default_revisions",
    "extract_edits",
    "fuzzy_ratio",
    "generate",
    "generate_at",
    "git_path",
    "half_typed",
    "imitate_human_edits",
    "list_commits",
    "locations",
    "open_repository",
    "order",
    "parse_patch",
    "parse_split_point",
    "position_weight",
    "read_diffs",
    "repo_name",
    "resolve_split_value",
    "sample_cursor_position",
    "split_commit",
    "split_ordered_patch",
    "tokenize",
]
