#!/usr/bin/env python3
"""`goblind export RUN_DIR --kernels FILE|-`, the per-kernel export, against independent computations
in plain Python over the raw traces:

- the vLLM graph-replay fixture: the header exactly; CSV and JSON lines agree row for row; the row
  count and per-name counts and duration totals equal the kernels section's (`goblind analyze`) and a
  Python count of the trace's kernel events; each row's CPU operator, Python frame, owner and phase
  equal a Python join over the trace (External id, else the launch's External id; the innermost user
  python_function frame around the operator, else around the launch for a graph replay; the step
  annotation holding the launch); the rows of each layer add up to the layers section's items;
- a hand-made trace: an eager kernel under a CPU operator, a graph replay of ten kernels whose launch
  has no operator but lies in a user Python frame (owner python_frame), its attention and GEMM kernels
  one layer (layer 0), a kernel without correlation (phase none);
- a generated run: per-name totals equal the kernels section's (the device-clock trace.csv's), peak
  RSS within a bound (not under ASan); with --host-trace, the torch trace's kernels, each row's
  labels equal the Python join over that trace.

usage: kernel_export.py GOBLIND SHARED_DIR [--sanitized]
"""
import csv
import gzip
import io
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])
SANITIZED = "--sanitized" in sys.argv[3:]
VLLM = SHARED / "fixtures" / "torch_profiler" / "tracelens_inference__vllm_decode_full__graph_execution.json.gz"
HEADER = "start_ns,end_ns,device,stream,rank,name,class,phase,layer,cpu_op,python_frame,duration_ns,owner"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def export(run_dir, fmt):
    p = subprocess.run([GOBLIND, "export", str(run_dir), "--kernels", "-", "--format", fmt], capture_output=True,
                       timeout=900)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout.decode()


def rows_of(run_dir):
    """(CSV rows as dicts with None for empty cells, JSONL rows), checking the header and agreement."""
    text = export(run_dir, "csv")
    check(text.split("\n", 1)[0] == HEADER, f"header: {text.split(chr(10), 1)[0]!r}")
    rows = [{k: (v if v != "" else None) for k, v in r.items()} for r in csv.DictReader(io.StringIO(text))]
    jl = [json.loads(line) for line in export(run_dir, "jsonl").splitlines()]
    check(len(rows) == len(jl), f"CSV {len(rows)} rows, JSONL {len(jl)}")
    ints = {"start_ns", "end_ns", "device", "stream", "rank", "layer", "duration_ns"}
    for i, (c, j) in enumerate(zip(rows, jl)):
        conv = {k: (int(v) if k in ints and v is not None else v) for k, v in c.items()}
        if conv != j:
            check(False, f"row {i}: CSV {conv} != JSONL {j}")
            break
    return rows


def section_totals(run_dir):
    doc = json.loads(subprocess.run([GOBLIND, "analyze", str(run_dir), "--rows", "0"], capture_output=True,
                                    check=True, timeout=900).stdout)
    return {r["name"]: (r["calls"], r["total_ns"]) for r in doc["kernels"]["by_name"]}, doc


def row_totals(rows):
    t = defaultdict(lambda: [0, 0])
    for r in rows:
        t[r["name"]][0] += 1
        t[r["name"]][1] += int(r["duration_ns"])
    return {k: tuple(v) for k, v in t.items()}


# ---- the independent model of the trace (plain Python) ------------------------------------

def ns(x):
    return int(Decimal(str(x)) * 1000)


def user_frame(name):
    """A python_function name FILE(LINE): FUNC whose FILE is the user's (not Python, packages, torch)."""
    m = re.match(r"^([^(<][^(]*)\(\d*\): ", name or "")
    if not m:
        return False
    f = m.group(1)
    return not (f.startswith("torch/") or any(w in f for w in
                ("site-packages/", "dist-packages/", "/lib/python", "/torch/", "<frozen")))


STEP = re.compile(r"^execute_(?:\d+_)?context_(\d+)\((?:sq)?(\d+)[^)]*\)_generation_(\d+)\((?:sq)?(\d+)[^)]*\)")


def model(events):
    """Per kernel event, in file order: name, duration, cpu_op, python_frame, owner, phase."""
    ops, launches, frames, steps = {}, {}, [], []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        a = e.get("args") or {}
        t0, t1 = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
        cat = e.get("cat")
        m = STEP.match(e.get("name", ""))
        if m and "dur" in e:
            c, g = int(m.group(1)), int(m.group(3))
            phase = "prefill" if c and not g else "decode" if g and not c else "mixed" if c and g else "idle"
            steps.append((str(cat).startswith("gpu_"), t0, t1, phase))
        elif cat == "python_function":
            if user_frame(e["name"]):
                frames.append((e["pid"], e["tid"], t0, t1, e["name"]))
        elif cat == "cpu_op" and a.get("External id"):
            ops[a["External id"]] = (e["name"], e["pid"], e["tid"], t0)
        if cat in ("cuda_runtime", "cuda_driver") and "correlation" in a:
            launches[a["correlation"]] = (t0, e["pid"], e["tid"], a.get("External id") or 0)

    def innermost(pid, tid, t):
        best = None
        for f in frames:
            if f[0] == pid and f[1] == tid and f[2] <= t <= f[3]:
                if best is None or (f[2], -f[3]) > (best[2], -best[3]):
                    best = f
        return best[4] if best else None

    def step(gpu, t):
        cand = [s for s in steps if s[0] == gpu and s[1] <= t <= s[2]]
        return max(cand, key=lambda s: s[1])[3] if cand else None

    out = []
    for e in events:
        if e.get("cat") != "kernel" or "dur" not in e:
            continue
        a = e.get("args") or {}
        start = ns(e["ts"])
        ext, corr = a.get("External id") or 0, a.get("correlation")
        launch = launches.get(corr)
        op = ops.get(ext) if ext else None
        if op is None and launch and launch[3]:
            op = ops.get(launch[3])
        frame, owner = None, None
        if op:
            owner, frame = "operator", innermost(op[1], op[2], op[3])
        elif launch and not launch[3]:            # a graph launch: no External id
            frame = innermost(launch[1], launch[2], launch[0])
            owner = "python_frame" if frame else None
        phase = None
        if steps and corr is not None:
            phase = step(False, launch[0]) if launch else None
            phase = phase or step(True, start)
            if not phase and not launch:
                phase = step(False, start)
        out.append({"name": e["name"], "duration_ns": ns(e["dur"]), "cpu_op": op[0] if op else None,
                    "python_frame": frame, "owner": owner, "phase": phase or "none"})
    return out


def compare_labels(rows, want, label):
    check(len(rows) == len(want), f"{label}: {len(rows)} rows, Python {len(want)}")
    bad = 0
    for i, (r, w) in enumerate(zip(rows, want)):
        for k in ("name", "cpu_op", "python_frame", "owner", "phase"):
            if r[k] != w[k]:
                bad += 1
                if bad <= 5:
                    check(False, f"{label} row {i} {k}: {r[k]!r}, Python {w[k]!r}")
        if int(r["duration_ns"]) != w["duration_ns"]:
            check(False, f"{label} row {i} duration {r['duration_ns']} != {w['duration_ns']}")
    return bad


def test_vllm_fixture(tmp):
    run = tmp / "vllm"
    run.mkdir()
    shutil.copy(VLLM, run)
    rows = rows_of(run)
    events = json.load(gzip.open(VLLM), parse_float=Decimal)["traceEvents"]
    want = model(events)
    compare_labels(rows, want, "vllm")
    section, doc = section_totals(run)
    check(row_totals(rows) == section, "vllm: per-name totals differ from the kernels section")
    py = defaultdict(lambda: [0, 0])
    for w in want:
        py[w["name"]][0] += 1
        py[w["name"]][1] += w["duration_ns"]
    check(row_totals(rows) == {k: tuple(v) for k, v in py.items()}, "vllm: per-name totals differ from Python")
    per_layer = defaultdict(lambda: [0, 0])                 # the layers section's layers, row by row
    for r in rows:
        if r["layer"] is not None:
            per_layer[int(r["layer"])][0] += 1
            per_layer[int(r["layer"])][1] += int(r["duration_ns"])
    want_layers = {i["layer"]: [i["kernels"], i["kernel_time_ns"]] for i in doc["layers"]["items"]}
    check(len(want_layers) == 24 and dict(per_layer) == want_layers,
          f"vllm: rows per layer {dict(per_layer)} != layers.items {want_layers}")
    replays = sum(r["owner"] == "python_frame" for r in rows)
    check(replays > 0, "vllm: no graph replay owned by a Python frame")
    check(sum(r["phase"] == "decode" for r in rows) == doc["phases"]["decode"]["kernels"],
          "vllm: decode rows != phases.decode.kernels")
    print(f"ok   vllm fixture: {len(rows)} rows, {replays} graph-replay kernels owned by a Python frame")


def test_hand_made(tmp):
    run = tmp / "hand"
    run.mkdir()

    def k(name, ts, dur, corr=None, ext=None):
        a = {"device": 0, "stream": 7}
        if corr is not None:
            a["correlation"] = corr
        if ext is not None:
            a["External id"] = ext
        return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur, "args": a}

    ev = [
        # kernels first: the labels come after them in the file
        k("elementwise_add_kernel", 110, 2, corr=1, ext=11),
    ]
    names = ["flash_attn_fwd_kernel", "gemm_bf16_kernel", "gemm_bf16_kernel", "rms_norm_kernel",
             "elementwise_mul_kernel", "gemm_bf16_kernel", "elementwise_add_kernel", "rms_norm_kernel",
             "gemm_bf16_kernel", "elementwise_mul_kernel"]
    for i, n in enumerate(names):
        ev.append(k(n, 200 + 10 * i, 5, corr=2))
    ev.append(k("lonely_kernel", 400, 3))
    ev += [
        {"ph": "X", "cat": "user_annotation", "name": "execute_context_0(0)_generation_4(4)", "pid": 1, "tid": 1,
         "ts": 50, "dur": 300},
        {"ph": "X", "cat": "python_function", "name": "app/serve.py(12): step", "pid": 1, "tid": 1, "ts": 90,
         "dur": 200, "args": {}},
        {"ph": "X", "cat": "python_function", "name": "app/model.py(40): replay", "pid": 1, "tid": 1, "ts": 150,
         "dur": 20, "args": {}},
        {"ph": "X", "cat": "python_function", "name": "/usr/lib/python3.11/threading.py(1): run", "pid": 1, "tid": 1,
         "ts": 155, "dur": 10, "args": {}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100, "dur": 8,
         "args": {"External id": 11}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 104, "dur": 2,
         "args": {"correlation": 1, "External id": 11}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 158, "dur": 3,
         "args": {"correlation": 2}},
    ]
    (run / "trace.json").write_text(json.dumps({"traceEvents": ev}))
    rows = rows_of(run)
    want = model(json.loads((run / "trace.json").read_text(), parse_float=Decimal)["traceEvents"])
    compare_labels(rows, want, "hand-made")
    by = {(r["name"], r["start_ns"]): r for r in rows}
    eager = by[("elementwise_add_kernel", "110000")]
    check(eager["cpu_op"] == "aten::add" and eager["owner"] == "operator" and eager["python_frame"] ==
          "app/serve.py(12): step", f"eager kernel: {eager}")
    replay = [r for r in rows if r["start_ns"] and 200000 <= int(r["start_ns"]) < 300000]
    check(len(replay) == 10 and all(r["cpu_op"] is None and r["owner"] == "python_frame" and
                                    r["python_frame"] == "app/model.py(40): replay" for r in replay),
          f"graph replay rows: {replay}")
    check(all(r["phase"] == "decode" for r in rows if r["name"] != "lonely_kernel"), "hand-made: phase decode")
    check(all(r["layer"] == "0" for r in replay), f"graph replay layer: {[r['layer'] for r in replay]}")
    check(eager["layer"] is None, "the eager kernel is in no layer")
    lonely = by[("lonely_kernel", "400000")]
    check(lonely["phase"] == "none" and lonely["owner"] is None and lonely["layer"] is None, f"lonely: {lonely}")
    check(row_totals(rows) == section_totals(run)[0], "hand-made: totals differ from the kernels section")
    print(f"ok   hand-made trace: {len(rows)} rows")


def test_generated_run(tmp):
    run = tmp / "gen"
    subprocess.run([sys.executable, str(SHARED / "tools" / "gen_run.py"), str(run), "--steps", "40",
                    "--kernels-per-step", "200", "--cpu-ops-per-step", "50", "--seed", "3"], check=True,
                   capture_output=True)
    out = tmp / "gen.csv"
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run([GOBLIND, "export", str(run), "--kernels", str(out)], capture_output=True, timeout=900)
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    check(p.returncode == 0, f"export of the generated run: {p.stderr.decode()}")
    with open(out, newline="") as f:
        rows = [r for r in csv.DictReader(f)]
    check(row_totals(rows) == section_totals(run)[0], "generated run: totals differ from the kernels section")
    # --host-trace: the torch trace's kernels, labelled; against the Python join over that trace
    host = subprocess.run([GOBLIND, "export", str(run), "--kernels", "-", "--host-trace"], capture_output=True,
                          timeout=900)
    check(host.returncode == 0, f"--host-trace: {host.stderr.decode()}")
    hrows = [{k: (v if v != "" else None) for k, v in r.items()} for r in csv.DictReader(io.StringIO(host.stdout.decode()))]
    events = json.loads((run / "torch_profile.json").read_text(), parse_float=Decimal)["traceEvents"]
    compare_labels(hrows, model(events), "generated --host-trace")
    if not SANITIZED and rss_mb > before / 1024:
        check(rss_mb < 128, f"generated run: peak RSS {rss_mb:.0f} MB")
    print(f"ok   generated run: {len(rows)} rows, peak RSS {rss_mb:.0f} MB")


def main():
    tmp = Path(tempfile.mkdtemp(prefix="goblind-kexport-"))
    try:
        for t in (test_vllm_fixture, test_hand_made, test_generated_run):
            try:
                t(tmp)
            except Exception as e:  # noqa: BLE001  (reported, then the others run)
                import traceback
                traceback.print_exc()
                failures.append(f"{t.__name__}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"kernel_export: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
