#!/usr/bin/env python3
"""goblind's run outcomes as structured journald entries: goblind serve runs with
JOURNAL_STREAM set (as under systemd) in a private mount namespace whose /run holds a
datagram socket at /run/systemd/journal/socket standing in for journald; the entries
libsystemd sends there must carry MESSAGE, PRIORITY=6, GOBLIND_RUN, GOBLIND_STATUS,
GOBLIND_PARSE_MS and GOBLIND_REASON. Without journald's socket the same outcomes are
plain stderr lines (e2e_serve.py test_run_outcomes_logged).

usage: journald.py GOBLIND SHARED_DIR   (re-executes itself under `unshare -m` as root)
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])

if os.environ.get("GOBLIND_JOURNALD_NS") != "1":
    if os.geteuid() != 0 or not shutil.which("unshare"):
        sys.exit("journald: needs root and unshare(1) (util-linux) for a private /run")
    script = "mount -t tmpfs goblind-test /run && mkdir -p /run/systemd/journal && exec \"$@\""
    rc = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", sys.executable,
                         *sys.argv], env=dict(os.environ, GOBLIND_JOURNALD_NS="1")).returncode
    sys.exit(rc)

sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind("/run/systemd/journal/socket")
sock.settimeout(0.2)
tmp = Path(tempfile.mkdtemp(prefix="goblind-journald-"))
root = tmp / "runs"
root.mkdir()
gen = [sys.executable, str(SHARED / "tools" / "gen_run.py")]
subprocess.run([*gen, str(root / "ok-1"), "--steps", "3", "--kernels-per-step", "20", "--cpu-ops-per-step", "5",
                "--smi-samples", "10", "--seed", "1"], check=True, capture_output=True)
(root / "bad-1").mkdir()
(root / "bad-1" / "trace.csv").write_text("not,a,kernel,trace\n1,2,3,4\n")   # no file readable: failed
proc = subprocess.Popen([GOBLIND, "serve", "--db", str(tmp / "g.db"), "--root", str(root), "--listen", "127.0.0.1:0",
                         "--settle-ms", "100", "--quiet-s", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        env=dict(os.environ, JOURNAL_STREAM="8:1234"))
entries = []


def collect(until, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
        entries.append(fields)
        if until():
            return True
    return False


def has(run, status):
    return any(e.get("GOBLIND_RUN") == run and e.get("GOBLIND_STATUS") == status for e in entries)


failures = []
try:
    if not collect(lambda: has("ok-1", "complete") and has("bad-1", "failed")):
        failures.append(f"no complete/failed entries: {entries}")
    shutil.rmtree(root / "ok-1")
    if not collect(lambda: has("ok-1", "gone")):
        failures.append(f"no gone entry: {entries}")
finally:
    proc.terminate()
    _, err = proc.communicate(timeout=30)
for e in entries:
    if e.get("GOBLIND_RUN") == "ok-1" and e.get("GOBLIND_STATUS") == "complete":
        if not (e.get("PRIORITY") == "6" and e.get("SYSLOG_IDENTIFIER") == "goblind" and
                float(e.get("GOBLIND_PARSE_MS", "-1")) > 0 and e["MESSAGE"].startswith("run ok-1: complete (parse ")):
            failures.append(f"complete entry: {e}")
    if e.get("GOBLIND_RUN") == "bad-1" and e.get("GOBLIND_STATUS") == "failed":
        reason = ("no source could be read: trace.csv: unrecognised, not read: named like kernel-trace-csv files, "
                  "but its content is not (first line \"not,a,kernel,trace\")")
        if e.get("GOBLIND_REASON") != reason or f"failed: {reason}" not in e["MESSAGE"]:
            failures.append(f"failed entry: {e}")
if b"run ok-1: complete" in err:
    failures.append("the outcome went to stderr as well as to journald")
shutil.rmtree(tmp, ignore_errors=True)
for f in failures:
    print("FAIL", f)
print(f"journald: {len(entries)} entries, {len(failures)} failures")
sys.exit(1 if failures else 0)
