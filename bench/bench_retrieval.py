"""What context retrieval costs per example, on real history.

Run by hand: ``python bench/bench_retrieval.py [N]``. It cuts up to N examples (default
200) from flask's real history with ``editpred split-commit`` (the bundle in
``../shared/repos``, or any repository given as ``BENCH_REPO``), rebuilds each scene as
a run does, and times :func:`pytest_editpred.retrieval.retrieve` for each ``--type``
value on every example: mean, median and slowest per example, and the related files'
size. For ``lsp`` (basedpyright, when installed) it times the first 20 examples,
each at its own revision, so each starts a server, as Zed's ``ep`` loads a project
per example; then 20 more examples at one revision, where the pool reuses the server.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_editpred import from_markdown
from pytest_editpred.cli import main as editpred
from pytest_editpred.retrieval import retrieve
from pytest_editpred.scene import RepositoryCache, build_scene

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = Path(os.environ.get("BENCH_REPO", ROOT.parent / "shared" / "repos" / "flask-2fec0b2.bundle"))
URL = "https://github.com/pallets/flask"
TYPES = ("current-file", "edit-history", "edit-history-file", "git-log", "bm25", "editable", "oracle-snippet")


def cut(folder: Path, count: int) -> list[Path]:
    editpred(["split-commit", str(BUNDLE), "HEAD~600..HEAD", "-o", str(folder), "--url", URL, "--seed", "1"])
    return sorted(folder.glob("*.md"))[:count]


def line(name: str, times: list[float], sizes: list[int]) -> None:
    ms = [t * 1000 for t in times]
    print(
        f"{name:18} {len(ms):4} examples  mean {statistics.mean(ms):7.1f} ms  median {statistics.median(ms):7.1f} ms"
        f"  slowest {max(ms):8.1f} ms  related bytes mean {statistics.mean(sizes):8.0f}"
    )


def size(files: tuple[object, ...]) -> int:
    return sum(len(excerpt.text.encode()) for file in files for excerpt in file.excerpts)  # type: ignore[attr-defined]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    work = Path(tempfile.mkdtemp(prefix="bench-retrieval-"))
    try:
        paths = cut(work / "examples", count)
        with RepositoryCache(work / "cache", {URL: BUNDLE}) as cache:
            scenes = [build_scene(from_markdown(p.read_text(), p), cache) for p in paths]
            print(f"{len(scenes)} examples from {BUNDLE.name}, each at its own revision")
            for types in TYPES:
                times, sizes = [], []
                for scene in scenes:
                    start = time.perf_counter()
                    files = retrieve(scene, types)
                    times.append(time.perf_counter() - start)
                    sizes.append(size(files))
                line(types, times, sizes)
            if shutil.which("basedpyright-langserver") is None:
                print("lsp: basedpyright not installed (pip install 'pytest-editpred[lsp]')")
                return
            from pytest_editpred.retrieval.lsp import LanguageServers

            python = [s for s in scenes if s.cursor.path.endswith(".py")]
            with LanguageServers() as servers:
                times, sizes = [], []
                for scene in python[:20]:
                    start = time.perf_counter()
                    files = retrieve(scene, "lsp", lsp=servers)
                    times.append(time.perf_counter() - start)
                    sizes.append(size(files))
                line("lsp, new revision", times, sizes)
                same = [s for s in python if s.tree == python[0].tree] or python[:1]
                times, sizes = [], []
                for scene in (same * 20)[:20]:
                    start = time.perf_counter()
                    files = retrieve(scene, "lsp", lsp=servers)
                    times.append(time.perf_counter() - start)
                    sizes.append(size(files))
                line("lsp, same revision", times, sizes)
                for message in servers.messages:
                    print("lsp:", message)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
