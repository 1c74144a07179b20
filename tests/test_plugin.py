"""The pytest plugin end to end, through pytester; every test runs plainly and under -n 2."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from conftest import SUB, Project

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


@pytest.mark.xdist
def test_oracle_passes_and_noop_fails(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest("evals", "--editpred-provider=oracle", *plugin_args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*editpred summary*", "*1 predictions: 1 passed; pass rate 100.0%*"])
    result = project.pytester.runpytest("evals", "--editpred-provider=noop", *plugin_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the prediction changes nothing*",
            "*best: expected patch 1 of 1*",
            "*--- expected/calc.py*",
            "*-    return a - b‸*",
            "*+def sub(a, b):‸*",
        ]
    )
    assert "Traceback" not in result.stdout.str() and "_pytest" not in result.stdout.str()


@pytest.mark.xdist
def test_collection_ids_readme_and_a_broken_file(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    project.example("calc--broken", "## Cursor Position\n\nno fence here\n")
    (project.pytester.path / "evals" / "README.md").write_text("# About the evals\n\n```diff\n-x\n```\n")
    result = project.pytester.runpytest("evals", "--collect-only", "-q", *plugin_args[:0])
    result.stdout.fnmatch_lines(["evals/calc--broken.md::calc--broken", "evals/calc--sub.md::calc--sub"])
    assert "README" not in result.stdout.str()
    result = project.pytester.runpytest("evals", "--editpred-provider=oracle", *plugin_args)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*calc--broken.md:6: Missing cursor position codeblock*", "*fix:*"])
    assert "INTERNALERROR" not in result.stdout.str()


@pytest.mark.xdist
def test_k_matches_name_repo_and_tag_and_m_with_strict_markers(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB, tags=("completion",))
    project.example("other--sub", SUB, tags=("rename",))
    run = project.pytester.runpytest
    run("evals", "--editpred-provider=oracle", "-k", "other", *plugin_args).assert_outcomes(passed=1)
    run("evals", "--editpred-provider=oracle", "-k", "calc", *plugin_args).assert_outcomes(passed=2)
    run("evals", "--editpred-provider=oracle", "-k", "rename", *plugin_args).assert_outcomes(passed=1)
    strict = run("evals", "--editpred-provider=oracle", "--strict-markers", "-m", "completion", *plugin_args)
    strict.assert_outcomes(passed=1)


@pytest.mark.xdist
def test_conftest_override_sync_and_async(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    project.pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction

        PATCH = "--- a/calc.py\\n+++ b/calc.py\\n def sub(a, b):\\n+    return a - b\\n"

        @pytest.fixture(scope="session")
        def editpred_completion():
            def complete(request):
                assert request.cursor.path == "calc.py"
                assert request.text[: request.cursor.offset].endswith("def sub(a, b):")
                return Prediction(patch=PATCH, model="mine")
            return complete
        """
    )
    project.pytester.runpytest("evals", *plugin_args).assert_outcomes(passed=1)
    project.pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction

        @pytest.fixture(scope="session")
        def editpred_completion():
            async def complete(request):
                text = request.text.replace("def sub(a, b):\\n", "def sub(a, b):\\n    return a - b\\n")
                return Prediction(text=text, model="mine-async")
            return complete
        """
    )
    project.pytester.runpytest("evals", *plugin_args).assert_outcomes(passed=1)


def test_cursor_rules(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    project.pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction

        @pytest.fixture(scope="session")
        def editpred_completion():
            def complete(request):
                text = request.text.replace("def sub(a, b):\\n", "def sub(a, b):\\n    return a - b\\n")
                where = request.example.name
                if where == "calc--sub":  # no cursor: the end of the inserted text
                    return Prediction(text=text)
                return Prediction(text=text, cursor=text.index("a - b"))
            return complete
        """
    )
    project.example("calc--sub-wrong-cursor", SUB)
    result = project.pytester.runpytest("evals", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*the edit matches expected patch 1 but the cursor is elsewhere*"])


REJECTED = (
    SUB
    + """
## Rejected Patch

```diff
--- a/calc.py
+++ b/calc.py
 def sub(a, b):
+    return a + b
```
"""
)


def test_rejected_patch_fails_and_no_expected_patch_expects_no_change(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--rejected", REJECTED)
    project.example("calc--nothing", SUB.split("## Expected Patch")[0])
    project.pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction

        @pytest.fixture(scope="session")
        def editpred_completion():
            def complete(request):
                if request.example.name == "calc--nothing":
                    return Prediction()
                body = "def sub(a, b):\\n    return a + b\\n"
                return Prediction(text=request.text.replace("def sub(a, b):\\n", body))
            return complete
        """
    )
    result = project.pytester.runpytest("evals", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*matches the Rejected Patch*"])


def test_whitespace_mode(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    project.pytester.makeconftest(
        """
        import pytest
        from pytest_editpred import Prediction

        @pytest.fixture(scope="session")
        def editpred_completion():
            def complete(request):
                text = request.text.replace("def sub(a, b):\\n", "def sub(a, b):\\n    return  a - b   \\n")
                return Prediction(text=text, cursor=text.index("b   \\n") + 1)
            return complete
        """
    )
    project.pytester.runpytest("evals", *plugin_args).assert_outcomes(failed=1)
    project.pytester.runpytest("evals", "--editpred-match=whitespace", *plugin_args).assert_outcomes(passed=1)


@pytest.mark.xdist
def test_junit_properties(project: Project, plugin_args: list[str]) -> None:
    project.example("calc--sub", SUB)
    xml = project.pytester.path / "junit.xml"
    project.pytester.runpytest("evals", "--editpred-provider=oracle", f"--junitxml={xml}", *plugin_args)
    case = ET.parse(xml).getroot().find(".//testcase")
    assert case is not None and case.get("name") == "calc--sub"
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["editpred_provider"] == "oracle"
    assert props["editpred_outcome"] == "passed"
    assert props["editpred_matched_candidate"] == "1"
    assert float(props["editpred_latency"]) >= 0


@pytest.mark.xdist
def test_jsonl_items_are_named_by_example_name(project: Project, plugin_args: list[str]) -> None:
    path = project.example("calc--sub", SUB)
    from pytest_editpred import from_markdown, to_json

    example = from_markdown(path.read_text(), path)
    path.unlink()
    lines = [dict(to_json(example), name="first"), dict(to_json(example), name="second")]
    (project.pytester.path / "evals" / "set.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    result = project.pytester.runpytest("evals", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["evals/set.jsonl::first", "evals/set.jsonl::second"])
    project.pytester.runpytest("evals", "--editpred-provider=oracle", *plugin_args).assert_outcomes(passed=2)


@pytest.mark.xdist
def test_repository_options(project: Project, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    project.example("calc--sub", SUB)
    # No ini mapping: the command line maps the URL, and the cache goes where the
    # environment says.
    project.pytester.makeini("[pytest]\n")
    cache = project.pytester.path / "env-cache"
    monkeypatch.setenv("EDITPRED_CACHE_DIR", str(cache))
    mapping = f"--editpred-repo={project.url}={project.repo}"
    result = project.pytester.runpytest("evals", "--editpred-provider=oracle", mapping, *plugin_args)
    result.assert_outcomes(passed=1)
    assert (cache / "mirrors").is_dir()
    # Offline, an unmapped URL that is not cached is an ERROR that says what to do;
    # once cached, it runs offline.
    project.pytester.runpytest(
        "evals", "--editpred-provider=oracle", "--editpred-offline", *plugin_args
    ).assert_outcomes(passed=1)
    monkeypatch.setenv("EDITPRED_CACHE_DIR", str(project.pytester.path / "empty-cache"))
    offline = project.pytester.runpytest("evals", "--editpred-provider=oracle", "--editpred-offline", *plugin_args)
    offline.assert_outcomes(errors=1)
    offline.stdout.fnmatch_lines(["*calc--sub.md*github.com/acme/calc*", "*--editpred-repo*"])


def test_refused_urls_are_errors_and_run_nothing(project: Project, plugin_args: list[str]) -> None:
    sentinel = project.pytester.path / "pwned"
    body = SUB
    for name, url in [("ext", f"ext::sh -c touch% {sentinel}"), ("option", "--upload-pack=touch /tmp/x")]:
        path = project.example(f"calc--{name}", body)
        path.write_text(path.read_text().replace(project.url, url))
    project.example("calc--sub", SUB)
    result = project.pytester.runpytest("evals", "--editpred-provider=oracle", *plugin_args)
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*calc--ext.md:1:*", "*--editpred-repo*"])
    assert not sentinel.exists()
