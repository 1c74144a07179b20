"""The run: scenes, predictions made ahead of time, verdicts and the facts reported.

Setup (the ``editpred_prediction`` fixture) rebuilds the scene and gets the
prediction, so a broken example, a git failure or an unreachable server is an ERROR.
The call phase judges it, so a wrong answer is a FAILED. Predictions for the
following items are requested ahead of time (``--editpred-concurrency``) while
pytest still reports items one by one, in order.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .._exceptions import PredictionError
from .._limits import DEFAULT_LIMITS, Limits
from .._settings import Settings
from ..judge import Prediction
from .collect import ExampleItem

if TYPE_CHECKING:
    from ..example import RetrievedFile
    from ..judge import Candidate, Verdict
    from ..metrics import ContextEvaluation
    from ..scene import RepositoryCache, Scene
    from .failure import Failure

__all__ = ["Run", "Prepared", "related_files_in_force", "RUN_KEY", "PREPARED_KEY", "SETUP_ERROR_KEY", "qualified_name"]

from . import PREPARED_KEY, RUN_KEY, SETUP_ERROR_KEY  # noqa: E402  (re-exported)


class _Locked:
    """Serialise calls into a repository: git's cat-file pipe is not thread-safe."""

    def __init__(self, target: Any, lock: threading.RLock) -> None:
        self._target, self._lock = target, lock

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value):
            return value

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                result = value(*args, **kwargs)
            return _Locked(result, self._lock) if name == "open" else result

        return locked


def _taken(prefetcher: Any, item: ExampleItem) -> Prepared:
    """The prefetched result for ``item``, which the prefetcher then forgets: the
    item holds it until its last report is made (``plugin.pytest_runtest_makereport``)."""
    try:
        return prefetcher.result(item)  # type: ignore[no-any-return]
    finally:
        prefetcher.forget(item)


@dataclass
class Prepared:
    """What setup made for one item: the scene, the candidates, the prediction."""

    item: ExampleItem
    scene: Scene
    candidates: tuple[Candidate, ...]
    rejected: Candidate | None
    prediction: Prediction | None = None
    prediction_error: PredictionError | None = None
    latency: float = 0.0
    verdict: Verdict | None = None
    # The judge's answer (QaResult.to_json(), or {"error": ...}); None when not asked.
    qa: dict[str, Any] | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    failure: Failure | None = None  # a wrong answer's report, made for --tb at repr_failure

    def conclude(self) -> None:
        self.item.stash[RUN_KEY].conclude(self)


@dataclass
class Run:
    """Per-session state: the repository cache, settings and the prefetcher."""

    config: pytest.Config
    settings: Settings
    match: str
    cache_dir: Path
    mappings: dict[str, Path]
    offline: bool
    limits: Limits = DEFAULT_LIMITS
    _cache: Any = None
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _prefetcher: Any = None
    _prefetch_completion: Any = None
    thresholds: tuple[tuple[str, float | None, Callable[[float, float], bool]], ...] = ()
    # Context coverage: --editpred-context-only, the related files' byte budget and
    # the sources kept (None: every one).
    context_only: bool = False
    context_budget: int = 12_000
    context_sources: frozenset[str] | None = None
    # The completion function of --editpred-provider, built once (start_provider).
    _provider: Any = None
    # Context retrieval's --type values (None: off, the recent files instead), its
    # retriever (made on first need) and the server problems this process has told.
    retrieval: tuple[str, ...] | None = ("lsp",)
    _retriever: Any = None
    _told: set[str] = field(default_factory=set)
    # --editpred-qa: the judge's second opinion on each prediction (start_judge), or None.
    second_opinion: Any = None
    _judge_read: bool = False

    # --------------------------------------------------------------- provider

    def start_provider(self) -> Any:
        """The ``--editpred-provider`` completion function, built on first use.

        The plugin builds it once the items are collected, so that a provider that
        cannot be built (no model, no base URL, no replay file, an unset key
        variable) is one usage error before the first item, not one per item.
        """
        if self._provider is None and self.context_only:
            self._provider = _no_completion  # nothing is asked in a context-only run
        if self._provider is None:
            from .._exceptions import ConfigError
            from ..providers import available, get_provider

            name = self.settings.provider
            if name not in available():
                raise ConfigError(
                    f"unknown provider {name!r}",
                    fix=f"Pick one of: {', '.join(available())} (--editpred-provider).",
                )
            self._provider = get_provider(name)(self.settings)
        return self._provider

    def start_judge(self) -> Any:
        """``--editpred-qa``'s :class:`~.second_opinion.SecondOpinion`, built on
        first use (None when no judge is asked): a judge that cannot be built (no
        model, no server, an unset key variable, a bad template) is one usage error."""
        if self.second_opinion is None and not self.context_only and not self._judge_read:
            self._judge_read = True  # read once: a run without a judge does no judge work per item
            from . import options

            judge = options.judge_from(self.config, self.settings)
            if judge is not None:
                from ..providers import JudgeClient
                from ..qa import load_judge_template
                from .second_opinion import SecondOpinion

                name, settings, template = judge
                self.second_opinion = SecondOpinion(
                    JudgeClient(settings, name), load_judge_template(template) if template is not None else None
                )
        return self.second_opinion

    def take_judge_messages(self) -> list[str]:
        """The judge's problems this process has not told yet."""
        return self.second_opinion.take_messages() if self.second_opinion is not None else []

    def close_provider(self) -> None:
        """Drop the provider (its HTTP clients are made per event loop, on first use)."""
        self._provider = None

    def answered_by(self, completion: Any) -> str:
        """Who answers: ``--editpred-provider``'s name when ``completion`` is the provider
        it built, else the qualified name of the custom completion function (see
        :func:`qualified_name`); ``context-only`` when nothing answers."""
        if self.context_only:
            from ..reports import CONTEXT_ONLY

            return CONTEXT_ONLY
        if self._provider is not None and completion is self._provider:
            return self.settings.provider
        return qualified_name(completion)

    # ------------------------------------------------------------------ scene

    @property
    def repositories(self) -> RepositoryCache:
        if self._cache is None:
            from ..scene import RepositoryCache

            with self._lock:
                if self._cache is None:
                    self._cache = _Locked(
                        RepositoryCache(self.cache_dir, self.mappings, offline=self.offline), self._lock
                    )
        return self._cache  # type: ignore[no-any-return]

    def retrieves_for(self, completion: Any) -> bool:
        """Is context retrieved for the examples ``completion`` answers? When it is on
        and the run scores context alone, or ``--editpred-provider`` answers and builds
        one of Zed's prompts (a conftest's own function gets the example as it is)."""
        from ..providers import reads_related_files

        if self.retrieval is None:
            return False
        return self.context_only or (completion is self._provider and reads_related_files(self.settings))

    def retriever(self) -> Any:
        """The run's :class:`~pytest_editpred.retrieval.ContextRetriever` (one pool of
        language servers per process), made on first use; its cache is the responses'."""
        with self._lock:
            if self._retriever is None:
                from ..retrieval import ContextRetriever

                assert self.retrieval is not None
                self._retriever = ContextRetriever(
                    self.retrieval, cache_dir=self.settings.cache_dir, cache_mode=self.settings.cache_mode
                )
            return self._retriever

    def take_context_messages(self) -> list[str]:
        """The language servers' problems this process has not told yet."""
        if self._retriever is None:
            return []
        with self._lock:
            new = [message for message in self._retriever.messages if message not in self._told]
            self._told.update(new)
        return new

    def _scene_for(self, item: ExampleItem, retrieve: bool = False) -> Prepared:
        from ..judge import Candidate, expected_candidates
        from ..scene import build_scene

        example = item.example
        assert example is not None
        scene = build_scene(example, self.repositories)
        if retrieve:
            from ..retrieval import needs_retrieval

            if needs_retrieval(example):  # Zed's rule: an example's own related files are kept
                example = replace(example, related_files=self.retriever()(scene))
                scene = replace(scene, example=example)
        source = example.source
        where = (source.path, source.expected_patch_lines)
        candidates = expected_candidates(
            scene.buffers, example.expected(), scene.open_file, scene.cursor.path, where=where
        )
        rejected = None
        if example.rejected_patch is not None:
            from ..example import extract_cursor_from_patch

            [rejected] = expected_candidates(
                scene.buffers,
                [extract_cursor_from_patch(example.rejected_patch)],
                scene.open_file,
                scene.cursor.path,
                where=(source.path, (source.rejected_patch_line or 1,)),
            )
            rejected = Candidate(-1, rejected.patch, rejected.buffers, rejected.cursor)
        return Prepared(item, scene, candidates, rejected)

    # ------------------------------------------------------------- predicting

    def _call_for(self, completion: Callable[..., Any]) -> Callable[[ExampleItem], Any]:
        """``item -> Prepared``: scene, then the completion (awaited if async); the
        scene only in a context-only run."""
        retrieve = self.retrieves_for(completion)
        if self.context_only:
            return lambda item: self._scene_for(item, retrieve)
        if inspect.iscoroutinefunction(completion) or inspect.iscoroutinefunction(
            getattr(completion, "__call__", None)  # noqa: B004 (an async __call__ method, not callability)
        ):
            judge_async = self.start_judge()

            async def call_async(item: ExampleItem) -> Prepared:
                prepared = self._scene_for(item, retrieve)
                start = time.perf_counter()
                try:
                    prepared.prediction = _checked(await completion(prepared.scene.request(item.trial)))
                except PredictionError as error:
                    prepared.prediction_error = error
                prepared.latency = time.perf_counter() - start
                if judge_async is not None:
                    await judge_async.judge(prepared)
                return prepared

            return call_async

        def call(item: ExampleItem) -> Any:
            prepared = self._scene_for(item, retrieve)
            start = time.perf_counter()
            try:
                answer = completion(prepared.scene.request(item.trial))
            except PredictionError as error:
                prepared.prediction_error = error
                prepared.latency = time.perf_counter() - start
                return prepared
            if inspect.isawaitable(answer):
                return _finish_async(prepared, answer, start)
            prepared.prediction = _checked(answer)
            prepared.latency = time.perf_counter() - start
            return prepared

        judge = self.start_judge()
        if judge is None:
            return call

        def call_then_judge(item: ExampleItem) -> Any:
            # The judge is asked where the prediction was made: in the prefetcher's
            # task, so its latency overlaps the other items' (an awaitable returned
            # by a sync call is awaited on the completion loop).
            made = call(item)
            return _then_judge(judge, made)

        return call_then_judge

    def _upcoming(self, item: ExampleItem) -> list[ExampleItem]:
        """The items this process will run from ``item`` on, in order, that the
        prefetcher does not know yet.

        Under xdist that is this worker's queue, which the controller fills as other
        items end: read from its end back to the first item already known, so each
        item costs one look however often the queue is read.
        """
        items = item.session.items
        known = self._prefetcher
        interactor = _xdist_worker(self.config)
        if interactor is not None:
            upcoming: list[Any] = []
            try:
                with interactor.torun.lock() as queued:
                    for index in (*reversed(queued), interactor.nextitem_index):
                        if not isinstance(index, int):
                            continue
                        if known is not None and items[index] in known:
                            break
                        upcoming.append(items[index])
            except Exception:  # xdist's internals moved: prefetch what is known
                upcoming = []
            upcoming.append(item)
            upcoming.reverse()
        else:
            start = items.index(item) if item in items else 0
            upcoming = items[start:]
        return [
            i
            for i in upcoming
            if isinstance(i, ExampleItem)
            and i.example is not None
            and not _skipped(i)
            and (known is None or i not in known)
        ]

    def predict(self, item: ExampleItem, completion: Callable[..., Any], *, prefetch: bool) -> Prepared:
        """The item's prediction: from the prefetcher that runs ahead, or made now.

        The prefetcher covers the items this process is known to run next. Under
        xdist the controller sends more items as others end: each item extends it by
        those that arrived since, so the requests in flight stay at
        ``--editpred-concurrency`` until the queue runs dry (waiting to reach the
        first uncovered item would let them dwindle batch by batch).
        """
        from .._engine import Prefetcher, call_once

        if not prefetch or self.settings.concurrency <= 1:
            return call_once(self._call_for(completion), item)  # type: ignore[no-any-return]
        if self._prefetcher is None or self._prefetch_completion is not completion:
            self.cancel()
            self._prefetcher = None
            upcoming = self._upcoming(item)
            self._prefetcher = Prefetcher(self._call_for(completion), upcoming, concurrency=self.settings.concurrency)
            self._prefetch_completion = completion
        elif _xdist_worker(self.config) is not None or item not in self._prefetcher:
            self._prefetcher.extend(self._upcoming(item))
        return _taken(self._prefetcher, item)

    def cancel(self) -> None:
        if self._prefetcher is not None:
            self._prefetcher.cancel()

    def close(self) -> None:
        if self._prefetcher is not None:
            self._prefetcher.close()
        self._prefetcher = None
        if self._cache is not None:
            self._cache.close()
        if self._retriever is not None:  # the language servers
            self._retriever.close()
        # The provider's and the judge's connections were opened on the completion
        # loop: closed there.
        from .._engine import close_on_completion_loop

        aclose = getattr(getattr(self._provider, "__self__", None), "aclose", None)
        if aclose is not None:
            close_on_completion_loop(aclose)
        if self.second_opinion is not None:
            close_on_completion_loop(self.second_opinion.client.aclose)

    # ---------------------------------------------------------------- judging

    def conclude(self, prepared: Prepared) -> None:
        """Judge, score and report; ``pytest.fail`` with a readable message if wrong.

        Two limits hold here (:class:`~pytest_editpred._limits.Limits`). A predicted
        patch or text over ``max_prediction_bytes`` is FAILED unjudged. Judging runs
        under a cooperative deadline of ``judge_seconds`` (:mod:`.._deadline`); past
        it the item is FAILED too, since an item that cannot be judged in time has
        not passed, and the message says which side made judging slow: the answer
        when it is bigger than every expected patch (the model's fault), else the
        example (too big to judge in the limit: split it or raise the limit). It is
        never an INTERNALERROR, and the run goes on.
        """
        from .._clip import escape_controls
        from .._deadline import JudgeTimeout, deadline

        if self.context_only:
            missed = self._context_judged(prepared)
            if missed is not None:
                pytest.fail(missed, pytrace=False)
            return
        item = prepared.item
        props = prepared.properties
        prediction = prepared.prediction
        if prepared.prediction_error is not None:
            error = prepared.prediction_error
            props.update(outcome="failed", reason=f"unusable answer: {error.reason}")
            _show_model_texts(item, getattr(error, "prompt", None), getattr(error, "raw_output", None))
            pytest.fail(
                escape_controls(f"{item.name}: the model's answer cannot be used: {error.reason}"), pytrace=False
            )
        assert prediction is not None
        oversized = _over_limit(prediction, self.limits.max_prediction_bytes)
        if oversized is not None:
            props.update(outcome="failed", reason=oversized)
            _show_model_texts(item, prediction.extra.get("prompt"), prediction.raw_output)
            pytest.fail(f"{item.name}: {oversized}", pytrace=False)
        start = time.monotonic()
        timed_out: float | None = None
        message: str | None = None
        try:
            with deadline(self.limits.judge_seconds):
                message = self._judged(prepared, prediction)
        except JudgeTimeout as timeout:
            timed_out = timeout.seconds
        if timed_out is not None:  # failed outside the except: no chained second report
            reason = _timeout_reason(prepared, prediction, timed_out, time.monotonic() - start)
            props.update(outcome="failed", reason=reason)
            _show_model_texts(item, prediction.extra.get("prompt"), prediction.raw_output)
            pytest.fail(f"{item.name}: {reason}", pytrace=False)
        if message is not None:
            pytest.fail(escape_controls(message), pytrace=False)

    def _judged(self, prepared: Prepared, prediction: Prediction) -> str | None:
        """The verdict into ``prepared``; a wrong answer's headline (its report is
        ``prepared.failure``, made for the run's ``--tb``), or None if it passed."""
        from ..judge import FailureDiff, judge
        from .failure import Failure

        item = prepared.item
        props = prepared.properties
        scene = prepared.scene
        verdict = judge(
            scene.buffers,
            (scene.cursor.path, scene.cursor.offset),
            prepared.candidates,
            prediction,
            rejected=prepared.rejected,
            open_file=scene.open_file,
            mode=self.match,
            events=scene.events,
        )
        score = verdict.score
        assert score is not None
        related = prediction.context if prediction.context is not None else scene.example.related_files
        if related is not None:
            coverage = self._coverage(prepared, related)
            score = replace(
                score,
                editable_context_coverage=coverage.coverage,
                retrieved_context_bytes=coverage.retrieved_context_bytes,
            )
            verdict = replace(verdict, score=score)
        metrics = score.to_dict()
        prepared.verdict = verdict
        problems = [] if verdict.passed else [verdict.reason]
        for name, limit, worse in self.thresholds:
            value = metrics.get(name)
            if limit is not None and value is not None and worse(value, limit):
                problems.append(
                    f"{name} {value:.4g} is {'below' if name == 'delta_chr_f' else 'above'} the limit {limit:g}"
                )
        props.update(
            outcome="failed" if problems else "passed",
            reason="; ".join(problems) if problems else verdict.reason,
            matched_candidate=verdict.matched + 1 if verdict.matched is not None else None,
            metrics=metrics,
        )
        if not problems:
            return None
        _show_model_texts(item, prediction.extra.get("prompt"), prediction.raw_output)
        best = (
            f"expected patch {verdict.best + 1} of {len(verdict.candidates)}"
            if verdict.best is not None
            else "no candidate"
        )
        cursor = metrics.get("cursor_distance")
        path = scene.cursor.path
        prepared.failure = Failure(
            f"{item.name}: {'; '.join(problems)}",
            f"best: {best} (Zed's rule); delta-chrF {metrics['delta_chr_f']:.1f}, "
            f"reversal {metrics['reversal_ratio']:.2f}" + (f", cursor off by {cursor} bytes" if cursor else ""),
            verdict.notes,
            FailureDiff.of(verdict, path, cursor=(scene.cursor.offset, scene.buffers.get(path, ""))),
        )
        return prepared.failure.headline

    # ------------------------------------------------------- context coverage

    def _coverage(self, prepared: Prepared, related: Sequence[RetrievedFile] | None) -> ContextEvaluation:
        """Zed's ``editable_context_coverage`` of the item: the cursor excerpt (the
        one an ``ep`` JSON example stored, else as ``ep`` computes it) and
        ``related``, against the expected patches."""
        from ..metrics import editable_context_coverage
        from ..scene import compute_excerpt

        scene = prepared.scene
        example = scene.example
        if example.stored_excerpt is not None and example.excerpt_start_row is not None:
            start_row, text = example.excerpt_start_row, example.stored_excerpt  # what ep stored
        else:
            excerpt = compute_excerpt(scene.buffers[scene.cursor.path], scene.cursor.offset)
            start_row, text = excerpt.start_row, excerpt.text
        return editable_context_coverage(
            [expected.patch for expected in example.expected()],
            scene.cursor.path,
            start_row,
            text,
            related,
            sources=self.context_sources,
            budget_bytes=self.context_budget,
        )

    def _context_judged(self, prepared: Prepared) -> str | None:
        """A context-only item (``ep eval --context-only``): Zed's zero score with the
        coverage set; FAILED when the context misses a row or a file the expected
        patches edit (a model shown it could not have made the edit), which ``ep``
        only scores. The failure message, or None if it passed."""
        from ..metrics import PredictionScore

        item = prepared.item
        evaluation = self._coverage(prepared, prepared.scene.example.related_files)
        coverage = evaluation.coverage
        score = PredictionScore.zero(
            editable_context_coverage=coverage, retrieved_context_bytes=evaluation.retrieved_context_bytes
        )
        props = prepared.properties
        props["metrics"] = score.to_dict()
        if coverage is None:
            props.update(outcome="passed", reason="no expected patch: there is no edit for the context to hold")
            return None
        figures = (
            f"lines P={coverage.lines_precision:.1%} R={coverage.lines_recall:.1%} "
            f"(TP={coverage.lines_tp}, FP={coverage.lines_fp}, FN={coverage.lines_fn}); "
            f"files P={coverage.files_precision:.1%} R={coverage.files_recall:.1%} "
            f"(TP={coverage.files_tp}, FP={coverage.files_fp}, FN={coverage.files_fn})"
        )
        missed = [
            f"{count} of the {total} {what}{'s' if total > 1 else ''}"
            for count, total, what in (
                (coverage.lines_fn, coverage.lines_anchors, "row"),
                (coverage.files_fn, coverage.files_tp + coverage.files_fn, "file"),
            )
            if count
        ]
        if not missed:
            props.update(outcome="passed", reason=f"the context holds every edited row: {figures}")
            return None
        reason = f"the context misses {' and '.join(missed)} the expected patch edits: {figures}"
        props.update(outcome="failed", reason=reason)
        return f"{item.name}: {reason}"


def related_files_in_force(run: Run) -> str | None:
    """What the header says of related files: retrieved (and which ``--type``
    values), or the recent files with retrieval off; None when the provider shows
    none (its prompt is not one of Zed's)."""
    from ..providers import reads_related_files

    if not (run.context_only or reads_related_files(run.settings)):
        return None
    if run.retrieval is None:
        return "recently viewed/opened files (--editpred-no-retrieval)"
    return f"retrieved ({','.join(run.retrieval)}) unless the example has them"


def _no_completion(request: Any) -> Prediction:
    """The completion of a context-only run: never called (see ``Run._call_for``)."""
    raise AssertionError("a context-only run asks no model")


def _utf8_size(text: str, limit: int) -> int:
    """``text``'s size in UTF-8 bytes, exact up to ``limit`` (past it, at least
    ``limit + 1``), without encoding a huge text only to measure it."""
    if len(text) > limit or text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _over_limit(prediction: Prediction, limit: int) -> str | None:
    """The failure reason of a prediction over ``--editpred-max-prediction-bytes``."""
    for kind, text in (("patch", prediction.patch), ("text", prediction.text)):
        if isinstance(text, str):
            size = _utf8_size(text, limit)
            if size > limit:
                return (
                    f"the predicted {kind} is {size:,} bytes, over the limit of {limit:,} bytes for a "
                    "prediction, so it was not judged (raise it with --editpred-max-prediction-bytes, "
                    "ini editpred_max_prediction_bytes)"
                )
    return None


def _timeout_reason(prepared: Prepared, prediction: Prediction, limit: float, spent: float) -> str:
    """Why judging stopped, naming the side that made it slow (see ``Run.conclude``)."""
    answer = (
        len(prediction.patch or "")
        if prediction.text is None
        else abs(len(prediction.text) - len(prepared.scene.buffers.get(prepared.scene.cursor.path, ""))) + 1
    )
    expected = max((len(c.patch) for c in prepared.candidates), default=0)
    head = (
        f"judging stopped after {spent:.1f} s, over the limit of {limit:g} s per item "
        "(--editpred-judge-timeout, ini editpred_judge_timeout): "
    )
    if answer > expected:
        return head + (
            f"the answer ({answer:,} characters) is bigger than every expected patch "
            f"(the largest is {expected:,}), so it is the answer that could not be judged in time"
        )
    return head + (
        f"the example's largest expected patch is {expected:,} characters (the answer {answer:,}): "
        "the example is too big to judge in the limit; split it, or raise the limit"
    )


def _show_model_texts(item: pytest.Item, prompt: Any, raw_output: Any) -> None:
    """A failure's prompt and raw answer, as report sections, clipped to
    :data:`SHOWN_CHARS` each (the JSONL report keeps far more of them), their
    control characters escaped (a terminal shows them, never obeys them)."""
    from .._clip import SHOWN_CHARS, clip, clip_prompt, escape_controls, prompt_text

    shown = prompt_text(clip_prompt(prompt, SHOWN_CHARS))
    if shown:
        item.add_report_section("call", "editpred prompt", escape_controls(shown))
    if isinstance(raw_output, str) and raw_output:
        item.add_report_section("call", "editpred raw output", escape_controls(clip(raw_output, SHOWN_CHARS)))


_WORKER_KEY = pytest.StashKey[Any]()


def _xdist_worker(config: pytest.Config) -> Any:
    """An xdist worker's ``WorkerInteractor`` (its queue of items to run), or None."""
    if not hasattr(config, "workerinput"):
        return None
    worker = config.stash.get(_WORKER_KEY, None)
    if worker is None:
        worker = config.stash[_WORKER_KEY] = next(
            (p for p in config.pluginmanager.get_plugins() if hasattr(p, "torun") and hasattr(p, "nextitem_index")),
            None,
        )
    return worker


def _skipped(item: pytest.Item) -> bool:
    """Marked to be skipped (``skip``, or ``skipif`` with a true literal condition):
    no model request is made ahead for it."""
    for mark in item.iter_markers():
        if mark.name == "skip":
            return True
        if mark.name == "skipif" and any(arg is True for arg in mark.args) or mark.kwargs.get("condition") is True:
            return True
    return False


def _checked(answer: Any) -> Prediction:
    if answer is None:
        return Prediction()
    if isinstance(answer, str):  # a bare string is a unified diff
        return Prediction(patch=answer, raw_output=answer)
    if not isinstance(answer, Prediction):
        raise TypeError(f"editpred_completion must return a pytest_editpred.Prediction, not {type(answer).__name__}")
    return answer


async def _then_judge(judge: Any, made: Any) -> Prepared:
    """``made`` (a :class:`Prepared`, or an awaitable of one), then the judge's answer."""
    prepared: Prepared = await made if inspect.isawaitable(made) else made
    return await judge.judge(prepared)  # type: ignore[no-any-return]


async def _finish_async(prepared: Prepared, answer: Any, start: float) -> Prepared:
    try:
        prepared.prediction = _checked(await answer)
    except PredictionError as error:
        prepared.prediction_error = error
    prepared.latency = time.perf_counter() - start
    return prepared


def qualified_name(completion: Any) -> str:
    """``module.qualname`` of a custom completion function, as results record it.

    A function defined inside the fixture that returns it (the README's pattern) is
    named by that fixture, ``conftest.editpred_completion``, not by its
    ``<locals>``; a bound method by its class and name; a ``functools.partial`` by
    its function; any other callable object by its class.
    """
    import functools

    target = completion
    while isinstance(target, functools.partial):
        target = target.func
    owner = getattr(target, "__self__", None)
    if owner is not None and not inspect.ismodule(owner):
        cls = owner if inspect.isclass(owner) else type(owner)
        module, qualname = cls.__module__, f"{cls.__qualname__}.{getattr(target, '__name__', 'complete')}"
    else:
        if not (inspect.isfunction(target) or inspect.isbuiltin(target)):
            target = type(target)
        module = getattr(target, "__module__", None) or "?"
        qualname = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or repr(target)
    return f"{module}.{qualname.split('.<locals>', 1)[0]}"
