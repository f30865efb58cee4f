// goblind dashboard, part 4 of 5 (inlined into dashboard.html by api/embed.cmake): the history
// chart. With series (GET /series, docs/API.md) it draws one series — the one chosen, else the
// selected run's `labels.series`, else the first listed — run by run, oldest left, with every run
// the series flags as a regression (slower than its baseline beyond the noise) ringed in red;
// when the daemon has no /series endpoint (404) or no series yet, the last complete runs. The x
// axis is the runs, labelled by id, never by time.

// A run id short enough for an axis label (its start and end; the full id is in the tooltip).
const shortId = (id) => (id.length > 16 ? id.slice(0, 7) + "…" + id.slice(-7) : id);

// The history's rows from a series document: [{id, step_ms, tps, busy, util, regression, title}].
function seriesRows(doc) {
  return (doc.runs || []).map((r) => {
    const v = r.vs_baseline, p = r.vs_previous;
    const why = (what, x) => (x ? what + " " + (x.verdict || "unknown").replace("_", " ") + " " + pct(x.delta_pct) + " (95 % CI " + ci(x.ci95_pct) + ")" : what + " –");
    return { id: r.id, step_ms: r.step_time_ms, tps: r.tokens_per_s, busy: r.busy_pct, util: null, regression: r.regression === true,
             title: r.id + (r.regression ? " · REGRESSION" : "") + " · " + why("vs baseline", v) + " · " + why("vs previous", p) };
  });
}

// The history's rows from the last complete runs (no series): busy % from each run's analysis.
async function recentRows() {
  const r = await api("/runs?status=complete&limit=" + HISTORY_RUNS);
  const runs = ((r.body && r.body.runs) || []).slice().reverse();
  const rows = [];
  for (const run of runs) {
    const d = await apiPicked("history", "/runs/" + encodeURIComponent(run.id) + "/analysis",
      (b) => ({ busy_pct: b.timeline && b.timeline.run ? b.timeline.run.busy_pct : null }));
    rows.push({ id: run.id, step_ms: run.step_time_seconds === null || run.step_time_seconds === undefined ? null : run.step_time_seconds * 1000,
                tps: run.tokens_per_sec, busy: d.value ? d.value.busy_pct : null, util: run.gpu_util_pct, regression: false, title: run.id });
  }
  return rows;
}

// Which series to draw, and its document; null when the daemon has no series (404: endpoint
// absent, or an empty list).
async function pickSeries() {
  const sel = $("series");
  const s = await api("/series");
  const list = (s.status === 200 && s.body && s.body.series) || [];
  if (!list.length) { sel.hidden = true; return null; }
  const keys = list.map((x) => x.key);
  if (!keys.includes(state.series)) {
    const mine = state.waste && state.waste.run === state.run ? state.waste.series : null;
    state.series = keys.includes(mine) ? mine : keys[0];
  }
  sel.replaceChildren(...list.map((x) => el("option", { value: x.key }, x.key + " · " + x.runs + " runs" + (x.regression ? " · regression" : ""))));
  sel.value = state.series;
  sel.hidden = false;
  const d = await api("/series/" + encodeURIComponent(state.series) + "?limit=" + HISTORY_RUNS);
  return d.status === 200 && d.body ? d.body : null;
}

async function loadHistory() {
  const box = $("history");
  if (!box.dataset.shows) loading(box, "the history");
  const series = await pickSeries();
  const rows = series ? seriesRows(series) : await recentRows();
  if (!rows.length) { shown(box, "none", "empty"); box.style.cssText = ""; box.textContent = "no complete runs yet"; $("history-sub").textContent = ""; return; }
  const n = rows.length, every = Math.max(1, Math.ceil(n / 5)), xTicks = [];
  for (let i = 0; i < n; i += every) xTicks.push([i, shortId(rows[i].id)]);
  const pts = (f) => rows.map((x, i) => { const v = f(x); return [i, v === null || v === undefined ? null : v, x.title + ": " + fmt(v, 1)]; });
  const top = (ps) => Math.max(1, ...ps.map((p) => p[1] || 0));
  const yMax = (t) => tickStep(t, 3) * Math.ceil(t * 1.02 / tickStep(t, 3));
  const W = widthOf(box, 3), x1 = Math.max(1, n - 1);
  const step = pts((x) => x.step_ms);
  const regress = rows.map((x, i) => [i, x.step_ms, x.title]).filter((p, i) => rows[i].regression && p[1] !== null && p[1] !== undefined);
  const c0 = lineChart({ id: "hist-step", width: W, height: 150, title: "step time (ms)" + (series ? " · red ring: regression" : ""), x0: 0, x1, xTicks,
    yMax: yMax(top(step)), yFmt: (v) => v.toFixed(v < 10 ? 1 : 0), marks: regress, markClass: "hist-regression",
    lines: [{ segments: segmentsOf(step), color: "#f0d77a", cls: "hist-line", dots: "hist-point", label: "step time" }] });
  const tps = pts((x) => x.tps);
  const c1 = lineChart({ id: "hist-tps", width: W, height: 150, title: "tokens/s", x0: 0, x1, xTicks,
    yMax: yMax(top(tps)), yFmt: (v) => v >= 1000 ? (v / 1000).toFixed(0) + "k" : v.toFixed(0),
    lines: [{ segments: segmentsOf(tps), color: "#4fb3ff", cls: "hist-line", dots: "hist-point", label: "tokens/s" }] });
  const c2 = lineChart({ id: "hist-busy", width: W, height: 150, title: "busy % (timeline)" + (series ? "" : " · GPU util % (telemetry, dashed)"), x0: 0,
    x1, xTicks, yMax: 100, yFmt: (v) => v.toFixed(0),
    lines: [{ segments: segmentsOf(pts((x) => x.busy)), color: "#3fb950", cls: "hist-line", dots: "hist-point", label: "busy %" },
            { segments: segmentsOf(pts((x) => x.util)), color: "#f0d77a", dash: true, cls: "hist-util", label: "GPU util %" }] });
  for (const c of [c0, c1, c2]) c.setAttribute("data-runs", rows.map((x) => x.id).join(" "));
  const flagged = rows.filter((x) => x.regression).length;
  // the key as written (the heading is upper-cased; a key is case-sensitive)
  if (series) $("history-sub").replaceChildren("· series ", el("span", { class: "key" }, series.key), " (" + series.key_source + ") · its last " + n +
    " runs, oldest left · " + flagged + " regression" + (flagged === 1 ? "" : "s") + " vs the baseline of " + series.baseline_runs + " runs");
  else $("history-sub").textContent = "· the last " + n + " complete runs, oldest left (no series)";
  shown(box, series ? "series " + series.key : "recent");
  box.dataset.source = series ? "series" : "recent";
  box.style.cssText = "display:grid;grid-template-columns:1fr 1fr 1fr;gap:12px";
  box.replaceChildren(c0, c1, c2);
}
