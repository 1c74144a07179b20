"""The prefetch engine: order, bounded concurrency, demand, errors, cancellation.

Concurrency is measured, not timed: every fake completion counts the calls in flight
under a lock and records the peak, and calls are held at barriers or events so the
peak is reached on purpose. No assertion depends on how long anything takes; the
timeouts only keep a broken engine from hanging the suite.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest

from pytest_editpred._engine import Prefetcher, call_once

WAIT = 10.0  # seconds; only ever reached when something is broken


class Gauge:
    """Counts calls in flight and remembers the peak; logs the order calls start in."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.now = 0
        self.peak = 0
        self.started: list[Any] = []

    def enter(self, key: object) -> None:
        with self._lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.started.append(key)

    def leave(self) -> None:
        with self._lock:
            self.now -= 1


class AsyncBarrier:
    """Lets waiters through in groups of ``parties`` (asyncio.Barrier is 3.11+)."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self.waiting = 0
        self.event: asyncio.Event | None = None

    async def wait(self) -> None:
        if self.event is None:
            self.event = asyncio.Event()
        event = self.event
        self.waiting += 1
        if self.waiting == self.parties:
            self.waiting = 0
            self.event = asyncio.Event()
            event.set()
        else:
            await asyncio.wait_for(event.wait(), WAIT)


def wait_until(condition: threading.Event) -> None:
    assert condition.wait(WAIT), "timed out: the engine is stuck"


# -- order and results ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_results_come_back_in_order_and_correct(kind: str) -> None:
    if kind == "sync":

        def call(key: int) -> int:
            return key * key

    else:

        async def call(key: int) -> int:  # type: ignore[misc]
            await asyncio.sleep(0)
            return key * key

    keys = list(range(100))
    with Prefetcher(call, keys, concurrency=8) as prefetcher:
        assert [prefetcher.result(k, timeout=WAIT) for k in keys] == [k * k for k in keys]


def test_sync_callable_returning_an_awaitable_is_awaited() -> None:
    async def square(key: int) -> int:
        return key * key

    with Prefetcher(lambda key: square(key), range(10), concurrency=3) as prefetcher:
        assert [prefetcher.result(k, timeout=WAIT) for k in range(10)] == [k * k for k in range(10)]


def test_async_callable_object_runs_on_the_loop() -> None:
    class Model:
        async def __call__(self, key: int) -> str:
            return threading.current_thread().name

    with Prefetcher(Model(), [1], concurrency=1) as prefetcher:
        assert prefetcher.result(1, timeout=WAIT) == "editpred-completions"


def test_results_are_kept_and_not_recomputed() -> None:
    calls: list[int] = []

    def call(key: int) -> int:
        calls.append(key)
        return key

    with Prefetcher(call, [1, 2, 2, 3], concurrency=2) as prefetcher:
        assert [prefetcher.result(k, timeout=WAIT) for k in (1, 2, 3, 2, 1)] == [1, 2, 3, 2, 1]
    assert sorted(calls) == [1, 2, 3]  # the repeated key too is called once


def test_a_forgotten_result_is_let_go_and_made_again_if_asked_again() -> None:
    # The plugin forgets each item's result once taken: a long run must not keep
    # every scene alive in the prefetcher.
    import gc
    import weakref

    class Value:
        def __init__(self, key: int) -> None:
            self.key = key

    calls: list[int] = []

    def call(key: int) -> Value:
        calls.append(key)
        return Value(key)

    with Prefetcher(call, [1, 2], concurrency=1) as prefetcher:
        first = prefetcher.result(1, timeout=WAIT)
        alive = weakref.ref(first)
        prefetcher.forget(1)
        del first
        gc.collect()
        assert alive() is None  # nothing in the prefetcher holds it
        assert prefetcher.result(2, timeout=WAIT).key == 2
        assert prefetcher.result(1, timeout=WAIT).key == 1  # asked again: called again
    assert sorted(calls) == [1, 1, 2]


# -- bounded concurrency ------------------------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 4, 8])
def test_sync_max_in_flight_is_concurrency(concurrency: int) -> None:
    """Each call waits at a barrier of ``concurrency`` parties: the run only gets
    through if that many calls can be in flight together, and the gauge shows
    whether more ever were."""
    gauge = Gauge()
    barrier = threading.Barrier(concurrency, timeout=WAIT)

    def call(key: int) -> int:
        gauge.enter(key)
        try:
            barrier.wait()
            return key
        finally:
            gauge.leave()

    keys = list(range(concurrency * 6))
    with Prefetcher(call, keys, concurrency=concurrency) as prefetcher:
        assert [prefetcher.result(k, timeout=WAIT) for k in keys] == keys
    assert gauge.peak == concurrency
    assert gauge.started[:concurrency] == keys[:concurrency]  # in key order


@pytest.mark.parametrize("concurrency", [1, 4, 8])
def test_async_max_in_flight_is_concurrency(concurrency: int) -> None:
    gauge = Gauge()
    barrier = AsyncBarrier(concurrency)  # all calls share the one completion loop

    async def call(key: int) -> int:
        gauge.enter(key)
        try:
            await barrier.wait()
            return key
        finally:
            gauge.leave()

    keys = list(range(concurrency * 6))
    with Prefetcher(call, keys, concurrency=concurrency) as prefetcher:
        assert [prefetcher.result(k, timeout=WAIT) for k in keys] == keys
    assert gauge.peak == concurrency
    assert gauge.started == keys  # tasks are started in key order


def settle_loop() -> None:
    """Let the completion loop run 50 rounds: any chain of callbacks already under way
    there (a task ending, the scheduler starting the next) has then run its course."""

    async def rounds(_: object) -> None:
        for _ in range(50):
            await asyncio.sleep(0)

    call_once(rounds, None)


def test_prefetching_stops_at_the_lookahead() -> None:
    """Only ``lookahead`` keys past the consumer's position are started, however fast
    the calls are. Async calls, so all the scheduling happens on the loop and
    settle_loop() can wait for it to be over."""
    gauge = Gauge()
    started = {k: threading.Event() for k in range(100)}

    async def call(key: int) -> int:
        gauge.enter(key)
        gauge.leave()
        started[key].set()
        return key

    with Prefetcher(call, range(100), concurrency=2, lookahead=4) as prefetcher:
        wait_until(started[3])
        settle_loop()
        assert gauge.started == [0, 1, 2, 3]  # the consumer has not asked yet: 0..3
        assert prefetcher.result(0, timeout=WAIT) == 0
        wait_until(started[4])
        settle_loop()
        assert gauge.started == [0, 1, 2, 3, 4]  # window 1..4
        assert prefetcher.result(10, timeout=WAIT) == 10  # a jump: window 11..14
        wait_until(started[14])
        settle_loop()
        assert gauge.started == [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]


def test_extended_keys_are_prefetched_in_turn_within_the_same_slots() -> None:
    """An xdist worker learns of more items while it runs: :meth:`Prefetcher.extend`
    adds them after the known keys, prefetched as the window reaches them, without a
    second set of slots (a second prefetcher would double the calls in flight)."""
    gauge = Gauge()
    barrier = AsyncBarrier(3)

    async def call(key: int) -> int:
        gauge.enter(key)
        try:
            await barrier.wait()
            return key
        finally:
            gauge.leave()

    with Prefetcher(call, [0, 1, 2], concurrency=3) as prefetcher:
        assert prefetcher.result(0, timeout=WAIT) == 0
        prefetcher.extend([2, 3, 4, 5])  # 2 is known: left where it is
        assert 5 in prefetcher and 6 not in prefetcher
        # 3, 4 and 5 start without being asked for: the barrier of 3 lets them through
        # together only if all three are in flight at once, and never more than three.
        assert [prefetcher.result(k, timeout=WAIT) for k in (1, 2, 3, 4, 5)] == [1, 2, 3, 4, 5]
    assert gauge.peak == 3
    assert gauge.started == [0, 1, 2, 3, 4, 5]


def test_extend_after_cancel_starts_nothing() -> None:
    gauge = Gauge()

    async def call(key: int) -> int:
        gauge.enter(key)
        gauge.leave()
        return key

    with Prefetcher(call, [], concurrency=2) as prefetcher:
        prefetcher.cancel()
        prefetcher.extend([1, 2])
        settle_loop()
        assert 1 not in prefetcher
    assert gauge.started == []


# -- demand ---------------------------------------------------------------------------


def test_key_asked_out_of_order_gets_the_next_free_slot() -> None:
    gauge = Gauge()
    release = {k: threading.Event() for k in range(100)}
    started = {k: threading.Event() for k in range(100)}

    def call(key: int) -> int:
        gauge.enter(key)
        started[key].set()
        try:
            wait_until(release[key])
            return key
        finally:
            gauge.leave()

    with Prefetcher(call, range(100), concurrency=2) as prefetcher:
        wait_until(started[0])
        wait_until(started[1])
        with pytest.raises(concurrent.futures.TimeoutError):
            prefetcher.result(50, timeout=0)  # asks for 50, now first in line
        release[0].set()
        wait_until(started[50])
        assert gauge.started[:3] == [0, 1, 50]
        release[50].set()
        assert prefetcher.result(50, timeout=WAIT) == 50
        wait_until(started[51])  # prefetching goes on after the consumer's position
        assert 2 not in gauge.started  # ... not behind it
        assert prefetcher.result(0, timeout=WAIT) == 0
        for event in release.values():
            event.set()
        assert prefetcher.result(2, timeout=WAIT) == 2  # a skipped key still runs when asked
    assert gauge.peak == 2


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_key_not_in_keys_is_called_on_demand(kind: str) -> None:
    calls: list[str] = []
    if kind == "sync":

        def call(key: str) -> str:
            calls.append(key)
            return key.upper()

    else:

        async def call(key: str) -> str:  # type: ignore[misc]
            calls.append(key)
            return key.upper()

    no_keys: list[str] = []
    with Prefetcher(call, no_keys, concurrency=2) as prefetcher:
        assert prefetcher.result("extra", timeout=WAIT) == "EXTRA"
    assert calls == ["extra"]


# -- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_exception_is_reraised_for_its_key_only(kind: str) -> None:
    errors = {3: ValueError("bad three"), 7: KeyError("bad seven")}

    def fail_or_return(key: int) -> int:
        if key in errors:
            raise errors[key]
        return key

    if kind == "sync":
        call = fail_or_return
    else:

        async def call(key: int) -> int:  # type: ignore[misc]
            await asyncio.sleep(0)
            return fail_or_return(key)

    with Prefetcher(call, range(10), concurrency=4) as prefetcher:
        for key in range(10):
            if key in errors:
                with pytest.raises(type(errors[key])) as raised:
                    prefetcher.result(key, timeout=WAIT)
                assert raised.value is errors[key]
                frames = [frame.name for frame in traceback.extract_tb(raised.value.__traceback__)]
                assert "fail_or_return" in frames  # the original traceback is intact
            else:
                assert prefetcher.result(key, timeout=WAIT) == key


# -- cancellation -------------------------------------------------------------------------


def test_cancel_stops_sync_calls_at_once_and_pending_ones_never_start() -> None:
    gauge = Gauge()
    gate = threading.Event()
    both_in = threading.Barrier(3, timeout=WAIT)
    returned = threading.Barrier(3, timeout=WAIT)

    def call(key: int) -> int:
        gauge.enter(key)
        both_in.wait()
        gate.wait(WAIT)
        gauge.leave()
        returned.wait()
        return key

    prefetcher: Prefetcher[Any, int] = Prefetcher(call, range(20), concurrency=2)
    both_in.wait()  # keys 0 and 1 are in flight and blocked
    prefetcher.cancel()
    prefetcher.cancel()  # idempotent
    for key in (0, 1, 5, "not a key"):  # in flight, pending, unknown: none waits
        with pytest.raises(concurrent.futures.CancelledError):
            prefetcher.result(key, timeout=0)
    gate.set()
    returned.wait()  # the in-flight calls finished in the background ...
    prefetcher.close()  # ... and close() let the loop see them through
    with pytest.raises(concurrent.futures.CancelledError):
        prefetcher.result(0)  # ... their results were dropped
    assert sorted(gauge.started) == [0, 1]


def test_cancel_cancels_async_calls_in_flight() -> None:
    gauge = Gauge()
    in_flight = {k: threading.Event() for k in range(2)}
    saw_cancel = {k: threading.Event() for k in range(2)}

    async def call(key: int) -> int:
        gauge.enter(key)
        in_flight[key].set()
        try:
            await asyncio.Event().wait()  # never set
        except asyncio.CancelledError:
            saw_cancel[key].set()
            raise
        return key

    prefetcher = Prefetcher(call, range(20), concurrency=2)
    wait_until(in_flight[0])
    wait_until(in_flight[1])
    prefetcher.cancel()
    wait_until(saw_cancel[0])
    wait_until(saw_cancel[1])
    for key in (0, 1, 2, 19):
        with pytest.raises(concurrent.futures.CancelledError):
            prefetcher.result(key, timeout=0)
    prefetcher.close()
    assert sorted(gauge.started) == [0, 1]


def test_call_that_cancels_itself_reads_as_cancelled() -> None:
    async def call(key: int) -> int:
        if key == 1:
            raise asyncio.CancelledError
        return key

    with Prefetcher(call, range(3), concurrency=2) as prefetcher:
        with pytest.raises(concurrent.futures.CancelledError):
            prefetcher.result(1, timeout=WAIT)
        assert prefetcher.result(2, timeout=WAIT) == 2  # the others are not affected


def test_finished_results_survive_cancel() -> None:
    prefetcher = Prefetcher(lambda key: key + 1, range(3), concurrency=1)
    assert prefetcher.result(0, timeout=WAIT) == 1
    prefetcher.close()
    assert prefetcher.result(0) == 1


def close_in_thread(prefetcher: Prefetcher[int, int]) -> bool:
    """Whether close() returned (within WAIT seconds)."""
    closer = threading.Thread(target=prefetcher.close, daemon=True)
    closer.start()
    closer.join(WAIT)
    return not closer.is_alive()


def test_close_never_hangs_on_a_sync_call_blocked_for_good() -> None:
    never = threading.Event()
    entered = threading.Event()

    def call(key: int) -> int:
        entered.set()
        never.wait()
        return key

    prefetcher = Prefetcher(call, range(5), concurrency=1)
    try:
        wait_until(entered)
        assert close_in_thread(prefetcher)
        prefetcher.close()  # idempotent
        with pytest.raises(concurrent.futures.CancelledError):
            prefetcher.result(0)
    finally:
        never.set()  # only so the daemon thread does not outlive this test


def test_process_exits_with_a_sync_call_blocked_for_good() -> None:
    """Left-behind calls must not hold the interpreter at exit (as ThreadPoolExecutor's
    workers would): the engine's threads are daemons."""
    script = (
        "import threading\n"
        "from pytest_editpred._engine import Prefetcher\n"
        "entered = threading.Event()\n"
        "def call(key):\n"
        "    entered.set()\n"
        "    threading.Event().wait()\n"
        "p = Prefetcher(call, range(4), concurrency=2)\n"
        "assert entered.wait(10)\n"
        "p.close()\n"
        "print('closed')\n"
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=WAIT * 3,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "closed"), done.stderr


def test_close_never_hangs_on_an_async_call_blocked_for_good() -> None:
    entered = threading.Event()
    saw_cancel = threading.Event()

    async def call(key: int) -> int:
        entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)  # cleanup that takes a while, like closing a socket
            saw_cancel.set()
            raise
        return key

    prefetcher = Prefetcher(call, range(5), concurrency=1)
    wait_until(entered)
    assert close_in_thread(prefetcher)
    assert saw_cancel.is_set()  # close() waited for the call to unwind


@pytest.mark.skipif(sys.platform == "win32", reason="needs pthread_kill")
def test_ctrl_c_while_waiting_cancels_everything() -> None:
    """A real SIGINT, sent once the main thread is seen blocked inside result()."""
    main = threading.main_thread()
    blocked = threading.Event()
    in_flight = threading.Event()

    def call(key: int) -> int:
        in_flight.set()
        blocked.wait(WAIT)
        return key

    def interrupt_when_waiting() -> None:
        for _ in range(100_000):
            frame = sys._current_frames().get(main.ident)  # type: ignore[arg-type]
            names = set()
            while frame is not None:
                names.add(frame.f_code.co_name)
                frame = frame.f_back
            if {"result", "wait"} <= names:
                signal.pthread_kill(main.ident, signal.SIGINT)  # type: ignore[arg-type]
                return
            threading.Event().wait(0.001)

    prefetcher = Prefetcher(call, range(10), concurrency=1)
    try:
        wait_until(in_flight)
        threading.Thread(target=interrupt_when_waiting, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            prefetcher.result(0, timeout=WAIT)
        with pytest.raises(concurrent.futures.CancelledError):
            prefetcher.result(5)  # cancelled, not started
    finally:
        blocked.set()
        prefetcher.close()


# -- call_once ------------------------------------------------------------------------


def test_call_once_sync_runs_in_this_thread() -> None:
    assert call_once(lambda key: (key, threading.current_thread()), 1) == (
        1,
        threading.current_thread(),
    )


def test_call_once_async_and_a_loop_bound_resource_survives() -> None:
    """The second call awaits a future made by the first: fine only on one loop."""
    shared: dict[str, asyncio.Future[int]] = {}

    async def call(key: int) -> int:
        if "f" not in shared:
            shared["f"] = asyncio.get_running_loop().create_future()
            shared["f"].set_result(40)
        return await shared["f"] + key

    assert call_once(call, 1) == 41
    assert call_once(call, 2) == 42


def test_call_once_reraises_the_original_exception() -> None:
    error = RuntimeError("boom")

    async def call(key: int) -> int:
        raise error

    with pytest.raises(RuntimeError) as raised:
        call_once(call, 0)
    assert raised.value is error
