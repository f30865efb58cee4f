#!/usr/bin/env python3
"""steps_oracle: the steps, ops and phases sections of a torch profiler trace against
independent Python reads of the same JSON.

    steps_oracle.py SECTION_TOOL SHARED_DIR

1. A generated chrome trace with known answers (ProfilerStep ranges, a dataloader op,
   kernels, a copy, an NCCL kernel, launches with correlation and External ids, Python
   frames, a vLLM step annotation): every step's eight parts against a plain interval
   implementation of the TensorBoard plugin's priority rule, the ops attribution, the
   innermost user Python frame and the prefill kernel time.
2. The torch profiler fixtures of ../shared that carry ProfilerStep ranges (the TB plugin's
   resnet50 sample, HTA's MI250 trace): step names and wall times against a plain json
   read (within 1 ns), parts summing exactly to every step's wall time; ops' attributed +
   unattributed kernels equal the kernels; the vLLM fixture's decode step and kernels
   joined through their launch call.

Exits 77 (ctest: skipped) with a message while the torch-trace-json format does not emit
records (the records arrive with the core engineer's torch profile work). """
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile

SKIP = 77
PARTS = ["kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "runtime_ns", "dataloader_ns",
         "cpu_exec_ns", "other_ns"]
FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL:", msg)


def ns(us):
    """Chrome-trace microseconds to integer ns (the generated trace uses exact values)."""
    return int(round(us * 1000))


def run_tool(tool, path):
    out = subprocess.run([tool, "torch-trace-json=" + path], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit("section_tool failed on %s: %s" % (path, out.stderr[-2000:]))
    return json.loads(out.stdout)


def format_emits_records(tool, path):
    out = subprocess.run([tool, "--records", "torch-trace-json=" + path], capture_output=True, text=True,
                         timeout=600)
    return out.returncode == 0 and out.stdout.strip() != ""


# --- an independent TB-plugin step split: plain interval lists -------------------------
def merge(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(iv):
    return sum(b - a for a, b in iv)


def clip(iv, lo, hi):
    return [[max(a, lo), min(b, hi)] for a, b in iv if min(b, hi) > max(a, lo)]


def split(cats, lo, hi):
    """cats: 7 interval lists in priority order; returns the 8 parts of [lo, hi)."""
    claimed, parts = [], []
    for c in cats:
        union = merge(claimed + clip(c, lo, hi))
        parts.append(length(union) - length(claimed))
        claimed = union
    parts.append((hi - lo) - sum(parts))
    return parts


def categorise(events):
    """The seven categories of the generated trace's events (docs/ANALYSIS.md "steps")."""
    cats = [[] for _ in range(7)]
    steps = []
    for e in events:
        if e.get("ph") != "X":
            continue
        a, b = ns(e["ts"]), ns(e["ts"] + e["dur"])
        cat, name = e.get("cat", ""), e.get("name", "")
        if cat == "gpu_user_annotation":  # the GPU-lane copy of a range: not a step, not CPU time
            continue
        if name.startswith("ProfilerStep#"):
            steps.append((name, a, b))
        elif cat == "kernel":
            cats[3 if ("nccl" in name.lower() or "rccl" in name.lower()) else 0].append([a, b])
        elif cat == "gpu_memcpy":
            cats[1].append([a, b])
        elif cat == "gpu_memset":
            cats[2].append([a, b])
        elif cat in ("cuda_runtime", "cuda_driver"):
            cats[4].append([a, b])
        elif name.startswith("enumerate(DataLoader)#") or name.startswith("enumerate(DataPipe)#"):
            cats[5].append([a, b])
        elif name.startswith(("nccl:", "gloo:", "c10d::")):
            cats[3].append([a, b])
        else:
            cats[6].append([a, b])
    return cats, sorted(steps, key=lambda s: (s[1], s[2], s[0]))


def generated_trace():
    cpu = {"pid": 1, "tid": 1}
    gpu = {"pid": 0, "tid": 7}

    def x(cat, name, ts, dur, where, **args):
        e = {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur}
        e.update(where)
        if args:
            e["args"] = args
        return e

    ev = [
        x("user_annotation", "ProfilerStep#0", 0, 1000, cpu, **{"External id": 100}),
        x("user_annotation", "ProfilerStep#1", 1000, 500, cpu, **{"External id": 101}),
        x("python_function", "train.py(10): main", 0, 2100, cpu),
        x("python_function", "torch/nn/modules/module.py(1501): _call_impl", 80, 400, cpu),
        x("python_function", "model.py(3): forward", 90, 300, cpu),
        x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10, 70, cpu, **{"External id": 1}),
        x("cpu_op", "aten::mm", 100, 200, cpu, **{"External id": 2, "Input Dims": [[4, 8], [8, 16]]}),
        x("cuda_runtime", "cudaLaunchKernel", 150, 20, cpu, **{"External id": 2, "correlation": 10}),
        x("kernel", "Cijk_Alik_Bljk_mm", 400, 300, gpu, **{"External id": 2, "correlation": 10, "device": 0,
                                                          "stream": 7}),
        x("cpu_op", "aten::copy_", 600, 50, cpu, **{"External id": 3}),
        x("cuda_runtime", "cudaMemcpyAsync", 610, 30, cpu, **{"External id": 3, "correlation": 11}),
        x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 650, 100, gpu,
          **{"External id": 3, "correlation": 11, "device": 0, "stream": 7}),
        x("cpu_op", "nccl:all_reduce", 1050, 100, cpu, **{"External id": 4}),
        x("cuda_runtime", "cudaLaunchKernel", 1060, 10, cpu, **{"External id": 4, "correlation": 12}),
        x("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 1100, 200, gpu,
          **{"External id": 4, "correlation": 12, "device": 0, "stream": 7}),
        x("user_annotation", "execute_context_1(128)_generation_0(0)", 1900, 100, cpu, **{"External id": 102}),
        x("cpu_op", "aten::mm", 1900, 60, cpu, **{"External id": 5, "Input Dims": [[4, 8], [8, 16]]}),
        x("cuda_runtime", "cudaLaunchKernel", 1910, 5, cpu, **{"External id": 5, "correlation": 13}),
        x("kernel", "Cijk_Alik_Bljk_tail", 2000, 50, gpu, **{"External id": 5, "correlation": 13, "device": 0,
                                                            "stream": 7}),
    ]
    return {"schemaVersion": 1, "traceEvents": ev}


def check_generated(tool, tmp):
    trace = generated_trace()
    path = os.path.join(tmp, "generated.pt.trace.json")
    with open(path, "w") as f:
        json.dump(trace, f)
    if not format_emits_records(tool, path):
        return False
    doc = run_tool(tool, path)
    steps = doc.get("steps")
    check(isinstance(steps, dict), "generated: steps section present")
    if not isinstance(steps, dict):
        return True
    cats, want_steps = categorise(trace["traceEvents"])
    items = steps["items"]
    check([i["name"] for i in items] == [s[0] for s in want_steps], "generated: step names %s" % [i["name"] for i in items])
    for item, (name, a, b) in zip(items, want_steps):
        check(item["wall_ns"] == b - a, "generated %s: wall %d, want %d" % (name, item["wall_ns"], b - a))
        check((item["start_ns"], item["end_ns"]) == (a, b), "generated %s: start/end %d..%d, want %d..%d"
              % (name, item["start_ns"], item["end_ns"], a, b))
        want = split(cats, a, b)
        got = [item["parts"][p] for p in PARTS]
        check(got == want, "generated %s: parts %s, the plain split says %s" % (name, got, want))
    # by hand: step 0's kernel [400,700) us, memcpy [700,750) (the rest is under the kernel), dataloader [10,80)
    check(items[0]["parts"]["kernel_ns"] == 300000, "generated step 0 kernel_ns")
    check(items[0]["parts"]["memcpy_ns"] == 50000, "generated step 0 memcpy_ns (50 us not under the kernel)")
    check(items[0]["parts"]["dataloader_ns"] == 70000, "generated step 0 dataloader_ns")
    check(items[1]["parts"]["communication_ns"] == 250000,
          "generated step 1 communication_ns (the NCCL kernel and the nccl:all_reduce op)")
    ops = doc.get("ops")
    check(isinstance(ops, dict), "generated: ops section present")
    if isinstance(ops, dict):
        mm = [o for o in ops["by_op"] if o["name"] == "aten::mm"]
        check(len(mm) == 1, "generated: aten::mm listed once")
        if mm:
            check(mm[0]["calls"] == 2 and mm[0]["kernels"] == 2, "generated: aten::mm calls/kernels %s" % mm[0])
            check(mm[0]["kernel_time_ns"] == 350000, "generated: aten::mm kernel time %d" % mm[0]["kernel_time_ns"])
            check(mm[0].get("python_frame") == "model.py(3): forward",
                  "generated: aten::mm python frame %s" % mm[0].get("python_frame"))
        check(ops["attributed_kernels"] + ops["unattributed_kernels"] == ops["kernels"], "generated: ops kernel count")
    phases = doc.get("phases")
    check(isinstance(phases, dict) and phases["prefill"]["kernel_time_ns"] == 50000 and
          phases["prefill"]["tokens"] == 128, "generated: prefill kernel time / tokens %s" % phases)
    return True


def check_retired(tool, tmp):
    """A trace long enough for steps to retire its older time (more than 2^16 spans; one
    step's events shuffled together, a kernel crossing into the next step): every step's
    parts and the run's equal the plain split, exact: true. Then the same trace with one
    kernel reaching back into retired time at its end: exact: false, a warning, and every
    step's parts still sum to its wall."""
    rnd = random.Random(12)
    cpu, gpu = {"pid": 1, "tid": 1}, {"pid": 0, "tid": 7}
    W, N, K = 10000, 300, 150
    blocks = []
    for k in range(N):
        t0 = k * W
        ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % k, "ts": t0, "dur": W, **cpu},
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": t0 + 10, "dur": 8990, **cpu}]
        for j in range(K):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t0 + 20 + j * 60,
                       "dur": 5, **cpu})
            ev.append({"ph": "X", "cat": "kernel", "name": "Cijk_gemm", "ts": t0 + 50 + j * 60, "dur": 30, **gpu})
        ev.append({"ph": "X", "cat": "kernel", "name": "Cijk_tail", "ts": t0 + W - 10, "dur": 30, **gpu})
        rnd.shuffle(ev)
        blocks.append(ev)
    for late in (False, True):
        events = [e for b in blocks for e in b]
        if late:
            events.append({"ph": "X", "cat": "kernel", "name": "Cijk_late", "ts": 15, "dur": 4, **gpu})
        path = os.path.join(tmp, "retired%d.pt.trace.json" % late)
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "traceEvents": events}, f)
        out = subprocess.run([tool, "torch-trace-json=" + path], capture_output=True, text=True, timeout=600)
        check(out.returncode == 0, "retired: section_tool failed: %s" % out.stderr[-500:])
        steps = json.loads(out.stdout)["steps"]
        items = steps["items"]
        check(len(items) == N, "retired: %d steps" % len(items))
        if late:
            check(steps["exact"] is False, "retired+late: exact is %s" % steps["exact"])
            check("reached back" in out.stderr, "retired+late: warning %s" % out.stderr[-300:])
            for item in items:
                check(sum(item["parts"].values()) == item["wall_ns"], "retired+late %s: parts sum" % item["name"])
            print("ok retired+late: exact false, parts still sum to each wall")
            continue
        check(steps["exact"] is True, "retired: exact is %s" % steps["exact"])
        cats_of = [categorise(b)[0] for b in blocks]
        run = [0] * 8
        for k, item in enumerate(items):
            cats = [sum((cats_of[i][c] for i in range(max(0, k - 1), min(N, k + 2))), []) for c in range(7)]
            want = split(cats, ns(k * W), ns((k + 1) * W))
            got = [item["parts"][p] for p in PARTS]
            check(got == want, "retired %s: parts %s, the plain split says %s" % (item["name"], got, want))
            run = [x + y for x, y in zip(run, want)]
        # the run: the steps tile it, plus the last kernel's 20 us past the last step
        run[0] += ns(20)
        got = [steps["run"]["parts"][p] for p in PARTS]
        check(got == run, "retired: run parts %s, the plain split says %s" % (got, run))
        print("ok retired: %d steps, %d events, parts exact" % (N, len(events)))


def check_ranks(tool, tmp):
    """Two generated rank traces (distributedInfo.rank) with NCCL kernels: skews, straggler,
    slowest rank and per-rank totals against a plain Python match of the n-th occurrences."""
    paths, kernels = [], {}
    for rank in (0, 1, 2):
        ev = []
        for i in range(4):
            ts = 100 + i * 1000 + (rank * 7 if i % 2 else (2 - rank) * 3)
            dur = 50 + ((rank + i) % 3) * 10
            ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7,
                       "ts": ts, "dur": dur, "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        kernels[rank] = sorted((ns(e["ts"]), ns(e["dur"])) for e in ev)
        path = os.path.join(tmp, "rank%d.pt.trace.json" % rank)
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 3},
                       "traceEvents": list(reversed(ev))}, f)
        paths.append("torch-trace-json=" + path)
    out = subprocess.run([tool] + paths, capture_output=True, text=True, timeout=600)
    ranks = json.loads(out.stdout).get("ranks")
    check(isinstance(ranks, dict), "ranks: section present for three rank traces")
    if not isinstance(ranks, dict):
        return
    skews, late, slow = [], {}, {}
    for i in range(4):
        occ = {r: kernels[r][i] for r in kernels}
        starts = [occ[r][0] for r in occ]
        skews.append(max(starts) - min(starts))
        lr = min(r for r in occ if occ[r][0] == max(starts))
        sr = min(r for r in occ if occ[r][1] == max(o[1] for o in occ.values()))
        late[lr] = late.get(lr, 0) + 1
        slow[sr] = slow.get(sr, 0) + 1
    c = ranks["collectives"][0]
    check(c["max_skew_ns"] == max(skews) and c["mean_skew_ns"] == sum(skews) // len(skews),
          "ranks: skews %s/%s, python %s" % (c["max_skew_ns"], c["mean_skew_ns"], skews))
    best = max(late.values())
    check(c["straggler_rank"] == min(r for r in late if late[r] == best), "ranks: straggler %s, python %s" % (c["straggler_rank"], late))
    best = max(slow.values())
    check(c["slowest_rank"] == min(r for r in slow if slow[r] == best), "ranks: slowest %s, python %s" % (c["slowest_rank"], slow))
    for pr in ranks["per_rank"]:
        check(pr["collective_time_ns"] == sum(d for _, d in kernels[pr["rank"]]), "ranks: rank %d time" % pr["rank"])
    print("ok ranks: 3 ranks, skews %s" % skews)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def check_fixture_steps(tool, path):
    events = load(path)
    want = sorted({(e["name"], ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in events
                   if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
                   and not str(e.get("cat", "")).startswith("gpu_")}, key=lambda s: (s[1], s[2], s[0]))
    doc = run_tool(tool, path)
    steps = doc.get("steps")
    base = os.path.basename(path)
    check(isinstance(steps, dict), "%s: steps present" % base)
    if not isinstance(steps, dict):
        return
    items = steps["items"]
    check([i["name"] for i in items] == [w[0] for w in want], "%s: step names" % base)
    for item, (name, a, b) in zip(items, want):
        check(abs(item["wall_ns"] - (b - a)) <= 1, "%s %s: wall %d, json says %d" % (base, name, item["wall_ns"], b - a))
        check(sum(item["parts"].values()) == item["wall_ns"], "%s %s: parts sum to wall" % (base, name))
        check(item["end_ns"] - item["start_ns"] == item["wall_ns"], "%s %s: end - start != wall" % (base, name))
    if steps.get("mean"):
        check(sum(steps["mean"]["parts"].values()) == steps["mean"]["wall_ns"], "%s: mean parts sum" % base)
    check(sum(steps["run"]["parts"].values()) == steps["run"]["wall_ns"], "%s: run parts sum" % base)
    ops = doc.get("ops")
    if isinstance(ops, dict):
        check(ops["attributed_kernels"] + ops["unattributed_kernels"] == ops["kernels"], "%s: ops kernel count" % base)
        for o in ops["by_op"]:
            check(o["kernel_time_ns"] >= 0 and o["kernels"] >= o["calls"] >= 1, "%s: op %s counts" % (base, o["name"]))
    print("ok %s: %d steps" % (base, len(items)))


def check_fixture_phases(tool, path):
    events = load(path)
    base = os.path.basename(path)
    annots = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("execute_")
              and "_generation_" in e["name"] and not str(e.get("cat", "")).startswith("gpu_")]
    launch = {e["args"]["correlation"]: ns(e["ts"]) for e in events
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    kernels = [e for e in events if e.get("cat") == "kernel"]
    in_step = 0
    for k in kernels:
        t = launch.get(k.get("args", {}).get("correlation"))
        if t is not None and any(ns(a["ts"]) <= t <= ns(a["ts"] + a["dur"]) for a in annots):
            in_step += 1
    doc = run_tool(tool, path)
    phases = doc.get("phases")
    check(isinstance(phases, dict), "%s: phases present" % base)
    if isinstance(phases, dict):
        total = sum(phases[p]["kernels"] for p in ("prefill", "decode", "mixed", "idle"))
        check(phases["steps"] == len(annots), "%s: %d step annotations, json has %d" % (base, phases["steps"], len(annots)))
        check(total == in_step, "%s: %d kernels in steps, python says %d" % (base, total, in_step))
        print("ok %s: %d phase steps, %d kernels" % (base, phases["steps"], total))


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    tool, shared = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        if not check_generated(tool, tmp):
            print("SKIP: the torch-trace-json format emits no records yet (core's torch profile -> records "
                  "work is not merged): nothing to compare")
            return SKIP
        check_ranks(tool, tmp)
        check_retired(tool, tmp)
    fx = os.path.join(shared, "fixtures", "torch_profiler")
    for name in ("kineto_tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
                 "hta_amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json"):
        check_fixture_steps(tool, os.path.join(fx, name))
    check_fixture_phases(tool, os.path.join(fx, "tracelens_inference__vllm_decode_full__graph_execution.json.gz"))
    if FAILURES:
        print("%d failures" % len(FAILURES))
        return 1
    print("steps_oracle: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
