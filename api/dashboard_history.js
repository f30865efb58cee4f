// goblind dashboard, part 4 of 5 (inlined into dashboard.html by api/embed.cmake): the history
// chart (per series from GET /series, else the last complete runs).
// The history: tokens/s and busy % of the last HISTORY_RUNS complete runs, oldest first
// (tokens/s and GPU utilisation from GET /runs, busy % from each run's analysis document).
async function loadHistory() {
  const box = $("history");
  const r = await api("/runs?status=complete&limit=" + HISTORY_RUNS);
  const runs = ((r.body && r.body.runs) || []).slice().reverse();
  if (!runs.length) { box.className = "empty"; box.textContent = "no complete runs yet"; return; }
  const busy = [];
  for (const run of runs) {
    const d = await apiPicked("history", "/runs/" + encodeURIComponent(run.id) + "/analysis",
      (b) => ({ busy_pct: b.timeline && b.timeline.run ? b.timeline.run.busy_pct : null }));
    busy.push(d.value ? d.value.busy_pct : null);
  }
  const n = runs.length, every = Math.max(1, Math.ceil(n / 6)), xTicks = [];
  const oneDay = runs.every((x) => (x.updated_at || "").slice(0, 10) === (runs[0].updated_at || "").slice(0, 10));
  for (let i = 0; i < n; i += every) xTicks.push([i, oneDay ? (runs[i].updated_at || "").slice(11, 19) : (runs[i].updated_at || "").slice(5, 16).replace("T", " ")]);
  // runs finished within one second: their ids say more than equal times
  if (new Set(xTicks.map((t) => t[1])).size < xTicks.length) for (const t of xTicks) t[1] = runs[t[0]].id.slice(0, 18);
  const pts = (f) => runs.map((x, i) => { const v = f(x, i); return [i, v === null || v === undefined ? null : v, x.id + ": " + fmt(v, 1)]; });
  const tps = pts((x) => x.tokens_per_sec), top = Math.max(1, ...tps.map((p) => p[1] || 0));
  const W = widthOf(box, 2);
  const c1 = lineChart({ id: "hist-tps", width: W, height: 140, title: "tokens/s", x0: 0, x1: Math.max(1, n - 1), xTicks,
    yMax: tickStep(top, 3) * Math.ceil(top * 1.02 / tickStep(top, 3)), yFmt: (v) => v >= 1000 ? (v / 1000).toFixed(0) + "k" : v.toFixed(0),
    lines: [{ segments: segmentsOf(tps), color: "#4fb3ff", cls: "hist-line", dots: "hist-point", label: "tokens/s" }] });
  const c2 = lineChart({ id: "hist-busy", width: W, height: 140, title: "busy % (timeline) · GPU util % (telemetry, dashed)", x0: 0,
    x1: Math.max(1, n - 1), xTicks, yMax: 100, yFmt: (v) => v.toFixed(0),
    lines: [{ segments: segmentsOf(pts((x, i) => busy[i])), color: "#3fb950", cls: "hist-line", dots: "hist-point", label: "busy %" },
            { segments: segmentsOf(pts((x) => x.gpu_util_pct)), color: "#f0d77a", dash: true, cls: "hist-util", label: "GPU util %" }] });
  $("history-sub").textContent = "· the last " + n + " complete runs, oldest left";
  box.className = "";
  box.style.cssText = "display:grid;grid-template-columns:1fr 1fr;gap:12px";
  box.replaceChildren(c1, c2);
}

