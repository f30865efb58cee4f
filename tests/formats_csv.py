#!/usr/bin/env python3
"""fmtcsv oracle: every CSV fixture through `section_tool --records FORMAT=FILE`, compared with an
independent read of the same file by Python's csv module (row counts, sums of End - Start, bytes
by direction, calls and totals of stats rows, unit conversions done with decimal.Decimal).

usage: formats_csv.py SECTION_TOOL SHARED_DIR FIXTURES_DIR"""
import csv
import io
import json
import subprocess
import sys
from collections import Counter
from decimal import Decimal, ROUND_HALF_UP

TOOL, SHARED, OWN = sys.argv[1], sys.argv[2], sys.argv[3]
ROC = SHARED + "/fixtures/rocprofv3/"
failures = []


def records(fmt, path):
    p = subprocess.run([TOOL, "--records", f"{fmt}={path}"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit(f"{fmt}={path}: exit {p.returncode}: {p.stderr}")
    check(p.stderr.strip() == "", f"{path}: no warnings", p.stderr.strip())
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def rows(path, skip_banner=False):
    text = open(path, encoding="utf-8", errors="replace").read()
    if skip_banner:
        text = "\n".join(l for l in text.splitlines() if not l.startswith("=="))
    return [r for r in csv.DictReader(io.StringIO(text)) if any(v for v in r.values())]


def check(ok, what, detail=""):
    if not ok:
        failures.append(f"{what} {detail}")


def same(got, want, what):
    check(got == want, what, f"got {got!r}, want {want!r}")


def scaled(text, factor):
    return int((Decimal(text) * factor).to_integral_value(rounding=ROUND_HALF_UP))


def kernel_trace(path, start="Start_Timestamp", end="End_Timestamp", grid="Grid_Size_X"):
    recs = records("kernel-trace-csv", path)
    want = rows(path)
    same(len(recs), len(want), f"{path}: kernel rows")
    same(sum(r["duration_ns"] for r in recs), sum(int(w[end]) - int(w[start]) for w in want), f"{path}: sum End-Start")
    same([r["name"] for r in recs], [w.get("Kernel_Name", w.get("KernelName")) for w in want], f"{path}: names")
    same([r["grid"][0] for r in recs], [int(w[grid]) for w in want], f"{path}: grid x")


def copies(path):
    recs = records("rocprof-memory-copy-csv", path)
    want = rows(path)
    same(len(recs), len(want), f"{path}: copies")
    same(sum(r["duration_ns"] for r in recs), sum(int(w["End_Timestamp"]) - int(w["Start_Timestamp"]) for w in want),
         f"{path}: copy time")
    kinds = {"MEMORY_COPY_HOST_TO_DEVICE": 1, "MEMORY_COPY_DEVICE_TO_HOST": 2, "MEMORY_COPY_DEVICE_TO_DEVICE": 3,
             "MEMORY_COPY_PEER_TO_PEER": 4}
    same(Counter(r["copy"] for r in recs), Counter(kinds[w["Direction"]] for w in want), f"{path}: directions")


def api(fmt, path, domain):
    recs = records(fmt, path)
    want = rows(path)
    same(len(recs), len(want), f"{path}: calls")
    same(sum(r["duration_ns"] for r in recs), sum(int(w["End_Timestamp"]) - int(w["Start_Timestamp"]) for w in want),
         f"{path}: API time")
    same(Counter(r["name"] for r in recs), Counter(w["Function"] for w in want), f"{path}: functions")
    same({r["domain"] for r in recs}, {domain}, f"{path}: domain")


def allocations(path):
    recs = records("rocprof-memory-allocation-csv", path)
    want = rows(path)
    same(len(recs), len(want), f"{path}: allocation rows")
    same(sum(r.get("bytes", 0) for r in recs if r["category"] == "alloc"),
         sum(int(w["Allocation_Size"]) for w in want if w["Operation"].endswith("ALLOCATE")), f"{path}: bytes allocated")
    same(sum(1 for r in recs if r["category"] == "free"), sum(1 for w in want if w["Operation"].endswith("FREE")),
         f"{path}: frees")
    same([r.get("address") for r in recs], [int(w["Address"], 0) for w in want], f"{path}: addresses")
    same([r.get("bytes") for r in recs if r["category"] == "free"], [None] * sum(1 for r in recs if r["category"] == "free"),
         f"{path}: a free's size 0 is unknown")


def allocation_peak(path, want_peak=None):
    """The allocations section over one trace against a running sum in Python: a free (size 0,
    no agent) releases the live allocation at its address, on that allocation's device."""
    p = subprocess.run([TOOL, f"rocprof-memory-allocation-csv={path}"], capture_output=True, text=True, timeout=120)
    got = json.loads(p.stdout)["allocations"]
    live, net, peak, dev_of, frees = {}, {}, {}, {}, Counter()
    for w in sorted(rows(path), key=lambda w: int(w["Start_Timestamp"])):
        addr = int(w["Address"], 0)
        if w["Operation"].endswith("ALLOCATE"):
            dev = int(w["Agent_Id"].split()[-1])
            live[addr], dev_of[addr] = int(w["Allocation_Size"]), dev
            net[dev] = net.get(dev, 0) + live[addr]
        else:
            dev = dev_of[addr]
            net[dev] -= live.pop(addr)
            frees[dev] += 1
        peak[dev] = max(peak.get(dev, 0), net[dev])
    same(got["peak_bytes"], max(peak.values()), f"{path}: allocation peak")
    if want_peak is not None:
        same(got["peak_bytes"], want_peak, f"{path}: allocation peak (by hand)")
    same(got["peak_exact"], True, f"{path}: allocation peak exact")
    same({d["device"]: (d["peak_bytes"], d["frees"]) for d in got["devices"]},
         {d: (peak[d], frees[d]) for d in peak}, f"{path}: allocation devices")


def counters(path):
    recs = records("rocprof-counter-csv", path)
    want = rows(path)
    same(len(recs), len(want), f"{path}: counter rows")
    same(sum(r["number"] for r in recs), sum(float(w["Counter_Value"]) for w in want), f"{path}: counter sum")


LEGACY_FIXED = ("Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds", "scr",
                "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "wave_size", "fbar", "sig", "obj", "DispatchNs", "BeginNs",
                "EndNs", "CompleteNs", "DurationNs")


def legacy_counters(path, want_dispatches):
    """Legacy rocprof --pmc output: each counter column (every column rocprof does not always write)
    of each row is one counter record named by the column, with the row's kernel; the counters
    section's sums, means and extremes per (kernel, counter) are Python's over the same cells;
    rows with timestamps are dispatches too (EndNs - BeginNs)."""
    p = subprocess.run([TOOL, "--records", f"kernel-trace-csv={path}"], capture_output=True, text=True, timeout=120)
    same(p.returncode, 0, f"{path}: exit status")
    recs = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    want = rows(path)
    cols = [c for c in want[0] if c not in LEGACY_FIXED]
    check(len(cols) > 0, f"{path}: the file has counter columns")
    same([(r["name"], r["number"], r["fields"]["kernel_name"]) for r in recs if r["type"] == "counter"],
         [(c, float(w[c]), w["KernelName"]) for w in want for c in cols], f"{path}: counter records")
    disp = [r for r in recs if r["type"] == "kernel_dispatch"]
    same(len(disp), want_dispatches, f"{path}: dispatches")
    if want_dispatches:
        same([r["duration_ns"] for r in disp], [int(w["EndNs"]) - int(w["BeginNs"]) for w in want], f"{path}: durations")
    p = subprocess.run([TOOL, f"kernel-trace-csv={path}"], capture_output=True, text=True, timeout=120)
    got = {(x["kernel"], x["counter"]): x for x in json.loads(p.stdout)["counters"]["by_kernel_counter"]}
    by = {}
    for w in want:
        for c in cols:
            by.setdefault((w["KernelName"], c), []).append(float(w[c]))
    same(set(got), set(by), f"{path}: counter pairs")
    for k, v in by.items():
        g = got.get(k, {})
        same((g.get("dispatches"), g.get("sum"), g.get("min"), g.get("max")), (len(v), sum(v), min(v), max(v)),
             f"{path}: counter {k}")


def stats(fmt, path, name="Name", calls="Calls", total="TotalDurationNs"):
    recs = records(fmt, path)
    want = rows(path)
    same(len(recs), len(want), f"{path}: stats rows")
    same(sum(int(r["calls"]) if "calls" in r else int(r["fields"]["calls"]) for r in recs),
         sum(int(w[calls]) for w in want), f"{path}: calls")
    same(sum(r["duration_ns"] for r in recs), sum(scaled(w[total], 1) for w in want), f"{path}: total ns")
    same([r["name"] for r in recs], [w[name] for w in want], f"{path}: names")


def gpu_trace(fmt, path, start, dur, bytes_col, t_start, t_dur, byte_unit, banner=False):
    recs = records(fmt, path)
    want = rows(path, skip_banner=banner)
    if banner:
        want = want[1:]  # the units row
    same(len(recs), len(want), f"{path}: rows")
    same([r["start_ns"] for r in recs], [scaled(w[start], t_start) for w in want], f"{path}: starts in ns")
    same(sum(r["duration_ns"] for r in recs), sum(scaled(w[dur], t_dur) for w in want), f"{path}: durations in ns")
    by_dir, want_dir = Counter(), Counter()
    for r in recs:
        if r["type"] == "memory_copy":
            by_dir[r["copy"]] += r["bytes"]
    for w in want:
        n = w["Name"]
        if "memcpy" in n:
            k = 1 if ("HtoD" in n or "Host-to-Device" in n) else 2 if ("DtoH" in n or "Device-to-Host" in n) else 0
            want_dir[k] += scaled(w[bytes_col], byte_unit)
    same(by_dir, want_dir, f"{path}: bytes by direction")
    same(Counter(r["type"] for r in recs),
         Counter("memory_copy" if "memcpy" in w["Name"] else "memset" if "memset" in w["Name"] else "kernel_dispatch"
                 for w in want), f"{path}: record types")


kernel_trace(ROC + "sdk_kernel_trace.csv")
kernel_trace(ROC + "sdk2024_kernel_trace.csv")
kernel_trace(ROC + "rocprofv1_omniperf_Axes1_mi200_timestamps.csv", "BeginNs", "EndNs", "grd")
kernel_trace(OWN + "/4242_kernel_trace.csv")
copies(ROC + "sdk_memory_copy_trace.csv")
copies(OWN + "/4242_memory_copy_trace.csv")
api("rocprof-hip-api-csv", OWN + "/4242_hip_api_trace.csv", 1)
api("rocprof-hsa-api-csv", OWN + "/4242_hsa_api_trace.csv", 2)
allocations(ROC + "sdk_memory_allocation_trace.csv")
allocation_peak(ROC + "sdk_memory_allocation_trace.csv")
allocations(OWN + "/4242_memory_allocation_trace.csv")
allocation_peak(OWN + "/4242_memory_allocation_trace.csv", 2**30 + 0)   # three 1 GiB allocations in turn
counters(ROC + "sdk_counter_collection.csv")
legacy_counters(SHARED + "/corpus/found/hipprog_rocprof_v1_pmc_output_vec_add_gpu.csv", 0)
legacy_counters(OWN + "/rocprof_v1_pmc_timestamps.csv", 3)
stats("rocprof-api-stats-csv", ROC + "sdk2024_hip_api_stats.csv")
stats("rocprof-domain-stats-csv", ROC + "sdk_hip_domain_stats.csv")
stats("rocprof-kernel-stats-csv", ROC + "rocprofv1_batched_gemm_results.stats.csv")
stats("rocprof-kernel-stats-csv", OWN + "/4242_kernel_stats.csv")
stats("rocprof-memory-copy-stats-csv", OWN + "/4242_memory_copy_stats.csv")
stats("nsys-cuda-gpu-kern-sum-csv", OWN + "/report_cuda_gpu_kern_sum.csv", "Name", "Instances", "Total Time (ns)")
stats("nsys-cuda-gpu-mem-time-sum-csv", OWN + "/report_cuda_gpu_mem_time_sum.csv", "Operation", "Count",
      "Total Time (ns)")
gpu_trace("nsys-cuda-gpu-trace-csv", OWN + "/report_cuda_gpu_trace.csv", "Start (ns)", "Duration (ns)", "Bytes (MB)",
          1, 1, 10**6)
gpu_trace("nvprof-gpu-trace-csv", OWN + "/vector_add_nvprof_gpu_trace.csv", "Start", "Duration", "Size",
          10**6, 10**3, 1024, banner=True)

for f in failures:
    print("FAIL:", f)
print(f"formats_csv: {len(failures)} failures")
sys.exit(1 if failures else 0)
