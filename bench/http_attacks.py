#!/usr/bin/env python3
"""The hostile-HTTP attacks at the size they were reported, against the default limits
(max_connections 1024, connection_timeout_s 30): the figures of docs/RELIABILITY.md,
"HTTP attacks, round two". tests/hostile_http.py runs the same attacks small and fast.

  1. slowloris: 1,030 sockets sending one header byte every 5 s
  2. 1,100 long polls
  3. /kernels?limit=100000 of a run with 260,000 kernel names (~36 MB) by 40 clients that never read
  4. SIGTERM with 1,000 long polls waiting

For each: resident memory, /healthz p99 (fresh connections) during the attack, and what
happened to the attackers. About 2 minutes.

usage: bench/http_attacks.py [GOBLIND] [SHARED]
"""
import socket
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.argv = [sys.argv[0], sys.argv[1] if len(sys.argv) > 1 else "build/goblind",
            sys.argv[2] if len(sys.argv) > 2 else "../shared"]
sys.path.insert(0, str(HERE.parent / "tests"))
import hostile_http as h  # noqa: E402  (the helpers; its tests do not run on import)
import e2e_serve as e2e  # noqa: E402
import tempfile  # noqa: E402


STARTED = []                       # daemons started here, stopped by pid at the end of each attack


def daemon(tmp, **kw):
    d = e2e.Daemon(tmp, **kw)
    STARTED.append(d)
    return d


def report(name, d, times, extra=""):
    rss, hwm = h.rss_mb(d.proc.pid)
    print(f"{name}: RSS {rss:.0f} MB (peak {hwm:.0f} MB), /healthz p99 {h.p99(times):.1f} ms, "
          f"max {times[-1]:.1f} ms{extra}", flush=True)


def slowloris(tmp):
    d = daemon(tmp).start()
    socks = []
    for _ in range(1030):
        try:
            s = socket.create_connection(("127.0.0.1", h.port_of(d)), timeout=2)
            s.sendall(b"G")
            socks.append(s)
        except OSError:
            break
    t0 = time.time()
    times = []
    alive = len(socks)
    while time.time() - t0 < 45 and alive:
        times += h.healthz_times(d, 5, 2)
        time.sleep(5)
        alive = 0
        for s in socks:
            try:
                s.sendall(b"E")
                alive += 1
            except OSError:
                pass
    times.sort()
    report("slowloris (1,030 sockets, a byte every 5 s)", d, times,
           f"; {alive} of {len(socks)} still connected after {time.time() - t0:.0f} s")
    for s in socks:
        s.close()
    d.stop()


def long_polls(tmp):
    d = daemon(tmp, extra=["--settle-ms", "600000"]).start()
    e2e.gen(d.roots[0] / "held", seed=1)
    d.wait_status("held", "pending")
    socks = h.open_long_polls(d, "/runs/held/metrics?wait=60", 1100)
    early = h.read_replies_some(socks, 3)
    times = h.healthz_times(d, 100, 2)
    report("1,100 long polls", d, times, f"; {sum(1 for c in early if c == 0)} held, "
           f"{sum(1 for c in early if c == 202)} answered 202 at once")
    for s in socks:
        s.close()
    d.stop()


def big_bodies(tmp):
    d = daemon(tmp)
    h.many_kernels_run(d.roots[0] / "wide", 260000)
    d.start()
    d.wait_status("wide", "complete", timeout=300)
    with open(f"/proc/{d.proc.pid}/clear_refs", "w") as f:
        f.write("5")                                           # peak RSS from here on, not the parse's
    base, _ = h.rss_mb(d.proc.pid)
    t0 = time.time()
    st, _, body = d.get("/runs/wide/kernels?limit=100000")
    one = time.time() - t0
    rss1, hwm1 = h.rss_mb(d.proc.pid)
    print(f"one /kernels?limit=100000 ({len(body) / 1e6:.1f} MB) in {one:.2f} s: RSS {base:.0f} -> {rss1:.0f} MB, "
          f"peak {hwm1:.0f} MB", flush=True)
    hogs = []
    for _ in range(40):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", h.port_of(d)))
        s.sendall(b"GET /runs/wide/kernels?limit=100000 HTTP/1.1\r\nHost: x\r\n\r\n")
        hogs.append(s)
    time.sleep(3)
    times = h.healthz_times(d, 100, 2)
    report(f"40 clients of that {len(body) / 1e6:.1f} MB body that never read", d, times)
    for s in hogs:
        s.close()
    d.stop()


def shutdown_with_waiters(tmp):
    d = daemon(tmp, extra=["--settle-ms", "600000"]).start()
    e2e.gen(d.roots[0] / "held", seed=1)
    d.wait_status("held", "pending")
    socks = h.open_long_polls(d, "/runs/held/metrics?wait=60", 1000)
    time.sleep(1)
    t0 = time.time()
    d.proc.send_signal(15)
    codes = h.read_replies(socks, 30)
    rc = d.proc.wait(30)
    print(f"SIGTERM with 1,000 long polls: {sum(1 for c in codes if c == 202)} answered, exit {rc} after "
          f"{time.time() - t0:.2f} s", flush=True)


if __name__ == "__main__":
    h.raise_nofile(16384)
    for fn in (slowloris, long_polls, big_bodies, shutdown_with_waiters):
        tmp = tempfile.mkdtemp(prefix="goblind-attacks-")
        try:
            fn(tmp)
        finally:
            import shutil
            for d in STARTED:
                if d.proc and d.proc.poll() is None:
                    d.proc.kill()
                    d.proc.wait()
            STARTED.clear()
            shutil.rmtree(tmp, ignore_errors=True)
