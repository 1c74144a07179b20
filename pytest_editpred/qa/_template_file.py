"""Reading a prompt template file (the judge's, the repair's): one error, naming the
file and what is wrong with it, for a file that is missing, unreadable or not UTF-8."""

from __future__ import annotations

from pathlib import Path

from .._exceptions import ConfigError

__all__ = ["read_template_file"]


def read_template_file(path: str | Path, error: type[ConfigError], what: str, example: str) -> str:
    """The UTF-8 text of the template file ``path``; ``error`` (``what`` names the
    template, ``example`` a file to give instead) when it cannot be had."""
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise error(
            f"the {what} does not exist", fix=f"Give the path of a template file, e.g. {example}.", path=where
        ) from None
    except OSError as failure:
        raise error(
            f"the {what} cannot be read: {failure.strerror or failure}",
            fix="Give the path of a readable template file.",
            path=where,
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as failure:
        raise error(
            f"the {what} is not UTF-8 (byte {failure.start} is {data[failure.start]:#04x})",
            fix="Save the template as UTF-8.",
            path=where,
            line=data.count(b"\n", 0, failure.start) + 1,
        ) from None
