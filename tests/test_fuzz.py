"""Random and mutated inputs: only the documented error type ever comes out."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zed_examples import ZED

from pytest_editpred import (
    EditPredError,
    apply_patch,
    from_json,
    from_jsonl,
    from_markdown,
    to_markdown,
)
from pytest_editpred._diff import apply_sections, apply_to_string, parse_diff
from pytest_editpred.example import extract_cursor_from_patch, parse_cursor_excerpt

SEEDS = [p.read_text() for p in sorted(ZED.glob("*.md"))]

DIFF_LINES = st.sampled_from(
    [
        "--- a/f",
        "+++ b/f",
        "--- /dev/null",
        "+++ /dev/null",
        "@@ -1,2 +1,3 @@",
        "@@ @@",
        "@@ -x @@",
        " ctx",
        "-old",
        "+new",
        "",
        "\\ No newline at end of file",
        "garbage",
        "# ^[CURSOR_POSITION]",
        "#  <[CURSOR_POSITION]",
        "--- a/g",
        "+é",
        " é",
        "-\t",
        "// User accepted prediction:",
        "```",
        "+++",
        "---",
        '--- "a/q\\"x"',
    ]
)
DIFFS = st.lists(st.one_of(DIFF_LINES, st.text(max_size=12)), max_size=25).map(lambda ls: "\n".join(ls) + "\n")
TEXTS = st.text(alphabet=st.sampled_from(list("ab \n\té<|>^#/[]CURSOR_POSITIONuser")), max_size=60)


def only_documented_errors(call, *args) -> None:
    try:
        call(*args)
    except EditPredError:
        pass


@st.composite
def mutated_examples(draw) -> str:
    lines = draw(st.sampled_from(SEEDS)).split("\n")
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "replace", "truncate"]))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "delete" and lines:
            del lines[at]
        elif op == "duplicate" and lines:
            lines.insert(at, lines[at])
        elif op == "insert":
            lines.insert(
                at,
                draw(
                    st.one_of(
                        DIFF_LINES,
                        st.text(max_size=20),
                        st.sampled_from(
                            [
                                "+++",
                                "##### h5",
                                "    indented",
                                "## Cursor Position",
                                "```",
                                "~~~x",
                                "# name",
                                "---",
                                "===",
                            ]
                        ),
                    )
                ),
            )
        elif op == "replace" and lines:
            line = lines[at]
            cut = draw(st.integers(0, len(line)))
            lines[at] = line[:cut] + draw(st.text(max_size=5)) + line[cut:]
        elif op == "truncate":
            lines = lines[: at + 1]
    return "\n".join(lines)


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(mutated_examples())
def test_mutated_markdown_examples(text: str) -> None:
    try:
        example = from_markdown(text, "fuzz.md")
    except EditPredError:
        return
    only_documented_errors(example.cursor_excerpt)
    for patch in example.expected_patches:
        only_documented_errors(extract_cursor_from_patch, patch)
    only_documented_errors(lambda: from_markdown(to_markdown(example)))
    buffers: dict[str, str] = {}
    only_documented_errors(lambda: list(apply_sections(example.edit_history, buffers, lambda p: (p, "x\n"))))
    for expected in example.expected():
        only_documented_errors(apply_patch, {"f": "de\n"}, expected)


@FUZZ
@given(st.text(max_size=200))
def test_random_markdown(text: str) -> None:
    only_documented_errors(from_markdown, "+++\n" + text)
    only_documented_errors(from_markdown, text)


@FUZZ
@given(st.text(max_size=200))
def test_random_json(text: str) -> None:
    only_documented_errors(from_json, text)
    results = from_jsonl(text + '\n{}\n[]\n"x"\n')
    assert all(isinstance(r, EditPredError) or hasattr(r, "name") for r in results)


@FUZZ
@given(DIFFS, TEXTS)
def test_random_diffs(diff: str, text: str) -> None:
    only_documented_errors(parse_diff, diff)
    only_documented_errors(apply_to_string, diff, text)
    buffers: dict[str, str] = {}
    only_documented_errors(lambda: list(apply_sections(diff, buffers, lambda p: (p, text))))
    only_documented_errors(lambda: apply_patch({"f": text}, extract_cursor_from_patch(diff)))


@FUZZ
@given(TEXTS)
def test_random_cursor_blocks(text: str) -> None:
    only_documented_errors(parse_cursor_excerpt, text)
