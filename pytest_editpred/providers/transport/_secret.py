"""An API key that cannot be printed by accident, and the one way to hide it in text.

Why: a key held in a plain ``str`` local is printed by ``pytest --showlocals`` in
the traceback of any unexpected error, by a debugger, by a ``repr`` of a dict of
headers. Wrapped in :class:`Secret` its ``repr``, ``str`` and formatting are
``***``; the text itself is taken out (:meth:`Secret.reveal`) only where the
request's headers are handed to httpx, never bound to a name. A secret is not
picklable either, so it cannot travel to an xdist controller inside a report.

:func:`redact` is applied to everything a server says (answers, error messages,
raw output, cache files): a server may echo the key back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

__all__ = ["REDACTED", "Secret", "redact", "redact_data", "reveal_headers"]

REDACTED = "[REDACTED]"
_SHOWN = "***"


class Secret:
    """A key (or a header value built from it) whose text is never shown."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The text: only for the wire."""
        return self._value

    def prefixed(self, prefix: str) -> Secret:
        """``prefix + key`` as a secret of its own (``Bearer sk-...``)."""
        return Secret(prefix + self._value)

    def __repr__(self) -> str:
        return _SHOWN

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return _SHOWN

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Secret is never pickled")


def _text(secret: Secret | str | None) -> str:
    if isinstance(secret, Secret):
        return secret.reveal()
    return secret or ""


def redact(text: str, secret: Secret | str | None) -> str:
    """``text`` with every occurrence of the key replaced by ``[REDACTED]``."""
    value = _text(secret)
    return text.replace(value, REDACTED) if value and value in text else text


def redact_data(data: Any, secret: Secret | str | None) -> Any:
    """Parsed JSON with the key redacted in every string (keys included); the
    same object when there is nothing to hide. JSON read through
    :func:`~pytest_editpred._safe_json.loads_bounded` is shallow, so the
    recursion is bounded."""
    value = _text(secret)
    if not value:
        return data
    if isinstance(data, str):
        return redact(data, value)
    if isinstance(data, list):
        return [redact_data(item, value) for item in data]
    if isinstance(data, dict):
        return {redact(k, value) if isinstance(k, str) else k: redact_data(v, value) for k, v in data.items()}
    return data


def reveal_headers(headers: Mapping[str, str | Secret]) -> Iterable[tuple[str, str]]:
    """Header pairs for the wire: a :class:`Secret` value is revealed here, lazily,
    so that no frame holds its text under a name."""
    return ((name, value.reveal() if isinstance(value, Secret) else value) for name, value in headers.items())
