#!/usr/bin/env python3
"""analyze_cli: `goblind analyze` on real profiler fixtures, its `sources` section checked
against independent computations: the torch trace's own event counts by category (json
module), a rocprofv3 CSV's row count (csv module), the kernel source choice, ranks, the
table and markdown outputs, exit statuses.

Also each torch fixture's records, field by field, against the JSON read with exact decimals:
start/end ns from the ts/dur text (half away from zero past the ns digit), device, stream,
correlation, External id, grid/block, copy direction, input shapes.

usage: analyze_cli.py GOBLIND SHARED_DIR [SECTION_TOOL]
"""
import collections
import csv
import decimal
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

GOBLIND, SHARED = sys.argv[1], sys.argv[2]
SECTION_TOOL = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(GOBLIND), "tests", "section_tool")
FIX = os.path.join(SHARED, "fixtures")
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def analyze(run_dir, *extra):
    p = subprocess.run([GOBLIND, "analyze", run_dir, *extra], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def load_trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


# What the torch format emits, computed from the JSON itself: one record per complete
# event of these categories (ts and dur numbers), plus ProfilerStep#N of any other one.
CATS = {"kernel": "kernel_dispatch", "gpu_memcpy": "memory_copy", "gpu_memset": "memset",
        "memcpy": "memory_copy", "memset": "memset", "runtime": "api_call",
        "cuda_runtime": "api_call", "cuda_driver": "api_call", "hip_runtime": "api_call",
        "cpu_op": "cpu_op", "operator": "cpu_op", "python_function": "cpu_op",
        "user_annotation": "annotation", "gpu_user_annotation": "annotation"}


def device_memory_event(e):
    """A [memory] instant event of a device's allocator with its totals (torch >= 1.10): one
    allocation record of category "total" (Device Type 0 is the CPU's allocator)."""
    a = e.get("args") if isinstance(e.get("args"), dict) else {}
    num = lambda v: isinstance(v, int) and not isinstance(v, bool)
    return (e.get("name") == "[memory]" and num(a.get("Device Type")) and a["Device Type"] != 0
            and num(a.get("Device Id")) and a["Device Id"] >= 0 and num(a.get("Total Allocated"))
            and a["Total Allocated"] >= 0 and isinstance(e.get("ts"), (int, float, decimal.Decimal)))


def expected_torch_counts(doc):
    c = collections.Counter()
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    for e in events or []:
        if not isinstance(e, dict):
            continue
        cat = e.get("cat")
        kind = CATS.get(cat.lower()) if isinstance(cat, str) else None
        name = e.get("name")
        if kind is None and isinstance(name, str) and name.startswith("ProfilerStep#"):
            kind = "annotation"
        if kind is None and device_memory_event(e):
            c["allocation"] += 1
        if kind is None:
            continue
        num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
        if not num(e.get("ts")) or (e.get("ph") not in ("i", "I") and not num(e.get("dur"))):
            continue
        c[kind] += 1
    return c


def source(doc, path):
    for s in doc["sources"]:
        if s["path"] == path:
            return s
    return None


tmp = tempfile.mkdtemp(prefix="goblind-analyze-")
try:
    # 1. every torch fixture: record counts by type equal the JSON's own counts by category
    for name in sorted(os.listdir(os.path.join(FIX, "torch_profiler"))):
        if not (name.endswith(".json") or name.endswith(".json.gz")):
            continue
        run = os.path.join(tmp, "t_" + name.replace(".", "_"))
        os.mkdir(run)
        target = "torch_profile.json.gz" if name.endswith(".gz") else "torch_profile.json"
        shutil.copy(os.path.join(FIX, "torch_profiler", name), os.path.join(run, target))
        rc, out, err = analyze(run)
        check(rc == 0, f"{name}: exit {rc}: {err}")
        doc = json.loads(out)
        s = source(doc, target)
        check(s is not None and s["format"] == "torch-trace-json", f"{name}: torch source missing")
        if s is None:
            continue
        want = expected_torch_counts(load_trace(os.path.join(FIX, "torch_profiler", name)))
        got = {k: v for k, v in s["records"].items() if k != "metadata"}
        check(got == dict(want), f"{name}: records {got} != the JSON's own counts {dict(want)}")
        check(s["kernels_chosen"] is True, f"{name}: alone, its kernels are chosen")
        check(s["warnings"] == [], f"{name}: warnings {s['warnings']}")

    # 2. a rocprofv3 tree beside a torch trace: the CSV's rows are the dispatches, and the
    #    device clock wins the kernel choice
    run = os.path.join(tmp, "mixed")
    os.makedirs(os.path.join(run, "node1"))
    csv_src = os.path.join(FIX, "rocprofv3", "sdk_kernel_trace.csv")
    shutil.copy(csv_src, os.path.join(run, "node1", "777_kernel_trace.csv"))
    torch_src = os.path.join(FIX, "torch_profiler", "hta_amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json")
    shutil.copy(torch_src, os.path.join(run, "rank3.pt.trace.json"))
    shutil.copy(torch_src, os.path.join(run, "torch_profile.json"))
    with open(os.path.join(run, "notes.txt"), "w") as f:
        f.write("hello\n")
    rc, out, err = analyze(run)
    check(rc == 0, f"mixed: exit {rc}: {err}")
    doc = json.loads(out)
    with open(csv_src, newline="") as f:
        rows = sum(1 for _ in csv.DictReader(f))
    k = source(doc, "node1/777_kernel_trace.csv")
    check(k is not None and k["records"].get("kernel_dispatch") == rows and k["rows_used"] == rows,
          f"mixed: kernel trace {k} != {rows} CSV rows")
    check(k is not None and k["kernels_chosen"] and k["device_clock"], "mixed: the device clock is chosen")
    torch_kernels = expected_torch_counts(load_trace(torch_src))
    for path in ("rank3.pt.trace.json", "torch_profile.json"):
        t = source(doc, path)
        check(t is not None and t["kernels_chosen"] is False, f"mixed: {path} kernels not chosen")
        check(t is not None and t["records_not_delivered"] ==
              torch_kernels["kernel_dispatch"] + torch_kernels["memory_copy"] + torch_kernels["memset"],
              f"mixed: {path} undelivered count")
    check(source(doc, "rank3.pt.trace.json")["rank"] == 3, "mixed: rank from the file name")
    check(source(doc, "notes.txt") is None, "mixed: a file no format reads is not a source")
    check([s["path"] for s in doc["sources"]][0] == "node1/777_kernel_trace.csv", "mixed: device-clock source first")

    # 2b. two device-clock formats of one rocprofv3 run (the kernel CSV and the results JSON):
    # one family's kernels only (registry order: the kernel-trace CSV), so none counted twice
    dual = os.path.join(tmp, "dual")
    os.makedirs(dual)
    shutil.copy(csv_src, os.path.join(dual, "kernel_trace.csv"))
    shutil.copy(os.path.join(FIX, "rocprofv3", "rocprofv3_908_results.json.gz"), os.path.join(dual, "908_results.json.gz"))
    rc, out, err = analyze(dual)
    check(rc == 0, f"dual: exit {rc}: {err}")
    doc2 = json.loads(out)
    j = source(doc2, "908_results.json.gz")
    check(j is not None and j["device_clock"] and j["kernels_chosen"] is False, f"dual: the JSON's kernels not chosen {j}")
    check(doc2["kernels"]["total_calls"] == rows, f"dual: kernels counted once ({doc2['kernels']['total_calls']} != {rows})")

    # 2c. the per-name table lists the busiest 200 names by default, the rest in `unlisted`
    many = os.path.join(tmp, "many-names")
    os.makedirs(many)
    rows_csv = [(f"kernel_{i:04d}", 1000 + i) for i in range(250)]
    with open(os.path.join(many, "trace.csv"), "w") as f:
        f.write("KernelName,DurationNs\n")
        for name, ns in rows_csv:
            f.write(f"{name},{ns}\n")
    rc, out, err = analyze(many)
    check(rc == 0, f"many-names: exit {rc}: {err}")
    k = json.loads(out)["kernels"]
    busiest = sorted(rows_csv, key=lambda r: -r[1])
    check(k["listed"] == 200 and [r["name"] for r in k["by_name"]] == [n for n, _ in busiest[:200]],
          "many-names: the 200 busiest names listed, busiest first")
    rest = busiest[200:]
    check(k["unlisted"] == {"names": 50, "calls": 50, "total_ns": sum(ns for _, ns in rest)},
          f"many-names: unlisted {k.get('unlisted')}")
    check(k["total_calls"] == 250 and k["total_ns"] == sum(ns for _, ns in rows_csv), "many-names: totals over every name")
    rc, out, _ = analyze(many, "--rows", "0")
    k = json.loads(out)["kernels"]
    check(rc == 0 and k["listed"] == 250 and len(k["by_name"]) == 250 and "unlisted" not in k, "--rows 0 lists every name")

    # 2d. the host-trace analyses (steps, ops, phases, layers, ranks) take the torch trace's
    # kernels even when the run's kernels come from a device-clock trace: a goblin run
    # (trace.csv + torch_profile.json) gives them exactly what the torch trace alone gives
    hk = os.path.join(tmp, "host-kernels")
    subprocess.run([sys.executable, os.path.join(SHARED, "tools", "gen_run.py"), os.path.join(hk, "both"),
                    "--steps", "6", "--kernels-per-step", "200"], check=True, capture_output=True)
    os.makedirs(os.path.join(hk, "torch"))
    shutil.copy(os.path.join(hk, "both", "torch_profile.json"), os.path.join(hk, "torch"))
    both, alone = (json.loads(analyze(os.path.join(hk, d))[1]) for d in ("both", "torch"))
    check([x["path"] for x in both["sources"] if x["kernels_chosen"] and x["format"] != "amd-smi-csv"] == ["trace.csv"],
          "host-kernels: the run's kernels are trace.csv's")
    for key in ("steps", "ops", "phases", "layers", "ranks"):
        check(both[key] == alone[key], f"host-kernels: {key} equals the torch trace's alone")
    check(both["steps"]["mean"]["parts"]["kernel_ns"] > 0, "host-kernels: steps see kernel time")

    # 2e. a name longer than 16384 bytes reaches the analyses cut (on a UTF-8 boundary), with a warning
    longn = os.path.join(tmp, "long-names")
    os.makedirs(longn)
    name = "k" * 16383 + "é" + "x" * 10000          # the cut falls inside the two-byte é
    with open(os.path.join(longn, "trace.csv"), "w", encoding="utf-8") as f:
        f.write(f"KernelName,DurationNs\n{name},100\n{name},50\n")
    rc, out, err = analyze(longn)
    ldoc = json.loads(out)
    row = ldoc["kernels"]["by_name"][0]
    check(rc == 0 and row["name"] == "k" * 16383 and row["calls"] == 2 and row["total_ns"] == 150,
          f"long names: cut to 16383 bytes on the UTF-8 boundary ({len(row['name'])})")
    check(any("longer than 16384 bytes" in w for w in ldoc["sources"][0]["warnings"]), "long names: a warning says so")

    # 3. table and markdown outputs
    rc, out, _ = analyze(run, "--format", "table")
    check(rc == 0 and "== sources ==" in out and "node1/777_kernel_trace.csv" in out, "table output")
    rc, out, _ = analyze(run, "--format", "markdown")
    check(rc == 0 and out.startswith("# goblind analysis: mixed") and "## Sources" in out, "markdown output")
    rc1, out1, _ = analyze(run, "--threads", "1")
    check(rc1 == 0 and json.loads(out1)["sources"][0]["records"] == doc["sources"][0]["records"],
          "one thread gives the same counts")

    # 3b. msprof output two directory levels down (PROF_*/mindstudio_profiler_output/ and
    # torch_npu's *_ascend_pt/ASCEND_PROFILER_OUTPUT/) is part of the inventory
    msprof_src = os.path.join(FIX, "msprof", "mstt_compute_advice_kernel_details.csv")
    with open(msprof_src, newline="") as f:
        msprof_rows = sum(1 for _ in csv.DictReader(f))
    for sub in ("PROF_000001_20250101/mindstudio_profiler_output/op_summary_0_1.csv",
                "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv"):
        npu = os.path.join(tmp, "npu-" + sub.split("/")[0])
        os.makedirs(os.path.dirname(os.path.join(npu, sub)))
        shutil.copy(msprof_src, os.path.join(npu, sub))
        rc, out, err = analyze(npu)
        doc = json.loads(out) if out else {}
        check(rc == 0 and [s["path"] for s in doc.get("sources", [])] == [sub], f"msprof two levels down: {sub}: {err}")
        ops = doc.get("npu_ops") or {}
        check(sum(i["count"] for i in ops.get("items", [])) == msprof_rows,
              f"msprof two levels down: every row of {sub} counted")

    # 3c. every fixture under ../shared/fixtures is read, alone, under whatever name it has
    expected_format = {
        "aie": "aie-trace-json", "amd_smi": "amd-smi-csv", "msprof": "msprof-op-csv", "nvidia_smi": "nvidia-smi-csv",
        "torch_profiler": "torch-trace-json", "rocpd_ck_bmm_28_results.db": "rocpd-sqlite",
        "rocprofv1_batched_gemm_results.stats.csv": "rocprof-kernel-stats-csv",
        "rocprofv1_omniperf_Axes1_mi200_timestamps.csv": "kernel-trace-csv",
        "rocprofv3_908_results.json.gz": "rocprofv3-json", "sdk2024_hip_api_stats.csv": "rocprof-api-stats-csv",
        "sdk2024_kernel_trace.csv": "kernel-trace-csv", "sdk_counter_collection.csv": "rocprof-counter-csv",
        "sdk_hip_domain_stats.csv": "rocprof-domain-stats-csv", "sdk_kernel_trace.csv": "kernel-trace-csv",
        "sdk_memory_allocation_trace.csv": "rocprof-memory-allocation-csv",
        "sdk_memory_copy_trace.csv": "rocprof-memory-copy-csv"}
    for kind in sorted(os.listdir(FIX)):
        for name in sorted(os.listdir(os.path.join(FIX, kind))):
            if name.endswith(".txt"):
                continue
            alone = os.path.join(tmp, "fixture-" + name)
            os.makedirs(alone)
            shutil.copy(os.path.join(FIX, kind, name), alone)
            rc, out, err = analyze(alone)
            srcs = json.loads(out)["sources"] if rc == 0 else []
            want = expected_format.get(name, expected_format.get(kind))
            check(len(srcs) == 1 and srcs[0]["format"] == want and sum(srcs[0]["records"].values()) > 0,
                  f"fixture {kind}/{name} read as {want}: {[(x['format'], x['records']) for x in srcs]} {err}")

    # 4. exit statuses: empty directory 3 (the document still printed), not a directory 1, usage 2
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    rc, out, _ = analyze(empty)
    check(rc == 3 and json.loads(out)["sources"] == [], f"empty run: exit {rc}")
    rc, _, _ = analyze(os.path.join(tmp, "missing"))
    check(rc == 1, f"missing run: exit {rc}")
    rc, _, _ = analyze(run, "--format", "yaml")
    check(rc == 2, f"bad --format: exit {rc}")

    # 5. a broken trace: a warning naming the byte offset, the records before it kept
    bad = os.path.join(tmp, "bad")
    os.mkdir(bad)
    with open(torch_src, "rb") as f:
        data = f.read()
    with open(os.path.join(bad, "torch_profile.json"), "wb") as f:
        f.write(data[: len(data) // 2])
    rc, out, _ = analyze(bad)
    s = source(json.loads(out), "torch_profile.json")
    check(rc == 0 and s["truncated"] and any("byte" in w for w in s["warnings"]), f"truncated trace: {s}")

    # 6. records field by field (section_tool --records), against exact decimals of the JSON
    def ns(v):
        q = (decimal.Decimal(str(v)) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
        return int(q)

    def as_int(v):
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            return v
        if isinstance(v, str):
            try:
                return int(v, 0)
            except ValueError:
                return None
        return None

    COPY = {"HtoD": 1, "DtoH": 2, "DtoD": 3, "PtoP": 4, "HtoH": 5}
    for name in ("hta_amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json",
                 "tracelens_mi300__gaunernst_bert-small-uncased__1016001.json.gz",
                 "kineto_docs__traces__after_fix_trace.json"):
        path = os.path.join(FIX, "torch_profiler", name)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            doc = json.load(f, parse_float=decimal.Decimal)
        p = subprocess.run([SECTION_TOOL, "--records", "torch-trace-json=" + path], capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0, f"{name}: section_tool exit {p.returncode}")
        recs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        recs = [r for r in recs if r["type"] != "metadata"]
        want = []
        for e in doc.get("traceEvents", []):
            cat = e.get("cat")
            kind = CATS.get(cat.lower()) if isinstance(cat, str) else None
            if kind is None and isinstance(e.get("name"), str) and e["name"].startswith("ProfilerStep#"):
                kind = "annotation"
            num = lambda v: isinstance(v, (int, decimal.Decimal)) and not isinstance(v, bool)
            if kind is None and device_memory_event(e):
                want.append(("allocation", e))
            if kind is None or not num(e.get("ts")) or not num(e.get("dur")):
                continue
            want.append((kind, e))
        check(len(recs) == len(want), f"{name}: {len(recs)} records, {len(want)} events")
        bad = 0
        for r, (kind, e) in zip(recs, want):
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            if kind == "allocation":       # the allocator's totals after the event, no duration
                exp = {"type": kind, "start_ns": ns(e["ts"]), "duration_ns": None, "category": "total",
                       "device": args["Device Id"], "number": args["Total Allocated"], "bytes": args.get("Total Reserved")}
                bad += sum(1 for k, v in exp.items() if r.get(k) != v) + (r.get("name") != "[memory]")
                if any(r.get(k) != v for k, v in exp.items()):
                    print(f"{name}: memory event at byte {r['line']}: {r} != {exp}")
                continue
            exp = {"type": kind, "start_ns": ns(e["ts"]), "duration_ns": ns(e["dur"]),
                   "end_ns": ns(e["ts"]) + ns(e["dur"])}
            for key, field in (("device", "device"), ("stream", "stream"), ("correlation", "correlation_id"),
                               ("External id", "external_id")):
                v = as_int(args.get(key))
                if v is not None:
                    exp[field] = v
            if isinstance(args.get("grid"), list) and isinstance(args.get("block"), list):
                exp["grid"], exp["workgroup"] = args["grid"], args["block"]
            if kind == "memory_copy":
                exp["copy"] = next((c for d, c in COPY.items() if d in e.get("name", "")), 0)
            if kind == "cpu_op" and ("Input Dims" in args or "Input type" in args):
                exp["args"] = {k: args[k] for k in args if k in ("Input Dims", "Input type")}
            got = dict(r)
            if "args" in got:
                got["args"] = json.loads(got["args"], parse_float=decimal.Decimal)
            for k, v in exp.items():
                g = got.get(k)
                if isinstance(g, float):
                    g = int(g)
                if g != v:
                    bad += 1
                    if bad <= 3:
                        print(f"{name}: event at byte {r['line']}: {k} = {got.get(k)!r}, the JSON says {v!r}")
            if r.get("name") != e.get("name"):
                bad += 1
        check(bad == 0, f"{name}: {bad} record fields differ from the JSON")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"analyze_cli: 0 passed, {failures} failed")
    sys.exit(1)
print("analyze_cli: 1 passed, 0 failed")
