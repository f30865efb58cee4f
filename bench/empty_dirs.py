#!/usr/bin/env python3
"""Empty run directories: N directories with no files at all under one root (a job launcher
that makes a directory per job before anything writes to it, or an attacker with write access
to the root). Measures what they cost the daemon — time to /readyz, CPU seconds and resident
memory until it is idle again, CPU over a quiet window with periodic rescans — and how late a
real run written afterwards is noticed (first seen on the API) and complete.

usage: bench/empty_dirs.py [GOBLIND] [SHARED] [N] [QUIET_WINDOW_S]   (default build/goblind ../shared 20000 30)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

GOBLIND = sys.argv[1] if len(sys.argv) > 1 else "build/goblind"
SHARED = Path(sys.argv[2] if len(sys.argv) > 2 else "../shared")
N = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
WINDOW = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def get(base, path):
    try:
        with urllib.request.urlopen(base + path, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def real_run(base, tmp, root, name):
    """Moves a small generated run into the root; seconds until it is on the API, and complete."""
    subprocess.run([sys.executable, str(SHARED / "tools" / "gen_run.py"), str(tmp / name), "--steps", "3",
                    "--kernels-per-step", "40", "--cpu-ops-per-step", "5", "--smi-samples", "10"],
                   check=True, capture_output=True)
    t1 = time.time()
    os.rename(tmp / name, root / name)
    seen = complete = None
    while complete is None and time.time() - t1 < 300:
        st, body = get(base, "/runs/" + name)
        if st == 200:
            seen = seen or time.time() - t1
            if json.loads(body)["status"] == "complete":
                complete = time.time() - t1
        time.sleep(0.05)
    return seen, complete


def main():
    tmp = Path(tempfile.mkdtemp(prefix="goblind-empty-"))
    root = tmp / "runs"
    root.mkdir()
    for i in range(N):
        (root / f"job-{i:05d}").mkdir()
    p = subprocess.Popen([GOBLIND, "serve", "--root", str(root), "--db", str(tmp / "g.db"), "--listen", "127.0.0.1:0",
                          "--settle-ms", "200", "--quiet-s", "2", "--scan-interval-s", "10"],
                         stdout=subprocess.PIPE, stderr=open(tmp / "log", "wb"))
    try:
        t0 = time.time()
        base = "http://127.0.0.1:" + re.search(r":(\d+)/", p.stdout.readline().decode()).group(1)
        while get(base, "/readyz")[0] != 200:
            time.sleep(0.02)
        ready = time.time() - t0
        early_seen, early_complete = real_run(base, tmp, root, "early-run")   # written at /readyz
        # idle again: CPU stops moving for 2 s
        last, still_since = cpu_s(p.pid), time.time()
        while time.time() - still_since < 2:
            time.sleep(0.25)
            now = cpu_s(p.pid)
            if now - last > 0.02:
                still_since = time.time()
            last = now
        settled = time.time() - t0 - 2
        cpu_settle, rss_settle = cpu_s(p.pid), rss_mb(p.pid)
        c0, w0 = cpu_s(p.pid), time.time()
        time.sleep(WINDOW)
        idle_pct = 100 * (cpu_s(p.pid) - c0) / (time.time() - w0)
        seen, complete = real_run(base, tmp, root, "real-run")
        print(json.dumps({"empty_dirs": N, "ready_s": round(ready, 2),
                          "early_run_seen_s": early_seen and round(early_seen, 2),
                          "early_run_complete_s": early_complete and round(early_complete, 2), "settled_s": round(settled, 2),
                          "cpu_s_until_idle": round(cpu_settle, 2), "rss_mb": round(rss_settle, 1),
                          "idle_cpu_pct": round(idle_pct, 2), "window_s": WINDOW,
                          "real_run_seen_s": seen and round(seen, 2), "real_run_complete_s": complete and round(complete, 2),
                          "final_rss_mb": round(rss_mb(p.pid), 1)}))
    finally:
        p.terminate()
        p.wait(60)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
