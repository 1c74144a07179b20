"""``editpred split``: Zed's ``ep split`` rules (sizes, stratification, greedy dealing)
with a fixed seed; byte-for-byte copies; refusals as one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_editpred.cli import main
from pytest_editpred.corpus._split import Record, SplitSpec, assign, parse_spec, targets

ROOT = Path(__file__).resolve().parents[1]


def lines(n: int, key: str = "cursor_path", values: list[str] | None = None) -> str:
    out = []
    for i in range(n):
        value = values[i] if values else f"f{i}.py"
        out.append(
            json.dumps(
                {
                    "name": f"e{i}",
                    "repository_url": "https://x/r",
                    "revision": "abc",
                    "cursor_path": value,
                    "cursor_position": "x<|user_cursor|>",
                    key: value,
                }
            )
        )
    return "\n".join(out) + "\n"


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        status = main(["split", *args])
    finally:
        os.chdir(before)
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def names(path: Path) -> list[str]:
    return [json.loads(line)["name"] for line in path.read_text().splitlines()]


def test_exact_assignment_for_a_fixed_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text(lines(10))
    status, out, err = run(tmp_path, capsys, "in.jsonl", "a.jsonl=30%", "b.jsonl=2", "c.jsonl=rest", "--seed", "7")
    assert (status, err) == (0, [])
    assert out == [
        "Stratifying by cursor-path (10 unique groups, 10 examples), seed 7",
        "a.jsonl: 3 examples",
        "b.jsonl: 2 examples",
        "c.jsonl: 5 examples",
    ]
    got = [names(tmp_path / f"{x}.jsonl") for x in "abc"]
    # random.Random(7).shuffle of the groups f0..f9 gives f8 f3 f1 | f4 f7 | f0 f9 f6 f2 f5
    assert got == [["e1", "e3", "e8"], ["e4", "e7"], ["e0", "e2", "e5", "e6", "e9"]]
    first = got
    run(tmp_path, capsys, "in.jsonl", "a.jsonl=30%", "b.jsonl=2", "c.jsonl=rest", "--seed", "7", "--force")
    assert [names(tmp_path / f"{x}.jsonl") for x in "abc"] == first  # same seed, same split


def test_assignment_is_pinned() -> None:
    """The draw for seed 0 is fixed: random.Random(0).shuffle of the sorted groups."""
    records = [Record(b"", "in", i + 1, {"cursor_path": f"f{i}.py"}) for i in range(6)]
    specs = [SplitSpec(Path("a.jsonl"), "fraction", 0.5), SplitSpec(Path("b.jsonl"), "rest")]
    assert assign(records, specs, "cursor-path", 0) == [[1, 2, 4], [0, 3, 5]]
    result = assign(records, specs, "cursor-path", 0)
    assert result == assign(records, specs, "cursor-path", 0)
    assert sorted(result[0] + result[1]) == list(range(6)) and len(result[0]) == 3
    pinned = assign(records, specs, "cursor-path", 0)
    import random

    groups = [[i] for i in range(6)]
    random.Random(0).shuffle(groups)
    assert pinned == [sorted(sum(groups[:3], [])), sorted(sum(groups[3:], []))]


def test_stratification_keeps_a_key_in_one_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = ["src/a.py"] * 4 + ["src/b.py"] * 3 + ["lib/c.py"] * 3
    (tmp_path / "in.jsonl").write_text(lines(10, values=paths))
    for seed in range(5):
        run(tmp_path, capsys, "in.jsonl", "x.jsonl=50%", "y.jsonl=rest", "--seed", str(seed), "--force")
        for name in ("x", "y"):
            rows = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
            for path in {r["cursor_path"] for r in rows}:
                assert sum(r["cursor_path"] == path for r in rows) == paths.count(path)
        run(
            tmp_path,
            capsys,
            "in.jsonl",
            "x.jsonl=50%",
            "y.jsonl=rest",
            "--seed",
            str(seed),
            "--force",
            "--stratify",
            "project",
        )
        x = {json.loads(line)["cursor_path"].split("/")[0] for line in (tmp_path / "x.jsonl").read_text().splitlines()}
        y = {json.loads(line)["cursor_path"].split("/")[0] for line in (tmp_path / "y.jsonl").read_text().splitlines()}
        assert not x & y


def test_repo_stratification_and_markdown_copies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        tmp_path, capsys, str(ROOT / "evals"), "train=50%", "test=rest", "--stratify", "repo", "--seed", "3"
    )
    assert (status, err) == (0, [])
    assert out[0] == "Stratifying by repo (4 unique groups, 26 examples), seed 3"
    train = sorted(p.name for p in (tmp_path / "train").iterdir())
    test = sorted(p.name for p in (tmp_path / "test").iterdir())
    assert {n.split("--")[0] for n in train}.isdisjoint({n.split("--")[0] for n in test})
    assert len(train) + len(test) == 26
    for name in train:
        assert (tmp_path / "train" / name).read_bytes() == (ROOT / "evals" / name).read_bytes()


def test_sizes_as_fractions_and_counts() -> None:
    specs = [parse_spec("a=25%"), parse_spec("b=0.5"), parse_spec("c=3"), parse_spec("d=rest")]
    assert [s.kind for s in specs] == ["fraction", "fraction", "count", "rest"]
    assert targets(specs, 10) == [3, 5, 2, 0]  # 2.5 rounds up, as Rust's round; c capped at what is left
    assert targets([parse_spec("a=1"), parse_spec("b=1.0")], 4) == [1, 3]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["a.jsonl=x"],
            "editpred split: 'a.jsonl=x': cannot read the size 'x' (Write OUT=SIZE, SIZE being P% "
            "(0-100), a fraction such as 0.25, a count such as 500, or rest.)",
        ),
        (
            ["a.jsonl=101%"],
            "editpred split: 'a.jsonl=101%': 101% is over 100% (Write OUT=SIZE, SIZE being P% "
            "(0-100), a fraction such as 0.25, a count such as 500, or rest.)",
        ),
        (
            ["a.jsonl=-1"],
            "editpred split: 'a.jsonl=-1': cannot read the size '-1' (Write OUT=SIZE, SIZE being P% "
            "(0-100), a fraction such as 0.25, a count such as 500, or rest.)",
        ),
        (
            ["a.jsonl=rest", "b.jsonl=rest"],
            "editpred split: only one split can use 'rest' (Give every output but one a size.)",
        ),
    ],
)
def test_bad_sizes_are_one_usage_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], line: str
) -> None:
    (tmp_path / "in.jsonl").write_text(lines(3))
    status, out, err = run(tmp_path, capsys, "in.jsonl", *args)
    assert (status, err, out) == (2, [line], [])
    assert not (tmp_path / "a.jsonl").exists()


def test_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text(lines(3))
    (tmp_path / "a.jsonl").write_text("keep\n")
    status, _, err = run(tmp_path, capsys, "in.jsonl", "a.jsonl=rest")
    assert (status, err) == (
        2,
        ["editpred split: a.jsonl exists (Name new outputs, or pass --force to write over them.)"],
    )
    assert (tmp_path / "a.jsonl").read_text() == "keep\n"
    status, _, err = run(tmp_path, capsys, "in.jsonl", "a.jsonl=rest", "--force")
    assert (status, err) == (0, [])
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 3


def test_jsonl_to_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(tmp_path, capsys, str(ROOT / "evals" / "follow-ups.jsonl"), "md=rest", "--seed", "1")
    assert (status, err) == (0, [])
    from pytest_editpred.example import from_json, load_examples

    written = sorted((tmp_path / "md").iterdir())
    assert len(written) == 3
    originals = {
        from_json(line).name: from_json(line)
        for line in (ROOT / "evals" / "follow-ups.jsonl").read_text().splitlines()
        if line.strip()
    }
    for path in written:
        [example] = load_examples(path)
        assert example == originals[example.name]


def test_outputs_may_follow_the_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text(lines(10))
    status, out, err = run(tmp_path, capsys, "in.jsonl", "--seed", "7", "a.jsonl=30%", "b.jsonl=2", "c.jsonl=rest")
    assert (status, err) == (0, [])
    assert [names(tmp_path / f"{x}.jsonl") for x in "abc"] == [
        ["e1", "e3", "e8"],
        ["e4", "e7"],
        ["e0", "e2", "e5", "e6", "e9"],
    ]


# ------------------------------------------------------------- far from the sizes asked

# 100 examples in 14 cursor files, one of them holding 23: whole groups cannot be
# dealt 80/20 closely, whatever the seed.
GROUP_SIZES = [23, 12, 9, 8, 7, 6, 6, 6, 5, 5, 4, 3, 3, 3]


def write_corpus(folder: Path, sizes: list[int]) -> None:
    """Markdown examples, ``sizes[k]`` of them with their cursor in ``src/modk.py``."""
    folder.mkdir()
    number = 0
    for k, size in enumerate(sizes):
        for _ in range(size):
            (folder / f"e{number:03}.md").write_text(
                "+++\n"
                'repository_url = "https://github.com/acme/calc"\n'
                'revision = "0123456789abcdef0123456789abcdef01234567"\n'
                "+++\n\n"
                f"# e{number:03}\n\n"
                "## Cursor Position\n\n"
                f"```src/mod{k:02}.py\n"
                f"value_{number} = <|user_cursor|>\n"
                "```\n"
            )
            number += 1


def test_parts_far_from_their_sizes_are_one_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "corpus", GROUP_SIZES)
    status, out, err = run(tmp_path, capsys, "corpus", "train=80%", "test=rest", "--seed", "78")
    assert out == [
        "Stratifying by cursor-path (14 unique groups, 100 examples), seed 78",
        "train: 89 examples",
        "test: 11 examples",
    ]
    assert err == [
        "editpred split: warning: the parts are far from their sizes, as whole groups were dealt: "
        "train 89 of 100 examples for 80% (80), test 11 for rest (20); there are only 14 groups by "
        "cursor-path, the largest of 23 examples (to come nearer: split a corpus with more groups, "
        "use --stratify none, or ask for other sizes)"
    ]
    assert status == 0  # a warning is not a problem: the split was made
    assert (len(os.listdir(tmp_path / "train")), len(os.listdir(tmp_path / "test"))) == (89, 11)


@pytest.mark.parametrize(
    ("seed", "dealt", "warned"),
    [
        (6, (80, 20), False),
        (45, (81, 19), False),  # one example off
        (3, (82, 18), False),  # two off: a tenth of the test part's 20, no more
        (9, (83, 17), True),  # the test part three short: more than a tenth
    ],
)
def test_far_means_more_than_one_example_and_a_tenth_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, dealt: tuple[int, int], warned: bool
) -> None:
    write_corpus(tmp_path / "corpus", GROUP_SIZES)
    status, out, err = run(tmp_path, capsys, "corpus", "train=80%", "test=rest", "--seed", str(seed))
    assert out[1:] == [f"train: {dealt[0]} examples", f"test: {dealt[1]} examples"]
    assert (status, len(err)) == (0, int(warned))
    if warned:
        assert err[0].startswith(
            "editpred split: warning: the parts are far from their sizes, as whole groups were dealt: "
            f"train {dealt[0]} of 100 examples for 80% (80), test {dealt[1]} for rest (20); "
        )


def test_the_warnings_fixes_come_nearer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "corpus", GROUP_SIZES)
    status, out, err = run(tmp_path, capsys, "corpus", "train=80%", "test=rest", "--seed", "78", "--stratify", "none")
    assert (status, out[1:], err) == (0, ["train: 80 examples", "test: 20 examples"], [])
    # Fractions and counts are named as written; with no rest, 3 examples go nowhere.
    status, out, err = run(tmp_path, capsys, "corpus", "a.jsonl=0.5", "b.jsonl=30", "--seed", "78")
    assert (status, out[1:]) == (0, ["a.jsonl: 60 examples", "b.jsonl: 37 examples"])
    assert err == [
        "editpred split: warning: the parts are far from their sizes, as whole groups were dealt: "
        "a.jsonl 60 of 100 examples for 50% (50), b.jsonl 37 for 30 (30); there are only 14 groups by "
        "cursor-path, the largest of 23 examples (to come nearer: split a corpus with more groups, "
        "use --stratify none, or ask for other sizes)",
        "editpred split: warning: 3 of the 100 examples go to no output: the sizes (a.jsonl=50%, b.jsonl=30) "
        "add up to less than the whole and no output is rest (to keep them, add an output OUT=rest; to take "
        "a sample, this is what was asked)",
    ]


# ------------------------------------------------------------------ hostile input

SIZES_FIX = "Give sizes that add up to {} at most; one output may be rest, to take what the others leave."


@pytest.mark.parametrize(
    ("sizes", "line"),
    [
        (
            ["a.jsonl=60%", "b.jsonl=60%"],
            "the sizes add up to 120% (a.jsonl=60% + b.jsonl=60%), more than the whole (" + SIZES_FIX.format("100%"),
        ),
        (
            ["a.jsonl=0.7", "b.jsonl=0.5", "c.jsonl=rest"],
            "the sizes add up to 120% (a.jsonl=70% + b.jsonl=50%), more than the whole (" + SIZES_FIX.format("100%"),
        ),
        (
            ["a.jsonl=400", "b.jsonl=400"],
            "the sizes add up to 800 examples (a.jsonl=400 + b.jsonl=400), more than the 473 of the input ("
            + SIZES_FIX.format(473),
        ),
        (
            ["a.jsonl=50%", "b.jsonl=300", "c.jsonl=rest"],
            "the sizes add up to 536.5 examples (a.jsonl=50% + b.jsonl=300; 50% of 473 is 236.5), more than the "
            "473 of the input (" + SIZES_FIX.format(473),
        ),
        (
            ["a.jsonl=474"],
            "the sizes add up to 474 examples (a.jsonl=474), more than the 473 of the input (" + SIZES_FIX.format(473),
        ),
    ],
)
def test_sizes_over_the_whole_are_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sizes: list[str], line: str
) -> None:
    (tmp_path / "in.jsonl").write_text(lines(473))
    status, out, err = run(tmp_path, capsys, "in.jsonl", *sizes)
    assert (status, out, err) == (2, [], [f"editpred split: {line})"])
    assert os.listdir(tmp_path) == ["in.jsonl"]  # nothing written


def test_sizes_that_just_add_up_are_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """50% + 50% of 3 asks for 3 (1.5 + 1.5), though each part rounds to 2; 400 + 73 of 473."""
    (tmp_path / "in.jsonl").write_text(lines(3))
    status, out, err = run(tmp_path, capsys, "in.jsonl", "a.jsonl=50%", "b.jsonl=50%", "--seed", "1")
    assert (status, out[1:], err) == (0, ["a.jsonl: 2 examples", "b.jsonl: 1 example"], [])
    (tmp_path / "big.jsonl").write_text(lines(473))
    status, out, err = run(tmp_path, capsys, "big.jsonl", "c.jsonl=400", "d.jsonl=73", "--seed", "1")
    assert (status, out[1:], err) == (0, ["c.jsonl: 400 examples", "d.jsonl: 73 examples"], [])


def test_sizes_under_the_whole_without_rest_are_one_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text(lines(473))
    status, out, err = run(tmp_path, capsys, "in.jsonl", "a.jsonl=10%", "b.jsonl=10%", "--seed", "1")
    assert out == [
        "Stratifying by cursor-path (473 unique groups, 473 examples), seed 1",
        "a.jsonl: 47 examples",
        "b.jsonl: 47 examples",
    ]
    assert err == [
        "editpred split: warning: 379 of the 473 examples go to no output: the sizes (a.jsonl=10%, b.jsonl=10%) "
        "add up to less than the whole and no output is rest (to keep them, add an output OUT=rest; to take a "
        "sample, this is what was asked)"
    ]
    assert status == 0
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl", "b.jsonl", "in.jsonl"]


@pytest.mark.parametrize(
    ("output", "what"),
    [("corpus", "is"), ("corpus/part", "is inside the input folder"), (".", "holds the input")],
)
def test_an_output_may_not_be_in_or_around_the_input_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str, what: str
) -> None:
    write_corpus(tmp_path / "corpus", [2, 1])
    before = sorted(os.listdir(tmp_path / "corpus"))
    status, out, err = run(tmp_path, capsys, "corpus", f"{output}=rest", "--force")
    what = "is the input" if what == "is" else what
    assert (status, out, err) == (
        2,
        [],
        [
            f"editpred split: the output {output} {what} corpus (Write the outputs outside the input: a split "
            "must not read or write over its own examples.)"
        ],
    )
    assert sorted(os.listdir(tmp_path / "corpus")) == before and os.listdir(tmp_path) == ["corpus"]


def test_an_output_may_not_be_the_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text(lines(3))
    (tmp_path / "link.jsonl").symlink_to("in.jsonl")
    status, out, err = run(tmp_path, capsys, "in.jsonl", "a.jsonl=1", "link.jsonl=rest", "--force")
    assert (status, out, err) == (
        2,
        [],
        [
            "editpred split: the output link.jsonl is the input in.jsonl (Write the outputs outside the input: a "
            "split must not read or write over its own examples.)"
        ],
    )
    assert (tmp_path / "in.jsonl").read_text() == lines(3) and not (tmp_path / "a.jsonl").exists()


def test_lines_that_are_no_example_go_to_no_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = lines(3).splitlines()
    data = "\n".join([good[0], '{"x":1}', good[1], "[1]", "", good[2], '{"name": "cut", "repos']).encode()
    (tmp_path / "in.jsonl").write_bytes(data.replace(b"[1]", b"[1]\n\xff\xfe"))
    status, out, err = run(tmp_path, capsys, "in.jsonl", "a.jsonl=rest", "--seed", "1")
    fix = "(Write one Example object with Zed's field names (see the README).)"
    assert err == [
        f"in.jsonl:2: not an example, so it goes to no output: the example has no 'cursor_path' {fix}",
        f"in.jsonl:4: not an example, so it goes to no output: an example must be a JSON object, not list {fix}",
        "in.jsonl:5: not an example, so it goes to no output: not valid UTF-8 (Save the file as UTF-8.)",
        "in.jsonl:8: not an example, so it goes to no output: invalid JSON: Unterminated string starting at "
        f"(column 17) {fix}",
    ]
    assert out == ["Stratifying by cursor-path (3 unique groups, 3 examples), seed 1", "a.jsonl: 3 examples"]
    assert status == 1
    assert (tmp_path / "a.jsonl").read_text().splitlines() == good  # the examples as they were, in order


def test_a_markdown_file_that_is_no_example_goes_to_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_corpus(tmp_path / "corpus", [2])
    (tmp_path / "corpus" / "bad.md").write_text("+++\nrepository_url = 1\n+++\n\n# bad\n\n## Cursor Position\n")
    status, out, err = run(tmp_path, capsys, "corpus", "out=rest", "--seed", "1")
    assert err == [
        "corpus/bad.md:2: not an example, so it goes to no output: 'repository_url' must be a non-empty string "
        "(Start the file with '+++' on its own line, then TOML with repository_url and revision strings, then a "
        "closing '+++' line.)"
    ]
    assert (status, out[1:]) == (1, ["out: 2 examples"])
    assert sorted(os.listdir(tmp_path / "out")) == ["e000.md", "e001.md"]


def test_force_onto_a_folder_leaves_only_the_new_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The folder held 473 where the command said 167: ``--force`` now swaps the
    output folder in whole, so the old examples go."""
    (tmp_path / "in.jsonl").write_text(lines(6))
    status, _, err = run(tmp_path, capsys, "in.jsonl", "out=rest")
    assert (status, err) == (0, []) and len(list((tmp_path / "out").iterdir())) == 6
    (tmp_path / "small.jsonl").write_text(lines(2))
    status, _, err = run(tmp_path, capsys, "small.jsonl", "out=rest", "--force")
    assert (status, err) == (0, [])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["e0.md", "e1.md"]


def test_a_symbolic_link_as_output_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text(lines(3))
    system = tmp_path / "system"
    system.mkdir()
    (tmp_path / "link").symlink_to(system)
    (tmp_path / "file-link.jsonl").symlink_to(tmp_path / "target.jsonl")
    for output, fix in (
        ("link", "Give -o a real folder, not a link."),
        ("file-link.jsonl", "Give -o a real file path, not a link."),
    ):
        status, _, err = run(tmp_path, capsys, "in.jsonl", f"{output}=rest", "--force")
        target = system if output == "link" else tmp_path / "target.jsonl"
        assert (status, err) == (
            2,
            [
                f"editpred split: {output}: it is a symbolic link (to {target}); "
                f"examples are never written through a link ({fix})"
            ],
        )
    assert not any(system.iterdir()) and not (tmp_path / "target.jsonl").exists()
