"""§2: the 19 ``ZetaFormat`` variants, their constants and the name lookups.

Every per-format constant lives in one table next to the enum, so a formatter or a
parser asks the format (``fmt.end_marker``) instead of repeating a ``match`` that can
drift from Zed's. Zeta 1 is not a ``ZetaFormat`` in Zed (it is a separate prompt
builder), so it is a separate one-member enum here, :data:`ZETA1`; user-facing
lookups return ``ZetaFormat | Zeta1Format``.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Final

from .._exceptions import ConfigError
from .._text import rust_lines
from ._input import ZetaInput

__all__ = [
    "CURSOR_MARKER",
    "SEED_END",
    "NO_EDITS",
    "Family",
    "ZetaFormat",
    "Zeta1Format",
    "ZETA1",
    "AnyFormat",
    "parse_format",
    "format_for",
    "options_as_string",
    "prompt_input_contains_special_tokens",
    "rust_lines",
]

CURSOR_MARKER: Final = "<|user_cursor|>"
SEED_END: Final = "<[end\u2581of\u2581sentence]>"
NO_EDITS: Final = "NO_EDITS\n"
MERGE_CURRENT: Final = "<<<<<<< CURRENT\n"
MERGE_SEPARATOR: Final = "=======\n"
MERGE_UPDATED: Final = ">>>>>>> UPDATED\n"
QWEN_END: Final = "<|im_end|>"

_QWEN = ("<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_sep|>")
_SEED = ("<[fim-suffix]>", "<[fim-prefix]>", "<[fim-middle]>", "<filename>")
_MERGE = (MERGE_CURRENT, MERGE_SEPARATOR, MERGE_UPDATED)
_HASHLINE = ("<|set|>", "<|set_range|>", "<|insert|>", "<|no_edits|>")


class Family(enum.Enum):
    """How a prompt is assembled (§5); the parser's rules are per format (§9.1)."""

    FILE_SEP = "file_sep"
    SEED = "seed"
    QWEN = "qwen"
    SINGLE_FILE = "single_file"
    HASHED = "hashed"


@dataclass(frozen=True)
class _Spec:
    family: Family
    editable_tokens: int
    context_tokens: int
    stop_tokens: tuple[str, ...]
    end_marker: str | None
    default_max_tokens: int
    special_tokens: tuple[str, ...]


class ZetaFormat(enum.Enum):
    """Zed's ``ZetaFormat``; member names and order are Zed's (§2.1), so ``parse``
    and the error listings match byte for byte. The value is the name."""

    V0112MiddleAtEnd = "V0112MiddleAtEnd"
    V0113Ordered = "V0113Ordered"
    V0114180EditableRegion = "V0114180EditableRegion"
    V0120GitMergeMarkers = "V0120GitMergeMarkers"
    V0131GitMergeMarkersPrefix = "V0131GitMergeMarkersPrefix"
    V0211Prefill = "V0211Prefill"
    V0211SeedCoder = "V0211SeedCoder"
    V0331SeedCoderModelPy = "V0331SeedCoderModelPy"
    v0226Hashline = "v0226Hashline"
    V0304VariableEdit = "V0304VariableEdit"
    V0304SeedNoEdits = "V0304SeedNoEdits"
    V0306SeedMultiRegions = "V0306SeedMultiRegions"
    V0316SeedMultiRegions = "V0316SeedMultiRegions"
    V0317SeedMultiRegions = "V0317SeedMultiRegions"
    V0318SeedMultiRegions = "V0318SeedMultiRegions"
    V0327SingleFile = "V0327SingleFile"
    V0420Diagnostics = "V0420Diagnostics"
    V0608QwenMultiRegions = "V0608QwenMultiRegions"
    V0615HashRegions = "V0615HashRegions"

    def __str__(self) -> str:
        """Zed's ``Display`` prints the exact variant name."""
        return self.value

    @property
    def _spec(self) -> _Spec:
        return _SPECS[self.value]

    @property
    def family(self) -> Family:
        return self._spec.family

    @property
    def editable_tokens(self) -> int:
        """E of §3.5 (the §2.1 "editable, context tokens" column)."""
        return self._spec.editable_tokens

    @property
    def context_tokens(self) -> int:
        """C of §3.5."""
        return self._spec.context_tokens

    @property
    def stop_tokens(self) -> tuple[str, ...]:
        """``stop_tokens_for_format``: sent with the request."""
        return self._spec.stop_tokens

    @property
    def end_marker(self) -> str | None:
        """The suffix the parser strips once (§9.1 step 1), or None."""
        return self._spec.end_marker

    @property
    def default_max_tokens(self) -> int:
        """§1.1: the prompt budget ``format_zeta_prompt`` uses."""
        return self._spec.default_max_tokens

    @property
    def max_edit_events(self) -> int:
        """§2.2 ``max_edit_event_count_for_format``: 6 for every format."""
        return 6

    @property
    def uses_prefill(self) -> bool:
        """§5.5: only V0211Prefill has a non-empty prefill."""
        return self is ZetaFormat.V0211Prefill

    @property
    def special_tokens(self) -> tuple[str, ...]:
        """§2.2 ``special_tokens_for_format``."""
        return self._spec.special_tokens


class Zeta1Format(enum.Enum):
    """Zeta 1 (§10), which Zed builds outside ``ZetaFormat``; one member, ``ZETA1``."""

    Zeta1 = "Zeta1"

    def __str__(self) -> str:
        return self.value


ZETA1: Final = Zeta1Format.Zeta1
AnyFormat = ZetaFormat | Zeta1Format


def _spec(
    family: Family,
    e: int,
    c: int,
    special: tuple[str, ...],
    *,
    stop: tuple[str, ...] = (),
    end: str | None = None,
    max_tokens: int = 4096,
) -> _Spec:
    return _Spec(family, e, c, stop, end, max_tokens, special)


_F, _S = Family.FILE_SEP, Family.SEED
_OLD_QWEN = (*_QWEN, CURSOR_MARKER)
_MERGE_QWEN = (*_QWEN, CURSOR_MARKER, *_MERGE)
_SEED_MERGE = (*_SEED, *_MERGE, CURSOR_MARKER)
_SEED_MARKERS = (*_SEED, SEED_END, CURSOR_MARKER, "<|marker_")


def _seed_end(family: Family, e: int, c: int, special: tuple[str, ...], max_tokens: int = 4096) -> _Spec:
    """The V0316-era formats: stop on, and strip, ``<[end▁of▁sentence]>``."""
    return _spec(family, e, c, special, stop=(SEED_END,), end=SEED_END, max_tokens=max_tokens)


_SPECS: dict[str, _Spec] = {
    "V0112MiddleAtEnd": _spec(_F, 150, 350, _OLD_QWEN),
    "V0113Ordered": _spec(_F, 150, 350, _OLD_QWEN),
    "V0114180EditableRegion": _spec(_F, 180, 350, _OLD_QWEN),
    "V0120GitMergeMarkers": _spec(_F, 350, 150, _MERGE_QWEN, end=MERGE_UPDATED),
    "V0131GitMergeMarkersPrefix": _spec(_F, 350, 150, _MERGE_QWEN, end=MERGE_UPDATED),
    "V0211Prefill": _spec(_F, 350, 150, _MERGE_QWEN, end=MERGE_UPDATED),
    "V0211SeedCoder": _spec(_S, 350, 150, _SEED_MERGE, end=MERGE_UPDATED),
    "V0331SeedCoderModelPy": _spec(_S, 350, 150, _SEED_MERGE, end=MERGE_UPDATED),
    "v0226Hashline": _spec(_F, 350, 150, (*_HASHLINE, CURSOR_MARKER, *_QWEN), stop=("<|no_edits|>",)),
    "V0304VariableEdit": _spec(_F, 1024, 0, _OLD_QWEN),
    "V0304SeedNoEdits": _spec(_S, 350, 150, _SEED_MERGE, end=MERGE_UPDATED),
    "V0306SeedMultiRegions": _spec(_S, 350, 150, (*_SEED, *_MERGE, CURSOR_MARKER, "<|marker_"), end=MERGE_UPDATED),
    "V0316SeedMultiRegions": _seed_end(_S, 350, 150, _SEED_MARKERS),
    "V0317SeedMultiRegions": _seed_end(_S, 350, 150, (*_SEED, SEED_END, CURSOR_MARKER, "<|marker")),
    "V0318SeedMultiRegions": _seed_end(_S, 350, 150, _SEED_MARKERS),
    "V0327SingleFile": _seed_end(Family.SINGLE_FILE, 350, 0, _SEED_MARKERS, 16384),
    "V0420Diagnostics": _seed_end(_S, 350, 150, _SEED_MARKERS, 8192),
    "V0608QwenMultiRegions": _spec(
        Family.QWEN,
        350,
        150,
        (*_QWEN, QWEN_END, CURSOR_MARKER, "<|marker_"),
        stop=(QWEN_END,),
        end=QWEN_END,
    ),
    "V0615HashRegions": _seed_end(Family.HASHED, 8000, 0, _SEED_MARKERS, 8000),
}


def options_as_string() -> str:
    """Zed's ``options_as_string``: one ``- Variant\\n`` line per variant, in order."""
    return "".join(f"- {f.value}\n" for f in ZetaFormat)


_PARSE_FIX = (
    "Give a ZetaFormat variant name (case-insensitive) or a part of exactly one, "
    "e.g. 'V0318SeedMultiRegions' or 'ordered'."
)


def parse_format(name: str) -> ZetaFormat:
    """Zed's ``ZetaFormat::parse`` (§2.3): exact lower-cased name, else a unique
    substring; errors carry Zed's texts byte for byte (the name as given)."""
    lower = name.lower()
    for fmt in ZetaFormat:
        if fmt.value.lower() == lower:
            return fmt
    matches = [fmt for fmt in ZetaFormat if lower in fmt.value.lower()]
    if not matches:
        raise ConfigError(f"`{name}` did not match any of:\n{options_as_string()}", fix=_PARSE_FIX)
    if len(matches) > 1:
        raise ConfigError(f"`{name}` matched more than one of:\n{options_as_string()}", fix=_PARSE_FIX)
    return matches[0]


_ALIASES: dict[str, AnyFormat] = {
    "zeta": ZETA1,
    "zeta1": ZETA1,
    "zeta2": ZetaFormat.V0211SeedCoder,
    "zeta2.1": ZetaFormat.V0318SeedMultiRegions,
    "zeta2_1": ZetaFormat.V0318SeedMultiRegions,
}

# §2.3 ``infer``: the model name, lower-cased, picks the Zeta version; anything else
# gets ``ZetaVersion::default()`` (Zeta2_1, i.e. V0318).
_INFER: dict[str, AnyFormat] = {
    "zeta": ZETA1,
    "zeta1": ZETA1,
    "zeta2": ZetaFormat.V0211SeedCoder,
    "zeta2.1": ZetaFormat.V0318SeedMultiRegions,
}


def format_for(name: str, model: str | None = None) -> AnyFormat:
    """The user-facing lookup: the editor's ``prompt_format`` aliases (``zeta``,
    ``zeta1``, ``zeta2``, ``zeta2.1``/``zeta2_1``, ``infer``) first, then
    :func:`parse_format`. ``zeta2`` is an alias here although Zed's ``parse``
    matches nothing for it: users know the editor's name, not the CLI's."""
    key = name.strip().lower()
    if key == "infer":
        return _INFER.get((model or "").strip().lower(), ZetaFormat.V0318SeedMultiRegions)
    if key in _ALIASES:
        return _ALIASES[key]
    return parse_format(name.strip())


def _line_tokens_match(text: str, token: str) -> bool:
    if token.endswith("\n"):
        bare = token[:-1]
        return any(line == bare for line in rust_lines(text))
    return token in text


def prompt_input_contains_special_tokens(input: ZetaInput, format: ZetaFormat) -> bool:
    """§2.2: a special token in the cursor excerpt would confuse the model; a token
    ending in ``\\n`` counts only as a whole line (so ``// =======`` does not)."""
    return any(_line_tokens_match(input.cursor_excerpt, t) for t in format.special_tokens)


_USIZE_MAX: Final = 2**64 - 1
_UINT = re.compile(r"\+?[0-9]+")


def parse_usize(text: str) -> int | None:
    """Rust's ``usize::from_str`` (64-bit): optional ``+``, ASCII digits, no
    whitespace or ``_`` (unlike ``int()``), None on overflow."""
    if not _UINT.fullmatch(text):
        return None
    value = int(text)
    return value if value <= _USIZE_MAX else None
