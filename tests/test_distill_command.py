"""``editpred distill``: a real run's predictions become the expected patches of its
examples, in files ``editpred lint`` accepts and a run scores as the predictions did.

The run is a real pytest run (in-process, a real git repository, predictions made by
a conftest's own completion); its JSONL report is distilled, then linted and run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_judge_run import _examples

from conftest import Project
from pytest_editpred.cli import main
from pytest_editpred.example import load_examples


def _run(project: Project) -> Path:
    report = project.pytester.path / "run.jsonl"
    project.pytester.runpytest("evals", f"--editpred-report={report}").assert_outcomes(passed=1, failed=2)
    return report


def test_a_runs_predictions_become_the_expected_patches(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    _examples(project)
    report = _run(project)
    out = project.pytester.path / "distilled"
    capsys.readouterr()
    status = main(["distill", str(report), "-o", str(out)])
    stdout, err = capsys.readouterr()
    assert status == 0, err
    assert stdout.strip() == f"distill: 2 examples written to {out} from 3 records; 1 skipped (1 changes nothing)"
    assert sorted(p.name for p in out.iterdir()) == ["calc--right.md", "calc--wrong.md"]
    [wrong] = load_examples(out / "calc--wrong.md")
    [patch] = wrong.expected_patches
    assert "+    return a * b" in patch and "a - b" not in patch  # the prediction, not the old expected patch
    # The written corpus is sound, and a run scores the predictions as right on it.
    capsys.readouterr()
    assert main(["lint", str(out)]) == 0, capsys.readouterr()
    result = project.pytester.runpytest(str(out), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_every_record_is_accounted_for(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    _examples(project)
    report = _run(project)
    lines = report.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert {r["name"] for r in records} == {"calc--right", "calc--wrong", "calc--same"}
    (project.pytester.path / "evals" / "calc--right.md").unlink()
    mixed = project.pytester.path / "mixed.jsonl"
    mixed.write_text("\n".join([*lines, '{"name": 3}', json.dumps(dict(records[0], predicted_patch=None,
                                                                        predicted_text=None))]) + "\n")  # fmt: skip
    out = project.pytester.path / "distilled"
    capsys.readouterr()
    status = main(["distill", str(mixed), "-o", str(out)])
    stdout, err = capsys.readouterr()
    assert status == 1
    problems = err.strip().splitlines()
    assert len(problems) == 2, problems
    assert problems[0].startswith(f"{mixed}:4: record field 'name'")
    assert "calc--right" in problems[1] and "no such file" in problems[1]
    summary, skipped = stdout.strip().split("; ")
    assert (
        summary == f"distill: 1 example written to {out} from 4 records"
    )  # the line that is no record is its own problem line
    head, reasons = skipped.rstrip(")").split(" (")
    assert head == "3 skipped"
    assert set(reasons.split(", ")) == {"1 changes nothing", "1 example file gone", "1 no prediction"}
    assert [p.name for p in out.iterdir()] == ["calc--wrong.md"]
    # An output that exists is refused without --force, replaced whole with it.
    status = main(["distill", str(report), "-o", str(out)])
    assert status == 2 and "it exists" in capsys.readouterr().err
    assert main(["distill", str(mixed), "-o", str(out), "--force"]) == 1
    assert [p.name for p in out.iterdir()] == ["calc--wrong.md"]
