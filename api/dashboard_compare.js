// goblind dashboard, part 3 of 5 (inlined into dashboard.html by api/embed.cmake): the
// before/after view of two complete runs, from GET /compare (docs/API.md).
async function loadCompare() {
  const box = $("compare");
  state.base = $("base").value || state.base;
  state.candidate = $("candidate").value || state.candidate;
  if (!state.base || !state.candidate) return;
  const c = await api("/compare?base=" + encodeURIComponent(state.base) + "&candidate=" + encodeURIComponent(state.candidate));
  if (c.status !== 200) { box.className = "empty"; box.textContent = (c.body && c.body.detail) || ("HTTP " + c.status); return; }
  const x = c.body;
  const tb = x.base.metrics.waste_budget, tc = x.candidate.metrics.waste_budget;
  const sum = (w) => BUCKETS.reduce((s, b) => s + (w[b] || 0), 0);
  const scale = Math.max(sum(tb), sum(tc));
  const row = (label, w) => el("div", { style: "display:flex;gap:8px;align-items:center;margin:4px 0" },
    el("div", { style: "width:90px;color:var(--dim)" }, label),
    el("div", { style: "flex:1" }, el("div", { style: "width:" + (sum(w) / scale * 100) + "%" }, stackBar(w, sum(w)))));
  const t = el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", { class: "num" }, "base"),
    el("th", { class: "num" }, "candidate"), el("th", { class: "num" }, "Δ"), el("th", { class: "num" }, "Δ %"))));
  const b = el("tbody", {});
  for (const [name, d] of [...Object.entries(x.headline), ...Object.entries(x.waste_budget)])
    b.append(el("tr", {}, el("td", {}, name), el("td", { class: "num" }, fmt(d.base, 4)), el("td", { class: "num" }, fmt(d.candidate, 4)),
      el("td", { class: "num " + verdict(name, d.delta), "data-metric": name }, fmt(d.delta, 4)),
      el("td", { class: "num " + verdict(name, d.delta) }, d.delta_pct === null ? "–" : fmt(d.delta_pct, 1))));
  t.append(b);
  box.className = "";
  const prof = (id) => profileText((state.runs.find((r) => r.id === id) || {}).profile);
  box.replaceChildren(el("div", { class: "summary", id: "summary" }, x.summary),
    el("div", { class: "profile" }, "base " + x.base.id + ": " + prof(x.base.id) + " · candidate " + x.candidate.id + ": " + prof(x.candidate.id)),
    row("base", tb), row("candidate", tc), legend({}, 0), t);
}
