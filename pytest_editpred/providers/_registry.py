"""Find a provider by name: the built-ins first, then the entry-point group."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import import_module
from typing import TYPE_CHECKING

from .._exceptions import ConfigError
from .._settings import Settings
from ..judge import Prediction
from ..scene import PredictionRequest

if TYPE_CHECKING:
    from ._base import Outgoing

__all__ = [
    "BUILTIN",
    "USES",
    "Completion",
    "ProviderFactory",
    "available",
    "get_provider",
    "reads_related_files",
    "request_builder",
    "sending",
    "unused_options",
]

Completion = Callable[[PredictionRequest], Prediction | Awaitable[Prediction]]
ProviderFactory = Callable[[Settings], Completion]

ENTRY_POINT_GROUP = "pytest_editpred.providers"

#: name -> "module:factory", imported only when picked.
BUILTIN: dict[str, str] = {
    "oracle": "._oracle:make_oracle",
    "noop": "._oracle:make_noop",
    "baseline": ".baseline:make_baseline",
    "openai": "._openai:make_openai",
    "openai-chat": "._openai:make_openai_chat",
    "anthropic": "._anthropic:make_anthropic",
    "llamacpp-infill": "._fim:make_llamacpp_infill",
    "mistral-fim": "._fim:make_mistral_fim",
    "replay": "._replay:make_replay",
}


# The options (``--editpred-<name>``) each built-in provider reads, for the one line
# that says which given options a run ignores. ``concurrency`` and
# ``max_response_bytes`` apply to every provider; a third-party one is not judged.
_HTTP = frozenset(
    {"base_url", "model", "api_key_env", "max_tokens", "temperature", "stop", "extra_body", "timeout", "retries"}
    | {"cache", "response_cache_dir"}
)
USES: dict[str, frozenset[str]] = {
    "oracle": frozenset(),
    "noop": frozenset(),
    "baseline": frozenset(),
    "openai": _HTTP | {"prompt_format"},
    "openai-chat": _HTTP | {"prompt_format"},
    "anthropic": _HTTP | {"prompt_format"},
    "llamacpp-infill": _HTTP,
    "mistral-fim": _HTTP,
    "replay": frozenset({"replay"}),
}


def sending() -> list[str]:
    """The built-in providers that send a prompt to a model server."""
    return sorted(name for name, uses in USES.items() if "base_url" in uses)


def reads_related_files(settings: Settings) -> bool:
    """Does the provider ``settings`` pick build one of Zed's prompts, which show
    related files (Zeta and Sweep: ``openai``; the teacher prompts: ``anthropic``,
    ``openai-chat`` with ``--editpred-prompt-format teacher``/``teacher-jumps``)? Those
    get Zed's context retrieval; the others never read it."""
    from .prompts import TEACHER_PROMPTS

    name = settings.provider
    return name in ("openai", "anthropic") or (name == "openai-chat" and settings.prompt_format in TEACHER_PROMPTS)


def unused_options(name: str, given: set[str]) -> list[str]:
    """The options in ``given`` that the built-in provider ``name`` never reads
    (empty for a provider of another package: what it reads is its own business)."""
    uses = USES.get(name)
    if uses is None:
        return []
    return sorted(setting for setting in given if setting not in uses)


def _entry_points() -> dict[str, object]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available() -> list[str]:
    """Every provider name, built-in or installed."""
    return sorted({*BUILTIN, *_entry_points()})


def get_provider(name: str) -> ProviderFactory:
    """The factory registered under ``name``; a :class:`ConfigError` names the choices."""
    if name in BUILTIN:
        module, _, attr = BUILTIN[name].partition(":")
        factory: ProviderFactory = getattr(import_module(module, __package__), attr)
        return factory
    entry = _entry_points().get(name)
    if entry is None:
        raise ConfigError(
            f"unknown provider {name!r}",
            fix=f"Pick one of: {', '.join(available())} (--editpred-provider).",
        )
    try:
        loaded = entry.load()  # type: ignore[attr-defined]
    except Exception as error:
        raise ConfigError(
            f"provider {name!r} failed to load: {error!r}",
            fix=f"Check the package that registers {name!r} in {ENTRY_POINT_GROUP!r}.",
        ) from error
    if not callable(loaded):
        raise ConfigError(f"provider {name!r} is not callable", fix="Register a factory function.")
    return loaded  # type: ignore[no-any-return]


def request_builder(settings: Settings) -> Callable[[PredictionRequest], Outgoing] | None:
    """What makes the requests the provider ``settings.provider`` sends, built by its
    own code and not sent (``editpred prompt``); None for a provider that sends no
    prompt (oracle, noop, baseline, replay, or one of another package). Needs no base
    URL and no API key; a :class:`ConfigError` for an unknown provider, a prompt
    format it does not have, or a missing model name, as a run would say."""
    cls = getattr(get_provider(settings.provider), "provider_class", None)
    if cls is None:
        return None
    outgoing: Callable[[PredictionRequest], Outgoing] = cls(settings, connect=False).outgoing
    return outgoing
