"""Providers by name: built-ins, and third-party ones from the entry-point group."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest

from conftest import SUB, Project
from pytest_editpred import ConfigError, Settings
from pytest_editpred.providers import available, get_provider

PROVIDER = """
from pytest_editpred import Prediction

def make(settings):
    def complete(request):
        text = request.text.replace("def sub(a, b):\\n", "def sub(a, b):\\n    return a - b\\n")
        return Prediction(text=text, model="acme-" + (settings.model or "default"))
    return complete
"""


def install_fake_distribution(root: Path, entry: str = "acme = acme_provider:make") -> None:
    """A distribution on sys.path that registers a provider, as ``pip install`` would."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "acme_provider.py").write_text(textwrap.dedent(PROVIDER))
    info = root / "acme_provider-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-provider\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pytest_editpred.providers]\n{entry}\n")
    importlib.invalidate_caches()


def test_builtins_are_listed_and_load() -> None:
    names = available()
    for name in ("baseline", "oracle", "noop", "openai", "openai-chat", "llamacpp-infill", "mistral-fim", "replay"):
        assert name in names
    assert callable(get_provider("noop")(Settings()))


def test_unknown_provider_names_the_choices() -> None:
    with pytest.raises(ConfigError) as info:
        get_provider("no-such-provider")
    assert "oracle" in info.value.fix


def test_third_party_provider_from_an_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_distribution(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "acme" in available()
    completion = get_provider("acme")(Settings(model="m1"))
    assert callable(completion)


def test_a_provider_that_fails_to_load_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_distribution(tmp_path, "broken = acme_provider:missing")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError) as info:
        get_provider("broken")
    assert "failed to load" in info.value.reason


@pytest.mark.xdist
def test_third_party_provider_through_the_plugin(
    project: Project, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str]
) -> None:
    # A separate process with the distribution on its path, as after `pip install`.
    install_fake_distribution(project.pytester.path / "site")
    monkeypatch.setenv("PYTHONPATH", str(project.pytester.path / "site"))
    project.example("calc--sub", SUB)
    xml = project.pytester.path / "j.xml"
    result = project.pytester.runpytest_subprocess(
        "evals", "--editpred-provider=acme", "--editpred-model=x", f"--junitxml={xml}", *plugin_args
    )
    result.assert_outcomes(passed=1)
    assert 'value="acme-x"' in xml.read_text()


def test_bad_options_are_usage_errors(project: Project) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest("evals", "--editpred-provider=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown provider 'nope'*", "*Pick one of*"])
    result = project.pytester.runpytest("evals", "--editpred-concurrency=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
