"""Examples as a run names them and their scenes as a run rebuilds them, without pytest.

The commands that work on examples a run saw (``editpred prompt`` shows what the
model was sent, ``editpred judge`` asks a judge about a saved prediction) must see
the example a run saw: loaded under the run's size limit, named as the run names its
items (so a record's ``name`` finds its example in a ``.jsonl`` file of many), its
scene rebuilt from the same repository cache and URL mappings and, for a provider
that reads related files, its related files retrieved as a run retrieves them. One
place does that, so the commands cannot drift apart from each other or from a run.

It never touches the network: the repositories come from the cache and the mappings
only, and a revision a run would have to fetch is that example's one error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from .._exceptions import EditPredError

__all__ = ["NamedExample", "SceneBuilder", "named_examples"]


@dataclass(frozen=True)
class NamedExample:
    """One example of a file: ``run_name`` is the id a run gives its item (a record's
    ``name``), ``name`` the header a command shows (the file; ``file::id`` for a
    line of a ``.jsonl`` file); ``example`` the example, or ``error`` why it cannot
    be read (located in its file)."""

    path: Path
    name: str
    run_name: str
    example: Any = None
    error: EditPredError | None = None


def named_examples(path: Path, max_bytes: int) -> Iterator[NamedExample]:
    """Every example of ``path`` in order, named by the run's rule (``collect.py``:
    ``unique_id`` of the example's id, a line number's for one that cannot be read)."""
    from ..example import example_id, load_examples, unique_id

    several = path.suffix.lower() == ".jsonl"
    taken: set[str] = set()
    for loaded in load_examples(path, max_bytes=max_bytes):
        if isinstance(loaded, EditPredError):
            line = loaded.line if several else None
            run_name = unique_id(f"{path.stem}-{line - 1}" if line is not None else path.stem, taken, path.stem)
            name = f"{path}::{run_name}" if line else str(path)
            yield NamedExample(path, name, run_name, error=loaded.locate(path))
            continue
        run_name = unique_id(example_id(loaded), taken, path.stem)
        yield NamedExample(path, f"{path}::{run_name}" if several else str(path), run_name, example=loaded)


class SceneBuilder:
    """A run's scenes: the repository cache opened offline (a miss names ``command``
    and says a pytest run fills it), and the context retriever when ``retrieval``
    (its ``--type`` values) is given. Close it (or use ``with``) to stop both."""

    def __init__(
        self,
        cache_dir: Path,
        mappings: Any,
        *,
        command: str,
        retrieval: tuple[str, ...] | None = None,
        response_cache: Path | None = None,
        cache_mode: str = "readwrite",
    ) -> None:
        from ..scene import RepositoryCache

        self.repositories = RepositoryCache(
            cache_dir,
            mappings,
            offline=True,
            offline_by=command,
            offline_fill="run the example once with pytest (which fetches it)",
        )
        self.retriever: Any = None
        if retrieval is not None:
            from ..retrieval import ContextRetriever

            self.retriever = ContextRetriever(retrieval, cache_dir=response_cache, cache_mode=cache_mode)

    def scene(self, example: Any) -> Any:
        """The example's scene as a run builds it; an :class:`EditPredError` (not
        located in the example's file: the caller knows where it is) otherwise."""
        from ..retrieval import needs_retrieval
        from ..scene import build_scene

        scene = build_scene(example, self.repositories)
        if self.retriever is not None and needs_retrieval(example):  # as a run does
            scene = replace(scene, example=replace(example, related_files=self.retriever(scene)))
        return scene

    def close(self) -> None:
        self.repositories.close()
        if self.retriever is not None:
            self.retriever.close()

    def __enter__(self) -> SceneBuilder:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
