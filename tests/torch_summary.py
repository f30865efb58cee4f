#!/usr/bin/env python3
"""torch_summary: RunMetrics' torch profile summary against the reference's read_torch().

torch_summary_tool (tests/torch_summary_tool.c) reads a profile the way `goblind parse`
does (the format's REC_TRACE_EVENT records folded by analyses/summaries/torch_stats.c) and prints the
summary; this script computes the same numbers with goblin_ref.read_torch() (default and
seed modes) and requires them equal to the bit: every torch fixture, then hand-made edge
cases (two traceEvents / metadata keys, invalid JSON at the end, metadata strings and NaN,
ProfilerStep duplicates and GPU-side copies, cpu_op case folding, kernel names, a bare
array). Small cases are also read in two pieces at every resume point (--split-every),
which must join and give the sequential result to the bit.

usage: torch_summary.py TOOL SHARED_DIR
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

TOOL, SHARED = sys.argv[1], Path(sys.argv[2])
sys.path.insert(0, str(SHARED / "tools"))
import goblin_ref  # noqa: E402

failures = []


def tool(path, seed, split_every=False):
    args = [TOOL] + (["--seed"] if seed else []) + (["--split-every"] if split_every else []) + [str(path)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{path}: torch_summary_tool failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def expected(path, seed):
    """The reference's summary, in the tool's shape (kernels aggregated by name, first seen)."""
    s = goblin_ref.read_torch(Path(path), [], seed_compat=seed)
    agg = {}
    for name, ns in s["kernels"]:
        calls, total = agg.get(name, (0, 0))
        agg[name] = (calls + 1, total + ns)
    return {
        "tokens_per_sec": s["tokens_per_sec"], "mfu_pct": s["mfu_pct"],
        "step_time_seconds": s["step_time_seconds"], "host_busy_fraction": s["host_busy_fraction"],
        "pytorch_version": s["pytorch_version"], "n_steps": s["n_steps"] or 0,
        "profiled_steps": s["profiled_steps"] or 0,
        "span": (s["span_s"] is not None) and not seed,
        "kernels": [[n, c, t] for n, (c, t) in agg.items()],
    }


def check(label, path, split_every=False):
    for seed in (False, True):
        want = expected(path, seed)
        got = tool(path, seed, split_every)
        for k, v in want.items():
            if got[k] != v:
                failures.append(f"{label} ({'seed' if seed else 'default'}): {k}: got {got[k]!r}, reference {v!r}")
        if split_every and got["joined"] <= 0:
            failures.append(f"{label}: no split read joined (the split path went untested)")
    return got


def events(evs, sep=",\n"):
    return sep.join(json.dumps(e) for e in evs)


def doc(body):
    return "{" + body + "}"


STEP = lambda n, ts, dur, cat="user_annotation": {"ph": "X", "cat": cat, "name": f"ProfilerStep#{n}", "ts": ts, "dur": dur}
OP = lambda name, ts, dur, cat="cpu_op": {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur}

CASES = {
    # a later "traceEvents" replaces the earlier list, a later "metadata" the earlier dict
    "two_trace_events_keys": doc(
        '"traceEvents": [\n' + events([STEP(1, 0.5, 100.3), OP("aten::mm", 1.1, 7.7)]) + '\n],\n'
        '"metadata": {"tokens_per_sec": 99},\n'
        '"traceEvents": [\n' + events([STEP(2, 10.25, 0.1), STEP(3, 20.5, 0.2), OP("aten::add", 11.0, 0.3),
                                       OP("aten::mul", 12.0, 0.7, "CPU_OP"), OP("x", 13.0, 1.1, "Operator")]) + '\n],\n'
        '"metadata": {"mfu_pct": 41.5, "torch_version": "2.6"}'),
    # invalid JSON at the very end: the whole profile is dropped
    "invalid_at_end": doc('"traceEvents": [\n' + events([STEP(1, 0, 5), OP("a", 1, 2)]) + '\n]') + ",",
    "truncated": '{"traceEvents": [\n' + events([STEP(1, 0, 5), OP("a", 1, 2)]),
    # metadata strings, NaN, Infinity, truthiness of the version keys
    "metadata_values": doc(
        '"metadata": {"tokens_per_sec": "12.5", "mfu_pct": NaN, "pytorch_version": "", "torch_version": "2.6.0",'
        ' "step_time_seconds": "abc", "host_busy_fraction": Infinity, "n_steps": "3", "other": NaN},\n'
        '"traceEvents": [\n' + events([OP("a", 1, 2), {"name": "b", "cat": "cpu_op", "ts": "3.5", "dur": True},
                                       {"name": "c", "cat": "cpu_op", "ts": 9, "dur": None}]) + '\n]'),
    "metadata_containers": doc(
        '"metadata": {"pytorch_version": [], "torch_version": "1.13", "n_steps": 2.9, "tokens_per_sec": {"a": 1}},\n'
        '"traceEvents": []'),
    "metadata_nul_key": doc('"metadata": {"n_steps\\u0000x": 7, "mfu_pct\\u0000": 3, "n_steps": 2}, "traceEvents": []'),
    "metadata_version_list": doc('"metadata": {"pytorch_version": ["2.1"], "torch_version": "x"}, "traceEvents": []'),
    # ProfilerStep duplicates (two ranks), their GPU-side copies, a step without dur
    "step_duplicates": doc(
        '"traceEvents": [\n' + events([
            STEP(1, 0.0, 10.1), STEP(1, 0.0, 10.3), STEP(2, 11.0, 9.9), STEP(2, 11.0, 9.7),
            STEP(1, 0.2, 10.0, "gpu_user_annotation"), STEP(2, 11.1, 9.6, "gpu_user_annotation"),
            {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "ts": 30.0},
            {"ph": "X", "name": "ProfilerStepX", "ts": 31.0, "dur": 0.5},
            OP("aten::linear", 1.0, 3.3), OP("aten::relu", 2.0, 0.1)]) + '\n]'),
    # kernels (default mode): names stripped, the Kelvin-sign category, tiny durations dropped
    "kernels": doc(
        '"traceEvents": [\n' + events([
            {"ph": "X", "cat": "kernel", "name": " gemm_a ", "ts": 1.0, "dur": 2.0004},
            {"ph": "X", "cat": "Kernel", "name": "gemm_a", "ts": 4.0, "dur": 1.5},
            {"ph": "X", "cat": "\u212aernel", "name": "relu", "ts": 5.0, "dur": 0.25},
            {"ph": "X", "cat": "kernel", "name": "tiny", "ts": 6.0, "dur": 0.0004},
            {"ph": "X", "cat": "kernel", "name": "   ", "ts": 7.0, "dur": 1.0},
            {"ph": "X", "cat": "kernel", "name": 5, "ts": 8.0, "dur": 1.0}]) + '\n]'),
    # no steps, no metadata: the step time is the span
    "span_only": doc('"traceEvents": [\n' + events([OP("a", 100.25, 3.5), OP("b", 90.125, 1.0, "python_function"),
                                                    OP("c", 95.0, 20.0, "user_cpu_op_x")]) + '\n]'),
    "bare_array": "[" + events([STEP(1, 0, 5)]) + "]",
    "events_not_a_list": doc('"traceEvents": {"a": 1}, "metadata": {"step_time_seconds": 0.25}'),
    "repeated_keys": doc('"traceEvents": [\n' + events([]) +
                         '{"name": "ProfilerStep#1", "dur": 1.0, "name": "aten::x", "cat": "kernel", "ts": 1, "cat": "cpu_op"},\n'
                         '{"cat": "kernel", "name": "k1", "ts": 2, "dur": 3, "dur": "4"}\n]'),
}

with tempfile.TemporaryDirectory() as tmp:
    for path in sorted((SHARED / "fixtures" / "torch_profiler").iterdir()):
        if path.name.endswith((".json", ".json.gz")):
            try:
                check(path.name, path)
            except RuntimeError as exc:
                failures.append(str(exc))
    for name, text in CASES.items():
        path = Path(tmp) / "torch_profile.json"
        path.write_text(text)
        json_ok = True
        try:
            json.loads(text)
        except ValueError:
            json_ok = False
        try:
            got = check(name, path, split_every=json_ok and text.count(",\n{") >= 2)
            if got["complete"] != (json_ok and text.lstrip().startswith("{")):
                failures.append(f"{name}: complete is {got['complete']}")
        except RuntimeError as exc:
            failures.append(str(exc))

for f in failures:
    print("FAIL", f)
print(f"torch_summary: {len(CASES)} cases and the torch fixtures, {len(failures)} failures")
sys.exit(1 if failures else 0)
