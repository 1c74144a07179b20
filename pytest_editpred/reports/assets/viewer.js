
"use strict";
(() => {
  const D = JSON.parse(document.getElementById("ep-index").textContent);
  const ROW = 56, OUTCOMES = ["error", "failed", "passed", "skipped"];
  const STATUSES = ["regressed", "improved", "new", "missing", "unchanged"];
  const M = D.metrics.map((m) => m.name);
  const I = D.items, G = D.groups;
  const metricIndex = (name) => M.indexOf(name);
  const $ = (id) => document.getElementById(id);
  // record data: rebuilt by Python (_hunks.clean_edit_view), read defensively here too
  const arr = (x) => Array.isArray(x) ? x : [];
  const str = (x) => typeof x === "string" ? x : "";
  const whole = (x) => Number.isSafeInteger(x) && x >= 0 ? x : 0;
  const obj = (x) => x !== null && typeof x === "object" && !Array.isArray(x) ? x : null;
  const MAX_ROWS = 2000, SECTIONS = ["prompt", "raw", "history", "excerpt", "qa", "qa-raw"];  // #open=
  // the judge's answer (item[11]: [state, reverts, confidence], or null: not judged)
  const QA = ["acceptable", "unacceptable", "none", "error"], REVERTS = ["yes", "no", "unknown"];
  const QA_LABEL = { acceptable: "acceptable", unacceptable: "unacceptable", none: "not judged", error: "judge error" };
  const QA_TITLE = { acceptable: "the judge's confidence is 4 or more and it does not say the prediction reverts the user's edits",
    unacceptable: "the judge's confidence is under 4, or it says the prediction reverts the user's edits",
    none: "no judge was asked: no judge in the run, or the prediction changed nothing",
    error: "the judge could not be reached, or its answer could not be parsed or gave no confidence" };
  const qaState = (i) => I[i][11] ? I[i][11][0] : "none";
  const qaReverts = (i) => !I[i][11] || typeof I[i][11][1] !== "boolean" ? "unknown" : I[i][11][1] ? "yes" : "no";
  const qaConfidence = (i) => I[i][11] ? I[i][11][2] : null;
  const judged = I.some((x) => x[11]);  // else no judge filter, sort or text: the page as before
  const qaCounts = {};  // of predictions, as the outcomes' counts

  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    if (attrs) for (const k in attrs) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids) if (kid !== null && kid !== undefined && kid !== false)
      node.append(typeof kid === "string" ? document.createTextNode(kid) : kid);
    return node;
  }
  const fmt = (v, d) => (v === null || v === undefined || Number.isNaN(v)) ? "–" : Number(v).toFixed(d);
  const pct = (v, d) => (v === null || v === undefined) ? "–" : (100 * v).toFixed(d === undefined ? 1 : d) + "%";
  function fmtMetric(m, v) {
    if (v === null || v === undefined) return "–";
    if (v === "n/a") return v;
    if (m.format === "b") return v ? "yes" : "no";
    if (m.format === "p") return pct(v, 1);
    if (m.format === "i") return fmt(v, 0);
    return fmt(v, 1);
  }
  const repoLabel = (url) => { const t = url.replace(/\/+$/, "").split("/").pop().split(":").pop(); return t.endsWith(".git") ? t.slice(0, -4) : (t || url); };

  // ---- groups
  const isProblem = (i) => I[i][2] === "failed" || I[i][2] === "error";
  const rank = (o) => { const i = OUTCOMES.indexOf(o); return i < 0 ? OUTCOMES.length : i; };
  // outcome: this run's (else the baseline's); repos, tags, providers: both runs'
  for (const g of G) {
    const own = g.items.length ? g.items : g.base, both = g.items.concat(g.base);
    g.own = own;
    g.outcomes = new Set(own.map((i) => I[i][2]));
    g.name = own.length ? I[own[0]][1] : g.key;
    g.lname = (g.name + " " + g.key).toLowerCase();
    g.repos = new Set(both.map((i) => I[i][3]));
    g.tags = new Set(both.flatMap((i) => I[i][4]));
    g.providers = new Set(both.map((i) => I[i][5]));
    g.rank = Math.min(...own.map((i) => rank(I[i][2])));
    g.problem = own.some(isProblem);
    g.passed = g.items.filter((i) => I[i][2] === "passed").length;
    const mean = (get) => { const v = g.items.map(get).filter((x) => typeof x === "number"); return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null; };
    g.sort = { latency: mean((i) => I[i][8]) };
    if (judged) {  // plain loops, no closures: this runs for every example at load
      g.qa = new Set(); g.reverts = new Set();
      for (const i of own) { const q = qaState(i); g.qa.add(q); qaCounts[q] = (qaCounts[q] || 0) + 1; g.reverts.add(qaReverts(i)); }
      let sum = 0, n = 0;
      for (const i of g.items) { const c = qaConfidence(i); if (typeof c === "number") { sum += c; n++; } }
      g.sort.qa_confidence = n ? sum / n : null;
    }
    for (const name of D.sortable) { const k = metricIndex(name); g.sort[name] = mean((i) => I[i][9][k]); }
  }
  const byKey = new Map(G.map((g) => [g.key, g]));
  const counts = {};
  for (const g of G) for (const i of g.own) counts[I[i][2]] = (counts[I[i][2]] || 0) + 1;
  const outcomes = OUTCOMES.filter((o) => counts[o]).concat(Object.keys(counts).filter((o) => !OUTCOMES.includes(o)).sort());
  const qaStates = QA.filter((q) => qaCounts[q]);

  // ---- state
  const wide = () => window.matchMedia("(min-width: 1100px)").matches;
  const S = { outcome: new Set(outcomes), qa: new Set(qaStates), reverts: "", status: null, repo: "", tag: "", provider: "", q: "", sort: "default", dir: "asc",
    item: null, trial: null, view: null, tab: null, open: {}, sections: new Set(), reveal: false };
  let rows = [], active = -1;

  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    S.outcome = p.has("outcome") ? new Set(p.get("outcome").split(",").filter(Boolean)) : new Set(outcomes);
    S.qa = judged && p.has("qa") ? new Set(p.get("qa").split(",").filter(Boolean)) : new Set(qaStates);
    S.reverts = judged && REVERTS.includes(p.get("reverts")) ? p.get("reverts") : "";
    S.status = p.has("status") ? new Set(p.get("status").split(",").filter(Boolean)) : null;
    S.repo = p.get("repo") || ""; S.tag = p.get("tag") || ""; S.provider = p.get("provider") || "";
    S.q = p.get("q") || ""; S.sort = p.get("sort") || "default"; S.dir = p.get("dir") === "desc" ? "desc" : "asc";
    S.item = p.get("item"); S.trial = p.has("trial") ? Number(p.get("trial")) : null;
    S.view = p.get("view"); S.tab = p.get("tab");
    S.sections = new Set((p.get("open") || "").split(",").filter((x) => SECTIONS.includes(x)));
    S.reveal = S.sections.size > 0;  // scroll to it once drawn
  }
  function writeHash() {
    const p = new URLSearchParams();
    if (S.outcome.size !== outcomes.length || outcomes.some((o) => !S.outcome.has(o))) p.set("outcome", outcomes.filter((o) => S.outcome.has(o)).join(","));
    if (qaStates.some((q) => !S.qa.has(q))) p.set("qa", qaStates.filter((q) => S.qa.has(q)).join(","));
    if (S.reverts) p.set("reverts", S.reverts);
    if (S.status) p.set("status", STATUSES.filter((s) => S.status.has(s)).join(","));
    if (S.repo) p.set("repo", S.repo);
    if (S.tag) p.set("tag", S.tag);
    if (S.provider) p.set("provider", S.provider);
    if (S.q.trim()) p.set("q", S.q.trim());
    if (S.sort !== "default") p.set("sort", S.sort);
    if (S.dir !== "asc") p.set("dir", S.dir);
    if (S.item !== null) p.set("item", S.item);
    if (S.trial !== null) p.set("trial", String(S.trial));
    if (S.view) p.set("view", S.view);
    if (S.tab) p.set("tab", S.tab);
    if (S.sections.size) p.set("open", SECTIONS.filter((x) => S.sections.has(x)).join(","));
    const hash = p.toString();
    try { history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search); }
    catch (e) { /* file:// pages in some browsers: the view still works */ }
  }

  // ---- summary
  function tile(label, value, note, cls) {
    return el("div", { class: "tile " + (cls || "") }, el("span", { class: "label", text: label }),
      el("span", { class: "value", text: value }), note ? el("span", { class: "note", text: note }) : null);
  }
  function renderCards() {
    const C = D.cards, box = $("cards");
    const c = C.counts, parts = OUTCOMES.filter((o) => c[o]).map((o) => c[o] + " " + o);
    const ci = (v, f) => v.low !== null && v.low !== undefined ? ` · 95% CI ${f(v.low)}–${f(v.high)}` : "";
    if (C.pass_rate) box.append(tile("Pass rate", pct(C.pass_rate.estimate, 1),
      `${c.passed} of ${C.total} predictions${ci(C.pass_rate, (x) => pct(x, 1))}${C.pass_rate.note ? " (" + C.pass_rate.note + ")" : ""} · errors count as not passed` +
      (c.skipped ? ` · ${c.skipped} skipped not counted` : ""), "primary"));
    else box.append(tile("Pass rate", "–", "no prediction ran", "primary"));
    box.append(tile("Predictions", String(C.total), parts.join(" · ")));
    if (C.delta_chr_f) box.append(tile("Mean delta-chrF", fmt(C.delta_chr_f.estimate, 1),
      `0–100 · over the ${C.scored} scored of ${C.total}${ci(C.delta_chr_f, (x) => fmt(x, 1))}` + (C.excluded ? ` · ${C.excluded}` : "")));
    if (C.cursor) box.append(C.cursor.rate === null ? tile("Cursor exact match", "n/a", C.cursor.which)
      : tile("Cursor exact match", pct(C.cursor.rate, 1), `${C.cursor.exact} of ${C.cursor.of} ${C.cursor.which} (others excluded)`));
    if (C.exact_lines_f1 !== undefined) box.append(tile("Exact lines F1", pct(C.exact_lines_f1, 1),
      `lines summed over the ${C.scored} scored · P ${pct(C.exact_lines_precision, 1)} R ${pct(C.exact_lines_recall, 1)}`));
    if (C.latency_median !== undefined) box.append(tile("Median latency", fmt(C.latency_median, 2) + " s",
      `of ${C.latency_n} with a latency · p90 ${fmt(C.latency_p90, 2)} s`));
    if (D.terminal && D.terminal.length) {
      const more = el("details", { class: "terminal" }, el("summary", { text: "As the terminal summary printed it" }),
        el("pre", { text: D.terminal.join("\n") }));
      box.after(more);
    }
    if (D.comparison) renderCompare();
  }
  function diffText(v, scale, unit, digits) {
    if (!v || v.estimate === null) return "n/a (no example in both runs)";
    const s = (x) => (x >= 0 ? "+" : "") + (x * scale).toFixed(digits);
    const real = v.low > 0 || v.high < 0;
    return `${s(v.estimate)}${unit} [${s(v.low)}, ${s(v.high)}] ${real ? "a real change" : "within noise"}`;
  }
  function renderCompare() {
    const C = D.comparison, box = $("compare");
    box.hidden = false;
    const level = Math.round(100 * (C.confidence || 0.95)) + "%";
    box.append(el("h2", { text: `Compared with the baseline: ${C.old_examples} old and ${C.new_examples} new examples` }),
      el("p", null, ...STATUSES.map((s) => el("span", { class: "badge " + s, text: `${C.counts[s] || 0} ${s}` })).flatMap((b) => [b, " "])),
      el("p", { id: "cmp-pass", text: `Pass rate (new − old): ${diffText(C.pass_rate_difference, 100, " pts", 1)} · ${level} paired bootstrap over ${C.paired_pass_examples} examples` }),
      el("p", { id: "cmp-chrf", text: `Mean delta-chrF (new − old): ${diffText(C.delta_chr_f_difference, 1, "", 2)} · ${level} paired bootstrap over ${C.paired_chrf_examples} examples` }));
  }

  // ---- filters
  const controls = {};
  function select(id, label, values, labelOf) {
    const s = el("select", { id }, el("option", { value: "", text: "all" }), ...values.map((v, i) => el("option", { value: v, text: labelOf ? labelOf(v) : v })));
    controls[id] = s;
    return el("label", { class: "field" }, label + " ", s);
  }
  function renderFilters() {
    const nav = $("filters");
    const box = el("fieldset", { class: "outcomes" }, el("legend", { text: "Outcome" }),
      ...outcomes.map((o) => el("label", { class: "check" }, el("input", { type: "checkbox", name: "outcome", value: o }), " " + o + " ", el("span", { class: "count", text: String(counts[o]) }))));
    nav.append(box);
    if (D.comparison) {
      const sc = {}; for (const g of G) if (g.status) sc[g.status] = (sc[g.status] || 0) + 1;
      nav.append(el("fieldset", { class: "statuses" }, el("legend", { text: "Change" }),
        ...STATUSES.map((s) => el("label", { class: "check" }, el("input", { type: "checkbox", name: "status", value: s }), " " + s + " ", el("span", { class: "count", text: String(sc[s] || 0) })))));
    }
    if (judged) {
      nav.append(el("fieldset", { class: "judge" }, el("legend", { text: "Judge" }),
        ...qaStates.map((q) => el("label", { class: "check", title: QA_TITLE[q] }, el("input", { type: "checkbox", name: "qa", value: q }), " " + QA_LABEL[q] + " ", el("span", { class: "count", text: String(qaCounts[q]) })))));
      nav.append(select("f-reverts", "Reverts", REVERTS, (v) => v === "unknown" ? "not said" : v));
    }
    if (D.repos.length > 1) nav.append(select("f-repo", "Repository", D.repos, repoLabel));
    if (D.tags.length) nav.append(select("f-tag", "Tag", D.tags));
    if (D.providers.length > 1) nav.append(select("f-provider", "Provider", D.providers));
    const search = el("input", { id: "f-search", type: "search", placeholder: "filter by name…", "aria-label": "Filter by name" });
    controls.search = search;
    nav.append(el("label", { class: "field grow" }, "Name ", search));
    const sort = el("select", { id: "f-sort" }, el("option", { value: "default", text: "problems first" }), el("option", { value: "name", text: "name" }),
      el("option", { value: "latency", text: "latency" }),
      ...D.sortable.map((name) => el("option", { value: name, text: D.metrics[metricIndex(name)].label })),
      judged ? el("option", { value: "qa_confidence", text: "judge confidence" }) : null);
    controls.sort = sort;
    const dir = el("button", { id: "f-dir", type: "button", "aria-label": "Sort direction" });
    controls.dir = dir;
    nav.append(el("label", { class: "field" }, "Sort ", sort), dir,
      el("span", { class: "shown" }, "showing ", el("b", { id: "shown" }), ` of ${G.length}`));
    nav.addEventListener("change", (ev) => {
      const t = ev.target;
      if (t.name === "outcome") { t.checked ? S.outcome.add(t.value) : S.outcome.delete(t.value); }
      else if (t.name === "qa") { t.checked ? S.qa.add(t.value) : S.qa.delete(t.value); }
      else if (t.id === "f-reverts") S.reverts = t.value;
      else if (t.name === "status") { S.status = new Set(Array.from(nav.querySelectorAll("input[name=status]")).filter((b) => b.checked).map((b) => b.value)); if (S.status.size === STATUSES.length) S.status = null; }
      else if (t.id === "f-repo") S.repo = t.value;
      else if (t.id === "f-tag") S.tag = t.value;
      else if (t.id === "f-provider") S.provider = t.value;
      else if (t.id === "f-sort") S.sort = t.value;
      else return;
      update();
    });
    search.addEventListener("input", () => { S.q = search.value; update(); });
    dir.addEventListener("click", () => { S.dir = S.dir === "asc" ? "desc" : "asc"; update(); });
  }
  function syncControls() {
    for (const b of document.querySelectorAll("input[name=outcome]")) b.checked = S.outcome.has(b.value);
    for (const b of document.querySelectorAll("input[name=status]")) b.checked = !S.status || S.status.has(b.value);
    for (const b of document.querySelectorAll("input[name=qa]")) b.checked = S.qa.has(b.value);
    const set = (s, v) => { if (!s) return; s.value = v; if (s.value !== v) s.value = ""; };
    set(controls["f-repo"], S.repo); set(controls["f-tag"], S.tag); set(controls["f-provider"], S.provider); set(controls["f-reverts"], S.reverts);
    set(controls.sort, S.sort);
    if (controls.sort.value !== S.sort) { S.sort = "default"; controls.sort.value = "default"; }
    if (controls.search.value !== S.q) controls.search.value = S.q;
    controls.dir.textContent = S.dir === "asc" ? "↑ ascending" : "↓ descending";
    controls.dir.setAttribute("aria-pressed", String(S.dir === "desc"));
  }

  function filterAndSort() {
    const repo = S.repo ? D.repos.indexOf(S.repo) : null, tag = S.tag ? D.tags.indexOf(S.tag) : null;
    const provider = S.provider ? D.providers.indexOf(S.provider) : null, q = S.q.trim().toLowerCase();
    const out = [];
    for (const g of G) {
      let ok = false;
      for (const o of g.outcomes) if (S.outcome.has(o)) { ok = true; break; }
      if (!ok) continue;
      if (judged && !qaStates.every((x) => S.qa.has(x))) {
        ok = false;
        for (const x of g.qa) if (S.qa.has(x)) { ok = true; break; }
        if (!ok) continue;
      }
      if (S.reverts && !g.reverts.has(S.reverts)) continue;
      if (S.status && !S.status.has(g.status)) continue;
      if (repo !== null && !g.repos.has(repo)) continue;
      if (tag !== null && !g.tags.has(tag)) continue;
      if (provider !== null && !g.providers.has(provider)) continue;
      if (q && !g.lname.includes(q)) continue;
      out.push(g);
    }
    const sign = S.dir === "desc" ? -1 : 1, key = S.sort;
    const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    if (key === "default") out.sort((a, b) => sign * (a.rank - b.rank || byName(a, b)));
    else if (key === "name") out.sort((a, b) => sign * byName(a, b));
    else out.sort((a, b) => {
      const x = a.sort[key], y = b.sort[key];
      if (x === null || x === undefined) return (y === null || y === undefined) ? byName(a, b) : 1;  // no value: last
      if (y === null || y === undefined) return -1;
      return sign * (x - y) || byName(a, b);
    });
    return out;
  }

  // the judge's answers of items, in a few words: mean confidence, reverting, or error
  function qaText(ids) {
    if (!judged) return "";
    const conf = ids.map(qaConfidence).filter((x) => typeof x === "number");
    let text;
    if (conf.length) { const m = conf.reduce((a, b) => a + b, 0) / conf.length; text = `judge ${Number.isInteger(m) ? m : m.toFixed(1)}/5`; }
    else if (ids.some((i) => qaState(i) === "error")) text = "judge error";
    else return "";
    return ids.some((i) => qaReverts(i) === "yes") ? text + " reverts" : text;
  }

  // ---- list
  const list = $("list"), spacer = $("spacer");
  let drawn = "";
  function rowNode(g, n) {
    const own = g.items.length ? g.items : g.base;
    const first = I[own[0]];
    const top = el("div", { class: "top" });
    if (g.items.length > 1) {
      top.append(el("span", { class: "badge " + (g.passed === g.items.length ? "passed" : g.problem ? "failed" : "skipped"), text: `${g.passed}/${g.items.length} passed` }),
        el("span", { class: "dots", "aria-hidden": "true" }, ...g.items.map((i) => el("span", { class: "dot " + I[i][2] }))));
    } else if (g.items.length === 1) top.append(el("span", { class: "badge " + first[2], text: first[2] }));
    if (g.status) top.append(el("span", { class: "badge " + g.status, text: g.status }));
    top.append(el("span", { class: "name", text: g.name, title: g.name }));
    const meta = [];
    if (first[3] >= 0) meta.push(repoLabel(D.repos[first[3]]));
    const chrf = g.sort.delta_chr_f;
    if (chrf !== null && chrf !== undefined) meta.push("chrF " + fmt(chrf, 1));
    const judge = qaText(g.own);
    if (judge) meta.push(judge);
    if (g.sort.latency !== null) meta.push(fmt(g.sort.latency, 2) + " s");
    const t = first[4].map((k) => D.tags[k]);
    if (t.length) meta.push(t.join(", "));
    return el("div", { class: "row", role: "option", id: "row-" + n, "data-key": g.key, "aria-selected": String(n === active),
      style: `top:${n * ROW}px` }, top, el("div", { class: "meta", text: meta.join(" · ") }));
  }
  function drawRows(force) {
    const from = Math.max(0, Math.floor(list.scrollTop / ROW) - 8);
    const to = Math.min(rows.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + 8);
    const sig = from + ":" + to + ":" + active;
    if (!force && sig === drawn) return;
    drawn = sig;
    const frag = document.createDocumentFragment();
    for (let n = from; n < to; n++) frag.append(rowNode(rows[n], n));
    spacer.replaceChildren(frag);
    if (!rows.length) spacer.append(el("p", { id: "empty", text: "No item matches the filters." }));
    if (active >= 0) list.setAttribute("aria-activedescendant", "row-" + active); else list.removeAttribute("aria-activedescendant");
  }
  let pending = false;
  list.addEventListener("scroll", () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; drawRows(false); }); } });
  list.addEventListener("click", (ev) => { const r = ev.target.closest(".row"); if (r) { choose(Number(r.id.slice(4)), true); list.focus({ preventScroll: true }); } });

  // the detail follows the list: the item only while listed (true: redrawn)
  function update() {
    rows = filterAndSort();
    spacer.style.height = rows.length * ROW + "px";
    active = S.item !== null ? rows.findIndex((g) => g.key === S.item) : -1;
    $("shown").textContent = String(rows.length);
    syncControls();
    drawRows(true);
    writeHash();
    const want = active >= 0 ? S.item : null;
    if (want === detailKey && (want || $("detail").textContent === emptyText())) return false;
    showDetail();
    return true;
  }
  function reveal(n) {
    const y = n * ROW;
    if (y < list.scrollTop) list.scrollTop = y;
    else if (y + ROW > list.scrollTop + list.clientHeight) list.scrollTop = y + ROW - list.clientHeight;
  }
  function choose(n, user) {
    if (n < 0 || n >= rows.length) return;
    active = n;
    const g = rows[n];
    if (S.item !== g.key) { S.item = g.key; S.trial = null; S.tab = null; S.open = {}; }
    reveal(n);
    drawRows(true);
    writeHash();
    showDetail();
  }
  function step(delta, problemsOnly) {
    let n = active;
    for (;;) {
      n += delta;
      if (n < 0 || n >= rows.length) return;
      if (!problemsOnly || rows[n].problem) break;
    }
    choose(n, true);
  }

  // ---- details
  const chunks = new Map();
  const ready = new Promise((resolve) => document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", resolve) : resolve());
  async function unpack(n) {
    await ready;
    const node = document.getElementById("ep-chunk-" + n);
    if (node.type === "application/json") return JSON.parse(node.textContent);
    const bin = atob(node.textContent.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }
  function detailOf(id) {
    const n = Math.floor(id / D.chunk);
    if (!chunks.has(n)) chunks.set(n, unpack(n));
    return chunks.get(n).then((c) => c[id - n * D.chunk]);
  }

  // one line's text with changed characters and cursors marked
  function code(text, range, cursors, kind) {
    text = str(text);
    const cuts = new Set([0, text.length]);
    if (range) { cuts.add(range[0]); cuts.add(range[1]); }
    for (const c of cursors) cuts.add(Math.min(c.col, text.length));
    const at = Array.from(cuts).sort((a, b) => a - b);
    const span = el("span", { class: "tx" + (kind ? " " + kind : "") });
    for (let k = 0; k < at.length; k++) {
      for (const c of cursors) if (Math.min(c.col, text.length) === at[k])
        span.append(el("span", { class: "cur " + c.side, title: c.title, "aria-label": c.title, role: "img", text: "‸" }));
      if (k === at.length - 1) break;
      const piece = text.slice(at[k], at[k + 1]);
      if (!piece) continue;
      if (range && at[k] >= range[0] && at[k + 1] <= range[1] && range[1] > range[0]) span.append(el("span", { class: "wd " + kind, text: piece }));
      else span.append(piece);
    }
    if (!text && !cursors.length) span.append("");
    return span;
  }
  function changedRange(a, b) {
    let p = 0; const n = Math.min(a.length, b.length);
    while (p < n && a[p] === b[p]) p++;
    let s = 0;
    while (s < n - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
    return [[p, a.length - s], [p, b.length - s]];
  }
  // any data as a diff: lines of op " ", "-", "+" only, at most MAX_ROWS
  function normDiff(x) {
    const o = obj(x) || {}, hunks = [], cur = (c) => arr(c).length === 2 && whole(c[0]) ? [c[0], whole(c[1])] : null;
    let room = MAX_ROWS;
    for (const h of arr(o.hunks)) {
      if (room <= 0 || hunks.length >= MAX_ROWS) break;
      const lines = arr(obj(h) && h.lines).slice(0, room).filter((l) => [" ", "-", "+"].includes(arr(l)[0])).map((l) => [l[0], str(l[1])]);
      room -= lines.length;
      if (lines.length) hunks.push({ a: whole(h.a), b: whole(h.b), gap: whole(h.gap), above: arr(h.above).slice(-50).map(str), lines });
    }
    return { hunks, below: arr(o.below).slice(0, 50).map(str), tail: whole(o.tail), ca: cur(o.ca), cb: cur(o.cb), clipped: o.clipped === true || room <= 0 };
  }
  const count = (lines, not) => lines.filter((l) => l[0] !== not).length;
  // the lines of a diff as rows: {op, a, b, ta, tb, ra, rb}
  function diffRows(diff, key) {
    const out = [];
    diff.hunks.forEach((h, index) => {
      const openAbove = S.open[key + ":" + index];
      out.push({ hunk: index, h, openAbove });
      let na = h.a, nb = h.b;
      if (openAbove) { na -= h.above.length; nb -= h.above.length; for (const t of h.above) out.push({ op: " ", a: na++, b: nb++, t }); }
      const lines = h.lines;
      for (let k = 0; k < lines.length;) {
        if (lines[k][0] === " ") { out.push({ op: " ", a: na++, b: nb++, t: lines[k][1] }); k++; continue; }
        const dels = [], adds = [];
        while (k < lines.length && lines[k][0] === "-") dels.push(lines[k++][1]);
        while (k < lines.length && lines[k][0] === "+") adds.push(lines[k++][1]);
        if (!dels.length && !adds.length) { k++; continue; }  // an unknown op: never loop on it
        const pairs = Math.min(dels.length, adds.length);
        const ranges = [];
        for (let j = 0; j < pairs; j++) ranges.push(changedRange(dels[j], adds[j]));
        const delRows = dels.map((t, j) => ({ op: "-", a: na++, t, r: j < pairs ? ranges[j][0] : null }));
        const addRows = adds.map((t, j) => ({ op: "+", b: nb++, t, r: j < pairs ? ranges[j][1] : null }));
        out.push({ block: true, dels: delRows, adds: addRows });
      }
    });
    if (diff.hunks.length && diff.tail > 0 && S.open[key + ":below"]) {
      const last = diff.hunks[diff.hunks.length - 1];
      let na = last.a + count(last.lines, "+"), nb = last.b + count(last.lines, "-");
      for (const t of diff.below) out.push({ op: " ", a: na++, b: nb++, t });
    }
    return out;
  }
  function num(cls, n) { return el("span", { class: cls, text: n === undefined || n === null ? "" : String(n) }); }
  function fitNumbers(box) {  // number columns as wide as the widest (CSS --nw)
    let w = 1;
    for (const n of box.querySelectorAll(".na, .nb")) w = Math.max(w, n.textContent.length);
    box.style.setProperty("--nw", w);
    return box;
  }
  function cursorsAt(diff, side, n, labels) {
    const c = side === "a" ? diff.ca : diff.cb;
    return c && c[0] === n ? [{ col: c[1], side, title: labels[side] }] : [];
  }
  function renderDiff(data, key, labels, split) {
    const diff = normDiff(data);
    const box = el("div", { class: "diff" + (split ? " split" : ""), role: "table", "aria-label": labels.title });
    if (!diff.hunks.length) { box.append(el("div", { class: "hunk", text: "no change" })); return box; }
    const header = (r) => {
      const h = r.h, la = count(h.lines, "+"), lb = count(h.lines, "-");
      const bar = el("div", { class: "hunk", role: "row" }, el("span", { text: `@@ -${h.a},${la} +${h.b},${lb} @@` }));
      if (h.gap > 0 && !r.openAbove && h.above.length) {
        bar.append(el("button", { type: "button", class: "expand", "data-hunk": String(r.hunk),
          onclick: () => { S.open[key + ":" + r.hunk] = true; showDetail(); },
          text: `show ${h.above.length} more line${h.above.length > 1 ? "s" : ""} above` + (h.gap > h.above.length ? ` (of ${h.gap} hidden)` : "") }));
      } else if (h.gap > 0 && !r.openAbove) bar.append(el("span", { text: `${h.gap} unchanged lines hidden` }));
      return bar;
    };
    const line = (op, a, b, t, r) => {
      const kind = op === "-" ? "del" : op === "+" ? "add" : "";
      const curs = (op !== "+" ? cursorsAt(diff, "a", a, labels) : []).concat(op !== "-" ? cursorsAt(diff, "b", b, labels) : []);
      return el("div", { class: "ln" + (kind ? " " + kind : ""), role: "row", "data-a": op !== "+" ? a : null, "data-b": op !== "-" ? b : null },
        num("na", op !== "+" ? a : null), num("nb", op !== "-" ? b : null), el("span", { class: "sg", text: op === " " ? " " : op }), code(t, r, curs, kind));
    };
    const half = (side, row) => {
      if (!row) return [num(side === "a" ? "na" : "nb", null), el("span", { class: "tx none" })];
      const n = side === "a" ? row.a : row.b;
      const kind = row.op === "-" ? "del" : row.op === "+" ? "add" : "";
      return [num(side === "a" ? "na" : "nb", n), code(row.t, row.r || null, cursorsAt(diff, side, n, labels), kind)];
    };
    for (const r of diffRows(diff, key)) {
      if (r.hunk !== undefined) { box.append(header(r)); continue; }
      if (!r.block) {
        if (split) box.append(el("div", { class: "ln", role: "row", "data-a": r.a, "data-b": r.b }, ...half("a", r), ...half("b", r)));
        else box.append(line(" ", r.a, r.b, r.t, null));
        continue;
      }
      if (split) {
        for (let j = 0; j < Math.max(r.dels.length, r.adds.length); j++) {
          const d = r.dels[j], a = r.adds[j];
          box.append(el("div", { class: "ln" + (d && a ? " chg" : d ? " del" : " add"), role: "row", "data-a": d ? d.a : null, "data-b": a ? a.b : null }, ...half("a", d), ...half("b", a)));
        }
      } else {
        for (const d of r.dels) box.append(line("-", d.a, null, d.t, d.r));
        for (const a of r.adds) box.append(line("+", null, a.b, a.t, a.r));
      }
    }
    if (diff.tail > 0 && !S.open[key + ":below"] && diff.below.length) {
      box.append(el("div", { class: "hunk", role: "row" }, el("button", { type: "button", class: "expand", "data-hunk": "below",
        onclick: () => { S.open[key + ":below"] = true; showDetail(); }, text: `show ${diff.below.length} more line${diff.below.length > 1 ? "s" : ""} below` + (diff.tail > diff.below.length ? ` (of ${diff.tail})` : "") })));
    }
    if (diff.clipped) box.append(el("div", { class: "hunk", text: "…the rest of this diff is not shown (it is longer than the page keeps per item)" }));
    return fitNumbers(box);
  }
  const TABS = {
    versus: { label: "Predicted vs expected", a: "expected", b: "predicted", title: "the chosen expected result (−) against the prediction (+)" },
    predicted: { label: "Predicted edit", a: "before", b: "predicted", title: "the file before (−) and after the predicted edit (+)" },
    expected: { label: "Expected edit", a: "before", b: "expected", title: "the file before (−) and after the expected patch (+)" },
  };
  const CURSOR_LABEL = { before: "cursor before the edit", expected: "expected cursor", predicted: "predicted cursor" };

  function diffSection(d, item) {
    const diffs = obj(d.diff);
    const wrap = el("section", { class: "diffs", "aria-label": "Diff" });
    if (!diffs) {
      if (typeof d.patch === "string") wrap.append(el("h3", { text: "Predicted patch" }), historyDiff(d.patch));
      else wrap.append(el("p", { class: "muted", text: item[2] === "passed" ? "Passed; this record keeps no diff of the edit." : "No prediction to show." }));
      return wrap;
    }
    const tabs = Object.keys(TABS).filter((t) => obj(diffs[t]));
    const none = !(obj(diffs.predicted) && Array.isArray(diffs.predicted.hunks) && diffs.predicted.hunks.length);
    let tab = S.tab && tabs.includes(S.tab) ? S.tab : (item[2] !== "passed" && tabs.includes("versus") ? "versus" : none && tabs.includes("expected") ? "expected" : tabs.includes("predicted") ? "predicted" : tabs[0]);
    const split = S.view ? S.view === "split" : wide();
    const bar = el("div", { class: "bar", role: "toolbar", "aria-label": "Diff view" });
    const tablist = el("div", { role: "tablist", "aria-label": "Which diff" });
    for (const t of tabs) tablist.append(el("button", { type: "button", role: "tab", id: "tab-" + t, "aria-selected": String(t === tab), "aria-pressed": String(t === tab),
      onclick: () => { S.tab = t; writeHash(); showDetail(); }, text: TABS[t].label }));
    bar.append(tablist, el("span", { class: "sp" }),
      el("button", { type: "button", id: "view-unified", "aria-pressed": String(!split), onclick: () => { S.view = "unified"; writeHash(); showDetail(); }, text: "Unified" }),
      el("button", { type: "button", id: "view-split", "aria-pressed": String(split), onclick: () => { S.view = "split"; writeHash(); showDetail(); }, text: "Split" }));
    wrap.append(bar);
    if (!tab) return wrap;
    const T = TABS[tab];
    const paths = obj(diffs.paths);
    const path = paths ? `${str(paths.expected)} (expected) · ${str(paths.predicted)} (predicted)` : str(diffs.path);
    const labels = { a: CURSOR_LABEL[T.a], b: CURSOR_LABEL[T.b], title: T.title };
    wrap.append(el("div", { class: "legend" }, el("span", { class: "path", text: path + " · " }), `− ${T.a}, + ${T.b}; cursors: `,
      el("span", { class: "cur a", text: "‸" }), " " + labels.a + ", ", el("span", { class: "cur b", text: "‸" }), " " + labels.b +
      (diffs.relative === true ? " · line numbers count from the recorded window, not the file" : "")));
    wrap.append(renderDiff(diffs[tab], tab, labels, split));
    const others = arr(diffs.other_files).map(str).filter(Boolean);
    if (others.length) wrap.append(el("p", { class: "muted", text: "The prediction also changes: " + others.join(", ") }));
    return wrap;
  }
  function historyDiff(text) {
    const box = el("div", { class: "diff", role: "table" });
    let na = null, nb = null;
    for (const t of str(text).split("\n")) {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(t);
      if (m) { na = Number(m[1]); nb = Number(m[2]); box.append(el("div", { class: "hunk", text: t })); continue; }
      if (t.startsWith("--- ") || t.startsWith("+++ ") || t.startsWith("\\")) { box.append(el("div", { class: "hunk", text: t })); continue; }
      if (t === "" ) continue;
      const op = t[0] === "+" || t[0] === "-" ? t[0] : " ";
      const body = op === " " && t[0] !== " " ? t : t.slice(1);
      const a = op !== "+" && na !== null ? na++ : null, b = op !== "-" && nb !== null ? nb++ : null;
      const kind = op === "-" ? "del" : op === "+" ? "add" : "";
      box.append(el("div", { class: "ln" + (kind ? " " + kind : ""), role: "row" }, num("na", a), num("nb", b), el("span", { class: "sg", text: op }), code(body, null, [], kind)));
    }
    return fitNumbers(box);
  }
  function facts(d, item) {
    const dl = el("dl", { class: "facts" });
    const add = (k, v) => { if (v !== null && v !== undefined && v !== "") dl.append(el("dt", { text: k }), el("dd", { text: String(v) })); };
    add("provider", item[5] >= 0 ? D.providers[item[5]] : null);
    add("model", item[6] >= 0 ? D.models[item[6]] : null);
    add("trial", String(item[7]));
    add("latency", item[8] !== null ? fmt(item[8], 3) + " s" + (d.cached ? " (cached)" : "") : null);
    if (d.usage && Object.keys(d.usage).length) add("usage", Object.entries(d.usage).map(([k, v]) => `${k} ${v}`).join(", "));
    add("expected patch", d.best ? `candidate ${d.best} (the best by Zed's rule${d.matched ? `; matched: ${d.matched}` : ""})` : null);
    add("source", d.nodeid);
    add("file", d.path);
    if (item[3] >= 0) add("repository", D.repos[item[3]] + (d.revision ? " @ " + String(d.revision).slice(0, 12) : ""));
    const tags = item[4].map((k) => D.tags[k]).join(", ");
    add("tags", tags);
    return dl;
  }
  function attempts(d) {
    if (!d.attempts.length) return null;
    return el("details", { open: d.attempts.some((a) => a.error) }, el("summary", { text: `Attempts (${d.attempts.length})` }),
      el("table", { class: "attempts" }, el("tr", null, el("th", { text: "#" }), el("th", { text: "result" }), el("th", { text: "latency" })),
        ...d.attempts.map((a) => el("tr", null, el("td", { text: String(a.ordinal) }), el("td", { text: a.error || "ok" }), el("td", { text: a.latency === null ? "–" : fmt(a.latency, 3) + " s" })))));
  }
  function metrics(d) {
    const dl = el("dl", { class: "metrics", "aria-label": "Metrics" });
    for (const m of D.metrics) {
      const v = d.metrics[m.name];
      if (v === undefined || v === null) continue;
      dl.append(el("div", null, el("dt", { text: m.label }), el("dd", { text: fmtMetric(m, v) }), el("small", { text: m.meaning })));
    }
    const tp = d.metrics.exact_lines_tp, fp = d.metrics.exact_lines_fp, fn = d.metrics.exact_lines_fn;
    if (tp !== undefined) dl.append(el("div", null, el("dt", { text: "exact lines" }), el("dd", { text: `${tp} right, ${fp} extra, ${fn} missed` }), el("small", { text: "changed lines: right, predicted but not expected, expected but missing" })));
    return dl.children.length ? dl : null;
  }
  // a section #open= opens; opening or closing it is kept in the fragment
  const section = (name, summary, ...body) => el("details", { class: name, open: S.sections.has(name),
    ontoggle: (ev) => { S.sections[ev.target.open ? "add" : "delete"](name); writeHash(); } }, el("summary", { text: summary }), ...body);
  const QA_FOLD = 800;  // characters of reasoning shown as they are; longer ones are folded
  const QA_BADGE = { acceptable: "passed", unacceptable: "failed", error: "error" };
  // the judge's answer: its verdict, confidence and reverts flag, its reasoning, its raw answer
  function qaSection(d) {
    const q = obj(d.qa);
    if (!q) return null;
    const state = QA_BADGE[q.state] ? q.state : "error", conf = Number.isSafeInteger(q.confidence) ? q.confidence : null;
    const verdict = state === "error" ? (typeof q.error === "string" ? "judge error" : "no verdict") : "judged " + state;
    const reverts = q.reverts === true ? "yes" : q.reverts === false ? "no" : "not said";
    const sec = el("section", { class: "qa-answer", "aria-label": "The judge's answer" },
      el("h3", null, "The judge's answer ", el("span", { class: "badge " + QA_BADGE[state], text: verdict })),
      el("p", { class: "qa-verdict" }, "confidence ", el("b", { text: conf === null ? "–" : String(conf) }), " (1–5, how likely a user accepts it) · reverts the user's edits: ",
        el("b", { text: reverts })),
      el("p", { class: "muted", text: "Acceptable: confidence 4 or more, not reverting. The judge saw no expected patch; it never changes passed or failed." }));
    if (typeof q.error === "string") sec.append(el("p", { class: "reason broken", text: "The judge's answer could not be used: " + q.error }));
    else if (conf === null) sec.append(el("p", { class: "reason broken", text: "The judge's answer gave no confidence." }));
    const reasoning = str(q.reasoning);
    const of = whole(q.reasoning_chars) > reasoning.length ? ` of ${whole(q.reasoning_chars).toLocaleString()}` : "";
    if (reasoning.length > QA_FOLD || of) sec.append(section("qa", `Reasoning (${reasoning.length.toLocaleString()} characters shown${of})`, el("pre", { class: "text", text: reasoning })));
    else if (reasoning) sec.append(el("p", { class: "reason qa-reasoning", text: reasoning }));
    if (typeof q.response === "string") sec.append(section("qa-raw", `The judge's raw answer (${q.response.length.toLocaleString()} characters shown)`, el("pre", { class: "text", text: q.response })));
    return sec;
  }
  function story(d) {
    const parts = [];
    const diffs = obj(d.diff) || {};
    const history = arr(diffs.history).filter(obj), n = history.length + whole(diffs.history_more);
    if (history.length) parts.push(section("history", `Edit history (${n} edit${n > 1 ? "s" : ""}, oldest first${n > history.length ? `, ${history.length} kept` : ""})`,
      ...history.map((e) => el("div", { class: "event" }, el("div", { class: "ev-head", text: (e.old_path && e.old_path !== e.path ? e.old_path + " → " : "") + str(e.path) + (e.predicted ? " · an accepted prediction" : "") }), historyDiff(e.diff)))));
    const x = obj(diffs.excerpt), xt = x && obj(x.text);
    if (x && xt) {
      const box = el("div", { class: "diff", role: "table" });
      const lines = arr(xt.lines).slice(0, MAX_ROWS), start = whole(x.start_line), first = whole(xt.first);
      lines.forEach((t, k) => {
        const n = start + first + k;
        box.append(el("div", { class: "ln" }, num("na", n), num("nb", null), el("span", { class: "sg", text: " " }),
          code(t, null, n === x.cursor_line ? [{ col: whole(x.cursor_column), side: "a", title: "cursor" }] : [], "")));
      });
      const total = whole(xt.total);
      parts.push(section("excerpt", `Excerpt the model saw: ${str(x.path)} lines ${start}–${whole(x.end_line)}` + (total > lines.length ? ` (the ${lines.length} around the cursor shown)` : ""), fitNumbers(box)));
    }
    if (typeof d.prompt === "string") parts.push(section("prompt", `Prompt (${d.prompt.length.toLocaleString()} characters shown)`, el("pre", { class: "text", text: d.prompt })));
    if (typeof d.raw === "string") parts.push(section("raw", `Raw answer (${d.raw.length.toLocaleString()} characters shown)`, el("pre", { class: "text", text: d.raw })));
    if (d.notes.length) parts.push(el("details", { class: "notes", open: true }, el("summary", { text: "Notes" }), el("ul", null, ...d.notes.map((n) => el("li", { text: n })))));
    return parts;
  }
  function reasonOf(d, item) {
    if (!d.reason) return [];
    const text = String(d.reason), at = text.search(/\(?\bfix: /i);
    if (item[2] === "error" && at > 0) return [el("p", { class: "reason", text: text.slice(0, at).trim() }), el("p", { class: "fix", text: "Fix: " + text.slice(at).replace(/^\(?fix: /i, "").replace(/\)$/, "") })];
    return [el("p", { class: "reason", text }) ];
  }
  // the baseline's prediction and this run's side by side (stacked when narrow)
  async function compareSection(g, pick) {
    if (!D.comparison) return null;
    const sec = el("section", { class: "comparison", "aria-label": "The baseline's prediction and this run's" });
    const c = g.change;
    if (c) sec.append(el("p", null, el("span", { class: "badge " + c.status, text: c.status }),
      ` pass rate ${c.old_pass_rate === null ? "–" : pct(c.old_pass_rate, 0)} → ${c.new_pass_rate === null ? "–" : pct(c.new_pass_rate, 0)}, delta-chrF ${fmt(c.old_delta_chr_f, 1)} → ${fmt(c.new_delta_chr_f, 1)}`));
    const trial = I[pick][7];
    const counterpart = (ids) => ids.includes(pick) ? pick : ids.find((i) => I[i][7] === trial) ?? ids.find(isProblem) ?? ids[0];
    const side = async (run, title, ids) => {
      const col = el("div", { class: "side", "data-run": run }, el("h3", { text: title }));
      if (!ids.length) { col.append(el("p", { class: "muted", text: run === "old" ? "Not in the baseline." : "Not in this run." })); return col; }
      const id = counterpart(ids), item = I[id], d = obj(await detailOf(id)) || {}, diffs = obj(d.diff);
      const who = [item[5] >= 0 ? D.providers[item[5]] : null, item[6] >= 0 ? D.models[item[6]] : null].filter(Boolean).join(" / ");
      col.dataset.item = String(id);
      col.append(el("p", { class: "who" }, el("span", { class: "badge " + item[2], text: item[2] }),
        ` ${who ? who + " · " : ""}trial ${item[7]}${ids.length > 1 ? ` (of ${ids.length})` : ""} · chrF ${fmt(item[9][metricIndex("delta_chr_f")], 1)}` +
        (qaText([id]) ? " · " + qaText([id]) : "")));
      col.append(diffs && obj(diffs.predicted) ? renderDiff(diffs.predicted, "cmp" + id, { a: CURSOR_LABEL.before, b: CURSOR_LABEL.predicted, title: title + ": the predicted edit" }, false)
        : typeof d.patch === "string" ? historyDiff(d.patch) : el("p", { class: "muted", text: d.reason ? String(d.reason) : "no prediction recorded" }));
      return col;
    };
    const [old, now] = await Promise.all([side("old", "Baseline", g.base), side("new", "This run", g.items)]);
    sec.append(el("h3", { text: "Predictions: the baseline's and this run's" }), el("div", { class: "sides" }, old, now));
    return sec;
  }
  let shownToken = 0, detailKey = null;
  function emptyText() {
    if (!rows.length) return "No item matches the filters.";
    const g = S.item !== null ? byKey.get(S.item) : null;
    return (g ? g.name + " is hidden by the filters. " : "") + "Select an item (↓/j, or click).";
  }
  async function showDetail() {
    const card = $("detail"), token = ++shownToken;
    const g = active >= 0 ? rows[active] : null;
    const main = $("main");
    detailKey = g ? g.key : null;
    if (!g) {
      S.reveal = false; main.classList.remove("open"); card.removeAttribute("data-key"); card.removeAttribute("data-item");
      card.replaceChildren(el("p", { class: "muted", text: emptyText() })); card.dataset.state = "empty"; return;
    }
    main.classList.add("open");
    card.dataset.state = "loading";
    const ids = g.own;
    let pick = ids.find((i) => I[i][7] === S.trial);
    if (pick === undefined) pick = ids.find(isProblem) ?? ids[0];
    const item = I[pick];
    let d, cmp;
    try { d = obj(await detailOf(pick)) || {}; }
    catch (e) { if (token === shownToken) { card.replaceChildren(el("p", { class: "reason", text: "This browser could not unpack the item's details (it needs DecompressionStream): " + e })); card.dataset.state = "failed"; } return; }
    const broken = (what, e) => el("p", { class: "reason broken", text: `This item's ${what} could not be shown: ${e}` });
    try { cmp = await compareSection(g, pick); } catch (e) { cmp = broken("comparison", e); }
    if (token !== shownToken) return;
    const head = el("header", { class: "card-head" },
      el("button", { type: "button", class: "back", onclick: () => { S.item = null; update(); list.focus(); }, text: "← all items" }),
      el("span", { class: "badge " + item[2], text: item[2] }), g.status ? el("span", { class: "badge " + g.status, text: g.status }) : null,
      item[10] === "old" ? el("span", { class: "badge run-old", text: "baseline run" }) : null,
      el("h2", { id: "detail-name", text: item[1] }));
    const parts = [head];
    if (ids.length > 1) parts.push(el("div", { class: "trials", role: "group", "aria-label": "Trials" }, ...ids.map((i) => el("button", { type: "button", "aria-pressed": String(i === pick),
      class: "trial", onclick: () => { S.trial = I[i][7]; writeHash(); showDetail(); } }, el("span", { class: "dot " + I[i][2] }), ` trial ${I[i][7]} ${I[i][2]}`))));
    try { parts.push(...reasonOf(d, item), diffSection(d, item), metrics(d), qaSection(d), cmp, facts(d, item), attempts(d), ...story(d)); }
    catch (e) { parts.push(broken("details", e)); }
    card.replaceChildren(...parts.filter(Boolean));
    card.dataset.key = g.key;
    card.dataset.item = String(pick);
    const fresh = card.dataset.shown !== g.key;
    card.dataset.shown = g.key;
    // one column: the item replaces the list, so bring its top on screen
    if (fresh && window.matchMedia("(max-width: 900px)").matches) card.scrollIntoView({ block: "start" });
    if (S.reveal) {
      S.reveal = false;
      const target = SECTIONS.map((x) => card.querySelector("details." + x)).find((x) => x && x.open);
      if (target) target.scrollIntoView({ block: "start" });
    }
    card.dataset.state = "ready";
  }

  // ---- keys
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    const typing = (t instanceof HTMLInputElement && t.type !== "checkbox") || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
    if (typing) { if (ev.key === "Escape") { ev.target.blur(); list.focus(); } return; }
    const k = ev.key;
    if (k === "j" || k === "ArrowDown") step(1, false);
    else if (k === "k" || k === "ArrowUp") step(-1, false);
    else if (k === "n") step(1, true);
    else if (k === "p") step(-1, true);
    else if (k === "Home" && ev.target === list) choose(0, true);
    else if (k === "End" && ev.target === list) choose(rows.length - 1, true);
    else if (k === "/") controls.search.focus();
    else if (k === "u") { S.view = (S.view ? S.view === "split" : wide()) ? "unified" : "split"; writeHash(); showDetail(); }
    else if (k === "Escape") { if (S.item !== null) { S.item = null; update(); list.focus(); } }
    else return;
    ev.preventDefault();
  });
  window.addEventListener("hashchange", () => { readHash(); if (!update()) showDetail(); });

  renderCards();
  renderFilters();
  readHash();
  if (!update()) showDetail();
  if (active >= 0) reveal(active);
  document.documentElement.dataset.ready = "1";
  performance.mark("editpred-list-drawn");
})();
