"""Splitting a corpus into named parts, as Zed's ``ep split`` does
(``zed-authoring-and-context.md`` §2.2, ``split_dataset.rs``).

Examples that share a key stay together, so a test split never holds an example of
the file (or repository) a train split learned from: ``cursor-path`` (Zed's default)
keys by the cursor's file, ``project`` by its first path component, ``repo`` by the
repository URL, ``none`` makes every example its own group. Groups are ordered by
key (examples without one follow as their own groups, in input order), shuffled, and
dealt out greedily: each sized output in turn takes whole groups until it holds at
least its target, so it may overshoot; the one ``rest`` output takes what is left.

One rule differs from Zed on purpose: Zed shuffles with Rust's ``StdRng`` (ChaCha12),
which a port cannot reproduce draw for draw (§7.4), so ``--seed N`` here seeds
Python's :class:`random.Random` (Mersenne Twister, ``shuffle``): the same seed gives
the same split on every machine and Python version this package supports, but not
Zed's split for that seed. Without a seed one is drawn and reported, so any split
can be made again.

Inputs are a folder of ``.md`` examples (walked, sorted) or a ``.jsonl`` file (or
standard input). An output whose name ends in ``.jsonl`` is a JSONL file, any other a
folder of ``.md`` files. An example goes out as it came in when the formats agree: a
``.md`` file copied byte for byte (same relative path), a JSONL line as it was; only
across formats is it rendered (:func:`~pytest_editpred.example.to_json`,
:func:`~pytest_editpred.example.to_markdown`). Nothing is written until every output
is known to be writable, and nothing is overwritten without ``force``.

Two more rules differ from Zed on purpose. Sizes that ask for more than there is
(60% + 60%, 400 + 400 of 473) are refused before anything is read or written: Zed
caps each part at what the earlier ones left, so the later parts silently come out
short or empty. And a line or file that is not an example is a problem naming it, and
goes to no output: Zed deals an unreadable line out as a group of its own, so a split
of a corpus carries its garbage into every part. Sizes that add up to less than the
whole with no ``rest`` are Zed's (the examples left over go nowhere), which is how a
sample is taken (``sample.jsonl=100``); the command says how many.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .._exceptions import ConfigError

__all__ = [
    "STRATIFY",
    "Record",
    "SplitResult",
    "SplitSpec",
    "assign",
    "check_paths",
    "check_sizes",
    "check_specs",
    "group_key",
    "groups_of",
    "parse_spec",
    "read_records",
    "split",
    "targets",
    "write_outputs",
]

STRATIFY = ("cursor-path", "project", "repo", "none")
Stratify = Literal["cursor-path", "project", "repo", "none"]

_PERCENT = re.compile(r"\d+(\.\d+)?%|\.\d+%")
_FRACTION = re.compile(r"\d*\.\d+")
_COUNT = re.compile(r"\d+")


@dataclass(frozen=True)
class SplitSpec:
    """One ``OUT=SIZE``: ``kind`` is ``fraction`` (``P%``, or a decimal such as
    ``0.8``), ``count`` or ``rest``; ``value`` the fraction of the total (0-1) or the count."""

    out: Path
    kind: Literal["fraction", "count", "rest"]
    value: float = 0.0

    @property
    def jsonl(self) -> bool:
        return self.out.suffix.lower() == ".jsonl"

    @property
    def size(self) -> str:
        """The size as it can be written on the command line: ``80%``, ``500``, ``rest``."""
        if self.kind == "fraction":
            return f"{self.value * 100:g}%"
        return "rest" if self.kind == "rest" else str(int(self.value))

    def __str__(self) -> str:
        return f"{self.out}={self.size}"


def parse_spec(text: str) -> SplitSpec:
    """``OUT=SIZE``, split at the last ``=`` (Zed's rule). SIZE is ``P%`` (0-100, Zed's
    form), a decimal fraction from 0 to 1 with a point (``0.8``; ``1`` is a count, ``1.0``
    everything), a whole count, or ``rest``. A bad one is a :class:`ConfigError`."""
    out, sep, size = text.rpartition("=")
    fix = "Write OUT=SIZE, SIZE being P% (0-100), a fraction such as 0.25, a count such as 500, or rest."
    if not sep or not out:
        raise ConfigError(f"{text!r}: expected OUT=SIZE", fix=fix)
    size = size.strip()
    if size == "rest":
        return SplitSpec(Path(out), "rest")
    if _PERCENT.fullmatch(size):
        percent = float(size[:-1])
        if percent > 100:
            raise ConfigError(f"{text!r}: {size} is over 100%", fix=fix)
        return SplitSpec(Path(out), "fraction", percent / 100)
    if _FRACTION.fullmatch(size):
        fraction = float(size)
        if fraction > 1:
            raise ConfigError(f"{text!r}: the fraction {size} is over 1", fix=fix)
        return SplitSpec(Path(out), "fraction", fraction)
    if _COUNT.fullmatch(size):
        return SplitSpec(Path(out), "count", int(size))
    raise ConfigError(f"{text!r}: cannot read the size {size!r}", fix=fix)


def check_specs(specs: Sequence[SplitSpec]) -> None:
    """At least one output, at most one ``rest`` (Zed's message), no output twice."""
    if not specs:
        raise ConfigError("no output: give at least one OUT=SIZE", fix="For example: train.jsonl=80% test.jsonl=rest")
    if sum(spec.kind == "rest" for spec in specs) > 1:
        raise ConfigError("only one split can use 'rest'", fix="Give every output but one a size.")
    seen: set[str] = set()
    for spec in specs:
        key = os.path.normcase(os.path.abspath(spec.out))
        if key in seen:
            raise ConfigError(f"the output {spec.out} is named twice", fix="Give each output its own name.")
        seen.add(key)
    fractions = [spec for spec in specs if spec.kind == "fraction"]
    if sum(spec.value for spec in fractions) > 1 + 1e-9:
        raise ConfigError(
            f"the sizes add up to {sum(spec.value for spec in fractions) * 100:g}% "
            f"({' + '.join(map(str, fractions))}), more than the whole",
            fix=_SIZES_FIX.format(whole="100%"),
        )


_SIZES_FIX = "Give sizes that add up to {whole} at most; one output may be rest, to take what the others leave."


def check_sizes(specs: Sequence[SplitSpec], total: int) -> None:
    """Refuse sizes that ask for more examples than the input holds: each part is
    capped at what the earlier ones left, so a later part would silently come out
    short or empty. Fractions are counted unrounded (50% + 50% of 3 is 3, not 4)."""
    sized = [spec for spec in specs if spec.kind != "rest"]
    if not any(spec.kind == "count" for spec in sized):
        return  # fractions alone: check_specs has seen them
    asked = sum(total * spec.value if spec.kind == "fraction" else spec.value for spec in sized)
    if asked > total + 1e-9:
        shares = "".join(
            f"; {spec.size} of {total} is {total * spec.value:.6g}" for spec in sized if spec.kind == "fraction"
        )
        raise ConfigError(
            f"the sizes add up to {asked:.6g} examples ({' + '.join(map(str, sized))}{shares}), "
            f"more than the {total} of the input",
            fix=_SIZES_FIX.format(whole=total),
        )


def check_paths(source: Path | None, specs: Sequence[SplitSpec]) -> None:
    """Refuse an output that is the input, lies inside the input folder or holds
    the input: the split would read its own output, or write among its input."""
    if source is None or str(source) == "-":
        return
    read = Path(os.path.realpath(source))
    for spec in specs:
        out = Path(os.path.realpath(spec.out))
        if out == read:
            what = "is the input"
        elif read in out.parents:
            what = "is inside the input folder"
        elif out in read.parents:
            what = "holds the input"
        else:
            continue
        raise ConfigError(
            f"the output {spec.out} {what} {source}",
            fix="Write the outputs outside the input: a split must not read or write over its own examples.",
        )


# ------------------------------------------------------------------------ input


@dataclass
class Record:
    """One example as read: the bytes written back when formats agree, where it came
    from (a ``.md`` file's path relative to the input folder, or a JSONL line number),
    and its fields. A record that is no example has ``fields`` None and says why
    (``error``, at ``error_line`` of its file, and the ``fix``): it is reported and
    goes to no output."""

    data: bytes
    origin: str
    line: int | None
    fields: dict[str, Any] | None
    example: Any = field(default=None, repr=False)
    error: str | None = None
    error_line: int | None = None
    fix: str | None = None


def read_records(source: Path | None, stdin: bytes | None = None) -> list[Record]:
    """The examples of a folder of ``.md`` files, a ``.jsonl`` file, or standard input
    (``source`` None or ``-``: JSONL). An :class:`OSError` is the caller's to report."""
    if source is None or str(source) == "-":
        return _jsonl_records(stdin if stdin is not None else b"", "<stdin>")
    if source.is_dir():
        return _markdown_records(source)
    if source.suffix.lower() == ".jsonl":
        return _jsonl_records(source.read_bytes(), str(source))
    raise ConfigError(
        f"{source}: the input must be a folder of .md examples or a .jsonl file",
        fix="Give a folder or a .jsonl file (or nothing, for JSONL on standard input).",
    )


def _markdown_records(folder: Path) -> list[Record]:
    from .._exceptions import EditPredError
    from ..example import from_markdown, looks_like_example, to_json

    records = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(root, name)
            if path.suffix.lower() != ".md" or not looks_like_example(path):
                continue
            data = path.read_bytes()
            relative = path.relative_to(folder).as_posix()
            try:
                example = from_markdown(data.decode("utf-8"), path)
            except UnicodeDecodeError as error:
                line = data[: error.start].count(b"\n") + 1
                records.append(Record(data, relative, None, None, error="not valid UTF-8", error_line=line, fix=_UTF8))
                continue
            except EditPredError as error:
                records.append(
                    Record(data, relative, None, None, error=error.reason, error_line=error.line, fix=error.fix)
                )
                continue
            records.append(Record(data, relative, None, to_json(example), example=example))
    return records


_UTF8 = "Save the file as UTF-8."


def _jsonl_records(data: bytes, where: str) -> list[Record]:
    """Each line read by the plugin's own JSONL reader (blank lines skipped): an
    example keeps its line's bytes; a line that is none (``{"x": 1}``, ``[1]``, a line
    cut short, bytes that are not UTF-8) is a record that says why."""
    from ..example import Example, from_jsonl

    raws = [raw.rstrip(b"\r") for raw in data.split(b"\n")]
    texts: list[str] = []
    records: dict[int, Record] = {}
    for number, raw in enumerate(raws, 1):
        try:
            texts.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            texts.append("")
            records[number] = Record(raw, where, number, None, error="not valid UTF-8", error_line=number, fix=_UTF8)
    for entry in from_jsonl("\n".join(texts), where):
        if isinstance(entry, Example):
            number = entry.source.line
            records[number] = Record(raws[number - 1], where, number, json.loads(raws[number - 1]), example=entry)
        else:
            number = entry.line or 0
            records[number] = Record(
                raws[number - 1], where, number, None, error=entry.reason, error_line=number, fix=entry.fix
            )
    return [records[number] for number in sorted(records)]


# --------------------------------------------------------------------- grouping


def group_key(record: Record, stratify: Stratify) -> str | None:
    """The record's group under ``stratify`` (None: a group of its own)."""
    fields = record.fields
    if fields is None or stratify == "none":
        return None
    if stratify == "repo":
        value = fields.get("repository_url")
        return value if isinstance(value, str) else None
    path = fields.get("cursor_path")
    if not isinstance(path, str):
        return None
    return re.split(r"[/\\]", path, maxsplit=1)[0] if stratify == "project" else path


def targets(specs: Sequence[SplitSpec], total: int) -> list[int]:
    """Each output's target in examples, in order: a fraction ``round(total × f)``
    (half away from zero, as Rust rounds), a count as given, each capped at what the
    earlier targets left; ``rest`` everything the others leave."""
    left = total
    result = []
    for spec in specs:
        if spec.kind == "rest":
            result.append(-1)
            continue
        wanted = math.floor(total * spec.value + 0.5) if spec.kind == "fraction" else int(spec.value)
        take = min(wanted, left)
        left -= take
        result.append(take)
    return [left if t == -1 else t for t in result]


def groups_of(records: Sequence[Record], stratify: Stratify) -> list[list[int]]:
    """The records (by index) that stay together: groups by key in key order, then
    each keyless record as a group of its own, in input order."""
    keyed: dict[str, list[int]] = {}
    single: list[list[int]] = []
    for index, record in enumerate(records):
        key = group_key(record, stratify)
        if key is None:
            single.append([index])
        else:
            keyed.setdefault(key, []).append(index)
    return [keyed[key] for key in sorted(keyed)] + single


def assign(records: Sequence[Record], specs: Sequence[SplitSpec], stratify: Stratify, seed: int) -> list[list[int]]:
    """The records (by index) each output gets: the groups (:func:`groups_of`)
    shuffled with ``random.Random(seed)``, dealt greedily to the sized outputs in
    order; ``rest`` takes the remaining groups. Groups left over when no output is
    ``rest`` go nowhere."""
    return _deal(groups_of(records, stratify), specs, len(records), seed)


def _deal(groups: list[list[int]], specs: Sequence[SplitSpec], total: int, seed: int) -> list[list[int]]:
    groups = list(groups)
    random.Random(seed).shuffle(groups)
    goal = targets(specs, total)
    result: list[list[int]] = [[] for _ in specs]
    position = 0
    for number, spec in enumerate(specs):
        if spec.kind == "rest":
            continue
        while len(result[number]) < goal[number] and position < len(groups):
            result[number].extend(groups[position])
            position += 1
    for number, spec in enumerate(specs):
        if spec.kind == "rest":
            for group in groups[position:]:
                result[number].extend(group)
            position = len(groups)
    return [sorted(indices) for indices in result]


# ----------------------------------------------------------------------- output


@dataclass
class SplitResult:
    """What was written: per output, its path and the number of examples; the seed
    used; the groups and the largest one's size; each output's size as asked
    (:func:`targets`) and as dealt; and one ``(where, line, message, fix)`` per
    input that is no example or could not be converted."""

    written: list[tuple[Path, int]]
    seed: int
    groups: int
    examples: int
    problems: list[tuple[str, int | None, str, str | None]] = field(default_factory=list)
    largest: int = 0
    asked: list[int] = field(default_factory=list)
    dealt: list[int] = field(default_factory=list)

    @property
    def unassigned(self) -> int:
        """Examples no output took (sizes under the whole and no ``rest``)."""
        return self.examples - sum(self.dealt)

    @property
    def far(self) -> bool:
        """Did some output come out far from its size: off by more than one example
        and by more than a tenth of the size asked?

        Whole groups are dealt, so a sized output overshoots by up to its last group
        (less one example) and the outputs after it fall short by as much. With many
        small groups that costs a few examples, and one example is what rounding
        costs even without groups: the ordinary price of keeping groups together,
        not worth a word. A tenth of a part is no longer that price: 89/11 for 80/20,
        when a corpus has only 14 cursor files, leaves the test part 45% short and
        its pass rate's interval a third wider than the split asked for would."""
        return any(abs(got - want) > max(1, want / 10) for want, got in zip(self.asked, self.dealt))


def existing_outputs(specs: Sequence[SplitSpec]) -> list[Path]:
    """Outputs that would overwrite something: a JSONL file that exists, a folder
    that exists and is not empty (a stale example left in it would join the split)."""
    found = []
    for spec in specs:
        out = spec.out
        if spec.jsonl:
            if out.exists():
                found.append(out)
        elif out.exists() and (not out.is_dir() or any(out.iterdir())):
            found.append(out)
    return found


def _as_json_line(record: Record) -> bytes:
    """The record as a JSONL line: as read, or a ``.md`` example rendered."""
    if record.line is not None:
        return record.data
    return json.dumps(record.fields, ensure_ascii=False).encode("utf-8")


def write_outputs(
    records: Sequence[Record],
    specs: Sequence[SplitSpec],
    assignment: Sequence[Sequence[int]],
    *,
    force: bool = False,
    inputs: Sequence[Path] = (),
) -> tuple[list[tuple[Path, int]], list[tuple[str, int | None, str, str | None]]]:
    """Write each output atomically: a JSONL file at once, a folder through
    :class:`OutputFolder` (made beside its place and renamed in, or swapped in whole
    with ``force``, never written through a link); examples that cannot be converted
    to the output's format are skipped and returned as ``(where, line, message, fix)``."""
    from .._files import write_atomic
    from ..example import from_json, safe_id, to_markdown
    from ._write import OutputFolder

    written: list[tuple[Path, int]] = []
    problems: list[tuple[str, int | None, str, str | None]] = []
    for spec, indices in zip(specs, assignment, strict=True):
        count = 0
        if spec.jsonl:
            lines = [_as_json_line(records[index]) for index in indices]
            if spec.out.parent != Path(""):
                spec.out.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(spec.out, b"".join(line + b"\n" for line in lines))
            written.append((spec.out, len(lines)))
            continue
        folder = OutputFolder(spec.out, force=force, inputs=inputs)
        names: set[str] = set()
        for index in indices:
            record = records[index]
            if record.line is None:  # a .md file: the same bytes under the same name
                folder.write(record.origin, record.data)
                count += 1
                continue
            try:
                example = from_json(record.data.decode("utf-8"), record.origin)
            except Exception as error:  # noqa: BLE001 - EditPredError or a decode error
                reason = getattr(error, "reason", None) or str(error)
                problems.append((record.origin, record.line, f"not an example, so it cannot be .md: {reason}", None))
                continue
            if example.name == (Path(record.origin).stem if record.origin != "<stdin>" else ""):
                example_name = f"{Path(record.origin).stem}-{record.line}"
            else:
                example_name = example.name
            name = safe_id(example_name) or f"example-{record.line}"
            candidate, n = name, 2
            while candidate in names:
                candidate, n = f"{name}-{n}", n + 1
            names.add(candidate)
            folder.write(f"{candidate}.md", to_markdown(example))
            count += 1
        folder.close()  # an output with no example is an empty folder, as before
        written.append((spec.out, count))
    return written, problems


def split(
    source: Path | None,
    specs: Sequence[SplitSpec],
    *,
    stratify: Stratify = "cursor-path",
    seed: int | None = None,
    force: bool = False,
    stdin: bytes | None = None,
) -> SplitResult:
    """Read, assign and write. :class:`ConfigError` for bad specs, sizes that ask for
    more than the input holds, an output that is (or is in, or holds) the input, or
    one that exists without ``force``: all before anything is written. An input that is
    no example is one problem and goes to no output. :class:`OSError` when a file
    cannot be read or written."""
    check_specs(specs)
    check_paths(source, specs)
    from ._write import output_refusal

    inputs = [source] if source is not None and str(source) != "-" else []
    for spec in specs:
        refused = output_refusal(spec.out, folder=not spec.jsonl, force=force, inputs=inputs)
        if refused is not None:
            raise ConfigError(f"{spec.out}: {refused[0]}", fix=refused[1])
    if not force:
        existing = existing_outputs(specs)
        if existing:
            raise ConfigError(
                f"{existing[0]} exists" + (f" (and {len(existing) - 1} more outputs)" if len(existing) > 1 else ""),
                fix="Name new outputs, or pass --force to write over them.",
            )
    read = read_records(source, stdin)
    records = [record for record in read if record.fields is not None]
    check_sizes(specs, len(records))
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    groups = groups_of(records, stratify)
    assignment = _deal(groups, specs, len(records), seed)
    written, problems = write_outputs(records, specs, assignment, force=force, inputs=inputs)
    base = source if source is not None and str(source) != "-" and source.is_dir() else None
    skipped = [
        (
            str(base / record.origin) if base is not None else record.origin,
            record.error_line,
            f"not an example, so it goes to no output: {record.error}",
            record.fix,
        )
        for record in read
        if record.fields is None
    ]
    return SplitResult(
        written,
        seed,
        len(groups),
        len(records),
        skipped + problems,
        largest=max(map(len, groups), default=0),
        asked=targets(specs, len(records)),
        dealt=[len(indices) for indices in assignment],
    )
