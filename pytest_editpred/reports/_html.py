"""The HTML report: one self-contained page to review a run by eye.

Numbers say *how much* a model got wrong; only reading the predictions says *how*.
The page puts each prediction next to the best expected result (Zed's rule), with the cursor
marked, and lets a reviewer narrow the run down by outcome, repository, tag and
name.

Self-contained on purpose: the page is a CI artifact opened from disk, perhaps
years later, so it loads nothing (no fonts, no scripts, no images) and a
Content-Security-Policy forbids it to. All record data lives in escaped HTML text
and attributes; the one script is static and allowed by its hash only, so even a
prediction containing ``<script>`` could not run code if escaping ever failed.

Filters are plain JS over ``data-outcome``/``data-repo``/``data-tags``/``data-name``
attributes of the cards, and they are mirrored in the URL fragment
(``#outcome=failed,error&repo=URL&tag=T&q=text``): a filtered view can be
bookmarked or linked, and a headless browser can load one.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from .._stats import wilson_interval
from ._jsonl import scrub_secrets

__all__ = ["CURSOR", "OUTCOMES", "render_html"]

CURSOR = "\u2038"  # ‸, how the lead's views draw the cursor
OUTCOMES = ("error", "failed", "passed", "skipped")  # also the card order


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _fmt(value: Any, digits: int = 1, suffix: str = "") -> str:
    number = _number(value)
    return "–" if number is None else f"{number:.{digits}f}{suffix}"


def _percent(value: Any, digits: int = 0) -> str:
    number = _number(value)
    return "–" if number is None else f"{100 * number:.{digits}f}%"


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _repo_label(url: str) -> str:
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return tail[:-4] if tail.endswith(".git") else (tail or url)


# --------------------------------------------------------------------------- summary


def _counts(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = {outcome: 0 for outcome in OUTCOMES}
    for record in records:
        outcome = str(record.get("outcome") or "unknown")
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def _metric_values(records: Sequence[Mapping[str, Any]], name: str) -> list[float]:
    values = []
    for record in records:
        value = _number((record.get("metrics") or {}).get(name))
        if value is not None:
            values.append(value)
    return values


def _tile(label: str, value: str, note: str = "", kind: str = "") -> str:
    note_html = f'<span class="note">{_e(note)}</span>' if note else ""
    return (
        f'<div class="tile {_e(kind)}"><span class="label">{_e(label)}</span>'
        f'<span class="value">{_e(value)}</span>{note_html}</div>'
    )


def _summary_html(records: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> str:
    """The header tiles; each number comes from ``summary`` when given there, else
    from the records (so a page renders from records alone)."""
    counts = _counts(records)
    total = summary.get("total")
    total = total if isinstance(total, int) and not isinstance(total, bool) else len(records)
    outcome_counts = {}
    for outcome in OUTCOMES:
        given = summary.get(outcome)
        outcome_counts[outcome] = given if isinstance(given, int) and not isinstance(given, bool) else counts[outcome]
    passed = outcome_counts["passed"]
    rate = _number(summary.get("pass_rate"))
    if rate is None and total:
        rate = passed / total
    note = ""
    if total and 0 <= passed <= total:
        interval = wilson_interval(passed, total)
        note = f"95% CI {100 * interval.low:.0f}–{100 * interval.high:.0f}%"
    parts = [f"{outcome_counts[o]} {o}" for o in ("passed", "failed", "error", "skipped") if outcome_counts[o]]
    chrf = _number(summary.get("avg_delta_chr_f"))
    if chrf is None:
        chrf = _mean(_metric_values(records, "delta_chr_f"))
    cursor = _number(summary.get("cursor_exact_match_rate"))
    cursor_note = ""
    if cursor is None:
        exact = [r for r in records if isinstance((r.get("metrics") or {}).get("cursor_exact_match"), bool)]
        if exact:
            cursor = sum(1 for r in exact if r["metrics"]["cursor_exact_match"]) / len(exact)
            cursor_note = f"of {len(exact)} with a cursor"
    elif isinstance(summary.get("cursor_total_evaluated"), int):
        cursor_note = f"of {summary['cursor_total_evaluated']} with a cursor"
    tiles = [
        _tile("Pass rate", _percent(rate, 1), note, "primary"),
        _tile("Predictions", str(total), ", ".join(parts)),
        _tile("Avg delta-chrF", _fmt(chrf, 1), "0–100, higher is better"),
        _tile("Cursor exact match", _percent(cursor), cursor_note),
    ]
    f1 = _number(summary.get("exact_lines_f1"))
    if f1 is not None:
        tiles.append(_tile("Exact lines F1", _fmt(f1, 2)))
    latencies = sorted(v for v in (_number(r.get("latency")) for r in records) if v is not None)
    if latencies:
        tiles.append(_tile("Median latency", f"{latencies[len(latencies) // 2]:.2f} s"))
    rows = "".join(f"<tr><th>{_e(key)}</th><td>{_e(_plain(value))}</td></tr>" for key, value in summary.items())
    table = (
        f'<details class="all-fields"><summary>All summary fields</summary><table>{rows}</table></details>'
        if rows
        else ""
    )
    return f'<section class="tiles">{"".join(tiles)}</section>{table}'


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "–" if value is None else str(value)


# --------------------------------------------------------------------------- filters


def _filters_html(records: Sequence[Mapping[str, Any]]) -> str:
    counts = _counts(records)
    # Only the outcomes that occur, but every one that does: a card whose outcome
    # had no checkbox could never be shown.
    present = [o for o in OUTCOMES if counts.get(o)] + sorted(o for o in counts if o not in OUTCOMES)
    boxes = "".join(
        f'<label class="check {_e(outcome)}"><input type="checkbox" name="outcome" value="{_e(outcome)}" checked>'
        f' {_e(outcome)} <span class="count">{counts[outcome]}</span></label>'
        for outcome in present
    )
    repos = sorted({str(r.get("repository_url")) for r in records if r.get("repository_url")})
    tags = sorted({str(t) for r in records for t in (r.get("tags") or ())})
    repo_options = "".join(f'<option value="{_e(url)}">{_e(_repo_label(url))}</option>' for url in repos)
    tag_options = "".join(f'<option value="{_e(tag)}">{_e(tag)}</option>' for tag in tags)
    return (
        '<nav class="filters" aria-label="Filters">'
        f'<fieldset class="outcomes"><legend>Outcome</legend>{boxes}</fieldset>'
        '<label class="field">Repository <select id="f-repo"><option value="">all</option>'
        f"{repo_options}</select></label>"
        f'<label class="field">Tag <select id="f-tag"><option value="">all</option>{tag_options}</select></label>'
        '<label class="field grow">Name <input id="f-search" type="search" placeholder="filter by name…"></label>'
        f'<span class="shown">showing <b id="shown">{len(records)}</b> of {len(records)}</span>'
        "</nav>"
    )


# --------------------------------------------------------------------------- cards


def _code_line(line: str) -> str:
    return _e(line).replace(CURSOR, f'<mark class="cursor" title="cursor">{CURSOR}</mark>')


def _lines(text: str) -> list[str]:
    """Lines of ``text``; a final newline ends the last line rather than adding one."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def _side(lines: Sequence[str], changed: set[int]) -> str:
    if not lines:
        return '<span class="line empty">(empty)</span>'
    return "".join(
        f'<span class="line{" chg" if index in changed else ""}">{_code_line(line) or " "}</span>'
        for index, line in enumerate(lines)
    )


def _changed_lines(a: Sequence[str], b: Sequence[str]) -> tuple[set[int], set[int]]:
    """Lines of ``a`` and of ``b`` that the other side lacks, the cursor ignored,
    so the highlight shows a difference of text, not of cursor position."""
    matcher = difflib.SequenceMatcher(
        None, [x.replace(CURSOR, "") for x in a], [y.replace(CURSOR, "") for y in b], autojunk=False
    )
    left: set[int] = set()
    right: set[int] = set()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            left.update(range(i1, i2))
            right.update(range(j1, j2))
    return left, right


def _view_text(view: Any, key: str) -> str | None:
    """The ``key`` text of a view dict; a bare string is the text itself."""
    if isinstance(view, str):
        return view
    if isinstance(view, Mapping):
        value = view.get(key)
        if value is None:
            value = view.get("text")
        return value if isinstance(value, str) else None
    return None


def _views_html(record: Mapping[str, Any]) -> str:
    expected_view = record.get("expected_view")
    predicted_view = record.get("predicted_view")
    expected = _view_text(expected_view, "expected")
    predicted = _view_text(predicted_view, "predicted")
    if expected is None and predicted is None:
        return ""
    paths = [v.get("path") if isinstance(v, Mapping) else None for v in (expected_view, predicted_view)]
    path = paths[0] or paths[1]
    # A prediction can edit another file than expected: then each column says which.
    split = bool(paths[0] and paths[1] and paths[0] != paths[1])
    before = next(
        (v.get("before") for v in (predicted_view, expected_view) if isinstance(v, Mapping) and v.get("before")),
        None,
    )
    left = _lines(expected or "")
    right = _lines(predicted or "")
    left_changed, right_changed = _changed_lines(left, right)
    candidate = record.get("best_candidate") or record.get("closest_candidate") or record.get("matched_candidate")
    expected_label = "Expected" + (f" (candidate {candidate})" if candidate else "")
    predicted_label = "Predicted"
    if split:
        expected_label += f" · {paths[0]}"
        predicted_label += f" · {paths[1]}"
    expected_html = _side(left, left_changed) if expected is not None else '<span class="line empty">(none)</span>'
    predicted_html = _side(right, right_changed) if predicted is not None else '<span class="line empty">(none)</span>'
    path_html = f'<div class="path">{_e(path)}</div>' if path and not split else ""
    before_html = (
        f'<details><summary>Before the edit</summary><pre class="code">{_side(_lines(before), set())}</pre></details>'
        if isinstance(before, str)
        else ""
    )
    return (
        f'{path_html}<div class="views">'
        f'<figure><figcaption>{_e(expected_label)}</figcaption><pre class="code">{expected_html}</pre></figure>'
        f'<figure><figcaption>{_e(predicted_label)}</figcaption><pre class="code">{predicted_html}</pre></figure>'
        f"</div>{before_html}"
    )


def _patch_html(patch: str) -> str:
    lines = []
    for line in _lines(patch):
        kind = ""
        if line.startswith(("+++", "---")):
            kind = " head"
        elif line.startswith("+"):
            kind = " add"
        elif line.startswith("-"):
            kind = " del"
        elif line.startswith("@@"):
            kind = " hunk"
        lines.append(f'<span class="line{kind}">{_code_line(line) or " "}</span>')
    return f'<pre class="code diff">{"".join(lines)}</pre>'


_METRICS: tuple[tuple[str, str, str], ...] = (
    # (field, label, format): "f1" one decimal, "p" percent, "i" integer, "b" yes/no
    ("delta_chr_f", "delta-chrF", "f1"),
    ("delta_chr_f_precision", "chrF precision", "p"),
    ("delta_chr_f_recall", "chrF recall", "p"),
    ("cursor_exact_match", "cursor exact", "b"),
    ("cursor_distance", "cursor distance", "i"),
    ("reversal_ratio", "reversal", "p"),
    ("braces_disbalance", "braces off", "i"),
    ("kept_rate", "kept rate", "p"),
    ("wrong_editable_region", "wrong region", "b"),
)


def _metrics_html(metrics: Mapping[str, Any]) -> str:
    items = []
    for field, label, kind in _METRICS:
        if field not in metrics or metrics[field] is None:
            continue
        value = metrics[field]
        if kind == "b":
            text = "yes" if value else "no"
        elif kind == "p":
            text = _percent(value)
        elif kind == "i":
            text = _fmt(value, 0)
        else:
            text = _fmt(value, 1)
        items.append(f"<div><dt>{_e(label)}</dt><dd>{_e(text)}</dd></div>")
    tp, fp, fn = (_number(metrics.get(f"exact_lines_{k}")) for k in ("tp", "fp", "fn"))
    if tp is not None and fp is not None and fn is not None:
        items.insert(3, f"<div><dt>exact lines</dt><dd>{tp:.0f} right, {fp:.0f} extra, {fn:.0f} missed</dd></div>")
    return f'<dl class="metrics">{"".join(items)}</dl>' if items else ""


def _card_html(index: int, record: Mapping[str, Any]) -> str:
    outcome = str(record.get("outcome") or "unknown")
    name = str(record.get("name") or record.get("nodeid") or f"record {index}")
    repo = str(record.get("repository_url") or "")
    tags = [str(t) for t in (record.get("tags") or ())]
    trial = record.get("trial")
    who = " / ".join(str(x) for x in (record.get("provider"), record.get("model")) if x)
    facts = [who] if who else []
    latency = _number(record.get("latency"))
    if latency is not None:
        facts.append(f"{latency:.2f} s")
    if record.get("cached"):
        facts.append("cached")
    attempts = record.get("attempts") or []
    if len(attempts) > 1:
        facts.append(f"{len(attempts)} attempts")
    trial_html = f'<span class="trial">trial {_e(trial)}</span>' if isinstance(trial, int) and trial > 1 else ""
    reason = record.get("reason")
    reason_html = f'<p class="reason">{_e(reason)}</p>' if reason else ""
    failed_attempts = [a for a in attempts if isinstance(a, Mapping) and a.get("error")]
    attempts_html = (
        '<ul class="attempts">'
        + "".join(
            f"<li>attempt {_e(a.get('ordinal'))}: {_e(a.get('error'))} ({_fmt(a.get('latency'), 2)} s)</li>"
            for a in failed_attempts
        )
        + "</ul>"
        if failed_attempts
        else ""
    )
    views = _views_html(record)
    patch = record.get("predicted_patch")
    text = record.get("predicted_text")
    if isinstance(patch, str) and patch.strip():
        raw = _patch_html(patch)
        body = views + (f"<details><summary>Predicted patch</summary>{raw}</details>" if views else raw)
    elif views:
        body = views
    elif isinstance(text, str) and text:
        body = f'<pre class="code">{_side(_lines(text), set())}</pre>'
    else:
        body = '<p class="muted">No prediction.</p>'
    revision = str(record.get("revision") or "")
    where = [str(record.get("nodeid") or record.get("path") or "")]
    if repo:
        where.append(f"{_repo_label(repo)}@{revision[:10]}" if revision else _repo_label(repo))
    tags_html = "".join(f'<span class="tag">{_e(t)}</span>' for t in tags)
    return (
        f'<article class="card {_e(outcome)}" id="r{index}" data-outcome="{_e(outcome)}" data-repo="{_e(repo)}" '
        f'data-tags="{_e(json.dumps(tags, ensure_ascii=False))}" data-name="{_e(name.lower())}">'
        f'<header class="card-head"><span class="badge {_e(outcome)}">{_e(outcome)}</span>'
        f"<h2>{_e(name)}</h2>{trial_html}"
        f'<span class="facts">{_e(" · ".join(facts))}</span></header>'
        f"{reason_html}{attempts_html}{_metrics_html(record.get('metrics') or {})}{body}"
        f'<footer class="where">{_e("  ·  ".join(w for w in where if w))}{tags_html}</footer>'
        "</article>"
    )


def _sort_key(record: Mapping[str, Any]) -> tuple[int, str, int]:
    """Problems first (errors, then failures), then by name and trial."""
    outcome = str(record.get("outcome"))
    rank = OUTCOMES.index(outcome) if outcome in OUTCOMES else len(OUTCOMES)
    trial = record.get("trial")
    return rank, str(record.get("name") or ""), trial if isinstance(trial, int) else 0


# --------------------------------------------------------------------------- page

_CSS = """
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2329;--muted:#66707a;--line:#dde1e6;--code:#f3f5f7;
--pass:#1a7f37;--pass-bg:#dafbe1;--fail:#cf222e;--fail-bg:#ffebe9;--err:#9a6700;--err-bg:#fff8c5;
--skip:#57606a;--skip-bg:#eaeef2;--chg:#fff5d6;--accent:#0969da;--mark:#ffd33d}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--ink:#e6edf3;--muted:#8d96a0;
--line:#30363d;--code:#0d1117;--pass:#3fb950;--pass-bg:#12261e;--fail:#f85149;--fail-bg:#2d1214;
--err:#d29922;--err-bg:#2b2111;--skip:#8d96a0;--skip-bg:#21262d;--chg:#2b2410;--accent:#4493f8;--mark:#9e6a03}}
*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,sans-serif}
.page{max-width:1280px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:20px;margin:0 0 2px}.sub{color:var(--muted);margin:0 0 14px}
.tiles{display:flex;flex-wrap:wrap;gap:10px}
.tile{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:150px;
display:flex;flex-direction:column}
.tile .label{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.tile .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}
.tile.primary .value{color:var(--accent)}.tile .note{font-size:12px;color:var(--muted)}
.all-fields{margin-top:8px;color:var(--muted)}.all-fields table{border-collapse:collapse;margin-top:6px;font-size:12px}
.all-fields th{text-align:left;font-weight:500;padding:1px 12px 1px 0}.all-fields td{font-family:ui-monospace,
SFMono-Regular,Menlo,Consolas,monospace}
.filters{position:sticky;top:0;z-index:1;display:flex;flex-wrap:wrap;align-items:center;gap:10px 18px;
margin:16px 0;padding:10px 14px;background:var(--card);border:1px solid var(--line);border-radius:8px}
.filters fieldset{border:0;margin:0;padding:0;display:flex;gap:10px;align-items:center}
.filters legend{float:left;margin-right:4px;color:var(--muted)}
.check{display:inline-flex;align-items:center;gap:4px;cursor:pointer}
.count{font-size:12px;color:var(--muted)}
.field{display:inline-flex;align-items:center;gap:6px;color:var(--muted)}.field.grow{flex:1;min-width:180px}
.field.grow input{flex:1}
select,input[type=search]{font:inherit;color:var(--ink);background:var(--bg);border:1px solid var(--line);
border-radius:6px;padding:3px 8px}
.shown{color:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--skip);border-radius:8px;
padding:12px 16px;margin:0 0 12px}
.card.passed{border-left-color:var(--pass)}.card.failed{border-left-color:var(--fail)}
.card.error{border-left-color:var(--err)}
.card-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px}
.card-head h2{font-size:15px;margin:0;word-break:break-word}
.badge{font-size:12px;font-weight:600;border-radius:10px;padding:1px 8px;background:var(--skip-bg);color:var(--skip)}
.badge.passed{background:var(--pass-bg);color:var(--pass)}.badge.failed{background:var(--fail-bg);color:var(--fail)}
.badge.error{background:var(--err-bg);color:var(--err)}
.trial{font-size:12px;color:var(--muted)}.facts{margin-left:auto;font-size:12px;color:var(--muted)}
.reason{margin:6px 0;white-space:pre-wrap;word-break:break-word}
.attempts{margin:4px 0;padding-left:18px;font-size:12px;color:var(--muted)}
.metrics{display:flex;flex-wrap:wrap;gap:4px 18px;margin:8px 0;font-size:12px}
.metrics div{display:flex;gap:5px}.metrics dt{color:var(--muted)}.metrics dd{margin:0;font-weight:600;
font-variant-numeric:tabular-nums}
.path{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--muted);margin:8px 0 4px}
.views{display:grid;grid-template-columns:1fr 1fr;gap:10px}
@media (max-width:800px){.views{grid-template-columns:1fr}}
figure{margin:0;min-width:0}figcaption{font-size:12px;color:var(--muted);margin-bottom:3px}
pre.code{margin:0;background:var(--code);border:1px solid var(--line);border-radius:6px;padding:6px 0;
overflow-x:auto;font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
pre.code .line{display:block;padding:0 10px;white-space:pre;min-height:1.5em}
pre.code .chg{background:var(--chg)}pre.code .empty{color:var(--muted);font-style:italic}
.diff .add{background:var(--pass-bg)}.diff .del{background:var(--fail-bg)}.diff .hunk{color:var(--accent)}
.diff .head{color:var(--muted)}
mark.cursor{background:var(--mark);color:inherit;border-radius:2px;padding:0 1px;font-weight:700}
details{margin-top:8px}summary{cursor:pointer;color:var(--muted);font-size:12px}details pre{margin-top:4px}
.where{margin-top:10px;font-size:12px;color:var(--muted);display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.tag{background:var(--skip-bg);border-radius:4px;padding:0 6px}
.muted{color:var(--muted)}#empty{text-align:center;color:var(--muted);padding:30px}
"""

# Static: no record data is ever interpolated into the script (see the docstring).
_JS = """
"use strict";
(() => {
  const cards = Array.from(document.querySelectorAll("article.card"));
  const boxes = Array.from(document.querySelectorAll("input[name=outcome]"));
  const repo = document.getElementById("f-repo");
  const tag = document.getElementById("f-tag");
  const search = document.getElementById("f-search");
  const shown = document.getElementById("shown");
  const empty = document.getElementById("empty");
  const tagsOf = new Map(cards.map((c) => [c, JSON.parse(c.dataset.tags || "[]")]));

  function setSelect(select, value) {
    select.value = value;
    if (select.value !== value) select.value = "";
  }
  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const want = p.has("outcome") ? new Set(p.get("outcome").split(",")) : null;
    for (const b of boxes) b.checked = want === null || want.has(b.value);
    setSelect(repo, p.get("repo") || "");
    setSelect(tag, p.get("tag") || "");
    search.value = p.get("q") || "";
  }
  function writeHash() {
    const p = new URLSearchParams();
    const on = boxes.filter((b) => b.checked).map((b) => b.value);
    if (on.length !== boxes.length) p.set("outcome", on.join(","));
    if (repo.value) p.set("repo", repo.value);
    if (tag.value) p.set("tag", tag.value);
    if (search.value.trim()) p.set("q", search.value.trim());
    const hash = p.toString();
    try {
      history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
    } catch (e) { /* some browsers refuse history on file:// pages; filtering still works */ }
  }
  function apply() {
    const outcomes = new Set(boxes.filter((b) => b.checked).map((b) => b.value));
    const r = repo.value, t = tag.value, q = search.value.trim().toLowerCase();
    let n = 0;
    for (const card of cards) {
      const ok = outcomes.has(card.dataset.outcome) && (!r || card.dataset.repo === r)
        && (!t || tagsOf.get(card).includes(t)) && (!q || card.dataset.name.includes(q));
      card.hidden = !ok;
      if (ok) n += 1;
    }
    shown.textContent = String(n);
    empty.hidden = n > 0;
  }
  for (const el of [...boxes, repo, tag]) el.addEventListener("change", () => { apply(); writeHash(); });
  search.addEventListener("input", () => { apply(); writeHash(); });
  window.addEventListener("hashchange", () => { readHash(); apply(); });
  readHash();
  apply();
})();
"""


def _script_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_html(
    records: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any] | None = None,
    title: str = "Edit-prediction report",
) -> str:
    """The whole report page as one string (write it with ``encoding="utf-8"``).

    ``records`` are :func:`record_of` dicts; cards use ``expected_view`` /
    ``predicted_view`` (``{path, before, expected | predicted}`` with the cursor
    drawn as ``‸``; a bare string is taken as the text) and ``best_candidate``
    when present, else fall back to the predicted patch or text. ``summary`` may
    hold Zed's SummaryJson fields plus ``passed``/``failed``/``error``/``total``/
    ``pass_rate``; whatever it lacks is computed from the records. Secret-looking
    environment values are scrubbed from everything shown.
    """
    records = [scrub_secrets(dict(r)) for r in records]
    summary = scrub_secrets(dict(summary or {}))
    ordered = sorted(records, key=_sort_key)
    who = sorted({" / ".join(str(x) for x in (r.get("provider"), r.get("model")) if x) for r in records} - {""})
    subtitle = " · ".join([*who, f"{len(records)} predictions"])
    cards = "".join(_card_html(index, record) for index, record in enumerate(ordered, start=1))
    csp = (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src '{_script_hash(_JS)}'; img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n"
        '<body><div class="page">'
        f'<header><h1>{_e(title)}</h1><p class="sub">{_e(subtitle)}</p>'
        f"{_summary_html(records, summary)}</header>\n"
        f"{_filters_html(records)}\n"
        f'<main id="cards">{cards}</main>'
        '<p id="empty" hidden>No prediction matches the filters.</p>'
        f"</div><script>{_JS}</script></body></html>\n"
    )
