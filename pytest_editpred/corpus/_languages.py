"""Keeping the examples of some languages: Zed's ``ep filter-languages``
(zed-authoring-and-context.md §2.3, ``filter_languages.rs``).

An example's language is its ``cursor_path``'s, by the one table of languages
(:mod:`pytest_editpred._languages`): the extension, lowercased, else the whole file
name, lowercased. It is kept when its language is one of ``languages`` (names
compared without case), or its extension (its file name, when it has none) is one of
``extensions``; an example whose language the table does not know is kept only with
``include_unknown`` (or when ``extensions`` names its extension: asking for an
extension is asking for its files, known or not).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .._languages import detection_key, find_language, language_of

__all__ = ["UNKNOWN", "LanguageFilter", "language_name", "parse_list"]

#: The name counted for a path whose language the table does not know.
UNKNOWN = "unknown"


def parse_list(text: str, *, extensions: bool = False) -> list[str]:
    """A comma-separated option value: items stripped, empty ones dropped, lowercased;
    an extension's leading ``.`` dropped (``.py`` is ``py``)."""
    found = []
    for item in text.split(","):
        item = item.strip().lower()
        item = item.removeprefix(".") if extensions else item
        if item:
            found.append(item)
    return found


def language_name(path: str) -> str:
    """The language of ``path`` as counted: its name in the table, or :data:`UNKNOWN`."""
    found = language_of(path)
    return found.name if found is not None else UNKNOWN


@dataclass
class LanguageFilter:
    """The rule, and the counts of what it saw: every example's language
    (``seen``) and those of the examples it left out (``excluded``)."""

    languages: frozenset[str] = frozenset()
    extensions: frozenset[str] = frozenset()
    include_unknown: bool = False
    seen: Counter[str] = field(default_factory=Counter)
    excluded: Counter[str] = field(default_factory=Counter)

    @staticmethod
    def unknown_names(names: Iterable[str]) -> list[str]:
        """The names the table has no language for (Zed warns of them and goes on)."""
        return [name for name in names if find_language(name) is None]

    def keep(self, cursor_path: str) -> bool:
        extension, file_name = detection_key(cursor_path)
        name = language_name(cursor_path)
        self.seen[name] += 1
        kept = (extension or file_name) in self.extensions or (
            self.include_unknown if name == UNKNOWN else name.lower() in self.languages
        )
        if not kept:
            self.excluded[name] += 1
        return kept
