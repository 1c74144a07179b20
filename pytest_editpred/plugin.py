"""The pytest surface of pytest-editpred: options, collection, fixtures and hooks.

Only the surface lives here; the work is in :mod:`pytest_editpred.integration` and in
the pytest-free core. pytest imports this module on every run of every test suite
(the ``pytest11`` entry point), so at import it loads nothing but pytest and the
stash keys: the option table, the error tree and the heavy libraries (git, httpx,
markdown-it, tree-sitter, the metrics and zeta packages) are imported inside the
hooks and fixtures that need them (``bench/bench_startup.py`` measures it,
``tests/test_startup.py`` keeps it so).
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .integration import PREPARED_KEY, ROOTS_KEY, RUN_KEY, SETUP_ERROR_KEY, TRIALS_KEY

_CHECKED_KEY = pytest.StashKey[bool]()
_HEADER_KEY = pytest.StashKey[bool]()  # the header named the provider

if TYPE_CHECKING:
    from .integration.runner import Prepared, Run


def pytest_addoption(parser: pytest.Parser) -> None:
    from .integration import options

    options.add_options(parser, options.REPORT_OPTIONS)


def pytest_configure(config: pytest.Config) -> None:
    from ._exceptions import EditPredError
    from .integration import options

    config.addinivalue_line("markers", "editpred: an edit-prediction example (pytest-editpred)")
    base = Path(config.inipath).parent if config.inipath else Path(config.rootpath)
    config.stash[ROOTS_KEY] = [(base / p).resolve() for p in options.get(config, "paths")]
    try:
        config.stash[TRIALS_KEY] = options.get(config, "trials")
        options.check_values(config)
        options.check_combinations(config)
    except EditPredError as error:
        raise pytest.UsageError(f"editpred: {error}") from None
    from .integration.reporting import AfterReports, Reporter

    config.pluginmanager.register(Reporter(config), "editpred-reporter")
    config.pluginmanager.register(AfterReports(config), "editpred-after-reports")
    if config.pluginmanager.hasplugin("xdist"):
        from .integration.wire import Wire

        config.pluginmanager.register(Wire(), "editpred-wire")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix.lower() not in (".md", ".json", ".jsonl"):
        return None
    from .integration.collect import ExampleFile, is_example_file

    if is_example_file(file_path, parent.config, parent.config.stash[ROOTS_KEY]):
        return ExampleFile.from_parent(parent, path=file_path)
    if file_path.suffix.lower() != ".md":
        from .integration.collect import note_skipped_json

        note_skipped_json(file_path, parent.config)
    return None


def _run(config: pytest.Config) -> Run:
    """The session's :class:`Run`, made on first use (no cost when no example runs)."""
    if RUN_KEY not in config.stash:
        from .integration import options
        from .integration.runner import Run

        cache = getattr(config, "cache", None)
        context_only, context_budget, context_sources = options.context_from(config)
        config.stash[RUN_KEY] = Run(
            config=config,
            settings=options.settings_from(
                config, lambda: cache.mkdir("editpred-responses") if cache is not None else None
            ),
            match=options.get(config, "match"),
            cache_dir=options.repo_cache_dir(config),
            mappings=options.repo_mappings(config),
            offline=bool(options.get(config, "offline")),
            limits=options.limits_from(config),
            thresholds=(
                ("delta_chr_f", options.get(config, "min_delta_chrf"), lambda value, limit: value < limit),
                ("reversal_ratio", options.get(config, "max_reversal"), lambda value, limit: value > limit),
            ),
            context_only=context_only,
            context_budget=context_budget,
            context_sources=context_sources,
            retrieval=options.retrieval_from(config),
        )
    return config.stash[RUN_KEY]


def _prepare(config: pytest.Config) -> None:
    """Read every option and build the provider, once, before the first example runs:
    a bad option or a provider that cannot be built is one usage error, not an ERROR
    (and a traceback) per item."""
    from ._exceptions import ConfigError
    from .integration import options
    from .providers import unused_options

    try:
        run = _run(config)
        run.start_provider()
    except ConfigError as error:
        raise pytest.UsageError(f"editpred: {error}") from None
    provider = run.settings.provider
    ignored = [] if run.context_only else unused_options(provider, options.given(config))
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if ignored and reporter is not None:
        flags = ", ".join(f"--editpred-{name.replace('_', '-')}" for name in ignored)
        reporter.write_line(
            f"editpred: provider {provider!r} does not use {flags}: ignored "
            "(see the README's Providers table for what each provider reads)",
            yellow=True,
        )


def _start_judge(config: pytest.Config) -> None:
    """Build ``--editpred-qa`` before the first example: a judge that cannot be
    built is one usage error (on the controller; a worker leaves it to it)."""
    from ._exceptions import ConfigError

    try:
        _run(config).start_judge()
    except ConfigError as error:
        if not hasattr(config, "workerinput"):
            raise pytest.UsageError(f"editpred: {error}") from None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Check the options before the first example runs: a bad one is a usage error."""
    # Until an example file is collected the collector is not imported, and then no
    # item can be an example: a suite without examples never loads it.
    collect = sys.modules.get("pytest_editpred.integration.collect")
    examples = [item for item in session.items if collect is not None and isinstance(item, collect.ExampleItem)]
    if examples:
        _start_judge(session.config)
    if not any(_needs_provider(item) for item in examples):
        return  # no example, or every one answered by a conftest's own editpred_completion
    if hasattr(session.config, "workerinput"):
        # An xdist worker: the controller checks the same options when the worker
        # reports its collection and tells the error once; a worker that raised here
        # would only crash. The fixture raises it again if an item ever runs.
        from ._exceptions import ConfigError

        try:
            _run(session.config).start_provider()
        except ConfigError:
            pass
        return
    _prepare(session.config)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Under xdist the controller collects nothing: it checks the options when the
    first worker reports example items, before any is scheduled."""
    config = node.config
    if _CHECKED_KEY in config.stash or _custom_completions(config):
        # A conftest of its own answers (the workers know for which items): the
        # fixture reports a provider that cannot be built, on the items that need it.
        return
    if any(nodeid.split("::", 1)[0].lower().endswith((".md", ".json", ".jsonl")) for nodeid in ids):
        config.stash[_CHECKED_KEY] = True
        _start_judge(config)
        _prepare(config)
        # The controller runs no example: its provider is only the check.
        config.stash[RUN_KEY].close_provider()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist load`` (xdist's default) that does not starve examples' prefetch
    (:mod:`.integration.scheduling`); the other ``--dist`` modes are xdist's."""
    if config.getvalue("dist") != "load":
        return None
    from .integration.scheduling import load_scheduling

    return load_scheduling(config, log)


def pytest_report_collectionfinish(config: pytest.Config, items: list[pytest.Item]) -> list[str] | None:
    """One line per example tag that cannot be a marker, saying how to select it, and
    one for JSON files left out of a directory named on the command line; and the
    header line, when examples were collected where the header could not foresee them
    (no ``evals`` directory, examples found under a directory argument)."""
    collect = sys.modules.get("pytest_editpred.integration.collect")
    if collect is None:
        return None
    lines = collect.collection_hints(config)
    if not config.stash.get(_HEADER_KEY, False) and any(isinstance(item, collect.ExampleItem) for item in items):
        lines = (_header(config) or []) + lines
    return lines or None


@pytest.fixture(scope="session")
def editpred_settings(pytestconfig: pytest.Config) -> Any:
    """The run's provider settings (:class:`pytest_editpred.Settings`)."""
    return _run(pytestconfig).settings


@pytest.fixture(scope="session")
def editpred_completion(pytestconfig: pytest.Config) -> Any:
    """The completion function every example calls: the provider picked with
    ``--editpred-provider``. Override it in ``conftest.py`` to use your own."""
    from ._exceptions import ConfigError

    try:
        return _run(pytestconfig).start_provider()
    except ConfigError as error:  # only where the session could not check it first
        failure = error
    pytest.fail(f"editpred: {failure}", pytrace=False)


@pytest.fixture(scope="session")
def _editpred_session_completion(request: pytest.FixtureRequest) -> Any:
    """The completion function if it is session-scoped, else None.

    Predictions are made ahead of time only with a session-scoped completion: a
    narrower one may hold per-test state. Asking for it from a session fixture is
    the public way to learn its scope (pytest refuses a narrower scope).
    """
    try:
        return request.getfixturevalue("editpred_completion")
    except pytest.fail.Exception:
        return None


@pytest.fixture
def editpred_prediction(
    request: pytest.FixtureRequest, editpred_completion: Any, _editpred_session_completion: Any
) -> Prepared:
    """Setup of an example item: the scene and the prediction (errors here are ERRORs)."""
    from ._exceptions import EditPredError
    from .integration.collect import ExampleItem

    item = request.node
    if not isinstance(item, ExampleItem):
        raise pytest.UsageError("editpred_prediction is only for edit-prediction examples")
    run = _run(item.config)
    item.stash[RUN_KEY] = run
    item.answered_by = run.answered_by(editpred_completion)
    failure: EditPredError | None = item.load_error
    if failure is None:
        try:
            prefetch = editpred_completion is _editpred_session_completion
            prepared = run.predict(item, editpred_completion, prefetch=prefetch)
        except EditPredError as error:
            failure = error
    if failure is not None:
        # A message for people, not a traceback: the example, git or the server failed.
        # Failed outside the ``except``: raised inside it, pytest would print the
        # error it handles too ("During handling of the above exception, ..."), so
        # every message would appear twice.
        item.stash[SETUP_ERROR_KEY] = failure
        pytest.fail(item.error_message(failure), pytrace=False)
    item.stash[PREPARED_KEY] = prepared
    return prepared


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    error = item.stash.get(SETUP_ERROR_KEY, None)
    if (
        error is not None
        and report.when == "setup"
        and report.failed
        and call.excinfo is not None
        and isinstance(call.excinfo.value, pytest.fail.Exception)
    ):
        # The paragraph itself, as a call-phase error shows (ExampleItem.repr_failure):
        # not "Failed: ..." again in the short summary.
        report.longrepr = item.report_of(item.error_message(error))  # type: ignore[attr-defined]
    if PREPARED_KEY in item.stash or SETUP_ERROR_KEY in item.stash or RUN_KEY in item.stash:
        from .integration.annotate import annotate

        annotate(item, call, report)  # type: ignore[arg-type]
    if report.when == "teardown" and PREPARED_KEY in item.stash:
        # The item's last report is made: its scene, candidates and verdict go (a
        # 2,000-line example with 10 patches holds about 1 MB of texts, and a corpus
        # must not hold them all until the session ends).
        del item.stash[PREPARED_KEY]
    return report


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Name the provider, model and repository cache, when examples may run (when it
    cannot tell before collection, the line comes after it: see
    :func:`pytest_report_collectionfinish`)."""
    if not any(root.is_dir() for root in config.stash[ROOTS_KEY]) and not any(
        str(arg).endswith((".md", ".json", ".jsonl")) for arg in config.args
    ):
        return None
    lines = _header(config)
    config.stash[_HEADER_KEY] = bool(lines)
    return lines


def _header(config: pytest.Config) -> list[str] | None:
    from ._exceptions import EditPredError

    try:
        run = _run(config)
    except EditPredError:
        return None  # reported as a usage error once collection is done
    custom = _custom_completions(config)
    if custom:
        # A conftest's own editpred_completion answers, not --editpred-provider.
        parts = [f"provider={', '.join(custom)}"]
    else:
        parts = [f"provider={run.settings.provider}"]
        if run.settings.model:
            parts.append(f"model={run.settings.model}")
    parts.append(f"match={run.match}")
    if not custom:
        from .integration.runner import related_files_in_force

        related = related_files_in_force(run)
        if related is not None:
            parts.append(f"related files={related}")
    parts.append(f"repository cache={run.cache_dir}")
    return ["editpred: " + ", ".join(parts)]


def _custom_completions(config: pytest.Config) -> list[str]:
    """``module.editpred_completion`` for every conftest loaded so far that overrides
    the fixture (conftests deeper than the command line's paths load later, during
    collection: their items still record the function that answered)."""
    import types

    names = []
    for plugin in config.pluginmanager.get_plugins():
        if (
            isinstance(plugin, types.ModuleType)
            and plugin is not sys.modules[__name__]
            and getattr(plugin, "editpred_completion", None) is not None
        ):
            names.append(f"{plugin.__name__}.editpred_completion")
    return sorted(set(names))


def _needs_provider(item: pytest.Item) -> bool:
    """Does ``item`` get its answers from this plugin's ``editpred_completion`` (the
    ``--editpred-provider``), rather than from a conftest's own? True when unsure."""
    info = getattr(item, "_fixtureinfo", None)  # pytest's resolved fixtures of the item
    definitions = getattr(info, "name2fixturedefs", {}).get("editpred_completion") if info is not None else None
    if not definitions:
        return True
    func = getattr(definitions[-1], "func", None)
    return getattr(func, "__module__", __name__) == __name__
