#!/usr/bin/env python3
"""timeline_oracle: the `timeline` and `classes` sections against independent computations.

    timeline_oracle.py SECTION_TOOL SHARED_DIR

1. Every rocprofv3 kernel-trace CSV fixture and the rocpd database: the run's span, busy
   and idle against a union computed here from the file itself (Python csv / sqlite3, not
   goblind's formats), and every stream's against a union of the records section_tool
   --records prints for that stream; class totals sum to the kernel total.
2. A generated run (../shared/tools/gen_run.py) whose kernel plan is known: busy = the sum
   of the planned durations (they never overlap), idle split: gaps under the 50 us
   threshold are kernel_wait, the others (data-loading gaps between steps) other; host_wait
   is null (a kernel trace has no launch calls); short kernels (< 10 us) by count and time;
   per-class totals from tests/kernel_classes_expected.tsv.
   Every scope's busy time series (`bins`) against a brute force per bin (check_bins): the
   bins sum to busy_ns exactly and none exceeds bin_ns.
3. A torch profiler fixture, once the torch format emits records (skipped until then).
Exit 0 when every comparison holds."""
import argparse
import csv
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def union(intervals):
    """Total length of the union of [s, e) intervals: a sort and a sweep."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(i for i in intervals if i[1] > i[0]):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def check_bins(name, tl, scope, ivs):
    """The busy time series of one scope against a brute force: per bin of the run's grid, the
    union of the intervals clipped to the bin; the grid is ceil(span / 200) wide."""
    run = tl["run"]
    span = run["span_ns"]
    width = max(1, -(-span // 200))
    check(tl["bin_ns"] == width and tl["bin_start_ns"] == run["start_ns"], f"{name}: grid {tl['bin_ns']} != {width}")
    check(tl["bin_count"] == -(-span // width) == len(scope["bins"]), f"{name}: bin count {tl['bin_count']}")
    start = tl["bin_start_ns"]
    want = [union([(max(s, start + k * width), min(e, start + (k + 1) * width)) for s, e in ivs])
            for k in range(tl["bin_count"])]
    check(scope["bins"] == want, f"{name}: bins differ from the brute force at "
          f"{[k for k in range(len(want)) if k >= len(scope['bins']) or scope['bins'][k] != want[k]][:5]}")
    check(sum(scope["bins"]) == scope["busy_ns"], f"{name}: bins sum {sum(scope['bins'])} != busy {scope['busy_ns']}")
    check(all(0 <= b <= width for b in scope["bins"]), f"{name}: a bin outside [0, bin_ns]")
    check(scope["start_ns"] == min(s for s, _ in ivs) and scope["end_ns"] == max(e for _, e in ivs),
          f"{name}: start/end {scope['start_ns']}..{scope['end_ns']}")


def run_tool(tool, *args):
    out = subprocess.run([tool, *args], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def csv_intervals(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    s_col = "Start_Timestamp" if "Start_Timestamp" in rows[0] else "BeginNs"
    e_col = "End_Timestamp" if "End_Timestamp" in rows[0] else "EndNs"
    return [(int(r[s_col]), int(r[e_col])) for r in rows if r[s_col].strip() and r[e_col].strip()]


def check_run_level(name, doc, ivs):
    tl = doc["timeline"]["run"]
    span = max(e for _, e in ivs) - min(s for s, _ in ivs)
    busy = union(ivs)
    check(tl["span_ns"] == span, f"{name}: span {tl['span_ns']} != {span}")
    check(tl["busy_ns"] == busy, f"{name}: busy {tl['busy_ns']} != {busy}")
    check(tl["idle_ns"] == span - busy, f"{name}: idle {tl['idle_ns']} != {span - busy}")
    check_bins(name + " run", doc["timeline"], tl, ivs)
    parts = (tl["host_wait_ns"] or 0) + tl["kernel_wait_ns"] + tl["other_ns"]
    check(parts == tl["idle_ns"], f"{name}: idle parts {parts} != idle {tl['idle_ns']}")
    cl = doc["classes"]
    check(sum(c["total_ns"] for c in cl["by_class"]) == cl["total_ns"], f"{name}: class totals do not sum")
    check(cl["kernel_total_ns"] == sum(e - s for s, e in ivs), f"{name}: kernel total {cl['kernel_total_ns']}")
    kern = doc.get("kernels")
    if isinstance(kern, dict) and isinstance(kern.get("total_ns"), int):
        check(kern["total_ns"] == cl["kernel_total_ns"], f"{name}: kernels.total_ns != classes.kernel_total_ns")


def check_streams(name, tool, fmt, path, doc):
    rc, out, err = run_tool(tool, "--records", f"{fmt}={path}")
    check(rc == 0, f"{name}: --records failed: {err}")
    lanes = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r["type"] in ("kernel_dispatch", "memory_copy", "memset") and "start_ns" in r and "end_ns" in r:
            lanes.setdefault((r.get("device"), r.get("stream")), []).append((r["start_ns"], r["end_ns"]))
    got = {(s["device"], s["stream"]): s for s in doc["timeline"]["streams"]}
    check(set(got) == set(lanes), f"{name}: streams {sorted(got, key=str)} != {sorted(lanes, key=str)}")
    for key, ivs in lanes.items():
        s = got.get(key)
        if not s:
            continue
        span = max(e for _, e in ivs) - min(b for b, _ in ivs)
        check(s["busy_ns"] == union(ivs), f"{name} {key}: busy {s['busy_ns']} != {union(ivs)}")
        check(s["span_ns"] == span, f"{name} {key}: span {s['span_ns']} != {span}")
        check(s["idle_ns"] == span - union(ivs), f"{name} {key}: idle")
        check_bins(f"{name} {key}", doc["timeline"], s, ivs)


def fixtures(tool, shared):
    rp = shared / "fixtures" / "rocprofv3"
    for f in ["sdk_kernel_trace.csv", "sdk2024_kernel_trace.csv", "rocprofv1_omniperf_Axes1_mi200_timestamps.csv"]:
        rc, out, err = run_tool(tool, f"kernel-trace-csv={rp / f}")
        check(rc == 0, f"{f}: section_tool failed: {err}")
        doc = json.loads(out)
        check_run_level(f, doc, csv_intervals(rp / f))
        check_streams(f, tool, "kernel-trace-csv", rp / f, doc)
        print("ok", f, doc["timeline"]["run"]["busy_ns"])
    db = rp / "rocpd_ck_bmm_28_results.db"
    rc, out, err = run_tool(tool, f"rocpd-sqlite={db}")
    check(rc == 0, f"rocpd: section_tool failed: {err}")
    doc = json.loads(out)
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    ivs = [(s, e) for s, e in con.execute("SELECT start, end FROM kernels")]
    con.close()
    check_run_level("rocpd", doc, ivs)
    check_streams("rocpd", tool, "rocpd-sqlite", db, doc)
    print("ok rocpd", doc["timeline"]["run"]["busy_ns"])


def expected_classes():
    out = {}
    for line in (HERE / "kernel_classes_expected.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            cls, name = line.split("\t", 1)
            out[name] = cls
    return out


def every_fixture_name_classified(tool, shared):
    """Every kernel name of every fixture (as the formats read it) has a hand-reviewed row in
    kernel_classes_expected.tsv, so check_timeline's table test covers what real files name."""
    fx, own = shared / "fixtures", HERE / "fixtures" / "fmtcsv"
    specs = [("kernel-trace-csv", fx / "rocprofv3" / f) for f in
             ("sdk_kernel_trace.csv", "sdk2024_kernel_trace.csv", "rocprofv1_omniperf_Axes1_mi200_timestamps.csv")]
    specs += [("rocpd-sqlite", fx / "rocprofv3" / "rocpd_ck_bmm_28_results.db"),
              ("rocprofv3-json", fx / "rocprofv3" / "rocprofv3_908_results.json.gz"),
              ("rocprof-kernel-stats-csv", fx / "rocprofv3" / "rocprofv1_batched_gemm_results.stats.csv"),
              ("rocprof-counter-csv", fx / "rocprofv3" / "sdk_counter_collection.csv"),
              ("kernel-trace-csv", own / "4242_kernel_trace.csv"),
              ("rocprof-kernel-stats-csv", own / "4242_kernel_stats.csv"),
              ("nsys-cuda-gpu-kern-sum-csv", own / "report_cuda_gpu_kern_sum.csv"),
              ("nsys-cuda-gpu-trace-csv", own / "report_cuda_gpu_trace.csv")]
    specs += [("torch-trace-json", f) for f in sorted((fx / "torch_profiler").glob("*.json*"))]
    known, names = expected_classes(), set()
    for fmt, path in specs:
        rc, out, err = run_tool(tool, "--records", f"{fmt}={path}")
        check(rc == 0, f"{path.name}: section_tool failed: {err}")
        for line in out.splitlines():
            r = json.loads(line)
            if r["type"] == "kernel_dispatch" and r.get("name"):
                names.add(r["name"])
            elif r["type"] == "kernel_stats" and r.get("category") in (None, "kernel") and r.get("name"):
                names.add(r["name"])
            elif r["type"] == "counter" and r.get("fields", {}).get("kernel_name"):
                names.add(r["fields"]["kernel_name"])
    missing = sorted(names - set(known))
    check(not missing, f"{len(missing)} fixture kernel names not in kernel_classes_expected.tsv, e.g. {missing[:3]}")
    print("ok class table covers", len(names), "fixture kernel names")


def generated(tool, shared):
    sys.path.insert(0, str(shared / "tools"))
    import gen_run
    with tempfile.TemporaryDirectory() as tmp:
        args = ["--steps", "4", "--kernels-per-step", "300", "--cpu-ops-per-step", "2", "--smi-samples", "3", "--seed", "7"]
        subprocess.run([sys.executable, str(shared / "tools" / "gen_run.py"), tmp, *args], check=True,
                       capture_output=True)
        a = argparse.Namespace(steps=4, kernels_per_step=300, seed=7, slow=[])   # slow: gen_run's --slow, none
        launches, _ = gen_run.plan(a, random.Random(7))
        rc, out, err = run_tool(tool, f"kernel-trace-csv={tmp}/trace.csv")
        check(rc == 0, f"gen_run: section_tool failed: {err}")
        doc = json.loads(out)
    tl = doc["timeline"]
    run = tl["run"]
    ivs = [(b, b + d) for (_, _, b, d, _) in launches]
    gaps = [ivs[i + 1][0] - ivs[i][1] for i in range(len(ivs) - 1)]
    thr = tl["kernel_wait_threshold_ns"]
    check(run["busy_ns"] == sum(d for (_, _, _, d, _) in launches), "gen_run: busy != sum of planned durations")
    check(run["span_ns"] == ivs[-1][1] - ivs[0][0], "gen_run: span")
    check(run["kernel_wait_ns"] == sum(g for g in gaps if g < thr), "gen_run: kernel_wait != short gaps")
    check(run["other_ns"] == sum(g for g in gaps if g >= thr), "gen_run: other != step gaps")
    check(run["host_wait_ns"] is None, "gen_run: host_wait should be unknown without launch calls")
    check_bins("gen_run run", tl, run, ivs)
    check(run["idle_gaps"] == len(gaps), "gen_run: gap count")
    short = [d for (_, _, _, d, _) in launches if d < tl["short_kernels"]["threshold_ns"]]
    check(tl["short_kernels"]["count"] == len(short), "gen_run: short kernel count")
    check(tl["short_kernels"]["total_ns"] == sum(short), "gen_run: short kernel time")
    comm = union([(b, b + d) for (_, n, b, d, _) in launches if expected_classes()[n] == "communication"])
    check(run["communication_ns"] == comm, "gen_run: communication union")
    check(run["exposed_communication_ns"] == comm, "gen_run: sequential kernels: all communication exposed")
    exp = expected_classes()
    by = {}
    for (_, n, _, d, _) in launches:
        by[exp[n]] = by.get(exp[n], 0) + d
    got = {c["class"]: c["total_ns"] for c in doc["classes"]["by_class"]}
    check(got == by, f"gen_run: classes {got} != {by}")
    print("ok gen_run", run["busy_ns"], run["kernel_wait_ns"], run["other_ns"])


def torch(tool, shared):
    f = shared / "fixtures" / "torch_profiler" / "hta_amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json"
    rc, out, err = run_tool(tool, "--records", f"torch-trace-json={f}")
    if rc != 0 or not out.strip():
        print("skip torch: the torch format does not emit records yet")
        return
    data = json.loads(f.read_text())
    ivs = [(round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in data["traceEvents"]
           if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    rc, out, err = run_tool(tool, f"torch-trace-json={f}")
    doc = json.loads(out)
    if doc["timeline"] is None:
        check(not ivs, "torch: timeline null with GPU events")
        return
    run = doc["timeline"]["run"]
    # float microseconds -> ns rounding may differ by 1 ns per event edge
    check(abs(run["busy_ns"] - union(ivs)) <= 2 * len(ivs), f"torch: busy {run['busy_ns']} vs {union(ivs)}")
    print("ok torch", run["busy_ns"])


def main():
    tool, shared = sys.argv[1], Path(sys.argv[2])
    fixtures(tool, shared)
    every_fixture_name_classified(tool, shared)
    generated(tool, shared)
    torch(tool, shared)
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("timeline_oracle: all comparisons hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
