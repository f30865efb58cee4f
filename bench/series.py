#!/usr/bin/env python3
"""bench/series.py: GET /series/<key>?limit=1000 on a series of 1,100 runs of 200 steps, with the
series verdict cache cold (a daemon just started on the stored runs) and warm.

    bench/series.py [BUILD_DIR] [SHARED_DIR] [--runs N] [--steps N] [--rounds N]

Writes N runs (default 1,100) with ../shared/tools/gen_run.py (200 steps of 2 kernels, seeds
1..N; run 1,090 on has its GEMMs slower), each labelled into one series by a goblind.json, kept
in /tmp/goblind-bench-series for reruns. A daemon ingests them (the regression check of each
completed run fills the cache as it goes) and is stopped; a second daemon on the same database
parses nothing again and starts with an empty cache. Then: the first request (cold: every
verdict a bootstrap test), R more (warm), one GET /metrics, each the wall clock of the whole
HTTP exchange on 127.0.0.1; the cache's hit and miss counters after each step; and whether the
cold and warm answers are equal.
"""
import argparse
import contextlib
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = "/tmp/goblind-bench-series"
SERIES = "bench-series"


def get(url):
    with urllib.request.urlopen(url, timeout=600) as r:
        return r.status, r.read()


def timed(url):
    t0 = time.perf_counter()
    st, body = get(url)
    assert st == 200, (url, st)
    return (time.perf_counter() - t0) * 1000, body


def counters(base):
    text = get(base + "/metrics")[1].decode()
    return {k: int(float(v)) for k, v in re.findall(r"^goblind_series_verdict_cache_(\w+?)(?:_total)? (\S+)$", text, re.M)}


def make_runs(shared, n, steps):
    sys.path.insert(0, os.path.join(shared, "tools"))
    import gen_run  # noqa: E402  (in-process: 1,100 interpreters would take minutes)
    runs = os.path.join(ROOT, "runs")
    os.makedirs(runs, exist_ok=True)
    made = 0
    for i in range(1, n + 1):
        d = os.path.join(runs, f"r{i:05d}")
        if os.path.exists(os.path.join(d, "goblind.json")):
            continue
        tmp = os.path.join(ROOT, "staging")
        subprocess.run(["rm", "-rf", tmp], check=True)
        slow = ["--slow", "Cijk=1.5"] if i >= n - 10 else []
        with contextlib.redirect_stderr(io.StringIO()):   # its one line per run
            gen_run.main([tmp, "--steps", str(steps), "--kernels-per-step", "2", "--cpu-ops-per-step", "1",
                          "--smi-samples", "5", "--seed", str(i), *slow])
        with open(os.path.join(tmp, "goblind.json"), "w") as f:
            json.dump({"labels": {"series": SERIES}}, f)
        os.rename(tmp, d)
        made += 1
    return runs, made


def start(build, runs, db):
    port = 9000 + os.getpid() % 1000
    d = subprocess.Popen([f"{build}/goblind", "serve", "--root", runs, "--db", db, "--listen", f"127.0.0.1:{port}",
                          "--quiet-s", "1", "--settle-ms", "200"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return d, f"http://127.0.0.1:{port}"


def wait_complete(base, n, timeout):
    """Until n runs are complete and none is pending or running (goblind_runs on /metrics)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            text = get(base + "/metrics")[1].decode()
            runs = {k: int(v) for k, v in re.findall(r'^goblind_runs\{status="(\w+)"\} (\d+)$', text, re.M)}
            if runs.get("complete", 0) >= n and not runs.get("pending") and not runs.get("running"):
                return True
        except (OSError, ValueError):
            pass
        time.sleep(2)
    return False


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(here, "..", "build"))
    ap.add_argument("shared", nargs="?", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("--runs", type=int, default=1100)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args()
    t0 = time.time()
    runs, made = make_runs(a.shared, a.runs, a.steps)
    print(f"{a.runs} runs of {a.steps} steps in {runs} ({made} written, {time.time() - t0:.0f} s)")
    dbdir = tempfile.mkdtemp(prefix="goblind-bench-series-db-")
    db = f"{dbdir}/g.db"
    d, base = start(a.build, runs, db)
    try:
        t0 = time.time()
        if not wait_complete(base, a.runs, 3600):
            print("the runs were not ingested in an hour")
            return 1
        print(f"ingested in {time.time() - t0:.0f} s; cache after the ingest: {counters(base)}")
    finally:
        d.terminate()
        d.wait()
    d, base = start(a.build, runs, db)          # the same store: nothing parsed again, the cache empty
    try:
        if not wait_complete(base, a.runs, 600):
            print("the runs did not stay complete after a restart")
            return 1
        get(base + "/metrics")                  # (a scrape judges the latest run: two verdicts)
        url = f"{base}/series/{SERIES}?limit=1000"
        print(f"cache at start: {counters(base)}")
        cold, body0 = timed(url)
        print(f"GET /series/<key>?limit=1000, cold: {cold:.0f} ms; cache: {counters(base)}")
        warm = []
        for _ in range(a.rounds):
            ms, body = timed(url)
            warm.append(ms)
            if body != body0:
                r0, r1 = json.loads(body0)["runs"], json.loads(body)["runs"]
                diff = [(x, y) for x, y in zip(r0, r1) if x != y]
                print(f"a warm answer differs from the cold one: {len(diff)} runs, first {diff[:1]}")
                return 1
        print(f"warm, {a.rounds} requests: median {statistics.median(warm):.1f} ms, max {max(warm):.1f} ms; "
              f"cache: {counters(base)}")
        doc = json.loads(body0)
        regs = [r["id"] for r in doc["runs"] if r["regression"]]
        print(f"runs listed {len(doc['runs'])}, regressions {len(regs)}; cold and warm answers equal")
        ms, _ = timed(base + "/metrics")
        print(f"GET /metrics (warm): {ms:.1f} ms")
        ms, _ = timed(base + "/series")
        print(f"GET /series (warm): {ms:.1f} ms")
    finally:
        d.terminate()
        d.wait()
        subprocess.run(["rm", "-rf", dbdir])
    return 0


if __name__ == "__main__":
    sys.exit(main())
