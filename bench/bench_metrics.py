"""How long Zed's metrics take on one prediction, small and large.

Run by hand: ``python bench/bench_metrics.py [--repeat 20]``. Every item scores its
prediction against every expected patch, so the metrics run once per candidate per
item. Prints the median time of :func:`delta_chr_f` and of the whole
:func:`score_prediction` on a 10-line function and on a 500-line file edited at both
ends (its changed region is the whole file), and, for the large one, delta-chrF with
the line alignment switched off: the case the alignment exists for.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_editpred.metrics import Candidate, _chrf, delta_chr_f, score_prediction
from pytest_editpred.scene import unified_diff


def median_ms(call: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cases() -> dict[str, tuple[str, str, str]]:
    small = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(5))
    lines = [f"    value_{i} = compute({i}, name='item{i % 7}')\n" for i in range(500)]
    large = "".join(lines)
    return {
        "10 lines": (small, small.replace("x + 3", "x - 3"), small.replace("x + 3", "x * 3")),
        "500 lines, both ends": (
            large,
            "# header\n" + large[:-30] + "tail()\n",
            "# heading\n" + large[:-28] + "tail(1)\n",
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(f"median of {args.repeat} runs, Python {sys.version.split()[0]}")
    for label, (original, expected, actual) in cases().items():
        candidate = Candidate(patch=unified_diff("f.py", "f.py", original, expected), text=expected)
        actual_patch = unified_diff("f.py", "f.py", original, actual)
        chrf = median_ms(lambda: delta_chr_f(original, expected, actual), args.repeat)
        score = median_ms(
            lambda: score_prediction(original, [candidate], actual, actual_patch, None, cursor_path="f.py"),
            args.repeat,
        )
        print(f"{label:<22} delta-chrF {chrf:8.2f} ms   whole score {score:8.2f} ms")
        if len(original) > _chrf._ALIGN_THRESHOLD:
            saved = _chrf._ALIGN_THRESHOLD
            _chrf._ALIGN_THRESHOLD = 10**9
            try:
                brute = median_ms(lambda: delta_chr_f(original, expected, actual), max(3, args.repeat // 5))
            finally:
                _chrf._ALIGN_THRESHOLD = saved
            print(f"{'  without alignment':<22} delta-chrF {brute:8.2f} ms")


if __name__ == "__main__":
    main()
