#!/usr/bin/env python3
"""End-to-end test of the dashboard's charts in headless Chromium: the run's timeline (one row
per stream, bars per bin, step marks), the step breakdown (stacked bars and the mean), the
telemetry line charts per GPU and the history of runs, read back from the rendered DOM
(--dump-dom) and counted against the analysis document the daemon serves; the loading states
read in real time over the DevTools protocol (cdp_pipe.py) while a proxy (dashboard_proxy.py)
holds requests; unknown tiles, the step told twice, the compare view against GET /compare, the
history by run and per series (GET /series stubbed in the proxy, and absent, and the real
endpoint with sidecar-labelled runs, a failed and a slowed one), one name per GPU
on generated and real files. Screenshots are
written to the test's directory, or to $GOBLIND_SCREENSHOT_DIR (docs/ when refreshing the
pictures: GOBLIND_SCREENSHOT_DIR=docs). The harness (Daemon, gen, ...) is e2e_serve.py's.

usage: e2e_dashboard.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)
from e2e_serve import Daemon, gen  # noqa: E402
from dashboard_proxy import Proxy  # noqa: E402
from cdp_pipe import Browser  # noqa: E402

NO_SERIES = (lambda path: path.startswith("/series"), ("json", 404, {"error": "not_found", "detail": "no such endpoint"}))


def chromium_flags(tmp):
    chromium = shutil.which("chromium")
    assert chromium, "chromium is not installed (Debian package chromium)"
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
            f"--user-data-dir={tmp}/chromium", "--virtual-time-budget=8000", "--enable-logging=stderr", "--v=0"]


def dump(flags, url, size="1400,1100"):
    out = subprocess.run(flags + [f"--window-size={size}", "--dump-dom", url], capture_output=True, text=True, timeout=120)
    console = [line for line in out.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, console
    dom = out.stdout
    assert 'data-errors="0"' in dom and 'data-rendered="1"' in dom, re.findall(r"<body[^>]*>", dom)
    assert 'data-overflow="0"' in dom, re.findall(r"<body[^>]*>", dom)
    return dom


def box_text(dom, box_id):
    """The text of the element with id box_id (tags stripped), up to its section's end."""
    m = re.search(rf'id="{box_id}"[^>]*>(.*?)</section>', dom, re.S)
    assert m, f"no element {box_id}"
    return re.sub(r"<[^>]+>", " ", m.group(1))


def svg_of(dom, svg_id):
    m = re.search(rf'<svg[^>]*id="{svg_id}"[^>]*>.*?</svg>', dom, re.S)
    assert m, f"no svg {svg_id}"
    return m.group(0)


def attr(tag_text, name):
    m = re.search(rf'{name}="([^"]*)"', tag_text)
    return m.group(1) if m else None


def segments(values):
    """Runs of known values, as the page draws them (a null breaks the line)."""
    n, inside = 0, False
    for v in values:
        if v is None:
            inside = False
        elif not inside:
            n, inside = n + 1, True
    return n


def align_kernel_trace(run):
    """Moves trace.csv's timestamps onto the torch trace's clock (its first kernel starts where
    the torch trace's first kernel does): a run whose profilers share one clock, so the
    ProfilerStep ranges can be marked on the kernel timeline. Collectives move to a second
    stream."""
    events = json.loads((run / "torch_profile.json").read_text())["traceEvents"]
    first = min(round(e["ts"] * 1000) for e in events if e.get("cat") == "kernel")
    with open(run / "trace.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    offset = int(rows[0]["Start_Timestamp"]) - first
    for r in rows:
        if "ccl" in r["Kernel_Name"].lower():     # collectives on a stream of their own, as NCCL/RCCL do
            r["Queue_Id"], r["Stream_Id"] = "2", "1"
        r["Start_Timestamp"] = str(int(r["Start_Timestamp"]) - offset)
        r["End_Timestamp"] = str(int(r["End_Timestamp"]) - offset)
    with open(run / "trace.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), quoting=csv.QUOTE_ALL)
        w.writeheader()
        w.writerows(rows)


def add_second_gpu(run):
    """Adds a second GPU to amd_smi.csv: each sample of GPU 0 again as GPU 1, less busy."""
    lines = (run / "amd_smi.csv").read_text().splitlines()
    more = []
    for line in lines:
        cells = line.split(",")
        if len(cells) == 11 and cells[0] == "0":
            util = str(max(0, int(cells[6]) - 30)) if cells[6].isdigit() else cells[6]
            power = str(max(0, int(cells[2]) - 150)) if cells[2].isdigit() else cells[2]
            vram = str(int(cells[9]) * 3 // 5) if cells[9].isdigit() else cells[9]
            more.append(",".join(["1", cells[1], power, *cells[3:6], util, cells[7], cells[8], vram, cells[10]]))
    (run / "amd_smi.csv").write_text("\n".join(lines + more) + "\n")


def test_dashboard_charts(tmp):
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    root = d.roots[0]
    # steps and kernels on one clock, so the steps are marked
    gen(root / "a-one-clock", seed=3, steps=6, kernels=80)
    align_kernel_trace(root / "a-one-clock")
    add_second_gpu(root / "a-one-clock")
    # a rocprofv3 kernel trace beside the torch trace: another clock than the steps
    gen(root / "b-kernel-trace", seed=4, steps=4, kernels=50)
    gen(root / "c-later", seed=5, steps=5, kernels=60)
    d.start()
    for run in ("a-one-clock", "b-kernel-trace", "c-later"):
        d.wait_status(run, "complete")
    shots = Path(os.environ.get("GOBLIND_SCREENSHOT_DIR") or tmp)

    # the page may talk to this daemon only (and works so: every check below runs under it)
    st, h, _ = d.get("/")
    csp = h.get("Content-Security-Policy", "")
    assert st == 200 and "default-src 'none'" in csp and "connect-src 'self'" in csp, csp
    doc = d.json("/runs/a-one-clock/analysis")[2]
    tl, steps, tel = doc["timeline"], doc["steps"], doc["telemetry"]
    proxy = Proxy(d.base, [NO_SERIES])         # a daemon without GET /series: the history of recent runs
    url = proxy.base + "/?run=a-one-clock"
    dom = dump(flags, url)

    # the timeline: one row per stream, a bar per busy bin, every step marked
    svg = svg_of(dom, "timeline-svg")
    assert int(attr(svg, "data-rows")) == len(tl["streams"]) == 2, attr(svg, "data-rows")
    want_bars = sum(1 for s in [tl["run"], *tl["streams"]] for b in s["bins"] if b > 0)
    assert svg.count('class="busy"') == want_bars > 0, (svg.count('class="busy"'), want_bars)
    assert len(steps["items"]) == 6
    assert int(attr(svg, "data-steps")) == svg.count('class="step-mark"') == len(steps["items"])
    # the step breakdown: the mean and one stacked bar per step, a segment per non-zero part
    ssvg = svg_of(dom, "steps-svg")
    bars = [steps["mean"], *steps["items"]]
    assert int(attr(ssvg, "data-bars")) == ssvg.count('class="step-bar"') == len(bars)
    assert ssvg.count('class="part"') == sum(1 for b in bars for v in b["parts"].values() if v > 0)
    # telemetry: per GPU a mean line (split where a bucket has no value) and a dashed max line
    gpus = [g for g in tel["gpus"] if g["series"]]
    assert len(gpus) == 2, [g["device"] for g in gpus]
    for q, unit in (("util", "pct"), ("vram", "bytes"), ("power", "w")):
        tsvg = svg_of(dom, f"tele-{q}")
        want = sum(segments(g["series"][f"{q}_mean_{unit}"]) for g in gpus)
        assert int(attr(tsvg, "data-lines")) == tsvg.count('class="tele-line"') == want, (q, want)
        assert tsvg.count('class="tele-max"') == sum(segments(g["series"][f"{q}_max_{unit}"]) for g in gpus)
    # the history: the three complete runs, step time, tokens/s and busy % points
    runs = d.json("/runs?status=complete&limit=20")[2]["runs"]
    busy = [d.json(f"/runs/{r['id']}/analysis")[2]["timeline"]["run"]["busy_pct"] for r in runs]
    hist = svg_of(dom, "hist-step") + svg_of(dom, "hist-tps") + svg_of(dom, "hist-busy")
    want_points = sum(r["step_time_seconds"] is not None for r in runs) + sum(r["tokens_per_sec"] is not None for r in runs) + \
        sum(b is not None for b in busy)
    assert hist.count('class="hist-point"') == want_points == 9, (hist.count('class="hist-point"'), want_points)
    assert "the last 3 complete runs" in dom

    # one name per GPU: the kernel trace's agent 4 is not the telemetry's gpu 0 under another name;
    # with two GPUs in the telemetry and one agent, the lane is named by its agent, not a guess
    st = svg_of(dom, "timeline-svg")
    assert "gpu 4" not in st and "agent 4 · stream" in st, re.findall(r">([^<]*stream[^<]*)<", st)
    check_gpu_names(flags, proxy.base + "/?run=c-later", d.json("/runs/c-later/analysis")[2])

    # the two step-time stories side by side: the budget's GPU share is the telemetry utilisation,
    # the breakdown's the GPU parts of the mean step; "other" defined where it is drawn
    util = d.json("/runs/a-one-clock")[2]["gpu_util_pct"]
    parts = steps["mean"]["parts"]
    gpu = sum(parts[p] for p in ("kernel_ns", "memcpy_ns", "memset_ns", "communication_ns"))
    views = box_text(dom, "two-views")
    rows = re.findall(r"(waste budget|step breakdown)\s.*?\s([\d.]+)\s+([\d.]+)\s", views, re.S)
    assert [r[0] for r in rows] == ["waste budget", "step breakdown"], views
    for (_, working, idle), want in zip(rows, (util, 100 * gpu / steps["mean"]["wall_ns"])):
        assert abs(float(working) - want) < 0.06 and abs(float(idle) - (100 - want)) < 0.06, (rows, want)
    other = re.search(r'<span class="part-key" data-part="other" title="([^"]*)"', dom)
    assert other and other.group(1).startswith("other: the rest of the step") and "wall − the seven parts" in other.group(1), other
    analysis_md = (Path(__file__).resolve().parent.parent / "docs" / "ANALYSIS.md").read_text()
    assert "| `other_ns` | the rest of the window: time no record of the parts above covers" in analysis_md   # the tooltip's definition

    # a kernel trace's clock is not the torch trace's: no step marks, and the page says why
    other = dump(flags, proxy.base + "/?run=b-kernel-trace")
    assert 'id="steps-other-clock"' in other and 'data-steps="0"' in other

    # pictures: the whole page, and each chart alone (?focus=)
    for name, query, size in (("dashboard.png", "&base=b-kernel-trace&candidate=c-later", "1400,3300"), ("dashboard-timeline.png", "&focus=timeline", "1400,290"),
                              ("dashboard-steps.png", "&focus=steps", "1400,520"),
                              ("dashboard-telemetry.png", "&focus=telemetry", "1400,560")):   # history: the series test's
        shot = shots / name
        if shot.exists():
            shot.unlink()
        subprocess.run(flags + [f"--window-size={size}", f"--screenshot={shot}", url + query], capture_output=True, timeout=120)
        assert shot.exists() and shot.stat().st_size > 10000, name
    focus = dump(flags, url + "&focus=timeline")
    assert 'data-focus="timeline"' in focus and 'id="timeline-svg"' in focus
    proxy.stop()
    assert d.stop() == 0


def check_gpu_names(flags, url, doc):
    """A goblin run: rocprofv3's trace.csv names its GPU agent 4, amd_smi.csv gpu 0 — one GPU,
    one name on the page: gpu 0 on the timeline and in the telemetry, and a note that says so."""
    agents = {s["device"] for s in doc["timeline"]["streams"]}
    smi = {g["device"] for g in doc["telemetry"]["gpus"]}
    assert agents == {4} and smi == {0}, (agents, smi)             # the files' own numbering differs
    dom = dump(flags, url)
    lanes = re.findall(r">([^<]*· stream [^<]*)<", svg_of(dom, "timeline-svg"))
    assert lanes and all(lane.startswith("gpu 0 · stream") for lane in lanes), lanes
    assert "gpu 0 (" in box_text(dom, "telemetry") and "gpu 4" not in dom, box_text(dom, "telemetry")
    assert re.search(r'id="gpu-names"[^>]*>one name per GPU: gpu 0 = agent 4 of the kernel trace<', dom)


def test_dashboard_shows_any_profile(tmp):
    """A run of another profiler (a Kineto trace under its own name): listed with its profile, its
    page says where each number comes from, the compare view names both sides' profiles."""
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    kin = e2e.SHARED / "fixtures" / "torch_profiler"
    for rid, name in (("k-before", "kineto_docs__traces__before_fix_trace.json"),
                      ("k-after", "kineto_docs__traces__after_fix_trace.json")):
        (d.roots[0] / rid).mkdir()
        shutil.copy(kin / name, d.roots[0] / rid / name)
    (d.roots[0] / "nothing").mkdir()
    (d.roots[0] / "nothing" / "notes.txt").write_text("not a profile\n")   # files, none a profile: empty
    d.start()
    for run in ("k-before", "k-after"):
        d.wait_status(run, "complete")
    d.wait_status("nothing", "empty")
    dom = dump(flags, d.base + "/?run=k-after&base=k-before&candidate=k-after")
    assert 'id="headline-sources"' in dom and "timeline busy / span" in dom, dom[-3000:]
    assert re.search(r'id="run-profile"[^>]*>profile: kineto<', dom), re.findall(r'id="run-profile"[^>]*>[^<]*', dom)
    assert "base k-before: kineto · candidate k-after: kineto" in dom
    assert 'class="badge empty-run"' in dom and '>kineto</div>' in dom
    assert "<div class=\"warn\">✖" not in dom
    assert d.stop() == 0


LOADING_WORDS = ("select a run", "no complete runs yet", "no runs yet", "choose two complete runs", "no complete runs to compare")


def test_dashboard_loading_states(tmp):
    """While its data is on its way the page says "loading", never an answer: first with every API
    request held (nothing known yet), then with the runs known but the run's analysis, the history
    and the comparison held (the selected run highlighted, its charts loading). After the load, the
    answers; and a daemon without runs says so once it has answered."""
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    gen(d.roots[0] / "r-one", seed=3, steps=4, kernels=40)
    gen(d.roots[0] / "r-two", seed=4, steps=4, kernels=40)
    d.start()
    for run in ("r-one", "r-two"):
        d.wait_status(run, "complete")
    query = "/?run=r-one&base=r-one&candidate=r-two"
    api_paths = lambda path: path != "/" and not path.startswith("/?")          # noqa: E731
    slow = (lambda path: "/analysis" in path or path.startswith("/runs?status=complete") or path.startswith("/series")
            or path.startswith("/compare"))
    for rules, ready, loaded_boxes in (([(api_paths, ("hold",))], "document.querySelector('#runs td.empty')", ()),
                                       ([(slow, ("hold",))], "document.getElementById('run-cards')", ("runs", "run-body"))):
        proxy, browser = Proxy(d.base, rules), Browser(flags)
        try:
            browser.open(proxy.base + query)
            dom = browser.wait(ready)
            time.sleep(1.5)                                             # what was not held has arrived
            dom = browser.dom()
        finally:
            browser.close()
            proxy.stop()
        assert 'data-rendered="1"' not in dom
        if loaded_boxes:                                                # the runs arrived: the selected one highlighted
            assert re.search(r'class="run selected" data-id="r-one"', dom), re.findall(r'<tr class="run[^>]*>', dom)
        for box in ("runs", "run-body", "timeline", "steps", "telemetry", "history", "compare"):
            text = box_text(dom, box)
            assert not any(w in text for w in LOADING_WORDS), (box, text)
            assert ("loading" in text) == (box not in loaded_boxes), (box, text)

    dom = dump(flags, d.base + query)                                   # loaded: the answers, no "loading"
    assert 'class="empty loading"' not in dom, re.findall(r'class="empty loading">[^<]*', dom)
    assert 'id="timeline-svg"' in dom and 'id="hist-tps"' in dom and 'id="step-verdict"' in dom
    assert d.stop() == 0

    empty = Daemon(Path(tmp) / "empty")
    empty.start()
    dom = dump(flags, empty.base + "/")
    assert "no runs yet" in box_text(dom, "run-body") and "no complete runs yet" in box_text(dom, "history"), box_text(dom, "run-body")
    assert 'class="empty loading"' not in dom
    assert empty.stop() == 0


def card(dom, name):
    m = re.search(rf'<div class="v">([^<]*)</div><div class="k">{re.escape(name)}</div>', dom)
    assert m, (name, re.findall(r'class="cards".{0,600}', dom))
    return m.group(1)


def test_dashboard_unknown_tiles(tmp):
    """What a run does not know is "–" on its tiles, never RunMetrics' defaults: a failed run (its
    /metrics body still says steps 10 and zeros) has no step count, attention or versions and an
    unknown waste budget (no bars); a Kineto trace alone, whose step count is the default, has no
    step count, and the waste buckets its warnings call unknown are "–" in the legend."""
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    root = d.roots[0]
    gen(root / "broken", seed=2)
    (root / "broken" / "torch_profile.json").write_bytes(b"{")
    for n in ("trace.csv", "amd_smi.csv"):
        (root / "broken" / n).unlink()
    (root / "kin").mkdir()
    shutil.copy(e2e.SHARED / "fixtures" / "torch_profiler" / "kineto_docs__traces__before_fix_trace.json", root / "kin")
    d.start()
    d.wait_status("broken", "failed")
    d.wait_status("kin", "complete")

    m = d.json("/runs/broken/metrics")[2]
    assert m["steps"] == 10 and m["attention_kernel_loaded"] == "unknown"        # the placeholders the page must not show
    dom = dump(flags, d.base + "/?run=broken")
    assert card(dom, "steps") == "–" and card(dom, "attention") == "–" and card(dom, "PyTorch / ROCm") == "– / –"
    assert card(dom, "tokens/s") == "–" and card(dom, "step time") == "– s"
    assert 'id="waste-unknown"' in dom and 'id="waste-bar"' not in dom, box_text(dom, "run-body")[:800]

    det, m = d.json("/runs/kin")[2], d.json("/runs/kin/metrics")[2]
    torch = [a for a in det["artefacts"] if a["steps_source"]][0]
    assert torch["steps_source"] == "default" and det["step_time_seconds"] is not None
    dom = dump(flags, d.base + "/?run=kin")
    assert card(dom, "steps") == "–", card(dom, "steps")
    unknown = [b for b in m["waste_budget"] if any(w.startswith(b + " unknown") for w in m["warnings"])]
    assert unknown
    legend = re.search(r'id="waste-bar".*?<div class="legend">(.*?)</div>', dom, re.S).group(1)
    for b in m["waste_budget"]:
        assert (f"</i>{b} –</span>" in legend) == (b in unknown), (b, legend)
    assert d.stop() == 0


def test_dashboard_compare_view(tmp):
    """The compare view shows what GET /compare answers: the step-time verdict with its 95 %
    interval, the summary, the kernel and operator movers in /compare's order with their verdicts,
    and the timeline, kernel-class and step-part deltas."""
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    gen(d.roots[0] / "base", seed=3, steps=8, kernels=60)
    gen(d.roots[0] / "cand", seed=4, steps=8, kernels=60, extra=["--slow", "flash_attn=3"])
    kin = e2e.SHARED / "fixtures" / "torch_profiler"
    for rid, name in (("k-before", "kineto_docs__traces__before_fix_trace.json"), ("k-after", "kineto_docs__traces__after_fix_trace.json")):
        (d.roots[0] / rid).mkdir()
        shutil.copy(kin / name, d.roots[0] / rid / name)
    tl = e2e.SHARED / "corpus" / "found2" / "torch_profiler"     # one model on an MI300 and an H100: operators on both sides
    for rid, name in (("tl-mi300", "tl_mi300__Falconsai_nsfw_image_detection__1016002.json.gz"),
                      ("tl-h100", "tl_h100__Falconsai_nsfw_image_detection__1016002.json.gz")):
        (d.roots[0] / rid).mkdir()
        shutil.copy(tl / name, d.roots[0] / rid / name)
    gen(d.roots[0] / "no-smi", seed=4, steps=8, kernels=60)       # goblin's files, no telemetry: two buckets unknown
    (d.roots[0] / "no-smi" / "amd_smi.csv").unlink()
    d.start()
    for run in ("base", "cand", "k-before", "k-after", "tl-mi300", "tl-h100", "no-smi"):
        d.wait_status(run, "complete")
    proxy = Proxy(d.base, [NO_SERIES])
    for base, cand in (("base", "cand"), ("k-before", "k-after"), ("tl-mi300", "tl-h100"), ("base", "no-smi")):
        c = d.json(f"/compare?base={base}&candidate={cand}&rows=10")[2]
        dom = dump(flags, proxy.base + f"/?run={cand}&base={base}&candidate={cand}", size="1400,2600")
        st = c["step_time"]
        v = re.search(r'id="step-verdict" data-verdict="([a-z_]+)">([^<]*)<span[^>]*>([^<]*)<', dom)
        assert v and v.group(1) == st["verdict"] and v.group(3) == st["verdict"].replace("_", " "), v and v.groups()
        if st["ci95_pct"]:
            lo, hi = st["ci95_pct"]
            assert f"95 % CI {lo:+.1f} % … {hi:+.1f} %" in v.group(2), (v.group(2), lo, hi)
        assert f'id="summary">{c["summary"]}<' in dom, c["summary"]
        for table, rows in (("movers-kernels", c["kernels"]), ("movers-ops", c["ops"])):
            body = re.search(rf'id="{table}">.*?<tbody>(.*?)</tbody>', dom, re.S).group(1)
            names = re.findall(r'<tr class="mover"><td class="kname" title="([^"]*)">', body)
            names = [re.sub(r" \((added|removed|unlisted in (base|candidate))\)$", "", html.unescape(n)) for n in names]
            assert names == [r["name"] for r in rows[:10]], (table, names[:3])
            assert re.findall(r'data-verdict="([a-z_]+)"', body) == [r["verdict"] for r in rows[:10]], table
        tl = re.search(r'id="timeline-deltas">.*?</table>', dom, re.S).group(0)
        assert re.findall(r'<tr data-metric="([a-z_]+)">', tl) == list(c["timeline"]), list(c["timeline"])
        cl = re.search(r'id="class-deltas">.*?</table>', dom, re.S).group(0)
        want = sorted(((k, x) for k, x in c["kernel_classes"].items() if x["base_seconds"] or x["candidate_seconds"]),
                      key=lambda kx: -abs(kx[1]["delta_seconds"] or 0))
        assert re.findall(r'<tr data-class="([a-z_]+)">', cl) == [k for k, _ in want], cl[:500]
        parts = re.search(r'id="part-deltas">.*?</table>', dom, re.S).group(0)
        assert parts.count("data-verdict=") == len(c["step_parts"] or {}), parts[:300]
        for s in ("base", "candidate"):         # a segment per bucket /compare knows and is > 0, never a placeholder's
            want = sum(1 for w in c["waste_budget"].values() if (w[s] or 0) > 0)
            got = re.search(rf'id="compare-bar-{s}" data-segments="(\d+)"', dom)
            assert got and int(got.group(1)) == want, (s, got and got.group(1), want, c["waste_budget"])
        if cand == "cand":      # the slowed kernel is the top mover, and slower
            assert c["kernels"][0]["name"].startswith("flash_attn") and c["kernels"][0]["verdict"] == "slower"
            assert c["ops"] == [] and "neither run lists any" in box_text(dom, "movers-ops")
        elif base == "tl-mi300":
            assert len(c["ops"]) >= 5, c["op_diff"]            # the operator rows were checked above
    shot = Path(os.environ.get("GOBLIND_SCREENSHOT_DIR") or tmp) / "dashboard-compare.png"
    subprocess.run(flags + ["--window-size=1400,1500", f"--screenshot={shot}",
                            proxy.base + "/?run=cand&base=base&candidate=cand&focus=compare"], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10000
    proxy.stop()
    assert d.stop() == 0



def series_doc(key, runs, regression_at):
    """A GET /series/<key> answer as /tmp's series contract has it (docs/API.md "GET /series"):
    the daemon's real runs, made-up step times, the run at regression_at flagged."""
    out = []
    for i, r in enumerate(runs):
        vs = {"runs": [x["id"] for x in runs[max(0, i - 3):i]], "verdict": "slower" if i == regression_at else "within_noise",
              "delta_pct": 12.5 if i == regression_at else 0.4, "ci95_pct": [8.0, 17.0] if i == regression_at else [-2.0, 2.5]} if i else None
        out.append({"id": r["id"], "status": "complete", "started_ns": 1_700_000_000_000_000_000 + i * 10**9,
                    "step_time_ms": 100.0 + (15 if i == regression_at else i), "tokens_per_s": r["tokens_per_sec"],
                    "busy_pct": 70.0 + i, "vs_previous": None if not i else {"run": runs[i - 1]["id"], "verdict": "within_noise",
                                                                              "delta_pct": 1.0, "ci95_pct": [-1.0, 3.0]},
                    "vs_baseline": vs, "regression": i == regression_at})
    return {"key": key, "key_source": "label", "baseline_runs": 3, "runs": out}


def test_dashboard_history_by_run_and_series(tmp):
    """The history is labelled by run, never by time. With GET /series (a stub in front of the
    daemon, as the series contract has it) it draws the chosen series in its order and rings the
    run flagged as a regression; without it (404: the endpoint absent) the last complete runs,
    oldest left, labelled by their ids."""
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    for i in range(4):
        gen(d.roots[0] / f"train-{i}", seed=10 + i, steps=4, kernels=30)
    d.start()
    for i in range(4):
        d.wait_status(f"train-{i}", "complete")
    runs = list(reversed(d.json("/runs?status=complete&limit=20")[2]["runs"]))          # oldest first
    ids = [r["id"] for r in runs]
    short = [i if len(i) <= 16 else i[:7] + "…" + i[-7:] for i in ids]

    # no /series: the recent runs, by id
    proxy = Proxy(d.base, [NO_SERIES])
    dom = dump(flags, proxy.base + "/?run=" + ids[-1])
    proxy.stop()
    assert re.search(r'id="history"[^>]*data-source="recent"', dom), re.findall(r'<div id="history"[^>]*>', dom)
    svg = svg_of(dom, "hist-step")
    assert attr(svg, "data-runs") == " ".join(ids), attr(svg, "data-runs")
    ticks = re.findall(r'<text[^>]* y="146"[^>]*>([^<]*)</text>', svg)             # the x axis (chart height 150 − 4)
    assert ticks and all(t in short for t in ticks) and not any(re.search(r"\d\d:\d\d", t) for t in ticks), ticks
    assert 'class="hist-regression"' not in dom and "oldest left (no series)" in box_text(dom, "history-box"), box_text(dom, "history-box")[:300]

    # with /series: the chosen series, one regression ringed
    listing = {"series": [{"key": "llama-8b", "key_source": "label", "runs": 4, "latest_run": ids[-1], "latest_verdict": "slower", "regression": True},
                          {"key": "fp-0123456789abcdef", "key_source": "fingerprint", "runs": 1, "latest_run": ids[0], "latest_verdict": None, "regression": False}]}
    doc = series_doc("llama-8b", runs, regression_at=2)
    proxy = Proxy(d.base, [(lambda p: p == "/series", ("json", 200, listing)),
                           (lambda p: p.startswith("/series/llama-8b"), ("json", 200, doc)),
                           (lambda p: p.startswith("/series/"), ("json", 404, {"error": "not_found"}))])
    dom = dump(flags, proxy.base + "/?run=" + ids[-1] + "&series=llama-8b")
    assert re.search(r'id="history"[^>]*data-source="series"', dom), re.findall(r'<div id="history"[^>]*>', dom)
    svg = svg_of(dom, "hist-step")
    assert attr(svg, "data-runs") == " ".join(r["id"] for r in doc["runs"])
    rings = re.findall(r'<circle class="hist-regression"[^>]*><title>([^<]*)</title>', svg)
    assert len(rings) == 1 and rings[0].startswith(ids[2] + " · REGRESSION · vs baseline slower +12.5 %"), rings
    assert svg.count('class="hist-point"') == 4
    assert re.search(r'<select id="series"[^>]*>.*llama-8b · 4 runs · regression.*fp-0123456789abcdef · 1 runs', dom), \
        re.findall(r'<select id="series".{0,300}', dom)
    text = re.sub(r"<[^>]+>", "", dom)
    assert "series llama-8b (label)" in text and "1 regression vs the baseline of 3 runs" in text
    assert any(p.startswith("/series/llama-8b?limit=") for p in proxy.seen), proxy.seen
    shot = Path(tmp) / "dashboard-history-stub.png"   # docs/ has the real backend's (the next test)
    subprocess.run(flags + ["--window-size=1400,300", f"--screenshot={shot}",
                            proxy.base + "/?run=" + ids[-1] + "&series=llama-8b&focus=history"], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10000
    proxy.stop()
    assert d.stop() == 0


def test_dashboard_history_real_series(tmp):
    """The history against the real GET /series (no stub): runs with goblind.json sidecars
    carrying labels.series (a key with quotes, markup and UTF-8), a failed run and a run whose
    GEMMs are twice as slow in that series, one run in another series made last. Without ?series=
    the page draws the selected run's series (not the newest listed); its runs by id in the order
    GET /series/<key> gives, a point per run with a step time, a ring exactly on the runs the daemon
    flags as regressions; the selector lists the daemon's series; the key is text, never markup.
    Writes dashboard-history.png (docs/ when refreshing)."""
    from e2e_series import make_run           # the sidecar runs of the series tests
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    staging = Path(tmp) / "staging"
    staging.mkdir()
    d.start()
    key = 'sweep "<b>bs8</b>" · ü'
    label = {"labels": {"series": key}}
    for i in range(1, 6):
        make_run(d, staging, f"train-{i}", seed=i, sidecar=label)

    def broken(t):
        (t / "torch_profile.json").write_bytes(b"{")
        for n in ("trace.csv", "amd_smi.csv"):
            (t / n).unlink()
    make_run(d, staging, "train-6-failed", seed=6, sidecar=label, mutate=broken, want="failed")
    make_run(d, staging, "train-7-slow", seed=12, sidecar=label, slow="Cijk=2.0")
    make_run(d, staging, "eval-1", seed=20, sidecar={"labels": {"series": "eval"}})
    listing = d.json("/series")[2]["series"]
    assert [s["key"] for s in listing] == ["eval", key], listing
    doc = d.json("/series/" + urllib.parse.quote(key, safe="") + "?limit=20")[2]
    ids = [r["id"] for r in doc["runs"]]
    flagged = [r["id"] for r in doc["runs"] if r["regression"]]
    assert ids[-1] == "train-7-slow" and flagged == ["train-7-slow"], doc["runs"]

    dom = dump(flags, d.base + "/?run=train-7-slow")
    assert re.search(r'id="history"[^>]*data-source="series"', dom), re.findall(r'<div id="history"[^>]*>', dom)
    assert "<b>bs8</b>" not in dom                        # the key is text
    svg = svg_of(dom, "hist-step")
    assert html.unescape(attr(svg, "data-runs")) == " ".join(ids), attr(svg, "data-runs")
    rings = [html.unescape(t) for t in re.findall(r'<circle class="hist-regression"[^>]*><title>([^<]*)</title>', svg)]
    assert [t.split(" · ")[0] for t in rings] == flagged and all(" · REGRESSION · vs baseline slower +" in t for t in rings), rings
    known = [r for r in doc["runs"] if r["step_time_ms"] is not None]
    assert svg.count('class="hist-point"') == len(known) == len(ids) - 1, (svg.count('class="hist-point"'), doc["runs"])
    short = [i if len(i) <= 16 else i[:7] + "…" + i[-7:] for i in ids]
    ticks = re.findall(r'<text[^>]* y="146"[^>]*>([^<]*)</text>', svg)
    assert ticks and all(t in short for t in ticks), ticks
    sel = re.search(r'<select id="series"[^>]*>(.*?)</select>', dom, re.S).group(1)
    options = [(html.unescape(v), html.unescape(t)) for v, t in re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', sel)]
    assert options == [(s["key"], s["key"] + " · " + str(s["runs"]) + " runs" + (" · regression" if s["regression"] else ""))
                       for s in listing], options
    sub = re.search(r'id="history-sub"[^>]*>(.*?)</span> <select', dom, re.S).group(1)
    assert re.search(r'<span class="key">([^<]*)</span>', sub).group(1) == html.escape(key, quote=False), sub   # not upper-cased
    sub = html.unescape(re.sub(r"<[^>]+>", "", sub))
    assert f"series {key} (label)" in sub and f"its last {len(ids)} runs" in sub and "1 regression vs the baseline of 5 runs" in sub, sub

    dom = dump(flags, d.base + "/?run=train-7-slow&series=eval")       # the one chosen
    assert html.unescape(attr(svg_of(dom, "hist-step"), "data-runs")) == "eval-1"
    assert 'class="hist-regression"' not in dom
    shot = Path(os.environ.get("GOBLIND_SCREENSHOT_DIR") or tmp) / "dashboard-history.png"
    if shot.exists():
        shot.unlink()
    subprocess.run(flags + ["--window-size=1400,300", f"--screenshot={shot}", d.base + "/?run=train-7-slow&focus=history"],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10000
    assert d.stop() == 0

def test_dashboard_gpu_names_real_files(tmp):
    """Real files whose numbering differs: rocprofv3's kernel trace (corpus, `Agent 4`) beside
    amd-smi's metric log (fixture, GPUs 0-7). Cut to GPU 0's rows, the run has one GPU: the page
    names it gpu 0 on the timeline and in the telemetry. With all eight GPUs the one agent cannot
    be placed: its lane is "agent 4", never a guessed gpu."""
    flags = chromium_flags(tmp)
    d = Daemon(tmp)
    trace = e2e.SHARED / "corpus" / "found" / "sdk_kernel_trace_rocm7hdr_481f7ff.csv"
    smi = (e2e.SHARED / "fixtures" / "amd_smi" / "amd-smi_metric_watch_csv_InferenceX_gpu_metrics_EXCERPT.csv").read_text()
    lines = smi.splitlines()
    gpu_col = lines[0].split(",").index("gpu")
    for rid, keep in (("one-gpu", lambda cells: cells[gpu_col] == "0"), ("eight-gpus", lambda cells: True)):
        run = d.roots[0] / rid
        run.mkdir()
        shutil.copy(trace, run / "kernel_trace.csv")
        rows = [ln for ln in lines[1:] if not ln.strip() or keep(next(csv.reader([ln])))]
        (run / "amd_smi.csv").write_text("\n".join([lines[0], *rows]) + "\n")
    d.start()
    for rid in ("one-gpu", "eight-gpus"):
        d.wait_status(rid, "complete")
    doc = d.json("/runs/one-gpu/analysis")[2]
    assert {s["device"] for s in doc["timeline"]["streams"]} == {4}, doc["timeline"]["streams"]
    assert {g["device"] for g in doc["telemetry"]["gpus"]} == {0}, [g["device"] for g in doc["telemetry"]["gpus"]]
    dom = dump(flags, d.base + "/?run=one-gpu")
    lanes = re.findall(r">([^<]*· stream [^<]*)<", svg_of(dom, "timeline-svg"))
    assert lanes and all(lane.startswith("gpu 0 · ") for lane in lanes), lanes
    assert "gpu 4" not in dom and 'id="gpu-names"' in dom
    doc = d.json("/runs/eight-gpus/analysis")[2]
    assert len({g["device"] for g in doc["telemetry"]["gpus"]}) == 8
    dom = dump(flags, d.base + "/?run=eight-gpus")
    lanes = re.findall(r">([^<]*· stream [^<]*)<", svg_of(dom, "timeline-svg"))
    assert lanes and all(lane.startswith("agent 4 · ") for lane in lanes), lanes
    assert "gpu 4" not in svg_of(dom, "timeline-svg") and 'id="gpu-names"' not in dom
    assert d.stop() == 0

if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_dashboard", globals(), sys.argv[3:]))
