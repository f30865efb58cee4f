#!/usr/bin/env python3
"""The seven real-file rules, one small hand-made run each (docs/HEURISTICS.md, "Reading
real profiler files"): both sides of every rule, in the default mode and with --compat seed,
each answer compared with ../shared/tools/goblin_ref.py (default and --seed-compat) and
checked against the number the rule promises; every body validated against the schema;
`goblind parse --explain` checked to name the column or source behind the number.

usage: rules.py GOBLIND SHARED_DIR
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema          # python3-jsonschema: installed by scripts/install-deps.sh

from ref_cache import run_ref   # the reference's answers, cached by input hash

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])
REF = SHARED / "tools" / "goblin_ref.py"
VALIDATOR = jsonschema.Draft202012Validator(json.loads((SHARED / "schema" / "run_metrics.schema.json").read_text()))
failures, checks = [], 0


def close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a if k != "warnings")
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def expect(label, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        failures.append(f"{label}: {detail}")


def parse(d, *args, seed=False, against_ref=True):
    """goblind's body (checked against the schema and, unless told, the reference)."""
    ours = subprocess.run([GOBLIND, "parse", str(d), *args, *(["--compat", "seed"] if seed else [])],
                          capture_output=True, text=True, check=True)
    body = json.loads(ours.stdout)
    errs = [e.message for e in VALIDATOR.iter_errors(body)]
    expect(f"{d.name} schema{' seed' if seed else ''}", not errs, errs)
    if against_ref:
        ref = run_ref(REF, d, [*args, *(["--seed-compat"] if seed else [])], Path(GOBLIND).parent / "ref-cache")
        assert ref.returncode == 0, f"the reference failed on {d.name}: {ref.stderr}"
        want = json.loads(ref.stdout)
        expect(f"{d.name} matches the reference{' (seed)' if seed else ''}", close(want, body),
               f"\nreference {json.dumps(want)}\ngoblind   {json.dumps(body)}")
    return body


def explain(d, *args):
    return subprocess.run([GOBLIND, "parse", str(d), "--explain", *args], capture_output=True, text=True,
                          check=True).stdout


def run(tmp, name, files):
    d = tmp / name
    d.mkdir()
    for f, text in files.items():
        (d / f).write_text(text)
    return d


def trace(events, metadata=None):
    doc = {"traceEvents": events}
    if metadata is not None:
        doc["metadata"] = metadata
    return json.dumps(doc)


def ev(name, cat, ts, dur, **kw):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": kw.get("pid", 1), "tid": 1}


SMI = "timestamp,gpu_use_percent,vram_used_mb\n1,50,1024\n"


def rule1_timing_tokens(tmp):
    # a rocprofiler-compute pmc_perf.csv: SQ_INSTS_SENDMSG holds "end" and "ns" as substrings
    d = run(tmp, "r1", {"trace.csv": "Kernel_Name,SQ_INSTS_SENDMSG,Start_Timestamp,End_Timestamp\n"
                                     "Cijk_gemm_a,5,1000,3000\nCijk_gemm_a,7,4000,5000\nelementwise,3,6000,6500\n",
                        "amd_smi.csv": SMI})
    b = parse(d)
    expect("r1 default: kernels from Start/End_Timestamp", [k["name"] for k in b["top_kernels"]] ==
           ["Cijk_gemm_a", "elementwise"], b["top_kernels"])
    expect("r1 default pct", bool(b["top_kernels"]) and
           abs(b["top_kernels"][0]["pct_time"] - 3000 / 3500 * 100) < 1e-9, b["top_kernels"])
    s = parse(d, seed=True)
    expect("r1 seed: SQ_INSTS_SENDMSG taken as end_ns, no kernel", s["top_kernels"] == [], s["top_kernels"])
    x = explain(d)
    expect("r1 explain names the columns", "start = Start_Timestamp" in x and "end = End_Timestamp" in x, x)
    x = explain(d, "--steps", "7")                                  # no torch profile: steps still explained
    expect("r1 explain steps without a profile", "7, from the --steps flag" in x, x)
    # a timing skip names the chosen column
    d = run(tmp, "r1b", {"trace.csv": "KernelName,DurationNs\nk,abc\nk,10\n", "amd_smi.csv": SMI})
    b = parse(d)
    expect("r1b warning names the duration column", any("column 'DurationNs'" in w for w in b["warnings"]), b["warnings"])
    expect("r1b explain counts the skipped row", "no usable duration or timestamps: 1" in explain(d), explain(d))


def rule2_steps_once(tmp):
    events = [ev("ProfilerStep#1", "user_annotation", 0, 100, pid=0),
              ev("ProfilerStep#1", "gpu_user_annotation", 5, 90, pid=0),
              ev("ProfilerStep#1", "user_annotation", 0, 110, pid=1),       # rank 1's copy
              ev("ProfilerStep#2", "user_annotation", 100, 120, pid=0),
              ev("ProfilerStep#2", "gpu_user_annotation", 105, 80, pid=0),
              ev("ProfilerStep#2", "user_annotation", 110, 130, pid=1)]
    d = run(tmp, "r2", {"torch_profile.json": trace(events), "amd_smi.csv": SMI})
    b = parse(d)
    expect("r2 default: two distinct steps", b["steps"] == 2, b["steps"])
    st = sum(b["waste_budget"].values())
    expect("r2 default: step time is the mean of the four CPU-side events",
           abs(st - (100 + 110 + 120 + 130) / 4 / 1e6) < 1e-12, st)
    s = parse(d, seed=True)
    expect("r2 seed: every event counts", s["steps"] == 6, s["steps"])
    x = explain(d)
    expect("r2 explain", "from the ProfilerStep events" in x and "gpu_user_annotation): 2" in x, x)


def rule3_span(tmp):
    events = [ev("aten::mm", "cpu_op", 0, 500000), ev("aten::add", "cpu_op", 1500000, 500000)]  # span 2 s
    d = run(tmp, "r3", {"torch_profile.json": trace(events), "amd_smi.csv": SMI})
    b = parse(d)
    expect("r3 default: one step", b["steps"] == 1, b["steps"])
    expect("r3 default: warned", any("the trace span counts as 1 step(s)" in w for w in b["warnings"]), b["warnings"])
    expect("r3 default: step time is the span", abs(sum(b["waste_budget"].values()) - 2.0) < 1e-12, b["waste_budget"])
    b4 = parse(d, "--steps", "4")
    expect("r3 --steps 4: span / 4", abs(sum(b4["waste_budget"].values()) - 0.5) < 1e-12, b4["waste_budget"])
    expect("r3 explain --steps 4", "from the --steps flag" in explain(d, "--steps", "4") and
           "trace span divided by the steps" in explain(d, "--steps", "4"), explain(d, "--steps", "4"))
    s = parse(d, seed=True)
    expect("r3 seed: the guess of 10 steps, the whole span as one step", s["steps"] == 10 and
           abs(sum(s["waste_budget"].values()) - 2.0) < 1e-12, s)
    d = run(tmp, "r3m", {"torch_profile.json": trace(events, {"n_steps": 5}), "amd_smi.csv": SMI})
    b = parse(d)
    expect("r3 metadata n_steps: span / 5", b["steps"] == 5 and abs(sum(b["waste_budget"].values()) - 0.4) < 1e-12, b)
    expect("r3 explain metadata", "5, from the profile's metadata" in explain(d), explain(d))


def rule4_torch_kernels(tmp):
    events = [ev("ProfilerStep#1", "user_annotation", 0, 1000),
              ev("flash_attn_fwd_rocm", "kernel", 10, 0.2505),          # floor(250.5 + 0.5) = 251 ns
              ev("Cijk_gemm", "Kernel", 20, 1.0),
              ev("Cijk_gemm", "kernel", 30, 2.0),
              ev("memcpy", "gpu_memcpy", 40, 5.0)]
    d = run(tmp, "r4", {"trace.csv": "KernelName,DurationNs\n", "torch_profile.json": trace(events),
                        "amd_smi.csv": SMI})
    b = parse(d)
    expect("r4 default: kernels from the torch profile", [k["name"] for k in b["top_kernels"]] ==
           ["Cijk_gemm", "flash_attn_fwd_rocm"] and b["attention_kernel_loaded"] == "flash_rocm", b)
    expect("r4 default: warned with the count",
           "kernels taken from the torch profile: 3 GPU kernel events" in b["warnings"], b["warnings"])
    s = parse(d, seed=True)
    expect("r4 seed: no kernels", s["top_kernels"] == [] and s["attention_kernel_loaded"] == "unknown", s)
    # the other side: a kernel trace with rows wins, and the torch kernels are not used
    d = run(tmp, "r4k", {"trace.csv": "KernelName,DurationNs\nsdpa_kernel,100\n", "torch_profile.json": trace(events),
                         "amd_smi.csv": SMI})
    b = parse(d)
    expect("r4 kernel trace wins", [k["name"] for k in b["top_kernels"]] == ["sdpa_kernel"] and
           not any("taken from the torch" in w for w in b["warnings"]), b)


def rule5_util_all_steps(tmp):
    events = [ev(f"ProfilerStep#{i}", "user_annotation", i * 1000, 1000) for i in range(4)]   # 4 x 1 ms
    d = run(tmp, "r5", {"trace.csv": "KernelName,DurationNs\nk,600000\nk,400000\n",           # 1 ms of kernels
                        "torch_profile.json": trace(events), "amd_smi.csv": "timestamp,vram_used_mb\n1,1024\n"})
    b = parse(d)
    expect("r5 default: 1 ms of kernels over 4 ms of steps", abs(b["gpu_util_pct"] - 25.0) < 1e-9, b["gpu_util_pct"])
    s = parse(d, seed=True)
    expect("r5 seed: over one step", s["gpu_util_pct"] == 100.0, s["gpu_util_pct"])


def rule6_telemetry(tmp):
    # rocm-smi: gfx_activity is an accumulating counter; gpu_use_percent is the percentage
    d = run(tmp, "r6", {"amd_smi.csv": "device,gfx_activity,GPU use (%),vram_used_bytes\n"
                                       "0,123456789,40,85899345920\n0,123999999,60,42949672960\n"})
    b = parse(d)
    expect("r6 default: GPU use (%) chosen", b["gpu_util_pct"] == 50.0, b["gpu_util_pct"])
    expect("r6 default: bytes / 2^30", b["hbm_peak_gb"] == 80.0 and b["hbm_avg_gb"] == 60.0, b)
    x = explain(d)
    expect("r6 explain", "utilisation = GPU use (%)" in x and "vram_unit = bytes" in x, x)
    s = parse(d, seed=True)
    expect("r6 seed: the counter, capped at 100", s["gpu_util_pct"] == 100.0, s["gpu_util_pct"])
    expect("r6 seed: bytes read as MB", s["hbm_peak_gb"] == 85899345920 / 1024, s["hbm_peak_gb"])
    d = run(tmp, "r6n", {"amd_smi.csv": "timestamp,gfx_util,vram_used_mb\n1,150,-5\n2,30,2048\n3,-1,1024\n"})
    b = parse(d)
    expect("r6 default: samples outside [0, 100] and negative VRAM skipped",
           b["gpu_util_pct"] == 30.0 and b["hbm_peak_gb"] == 2.0 and b["hbm_avg_gb"] == 1.5, b)
    expect("r6 warns naming the columns", any("'vram_used_mb'" in w for w in b["warnings"]) and
           any("'gfx_util'" in w for w in b["warnings"]), b["warnings"])
    parse(d, seed=True)
    # all samples negative: the original's answer (-0.005 GB) is outside the schema, so it is
    # clamped to 0 with a warning naming the field (the one place seed differs from the reference)
    d = run(tmp, "r6s", {"amd_smi.csv": "timestamp,vram_used_mb\n1,-5\n"})
    b = parse(d)
    expect("r6 default: no VRAM sample", b["hbm_peak_gb"] == 0.0, b)
    s = parse(d, seed=True, against_ref=False)
    expect("r6 seed: clamped and warned", s["hbm_peak_gb"] == 0.0 and
           any(w.startswith("hbm_peak_gb was -0.0048828125") for w in s["warnings"]), s)


def rule7_operator(tmp):
    events = [ev("ProfilerStep#1", "user_annotation", 0, 1000),
              ev("aten::mm", "Operator", 0, 800),                       # 2021 Kineto: host time
              ev("aten::add", "cpu_op", 900, 100)]
    d = run(tmp, "r7", {"torch_profile.json": trace(events),
                        "amd_smi.csv": "timestamp,gfx_util,vram_used_mb\n1,10,1024\n"})
    b = parse(d)
    s = parse(d, seed=True)
    # gpu util 10 %: data_wait when host busy > 0.5 (default: 0.9), host_gap otherwise (seed: 0.1)
    expect("r7 default: Operator is host time", b["waste_budget"]["data_wait"] > 0, b["waste_budget"])
    expect("r7 seed: it is not", s["waste_budget"]["data_wait"] == 0.0, s["waste_budget"])


def edges(tmp):
    """Shapes around the rules, compared with the reference in both modes."""
    k = "\u212aernel"                                             # KELVIN SIGN: lower() is "kernel"
    events = [{"name": "k_first", "cat": "kernel", "dur": 1.5, "ts": 1},
              {"cat": k, "name": "kelvin_k", "dur": "2.5", "ts": 2},
              {"cat": "kernel", "name": "  padded  ", "dur": True, "ts": 3},
              {"cat": "kernel", "name": "   ", "dur": 4, "ts": 4},
              {"cat": "KERNEL", "name": "upper", "dur": 0.0004, "ts": 5},
              {"cat": "kernel", "name": "nodur", "ts": 6},
              {"cat": "kernel", "name": "neg", "dur": -3, "ts": 7},
              {"name": "ProfilerStep#1 ", "cat": "cpu_op", "dur": 10, "ts": 0},
              {"name": "ProfilerStep#1", "cat": "cpu_op", "dur": 12, "ts": 0},
              {"name": "ProfilerStep#1", "cat": "gpu_user_annotation", "dur": 50, "ts": 0},
              {"name": "aten::x", "cat": "OPERATOR", "dur": 3, "ts": 1}]
    d = run(tmp, "edge-torch-kernels", {"trace.csv": "KernelName,DurationNs\nx,-1\n", "torch_profile.json": trace(events)})
    parse(d)
    parse(d, seed=True)
    parse(d, "--steps", "3")
    d = run(tmp, "edge-meta-step", {"torch_profile.json": trace(events[:7], {"step_time_seconds": 0.5})})
    parse(d)
    parse(d, seed=True)
    d = run(tmp, "edge-only-gpu-copies", {"torch_profile.json": trace([ev("ProfilerStep#3", "gpu_user_annotation", 0, 9),
                                                                        ev("aten::mm", "cpu_op", 2, 30)])})
    parse(d)
    parse(d, seed=True)
    d = run(tmp, "edge-camel", {"trace.csv": "kernelName,BeginNS,endNs,LDS_BANK_CONFLICT_END\nk,5,9,1\n",
                                "amd_smi.csv": "gpu,VRAM Total Used Memory (B),GPU use (%)\n0,1073741824,101\n0,-1,99\n"})
    parse(d)
    parse(d, seed=True)


def main():
    with tempfile.TemporaryDirectory(prefix="goblind-rules-") as t:
        tmp = Path(t)
        for rule in (rule1_timing_tokens, rule2_steps_once, rule3_span, rule4_torch_kernels, rule5_util_all_steps,
                     rule6_telemetry, rule7_operator, edges):
            try:
                rule(tmp)
            except subprocess.CalledProcessError as exc:
                failures.append(f"{rule.__name__}: {exc} {exc.stderr}")
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                failures.append(f"{rule.__name__}: {exc!r}")
    for f in failures:
        print("FAIL", f)
    print(f"rules: {checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
