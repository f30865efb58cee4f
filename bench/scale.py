#!/usr/bin/env python3
"""Scale: N run directories under one root at start-up (hard links of one generated run).

Measures the start-up scan (time to /readyz), time until every run is complete, resident memory,
API latency with N stored runs, and a restart with nothing changed (no re-parse).

usage: bench/scale.py [GOBLIND] [SHARED] [N]      (default build/goblind ../shared 10000)
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

GOBLIND = sys.argv[1] if len(sys.argv) > 1 else "build/goblind"
SHARED = Path(sys.argv[2] if len(sys.argv) > 2 else "../shared")
N = int(sys.argv[3]) if len(sys.argv) > 3 else 10000

tmp = Path(tempfile.mkdtemp(prefix="goblind-scale-"))
src = tmp / "src"
subprocess.run([sys.executable, str(SHARED / "tools" / "gen_run.py"), str(src), "--steps", "3", "--kernels-per-step",
                "40", "--cpu-ops-per-step", "5", "--smi-samples", "10"], check=True, capture_output=True)
root = tmp / "runs"
root.mkdir()
t0 = time.time()
for i in range(N):
    d = root / f"run-{i:05d}"
    d.mkdir()
    for f in ("trace.csv", "torch_profile.json", "amd_smi.csv"):
        os.link(src / f, d / f)
print(f"{N} run directories ({sum(f.stat().st_size for f in src.iterdir()) // 1024} KB each, hard links) "
      f"created in {time.time() - t0:.1f} s")


def start():
    p = subprocess.Popen([GOBLIND, "serve", "--root", str(root), "--db", str(tmp / "g.db"), "--listen", "127.0.0.1:0",
                          "--quiet-s", "1", "--settle-ms", "200"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    base = "http://127.0.0.1:" + re.search(r":(\d+)/", p.stdout.readline().decode()).group(1)
    return p, base


def wait_ready(base):
    t0 = time.time()
    while True:
        try:
            get(base, "/readyz")
            return time.time() - t0
        except Exception:
            time.sleep(0.02)


def get(base, path):
    t = time.perf_counter()
    with urllib.request.urlopen(base + path, timeout=30) as r:
        body = r.read()
    return body, (time.perf_counter() - t) * 1000


def mem(p):
    s = open(f"/proc/{p.pid}/status").read()
    return int(re.search(r"VmRSS:\s+(\d+)", s).group(1)) // 1024, int(re.search(r"VmHWM:\s+(\d+)", s).group(1)) // 1024


def complete(base):
    text = get(base, "/metrics")[0].decode()
    return int(re.search(r'goblind_runs\{status="complete"\} (\d+)', text).group(1))


def latencies(base, path, n=200):
    xs = sorted(get(base, path)[1] for _ in range(n))
    return statistics.median(xs), xs[int(n * 0.99) - 1], xs[-1]


p, base = start()
t0 = time.time()
ready = wait_ready(base)
while complete(base) < N:
    time.sleep(0.5)
    if time.time() - t0 > 900:
        raise SystemExit("not complete after 900 s")
done = time.time() - t0
rss, hwm = mem(p)
watched = re.search(r"goblind_watched_directories (\d+)", get(base, "/metrics")[0].decode()).group(1)
print(f"first start: ready (scan done) {ready:.2f} s, all {N} complete {done:.1f} s, "
      f"RSS {rss} MB (peak {hwm} MB), {watched} directories watched")
for path in ("/healthz", "/runs?limit=100", "/runs/run-05000/metrics", "/runs?limit=100&status=complete"):
    med, p99, mx = latencies(base, path)
    print(f"  GET {path:<28} p50 {med:6.2f} ms  p99 {p99:6.2f} ms  max {mx:6.2f} ms")
p.terminate()
p.wait(60)
p, base = start()
ready = wait_ready(base)
time.sleep(3)
ingests = re.search(r'goblind_ingests_total\{result="ok"\} (\d+)', get(base, "/metrics")[0].decode()).group(1)
rss, hwm = mem(p)
print(f"restart, nothing changed: ready {ready:.2f} s, {ingests} re-parses, RSS {rss} MB (peak {hwm} MB)")
p.terminate()
p.wait(60)
shutil.rmtree(tmp)
