#!/usr/bin/env python3
"""End-to-end test of the dashboard's charts in headless Chromium: the run's timeline (one row
per stream, bars per bin, step marks), the step breakdown (stacked bars and the mean), the
telemetry line charts per GPU and the history of runs, read back from the rendered DOM
(--dump-dom) and counted against the analysis document the daemon serves. Screenshots are
written to the test's directory, or to $GOBLIND_SCREENSHOT_DIR (docs/ when refreshing the
pictures: GOBLIND_SCREENSHOT_DIR=docs). The harness (Daemon, gen, ...) is e2e_serve.py's.

usage: e2e_dashboard.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)
from e2e_serve import Daemon, gen  # noqa: E402


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
    url = d.base + "/?run=a-one-clock"
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
    # the history: the three complete runs, tokens/s and busy % points
    runs = d.json("/runs?status=complete&limit=20")[2]["runs"]
    busy = [d.json(f"/runs/{r['id']}/analysis")[2]["timeline"]["run"]["busy_pct"] for r in runs]
    hist = svg_of(dom, "hist-tps") + svg_of(dom, "hist-busy")
    want_points = sum(r["tokens_per_sec"] is not None for r in runs) + sum(b is not None for b in busy)
    assert hist.count('class="hist-point"') == want_points == 6, (hist.count('class="hist-point"'), want_points)
    assert "the last 3 complete runs" in dom

    # a kernel trace's clock is not the torch trace's: no step marks, and the page says why
    other = dump(flags, d.base + "/?run=b-kernel-trace")
    assert 'id="steps-other-clock"' in other and 'data-steps="0"' in other

    # pictures: the whole page, and each chart alone (?focus=)
    for name, query, size in (("dashboard.png", "&base=b-kernel-trace&candidate=c-later", "1400,2300"), ("dashboard-timeline.png", "&focus=timeline", "1400,290"),
                              ("dashboard-steps.png", "&focus=steps", "1400,360"),
                              ("dashboard-telemetry.png", "&focus=telemetry", "1400,560"),
                              ("dashboard-history.png", "&focus=history", "1400,300")):
        shot = shots / name
        if shot.exists():
            shot.unlink()
        subprocess.run(flags + [f"--window-size={size}", f"--screenshot={shot}", url + query], capture_output=True, timeout=120)
        assert shot.exists() and shot.stat().st_size > 10000, name
    focus = dump(flags, url + "&focus=timeline")
    assert 'data-focus="timeline"' in focus and 'id="timeline-svg"' in focus
    assert d.stop() == 0


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


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_dashboard", globals(), sys.argv[3:]))
