"""The HTML report as a viewer: one static page, its data embedded once, drawn on demand.

Numbers say *how much* a model got wrong; only reading the predictions says *how*.
The page lists every example, filtered and sorted, and for the one opened tells its
whole story: the prediction against the chosen expected patch as a diff with line
numbers and both cursors, the edit history, the excerpt, the prompt and the raw
answer, the metrics, the judge's answer when the run asked one (:mod:`._viewer_qa`),
the attempts, and with a baseline the earlier run's prediction beside it: under the
item's diff, the baseline's predicted edit and this run's side by side (one above
the other on a narrow screen), for the trial shown and the baseline's trial of the
same number (else its first failure, else its first).

With a baseline, an example's outcome is this run's (the baseline's for an example
only the baseline has); its repositories, tags and providers are those of both runs,
so choosing the baseline's provider lists the examples the baseline ran. The detail
pane follows the list: an item the filters hide is not shown.

The page is one file a CI job can publish and anyone can open from disk years later:
it loads nothing (a Content-Security-Policy forbids it), and its one script is
static, allowed by its hash. Record data never becomes markup: it is embedded as
JSON (``<`` escaped, so no text can close the element) and the script puts it
into the page with ``textContent`` only, so even a prediction containing
``</script>`` could not run code.

The view (filters, sort, the item opened, unified or split) lives in the URL
fragment (``#outcome=failed,error&repo=URL&tag=T&q=text&sort=delta_chr_f&dir=desc&item=NAME&view=split``):
a view can be bookmarked or linked, and a headless browser can load one. More keys:
``status=regressed,new`` (with a baseline), ``provider=P``, ``trial=N``,
``qa=acceptable,unacceptable,none,error`` and ``reverts=yes|no|unknown`` (the judge's
verdict and flag, when a record has one; ``sort=qa_confidence``),
``tab=versus|predicted|expected`` (which diff), and ``open=prompt``, ``open=raw``,
``open=history``, ``open=excerpt``, ``open=qa`` (a long reasoning), ``open=qa-raw``
(the judge's raw answer) (or several, comma-separated: ``open=prompt,raw``),
which opens those sections of the item and scrolls the first of them into view once
the item is drawn: ``#item=NAME&open=raw`` links straight to an answer. Opening or
closing a section keeps the fragment up to date.

Record data is never trusted to have its type (a report read back may come from
anywhere): :func:`page_data` rebuilds every field the page reads into the type the
script expects, and an item's diffs are rebuilt by :func:`._hunks.clean_edit_view`
(unknown line ops left out, numbers bounded, lists cut, and a note says how much was
left out). The script reads them defensively too: every walk over data is bounded by
its length and steps forward, so no record can make the page hang.

Scale: the list is built from a small *index* (name, outcome, repository, tags,
metrics, latency, the judge's verdict per record), parsed at load; everything else
an item shows (its diffs, prompt, raw answer, edit history, the judge's reasoning)
is in chunks of :data:`CHUNK` records, read only when an item is opened: plain JSON,
or gzip + base64 for a big page. The list draws only the rows on screen, so 10,000
items cost no more to open than 100.

The numbers of the summary cards are the terminal summary's (:mod:`._viewer_summary`);
the record data is rebuilt into the types the script reads by :mod:`._viewer_data`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zlib
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from html import escape
from typing import Any

from .._clip import clip, clip_prompt, prompt_text
from ._hunks import view_diffs
from ._jsonl import _scrub, _secret_values
from ._record import Record
from ._viewer_data import (
    _SCALARS,
    MAX_LIST,
    PAGE_TEXT_CHARS,
    _gc_paused,
    _items,
    _metric,
    _metrics,
    _number,
    _readable,
    _scalar,
    _strict,
    _tags,
    _text,
    _trial,
    _whole,
)
from ._viewer_qa import qa_detail, qa_entry
from ._viewer_summary import _cards, summary_of, terminal_lines

__all__ = ["CHUNK", "PAGE_TEXT_CHARS", "page_data", "render_html", "summary_of", "terminal_lines"]

CHUNK = 200
COMPRESS_ABOVE = 4_000_000  # characters of detail JSON; above, the chunks are gzipped
#: zlib's level for the chunks. Level 6 (zlib's default) makes them 7 % smaller for
#: twice the work: 2.9 s of CPU for a 10,000-item page against 1.3 s, and on two cores
#: the build would wait for it; at 5 the chunks are compressed on another core while
#: the next ones are made, and the page is built in the time of making them.
COMPRESS_LEVEL = 5

#: The metrics a card explains, in order: (field, label, format, one-line meaning).
METRICS: tuple[tuple[str, str, str, str], ...] = (
    ("delta_chr_f", "delta-chrF", "f1", "character n-gram F-score (β=0.5) of the edit against the expected one, 0–100"),
    ("delta_chr_f_precision", "chrF precision", "p", "share of the predicted edit's n-grams that were expected"),
    ("delta_chr_f_recall", "chrF recall", "p", "share of the expected edit's n-grams the prediction made"),
    ("exact_lines_f1", "exact lines F1", "p", "F1 of changed lines that match the expected ones exactly"),
    (
        "cursor_exact_match",
        "cursor exact",
        "b",
        "the predicted cursor is where the expected patch puts it; n/a when the best expected patch marks none",
    ),
    ("cursor_distance", "cursor distance", "i", "bytes between the predicted and the expected cursor"),
    ("reversal_ratio", "reversal", "p", "share of the edit that undoes the user's recent edits (lower is better)"),
    ("braces_disbalance", "braces off", "i", "unbalanced (), [] and {} the prediction leaves (lower is better)"),
    ("kept_rate", "kept rate", "p", "share of the predicted characters the expected result keeps"),
    ("recall_rate", "recall rate", "p", "share of the expected characters the prediction produced"),
    ("wrong_editable_region", "wrong region", "b", "the prediction edits outside the region the model could edit"),
    (
        "has_isolated_whitespace_changes",
        "whitespace only",
        "b",
        "the prediction changes whitespace on lines it otherwise leaves alone",
    ),
    ("inserted_tokens", "inserted tokens", "i", "tokens the prediction inserts"),
    ("deleted_tokens", "deleted tokens", "i", "tokens the prediction deletes"),
    (
        "editable_context_lines_recall",
        "context rows recall",
        "p",
        "share of the rows the expected patch edits that the context shown to the model held",
    ),
    (
        "editable_context_lines_precision",
        "context rows precision",
        "p",
        "share of the context's rows within 20 rows of an edit",
    ),
    ("editable_context_lines_f1", "context rows F1", "p", "F1 of the two above"),
    ("editable_context_files_recall", "context files recall", "p", "share of the edited files the context held"),
    ("editable_context_files_precision", "context files precision", "p", "share of the context's files edited"),
    ("retrieved_context_bytes", "context bytes", "i", "bytes of related-file excerpts given to the model"),
)
SORTABLE = ("delta_chr_f", "exact_lines_f1", "cursor_distance", "reversal_ratio", "braces_disbalance", "kept_rate")


def _detail(record: Record) -> dict[str, Any]:
    """What an opened item shows beyond its index entry: bounded in size, and of the
    types the page's script reads, whatever the record holds."""
    prompt = record.get("prompt")
    raw = record.get("raw_output")
    diffs = view_diffs(record)
    usage = record.get("usage")
    detail: dict[str, Any] = {
        "reason": _text(record.get("reason"), 20_000),
        "nodeid": _text(record.get("nodeid"), 1_000),
        "path": _text(record.get("path"), 1_000),
        "revision": _text(record.get("revision"), 200),
        "attempts": [
            {
                "ordinal": _whole(a.get("ordinal")),
                "error": _text(a.get("error"), 1_000),
                "latency": _number(a.get("latency")),
            }
            for a in _items(record.get("attempts"))
            if isinstance(a, Mapping)
        ],
        "cached": record.get("cached") is True,
        "usage": {str(k)[:200]: _scalar(v) for k, v in list(usage.items())[:MAX_LIST]}
        if isinstance(usage, Mapping)
        else {},
        "notes": [_text(n, 2_000) for n in _items(record.get("notes"))],
        "best": _whole(record.get("best_candidate")),
        "matched": _whole(record.get("matched_candidate")),
        "metrics": {
            k: _metric(v)
            for k, v in _metrics(record).items()
            if type(v) in _SCALARS or not isinstance(v, (Mapping, list))
        },
        "prompt": (
            clip(prompt_text(clip_prompt(prompt, PAGE_TEXT_CHARS)), PAGE_TEXT_CHARS) if prompt is not None else None
        ),
        "raw": clip(raw, PAGE_TEXT_CHARS) if isinstance(raw, str) else None,
        "diff": diffs,
    }
    detail["qa"], qa_notes = qa_detail(record)
    detail["notes"].extend(qa_notes)
    if record.get("expected_cursor") is False and detail["metrics"].get("cursor_exact_match") is not None:
        # Zed's metric calls a predicted cursor a miss when no cursor was expected;
        # nothing was there to miss, as the summary's cursor figures say.
        detail["metrics"]["cursor_exact_match"] = "n/a"
    patch = record.get("predicted_patch")
    if not diffs and isinstance(patch, str) and patch.strip():
        detail["patch"] = clip(patch, PAGE_TEXT_CHARS)
    malformed = diffs.get("malformed") if diffs else None
    if malformed:
        detail["notes"].append(
            f"The viewer left out {malformed} malformed part(s) of this record's diff "
            "(a line op other than ' ', '-' and '+', a value of the wrong type, a number out of range)."
        )
    # The script reads a missing key as null: leaving them out keeps 10,000 items smaller.
    return {k: v for k, v in detail.items() if v is not None}


def _pack(text: str) -> str:
    """A chunk's JSON as gzip + base64."""
    # wbits 31: a gzip stream, as DecompressionStream reads it.
    compressor = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, 31)
    return base64.b64encode(compressor.compress(text.encode("utf-8")) + compressor.flush()).decode("ascii")


def _chunk_tags(records: list[Record]) -> str:
    """The detail chunks of ``records`` as inert ``<script>`` data elements: plain JSON
    for a page under :data:`COMPRESS_ABOVE` bytes of details (readable, and searchable
    by ``grep`` like the rest of a CI log), gzip + base64 above (a third of the size).

    Each chunk is serialised once (its length once escaped for the element is told
    from its JSON: every escape is 6 characters for 1). Compressing is most of a big
    page's build, and zlib lets go of the GIL while it works: once the chunks made
    are past :data:`COMPRESS_ABOVE`, each is compressed on another core while the
    next is made (the bytes are the same)."""
    workers = os.cpu_count() or 1
    pool = ThreadPoolExecutor(max_workers=workers) if workers > 1 and len(records) > CHUNK else None
    try:
        texts: list[str] = []
        packing: list[Future[str]] = []
        raw = 0
        for start in range(0, len(records), CHUNK):
            texts.append(_json([_detail(r) for r in records[start : start + CHUNK]]))
            raw += len(texts[-1])
            if pool is not None and raw > COMPRESS_ABOVE:  # compressed for sure: start now
                try:
                    packing.extend(pool.submit(_pack, text) for text in texts[len(packing) :])
                except RuntimeError:  # no new thread at interpreter exit: the rest in this one
                    pool.shutdown()
                    pool = None
        if raw <= COMPRESS_ABOVE and raw + 5 * sum(map(_escapes, texts)) <= COMPRESS_ABOVE:
            return "".join(
                f'<script type="application/json" id="ep-chunk-{n}">{_script_safe(t)}</script>'
                for n, t in enumerate(texts)
            )
        packed = [future.result() for future in packing] + [_pack(text) for text in texts[len(packing) :]]
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return "".join(
        f'<script type="application/x-editpred-gzip" id="ep-chunk-{n}">{text}</script>' for n, text in enumerate(packed)
    )


def page_data(
    records: Sequence[Record],
    summary: Mapping[str, Any] | None = None,
    baseline: Sequence[Record] | None = None,
    terminal: Sequence[str] | None = None,
) -> tuple[dict[str, Any], list[Any]]:
    """The page's index (parsed at load) and every record's details (in the page's
    chunks, read when an item is opened).
    ``terminal``: the summary lines the terminal printed, when the caller has them
    (else they are computed again, by the terminal's code)."""
    page_index, every = _page_index(records, summary, baseline, terminal)
    return page_index, [_detail(r) for r in every]  # numbers only in metrics, made strict there


def _page_index(
    records: Sequence[Record],
    summary: Mapping[str, Any] | None,
    baseline: Sequence[Record] | None,
    terminal: Sequence[str] | None,
) -> tuple[dict[str, Any], list[Record]]:
    """The page's index, and the records (scrubbed, readable) whose details follow it."""
    from ._compare import _keys, compare

    # scrub_secrets, with the environment's secrets looked up once, not once a record.
    secrets = _secret_values()

    def scrubbed(value: Any) -> Any:
        return _scrub(value, secrets) if secrets else value

    records = [_readable(scrubbed(dict(r))) for r in records]
    base = [_readable(scrubbed(dict(r))) for r in (baseline or [])]
    summary = dict(summary) if summary else summary_of(records)
    summary = scrubbed(summary)
    every = records + base
    repos = sorted({str(r.get("repository_url")) for r in every if r.get("repository_url")})
    tags = sorted({t for r in every for t in _tags(r)})
    providers = sorted({str(r.get("provider")) for r in every if r.get("provider")})
    models = sorted({str(r.get("model")) for r in every if r.get("model")})
    metric_names = [m[0] for m in METRICS]
    keys = _keys(base, records) if base else _keys(records)

    repo_at = {r: n for n, r in enumerate(repos)}
    tag_at = {t: n for n, t in enumerate(tags)}
    provider_at = {p: n for n, p in enumerate(providers)}
    model_at = {m: n for n, m in enumerate(models)}

    def entry(index: int, record: Record, run: str) -> list[Any]:
        metrics = _metrics(record)
        return [
            index,
            str(record.get("name") or record.get("nodeid") or f"record {index}"),
            str(record.get("outcome") or "unknown"),
            repo_at[str(record["repository_url"])] if record.get("repository_url") else -1,
            [tag_at[t] for t in _tags(record)],
            provider_at[str(record["provider"])] if record.get("provider") else -1,
            model_at[str(record["model"])] if record.get("model") else -1,
            _trial(record),
            _number(record.get("latency")),
            [_metric(metrics.get(name)) for name in metric_names],
            run,
            qa_entry(record),
        ]

    items = [entry(i, r, "new") for i, r in enumerate(records)] + [
        entry(len(records) + i, r, "old") for i, r in enumerate(base)
    ]
    groups: dict[str, dict[str, Any]] = {}
    for index, record in enumerate(every):
        key = keys[id(record)]
        group = groups.setdefault(key, {"key": key, "items": [], "base": []})
        (group["items"] if index < len(records) else group["base"]).append(index)
    for group in groups.values():
        group["items"].sort(key=lambda i: items[i][7])
        group["base"].sort(key=lambda i: items[i][7])
    comparison: dict[str, Any] | None = None
    if baseline is not None:
        result = compare(base, records)
        comparison = result.to_dict()
        comparison["confidence"] = result.confidence
        comparison["old_examples"] = result.old_examples
        comparison["new_examples"] = result.new_examples
        for change in comparison["changes"]:
            if change["name"] in groups:
                groups[change["name"]]["status"] = change["status"]
                groups[change["name"]]["change"] = change
    terminal = list(terminal) if terminal is not None else terminal_lines(records, summary)
    page_index = {
        "version": 1,
        "repos": repos,
        "tags": tags,
        "providers": providers,
        "models": models,
        "metrics": [{"name": m[0], "label": m[1], "format": m[2], "meaning": m[3]} for m in METRICS],
        "sortable": [m for m in SORTABLE],
        "items": items,
        "groups": sorted(groups.values(), key=lambda g: g["key"]),
        "chunk": CHUNK,
        "cards": _strict(_cards(records, summary, terminal)),
        "terminal": terminal,
        "summary": _strict({k: v for k, v in summary.items() if not isinstance(v, (dict, list))}),
        "comparison": _strict(comparison),
        "trials": max((items[i][7] for i in range(len(records))), default=1),
    }
    return page_index, every


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)


_UNSAFE = ("<", ">", "&", "\u2028", "\u2029")


def _escapes(text: str) -> int:
    """How many characters :func:`_script_safe` escapes in ``text``."""
    return sum(text.count(c) for c in _UNSAFE)


def _script_safe(text: str) -> str:
    """JSON text that cannot end its ``<script>`` element nor open a comment in it."""
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _json_for_script(value: Any) -> str:
    """JSON that cannot end its ``<script>`` element nor open a comment in it."""
    return _script_safe(_json(value))


def _script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def render_html(
    records: Sequence[Record],
    summary: Mapping[str, Any] | None = None,
    title: str = "Edit-prediction report",
    *,
    baseline: Sequence[Record] | None = None,
    terminal: Sequence[str] | None = None,
) -> str:
    """The whole report page as one string (write it with ``encoding="utf-8"``).

    ``baseline``: the records of an earlier run, to show the comparison with it;
    ``terminal``: the summary lines the terminal printed, so their intervals are not
    computed again.

    ``records`` are :class:`~pytest_editpred.reports.Record` values (``record_of``, or a
    JSONL report read back). An item's diffs come from its ``diff``
    field (:func:`~pytest_editpred.reports.edit_view`: the file's own line
    numbers, the edit history, the excerpt), else from ``expected_view`` /
    ``predicted_view`` (``{path, before, expected | predicted}`` windows with the
    cursor drawn as ``‸``), else the predicted patch. ``summary`` is the run's
    (SummaryJson fields plus ``passed``/``failed``/``error``/``skipped``/``total``/
    ``pass_rate``); without it, :func:`summary_of` computes it from the records as
    the run does. Secret-looking environment values are scrubbed from everything
    shown.
    """
    with _gc_paused():
        return _page(records, summary, title, baseline, terminal)


def _page(
    records: Sequence[Record],
    summary: Mapping[str, Any] | None,
    title: str,
    baseline: Sequence[Record] | None,
    terminal: Sequence[str] | None,
) -> str:
    from ._viewer_assets import CSS, JS

    index, every = _page_index(records, summary, baseline, terminal)
    who = sorted(
        {" / ".join(dict.fromkeys(str(x) for x in (r.get("provider"), r.get("model")) if x)) for r in records} - {""}
    )
    compared = [f"compared with a baseline of {len(baseline)}"] if baseline is not None else []
    subtitle = " · ".join([*who, f"{len(records)} predictions", *compared])
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src '{_script_hash(JS)}'; img-src data:; base-uri 'none'; form-action 'none'"
    )
    chunk_tags = _chunk_tags(every)

    def e(value: object) -> str:
        return escape(str(value), quote=True)

    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}</style></head>\n"
        '<body><a class="skip" href="#list">Skip to the items</a><div class="page">'
        f'<header class="top"><h1>{e(title)}</h1><p class="sub">{e(subtitle)}</p>'
        '<section id="cards" class="tiles" aria-label="Summary"></section>'
        '<section id="compare" aria-label="Comparison with the baseline" hidden></section></header>'
        '<nav id="filters" class="filters" aria-label="Filters and sorting"></nav>'
        '<div id="main" class="main"><div id="list-pane" class="list-pane">'
        '<div id="list" class="list" role="listbox" tabindex="0" aria-label="Items"><div id="spacer"></div></div></div>'
        '<article id="detail" class="card" aria-live="polite" tabindex="-1">'
        '<p class="muted">Select an item.</p></article></div>'
        '<p class="keys">Keys: <kbd>j</kbd>/<kbd>k</kbd> or <kbd>↓</kbd>/<kbd>↑</kbd> next/previous item, '
        "<kbd>n</kbd>/<kbd>p</kbd> next/previous failure or error, <kbd>/</kbd> search, "
        "<kbd>u</kbd> unified/split, <kbd>Esc</kbd> back to the list.</p>"
        f'</div><script type="application/json" id="ep-index">{_json_for_script(index)}</script>'
        f"<script>{JS}</script>{chunk_tags}</body></html>\n"
    )
