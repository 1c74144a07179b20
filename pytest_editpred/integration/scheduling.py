"""Under xdist, a scheduling that lets each worker keep its requests in flight.

A worker prefetches the predictions of the items it knows it will run
(:meth:`.runner.Run.predict`), so its requests in flight are at most the items
queued on it. xdist's default, ``--dist load``, queues few: a share of what is left,
and nothing more while the worker is busy with items that took over 0.1 s, which an
item waiting for its prediction does. Then fewer items are queued, fewer predictions
run ahead, more items wait: measured with 2 workers, 2,000 examples and a 500 ms
server, the run took 3.5 to 7.5 times the latency bound where one process took 1.7
(``bench/bench_provider.py``). ``--dist worksteal`` hands each worker its whole share
at once and moves items only from a worker with many left to one with none, so every
worker prefetches from its whole share.

So when the user did not choose a ``--dist`` and the collected items include
examples, the run is scheduled as ``--dist worksteal``. Which items exist is known
only when the first worker reports its collection (the controller collects nothing),
so :class:`ExampleScheduling` holds the workers until then and picks there.
"""

from __future__ import annotations

import os
import shlex
from typing import Any

import pytest

__all__ = ["ExampleScheduling", "scheduler_for"]


def scheduler_for(config: pytest.Config, log: Any) -> Any:
    """The run's scheduler, or None to leave it to xdist (a ``--dist`` was chosen)."""
    if config.getoption("dist", None) != "load" or _dist_chosen(config):
        return None
    return ExampleScheduling(config, log)


def _dist_chosen(config: pytest.Config) -> bool:
    """Did the command line, ``PYTEST_ADDOPTS`` or the ini's ``addopts`` choose a
    ``--dist`` (``--dist``, ``--dist=...``, ``--distload``, ``-d``)? xdist turns no
    choice into ``load``, so the parsed value cannot tell."""
    try:
        words = [
            *shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
            *config.getini("addopts"),
            *config.invocation_params.args,
        ]
    except ValueError:  # an unbalanced quote in PYTEST_ADDOPTS: assume a choice
        return True
    return any(str(word).startswith("--dist") or str(word) == "-d" for word in words)


def _is_example_id(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0].lower().endswith((".md", ".json", ".jsonl"))


class ExampleScheduling:
    """xdist's ``worksteal`` scheduling when the collection holds examples, else its
    ``load`` (what it would have used); decided at the first collection reported."""

    def __init__(self, config: pytest.Config, log: Any) -> None:
        self._config, self._log = config, log
        self._nodes: list[Any] = []
        self._chosen: Any = None

    def _choose(self, collection: Any) -> Any:
        from xdist.scheduler import LoadScheduling, WorkStealingScheduling  # type: ignore[import-untyped]

        kind = WorkStealingScheduling if any(_is_example_id(str(nodeid)) for nodeid in collection) else LoadScheduling
        chosen = kind(self._config, self._log)
        for node in self._nodes:
            chosen.add_node(node)
        self._chosen = chosen
        return chosen

    # The protocol's members, until the first collection decides.

    @property
    def nodes(self) -> list[Any]:
        return self._chosen.nodes if self._chosen is not None else list(self._nodes)

    @property
    def collection_is_completed(self) -> bool:
        return self._chosen is not None and bool(self._chosen.collection_is_completed)

    @property
    def tests_finished(self) -> bool:
        return self._chosen is not None and bool(self._chosen.tests_finished)

    @property
    def has_pending(self) -> bool:
        return self._chosen is None or bool(self._chosen.has_pending)

    def add_node(self, node: Any) -> None:
        if self._chosen is not None:
            self._chosen.add_node(node)
        else:
            self._nodes.append(node)

    def remove_node(self, node: Any) -> str | None:
        if self._chosen is not None:
            return self._chosen.remove_node(node)  # type: ignore[no-any-return]
        self._nodes.remove(node)
        return None

    def add_node_collection(self, node: Any, collection: Any) -> None:
        chosen = self._chosen if self._chosen is not None else self._choose(collection)
        chosen.add_node_collection(node, collection)

    def __getattr__(self, name: str) -> Any:
        # schedule, mark_test_complete, ...: called once the collection is reported.
        if name.startswith("_") or self.__dict__.get("_chosen") is None:
            raise AttributeError(name)
        return getattr(self._chosen, name)
