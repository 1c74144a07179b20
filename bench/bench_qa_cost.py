"""What the LLM judge costs per example: requests, prompt size, and the client's time.

Run by hand (not a test): ``python bench/bench_qa_cost.py [--repeat 3]``.

Corpora: the repository's own ``evals/`` examples (28 on four small repositories in
``evals/repos``), each copied ``--copies`` times (20: 560 items, so that the
difference of two runs is many items' work, not start-up noise), and Zed's real ``flask--add-test-function.md`` against the real
flask history (``shared/repos/flask-2fec0b2.bundle``, a 1,893-line file), when the
shared folder is beside the repository. Each is run by ``pytest`` in a child with the
``oracle`` provider (every prediction changes something, so every item is judged)
and ``--editpred-qa openai-chat`` against a loopback judge (``ThreadingHTTPServer``
in this process) that answers a fixed verdict at once and records each request.

Printed per corpus: items, judge requests (one per prediction that changes
something), the judge prompt's size in characters, in UTF-8 bytes and in tokens as
Zed estimates them (bytes / 3), median and largest; the answer budget
(``max_tokens``) every request carries; and the client's CPU per judged item: the
child's user + system time with the judge minus without it, over the judged items
(the median of ``--repeat`` interleaved pairs; ``--editpred-cache off``, retrieval off;
for a one-example corpus this includes the judge's one-time imports and client).
The verdict's own tokens are the judge model's: a few sentences of reasoning and a
JSON object, well under the 1,024-token budget.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_provider import OUTCOME  # noqa: E402  (a script beside this one)

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
FLASK = SHARED / "examples" / "zed" / "flask--add-test-function.md"
FLASK_BUNDLE = SHARED / "repos" / "flask-2fec0b2.bundle"
VERDICT = '{"reasoning": "continues the edit", "reverts_edits": false, "confidence": 4}'


class Judge:
    """A loopback judge: answers ``VERDICT``, keeps each request's body."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, object]] = []
        judge = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                judge.bodies.append(body)
                payload = json.dumps({
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": VERDICT},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0},
                }).encode()  # fmt: skip
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        ThreadingHTTPServer.daemon_threads = True
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def run(args: list[str], cwd: Path) -> tuple[float, dict[str, int]]:
    """The child's CPU seconds and its outcome counts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *args],
        cwd=cwd, capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    counts = {("error" if word.startswith("error") else word): int(n) for n, word in OUTCOME.findall(tail)}
    if done.returncode not in (0, 1) or not counts:
        raise SystemExit(
            f"pytest {' '.join(args)} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--copies", type=int, default=20)
    options = parser.parse_args()
    judge = Judge()
    scratch = Path(tempfile.mkdtemp(prefix="bench-qa-"))
    evals = scratch / "evals"
    evals.mkdir()
    for example in sorted((ROOT / "evals").glob("*.md")):
        for copy in range(options.copies):
            (evals / f"{example.stem}-{copy}.md").write_bytes(example.read_bytes())
    repos = [
        f"--editpred-repo=https://github.com/editpred-fixtures/{name}={ROOT / 'evals' / 'repos' / f'{name}.bundle'}"
        for name in ("pyshapes", "rustkv", "tsinventory", "taskd")
    ]
    count = len(list(evals.iterdir()))
    corpora: list[tuple[str, list[str], Path]] = [
        (f"evals/ x{options.copies} ({count} examples)", [str(evals), *repos], scratch)
    ]
    if FLASK.exists() and FLASK_BUNDLE.exists():
        folder = scratch / "flask"
        folder.mkdir()
        (folder / FLASK.name).write_bytes(FLASK.read_bytes())
        corpora.append(
            (
                "flask example (1,893 lines)",
                [str(folder), f"--editpred-repo=https://github.com/pallets/flask={FLASK_BUNDLE}"],
                scratch,
            )
        )
    else:
        print(f"(the flask example or bundle is not in {SHARED}: skipped)")
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; load {os.getloadavg()[0]:.1f}")
    header = f"{'corpus':<28}{'items':>6}{'asked':>6}{'chars med/max':>18}{'~tokens med/max':>18}{'max_tokens':>11}{'CPU ms/judged item':>20}"
    print(header)
    for name, target, cwd in corpora:
        common = [*target, "--editpred-provider=oracle", "--editpred-cache=off", "--editpred-no-retrieval",
                  f"--editpred-cache-dir={scratch / 'repos'}"]  # fmt: skip
        judged = [*common, "--editpred-qa=openai-chat", f"--editpred-qa-base-url={judge.url}", "--editpred-qa-model=j"]
        run(common, cwd)  # warm the repository cache and the bytecode
        deltas = []
        for _ in range(options.repeat):
            plain, counts = run(common, cwd)
            start = len(judge.bodies)
            with_judge, _ = run(judged, cwd)
            bodies = judge.bodies[start:]
            deltas.append((with_judge - plain) / max(len(bodies), 1))
        items = sum(counts.values())
        prompts = [str(b["messages"][0]["content"]) for b in bodies]  # type: ignore[index]
        chars = [len(p) for p in prompts]
        tokens = [len(p.encode()) // 3 for p in prompts]
        budgets = {b.get("max_tokens") for b in bodies}
        print(
            f"{name:<28}{items:>6}{len(bodies):>6}"
            f"{f'{statistics.median(chars):,.0f}/{max(chars):,}':>18}"
            f"{f'{statistics.median(tokens):,.0f}/{max(tokens):,}':>18}"
            f"{'/'.join(map(str, budgets)):>11}{statistics.median(deltas) * 1000:>20.2f}"
        )
    judge.httpd.shutdown()


if __name__ == "__main__":
    main()
