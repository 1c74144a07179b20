"""The package's import structure, read from its source with ``ast`` (nothing imported).

Rules, checked on every ``.py`` file under ``pytest_editpred/``:

* no import cycle among modules, counting every import that runs (module level or
  inside a function), not those under ``if TYPE_CHECKING:``; and none among *nodes*,
  a node being a top-level module of the package or a first-level subpackage with
  everything under it (``pytest_editpred.reports.*`` is one node);
* a private module (a dotted component starting with ``_``, dunders aside) is
  imported only from inside the package that contains it: ``metrics/_score.py`` may
  import ``pytest_editpred.metrics._chrf`` and ``pytest_editpred._text``, but
  ``judge/_verdict.py`` may not import ``pytest_editpred.metrics._local``;
* a private name (``from x import _name``) is imported only from a module in the same
  package directory (both privacy rules count ``TYPE_CHECKING`` imports too);
* (apart) every import of ``pytest_editpred.<something>`` names a module that exists.

Relative imports are resolved against the importing module's package, and
``from pkg import name`` where ``pkg.name`` is a module counts as importing that
module. Imports done by strings (``importlib.import_module``) are not seen. Each
violation is reported as ``path:line: what``; a planted fake package checks that
the checker finds exactly what it should.
"""

from __future__ import annotations

import ast
import textwrap
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

import pytest_editpred

PACKAGE = Path(pytest_editpred.__file__).parent


@dataclass(frozen=True)
class Module:
    """A module of the package: its dotted name, its file, whether it is a package."""

    name: str
    path: Path
    is_package: bool

    @property
    def package(self) -> str:
        """The package that holds this module (the module itself for a package):
        what its relative imports start from, and its directory."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


@dataclass(frozen=True)
class Import:
    """``source`` imports the module ``target`` at ``line``; ``name`` is the name
    taken from it when that name is not itself a module (``from target import name``)."""

    source: Module
    line: int
    target: str
    name: str | None
    runtime: bool


def find_modules(package_dir: Path) -> dict[str, Module]:
    """Every module under ``package_dir``, by dotted name (the top one is the directory's name)."""
    modules: dict[str, Module] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join(parts)] = Module(".".join(parts), path, is_package)
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (the body runs for type checkers only)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.AST, runtime: bool = True) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement anywhere in ``tree`` (functions and classes included),
    with whether it runs: the body of ``if TYPE_CHECKING:`` does not, its ``else`` does."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for statement in child.body:
                yield from _statements_of(statement, False)
            for statement in child.orelse:
                yield from _statements_of(statement, runtime)
            continue
        yield from _statements_of(child, runtime)


def _statements_of(node: ast.AST, runtime: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node, runtime
    yield from _statements(node, runtime)


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module name a ``from`` import names (``from ..x import y`` in
    ``pkg/a/b.py`` is ``pkg.x``)."""
    if not node.level:
        return node.module or ""
    parts = module.package.split(".")
    if node.level - 1 >= len(parts):
        raise ValueError(f"{module.path}:{node.lineno}: relative import beyond the top-level package")
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: Module, modules: Mapping[str, Module]) -> list[Import]:
    """The imports of ``module`` that name modules of the package."""
    top = next(iter(modules)).split(".")[0]
    found: list[Import] = []
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    for node, runtime in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == top or alias.name.startswith(top + "."):
                    found.append(Import(module, node.lineno, alias.name, None, runtime))
            continue
        target = _absolute(module, node)
        if target != top and not target.startswith(top + "."):
            continue
        for alias in node.names:
            submodule = f"{target}.{alias.name}"
            if submodule in modules:  # ``from pkg import mod``: the module mod is imported
                found.append(Import(module, node.lineno, submodule, None, runtime))
            else:
                found.append(Import(module, node.lineno, target, alias.name, runtime))
    return found


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _inside(package: str, owner: str) -> bool:
    return package == owner or package.startswith(owner + ".")


def privacy_violations(imports: list[Import], modules: Mapping[str, Module]) -> list[tuple[Import, str]]:
    """Private modules imported from outside their package, private names from
    outside their module's directory."""
    bad: list[tuple[Import, str]] = []
    for imp in imports:
        here = imp.source.package
        parts = imp.target.split(".")
        for index, part in enumerate(parts):
            if _private(part):
                owner = ".".join(parts[:index])
                if not _inside(here, owner):
                    bad.append((imp, f"private module {imp.target} imported from outside {owner}"))
                break
        if imp.name is not None and _private(imp.name):
            there = modules[imp.target].package if imp.target in modules else imp.target
            if there != here:
                bad.append((imp, f"private name {imp.name} of {imp.target} imported from outside {there}"))
    return bad


def _components(graph: Mapping[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components of more than one vertex."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(vertex: str) -> None:
        index[vertex] = low[vertex] = len(index)
        stack.append(vertex)
        on_stack.add(vertex)
        for successor in sorted(graph.get(vertex, ())):
            if successor not in index:
                visit(successor)
                low[vertex] = min(low[vertex], low[successor])
            elif successor in on_stack:
                low[vertex] = min(low[vertex], index[successor])
        if low[vertex] == index[vertex]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == vertex:
                    break
            if len(component) > 1:
                found.append(component)

    for vertex in sorted(graph):
        if vertex not in index:
            visit(vertex)
    return found


def _path_back(graph: Mapping[str, set[str]], start: str, goal: str, within: set[str]) -> list[str]:
    """A shortest path from ``start`` to ``goal`` inside ``within`` (breadth first)."""
    came: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        vertex = queue.popleft()
        if vertex == goal:
            break
        for successor in sorted(graph.get(vertex, ())):
            if successor in within and successor not in came:
                came[successor] = vertex
                queue.append(successor)
    path: list[str] = []
    at: str | None = goal
    while at is not None:
        path.append(at)
        at = came[at]
    return path[::-1]


def _node(name: str) -> str:
    """A top-level module, or a first-level subpackage with everything under it."""
    return ".".join(name.split(".")[:2])


def cycles(imports: list[Import]) -> list[tuple[Import, str]]:
    """Every runtime import on a cycle, with one cycle through it: among modules,
    then among nodes (an import already on a cycle of modules is told once)."""
    bad: list[tuple[Import, str]] = []
    told: set[Import] = set()
    for kind, vertex in (("import cycle", lambda name: name), ("import cycle among nodes", _node)):
        edges = [(vertex(imp.source.name), vertex(imp.target), imp) for imp in imports if imp.runtime]
        graph: dict[str, set[str]] = {}
        for source, target, _ in edges:
            if source != target:
                graph.setdefault(source, set()).add(target)
        for component in _components(graph):
            for source, target, imp in edges:
                if source != target and source in component and target in component and imp not in told:
                    loop = [source, *_path_back(graph, target, source, component)]
                    bad.append((imp, f"{kind}: {' -> '.join(loop)}"))
        told.update(imp for imp, _ in bad)
    return bad


def unknown_targets(imports: list[Import], modules: Mapping[str, Module]) -> list[tuple[Import, str]]:
    """Imports of a module the package does not have (a relative import with one dot
    too few or too many resolves to one)."""
    return [(imp, f"no module {imp.target}") for imp in imports if imp.target not in modules]


def _located(found: list[tuple[Import, str]], root: Path) -> list[str]:
    return sorted({f"{imp.source.path.relative_to(root).as_posix()}:{imp.line}: {what}" for imp, what in found})


def check(package_dir: Path) -> list[str]:
    """Every violation of the rules in ``package_dir``, as ``path:line: what``
    (the path relative to the package's parent), sorted."""
    modules = find_modules(package_dir)
    imports = [imp for module in modules.values() for imp in imports_of(module, modules)]
    return _located(privacy_violations(imports, modules) + cycles(imports), package_dir.parent)


def check_targets(package_dir: Path) -> list[str]:
    """Every import of a module ``package_dir`` does not have, as ``path:line: what``."""
    modules = find_modules(package_dir)
    imports = [imp for module in modules.values() for imp in imports_of(module, modules)]
    return _located(unknown_targets(imports, modules), package_dir.parent)


# -- the real package ----------------------------------------------------------------------------


def test_the_package_has_no_import_cycle_and_no_private_import_across_packages() -> None:
    found = check(PACKAGE)
    assert not found, "import rules broken:\n" + "\n".join(found)


def test_every_import_of_the_package_names_one_of_its_modules() -> None:
    found = check_targets(PACKAGE)
    assert not found, "imports of modules that do not exist:\n" + "\n".join(found)


def test_the_checker_reads_every_module_of_the_package() -> None:
    modules = find_modules(PACKAGE)
    assert len(modules) == len(list(PACKAGE.rglob("*.py")))
    packages = {name for name, module in modules.items() if module.is_package}
    folders = {path.parent.relative_to(PACKAGE.parent).parts for path in PACKAGE.rglob("__init__.py")}
    assert packages == {".".join(parts) for parts in folders}
    assert {"pytest_editpred", "pytest_editpred.example", "pytest_editpred.scene"} <= packages
    assert modules["pytest_editpred.scene._patch"].package == "pytest_editpred.scene"
    imports = [imp for module in modules.values() for imp in imports_of(module, modules)]
    assert sum(imp.runtime for imp in imports) > 100 and not all(imp.runtime for imp in imports)


# -- the checker itself, on a planted fake package ----------------------------------------------

FAKE = {
    "__init__.py": "",
    # a cycle a -> b -> a, closed by an import inside a function
    "a.py": "from . import b\n",
    "b.py": "import os\n\n\ndef late() -> None:\n    from .a import thing\n",
    # TYPE_CHECKING imports make no cycle; its else branch does run
    "c.py": (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .d import X\nelse:\n    from .e import Y\n"
    ),
    "d.py": "from .c import Z\n",
    "e.py": "VALUE = 1\n",
    "_top.py": "",
    "sub/__init__.py": "from ._hidden import VALUE, _secret\n",
    "sub/_hidden.py": "VALUE = 1\n_secret = 2\n",
    "sub/ok.py": "from ._hidden import _secret\nfrom fake._top import X\nfrom .. import _top\n",
    "sub/inner/__init__.py": "",
    "sub/inner/deep.py": "from .._hidden import VALUE\nfrom ..._top import Y\n",
    # two violations: a private module of another package, a private name of another directory
    "other/__init__.py": "",
    "other/user.py": (
        "import json\nfrom ..sub._hidden import VALUE\nfrom ..sub.ok import _private\nfrom ..sub import _secret\n"
    ),
    # a cycle among nodes only: p.x -> q.y, q.z -> p
    "p/__init__.py": "",
    "p/x.py": "import fake.q.y\n",
    "q/__init__.py": "",
    "q/y.py": "",
    "q/z.py": "def f() -> None:\n    import fake.p\n",
    # one dot too few: fake.q.p does not exist
    "q/w.py": "from .p import x\nfrom .y import z\n",
}


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    for name, text in FAKE.items():
        path = tmp_path / "fake" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "fake"


def test_the_checker_finds_exactly_the_planted_violations(fake: Path) -> None:
    assert check(fake) == [
        "fake/a.py:1: import cycle: fake.a -> fake.b -> fake.a",
        "fake/b.py:5: import cycle: fake.b -> fake.a -> fake.b",
        "fake/other/user.py:2: private module fake.sub._hidden imported from outside fake.sub",
        "fake/other/user.py:3: private name _private of fake.sub.ok imported from outside fake.sub",
        "fake/other/user.py:4: private name _secret of fake.sub imported from outside fake.sub",
        "fake/p/x.py:1: import cycle among nodes: fake.p -> fake.q -> fake.p",
        "fake/q/z.py:2: import cycle among nodes: fake.q -> fake.p -> fake.q",
    ]


def test_the_checker_finds_the_import_of_a_module_that_does_not_exist(fake: Path) -> None:
    assert check_targets(fake) == ["fake/q/w.py:1: no module fake.q.p"]


def test_relative_imports_resolve_against_the_importing_modules_package(fake: Path) -> None:
    modules = find_modules(fake)
    seen = {
        (imp.source.name, imp.line, imp.target, imp.name, imp.runtime)
        for name in ("fake.sub", "fake.sub.ok", "fake.sub.inner.deep", "fake.c")
        for imp in imports_of(modules[name], modules)
    }
    assert seen == {
        ("fake.sub", 1, "fake.sub._hidden", "VALUE", True),  # '.' in a package's __init__ is the package
        ("fake.sub", 1, "fake.sub._hidden", "_secret", True),
        ("fake.sub.ok", 1, "fake.sub._hidden", "_secret", True),
        ("fake.sub.ok", 2, "fake._top", "X", True),
        ("fake.sub.ok", 3, "fake._top", None, True),  # 'from .. import _top' imports the module _top
        ("fake.sub.inner.deep", 1, "fake.sub._hidden", "VALUE", True),
        ("fake.sub.inner.deep", 2, "fake._top", "Y", True),
        ("fake.c", 4, "fake.d", "X", False),
        ("fake.c", 6, "fake.e", "Y", True),
    }


def test_a_relative_import_beyond_the_top_package_is_reported(tmp_path: Path) -> None:
    (tmp_path / "solo").mkdir()
    (tmp_path / "solo" / "__init__.py").write_text("")
    (tmp_path / "solo" / "m.py").write_text("\nfrom ... import x\n")
    modules = find_modules(tmp_path / "solo")
    with pytest.raises(ValueError, match=r"m\.py:2: relative import beyond the top-level package"):
        imports_of(modules["solo.m"], modules)


def test_a_type_checking_import_alone_makes_no_cycle_and_fixing_one_edge_clears_it(fake: Path) -> None:
    (fake / "b.py").write_text("import os\n\nif TYPE_CHECKING:\n    from .a import thing\n")
    (fake / "q" / "z.py").write_text(
        textwrap.dedent("""\
        import typing

        if typing.TYPE_CHECKING:
            import fake.p
    """)
    )
    assert [line for line in check(fake) if "cycle" in line] == []


def test_the_readmes_layout_names_every_module_and_package() -> None:
    """The README's Layout section is the map a newcomer reads: every stage package,
    every module of the top level and every private module of a stage is on it."""
    readme = (PACKAGE.parent / "README.md").read_text()
    layout = readme.split("## Layout\n", 1)[1].split("\n## ", 1)[0]
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if path.name == "__init__.py":
            name = f"{relative.parent.name}/" if relative.parent.parts else "__init__.py"
        elif len(relative.parts) == 1:
            name = path.name
        elif path.stem.startswith("_"):
            name = path.stem
        else:  # a public module of a stage (integration/runner.py): the stage says what it holds
            continue
        if name not in layout and not (len(relative.parts) > 1 and _named_by_stage(layout, relative)):
            missing.append(str(relative))
    assert missing == [], "not in the README's Layout section: " + ", ".join(missing)


def _named_by_stage(layout: str, relative: Path) -> bool:
    """The baseline's heuristics are many small modules: "one module per heuristic"
    on its line names them all."""
    return relative.parts[:2] == ("providers", "baseline") and "one module per heuristic" in layout
