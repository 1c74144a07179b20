"""Every option, once: its command-line flag, its ini key, its type, default and help.

Each setting exists as both ``--editpred-x`` and ini ``editpred_x`` (the command line
wins), so a project pins its choices in ``pyproject.toml`` and a run overrides them.
The README's option table is this table.

Kept apart from pytest so that a command of ``editpred`` reads the same settings as
a run, by the same rules: the plugin reads them from its ``pytest.Config``
(:mod:`pytest_editpred.integration.options` adds the flags and ini keys to pytest's
parser), ``editpred prompt`` from an :class:`IniOptions` over the ini file pytest
would find and its own command line. Both are an :class:`OptionSource`.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ._exceptions import ConfigError
from ._limits import DEFAULT_LIMITS, Limits
from ._settings import CACHE_MODES, Settings

__all__ = [
    "OPTIONS",
    "PROVIDER_OPTIONS",
    "REPORT_OPTIONS",
    "IniOptions",
    "Option",
    "OptionSource",
    "argparse_kwargs",
    "check_combinations",
    "check_values",
    "context_from",
    "get",
    "retrieval_from",
    "given",
    "judge_from",
    "limits_from",
    "settings_from",
    "repo_mappings",
    "repo_cache_dir",
]


class OptionSource(Protocol):
    """Where settings are read from, as pytest's ``Config`` offers them: the parsed
    command line (``option.editpred_x``, None when not given), the ini keys
    (``getini``, None or empty when not set) and the ini file's place."""

    @property
    def option(self) -> Any: ...

    @property
    def inipath(self) -> Path | None: ...

    @property
    def rootpath(self) -> Path: ...

    def getini(self, name: str) -> Any: ...


@dataclass(frozen=True)
class Option:
    name: str  # "provider" -> --editpred-provider, ini editpred_provider
    help: str
    kind: str = "string"  # string | int | float | bool | list | choice | path
    default: Any = None
    choices: tuple[str, ...] = ()
    ini: bool = True
    # The range a number must be in: ``low`` and ``high`` inclusive; ``positive``
    # excludes 0 (a timeout of 0 s cannot be met). ``unit`` names what the number is.
    low: float | None = None
    high: float | None = None
    positive: bool = False
    unit: str = ""

    @property
    def flag(self) -> str:
        return "--editpred-" + self.name.replace("_", "-")

    @property
    def dest(self) -> str:
        return "editpred_" + self.name


OPTIONS: tuple[Option, ...] = (
    Option(
        "provider",
        "completion provider: baseline, oracle, noop, openai, openai-chat, anthropic, "
        "llamacpp-infill, mistral-fim, replay, or an installed one",
        default="baseline",
    ),
    Option(
        "match",
        "how predictions are compared: exact, or whitespace-insensitive",
        kind="choice",
        default="exact",
        choices=("exact", "whitespace"),
    ),
    Option("paths", "directories whose .json/.jsonl files are examples (ini only)", kind="list", default=("evals",)),
    Option(
        "cache_dir",
        "where repository mirrors are kept (default: the user cache directory, or $EDITPRED_CACHE_DIR)",
        kind="path",
    ),
    Option(
        "repo",
        "map a repository URL to a local repository or bundle: URL=PATH "
        "(repeatable; ini editpred_repos, one 'URL = PATH' a line)",
        kind="list",
        ini=False,
    ),
    Option("offline", "never touch the network; a revision not in the cache is an error", kind="bool", default=False),
    Option("base_url", "model server base URL, e.g. http://localhost:8000"),
    Option("model", "model name sent to the server"),
    Option("api_key_env", "name of the environment variable that holds the API key"),
    Option(
        "prompt_format",
        "prompt format. openai: infer (by model name), zeta (Zeta 1), zeta2 "
        "(V0211SeedCoder), zeta2.1 (V0318SeedMultiRegions), any Zed format name, or sweep "
        "(Zed's Sweep prompt); openai-chat and anthropic: teacher or teacher-jumps (Zed's teacher prompts)",
        default="infer",
    ),
    Option("max_tokens", "maximum tokens to generate", kind="int", default=2048, low=1),
    Option("temperature", "sampling temperature", kind="float", default=0.0, low=0),
    Option("stop", "stop sequence (repeatable)", kind="list", default=()),
    Option("extra_body", "extra JSON fields for the request body, e.g. '{\"top_p\": 0.9}'", default="{}"),
    Option(
        "timeout", "seconds before one request times out", kind="float", default=60.0, positive=True, unit="seconds"
    ),
    Option(
        "retries",
        "attempts per request for connection errors, timeouts, 429 and 5xx",
        kind="int",
        default=3,
        low=1,
        unit="attempts (1 means no retry)",
    ),
    Option("cache", "response cache mode", kind="choice", default="readwrite", choices=CACHE_MODES),
    Option("response_cache_dir", "where model responses are cached (default: inside the pytest cache)", kind="path"),
    Option("replay", "results file the replay provider answers from", kind="path"),
    Option("concurrency", "model requests in flight ahead of the running item", kind="int", default=8, low=1),
    Option(
        "retrieval_type",
        "context retrieval for an example without related files, when the provider builds Zed's prompts: "
        "ep context --type values lsp, current-file, edit-history, edit-history-file, git-log, bm25, "
        "oracle-file, oracle-snippet, editable, all, none (comma-separated, repeatable; default lsp, as Zed)",
        kind="list",
        default=(),
    ),
    Option(
        "no_retrieval",
        "no context retrieval: Zed's prompts show the recently viewed and opened files as related files",
        kind="bool",
        default=False,
    ),
    Option(
        "max_response_bytes",
        "largest model response body, counted while it streams and decompresses (default 8 MiB)",
        kind="int",
        default=DEFAULT_LIMITS.max_response_bytes,
        low=1,
        unit="bytes",
    ),
    Option(
        "qa",
        "ask a judge model about every prediction that changes something, as Zed's ep qa: openai "
        "(Zed's backend: chat completions, max_completion_tokens), openai-chat (max_tokens: llama.cpp, "
        "vLLM, Ollama), anthropic, or an installed provider that can judge; never changes an outcome",
    ),
    Option("qa_model", "the judge's model (Zed: gpt-5.2, claude-sonnet-4-5)"),
    Option("qa_base_url", "the judge's server (default: --editpred-base-url)"),
    Option("qa_api_key_env", "the environment variable holding the judge's API key (default: --editpred-api-key-env)"),
    Option("qa_template", "the judge's prompt template (Zed's qa.md gives Zed's prompt)", kind="path"),
    Option("qa_max_tokens", "the judge's answer budget (Zed: 1024)", kind="int", default=1024, low=1, unit="tokens"),
)

#: Options of the reports and the verdict's extras (metrics, trials, files, gates).
REPORT_OPTIONS: tuple[Option, ...] = (
    Option("trials", "run every example N times (items end in [t1]..[tN])", kind="int", default=1, low=1),
    Option(
        "min_delta_chrf",
        "fail an item whose delta-chrF (0-100) is below this",
        kind="float",
        low=0,
        high=100,
        unit="delta-chrF",
    ),
    Option(
        "max_reversal",
        "fail an item whose reversal ratio (0-1) is above this",
        kind="float",
        low=0,
        high=1,
        unit="reversal ratio",
    ),
    Option("report", "write one JSON record per item and trial to this .jsonl file", kind="path"),
    Option("summary_json", "write Zed's SummaryJson (ep eval --summary-json) to this file", kind="path"),
    Option("html", "write a self-contained HTML report to this file", kind="path"),
    Option("summary_limit", "rows of the per-example table (all with -v)", kind="int", default=20, low=0, unit="rows"),
    Option("group_by", "also summarise by 'repository' and/or 'tag' (repeatable)", kind="list", default=()),
    Option(
        "fail_under",
        "the exit status follows the pass rate: fail only below PCT percent",
        kind="float",
        low=0,
        high=100,
        unit="percent",
    ),
    Option(
        "fail_under_qa",
        "the exit status follows the LLM judge: fail only when the judged-acceptable rate (confidence >= 4, "
        "not reverting; over the predictions it answered) is below PCT percent",
        kind="float",
        low=0,
        high=100,
        unit="percent",
    ),
    Option("baseline", "compare this run with an earlier --editpred-report file", kind="path"),
    Option(
        "fail_on_regression", "with --editpred-baseline: fail when any example regressed", kind="bool", default=False
    ),
    Option(
        "accept",
        "append a failing prediction to its .md file as a new Expected Patch",
        kind="bool",
        default=False,
        ini=False,
    ),
    Option(
        "context_only",
        "score only the context given to the model (Zed's ep eval --context-only): no model is called",
        kind="bool",
        default=False,
    ),
    Option(
        "related_context_limit",
        "token budget for related files in context coverage (bytes = tokens x 3; default 4000)",
        kind="int",
        default=4000,
        low=0,
        unit="tokens",
    ),
    Option(
        "context_type",
        "context coverage counts only related excerpts of these sources: lsp, current-file, edit-history, "
        "edit-history-file, git-log, bm25, oracle-file, oracle-snippet, editable, all, none "
        "(comma-separated, repeatable; default: every one)",
        kind="list",
        default=(),
    ),
    Option(
        "max_example_bytes",
        "largest example file read (default 16 MiB)",
        kind="int",
        default=DEFAULT_LIMITS.max_example_bytes,
        low=1,
        unit="bytes",
    ),
    Option(
        "max_prediction_bytes",
        "largest predicted patch or text judged (default 8 MiB)",
        kind="int",
        default=DEFAULT_LIMITS.max_prediction_bytes,
        low=1,
        unit="bytes",
    ),
    Option(
        "judge_timeout",
        "seconds one item may spend being judged (default 60)",
        kind="float",
        default=DEFAULT_LIMITS.judge_seconds,
        positive=True,
        unit="seconds",
    ),
)

_BY_NAME = {option.name: option for option in OPTIONS + REPORT_OPTIONS}
#: ini keys read as lists of lines (pytest's ``linelist``); the others are one value.
_LINELISTS = frozenset({"editpred_repos"} | {o.dest for o in OPTIONS + REPORT_OPTIONS if o.ini and o.kind == "list"})


@dataclass(frozen=True)
class IniOptions:
    """An :class:`OptionSource` without pytest: a command line parsed by a command of
    ``editpred`` (the flags it takes keep pytest's names, so ``option.editpred_x``)
    and the keys of the ini file pytest would find (``ini``: each a string or a list,
    as :func:`pytest_editpred.corpus.find_ini` reads them), read as pytest's
    ``getini`` reads them."""

    option: argparse.Namespace
    inipath: Path | None
    rootpath: Path
    ini: Mapping[str, Any]

    def getini(self, name: str) -> Any:
        value = self.ini.get(name)
        if name in _LINELISTS:  # pytest's linelist: a list as it is, a string line by line
            if value is None:
                return []
            if isinstance(value, (list, tuple)):
                return [str(v) for v in value]
            return [line.strip() for line in str(value).split("\n") if line.strip()]
        if value is None or isinstance(value, str):
            return value
        return str(value).lower() if isinstance(value, bool) else str(value)  # a TOML value


def argparse_kwargs(option: Option) -> dict[str, Any]:
    """How ``option`` is declared to an argument parser (pytest's or argparse's): no
    default, so a value not given falls through to the ini file."""
    kwargs: dict[str, Any] = {"dest": option.dest, "help": option.help, "default": None}
    if option.kind == "bool":
        kwargs["action"] = "store_true"
    elif option.kind == "list":
        kwargs["action"] = "append"
    elif option.kind == "choice":
        kwargs["choices"] = option.choices
    return kwargs


def _in_range(option: Option, number: float, source: str) -> None:
    """A :class:`ConfigError` unless ``number`` is in the option's range."""
    low, high = option.low, option.high
    below = (low is not None and number < low) or (option.positive and number <= 0)
    above = high is not None and number > high
    if not (below or above or math.isnan(number)):
        return
    if low is not None and high is not None:
        wanted = f"from {low:g} to {high:g}"
    elif option.positive:
        wanted = "greater than 0"
    elif low is not None:
        wanted = f"at least {low:g}"
    else:
        wanted = f"at most {high:g}"
    what = f" ({option.unit})" if option.unit else ""
    raise ConfigError(
        f"{source} is {number:g}, but it must be {wanted}{what}",
        fix=f"Give {option.flag if source.startswith('--') else 'the ini key ' + option.dest} a value "
        f"{'of ' if wanted.startswith('at') else ''}{wanted}.",
    )


def _convert(option: Option, value: Any, source: str) -> Any:
    try:
        if option.kind in ("int", "float"):
            number = int(value) if option.kind == "int" else float(value)
            _in_range(option, number, source)
            return number
        if option.kind == "bool":
            return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")
        if option.kind == "choice" and value not in option.choices:
            raise ValueError(f"must be one of {', '.join(option.choices)}")
        if option.kind == "list":
            return tuple(value) if isinstance(value, (list, tuple)) else tuple(str(value).split())
        return value
    except ValueError as error:
        raise ConfigError(
            f"{source}: bad value {value!r}: {error}", fix=f"See {option.flag} in 'pytest --help'."
        ) from None


def get(config: OptionSource, name: str) -> Any:
    """The value of a setting: command line, then ini, then the default."""
    option = _BY_NAME[name]
    value = getattr(config.option, option.dest, None) if option.name != "paths" else None
    if value not in (None, []):
        return _convert(option, value, option.flag)
    if option.ini:
        ini_value = config.getini(option.dest)
        if ini_value not in (None, [], ""):
            return _convert(option, ini_value, f"ini {option.dest}")
    return option.default


#: The provider options a built-in provider may not read (see ``providers.unused_options``).
PROVIDER_OPTIONS = (
    "base_url",
    "model",
    "api_key_env",
    "prompt_format",
    "max_tokens",
    "temperature",
    "stop",
    "extra_body",
    "timeout",
    "retries",
    "cache",
    "response_cache_dir",
    "replay",
)


def given(config: OptionSource, names: tuple[str, ...] = PROVIDER_OPTIONS) -> set[str]:
    """Which of ``names`` the user set, on the command line or in the ini file."""
    out = set()
    for name in names:
        option = _BY_NAME[name]
        if getattr(config.option, option.dest, None) not in (None, []):
            out.add(name)
        elif option.ini and config.getini(option.dest) not in (None, [], ""):
            out.add(name)
    return out


def check_values(config: OptionSource) -> None:
    """Every option's value, read once at configure time, so a bad one is a usage
    error before collection runs, not after it (cheap: nothing heavy is imported
    unless a context type is given)."""
    for option in OPTIONS + REPORT_OPTIONS:
        if option.name != "paths":
            get(config, option.name)
    _extra_body(config)
    limits_from(config)
    if get(config, "context_type"):
        context_from(config)
    if get(config, "retrieval_type"):
        retrieval_from(config)


def check_combinations(config: OptionSource) -> None:
    """The options that only make sense together (each value's range is checked by
    :func:`get`): a :class:`ConfigError` for the first that does not."""
    if get(config, "fail_on_regression") and not get(config, "baseline"):
        raise ConfigError(
            "--editpred-fail-on-regression compares with a baseline, but no --editpred-baseline was given",
            fix="Add --editpred-baseline PATH, the --editpred-report file of an earlier run "
            "(or drop --editpred-fail-on-regression).",
        )


def context_from(config: OptionSource) -> tuple[bool, int, frozenset[str] | None]:
    """Context coverage's options: context-only or not, the byte budget of related
    files, and the sources kept (None: every one, as ``ep eval`` without ``--type``)."""
    from .metrics import context_budget_bytes, parse_context_types

    types = get(config, "context_type")
    try:
        sources = parse_context_types(types) if types else None
    except ConfigError as error:
        raise ConfigError(f"--editpred-context-type: {error.reason}", fix=error.fix) from None
    return bool(get(config, "context_only")), context_budget_bytes(get(config, "related_context_limit")), sources


def retrieval_from(config: OptionSource) -> tuple[str, ...] | None:
    """Context retrieval's ``--type`` values (``("lsp",)`` by default, as Zed), or None
    when ``--editpred-no-retrieval`` turns it off (it wins over the types, so a run
    turns off what the ini file chose)."""
    from .metrics import parse_context_types

    if get(config, "no_retrieval"):
        return None
    types = tuple(get(config, "retrieval_type")) or ("lsp",)
    try:
        parse_context_types(types)
    except ConfigError as error:
        raise ConfigError(f"--editpred-retrieval-type: {error.reason}", fix=error.fix) from None
    return types


def limits_from(config: OptionSource) -> Limits:
    """The run's :class:`~pytest_editpred._limits.Limits` (each at least 1)."""
    values = {
        "max_response_bytes": get(config, "max_response_bytes"),
        "max_example_bytes": get(config, "max_example_bytes"),
        "max_prediction_bytes": get(config, "max_prediction_bytes"),
        "judge_seconds": get(config, "judge_timeout"),
    }
    for name, value in values.items():
        if value <= 0:
            flag = "--editpred-judge-timeout" if name == "judge_seconds" else "--editpred-" + name.replace("_", "-")
            raise ConfigError(f"{flag} must be positive, not {value:g}", fix=f"Give {flag} a positive number.")
    return Limits(**values)


def repo_mappings(config: OptionSource) -> dict[str, Path]:
    """``--editpred-repo URL=PATH`` and ini ``editpred_repos`` (relative to the ini file)."""
    from .scene import parse_repo_mapping

    mappings: dict[str, Path] = {}
    base = _ini_base(config)
    for line in config.getini("editpred_repos") or []:
        url, path = parse_repo_mapping(line, ini=True)
        mappings[url] = (base / path).resolve()
    for item in getattr(config.option, "editpred_repo", None) or []:
        url, path = parse_repo_mapping(item, ini=False)
        mappings[url] = Path(path).expanduser().resolve()
    return mappings


def _ini_base(config: OptionSource) -> Path:
    return Path(config.inipath).parent if config.inipath else Path(config.rootpath)


def repo_cache_dir(config: OptionSource) -> Path:
    """Where mirrors live: the option, the ini key (relative to the ini file), then
    ``$EDITPRED_CACHE_DIR`` or the platform's user cache directory."""
    cli = getattr(config.option, "editpred_cache_dir", None)
    if cli:
        return Path(cli).expanduser().resolve()
    ini = config.getini("editpred_cache_dir")
    if ini:
        return (_ini_base(config) / Path(ini).expanduser()).resolve()
    from .scene import default_cache_dir

    return default_cache_dir()


def _extra_body(config: OptionSource) -> dict[str, Any]:
    raw_body = get(config, "extra_body") or "{}"
    try:
        extra_body = json.loads(raw_body) if isinstance(raw_body, str) else dict(raw_body)
        if not isinstance(extra_body, dict):
            raise ValueError("not a JSON object")
    except ValueError as error:
        raise ConfigError(
            f"--editpred-extra-body: {error}", fix="Give a JSON object, e.g. '{\"top_p\": 0.9}'."
        ) from None
    return extra_body


def settings_from(config: OptionSource, response_cache_dir: Callable[[], Path | None]) -> Settings:
    """The provider settings of this run (the API key itself is never read here)."""
    extra_body = _extra_body(config)
    cache_dir = get(config, "response_cache_dir")
    replay = get(config, "replay")
    concurrency = get(config, "concurrency")
    retries = get(config, "retries")
    return Settings(
        provider=get(config, "provider"),
        base_url=get(config, "base_url"),
        model=get(config, "model"),
        api_key_env=get(config, "api_key_env"),
        prompt_format=get(config, "prompt_format"),
        max_tokens=get(config, "max_tokens"),
        temperature=get(config, "temperature"),
        stop=tuple(get(config, "stop") or ()),
        extra_body=extra_body,
        timeout=get(config, "timeout"),
        retries=retries,
        cache_mode=get(config, "cache"),
        cache_dir=Path(cache_dir).resolve() if cache_dir else response_cache_dir(),
        replay_path=Path(replay).resolve() if replay else None,
        concurrency=concurrency,
        max_response_bytes=limits_from(config).max_response_bytes,
    )


def judge_from(config: OptionSource, settings: Settings) -> tuple[str, Settings, Path | None] | None:
    """``--editpred-qa``: its name, its settings (the run's transport, retries,
    cache and limits; its own model, server, key and answer budget; no sampling
    option, as Zed sends none) and its template file; None when no judge is asked."""
    from dataclasses import replace

    name = get(config, "qa")
    if not name:
        return None
    template = get(config, "qa_template")
    judge = replace(
        settings,
        provider=str(name),
        model=get(config, "qa_model"),
        base_url=get(config, "qa_base_url") or settings.base_url,
        api_key_env=get(config, "qa_api_key_env") or settings.api_key_env,
        max_tokens=get(config, "qa_max_tokens"),
        stop=(),
        extra_body={},
        replay_path=None,
    )
    return str(name), judge, Path(template).expanduser().resolve() if template else None
