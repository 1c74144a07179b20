"""Zed's Sweep prompt (``sweep_prompt.rs``; zed-authoring-and-context.md §5) for
``/v1/completions`` servers that serve a Sweep next-edit model.

The prompt shows the model files as ``<|file_sep|>``-separated blocks: the related
files, the newest edits as ``original:``/``updated:`` pairs, the window of ±10 rows
around the cursor as it was before the newest edit of the cursor file
(``original/``) and as it is now (``current/``), then opens ``updated/`` for the
model to write the whole window anew. There is no cursor marker and no token budget.
The answer, cut at the stop tokens, replaces the whole window; it predicts no cursor.
The :class:`SweepWindow` carries the prompt and the window from ``build`` to
``parse``, so a cached answer parses against the window it answered.

Where this port had to choose (the spec is silent or says [unconfirmed]):

* **Inputs.** The events and related files are the ones every Zeta format here is
  built from (:func:`pytest_editpred.zeta.build_input`): the events' hunks as Zed's
  ``BufferChange`` diffs, and the example's retrieved related files
  (``prompt_inputs.related_files``) or, without them, the recently viewed and opened
  files that stand in for Zed's LSP context. One example then shows every prompt
  format the same context.
* **Paths.** Zed's event paths and LSP related paths are ``full_path``s, which start
  with the worktree root's name; here that is the repository's name
  (:attr:`~pytest_editpred.Example.repo_name`, ``flask`` for pallets/flask). Diff
  blocks and the stand-in related files get it; retrieved related files keep the
  path the example recorded (Zed recorded it with the root already); ``original/``,
  ``current/`` and ``updated/`` use the worktree-relative cursor path, as in Zed.
* **original_window.** The cursor file before its newest event is rebuilt by undoing
  that event's hunks in the buffer (as Zed keeps the old snapshot). The window's ends
  are mapped back through the undone edits; an end *inside* an edit moves outwards,
  so the old window holds all the old text of an edit it touches. An event whose
  hunks do not undo in the buffer (only a hand-built request can have one) counts as
  no event: ``original_window`` is then ``current_window``, as Zed has it with no
  event.
* **Redundant excerpts.** "Inside the window rows" is read as the excerpt's rows
  ``[start_row, end_row)`` lying within the window's rows ``[first, last + 1)``.
* **An empty side** of a change block (a file created or emptied) is written as an
  empty line: ``original:⏎⏎updated:⏎…``, the ``⏎`` added because ``""`` does not
  end with one, the same "if needed" rule as the block's own.
* **Reserved tokens.** A field holding ``<|file_sep|>`` or ``</s>`` makes Zed fail
  the request; here that is a :class:`PredictionError` (the item fails and no request
  is sent), whose message starts with Zed's ``sweep prompt {field} contains reserved
  tokens``, with Zed's field names and in Zed's order, so a prompt with reserved
  tokens in two fields names the one Zed checks first: ``file path``, ``original
  window``, ``current window``, then each change's ``recent change path``, ``recent
  change original``, ``recent change updated``, then each related file's ``related
  file path``, ``related file content``.
* **An answer ending with ``⏎`` for a window without one** (a window that stops
  short of the file's end has no final ``⏎``, yet every block the model is shown ends
  with one) is not the window: it predicts inserting a ``⏎``, as Zed reads it (§5.5).
  Nothing is trimmed to hide this.
* **A truncated answer** (``finish_reason: length``) is parsed as Zed parses it: it
  replaces the whole window, so it predicts deleting the window's tail. Zed does not
  guard against it either; raise ``--editpred-max-tokens`` (Zed's default, 64, is
  too few to rewrite 21 rows).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..._exceptions import ConfigError, PredictionError
from ..._text import rust_lines
from ...scene import PredictionRequest
from ._window import Answer, Window

if TYPE_CHECKING:
    from ...zeta import Event, RelatedFile

__all__ = [
    "SWEEP_FORMAT",
    "SWEEP_STOP_TOKENS",
    "SweepWindow",
    "parse_sweep_reply",
    "sweep_selected",
    "sweep_unsupported",
    "sweep_window",
]

#: The ``--editpred-prompt-format`` value that picks the Sweep prompt.
SWEEP_FORMAT = "sweep"
FILE_SEP = "<|file_sep|>"
END_OF_TEXT = "</s>"
#: What Zed sends as ``stop`` (§5.4); no field of the prompt may contain them (§5.2).
SWEEP_STOP_TOKENS: tuple[str, ...] = (FILE_SEP, END_OF_TEXT)

#: Rows of the window above and below the cursor row (``fixed_line_window_around_cursor``).
WINDOW_ROWS = 10
#: Zed's ``MAX_RECENT_CHANGE_BLOCKS`` and ``MAX_RECENT_CHANGE_LINES``.
MAX_RECENT_CHANGE_BLOCKS = 3
MAX_RECENT_CHANGE_LINES = 40
_HEAD_LINES = MAX_RECENT_CHANGE_LINES // 2  # 20 lines, then "...", then the last 19
_TAIL_LINES = MAX_RECENT_CHANGE_LINES - _HEAD_LINES - 1

# Infer (§5.1): the model name before its first ':' (an Ollama tag), lower-cased.
_INFER_MARK = "sweep-next-edit"


def sweep_selected(prompt_format: str, model: str | None) -> bool:
    """Whether ``--editpred-prompt-format`` picks the Sweep prompt (§5.1): ``sweep``,
    or ``infer`` with a model whose name before the first ``:``, lower-cased,
    contains ``sweep-next-edit`` (``sweep-next-edit-1.5b:Q8``). The format name is
    read as :func:`pytest_editpred.zeta.format_for` reads the others."""
    key = prompt_format.strip().lower()
    if key == SWEEP_FORMAT:
        return True
    return key == "infer" and _INFER_MARK in (model or "").split(":", 1)[0].lower()


def sweep_unsupported(provider: str, own: Sequence[str] = ()) -> ConfigError:
    """The one error every provider that cannot send the Sweep prompt raises for
    ``--editpred-prompt-format sweep`` (Zed: ``Unsupported edit prediction provider
    for Sweep prompt mode``), naming the provider that can; ``own`` are the formats
    this provider does take, for the fix."""
    other = (
        f"give --editpred-prompt-format as one of: {', '.join(own)}"
        if own
        else "leave --editpred-prompt-format out for this provider"
    )
    return ConfigError(
        f"provider {provider!r} does not send the Sweep prompt (--editpred-prompt-format sweep): "
        "only the 'openai' provider does, to a /v1/completions server, as Zed's ollama and "
        "open_ai_compatible_api providers do",
        fix="Use --editpred-provider openai with --editpred-base-url of the server that serves the "
        f"Sweep model (llama.cpp, vLLM, Ollama), or {other}.",
    )


@dataclass(frozen=True)
class SweepWindow(Window):
    """A :class:`Window` whose region is Zed's Sweep window (context = region), with
    the prompt built for it: the answer is read against this exact window."""

    prompt: str = ""
    current_window: str = ""  # the cursor file's text[window_start : window_start + len(current_window)]
    window_start: int = 0


# -- inputs ----------------------------------------------------------------------------


def _line_window(text: str, cursor: int) -> tuple[int, int]:
    """``fixed_line_window_around_cursor(snapshot, cursor, 10, 10)`` (§5.2): from the
    start of row ``max(row - 10, 0)`` to the end of row ``min(row + 10, max_row)``,
    that row's newline left out. After a final newline the last row is the empty one,
    so a window reaching it ends with the newline."""
    start = text.rfind("\n", 0, cursor) + 1
    for _ in range(WINDOW_ROWS):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    end = cursor
    for rows in range(WINDOW_ROWS + 1):
        newline = text.find("\n", end)
        if newline < 0:
            return start, len(text)
        if rows == WINDOW_ROWS:
            return start, newline
        end = newline + 1
    return start, end  # not reached


_HUNK_HEADER = re.compile(r"@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@")


def _undo_diff(diff: str) -> str:
    """The hunks that undo ``diff`` (hunks only): ``-``/``+`` swapped and the ``@@``
    ranges too, so the header's row is the row in the text the undo applies to."""
    out: list[str] = ["--- a/buffer", "+++ b/buffer"]  # one file section: the parser wants a header
    for line in diff.split("\n"):
        header = _HUNK_HEADER.match(line)
        if header:
            line = f"@@ -{header[2]} +{header[1]} @@" + line[header.end() :]
        elif line.startswith("-"):
            line = "+" + line[1:]
        elif line.startswith("+"):
            line = "-" + line[1:]
        out.append(line)
    return "\n".join(out)


def _undo_edits(text: str, diff: str) -> list[tuple[int, int, str]] | None:
    """The edits of ``text`` that give the text before the event whose hunks are
    ``diff``: ``(start, end, old text)``, in order; None when they do not apply.
    Every hunk is placed in ``text`` as it is, as the edit history places a file
    section's hunks (:func:`pytest_editpred._diff.apply_sections`)."""
    from ..._diff import locate, parse_diff
    from ..._exceptions import DiffError

    edits: list[tuple[int, int, str]] = []
    try:
        for section in parse_diff(_undo_diff(diff)):
            for hunk in section.hunks:
                offset, placed = locate(text, hunk, empty_context="start")
                edits.extend((offset + e.start, offset + e.end, e.text) for e in placed.edits)
    except DiffError:
        return None
    edits.sort(key=lambda edit: (edit[0], edit[1]))
    if any(second[0] < first[1] for first, second in zip(edits, edits[1:])):
        return None
    return edits


def _splice(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    out: list[str] = []
    at = 0
    for start, end, replacement in edits:
        out += [text[at:start], replacement]
        at = end
    out.append(text[at:])
    return "".join(out)


def _map_start(position: int, edits: Sequence[tuple[int, int, str]]) -> int:
    """Where ``position`` (a window start) is in the old text: inside an edit, at its
    start; at an edit's start, before the old text put back there."""
    shift = 0
    for start, end, replacement in edits:
        if position <= start:
            break
        if position < end:
            return start + shift
        shift += len(replacement) - (end - start)
    return position + shift


def _map_end(position: int, edits: Sequence[tuple[int, int, str]]) -> int:
    """Where ``position`` (a window end) is in the old text: inside an edit, or at an
    insertion, at the end of the old text there, the old lines' last newline kept
    (``block`` adds that newline anyway unless the last old line is empty)."""
    shift = 0
    for start, end, replacement in edits:
        if position < start or (position == start < end):
            break
        if position <= end:
            return start + shift + len(replacement)
        shift += len(replacement) - (end - start)
    return position + shift


def _original_window(text: str, start: int, end: int, path: str, events: Sequence[Event]) -> str:
    """The window as it was before the newest event of the cursor file (§5.2); the
    window itself when there is none."""
    newest = next((event for event in reversed(events) if event.path == path), None)
    edits = None if newest is None else _undo_edits(text, newest.diff)
    if not edits:
        return text[start:end]
    old = _splice(text, edits)
    return old[_map_start(start, edits) : _map_end(end, edits)]


def _cap(lines: list[str]) -> str:
    """At most 40 lines: the first 20, ``...``, the last 19; joined, no final newline."""
    if len(lines) > MAX_RECENT_CHANGE_LINES:
        lines = [*lines[:_HEAD_LINES], "...", *lines[-_TAIL_LINES:]]
    return "\n".join(lines)


@dataclass(frozen=True)
class _ChangeBlock:
    path: str
    original: str
    updated: str


def _change_block(event: Event, root: str) -> _ChangeBlock | None:
    """One event as an ``original``/``updated`` pair (§5.2), or None when it shows
    nothing (and so takes no slot)."""
    original: list[str] = []
    updated: list[str] = []
    for line in rust_lines(event.diff):
        # "---"/"+++" also catch a deleted line starting with "--" and an added one with "++"
        if line.startswith(("@@", "---", "+++")):
            continue
        if line.startswith("-"):
            original.append(line[1:])
        elif line.startswith("+"):
            updated.append(line[1:])
        elif line.startswith(" "):
            original.append(line[1:])
            updated.append(line[1:])
    if not original and not updated:
        if event.old_path == event.path:
            return None
        original, updated = [f"path: {_full_path(root, event.old_path)}"], [f"path: {_full_path(root, event.path)}"]
    return _ChangeBlock(_full_path(root, event.path), _cap(original), _cap(updated))


def _change_blocks(events: Sequence[Event], root: str) -> list[_ChangeBlock]:
    """The newest 3 events that show something, oldest first."""
    blocks: list[_ChangeBlock] = []
    for event in reversed(events):
        if len(blocks) == MAX_RECENT_CHANGE_BLOCKS:
            break
        block = _change_block(event, root)
        if block is not None:
            blocks.append(block)
    return blocks[::-1]


def _full_path(root: str, path: str) -> str:
    """Zed's ``full_path``: the worktree root's name, then the worktree path."""
    path = path.lstrip("/")
    return f"{root}/{path}" if root else path


def _related_blocks(files: Iterable[RelatedFile], file_path: str, rows: tuple[int, int]) -> list[tuple[str, str]]:
    """``(path, content)`` of each related file after ``filter_redundant_excerpts``:
    the cursor file's excerpts within the window rows dropped, then every file left
    without excerpts; each file's excerpts in ``(order, start_row)`` order, their
    texts joined with ``⏎``."""
    first, last = rows
    out: list[tuple[str, str]] = []
    for file in files:
        excerpts = [
            excerpt
            for excerpt in file.excerpts
            if file.path != file_path or not (first <= excerpt.start_row and excerpt.end_row <= last + 1)
        ]
        if excerpts:
            excerpts.sort(key=lambda excerpt: (excerpt.order, excerpt.start_row))
            out.append((file.path, "\n".join(excerpt.text for excerpt in excerpts)))
    return out


def _check(field: str, value: str, where: str) -> None:
    found = [token for token in SWEEP_STOP_TOKENS if token in value]
    if found:
        raise PredictionError(
            f"sweep prompt {field} contains reserved tokens ({' and '.join(map(repr, found))} in {where}): "
            "Zed sends no request here, so the editor would show no prediction",
            fix="Nothing to fix in the model: Zed's Sweep prompt cannot show text holding <|file_sep|> "
            "or </s>. Leave this example out of Sweep runs, or take the token out of the example.",
        )


# -- the prompt ------------------------------------------------------------------------


def _block(path: str, body: str) -> str:
    """``<|file_sep|>path⏎body``, with a final ``⏎`` unless the body has one (§5.3)."""
    return f"{FILE_SEP}{path}\n{body}" + ("" if body.endswith("\n") else "\n")


def _prompt(
    file_path: str,
    original_window: str,
    current_window: str,
    changes: Sequence[_ChangeBlock],
    related: Sequence[tuple[str, str]],
) -> str:
    """§5.3's byte layout, after every field is checked for reserved tokens (§5.2)."""
    _check("file path", file_path, "the cursor path")
    _check("original window", original_window, file_path)
    _check("current window", current_window, file_path)
    for change in changes:
        _check("recent change path", change.path, "an edit's path")
        _check("recent change original", change.original, change.path)
        _check("recent change updated", change.updated, change.path)
    for path, content in related:
        _check("related file path", path, "a related file's path")
        _check("related file content", content, path)
    parts = [_block(path, content) for path, content in related]
    for change in changes:
        original = change.original + ("" if change.original.endswith("\n") else "\n")
        parts.append(_block(f"{change.path}.diff", f"original:\n{original}updated:\n{change.updated}"))
    parts.append(_block(f"original/{file_path}", original_window))
    parts.append(_block(f"current/{file_path}", current_window))
    parts.append(f"{FILE_SEP}updated/{file_path}\n")
    return "".join(parts)


def sweep_window(request: PredictionRequest) -> SweepWindow:
    """Zed's Sweep prompt for ``request`` and the window it shows (§5.2, §5.3).

    A field holding a reserved token is a :class:`PredictionError`: no request is
    made, as Zed makes none.
    """
    from ...zeta import build_input

    text = request.text
    cursor = max(0, min(request.cursor.offset, len(text)))
    start, end = _line_window(text, cursor)
    file_path = request.cursor.path or "untitled"
    zeta_input = build_input(request)
    root = request.example.repo_name
    related = zeta_input.related_files or ()
    if request.example.related_files is None:  # the stand-in: name the files as Zed's LSP would
        related = tuple(replace(file, path=_full_path(root, file.path)) for file in related)
    first_row = text.count("\n", 0, start)
    rows = (first_row, first_row + text.count("\n", start, end))
    current = text[start:end]
    prompt = _prompt(
        file_path,
        _original_window(text, start, end, request.cursor.path, zeta_input.events),
        current,
        _change_blocks(zeta_input.events, root),
        _related_blocks(related, file_path, rows),
    )
    return SweepWindow(
        path=request.cursor.path,
        text=text,
        context_start=start,
        region_start=start,
        cursor=cursor,
        region_end=end,
        context_end=end,
        prompt=prompt,
        current_window=current,
        window_start=start,
    )


# -- the answer ------------------------------------------------------------------------


def parse_sweep_reply(text: str, window: Window, truncated: bool) -> Answer:
    """The answer in the cursor file (§5.5): cut at the first ``<|file_sep|>``, then
    at the first ``</s>``, nothing trimmed; empty or the window byte for byte is no
    prediction; anything else is the new text of the whole window, put in its place
    where it differs from the window (the common start and end kept). No cursor is
    predicted. ``truncated`` changes nothing: Zed reads a cut-off answer the same way
    (see the module docstring)."""
    from ..._text import change_between

    if not isinstance(window, SweepWindow):
        raise TypeError("a Sweep reply is parsed with the SweepWindow its prompt was built in")
    del truncated
    answer = text.split(FILE_SEP, 1)[0].split(END_OF_TEXT, 1)[0]
    current = window.current_window
    if not answer or answer == current:
        return Answer(None)
    change = change_between(current, answer)
    if change.empty:
        return Answer(None)
    at = window.window_start
    new_text = (
        window.text[: at + change.start]
        + answer[change.start : change.after_end]
        + window.text[at + change.before_end :]
    )
    return Answer(new_text, None)
