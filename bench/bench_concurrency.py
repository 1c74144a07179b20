"""How close does the prefetch engine get to ideal throughput against a real server?

Run by hand (not a test): ``python bench/bench_concurrency.py [--examples 200] [--repeat 3]``.

It starts an asyncio HTTP server on 127.0.0.1 that answers every request after a
fixed latency (100 ms), as a model server would, and serves any number of requests
at once. Then it runs the "examples" through :class:`Prefetcher` with an async httpx
completion function at several concurrencies, and with a sync one (httpx.Client),
taking the results in order as pytest would. For each it prints the wall time, the
ideal time ``examples × latency ÷ concurrency`` and efficiency = ideal ÷ wall (median
and best of ``--repeat`` runs), the peak number of requests the server saw at once
(it must equal N) and the CPU time this process spent. Two rows without HTTP (the
call just sleeps) show what the engine alone costs.

Even at zero overhead, 200 calls at N=32 take 7 rounds of 100 ms, not 6.25: the
ceiling there is 0.625 ÷ 0.7 = 89%.

The server runs in a child process, like a real model server: in this process it
would compete with the client for the GIL and the figures would measure that.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_editpred._engine import Prefetcher, call_once

LATENCY = 0.1


# -- the server (child process) ---------------------------------------------------


class Stats:
    in_flight = 0
    peak = 0


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Minimal HTTP/1.1 with keep-alive: POST /predict echoes the body after LATENCY;
    GET /peak reports the most requests seen in flight at once, and resets it."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            _, path, _ = lines[0].split(" ", 2)
            headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
            length = int(headers.get("content-length", headers.get("Content-Length", "0")))
            body = await reader.readexactly(length) if length else b""
            if path == "/peak":
                payload = json.dumps({"peak": Stats.peak}).encode()
                Stats.peak = 0
            else:
                Stats.in_flight += 1
                Stats.peak = max(Stats.peak, Stats.in_flight)
                try:
                    await asyncio.sleep(LATENCY)
                finally:
                    Stats.in_flight -= 1
                payload = body
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


def run(
    label: str,
    call: Callable[[int], Any],
    examples: int,
    concurrency: int,
    repeat: int,
    peak: httpx.Client | None,
) -> None:
    """Time ``repeat`` runs; print the median wall time and efficiency, the best
    efficiency, the server's peak in flight and this process's CPU time per run."""
    keys = list(range(examples))
    walls: list[float] = []
    cpus: list[float] = []
    peaks: list[int] = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        with Prefetcher(call, keys, concurrency=concurrency) as prefetcher:
            results = [prefetcher.result(key) for key in keys]  # in order, as pytest would
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        assert results == keys, "wrong or misordered results"
        peaks.append(peak.get("/peak").json()["peak"] if peak else concurrency)
    ideal = examples * LATENCY / concurrency
    wall = statistics.median(walls)
    print(
        f"{label:<22} {concurrency:>3} {wall:>8.3f}s {ideal:>7.3f}s {ideal / wall:>6.1%}"
        f" {ideal / min(walls):>6.1%} {max(peaks):>5} {statistics.median(cpus):>7.2f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
        return

    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
        async_client = httpx.AsyncClient(base_url=base, limits=limits)
        # httpcore's async pool spends CPU per request in proportion to its number of
        # connections (each request event rechecks every connection through anyio),
        # so at N=32 one AsyncClient costs ~5 ms of CPU a request; four pools of 8
        # cost a quarter of that. This row shows the difference.
        shard_limits = httpx.Limits(max_connections=8, max_keepalive_connections=8)
        shards = [httpx.AsyncClient(base_url=base, limits=shard_limits) for _ in range(4)]
        sync_client = httpx.Client(base_url=base, limits=limits)

        async def complete_async(key: int) -> int:
            response = await async_client.post("/predict", json=key)
            response.raise_for_status()
            return int(response.json())

        async def complete_sharded(key: int) -> int:
            response = await shards[key % len(shards)].post("/predict", json=key)
            response.raise_for_status()
            return int(response.json())

        def complete_sync(key: int) -> int:
            response = sync_client.post("/predict", json=key)
            response.raise_for_status()
            return int(response.json())

        async def sleep_async(key: int) -> int:
            await asyncio.sleep(LATENCY)
            return key

        def sleep_sync(key: int) -> int:
            time.sleep(LATENCY)
            return key

        print(
            f"{args.examples} examples, {LATENCY * 1000:.0f} ms latency, median of "
            f"{args.repeat} runs, Python {sys.version.split()[0]}, httpx {httpx.__version__}"
        )
        print(
            f"{'completion function':<22} {'N':>3} {'wall':>9} {'ideal':>8} {'eff':>6} "
            f"{'best':>6} {'peak':>5} {'cpu':>8}"
        )
        with httpx.Client(base_url=base) as peak:
            for concurrency in (1, 8, 32):
                run("async httpx", complete_async, args.examples, concurrency, args.repeat, peak)
            run("async httpx, 4 pools", complete_sharded, args.examples, 32, args.repeat, peak)
            run("sync httpx.Client", complete_sync, args.examples, 32, args.repeat, peak)
        # The engine alone, no HTTP: what is left of the gap is the HTTP stack's cost.
        run("async sleep, no HTTP", sleep_async, args.examples, 32, args.repeat, None)
        run("sync sleep, no HTTP", sleep_sync, args.examples, 32, args.repeat, None)
        for client in (async_client, *shards):  # on the loop they were used on
            call_once(lambda c: c.aclose(), client)
        sync_client.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
