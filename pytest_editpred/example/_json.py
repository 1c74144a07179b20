"""Read and write examples as JSON and JSONL with Zed's serde field names (§5.2).

``ep`` output loads as it is: the pipeline fields Zed adds (``prompt_inputs``,
``predictions``, ``score``, ``telemetry``, ...) are accepted and ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from .._exceptions import JSONFormatError
from ._example import CONTEXT_SOURCES, CarriedDiagnostic, Example, RecentFile, RetrievedExcerpt, RetrievedFile, Source

__all__ = [
    "from_json",
    "from_jsonl",
    "to_json",
    "example_from_dict",
    "related_files_from_json",
    "related_files_to_json",
]

_Record = TypeVar("_Record")


def _text(data: dict[str, Any], key: str, *, required: bool, where: str | None, line: int) -> str:
    value = data.get(key)
    if value is None:
        if required:
            raise JSONFormatError(f"the example has no '{key}'", path=where, line=line)
        return ""
    if not isinstance(value, str):
        raise JSONFormatError(f"'{key}' must be a string, not {type(value).__name__}", path=where, line=line)
    return value


def _recent(data: dict[str, Any], key: str, where: str | None, line: int) -> tuple[RecentFile, ...]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise JSONFormatError(f"'{key}' must be a list", path=where, line=line)
    files = []
    for entry in value:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("path"), str)
            or not isinstance(entry.get("cursor_position"), (int, type(None)))
            or isinstance(entry.get("cursor_position"), bool)
        ):
            raise JSONFormatError(
                f'each entry of \'{key}\' must be {{"path": str, "cursor_position": int?}}',
                path=where,
                line=line,
            )
        files.append(RecentFile(entry["path"], entry.get("cursor_position")))
    return tuple(files)


def _strings(data: dict[str, Any], key: str, where: str | None, line: int) -> tuple[str, ...]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise JSONFormatError(f"'{key}' must be a list of strings", path=where, line=line)
    return tuple(value)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _prompt_input_records(
    data: dict[str, Any], key: str, shape: str, read: Callable[[Any], _Record | None], where: str | None, line: int
) -> list[_Record] | None:
    """The entries of the list ``prompt_inputs.<key>``, each made a record by ``read``
    (None when the list is absent). ``read`` returns None for an entry of the wrong
    shape: the error then says every entry must be ``shape``."""
    inputs = data.get("prompt_inputs")
    value = inputs.get(key) if isinstance(inputs, dict) else None
    if value is None:
        return None
    if not isinstance(value, list):
        raise JSONFormatError(f"'prompt_inputs.{key}' must be a list", path=where, line=line)
    records = []
    for entry in value:
        record = read(entry)
        if record is None:
            raise JSONFormatError(f"each entry of 'prompt_inputs.{key}' must be {shape}", path=where, line=line)
        records.append(record)
    return records


# Zed's ``ContextSource`` values as serde writes them (snake_case). Zed rejects any
# other name, and so does this reader: ``--type`` filters on these exact names.


def _known_source(value: Any) -> bool:
    """An excerpt's ``context_source`` is absent (Zed's default, ``lsp``) or a known name."""
    return value is None or (isinstance(value, str) and value in CONTEXT_SOURCES)


def _related_file(entry: Any) -> RetrievedFile | None:
    excerpts = entry.get("excerpts") if isinstance(entry, dict) else None
    if (
        not isinstance(entry, dict)
        or not isinstance(entry.get("path"), str)
        or not _count(entry.get("max_row"))
        or not isinstance(excerpts, list)
    ):
        return None
    parsed = []
    for excerpt in excerpts:
        rows = excerpt.get("row_range") if isinstance(excerpt, dict) else None
        order = excerpt.get("order", 0) if isinstance(excerpt, dict) else None
        if (
            not isinstance(rows, dict)
            or not _count(rows.get("start"))
            or not _count(rows.get("end"))
            or not isinstance(excerpt.get("text"), str)
            or not _count(order)
            or not _known_source(excerpt.get("context_source"))
        ):
            return None
        parsed.append(
            RetrievedExcerpt(
                rows["start"], rows["end"], excerpt["text"], int(order or 0), excerpt.get("context_source")
            )
        )
    return RetrievedFile(entry["path"], entry["max_row"], tuple(parsed))


def _related(data: dict[str, Any], where: str | None, line: int) -> tuple[RetrievedFile, ...] | None:
    """``prompt_inputs.related_files`` (Zed's ``RelatedFile`` records), if present."""
    shape = (
        '{"path": str, "max_row": int, '
        '"excerpts": [{"row_range": {"start": int, "end": int}, "text": str, "order": int?, '
        f'"context_source": one of {", ".join(sorted(CONTEXT_SOURCES))}?}}]}}'
    )
    files = _prompt_input_records(data, "related_files", shape, _related_file, where, line)
    return None if files is None else tuple(files)


def related_files_from_json(value: Any, where: str | None = None, line: int = 1) -> tuple[RetrievedFile, ...]:
    """A ``prompt_inputs.related_files`` list as records (what
    :func:`related_files_to_json` writes reads back to the same records); a
    :class:`JSONFormatError` for anything else."""
    files = _related({"prompt_inputs": {"related_files": [] if value is None else value}}, where, line)
    assert files is not None
    return files


def _diagnostic(entry: Any) -> CarriedDiagnostic | None:
    rows = entry.get("snippet_buffer_row_range") if isinstance(entry, dict) else None
    if (
        not isinstance(entry, dict)
        or not isinstance(entry.get("severity"), (str, int))
        or not isinstance(entry.get("message"), str)
        or not isinstance(entry.get("snippet"), str)
        or not isinstance(rows, dict)
        or not _count(rows.get("start"))
        or not _count(rows.get("end"))
    ):
        return None
    return CarriedDiagnostic(str(entry["severity"]), entry["message"], entry["snippet"], rows["start"], rows["end"])


def _diagnostics(data: dict[str, Any], where: str | None, line: int) -> tuple[CarriedDiagnostic, ...]:
    """``prompt_inputs.active_buffer_diagnostics``, if present."""
    shape = (
        '{"severity": str|int, "message": str, "snippet": str, "snippet_buffer_row_range": {"start": int, "end": int}}'
    )
    found = _prompt_input_records(data, "active_buffer_diagnostics", shape, _diagnostic, where, line)
    return tuple(found or ())


def _cursor_excerpt(data: dict[str, Any], where: str | None, line: int) -> tuple[str | None, int | None]:
    """``prompt_inputs.cursor_excerpt`` and ``prompt_inputs.excerpt_start_row``, if
    present: the excerpt an ``ep`` run showed the model, which context coverage
    counts as retrieved (``ep eval --context-only`` reads them, it does not
    recompute them)."""
    inputs = data.get("prompt_inputs")
    if not isinstance(inputs, dict):
        return None, None
    excerpt, row = inputs.get("cursor_excerpt"), inputs.get("excerpt_start_row")
    if excerpt is not None and not isinstance(excerpt, str):
        raise JSONFormatError("'prompt_inputs.cursor_excerpt' must be a string", path=where, line=line)
    if row is not None and not _count(row):
        raise JSONFormatError(
            "'prompt_inputs.excerpt_start_row' must be a row number (0 or more)", path=where, line=line
        )
    return excerpt, row


def example_from_dict(data: Any, *, path: str | None = None, line: int = 1, default_name: str = "") -> Example:
    """An :class:`Example` from a decoded Zed ``Example`` object."""
    if not isinstance(data, dict):
        raise JSONFormatError(f"an example must be a JSON object, not {type(data).__name__}", path=path, line=line)
    rejected = data.get("rejected_patch")
    reasoning = data.get("reasoning")
    flag = data.get("uncommitted_diff_contains_edit_history", False)
    if rejected is not None and not isinstance(rejected, str):
        raise JSONFormatError("'rejected_patch' must be a string", path=path, line=line)
    if reasoning is not None and not isinstance(reasoning, str):
        raise JSONFormatError("'reasoning' must be a string", path=path, line=line)
    if not isinstance(flag, bool):
        raise JSONFormatError("'uncommitted_diff_contains_edit_history' must be true or false", path=path, line=line)
    excerpt, start_row = _cursor_excerpt(data, path, line)
    cursor_path = _text(data, "cursor_path", required=True, where=path, line=line)
    cursor_position = _text(data, "cursor_position", required=True, where=path, line=line)
    if not cursor_path or not cursor_position:
        raise JSONFormatError("'cursor_path' and 'cursor_position' must not be empty", path=path, line=line)
    return Example(
        name=_text(data, "name", required=False, where=path, line=line) or default_name,
        repository_url=_text(data, "repository_url", required=True, where=path, line=line),
        revision=_text(data, "revision", required=True, where=path, line=line),
        cursor_path=cursor_path,
        cursor_position=cursor_position,
        edit_history=_text(data, "edit_history", required=False, where=path, line=line),
        expected_patches=_strings(data, "expected_patches", path, line),
        rejected_patch=rejected,
        tags=_strings(data, "tags", path, line),
        reasoning=reasoning,
        uncommitted_diff=_text(data, "uncommitted_diff", required=False, where=path, line=line),
        uncommitted_diff_requires_edit_history_rollback=flag,
        recently_opened_files=_recent(data, "recently_opened_files", path, line),
        recently_viewed_files=_recent(data, "recently_viewed_files", path, line),
        related_files=_related(data, path, line),
        stored_excerpt=excerpt,
        excerpt_start_row=start_row,
        diagnostics=_diagnostics(data, path, line),
        source=Source(path=path, line=line),
    )


def _decode(text: str, where: str | None, line: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise JSONFormatError(
            f"invalid JSON: {error.msg} (column {error.colno})",
            path=where,
            line=line + error.lineno - 1,
        ) from None
    except RecursionError:
        raise JSONFormatError("invalid JSON: nested too deeply", path=where, line=line) from None


def from_json(text: str, path: str | Path | None = None) -> Example:
    """One example from a ``.json`` file."""
    where = str(path) if path is not None else None
    stem = Path(where).stem if where else ""
    return example_from_dict(_decode(text, where, 1), path=where, default_name=stem)


def from_jsonl(text: str, path: str | Path | None = None) -> list[Example | JSONFormatError]:
    """Every example of a ``.jsonl`` file, one a line; blank lines are skipped.

    A line that is not an example comes back as its error, in its place, so one bad
    line does not hide the others. A missing name is ``{stem}-{line index}`` (0-based,
    as in Zed).
    """
    where = str(path) if path is not None else None
    stem = Path(where).stem if where else "example"
    results: list[Example | JSONFormatError] = []
    for index, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        try:
            data = _decode(line, where, index + 1)
            results.append(example_from_dict(data, path=where, line=index + 1, default_name=f"{stem}-{index}"))
        except JSONFormatError as error:
            results.append(error)
    return results


def to_json(example: Example) -> dict[str, Any]:
    """The example as Zed serialises an ``ExampleSpec`` (empty optional fields omitted)."""
    data: dict[str, Any] = {
        "name": example.name,
        "repository_url": example.repository_url,
        "revision": example.revision,
    }
    if example.tags:
        data["tags"] = list(example.tags)
    if example.reasoning is not None:
        data["reasoning"] = example.reasoning
    data["uncommitted_diff"] = example.uncommitted_diff
    for key in ("recently_opened_files", "recently_viewed_files"):
        files = getattr(example, key)
        if files:
            data[key] = [
                {"path": f.path} | ({} if f.cursor_position is None else {"cursor_position": f.cursor_position})
                for f in files
            ]
    if example.uncommitted_diff_requires_edit_history_rollback:
        data["uncommitted_diff_contains_edit_history"] = True
    data["cursor_path"] = example.cursor_path
    data["cursor_position"] = example.cursor_position
    data["edit_history"] = example.edit_history
    data["expected_patches"] = list(example.expected_patches)
    if example.rejected_patch is not None:
        data["rejected_patch"] = example.rejected_patch
    return data


def related_files_to_json(files: Iterable[Any]) -> list[dict[str, Any]]:
    """``prompt_inputs.related_files`` as ``ep`` writes them: ``path``, ``max_row``,
    ``excerpts`` (``row_range`` as ``{"start", "end"}``, ``text``, ``order``,
    ``context_source``), ``in_open_source_repo``, in that order.

    Takes :class:`RetrievedFile` s, or any records with those attributes (an
    excerpt's source as ``context_source`` or ``source``; none is ``lsp``, serde's
    default), so the prompt's related files are written the same way."""

    def source(excerpt: Any) -> str:
        value = getattr(excerpt, "context_source", None) or getattr(excerpt, "source", None)
        return value if isinstance(value, str) else "lsp"

    return [
        {
            "path": file.path,
            "max_row": file.max_row,
            "excerpts": [
                {
                    "row_range": {"start": e.start_row, "end": e.end_row},
                    "text": e.text,
                    "order": e.order,
                    "context_source": source(e),
                }
                for e in file.excerpts
            ],
            "in_open_source_repo": bool(getattr(file, "in_open_source_repo", False)),
        }
        for file in files
    ]
