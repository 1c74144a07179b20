"""Build the git repositories the eval corpus runs against, reproducibly.

The eval corpus
===============

``evals/`` holds the project's own edit-prediction examples in Zed's eval format
(``evals/<repo>--<what>.md``, plus ``evals/*.jsonl`` with Zed's JSON field names).
Each example names a repository by URL and a commit id; the repositories are small
fictional projects shipped in this tree, so ``pytest evals/`` runs offline:

    evals/<repo>--<what>.md          one example each (Zed's markdown format)
    evals/follow-ups.jsonl           more examples, one JSON object a line
    evals/repos/src/<repo>/<n>/...   the full tree of commit n (1, 2, ...) as plain files
    evals/repos/<repo>.bundle        the git repository, made by this script
                                     (``git bundle create ... --all``; committed too)
    evals/repos/build.py             this script
    evals/repos/check.py             replays every example against the bundles (run by hand)
    evals/repos/conftest.py          keeps pytest out of src/ (package.json is not an example)

Repository URLs (fictional) and their bundles, as the pytest configuration maps them
with ``editpred_repos``::

    https://github.com/editpred-fixtures/pyshapes    = evals/repos/pyshapes.bundle
    https://github.com/editpred-fixtures/rustkv      = evals/repos/rustkv.bundle
    https://github.com/editpred-fixtures/tsinventory = evals/repos/tsinventory.bundle
    https://github.com/editpred-fixtures/taskd       = evals/repos/taskd.bundle

Rebuilding
==========

    python evals/repos/build.py          # writes the bundles, prints the commit ids

Every commit is made with fixed author/committer names, emails and dates, with the
user's and the system's git configuration shut out, so the commit ids are the same on
every machine and every run. The ids are recorded in ``COMMITS`` below and in the
examples' ``revision`` fields: when you change a file under ``src/``, the ids of that
commit and of every later commit of that repository change. The script then says
which ids moved; update ``COMMITS`` and the examples (``grep -rl OLD_ID evals``), and
run ``python evals/repos/check.py``.

Adding a commit: copy the last ``src/<repo>/<n>`` to ``<n+1>``, edit it, and add its
message and date to ``REPOS``. Two pitfalls:

* no top-level directory of a fixture repository may be named like the repository
  (pyshapes keeps its package in ``src/pyshapes/``): before ``git apply`` Zed strips
  a leading ``<repo>/`` from uncommitted-diff paths, written by old examples;
* examples must be replayable: after editing sources or examples run
  ``python evals/repos/check.py`` and look at every cursor view it prints.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
URL_PREFIX = "https://github.com/editpred-fixtures/"

AUTHOR = ("Ada Fixture", "ada@editpred-fixtures.invalid")
COMMITTER = ("Fixture Builder", "builder@editpred-fixtures.invalid")

# repo -> [(snapshot directory under src/<repo>/, commit message, date)]
REPOS: dict[str, list[tuple[str, str, str]]] = {
    "pyshapes": [
        ("1", "Initial shapes library: points, shapes, transforms, SVG and JSON", "2024-03-04T09:15:00+01:00"),
        ("2", "Add polygons and an SVG style object", "2024-03-11T16:40:00+01:00"),
    ],
    "rustkv": [
        ("1", "rustkv: in-memory store with a line protocol and snapshots", "2024-04-02T11:00:00+02:00"),
    ],
    "tsinventory": [
        ("1", "Inventory model, catalogue client, reports and event log", "2024-05-21T14:05:00-04:00"),
    ],
    "taskd": [
        ("1", "taskd: task board HTTP API with an in-memory store", "2024-06-10T08:30:00+00:00"),
    ],
}

# The ids this script produces; the examples' front matter uses them.
COMMITS: dict[str, list[str]] = {
    "pyshapes": [
        "a47d8864c8555705f482b9107144dac1469ad454",
        "4f26508a44ad1f4a58d4f143e7d157fff6c4351d",
    ],
    "rustkv": ["7a1f576f7aea398979874dddd45aa3a30e012c98"],
    "tsinventory": ["fc0c5c7532b0e6ea2c8d4700a7e0faae2f94162e"],
    "taskd": ["0d9d295e57115e8eed2641312dfea45586456501"],
}


def url(repo: str) -> str:
    return URL_PREFIX + repo


def bundle_path(repo: str) -> Path:
    return HERE / f"{repo}.bundle"


def _git_env(home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") and key not in ("HOME", "XDG_CONFIG_HOME", "EMAIL")
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_SYSTEM=os.devnull,
        GIT_AUTHOR_NAME=AUTHOR[0],
        GIT_AUTHOR_EMAIL=AUTHOR[1],
        GIT_COMMITTER_NAME=COMMITTER[0],
        GIT_COMMITTER_EMAIL=COMMITTER[1],
        TZ="UTC",
        LC_ALL="C",
    )
    return env


def _git(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    result = subprocess.run(
        ["git", "-c", "core.autocrlf=false", "-c", "core.fileMode=true", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed in {cwd}:\n{result.stderr}")
    return result.stdout.strip()


def _copy_snapshot(snapshot: Path, work: Path) -> None:
    """Make ``work`` (minus .git) an exact copy of ``snapshot``, every file 0644."""
    for entry in work.iterdir():
        if entry.name == ".git":
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    for source in sorted(snapshot.rglob("*")):
        if "__pycache__" in source.parts or source.suffix == ".pyc":
            continue
        target = work / source.relative_to(snapshot)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(0o644)


def build(repo: str, out: Path, scratch: Path) -> list[str]:
    """Create the repository from its snapshots and write its bundle to ``out``."""
    env = _git_env(scratch)
    work = scratch / repo
    work.mkdir()
    _git(["init", "-q", "-b", "main"], work, env)
    ids = []
    for directory, message, date in REPOS[repo]:
        snapshot = SRC / repo / directory
        if not snapshot.is_dir():
            raise SystemExit(f"missing snapshot {snapshot}")
        _copy_snapshot(snapshot, work)
        _git(["add", "-A"], work, env)
        commit_env = dict(env, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        _git(["commit", "-q", "--no-verify", "-m", message], work, commit_env)
        ids.append(_git(["rev-parse", "HEAD"], work, env))
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    _git(["-c", "pack.threads=1", "bundle", "create", "-q", str(out), "--all"], work, env)
    return ids


def _shown(path: Path) -> str:
    """``path`` relative to the project root when it is inside it."""
    try:
        return str(path.resolve().relative_to(HERE.parent.parent))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="*", help="repositories to build (default: all)")
    parser.add_argument("--out", type=Path, default=HERE, help="directory for the bundles (default: here)")
    args = parser.parse_args(argv)
    repos = args.repos or list(REPOS)
    unknown = [r for r in repos if r not in REPOS]
    if unknown:
        parser.error(f"unknown repositories: {', '.join(unknown)}")
    moved = False
    with tempfile.TemporaryDirectory(prefix="editpred-build-") as tmp:
        for repo in repos:
            ids = build(repo, args.out / f"{repo}.bundle", Path(tmp))
            print(f"{url(repo)} = {_shown(args.out / (repo + '.bundle'))}")
            for (directory, message, _), commit in zip(REPOS[repo], ids):
                recorded = COMMITS.get(repo, [])
                index = int(directory) - 1
                known = recorded[index] if index < len(recorded) else ""
                note = "" if known == commit else f"   (recorded: {known or 'none'})"
                moved |= bool(note)
                print(f"  {directory}: {commit}  {message}{note}")
    if moved:
        print(
            "\nSome commit ids differ from COMMITS in build.py: update COMMITS and the examples' revisions.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
