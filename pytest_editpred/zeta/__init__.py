"""Zed v1.15's Zeta prompt formats, byte for byte (``../shared/reference/zeta-prompts.md``).

A core that works without pytest and without a model: build a :class:`ZetaInput`
from a request, format the prompt of a :class:`ZetaFormat`, parse the model's answer
back into an edit and a cursor. tree-sitter is imported only when a syntax range is
computed.
"""

from ._input import Diagnostic, Event, ExcerptRanges, RelatedExcerpt, RelatedFile, ZetaInput

__all__ = ["Diagnostic", "Event", "ExcerptRanges", "RelatedExcerpt", "RelatedFile", "ZetaInput"]
