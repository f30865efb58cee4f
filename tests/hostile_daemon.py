#!/usr/bin/env python3
"""Attacks on the daemon's own machinery: a DELETE while the run's parse is in flight, a dead
webhook receiver listed before a healthy one, thousands of /events streams, credentials in
webhook URLs, TLS key files like the token file, an SSE client that asks for an id from the
future. Each test failed on the code before its fix. A real daemon on an ephemeral loopback
port; receivers and clients on loopback too.

usage: hostile_daemon.py GOBLIND SHARED_DIR [TEST_NAME...]
GOBLIND_FAULT_SHIM (tests/fault_fs.c) slows reads for the in-flight DELETE test.
"""
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

ONLY = sys.argv[3:]
Daemon, gen, wait_for = e2e.Daemon, e2e.gen, e2e.wait_for


def slow_reads(spec):
    """The environment that makes reads of one file slow (tests/fault_fs.c), or None."""
    shim = os.environ.get("GOBLIND_FAULT_SHIM")
    if not shim:
        return None
    return {"LD_PRELOAD": shim, "GOBLIND_TEST_SLOW_READ": spec,
            "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"}


def stored_ids(db):
    con = sqlite3.connect(db)
    try:
        return {r[0] for r in con.execute("SELECT id FROM runs")}
    finally:
        con.close()


def test_delete_during_ingest_sticks(tmp):
    """DELETE /runs/<id> while its parse is in flight (each read of trace.csv takes 0.8 s): the
    parse ends after the DELETE and must not store the run again, nor later, nor after a restart;
    a change to its files afterwards brings it back."""
    env = slow_reads("trace.csv@800")
    if not env:
        print("     (skipped: GOBLIND_FAULT_SHIM not set)")
        return
    d = Daemon(tmp, env=env).start()
    run = d.roots[0] / "doomed"
    gen(run, seed=4)

    def running():
        st, _, body = d.json("/runs/doomed")
        return st == 200 and body["status"] == "running"
    wait_for(running, 30, "the parse to start")
    st, _, raw = d.get("/runs/doomed", method="DELETE")
    assert st == 200, (st, raw)
    t_delete = time.time()
    wait_for(lambda: "deleted while it was being parsed" in d.logtext(), 30, "the parse to end")
    assert time.time() - t_delete > 0.3, "the parse was not in flight at the DELETE"
    time.sleep(2.5)                                             # quiet_s 1: any late status write is done
    assert d.get("/runs/doomed")[0] == 404
    assert "doomed" not in stored_ids(d.db)
    assert not any(r["id"] == "doomed" for r in d.json("/runs")[2]["runs"])
    assert d.stop() == 0
    d.start()                                                   # the dropped parse's files stay forgotten
    time.sleep(2.5)
    assert d.get("/runs/doomed")[0] == 404, d.logtext()[-2000:]
    with open(run / "amd_smi.csv", "a") as f:                   # a change after the delete: back again
        f.write(open(run / "amd_smi.csv").read().splitlines()[-1] + "\n")
    d.wait_status("doomed", "complete", timeout=60)
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("hostile_daemon", globals(), ONLY))
