"""Zed's Zeta prompt formats (:mod:`pytest_editpred.zeta`) for raw-completion servers.

The prompt is a pure function of the :class:`~pytest_editpred.zeta.ZetaInput` built
from the request, and the answer is parsed against that same input, so the
:class:`ZetaWindow` carries it (and the format's prefill) from ``build`` to
``parse``. As in the editor (§2.3), the request sends ``prompt + prefill`` with the
format's stop tokens, and the reply, prefixed with the prefill, is parsed by the
format's own parser; the new cursor excerpt is put back into the cursor file.

Where Zed would send nothing (the prompt is over the format's token budget, §5
step 6), no request is made and the item fails: Zed shows no prediction there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..._exceptions import ConfigError, PredictionError
from ...scene import PredictionRequest
from ._window import Answer, Window

if TYPE_CHECKING:
    from ...zeta import AnyFormat, ZetaInput

__all__ = ["ZetaWindow", "zeta_format", "zeta_window", "zeta_stop_tokens", "parse_zeta_reply"]


def zeta_format(name: str, model: str | None) -> AnyFormat:
    """``--editpred-prompt-format`` as the editor and Zed's CLI read it (§2.3):
    ``infer`` (by model name), the aliases ``zeta``, ``zeta2``, ``zeta2.1``, then
    Zed's variant names (exact, else a unique part of one)."""
    from ...zeta import format_for

    try:
        return format_for(name, model)
    except ConfigError as error:
        raise ConfigError(
            f"unknown prompt format for provider 'openai': {error.reason}",
            fix="Give --editpred-prompt-format as infer, zeta, zeta2, zeta2.1, or a Zed format name "
            "such as V0318SeedMultiRegions (or a part of exactly one, e.g. 'ordered').",
        ) from None


def zeta_stop_tokens(fmt: AnyFormat) -> tuple[str, ...]:
    """``stop_tokens_for_format`` (§2.1; Zeta 1: §10)."""
    from ...zeta import Zeta1Format

    if isinstance(fmt, Zeta1Format):
        from ...zeta import ZETA1_STOP_TOKENS

        return tuple(ZETA1_STOP_TOKENS)
    return tuple(fmt.stop_tokens)


@dataclass(frozen=True)
class ZetaWindow(Window):
    """A :class:`Window` that also holds what the format's parser needs. Its context
    is the cursor excerpt (§3.1), and so is its region: what the model may rewrite
    inside it is the format's own business (an editable range, marked regions),
    known to the format's parser."""

    format_name: str = ""
    prompt: str = ""
    prefill: str = ""
    input: ZetaInput | None = None  # what the prompt was built from (zeta is imported lazily)
    excerpt_start: int = 0  # character offset of the cursor excerpt in ``text``
    fmt: AnyFormat | None = None
    # How building the prompt departed from Zed's, for the item's notes (a syntax
    # tree too deep to walk, a file too big to parse: see zeta.build_input).
    notes: tuple[str, ...] = ()


def zeta_window(request: PredictionRequest, fmt: AnyFormat) -> ZetaWindow:
    """Build the ZetaInput and the prompt of ``request`` once, for build and parse.

    A prompt over the format's budget is a :class:`PredictionError` (the item
    fails, no request is made): Zed would not ask the model either.
    """
    from ...zeta import ZetaFormat, build_input, format_prompt, prefill

    notes: list[str] = []
    zeta_input = build_input(request, notes=notes)
    prompt = format_prompt(zeta_input, fmt)
    if prompt is None:
        budget = fmt.default_max_tokens if isinstance(fmt, ZetaFormat) else 0
        raise PredictionError(
            f"Zed sends no prompt here: the {fmt} prompt is over its {budget:,}-token budget "
            "(bytes/3), so the editor would show no prediction",
            fix="Nothing to fix in the model: the example's context is too large for this format.",
        )
    head = prefill(zeta_input, fmt) if isinstance(fmt, ZetaFormat) else ""
    cursor = max(0, min(request.cursor.offset, len(request.text)))
    start = cursor - zeta_input.cursor_offset
    end = start + len(zeta_input.cursor_excerpt)
    return ZetaWindow(
        path=request.cursor.path,
        text=request.text,
        context_start=start,
        region_start=start,
        cursor=cursor,
        region_end=end,
        context_end=end,
        format_name=str(fmt),
        prompt=prompt,
        prefill=head,
        input=zeta_input,
        excerpt_start=start,
        fmt=fmt,
        notes=tuple(notes),
    )


def parse_zeta_reply(text: str, window: Window, truncated: bool) -> Answer:
    """The answer in the cursor file: the format's parse of ``prefill + text``
    (§9), its new excerpt put back in place. An empty reply is no prediction, as in
    the editor. A malformed answer is a :class:`PredictionError` (FAILED); if the
    server also cut it off at ``max_tokens``, the message says so."""
    from ...zeta import apply_to_excerpt

    if not isinstance(window, ZetaWindow) or window.input is None or window.fmt is None:
        raise TypeError("a Zeta reply is parsed with the ZetaWindow its prompt was built in")
    if not text:
        return Answer(None)
    try:
        result = apply_to_excerpt(window.input, window.fmt, window.prefill + text)
    except PredictionError as error:
        if not truncated:
            raise
        raise PredictionError(
            f"{error.reason} (the server cut the answer off at max_tokens)",
            fix="Raise max_tokens (--editpred-max-tokens).",
        ) from None
    if result is None:
        return Answer(None)
    new_excerpt, cursor = result
    excerpt = window.input.cursor_excerpt
    start = window.excerpt_start
    new_text = window.text[:start] + new_excerpt + window.text[start + len(excerpt) :]
    return Answer(new_text, None if cursor is None else start + cursor)
