"""What a model is sent for each example (``editpred prompt``, Zed's ``ep format-prompt``).

Nothing here builds a request of its own: each example goes the way a run takes it,
loaded by :func:`~pytest_editpred.example.load_examples` under the run's size limit,
its scene rebuilt by :func:`~pytest_editpred.scene.build_scene` from the same
repository cache and URL mappings, and its request (``scene.request``, first trial)
handed to the provider's own :meth:`outgoing`, the method whose body a run's
``complete`` sends (:func:`pytest_editpred.providers.request_builder`). So what is
shown is what the model gets.

It never touches the network: the repositories come from the cache and the mappings
only, and a revision a run would have to fetch is that example's one error.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import ConfigError, EditPredError
from .._limits import DEFAULT_LIMITS
from .._settings import Settings

__all__ = ["PromptSettings", "Rendered", "no_prompt", "render_prompts"]

#: The trial whose request is shown: the body does not depend on it (only the
#: response cache's key does), and a run's first item is trial 1.
_TRIAL = 1


@dataclass(frozen=True)
class PromptSettings:
    """What a run would use: the provider settings, the mirror cache, the URL
    mappings, the example size limit, and the folder pytest's rootdir would be (the
    highest folder whose ``conftest.py`` a run loads)."""

    provider: Settings
    cache_dir: Path
    mappings: Mapping[str, Path] = field(default_factory=dict)
    max_example_bytes: int = DEFAULT_LIMITS.max_example_bytes
    root: Path = field(default_factory=Path.cwd)
    #: Context retrieval's ``--type`` values, None when it is off (as a run's).
    retrieval: tuple[str, ...] | None = ("lsp",)


@dataclass(frozen=True)
class Rendered:
    """One example: its name as a header shows it (the file; ``file::id`` for a line
    of a ``.jsonl`` file), and what is sent (``outgoing``: its ``body``, ``prompt``
    and ``wire`` bytes) or why nothing can be shown (``error``, located when it can
    be). ``answered_elsewhere`` is true when a ``conftest.py`` of the example answers
    it with its own ``editpred_completion``: no provider prompt is sent for it."""

    name: str
    outgoing: Any = None
    error: EditPredError | None = None
    answered_elsewhere: bool = False


def no_prompt(provider: str) -> ConfigError:
    """The one line for a provider that sends no prompt."""
    from ..providers import sending

    return ConfigError(
        f"provider {provider!r} sends no prompt: it answers without a model server",
        fix=f"Pick a provider that sends one with --editpred-provider ({', '.join(sending())}); "
        "a run takes ini editpred_provider when the option is not given.",
    )


def render_prompts(paths: Sequence[Path], settings: PromptSettings) -> Iterator[Rendered]:
    """Every example of ``paths``, in order, as the provider would send it.

    Raises :class:`ConfigError` before the first example when the provider cannot
    build a request (unknown provider or prompt format, no model name) or sends no
    prompt (:func:`no_prompt`); every other problem is its example's ``error``.
    """
    from ..providers import reads_related_files, request_builder
    from ._scenes import SceneBuilder, named_examples

    build = request_builder(settings.provider)
    if build is None:
        raise no_prompt(settings.provider.provider)
    provider = settings.provider
    overriding = _ConftestFinder(settings.root)
    with SceneBuilder(
        settings.cache_dir,
        settings.mappings,
        command="editpred prompt",
        retrieval=settings.retrieval if reads_related_files(provider) else None,
        response_cache=provider.cache_dir,
        cache_mode=provider.cache_mode,
    ) as scenes:
        for path in paths:
            conftest = overriding.of(path)
            for named in named_examples(path, settings.max_example_bytes):
                if named.error is not None:
                    yield Rendered(named.name, error=named.error)
                    continue
                if conftest is not None:
                    yield Rendered(named.name, error=_answered_by(conftest, provider.provider), answered_elsewhere=True)
                    continue
                try:
                    outgoing = build(scenes.scene(named.example).request(_TRIAL))
                except EditPredError as error:  # the scene, or a format that sends nothing here
                    yield Rendered(named.name, error=error.locate(path, named.example.source.line))
                    continue
                yield Rendered(named.name, outgoing=outgoing)


def _answered_by(conftest: tuple[Path, int], provider: str) -> ConfigError:
    where, line = conftest
    return ConfigError(
        f"{where}:{line} defines its own editpred_completion, which answers this example in a run, "
        f"not provider {provider!r}: what it sends (if anything) is its own",
        fix="Run the example with pytest to see what that function does, or show the provider's prompt "
        "for a copy of the example outside that folder.",
    )


class _ConftestFinder:
    """The ``conftest.py`` a run loads for an example that overrides the
    ``editpred_completion`` fixture: those of the example's folder and its parents,
    but not the folders above the rootdir (pytest's default ``confcutdir``), each read
    once."""

    def __init__(self, root: Path) -> None:
        self.above = Path(os.path.abspath(root)).parents
        self._seen: dict[Path, int | None] = {}

    def of(self, path: Path) -> tuple[Path, int] | None:
        folder = Path(os.path.abspath(path)).parent
        for candidate in (folder, *folder.parents):
            if candidate in self.above:
                return None
            conftest = candidate / "conftest.py"
            if conftest not in self._seen:
                self._seen[conftest] = _definition(conftest)
            line = self._seen[conftest]
            if line is not None:
                return conftest, line
        return None


def _definition(conftest: Path) -> int | None:
    try:
        tree = ast.parse(conftest.read_bytes(), str(conftest))
    except (OSError, SyntaxError, ValueError):
        return None  # none there, or a run fails on it first
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "editpred_completion":
            return node.lineno
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(target, ast.Name) and target.id == "editpred_completion" for target in targets):
            return node.lineno
    return None
