#!/usr/bin/env python3
"""Issue 15 (daemon, storage and configuration side): attacks that used to give a wrong,
stale or missing answer — two daemons on one database, SIGHUP, a corrupt database, a file
that never stops growing, directories recreated under the watcher, forged log lines, ...
Each test failed on the code before its fix. A real daemon on an ephemeral loopback port.

usage: hardening.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import json
import os
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

ONLY = sys.argv[3:]
Daemon, gen, wait_for, check = e2e.Daemon, e2e.gen, e2e.wait_for, e2e.check_metrics_body


def test_second_daemon_on_one_database_refused(tmp):
    d = Daemon(Path(tmp) / "a").start()
    gen(d.roots[0] / "mine-1", seed=1)
    d.wait_status("mine-1", "complete")
    other_root = Path(tmp) / "other-root"
    other_root.mkdir()
    p = subprocess.run([e2e.GOBLIND, "serve", "--db", str(d.db), "--root", str(other_root), "--listen", "127.0.0.1:0"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert f"in use by another goblind (pid {d.proc.pid}" in p.stderr, p.stderr
    assert d.json("/runs/mine-1")[2]["status"] == "complete"     # not overwritten as gone
    assert d.stop() == 0
    d.start()                                                    # the lock goes with its holder
    assert d.stop(signal.SIGKILL) is not None
    d.start()                                                    # also after kill -9
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("hardening", globals(), ONLY))
