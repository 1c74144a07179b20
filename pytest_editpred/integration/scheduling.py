"""xdist's ``--dist load``, keeping each worker sent enough examples to keep its
requests in flight.

A worker prefetches the examples it has been sent, ``--editpred-concurrency`` at a
time, and nothing beyond them. ``LoadScheduling`` sends a worker more items only when
its queue falls under a quarter of its share of what is left (so ever fewer towards
the end), and not at all after an item that took 0.1 s or more while two are still
queued ("seems the node is doing long-running tests"). An example's time is mostly
the model's latency, which the worker overlaps with its other examples', so both
rules starve its prefetch: with a 1 s server and 36 examples, two workers held 9
requests in flight where 12 were allowed, and a 2,000-example run's requests
dwindled over its last seconds. Here, while the collection holds examples, a worker
is topped up to two windows of items (its prefetch's look-ahead) after xdist's own
rule has run, and an example's duration does not count. Every item is still sent to
one worker only: no stealing, since a stolen item may already have been asked for,
and would be asked twice.
"""

from __future__ import annotations

from typing import Any

from .._exceptions import ConfigError
from .._options import get
from .reporting import _is_example_id


def load_scheduling(config: Any, log: Any) -> Any:
    """xdist's ``LoadScheduling``, with the examples' queues kept full."""
    from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]

    try:
        window = 2 * int(get(config, "concurrency"))
    except (ConfigError, TypeError, ValueError):  # the run reports the bad value itself
        window = 0

    class ExampleLoadScheduling(LoadScheduling):  # type: ignore[misc]  # xdist is untyped here
        examples: bool | None = None

        def schedule(self) -> None:
            super().schedule()
            for node in self.nodes:
                self._top_up(node)

        def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
            if _is_example_id(self.collection[item_index]):
                duration = 0
            super().mark_test_complete(node, item_index, duration)
            self._top_up(node)

        def _top_up(self, node: Any) -> None:
            if self.examples is None and self.collection is not None:
                self.examples = any(_is_example_id(nodeid) for nodeid in self.collection)
            if not self.examples or not self.pending or node.shutting_down:
                return
            short = window - len(self.node2pending[node])
            if short > 0:
                self._send_tests(node, short)

    return ExampleLoadScheduling(config, log)
