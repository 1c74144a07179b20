"""The settings ``editpred lint`` takes as the plugin takes them.

``--editpred-repo`` and ``--editpred-offline`` from the caller, the rest from the ini
file pytest would read for the same paths (:func:`find_ini`; ``pytest.toml``,
``pytest.ini``, ``pyproject.toml``, ``tox.ini``, ``setup.cfg``), with paths
relative to its folder, so a corpus is checked with the repositories, cache and
limits its runs use.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import ConfigError
from .._limits import DEFAULT_LIMITS, Limits

__all__ = ["IniFile", "LintSettings", "find_ini", "settings_from"]


@dataclass(frozen=True)
class LintSettings:
    """What the plugin would use: URL mappings, offline, the mirror cache, limits and
    the match mode (ini ``editpred_match``)."""

    cache_dir: Path
    mappings: Mapping[str, Path] = field(default_factory=dict)
    offline: bool = False
    limits: Limits = DEFAULT_LIMITS
    match: str = "exact"


@dataclass(frozen=True)
class IniFile:
    """The configuration pytest would read: its file (None: none found) and its
    keys, each a string or a list of strings."""

    path: Path | None
    values: Mapping[str, Any]

    @property
    def base(self) -> Path:
        """The folder relative paths of the ini are taken from (the plugin's rule)."""
        return self.path.parent if self.path is not None else Path.cwd()

    def lines(self, key: str) -> list[str]:
        """A ``linelist`` key as pytest reads it: a list as it is, a string line by
        line, stripped, blank lines dropped."""
        value = self.values.get(key)
        if value is None:
            return []
        if isinstance(value, (list, tuple)):
            return [str(v).strip() for v in value if str(v).strip()]
        return [line.strip() for line in str(value).split("\n") if line.strip()]

    def text(self, key: str) -> str | None:
        value = self.values.get(key)
        if value is None or value == "":
            return None
        return str(value).strip() if not isinstance(value, bool) else ("true" if value else "false")


_CONFIG_NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        loaded: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        return loaded
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read it as TOML: {error}", fix="Fix the file's TOML syntax.") from None


def _ini_section(path: Path, section: str) -> dict[str, Any] | None:
    import iniconfig  # pytest's own ini parser (a dependency of pytest): the same reading

    try:
        parsed = iniconfig.IniConfig(str(path))
    except (OSError, UnicodeDecodeError, iniconfig.ParseError) as error:
        raise ConfigError(f"{path}: cannot read it as an ini file: {error}", fix="Fix the file's syntax.") from None
    if section not in parsed:
        return None
    return dict(parsed[section].items())


def _config_of(path: Path) -> dict[str, Any] | None:
    """pytest's ``load_config_dict_from_file``: the keys, or None when the file holds
    no pytest configuration (so the search goes on)."""
    if path.suffix == ".ini":
        found = _ini_section(path, "pytest")
        if found is None and path.name in ("pytest.ini", ".pytest.ini"):
            return {}  # always the configuration, even empty
        return found
    if path.suffix == ".cfg":
        return _ini_section(path, "tool:pytest")
    if path.suffix == ".toml":
        data = _load_toml(path)
        if path.name in ("pytest.toml", ".pytest.toml"):
            return dict(data.get("pytest", {}))
        tool = data.get("tool", {}).get("pytest", {})
        if not isinstance(tool, dict):
            return None
        native = {k: v for k, v in tool.items() if k != "ini_options"}
        ini = tool.get("ini_options")
        if native:
            return native
        return dict(ini) if isinstance(ini, dict) else None
    return None


def find_ini(paths: Sequence[Path], invocation_dir: Path | None = None) -> IniFile:
    """The configuration file pytest would find for ``paths`` run from
    ``invocation_dir``: from the common ancestor of the paths' folders upwards, the
    first of ``pytest.toml``, ``.pytest.toml``, ``pytest.ini``, ``.pytest.ini``,
    ``pyproject.toml``, ``tox.ini``, ``setup.cfg`` in a folder that holds pytest
    configuration. Raises :class:`ConfigError` for a file that cannot be parsed."""
    here = (invocation_dir or Path.cwd()).absolute()
    folders = []
    for path in paths:
        absolute = Path(os.path.abspath(here / path))
        if absolute.exists():
            folders.append(absolute if absolute.is_dir() else absolute.parent)
    ancestor = Path(os.path.commonpath(folders)) if folders else here
    for base in (ancestor, *ancestor.parents):
        for name in _CONFIG_NAMES:
            candidate = base / name
            if candidate.is_file():
                values = _config_of(candidate)
                if values is not None:
                    return IniFile(candidate, values)
    return IniFile(None, {})


def _number(ini: IniFile, key: str, kind: type[int] | type[float], default: float) -> Any:
    raw = ini.text(key)
    if raw is None:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = 0
    if not value > 0:
        raise ConfigError(f"ini {key}: bad value {raw!r}", fix=f"Give {key} a positive number in {ini.path}.")
    return value


def settings_from(
    ini: IniFile,
    repos: Iterable[str] = (),
    *,
    offline: bool = False,
    cache_dir: str | None = None,
) -> LintSettings:
    """The settings the plugin would take from ``ini`` and these options (the command
    line wins; mapping paths in the ini are relative to its folder)."""
    from ..scene import parse_repo_mapping

    mappings: dict[str, Path] = {}
    for line in ini.lines("editpred_repos"):
        url, path = parse_repo_mapping(line, ini=True)
        mappings[url] = (ini.base / path).resolve()
    for item in repos:
        url, path = parse_repo_mapping(item, ini=False)
        mappings[url] = Path(path).expanduser().resolve()
    if cache_dir:
        cache = Path(cache_dir).expanduser().resolve()
    elif (ini_cache := ini.text("editpred_cache_dir")) is not None:
        cache = (ini.base / Path(ini_cache).expanduser()).resolve()
    else:
        from ..scene import default_cache_dir

        cache = default_cache_dir()
    ini_offline = (ini.text("editpred_offline") or "").lower() in ("1", "true", "yes", "on")
    match = ini.text("editpred_match") or "exact"
    if match not in ("exact", "whitespace"):
        raise ConfigError(f"ini editpred_match: bad value {match!r}", fix="Use exact or whitespace.")
    limits = Limits(
        max_response_bytes=DEFAULT_LIMITS.max_response_bytes,
        max_example_bytes=_number(ini, "editpred_max_example_bytes", int, DEFAULT_LIMITS.max_example_bytes),
        max_prediction_bytes=_number(ini, "editpred_max_prediction_bytes", int, DEFAULT_LIMITS.max_prediction_bytes),
        judge_seconds=_number(ini, "editpred_judge_timeout", float, DEFAULT_LIMITS.judge_seconds),
    )
    return LintSettings(cache, mappings, offline or ini_offline, limits, match)
