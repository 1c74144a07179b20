"""GitHub Copilot NES recordings as examples (``datasets.md`` §1).

A fixture directory holds ``recording.w.json`` (a log of editor events and the
user's next edit) and, maybe, ``scoredEdits.w.json`` (candidate edits scored by
hand). The log is replayed in its own order (not by ``time``, which can go
backwards): the first ``setContent`` of a document creates it on the canvas, every
``changed`` entry (and any later ``setContent``) becomes one Edit History diff, the
last ``selectionChanged`` is the cursor. The next user edit and every ``nextEdit``
with a new resulting text are the Expected Patches, the first ``bad`` edit the
Rejected Patch.

Offsets are UTF-16 code units (JavaScript string indices): a character outside the
Basic Multilingual Plane counts two, so an emoji before an edit would otherwise
shift it by one character. An offset that splits such a character is an error.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..example import Example
from ._canvas import (
    Imported,
    ImportSourceError,
    Item,
    ItemError,
    Skipped,
    canvas_example,
    check_path,
    edit_diff,
    json_type,
    language,
    read_json_file,
)

__all__ = ["copilot_example", "import_copilot", "utf16_to_char"]

RECORDING = "recording.w.json"
SCORED = "scoredEdits.w.json"
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_CPP = frozenset({"cpp"})


def import_copilot(source: Path) -> Iterator[Item]:
    """A fixture directory, or a directory of them (its subdirectories holding a
    ``recording.w.json``, by name), each an example named after its directory."""
    if not source.is_dir():
        raise ImportSourceError(
            f"{source} is not a directory", fix=f"Give a fixture directory (with {RECORDING}) or a directory of them."
        )
    if (source / RECORDING).is_file():
        fixtures = [source]
    else:
        try:
            fixtures = sorted(child for child in source.iterdir() if (child / RECORDING).is_file())
        except OSError as error:
            raise ImportSourceError(f"{source} cannot be read: {error.strerror or error}") from None
        if not fixtures:
            raise ImportSourceError(
                f"{source} holds no fixture: no {RECORDING} in it or its subdirectories",
                fix="Give a fixture directory or the directory of fixtures.",
            )
    return _fixtures(fixtures)


def _fixtures(fixtures: list[Path]) -> Iterator[Item]:
    for directory in fixtures:
        where = str(directory / RECORDING)
        try:
            recording = read_json_file(directory / RECORDING)
            scored: object = None
            if (directory / SCORED).is_file():
                where = str(directory / SCORED)
                scored = read_json_file(directory / SCORED)
                where = str(directory / RECORDING)
            example, dropped = copilot_example(directory.name, recording, scored, where_scored=str(directory / SCORED))
            yield Imported(example, str(directory), None, dropped)
        except _ScoredError as error:
            yield Skipped(str(directory / SCORED), error.line, error.message, error.fix)
        except ItemError as error:
            yield Skipped(where, error.line, error.message, error.fix or _FIX_FIXTURE)


_FIX_OFFSET = (
    "An offset counts UTF-16 units of the document's text at that point, from 0 to its length: "
    "correct the edit, or drop the fixture."
)
_FIX_FIXTURE = "Repair the fixture as Copilot's recording format has it, or drop it."


class _ScoredError(ItemError):
    """An error in ``scoredEdits.w.json`` rather than in the recording."""


# --------------------------------------------------------------------------- offsets


def utf16_to_char(text: str, offset: object, what: str = "offset") -> int:
    """The character offset of a UTF-16 code-unit ``offset`` into ``text``."""
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise ItemError(f"{what} must be an integer, not {json_type(offset)}", fix=_FIX_OFFSET)
    if not _ASTRAL.search(text):
        if not 0 <= offset <= len(text):
            raise ItemError(f"{what} {offset} is outside the document ({len(text)} UTF-16 units)", fix=_FIX_OFFSET)
        return offset
    data = text.encode("utf-16-le", "surrogatepass")
    if not 0 <= offset * 2 <= len(data):
        raise ItemError(f"{what} {offset} is outside the document ({len(data) // 2} UTF-16 units)", fix=_FIX_OFFSET)
    if offset * 2 < len(data) and 0xDC00 <= int.from_bytes(data[offset * 2 : offset * 2 + 2], "little") <= 0xDFFF:
        raise ItemError(
            f"{what} {offset} falls inside a character outside the BMP (between its two UTF-16 units)", fix=_FIX_OFFSET
        )
    return len(data[: offset * 2].decode("utf-16-le", "surrogatepass"))


def _replacements(text: str, edit: object, what: str) -> list[tuple[int, int, str]]:
    """An edit's ``[start, endEx, text]`` list in character offsets, checked sorted
    and non-overlapping."""
    if not isinstance(edit, list):
        raise ItemError(f"{what} must be a list of [start, endEx, text], not {json_type(edit)}")
    out: list[tuple[int, int, str]] = []
    for index, entry in enumerate(edit):
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], str)):
            raise ItemError(f"{what}[{index}] must be [start, endEx, text]")
        start = utf16_to_char(text, entry[0], f"{what}[{index}] start")
        end = utf16_to_char(text, entry[1], f"{what}[{index}] end")
        if end < start or (out and start < out[-1][1]):
            raise ItemError(f"{what}[{index}] overlaps or precedes the one before, or ends before it starts")
        out.append((start, end, entry[2]))
    return out


def _apply(text: str, replacements: list[tuple[int, int, str]]) -> tuple[str, int]:
    """The text after the replacements, and the end of the last one in it."""
    pieces, at, shift, last_end = [], 0, 0, 0
    for start, end, new in replacements:
        pieces += [text[at:start], new]
        at = end
        last_end = start + shift + len(new)
        shift += len(new) - (end - start)
    pieces.append(text[at:])
    return "".join(pieces), last_end


def _follow(position: int, replacements: list[tuple[int, int, str]]) -> int:
    """Where a position lands after the replacements (inside a replaced range: its end)."""
    shift = 0
    for start, end, new in replacements:
        if position >= end:
            shift += len(new) - (end - start)
        elif position > start:
            return start + shift + len(new)
    return position + shift


# --------------------------------------------------------------------------- the log


@dataclass
class _Document:
    path: str
    initial: str | None = None
    text: str = ""
    order: int = 0


@dataclass
class _Replay:
    documents: dict[object, _Document] = field(default_factory=dict)
    history: list[str] = field(default_factory=list)
    cursor: tuple[object, int] | None = None  # (document id, character offset in its current text)
    last_change: tuple[object, int] | None = None  # the end of the last `changed` entry's last replacement
    created: int = 0


def _replay(log: object) -> _Replay:
    if not isinstance(log, list):
        raise ItemError(
            f"'log' must be a list, not {json_type(log)}",
            fix="Give 'log' the list of the recording's entries, as Copilot writes it; or drop the fixture.",
        )
    state = _Replay()
    for index, entry in enumerate(log):
        if not isinstance(entry, dict):
            raise ItemError(f"log entry {index} must be an object, not {json_type(entry)}")
        try:
            _step(state, entry)
        except ItemError as error:
            raise ItemError(
                f"log entry {index} ({entry.get('kind')!s:.40}): {error.message}",
                fix=error.fix or "Repair or drop the fixture.",
            ) from None
    return state


def _step(state: _Replay, entry: dict[str, object]) -> None:
    kind = entry.get("kind")
    if kind not in ("documentEncountered", "setContent", "changed", "selectionChanged"):
        return  # header, meta, opened, focused...: nothing for the example
    key = entry.get("id")
    if not isinstance(key, (int, str)) or isinstance(key, bool):
        raise ItemError(f"'id' must be a number, not {json_type(key)}")
    if kind == "documentEncountered":
        raw = entry.get("relativePath")
        if not isinstance(raw, str):
            raise ItemError(f"'relativePath' must be a string, not {json_type(raw)}")
        path = check_path(raw.replace("\\", "/"), "relativePath")
        known = state.documents.get(key)
        if known is None:
            if any(d.path == path for d in state.documents.values()):
                raise ItemError(f"two documents have the path {path}")
            state.documents[key] = _Document(path)
        elif known.path != path:
            raise ItemError(f"document {key} is encountered again as {path}, was {known.path}")
        return
    document = state.documents.get(key)
    if document is None:
        raise ItemError(f"document {key} was not encountered before (no documentEncountered)")
    if kind == "setContent":
        content = entry.get("content")
        if not isinstance(content, str):
            raise ItemError(f"'content' must be a string, not {json_type(content)}")
        if document.initial is None:
            document.initial, document.text = content, content
            document.order, state.created = state.created, state.created + 1
        else:
            state.history.append(edit_diff(document.path, document.text, content))
            document.text = content
            for mark in ("cursor", "last_change"):
                place = getattr(state, mark)
                if place is not None and place[0] == key:
                    setattr(state, mark, (key, min(place[1], len(content))))
        return
    if document.initial is None:
        raise ItemError(f"document {document.path} has no setContent before this entry")
    if kind == "changed":
        replacements = _replacements(document.text, entry.get("edit"), "'edit'")
        new, last_end = _apply(document.text, replacements)
        state.history.append(edit_diff(document.path, document.text, new))
        document.text = new
        if state.cursor is not None and state.cursor[0] == key:
            state.cursor = (key, _follow(state.cursor[1], replacements))
        state.last_change = (key, last_end)
        return
    selection = entry.get("selection")
    if not isinstance(selection, list):
        raise ItemError(f"'selection' must be a list of [start, endEx], not {json_type(selection)}")
    if selection:
        first = selection[0]
        if not isinstance(first, list) or len(first) != 2:
            raise ItemError("'selection'[0] must be [start, endEx]")
        state.cursor = (key, utf16_to_char(document.text, first[0], "'selection'[0] start"))


# --------------------------------------------------------------------------- the example


def _document_for(documents: list[_Document], raw: str) -> _Document:
    """The document a next edit's ``relativePath`` names: by normalised path, then by
    path suffix, then by unique basename (§1: it may be spelled
    ``../../../../Users/x/src/proj/a.ts`` for ``a.ts``)."""
    path = posixpath.normpath(raw.replace("\\", "/"))
    for document in documents:
        if document.path == path:
            return document
    suffix = [d for d in documents if path.endswith("/" + d.path)]
    if suffix:
        return max(suffix, key=lambda d: len(d.path))
    base = posixpath.basename(path)
    named = [d for d in documents if posixpath.basename(d.path) == base]
    if len(named) == 1:
        return named[0]
    raise ItemError(
        f"no encountered document matches {raw!r}" + (" (several share its name)" if named else ""),
        fix="The next edit must be in a document the log encountered.",
    )


def _document_for_uri(documents: list[_Document], uri: str) -> _Document | None:
    """The document a scored edit's ``documentUri`` names, by path suffix (longest)."""
    path = unquote(urlsplit(uri).path if "://" in uri else uri).replace("\\", "/")
    found = [d for d in documents if path == d.path or path.endswith("/" + d.path)]
    return max(found, key=lambda d: len(d.path)) if found else None


def copilot_example(
    name: str, recording: object, scored: object = None, *, where_scored: str = SCORED
) -> tuple[Example, int]:
    """The example of one fixture, and the number of scored edits dropped.

    :class:`ItemError` when the fixture cannot be an example: no next user edit
    (the notebook fixtures), one that changes nothing, an edit outside its document...
    """
    if not isinstance(recording, dict):
        raise ItemError(f"the recording is {json_type(recording)}, not an object")
    if "log" not in recording:
        raise ItemError("the recording has no 'log'", fix="Is this a recording.w.json?")
    state = _replay(recording["log"])
    documents = sorted((d for d in state.documents.values() if d.initial is not None), key=lambda d: d.order)
    next_edit = recording.get("nextUserEdit")
    if next_edit is None:
        raise ItemError(
            "the recording has no nextUserEdit: there is no next edit to predict",
            fix="Only fixtures with a next user edit can be examples.",
        )
    if not isinstance(next_edit, dict) or not isinstance(next_edit.get("relativePath"), str):
        raise ItemError("'nextUserEdit' must be {relativePath: string, edit: [...]}")
    target = _document_for(documents, next_edit["relativePath"])
    answer, _ = _apply(target.text, _replacements(target.text, next_edit.get("edit"), "'nextUserEdit.edit'"))
    if answer == target.text:
        raise ItemError(
            "the nextUserEdit changes nothing: there is no next edit to predict",
            fix="Only fixtures with a next user edit can be examples.",
        )

    seen: list[tuple[str, str]] = [(target.path, answer)]
    expected = [edit_diff(target.path, target.text, answer)]
    rejected: str | None = None
    dropped = 0
    for document, result, category in _scored_edits(documents, scored, where_scored):
        if category == "nextEdit" and result != document.text and (document.path, result) not in seen:
            seen.append((document.path, result))
            expected.append(edit_diff(document.path, document.text, result))
        elif category == "nextEdit" and result != document.text:
            continue  # the same resulting text again: already expected, nothing lost
        elif category == "bad" and rejected is None and result != document.text and (document.path, result) not in seen:
            rejected = edit_diff(document.path, document.text, result)
        else:
            dropped += 1

    if state.cursor is not None:
        key, offset = state.cursor
    elif state.last_change is not None:
        key, offset = state.last_change
    else:  # nothing typed, nothing selected: the cursor where the next edit starts
        key, offset = None, _replacements(target.text, next_edit.get("edit"), "'nextUserEdit.edit'")[0][0]
    where = target if key is None else state.documents[key]
    languages = {language(d.path) for d in documents}
    lang = language(where.path)
    if lang == "c" and languages & _CPP:
        lang = "cpp"  # a .h among .cpp files is C++
    return canvas_example(
        name=name,
        tags=("copilot-nes",) + ((lang,) if lang else ()),
        files=[(d.path, d.initial or "") for d in documents],
        history=state.history,
        cursor=(where.path, where.text, offset),
        expected=expected,
        rejected=rejected,
    ), dropped


def _scored_edits(documents: list[_Document], scored: object, where: str) -> Iterator[tuple[_Document, str, str]]:
    """``(document, resulting text, category)`` of each scored edit with an edit;
    a null edit is yielded with the document's own text (and so dropped)."""
    if scored is None:
        return
    if not isinstance(scored, dict) or not isinstance(scored.get("edits"), list):
        raise _ScoredError("the scored edits must be an object with a list 'edits'")
    for index, item in enumerate(scored["edits"]):
        what = f"edits[{index}]"
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("documentUri"), str)
            or not isinstance(item.get("scoreCategory"), str)
        ):
            raise _ScoredError(
                f"{what} must be {{documentUri: string, edit, scoreCategory: string}}",
                fix="Repair or drop the scored edit.",
            )
        document = _document_for_uri(documents, item["documentUri"])
        if document is None:
            raise _ScoredError(
                f"{what}: no encountered document matches {item['documentUri']!r}",
                fix="A scored edit must be in a document the recording encountered.",
            )
        if item.get("edit") is None:
            yield document, document.text, item["scoreCategory"]
            continue
        try:
            result, _ = _apply(document.text, _replacements(document.text, item["edit"], f"{what}.edit"))
        except ItemError as error:
            raise _ScoredError(error.message, fix="Repair or drop the scored edit.") from None
        yield document, result, item["scoreCategory"]
