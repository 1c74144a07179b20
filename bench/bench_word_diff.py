"""How long does the judge's word diff take on a run of changed lines?

Run by hand (not a test): ``python bench/bench_word_diff.py [--lines 50 100 300]``.

The word diff (``qa.word_diff``) runs ``similar``'s Myers diff in pure Python over
the tokens of each run of ``-``/``+`` lines, which is O((N+M)·D) for N and M tokens
that differ in D places. So a run where a few lines changed costs little, and a run
rewritten whole costs about the square of its length. For each size the script
times one run of that many lines (about 17 tokens each, from a small vocabulary so
that many tokens match by chance, as in code): with 5% of the lines changed, and
with every line rewritten. It prints the median of ``--repeat`` timings.

Zed diffs the same tokens the same way in Rust, so the output must stay Zed's; the
figures say how large a rewritten run a judge prompt can hold before building the
prompt costs more than asking the judge.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from pytest_editpred.qa import word_diff

WORDS = ["self", "items", "total", "return", "x", "y", "=", "(", ")", ".", "+", "0", "1"]


def run(old: list[str], new: list[str]) -> str:
    return "@@ -1 +1 @@\n" + "".join(f"-{line}\n" for line in old) + "".join(f"+{line}\n" for line in new)


def timed(diff: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        word_diff(diff)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[50, 100, 300])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(35)

    def line() -> str:
        return "    " + " ".join(rng.choice(WORDS) for _ in range(8))

    print(f"{'lines':>6} {'5% changed':>12} {'all rewritten':>14}")
    for count in args.lines:
        old = [line() for _ in range(count)]
        edited = [text if rng.random() > 0.05 else line() for text in old]
        rewritten = [line() for _ in range(count)]
        few, every = timed(run(old, edited), args.repeat), timed(run(old, rewritten), args.repeat)
        print(f"{count:>6} {few:>11.3f}s {every:>13.3f}s")


if __name__ == "__main__":
    main()
