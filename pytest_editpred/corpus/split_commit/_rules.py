"""Why a commit, a file or a split gives no example: every reason named and defined.

The command's summary accounts for every commit it reads: written, skipped for one
of these reasons, or failed (an example that would not load, which is a bug to
report). Files of a commit that cannot be in an example are left out of its diff
and counted by reason; the quality rules (``..._quality``) are reasons too, and only
they can be turned off (``--keep``).
"""

from __future__ import annotations

from .._quality import RULES

__all__ = ["COMMIT_REASONS", "FILE_REASONS", "REASONS", "Skip", "order"]


class Skip(Exception):
    """This commit or split gives no example; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


#: Why a commit gives nothing, before any split is tried, and why a split does.
COMMIT_REASONS: tuple[tuple[str, str], ...] = (
    ("merge", "a merge commit: its change is not one person's typing (Zed's input is a one-parent diff)"),
    ("root-commit", "the first commit: there is no parent to be the example's revision"),
    ("shallow-boundary", "a shallow clone's oldest commit: its parent is not in the repository"),
    ("missing-object", "git cannot read the commit or a file of it (a partial or damaged clone)"),
    ("too-big", "more than 5,000 edits or a 2 MB diff: read no further (Zed has no limit)"),
    (
        "no-edits",
        "no changed line left once the files an example cannot hold are left out (a pure rename, a mode change)",
    ),
    (
        "do-nothing-target",
        "the expected patch changes nothing: a split after the last edit, or a half-typed "
        "line that is already the whole line",
    ),
    ("no-cursor-excerpt", "no hunk holds the cursor's line, so Zed's cursor excerpt cannot be made"),
    ("cursor-at-end", "the cursor is on a last line without a newline, which a markdown fence cannot hold"),
    (
        "marker-in-text",
        "the text holds '<|user_cursor|>' or '[CURSOR_POSITION]' itself, which an example reads as the cursor",
    ),
    ("ambiguous-excerpt", "the cursor excerpt is found more than once in its file, however far it grows"),
    ("no-split-of-kind", "--split KIND: no split of the commit is of that kind"),
    ("other-kind", "--split KIND:N: the split at N is of another kind (Zed: an error)"),
    (
        "duplicate",
        "the same moment and outcome as an example already written: another sample (-n), or the same change "
        "made in another commit (a cherry-pick)",
    ),
    ("exists", "the example's file is in -o already (--force overwrites it)"),
)
#: Why a file of a commit is left out of its diff.
FILE_REASONS: tuple[tuple[str, str], ...] = (
    ("binary", "a binary file: no text to edit"),
    ("big-file", "a file of more than 2 MB before or after the commit: left unread, as no one types in it"),
    ("symlink", "a symbolic link: its text is a path"),
    ("submodule", "a submodule (gitlink): a commit id, not a file"),
    ("non-utf8", "text that is not UTF-8: an example is UTF-8"),
    ("no-final-newline", "a file without a final newline: Zed's '\\ No newline' line does not survive a split"),
    ("lone-cr", "a carriage return not before a newline: an editor's buffer makes it a line break"),
    (
        "odd-path",
        "a path an example cannot name: a control character, a backslash, '..', '.git', or spaces at its ends",
    ),
    (
        "header-like-line",
        "a changed line that reads as a diff header ('--- x' deleted, '+++ x' added): Zed's "
        "diff reader, and the scene's, would take it for a file name",
    ),
)
REASONS = tuple(name for name, _ in COMMIT_REASONS + FILE_REASONS) + tuple(rule.name for rule in RULES)


def order(reason: str) -> tuple[int, str]:
    """The summary's order: commit reasons, file reasons, then the quality rules."""
    return (REASONS.index(reason) if reason in REASONS else len(REASONS), reason)
