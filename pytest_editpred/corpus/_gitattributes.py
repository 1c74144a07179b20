"""The attributes a repository's ``.gitattributes`` files give a path, read as git does.

GitHub's linguist reads three of them to hide files from diffs and statistics:
``linguist-generated`` and ``linguist-vendored`` (set, or ``=true``; unset,
``=false``, also *clears* linguist's own guess) and ``diff`` (``-diff``, or the
``binary`` macro: GitHub shows no diff). Corpus tools read them to leave such files
out, in a commit's diff (split-commit, at the parent) and in an example (lint, at
its revision), so both read the same files the same way.

The rules are gitattributes(5)'s: every ``.gitattributes`` from the root down to the
file's folder applies, a deeper file over a shallower one and a later line over an
earlier one; a pattern without a slash matches the file name at any depth below its
file's folder, one with a slash is anchored there; ``*`` and ``?`` stop at ``/``,
``**`` crosses folders; a pattern for a folder (``dir/``) matches no file; ``!``
patterns are refused by git and skipped here. Macros: ``binary`` and ``[attr]``
lines of the root file. ``$GIT_DIR/info/attributes`` is not read: it is no part of
a commit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["AttributeReader", "Attributes", "parse_attributes"]

_BUILTIN_MACROS: dict[str, tuple[tuple[str, bool | str | None], ...]] = {
    "binary": (("diff", False), ("merge", False), ("text", False)),
}
#: Bytes of one .gitattributes file read at most (git itself reads any size; a file
#: of attributes past a megabyte is not one anyone wrote).
MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class _Line:
    regex: re.Pattern[str]
    basename_only: bool
    attributes: tuple[tuple[str, bool | str | None], ...]


@dataclass(frozen=True)
class Attributes:
    """One parsed ``.gitattributes``: its lines, in order, and the macros it defines."""

    lines: tuple[_Line, ...]
    macros: tuple[tuple[str, tuple[tuple[str, bool | str | None], ...]], ...] = ()


def _unquote(token: str) -> str:
    """A C-quoted pattern (``"a b.txt"``) as git reads it; others as they are."""
    if len(token) >= 2 and token[0] == '"' and token[-1] == '"':
        body = token[1:-1]
        escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "r": "\r", "v": "\v"}
        out: list[str] = []
        at = 0
        while at < len(body):
            if body[at] == "\\" and at + 1 < len(body):
                out.append(escapes.get(body[at + 1], body[at + 1]))
                at += 2
            else:
                out.append(body[at])
                at += 1
        return "".join(out)
    return token


def _split(line: str) -> tuple[str, str]:
    """The pattern (quoted or not) and the rest of the line."""
    line = line.lstrip(" \t")
    if line.startswith('"'):
        end = 1
        while end < len(line) and line[end] != '"':
            end += 2 if line[end] == "\\" else 1
        return _unquote(line[: end + 1]), line[end + 1 :]
    match = re.match(r"(\S+)(.*)", line, re.S)
    return (match.group(1), match.group(2)) if match else ("", "")


def _glob(pattern: str) -> str:
    """A gitignore-style glob as a regular expression over a relative path."""
    out: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if pattern.startswith("**/", at):
            out.append("(?:.*/)?")
            at += 3
        elif pattern.startswith("/**", at) and at + 3 == len(pattern):
            out.append("/.*")
            at += 3
        elif pattern.startswith("**", at):
            out.append(".*")
            at += 2
        elif char == "*":
            out.append("[^/]*")
            at += 1
        elif char == "?":
            out.append("[^/]")
            at += 1
        elif char == "[":
            end = pattern.find("]", at + 2)
            if end == -1:
                out.append(re.escape(char))
                at += 1
                continue
            body = pattern[at + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            at = end + 1
        elif char == "\\" and at + 1 < len(pattern):
            out.append(re.escape(pattern[at + 1]))
            at += 2
        else:
            out.append(re.escape(char))
            at += 1
    return "".join(out)


def _attribute(token: str) -> tuple[str, bool | str | None]:
    if token.startswith("-"):
        return token[1:], False
    if token.startswith("!"):
        return token[1:], None
    name, sep, value = token.partition("=")
    return (name, value) if sep else (name, True)


@lru_cache(maxsize=256)
def parse_attributes(text: str) -> Attributes:
    """A ``.gitattributes`` file's lines; a line git would refuse is skipped."""
    lines: list[_Line] = []
    macros: list[tuple[str, tuple[tuple[str, bool | str | None], ...]]] = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        pattern, rest = _split(raw)
        attributes = tuple(_attribute(token) for token in rest.split())
        if pattern.startswith("[attr]"):
            macros.append((pattern[len("[attr]") :], attributes))
            continue
        if not pattern or pattern.startswith("!") or pattern.endswith("/"):
            continue  # negative patterns are refused by git; folder patterns match no file
        anchored = "/" in pattern
        body = pattern.lstrip("/") if anchored else pattern
        try:
            regex = re.compile(_glob(body) + r"\Z", re.S)
        except re.error:
            continue
        lines.append(_Line(regex, not anchored, attributes))
    return Attributes(tuple(lines), tuple(macros))


class AttributeReader:
    """Attributes of paths at one revision, ``read(path)`` giving a file's text there
    (None: no such file). Each folder's ``.gitattributes`` is read once."""

    def __init__(self, read: Callable[[str], str | None]) -> None:
        self._read = read
        self._files: dict[str, Attributes | None] = {}

    def _file(self, folder: str) -> Attributes | None:
        if folder not in self._files:
            text = self._read(f"{folder}/.gitattributes" if folder else ".gitattributes")
            self._files[folder] = None if text is None or len(text) > MAX_BYTES else parse_attributes(text)
        return self._files[folder]

    def __call__(self, path: str) -> Mapping[str, bool | str]:
        """The attributes git gives ``path``: only those set, unset or valued."""
        parts = path.split("/")
        root = self._file("")
        macros = dict(_BUILTIN_MACROS)
        if root is not None:
            macros.update(root.macros)
        state: dict[str, bool | str | None] = {}
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            found = root if depth == 0 else self._file(folder)
            if found is None:
                continue
            relative = "/".join(parts[depth:])
            for line in found.lines:
                subject = parts[-1] if line.basename_only else relative
                if line.regex.match(subject):
                    for name, value in line.attributes:
                        if name in macros and value is True:
                            state.update(macros[name])
                        state[name] = value
        return {name: value for name, value in state.items() if value is not None}
