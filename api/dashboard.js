// goblind dashboard, part 1 of 5 (inlined into dashboard.html at build time by api/embed.cmake):
// error counting, state and the URL, the API fetch, the runs table and the selected run's numbers.
"use strict";
(function () {
  // Count errors where a test (and a person) can see them.
  const bump = () => { document.body.dataset.errors = String(Number(document.body.dataset.errors) + 1); };
  window.addEventListener("error", bump);
  window.addEventListener("unhandledrejection", bump);
  const origError = console.error;
  console.error = function () { bump(); origError.apply(console, arguments); };
})();

const BUCKETS = ["useful_gpu", "data_wait", "host_gap", "comm_excess", "memory_headroom", "precision_path", "kernel_shape"];
const COLORS = { useful_gpu:"#3fb950", data_wait:"#d29922", host_gap:"#db6d28", comm_excess:"#a371f7",
                 memory_headroom:"#58a6ff", precision_path:"#f778ba", kernel_shape:"#ff7b72" };
const params = new URLSearchParams(location.search);
const state = { run: params.get("run"), base: params.get("base"), candidate: params.get("candidate"), series: params.get("series"), runs: [],
                cursor: params.get("cursor"), next: null, limit: Math.min(1000, Math.max(1, Number(params.get("limit")) || 50)) };
// Deltas are coloured by what is better: higher throughput, MFU and utilisation; less step time
// and less waste. Useful GPU time and memory are neither.
const HIGHER_BETTER = new Set(["tokens_per_sec", "mfu_pct", "gpu_util_pct"]);
const LOWER_BETTER = new Set(["step_seconds", "data_wait", "host_gap", "comm_excess", "memory_headroom", "precision_path", "kernel_shape"]);
function verdict(name, delta) {
  if (!delta) return "neutral";
  if (HIGHER_BETTER.has(name)) return delta > 0 ? "better" : "worse";
  if (LOWER_BETTER.has(name)) return delta < 0 ? "better" : "worse";
  return "neutral";
}
const $ = (id) => document.getElementById(id);
const tokenInput = $("token");
tokenInput.value = localStorage.getItem("goblind-token") || "";
tokenInput.addEventListener("change", () => { localStorage.setItem("goblind-token", tokenInput.value); refresh(); });
$("token-form").addEventListener("submit", (e) => { e.preventDefault(); tokenInput.dispatchEvent(new Event("change")); });

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "style") e.style.cssText = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
const fmt = (v, d) => (v === null || v === undefined) ? "–" : Number(v).toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
// A box whose data is on its way says so ("loading …"), never an answer such as "no runs yet";
// `shows` records what the box shows once drawn, so a 5 s refresh of the same thing does not
// blank it again.
function loading(box, what, shows) {
  if (shows !== undefined && box.dataset.shows === shows) return;
  box.className = "empty loading";
  box.textContent = "loading " + what + "…";
  delete box.dataset.shows;
}
function shown(box, shows, cls) { box.className = cls === undefined ? "" : cls; box.dataset.shows = shows; }
// A value the run does not know: null, absent, RunMetrics' "unknown", or anything of a failed run.
const known = (v, failed) => (failed || v === null || v === undefined || v === "unknown" ? "–" : v);

async function api(path) {
  const headers = tokenInput.value ? { Authorization: "Bearer " + tokenInput.value } : {};
  const r = await fetch(path, { headers });
  const body = r.status === 304 ? null : await r.json().catch(() => null);
  return { status: r.status, body };
}

function setUrl() {
  const p = new URLSearchParams();
  for (const k of ["run", "base", "candidate", "series", "cursor"]) if (state[k]) p.set(k, state[k]);
  if (state.limit !== 50) p.set("limit", String(state.limit));
  if (document.body.dataset.focus) p.set("focus", document.body.dataset.focus);
  history.replaceState(null, "", "?" + p.toString());
}

function stackBar(waste, total, id) {
  const bar = el("div", { class: "stack", id: id || "", "data-segments": "0" });
  let n = 0;
  for (const b of BUCKETS) {
    const v = waste[b] || 0;
    if (v <= 0 || total <= 0) continue;
    bar.append(el("div", { title: b + ": " + v.toPrecision(4) + " s/step", style: "width:" + (v / total * 100) + "%;background:" + COLORS[b] }));
    n++;
  }
  bar.dataset.segments = String(n);
  return bar;
}

function legend(waste, total) {
  const l = el("div", { class: "legend" });
  for (const b of BUCKETS) {
    const v = waste[b] || 0;
    const text = waste[b] === null ? b + " –" : total > 0 ? b + " " + v.toPrecision(3) + " s (" + (v / total * 100).toFixed(1) + "%)" : b;
    l.append(el("span", {}, el("i", { style: "background:" + COLORS[b] }), text));
  }
  return l;
}

// A run's profile (its source families, docs/API.md "Profiles") as text; "–" when none.
const profileText = (p) => (p && p.length ? p.join(", ") : "–");

// Where each headline number came from (GET /runs/<id>'s headline_sources): field, value, rule, source.
function sourcesTable(h) {
  const src = h.headline_sources || {};
  const val = { step_time_seconds: fmt(h.step_time_seconds, 4) + " s", gpu_util_pct: fmt(h.gpu_util_pct, 1) + " %",
    hbm_peak_gb: fmt(h.hbm_peak_gb, 1) + " GB", tokens_per_sec: fmt(h.tokens_per_sec, 1), mfu_pct: fmt(h.mfu_pct, 1) + " %",
    top_kernels: "" };
  const t = el("table", { id: "headline-sources" }, el("thead", {}, el("tr", {}, el("th", {}, "number"), el("th", { class: "num" }, "value"),
    el("th", {}, "rule"), el("th", {}, "source"))));
  const b = el("tbody", {});
  for (const [k, o] of Object.entries(src))
    b.append(el("tr", {}, el("td", {}, k), el("td", { class: "num" }, o ? val[k] : "–"), el("td", {}, o ? o.rule : "unknown"),
      el("td", { class: "kname", title: o ? o.source : "" }, o ? o.source : "–")));
  t.append(b);
  return t;
}

function renderRuns() {
  const tb = $("runs");
  tb.replaceChildren();
  if (!state.runs.length) { tb.append(el("tr", {}, el("td", { colspan: 7, class: "empty" }, "no runs yet"))); return; }
  for (const r of state.runs) {
    const tr = el("tr", { class: "run" + (r.id === state.run ? " selected" : ""), "data-id": r.id },
      el("td", { class: "rid", title: r.id + " · " + profileText(r.profile) }, r.id,
        el("div", { class: "profile" }, profileText(r.profile))), el("td", {}, el("span", { class: "badge " + (r.status === "empty" ? "empty-run" : r.status),
        title: r.status === "empty" ? "no profile file in this directory" : "" }, r.status)),
      el("td", { title: r.updated_at || "" }, (r.updated_at || "").slice(5, 19).replace("T", " ")),
      el("td", { class: "num" }, fmt(r.tokens_per_sec, 1)), el("td", { class: "num" }, fmt(r.mfu_pct, 1)),
      el("td", { class: "num" }, fmt(r.gpu_util_pct, 1)), el("td", { class: "num" }, fmt(r.step_time_seconds, 4)));
    tr.addEventListener("click", () => { state.run = r.id; setUrl(); renderRuns(); loadRun().then(loadCharts); });
    tb.append(tr);
  }
  $("next-page").disabled = !state.next;
  $("first-page").disabled = !state.cursor;
  $("page-info").textContent = (state.cursor ? "older runs" : "newest runs") + " · " + state.runs.length + " shown";
  for (const id of ["base", "candidate"]) {
    const sel = $(id);
    const keep = state[id];
    sel.replaceChildren(el("option", { value: "" }, "—"));
    for (const r of state.runs.filter((x) => x.status === "complete")) sel.append(el("option", { value: r.id }, r.id));
    sel.value = keep || "";
  }
}

// The run's waste budget as far as it is known: null when the budget is unknown (no step time,
// or a failed run: every bucket is RunMetrics' 0 placeholder); otherwise bucket -> seconds, null for
// a bucket whose warning says it is unknown ("host_gap unknown (...): reported as 0").
function knownWaste(x, h, failed) {
  if (failed || h.step_time_seconds === null || h.step_time_seconds === undefined) return null;
  const w = {};
  for (const b of BUCKETS)
    w[b] = (x.warnings || []).some((t) => t.startsWith(b + " unknown")) ? null : (x.waste_budget || {})[b] ?? null;
  return w;
}

async function loadRun() {
  const body = $("run-body");
  $("run-id").textContent = state.run || "";
  if (!state.run) { shown(body, "", "empty"); body.textContent = state.runs.length ? "select a run" : "no runs yet"; return; }
  loading(body, "run " + state.run, state.run);
  const m = await api("/runs/" + encodeURIComponent(state.run) + "/metrics");
  if (m.status === 202) { await loadPartial(body); return; }
  if (m.status !== 200 && m.status !== 422) { shown(body, state.run, "empty"); body.textContent = (m.body && m.body.detail) || ("HTTP " + m.status); return; }
  const k = await api("/runs/" + encodeURIComponent(state.run) + "/kernels?limit=10");
  // the headline numbers from /runs/<id>: null (shown "–") when the parse did not measure them,
  // where the RunMetrics body says 0; a failed run (422) measured nothing, and steps taken from
  // the default (the torch profile's steps_source "default") are no count either
  const h = (await api("/runs/" + encodeURIComponent(state.run))).body || {};
  const x = m.body, failed = m.status === 422;
  const torch = (h.artefacts || []).find((a) => typeof a.steps_source === "string");
  const stepsKnown = !failed && !(torch && torch.steps_source === "default");
  const w = knownWaste(x, h, failed);
  state.waste = { run: state.run, w, step: h.step_time_seconds, util: h.gpu_util_pct, rule: ((h.headline_sources || {}).step_time_seconds || {}).rule,
                  series: (h.labels || {}).series };
  const total = w ? BUCKETS.reduce((s, b) => s + (w[b] || 0), 0) : 0;
  const cards = el("div", { class: "cards", id: "run-cards" },
    ...[["tokens/s", fmt(h.tokens_per_sec, 1)], ["MFU", fmt(h.mfu_pct, 1) + " %"], ["GPU util", fmt(h.gpu_util_pct, 1) + " %"],
        ["HBM peak", fmt(h.hbm_peak_gb, 1) + " GB"], ["steps", stepsKnown ? x.steps : "–"], ["step time", fmt(h.step_time_seconds, 4) + " s"],
        ["attention", known(x.attention_kernel_loaded, failed)], ["PyTorch / ROCm", known(x.pytorch_version, failed) + " / " + known(x.rocm_version, failed)]]
      .map(([kk, v]) => el("div", { class: "card" }, el("div", { class: "v" }, v), el("div", { class: "k" }, kk))));
  const kt = el("table", {}, el("thead", {}, el("tr", {}, el("th", { class: "num" }, "% time"), el("th", { class: "num" }, "calls"),
    el("th", { class: "num" }, "avg µs"), el("th", {}, "kernel"))));
  const kb = el("tbody", { id: "kernels" });
  for (const r of (k.body && k.body.kernels) || [])
    kb.append(el("tr", {}, el("td", { class: "num" }, fmt(r.pct_time, 2)), el("td", { class: "num" }, r.calls),
      el("td", { class: "num" }, fmt(r.avg_ns / 1000, 1)), el("td", { class: "kname", title: r.name }, r.name)));
  kt.append(kb);
  const warns = el("div", {}, ...(failed ? [el("div", { class: "warn" }, "✖ this run failed: its numbers are not a measurement")] : []),
    ...(x.warnings || []).map((t) => el("div", { class: "warn" }, "⚠ " + t)));
  shown(body, state.run);
  const labels = Object.entries(h.labels || {}).map(([kk, v]) => kk + "=" + v).join(" · ");
  const prof = el("div", { class: "profile", id: "run-profile" }, "profile: " + profileText(h.profile) + (labels ? " · labels: " + labels : ""));
  const budget = w ? [stackBar(w, total, "waste-bar"), legend(w, total)]
    : [el("div", { class: "empty", id: "waste-unknown" }, "unknown: " + (failed ? "the run failed, its numbers are not a measurement" : "no step time, and every bucket needs one"))];
  body.replaceChildren(prof, cards, el("h2", {}, "Where the numbers come from"), sourcesTable(h),
    el("h2", { title: "a model of the step time (docs/HEURISTICS.md): GPU utilisation from telemetry and the kernel classes split the step into useful GPU time and six kinds of waste; the step breakdown below measures the same step from the trace" },
      "Waste budget (seconds per step)"), ...budget,
    el("h2", {}, "Top kernels"), kt, warns);
}

// A run not final yet: what is already known — its listed numbers, its artefacts as parsed so far,
// the warnings of the last parse.
async function loadPartial(body) {
  const d = await api("/runs/" + encodeURIComponent(state.run));
  const row = state.runs.find((r) => r.id === state.run) || {};
  const x = d.body || {};
  const cards = el("div", { class: "cards" },
    ...[["status", x.status || row.status || "?"], ["tokens/s", fmt(x.tokens_per_sec, 1)], ["MFU", fmt(x.mfu_pct, 1) + " %"],
        ["GPU util", fmt(x.gpu_util_pct, 1) + " %"], ["HBM peak", fmt(x.hbm_peak_gb, 1) + " GB"],
        ["step time", fmt(x.step_time_seconds, 4) + " s"], ["parses", x.ingest_count || 0],
        ["last parse", x.last_parse_ms === null || x.last_parse_ms === undefined ? "–" : fmt(x.last_parse_ms, 1) + " ms"]]
      .map(([kk, v]) => el("div", { class: "card" }, el("div", { class: "v" }, v), el("div", { class: "k" }, kk))));
  const at = el("table", { id: "run-partial" }, el("thead", {}, el("tr", {}, el("th", {}, "artefact"), el("th", {}, "found"),
    el("th", { class: "num" }, "size"), el("th", { class: "num" }, "parsed"), el("th", {}, "format / error"))));
  const ab = el("tbody", {});
  for (const a of x.artefacts || [])
    ab.append(el("tr", { class: "partial" }, el("td", {}, a.kind), el("td", {}, a.present ? "yes" : "not yet"),
      el("td", { class: "num" }, a.present ? fmt(a.size, 0) : "–"), el("td", { class: "num" }, a.present ? fmt(a.bytes_parsed, 0) : "–"),
      el("td", { class: "kname", title: a.error || a.format || "" }, a.error || a.format || "")));
  at.append(ab);
  const warns = el("div", {}, ...(x.warnings || []).map((t) => el("div", { class: "warn" }, "⚠ " + t)));
  shown(body, state.run);
  body.replaceChildren(el("div", { class: "empty" }, "still being written or parsed; what is known so far:"), cards,
    el("h2", {}, "Artefacts"), at, warns);
}

