"""A saved run's records back to their examples: the example file a record names,
the example in it by the name the run gave it, its scene, and the prediction as the
patch the model gave or the diff of the whole file it gave (as the run's judge saw
it, ``integration/second_opinion.py``). ``editpred judge`` and ``editpred distill``
read records through this, so both find the same example for a record and both
refuse it for the same named reason."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "Found",
    "RecordExamples",
    "example_path",
    "jsonl_refusal",
    "predicted_patch",
    "read_reports",
    "write_records",
]


def example_path(record: Mapping[str, Any], report: Path) -> Path:
    """The example file: as the record names it (a run writes it absolute), else
    relative to the report's folder."""
    path = Path(str(record.get("path") or ""))
    return path if path.is_absolute() else report.parent / path


class Found:
    """Why a record's example cannot be had: a reason of the summary, the one-line
    message and the fix."""

    def __init__(self, reason: str, message: str, fix: str) -> None:
        self.reason, self.message, self.fix = reason, message, fix


class RecordExamples:
    """Each example file read once, each scene built once (trials share it)."""

    def __init__(self, scene_of: Any, max_bytes: int) -> None:
        self.scene_of = scene_of
        self.max_bytes = max_bytes
        self._files: dict[Path, dict[str, Any] | Found] = {}
        self._scenes: dict[tuple[Path, str], Any] = {}

    def key(self, record: Mapping[str, Any], report: Path) -> tuple[Path, str]:
        path = example_path(record, report)
        return (path.resolve() if path.exists() else path), str(record.get("name") or "")

    def example(self, record: Mapping[str, Any], report: Path) -> Any:
        """The record's example, or a :class:`Found` saying why there is none."""
        from ..corpus import named_examples

        path, name = self.key(record, report)
        if path not in self._files:
            if not path.is_file() or not os.access(path, os.R_OK):
                why = "no such file" if not path.exists() else "not a readable file"
                self._files[path] = Found(
                    "example file gone",
                    f"its example {path} cannot be read: {why}",
                    "Run this where the run ran (the records name the example files), or restore the file.",
                )
            else:
                self._files[path] = {
                    named.run_name: named.example
                    for named in named_examples(path, self.max_bytes)
                    if named.error is None
                }
        examples = self._files[path]
        if isinstance(examples, Found):
            return examples
        if name not in examples:
            return Found(
                "example not in its file",
                f"its example file {path} has no example named {name!r}",
                "Use the report of a run of the example files as they are now, or run them again.",
            )
        return examples[name]

    def scene(self, record: Mapping[str, Any], report: Path, example: Any) -> Any:
        """The example's scene, or a :class:`Found`: ``example`` itself when it is one
        (no example, no scene), else ``scene not rebuilt``."""
        from .._exceptions import EditPredError

        if isinstance(example, Found):
            return example

        key = self.key(record, report)
        if key not in self._scenes:
            try:
                self._scenes[key] = self.scene_of(example)
            except EditPredError as error:
                self._scenes[key] = Found("scene not rebuilt", f"its example {key[0]}: {error.reason}", error.fix)
        return self._scenes[key]


def predicted_patch(record: Mapping[str, Any], scene: Any) -> str | None:
    """The prediction as a patch against the cursor file: the model's own patch, or
    the diff of the whole file it gave; None when it changes nothing."""
    from .._text import normalize_line_endings
    from ..scene import unified_diff

    patch, text = record.get("predicted_patch"), record.get("predicted_text")
    if patch is not None:
        return str(patch) if str(patch).strip() else None
    if text is None:
        return None
    path = scene.cursor.path
    before = scene.buffers.get(path, "")
    after = normalize_line_endings(str(text))
    return unified_diff(path, path, before, after) if after != before else None


def jsonl_refusal(out: Path, overwrite: bool) -> tuple[str, str] | None:
    """Why ``out`` cannot take the records (message, fix), or None: it must be a
    ``.jsonl`` file, new unless ``overwrite``, and not a link or a folder."""
    from ..corpus import output_refusal

    if out.suffix.lower() != ".jsonl":
        return "is not a .jsonl file", "Name a .jsonl file for the records."
    if out.exists() and not out.is_symlink() and not out.is_dir() and not overwrite:
        return "it exists", "Name a new output, or pass --overwrite to write over it."
    return output_refusal(out, folder=False, force=overwrite)


def write_records(
    out: Path,
    reports: Sequence[tuple[Path, list[dict[str, Any]]]],
    change: Callable[[int, int, dict[str, Any]], dict[str, Any]],
) -> None:
    """Every record to ``out`` in order, each as ``change(file, index, record)``
    returns it; made whole beside ``out``, then put in its place, so a failure leaves
    the old file. ``OSError`` when it cannot be written."""
    from ..reports import JsonlReport

    part = out.with_name(f".{out.name}.{os.getpid()}.part")
    writer = JsonlReport(part)
    try:
        writer.open()
        for file, (_, records) in enumerate(reports):
            for index, record in enumerate(records):
                writer.append(change(file, index, record))  # type: ignore[arg-type]  # read as a Record, kept whole
        writer.close()
        os.replace(part, out)
    except OSError:
        writer.close()
        part.unlink(missing_ok=True)
        raise


def read_reports(paths: Sequence[Path], console: Any) -> list[tuple[Path, list[dict[str, Any]]]] | None:
    """Each report's records, as plain dicts in order; a record that is JSON but no
    record is said (its file and line) and left out. None, the problem said, when a
    report cannot be read at all (a line that is not JSON, a missing file): the
    command stops with exit status 2."""
    from .._exceptions import ConfigError
    from ..reports import read_records

    reports: list[tuple[Path, list[dict[str, Any]]]] = []
    malformed: list[str] = []
    for path in paths:
        try:
            records = read_records(path, skip=malformed.append)
        except ConfigError as error:
            console.problem(error.path or str(path), error.reason, error.fix, line=error.line)
            return None
        reports.append((path, [dict(record) for record in records]))
    for line in malformed:  # "<file>:<line>: <what> (skipped)": the record is not written
        console.problem(line.removesuffix(" (skipped)"), "skipped", "Mend the line, or drop it.")
    return reports
