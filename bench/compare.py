#!/usr/bin/env python3
"""bench/compare.py: GET /compare on two 208 MB benchmark runs, answered from stored data.

    bench/compare.py [BUILD_DIR] [SHARED_DIR] [--rounds N]

Writes two runs with ../shared/tools/gen_run.py (400 steps x 400 kernels, 100 CPU ops per step:
the 208 MB run of bench/parse.sh; seeds 1 and 2), lets a daemon ingest them, then times N
/compare requests (wall clock of the whole HTTP exchange on 127.0.0.1) and prints the median,
p95 and max, with each run's stored analysis document size (what /compare reads). The runs are
kept in /tmp/goblind-bench-compare for reruns.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def get(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, r.read()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(here, "..", "build"))
    ap.add_argument("shared", nargs="?", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("--rounds", type=int, default=50)
    a = ap.parse_args()
    root = "/tmp/goblind-bench-compare"
    os.makedirs(f"{root}/runs", exist_ok=True)
    for rid, seed in (("big-a", 1), ("big-b", 2)):
        if not os.path.exists(f"{root}/runs/{rid}/torch_profile.json"):
            subprocess.run([sys.executable, f"{a.shared}/tools/gen_run.py", f"{root}/runs/{rid}", "--steps", "400",
                            "--kernels-per-step", "400", "--cpu-ops-per-step", "100", "--seed", str(seed)],
                           check=True, stderr=subprocess.DEVNULL)
    db = tempfile.mkdtemp(prefix="goblind-bench-db-")
    port = 9000 + os.getpid() % 1000
    d = subprocess.Popen([f"{a.build}/goblind", "serve", "--root", f"{root}/runs", "--db", f"{db}/g.db",
                          "--listen", f"127.0.0.1:{port}", "--quiet-s", "1", "--settle-ms", "200"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 600
        while time.time() < deadline:
            try:
                runs = json.loads(get(base + "/runs")[1])["runs"]
                if len(runs) == 2 and all(r["status"] == "complete" for r in runs):
                    break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            print("runs did not complete in 10 minutes")
            return 1
        sizes = {rid: len(get(f"{base}/runs/{rid}/analysis")[1]) for rid in ("big-a", "big-b")}
        times = []
        for _ in range(a.rounds):
            t0 = time.perf_counter()
            st, body = get(base + "/compare?base=big-a&candidate=big-b")
            times.append((time.perf_counter() - t0) * 1000)
            assert st == 200
        times.sort()
        summary = json.loads(body)["summary"]
        print(f"/compare of two 208 MB runs, {a.rounds} requests: median {statistics.median(times):.1f} ms, "
              f"p95 {times[int(0.95 * (len(times) - 1))]:.1f} ms, max {times[-1]:.1f} ms")
        print(f"stored analysis documents: big-a {sizes['big-a']} bytes, big-b {sizes['big-b']} bytes")
        print(f"summary: {summary}")
    finally:
        d.terminate()
        d.wait()
        subprocess.run(["rm", "-rf", db])
    return 0


if __name__ == "__main__":
    sys.exit(main())
