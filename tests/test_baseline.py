"""The ``baseline`` provider: each heuristic on a small hand-made moment, and its
honesty (it reads the buffers, cursor and events, never the example's answers).

A moment is written as the file before and after the user's edit, with ``‸`` for
the cursor in the after text; events are real unified diffs of those edits.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_editpred import (
    Cursor,
    EditEvent,
    Example,
    Prediction,
    PredictionRequest,
    Settings,
)
from pytest_editpred.providers import get_provider
from pytest_editpred.providers.baseline import HEURISTICS, baseline, make_baseline
from pytest_editpred.providers.baseline._context import Context
from pytest_editpred.providers.baseline._edits import Edit, Result, apply_result
from pytest_editpred.providers.baseline._hunks import Change, LineHunk, read_hunks
from pytest_editpred.scene import hunks, unified_diff

MARK = "‸"


def example(path: str, **fields: object) -> Example:
    defaults: dict[str, object] = {
        "name": "hand-made",
        "repository_url": "https://github.com/acme/demo",
        "revision": "0" * 40,
        "cursor_path": path,
        "cursor_position": "<|user_cursor|>",
    }
    defaults.update(fields)
    return Example(**defaults)  # type: ignore[arg-type]


def edit(path: str, before: str, after: str) -> EditEvent:
    return EditEvent(path, path, unified_diff(path, path, before, after))


def moment(
    path: str,
    marked: str,
    edits: Sequence[tuple[str, str, str]] = (),
    others: dict[str, str] | None = None,
    ex: object | None = None,
) -> PredictionRequest:
    """A request: the cursor file (``‸`` marks the cursor), the user's edits as
    ``(path, before, after)`` and other buffers."""
    offset = marked.index(MARK)
    text = marked.replace(MARK, "")
    buffers = {**(others or {}), path: text}
    events = tuple(edit(p, b, a.replace(MARK, "")) for p, b, a in edits)
    return PredictionRequest(
        example=ex if ex is not None else example(path),  # type: ignore[arg-type]
        buffers=buffers,
        cursor=Cursor.at(path, text, offset),
        events=events,
    )


def predicted(prediction: Prediction) -> str:
    """The predicted cursor file with ``‸`` at the predicted cursor."""
    assert prediction.text is not None, prediction
    if prediction.cursor is None:
        return prediction.text
    return prediction.text[: prediction.cursor] + MARK + prediction.text[prediction.cursor :]


# ------------------------------------------------------------------ 1. complete-word

SHAPES = """\
class Circle:
    def __init__(self, radius: float) -> None:
        self.radius = radius
        self.rank = 0

    def area(self) -> float:
        return 3.14159 * self.radius**2

    def diameter(self) -> float:
        return 2 * self.ra{}
"""


def test_completes_a_half_typed_attribute_from_the_buffer() -> None:
    before = SHAPES.format("")[: -len("        return 2 * self.ra\n")]
    after = SHAPES.format(MARK)
    prediction = baseline(moment("shapes.py", after, [("shapes.py", before, after)]))
    assert predicted(prediction) == SHAPES.format("dius" + MARK)
    assert prediction.extra["heuristic"] == "complete-word"


def test_completion_prefers_the_same_receiver_then_the_nearest_word() -> None:
    text = "rate = 1\nrandom = 2\nobj.radius = 3\nx = obj.ra‸\n"
    assert predicted(baseline(moment("a.py", text))) == "rate = 1\nrandom = 2\nobj.radius = 3\nx = obj.radius‸\n"
    text = "radius = 1\nrate = 2\nx = ra‸\n"
    assert predicted(baseline(moment("a.py", text))) == "radius = 1\nrate = 2\nx = rate‸\n"


def test_no_completion_of_a_complete_word_or_inside_a_word() -> None:
    assert baseline(moment("a.py", "total = 1\ntotals = 2\nx = total‸\n")).text is None
    assert baseline(moment("a.py", "radius = 1\nx = ra‸d\n")).text is None
    assert baseline(moment("a.py", "radius = 1\nx = r‸\n")).text is None


# ------------------------------------------------------------------ 2. carry-rename

TRANSFORM = """\
def rotate(shape, degrees, {p}=None):
    \"\"\"Rotate around ``{d}``.\"\"\"
    {b} = {b} or shape.center
    return shape.rotated(degrees, {b})


def scale(shape, factor, pivot=None):
    pivot = pivot or shape.center
    return shape.scaled(factor, pivot)
"""


def test_carries_a_parameter_rename_through_its_function_only() -> None:
    v0 = TRANSFORM.format(p="pivot", d="pivot", b="pivot")
    v1 = TRANSFORM.format(p="center", d="pivot", b="pivot")
    v2 = TRANSFORM.format(p="center", d="center" + MARK, b="pivot")
    prediction = baseline(moment("t.py", v2, [("t.py", v0, v1), ("t.py", v1, v2)]))
    assert prediction.text == TRANSFORM.format(p="center", d="center", b="center")
    assert prediction.extra["heuristic"] == "carry-rename"


def test_a_crlf_file_is_renamed_like_any_other() -> None:
    """The event's lines keep their ``\\r`` to be found in the buffer's lines: else the
    parameter's function is not found and the whole file is renamed."""
    crlf = {
        key: TRANSFORM.format(**fields).replace("\n", "\r\n")
        for key, fields in (
            ("v0", {"p": "pivot", "d": "pivot", "b": "pivot"}),
            ("v1", {"p": "center", "d": "pivot", "b": "pivot"}),
            ("v2", {"p": "center", "d": "center" + MARK, "b": "pivot"}),
            ("want", {"p": "center", "d": "center", "b": "center"}),
        )
    }
    edits = [("t.py", crlf["v0"], crlf["v1"]), ("t.py", crlf["v1"], crlf["v2"])]
    prediction = baseline(moment("t.py", crlf["v2"], edits))
    assert prediction.text == crlf["want"]


def test_carries_a_definition_rename_made_in_another_file() -> None:
    store0 = "type Store interface {\n\tList(f Filter) []Task\n}\n"
    store1 = "type Store interface {\n\tListTasks(f Filter) []Task\n}\n"
    handlers = "func h(s Server) {\n\ttasks := s.store.‸List(f)\n\tmore := s.store.List(g)\n}\n"
    prediction = baseline(moment("api.go", handlers, [("store.go", store0, store1)], {"store.go": store1}))
    assert predicted(prediction) == (
        "func h(s Server) {\n\ttasks := s.store.ListTasks‸(f)\n\tmore := s.store.ListTasks(g)\n}\n"
    )


def test_one_changed_argument_is_not_a_rename() -> None:
    before = "x = compute(alpha)\ny = compute(alpha)\n"
    after = "x = compute(beta)‸\ny = compute(alpha)\n"
    assert baseline(moment("a.py", after, [("a.py", before, after)])).text is None


# ------------------------------------------------------------------ 3. mirror-addition

VALUE = """\
pub enum Value {{
    Int(i64),{float_variant}
    Bool(bool),
}}

impl Value {{
    pub fn name(&self) -> &str {{
        match self {{
            Value::Int(_) => "int",{float_name}
            Value::Bool(_) => "bool",
        }}
    }}
}}

impl fmt::Display for Value {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        match self {{
            Value::Int(n) => write!(f, "{{}}", n),{cursor}
            Value::Bool(b) => write!(f, "{{}}", b),
        }}
    }}
}}
"""


def test_mirrors_a_new_variant_into_the_match_at_the_cursor() -> None:
    before = VALUE.format(float_variant="", float_name="", cursor="")
    after = VALUE.format(
        float_variant="\n    Float(f64),", float_name='\n            Value::Float(_) => "float",', cursor=MARK
    )
    prediction = baseline(moment("value.rs", after, [("value.rs", before, after.replace(MARK, ""))]))
    expected = after.replace(MARK, '\n            Value::Float(n) => write!(f, "{}", n),' + MARK)
    assert predicted(prediction) == expected
    assert prediction.extra["heuristic"] == "mirror-addition"


def test_mirror_keeps_aligned_columns_like_gofmt() -> None:
    config0 = "type Config struct {\n\tAddr         string\n\tWriteTimeout time.Duration\n}\n"
    config1 = (
        "type Config struct {\n\tAddr         string\n\tWriteTimeout time.Duration\n\tIdleTimeout  time.Duration\n}\n"
    )
    main = "s := &http.Server{\n\tAddr:         cfg.Addr,\n\tWriteTimeout: cfg.WriteTimeout,‸\n}\n"
    prediction = baseline(moment("main.go", main, [("config.go", config0, config1)], {"config.go": config1}))
    assert predicted(prediction) == (
        "s := &http.Server{\n\tAddr:         cfg.Addr,\n\tWriteTimeout: cfg.WriteTimeout,\n"
        "\tIdleTimeout:  cfg.IdleTimeout,‸\n}\n"
    )


# ------------------------------------------------------------------ 4/5. new parameters and keywords


def test_passes_a_new_parameter_at_call_sites_and_on_to_inner_calls() -> None:
    before = (
        "def render_shape(shape, stroke, fill):\n    return shape\n\n\n"
        "def render(shapes, stroke):\n    return [render_shape(s, stroke) for s in shapes]\n\n\n"
        "def main(shapes, fill):\n    return render(shapes, 'black')\n"
    )
    after = before.replace("def render(shapes, stroke):", "def render(shapes, stroke, fill):‸")
    prediction = baseline(moment("svg.py", after, [("svg.py", before, after.replace(MARK, ""))]))
    assert prediction.text == (
        after.replace(MARK, "")
        .replace("render_shape(s, stroke)", "render_shape(s, stroke, fill)")
        .replace("render(shapes, 'black')", "render(shapes, 'black', fill)")
    )
    assert prediction.extra["heuristic"] == "pass-new-parameter"


def test_a_new_parameter_is_read_from_the_object_the_other_arguments_come_from() -> None:
    models = "export interface Report {\n  cents: number;\n  currency: string;\n}\n"
    before = (
        "export function money(cents: number): string {\n  return `${cents}`;\n}\n\n"
        "export function show(report: Report): string {\n  return `value: ${money(report.cents)}`;\n}\n"
    )
    after = before.replace("money(cents: number)", "money(cents: number, currency: string)‸")
    edits = [("format.ts", before, after.replace(MARK, ""))]
    prediction = baseline(moment("format.ts", after, edits, {"models.ts": models}))
    assert predicted(prediction) == after.replace(MARK, "").replace(
        "${money(report.cents)}`;", "${money(report.cents, report.currency)}`;" + MARK
    )


def test_passes_a_new_keyword_to_sibling_calls_and_splits_long_lines() -> None:
    cli0 = "def run(args):\n    style = Style(stroke=args.stroke, fill=args.fill)\n"
    cli1 = "def run(args):\n    style = Style(stroke=args.stroke, fill=args.fill, stroke_width=args.stroke_width)\n"
    style = (
        "class Style:\n"
        "    def with_fill(self, fill: str) -> Style:\n"
        "        return Style(stroke=self.stroke, fill=fill, opacity=self.opacity)‸\n"
        "    # a comment line long enough to tell that this file is formatted to ninety-nine columns\n"
    )
    prediction = baseline(moment("style.py", style, [("cli.py", cli0, cli1)], {"cli.py": cli1}))
    assert predicted(prediction) == style.replace(
        "Style(stroke=self.stroke, fill=fill, opacity=self.opacity)‸",
        "Style(\n"
        "            stroke=self.stroke, fill=fill, opacity=self.opacity, stroke_width=self.stroke_width\n"
        "        )‸",
    )
    assert prediction.extra["heuristic"] == "pass-new-keyword"


# ------------------------------------------------------------------ 6/7. await and imports


def test_awaits_the_call_added_to_a_function_made_async() -> None:
    before = "export function collect(client: Client) {\n  const n = 1;\n  return n;\n}\n"
    after = (
        "export async function collect(client: Client) {\n  const n = 1;\n"
        "  const stock = client.fetchStock(n);‸\n  return n;\n}\n"
    )
    prediction = baseline(moment("report.ts", after, [("report.ts", before, after.replace(MARK, ""))]))
    assert predicted(prediction) == after.replace(MARK, "").replace("= client", "= await " + MARK + "client")
    assert prediction.extra["heuristic"] == "await-async-call"


def test_imports_a_stdlib_name_in_isort_order() -> None:
    before = (
        "import json\nfrom typing import Any\n\n\n"
        "def load(name: str) -> Any:\n    return json.loads(open(name).read())\n"
    )
    after = before.replace("json.loads(open(name).read())", "json.loads(Path(name).read_text())‸")
    prediction = baseline(moment("io.py", after, [("io.py", before, after.replace(MARK, ""))]))
    expected = after.replace(MARK, "").replace("import json\n", "import json\nfrom pathlib import Path\n")
    assert prediction.text == expected
    assert prediction.extra["heuristic"] == "add-import"


def test_imports_a_name_from_the_module_of_its_closest_sibling() -> None:
    before = (
        'import { formatMoney } from "./format";\nimport { sum } from "./math";\n\nexport const a = formatMoney(1);\n'
    )
    after = before + "export const b = formatQuantity(2);‸\n"
    prediction = baseline(moment("inv.ts", after, [("inv.ts", before, after.replace(MARK, ""))]))
    assert prediction.text == after.replace(MARK, "").replace("{ formatMoney }", "{ formatMoney, formatQuantity }")


def test_no_import_for_a_name_the_edit_binds_itself() -> None:
    before = "import json\n\n\ndef f(rows):\n    return rows\n"
    after = before.replace("    return rows", "    date = rows[0]\n    return date.strip()‸")
    assert baseline(moment("a.py", after, [("a.py", before, after.replace(MARK, ""))])).text is None


# ------------------------------------------------------------------ no change, determinism, honesty


def test_no_change_when_nothing_applies() -> None:
    prediction = baseline(moment("a.py", "def f(x):\n    return x‸\n"))
    assert prediction == Prediction.no_change(model="baseline", extra={"heuristic": None})
    before = "def f(x):\n    return x\n"
    after = "def f(x):\n    y = x + 1\n    return y‸\n"
    assert baseline(moment("a.py", after, [("a.py", before, after.replace(MARK, ""))])).text is None


def _corpus() -> list[PredictionRequest]:
    v0 = TRANSFORM.format(p="pivot", d="pivot", b="pivot")
    v1 = TRANSFORM.format(p="center", d="pivot‸", b="pivot")
    before = VALUE.format(float_variant="", float_name="", cursor="")
    after = VALUE.format(float_variant="\n    Float(f64),", float_name="", cursor=MARK)
    return [
        moment("shapes.py", SHAPES.format(MARK)),
        moment("t.py", v1, [("t.py", v0, v1)]),
        moment("value.rs", after, [("value.rs", before, after.replace(MARK, ""))]),
        moment("a.py", "def f(x):\n    return x‸\n"),
    ]


def test_deterministic() -> None:
    first = [baseline(r) for r in _corpus()]
    second = [make_baseline(Settings())(r) for r in _corpus()]
    assert first == second
    assert [p.extra["heuristic"] for p in first] == ["complete-word", "carry-rename", "mirror-addition", None]


class _Tripwire:
    """An example that fails the test on any attribute read."""

    def __getattr__(self, name: str) -> object:
        pytest.fail(f"the baseline read request.example.{name}")


@pytest.mark.parametrize("index", range(4))
def test_never_reads_the_example(index: int) -> None:
    """Bogus expected/rejected patches, name and tags change nothing, and the
    example object is not even looked at."""
    plain = _corpus()[index]
    bogus = example(
        plain.cursor.path,
        name="rename-everything-to-x",
        tags=("rename",),
        reasoning="the answer is x",
        expected_patches=("--- a/t.py\n+++ b/t.py\n@@ -1,1 +1,1 @@\n-def rotate\n+def x\n",),
        rejected_patch="--- a/t.py\n+++ b/t.py\n@@ -1,1 +1,1 @@\n-class\n+klass\n",
    )
    lied = PredictionRequest(example=bogus, buffers=plain.buffers, cursor=plain.cursor, events=plain.events)
    tripped = PredictionRequest(
        example=_Tripwire(),  # type: ignore[arg-type]
        buffers=plain.buffers,
        cursor=plain.cursor,
        events=plain.events,
    )
    assert baseline(lied) == baseline(plain) == baseline(tripped)


def test_registered_and_the_default_provider() -> None:
    assert Settings().provider == "baseline"
    assert get_provider("baseline") is make_baseline


def test_any_cursor_position_gives_a_valid_prediction() -> None:
    """Whatever the cursor, the heuristics neither crash nor leave the text."""
    for request in _corpus()[1:3]:
        for offset in range(len(request.text) + 1):
            moved = PredictionRequest(
                example=request.example,
                buffers=request.buffers,
                cursor=Cursor.at(request.cursor.path, request.text, offset),
                events=request.events,
            )
            prediction = baseline(moved)
            text = prediction.text if prediction.text is not None else request.text
            assert prediction.cursor is None or 0 <= prediction.cursor <= len(text)


# ------------------------------------------------------------------ each heuristic alone, and the shared pieces

#: One moment per heuristic, the heuristic's own answer to it, and the prediction.
ALONE: list[tuple[str, PredictionRequest, Result, str]] = [
    (
        "complete-word",
        moment("a.py", "radius = 1\nx = ra‸\n"),
        Result((Edit(15, 17, "radius"),), focus=0),
        "radius = 1\nx = radius‸\n",
    ),
    (
        "carry-rename",
        moment(
            "a.py",
            "def area(size):\n    return size * width‸\n",
            [("a.py", "def area(width):\n    return width * width\n", "def area(size):\n    return size * width‸\n")],
        ),
        Result((Edit(34, 39, "size"),), focus=0),
        "def area(size):\n    return size * size‸\n",
    ),
    (
        "mirror-addition",
        moment(
            "k.py",
            "RED = 1\nGREEN = 2\n\n\ndef name(c):\n    if c == RED:‸\n        return c\n",
            [
                (
                    "k.py",
                    "RED = 1\n\n\ndef name(c):\n    if c == RED:\n        return c\n",
                    "RED = 1\nGREEN = 2\n\n\ndef name(c):\n    if c == RED:‸\n        return c\n",
                )
            ],
        ),
        Result((Edit(66, 66, "\n    if c == GREEN:\n        return c"),), focus=0),
        "RED = 1\nGREEN = 2\n\n\ndef name(c):\n    if c == RED:\n        return c\n"
        "    if c == GREEN:\n        return c‸\n",
    ),
    (
        "pass-new-parameter",
        moment(
            "a.py",
            "def f(a, b):‸\n    return a\n\n\ndef g(b):\n    return f(1)\n",
            [
                (
                    "a.py",
                    "def f(a):\n    return a\n\n\ndef g(b):\n    return f(1)\n",
                    "def f(a, b):\n    return a\n\n\ndef g(b):\n    return f(1)\n",
                )
            ],
        ),
        Result((Edit(52, 52, ", b"),), focus=0, past_closers=True),
        "def f(a, b):\n    return a\n\n\ndef g(b):\n    return f(1, b)‸\n",
    ),
    (
        "pass-new-keyword",
        moment(
            "a.py",
            "p = P(x=1, y=2)\nq = P(x=3)‸\n",
            [("a.py", "p = P(x=1)\nq = P(x=3)\n", "p = P(x=1, y=2)\nq = P(x=3)‸\n")],
        ),
        Result((Edit(25, 25, ", y=2"),), focus=0, past_closers=True),
        "p = P(x=1, y=2)\nq = P(x=3, y=2)‸\n",
    ),
    (
        "await-async-call",
        moment(
            "a.py",
            "async def load():\n    return 1\n\n\nasync def main():\n    x = load()‸\n",
            [
                (
                    "a.py",
                    "def load():\n    return 1\n\n\nasync def main():\n    x = load()\n",
                    "async def load():\n    return 1\n\n\nasync def main():\n    x = load()\n",
                )
            ],
        ),
        Result((Edit(59, 59, "await "),), focus=0),
        "async def load():\n    return 1\n\n\nasync def main():\n    x = await ‸load()\n",
    ),
    (
        "add-import",
        moment(
            "a.py",
            "import os\n\n\nx = Path('a')‸\n",
            [("a.py", "import os\n\n\nx = 1\n", "import os\n\n\nx = Path('a')‸\n")],
        ),
        Result((Edit(10, 10, "from pathlib import Path\n"),), focus=None),
        "import os\nfrom pathlib import Path\n\n\nx = Path('a')\n",
    ),
]


def test_the_heuristics_in_order_of_confidence() -> None:
    assert [name for name, _ in HEURISTICS] == [name for name, *_ in ALONE]


@pytest.mark.parametrize(("name", "request_", "result", "text"), ALONE, ids=[case[0] for case in ALONE])
def test_each_heuristic_alone(name: str, request_: PredictionRequest, result: Result, text: str) -> None:
    """Each heuristic's exact answer to its own moment, and the baseline's prediction
    from it (no earlier heuristic answers these moments)."""
    assert dict(HEURISTICS)[name](Context(request_)) == result
    prediction = baseline(request_)
    assert (predicted(prediction), prediction.extra["heuristic"]) == (text, name)


def test_edits_apply_in_order_and_the_cursor_follows_the_focus() -> None:
    text = "f(a)\ng(b)\n"
    # (2, 3) starts inside (0, 4), which starts first: it is dropped. The cursor
    # follows ", c", then the ")" that only closes the line.
    overlapping = Result((Edit(2, 3, "x"), Edit(0, 4, "zzz"), Edit(8, 8, ", c")), focus=2, past_closers=True)
    assert apply_result(text, overlapping) == ("zzz\ng(b, c)\n", 11)
    assert apply_result(text, Result((Edit(2, 3, "x"),), focus=0)) == ("f(x)\ng(b)\n", 3)
    assert apply_result(text, Result((Edit(2, 3, "x"),))) == ("f(x)\ng(b)\n", None)


def test_event_diffs_are_read_hunk_by_hunk_as_lines() -> None:
    diff = "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -10,2 +10,3 @@\n x\n+y\n z\n"
    assert read_hunks(diff) == (
        LineHunk(1, ("a", "B", "c"), (Change(("b",), ("B",), 1),)),
        # The empty line after the diff's final newline ends the last hunk: the
        # baseline has always read it so, and finding that hunk in a buffer depends on it.
        LineHunk(10, ("x", "y", "z", ""), (Change((), ("y",), 1),)),
    )
    assert read_hunks(hunks(diff)) == read_hunks(diff)  # Zed's events have no file header


def test_event_lines_are_read_as_the_baseline_always_read_them() -> None:
    """``\\r`` is kept (buffers keep it), a ``--- `` line in a hunk is skipped (it is
    a deleted ``-- `` line, not another file), ``---\\t`` is a deleted line, and the
    ``\\ No newline`` marker changes nothing."""
    diff = "@@ -1,3 +1,2 @@\n-x = 1\r\n--- note\n---\tdashes\n+x = 2\r\n y\r\n\\ No newline at end of file"
    assert read_hunks(diff) == (LineHunk(1, ("x = 2\r", "y\r"), (Change(("x = 1\r", "--\tdashes"), ("x = 2\r",), 0),)),)
    assert read_hunks("+x\n-y\n") == ()  # no hunk header: nothing to place the lines by
