"""Zed v1.15's Zeta prompt formats, byte for byte (``../shared/reference/zeta-prompts.md``).

A core that works without pytest and without a model: build a :class:`ZetaInput`
from a request, format the prompt of a :class:`ZetaFormat`, parse the model's answer
back into an edit and a cursor. tree-sitter is imported only when a syntax range is
computed.
"""

from ._build import build_input
from ._formats import AnyFormat, Zeta1Format, ZetaFormat, format_for
from ._hashed import unified_diff_with_context
from ._input import Diagnostic, Event, ExcerptRanges, RelatedExcerpt, RelatedFile, ZetaInput
from ._parse import apply_to_excerpt
from ._prompt import format_prompt, prefill
from ._syntax import language_for_path, syntax_tree
from ._teacher import TextEdit, format_teacher_prompt, parse_teacher_output
from ._teacher_jumps import format_teacher_jumps_prompt, parse_teacher_jumps_output
from ._zeta1 import STOP_TOKENS as ZETA1_STOP_TOKENS

__all__ = [
    "ZETA1_STOP_TOKENS",
    "AnyFormat",
    "Diagnostic",
    "Event",
    "ExcerptRanges",
    "RelatedExcerpt",
    "RelatedFile",
    "TextEdit",
    "Zeta1Format",
    "ZetaFormat",
    "ZetaInput",
    "apply_to_excerpt",
    "build_input",
    "format_for",
    "format_prompt",
    "format_teacher_jumps_prompt",
    "format_teacher_prompt",
    "language_for_path",
    "parse_teacher_jumps_output",
    "parse_teacher_output",
    "prefill",
    "syntax_tree",
    "unified_diff_with_context",
]
