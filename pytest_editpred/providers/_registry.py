"""Find a provider by name: the built-ins first, then the entry-point group."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import import_module

from .._exceptions import ConfigError
from .._settings import Settings
from ..judge import Prediction
from ..scene import PredictionRequest

__all__ = ["BUILTIN", "Completion", "ProviderFactory", "available", "get_provider"]

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
