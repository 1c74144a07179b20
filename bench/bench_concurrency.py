"""How close do predictions in parallel get to ideal throughput against a real server?

Run by hand (not a test): ``python bench/bench_concurrency.py [--examples 200] [--repeat 3]
[--concurrency 1 8 32] [--no-reference]``.

It starts an asyncio HTTP server on 127.0.0.1 that answers every request after a
fixed latency (100 ms), as a model server would, and serves any number of requests
at once. The main rows run the examples through the real ``llamacpp-infill``
provider (prompt, HTTP transport with retries and timeouts, parsing, the
:class:`Prediction`), driven by :class:`Prefetcher` at several concurrencies and
taken in order, as pytest would. For each row it prints the wall time, the ideal
time ``examples × latency ÷ concurrency`` and efficiency = ideal ÷ wall (median and
best of ``--repeat`` runs), the peak number of requests the server saw at once (it
must equal N), and the CPU time of this process and of the server.

Reference rows, the same requests through httpx's own transport (what ``https://``
servers get): ``httpx, 1 client`` is one ``httpx.AsyncClient`` of 32 connections,
``httpx, 4 clients`` four of 8 (the sharded pool of ``providers/_http.py``; httpcore
spends CPU per request in proportion to the connections in a pool). Against the
provider rows they show what the plain-HTTP transport (``providers/_plain_http.py``)
saves. ``sleep, no HTTP`` is the engine alone (the call just sleeps).

Even at zero overhead, 200 calls at N=32 take 7 rounds of 100 ms, not 6.25: the
ceiling there is 0.625 ÷ 0.7 = 89%.

The server runs in a child process, like a real model server: in this process it
would compete with the client for the GIL and the figures would measure that. It
does little per request (no JSON parsing), and its CPU column shows it is not the
bottleneck.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_editpred import Cursor, Example, PredictionRequest, Settings
from pytest_editpred._engine import Prefetcher, call_once
from pytest_editpred.providers import get_provider

LATENCY = 0.1


# -- the server (child process) ---------------------------------------------------


class Stats:
    in_flight = 0
    peak = 0


#: llama.cpp's /infill answer, the same for every request: a prediction's text is
#: then its request's text with ``#`` at the cursor, which names its example (the
#: order check below).
INFILL = json.dumps({"content": "#", "stop": True, "tokens_evaluated": 12, "tokens_predicted": 1}).encode()


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Minimal HTTP/1.1 with keep-alive: POST /infill answers ``INFILL`` and any
    other POST echoes its body, after LATENCY; GET /stats reports the most requests
    seen in flight at once (and resets it) and the server's CPU time."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            _, path, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = await reader.readexactly(length) if length else b""
            if path == "/stats":
                payload = json.dumps({"peak": Stats.peak, "cpu": time.process_time()}).encode()
                Stats.peak = 0
            else:
                Stats.in_flight += 1
                Stats.peak = max(Stats.peak, Stats.in_flight)
                try:
                    await asyncio.sleep(LATENCY)
                finally:
                    Stats.in_flight -= 1
                payload = INFILL if path == "/infill" else body
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload)
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def serve() -> None:
    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


# -- the client (this process) ---------------------------------------------------


def requests(count: int) -> list[PredictionRequest]:
    """``count`` tiny requests, each text naming its example."""
    made = []
    for number in range(count):
        text = f"def example_{number}(name):\n    print(name)\n"
        example = Example(
            name=f"example-{number}",
            repository_url="https://github.com/o/r",
            revision="abc",
            cursor_path="a.py",
            cursor_position="",
        )
        made.append(PredictionRequest(example, {"a.py": text}, Cursor.at("a.py", text, text.index("print"))))
    return made


def run(
    label: str,
    call: Callable[[Any], Any],
    keys: Sequence[Any],
    check: Callable[[Any, Any], bool],
    concurrency: int,
    repeat: int,
    stats: httpx.Client | None,
) -> None:
    """Time ``repeat`` runs; print the median wall time and efficiency, the best
    efficiency, the server's peak in flight and the CPU time per run of this process
    and of the server."""
    walls: list[float] = []
    cpus: list[float] = []
    server_cpus: list[float] = []
    peaks: list[int] = []
    for _ in range(repeat):
        before: dict[str, Any] = stats.get("/stats").json() if stats else {"cpu": 0.0}
        start, cpu = time.perf_counter(), time.process_time()
        with Prefetcher(call, keys, concurrency=concurrency) as prefetcher:
            results = [prefetcher.result(key) for key in keys]  # in order, as pytest would
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        assert all(map(check, keys, results)), "wrong or misordered results"
        after: dict[str, Any] = stats.get("/stats").json() if stats else {"cpu": 0.0, "peak": concurrency}
        peaks.append(after["peak"])
        server_cpus.append(after["cpu"] - before["cpu"])
    ideal = len(keys) * LATENCY / concurrency
    wall = statistics.median(walls)
    server = f"{statistics.median(server_cpus):>7.2f}s" if stats else f"{'-':>8}"
    print(
        f"{label:<22} {concurrency:>3} {wall:>8.3f}s {ideal:>7.3f}s {ideal / wall:>6.1%}"
        f" {ideal / min(walls):>6.1%} {max(peaks):>5} {statistics.median(cpus):>7.2f}s {server}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--no-reference", action="store_true", help="only the provider rows")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
        return

    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        print(
            f"{args.examples} examples, {LATENCY * 1000:.0f} ms latency, median of "
            f"{args.repeat} runs, Python {sys.version.split()[0]}, httpx {httpx.__version__}"
        )
        print(
            f"{'completion function':<22} {'N':>3} {'wall':>9} {'ideal':>8} {'eff':>6} "
            f"{'best':>6} {'peak':>5} {'cpu':>8} {'server':>8}"
        )
        made = requests(args.examples)
        keys = list(range(args.examples))  # requests are not hashable: the plugin keys by item too

        def same_text(key: int, prediction: Any) -> bool:
            text, cursor = made[key].text, made[key].cursor.offset
            return bool(prediction.text == text[:cursor] + "#" + text[cursor:])

        def same(key: int, value: int) -> bool:
            return key == value

        def predictor(completion: Any) -> Callable[[int], Awaitable[Any]]:
            async def predict(key: int) -> Any:  # as the plugin's runner calls a completion
                return await completion(made[key])

            return predict

        with httpx.Client(base_url=base) as stats:
            for concurrency in args.concurrency:
                settings = Settings(
                    provider="llamacpp-infill", base_url=base, cache_mode="off", concurrency=concurrency, retries=1
                )
                completion: Any = get_provider("llamacpp-infill")(settings)
                run("llamacpp-infill", predictor(completion), keys, same_text, concurrency, args.repeat, stats)
                call_once(lambda provider: provider.aclose(), completion.__self__)  # on the loop it used
            if args.no_reference:
                return

            for count in (1, 4):
                limits = httpx.Limits(max_connections=32 // count, max_keepalive_connections=32 // count)
                clients = [httpx.AsyncClient(base_url=base, limits=limits) for _ in range(count)]

                async def through_httpx(key: int, clients: list[httpx.AsyncClient] = clients) -> int:
                    response = await clients[key % len(clients)].post("/predict", json=key)
                    response.raise_for_status()
                    return int(response.json())

                label = f"httpx, {count} client{'s' if count > 1 else ''}"
                run(label, through_httpx, keys, same, 32, args.repeat, stats)
                for client in clients:
                    call_once(lambda c: c.aclose(), client)  # on the loop it was used on

        async def sleep_async(key: int) -> int:
            await asyncio.sleep(LATENCY)
            return key

        def sleep_sync(key: int) -> int:
            time.sleep(LATENCY)
            return key

        # The engine alone, no HTTP: what is left of the gap is the HTTP stack's cost.
        run("async sleep, no HTTP", sleep_async, keys, same, 32, args.repeat, None)
        run("sync sleep, no HTTP", sleep_sync, keys, same, 32, args.repeat, None)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
