#!/usr/bin/env python3
"""sections_oracle: the `kernels` and `telemetry` sections of the analysis document against
independent computations over the same fixtures.

Runs build/tests/section_tool on fixtures the formats already read and compares:
  - kernels.by_name (calls, total/min/max, avg, sample stddev, median, pct, order) with a
    plain csv-module pass over rocprofv3 kernel traces, and with SQL over the rocpd
    database (`SELECT ... FROM kernels GROUP BY name`) plus statistics.median/stdev;
  - telemetry per GPU (samples, utilisation mean/max, VRAM peak/mean in bytes) with a
    csv-module pass over nvidia-smi and amd-smi logs.

usage: sections_oracle.py SECTION_TOOL SHARED_DIR
"""
import csv
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

TOOL, SHARED = sys.argv[1], sys.argv[2]
FIX = os.path.join(SHARED, "fixtures")
EXACT_CAP = 4096
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b, rel=1e-9):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=rel, abs_tol=1e-6)


def document(*sources):
    out = subprocess.run([TOOL] + [f"{fmt}={path}" for fmt, path in sources], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return json.loads(out.stdout)


def compare_kernels(label, doc_kernels, durations):
    """durations: name -> list of integer ns, computed independently."""
    check(doc_kernels is not None, f"{label}: kernels section is null")
    if doc_kernels is None:
        return
    total = sum(sum(v) for v in durations.values())
    calls = sum(len(v) for v in durations.values())
    check(doc_kernels["total_calls"] == calls, f"{label}: total_calls {doc_kernels['total_calls']} != {calls}")
    check(doc_kernels["total_ns"] == total, f"{label}: total_ns {doc_kernels['total_ns']} != {total}")
    rows = doc_kernels["by_name"]
    check(len(rows) == len(durations), f"{label}: {len(rows)} names != {len(durations)}")
    want_order = sorted(durations, key=lambda n: (-sum(durations[n]), n.encode()))
    check([r["name"] for r in rows] == want_order, f"{label}: by_name order")
    for r in rows:
        d = durations.get(r["name"])
        if d is None:
            check(False, f"{label}: unexpected name {r['name']!r}")
            continue
        n = r["name"][:40]
        check(r["calls"] == len(d), f"{label} {n}: calls")
        check(r["total_ns"] == sum(d), f"{label} {n}: total_ns {r['total_ns']} != {sum(d)}")
        check(r["min_ns"] == min(d) and r["max_ns"] == max(d), f"{label} {n}: min/max")
        check(close(r["avg_ns"], sum(d) / len(d)), f"{label} {n}: avg_ns")
        if len(d) > 1:
            check(close(r["stddev_ns"], statistics.stdev(d)), f"{label} {n}: stddev {r['stddev_ns']} != {statistics.stdev(d)}")
        else:
            check(r["stddev_ns"] is None, f"{label} {n}: one call, stddev not null")
        med = statistics.median(d)
        if len(d) <= EXACT_CAP:
            check(r["median_exact"] is True and r["median_ns"] == med, f"{label} {n}: median {r['median_ns']} != {med}")
        else:
            check(r["median_exact"] is False and abs(r["median_ns"] - med) <= 0.01 * med, f"{label} {n}: median bound")
        check(close(r["pct"], 100.0 * sum(d) / total), f"{label} {n}: pct")
    check(close(sum(r["pct"] for r in rows), 100.0, 1e-9), f"{label}: pct sums to 100")


def csv_kernel_durations(path):
    """rocprofv3 kernel_trace.csv: DurationNs when present, else End - Start; rows without a
    positive duration are not kernels (the format skips them)."""
    out = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            name = (row.get("Kernel_Name") or row.get("KernelName") or "").strip()
            if not name:
                continue
            if row.get("DurationNs"):
                d = int(float(row["DurationNs"]))
            else:
                d = int(row["End_Timestamp"]) - int(row["Start_Timestamp"])
            if d > 0:
                out[name].append(d)
    return out


def rocpd_durations(path):
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    sums = {}
    for name, calls, total in db.execute(
            'SELECT name, count(*), sum("end" - start) FROM kernels WHERE "end" > start GROUP BY name'):
        sums[name.strip()] = (calls, total)
    out = defaultdict(list)
    for name, d in db.execute('SELECT name, "end" - start FROM kernels WHERE "end" > start'):
        out[name.strip()].append(d)
    for name, (calls, total) in sums.items():   # the SQL aggregate agrees with the listed rows
        check(len(out[name]) == calls and sum(out[name]) == total, f"rocpd SQL self-check {name[:40]}")
    return out


def test_kernels():
    for fixture in ("sdk_kernel_trace.csv", "sdk2024_kernel_trace.csv"):
        path = os.path.join(FIX, "rocprofv3", fixture)
        doc = document(("kernel-trace-csv", path))
        compare_kernels(fixture, doc["kernels"], csv_kernel_durations(path))
    db = os.path.join(FIX, "rocprofv3", "rocpd_ck_bmm_28_results.db")
    doc = document(("rocpd-sqlite", db))
    compare_kernels("rocpd", doc["kernels"], rocpd_durations(db))
    # two sources: every dispatch of both counted once each
    a = os.path.join(FIX, "rocprofv3", "sdk_kernel_trace.csv")
    b = os.path.join(FIX, "rocprofv3", "sdk2024_kernel_trace.csv")
    both = csv_kernel_durations(a)
    for k, v in csv_kernel_durations(b).items():
        both[k] += v
    compare_kernels("two sources", document(("kernel-trace-csv", a), ("kernel-trace-csv", b))["kernels"], both)


def test_generated_run_beyond_exact_cap():
    """A generated run whose busiest kernels exceed the exact cap: approximate medians within
    1 % of statistics.median, every other column exact."""
    with tempfile.TemporaryDirectory() as tmp:
        run = os.path.join(tmp, "run")
        subprocess.run([sys.executable, os.path.join(SHARED, "tools", "gen_run.py"), run, "--steps", "60",
                        "--kernels-per-step", "400", "--cpu-ops-per-step", "1", "--smi-samples", "10"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        path = os.path.join(run, "trace.csv")
        want = csv_kernel_durations(path)
        check(max(len(v) for v in want.values()) > EXACT_CAP, "generated run: a name beyond the exact cap")
        compare_kernels("generated", document(("kernel-trace-csv", path))["kernels"], want)


def number(text):
    t = text.strip().rstrip("%").strip()
    for unit in ("MiB", "W", "C"):
        t = t.removesuffix(unit).strip()
    try:
        return float(t)
    except ValueError:
        return None


def cadence(stamps):
    """Median of the positive intervals between consecutive timestamps (seconds), in ms."""
    iv = [(b - a) / 1e6 for a, b in zip(stamps, stamps[1:]) if b > a]   # ns -> ms
    return statistics.median(iv) if iv else None


def parse_time(text):
    """A telemetry timestamp as integer ns: epoch seconds, ISO 8601 with Z, or nvidia-smi's
    'YYYY/MM/DD HH:MM:SS.fff' (read as UTC: only differences matter)."""
    import datetime
    t = text.strip()
    if t.isdigit():
        return int(t) * 10**9
    for fmt in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ", "%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S"):
        try:
            d = datetime.datetime.strptime(t, fmt)
            delta = d - datetime.datetime(1970, 1, 1)
            return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
        except ValueError:
            continue
    return None


def compare_gpu(label, gpu, samples, util, vram_bytes, stamps=None):
    check(gpu["samples"] == samples, f"{label}: samples {gpu['samples']} != {samples}")
    if util:
        check(close(gpu["util_mean_pct"], statistics.fmean(util)), f"{label}: util mean")
        check(gpu["util_max_pct"] == max(util), f"{label}: util max")
    else:
        check(gpu["util_mean_pct"] is None, f"{label}: util mean not null")
    if vram_bytes:
        check(gpu["vram_peak_bytes"] == max(vram_bytes), f"{label}: vram peak {gpu['vram_peak_bytes']}")
        check(type(gpu["vram_peak_bytes"]) is int, f"{label}: vram peak an integer {gpu['vram_peak_bytes']!r}")
        check(close(gpu["vram_mean_bytes"], statistics.fmean(vram_bytes)), f"{label}: vram mean")
    else:
        check(gpu["vram_peak_bytes"] is None, f"{label}: vram peak not null")
    want = cadence(stamps) if stamps else None
    if want is None:
        check(gpu["cadence_ms"] is None, f"{label}: cadence null without timestamps")
    else:
        check(gpu["cadence_ms"] is not None and close(gpu["cadence_ms"], want),
              f"{label}: cadence {gpu['cadence_ms']} != {want}")


def test_nvidia_smi():
    # nanoGPT: gpu_index, utilization_gpu_percent (no memory column)
    path = os.path.join(FIX, "nvidia_smi", "nanoGPT_gpu_metrics.csv")
    per = defaultdict(lambda: ([], []))
    counts = defaultdict(int)
    stamps = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            g = int(row["gpu_index"])
            counts[g] += 1
            stamps[g].append(parse_time(row["timestamp"]))
            u = number(row["utilization_gpu_percent"])
            if u is not None and 0 <= u <= 100:
                per[g][0].append(u)
    t = document(("nvidia-smi-csv", path))["telemetry"]
    gpus = {g["device"]: g for g in t["gpus"]}
    check(sorted(gpus) == sorted(counts), f"nanoGPT: GPUs {sorted(gpus)}")
    for g in counts:
        compare_gpu(f"nanoGPT gpu {g}", gpus[g], counts[g], per[g][0], [], stamps[g])
    check(t["samples"] == sum(counts.values()), "nanoGPT: samples")
    all_util = [u for g in per.values() for u in g[0]]
    check(close(t["util_mean_pct"], statistics.fmean(all_util)), "nanoGPT: run util mean")

    # repeated headers, units in the values: memory.used [MiB] -> bytes (x 2^20)
    path = os.path.join(FIX, "nvidia_smi", "gpu-usage_gpu_usage_repeated_headers.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    header = rows[0]
    data = [dict(zip(header, r)) for r in rows[1:] if r and r != header]
    util = [number(r["utilization.gpu [%]"]) for r in data]
    vram = [round(number(r["memory.used [MiB]"]) * 2**20) for r in data]
    t = document(("nvidia-smi-csv", path))["telemetry"]
    check(len(t["gpus"]) == 1, "gpu-usage: one GPU")
    compare_gpu("gpu-usage", t["gpus"][0], len(data), util, vram, [parse_time(r["timestamp"]) for r in data])
    check(t["vram_peak_bytes"] == max(vram), "gpu-usage: run vram peak")
    check(type(t["vram_peak_bytes"]) is int, "gpu-usage: run vram peak an integer")


def test_amd_smi():
    path = os.path.join(FIX, "amd_smi", "amd-smi_metric_watch_csv_InferenceX_gpu_metrics_EXCERPT.csv")
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header = rows[0]
    data = [dict(zip(header, r)) for r in rows[1:] if r != header]
    by_gpu = defaultdict(list)
    for r in data:
        by_gpu[int(r["gpu"])].append(r)
    t = document(("amd-smi-csv", path))["telemetry"]
    check(t is not None and sorted(g["device"] for g in t["gpus"]) == sorted(by_gpu), "amd-smi: one entry per gpu column value")
    gpus = {g["device"]: g for g in t["gpus"]}
    for g, rows_g in by_gpu.items():
        util = [u for u in (number(r["gfx_activity"]) for r in rows_g) if u is not None and 0 <= u <= 100]
        compare_gpu(f"amd-smi gpu {g}", gpus[g], len(rows_g), util, [], [parse_time(r["timestamp"]) for r in rows_g])


def test_absent_sections():
    doc = document(("kernel-trace-csv", os.path.join(FIX, "rocprofv3", "sdk_kernel_trace.csv")))
    for key in ("telemetry", "memory_copies", "api", "allocations", "device"):
        check(doc.get(key, "missing") is None, f"{key} null without its inputs")


for test in (test_kernels, test_generated_run_beyond_exact_cap, test_nvidia_smi, test_amd_smi, test_absent_sections):
    test()
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("sections_oracle: ok")
