#!/usr/bin/env python3
"""compare_diff_oracle: /compare's per-kernel diff and step-time medians on real traces, against
sums written here from the raw Kineto JSON (json module only, none of goblind's code).

    compare_diff_oracle.py GOBLIND COMPARE_DIFF_TOOL SHARED_DIR

Pairs: HTA's trace_diff control/test traces (corpus found2/torch_profiler) and the PyTorch docs'
before/after traces (fixtures/torch_profiler). Each trace is alone in a run directory under its
own name; `goblind analyze` reads it and compare_diff_tool compares the documents. Per kernel name
(cat "kernel", name stripped, duration floor(dur * 1000 + 0.5) ns): calls and total on each side,
delta_total_ns, and which names are added or removed; the step-time medians from the
ProfilerStep#N durations (cat user_annotation / cpu_op) by hand; and per CPU operator, each call's
kernel time (mean and standard deviation) and the Welch interval of its change.
"""
import gzip
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

PAIRS = [
    ("corpus/found2/torch_profiler/hta_trace_diff__control__control.json.gz",
     "corpus/found2/torch_profiler/hta_trace_diff__test__test.json.gz"),
    ("fixtures/torch_profiler/kineto_docs__traces__before_fix_trace.json",
     "fixtures/torch_profiler/kineto_docs__traces__after_fix_trace.json"),
]


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def kernel_totals(events):
    out = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel" and isinstance(e.get("dur"), (int, float)):
            name = str(e.get("name", "")).strip()
            calls, total = out.get(name, (0, 0))
            out[name] = (calls + 1, total + math.floor(e["dur"] * 1000 + 0.5))
    return out


def step_median(events):
    walls = [math.floor(e["dur"] * 1000 + 0.5) for e in events
             if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
             and e.get("cat") in ("user_annotation", "cpu_op") and isinstance(e.get("dur"), (int, float))]
    return statistics.median(walls) if walls else None, len(walls)


def analyze(goblind, tmp, path, tag):
    run = os.path.join(tmp, tag)
    os.makedirs(run)
    shutil.copy(path, run)
    doc = run + ".json"
    with open(doc, "w") as f:
        subprocess.run([goblind, "analyze", run], stdout=f, stderr=subprocess.DEVNULL, check=True)
    return doc


def main():
    goblind, tool, shared = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="goblind-diff-")
    failures = 0
    for i, (a, b) in enumerate(PAIRS):
        pa, pb = os.path.join(shared, a), os.path.join(shared, b)
        docs = [analyze(goblind, tmp, pa, f"a{i}"), analyze(goblind, tmp, pb, f"b{i}")]
        diff = json.loads(subprocess.run([tool, docs[0], docs[1], "1000"], capture_output=True, text=True,
                                         check=True).stdout)
        ev = [load(pa), load(pb)]
        want = [kernel_totals(e) for e in ev]
        got = {k["name"]: k for k in diff["kernels"] or []}
        errors = []
        names = set(want[0]) | set(want[1])
        if set(got) != names:
            errors.append(f"names differ: only goblind {sorted(set(got) - names)[:3]}, only oracle {sorted(names - set(got))[:3]}")
        for name in names & set(got):
            k = got[name]
            for side, key in ((0, "base"), (1, "candidate")):
                w = want[side].get(name)
                g = k[key]
                if (w is None) != (g is None) or (w and (g["calls"], g["total_ns"]) != w):
                    errors.append(f"{name[:50]} {key}: goblind {g and (g['calls'], g['total_ns'])}, oracle {w}")
            dw = want[1].get(name, (0, 0))[1] - want[0].get(name, (0, 0))[1]
            if k["delta_total_ns"] != dw:
                errors.append(f"{name[:50]} delta_total_ns: goblind {k['delta_total_ns']}, oracle {dw}")
            change = "added" if name not in want[0] else "removed" if name not in want[1] else "changed"
            if k["change"] != change:
                errors.append(f"{name[:50]} change: goblind {k['change']}, oracle {change}")
        order = [abs(k["delta_total_ns"]) for k in diff["kernels"] or [] if k["delta_total_ns"] is not None]
        if order != sorted(order, reverse=True):
            errors.append("kernels are not sorted by |delta_total_ns|")
        st = diff["step_time"]
        for side, key in ((0, "base_median_ns"), (1, "candidate_median_ns")):
            med, n = step_median(ev[side])
            if st[key] != med:
                errors.append(f"step_time {key}: goblind {st[key]}, oracle {med} of {n} steps")
        print(f"{os.path.basename(a)} -> {os.path.basename(b)}: {len(names)} kernel names, "
              f"{diff['kernel_diff']}, step {st['verdict']}; {len(errors)} differences")
        for e in errors[:20]:
            print("   ", e)
        failures += bool(errors)
    failures += cut_lists(tool, tmp)
    failures += operator_welch(goblind, tool, shared, tmp)
    shutil.rmtree(tmp)
    return 1 if failures else 0


def cut_lists(tool, tmp):
    """A name missing from a side whose list was cut (`unlisted`) may be there, beyond it: its
    change is unlisted_in_*, its deltas null (never a difference against 0); a name missing from
    a side listed whole is added / removed with the known difference; a side without the section
    at all makes the diff unknown (null). Documents made by hand."""
    def doc(rows, cut):
        k = {"by_name": [{"name": n, "calls": 10, "total_ns": t, "avg_ns": t / 10, "stddev_ns": 1.0} for n, t in rows]}
        if cut:
            k["unlisted"] = {"names": 5, "calls": 50, "total_ns": 1000}
        return {"kernels": k}
    paths = []
    for i, (rows, cut) in enumerate((([("a", 500), ("b", 400)], True), ([("a", 600), ("c", 300)], False))):
        paths.append(os.path.join(tmp, f"cut{i}.json"))
        with open(paths[-1], "w") as f:
            json.dump(doc(rows, cut), f)
    diff = json.loads(subprocess.run([tool, *paths, "10"], capture_output=True, text=True, check=True).stdout)
    got = {k["name"]: (k["change"], k["delta_total_ns"], k["delta_per_step_ns"]) for k in diff["kernels"]}
    want = {"a": ("changed", 100, None), "b": ("removed", -400, None), "c": ("unlisted_in_base", None, None)}
    errors = [f"{n}: goblind {got.get(n)}, by hand {w}" for n, w in want.items() if got.get(n) != w]
    if diff["kernel_diff"]["unlisted"] != 1 or diff["kernel_diff"]["removed"] != 1:
        errors.append(f"kernel_diff {diff['kernel_diff']}")
    # a side without the section (no kernel source: `kernels` null) knows none of its names:
    # the diff is unknown (null), never every name of the other side added or removed
    one = os.path.join(tmp, "no_kernels.json")
    with open(one, "w") as f:
        json.dump({"kernels": None}, f)
    for pair in ((paths[1], one), (one, paths[1])):
        diff = json.loads(subprocess.run([tool, *pair, "10"], capture_output=True, text=True, check=True).stdout)
        if diff["kernels"] is not None or diff["kernel_diff"] is not None:
            errors.append(f"one side without kernels: {diff['kernels']} {diff['kernel_diff']}")
    print(f"cut lists: {len(errors)} differences")
    for e in errors:
        print("   ", e)
    return bool(errors)


def operator_calls(events):
    """Per operator name: each call's kernel time (Σ round(dur · 1000) of its kernels), a kernel
    joined to its cpu_op by External id, else through its launch call's correlation id."""
    ops = {e["args"]["External id"]: e["name"] for e in events
           if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
    launch = {e["args"]["correlation"]: e["args"]["External id"] for e in events
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and {"correlation", "External id"} <= set(e.get("args", {}))}
    per_call = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        ext = e["args"].get("External id")
        if ext not in ops:
            ext = launch.get(e["args"].get("correlation"))
        if ext in ops:
            per_call[ext] = per_call.get(ext, 0) + math.floor(e["dur"] * 1000 + 0.5)
    out = {}
    for ext, t in per_call.items():
        out.setdefault(ops[ext], []).append(t)
    return out


def t_quantile(p, df):
    """The Student t quantile by bisection on the distribution function, itself Simpson's rule
    over the density (independent of goblind's continued fraction)."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    def cdf(x):
        n = 2000
        h = x / n
        s = sum((1 if i in (0, n) else 4 if i % 2 else 2) * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2) for i in range(n + 1))
        return 0.5 + c * s * h / 3
    lo, hi = 0.0, 1000.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def operator_welch(goblind, tool, shared, tmp):
    """Operators (ops.by_op) carry each call's kernel-time mean and standard deviation, so their
    change gets a Welch interval: calls, call_mean_ns and call_stddev_ns of every listed operator
    against the raw traces, and /compare's ops ci95_pct against a Welch interval computed here
    (H100 against MI300 runs of one model, TraceLens's corpus)."""
    pair = [os.path.join(shared, "corpus/found2/torch_profiler", f"tl_{gpu}__Falconsai_nsfw_image_detection__1016002.json.gz")
            for gpu in ("h100", "mi300")]
    docs = [analyze(goblind, tmp, p, f"op{i}") for i, p in enumerate(pair)]
    calls = [operator_calls(load(p)) for p in pair]
    errors = []
    for side, doc in enumerate(docs):
        with open(doc) as f:
            rows = [r for r in json.load(f)["ops"]["by_op"] if r["kind"] == "operator"]
        for r in rows:
            v = calls[side].get(r["name"], [])
            sd = statistics.stdev(v) if len(v) > 1 else None
            if r["calls"] != len(v) or abs(r["call_mean_ns"] - statistics.mean(v)) > 1e-9 * statistics.mean(v) or \
                    (sd is None) != (r["call_stddev_ns"] is None) or (sd is not None and abs(r["call_stddev_ns"] - sd) > 1e-6 * sd):
                errors.append(f"{r['name']}: goblind {r['calls']} {r['call_mean_ns']} {r['call_stddev_ns']}, oracle {len(v)} "
                              f"{statistics.mean(v) if v else None} {sd}")
    diff = json.loads(subprocess.run([tool, *docs, "50"], capture_output=True, text=True, check=True).stdout)
    alpha = diff["op_diff"]["alpha_per_name"]
    tested = 0
    for r in diff["ops"]:
        a, b = calls[0].get(r["name"], []), calls[1].get(r["name"], [])
        if len(a) < 5 or len(b) < 5:
            if r["verdict"] != "unknown":
                errors.append(f"{r['name']}: {len(a)} and {len(b)} calls, verdict {r['verdict']}")
            continue
        tested += 1
        ma, mb, va, vb = statistics.mean(a), statistics.mean(b), statistics.variance(a), statistics.variance(b)
        se2 = va / len(a) + vb / len(b)
        df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
        half = t_quantile(1 - alpha / 2, df) * math.sqrt(se2)
        want = [(mb - ma - half) / ma * 100, (mb - ma + half) / ma * 100]
        verdict = "slower" if want[0] > 0 else "faster" if want[1] < 0 else "within_noise"
        if r["ci95_pct"] is None or any(abs(g - w) > 1e-4 * max(1.0, abs(w)) for g, w in zip(r["ci95_pct"], want)) \
                or r["verdict"] != verdict:
            errors.append(f"{r['name']}: goblind {r['ci95_pct']} {r['verdict']}, by hand {want} {verdict}")
    if tested < 3 or diff["op_diff"]["tested"] != tested:
        errors.append(f"operators tested: goblind {diff['op_diff']['tested']}, here {tested}")
    print(f"operators (Welch): {tested} tested, alpha {alpha:.4g}; {len(errors)} differences")
    for e in errors[:20]:
        print("   ", e)
    return bool(errors)


if __name__ == "__main__":
    sys.exit(main())
