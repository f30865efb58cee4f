#!/usr/bin/env python3
"""The ops section's Python-frame owners (graph replays), against a plain-Python join over the raw
trace: a kernel with no CPU operator (by its External id, else its launch call's) whose launch call
carries no External id and lies inside a user python_function frame on the call's thread belongs to
the innermost such frame. Checked: attributed_by.operator and .python_frame, the by_op rows of kind
python_frame (name, calls = graph launches, kernels, kernel_time_ns as the union of the kernels'
intervals), on the vLLM graph-replay fixture and on a hand-made trace (a kernel whose launch has no
operator but lies in a python_function event, one whose launch lies in no user frame).

usage: ops_python_frame.py GOBLIND SHARED_DIR
"""
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])
VLLM = SHARED / "fixtures" / "torch_profiler" / "tracelens_inference__vllm_decode_full__graph_execution.json.gz"
failures = []
KERNEL_TRACE = (    # a rocprofv3 kernel trace of one dispatch (the columns of gen_run.py's trace.csv)
    '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
    '"Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count",'
    '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n'
    '"KERNEL_DISPATCH","4","1","0","31337","1","1","Cijk_gemm","1000","2577155862517157","2577155863457234","0","0",'
    '"128","0","96","256","1","1","262144","1","1"\n')


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def ns(x):
    return int(Decimal(str(x)) * 1000)


def user_frame(name):
    m = re.match(r"^([^(<][^(]*)\(\d*\): ", name or "")
    if not m:
        return False
    f = m.group(1)
    return not (f.startswith("torch/") or any(w in f for w in
                ("site-packages/", "dist-packages/", "/lib/python", "/torch/", "<frozen")))


def union(spans):
    total, end = 0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def python_owners(events):
    """(kernels owned by an operator, {frame: (calls, kernels, union ns)})."""
    ops, launches, frames = set(), {}, []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        a = e.get("args") or {}
        t0 = ns(e["ts"])
        if e.get("cat") == "python_function" and user_frame(e.get("name")):
            frames.append((e["pid"], e["tid"], t0, t0 + ns(e.get("dur", 0)), e["name"]))
        elif e.get("cat") == "cpu_op" and a.get("External id"):
            ops.add(a["External id"])
        elif e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in a:
            launches[a["correlation"]] = (t0, e["pid"], e["tid"], a.get("External id") or 0)
    by_op, owned, memo = 0, defaultdict(lambda: [set(), 0, []]), {}
    for e in events:
        if e.get("cat") != "kernel" or "dur" not in e:
            continue
        a = e.get("args") or {}
        ext, corr = a.get("External id") or 0, a.get("correlation")
        launch = launches.get(corr)
        if (ext and ext in ops) or (launch and launch[3] in ops):
            by_op += 1
            continue
        if not launch or launch[3]:
            continue
        if corr not in memo:                   # the innermost user frame around the launch, once per launch
            inside = [f for f in frames if f[0] == launch[1] and f[1] == launch[2] and f[2] <= launch[0] <= f[3]]
            memo[corr] = max(inside, key=lambda f: (f[2], -f[3]))[4] if inside else None
        frame = memo[corr]
        if frame is None:
            continue
        o = owned[frame]
        o[0].add(corr)
        o[1] += 1
        o[2].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    return by_op, {k: (len(v[0]), v[1], union(v[2])) for k, v in owned.items()}


def ops_of(run):
    doc = json.loads(subprocess.run([GOBLIND, "analyze", str(run), "--rows", "0"], capture_output=True, check=True,
                                    timeout=300).stdout)
    return doc["ops"]


def compare(run, events, label):
    ops = ops_of(run)
    by_op, frames = python_owners(events)
    got = {r["name"]: (r["calls"], r["kernels"], r["kernel_time_ns"]) for r in ops["by_op"] if r["kind"] == "python_frame"}
    check(got == frames, f"{label}: frame rows {got} != Python {frames}")
    check(ops["attributed_by"]["python_frame"] == sum(v[1] for v in frames.values()),
          f"{label}: attributed_by.python_frame {ops['attributed_by']}")
    check(ops["attributed_by"]["operator"] == by_op, f"{label}: attributed_by.operator {ops['attributed_by']} != {by_op}")
    check(ops["attributed_kernels"] == by_op + sum(v[1] for v in frames.values()), f"{label}: attributed_kernels")
    check(ops["attributed_kernels"] + ops["unattributed_kernels"] == ops["kernels"], f"{label}: kernel count")
    check(ops["python_frames"] == len(frames), f"{label}: python_frames")
    return ops


def main():
    tmp = Path(tempfile.mkdtemp(prefix="goblind-opsframe-"))
    try:
        run = tmp / "vllm"
        run.mkdir()
        shutil.copy(VLLM, run)
        ops = compare(run, json.load(gzip.open(VLLM), parse_float=Decimal)["traceEvents"], "vllm")
        check(ops["attributed_by"]["python_frame"] > 400, f"vllm: graph replays {ops['attributed_by']}")
        print(f"ok   vllm fixture: {ops['attributed_by']}")

        hand = tmp / "hand"
        hand.mkdir()
        k = lambda n, ts, corr, ext=None: {"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": ts,
                                             "dur": 5, "args": {"correlation": corr, "device": 0, "stream": 7,
                                                                **({"External id": ext} if ext else {})}}
        ev = [k("gemm_kernel", 100, 1, 11), k("replay_a", 200, 2), k("replay_b", 206, 2), k("replay_a", 300, 3),
              k("orphan_kernel", 400, 4),
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 90, "dur": 8,
               "args": {"External id": 11}},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 92, "dur": 2,
               "args": {"correlation": 1, "External id": 11}},
              {"ph": "X", "cat": "python_function", "name": "app/run.py(3): decode", "pid": 1, "tid": 1, "ts": 150,
               "dur": 200, "args": {}},
              {"ph": "X", "cat": "python_function", "name": "app/graphs.py(9): replay", "pid": 1, "tid": 1, "ts": 180,
               "dur": 15, "args": {}},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 185, "dur": 3,
               "args": {"correlation": 2}},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 290, "dur": 3,
               "args": {"correlation": 3}},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 395, "dur": 3,
               "args": {"correlation": 4}}]
        (hand / "trace.json").write_text(json.dumps({"traceEvents": ev}))
        ops = compare(hand, ev, "hand-made")
        rows = {r["name"]: r for r in ops["by_op"]}
        check(rows.get("app/graphs.py(9): replay", {}).get("kernels") == 2 and
              rows["app/graphs.py(9): replay"]["calls"] == 1, f"hand-made: inner frame row {rows}")
        check(rows.get("app/run.py(3): decode", {}).get("kernels") == 1, "hand-made: outer frame row")
        check(ops["unattributed_kernels"] == 1 and ops["unattributed"]["no_operator"] == 1,
              f"hand-made: the orphan kernel (launch outside any frame) {ops['unattributed']}")
        print(f"ok   hand-made trace: {ops['attributed_by']}")

        # a trace large enough to be read in two pieces (16 MiB): graph launches in both halves,
        # frames in both; the pieces' join gives one pass's result (--threads 1) and Python's
        big = tmp / "big"
        big.mkdir()
        ev, ts = [], 1000
        for g in range(2600):          # 62,400 kernels: under the pending bound (65,536)
            ev.append({"ph": "X", "cat": "python_function", "name": f"app/loop.py({g % 5}): step", "pid": 1,
                       "tid": 1, "ts": ts, "dur": 40, "args": {}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": ts + 5,
                       "dur": 3, "args": {"correlation": 10 + g}})
            for i in range(24):
                ev.append(k(f"graph_kernel_{i % 6}_" + "with_a_longer_name_to_fill_the_file_" * 4, ts + 10 + i, 10 + g))
            ts += 100
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::noop", "pid": 1, "tid": 1, "ts": 5, "dur": 1,
                   "args": {"External id": 99}})
        (big / "trace.json").write_text('{"traceEvents": [\n' + ",\n".join(json.dumps(e) for e in ev) + "\n]}\n")
        # one event a line, as the profiler writes them (a split read resumes at a line); a device-clock kernel trace beside it: the torch trace's kernels are then not the run's (the
        # host-clock analyses, ops among them, still take them), so that every analysis reading it may
        # split it
        (big / "trace.csv").write_text(KERNEL_TRACE)
        check((big / "trace.json").stat().st_size > (16 << 20), "big trace under 16 MiB")
        doc = json.loads(subprocess.run([GOBLIND, "analyze", str(big), "--rows", "0"], capture_output=True,
                                        check=True, timeout=300).stdout)
        pieces = [s["pieces"] for s in doc["sources"] if s["path"] == "trace.json"] if isinstance(doc["sources"], list) \
            else [s["pieces"] for s in doc["sources"]["files"] if s["path"] == "trace.json"]
        check(pieces == [2], f"big trace read in {pieces} pieces, not 2")
        one = json.loads(subprocess.run([GOBLIND, "analyze", str(big), "--rows", "0", "--threads", "1"],
                                        capture_output=True, check=True, timeout=300).stdout)["ops"]
        check(doc["ops"] == one, "big trace: ops of two pieces != one pass")
        ops = compare(big, ev, "big")
        print(f"ok   big trace in {pieces} pieces: {ops['attributed_by']}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"ops_python_frame: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
