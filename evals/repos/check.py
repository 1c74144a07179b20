"""Replay every example of the eval corpus against the bundles and check it.

Run by hand from the project root (after ``python evals/repos/build.py``)::

    python evals/repos/check.py              # every example in evals/
    python evals/repos/check.py -q           # without the cursor views
    python evals/repos/check.py evals/taskd--add-error-check.md

For each example this

* loads it with ``pytest_editpred.example._load.load_examples``;
* checks out its revision from the bundle of its repository into a temporary worktree;
* applies the uncommitted diff with real ``git apply`` (strict, as Zed does), and
  refuses one whose paths start with the repository's name (Zed strips that prefix);
* applies the edit history with ``pytest_editpred._diff.apply_sections`` (tolerant);
* checks that the cursor excerpt occurs exactly once in the cursor file;
* applies every expected patch and the rejected patch with
  ``pytest_editpred.scene._patch.apply_patch``, checking that each changes something,
  that none equals the rejected result, and showing where the expected cursor lands;
* reports which format features the example uses, and fails if the corpus as a
  whole misses one.

The cursor views print the cursor line with a ``|`` at the cursor: eyeball them.
Exit status 0 when everything passed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
EVALS = HERE.parent
ROOT = EVALS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import build  # noqa: E402  (the repository table)

from pytest_editpred._diff import Kind, apply_sections, classify, split_lines  # noqa: E402
from pytest_editpred.example._cursor import INLINE_MARKER, MARKER  # noqa: E402
from pytest_editpred.example._example import ACCEPTED_PREDICTION_MARKER, Example  # noqa: E402
from pytest_editpred.example._load import load_examples  # noqa: E402
from pytest_editpred.scene._patch import apply_patch  # noqa: E402

REQUIRED_FEATURES = [
    "several expected patches",
    "^ cursor marker",
    "< cursor marker",
    "< marker on a tab-indented line",
    "inline <|user_cursor|>",
    "expected cursor",
    "accepted-prediction marker",
    "uncommitted diff",
    "rejected patch",
    "tags",
    "history over several files",
    "several sections for one file",
    "H1 name",
    "no edit history",
    "wrong @@ counts in history",
    "jsonl",
]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class Failure(Exception):
    pass


def git(args: list[str], cwd: Path, stdin: str | None = None) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def cursor_view(text: str, offset: int, path: str) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    end = len(text) if end == -1 else end
    line = text.count("\n", 0, offset) + 1
    shown = (text[start:offset] + "|" + text[offset:end]).replace("\t", "→")
    return f"{path}:{line}: {shown}"


def wrong_counts(diff: str) -> bool:
    """Whether some hunk header's counts disagree with its body."""
    lines = split_lines(diff)
    for i, line in enumerate(lines):
        match = _HUNK.match(line)
        if not match:
            continue
        old = int(match.group(2) or 1)
        new = int(match.group(4) or 1)
        got_old = got_new = 0
        for body in lines[i + 1 :]:
            kind = classify(body).kind
            if kind is Kind.CONTEXT:
                got_old += 1
                got_new += 1
            elif kind is Kind.DELETION:
                got_old += 1
            elif kind is Kind.ADDITION:
                got_new += 1
            elif kind is Kind.NO_NEWLINE:
                continue
            else:
                break
        if (old, new) != (got_old, got_new):
            return True
    return False


def history_paths(diff: str) -> list[str]:
    return [classify(line).text for line in split_lines(diff) if classify(line).kind is Kind.OLD_PATH]


def features(example: Example, file: Path) -> set[str]:
    found = set()
    if len(example.expected_patches) > 1:
        found.add("several expected patches")
    cursor = example.cursor_position
    if INLINE_MARKER in cursor:
        found.add("inline <|user_cursor|>")
    else:
        marker_line = next(line for line in cursor.split("\n") if MARKER in line)
        if "^" in marker_line:
            found.add("^ cursor marker")
        elif "<" in marker_line:
            found.add("< cursor marker")
            if marker_line.startswith("\t"):
                found.add("< marker on a tab-indented line")
    if any(e.has_cursor for e in example.expected()):
        found.add("expected cursor")
    if ACCEPTED_PREDICTION_MARKER in example.edit_history:
        found.add("accepted-prediction marker")
    if example.uncommitted_diff:
        found.add("uncommitted diff")
    if example.rejected_patch is not None:
        found.add("rejected patch")
    if example.tags:
        found.add("tags")
    paths = history_paths(example.edit_history)
    if len(set(paths)) > 1:
        found.add("history over several files")
    if len(paths) != len(set(paths)):
        found.add("several sections for one file")
    if not example.edit_history.strip():
        found.add("no edit history")
        if file.suffix == ".md" and "(No edit history)" not in file.read_text():
            found.discard("no edit history")
    if wrong_counts(example.edit_history):
        found.add("wrong @@ counts in history")
    if file.suffix == ".md" and example.name != file.stem:
        found.add("H1 name")
    if file.suffix == ".jsonl":
        found.add("jsonl")
    return found


class Repos:
    """One clone per bundle, and a fresh detached worktree per example."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.clones: dict[str, Path] = {}
        self.count = 0

    def clone(self, url: str) -> Path:
        repo = url.removeprefix(build.URL_PREFIX)
        if not url.startswith(build.URL_PREFIX) or repo not in build.REPOS:
            raise Failure(f"unknown repository_url {url!r}")
        if repo not in self.clones:
            bundle = build.bundle_path(repo)
            if not bundle.exists():
                raise Failure(f"{bundle} is missing: run evals/repos/build.py")
            target = self.scratch / repo
            git(["clone", "-q", "--no-checkout", str(bundle), str(target)], self.scratch)
            self.clones[repo] = target
        return self.clones[repo]

    def worktree(self, url: str, revision: str) -> Path:
        clone = self.clone(url)
        if git(["cat-file", "-t", revision], clone).strip() != "commit":
            raise Failure(f"revision {revision} is not a commit of {url}")
        self.count += 1
        target = self.scratch / f"wt-{self.count}"
        git(["worktree", "add", "-q", "--detach", str(target), revision], clone)
        return target


def check(example: Example, file: Path, repos: Repos, verbose: bool) -> list[str]:
    """Replay one example; return the lines to print. Raises Failure."""
    out: list[str] = []
    if len(example.revision) != 40:
        raise Failure(f"revision {example.revision!r} is not a full commit id")
    work = repos.worktree(example.repository_url, example.revision)
    prefix = example.repo_name + "/"
    if any(line.startswith((f"--- a/{prefix}", f"+++ b/{prefix}")) for line in example.uncommitted_diff.split("\n")):
        raise Failure(
            f"the uncommitted diff touches a path under '{prefix}': Zed strips that "
            "prefix (old examples wrote repo-prefixed paths) and git apply then fails"
        )
    if example.uncommitted_diff:
        git(["apply", "--check", "-"], work, example.uncommitted_diff)
        git(["apply", "-"], work, example.uncommitted_diff)
        if not git(["status", "--porcelain"], work).strip():
            raise Failure("the uncommitted diff changes nothing")

    def open_file(path: str) -> tuple[str, str] | None:
        target = work / path
        if target.is_file():
            return path, target.read_text(encoding="utf-8")
        return None

    def base_text(path: str) -> str | None:
        if path in buffers:
            return buffers[path]
        opened = open_file(path)
        return None if opened is None else opened[1]

    buffers: dict[str, str] = {}
    sections = list(apply_sections(example.edit_history, buffers, open_file, marker=ACCEPTED_PREDICTION_MARKER))
    for section in sections:
        if section.before == section.after:
            raise Failure(f"edit-history section at line {section.line} changes nothing")
    if ACCEPTED_PREDICTION_MARKER in example.edit_history and not any(s.predicted for s in sections):
        raise Failure("the accepted-prediction marker flags no section")

    if example.cursor_path not in buffers:
        opened = open_file(example.cursor_path)
        if opened is None:
            raise Failure(f"cursor path {example.cursor_path} does not exist")
        buffers[example.cursor_path] = opened[1]
    text = buffers[example.cursor_path]
    excerpt, offset_in_excerpt = example.cursor_excerpt()
    hits = text.count(excerpt)
    if hits != 1:
        raise Failure(f"the cursor excerpt occurs {hits} times in {example.cursor_path}")
    cursor = text.index(excerpt) + offset_in_excerpt
    if verbose:
        out.append("    cursor    " + cursor_view(text, cursor, example.cursor_path))

    results = []
    for index, expected in enumerate(example.expected(), 1):
        patched = apply_patch(buffers, expected, open_file=open_file)
        if all(patched.buffers.get(p) == base_text(p) for p in patched.changed):
            raise Failure(f"expected patch {index} changes nothing")
        results.append(patched.buffers)
        if expected.has_cursor:
            if patched.cursor is None:
                raise Failure(f"expected patch {index} has a cursor line that places nothing")
            path, at = patched.cursor
            if verbose:
                out.append(f"    expect {index:<2} " + cursor_view(patched.buffers[path], at, path))
        elif verbose:
            out.append(f"    expect {index:<2} (no cursor) changes {', '.join(patched.changed)}")
    for a in range(len(results)):
        for b in range(a + 1, len(results)):
            if results[a] == results[b]:
                raise Failure(f"expected patches {a + 1} and {b + 1} give the same result")
    if example.rejected_patch is not None:
        rejected = apply_patch(buffers, example.rejected_patch, open_file=open_file)
        if all(rejected.buffers.get(p) == base_text(p) for p in rejected.changed):
            raise Failure("the rejected patch changes nothing")
        if any(rejected.buffers == r for r in results):
            raise Failure("the rejected patch gives the same result as an expected patch")
        if verbose:
            out.append(f"    rejected  changes {', '.join(rejected.changed)}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Replay the eval corpus against the bundles.")
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("-q", "--quiet", action="store_true", help="no cursor views")
    args = parser.parse_args(argv)
    files = args.files or sorted(p for p in EVALS.iterdir() if p.suffix in (".md", ".jsonl", ".json"))
    passed = failed = 0
    coverage: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="editpred-check-") as tmp:
        repos = Repos(Path(tmp))
        for file in files:
            for item in load_examples(file):
                if not isinstance(item, Example):
                    failed += 1
                    print(f"FAIL {file.name}: {item}")
                    continue
                label = item.name if file.suffix == ".jsonl" else file.name
                try:
                    lines = check(item, file, repos, not args.quiet)
                    found = features(item, file)
                except Exception as error:  # noqa: BLE001 - report and go on
                    failed += 1
                    print(f"FAIL {label}: {type(error).__name__}: {error}")
                    continue
                passed += 1
                coverage.update(found)
                print(f"ok   {label}  [{', '.join(sorted(found))}]")
                for line in lines:
                    print(line)
    print()
    print("feature coverage (examples using each):")
    missing = []
    for feature in REQUIRED_FEATURES:
        print(f"  {coverage[feature]:3}  {feature}")
        if not coverage[feature] and not args.files:
            missing.append(feature)
    if missing:
        print(f"MISSING features: {', '.join(missing)}")
    print(f"\n{passed} passed, {failed} failed")
    return 1 if failed or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
