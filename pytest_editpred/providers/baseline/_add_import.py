"""``add-import``: the user's last edit uses a name the file does not know; import it.

Code that calls ``Path(...)`` or ``formatQuantity(...)`` with no import of it is
one import short, and where to import it from is usually plain: a sibling import
line of the same module, another buffer that imports it, or the standard library.
Python and TypeScript, in each one's import style (isort's order, ``import { }``).
"""

from __future__ import annotations

import posixpath
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ._context import Context
from ._edits import Edit, Result
from ._functions import header_name
from ._syntax import locate

__all__ = ["add_import"]

_PY_STDLIB_NAMES: dict[str, str] = {
    **dict.fromkeys(("Path", "PurePath", "PurePosixPath"), "pathlib"),
    **dict.fromkeys(("dataclass", "field", "replace", "asdict", "astuple", "fields"), "dataclasses"),
    **dict.fromkeys(
        (
            "Any",
            "Optional",
            "Union",
            "TypeVar",
            "Generic",
            "Protocol",
            "cast",
            "overload",
            "TYPE_CHECKING",
            "ClassVar",
            "Literal",
            "Final",
            "NamedTuple",
            "TypedDict",
        ),
        "typing",
    ),
    **dict.fromkeys(("defaultdict", "Counter", "OrderedDict", "deque", "namedtuple"), "collections"),
    **dict.fromkeys(("Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping", "Callable"), "collections.abc"),
    **dict.fromkeys(("partial", "reduce", "wraps", "lru_cache", "cached_property", "total_ordering"), "functools"),
    **dict.fromkeys(("Enum", "IntEnum", "Flag", "auto"), "enum"),
    **dict.fromkeys(("datetime", "date", "timedelta", "timezone"), "datetime"),
    **dict.fromkeys(("ABC", "abstractmethod"), "abc"),
    **dict.fromkeys(("contextmanager", "suppress", "ExitStack"), "contextlib"),
    **dict.fromkeys(("StringIO", "BytesIO"), "io"),
    "Decimal": "decimal",
    "Fraction": "fractions",
    "deepcopy": "copy",
    "dedent": "textwrap",
}
_PY_IMPORT = re.compile(
    r"^(?:from\s+(?P<from>[\w.]+)\s+import\s+(?P<names>[^()#]+?)\s*(?:#.*)?|import\s+(?P<module>[\w.]+))$"
)
_TS_IMPORT = re.compile(
    r"^import\s+(?:type\s+)?\{(?P<names>[^}]*)\}\s+from\s+(?P<q>[\"'])(?P<module>[^\"']+)(?P=q);?\s*$"
)


def add_import(ctx: Context) -> Result | None:
    """Import a name the user just started using that the file does not know."""
    event = ctx.last_event
    if event is None or event.path != ctx.path or ctx.lang not in ("py", "ts"):
        return None
    added = [line for hunk in ctx.last_hunks for change in hunk.changes for line in change.added if line.strip()]
    for name in _unknown_names(ctx, added):
        if ctx.lang == "py":
            as_module = any(re.search(rf"(?<![\w.]){name}\.", line) for line in added)
            edit = _python_import(ctx, name, as_module)
        else:
            edit = _ts_import(ctx, name)
        if edit is not None:
            return Result((edit,), None)
    return None


# --------------------------------------------------------------------------- unknown names


def _unknown_names(ctx: Context, added: Sequence[str]) -> list[str]:
    """Names the added lines call or use as a type, module or decorator, that they
    do not bind and that appear nowhere else in the file (so nothing defines or
    imports them)."""
    rows = {r for line in added if (r := locate(ctx.lines, [line], ctx.row)) is not None}
    rest = "\n".join(line for r, line in enumerate(ctx.lines) if r not in rows)
    names: list[str] = []
    for line in added:
        for match in re.finditer(r"(?<![\w$.])([A-Za-z_]\w*)", line):
            name = match.group(1)
            if name in names or re.search(rf"(?<![\w$]){name}(?![\w$])", rest):
                continue
            before, after = line[: match.start()], line[match.end() :]
            used = re.match(r"\s*[(.<\[]", after) or re.search(r"(?:@|:|->|\bnew)\s*$", before)
            if used and not any(_binds(other, name, ctx.lang) for other in added):
                names.append(name)
    return names


def _binds(line: str, name: str, lang: str) -> bool:
    """Whether ``line`` gives ``name`` a value (so it needs no import)."""
    word = re.escape(name)
    return bool(
        re.search(rf"\b(?:const|let|var|for|def|function|class|fn|func|as|import)\s+{word}\b", line)
        or re.search(rf"(?<![\w$.]){word}\s*(?::=|=(?![=>])|=>)", line)
        or re.search(rf"\([^()]*(?<![\w$.]){word}\b[^()]*\)\s*(?::[^=]+)?=>", line)
        or (header_name(line, lang) is not None and re.search(rf"[(,]\s*{word}\s*[,):]", line))
    )


def _split_names(names: str) -> list[str]:
    return [n.strip() for n in names.split(",") if n.strip()]


# --------------------------------------------------------------------------- Python


@dataclass(frozen=True)
class _PyImport:
    """A one-line top-level import: ``from module import names`` or ``import module``."""

    row: int
    module: str
    names: str | None
    names_at: int  # column of ``names``

    @property
    def sort_key(self) -> tuple[int, str]:
        """isort's default order in a section: ``import x`` first, then ``from``."""
        return (0 if self.names is None else 1, self.module.lower())


def _py_imports(lines: Sequence[str]) -> list[_PyImport]:
    """The file's one-line imports, ``__future__`` aside."""
    found: list[_PyImport] = []
    for row, line in enumerate(lines):
        match = _PY_IMPORT.match(line)
        if match is None or (match.group("from") or match.group("module")) == "__future__":
            continue
        if match.group("from"):
            found.append(_PyImport(row, match.group("from"), match.group("names"), match.start("names")))
        else:
            found.append(_PyImport(row, match.group("module"), None, 0))
    return found


def _py_module_of(ctx: Context, name: str) -> str | None:
    """Where ``name`` comes from: another buffer's absolute import, else the stdlib."""
    for path, buffer in sorted(ctx.request.buffers.items()):
        if path == ctx.path:
            continue
        for found in _py_imports(buffer.split("\n")):
            if found.names and not found.module.startswith(".") and name in _split_names(found.names):
                return found.module
    return _PY_STDLIB_NAMES.get(name)


def _python_import(ctx: Context, name: str, used_as_module: bool) -> Edit | None:
    """Import ``name`` in a Python file: into an existing ``from M import`` line,
    or as a new line in the stdlib import block, in isort order."""
    module = _py_module_of(ctx, name)
    if module is None and used_as_module and name in sys.stdlib_module_names:
        module, name = name, ""
    if module is None:
        return None
    imports = _py_imports(ctx.lines)
    if name:
        merged = _into_from_line(ctx, imports, module, name)
        if merged is not None:
            return merged
    return _new_import_line(ctx, imports, module, name)


def _into_from_line(ctx: Context, imports: Sequence[_PyImport], module: str, name: str) -> Edit | None:
    """``name`` added to the first ``from module import ...`` line (sorted if its
    names are)."""
    for found in imports:
        if found.module == module and found.names is not None:
            names = _split_names(found.names)
            merged = [*names, name]
            if names == sorted(names, key=str.lower):
                merged.sort(key=str.lower)
            start = ctx.starts[found.row] + found.names_at
            return Edit(start, start + len(found.names), ", ".join(merged))
    return None


def _new_import_line(ctx: Context, imports: Sequence[_PyImport], module: str, name: str) -> Edit | None:
    """A new import line in the file's first block of stdlib imports, in isort
    order; None when the file has no such block."""
    stdlib = [f for f in imports if f.module.split(".")[0] in sys.stdlib_module_names]
    if not stdlib:
        return None
    block = [stdlib[0]]
    for found in stdlib[1:]:
        if found.row != block[-1].row + 1:
            break
        block.append(found)
    new = _PyImport(-1, module, name or None, 0)
    target = next((f.row for f in block if f.sort_key > new.sort_key), block[-1].row + 1)
    at = ctx.offset_of(target) if target < len(ctx.lines) else len(ctx.text)
    statement = f"from {module} import {name}" if name else f"import {module}"
    return Edit(at, at, statement + "\n")


# --------------------------------------------------------------------------- TypeScript


def _ts_import(ctx: Context, name: str) -> Edit | None:
    """Import ``name`` in a TypeScript file, into the ``import { ... }`` of the
    module most likely to provide it (in order if the names there are sorted)."""
    best = _likeliest_ts_import(ctx, name)
    if best is None:
        return None
    row, match = best
    names = _split_names(match.group("names"))
    plain = [n.removeprefix("type ").strip() for n in names]
    merged = [*names, name]
    if plain == sorted(plain, key=str.lower):
        merged.sort(key=lambda n: n.removeprefix("type ").strip().lower())
    start = ctx.starts[row] + match.start("names")
    return Edit(start, start + len(match.group("names")), " " + ", ".join(merged) + " ")


def _likeliest_ts_import(ctx: Context, name: str) -> tuple[int, re.Match[str]] | None:
    """The row and match of the ``import { ... }`` line whose module most likely
    provides ``name`` (the first of the best); None when none is likely at all."""
    best: tuple[int, int, re.Match[str]] | None = None
    for row, line in enumerate(ctx.lines):
        match = _TS_IMPORT.match(line)
        if not match:
            continue
        imported = [n.removeprefix("type ").strip() for n in _split_names(match.group("names"))]
        score = _ts_module_score(ctx, match.group("module"), imported, name)
        if score and (best is None or score > best[0]):
            best = (score, row, match)
    return (best[1], best[2]) if best is not None else None


def _ts_module_score(ctx: Context, module: str, imported: Sequence[str], name: str) -> int:
    """How likely ``module`` provides ``name``: it certainly does when a buffer at
    that path exports it; else by the longest name prefix it shares with the
    module's file name or with a name imported from it (``formatMoney`` from
    ``./format`` for ``formatQuantity``), ending at a word boundary."""
    target = posixpath.normpath(posixpath.join(posixpath.dirname(ctx.path), module))
    export = re.compile(
        rf"^export\s+(?:async\s+)?(?:function|const|let|class|interface|type|enum)\s+{re.escape(name)}\b",
        re.MULTILINE,
    )
    for path, buffer in ctx.request.buffers.items():
        if path != ctx.path and posixpath.splitext(path)[0] == target and export.search(buffer):
            return 1000
    stem = posixpath.basename(module).split(".")[0]
    score = len(stem) if stem and name.lower().startswith(stem.lower()) else 0
    for other in imported:
        common = len(posixpath.commonprefix([other, name]))
        if common >= 3 and (common == len(name) or name[common].isupper() or name[common] == "_"):
            score = max(score, common)
    return score
