#!/usr/bin/env python3
"""telemetry_oracle: each GPU's `series` in the telemetry section against a brute-force bucketing.

    telemetry_oracle.py SECTION_TOOL SHARED_DIR

The records come from `section_tool --records` (the formats are tested elsewhere); the
brute force here takes every timed sample of a GPU at once: the bucket width is the smallest
power of two 2^k ns for which floor(t_max / 2^k) - floor(t_min / 2^k) + 1 <= 240, bucket i holds
the samples with floor(t / 2^k) == i, and each bucket has its sample count and the mean and max
of utilisation, VRAM (bytes, else GiB x 2^30) and power. goblind builds the same series
incrementally, doubling the width as the range grows (docs/ANALYSIS.md "telemetry"); counts,
times and maxima must be equal, means equal within 1e-9 relative (float sums in another order).

Inputs: every telemetry fixture; a gen_run amd_smi.csv of 3000 samples; a synthetic amd-smi CSV
with two GPUs, shuffled timestamps over seven hours and N/A cells; the same CSV cut into two
files (two sources of one GPU merge into the one-file series). Exit 0 when all hold."""
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

FAILS = []
MAX_POINTS = 240
COLUMNS = (("util_mean_pct", "util", True), ("util_max_pct", "util", False), ("vram_mean_bytes", "vram", True),
           ("vram_max_bytes", "vram", False), ("power_mean_w", "power", True), ("power_max_w", "power", False))


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def tool_json(tool, *args, records=False):
    out = subprocess.run([tool, *(["--records"] if records else []), *args], capture_output=True, text=True)
    check(out.returncode == 0, f"section_tool {args}: {out.stderr}")
    if records:
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return json.loads(out.stdout)


def brute_series(samples):
    """samples: [(t, util, vram, power)] of one GPU (None = absent) -> the expected series."""
    if not samples:
        return None
    lo, hi = min(s[0] for s in samples), max(s[0] for s in samples)
    k = 0
    while (hi >> k) - (lo >> k) + 1 > MAX_POINTS:
        k += 1
    buckets = {}
    for t, *vals in samples:
        b = buckets.setdefault(t >> k, {"n": 0, "util": [], "vram": [], "power": []})
        b["n"] += 1
        for name, v in zip(("util", "vram", "power"), vals):
            if v is not None and math.isfinite(v):
                b[name].append(v)
    keys = sorted(buckets)
    out = {"bucket_ns": 1 << k, "t_ns": [i << k for i in keys], "samples": [buckets[i]["n"] for i in keys]}
    for col, q, mean in COLUMNS:
        out[col] = [None if not buckets[i][q] else (sum(buckets[i][q]) / len(buckets[i][q]) if mean else max(buckets[i][q]))
                    for i in keys]
    return out


def samples_by_gpu(records):
    gpus = {}
    for r in records:
        if r["type"] != "telemetry_sample" or "start_ns" not in r:
            continue
        vram = r.get("vram_used_bytes")
        if vram is None and r.get("vram_gib") is not None:
            vram = float(math.floor(r["vram_gib"] * 2**30 + 0.5))
        gpus.setdefault(r.get("device"), []).append((r["start_ns"], r.get("util_pct"), vram, r.get("power_w")))
    return gpus


def close(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def compare(name, doc, records):
    want = samples_by_gpu(records)
    tel = doc["telemetry"]
    got = {g["device"]: g["series"] for g in (tel["gpus"] if tel else [])}
    for dev, samples in want.items():
        exp, s = brute_series(samples), got.get(dev)
        where = f"{name} gpu {dev}"
        if s is None:
            check(False, f"{where}: no series")
            continue
        check(len(s["t_ns"]) <= MAX_POINTS, f"{where}: {len(s['t_ns'])} points")
        for key in ("bucket_ns", "t_ns", "samples"):
            check(s[key] == exp[key], f"{where}: {key} {str(s[key])[:120]} != {str(exp[key])[:120]}")
        for col, _, _ in COLUMNS:
            bad = [i for i, (a, b) in enumerate(zip(s[col], exp[col])) if not close(a, b)]
            check(len(s[col]) == len(exp[col]) and not bad, f"{where}: {col} differs at {bad[:5]}")
    for dev in got:
        if dev not in want:
            check(got[dev] is None, f"{name} gpu {dev}: a series without timed samples")
    print("ok", name, {d: len(s["t_ns"]) for d, s in got.items() if s})


HEADER = "gpu,timestamp,power_usage,hotspot_temperature,memory_temperature,gfx_clk,gfx_util,mem_util,mem_clock,vram_used,vram_total\n"


def synthetic_rows(rng):
    rows = []
    t0 = 1732300000
    for i in range(2500):
        gpu = rng.choice((0, 1))
        t = t0 + rng.randrange(0, 7 * 3600)
        power = "N/A" if rng.random() < 0.05 else str(rng.randrange(100, 750))
        util = "N/A" if rng.random() < 0.05 else str(rng.randrange(0, 101))
        vram = str(rng.randrange(1000, 190000))
        rows.append(f"{gpu},{t},{power},80,70,1900,{util},50,1300,{vram},196592\n")
    rng.shuffle(rows)
    return rows


def main():
    tool, shared = sys.argv[1], Path(sys.argv[2])
    fixtures = [("amd-smi-csv", p) for p in sorted((shared / "fixtures" / "amd_smi").glob("*.csv"))]
    fixtures += [("nvidia-smi-csv", p) for p in sorted((shared / "fixtures" / "nvidia_smi").glob("*.csv"))]
    for fmt, path in fixtures:
        compare(path.name, tool_json(tool, f"{fmt}={path}"), tool_json(tool, f"{fmt}={path}", records=True))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run([sys.executable, str(shared / "tools" / "gen_run.py"), str(tmp / "run"), "--steps", "2",
                        "--kernels-per-step", "5", "--smi-samples", "3000", "--seed", "11"], check=True, capture_output=True)
        smi = tmp / "run" / "amd_smi.csv"
        compare("gen_run", tool_json(tool, f"amd-smi-csv={smi}"), tool_json(tool, f"amd-smi-csv={smi}", records=True))
        rows = synthetic_rows(random.Random(5))
        (tmp / "all.csv").write_text(HEADER + "".join(rows))
        (tmp / "a.csv").write_text(HEADER + "".join(rows[:900]))
        (tmp / "b.csv").write_text(HEADER + "".join(rows[900:]))
        records = tool_json(tool, f"amd-smi-csv={tmp / 'all.csv'}", records=True)
        check(len(records) == len(rows), f"synthetic: {len(records)} records for {len(rows)} rows")
        compare("synthetic", tool_json(tool, f"amd-smi-csv={tmp / 'all.csv'}"), records)
        compare("synthetic in two files", tool_json(tool, f"amd-smi-csv={tmp / 'a.csv'}", f"amd-smi-csv={tmp / 'b.csv'}"),
                records)
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("telemetry_oracle: all comparisons hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
