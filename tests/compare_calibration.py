#!/usr/bin/env python3
"""compare_calibration: are /compare's verdicts right as often as docs/ANALYSIS.md says?

    compare_calibration.py GOBLIND COMPARE_DIFF_TOOL SHARED_DIR [--pairs N]

With ../shared/tools/gen_run.py it writes N A/A pairs (same settings, different seeds) and two
sets of A/B pairs whose candidate slows one kernel (--slow SUBSTR=FACTOR):
  - "mean": N pairs where the step mean moves by three standard deviations of one run's step
    mean (the per-step wall times' standard deviation over sqrt(steps), measured on the A runs);
  - "step": N/2 pairs where it moves by three standard deviations of the per-step wall time.
Each run is read by `goblind analyze`; each pair is compared by compare_diff_tool (the code
/compare runs). It asserts, and prints for docs/ANALYSIS.md:
  - A/A: false `faster`/`slower` step-time verdicts <= 5 %; false kernel verdicts <= 5 % of the
    kernel verdicts given; and pairs with any kernel wrongly called `faster`/`slower` <= 7.5 %
    (the kernel tests are Bonferroni-corrected to a family-wise 5 %; 7.5 % is that plus 1.7
    standard errors of a rate measured on 200 pairs);
  - both A/B sets: the moved kernel's verdict is `slower` in >= 95 % of pairs, and it is the top
    mover (the first kernel of the summary's movers that are not noise) in >= 95 %; no step-time
    verdict says `faster` in more than 5 %;
  - "step" set: the step-time verdict is `slower` in >= 95 %.
On the "mean" set the step-time verdict's power is printed, not asserted: no 5 %-level
two-sample test can reach 95 % there (the difference of two means has sqrt(2) times one mean's
deviation, so even a z-test has 56 % power); docs/ANALYSIS.md says so.
"""
import argparse
import importlib.util
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stderr
from multiprocessing import Pool

SETTINGS = ["--steps", "20", "--kernels-per-step", "40", "--cpu-ops-per-step", "2", "--smi-samples", "4"]
MOVED = "flash_attn_fwd_kernel_rocm"


def load_gen(shared):
    spec = importlib.util.spec_from_file_location("gen_run", os.path.join(shared, "tools", "gen_run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = None


def init_worker(shared):
    global GEN
    GEN = load_gen(shared)


def make_run(job):
    """Writes one run with gen_run and returns (run_dir, analysis document path)."""
    goblind, out, seed, extra = job
    with redirect_stderr(io.StringIO()):
        GEN.main([out, "--seed", str(seed)] + SETTINGS + extra)
    doc = out + ".json"
    with open(doc, "w") as f:
        subprocess.run([goblind, "analyze", out], stdout=f, stderr=subprocess.DEVNULL, check=True)
    return doc


def step_walls(doc):
    with open(doc) as f:
        d = json.load(f)
    return [it["wall_ns"] for it in d["steps"]["items"]]


def compare(tool, a, b):
    out = subprocess.run([tool, a, b, "50"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def top_mover(diff):
    for k in diff["kernels"]:
        if k["verdict"] in ("faster", "slower"):
            return k["name"]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("goblind")
    ap.add_argument("tool")
    ap.add_argument("shared")
    ap.add_argument("--pairs", type=int, default=200)
    a = ap.parse_args()
    n = a.pairs
    gen = load_gen(a.shared)
    tmp = tempfile.mkdtemp(prefix="goblind-calib-")
    jobs = os.cpu_count() or 2
    with Pool(jobs, initializer=init_worker, initargs=(a.shared,)) as pool:
        base = pool.map(make_run, [(a.goblind, f"{tmp}/a{i}", 1000 + i, []) for i in range(n)])
        other = pool.map(make_run, [(a.goblind, f"{tmp}/c{i}", 5000 + i, []) for i in range(n)])
        # the shift: three standard deviations of one run's step mean, measured on the A runs
        sds = [statistics.stdev(w) / math.sqrt(len(w)) for w in map(step_walls, base)]
        sd_mean = statistics.mean(sds)
        kernels = {k[0]: (k[1], k[2]) for k in gen.KERNELS}
        weight_sum = sum(w for _, w in kernels.values())
        name = next(k for k in kernels if MOVED in k)
        mean_ns, weight = kernels[name]
        per_step_calls = int(SETTINGS[3]) * weight / weight_sum
        sd_step = statistics.mean(statistics.stdev(w) for w in map(step_walls, base))
        sets = {}
        for label, shift, count, seed in (("mean", 3 * sd_mean, n, 9000), ("step", 3 * sd_step, n // 2, 20000)):
            factor = 1 + shift / (mean_ns * per_step_calls)
            runs = pool.map(make_run, [(a.goblind, f"{tmp}/{label}{i}", seed + i, ["--slow", f"{MOVED}={factor}"])
                                       for i in range(count)])
            sets[label] = (factor, shift, runs)
    with ThreadPoolExecutor(jobs) as ex:
        aa = list(ex.map(lambda p: compare(a.tool, *p), zip(base, other)))
        ab = {label: list(ex.map(lambda p: compare(a.tool, *p), zip(base, runs)))
              for label, (_, _, runs) in sets.items()}
    step_false = sum(d["step_time"]["verdict"] in ("faster", "slower") for d in aa) / n
    kernel_false = sum(any(k["verdict"] in ("faster", "slower") for k in d["kernels"]) for d in aa) / n
    verdicts = [k["verdict"] for d in aa for k in d["kernels"] if k["verdict"] != "unknown"]
    verdict_false = sum(v in ("faster", "slower") for v in verdicts) / max(1, len(verdicts))
    print(f"A/A: {n} pairs; false step verdicts {step_false:.1%}; false kernel verdicts {verdict_false:.2%} "
          f"of {len(verdicts)}; pairs with a false kernel verdict {kernel_false:.1%}")
    ok = step_false <= 0.05 and verdict_false <= 0.05 and kernel_false <= 0.075
    for label, diffs in ab.items():
        factor, shift, _ = sets[label]
        m = len(diffs)
        moved = [next((k for k in d["kernels"] if k["name"] == name), None) for d in diffs]
        right = sum(k is not None and k["verdict"] == "slower" for k in moved) / m
        top = sum(top_mover(d) == name for d in diffs) / m
        step_power = sum(d["step_time"]["verdict"] == "slower" for d in diffs) / m
        step_wrong = sum(d["step_time"]["verdict"] == "faster" for d in diffs) / m
        print(f"A/B ({label}): {m} pairs; step mean +{shift / 1e6:.3f} ms (x{factor:.3f} of {name[:30]}); "
              f"moved kernel `slower` {right:.1%}; top mover {top:.1%}; step-time `slower` {step_power:.1%} "
              f"(`faster` {step_wrong:.1%})")
        print(f"  first pair: {diffs[0]['summary']}")
        ok = ok and right >= 0.95 and top >= 0.95 and step_wrong <= 0.05 and (label != "step" or step_power >= 0.95)
    print(f"step-mean noise sd {sd_mean / 1e6:.3f} ms, per-step sd {sd_step / 1e6:.3f} ms")
    subprocess.run(["rm", "-rf", tmp])
    print("calibration holds" if ok else "calibration FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
