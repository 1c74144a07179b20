"""Functions in code, by their look: where one starts, where it ends, what it takes.

Renames stay inside a function, new parameters are passed at calls, awaits go in
async functions: the heuristics need functions' headers, extents and parameter
names. A line-based reading per language (Python, Go, Rust, TypeScript; all of
them at once for any other file) is enough for that, and never fails on broken code.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._syntax import indent, matching_paren, split_top

__all__ = [
    "NOT_FUNCTIONS",
    "Signature",
    "enclosing_function",
    "function_end",
    "header_name",
    "lang_of",
    "parse_signature",
    "signature_at",
]

_LANGS = {".py": "py", ".pyi": "py", ".go": "go", ".rs": "rs"}
_LANGS.update(dict.fromkeys((".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"), "ts"))

_HEADERS: dict[str, tuple[re.Pattern[str], ...]] = {
    "py": (re.compile(r"^\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\("),),
    "go": (re.compile(r"^func\s+(?:\([^)]*\)\s*)?(?P<name>\w+)\s*[\[(]"),),
    "rs": (
        re.compile(
            r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe)\s+)*"
            r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+(?P<name>\w+)"
        ),
    ),
    "ts": (
        re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?P<name>[\w$]+)"),
        re.compile(
            r"^\s*(?:export\s+)?(?:const|let|var)\s+(?P<name>[\w$]+)\s*(?::[^=]+)?=\s*"
            r"(?:async\s+)?(?:\([^)]*\)|[\w$]+)\s*(?::[^=]+)?=>"
        ),
        re.compile(
            r"^\s*(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*"
            r"(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\((?:.*\)\s*(?::\s*[^{;=]+)?\{|[^)]*)\s*$"
        ),
    ),
}
#: For a file of no known language: Python's, Go's and Rust's headers.
_ANY_HEADER = tuple(p for key in ("py", "go", "rs") for p in _HEADERS[key])

#: Keywords that a header pattern would take for a function name (``if (x) {``).
NOT_FUNCTIONS = frozenset(
    (
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "return",
        "function",
        "with",
        "elif",
        "else",
        "match",
        "loop",
        "new",
        "await",
        "typeof",
    )
)

_PARAM_PREFIX = re.compile(r"^(?:\.\.\.|\*\*?|&\s*(?:'\w+\s+)?|mut\s+|(?:public|private|protected|readonly)\s+)")


def lang_of(path: str) -> str:
    """``py``, ``go``, ``rs``, ``ts`` by the file's extension; ``""`` for others."""
    return _LANGS.get(posixpath.splitext(path)[1].lower(), "")


def header_name(line: str, lang: str) -> str | None:
    """The function a line starts to define, if it does."""
    for pattern in _HEADERS.get(lang) or _ANY_HEADER:
        match = pattern.match(line)
        if match and match.group("name") not in NOT_FUNCTIONS:
            return match.group("name")
    return None


def signature_end(lines: Sequence[str], header: int, lang: str) -> int:
    """The row where a function's signature ends (its ``:`` or ``{``)."""
    for row in range(header, min(header + 20, len(lines))):
        code = lines[row].split("#")[0] if lang == "py" else lines[row].split("//")[0]
        if code.rstrip().endswith(":" if lang == "py" else "{"):
            return row
    return header


def function_end(lines: Sequence[str], header: int, lang: str) -> int:
    """The last row of the function starting at ``header``, by indentation: the
    body is more indented; a closing brace at the header's level ends it."""
    base = indent(lines[header])
    row = signature_end(lines, header, lang)
    if lang != "py" and lines[row].rstrip().endswith("}"):
        return row
    end = row
    for index in range(row + 1, len(lines)):
        line = lines[index]
        if not line.strip():
            continue
        if indent(line) > base:
            end = index
            continue
        if indent(line) == base and line.lstrip().startswith(("}", ")")) and lang != "py":
            end = index
        break
    return end


def enclosing_function(lines: Sequence[str], row: int, lang: str) -> tuple[int, int] | None:
    """The innermost function around ``row``: (header row, last row)."""
    for header in range(row, -1, -1):
        if header_name(lines[header], lang) is None:
            continue
        end = function_end(lines, header, lang)
        if end >= row:
            return header, end
    return None


@dataclass(frozen=True)
class Signature:
    """A function's name and parameter names, in order."""

    name: str
    params: tuple[str, ...]

    @property
    def is_method(self) -> bool:
        return bool(self.params) and self.params[0] in ("self", "cls")

    def call_params(self, via_receiver: bool) -> tuple[str, ...]:
        """The parameters a call passes (``self`` is the receiver of a method call)."""
        return self.params[1:] if self.is_method and via_receiver else self.params


def parse_signature(source: str, lang: str) -> Signature | None:
    """Name and parameter names of the function defined at the start of ``source``."""
    name = header_name(source, lang)
    if name is None:
        return None
    open_at = source.find("(", source.find(name) + len(name))
    close_at = matching_paren(source, open_at) if open_at >= 0 else None
    if close_at is None:
        return None
    inner = source[open_at + 1 : close_at]
    names = [_param_name(inner[a:b]) for a, b in split_top(inner)]
    return Signature(name, tuple(n for n in names if n))


def signature_at(lines: Sequence[str], header: int, lang: str) -> Signature | None:
    """The signature of the function whose header is on row ``header``."""
    end = signature_end(lines, header, lang)
    return parse_signature("\n".join(lines[header : end + 1]), lang)


def _param_name(param: str) -> str | None:
    """A parameter's name, without ``*``, ``...``, ``&mut``, ``public`` and the like."""
    param = param.strip()
    while (stripped := _PARAM_PREFIX.sub("", param)) != param:
        param = stripped.strip()
    match = re.match(r"[A-Za-z_$][\w$]*", param)
    return match.group() if match else None
