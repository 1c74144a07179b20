"""A prompt template file given by the user (Zed's own ``qa.md`` or ``repair.md``
works as it is): read, and its placeholders checked before any request is built.

Zed fills a template by plain replacement, so a misspelled placeholder is sent to
the model as it is, and the value it should have held is silently missing; a
doubled one (``{{name}}``, the teacher templates' style) leaves braces around the
value. Both are said at once, naming the line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import get_close_matches
from pathlib import Path

from .._exceptions import TemplateError

__all__ = ["load_template"]

_PLACEHOLDER_LIKE = re.compile(r"\{\{?\s*([A-Za-z_][A-Za-z0-9_ ]*?)\s*\}?\}")


def _line_of(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _check(text: str, placeholders: Sequence[str], path: Path, what: str) -> None:
    """Every placeholder at least once, in single braces; :class:`TemplateError`
    for the first that is doubled or missing (naming the near miss the file has
    instead, at its line)."""
    fix = (
        f"Write each of {', '.join('{' + name + '}' for name in placeholders)} in single braces "
        f"where its value goes, as the default {what} template does."
    )
    for name in placeholders:
        doubled = text.find("{{" + name + "}}")
        if doubled >= 0:
            raise TemplateError(
                f"the {what} template writes {{{{{name}}}}}: its placeholders take single braces",
                fix=fix,
                path=path,
                line=_line_of(text, doubled),
            )
        if "{" + name + "}" in text:
            continue
        others: dict[str, re.Match[str]] = {}
        for match in _PLACEHOLDER_LIKE.finditer(text):
            if match[1] not in placeholders:
                others.setdefault(match[1], match)
        near = get_close_matches(name, list(others), n=1, cutoff=0.6)
        if near:
            match = others[near[0]]
            raise TemplateError(
                f"the {what} template has no {{{name}}}: is {match[0]} meant to be it?",
                fix=fix,
                path=path,
                line=_line_of(text, match.start()),
            )
        raise TemplateError(f"the {what} template has no {{{name}}} placeholder", fix=fix, path=path)


def load_template(path: str | Path, placeholders: Sequence[str], what: str) -> str:
    """The template file at ``path`` as UTF-8 text, holding each of ``placeholders``
    (names without braces); ``what`` names it in errors (``"repair"``).
    :class:`TemplateError` for a file that cannot be read or decoded, or whose
    placeholders are missing, misspelled or doubled."""
    where = Path(path)
    try:
        data = where.read_bytes()
    except OSError as error:
        raise TemplateError(
            f"cannot read the {what} template: {error.strerror or error}",
            fix=f"Give the path of a readable {what} template file.",
            path=where,
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TemplateError(
            f"the {what} template is not UTF-8 (byte {error.start})",
            fix="Save the template as UTF-8.",
            path=where,
            line=data[: error.start].count(b"\n") + 1,
        ) from None
    _check(text, placeholders, where, what)
    return text
