// goblind dashboard, part 2 of 5 (inlined into dashboard.html by api/embed.cmake): the SVG
// helpers and the selected run's charts (timeline, step breakdown, telemetry).
// ---- Charts: plain SVG built here from the analysis document (docs/ANALYSIS.md "timeline",
// "steps", "telemetry") and GET /runs; no library, nothing fetched from elsewhere. ----
const SVGNS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  if (tag === "text") e.setAttribute("fill", "#8a96a3");   // dim unless the caller says otherwise
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
const titled = (node, text) => { node.append(svgEl("title", {}, text)); return node; };
// A chart is as wide as the box it is drawn in (measured in the page), so nothing overflows.
const widthOf = (box, parts) => Math.max(280, Math.floor(((box.clientWidth || 600) - 12 * ((parts || 1) - 1)) / (parts || 1)));
// A round tick step (1, 2, 5 x 10^k) giving about n ticks over span.
function tickStep(span, n) {
  const raw = span / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  for (const m of [1, 2, 5]) if (m * p >= raw) return m * p;
  return 10 * p;
}
function fmtDur(ns) {
  if (ns === null || ns === undefined) return "unknown";
  if (!ns) return "0";
  const ms = ns / 1e6;
  if (ms >= 1000) return (ms / 1000).toFixed(ms >= 10000 ? 0 : 1) + " s";
  return (ms >= 10 ? ms.toFixed(0) : ms >= 0.1 ? ms.toFixed(1) : ms.toPrecision(1)) + " ms";
}
const GPU_COLORS = ["#4fb3ff", "#3fb950", "#f0d77a", "#f778ba", "#a371f7", "#ff7b72", "#79c0ff", "#db6d28"];
const PARTS = ["kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"];
const PART_COLORS = { kernel: "#3fb950", memcpy: "#58a6ff", memset: "#79c0ff", communication: "#a371f7", runtime: "#db6d28",
                      dataloader: "#d29922", cpu_exec: "#f778ba", other: "#4a5561" };
// What each part of the step breakdown is (docs/ANALYSIS.md "steps"; the parts take a step's
// time in this priority order, so they sum exactly to its wall time).
const PART_DEFS = {
  kernel: "GPU kernels (not communication)",
  memcpy: "memory copies",
  memset: "memsets",
  communication: "NCCL/RCCL kernels and nccl:* / gloo:* / c10d::* CPU ops",
  runtime: "HIP/CUDA runtime and driver calls, HSA calls",
  dataloader: "enumerate(DataLoader)# / enumerate(DataPipe)# ranges",
  cpu_exec: "every other CPU op, annotation and Python frame",
  other: "the rest of the step: time that no kernel, copy, memset, collective, runtime call, DataLoader range or CPU op of the trace covers (other_ns = wall − the seven parts before it; e.g. Python outside any recorded op, waits the profiler did not record)",
};
const partTitle = (p) => p + ": " + PART_DEFS[p];
const MAX_STREAM_ROWS = 24, MAX_STEP_BARS = 30, HISTORY_RUNS = 20;

// GETs a JSON document with If-None-Match and keeps only pick(body) per (kind, path) (the
// documents can be large; the page keeps the few numbers it draws).
const docCache = new Map();
async function apiPicked(kind, path, pick) {
  const headers = tokenInput.value ? { Authorization: "Bearer " + tokenInput.value } : {};
  const key = kind + " " + path, old = docCache.get(key);
  if (old) headers["If-None-Match"] = old.etag;
  const r = await fetch(path, { headers });
  if (r.status === 304 && old) return old;
  const body = await r.json().catch(() => null);
  const out = { status: r.status, etag: r.headers.get("ETag"), value: body && (r.status === 200 || r.status === 422) ? pick(body) : null, body };
  if (out.etag && out.value) {
    docCache.delete(key);
    docCache.set(key, { status: out.status, etag: out.etag, value: out.value });
    if (docCache.size > 2 * HISTORY_RUNS + 4) docCache.delete(docCache.keys().next().value);
  }
  return out;
}

// A line chart: lines = [{segments: [[[x, y], ...], ...], color, cls, dash, label}], x in data
// units over [x0, x1], y over [0, yMax]; xTicks = [[x, label]].
function lineChart(o) {
  const W = o.width, H = o.height || 130, L = 52, R = 10, T = 18, B = 18, pw = W - L - R, ph = H - T - B;
  const X = (x) => L + (o.x1 > o.x0 ? (x - o.x0) / (o.x1 - o.x0) : 0.5) * pw, Y = (y) => T + ph - Math.min(1, y / o.yMax) * ph;
  const svg = svgEl("svg", { class: "chart", id: o.id || "", width: W, height: H, viewBox: `0 0 ${W} ${H}` });
  svg.append(svgEl("text", { x: L, y: 12, fill: "#d7dde3" }, o.title));
  const ys = tickStep(o.yMax, 3);
  for (let y = 0; y <= o.yMax * 1.0001; y += ys) {
    svg.append(svgEl("line", { class: "axis", x1: L, x2: L + pw, y1: Y(y), y2: Y(y) }));
    svg.append(svgEl("text", { x: L - 4, y: Y(y) + 4, "text-anchor": "end" }, o.yFmt(y)));
  }
  for (const [x, label] of o.xTicks || []) {
    const at = X(x), anchor = at < L + 30 ? "start" : at > L + pw - 30 ? "end" : "middle";
    svg.append(svgEl("text", { x: at, y: H - 4, "text-anchor": anchor }, label));
  }
  let n = 0;
  for (const line of o.lines)
    for (const seg of line.segments) {
      if (!seg.length) continue;
      const pts = seg.map(([x, y]) => X(x).toFixed(1) + "," + Y(y).toFixed(1)).join(" ");
      svg.append(titled(svgEl("polyline", { class: line.cls, points: pts, fill: "none", stroke: line.color, "stroke-width": line.dash ? 1 : 1.8,
        "stroke-dasharray": line.dash ? "3,3" : "none", opacity: line.dash ? 0.7 : 1 }), line.label));
      if (line.dots) for (const [x, y, t] of seg) svg.append(titled(svgEl("circle", { class: line.dots, cx: X(x), cy: Y(y), r: 3, fill: line.color }), t || ""));
      if (!line.dash) n++;
    }
  // marks: rings around points ([[x, y, title]], class o.markClass), e.g. the runs a series flags as regressions
  for (const [x, y, t] of o.marks || [])
    svg.append(titled(svgEl("circle", { class: o.markClass || "mark", cx: X(x), cy: Y(y), r: 6, fill: "none", stroke: "#ff7b72", "stroke-width": 2 }), t || ""));
  svg.setAttribute("data-lines", String(n));
  return svg;
}

// Splits [[x, y|null], ...] into runs of known points (a gap in the data is a gap in the line).
function segmentsOf(points) {
  const out = [[]];
  for (const p of points) {
    if (p[1] === null || p[1] === undefined) { if (out[out.length - 1].length) out.push([]); } else out[out.length - 1].push(p);
  }
  return out.filter((s) => s.length);
}

// One name per GPU (docs/API.md "GET /", "One name per GPU"). Telemetry (amd-smi, nvidia-smi), torch
// traces and the device section number GPUs by their index from 0; the AMD profilers' kernel
// traces (rocprofv3 CSV and JSON, rocpd, legacy rocprof: every format named rocprof* or rocpd*,
// and kernel-trace-csv) by the HSA agent's node id, which counts the CPU agents first (agent 4 is
// GPU 0 on a node with four CPU agents). The page names every GPU "gpu <index>": when the kernel
// source numbers by agent and the run's GPU indices (telemetry's, else the device section's) are
// exactly as many as its agents, the agents map to the indices in order (the same order both
// enumerate in); otherwise such a lane is named "agent <id>", never a guessed GPU.
const AGENT_FORMAT = /^(rocprof|rocpd|kernel-trace-csv)/;
function gpuNamer(doc) {
  const agents = (doc.sources || []).some((s) => s.kernels_chosen && s.device_clock && AGENT_FORMAT.test(s.format || ""));
  const tlDevs = [...new Set(((doc.timeline && doc.timeline.devices) || []).map((d) => d.device).filter((d) => d !== null && d !== undefined))].sort((a, b) => a - b);
  const telDevs = (((doc.telemetry && doc.telemetry.gpus) || []).map((g) => g.device)).filter((d) => d !== null && d !== undefined);
  const devDevs = (((doc.device && doc.device.devices) || []).map((g) => g.device)).filter((d) => d !== null && d !== undefined);
  const index = [...new Set(telDevs.length ? telDevs : devDevs)].sort((a, b) => a - b);
  const map = new Map();
  if (agents && tlDevs.length && tlDevs.length === index.length) tlDevs.forEach((d, i) => map.set(d, index[i]));
  const name = (d) => (d === null || d === undefined ? "gpu ?" : !agents ? "gpu " + d : map.has(d) ? "gpu " + map.get(d) : "agent " + d);
  name.mapped = [...map].filter(([a, g]) => a !== g).map(([a, g]) => "gpu " + g + " = agent " + a + " of the kernel trace");
  return name;
}

function laneLabel(s, gpuName) {
  return (s.rank !== null && s.rank !== undefined ? "rank " + s.rank + " · " : "") + (gpuName || ((d) => "gpu " + (d ?? "?")))(s.device) + " · stream " + (s.stream ?? "?");
}

// The timeline: one row per stream (and the run), each bin a bar as tall as its busy share;
// the run's ProfilerStep ranges as bands when they are on the kernels' clock.
const OLDER_DOC = "this run's analysis was stored by an older goblind without this chart's data; it is drawn after the run is parsed again";
function renderTimeline(box, tl, steps, gpuName) {
  if (tl && tl.bin_count === undefined) { box.className = "empty"; box.textContent = OLDER_DOC; $("timeline-sub").textContent = ""; return; }
  if (!tl || !tl.bin_count) { box.className = "empty"; box.textContent = "no timed kernels, copies or memsets in this run"; $("timeline-sub").textContent = ""; return; }
  const W = widthOf(box), L = 190, R = 12, T = 22, rowH = 20, gap = 5;
  const rows = [{ label: "run · " + fmt(tl.run.busy_pct, 1) + " % busy", s: tl.run, run: true }];
  for (const st of tl.streams.slice(0, MAX_STREAM_ROWS)) rows.push({ label: laneLabel(st, gpuName) + " · " + fmt(st.busy_pct, 0) + " %", s: st });
  const n = tl.bin_count, t0 = tl.bin_start_ns, span = n * tl.bin_ns, pw = W - L - R;
  const X = (t) => L + Math.min(1, Math.max(0, (t - t0) / span)) * pw;
  const H = T + rows.length * (rowH + gap) + 16;
  const svg = svgEl("svg", { id: "timeline-svg", width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-rows": rows.length - 1 });
  const items = (steps && steps.items) || [];
  const endOf = (i) => i.end_ns ?? i.start_ns + i.wall_ns;
  const onClock = items.filter((i) => endOf(i) > t0 && i.start_ns < t0 + span);
  onClock.forEach((it, k) => {
    const a = X(it.start_ns), b = X(endOf(it));
    if (k % 2 === 0) svg.append(svgEl("rect", { x: a, y: T - 4, width: Math.max(0, b - a), height: H - T - 14, fill: "#1a2430" }));
    svg.append(titled(svgEl("line", { class: "step-mark", x1: a, x2: a, y1: 4, y2: H - 16, stroke: "#f0d77a", "stroke-dasharray": "3,3" }),
      it.name + ": " + fmtDur(it.wall_ns)));
    if (b - a > 24) svg.append(svgEl("text", { x: a + 3, y: 13, fill: "#f0d77a" }, it.name.replace("ProfilerStep", "step ")));
  });
  svg.setAttribute("data-steps", String(onClock.length));
  rows.forEach((row, i) => {
    const y = T + i * (rowH + gap), s = row.s;
    svg.append(svgEl("text", { x: 4, y: y + rowH - 6, fill: row.run ? "#d7dde3" : "#8a96a3" }, row.label));
    svg.append(titled(svgEl("rect", { x: X(s.start_ns), y, width: Math.max(1, X(s.end_ns) - X(s.start_ns)), height: rowH, fill: "#252f3a" }),
      "idle " + fmtDur(s.idle_ns) + " of " + fmtDur(s.span_ns)));
    const g = svgEl("g", { class: "busy-row", fill: row.run ? "#4fb3ff" : "#3fb950" });
    (s.bins || []).forEach((b, k) => {   // null: the run's union is unknown (timeline.retired)
      if (b <= 0) return;
      const h = Math.max(1, rowH * Math.min(1, b / tl.bin_ns));
      g.append(svgEl("rect", { class: "busy", x: (L + k * pw / n).toFixed(2), y: (y + rowH - h).toFixed(2), width: Math.max(0.6, pw / n).toFixed(2), height: h.toFixed(2) }));
    });
    svg.append(titled(g, (row.run ? "run" : laneLabel(s, gpuName)) + ": busy " + fmtDur(s.busy_ns) + " of " + fmtDur(s.span_ns)));
  });
  const step = tickStep(span, 10);
  for (let t = 0; t <= span; t += step) {
    svg.append(svgEl("line", { class: "axis", x1: X(t0 + t), x2: X(t0 + t), y1: H - 16, y2: H - 12 }));
    svg.append(svgEl("text", { x: X(t0 + t), y: H - 2, "text-anchor": "middle" }, fmtDur(t)));
  }
  const notes = [];
  if (tl.streams.length > MAX_STREAM_ROWS) notes.push(el("div", { class: "note" }, tl.streams.length - MAX_STREAM_ROWS + " more streams not drawn (GET /runs/<id>/analysis has them all)"));
  if (gpuName && gpuName.mapped.length)
    notes.push(el("div", { class: "note", id: "gpu-names", title: "the AMD profilers number a GPU by its HSA agent (CPU agents first); telemetry and torch traces by its index" },
      "one name per GPU: " + gpuName.mapped.join(", ")));
  if (items.length && !onClock.length)
    notes.push(el("div", { class: "note", id: "steps-other-clock" }, "ProfilerStep ranges are not marked: they are on another clock than the kernels (the torch trace's versus the kernel trace's)"));
  $("timeline-sub").textContent = "· span " + fmtDur(tl.run.span_ns) + " · " + n + " bins of " + fmtDur(tl.bin_ns) + " · bar height = busy share of the bin";
  box.className = "";
  box.replaceChildren(svg, ...notes);
}

// The step breakdown: one stacked bar per step (the TB plugin's priority parts) and the mean.
function renderSteps(box, steps) {
  if (!steps || !steps.items || !steps.items.length) { box.className = "empty"; box.textContent = "no ProfilerStep ranges in this run"; return; }
  const items = steps.items.slice(-MAX_STEP_BARS);
  const bars = [{ name: "mean", wall_ns: steps.mean.wall_ns, parts: steps.mean.parts }, ...items];
  const W = widthOf(box), L = 74, R = 64, rowH = 14, gap = 5, T = 2;
  const maxWall = Math.max(1, ...bars.map((b) => b.wall_ns)), pw = W - L - R;
  const H = T + bars.length * (rowH + gap) + 18;
  const svg = svgEl("svg", { id: "steps-svg", width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-bars": bars.length });
  const slowest = steps.slowest && steps.slowest.name;
  bars.forEach((b, i) => {
    const y = T + i * (rowH + gap) + (i ? 6 : 0);
    const label = i ? b.name.replace("ProfilerStep", "step ") : "mean";
    svg.append(svgEl("text", { x: 4, y: y + rowH - 3, fill: i === 0 ? "#d7dde3" : b.name === slowest ? "#ff9aa2" : "#8a96a3" }, label));
    const g = svgEl("g", { class: "step-bar" });
    let x = L;
    for (const p of PARTS) {
      const v = b.parts[p + "_ns"] || 0;
      if (v <= 0) continue;
      const w = v / maxWall * pw;
      g.append(titled(svgEl("rect", { class: "part", x: x.toFixed(2), y, width: Math.max(0.5, w).toFixed(2), height: rowH, fill: PART_COLORS[p] }),
        label + " · " + p + ": " + fmtDur(v) + " (" + (100 * v / b.wall_ns).toFixed(1) + " %) — " + PART_DEFS[p]));
      x += w;
    }
    svg.append(g, svgEl("text", { x: x + 4, y: y + rowH - 3 }, fmtDur(b.wall_ns)));
  });
  const step = tickStep(maxWall, 6);
  for (let t = 0; t <= maxWall; t += step) svg.append(svgEl("text", { x: L + t / maxWall * pw, y: H - 3, "text-anchor": "middle" }, fmtDur(t)));
  const lg = el("div", { class: "legend" });
  for (const p of PARTS) {
    const v = steps.mean.parts[p + "_ns"] || 0;
    lg.append(el("span", { class: "part-key", "data-part": p, title: partTitle(p) }, el("i", { style: "background:" + PART_COLORS[p] }),
      p + " " + fmtDur(v) + " (" + (100 * v / Math.max(1, steps.mean.wall_ns)).toFixed(1) + " %)"));
  }
  const more = steps.items.length > items.length ? [el("div", { class: "note" }, "the last " + items.length + " of " + steps.items.length + " steps")] : [];
  box.className = "";
  box.replaceChildren(el("div", { class: "note" }, steps.items.length + " steps · mean " + fmtDur(steps.mean.wall_ns) + (slowest ? " · slowest " + slowest : "")), svg, lg,
    ...more, twoViews(steps.mean));
}

// The waste budget (the run panel) and this breakdown tell the step time twice; this table puts
// them side by side. Both split one step, but the budget is a model over the step time it used:
// the GPU utilisation from telemetry says how much of the step the GPU worked, and data_wait and
// host_gap split the step × (1 − utilisation) it sat idle by how busy the host was
// (docs/HEURISTICS.md); the breakdown is a measurement from the trace (the GPU worked in kernel +
// memcpy + memset + communication; runtime, dataloader, cpu_exec and other are host-side or
// unrecorded time while it did not). The idle shares should be close; where they differ, the
// telemetry's sampling and the trace disagree on how busy the GPU was.
function twoViews(mean) {
  const wv = state.waste && state.waste.run === state.run ? state.waste : null;
  const sum = (ps) => ps.reduce((a, p) => a + (mean.parts[p + "_ns"] || 0), 0);
  const gpu = sum(["kernel", "memcpy", "memset", "communication"]), wall = Math.max(1, mean.wall_ns);
  const w = wv && wv.w, step = wv && wv.step, util = w && wv.util !== null && wv.util !== undefined ? wv.util : null;
  const hostGap = w && step && w.host_gap !== null ? " · host_gap " + (100 * w.host_gap / step).toFixed(1) + " %" : "";
  const row = (what, t, st, busy, idle, how) => el("tr", {}, el("td", { title: how }, what), el("td", { class: "num" }, st),
    el("td", { class: "num" }, fmt(busy, 1)), el("td", { class: "num" }, fmt(idle, 1)), el("td", { class: "note" }, t));
  const t = el("table", { id: "two-views" }, el("thead", {}, el("tr", {}, el("th", {}, "one step, told twice"), el("th", { class: "num" }, "step"),
    el("th", { class: "num" }, "GPU working %"), el("th", { class: "num" }, "GPU idle %"), el("th", {}, "from"))),
    el("tbody", {},
      row("waste budget", "telemetry GPU utilisation (data_wait and host_gap split its idle time" + hostGap + ")", step ? fmtDur(step * 1e9) : "–",
        util, util === null ? null : 100 - util,
        "a model: the step time it used (" + ((wv && wv.rule) || "unknown") + ") split by GPU utilisation and the kernel classes (docs/HEURISTICS.md)"),
      row("step breakdown", "the trace (working = kernel + memcpy + memset + communication)", fmtDur(mean.wall_ns), 100 * gpu / wall, 100 - 100 * gpu / wall,
        "a measurement: each instant of the mean step credited to what ran then (docs/ANALYSIS.md steps)")));
  return el("div", {}, t, el("div", { class: "note" }, "\"other\" is part of the breakdown's GPU-idle time: " + PART_DEFS.other +
    ". The budget's useful_gpu is what is left of the step after its six waste buckets, not the kernel share."));
}

// Telemetry over time: utilisation, VRAM and power per GPU (bucket means solid, maxima dashed).
function renderTelemetry(box, tel) {
  const gpus = ((tel && tel.gpus) || []).filter((g) => g.series && g.series.t_ns.length);
  if (tel && tel.gpus && tel.gpus.length && tel.gpus.every((g) => g.series === undefined)) { box.className = "empty"; box.textContent = OLDER_DOC; return; }
  if (!gpus.length) { box.className = "empty"; box.textContent = "no timestamped telemetry samples in this run"; return; }
  const mid = (g, i) => g.series.t_ns[i] + g.series.bucket_ns / 2;
  const x0 = Math.min(...gpus.map((g) => g.series.t_ns[0])), x1 = Math.max(...gpus.map((g) => mid(g, g.series.t_ns.length - 1) + g.series.bucket_ns / 2));
  const xs = tickStep(x1 - x0, 5), xTicks = [];
  for (let t = 0; t <= x1 - x0; t += xs) xTicks.push([x0 + t, fmtDur(t)]);
  const GiB = 1073741824;
  const charts = [["GPU utilisation (%)", "util", "pct", 1, 100, (v) => v.toFixed(0)],
                  ["VRAM used (GiB)", "vram", "bytes", 1 / GiB, null, (v) => v.toFixed(0)],
                  ["power (W)", "power", "w", 1, null, (v) => v.toFixed(0)]];
  const W = widthOf(box), out = [];
  for (const [title, q, unit, scale, fixedMax, yFmt] of charts) {
    const lines = [];
    let top = 0;
    gpus.forEach((g, gi) => {
      const color = GPU_COLORS[gi % GPU_COLORS.length], label = "gpu " + (g.device ?? "?");
      for (const [kind, dash] of [["mean", false], ["max", true]]) {
        const ys = g.series[q + "_" + kind + "_" + unit];
        const pts = ys.map((v, i) => [mid(g, i), v === null ? null : v * scale]);
        for (const p of pts) if (p[1] !== null && p[1] > top) top = p[1];
        lines.push({ segments: segmentsOf(pts), color, dash, cls: dash ? "tele-max" : "tele-line", label: label + " " + kind });
      }
    });
    if (!lines.some((l) => l.segments.length)) continue;
    const yMax = fixedMax || Math.max(1, tickStep(top, 3) * Math.ceil(top * 1.02 / tickStep(top, 3)));
    out.push(lineChart({ id: "tele-" + q, width: W, height: 120, title, x0, x1, xTicks, yMax, yFmt, lines }));
  }
  const lg = el("div", { class: "legend" }, ...gpus.map((g, gi) => el("span", {}, el("i", { style: "background:" + GPU_COLORS[gi % GPU_COLORS.length] }),
    "gpu " + (g.device ?? "?") + " (" + g.samples + " samples)")), el("span", {}, "solid: bucket mean · dashed: bucket max · " + fmtDur(gpus[0].series.bucket_ns) + " buckets"));
  box.className = "charts3";
  box.replaceChildren(...out, lg);
}

// The selected run's charts, from its stored analysis document (only the sections drawn kept,
// and the facts that name its GPUs).
async function loadCharts() {
  const boxes = ["timeline", "steps", "telemetry"].map($);
  if (!state.run) {
    for (const b of boxes) { shown(b, "", "empty"); b.textContent = state.runs.length ? "select a run" : "no runs yet"; }
    return;
  }
  if (boxes[0].dataset.shows !== state.run) $("timeline-sub").textContent = "";   // another run's span
  for (const b of boxes) loading(b, "the run's analysis", state.run);
  const d = await apiPicked("charts", "/runs/" + encodeURIComponent(state.run) + "/analysis",
    (b) => ({ timeline: b.timeline, steps: b.steps, telemetry: b.telemetry,
              sources: (b.sources || []).map((x) => ({ format: x.format, kernels_chosen: x.kernels_chosen, device_clock: x.device_clock })),
              device: { devices: ((b.device && b.device.devices) || []).map((x) => ({ device: x.device })) } }));
  if (!d.value) {
    const why = d.status === 202 ? "the run is not final yet" : (d.body && (d.body.detail || d.body.error)) || ("HTTP " + d.status);
    for (const b of boxes) { shown(b, state.run, "empty"); b.textContent = why; }
    $("timeline-sub").textContent = "";
    return;
  }
  renderTimeline(boxes[0], d.value.timeline, d.value.steps, gpuNamer(d.value));
  renderSteps(boxes[1], d.value.steps);
  renderTelemetry(boxes[2], d.value.telemetry);
  for (const b of boxes) b.dataset.shows = state.run;
}
