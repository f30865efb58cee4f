#!/usr/bin/env python3
"""Sections over real corpus files (../shared/corpus), each compared with an independent
computation in plain Python (csv / sqlite3 / json modules), never goblind's own code:

- kernels: legacy rocprof `results.stats.csv` with `<barrier packet>` rows: the barrier rows are
  counted apart (`barrier_packets`), the kernel totals are the other rows';

A file missing from the corpus skips its check (exit 77 when every one is missing).

usage: corpus_sections.py SECTION_TOOL SHARED_DIR"""
import csv
import json
import subprocess
import sys
from pathlib import Path

TOOL, SHARED = sys.argv[1], Path(sys.argv[2])
CORPUS = SHARED / "corpus"
failures = []
ran = 0


def check(ok, what, detail=""):
    if not ok:
        failures.append(f"{what} {detail}")


def same(got, want, what):
    check(got == want, what, f"got {got!r}, want {want!r}")


def doc(*inputs):
    """The analysis document section_tool writes for FORMAT=FILE inputs."""
    p = subprocess.run([TOOL, *[f"{f}={path}" for f, path in inputs]], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"section_tool {inputs}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def present(path):
    global ran
    if not path.exists():
        print(f"skip {path}: not in the corpus")
        return False
    ran += 1
    return True


def barrier_stats():
    path = CORPUS / "found2" / "rocprof_stats_csv" / "saltfish_results.stats.csv"
    if not present(path):
        return
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    barrier = [r for r in rows if r["Name"].startswith("<barrier packet")]
    kernels = [r for r in rows if not r["Name"].startswith("<barrier packet")]
    k = doc(("rocprof-kernel-stats-csv", path))["kernels"]
    same(k["barrier_packets"], {"calls": sum(int(r["Calls"]) for r in barrier),
                                "total_ns": sum(int(r["TotalDurationNs"]) for r in barrier)}, f"{path.name}: barrier_packets")
    same(k["total_calls"], sum(int(r["Calls"]) for r in kernels), f"{path.name}: kernel calls")
    same(k["total_ns"], sum(int(r["TotalDurationNs"]) for r in kernels), f"{path.name}: kernel ns")
    check(all(e["class"] != "barrier" for e in k["by_name"]), f"{path.name}: no barrier row among the kernels")
    print(f"ok {path.name}: {len(barrier)} barrier row(s), {len(kernels)} kernel names")


def main():
    barrier_stats()
    if failures:
        print("\n".join(failures))
        return 1
    return 0 if ran else 77


if __name__ == "__main__":
    sys.exit(main())
