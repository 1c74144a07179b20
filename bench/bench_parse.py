"""How fast examples load: 10,000 JSONL examples and 1,000 markdown files.

Run by hand: ``python bench/bench_parse.py``. Prints examples per second. The
examples are the upstream flask seed example (10 expected patches) with names and
lines varied, so the figures are for realistic sizes. Reading includes parsing the
cursor excerpt and every expected patch's cursor line, as a run does.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_editpred import from_markdown, load_examples, to_json, to_markdown

SEED = Path(__file__).resolve().parents[2] / "shared" / "examples" / "zed" / "flask--add-test-function.md"
if not SEED.exists():  # the repository's own corpus works too
    SEED = sorted((Path(__file__).resolve().parents[1] / "evals").glob("*.md"))[0]


def main() -> None:
    seed = from_markdown(SEED.read_text(), SEED)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        record = to_json(seed)
        lines = []
        for i in range(10_000):
            record["name"] = f"example-{i}"
            lines.append(json.dumps(record))
        jsonl = root / "set.jsonl"
        jsonl.write_text("\n".join(lines) + "\n")
        md_dir = root / "md"
        md_dir.mkdir()
        text = to_markdown(seed)
        for i in range(1_000):
            (md_dir / f"example-{i}.md").write_text(text.replace("# ", f"# n{i} ", 1))

        start = time.perf_counter()
        examples = load_examples(jsonl)
        for example in examples:
            example.cursor_excerpt()
            example.expected()
        jsonl_seconds = time.perf_counter() - start

        start = time.perf_counter()
        count = 0
        for path in sorted(md_dir.iterdir()):
            for example in load_examples(path):
                example.cursor_excerpt()
                example.expected()
                count += 1
        md_seconds = time.perf_counter() - start

    print(
        f"JSONL:    {len(examples):>6} examples in {jsonl_seconds:6.3f} s = {len(examples) / jsonl_seconds:8.0f} examples/s"
    )
    print(f"markdown: {count:>6} files    in {md_seconds:6.3f} s = {count / md_seconds:8.0f} examples/s")


if __name__ == "__main__":
    main()
