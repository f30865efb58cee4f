#!/usr/bin/env python3
"""End-to-end: every profile is a run. One daemon, many run directories, a short quiet period:

- every file of ../shared/fixtures and of ../shared/corpus alone in a run directory under its
  own name, and every run-directory combination of corpus/found/MANIFEST.json, ends `complete`
  (or `empty` when the file is no profile); /runs/<id>/metrics answers 200 with a body valid
  against the RunMetrics schema; /compare answers 200 between complete runs (each run against
  one base and against its neighbour, both ways); no goblind_run_state of 3 (the alert
  GoblindRunFailed's input); each run's `profile` lists the families of its sources' formats
  and /runs?profile=F lists exactly the runs holding F;
- the headline rules against independent computations on real files: the step time is the
  slowest rank's mean ProfilerStep#N duration (computed here from the trace's events), the GPU
  utilisation of a trace without telemetry is union / span of its GPU operations (computed
  here), the telemetry's HBM peak and utilisation (max memory.used, mean utilization.gpu of an
  nvidia-smi log), the HBM peak of a torch trace alone (the largest Total Allocated of its device
  [memory] events), tokens/s from the sidecar goblind.json (tokens_per_step / step time), a bad
  sidecar key named in the warnings without failing the run;
- a directory with no profile file is `empty`, one whose only file cannot be read is `failed`
  with the file named in its error (and GET /events says `empty`); ?wait=N on /runs/<id>,
  /metrics and /analysis and `goblind show --wait` wait for a run that is not discovered yet;
  `goblind parse` and `goblind runs --profile` / `show` print the same numbers and sources.

usage: e2e_profiles.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import csv
import gzip
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

SHARED = Path(sys.argv[2])
ONLY = sys.argv[3:]
FAMILIES = ["goblin", "kineto", "rocprofv3", "rocpd", "rocprof", "nsys", "nvprof", "smi", "msprof", "aie"]
NOT_DATA = ("SOURCE", "NOTES", "MANIFEST", "README", "SOURCES")
FINAL = ("complete", "failed", "empty", "gone")
# Files the readers do not read yet (none today), so their runs are `failed` (the error names the
# file and why): not this test's subject but format detection's and the parsers'. A listed run
# may be in any final state (and is expected complete once they are read); every other run must
# be complete or empty.
KNOWN_UNREAD = set()


def data_files(root):
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith(NOT_DATA))


def run_id(prefix, name):
    return (prefix + re.sub(r"[^A-Za-z0-9._-]", "_", name))[:128]


def all_final(d, ids, timeout):
    """Waits until every run of ids is listed in a final state; returns {id: run}."""
    got = {}

    def done():
        st, _, body = d.json("/runs?limit=1000")
        assert st == 200, st
        got.clear()
        got.update({r["id"]: r for r in body["runs"]})
        return all(i in got and got[i]["status"] in FINAL for i in ids)
    e2e.wait_for(done, timeout, "every run final")
    return got


def load_trace(path):
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read())
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def step_means(events):
    """Mean ProfilerStep#N duration (s), from the events' dur (µs): host-side ranges only
    (a gpu_ category is the device's copy of the same range)."""
    durs = [float(e["dur"]) for e in events if isinstance(e, dict) and str(e.get("name", "")).startswith("ProfilerStep#")
            and e.get("ph") == "X" and "dur" in e and not str(e.get("cat", "")).lower().startswith("gpu_")]
    return sum(durs) / len(durs) / 1e6 if durs else None


def union_over_span(events):
    """100 * |union of GPU operations| / (last end - first start), GPU operations being the
    kernel, gpu_memcpy and gpu_memset events (Memcpy, Memset in 2021 traces)."""
    iv = sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in events if isinstance(e, dict)
                and str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")
                and e.get("ph") == "X"
                and "dur" in e and "ts" in e)
    if not iv:
        return None
    busy, cur_a, cur_b = 0.0, iv[0][0], iv[0][1]
    for a, b in iv[1:]:
        if a > cur_b:
            busy += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    busy += cur_b - cur_a
    span = max(b for _, b in iv) - iv[0][0]
    return 100.0 * busy / span if span > 0 else None


def check_body(body):
    doc = json.loads(body)
    e2e.jsonschema.validate(doc, e2e.SCHEMA)
    return doc


def test_every_profile_is_a_run(tmp):
    d = e2e.Daemon(tmp, extra=["--quiet-s", "1"])
    root = d.roots[0]
    expected = {}                                   # id -> the files it holds
    for base, prefix in ((SHARED / "fixtures", "fx_"), (SHARED / "corpus", "co_")):
        for f in data_files(base):
            rid = run_id(prefix, str(f.relative_to(base)))
            (root / rid).mkdir()
            shutil.copy(f, root / rid / f.name)
            expected[rid] = [f.name]
    manifest = json.loads((SHARED / "corpus" / "found" / "MANIFEST.json").read_text())
    for key, files in manifest.items():
        if not isinstance(files, dict):
            continue
        rid = run_id("mf_", key)
        for dst, src in files.items():
            (root / rid / dst).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(SHARED / "corpus" / "found" / src, root / rid / dst)
        expected[rid] = list(files)
    d.start()
    runs = all_final(d, list(expected), 900)
    bad = {i: (r["status"], d.json(f"/runs/{i}")[2].get("error")) for i, r in runs.items()
           if i in expected and r["status"] not in ("complete", "empty") and i not in KNOWN_UNREAD}
    assert not bad, f"runs neither complete nor empty: {bad}"
    # legacy rocprof --pmc output (counters, no timestamps) is a run of counters: every counter
    # column (after legacy rocprof's fixed `obj`) of every row, read here with csv
    import csv
    pmc = SHARED / "corpus" / "found" / "hipprog_rocprof_v1_pmc_output_vec_add_gpu.csv"
    head, *rows = list(csv.reader(pmc.open(newline="")))
    want = {(r[head.index("KernelName")], c): float(r[head.index(c)]) for r in rows for c in head[head.index("obj") + 1:]}
    for rid in ("mf_k_hipprog_pmc", run_id("co_", "found/" + pmc.name)):
        st, _, an = d.json(f"/runs/{rid}/analysis")
        assert st == 200 and runs[rid]["status"] == "complete", (rid, st, runs[rid])
        assert {(x["kernel"], x["counter"]): x["sum"] for x in an["counters"]["by_kernel_counter"]} == want, an["counters"]
    complete = sorted(i for i in expected if runs[i]["status"] == "complete")
    empty = sorted(i for i in expected if runs[i]["status"] == "empty")
    print(f"{len(complete)} complete, {len(empty)} empty: {empty}", flush=True)
    assert len(complete) >= len(expected) * 0.8, (len(complete), len(expected))
    by_family = defaultdict(set)
    for i in expected:
        st, h, body = d.get(f"/runs/{i}/metrics")
        assert st == (422 if runs[i]["status"] == "failed" else 200), (i, st, body[:200])
        check_body(body)
        det = d.json(f"/runs/{i}")[2]
        assert set(det["profile"]) <= set(FAMILIES), det["profile"]
        assert det["profile"] == [f for f in FAMILIES if f in det["profile"]], det["profile"]   # fixed order
        if runs[i]["status"] == "complete":
            assert det["profile"], (i, det)
            assert isinstance(det["headline_sources"], dict), det
        for f in det["profile"]:
            by_family[f].add(i)
        # the profile says the families of the formats the analysis read (goblin: its file names)
        fams = set()
        for s in det["sources"] or []:
            fmt = s["format"]
            if fmt is None:                        # an unrecognised file: listed, not read
                continue
            fams.add("kineto" if fmt.startswith("torch") else "rocpd" if fmt.startswith("rocpd")
                     else "rocprof" if fmt.startswith(("rocprof-v1", "rocprof-legacy")) else "nsys" if fmt.startswith("nsys")
                     else "nvprof" if fmt.startswith("nvprof") else "msprof" if fmt.startswith("msprof")
                     else "aie" if fmt.startswith("aie") else "smi" if "smi" in fmt or fmt.startswith("madengine")
                     else "rocprofv3")
        if any(n in ("trace.csv", "torch_profile.json", "torch_profile.json.gz", "amd_smi.csv") for n in expected[i]):
            fams.add("goblin")
        assert set(det["profile"]) == fams, (i, det["profile"], fams)
    for f in FAMILIES:
        st, _, body = d.json(f"/runs?profile={f}&limit=1000")
        assert st == 200 and {r["id"] for r in body["runs"]} & set(expected) == by_family[f], f
    assert d.get("/runs?profile=perfetto")[0] == 400
    # /compare between complete runs: each against one base and against its neighbour
    for k, i in enumerate(complete):
        for a, b in ((complete[0], i), (i, complete[(k + 1) % len(complete)])):
            st, _, body = d.get(f"/compare?base={a}&candidate={b}")
            assert st == 200, (a, b, st, body[:300])
    # no run is failed, so nothing feeds GoblindRunFailed (goblind_run_state == 3)
    st, _, prom = d.get("/metrics")
    states = re.findall(r'^goblind_run_state\{run="([^"]+)"\} (\d+)$', prom.decode(), re.M)
    assert states and not [r for r, v in states if v == "3" and r not in KNOWN_UNREAD], states
    assert d.stop() == 0


def wait_all(d, ids):
    return all_final(d, ids, 120)


def test_headline_rules_against_the_files(tmp):
    d = e2e.Daemon(tmp)
    root = d.roots[0]
    fx, co = SHARED / "fixtures", SHARED / "corpus"
    kin = fx / "torch_profiler" / "kineto_tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
    ranks = [co / "torch_profiler" / "hta_trace_filter__sampled_rank-0.json.gz",
             co / "found2" / "torch_profiler" / "hta_trace_filter__sampled_rank-1.json.gz"]
    smi = fx / "nvidia_smi" / "gpu-usage_gpu_usage_repeated_headers.csv"
    alloc = fx / "rocprofv3" / "sdk_memory_allocation_trace.csv"
    torchmem = co / "found" / "tracelens_mi300_Qwen1.5-0.5B-Chat__1016005.json.gz"     # profile_memory=True
    sdk = fx / "rocprofv3" / "sdk_kernel_trace.csv"
    layout = {"kin": [kin], "kin-renamed": [kin], "ranks": ranks, "smi": [smi], "side": [kin], "badside": [kin],
              "alloc": [alloc], "torchmem": [torchmem], "sdk": [sdk, alloc], "hugeside": [kin], "noisyside": [kin]}
    for rid, files in layout.items():
        (root / rid).mkdir()
        for f in files:
            shutil.copy(f, root / rid / f.name)
    shutil.copy(kin, root / "kin-renamed" / "torch_profile.json.gz")     # goblin's name: the same numbers
    (root / "kin-renamed" / kin.name).unlink()
    (root / "side" / "goblind.json").write_text(json.dumps(
        {"tokens_per_step": 8192, "model_flops_per_token": 6e9, "peak_tflops": 125.0, "labels": {"series": "s1"}}))
    (root / "badside" / "goblind.json").write_text(json.dumps({"tokens_per_step": -1, "colour": "red"}))
    # 40 unknown sidecar keys fill the warnings' bound (32): the warnings naming the numbers
    # reported as 0 still come through, other warnings give way to them
    (root / "noisyside" / "goblind.json").write_text(json.dumps({f"junk{i}": i for i in range(40)}))
    # declared, but tokens/s and MFU overflow a double: unknown everywhere, never 0 or +Inf
    (root / "hugeside" / "goblind.json").write_text('{"tokens_per_step": 1e308, "model_flops_per_token": 1e200, '
                                                   '"peak_tflops": 1}')
    # a trace whose steps are user ranges ("train_step_N", as record_function or rocTX/NVTX name
    # them) rather than ProfilerStep#N: the real trace with its steps renamed
    doc = json.loads(gzip.open(kin).read())
    for e in doc["traceEvents"]:
        if isinstance(e, dict) and str(e.get("name", "")).startswith("ProfilerStep#"):
            e["name"] = "train_step_" + e["name"].split("#")[1]
            e["cat"] = "user_annotation"
    (root / "ranges").mkdir()
    (root / "ranges" / "worker0.pt.trace.json").write_text(json.dumps(doc))
    range_durs = [float(e["dur"]) for e in doc["traceEvents"]
                  if isinstance(e, dict) and str(e.get("name", "")).startswith("train_step_")]
    (root / "nothing").mkdir()
    (root / "nothing" / "notes.txt").write_text("no profile here\n")
    (root / "broken").mkdir()
    (root / "broken" / "trace.json").write_text('{"traceEvents": [{"name": "ProfilerStep#1", "ph": "X", "ts": 1, ')
    d.start()
    runs = wait_all(d, list(layout) + ["nothing", "broken", "ranges"])
    ev = load_trace(kin)
    want_step, want_util = step_means(ev), union_over_span(ev)
    assert want_step and want_util
    for rid in ("kin", "side", "badside"):
        r = runs[rid]
        assert r["status"] == "complete" and r["profile"] == ["kineto"], r
        assert abs(r["step_time_seconds"] - want_step) < 1e-8, (r["step_time_seconds"], want_step)
        assert abs(r["gpu_util_pct"] - want_util) < 1e-6, (r["gpu_util_pct"], want_util)
        assert r["hbm_peak_gb"] is None, r
    det = d.json("/runs/kin")[2]
    src = det["headline_sources"]
    assert src["step_time_seconds"]["source"] == kin.name and "ProfilerStep" in src["step_time_seconds"]["rule"], src
    assert src["gpu_util_pct"] == {"rule": "timeline busy / span", "source": kin.name}, src
    assert src["top_kernels"]["source"] == kin.name and src["hbm_peak_gb"] is None, src
    assert src["tokens_per_sec"] is None and runs["kin"]["tokens_per_sec"] is None, src
    m = check_body(d.get("/runs/kin/metrics")[2])
    assert m["tokens_per_sec"] == 0 and any(w.startswith("tokens_per_sec unknown") for w in m["warnings"]), m
    assert not any(" not found: " in w for w in m["warnings"]), m["warnings"]
    assert m["top_kernels"] and abs(m["gpu_util_pct"] - want_util) < 1e-6, m
    # goblin's own name: RunMetrics reads it (its rules), the run is a goblin and kineto profile
    assert runs["kin-renamed"]["status"] == "complete" and runs["kin-renamed"]["profile"] == ["goblin", "kineto"]
    assert abs(runs["kin-renamed"]["step_time_seconds"] - want_step) < 1e-6, runs["kin-renamed"]
    # no ProfilerStep#N: the mean of the ranges named like steps
    r = runs["ranges"]
    assert range_durs and abs(r["step_time_seconds"] - sum(range_durs) / len(range_durs) / 1e6) < 1e-8, (r, range_durs)
    assert "ranges named like steps" in d.json("/runs/ranges")[2]["headline_sources"]["step_time_seconds"]["rule"]
    # several ranks: the slowest rank's mean
    per_rank = [step_means(load_trace(f)) for f in ranks]
    assert all(per_rank), per_rank
    assert abs(runs["ranks"]["step_time_seconds"] - max(per_rank)) < 1e-8, (runs["ranks"], per_rank)
    # telemetry: max memory.used (MiB -> GiB) and mean utilization.gpu, by hand
    import csv
    rows = [r for r in csv.reader(smi.open()) if r]
    head = [c.strip() for c in rows[0]]
    data = [r for r in rows if r[0].strip() != "timestamp"]        # the log repeats its header
    mem = [float(r[head.index("memory.used [MiB]")].split()[0]) for r in data]
    util = [float(r[head.index("utilization.gpu [%]")].split()[0]) for r in data]
    assert runs["smi"]["status"] == "complete" and runs["smi"]["profile"] == ["smi"], runs["smi"]
    assert abs(runs["smi"]["hbm_peak_gb"] - max(mem) / 1024) < 1e-9, (runs["smi"], max(mem))
    assert abs(runs["smi"]["gpu_util_pct"] - sum(util) / len(util)) < 1e-6, runs["smi"]
    # an allocation trace alone: HBM peak = the largest running sum of allocated - freed bytes
    # (a free's size is its allocation's, by address), per agent, in time order
    rows = sorted(csv.DictReader(alloc.open()), key=lambda r: int(r["Start_Timestamp"]))
    live, agent_of, cur, peak = {}, {}, defaultdict(int), defaultdict(int)
    for r in rows:
        if r["Operation"].endswith("ALLOCATE"):
            live[r["Address"]], agent_of[r["Address"]] = int(r["Allocation_Size"]), r["Agent_Id"]
            cur[r["Agent_Id"]] += int(r["Allocation_Size"])
            peak[r["Agent_Id"]] = max(peak[r["Agent_Id"]], cur[r["Agent_Id"]])
        elif r["Address"] in live:
            cur[agent_of[r["Address"]]] -= live.pop(r["Address"])
    a = runs["alloc"]
    assert a["status"] == "complete" and a["profile"] == ["rocprofv3"], a
    # a rocprofv3 kernel trace (RunMetrics reads *kernel_trace.csv) and its allocations: not a
    # goblin run, so `goblind parse` gives the daemon's body, the GPU utilisation the kernels'
    # union over their span and the HBM peak the allocations' (computed here from the CSVs)
    sm = d.json("/runs/sdk/metrics")[2]
    parsed = json.loads(subprocess.run([e2e.GOBLIND, "parse", str(root / "sdk")], capture_output=True, text=True,
                                       timeout=60, check=True).stdout)
    assert sm == parsed, (sm, parsed)
    iv = sorted((int(r["Start_Timestamp"]), int(r["End_Timestamp"])) for r in csv.DictReader(sdk.open()))
    busy, end = 0, None
    for b0, b1 in iv:
        if end is None or b0 > end:
            busy, end = busy + b1 - b0, b1
        elif b1 > end:
            busy, end = busy + b1 - end, b1
    span = max(e for _, e in iv) - iv[0][0]
    assert abs(sm["gpu_util_pct"] - 100.0 * busy / span) < 1e-9, (sm["gpu_util_pct"], busy, span)
    assert abs(sm["hbm_peak_gb"] - max(peak.values()) / 2**30) < 1e-15, sm["hbm_peak_gb"]
    assert abs(a["hbm_peak_gb"] - max(peak.values()) / 2**30) < 1e-15, (a["hbm_peak_gb"], dict(peak))
    assert d.json("/runs/alloc")[2]["headline_sources"]["hbm_peak_gb"]["rule"].startswith("allocation trace peak")
    # torch [memory] events alone: HBM peak = the largest "Total Allocated" of a device's events
    # (Device Type 0 is the CPU's allocator), as the PyTorch profiler's memory view takes its peak
    mem_ev = [e["args"] for e in load_trace(torchmem) if isinstance(e, dict) and e.get("name") == "[memory]"
              and e.get("args", {}).get("Device Type") not in (None, 0) and "Total Allocated" in e["args"]]
    assert mem_ev, "the trace has device memory events"
    t = runs["torchmem"]
    assert t["status"] == "complete" and t["profile"] == ["kineto"], t
    assert t["hbm_peak_gb"] == max(a["Total Allocated"] for a in mem_ev) / 2**30, (t["hbm_peak_gb"], len(mem_ev))
    src = d.json("/runs/torchmem")[2]["headline_sources"]["hbm_peak_gb"]
    assert src["source"] == torchmem.name and "[memory]" in src["rule"] and "Total Allocated" in src["rule"], src
    assert check_body(d.get("/runs/torchmem/metrics")[2])["hbm_peak_gb"] == t["hbm_peak_gb"]
    # the sidecar: tokens/s = tokens_per_step / step time; MFU from the declared FLOPs and peak
    s = runs["side"]
    assert abs(s["tokens_per_sec"] - 8192 / want_step) < 1e-3, s
    assert abs(s["mfu_pct"] - 100 * s["tokens_per_sec"] * 6e9 / 125e12) < 1e-6, s
    assert s["labels"] == {"series": "s1"}, s
    assert d.json("/runs/side")[2]["headline_sources"]["tokens_per_sec"]["source"] == "goblind.json"
    b = d.json("/runs/badside")[2]
    assert b["status"] == "complete" and b["tokens_per_sec"] is None, b
    assert any("'tokens_per_step'" in w for w in b["warnings"]) and any("'colour'" in w for w in b["warnings"]), b
    h = runs["hugeside"]
    assert h["status"] == "complete" and h["tokens_per_sec"] is None and h["mfu_pct"] is None, h
    hb = check_body(d.get("/runs/hugeside/metrics")[2])
    assert hb["tokens_per_sec"] == 0 and any(w.startswith("tokens_per_sec unknown") for w in hb["warnings"]), hb
    assert any(w.startswith("mfu_pct unknown") for w in hb["warnings"]), hb
    nb = check_body(d.get("/runs/noisyside/metrics")[2])
    unknown = [w for w in check_body(d.get("/runs/kin/metrics")[2])["warnings"] if " unknown (" in w]
    assert len(unknown) >= 8, unknown                    # the same file without a sidecar: these numbers are 0
    for w in unknown:
        assert w in nb["warnings"], (w, nb["warnings"])
    assert any(w.startswith("... and ") and w.endswith(" more warnings") for w in nb["warnings"]), nb["warnings"]
    # no profile file: empty (listed, 200 /metrics); an unreadable one: failed, naming it
    assert runs["nothing"]["status"] == "empty" and runs["nothing"]["profile"] == [], runs["nothing"]
    assert d.get("/runs/nothing/metrics")[0] == 200
    assert runs["broken"]["status"] == "failed", runs["broken"]
    err = d.json("/runs/broken")[2]["error"]
    assert "trace.json" in err and "no source could be read" in err, err
    st, prom = d.get("/metrics")[0], d.get("/metrics")[2].decode()
    assert st == 200 and 'goblind_run_state{run="nothing"} 5' in prom and 'goblind_run_state{run="broken"} 3' in prom
    assert 'goblind_runs{status="empty"} 1' in prom, prom
    # Prometheus: the numbers the run gives, and nothing for the others (not a 0)
    def series(name, run):
        m = re.search(rf'^{name}\{{run="{run}"\}} (\S+)$', prom, re.M)
        return float(m.group(1)) if m else None
    assert abs(series("goblind_run_step_seconds", "kin") - want_step) < 1e-8, prom
    assert abs(series("goblind_run_gpu_utilization_ratio", "kin") - want_util / 100) < 1e-8
    assert series("goblind_run_hbm_peak_bytes", "kin") is None and series("goblind_run_tokens_per_second", "kin") is None
    assert abs(series("goblind_run_tokens_per_second", "side") - 8192 / want_step) < 1e-3
    assert series("goblind_run_tokens_per_second", "hugeside") is None and series("goblind_run_mfu_ratio", "hugeside") is None
    assert abs(series("goblind_run_hbm_peak_bytes", "smi") - max(mem) * 2**20) < 1, series("goblind_run_hbm_peak_bytes", "smi")
    # goblind parse on the same directory: the daemon's RunMetrics, and --explain's sources
    out = subprocess.run([e2e.GOBLIND, "parse", str(root / "kin")], capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout) == m, out
    out = subprocess.run([e2e.GOBLIND, "parse", str(root / "kin"), "--explain"], capture_output=True, text=True)
    assert out.returncode == 0 and re.search(r"^  profile +kineto$", out.stdout, re.M), out
    assert "mean ProfilerStep#N duration, slowest rank (" + kin.name + ")" in out.stdout, out.stdout
    out = subprocess.run([e2e.GOBLIND, "parse", str(root / "nothing")], capture_output=True, text=True)
    assert out.returncode == 3 and not out.stdout and "nothing to measure" in out.stderr, out
    # the CLI: goblind runs --profile, goblind show's sources
    url = d.base.split("//")[1]
    out = subprocess.run([e2e.GOBLIND, "runs", "--profile", "smi", "--url", url], capture_output=True, text=True)
    rows = [l.split() for l in out.stdout.splitlines()[1:]]
    assert out.returncode == 0 and [r[0] for r in rows] == ["smi"] and rows[0][-1] == "smi", out.stdout
    out = subprocess.run([e2e.GOBLIND, "show", "kin", "--url", url], capture_output=True, text=True)
    assert out.returncode == 0 and re.search(r"^  profile +kineto$", out.stdout, re.M), out.stdout
    assert re.search(r"^    gpu_util_pct +timeline busy / span \(" + re.escape(kin.name) + r"\)$", out.stdout, re.M), out.stdout
    assert re.search(r"^    hbm_peak_gb +- \(unknown\)$", out.stdout, re.M) and "HBM          peak - GB" in out.stdout
    assert "not read: kernel trace not found" not in out.stdout and kin.name + "  torch-trace-json" in out.stdout
    out = subprocess.run([e2e.GOBLIND, "show", "broken", "--url", url], capture_output=True, text=True)
    assert out.returncode == 3 and "no source could be read" in out.stdout, out
    # /compare: two kineto runs of different names
    assert d.get("/compare?base=kin&candidate=ranks")[0] == 200
    assert d.stop() == 0


def test_wait_for_a_run_not_yet_discovered(tmp):
    d = e2e.Daemon(tmp)
    d.start()
    ev = e2e.SSE(d.base)                           # the events of an empty run: created, then empty
    blank = Path(tmp) / "blank"                    # files, none a profile (a directory with nothing
    blank.mkdir()                                  # in it at all is a run about to start: pending)
    (blank / "notes.txt").write_text("not a profile\n")
    blank.rename(d.roots[0] / "blank")
    m = ev.wait(lambda m: m.get("event") == "empty" and m["json"]["run"] == "blank")
    assert m["json"]["status"] == "empty" and m["json"]["etag"].endswith('-empty"'), m
    ev.sock.close()
    out = {}

    def ask(path):
        t0 = time.time()
        out[path] = (d.get(path)[0], time.time() - t0)
    paths = ["/runs/late?wait=30", "/runs/late/metrics?wait=30", "/runs/late/analysis?wait=30"]
    threads = [threading.Thread(target=ask, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    time.sleep(1.5)
    run = d.roots[0] / "late"
    run.mkdir()
    shutil.copy(SHARED / "fixtures" / "torch_profiler" / "kineto_docs__traces__after_fix_trace.json", run)
    for t in threads:
        t.join(60)
    for p in paths:
        assert out[p][0] == 200 and out[p][1] >= 1.0, (p, out[p])
    # goblind show --wait: the daemon waits for the run to appear, then for it to be final
    def show_later():
        out["show"] = subprocess.run([e2e.GOBLIND, "show", "later", "--wait", "--url", d.base.split("//")[1]],
                                     capture_output=True, text=True, timeout=120)
    th = threading.Thread(target=show_later)
    th.start()
    time.sleep(1.5)
    (d.roots[0] / "later").mkdir()
    shutil.copy(SHARED / "fixtures" / "torch_profiler" / "kineto_docs__traces__before_fix_trace.json", d.roots[0] / "later")
    th.join(120)
    assert out["show"].returncode == 0 and "run later  complete" in out["show"].stdout, out["show"]
    t0 = time.time()
    assert d.get("/runs/never?wait=1")[0] == 404 and time.time() - t0 >= 0.9
    assert d.get("/runs/never")[0] == 404
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_profiles", globals(), ONLY))
