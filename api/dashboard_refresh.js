// goblind dashboard, part 5 of 5 (inlined last into dashboard.html by api/embed.cmake): the
// controls' handlers and the refresh loop that draws everything every 5 s.
$("next-page").addEventListener("click", () => { if (state.next) { state.cursor = state.next; setUrl(); refresh(); } });
$("first-page").addEventListener("click", () => { state.cursor = null; setUrl(); refresh(); });
$("base").addEventListener("change", () => { state.base = $("base").value; setUrl(); loadCompare(); });
$("candidate").addEventListener("change", () => { state.candidate = $("candidate").value; setUrl(); loadCompare(); });
$("series").addEventListener("change", () => { state.series = $("series").value; setUrl(); loadHistory(); });

async function refresh() {
  try {
    const r = await api("/runs?limit=" + state.limit + (state.cursor ? "&cursor=" + encodeURIComponent(state.cursor) : ""));
    if (r.status === 400 && state.cursor) { state.cursor = null; setUrl(); return refresh(); }   /* a stale cursor */
    if (r.status === 401) { $("runs").replaceChildren(el("tr", {}, el("td", { colspan: 7, class: "empty" }, "a bearer token is required (top right)"))); return; }
    state.runs = (r.body && r.body.runs) || [];
    state.next = r.body ? r.body.next_cursor : null;
    const ready = await api("/readyz");
    $("node").textContent = location.host + (ready.body && ready.body.ready ? "" : " (starting)") + " · " + state.runs.length + " runs";
    if (!state.run && state.runs.length) state.run = state.runs[0].id;
    renderRuns();
    await loadRun();
    await loadCharts();
    await loadHistory();
    await loadCompare();
    // Sections wider than their box (a horizontal scroll bar) count here, for the tests.
    const wide = [...document.querySelectorAll("section")].filter((s) => s.scrollWidth > s.clientWidth + 1);
    document.body.dataset.overflow = String(wide.length);
    document.body.dataset.overflowIn = wide.map((s) => s.id || s.querySelector("h2").textContent).join(",");
    document.body.dataset.rendered = "1";
  } catch (e) {
    $("node").textContent = "cannot reach goblind: " + e;
  }
}
// ?focus=timeline|steps|telemetry|history|compare shows that part alone, full width (a wall display).
if (["timeline", "steps", "telemetry", "history", "compare"].includes(params.get("focus"))) {
  document.body.dataset.focus = params.get("focus");
  $(params.get("focus") + "-box").classList.add("focus");
}
refresh();
setInterval(refresh, 5000);
