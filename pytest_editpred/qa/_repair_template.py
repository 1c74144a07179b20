"""The repair message's template (zed-qa-repair.md §3.4): ours by default, or a file
the user names (Zed's own ``repair.md`` works as it is).

The default's prose is ours; its structure and placeholders are Zed's (44 lines, no
final newline, the same headings, fences and placeholders in the same places), so
Zed's ``repair.md`` given as the template lays the message out as Zed does.

Zed fills a template by plain replacement, so a misspelled placeholder would be sent
to the model as it is and the value it should have held would be missing; a doubled
one (``{{name}}``, the teacher templates' style) would leave braces around the value.
A template file is checked when it is read, and either is said at once, naming the
line.
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from pathlib import Path

from .._exceptions import RepairTemplateError

__all__ = ["DEFAULT_REPAIR_TEMPLATE", "REPAIR_PLACEHOLDERS", "load_repair_template"]

#: Filled in this order, each everywhere it occurs (so a value holding a later name
#: gets that value too, as in Zed).
REPAIR_PLACEHOLDERS = ("actual_patch_word_diff", "quality_feedback", "token_change_info")

DEFAULT_REPAIR_TEMPLATE = """\
# Please repair your edit prediction

Your previous prediction has problems that make it less useful; write a better one.

## What was found

{quality_feedback}

{token_change_info}

## Your previous prediction (word-diff format)

`````
{actual_patch_word_diff}
`````

## Instructions

Keep to the rules and the output format of the first request; these matter most:

- Never undo or revert what the user just edited: a line the edit history removed must not come back.
- If your prediction would take the code back towards how it was before those edits, output `NO_EDITS` instead.
- When in doubt, predict only the small part you are sure of.

## Output format

Answer in the same format as before, with one addition:

- If nothing should change, output `NO_EDITS`.
- New: if your previous prediction was right after all, output `KEEP_PREVIOUS`:

  `````
  KEEP_PREVIOUS
  `````

  Use it only when the previous prediction needs no change at all.

`NO_EDITS` and `KEEP_PREVIOUS` are not the same answer:
- `NO_EDITS`: make no change; the previous prediction is dropped.
- `KEEP_PREVIOUS`: the previous prediction is right; it is used as it is.

## Your improved prediction

First say briefly what was wrong with the previous prediction (or why it was right), then give your output."""

_FIX = (
    "Write each of {actual_patch_word_diff}, {quality_feedback} and {token_change_info} in single "
    "braces where its value goes, as the default repair template does."
)
_PLACEHOLDER_LIKE = re.compile(r"\{\{?\s*([A-Za-z_][A-Za-z0-9_ ]*?)\s*\}?\}")


def _line_of(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _check(text: str, path: Path) -> None:
    """Every placeholder at least once, in single braces; :class:`RepairTemplateError`
    for the first that is doubled or missing (naming the near miss the file has
    instead, at its line)."""
    for name in REPAIR_PLACEHOLDERS:
        doubled = text.find("{{" + name + "}}")
        if doubled >= 0:
            raise RepairTemplateError(
                f"the repair template writes {{{{{name}}}}}: its placeholders take single braces",
                fix=_FIX,
                path=path,
                line=_line_of(text, doubled),
            )
        if "{" + name + "}" in text:
            continue
        others: dict[str, re.Match[str]] = {}
        for match in _PLACEHOLDER_LIKE.finditer(text):
            if match[1] not in REPAIR_PLACEHOLDERS:
                others.setdefault(match[1], match)
        near = get_close_matches(name, list(others), n=1, cutoff=0.6)
        if near:
            match = others[near[0]]
            raise RepairTemplateError(
                f"the repair template has no {{{name}}}: is {match[0]} meant to be it?",
                fix=_FIX,
                path=path,
                line=_line_of(text, match.start()),
            )
        raise RepairTemplateError(f"the repair template has no {{{name}}} placeholder", fix=_FIX, path=path)


def load_repair_template(path: str | Path) -> str:
    """The repair template file at ``path``, as UTF-8 text;
    :class:`RepairTemplateError` for a file that cannot be read or decoded, or whose
    placeholders are missing, misspelled or doubled."""
    from ._template_file import read_template_file

    where = Path(path)
    text = read_template_file(path, RepairTemplateError, "repair template", "Zed's repair.md")
    _check(text, where)
    return text
