"""CrossCodeEval JSONL rows as examples (``datasets.md`` §3).

A row is a completion task: the file's text before the cursor (``prompt``), the code
to write there (``groundtruth``) and the text after it (``right_context``). The
canvas example creates the file without the answer, has no Edit History, puts the
cursor at the end of ``prompt`` and expects ``groundtruth`` inserted there.

``metadata.repository`` (``owner-repo-shortsha``) is not resolved: names with ``-``
make it ambiguous (§3). The retrieved chunks (``crossfile_context.list``) have no
place in a markdown example; ep JSON would carry them as
``prompt_inputs.related_files``, which this package's JSON writer does not write yet,
so they are dropped in both formats and counted in the summary.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..example import Example
from ._canvas import (
    Item,
    ItemError,
    canvas_example,
    check_path,
    edit_diff,
    field,
    import_rows,
    json_type,
    language,
)

__all__ = ["crosscodeeval_example", "import_crosscodeeval"]

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_FIX_ROW = "Each row needs prompt, groundtruth, right_context and metadata {task_id, file}."


def import_crosscodeeval(source: Path) -> Iterator[Item]:
    """Every row of a CrossCodeEval ``.jsonl`` file, as an example or a skip."""
    return import_rows(source, lambda row, _: crosscodeeval_example(row))


def crosscodeeval_example(row: object) -> tuple[Example, int]:
    """The example of one decoded row and the number of retrieved chunks dropped."""
    if not isinstance(row, dict):
        raise ItemError(f"the row is {json_type(row)}, not an object", fix=_FIX_ROW)
    prompt = str(field(row, "prompt", str))
    answer = str(field(row, "groundtruth", str))
    right = str(field(row, "right_context", str))
    metadata = field(row, "metadata", dict)
    assert isinstance(metadata, dict)
    task = str(field(metadata, "task_id", str, "metadata."))
    path = check_path(str(field(metadata, "file", str, "metadata.")), "metadata.file")
    name = _NAME_UNSAFE.sub("-", task).strip("-")  # "", "." or "..": the writer names the file by the row
    if not answer:
        raise ItemError("no next edit: groundtruth is empty", fix="Drop the row.")
    chunks = 0
    context = row.get("crossfile_context")
    if isinstance(context, dict) and isinstance(context.get("list"), list):
        chunks = len(context["list"])
    lang = language(path)
    before = prompt + right
    return canvas_example(
        name=name,
        tags=("crosscodeeval",) + ((lang,) if lang else ()),
        files=[(path, before)],
        history=[],
        cursor=(path, before, len(prompt)),
        expected=[edit_diff(path, before, prompt + answer + right)],
    ), chunks
