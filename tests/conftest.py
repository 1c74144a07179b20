"""Shared fixtures: pytester, xdist on and off, and a small project with a real repo."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

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

    async def connect_once() -> None:  # httpx imports httpcore and anyio on first use
        async with httpx.AsyncClient() as client:
            try:
                await client.get("http://127.0.0.1:9/", timeout=1)
            except httpx.HTTPError:
                pass

    asyncio.run(connect_once())


_import_everything()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Inside the README test's own run of the suite, leave that test out (no recursion)."""
    if os.environ.get("EDITPRED_README_NESTED"):
        nested = [i for i in items if i.name == "test_the_two_commands_in_a_fresh_virtual_environment"]
        if nested:
            config.hook.pytest_deselected(items=nested)
            items[:] = [i for i in items if i not in nested]

CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


@pytest.fixture(autouse=True)
def _own_temp_root(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Child pytest processes keep their temporary directories apart from ours.

    Every pytest session keeps only its three newest ``pytest-N`` directories under the
    shared temp root and deletes older ones, so a child session (a subprocess run, the
    README's nested suite) would delete this session's directories while it runs.
    """
    monkeypatch.setenv("PYTEST_DEBUG_TEMPROOT", str(tmp_path_factory.mktemp("child-temp")))


@pytest.fixture(params=[[], ["-n", "2"]], ids=["plain", "xdist"])
def plugin_args(request: pytest.FixtureRequest) -> list[str]:
    """Every integration test runs plainly and under ``-n 2`` (as syrupy does)."""
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


def random_edits(text: str, data: st.DataObject, pieces: st.SearchStrategy[str], *, least: int, most: int, reach: int) -> str:
    """``text`` with ``least`` to ``most`` drawn edits, each replacing up to ``reach``
    characters at a drawn place with a drawn piece (for the hypothesis tests that an
    optimisation changes no result)."""
    from hypothesis import strategies as st

    for _ in range(data.draw(st.integers(least, most))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + reach)))
        text = text[:i] + data.draw(pieces) + text[j:]
    return text
