#!/usr/bin/env python3
"""Sections over real corpus files (../shared/corpus), each compared with an independent
computation in plain Python (csv / sqlite3 / json modules), never goblind's own code:

- kernels: legacy rocprof `results.stats.csv` with `<barrier packet>` rows: the barrier rows are
  counted apart (`barrier_packets`), the kernel totals are the other rows';
- counters: every rocprofv3 `*counter_collection.csv` of the corpus and the fixtures: per
  (Kernel_Name, Counter_Name) the rows, sum, mean, min and max of Counter_Value;
- timeline: a 2021 Kineto trace at microsecond resolution with zero-duration kernels and
  memsets: per stream, the idle gaps between busy islands where a zero-duration operation is an
  instant that splits a gap (HTA's rule), the busy time, the operations;
- allocations: every corpus torch trace with device `[memory]` events (profile_memory=True):
  per Device Id the largest "Total Allocated" and "Total Reserved" of the events whose Device
  Type is not the CPU's (0), and the run's largest (the HBM peak's input);
- counters: legacy rocprof --pmc output (no timestamps): one value per counter column and row;

A file missing from the corpus skips its check (exit 77 when every one is missing).

usage: corpus_sections.py SECTION_TOOL SHARED_DIR"""
import csv
import gzip
import json
import math
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

TOOL, SHARED = sys.argv[1], Path(sys.argv[2])
CORPUS = SHARED / "corpus"
failures = []
ran = 0


def check(ok, what, detail=""):
    if not ok:
        failures.append(f"{what} {detail}")


def same(got, want, what):
    check(got == want, what, f"got {got!r}, want {want!r}")


def doc(*inputs):
    """The analysis document section_tool writes for FORMAT=FILE inputs."""
    p = subprocess.run([TOOL, *[f"{f}={path}" for f, path in inputs]], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"section_tool {inputs}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def present(path):
    global ran
    if not path.exists():
        print(f"skip {path}: not in the corpus")
        return False
    ran += 1
    return True


def barrier_stats():
    path = CORPUS / "found2" / "rocprof_stats_csv" / "saltfish_results.stats.csv"
    if not present(path):
        return
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    barrier = [r for r in rows if r["Name"].startswith("<barrier packet")]
    kernels = [r for r in rows if not r["Name"].startswith("<barrier packet")]
    k = doc(("rocprof-kernel-stats-csv", path))["kernels"]
    same(k["barrier_packets"], {"calls": sum(int(r["Calls"]) for r in barrier),
                                "total_ns": sum(int(r["TotalDurationNs"]) for r in barrier)}, f"{path.name}: barrier_packets")
    same(k["total_calls"], sum(int(r["Calls"]) for r in kernels), f"{path.name}: kernel calls")
    same(k["total_ns"], sum(int(r["TotalDurationNs"]) for r in kernels), f"{path.name}: kernel ns")
    check(all(e["class"] != "barrier" for e in k["by_name"]), f"{path.name}: no barrier row among the kernels")
    print(f"ok {path.name}: {len(barrier)} barrier row(s), {len(kernels)} kernel names")


def counter_csvs():
    files = sorted(CORPUS.rglob("*counter_collection.csv")) + sorted((SHARED / "fixtures").rglob("*counter_collection.csv"))
    for path in files:
        if not present(path):
            continue
        want = {}
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                v = float(r["Counter_Value"])
                w = want.setdefault((r["Kernel_Name"], r["Counter_Name"]), [0, 0.0, v, v])
                w[0] += 1
                w[1] += v
                w[2] = min(w[2], v)
                w[3] = max(w[3], v)
        c = doc(("rocprof-counter-csv", path))["counters"]
        same(c["values"], sum(w[0] for w in want.values()), f"{path.name}: values")
        same(c["pairs"], len(want), f"{path.name}: pairs")
        got = {(e["kernel"], e["counter"]): e for e in c["by_kernel_counter"]}
        same(set(got), set(want), f"{path.name}: (kernel, counter) pairs listed")
        for key, (n, total, lo, hi) in want.items():
            e = got.get(key)
            if not e:
                continue
            same(e["dispatches"], n, f"{path.name}: {key} dispatches")
            check(math.isclose(e["sum"], total, rel_tol=1e-12, abs_tol=1e-9), f"{path.name}: {key} sum", f"{e['sum']} != {total}")
            check(math.isclose(e["mean"], total / n, rel_tol=1e-12, abs_tol=1e-9), f"{path.name}: {key} mean")
            same((e["min"], e["max"]), (lo, hi), f"{path.name}: {key} min/max")
        order = [(-w[0], k) for k, w in want.items()]
        same([(e["kernel"], e["counter"]) for e in c["by_kernel_counter"]], [k for _, k in sorted(order)],
             f"{path.name}: order (dispatches, kernel, counter)")
        print(f"ok {path.name}: {len(want)} (kernel, counter) pairs")


def zero_duration_gaps():
    path = CORPUS / "found" / "kineto_tb_resnet50_nw4_worker0.1623212756351.pt.trace.json.gz"
    if not present(path):
        return
    with gzip.open(path, "rt") as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    lanes = {}
    for e in events:
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in ("kernel", "memcpy", "memset", "gpu_memcpy", "gpu_memset"):
            a = int(Decimal(str(e["ts"])) * 1000)   # exact: ts * 1000 is past 2^53
            lanes.setdefault(int(e["args"].get("stream", e["tid"])), []).append((a, a + int(Decimal(str(e["dur"])) * 1000)))
    zero = sum(1 for v in lanes.values() for a, b in v if a == b)
    tl = doc(("torch-trace-json", path))["timeline"]
    got = {s["stream"]: s for s in tl["streams"]}
    same(set(got), set(lanes), f"{path.name}: streams")
    for stream, ivs in lanes.items():
        islands = []
        for a, b in sorted(ivs):   # HTA: a zero-duration operation is an instant; touching merges
            if islands and a <= islands[-1][1]:
                islands[-1][1] = max(islands[-1][1], b)
            else:
                islands.append([a, b])
        st = got.get(stream)
        if not st:
            continue
        same(st["idle_gaps"], len(islands) - 1, f"{path.name}: stream {stream} idle gaps")
        same(st["busy_ns"], sum(b - a for a, b in islands), f"{path.name}: stream {stream} busy")
        same(st["operations"], len(ivs), f"{path.name}: stream {stream} operations")
    check(zero > 0, f"{path.name}: has zero-duration operations")
    print(f"ok {path.name}: {zero} zero-duration operations, gaps per stream as HTA counts them")


def torch_memory_totals():
    """The allocator totals of torch [memory] events, per device, against json by hand."""
    for path in sorted(CORPUS.rglob("*.json.gz")):
        with gzip.open(path, "rb") as f:
            raw = f.read()
        if b'"[memory]"' not in raw or b'"Total Allocated"' not in raw:
            continue
        d = json.loads(raw)
        ev = d.get("traceEvents") if isinstance(d, dict) else d
        alloc, res = {}, {}
        for e in ev or []:
            a = e.get("args") if isinstance(e, dict) and e.get("name") == "[memory]" else None
            if not isinstance(a, dict) or a.get("Device Type") in (None, 0) or "Total Allocated" not in a:
                continue
            if not isinstance(a.get("Device Id"), int) or a["Device Id"] < 0 or not isinstance(e.get("ts"), (int, float)):
                continue
            dev = a["Device Id"]
            alloc[dev] = max(alloc.get(dev, 0), a["Total Allocated"])
            if "Total Reserved" in a:
                res[dev] = max(res.get(dev, 0), a["Total Reserved"])
        if not alloc or not present(path):
            continue
        got = doc(("torch-trace-json", path))["allocations"]
        same({x["device"]: (x["reported_peak_bytes"], x["reserved_peak_bytes"]) for x in got["devices"]},
             {k: (v, res.get(k)) for k, v in alloc.items()}, f"{path.name}: allocator totals per device")
        same((got["reported_peak_bytes"], got["reserved_peak_bytes"]), (max(alloc.values()), max(res.values())),
             f"{path.name}: largest totals")
        same((got["peak_bytes"], got["allocation_count"]), (None, 0), f"{path.name}: no allocation trace")


def legacy_pmc_counters():
    """rocprof v1 --pmc output: each column after `obj` (no timestamps here) is a counter."""
    path = CORPUS / "found" / "hipprog_rocprof_v1_pmc_output_vec_add_gpu.csv"
    if not present(path):
        return
    with open(path, newline="") as f:
        head, *rows = list(csv.reader(f))
    cols = head[head.index("obj") + 1:]
    want = {(r[head.index("KernelName")], c): float(r[head.index(c)]) for r in rows for c in cols}
    got = doc(("kernel-trace-csv", path))["counters"]
    same({(x["kernel"], x["counter"]): x["sum"] for x in got["by_kernel_counter"]}, want, f"{path.name}: counters")
    same(got["values"], len(rows) * len(cols), f"{path.name}: counter values")


def main():
    barrier_stats()
    counter_csvs()
    zero_duration_gaps()
    torch_memory_totals()
    legacy_pmc_counters()
    if failures:
        print("\n".join(failures))
        return 1
    return 0 if ran else 77


if __name__ == "__main__":
    sys.exit(main())
