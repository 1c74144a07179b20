"""The judge's prompt for an example ``ep`` wrote (ep JSON), as ``ep qa`` builds it.

Zed's pipeline stores what its judge reads in the example itself: the first
prediction's ``actual_patch``, ``prompt_inputs`` (the excerpt, the cursor's byte
offset in it, the edit events) and the teacher's ``prompt``. Reading those fields
here lets an ep JSON file be judged as ``ep qa`` would judge it, with Zed's errors
when one is missing (§2.2 step 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._exceptions import EditPredError, JSONFormatError, JudgePromptError
from ._judge_prompt import judge_prompt

if TYPE_CHECKING:
    from ..zeta import ZetaInput

__all__ = ["ep_judge_prompt"]


def _string(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise JSONFormatError(f"'{where}{key}' must be a string")
    return value


def _inputs(example: Mapping[str, Any]) -> ZetaInput | None:
    """``prompt_inputs`` as a :class:`~pytest_editpred.zeta.ZetaInput` (None when absent)."""
    from ..zeta import Event, ZetaInput

    data = example.get("prompt_inputs")
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise JSONFormatError("'prompt_inputs' must be an object")
    excerpt = _string(data, "cursor_excerpt", "prompt_inputs.")
    offset = data.get("cursor_offset_in_excerpt")
    encoded = excerpt.encode("utf-8", "surrogatepass")
    if (
        isinstance(offset, bool)
        or not isinstance(offset, int)
        or not 0 <= offset <= len(encoded)
        or (offset < len(encoded) and encoded[offset] & 0xC0 == 0x80)
    ):
        raise JSONFormatError(
            "'prompt_inputs.cursor_offset_in_excerpt' must be a byte offset into the excerpt at a character's start"
        )
    events = data.get("events") or []
    if not isinstance(events, list) or not all(isinstance(event, Mapping) for event in events):
        raise JSONFormatError("'prompt_inputs.events' must be a list of objects")
    return ZetaInput(
        cursor_path=_string(example, "cursor_path", ""),
        cursor_excerpt=excerpt,
        cursor_offset=len(encoded[:offset].decode("utf-8", "surrogatepass")),
        excerpt_start_row=None,
        events=tuple(
            Event(
                _string(event, "path", "prompt_inputs.events[]."),
                _string(event, "old_path", "prompt_inputs.events[]."),
                _string(event, "diff", "prompt_inputs.events[]."),
            )
            for event in events
        ),
    )


def ep_judge_prompt(
    example: Mapping[str, Any], *, template: str | None = None, path: str | None = None, line: int | None = None
) -> str:
    """The judge's prompt for the decoded ep JSON ``example``: its first prediction's
    ``actual_patch`` (as stored: ``ep qa`` first re-parses ``actual_output``, which
    this does not), ``prompt_inputs`` and ``prompt.input``.

    Zed's errors are :class:`JudgePromptError`; a field of the wrong type is a
    :class:`JSONFormatError`; both name ``path`` and ``line`` when given.
    """
    try:
        predictions = example.get("predictions")
        if predictions is not None and not isinstance(predictions, list):
            raise JSONFormatError("'predictions' must be a list")
        if not predictions:
            raise JudgePromptError("no predictions available", fix="Judge an example that carries a prediction.")
        first = predictions[0]
        if not isinstance(first, Mapping):
            raise JSONFormatError("'predictions[0]' must be an object")
        patch = first.get("actual_patch")
        if patch is not None and not isinstance(patch, str):
            raise JSONFormatError("'predictions[0].actual_patch' must be a string")
        stored = example.get("prompt")
        if stored is not None and not isinstance(stored, Mapping):
            raise JSONFormatError("'prompt' must be an object")
        prompt = stored.get("input") if stored is not None else None
        if prompt is not None and not isinstance(prompt, str):
            raise JSONFormatError("'prompt.input' must be a string")
        return judge_prompt(_inputs(example), patch, prompt=prompt, template=template)
    except EditPredError as error:
        raise error.locate(path, line) from None
