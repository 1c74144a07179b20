"""What a provider sends and how it reads the answer back: the editable window around
the cursor, the plain chat and fill-in-the-middle prompts, Zed's Zeta formats and
teacher prompts (built by :mod:`pytest_editpred.zeta`), Zed's Sweep prompt, and the
edit history as git diffs.

Each prompt is a pure function of the request, and each answer is parsed against the
same window it was built from.
"""

from ._plain import chat_messages, fim_parts, parse_chat
from ._sweep import (
    SWEEP_FORMAT,
    SWEEP_STOP_TOKENS,
    SweepWindow,
    parse_sweep_reply,
    sweep_selected,
    sweep_unsupported,
    sweep_window,
)
from ._teacher import TEACHER_PROMPTS, TeacherWindow, parse_teacher_reply, teacher_prompt_name, teacher_window
from ._window import Answer, Window, window_for
from ._zeta import ZetaWindow, parse_zeta_reply, zeta_format, zeta_stop_tokens, zeta_window

__all__ = [
    "SWEEP_FORMAT",
    "SWEEP_STOP_TOKENS",
    "TEACHER_PROMPTS",
    "Answer",
    "SweepWindow",
    "TeacherWindow",
    "Window",
    "ZetaWindow",
    "chat_messages",
    "fim_parts",
    "parse_chat",
    "parse_sweep_reply",
    "parse_teacher_reply",
    "parse_zeta_reply",
    "sweep_selected",
    "sweep_unsupported",
    "sweep_window",
    "teacher_prompt_name",
    "teacher_window",
    "window_for",
    "zeta_format",
    "zeta_stop_tokens",
    "zeta_window",
]
