"""The HTML report as a viewer: one static page, its data embedded once, drawn on demand.

Numbers say *how much* a model got wrong; only reading the predictions says *how*.
The page lists every example, filtered and sorted, and for the one opened tells its
whole story: the prediction against the chosen expected patch as a diff with line
numbers and both cursors, the edit history, the excerpt, the prompt and the raw
answer, the metrics, the attempts, and with a baseline the earlier run's prediction
beside it.

The page is one file a CI job can publish and anyone can open from disk years later:
it loads nothing (a Content-Security-Policy forbids it), and its one script is
static, allowed by its hash. Record data never becomes markup: it is embedded as
JSON (``<`` escaped, so no text can close the element) and the script puts it
into the page with ``textContent`` only, so even a prediction containing
``</script>`` could not run code.

The view (filters, sort, the item opened, unified or split) lives in the URL
fragment (``#outcome=failed,error&repo=URL&tag=T&q=text&sort=delta_chr_f&dir=desc&item=NAME&view=split``):
a view can be bookmarked or linked, and a headless browser can load one.

Scale: the list is built from a small *index* (name, outcome, repository, tags,
metrics, latency per record), parsed at load; everything else an item shows (its
diffs, prompt, raw answer, edit history) is in chunks of :data:`CHUNK` records,
read only when an item is opened: plain JSON, or gzip + base64 for a big page.
The list draws only the rows on screen, so 10,000 items cost no more to open than
100.

The numbers of the summary cards are the terminal summary's: the same counts and
:class:`Summary` (given by the run, or :func:`summary_of` for a JSONL file read
later), and the intervals and denominators of the terminal's own summary lines
(computed once, by the terminal's code, and shown verbatim too).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import statistics
import zlib
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, cast

from .._clip import clip, clip_prompt, prompt_text
from ._hunks import view_diffs
from ._jsonl import scrub_secrets
from ._lines import cursor_rate_line, rates_line, trial_lines
from ._record import Record

__all__ = ["CHUNK", "PAGE_TEXT_CHARS", "page_data", "render_html", "summary_of", "terminal_lines"]

CHUNK = 200
COMPRESS_ABOVE = 4_000_000  # characters of detail JSON; above, the chunks are gzipped
PAGE_TEXT_CHARS = 4_000  # of a prompt or a raw answer, in the page (the JSONL keeps more)
OUTCOMES = ("error", "failed", "passed", "skipped")

#: The metrics a card explains, in order: (field, label, format, one-line meaning).
METRICS: tuple[tuple[str, str, str, str], ...] = (
    ("delta_chr_f", "delta-chrF", "f1", "character n-gram F-score (β=0.5) of the edit against the expected one, 0–100"),
    ("delta_chr_f_precision", "chrF precision", "p", "share of the predicted edit's n-grams that were expected"),
    ("delta_chr_f_recall", "chrF recall", "p", "share of the expected edit's n-grams the prediction made"),
    ("exact_lines_f1", "exact lines F1", "p", "F1 of changed lines that match the expected ones exactly"),
    ("cursor_exact_match", "cursor exact", "b", "the predicted cursor is where the expected patch puts it"),
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


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _metrics(record: Record) -> dict[str, object]:
    """The record's metrics, their exact-lines F1 (which the record does not keep),
    and the context coverage's members as flat ``editable_context_*`` numbers."""
    metrics: dict[str, object] = dict(record.get("metrics") or {})
    coverage = metrics.get("editable_context_coverage")
    if isinstance(coverage, dict):
        metrics.update((f"editable_context_{key}", value) for key, value in coverage.items())
    tp, fp, fn = (_number(metrics.get(f"exact_lines_{k}")) for k in ("tp", "fp", "fn"))
    if tp is not None and fp is not None and fn is not None and "exact_lines_f1" not in metrics:
        metrics["exact_lines_f1"] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return metrics


# --------------------------------------------------------------------------- summary


def summary_of(records: Sequence[Record]) -> dict[str, Any]:
    """The run summary of ``records``, as the plugin computes it at the end of a run:
    Zed's SummaryJson over the scored predictions, plus the outcome counts, ``total``
    (the predictions that ran: skipped ones left out) and ``pass_rate`` (errors count
    as not passed). For a JSONL file read after the run, or several (shards)."""
    from ..metrics import PredictionScore
    from ._summary import Summary

    counts = {k: sum(r.get("outcome") == k for r in records) for k in ("passed", "failed", "error", "skipped")}
    total = len(records) - counts["skipped"]
    data: dict[str, Any] = {}
    scores = [PredictionScore.from_dict(r["metrics"]) for r in records if r.get("metrics")]
    if scores:
        try:
            data.update(Summary.from_scores(scores).to_summary_json())
        except (TypeError, ValueError):  # records of an older version, metrics incomplete
            pass
    data.update(counts, total=total, pass_rate=counts["passed"] / total if total else None)
    return data


def terminal_lines(records: Sequence[Record], summary: Mapping[str, Any]) -> list[str]:
    """The rates, cursor and trials lines of the terminal summary, by the terminal's
    own code (:mod:`._lines`: so the page cannot disagree with it, and the intervals
    are computed once)."""
    # A record read from a file of elsewhere may lack the fields the lines count by.
    plain = [
        cast(
            Record,
            dict(r, metrics=r.get("metrics") or {}, nodeid=str(r.get("nodeid") or ""), outcome=str(r.get("outcome"))),
        )
        for r in records
    ]
    lines: list[str] = []
    try:
        lines.append(rates_line(plain, dict(summary)))
        cursor = cursor_rate_line(plain)
        if cursor:
            lines.append(cursor)
        lines.extend(trial_lines(plain))
    except (KeyError, TypeError, ValueError):  # a summary from elsewhere lacking a count
        pass
    return lines


_NUMBER = r"(-?[\d.]+)"
_PASS = re.compile(rf"pass rate {_NUMBER}%(?: of (\d+))? \[95% CI {_NUMBER}-{_NUMBER}([^\]]*)\]")
_CHRF = re.compile(rf"mean delta-chrF {_NUMBER}(?: over (\d+) scored)?(?: \[95% CI {_NUMBER}-{_NUMBER}[^\]]*\])?")
_CURSOR = re.compile(rf"cursor exact match {_NUMBER}% \((\d+) of (\d+) ([^)]*)\)")


def _cards(records: Sequence[Record], summary: Mapping[str, Any], terminal: Sequence[str]) -> dict[str, Any]:
    """The numbers of the summary cards, each with its denominator: the counts and
    Summary fields of ``summary``, the intervals as the terminal printed them."""

    def count(key: str) -> int:
        value = summary.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return sum(1 for r in records if r.get("outcome") == key)

    counts = {k: count(k) for k in OUTCOMES}
    total = summary.get("total")
    if not isinstance(total, int) or isinstance(total, bool):
        total = len(records) - counts["skipped"]
    cards: dict[str, Any] = {"counts": counts, "total": total, "records": len(records)}
    rates = terminal[0] if terminal else ""
    if total:
        cards["pass_rate"] = {"estimate": counts["passed"] / total, "low": None, "high": None, "note": ""}
        found = _PASS.search(rates)
        if found:
            cards["pass_rate"].update(low=float(found[3]) / 100, high=float(found[4]) / 100, note=found[5].strip(" ,"))
    scored = [r for r in records if (r.get("metrics") or {}).get("delta_chr_f") is not None]
    cards["scored"] = len(scored)
    if scored:
        avg = _number(summary.get("avg_delta_chr_f"))
        cards["delta_chr_f"] = {"estimate": avg, "low": None, "high": None}
        found = _CHRF.search(rates)
        if found:
            cards["delta_chr_f"]["estimate"] = float(found[1])
            if found[3] is not None:
                cards["delta_chr_f"].update(low=float(found[3]), high=float(found[4]))
        excluded = rates.rsplit("; ", 1)[-1] if rates.endswith("excluded") else ""
        cards["excluded"] = excluded
    for key in (
        "cursor_exact_match_rate",
        "cursor_total_evaluated",
        "cursor_avg_distance",
        "exact_lines_f1",
        "exact_lines_precision",
        "exact_lines_recall",
        "avg_reversal_ratio",
        "avg_kept_rate",
        "wrong_editable_region_rate",
        "total_examples",
    ):
        if summary.get(key) is not None:
            cards[key] = summary[key]
    cursor = next((m for m in map(_CURSOR.search, terminal) if m), None)
    if cursor:
        cards["cursor"] = {
            "rate": float(cursor[1]) / 100,
            "exact": int(cursor[2]),
            "of": int(cursor[3]),
            "which": cursor[4],
        }
    elif "cursor_exact_match_rate" in cards:
        exact = sum(1 for r in records if (r.get("metrics") or {}).get("cursor_exact_match") is True)
        cards["cursor"] = {
            "rate": cards["cursor_exact_match_rate"],
            "exact": exact,
            "of": cards.get("cursor_total_evaluated"),
            "which": "with an expected cursor",
        }
    latencies = sorted(v for v in (_number(r.get("latency")) for r in records) if v is not None)
    if latencies:
        cards["latency_median"] = statistics.median(latencies)
        cards["latency_p90"] = latencies[min(len(latencies) - 1, math.floor(0.9 * (len(latencies) - 1) + 0.5))]
        cards["latency_n"] = len(latencies)
    return cards


# --------------------------------------------------------------------------- data


def _detail(record: Record) -> dict[str, Any]:
    """What an opened item shows beyond its index entry: bounded in size."""
    prompt = record.get("prompt")
    raw = record.get("raw_output")
    diffs = view_diffs(record)
    detail: dict[str, Any] = {
        "reason": record.get("reason"),
        "nodeid": record.get("nodeid"),
        "path": record.get("path"),
        "revision": record.get("revision"),
        "attempts": [
            {"ordinal": a.get("ordinal"), "error": a.get("error"), "latency": _number(a.get("latency"))}
            for a in (record.get("attempts") or [])
            if isinstance(a, Mapping)
        ][:20],
        "cached": bool(record.get("cached")),
        "usage": record.get("usage") if isinstance(record.get("usage"), Mapping) else {},
        "notes": [str(n) for n in (record.get("notes") or [])][:20],
        "best": record.get("best_candidate"),
        "matched": record.get("matched_candidate"),
        "metrics": {k: _strict(v) for k, v in _metrics(record).items() if not isinstance(v, (dict, list))},
        "prompt": (
            clip(prompt_text(clip_prompt(prompt, PAGE_TEXT_CHARS)), PAGE_TEXT_CHARS) if prompt is not None else None
        ),
        "raw": clip(raw, PAGE_TEXT_CHARS) if isinstance(raw, str) else None,
        "diff": diffs,
    }
    patch = record.get("predicted_patch")
    if not diffs and isinstance(patch, str) and patch.strip():
        detail["patch"] = clip(patch, PAGE_TEXT_CHARS)
    return detail


def _pack(values: list[Any]) -> str:
    raw = json.dumps(values, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str).encode("utf-8")
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip stream, as DecompressionStream reads it
    return base64.b64encode(compressor.compress(raw) + compressor.flush()).decode("ascii")


def _chunk_tags(details: list[Any]) -> str:
    """The detail chunks as inert ``<script>`` data elements: plain JSON for a page
    under :data:`COMPRESS_ABOVE` bytes of details (readable, and searchable by
    ``grep`` like the rest of a CI log), gzip + base64 above (a third of the size)."""
    parts = [details[i : i + CHUNK] for i in range(0, len(details), CHUNK)]
    texts = [_json_for_script(part) for part in parts]
    if sum(len(t) for t in texts) <= COMPRESS_ABOVE:
        return "".join(f'<script type="application/json" id="ep-chunk-{n}">{t}</script>' for n, t in enumerate(texts))
    return "".join(
        f'<script type="application/x-editpred-gzip" id="ep-chunk-{n}">{_pack(part)}</script>'
        for n, part in enumerate(parts)
    )


def _strict(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


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
    from ._compare import _keys, compare

    records = [scrub_secrets(dict(r)) for r in records]
    base = [scrub_secrets(dict(r)) for r in (baseline or [])]
    summary = dict(summary) if summary else summary_of(records)
    summary = scrub_secrets(summary)
    every = records + base
    repos = sorted({str(r.get("repository_url")) for r in every if r.get("repository_url")})
    tags = sorted({str(t) for r in every for t in (r.get("tags") or ())})
    providers = sorted({str(r.get("provider")) for r in every if r.get("provider")})
    models = sorted({str(r.get("model")) for r in every if r.get("model")})
    metric_names = [m[0] for m in METRICS]
    keys = _keys(base, records) if base else _keys(records)

    def entry(index: int, record: Record, run: str) -> list[Any]:
        metrics = _metrics(record)
        trial = record.get("trial")
        return [
            index,
            str(record.get("name") or record.get("nodeid") or f"record {index}"),
            str(record.get("outcome") or "unknown"),
            repos.index(str(record["repository_url"])) if record.get("repository_url") else -1,
            [tags.index(str(t)) for t in (record.get("tags") or ())],
            providers.index(str(record["provider"])) if record.get("provider") else -1,
            models.index(str(record["model"])) if record.get("model") else -1,
            trial if isinstance(trial, int) else 1,
            _number(record.get("latency")),
            [
                _strict(metrics.get(name)) if not isinstance(metrics.get(name), (dict, list)) else None
                for name in metric_names
            ],
            run,
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
    details = [_detail(r) for r in every]  # numbers only in metrics, made strict there
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
    return page_index, details


def _json_for_script(value: Any) -> str:
    """JSON that cannot end its ``<script>`` element nor open a comment in it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


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
    from ._viewer_assets import CSS, JS

    index, details = page_data(records, summary, baseline, terminal)
    who = sorted(
        {" / ".join(dict.fromkeys(str(x) for x in (r.get("provider"), r.get("model")) if x)) for r in records} - {""}
    )
    compared = [f"compared with a baseline of {len(baseline)}"] if baseline is not None else []
    subtitle = " · ".join([*who, f"{len(records)} predictions", *compared])
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src '{_script_hash(JS)}'; img-src data:; base-uri 'none'; form-action 'none'"
    )
    chunk_tags = _chunk_tags(details)

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
