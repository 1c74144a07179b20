"""``--editpred-accept`` is safe.

A lock per example file around read-modify-write (two runs accepting into one file
lose nothing); temporary files are hidden, never collected and always cleaned;
symlinks, hard links and read-only files are refused, not replaced; a patch naming
an unsafe path never reaches a corpus; every refusal or skipped accept is one line
per file in the terminal summary. Faults are real (a full tmpfs, SIGKILL of a real
process), and plugin-level tests run plainly and under ``-n 2``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mounts import full_disk

from conftest import SUB, Project
from pytest_editpred import ConfigError, from_markdown
from pytest_editpred.reports import accept_prediction
from pytest_editpred.reports._accept import TEMP_SUFFIX

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

FRONT = '+++\nrepository_url = "https://github.com/acme/calc"\nrevision = "abc123"\n+++\n\n'
CURSOR = "## Cursor Position\n\n```calc.py\ndef sub(a, b):\n#             ^[CURSOR_POSITION]\n```\n"
EXAMPLE = FRONT + CURSOR
PREDICTED = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,2 @@\n def sub(a, b):\n+    return -(b - a)\n"


def write(folder: Path, name: str = "ex.md", text: str = EXAMPLE) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ----------------------------------------------------------------------- refusals


def test_a_symlinked_example_is_refused_and_stays_a_link(tmp_path: Path) -> None:
    target = write(tmp_path / "real")
    link = tmp_path / "evals" / "ex.md"
    link.parent.mkdir()
    link.symlink_to(target)
    with pytest.raises(ConfigError, match=r"ex\.md is a symlink \(to .*real/ex\.md\)") as caught:
        accept_prediction(link, PREDICTED)
    assert str(target) in caught.value.fix
    assert link.is_symlink() and target.read_text() == EXAMPLE
    assert names(link.parent) == ["ex.md"]


def test_a_hard_linked_example_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path)
    os.link(path, tmp_path / "other.md")
    with pytest.raises(ConfigError, match="has 2 hard links") as caught:
        accept_prediction(path, PREDICTED)
    assert "break the link" in caught.value.fix
    assert path.read_text() == EXAMPLE and os.stat(path).st_nlink == 2
    assert names(tmp_path) == ["ex.md", "other.md"]


def test_a_read_only_example_is_refused(tmp_path: Path) -> None:
    """Root may write any file, so the mode is the owner's word, and is obeyed."""
    path = write(tmp_path)
    path.chmod(0o444)
    with pytest.raises(ConfigError, match=r"is read-only \(mode 444\)") as caught:
        accept_prediction(path, PREDICTED)
    assert "chmod u+w" in caught.value.fix
    assert path.read_text() == EXAMPLE and names(tmp_path) == ["ex.md"]


@pytest.mark.parametrize(
    ("header", "why"),
    [
        ("--- /dev/null\n+++ b/../../escaped.py\n", "contains '..'"),
        ("--- /dev/null\n+++ /etc/cron.d/x\n", "is absolute"),
        ("--- a/.git/config\n+++ b/.git/config\n", "names git's own '.git'"),
        ("--- a/src\\..\\x.py\n+++ b/src\\..\\x.py\n", "contains a backslash"),
        ("--- a/calc\x01.py\n+++ b/calc\x01.py\n", "NUL or control characters"),
    ],
)
def test_a_patch_with_an_unsafe_path_is_never_written(tmp_path: Path, header: str, why: str) -> None:
    path = write(tmp_path)
    patch = header + "@@ -1,1 +1,2 @@\n def sub(a, b):\n+    evil()\n"
    with pytest.raises(ConfigError, match="unsafe path") as caught:
        accept_prediction(path, patch)
    assert why in caught.value.reason and "never written into a corpus" in caught.value.reason
    assert path.read_text() == EXAMPLE and names(tmp_path) == ["ex.md"]


# ----------------------------------------------------------------- temporary files


def test_a_write_that_fails_leaves_no_temporary_file(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A real ENOSPC in the middle of the write: refused with the reason, the example
    intact, and the temporary file removed."""
    disk = full_disk(tmp_path / "disk", request, size="64k")
    os.truncate(disk / "filler", 0)
    path = write(disk)
    full_disk_again(disk)
    with pytest.raises(ConfigError, match=r"cannot write ex\.md: No space left on device \[ENOSPC\]") as caught:
        accept_prediction(path, PREDICTED)
    assert "Free space on the directory" in caught.value.fix
    assert path.read_text() == EXAMPLE
    assert names(disk) == ["ex.md", "filler"]


def full_disk_again(disk: Path) -> None:
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_APPEND)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def test_a_killed_accept_leaves_the_example_whole_and_the_next_cleans_up(tmp_path: Path) -> None:
    """SIGKILL between writing the temporary file and renaming it over the example.

    The child process pauses at that exact point (its ``os.replace`` waits for a
    signal file first), so the kill is deterministic. The example keeps its old
    bytes; the one file left is hidden and has a suffix no collector takes; the
    next accept into that file removes it.
    """
    path = write(tmp_path / "evals")
    ready = tmp_path / "ready"
    script = textwrap.dedent(
        f"""
        import os, time
        from pathlib import Path
        import pytest_editpred.reports._accept as accept

        real_replace = os.replace
        def paused(source, target):
            Path({str(ready)!r}).write_text(str(source))
            time.sleep(600)
            real_replace(source, target)
        accept.os.replace = paused
        accept.accept_prediction({str(path)!r}, {PREDICTED!r})
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), child.stderr.read().decode() if child.poll() is not None else "no pause"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert path.read_text() == EXAMPLE
    [left] = [name for name in names(path.parent) if name != "ex.md"]
    assert left == Path(ready.read_text()).name
    assert re.fullmatch(rf"\.ex\.md\.\w{{8}}{re.escape(TEMP_SUFFIX)}", left), left
    assert accept_prediction(path, PREDICTED) is not None
    assert names(path.parent) == ["ex.md"]
    assert len(from_markdown(path.read_text()).expected_patches) == 1


def test_no_lock_or_temporary_file_in_the_corpus(tmp_path: Path) -> None:
    path = write(tmp_path)
    assert accept_prediction(path, PREDICTED) is not None
    assert accept_prediction(path, PREDICTED) is None
    assert names(tmp_path) == ["ex.md"]


# ----------------------------------------------------------- through the plugin

COMPLETION = """
import os, time
from pathlib import Path

import pytest
from pytest_editpred import Prediction

HERE = Path(__file__).parent
LINE = "def sub(a, b):\\n"


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        name, text = request.example.name, request.text
        deadline = time.monotonic() + 120  # both runs answer once both are ready
        while os.environ.get("ACCEPT_BARRIER") and not (HERE / "go").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        if "good" in name:
            return Prediction(text=text.replace(LINE, LINE + "    return a - b\\n"))
        if "nothing" in name:
            return Prediction()
        if "unsafe" in name:
            return Prediction(patch="--- /dev/null\\n+++ b/../../escaped.py\\n@@ -0,0 +1 @@\\n+evil()\\n")
        tag = os.environ.get("ACCEPT_TAG", "x")
        return Prediction(text=text.replace(LINE, LINE + f"    return a * b  # {tag}{request.trial}\\n"))
    return complete
"""


def accept_lines(output: str) -> dict[str, str]:
    lines = [line for line in output.splitlines() if line.startswith("editpred accept: ")]
    by_file = {line.split(": ", 2)[1]: line.split(": ", 2)[2] for line in lines}
    assert len(by_file) == len(lines), f"one line per file expected:\n{output}"
    return by_file


@pytest.mark.xdist
@pytest.mark.slow
def test_two_runs_accepting_into_one_file_lose_no_patch(
    project: Project, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two pytest processes started together, six failing trials each, every answer
    different: all twelve land in the one file (under -n 2, four writers at once)."""
    project.pytester.makeconftest(COMPLETION)
    path = project.example("calc--bad", SUB)
    before = from_markdown(path.read_text(), path)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
               "evals", "--editpred-accept", "--editpred-trials=6", *plugin_args]  # fmt: skip
    runs = []
    for tag in ("a", "b"):
        env = {**os.environ, "ACCEPT_TAG": tag, "ACCEPT_BARRIER": "1"}
        runs.append(subprocess.Popen(command, cwd=project.pytester.path, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True))  # fmt: skip
    (project.pytester.path / "go").touch()
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    for run, output in zip(runs, outputs):
        assert run.returncode == pytest.ExitCode.TESTS_FAILED, output
        assert "6 failed" in output, output
        line = accept_lines(output)["evals/calc--bad.md"]
        assert line.count("added as expected patch") == 6, line
    after = from_markdown(path.read_text(), path)
    assert after.expected_patches[: len(before.expected_patches)] == before.expected_patches
    added = after.expected_patches[len(before.expected_patches) :]
    assert sorted(re.search(r"# (\w+)", p).group(1) for p in added) == sorted(
        f"{t}{i}" for t in "ab" for i in range(1, 7)
    )
    assert names(path.parent) == ["calc--bad.md"]  # no lock, no temporary file
    # The file is still an example that runs: the answers of either run now pass.
    monkeypatch.setenv("ACCEPT_TAG", "b")
    project.pytester.runpytest("evals", "--editpred-trials=6", *plugin_args).assert_outcomes(passed=6)


@pytest.mark.xdist
def test_every_refusal_and_skip_is_one_summary_line(project: Project, plugin_args: list[str]) -> None:
    project.pytester.makeconftest(COMPLETION)
    evals = project.pytester.path / "evals"
    added = project.example("calc--bad", SUB)
    nothing = project.example("calc--nothing", SUB)
    unsafe = project.example("calc--unsafe", SUB)
    read_only = project.example("calc--bad-read-only", SUB)
    read_only.chmod(0o444)
    hard = project.example("calc--bad-hard", SUB)
    os.link(hard, project.pytester.path / "hard-copy.txt")
    real = project.example("calc--bad-linked", SUB, folder="elsewhere")
    (evals / "calc--bad-linked.md").symlink_to(real)
    untouched = {p: p.read_bytes() for p in (nothing, unsafe, read_only, hard, real)}
    result = project.pytester.runpytest("evals", "--editpred-accept", *plugin_args)
    out = result.stdout.str()
    lines = accept_lines(out)
    assert set(lines) == {f"evals/{p.name}" for p in (added, nothing, unsafe, read_only, hard)} | {
        "evals/calc--bad-linked.md"
    }, out
    assert lines["evals/calc--bad.md"].startswith("added as expected patch at calc--bad.md:")
    assert lines["evals/calc--nothing.md"] == "not accepted: the prediction changes nothing"
    # However the run reads an answer naming ../../escaped.py (today: it changes
    # nothing), accepting it writes nothing, and says so.
    assert lines["evals/calc--unsafe.md"].startswith(("not accepted: ", "refused: ")), lines
    assert "is read-only (mode 444)" in lines["evals/calc--bad-read-only.md"]
    assert "has 2 hard links" in lines["evals/calc--bad-hard.md"]
    assert "is a symlink" in lines["evals/calc--bad-linked.md"]
    for refused in ("calc--bad-read-only", "calc--bad-hard", "calc--bad-linked"):
        assert lines[f"evals/{refused}.md"].startswith("refused: ") and "(fix: " in lines[f"evals/{refused}.md"]
    for path, data in untouched.items():
        assert path.read_bytes() == data, path
    assert (evals / "calc--bad-linked.md").is_symlink()
    assert not (project.pytester.path.parent / "escaped.py").exists()
    assert not any(p.name.startswith(".") for p in evals.iterdir())


# ------------------------------------------- characters a fenced block holds, or not

CHARACTERS = """
import pytest
from pytest_editpred import Prediction

LINE = "def sub(a, b):\\n"
ANSWERS = {
    "cr": "    return a - b\\r  # a lone CR\\n",
    "crlf": "    return a - b\\r\\n",
    "nul": "    return a - b  # \\x00\\n",
    "ls": "    return a - b  # \\u2028 LINE SEPARATOR\\n",
    "nel": "    return a - b  # \\x85 NEXT LINE\\n",
    "ff": "\\x0c\\n    return a - b\\n",
    "esc": "    return a - b  # \\x1b[2J\\n",
}


@pytest.fixture(scope="session")
def editpred_completion():
    def complete(request):
        answer = ANSWERS[request.example.name.split("--")[1]]
        return Prediction(text=request.text.replace(LINE, LINE + answer), raw_output=answer)
    return complete
"""


@pytest.mark.xdist
def test_every_character_accepted_or_refused_is_said(project: Project, plugin_args: list[str]) -> None:
    """A NUL cannot be held by a fenced block (markdown reads it as U+FFFD): refused,
    naming it and its line. A carriage return never reaches the block: an answer's
    text enters the buffer as Zed normalises it, so CRLF is the expected edit itself
    and a lone CR a line break, written as one. U+2028, U+0085, a form feed, ESC read
    back exactly: written as they are, and each named with its line, so the corpus's
    reviewer sees what went in."""
    project.pytester.makeconftest(CHARACTERS)
    refused = {name: project.example(f"calc--{name}", SUB) for name in ("nul",)}
    project.example("calc--crlf", SUB)
    added = {name: project.example(f"calc--{name}", SUB) for name in ("cr", "ls", "nel", "ff", "esc")}
    untouched = {path: path.read_bytes() for path in refused.values()}
    result = project.pytester.runpytest("evals", "--editpred-accept", *plugin_args)
    result.assert_outcomes(failed=6, passed=1)
    out = result.stdout.str()
    lines = accept_lines(out)
    assert set(lines) == {f"evals/calc--{name}.md" for name in (*refused, *added)}, out
    patch_line = 7  # "--- a", "+++ b", "@@", three context lines, then the answer's line
    for name, what in (("nul", "a NUL (U+0000), which markdown reads as U+FFFD"),):
        line = lines[f"evals/calc--{name}.md"]
        assert line.startswith(f"refused: the prediction holds {what}, on line {patch_line} of its patch;"), line
        assert "write the example as ep JSON (.json)" in line
    for path, data in untouched.items():
        assert path.read_bytes() == data, path
    for name, character in (
        ("ls", "U+2028 LINE SEPARATOR"),
        ("nel", "U+0085 NEXT LINE"),
        ("ff", "U+000C FORM FEED"),
        ("esc", "U+001B ESCAPE"),
    ):
        path = added[name]
        line = lines[f"evals/calc--{name}.md"]
        fence = int(re.match(rf"added as expected patch at calc--{name}\.md:(\d+); ", line).group(1))
        why = (
            "a control or invisible character"
            if name == "esc"
            else "a line break to Python's str.splitlines() and some editors, a character to markdown, Zed and "
            "this loader"
        )
        assert line.endswith(f"; {character} on line {fence + patch_line} written as it is ({why})"), line
        # The file holds the answer as it is, and loads back to exactly the answer:
        answer = CHARACTER_ANSWERS[name]
        text = path.read_bytes().decode("utf-8")
        assert text.split("\n")[fence + patch_line - 1] == "+" + answer.split("\n")[0]
        stored = from_markdown(text, path).expected_patches[-1]
        assert "".join(f"+{row}\n" for row in answer.split("\n")[:-1]) in stored
    assert re.fullmatch(r"added as expected patch at calc--cr\.md:\d+", lines["evals/calc--cr.md"])
    assert "+  # a lone CR\n" in from_markdown(added["cr"].read_text(), added["cr"]).expected_patches[-1]
    # Every accepted example now passes with the same answers: it read back exactly.
    rerun = project.pytester.runpytest(*[f"evals/calc--{name}.md" for name in added], *plugin_args)
    rerun.assert_outcomes(passed=5)


CHARACTER_ANSWERS = {
    "ls": "    return a - b  # \u2028 LINE SEPARATOR\n",
    "nel": "    return a - b  # \x85 NEXT LINE\n",
    "ff": "\x0c\n    return a - b\n",
    "esc": "    return a - b  # \x1b[2J\n",
}


@pytest.mark.parametrize(
    ("added", "what"),
    [
        ("+    x = 1\r", "a carriage return (U+000D)"),
        ("+    x = '\x00'", "a NUL (U+0000)"),
        ("+    x = '\ud800'", "a lone surrogate (U+D800), on line 5 of its patch, which UTF-8 cannot encode"),
    ],
)
def test_a_character_markdown_cannot_hold_is_refused_by_name(tmp_path: Path, added: str, what: str) -> None:
    path = write(tmp_path)
    patch = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,2 @@\n def sub(a, b):\n" + added + "\n"
    with pytest.raises(ConfigError, match="the prediction holds ") as caught:
        accept_prediction(path, patch)
    assert what in caught.value.reason and "ep JSON" in caught.value.fix
    assert path.read_text() == EXAMPLE and names(tmp_path) == ["ex.md"]


def test_notes_name_what_was_written_as_it_is(tmp_path: Path) -> None:
    path = write(tmp_path)
    patch = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,2 @@\n def sub(a, b):\n+    x = 1\u2028\u2028\x7f\n"
    notes: list[str] = []
    fence = accept_prediction(path, patch, notes=notes)
    assert fence is not None
    assert notes == [
        f"U+2028 LINE SEPARATOR on line {fence + 5} written as it is (a line break to Python's str.splitlines() "
        "and some editors, a character to markdown, Zed and this loader)",
        f"U+007F DELETE on line {fence + 5} written as it is (a control or invisible character)",
    ]
    assert from_markdown(path.read_bytes().decode(), path).expected_patches == (patch,)
    assert accept_prediction(path, patch, notes=(again := [])) is None and again == []  # nothing written
