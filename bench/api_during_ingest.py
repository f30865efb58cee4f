#!/usr/bin/env python3
"""API latency while goblind ingests a 1 GB run.

Starts `goblind serve` on an empty root, drops a ~1 GB run into it (hard links to a cached
generated run), and queries /healthz, /runs and /runs/<id>/metrics in a loop until the run is
complete. Prints the parse time and the latency distribution of the queries made during it.

usage: bench/api_during_ingest.py [GOBLIND] [SHARED]   (env BENCH_DIR, default /tmp/goblind-bench)
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

GOBLIND = sys.argv[1] if len(sys.argv) > 1 else "build/goblind"
SHARED = Path(sys.argv[2] if len(sys.argv) > 2 else "../shared")
CACHE = Path(os.environ.get("BENCH_DIR", "/tmp/goblind-bench")) / "run1g"

if not (CACHE / "torch_profile.json").exists():
    print("generating the 1 GB run (about 30 s) ...", file=sys.stderr)
    subprocess.run([sys.executable, str(SHARED / "tools" / "gen_run.py"), str(CACHE), "--steps", "2000",
                    "--kernels-per-step", "400", "--cpu-ops-per-step", "100", "--smi-samples", "3000",
                    "--seed", "3"], check=True, capture_output=True)
size = sum(f.stat().st_size for f in CACHE.iterdir())
subprocess.run(["cat", *map(str, CACHE.iterdir())], stdout=subprocess.DEVNULL)   # warm the page cache

tmp = Path(tempfile.mkdtemp(prefix="goblind-bench-", dir=CACHE.parent))
(tmp / "runs").mkdir()
proc = subprocess.Popen([GOBLIND, "serve", "--root", str(tmp / "runs"), "--db", str(tmp / "g.db"),
                         "--listen", "127.0.0.1:0", "--quiet-s", "1"], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL)
base = "http://127.0.0.1:" + re.search(r":(\d+)/", proc.stdout.readline().decode()).group(1)


def get(path):
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(base + path, timeout=30) as r:
            body = r.read()
            st = r.status
    except urllib.error.HTTPError as e:
        body, st = e.read(), e.code
    return st, body, (time.perf_counter() - t0) * 1000


try:
    while get("/readyz")[0] != 200:
        time.sleep(0.05)
    shutil.copytree(CACHE, tmp / "runs" / "big", copy_function=os.link)
    lat = {"/healthz": [], "/runs": [], "/runs/big/metrics": []}
    t0 = time.time()
    parsing_seen = False
    while True:
        for path in lat:
            st, body, ms = get(path)
            lat[path].append(ms)
        st, body, _ = get("/runs/big")
        if st == 200:
            d = json.loads(body)
            parsing_seen |= d["status"] == "running"
            if d["status"] in ("complete", "failed"):
                break
        if time.time() - t0 > 300:
            raise SystemExit("run did not complete in 300 s")
        time.sleep(0.02)
    wall = time.time() - t0
    d = json.loads(get("/runs/big")[1])
    print(f"run                {size / 1e6:.0f} MB, status {d['status']}, parse {d['last_parse_ms'] / 1000:.2f} s "
          f"(worker pool), complete after {wall:.2f} s (includes settle and quiet_s=1)")
    for path, xs in lat.items():
        xs.sort()
        p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
        print(f"{path:<18} {len(xs):4d} requests during ingest: p50 {statistics.median(xs):6.2f} ms  "
              f"p99 {p99:6.2f} ms  max {xs[-1]:6.2f} ms")
finally:
    proc.terminate()
    proc.wait(30)
    shutil.rmtree(tmp, ignore_errors=True)
