"""Run completion calls ahead of pytest, N in flight, results handed back in order.

pytest runs items one at a time, but a completion call mostly waits on a model
server (100 ms to seconds). :class:`Prefetcher` starts the calls of the next items
while the current one is being reported, so a run takes about
``len(keys) × latency ÷ concurrency`` rather than ``len(keys) × latency``. It knows
nothing of pytest: a key is whatever names an item, and ``call(key)`` makes the request.

Every call is driven from one process-wide event loop in a daemon thread. Async
completion functions run there as tasks; sync ones run in a small pool of daemon
threads and are awaited from that loop. So one scheduler serves both kinds, and
cancellation works the same way for both.

Why one loop for the whole process, not one per :class:`Prefetcher` or per call:
completion functions often keep an ``httpx.AsyncClient`` (or similar) in a global,
and it binds to the first loop that uses it. With one loop for the life of the
process, that client keeps working across prefetchers and :func:`call_once`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import queue
import threading
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from typing import Any, Generic, TypeVar, overload

__all__ = ["Prefetcher", "call_once", "close_on_completion_loop"]

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")

#: How long close() waits for cancelled async calls to unwind (their ``finally``
#: blocks, closing connections) before giving up on them.
_DRAIN_SECONDS = 1.0


# Two signatures so a type checker finds R both for ``async def f(k) -> int`` (the
# first) and for a completion typed ``Callable[[K], R | Awaitable[R]]`` (the second).
@overload
def call_once(call: Callable[[K], Awaitable[R]], key: K) -> R: ...
@overload
def call_once(call: Callable[[K], R | Awaitable[R]], key: K) -> R: ...
def call_once(call: Callable[[K], Any], key: K) -> Any:
    """Run ``call(key)`` to the end in this thread, whether ``call`` is sync or async.

    The plugin uses this when prefetching is off. An awaitable runs on the shared
    completion loop (see the module docstring), not under a fresh ``asyncio.run``:
    a client cached by the completion function would otherwise be bound to a loop
    that is already closed by the second call.
    """
    value = call(key)
    if not inspect.isawaitable(value):
        return value
    loop, thread = _completion_loop()
    if threading.current_thread() is thread:
        if inspect.iscoroutine(value):
            value.close()  # no "never awaited" warning on top of the error
        raise RuntimeError("call_once() cannot wait for a completion from inside one")
    done = asyncio.run_coroutine_threadsafe(_await(value), loop)
    try:
        result = done.result()
    except BaseException:
        done.cancel()  # a no-op if the call itself failed; stops it on Ctrl-C
        raise
    return result


class Prefetcher(Generic[K, R]):
    """Runs ``call(key)`` for ``keys`` in order, at most ``concurrency`` at a time,
    ahead of the consumer, who takes results with :meth:`result`.

    Scheduling: a free slot goes first to a key the consumer is waiting for, then to
    the next key, in ``keys`` order, after the one the consumer last asked for, at
    most ``lookahead`` (default ``2 × concurrency``) past it. The bound keeps memory
    and the work thrown away by :meth:`cancel` small on long runs; keys the consumer
    skips are not prefetched, but run when asked for. Prefetching starts at once.

    With ``concurrency=1`` calls never overlap, as when calling in a plain loop; the
    next key still starts as soon as the current one is done, one ahead of pytest.

    Results and exceptions are kept until the :class:`Prefetcher` is dropped or
    :meth:`forget` lets go of them, so asking again for a key gives the same answer
    without calling again.
    """

    @overload
    def __init__(
        self,
        call: Callable[[K], Awaitable[R]],
        keys: Sequence[K],
        concurrency: int = ...,
        *,
        lookahead: int | None = ...,
    ) -> None: ...
    @overload
    def __init__(
        self,
        call: Callable[[K], R | Awaitable[R]],
        keys: Sequence[K],
        concurrency: int = ...,
        *,
        lookahead: int | None = ...,
    ) -> None: ...
    def __init__(
        self,
        call: Callable[[K], Any],
        keys: Sequence[K],
        concurrency: int = 8,
        *,
        lookahead: int | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        if lookahead is None:
            lookahead = 2 * concurrency
        if lookahead < 0:
            raise ValueError(f"lookahead must be at least 0, not {lookahead}")
        self._call = call
        self._keys = list(keys)
        self._index: dict[K, int] = {}
        for position, key in enumerate(self._keys):
            self._index.setdefault(key, position)  # a repeated key is called once
        self._concurrency = concurrency
        self._lookahead = lookahead

        # Everything below is guarded by _lock: result() may be called from any
        # thread, the scheduler runs on the loop thread.
        self._lock = threading.Lock()
        self._futures: dict[K, concurrent.futures.Future[R]] = {}
        self._started: set[K] = set()
        self._demanded: deque[K] = deque()
        self._tasks: set[asyncio.Task[None]] = set()
        self._position = -1  # index of the key the consumer asked for last
        self._scan = 0  # no key before this index (and after _position) is unstarted
        self._cancelled = False
        self._closed = False

        # A sync callable that returns an awaitable is treated as sync: the call runs
        # in a thread and the awaitable it returns is then awaited on the loop.
        self._pool: _DaemonPool | None = None
        if not _is_async_callable(call):
            self._pool = _DaemonPool(concurrency)
            weakref.finalize(self, self._pool.stop)  # idle threads end with us
        self._loop, self._loop_thread = _completion_loop()
        self._loop.call_soon_threadsafe(self._pump)

    def __enter__(self) -> Prefetcher[K, R]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def result(self, key: K, timeout: float | None = None) -> R:
        """The value of ``call(key)``, waiting for it if need be.

        An exception raised by the call is re-raised here, the same object with its
        traceback. A key not started yet, in ``keys`` or not, goes first in line for
        the next free slot. Raises ``concurrent.futures.CancelledError`` once
        :meth:`cancel` has stopped the key, and ``concurrent.futures.TimeoutError``
        (the built-in ``TimeoutError`` from 3.11) after ``timeout`` seconds, while the
        call goes on. Ctrl-C while waiting cancels everything: no work outlives the run.
        """
        future = self._demand(key)
        try:
            return future.result(timeout)
        except KeyboardInterrupt:
            self.cancel()
            raise

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is one of the keys (given or added by :meth:`extend`)."""
        return key in self._index

    def extend(self, keys: Iterable[K]) -> None:
        """Add ``keys`` after the last ones, prefetched in turn as the window reaches
        them: the consumer learned of more work (an xdist worker is sent more items),
        and a second prefetcher would double the calls in flight. Keys already known
        are left where they are."""
        with self._lock:
            if self._cancelled:
                return
            for key in keys:
                if key not in self._index:
                    self._index[key] = len(self._keys)
                    self._keys.append(key)
        self._loop.call_soon_threadsafe(self._pump)

    def forget(self, key: K) -> None:
        """Let go of ``key``'s result once it is taken: a long run must not keep every
        result alive. A done key only; asked for again, it is called again."""
        with self._lock:
            future = self._futures.get(key)
            if future is not None and future.done():
                del self._futures[key]
                self._started.discard(key)

    def cancel(self) -> None:
        """Stop everything outstanding now; idempotent and final.

        Calls not started never start. Async calls in flight are cancelled (they see
        ``asyncio.CancelledError``); sync ones cannot be interrupted, so they finish
        in the background and their results are dropped. Results already made stay.
        """
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            self._demanded.clear()
            futures = list(self._futures.values())
        for future in futures:
            future.cancel()  # no-op on done ones; ours never enter RUNNING
        self._loop.call_soon_threadsafe(self._cancel_tasks)

    def close(self) -> None:
        """Cancel, give cancelled async calls a moment to unwind, let the threads go.

        Never hangs: a call that ignores cancellation, or a sync call blocked for
        good, is left behind in a daemon thread that cannot keep the process alive.
        """
        self.cancel()
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if threading.current_thread() is not self._loop_thread:
            drained = asyncio.run_coroutine_threadsafe(self._drain(), self._loop)
            try:
                drained.result(_DRAIN_SECONDS + 0.5)
            except concurrent.futures.TimeoutError:  # the loop is blocked: leave it
                drained.cancel()
        if self._pool is not None:
            self._pool.stop()

    # -- consumer side (any thread) ---------------------------------------------

    def _demand(self, key: K) -> concurrent.futures.Future[R]:
        """The future for ``key``; put ``key`` first in line and move the window."""
        with self._lock:
            index = self._index.get(key)
            if index is not None and index != self._position:
                self._position = index
                self._scan = index + 1
            future = self._futures.get(key)
            if future is None:
                future = self._futures[key] = concurrent.futures.Future()
                if self._cancelled:
                    future.cancel()
            if self._cancelled:
                return future
            if key not in self._started:
                self._demanded.append(key)
            elif len(self._tasks) >= self._concurrency:
                # Nothing can start now, and the next task to end pumps with the
                # window moved: waking the loop thread would only take it off its work.
                return future
        self._loop.call_soon_threadsafe(self._pump)
        return future

    # -- scheduler (loop thread) --------------------------------------------------

    def _pump(self) -> None:
        """Start calls while a slot is free."""
        with self._lock:
            while not self._cancelled and len(self._tasks) < self._concurrency:
                key = self._next_key()
                if key is _NOTHING:
                    return
                self._started.add(key)
                future = self._futures.get(key)
                if future is None:
                    future = self._futures[key] = concurrent.futures.Future()
                task = self._loop.create_task(self._run(key, future))
                task.add_done_callback(functools.partial(self._task_done, future))
                self._tasks.add(task)

    def _next_key(self) -> Any:
        """The consumer's oldest waiting demand, else the next key in the window."""
        while self._demanded:
            key = self._demanded.popleft()
            if key not in self._started:
                return key
        end = min(len(self._keys), self._position + 1 + self._lookahead)
        while self._scan < end:
            key = self._keys[self._scan]
            self._scan += 1
            if key not in self._started:
                return key
        return _NOTHING

    async def _run(self, key: K, future: concurrent.futures.Future[R]) -> None:
        try:
            if self._pool is None:
                value: Any = self._call(key)
            else:
                value = await asyncio.wrap_future(self._pool.submit(self._call, key))
            if inspect.isawaitable(value):
                value = await value
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # noqa: BLE001  (stored: it belongs to this key)
            _settle(future.set_exception, error)
        else:
            _settle(future.set_result, value)

    def _task_done(self, future: concurrent.futures.Future[R], task: asyncio.Task[None]) -> None:
        # Also runs for a task cancelled before its first step, whose body never ran.
        if task.cancelled():
            future.cancel()
        with self._lock:
            self._tasks.discard(task)
        self._pump()

    def _cancel_tasks(self) -> None:
        with self._lock:
            tasks = list(self._tasks)
        for task in tasks:
            task.cancel()

    async def _drain(self) -> None:
        # No second task.cancel() here: cancel() has already queued one ahead of us,
        # and another would interrupt the calls' own cleanup.
        with self._lock:
            tasks = list(self._tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=_DRAIN_SECONDS)


_NOTHING: Any = object()


def _settle(setter: Callable[[Any], None], value: Any) -> None:
    """Set a future's outcome, unless cancel() got there first: then it's dropped."""
    try:
        setter(value)
    except concurrent.futures.InvalidStateError:
        pass


def _is_async_callable(call: object) -> bool:
    # The second test catches an object whose class has ``async def __call__``.
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(type(call).__call__)


async def _await(awaitable: Awaitable[R]) -> R:
    return await awaitable


# -- the shared loop ------------------------------------------------------------

_loop_lock = threading.Lock()
_loop_state: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None


def _completion_loop() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    """The process-wide completion loop and its daemon thread, started on first use
    (and again if its thread is gone, as in a forked child)."""
    global _loop_state
    with _loop_lock:
        if _loop_state is None or not _loop_state[1].is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=_serve_forever, args=(loop,), name="editpred-completions", daemon=True)
            thread.start()
            _loop_state = (loop, thread)
        return _loop_state


def close_on_completion_loop(close: Callable[[], Awaitable[Any]], timeout: float = _DRAIN_SECONDS) -> None:
    """Await ``close()`` on the completion loop, for at most ``timeout`` seconds.

    What a provider opened there (keep-alive connections) belongs to that loop, which
    runs as long as the process: closed nowhere else, it would wait for the garbage
    collector, which warns of every stream left open, and a process running several
    sessions (an IDE, pytester) would hold the sockets meanwhile. Never raises, never
    hangs; without a running loop there is nothing to close.
    """
    with _loop_lock:
        state = _loop_state
    if state is None or not state[1].is_alive() or threading.current_thread() is state[1]:
        return
    done = asyncio.run_coroutine_threadsafe(_closing(close), state[0])
    try:
        done.result(timeout)
    except concurrent.futures.TimeoutError:
        done.cancel()


async def _closing(close: Callable[[], Awaitable[Any]]) -> None:
    try:
        await close()
    except Exception:  # noqa: BLE001  (closing is best effort: the session is over)
        pass


def _serve_forever(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    loop.run_forever()


# -- threads for sync completion functions ------------------------------------------


class _DaemonPool:
    """A fixed pool of daemon threads, started as needed.

    Why not ``ThreadPoolExecutor``: its workers are joined at interpreter exit, so
    one call stuck for good (a hung socket) would hang pytest's exit long after
    close() returned. Daemon threads are simply left behind. Threads are kept, not
    made per call, so a completion function's thread-local client is reused.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads = 0
        self._lock = threading.Lock()
        self._stopped = False

    def submit(self, fn: Callable[..., R], *args: Any) -> concurrent.futures.Future[R]:
        future: concurrent.futures.Future[R] = concurrent.futures.Future()
        with self._lock:
            if self._stopped:
                future.cancel()
                return future
            self._jobs.put((future, fn, args))
            if self._threads < self._size:
                self._threads += 1
                threading.Thread(target=_work, args=(self._jobs,), name="editpred-call", daemon=True).start()
        return future

    def stop(self) -> None:
        """Ask every thread to end once its current call returns; does not wait."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            for _ in range(self._threads):
                self._jobs.put(None)


def _work(jobs: queue.SimpleQueue[Any]) -> None:
    while True:
        job = jobs.get()
        if job is None:
            return
        _run_job(*job)
        del job  # drop the result before waiting for the next job


def _run_job(future: concurrent.futures.Future[Any], fn: Callable[..., Any], args: Any) -> None:
    if not future.set_running_or_notify_cancel():  # cancelled while queued
        return
    try:
        result = fn(*args)
    except BaseException as error:  # noqa: BLE001  (handed to whoever waits)
        future.set_exception(error)
    else:
        future.set_result(result)
