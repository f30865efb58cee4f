#!/usr/bin/env python3
"""How often one ingest walks its run directory, opens each file and inflates gzip, and on
which thread, counted by a shim (tests/walk_count.c, LD_PRELOAD) that logs opendir(), open()
and inflateInit2_() on the run directory:

- a daemon's ingest of one run (a gzip torch trace, a second rank's trace, a rocprofv3 copy
  trace one directory down): the inventory is built once, on a worker thread — the run
  directory and its sub-directory are listed once there, every file is opened twice there (its
  sniff, its read; RunMetrics' three files once more for their format check), each gzip file
  inflated twice (sniff, read); the event loop's thread opens
  no file of the run and inflates nothing (its change detection only lists and stats);
- a file no format reads added afterwards changes nothing, and the work that finds so (the
  inventory's sniff of it) is not done on the loop thread either;
- `goblind parse RUN --analysis FILE` (the ingest's read without the daemon): the same counts
  (and one more opendir() of the run directory: the command's readability check).

Prints the counts (docs/PERFORMANCE.md "Ingest pipeline" quotes them).

usage: ingest_walks.py GOBLIND SHARED_DIR WALK_COUNT_SHIM
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.argv, SHIM = sys.argv[:3], sys.argv[3]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

COPY_TRACE = ('"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id",'
              '"Start_Timestamp","End_Timestamp"\n'
              '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,1,1000,2000\n')


def make_run(run):
    e2e.gen(run, seed=7, extra=("--gzip",))
    shutil.copy(run / "torch_profile.json.gz", run / "rank1.pt.trace.json.gz")
    (run / "host0").mkdir()
    (run / "host0" / "77_memory_copy_trace.csv").write_text(COPY_TRACE)
    return sorted(str(p) for p in run.rglob("*") if p.is_file())


def counts(log, run):
    """{(event, thread, path): n} from the shim's log; paths relative to run."""
    c = collections.Counter()
    if not log.exists():
        return c
    for line in log.read_text().splitlines():
        parts = line.split(" ", 2)
        path = os.path.relpath(parts[2], run) if len(parts) == 3 else ""
        c[(parts[0], parts[1], path)] += 1
    return c


def show(label, c):
    for k in sorted(c):
        print(f"  {label}: {k[0]:8} {k[1]:5} {k[2] or '-'}: {c[k]}")


# RunMetrics' three files: their reading rides on the analysis read of the same bytes, but its
# format check opens the file once more (a stat and a pread of the first bytes, no inflation)
RUN_METRICS_FILES = {"trace.csv", "torch_profile.json.gz", "amd_smi.csv"}


def check_ingest_counts(c, files, sources, run, where, run_dir_opens=1):
    """sources: the files the analysis document lists (read); the others are only sniffed
    (goblind.json, sniffed then read as the sidecar, is opened twice too). run_dir_opens: the
    run directory's opendir() calls (`goblind parse` opens it once more to say it is unreadable)."""
    dirs = {"."} | {os.path.relpath(os.path.dirname(f), run) for f in files}
    for d in dirs:
        got = c[("opendir", "other", d)]
        want = run_dir_opens if d == "." else 1
        assert got == want, f"{where}: {d} listed {got} times off the loop thread, want {want}"
    for f in files:
        rel = os.path.relpath(f, run)
        want = 3 if rel in RUN_METRICS_FILES else 2 if rel in sources or rel == "goblind.json" else 1
        assert c[("open", "main", rel)] == 0, f"{where}: {rel} opened on the loop thread"
        got = c[("open", "other", rel)]
        assert got == want, f"{where}: {rel} opened {got} times, want {want}"
    gz = sum(f.endswith(".gz") for f in files)
    assert c[("inflate", "main", "")] == 0, f"{where}: gzip inflated on the loop thread"
    assert c[("inflate", "other", "")] == 2 * gz, f"{where}: {c[('inflate', 'other', '')]} inflations for {gz} gzip files"


def test_daemon_ingest(tmp):
    tmp = Path(tmp)
    log = tmp / "walks.log"
    d = e2e.Daemon(tmp, env={"LD_PRELOAD": SHIM, "GOBLIND_TEST_WALK_LOG": str(log)})
    run = d.roots[0] / "one"
    d.env["GOBLIND_TEST_WALK_DIR"] = str(run)
    files = make_run(run)
    d.start()
    d.wait_status("one", "complete")
    time.sleep(1.0)                 # the quiet check and a scan after it: counted too
    c = counts(log, run)
    show("daemon ingest", c)
    sources = {s["path"] for s in d.json("/runs/one")[2]["sources"]}
    check_ingest_counts(c, files, sources, run, "daemon ingest")
    count = d.json("/runs/one")[2]["ingest_count"]

    # a file no format reads: no ingest, and its sniff is a worker's
    log.unlink()
    (run / "notes.txt").write_text("not a trace\n")
    time.sleep(3)                   # longer than settle + a scan interval
    assert d.json("/runs/one")[2]["ingest_count"] == count
    assert d.json("/runs/one")[2]["status"] == "complete"
    c = counts(log, run)
    show("a log file added", c)
    assert not [k for k in c if k[1] == "main" and k[0] != "opendir"], c
    assert c[("open", "other", "notes.txt")] >= 1, c
    assert d.stop() == 0


def test_parse_with_analysis(tmp):
    tmp = Path(tmp)
    log = tmp / "walks.log"
    run = tmp / "run"
    files = make_run(run)
    env = dict(os.environ, LD_PRELOAD=SHIM, GOBLIND_TEST_WALK_LOG=str(log), GOBLIND_TEST_WALK_DIR=str(run))
    subprocess.run([e2e.GOBLIND, "parse", str(run), "--analysis", str(tmp / "a.json")], env=env, check=True,
                   capture_output=True)
    c = counts(log, run)
    show("parse --analysis", c)
    # (one process, one thread for the listing: "main")
    merged = collections.Counter()
    for (ev, _th, p), n in c.items():
        merged[(ev, "other", p)] += n
    sources = {s["path"] for s in json.loads((tmp / "a.json").read_text())["sources"]}
    check_ingest_counts(merged, files, sources, run, "parse --analysis", run_dir_opens=2)


if __name__ == "__main__":
    if e2e.SANITIZER:                 # a sanitizer's runtime must come first in LD_PRELOAD
        print("ingest_walks: skipped under a sanitizer (the counts are the release build's)")
        sys.exit(0)
    sys.exit(e2e.run_suite("ingest_walks", globals(), []))
