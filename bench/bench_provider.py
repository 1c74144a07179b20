"""What the client costs per example with a real provider, per Zed prompt format.

Run by hand (not a test): ``python bench/bench_provider.py [--quick] [--examples 200]
[--latency-examples 2000] [--latency 0.5] [--concurrency 64] [--formats F ...]
[--modules 30] [--repeat 3] [--startup-repeat 3] [--statistic min|median] [--seed 25]
[--skip-latency] [--retrieval]
[--profile FORMAT] [--keep DIR]``.

The provider runs pass ``--editpred-no-retrieval``: this measures the client, and with
context retrieval on (Zed's default, ``lsp``) every example would wait for a language
server to check its distinct cursor file (about 0.25 s of the server's time an example
here, serial per server), which ``bench/bench_retrieval.py`` measures. ``--retrieval``
keeps it on.

Inputs: a temporary git repository of standard-library modules
(``sysconfig.get_paths()["stdlib"]``, ``--modules`` of them, 500-2,500 lines each)
and ``--examples`` markdown examples in Zed's format on it. Each example has its own
cursor file and line, and an edit history that inserts ``# example N`` and a
half-typed ``value_N = compute_`` at the cursor, so every cursor-file text is
distinct (a cache keyed on identical texts cannot help); the expected patch
completes the line (``value_N = compute_N()``). The repository is mapped with
``--editpred-repo URL=PATH``.

1. **Cost per example, per prompt format.** Every format is run through the real
   plugin in a ``pytest`` child (``-p no:cacheprovider -n 0 --editpred-cache=off``,
   ``--editpred-provider openai``) against an instant loopback OpenAI-compatible
   server (``ThreadingHTTPServer`` in this process, ``/v1/completions``), and
   ``oracle`` (no request) in the same run. Each format is timed twice: on one
   example (the run's fixed start-up: interpreter, pytest, plugin, collection of
   one file, the repository mirror) and on all of them; the cost per example is
   ``(wall(N) - wall(1)) / (N - 1)``, the same for the child's CPU time. The ratio
   to ``oracle`` is printed beside it. Runs of the formats are interleaved; of
   ``--startup-repeat`` one-example runs and ``--repeat`` full runs the fastest
   is taken (``--statistic median`` for the median). On a busy machine the wall
   column swings by tens of per cent; the CPU column (the child's user + system
   time) much less.

   **The server's answer** is the format's "no edit", computed from the prompt it
   received: Zeta 1 and the whole-region formats (``zeta``, ``zeta2`` =
   ``V0211SeedCoder``, ``V0131GitMergeMarkersPrefix``) get the editable region back
   unchanged; the marker formats (``zeta2.1`` = ``V0318SeedMultiRegions``) get the
   prompt's first marker tag twice (Zed's "same tag twice: no edit");
   ``V0304VariableEdit`` gets the line above the cursor's, ``<|fim_middle|>``, an
   empty new text, ``<|fim_suffix|>`` and the cursor's line: an empty insertion.
   So every answer parses, the prediction is "no change", and every item is judged
   in full and FAILED (the expected patch completes the line); the pass/fail
   counts are printed so a format whose answer did not parse shows.
   ``V0615HashRegions`` shows the whole cursor file, so on these real-size files its
   prompt is over its 8,000-token budget: Zed sends no prompt, no request is made
   (``requests`` column: 0) and the item FAILS unscored; its row is the cost of
   building and measuring that prompt.

2. **Latency bound.** ``--latency-examples`` examples at ``--editpred-concurrency
   --concurrency`` through ``zeta2.1`` against the same server answering after
   ``--latency`` seconds: the wall time of the whole run beside the bound
   ``examples x latency / in-flight`` and their ratio, and the most requests the
   server saw at once; then the same without the start-up (the one-example runs
   of part 1 over every format but ``oracle``) and per example.

3. **Where one example's time goes** (``--breakdown``), for ``zeta2.1`` and
   ``oracle``, in this process with the server in another one (a forked copy), the
   process's CPU time per example: building the scene; the syntax trees alone, from
   empty caches, as part 1's run meets them (each file version's first buffer parsed
   whole, every other buffer incrementally; tree-sitter's share of part 1's figure);
   then, after every file version was seen twice (so the syntax trees are at the
   cost the run reaches once warm), the prompt (the provider's ``window``:
   ZetaInput, syntax tree, regions, prompt); the request and reading the answer
   (``complete`` minus the prompt); judging the answer (a wrong one for
   ``zeta2.1``, the expected one for ``oracle``). What is left of part 1's figure
   is pytest's item protocol, the reports and the garbage collector.

``--profile FORMAT`` instead profiles one run of FORMAT's pytest child: a cProfile
in every thread (the completions run in the engine's thread, which ``-m cProfile``
does not see), timed by each thread's CPU time so that waiting for the GIL or a
socket is not counted; it prints the merged top functions by cumulative and own time. ``--quick``: 40 examples, 200 in the latency run, one full run per format.

The machine (cores, Python) is printed first. Run on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

URL = "https://github.com/editpred-bench/stdlib"
DEFAULT_FORMATS = [
    "zeta",
    "zeta2",
    "zeta2.1",
    "V0318SeedMultiRegions",
    "V0211SeedCoder",
    "V0615HashRegions",
    "V0304VariableEdit",
    "V0131GitMergeMarkersPrefix",
]


# -- the server --------------------------------------------------------------------


_MARKER = re.compile(r"<\|marker[_+-]?\d+\|>")


def no_edit_answer(prompt: str, fmt: str) -> str:
    """The format's "no edit" answer for ``prompt`` (see the module docstring)."""
    if fmt in ("zeta",):
        start = prompt.rfind("<|editable_region_start|>")
        end = prompt.rfind("<|editable_region_end|>")
        if 0 <= start < end:
            return prompt[start : end + len("<|editable_region_end|>")].replace("<|user_cursor_is_here|>", "")
        return prompt
    if fmt in ("zeta2", "V0211SeedCoder", "V0131GitMergeMarkersPrefix"):
        return _seed_coder_region(prompt)
    if fmt == "V0304VariableEdit":
        return _variable_edit(prompt)
    match = _MARKER.search(prompt)
    tag = match.group(0) if match else "<|marker_1|>"
    return tag + tag


def _seed_coder_region(prompt: str) -> str:
    """The region between ``<<<<<<< CURRENT`` and ``=======``, without the cursor."""
    start = prompt.rfind("<<<<<<< CURRENT\n")
    end = prompt.find("=======\n", start)
    if start < 0 or end < 0:
        return prompt
    return prompt[start + len("<<<<<<< CURRENT\n") : end].replace("<|user_cursor|>", "")


def _variable_edit(prompt: str) -> str:
    """The line above the cursor's, an empty middle, the cursor's line: no change."""
    at = prompt.rfind("<|user_cursor|>")
    if at < 0:
        return prompt
    line_start = prompt.rfind("\n", 0, at) + 1
    above = prompt.rfind("\n", 0, line_start - 1) + 1
    line_end = prompt.find("\n", at)
    line = prompt[line_start:line_end].replace("<|user_cursor|>", "")
    return f"{prompt[above:line_start]}<|fim_middle|>\n<|fim_suffix|>\n{line}\n"


class Server:
    """An instant (or ``latency``-second) OpenAI-compatible ``/v1/completions``."""

    def __init__(self) -> None:
        self.latency = 0.0
        self.format = "zeta2.1"
        self.prompts: list[str] = []
        self.record = False
        self.in_flight = 0
        self.peak = 0
        self.count = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.in_flight += 1
                    server.count += 1
                    server.peak = max(server.peak, server.in_flight)
                try:
                    if server.latency:
                        time.sleep(server.latency)
                    prompt = str(body.get("prompt", ""))
                    if server.record:
                        server.prompts.append(prompt)
                    text = no_edit_answer(prompt, server.format)
                finally:
                    with server._lock:
                        server.in_flight -= 1
                payload = json.dumps(
                    {
                        "object": "text_completion",
                        "model": body.get("model", "bench"),
                        "choices": [{"index": 0, "text": text, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(text) // 4},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        ThreadingHTTPServer.daemon_threads = True
        ThreadingHTTPServer.request_queue_size = 1024
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# -- the repository and the examples -----------------------------------------------


def stdlib_modules(count: int, seed: int) -> list[Path]:
    """``count`` standard-library ``.py`` files of 500-2,500 lines, no fences in them."""
    root = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for path in sorted(root.glob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if 500 <= text.count("\n") <= 2500 and "```" not in text and "<|" not in text and "\t" not in text:
            found.append(path)
    random.Random(seed).shuffle(found)
    return sorted(found[:count])


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
        "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def make_repository(root: Path, modules: list[Path]) -> tuple[Path, str, dict[str, list[str]]]:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {}
    for module in modules:
        text = module.read_text(encoding="utf-8")
        (repo / "lib").mkdir(exist_ok=True)
        (repo / "lib" / module.name).write_text(text, encoding="utf-8")
        files[f"lib/{module.name}"] = text.split("\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "stdlib")
    return repo, git(repo, "rev-parse", "HEAD").strip(), files


def example_text(number: int, revision: str, path: str, lines: list[str], row: int) -> str:
    """Zed's markdown: the edit history inserts two lines before ``row`` (0-based),
    the cursor sits after the half-typed name, the expected patch completes it."""
    before = lines[max(row - 3, 0) : row]
    after = lines[row : row + 3]
    comment, typed, done = f"# example {number}", f"value_{number} = compute_", f"value_{number} = compute_{number}()"
    start = max(row - 3, 0) + 1
    history = [f"@@ -{start},{len(before) + len(after)} +{start},{len(before) + len(after) + 2} @@"]
    history += [f" {line}" for line in before] + [f"+{comment}", f"+{typed}"] + [f" {line}" for line in after]
    cursor = [*before, comment, typed + "<|user_cursor|>", *after]
    expected = [f"@@ -{row + 1},2 +{row + 1},2 @@", f" {comment}", f"-{typed}", f"+{done}"]
    return (
        f'+++\nrepository_url = "{URL}"\nrevision = "{revision}"\n+++\n\n'
        f"# bench-{number}\n\n"
        f"## Edit History\n\n```diff\n--- a/{path}\n+++ b/{path}\n" + "\n".join(history) + "\n```\n\n"
        f"## Cursor Position\n\n```{path}\n" + "\n".join(cursor) + "\n```\n\n"
        f"## Expected Patch\n\n```diff\n--- a/{path}\n+++ b/{path}\n" + "\n".join(expected) + "\n```\n"
    )


def make_examples(folder: Path, count: int, revision: str, files: dict[str, list[str]], seed: int) -> None:
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    paths = sorted(files)
    for number in range(count):
        path = paths[number % len(paths)]
        lines = files[path]
        while True:  # a row whose neighbourhood is plain code (no blank-only context issues)
            row = rng.randrange(10, len(lines) - 10)
            if all(line.strip() for line in lines[row - 3 : row + 3]):
                break
        (folder / f"bench-{number:05d}.md").write_text(example_text(number, revision, path, lines, row))


#: ``python -c`` that runs pytest (argv as for ``-m pytest``) under a cProfile in
#: every thread, timed by ``time.thread_time`` (each thread's own CPU: a thread
#: waiting for the GIL or a socket costs nothing). ``-m cProfile`` sees the main
#: thread only, and the completions run in the engine's thread. The profiles of
#: the threads are merged and dumped to ``$BENCH_PROFILE_OUT``.
PROFILER = """
import cProfile, os, pstats, sys, threading, time
import pytest
profiles = []
def start(*ignored):
    sys.setprofile(None)
    profile = cProfile.Profile(time.thread_time)
    profiles.append(profile)
    profile.enable()
threading.setprofile(start)
main = cProfile.Profile(time.thread_time)
profiles.append(main)
main.enable()
try:
    code = pytest.main(sys.argv[1:])
finally:
    main.disable()
    merged = pstats.Stats(main)
    for profile in profiles[1:]:
        try:
            merged.add(profile)
        except TypeError:  # a thread that never returned from its first call
            pass
    merged.dump_stats(os.environ["BENCH_PROFILE_OUT"])
sys.exit(code)
"""


def print_profile(path: Path, top: int) -> None:
    """The merged profile's top functions by cumulative and by own CPU time."""
    import pstats

    stats = pstats.Stats(str(path))
    stats.strip_dirs()
    for order in ("cumulative", "tottime"):
        print(f"\ntop {top} by {order} (CPU seconds of the thread that ran them; cProfile slows them):")
        stats.sort_stats(order).print_stats(top)


# -- the runs ----------------------------------------------------------------------


OUTCOME = re.compile(r"(\d+) (passed|failed|error|errors)")


#: A plugin loaded into the pytest child (``-p``): at the end, every process of the
#: run (the controller, and each xdist worker) writes its own CPU time (user + system)
#: to ``$BENCH_CPU_OUT/<controller|gwN>``, so the controller's and the workers' shares
#: are told apart (``RUSAGE_CHILDREN`` would only give their sum).
CPU_PROBE = """
import os, resource
def pytest_unconfigure(config):
    out = os.environ.get("BENCH_CPU_OUT")
    if out:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        name = getattr(config, "workerinput", {}).get("workerid", "controller")
        with open(os.path.join(out, name), "w") as file:
            file.write(repr(usage.ru_utime + usage.ru_stime))
"""


def run_pytest(
    work: Path,
    folder: Path,
    repo: Path,
    args: list[str],
    profile: Path | None = None,
    workers: int = 0,
    tree: Path = REPO,
) -> tuple[float, float, dict[str, int], str]:
    """One ``pytest`` child on ``folder`` (``-n workers``) with the package of the
    source ``tree`` (this one by default): (wall s, child CPU s, outcome counts, tail);
    the CPU of each process is in :data:`LAST_CPU`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # the tree's package, not wherever the editable install points; the CPU probe
    (work / "bench_cpu_probe.py").write_text(CPU_PROBE)
    probe = work / "cpu"
    shutil.rmtree(probe, ignore_errors=True)
    probe.mkdir()
    env["BENCH_CPU_OUT"] = str(probe)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(work), *filter(None, [os.environ.get("PYTHONPATH")])])
    prefix = [sys.executable, "-m", "pytest"]
    if profile is not None:
        env["BENCH_PROFILE_OUT"] = str(profile)
        prefix = [sys.executable, "-c", PROFILER]
    command = [
        *prefix, str(folder), "-q", "-p", "no:cacheprovider", "-p", "bench_cpu_probe", "-n", str(workers),
        "--rootdir", str(work), "-c", str(work / "pytest.ini"),
        "--editpred-cache=off", f"--editpred-repo={URL}={repo}",
        f"--editpred-cache-dir={work / 'mirrors'}", "--editpred-offline", *args,
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    counts: dict[str, int] = {}
    for number, word in OUTCOME.findall(tail):
        counts["error" if word.startswith("error") else word] = int(number)
    if done.returncode not in (0, 1) or not counts:
        raise SystemExit(f"pytest exited {done.returncode}: {tail}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    LAST_CPU.clear()
    LAST_CPU.update({path.name: float(path.read_text()) for path in probe.iterdir()})
    return wall, cpu, counts, tail


#: The CPU seconds of each process of the last :func:`run_pytest`: ``controller``
#: (the one process of ``-n 0``), ``gw0``, ``gw1``, ...
LAST_CPU: dict[str, float] = {}


#: ``--retrieval`` turns it on: without it the provider runs pass ``--editpred-no-retrieval``.
RETRIEVAL = False


def provider_args(fmt: str, server: Server, concurrency: int | None = None) -> list[str]:
    if fmt == "oracle":
        return ["--editpred-provider=oracle"]
    extra = [f"--editpred-concurrency={concurrency}"] if concurrency else []
    if not RETRIEVAL:
        extra.append("--editpred-no-retrieval")
    return [
        "--editpred-provider=openai", f"--editpred-base-url={server.url}", "--editpred-model=bench",
        f"--editpred-prompt-format={fmt}", "--editpred-retries=1", *extra,
    ]  # fmt: skip


def _serve(queue: Any) -> None:
    """A forked :class:`Server` for ``zeta2.1`` that lives until it is terminated."""
    server = Server()
    queue.put(server.url)
    threading.Event().wait()


def breakdown(folder: Path, repo: Path) -> None:
    """Part 3 (see the module's docstring)."""
    import asyncio
    import multiprocessing

    from pytest_editpred import Settings
    from pytest_editpred.example import load_examples
    from pytest_editpred.judge import Prediction, expected_candidates, judge
    from pytest_editpred.providers import get_provider
    from pytest_editpred.providers.prompts import zeta_format, zeta_window
    from pytest_editpred.scene import RepositoryCache, build_scene
    from pytest_editpred.zeta import _trees as trees
    from pytest_editpred.zeta._syntax import _parser

    queue: Any = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_serve, args=(queue,), daemon=True)
    child.start()
    try:
        url = queue.get(timeout=30)
        cache = RepositoryCache(Path(tempfile.mkdtemp(prefix="bench-breakdown-")), {URL: repo}, offline=True)
        examples = [e for path in sorted(folder.glob("*.md")) for e in load_examples(path)]
        fmt = zeta_format("zeta2.1", None)
        settings = Settings(provider="openai", base_url=url, model="bench", prompt_format="zeta2.1", cache_mode="off")
        complete = get_provider("openai")(settings)

        def cpu(step: Any, items: list[Any]) -> tuple[float, list[Any]]:
            start = time.process_time()
            out = [step(item) for item in items]
            return (time.process_time() - start) / len(items) * 1000, out

        scene_ms, scenes = cpu(lambda example: build_scene(example, cache), examples)
        requests = [scene.request() for scene in scenes]

        def tree(request: Any) -> Any:
            path = request.cursor.path
            return trees.parse(_parser("python"), "python", request.text, request.base_texts.get(path))

        trees.clear()  # as part 1's run meets them: each version's first buffer whole, the rest incremental
        parse_ms, _ = cpu(tree, requests)
        for _ in range(2):  # every file version seen twice: its tree is parsed, as a warm run's
            for request in requests:
                zeta_window(request, fmt)
        prompt_ms, _ = cpu(lambda request: zeta_window(request, fmt), requests)

        async def ask_all() -> list[Any]:  # one loop, one request at a time, as an engine thread
            return [await complete(request) for request in requests]

        start = time.process_time()
        predictions = asyncio.run(ask_all())
        complete_ms = (time.process_time() - start) / len(requests) * 1000
        candidates = [expected_candidates(s.buffers, s.example.expected(), s.open_file, s.cursor.path) for s in scenes]

        def judged(pair: tuple[Any, Any, Any]) -> Any:
            scene, found, prediction = pair
            return judge(
                scene.buffers, (scene.cursor.path, scene.cursor.offset), found, prediction,
                open_file=scene.open_file, events=scene.events,
            )  # fmt: skip

        wrong_ms, verdicts = cpu(judged, list(zip(scenes, candidates, predictions)))
        right = [Prediction(text=found[0].buffers[s.cursor.path], cursor=found[0].cursor[1] if found[0].cursor else None)
                 for s, found in zip(scenes, candidates)]  # fmt: skip
        right_ms, right_verdicts = cpu(judged, list(zip(scenes, candidates, right)))
        print(f"\n3. where one example's time goes (this process's CPU, ms per example, {len(examples)} examples):")
        print(f"   scene {scene_ms:.2f} (both); syntax trees as part 1's run meets them (each file version's"
              f" first buffer parsed whole, the others incrementally) {parse_ms:.2f}; zeta2.1, with every tree"
              f" made: prompt {prompt_ms:.2f}, request and answer"
              f" {complete_ms - prompt_ms:.2f}, judging its wrong answer {wrong_ms:.2f}"
              f" ({sum(not v.passed for v in verdicts)} failed); oracle: judging the right answer {right_ms:.2f}"
              f" ({sum(v.passed for v in right_verdicts)} passed)")  # fmt: skip
    finally:
        child.terminate()


def latency_runs(
    work: Path, folder: Path, repo: Path, server: Server, args: Any, bound: float, startup: float, pick: Any
) -> None:
    """Part 2: the latency run in one process and under ``-n --workers`` (the
    ``--concurrency`` shared: each worker gets its share), interleaved
    ``--latency-repeat`` times, side by side."""
    kinds = [("one process", 0, args.concurrency)]
    if args.workers:
        share = -(-args.concurrency // args.workers)
        kinds.append((f"-n {args.workers}", args.workers, share))
    results: dict[str, list[tuple[float, float, dict[str, float], int, int, str]]] = {}
    for _ in range(args.latency_repeat):
        for label, workers, concurrency in kinds:
            server.peak = server.count = 0
            extra = [f"--dist={args.dist}"] if workers and args.dist else []
            wall, cpu, counts, tail = run_pytest(
                work, folder, repo, [*provider_args("zeta2.1", server, concurrency), *extra], workers=workers
            )
            results.setdefault(label, []).append((wall, cpu, dict(LAST_CPU), server.peak, server.count, tail))
    print(
        f"\n2. latency bound: {args.latency_examples} examples, zeta2.1, server answering after"
        f" {args.latency * 1000:.0f} ms, {args.concurrency} in flight (under -n, shared by the workers:"
        f" --editpred-concurrency {kinds[-1][2]} each{f', --dist={args.dist}' if args.dist else ''});"
        f" bound {bound:.2f}s; {args.statistic} of {args.latency_repeat} interleaved runs (CPU: of each run's"
        " processes, user + system)"
    )
    print(
        f"{'run':<12} {'wall':>7} {'x bound':>8} {'CPU':>7} {'ms/ex':>6} {'controller':>10} {'workers':>15}"
        f" {'peak':>5} {'requests':>8}  outcome"
    )
    for label, _, _ in kinds:
        runs = results[label]
        wall = pick([run[0] for run in runs])
        cpu = pick([run[1] for run in runs])
        controller = pick([run[2].get("controller", 0.0) for run in runs])
        names = sorted(name for name in runs[0][2] if name != "controller")
        shown = " + ".join(f"{pick([run[2].get(name, 0.0) for run in runs]):.1f}" for name in names) or "-"
        peak = min(run[3] for run in runs)
        count = runs[-1][4]
        print(
            f"{label:<12} {wall:>6.2f}s {wall / bound:>7.2f}x {cpu:>6.1f}s {cpu / args.latency_examples * 1000:>6.1f}"
            f" {controller:>9.1f}s {shown:>14}s {peak:>5} {count:>8}  {runs[-1][5]}"
        )
    if startup:
        one = pick([run[0] for run in results["one process"]])
        rest = one - startup
        print(
            f"one process without the start-up of a 1-example run ({startup:.2f}s, {args.statistic} over the"
            f" formats): {rest:.2f}s, {rest / bound:.2f}x the bound, {rest / args.latency_examples * 1000:.1f} ms"
            " an example"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="examples per format run (default 200)")
    parser.add_argument("--latency-examples", type=int, default=2000, help="examples of the latency run")
    parser.add_argument("--latency", type=float, default=0.5, help="server latency of the latency run, s")
    parser.add_argument("--concurrency", type=int, default=64, help="--editpred-concurrency of the latency run")
    parser.add_argument(
        "--workers", type=int, default=2, help="xdist workers of the latency run's -n twin (0: one process only)"
    )
    parser.add_argument("--dist", help="xdist's --dist of the -n run (default: load, which the plugin schedules)")
    parser.add_argument("--latency-repeat", type=int, default=1, help="interleaved latency runs of each kind")
    parser.add_argument("--formats", nargs="+", default=DEFAULT_FORMATS, help="prompt formats (oracle is added)")
    parser.add_argument("--modules", type=int, default=30, help="standard-library modules in the repository")
    parser.add_argument("--repeat", type=int, default=3, help="runs of all the examples per format (default 3)")
    parser.add_argument(
        "--startup-repeat", type=int, default=3, help="runs of 1 example per format, the start-up (default 3)"
    )
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument(
        "--statistic",
        choices=("min", "median"),
        default="min",
        help="of repeated runs (default min: the least disturbed, for a shared machine)",
    )
    parser.add_argument("--quick", action="store_true", help="40 examples, 200 in the latency run")
    parser.add_argument("--skip-latency", action="store_true", help="no latency run")
    parser.add_argument("--latency-only", action="store_true", help="only the latency run (part 2)")
    parser.add_argument(
        "--retrieval",
        action="store_true",
        help="keep context retrieval on (the default lsp: a language server per process); "
        "off by default, this measures the client (bench/bench_retrieval.py measures retrieval)",
    )
    parser.add_argument("--breakdown", action="store_true", help="also part 3: where one example's time goes")
    parser.add_argument(
        "--profile", metavar="FORMAT", help="only profile one run of FORMAT (cProfile of every thread's CPU time)"
    )
    parser.add_argument(
        "--keep", metavar="DIR", help="build in DIR (new or empty) and keep it (default: a temporary one)"
    )
    args = parser.parse_args()
    global RETRIEVAL
    RETRIEVAL = args.retrieval
    pick = min if args.statistic == "min" else statistics.median
    if args.quick:
        args.examples, args.latency_examples, args.repeat = 40, 200, 1
    if args.examples < 2:
        parser.error("--examples must be at least 2 (the cost is (run of N - run of 1) / (N - 1))")

    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()} ({platform.python_implementation()}),"
        f" {platform.platform()}; load average {os.getloadavg()[0]:.2f} (figures need an idle machine)"
    )
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-provider-"))
    work.mkdir(parents=True, exist_ok=True)
    server = Server()
    try:
        (work / "pytest.ini").write_text("[pytest]\n")
        modules = stdlib_modules(args.modules, args.seed)
        repo, revision, files = make_repository(work, modules)
        sizes = [len(lines) for lines in files.values()]
        one, many = work / "one", work / "many"
        make_examples(one, 1, revision, files, args.seed)
        make_examples(many, args.examples, revision, files, args.seed)
        print(
            f"repository: {len(files)} standard-library modules, {min(sizes)}-{max(sizes)} lines"
            f" ({sum(sizes):,} in all); {args.examples} examples, every cursor-file text distinct"
        )
        # warm-up: the mirror of the repository and the bytecode of everything
        run_pytest(work, one, repo, ["--editpred-provider=oracle"])
        server.format = "zeta2.1"
        run_pytest(work, one, repo, provider_args("zeta2.1", server))

        if args.profile:
            server.format = args.profile
            profile = work / "profile.out"
            run_pytest(work, many, repo, provider_args(args.profile, server), profile=profile)
            print(f"\nprofile of {args.examples} examples through {args.profile}, every thread's CPU time:")
            print_profile(profile, 25)
            return

        formats = [] if args.latency_only else ["oracle", *[f for f in args.formats if f != "oracle"]]
        walls: dict[tuple[str, str], list[float]] = {}
        cpus: dict[tuple[str, str], list[float]] = {}
        outcomes: dict[str, str] = {}
        requests: dict[str, int] = {}
        for round in range(max(args.repeat, args.startup_repeat) if formats else 0):
            for fmt in formats:
                server.format = fmt
                runs = []
                if round < args.startup_repeat:
                    runs.append(("1", one))
                if round < args.repeat:
                    runs.append(("N", many))
                for size, folder in runs:
                    server.count = 0
                    wall, cpu, counts, tail = run_pytest(work, folder, repo, provider_args(fmt, server))
                    walls.setdefault((fmt, size), []).append(wall)
                    cpus.setdefault((fmt, size), []).append(cpu)
                    if size == "N":
                        outcomes[fmt] = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
                        requests[fmt] = server.count

        if formats:
            print(
                f"\n1. cost per example, instant server: (run of {args.examples} - run of 1) / {args.examples - 1},"
                f" {args.statistic} of {args.repeat} and of {args.startup_repeat} runs; wall and the pytest child's CPU"
            )
            print(f"{'format':<26} {'start-up':>9} {'wall/ex':>9} {'x oracle':>9} {'cpu/ex':>9} {'x oracle':>9}"
                  f" {'requests':>8}  outcome")  # fmt: skip
            base: tuple[float, float] | None = None
            for fmt in formats:
                w1, wn = pick(walls[fmt, "1"]), pick(walls[fmt, "N"])
                c1, cn = pick(cpus[fmt, "1"]), pick(cpus[fmt, "N"])
                per_wall = (wn - w1) / (args.examples - 1)
                per_cpu = (cn - c1) / (args.examples - 1)
                if base is None:
                    base = (per_wall, per_cpu)
                print(
                    f"{fmt:<26} {w1:>8.2f}s {per_wall * 1000:>7.1f}ms {per_wall / base[0]:>8.1f}x"
                    f" {per_cpu * 1000:>7.1f}ms {per_cpu / base[1]:>8.1f}x {requests[fmt]:>8}  {outcomes[fmt]}"
                )

        if args.breakdown:
            breakdown(many, repo)
        if args.skip_latency:
            return
        latency_folder = work / "latency"
        if args.latency_examples == args.examples:
            latency_folder = many
        else:
            make_examples(latency_folder, args.latency_examples, revision, files, args.seed + 1)
        server.format, server.latency = "zeta2.1", args.latency
        bound = args.latency_examples * args.latency / args.concurrency
        ones = [wall for (fmt, size), runs in walls.items() if size == "1" and fmt != "oracle" for wall in runs]
        startup = pick(ones) if ones else 0.0
        latency_runs(work, latency_folder, repo, server, args, bound, startup, pick)
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    finally:
        server.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
