"""Under xdist a worker packs an example's record and JUnit properties into one JSON
text (execnet encodes them object by object in Python otherwise): whoever reads the
reports on the controller sees what one process would give them."""

from __future__ import annotations

import json

import pytest

from conftest import SUB, Project

CONFTEST = """
import json

import pytest
from pytest_editpred import Prediction


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        return Prediction(text=request.text.replace("a - b", "a + b"))
    return complete


@pytest.fixture(autouse=True)
def extra_property(record_property, request):
    record_property("plain", "yes")
    if request.node.name == "calc--other":
        record_property("structured", [1, {"two": 2}])  # not packed: JSON gives back no tuples
    yield


SEEN = []


def pytest_runtest_logreport(report):
    record = getattr(report, "editpred", None)
    SEEN.append({
        "nodeid": report.nodeid,
        "when": report.when,
        "record_name": record["name"] if isinstance(record, dict) else None,
        "properties": [[type(pair).__name__, *pair] for pair in report.user_properties],
    })


def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        with open("seen.json", "w") as file:
            json.dump(SEEN, file)
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_controller_reads_the_same_reports(project: Project, workers: str) -> None:
    project.example("calc--one", SUB)
    project.example("calc--other", SUB)
    project.pytester.makeconftest(CONFTEST)
    project.pytester.runpytest("evals", "-n", workers).assert_outcomes(failed=2)
    seen = {(s["nodeid"], s["when"]): s for s in json.loads((project.pytester.path / "seen.json").read_text())}
    one = seen[("evals/calc--one.md::calc--one", "call")]
    assert one["record_name"] == "calc--one"
    # Every property a (name, value) tuple, numbers still numbers, the user's first.
    assert one["properties"][0] == ["tuple", "plain", "yes"]
    assert ["tuple", "editpred_outcome", "failed"] in one["properties"]
    assert any(p[1] == "editpred_delta_chr_f" and isinstance(p[2], float) for p in one["properties"])
    teardown = seen[("evals/calc--one.md::calc--one", "teardown")]
    assert teardown["properties"] == one["properties"]  # JUnit reads them from here
    other = seen[("evals/calc--other.md::calc--other", "call")]
    assert ["tuple", "structured", [1, {"two": 2}]] in other["properties"]
