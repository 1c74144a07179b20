"""Shared fixtures: pytester, xdist on and off, and a small project with a real repo;
the suite runs under ``-n auto`` by default (``pytest_cmdline_main``)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from gitrepos import make_repo

if TYPE_CHECKING:
    from hypothesis import strategies as st

pytest_plugins = ["pytester"]


def _import_everything() -> None:
    """Import the whole package (and so httpx) before any in-process pytester run.

    pytester restores ``sys.modules`` after each in-process run, dropping modules first
    imported inside it; a later import then makes second copies whose exception classes
    differ from the ones cached objects still raise. Importing up front keeps one copy.
    """
    import asyncio
    import importlib
    import pkgutil

    import httpx

    import pytest_editpred

    for module in pkgutil.walk_packages(pytest_editpred.__path__, "pytest_editpred."):
        importlib.import_module(module.name)
    # The package imports tree-sitter on first parse; its syntax-tree cache outlives a
    # run, so a Tree of a second tree_sitter copy would be refused by the first's parser.
    for name in ("tree_sitter", "tree_sitter_python", "tree_sitter_rust", "tree_sitter_typescript", "tree_sitter_go"):
        importlib.import_module(name)

    async def connect_once() -> None:  # httpx imports httpcore and anyio on first use
        async with httpx.AsyncClient() as client:
            try:
                await client.get("http://127.0.0.1:9/", timeout=1)
            except httpx.HTTPError:
                pass

    asyncio.run(connect_once())


_import_everything()


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which turns -n auto into workers
def pytest_cmdline_main(config: pytest.Config) -> None:
    """A run of the suite (``pytest``, or ``pytest tests/``) uses every core: ``-n auto``.

    Only when the run names no file or test (a single file starts faster serially), the
    user chose nothing (``-n``/``--numprocesses``, ``--tx``, ``-p no:xdist``), xdist is
    installed, and nothing needs one process: ``--collect-only``, ``--pdb``/``--trace``,
    ``-s``, ``--sw``, ``-f``. xdist's workers run this hook too (they have ``workerinput``)."""
    option = config.option
    if hasattr(config, "workerinput"):
        _benchmarks_off(option)
        return
    if (
        not config.pluginmanager.has_plugin("xdist")
        or getattr(option, "numprocesses", 0) is not None  # -n given, even -n 0
        or getattr(option, "tx", None)
        or option.collectonly
        or option.usepdb
        or getattr(option, "trace", False)
        or option.capture == "no"
        or getattr(option, "stepwise", False)
        or getattr(option, "stepwise_skip", False)
        or getattr(option, "looponfail", False)
    ):
        return
    here = config.invocation_params.dir
    if not all((here / arg.split("::", 1)[0]).is_dir() for arg in config.args):
        return
    option.numprocesses = "auto"
    _benchmarks_off(option)


def _benchmarks_off(option: Any) -> None:
    """pytest-benchmark, where installed, turns itself off under xdist and warns, once per
    process; this suite has no benchmark (``bench/`` has them): off, quietly."""
    if hasattr(option, "benchmark_disable"):
        option.benchmark_disable = True


@pytest.hookimpl(tryfirst=True)  # before fixture params and parametrize marks: [plain-...]
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``plugin_args``: a plain run for every test, and a ``-n 2`` twin for those marked
    ``@pytest.mark.xdist`` (their subject is what xdist changes: reports merged across
    workers, session fixtures and prefetch per worker, ...). The ids stay ``[plain]`` and
    ``[xdist]``. A twin is ``slow``: its child session starts two worker processes that
    import everything (2-15 s each here), so ``-m "not slow"`` keeps the plain runs only."""
    if "plugin_args" not in metafunc.fixturenames:
        return
    runs = [pytest.param([], id="plain")]
    if metafunc.definition.get_closest_marker("xdist"):
        runs.append(pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.slow))
    metafunc.parametrize("plugin_args", runs, indirect=True)


CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


@pytest.fixture(autouse=True)
def _own_temp_root(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Child pytest processes keep their temporary directories apart from ours.

    Every pytest session keeps only its three newest ``pytest-N`` directories under the
    shared temp root and deletes older ones, so a child session (a subprocess run, the
    README's runs in a fresh venv) would delete this session's directories while it runs.
    """
    monkeypatch.setenv("PYTEST_DEBUG_TEMPROOT", str(tmp_path_factory.mktemp("child-temp")))


@pytest.fixture(autouse=True)
def _no_xdist_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Child pytest sessions start as from a shell, even when this suite runs under xdist.

    An xdist worker exports ``PYTEST_XDIST_WORKER`` and friends; a child session (in this
    process or a subprocess) would inherit them and look like a worker to plugins that
    read them (pytest-benchmark, for one, warns, and the child's output changes).
    """
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def _child_pycache(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """Where child processes keep their bytecode when ``PYTHONDONTWRITEBYTECODE`` is set."""
    return tmp_path_factory.mktemp("pycache", numbered=False) if sys.dont_write_bytecode else None


@pytest.fixture(autouse=True)
def _child_bytecode(_child_pycache: Path | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Child Python processes (subprocess runs, xdist's workers) reuse compiled bytecode.

    With ``PYTHONDONTWRITEBYTECODE`` set, pytest cannot cache the modules it rewrites for
    assertions, hypothesis's plugin's among them (its whole package, about 120 modules):
    every child pytest would compile them again, over a second each (three times for a
    ``-n 2`` child). The children write their bytecode under a directory of this session
    instead (``PYTHONPYCACHEPREFIX``): still nothing beside anybody's sources.
    """
    if _child_pycache is not None:
        monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(_child_pycache))


@pytest.fixture
def plugin_args(request: pytest.FixtureRequest) -> list[str]:
    """The child run's extra arguments: ``[]``, or ``["-n", "2"]`` for the ``[xdist]`` twin
    of a test marked ``xdist`` (parametrized by ``pytest_generate_tests`` above)."""
    return list(request.param)


class Project:
    """A pytester project: a real git repository mapped to a fake URL, and examples."""

    url = "https://github.com/acme/calc"

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.repo, self.shas = make_repo(pytester.path / "upstream", {"calc.py": CALC, "README.md": "# calc\n"})
        self.rev = self.shas[-1]
        pytester.makeini(
            textwrap.dedent(
                f"""
                [pytest]
                editpred_cache_dir = .editpred-cache
                editpred_repos =
                    {self.url} = upstream/repo
                """
            )
        )

    def example(self, name: str, body: str, *, tags: tuple[str, ...] = (), folder: str = "evals") -> Path:
        front = f'+++\nrepository_url = "{self.url}"\nrevision = "{self.rev}"\n'
        if tags:
            front += "tags = [" + ", ".join(f'"{t}"' for t in tags) + "]\n"
        path = self.pytester.path / folder / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(front + "+++\n\n" + textwrap.dedent(body).lstrip("\n"))
        return path


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


SUB = """
## Edit History

```diff
--- a/calc.py
+++ b/calc.py
@@ -5,2 +5,5 @@
 def mul(a, b):
     return a * b
+
+
+def sub(a, b):
```

## Cursor Position

```calc.py
def sub(a, b):
#             ^[CURSOR_POSITION]
```

## Expected Patch

```diff
--- a/calc.py
+++ b/calc.py
@@ -8,1 +8,2 @@
 def sub(a, b):
+    return a - b
#                ^[CURSOR_POSITION]
```
"""

MakeExample = Callable[..., Path]


def random_edits(
    text: str, data: st.DataObject, pieces: st.SearchStrategy[str], *, least: int, most: int, reach: int
) -> str:
    """``text`` with ``least`` to ``most`` drawn edits, each replacing up to ``reach``
    characters at a drawn place with a drawn piece (for the hypothesis tests that an
    optimisation changes no result)."""
    from hypothesis import strategies as st

    for _ in range(data.draw(st.integers(least, most))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + reach)))
        text = text[:i] + data.draw(pieces) + text[j:]
    return text
