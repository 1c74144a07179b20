"""The judge's prompt: a template and its three placeholders (zed-qa-repair.md §2.3-§2.6).

Zed's ``qa.md`` is Zed's prose, so the default template here says the same things in
this project's words, line for line in Zed's structure: the same lines, headings,
fences and placeholders in the same places, and the same JSON answer asked for. A
user who points to Zed's own ``qa.md`` gets Zed's prompt byte for byte, because the
placeholders are filled as Zed fills them: plain global replacement, in Zed's order,
each on the result of the previous one (so a history that itself contains
``{actual_patch_word_diff}`` receives the word diff, as in Zed).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import JudgePromptError, JudgeTemplateError
from ._word_diff import word_diff

if TYPE_CHECKING:
    from ..zeta import Event, ZetaInput

__all__ = [
    "CURRENT_FILE_HEADING",
    "DEFAULT_JUDGE_TEMPLATE",
    "PLACEHOLDERS",
    "judge_cursor_excerpt",
    "judge_edit_history",
    "judge_prompt",
    "load_judge_template",
]

#: Filled in this order, as Zed fills them.
PLACEHOLDERS = ("{edit_history}", "{cursor_excerpt}", "{actual_patch_word_diff}")
#: The teacher prompts' section whose block the judge shows when the prompt is stored.
CURRENT_FILE_HEADING = "# 3. Current File"
_FENCE = "`````"
_REGION_START = "<|editable_region_start|>\n"
_REGION_END = "\n<|editable_region_end|>"
_CURSOR = "<|user_cursor|>"

DEFAULT_JUDGE_TEMPLATE = """\
You are reviewing a code-editing assistant that reads a developer's latest edits and proposes the next one.

The diffs below are word diffs: [-text-] was removed and {+text+} was added.

A good suggestion does the following:
- It completes a change or a refactoring that the developer has only partly carried out.
- It follows the conventions, naming and style that the code already has.
- It never takes back or deletes what the developer just wrote, unless the developer was undoing it.

## Recent edits, oldest first
```````
{edit_history}
```````

## The file being edited
The suggestion applies to this file; the part it may change lies between the region markers.
{cursor_excerpt}

## The suggested edit
```````
{actual_patch_word_diff}
```````

## Your assessment

1. **reverts_edits**: Does the suggestion undo or roll back a change the developer made on purpose in the recent edits?

2. **confidence**: How likely is the developer to keep this suggestion?
   - 1 = it would surely be turned down (wrong, meaningless or harmful)
   - 2 = it would likely be turned down (it misses what the developer is doing)
   - 3 = hard to say (plausible, but not clearly right)
   - 4 = it would likely be kept (a sensible next step)
   - 5 = it would surely be kept (the obvious continuation)

Reply with JSON of exactly this shape:

```
{
    "reasoning": "why you decided as you did",
    "reverts_edits": true/false,
    "confidence": 1-5
}
```
"""

_BACKTICKS = re.compile("`+")
_BRACED = re.compile(r"\{+[A-Za-z_][A-Za-z0-9_ ]*\}+")
_TEMPLATE_FIX = (
    "Write each of {edit_history}, {cursor_excerpt} and {actual_patch_word_diff} in the template, "
    "with single braces (Zed's qa.md has all three)."
)


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def check_judge_template(text: str, path: str | None = None) -> None:
    """A :class:`JudgeTemplateError` naming the first placeholder that is missing, or
    written wrongly (``{edit_histroy}``, or ``{{edit_history}}`` with the teacher
    template's double braces, which would leave braces around the history)."""
    for token in _BRACED.finditer(text):
        name = token.group().strip("{}")
        if f"{{{name}}}" in PLACEHOLDERS and token.group() != f"{{{name}}}":
            raise JudgeTemplateError(
                f"the judge template writes {token.group()} with doubled braces; it takes {{{name}}}",
                fix=_TEMPLATE_FIX,
                path=path,
                line=_line_of(text, token.start()),
            )
    for placeholder in PLACEHOLDERS:
        if placeholder in text:
            continue
        words = {token.group(): token.start() for token in _BRACED.finditer(text)}
        near = difflib.get_close_matches(placeholder, [w for w in words if w not in PLACEHOLDERS], 1, 0.6)
        if near:
            reason = f"the judge template misspells {placeholder} as {near[0]}"
            line: int | None = _line_of(text, words[near[0]])
        else:
            reason, line = f"the judge template has no {placeholder} placeholder", None
        raise JudgeTemplateError(reason, fix=_TEMPLATE_FIX, path=path, line=line)


def load_judge_template(path: str | Path) -> str:
    """The template in the UTF-8 file ``path``, checked (:func:`check_judge_template`);
    one :class:`JudgeTemplateError` for a file that is missing, unreadable or not UTF-8."""
    from ._template_file import read_template_file

    where = str(path)
    text = read_template_file(path, JudgeTemplateError, "judge template", "Zed's qa.md")
    check_judge_template(text, where)
    return text


def judge_edit_history(events: Sequence[Event]) -> str:
    """§2.4: every event, oldest first, as ``--- a<old_path>``, ``+++ b<path>`` (the
    paths as stored, nothing between ``a`` and the path), its hunks as a word diff,
    and a blank line; no budget, no cap, the accepted-prediction flag ignored."""
    return "".join(f"--- a{e.old_path}\n+++ b{e.path}\n{word_diff(e.diff)}\n\n" for e in events)


def _excerpt_from_prompt(prompt: str, cursor_path: str) -> str | None:
    """§2.5(a): the block after the prompt's first ``# 3. Current File``, from the line
    after its opening fence of N backticks to the next N backticks anywhere, under
    Zed's five-backtick fence and the cursor path; None where Zed finds nothing."""
    fence = _BACKTICKS.search(prompt, prompt.find(CURRENT_FILE_HEADING))
    if fence is None:
        return None
    start = prompt.find("\n", fence.end())
    if start < 0:
        return None
    end = prompt.find(fence.group(), start + 1)
    if end < 0:
        return None
    return f"{_FENCE}{cursor_path}\n{prompt[start + 1 : end]}{_FENCE}"


def judge_cursor_excerpt(inputs: ZetaInput, prompt: str | None = None) -> str:
    """§2.5: the current file as the judge sees it. From the stored teacher prompt
    when it has a ``# 3. Current File`` section (the block the teacher saw, byte for
    byte); otherwise the whole excerpt marked editable, with the cursor marker."""
    if prompt is not None and CURRENT_FILE_HEADING in prompt:
        excerpt = _excerpt_from_prompt(prompt, inputs.cursor_path)
        if excerpt is None:
            raise JudgePromptError(
                "failed to extract cursor excerpt: the stored prompt's "
                f"'{CURRENT_FILE_HEADING}' section has no closed fenced block",
                fix="Give the prompt the teacher wrote unchanged, or none (the judge then shows the excerpt).",
            )
        return excerpt
    text, cursor = inputs.cursor_excerpt, inputs.cursor_offset
    return (
        f"{_FENCE}{inputs.cursor_path}\n{_REGION_START}{text[:cursor]}{_CURSOR}{text[cursor:]}{_REGION_END}\n{_FENCE}"
    )


#: The most changed lines (``+``/``-`` lines of the predicted patch and of the edit
#: history together) a judge's prompt is built for. Zed's word diff is Myers' on tokens,
#: O((N+M)·D), in pure Python here: a few changed lines cost milliseconds, a run of 300
#: lines rewritten whole 11 s (``bench/bench_word_diff.py``). Past it the prompt is not
#: built (:class:`JudgePromptError`), so no model's answer can hold a run for minutes;
#: Zed has no such bound (its events are capped at 6 KB, its patches are not).
MAX_JUDGED_LINES = 400


def _changed_lines(diff: str) -> int:
    return sum(1 for line in diff.split("\n") if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def judge_prompt(
    inputs: ZetaInput | None,
    actual_patch: str | None,
    *,
    prompt: str | None = None,
    template: str | None = None,
) -> str:
    """The judge's prompt for a prediction (§2.3): ``template`` (default
    :data:`DEFAULT_JUDGE_TEMPLATE`; a file's through :func:`load_judge_template`)
    with the edit history of ``inputs.events`` (§2.4), the current file (§2.5; from
    ``prompt``, the stored teacher prompt's text, when it has one) and
    ``actual_patch`` as a word diff (§2.6; ``""`` for a prediction of no edit).

    ``inputs`` is Zed's ``prompt_inputs``; its ``cursor_path`` stands for the
    example's. A missing one, or a missing patch, is Zed's error
    (:class:`JudgePromptError`).
    """
    if actual_patch is None:
        raise JudgePromptError(
            "no actual_patch available (run predict first)",
            fix="Judge a prediction that has a patch (one that failed to parse has none).",
        )
    if inputs is None:
        raise JudgePromptError(
            "prompt_inputs missing (run context retrieval first)",
            fix="Run `editpred context` (or `ep context`) on the example so it carries prompt_inputs.",
        )
    changed = _changed_lines(actual_patch) + sum(_changed_lines(event.diff) for event in inputs.events)
    if changed > MAX_JUDGED_LINES:
        raise JudgePromptError(
            f"too large to judge: the prediction and the edit history change {changed} lines, more than the "
            f"{MAX_JUDGED_LINES} the judge's word diff is given",
            fix="The word diff grows with the square of a rewritten run (11 s at 300 lines): "
            "judge smaller predictions.",
        )
    values = (judge_edit_history(inputs.events), judge_cursor_excerpt(inputs, prompt), word_diff(actual_patch))
    text = DEFAULT_JUDGE_TEMPLATE if template is None else template
    for placeholder, value in zip(PLACEHOLDERS, values):
        text = text.replace(placeholder, value)
    return text
