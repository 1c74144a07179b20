"""Load examples from files: ``.md``, ``.json`` and ``.jsonl``, as Zed's ``ep read`` does."""

from __future__ import annotations

from pathlib import Path

from ._example import Example
from ._exceptions import EditPredError, FormatError

__all__ = ["load_examples", "EXTENSIONS"]

EXTENSIONS = (".md", ".json", ".jsonl")


def load_examples(path: str | Path) -> list[Example | EditPredError]:
    """Every example in ``path``; a broken one comes back as its error, in its place.

    A ``.md`` or ``.json`` file holds one example, a ``.jsonl`` file one per line.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        return [
            FormatError(
                f"{path.name} has invalid example extension '{path.suffix}'",
                fix="Name example files *.md, *.json or *.jsonl.",
                path=path,
            )
        ]
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        return [FormatError("the file is not valid UTF-8", fix="Save it as UTF-8.", path=path, line=line)]
    except OSError as error:
        return [FormatError(f"cannot read the file: {error.strerror}", path=path)]
    try:
        if suffix == ".md":
            from ._markdown import from_markdown

            return [from_markdown(text, path)]
        if suffix == ".json":
            from ._json import from_json

            return [from_json(text, path)]
        from ._json import from_jsonl

        return list(from_jsonl(text, path))
    except EditPredError as error:
        return [error]
