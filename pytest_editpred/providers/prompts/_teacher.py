"""Zed's teacher prompts (§12, §13) for chat providers: ``anthropic`` and ``openai-chat``.

The prompt is a pure function of the :class:`~pytest_editpred.zeta.ZetaInput` built
from the request, and the answer is parsed against that same input and the prompt
sent, so the :class:`TeacherWindow` carries both from ``build`` to ``parse``. The
parsed edit is anchored in the cursor excerpt (teacher) or at file rows
(teacher-jumps); it is mapped back into the cursor file to give the provider's
:class:`~._window.Answer`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from ..._exceptions import ConfigError, PredictionError
from ..._settings import Settings
from ...scene import PredictionRequest
from ._sweep import SWEEP_FORMAT, sweep_unsupported
from ._window import Answer, Window, window_for

if TYPE_CHECKING:
    from ...zeta import TextEdit, ZetaInput

__all__ = ["TEACHER_PROMPTS", "TeacherWindow", "teacher_prompt_name", "teacher_window", "parse_teacher_reply"]

#: The ``--editpred-prompt-format`` values that pick a teacher prompt.
TEACHER_PROMPTS = ("teacher", "teacher-jumps")

_UNSET = next(f.default for f in fields(Settings) if f.name == "prompt_format")


def teacher_prompt_name(settings: Settings, *, provider: str, default: str | None) -> str | None:
    """The teacher prompt ``settings`` pick, or ``default`` when the option is left
    at its default (``None``: the provider's own prompt). Any other value is an
    error, never silently ignored (``zeta2`` given to a chat provider would otherwise
    run its own prompt unsaid); ``sweep`` is one that names the provider that sends
    it (a chat model cannot continue that prompt)."""
    value = settings.prompt_format
    if value in TEACHER_PROMPTS:
        return value
    if value.strip().lower() == SWEEP_FORMAT:
        raise sweep_unsupported(provider, TEACHER_PROMPTS)
    if value == _UNSET:
        return default
    own = "" if default is not None else ", or leave it out for the provider's own chat prompt"
    raise ConfigError(
        f"provider {provider!r} does not speak the prompt format {value!r}",
        fix=f"Give --editpred-prompt-format as one of: {', '.join(TEACHER_PROMPTS)}{own} "
        "(Zed's Zeta and Sweep formats are sent by --editpred-provider openai).",
    )


@dataclass(frozen=True)
class TeacherWindow(Window):
    """A :class:`Window` that also holds what the teacher parse needs."""

    prompt_name: str = "teacher"
    prompt: str = ""
    input: ZetaInput | None = None  # what the prompt was built from (zeta is imported lazily)
    excerpt_start: int = 0  # character offset of the cursor excerpt in ``text``


def teacher_window(request: PredictionRequest, prompt_name: str) -> TeacherWindow:
    """Build the ZetaInput and the prompt of ``request`` once, for build and parse."""
    from ..._text import line_start
    from ...zeta import build_input, format_teacher_jumps_prompt, format_teacher_prompt

    base = window_for(request)
    zeta_input = build_input(request)
    if prompt_name == "teacher-jumps":
        prompt = format_teacher_jumps_prompt(zeta_input)
    else:
        # Zed shows the example's raw Edit History; a request made without one
        # (no example text) shows its events as Zed writes them.
        prompt = format_teacher_prompt(zeta_input, edit_history=request.example.edit_history or None)
    start = line_start(base.text, zeta_input.excerpt_start_row or 0)
    if start is None:  # past the last row: the end of the file
        start = len(base.text)
    values = {f.name: getattr(base, f.name) for f in fields(Window)}
    return TeacherWindow(**values, prompt_name=prompt_name, prompt=prompt, input=zeta_input, excerpt_start=start)


def _truncated(output: str) -> PredictionError:
    return PredictionError(
        f"the answer was cut off by max_tokens before it ended (teacher prompt); it ends with {output[-200:]!r}",
        fix="Raise max_tokens (--editpred-max-tokens).",
    )


def parse_teacher_reply(text: str, window: Window, truncated: bool) -> Answer:
    """The answer in the cursor file: the parsed edit(s) mapped back by their offset."""
    if not isinstance(window, TeacherWindow):
        raise TypeError("a teacher reply is parsed with the TeacherWindow its prompt was built in")
    if truncated:
        raise _truncated(text)
    zeta_input = window.input
    assert zeta_input is not None
    if window.prompt_name == "teacher-jumps":
        from ...zeta import parse_teacher_jumps_output

        edits = parse_teacher_jumps_output(zeta_input, text)
        return _apply_at_rows(window, [edit for edit in edits if _same_path(edit.path, window.path)])
    from ...zeta import parse_teacher_output

    edit = parse_teacher_output(zeta_input, window.prompt, text, require_markers=True)
    if edit is None:
        return Answer(None)
    excerpt = zeta_input.cursor_excerpt
    if window.text[window.excerpt_start : window.excerpt_start + len(excerpt)] != excerpt:
        raise PredictionError(
            "the cursor excerpt is not in the cursor file at its start row",
            fix="This is a bug in building the Zeta input: please report it.",
        )
    new_text, cursor = edit.apply(window.text, window.excerpt_start)
    return Answer(new_text, cursor)


def _same_path(patch_path: str, path: str) -> bool:
    return patch_path.strip("/") == path.strip("/")


def _apply_at_rows(window: Window, edits: list[TextEdit]) -> Answer:
    """Teacher-jumps edits of the cursor file, bottom up so rows stay valid; the
    cursor moves with the edits above it."""
    from ..._text import line_start

    if not edits:
        return Answer(None)
    text = window.text
    cursor: int | None = None
    for edit in sorted(edits, key=lambda e: e.start_row, reverse=True):
        at = line_start(text, edit.start_row)
        if at is None:  # past the last row: the end of the file
            at = len(text)
        try:
            new_text, edit_cursor = edit.apply(text, at)
        except ValueError:
            raise PredictionError(
                f"the answer edits rows of {window.path} from row {edit.start_row + 1} that do not "
                "hold the text shown in the prompt",
                fix="This is a bug in building the Zeta input: please report it.",
            ) from None
        if cursor is not None:
            cursor += len(new_text) - len(text)
        if edit_cursor is not None:
            cursor = edit_cursor
        text = new_text
    return Answer(text, cursor)
