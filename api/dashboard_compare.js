// goblind dashboard, part 3 of 5 (inlined into dashboard.html by api/embed.cmake): the
// before/after view of two complete runs, from GET /compare (docs/API.md): the step-time verdict
// with its 95 % interval and the summary, the top movers (kernels and operators, each with its
// verdict), the timeline, kernel-class and step-part deltas, the headline and the waste budget.

const MOVER_ROWS = 10;
// A verdict word coloured as the deltas are: faster is better, slower worse.
const VERDICT_CLASS = { faster: "better", slower: "worse", within_noise: "neutral", unknown: "neutral" };
const verdictCell = (v) => el("td", { class: "verdict " + (VERDICT_CLASS[v] || "neutral"), "data-verdict": v || "unknown" }, (v || "unknown").replace("_", " "));
const pct = (v) => (v === null || v === undefined ? "–" : (v > 0 ? "+" : "") + v.toFixed(1) + " %");
const ci = (c) => (c ? pct(c[0]) + " … " + pct(c[1]) : "–");
const msOf = (ns) => (ns === null || ns === undefined ? "–" : fmt(ns / 1e6, 2));
// Seconds as the tables show them: milliseconds with a sign for deltas.
const sMs = (s, signed) => (s === null || s === undefined ? "–" : (signed && s > 0 ? "+" : "") + fmt(s * 1000, 2));

function headTable(id, cols) {
  return el("table", { id }, el("thead", {}, el("tr", {}, ...cols.map(([t, num, title]) => el("th", { class: num ? "num" : "", title: title || "" }, t)))));
}

// The step-time verdict: the medians, the change and its 95 % bootstrap interval.
function stepVerdict(st) {
  const box = el("div", { class: "summary", id: "step-verdict", "data-verdict": (st && st.verdict) || "unknown" });
  if (!st) { box.append("step time: unknown (neither run has ProfilerStep ranges)"); return box; }
  box.append("step time " + msOf(st.base_median_ns) + " ms → " + msOf(st.candidate_median_ns) + " ms (median of " +
    (st.base_steps ?? "–") + " and " + (st.candidate_steps ?? "–") + " steps) · " + pct(st.delta_pct) + ", 95 % CI " + ci(st.ci95_pct) + " · ",
    el("span", { class: VERDICT_CLASS[st.verdict] || "neutral" }, (st.verdict || "unknown").replace("_", " ")));
  return box;
}

// Kernels or operators that moved most (|Δ total|), with their verdicts. rows null: /compare
// does not know (a run without that section: its names are unknown, none added or removed).
function moversTable(id, rows, what) {
  const unknown = rows === null || rows === undefined;
  rows = rows || [];
  const t = headTable(id, [[what], ["class"], ["base ms", 1], ["candidate ms", 1], ["Δ ms/step", 1, "candidate total ÷ its steps − base total ÷ its steps"],
    ["Δ avg", 1, "change of the mean duration per call"], ["95 % CI", 1, "Welch interval of the change of the mean (Bonferroni-corrected)"], ["verdict"]]);
  const b = el("tbody", {});
  for (const r of rows.slice(0, MOVER_ROWS))
    b.append(el("tr", { class: "mover" }, el("td", { class: "kname", title: r.name + (r.change && r.change !== "changed" ? " (" + r.change.replace(/_/g, " ") + ")" : "") }, r.name),
      el("td", {}, r.class || "–"), el("td", { class: "num" }, msOf(r.base && r.base.total_ns)), el("td", { class: "num" }, msOf(r.candidate && r.candidate.total_ns)),
      el("td", { class: "num " + verdict("step_seconds", r.delta_per_step_ns) }, r.delta_per_step_ns === null || r.delta_per_step_ns === undefined ? "–" : (r.delta_per_step_ns > 0 ? "+" : "") + msOf(r.delta_per_step_ns)),
      el("td", { class: "num" }, pct(r.delta_avg_pct)), el("td", { class: "num" }, ci(r.ci95_pct)), verdictCell(r.verdict)));
  if (!rows.length) b.append(el("tr", {}, el("td", { colspan: 8, class: "empty" },
    unknown ? "unknown: a run has no " + what + " list to compare with" : "neither run lists any")));
  t.append(b);
  return t;
}

// {name: {base, candidate, delta, delta_pct}} of seconds (the timeline) as a table in ms.
function timelineTable(tl) {
  const t = headTable("timeline-deltas", [["timeline"], ["base ms", 1], ["candidate ms", 1], ["Δ ms", 1], ["Δ %", 1]]);
  const b = el("tbody", {});
  for (const [name, d] of Object.entries(tl || {})) {
    const secs = name.endsWith("_seconds");
    const cell = (v, signed) => (secs ? sMs(v, signed) : fmt(v, 1));
    b.append(el("tr", { "data-metric": name }, el("td", {}, secs ? name.replace("_seconds", "") : name), el("td", { class: "num" }, cell(d.base)),
      el("td", { class: "num" }, cell(d.candidate)), el("td", { class: "num " + (name.startsWith("busy") || name.startsWith("overlap") ? "neutral" : verdict("host_gap", d.delta)) }, cell(d.delta, true)),
      el("td", { class: "num" }, pct(d.delta_pct))));
  }
  t.append(b);
  return t;
}

// Per kernel class: seconds on each side, the change and the ratio.
function classTable(kc) {
  const t = headTable("class-deltas", [["kernel class"], ["base ms", 1], ["candidate ms", 1], ["Δ ms", 1], ["ratio", 1]]);
  const b = el("tbody", {});
  const rows = Object.entries(kc || {}).filter(([, d]) => d.base_seconds || d.candidate_seconds)
    .sort((p, q) => Math.abs(q[1].delta_seconds || 0) - Math.abs(p[1].delta_seconds || 0));
  for (const [name, d] of rows)
    b.append(el("tr", { "data-class": name }, el("td", {}, name), el("td", { class: "num" }, sMs(d.base_seconds)), el("td", { class: "num" }, sMs(d.candidate_seconds)),
      el("td", { class: "num " + verdict("host_gap", d.delta_seconds) }, sMs(d.delta_seconds, true)), el("td", { class: "num" }, d.ratio === null ? "–" : fmt(d.ratio, 3) + "×")));
  t.append(b);
  return t;
}

// Per part of the step breakdown: medians and the verdict, as for the step time.
function partsTable(parts) {
  const t = headTable("part-deltas", [["step part"], ["base ms", 1], ["candidate ms", 1], ["Δ %", 1], ["95 % CI", 1], ["verdict"]]);
  const b = el("tbody", {});
  for (const [name, d] of Object.entries(parts || {})) {
    const p = name.replace(/_ns$/, "");
    b.append(el("tr", {}, el("td", { title: PART_DEFS[p] ? partTitle(p) : "" }, p), el("td", { class: "num" }, msOf(d.base_median_ns)),
      el("td", { class: "num" }, msOf(d.candidate_median_ns)), el("td", { class: "num" }, pct(d.delta_pct)), el("td", { class: "num" }, ci(d.ci95_pct)), verdictCell(d.verdict)));
  }
  t.append(b);
  return t;
}

async function loadCompare() {
  const box = $("compare");
  state.base = $("base").value || state.base;
  state.candidate = $("candidate").value || state.candidate;
  if (!state.base || !state.candidate) {
    shown(box, "", "empty");
    box.textContent = state.runs.some((r) => r.status === "complete") ? "choose two complete runs" : "no complete runs to compare yet";
    return;
  }
  const pair = state.base + " " + state.candidate;
  loading(box, "the comparison", pair);
  const c = await api("/compare?base=" + encodeURIComponent(state.base) + "&candidate=" + encodeURIComponent(state.candidate) + "&rows=" + MOVER_ROWS);
  if (c.status !== 200) { shown(box, pair, "empty"); box.textContent = (c.body && c.body.detail) || ("HTTP " + c.status); return; }
  const x = c.body;
  // the buckets as /compare knows them (null: unknown on that side, no segment), never
  // RunMetrics' placeholders
  const side = (k) => Object.fromEntries(BUCKETS.map((b) => [b, (x.waste_budget[b] || {})[k] ?? null]));
  const tb = side("base"), tc = side("candidate");
  const sum = (w) => BUCKETS.reduce((s, b) => s + (w[b] || 0), 0);
  const scale = Math.max(sum(tb), sum(tc));
  const row = (label, w) => el("div", { style: "display:flex;gap:8px;align-items:center;margin:4px 0" },
    el("div", { style: "width:90px;color:var(--dim)" }, label),
    el("div", { style: "flex:1" }, el("div", { style: "width:" + (sum(w) / scale * 100) + "%" }, stackBar(w, sum(w), "compare-bar-" + label))));
  const t = headTable("headline-deltas", [[""], ["base", 1], ["candidate", 1], ["Δ", 1], ["Δ %", 1]]);
  const b = el("tbody", {});
  for (const [name, d] of [...Object.entries(x.headline), ...Object.entries(x.waste_budget)])
    b.append(el("tr", {}, el("td", {}, name), el("td", { class: "num" }, fmt(d.base, 4)), el("td", { class: "num" }, fmt(d.candidate, 4)),
      el("td", { class: "num " + verdict(name, d.delta), "data-metric": name }, fmt(d.delta, 4)),
      el("td", { class: "num " + verdict(name, d.delta) }, d.delta_pct === null ? "–" : fmt(d.delta_pct, 1))));
  t.append(b);
  shown(box, pair);
  const prof = (id) => profileText((state.runs.find((r) => r.id === id) || {}).profile);
  const kd = x.kernel_diff, od = x.op_diff;
  const diffNote = (d, what) => (d ? d.names + " " + what + " names, " + d.tested + " tested at α " + d.alpha_per_name.toPrecision(2) + " each; " +
    d.added + " added, " + d.removed + " removed" : "no " + what + " list in one run or both: nothing to compare");
  const grid = (...kids) => el("div", { style: "display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;margin-top:10px" }, ...kids);
  box.replaceChildren(el("div", { class: "summary", id: "summary" }, x.summary), stepVerdict(x.step_time),
    el("div", { class: "profile" }, "base " + x.base.id + ": " + prof(x.base.id) + " · candidate " + x.candidate.id + ": " + prof(x.candidate.id)),
    el("h2", { style: "margin-top:12px" }, "Top movers: kernels"), el("div", { class: "note" }, diffNote(kd, "kernel")), moversTable("movers-kernels", x.kernels, "kernel"),
    el("h2", { style: "margin-top:12px" }, "Top movers: operators"), el("div", { class: "note" }, diffNote(od, "operator")), moversTable("movers-ops", x.ops, "operator"),
    grid(el("div", {}, timelineTable(x.timeline)), el("div", {}, classTable(x.kernel_classes))),
    grid(el("div", {}, partsTable(x.step_parts)), el("div", {}, row("base", tb), row("candidate", tc), legend({}, 0))), t);
}
