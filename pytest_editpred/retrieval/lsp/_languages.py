"""Which language a path is, for the LSP source: its grammar, its LSP language id, its server.

Zed names languages by path suffix; JavaScript is parsed with the TSX grammar but
its highlights differ from TSX's (no ``type_annotation`` capture), and only
JavaScript and TSX have the "tsx tag" filter (§2.9.2), so three names share two
grammars here.
"""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = ["LANGUAGE_IDS", "language_of"]

_SUFFIXES = {
    "py": "python",
    "pyi": "python",
    "mpy": "python",
    "rs": "rust",
    "go": "go",
    "ts": "typescript",
    "cts": "typescript",
    "mts": "typescript",
    "tsx": "tsx",
    "js": "javascript",
    "jsx": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
}

#: ``TextDocumentItem.languageId`` per language (the LSP specification's names).
LANGUAGE_IDS = {
    "python": "python",
    "rust": "rust",
    "go": "go",
    "typescript": "typescript",
    "tsx": "typescriptreact",
    "javascript": "javascript",
}


def language_of(path: str) -> str | None:
    """``python``, ``rust``, ``go``, ``typescript``, ``tsx``, ``javascript`` or None."""
    return _SUFFIXES.get(PurePosixPath(path).suffix.lower().lstrip("."))
