"""Every error pytest-editpred raises, in one tree.

Each error says *where* (example file and 1-based line), *what* went wrong and *how
to fix it*. The branch an error sits on decides the pytest outcome::

    EditPredError                    base class; nothing else ever escapes the core
    ├── ExampleError                 the example is broken            -> pytest ERROR
    │   ├── FormatError              the file cannot be read as an example
    │   │   ├── FrontMatterError         bad or missing ``+++`` TOML front matter
    │   │   ├── HeadingLevelError        an H5/H6 heading (Zed: "Unexpected heading level")
    │   │   ├── UnknownHeadingError      a ``##`` heading that names no section (Zed drops its blocks)
    │   │   ├── IndentedCodeBlockError   an indented code block
    │   │   ├── MissingCursorBlockError  no ``## Cursor Position`` fence with a path
    │   │   └── JSONFormatError          a .json/.jsonl example that is not an Example
    │   ├── CursorMarkerError        no, or an unusable, cursor marker
    │   ├── DiffError                a diff that cannot be parsed or placed
    │   │   ├── DiffParseError           a malformed diff line or header
    │   │   ├── ContextNotFoundError     hunk context occurs nowhere
    │   │   ├── ContextNotUniqueError    hunk context occurs more than once
    │   │   └── NoSuchPathError          a diff names a file that is not there
    │   └── SceneError               the moment cannot be rebuilt from the repository
    │       ├── RefusedRepositoryError   a URL git could turn into a command, or no mapping
    │       ├── UnsafePathError          an absolute path, ``..`` or a symlink out of the tree
    │       ├── InvalidRevisionError     a revision that is not a hexadecimal object id
    │       ├── UnknownRevisionError     the revision is not in the repository
    │       ├── MissingFileError         a file missing at the revision
    │       ├── UncommittedDiffError     ``git apply`` refused the uncommitted diff
    │       ├── EditHistoryError         the edit history does not apply
    │       ├── CursorNotFoundError      the cursor excerpt occurs nowhere
    │       └── CursorAmbiguousError     the cursor excerpt occurs more than once
    ├── InfrastructureError          git, disk or network failed      -> pytest ERROR
    │   ├── GitError                     a git command failed
    │   ├── OfflineError                 the network is needed but --editpred-offline
    │   ├── ProviderUnavailableError     the model server could not be reached (after retries)
    │   └── MissingAnswerError           no answer to score: a replay file or replay-only
    │                                    cache without one (not passed, never FAILED)
    ├── PredictionError              the model's answer is unusable   -> pytest FAILED
    ├── JudgeError                   the LLM judge cannot be asked    -> the item's qa.error
    │   └── JudgePromptError             no judge prompt for this prediction (Zed's errors)
    ├── RepairError                  a prediction that cannot be sent for repair
    └── ConfigError                  a bad option or ini value        -> usage error
        ├── ContextTypeError             a context ``--type`` value that names no source
        ├── SplitPointError              split-commit's --split is no split point
        ├── RepositoryError              split-commit's REPO or REVISIONS cannot be read
        ├── JudgeTemplateError           a judge template file that is missing, unreadable,
        │                                not UTF-8, or lacks a placeholder
        └── RepairTemplateError          the same of a repair template file

A wrong answer is never an exception: it is a failed verdict.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
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
]


class EditPredError(Exception):
    """Base of every pytest-editpred error.

    ``reason`` says what is wrong, ``fix`` how to mend it; ``path`` and ``line``
    (1-based) say where, when known. Callers that know more about the location (the
    example file, the line of the fence a diff came from) fill it in with
    :meth:`locate`, so the low-level code need not know about files.
    """

    default_fix = ""

    def __init__(
        self,
        reason: str,
        *,
        fix: str | None = None,
        path: str | Path | None = None,
        line: int | None = None,
    ) -> None:
        self.reason = reason
        self.fix = self.default_fix if fix is None else fix
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(reason)

    def locate(self, path: str | Path | None, line: int | None = None) -> EditPredError:
        """Fill in the location if it is not known yet; returns ``self`` to re-raise."""
        if self.path is None and path is not None:
            self.path = str(path)
        if self.line is None and line is not None:
            self.line = line
        return self

    def shift(self, lines: int) -> EditPredError:
        """Move a line number that is relative to a code block to the file's frame."""
        if self.line is not None:
            self.line += lines
        return self

    @property
    def where(self) -> str:
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def __str__(self) -> str:
        head = f"{self.where}: {self.reason}" if self.where else self.reason
        return f"{head}\n  fix: {self.fix}" if self.fix else head


class ExampleError(EditPredError):
    """The example itself is broken; the item is an ERROR, the session goes on."""


class FormatError(ExampleError):
    default_fix = "Follow the layout of Zed's edit-prediction evals (see the README)."


class FrontMatterError(FormatError):
    default_fix = (
        "Start the file with '+++' on its own line, then TOML with repository_url and "
        "revision strings, then a closing '+++' line."
    )


class HeadingLevelError(FormatError):
    default_fix = "Use '#' for the name, '##' for sections and '###'/'####' for notes."


class UnknownHeadingError(FormatError):
    """A ``##`` heading that is none of the sections: Zed reads what follows as no
    section and drops its blocks, so ``## Expected Patches`` would make an example
    that expects no change. The reason names the heading and the nearest known one."""

    default_fix = (
        "Use one of Zed's section headings: ## Uncommitted Diff, ## Recently Opened Files, "
        "## Recently Viewed Files, ## Edit History, ## Cursor Position, ## Expected Patch, "
        "## Rejected Patch, ## Reasoning (any case). A note needs no heading: paragraphs are ignored."
    )


class IndentedCodeBlockError(FormatError):
    default_fix = "Put code in a fenced block (```), or indent the paragraph by less than 4 spaces."


class MissingCursorBlockError(FormatError):
    default_fix = (
        "Add a '## Cursor Position' section with a fenced block whose info string is the "
        "file path, e.g. ```src/app.py, and mark the cursor in it."
    )


class JSONFormatError(FormatError):
    default_fix = "Write one Example object with Zed's field names (see the README)."


class CursorMarkerError(ExampleError):
    default_fix = (
        "Mark the cursor inline with <|user_cursor|>, or put a comment line under the "
        "cursor line with '^[CURSOR_POSITION]' under the cursor column or "
        "'<[CURSOR_POSITION]' indented to it."
    )


class DiffError(ExampleError):
    default_fix = "Check the diff against the file it applies to."


class DiffParseError(DiffError):
    pass


class ContextNotFoundError(DiffError):
    default_fix = "The hunk's context and '-' lines must occur in the file exactly as written (whitespace included)."


class ContextNotUniqueError(DiffError):
    default_fix = (
        "Add context lines so the hunk occurs once, or give its '@@ -N' header the "
        "right line number to pick one occurrence."
    )


class NoSuchPathError(DiffError):
    default_fix = "Use a path relative to the repository root, as in '--- a/src/app.py'."


class SceneError(ExampleError):
    pass


class RefusedRepositoryError(SceneError):
    default_fix = (
        "Use an https://, ssh:// or git@host:owner/repo URL, or map the URL to a local "
        "repository with --editpred-repo URL=PATH or the editpred_repos ini key."
    )


class UnsafePathError(SceneError):
    default_fix = "Use a relative path inside the repository, without '..'."


class InvalidRevisionError(SceneError):
    default_fix = "Give the revision as a full or abbreviated hexadecimal commit id."


class UnknownRevisionError(SceneError):
    default_fix = "Check the revision, or map the URL to a repository that has it."


class MissingFileError(SceneError):
    default_fix = "Check the path against the repository at that revision."


class UncommittedDiffError(SceneError):
    default_fix = "The uncommitted diff goes through 'git apply': its line numbers, counts and context must be exact."


class EditHistoryError(SceneError):
    default_fix = "Each edit-history hunk must match the file as the earlier edits left it."


class CursorNotFoundError(SceneError):
    default_fix = "The cursor excerpt (without its marker line) must occur in the file as it is after the edit history."


class CursorAmbiguousError(SceneError):
    default_fix = "Add lines to the cursor excerpt so it occurs only once in the file."


class InfrastructureError(EditPredError):
    """git, the disk or the network failed; the item is an ERROR, never a FAILED."""


class GitError(InfrastructureError):
    pass


class OfflineError(InfrastructureError):
    default_fix = (
        "Map the URL to a local repository or bundle with --editpred-repo URL=PATH, or "
        "run once without --editpred-offline to fill the cache."
    )


class ProviderUnavailableError(InfrastructureError):
    default_fix = "Check that the model server is up, the base URL and the timeout."


class MissingAnswerError(InfrastructureError):
    """There is no answer to score: the replay file has no record for the item, or
    the response cache is replay-only and has no entry for the request.

    No answer is not a wrong answer, so the item is an ERROR, not a FAILED; it still
    counts in the pass rate's denominator as not passed.
    """

    default_fix = "Record the answer (run the model once), or leave the item out with -k."


class PredictionError(EditPredError):
    """The model answered, but the answer cannot be used: the item FAILED."""


class JudgeError(EditPredError):
    """The LLM judge could not be asked about a prediction. The judge only gives a
    second opinion: its failure is the item's ``qa.error``, never the item's outcome."""


class JudgePromptError(JudgeError):
    """The judge's prompt cannot be built for this prediction; the reasons are Zed's
    (``Failed to build QA prompt``), so a message reads the same in both tools."""

    default_fix = "Judge a prediction that has a patch, of an example that carries its prompt inputs."


class RepairError(EditPredError):
    """A prediction that cannot be sent for repair: its record lacks the prompt or
    the answer the repair conversation repeats, or nothing says what to mend."""


class ConfigError(EditPredError):
    """A bad command-line option or ini value."""


class ContextTypeError(ConfigError):
    """A context ``--type`` value (Zed's ``ContextRetrievalType``) that names no
    source set: a typo would otherwise select, or keep, nothing at all."""


class SplitPointError(ConfigError):
    """``--split`` names no split point (the messages are Zed's ``parse_split_point``'s)."""

    default_fix = (
        "Give a fraction (0.5), an index (3), a kind (fim, same-file-near, same-file-far, cross-file) or kind:value."
    )


class RepositoryError(ConfigError):
    """split-commit's REPO or REVISIONS cannot be read: a usage error, exit status 2."""


class JudgeTemplateError(ConfigError):
    """The judge template a user named cannot be used: a usage error, said once,
    before any judge is asked."""

    default_fix = "Give a UTF-8 template file with {edit_history}, {cursor_excerpt} and {actual_patch_word_diff}."


class RepairTemplateError(ConfigError):
    """The repair template a user named cannot be used (unreadable, not UTF-8, a
    placeholder missing, misspelled or doubled): a usage error, said once, before
    any repair is asked for."""
