"""The project's own chat prompt (``openai-chat``) and FIM parts, and parsing their answers.

Zed's Zeta formats live in :mod:`pytest_editpred.zeta` and its teacher prompts in
:mod:`._teacher_prompt`; this is the instruction prompt for chat models that know
no Zed format: a system + user prompt showing the history and the excerpt with the
editable region marked. The answer is the last closed fenced code block (a fence
never closed yields no block, as in Zed), or ``NO_EDITS``. Both functions are pure,
so the exact prompt can be pinned by golden tests and a cached answer parses the
same way every time.

An answer without a closed code block, or cut off by ``max_tokens``, is a
:class:`PredictionError`: the item fails, it is the model's fault.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..._exceptions import PredictionError
from ...scene import PredictionRequest
from ._history import git_history
from ._window import Answer, Window

__all__ = [
    "CURSOR",
    "chat_messages",
    "parse_chat",
    "fim_parts",
    "last_fenced_block",
]

CURSOR = "<|user_cursor|>"
REGION_START = "<|editable_region_start|>"
REGION_END = "<|editable_region_end|>"
NO_EDITS = "NO_EDITS"

CHAT_SYSTEM = (
    "You predict the next edit a programmer makes in their code editor. You are shown "
    "their recent edits, oldest first, and the code around their cursor with an editable "
    f"region between {REGION_START} and {REGION_END}; {CURSOR} marks the cursor.\n"
    "Answer with the editable region rewritten with the next edit applied, in a single "
    f"fenced code block, without the region markers, with {CURSOR} where the cursor "
    "should be after the edit. Change only what the recent edits imply and keep "
    "everything else exactly as it is, whitespace included. If no edit is needed, "
    f"answer {NO_EDITS}."
)


def _cut(text: str, limit: int = 200) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _take_cursor(region: str, token: str) -> tuple[str, int | None]:
    """Remove every ``token``; the first one's position is the cursor."""
    position = region.find(token)
    if position < 0:
        return region, None
    return region.replace(token, ""), position


def _unusable(reason: str, output: str, fmt: str, fix: str | None = None) -> PredictionError:
    """The error for an answer that cannot be used: the item FAILS (never ERRORs)."""
    return PredictionError(
        f"{reason} (prompt format {fmt!r}); the answer was {_cut(output)}",
        fix=fix if fix is not None else f"Check that the model was trained for the {fmt!r} prompt format.",
    )


def _truncated(fmt: str, output: str) -> PredictionError:
    return PredictionError(
        f"the answer was cut off by max_tokens before its end marker (prompt format {fmt!r}); "
        f"it ends with {_cut(output[-200:])}",
        fix="Raise max_tokens (--editpred-max-tokens), or shrink the editable region.",
    )


# -- chat --------------------------------------------------------------------------


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def chat_messages(request: PredictionRequest, window: Window) -> list[dict[str, str]]:
    history = git_history(request.events)
    excerpt = (
        window.before_region
        + f"{REGION_START}\n"
        + window.region_before_cursor
        + CURSOR
        + window.region_after_cursor
        + f"\n{REGION_END}"
        + window.after_region
    )
    if history:
        fence = _fence(history)
        edits = f"My recent edits, oldest first:\n\n{fence}diff\n{history}{fence}\n\n"
    else:
        edits = "I have not edited anything yet.\n\n"
    fence = _fence(excerpt)
    user = (
        f"{edits}The file `{window.path}` around my cursor:\n\n"
        f"{fence}{window.path}\n{excerpt}\n{fence}\n\n"
        f"Rewrite the editable region with my next edit, or answer {NO_EDITS}."
    )
    return [{"role": "system", "content": CHAT_SYSTEM}, {"role": "user", "content": user}]


_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


class _Block(NamedTuple):
    """A fenced code block of an answer: its content, and the 1-based line of its
    opening fence."""

    content: str
    line: int


def _fenced_blocks(text: str) -> tuple[list[_Block], _Block | None]:
    """The closed fenced code blocks, and the block left open at the end, if any.

    CommonMark fences: 3 or more backticks or tildes, up to 3 spaces of
    indentation; the closing fence uses the same character, is at least as long and
    has nothing but whitespace after it. A fence that is never closed yields no
    block, as in Zed's ``extract_last_codeblock``: it is returned apart, so a caller
    can say what is missing.
    """
    blocks: list[_Block] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        opening = _FENCE_OPEN.match(lines[index])
        if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            index += 1
            continue
        fence = opening.group(1)
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines) and not closing.match(lines[index]):
            body.append(lines[index])
            index += 1
        block = _Block("\n".join(body), start + 1)
        if index == len(lines):
            return blocks, block
        blocks.append(block)
        index += 1
    return blocks, None


def last_fenced_block(text: str) -> str | None:
    """The content of the last closed fenced code block, or ``None`` if there is
    none; an unclosed fence yields no block."""
    blocks, _ = _fenced_blocks(text)
    return blocks[-1].content if blocks else None


def parse_chat(output: str, window: Window, truncated: bool = False) -> Answer:
    """The last closed fenced block is the new region (echoed region markers are
    dropped), its first :data:`CURSOR` the cursor; ``NO_EDITS`` means no edit.

    An answer with no closed block and no ``NO_EDITS`` is a :class:`PredictionError`
    that says what is missing: no block at all, or a block whose fence is never
    closed. An answer cut off by ``max_tokens`` inside a block is one too, even
    after an earlier closed block, which was not meant as the answer.
    """
    blocks, unclosed = _fenced_blocks(output)
    if truncated and unclosed is not None:
        raise _truncated("chat", output)
    if not blocks:
        if NO_EDITS in output:
            return Answer(None)
        if truncated:
            raise _truncated("chat", output)
        if unclosed is not None:
            raise _unusable(
                f"the answer's code block opened on line {unclosed.line} has no closing fence, "
                f"and the answer has no other code block and no {NO_EDITS}",
                output,
                "chat",
                fix="The model stopped before closing its code block: check that no stop "
                "sequence (--editpred-stop) ends the answer early.",
            )
        raise _unusable(f"the answer has no fenced code block and no {NO_EDITS}", output, "chat")
    block = blocks[-1].content
    if block.strip() == NO_EDITS:
        return Answer(None)
    lines = block.split("\n")
    if lines and lines[0].strip() == REGION_START:
        lines = lines[1:]
    if lines and lines[-1].strip() == REGION_END:
        lines = lines[:-1]
    region = "\n".join(lines).replace(REGION_START, "").replace(REGION_END, "")
    region, cursor = _take_cursor(region, CURSOR)
    return window.replace_region(region, cursor)


# -- fill in the middle ------------------------------------------------------------


def fim_parts(window: Window) -> tuple[str, str]:
    """Prefix and suffix for FIM endpoints: the context split at the cursor."""
    return window.text[window.context_start : window.cursor], window.text[window.cursor : window.context_end]
