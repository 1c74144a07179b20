"""The response cache never reads or writes through a symlink out of its root.

The cache shards its entries into 256 directories (``<root>/<key[:2]>/<key>.json``).
A cache copied, unpacked or committed by someone else may hold shard directories that
are symlinks to a directory elsewhere; answers were written through them (files
appeared outside the cache). Now such an entry is neither read nor written, the run
goes on (the answer is asked of the server, and not cached), and one warning says so
for the cache, not one per entry. Links that stay inside the root are followed, and so
is the root itself when it is a symlink: it is where the user pointed the cache, and
everything below it must stay inside what it resolves to.
"""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path

import pytest
from llm_server import LLMServer, llm_server_fixture  # noqa: F401  (the llm_server fixture)

from conftest import SUB, Project
from pytest_editpred.providers.transport._cache import ResponseCache, ResponseCacheWarning

RIGHT = "\n    return a - b"  # the llamacpp-infill answer that passes SUB
WARNING = "a symlink in the response cache"


def shards() -> list[str]:
    return [f"{i:02x}" for i in range(256)]


def files(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if path.is_file() or path.is_symlink())


def run(project: Project, server: LLMServer, cache: Path, *extra: str) -> pytest.RunResult:
    """SUB twice (two trials: two requests, two cache keys, two shards) against the
    loopback server, with the response cache at ``cache``."""
    return project.pytester.runpytest(
        "evals",
        "--editpred-provider=llamacpp-infill",
        f"--editpred-base-url={server.url}",
        f"--editpred-response-cache-dir={cache}",
        "--editpred-trials=2",
        *extra,
    )


@pytest.fixture
def sub(project: Project, llm_server: LLMServer) -> Project:
    project.example("calc--sub", SUB)
    llm_server.answer(RIGHT)
    return project


@pytest.mark.xdist
def test_shards_linked_out_of_the_cache_are_neither_written_nor_read(
    sub: Project, llm_server: LLMServer, plugin_args: list[str]
) -> None:
    root = sub.pytester.path / "responses"
    outside = sub.pytester.path / "outside"
    # a first run fills a plain cache: these are the entries the links would reach
    run(sub, llm_server, root).assert_outcomes(passed=2)
    entries = [path for path in files(root) if path.suffix == ".json"]
    assert len(entries) == 2 and len(llm_server.requests) == 2
    # every shard becomes a link to a directory outside the cache, which holds them
    outside.mkdir()
    for entry in entries:
        entry.rename(outside / entry.name)
    for shard in root.iterdir():
        shard.rmdir()
    for name in shards():
        (root / name).symlink_to(outside, target_is_directory=True)
    before = {path: path.read_bytes() for path in files(outside)}

    result = run(sub, llm_server, root, *plugin_args)
    result.assert_outcomes(passed=2)  # the items run
    assert len(llm_server.requests) == 4  # nothing read through the links: asked again
    assert {path: path.read_bytes() for path in files(outside)} == before  # nothing written there
    output = result.stdout.str()
    assert output.count(WARNING) == 1, output  # once for the cache, not once per entry
    result.stdout.fnmatch_lines([f"*ResponseCacheWarning: {WARNING} {root} leads out of it (to {outside})*"])
    assert not [path for path in files(root) if not path.is_symlink()]  # not cached inside either

    again = run(sub, llm_server, root, *plugin_args)
    again.assert_outcomes(passed=2)
    assert len(llm_server.requests) == 6 and again.stdout.str().count(WARNING) == 1


def test_replay_only_through_links_out_is_missing_answers_not_read(sub: Project, llm_server: LLMServer) -> None:
    root = sub.pytester.path / "responses"
    run(sub, llm_server, root).assert_outcomes(passed=2)
    outside = sub.pytester.path / "outside"
    root.rename(outside)
    root.mkdir()
    for shard in outside.iterdir():
        (root / shard.name).symlink_to(shard, target_is_directory=True)
    result = run(sub, llm_server, root, "--editpred-cache=replay-only")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*missing answer*"])
    assert len(llm_server.requests) == 2 and result.stdout.str().count(WARNING) == 1


def test_links_inside_the_cache_are_followed(sub: Project, llm_server: LLMServer) -> None:
    root = sub.pytester.path / "responses"
    (root / "all").mkdir(parents=True)
    for name in shards():
        (root / name).symlink_to(root / "all", target_is_directory=True)
    first = run(sub, llm_server, root)
    first.assert_outcomes(passed=2)
    assert len([path for path in files(root / "all") if path.suffix == ".json"]) == 2
    second = run(sub, llm_server, root)
    second.assert_outcomes(passed=2)
    assert len(llm_server.requests) == 2  # read back through the links
    assert WARNING not in first.stdout.str() + second.stdout.str()


def test_a_root_that_is_a_symlink_is_where_the_cache_is(sub: Project, llm_server: LLMServer) -> None:
    """The root is the user's choice (``.pytest_cache`` on another disk, a shared
    directory): it is followed wherever it leads, and is then the boundary."""
    elsewhere = sub.pytester.path / "elsewhere" / "cache"
    elsewhere.mkdir(parents=True)
    root = sub.pytester.path / "responses"
    root.symlink_to(elsewhere, target_is_directory=True)
    first = run(sub, llm_server, root)
    second = run(sub, llm_server, root)
    first.assert_outcomes(passed=2)
    second.assert_outcomes(passed=2)
    assert len(llm_server.requests) == 2
    assert len([path for path in files(elsewhere) if path.suffix == ".json"]) == 2
    assert WARNING not in first.stdout.str() + second.stdout.str()


# -- the cache alone ---------------------------------------------------------------


KEY = "ab" + "0" * 62


def test_an_entry_linked_out_is_a_miss_and_is_replaced_not_written_through(tmp_path: Path) -> None:
    root, outside = tmp_path / "cache", tmp_path / "outside.json"
    outside.write_text('{"secret": 1}')
    (root / "ab").mkdir(parents=True)
    (root / "ab" / f"{KEY}.json").symlink_to(outside)
    cache = ResponseCache(root, "readwrite")
    with pytest.warns(ResponseCacheWarning, match=re.escape(f"{WARNING} {root} leads out of it (to {outside})")):
        assert cache.get(KEY) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # told once: no second warning
        path = cache.put(KEY, response_text="{}", latency=None, metadata={})
    assert path == root / "ab" / f"{KEY}.json" and not path.is_symlink()  # the link is replaced
    assert outside.read_text() == '{"secret": 1}'
    assert cache.get(KEY) is not None


def test_a_link_to_a_missing_directory_outside_is_refused_too(tmp_path: Path) -> None:
    root, gone = tmp_path / "cache", tmp_path / "not-yet"
    root.mkdir()
    (root / "ab").symlink_to(gone, target_is_directory=True)
    cache = ResponseCache(root, "readwrite")
    with pytest.warns(ResponseCacheWarning):
        assert cache.put(KEY, response_text="{}", latency=None, metadata={}) is None
    assert not gone.exists()


def test_warnings_made_errors_still_leave_the_item_alone(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root, outside = tmp_path / "cache", tmp_path / "outside"
    outside.mkdir()
    root.mkdir()
    (root / "ab").symlink_to(outside, target_is_directory=True)
    cache = ResponseCache(root, "readwrite")
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, "pytest_editpred.providers"):
        warnings.simplefilter("error")
        assert cache.put(KEY, response_text="{}", latency=None, metadata={}) is None
        assert cache.get(KEY) is None
    assert [record.getMessage().count(WARNING) for record in caplog.records] == [1]
    assert not list(outside.iterdir())
