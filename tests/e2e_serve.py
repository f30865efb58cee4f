#!/usr/bin/env python3
"""End-to-end tests of `goblind serve`: a real daemon on an ephemeral loopback port, temporary
roots and database, runs written by ../shared/tools/gen_run.py (also --live), checked through
the HTTP API against `goblind parse` and the RunMetrics schema. This file holds the harness the
other end-to-end files import (Daemon, gen, wait_for, run_suite, ...) and the ingest tests (backfill,
live runs, renames, broken runs, start-up errors, long polls, API errors); e2e_restarts.py (the
database across restarts), e2e_runs.py and e2e_integrations.py hold the rest, by theme.

usage: e2e_serve.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])
ONLY = sys.argv[3:] if __name__ == "__main__" else []
GEN = SHARED / "tools" / "gen_run.py"
SCHEMA = json.loads((SHARED / "schema" / "run_metrics.schema.json").read_text())
QUIET_MS = "300"            # the daemons' quiet period (--quiet-ms): sub-second, so runs complete fast


def sanitizer_of(binary):
    """The build under test: "asan", "tsan" or "" (release), from the runtime linked in (or
    GOBLIND_TEST_SANITIZER when set)."""
    if "GOBLIND_TEST_SANITIZER" in os.environ:
        return os.environ["GOBLIND_TEST_SANITIZER"]
    data = Path(binary).read_bytes()
    return "asan" if b"__asan_init" in data else "tsan" if b"__tsan_init" in data else ""


SANITIZER = sanitizer_of(GOBLIND)
# Wall-clock and memory bounds are written for the release build on an idle machine; SLACK
# scales the time bounds for a loaded 2-core machine (3x) and a sanitizer build on one (10x),
# RSS_SCALE the memory bounds (ASan's shadow memory and quarantine, TSan's shadow).
SLACK = 10 if SANITIZER else 3
RSS_SCALE = 5 if SANITIZER else 1
# How much longer wait_for waits before it gives up (ThreadSanitizer parses 10-20x slower)
WAIT_SCALE = 5 if SANITIZER == "tsan" else 1
try:
    import jsonschema
except ImportError:
    sys.exit("e2e_serve: python3-jsonschema is required (scripts/install-deps.sh installs it for /usr/bin/python3)")


class Daemon:
    running = []                  # every daemon started, so a failed test's is killed by pid

    def __init__(self, tmp, roots=None, extra=(), env=None, listen="127.0.0.1:0", headers=None, ssl_ctx=None):
        self.tmp = Path(tmp)
        self.roots = roots or [self.tmp / "runs"]
        for r in self.roots:
            r.mkdir(parents=True, exist_ok=True)
        self.db = self.tmp / "goblind.db"
        self.extra = list(extra)
        self.env = env
        self.listen = listen
        self.headers = headers or {}
        self.ssl_ctx = ssl_ctx
        self.proc = None

    def start(self):
        # a 300 ms quiet period (runs complete sooner; a test that needs another passes --quiet-s)
        quiet = [] if {"--quiet-s", "--quiet-ms"} & set(self.extra) else ["--quiet-ms", QUIET_MS]
        args = [GOBLIND, "serve", "--db", str(self.db), "--listen", self.listen, "--settle-ms", "150",
                *quiet, "--scan-interval-s", "2", "--log-level", "debug", *self.extra]
        for r in self.roots:
            args += ["--root", str(r)]
        self.log = open(self.tmp / "daemon.log", "ab")
        env = dict(os.environ, **(self.env or {}))
        args[args.index("--db") + 1] = str(self.db)
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, env=env)
        Daemon.running.append(self.proc)
        line = self.proc.stdout.readline().decode()
        m = re.search(r"(https?)://[^:/]+:(\d+)/", line)
        assert m, f"no URL line from goblind serve: {line!r}"
        self.base = f"{m.group(1)}://127.0.0.1:{m.group(2)}"
        wait_for(lambda: self.get("/readyz")[0] == 200, 10, "readyz")
        return self

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            rc = self.proc.wait(20)
            self.log.close()
            return rc
        return None

    def logtext(self):
        return (self.tmp / "daemon.log").read_text(errors="replace")

    def get(self, path, headers=None, method="GET"):
        req = urllib.request.Request(self.base + path, headers={**self.headers, **(headers or {})}, method=method)
        try:
            with urllib.request.urlopen(req, timeout=90, context=self.ssl_ctx) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def json(self, path, headers=None):
        st, h, body = self.get(path, headers)
        return st, h, (json.loads(body) if body else None)

    def wait_status(self, run_id, want, timeout=30):
        def ok():
            st, _, d = self.json(f"/runs/{run_id}")
            return st == 200 and d["status"] == want
        wait_for(ok, timeout, f"run {run_id} to be {want}")


def wait_for(cond, timeout, what):
    end = time.time() + timeout * WAIT_SCALE
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def gen(out, seed=1, steps=4, kernels=60, extra=()):
    subprocess.run([sys.executable, str(GEN), str(out), "--steps", str(steps), "--kernels-per-step", str(kernels),
                    "--cpu-ops-per-step", "10", "--smi-samples", "40", "--seed", str(seed), *extra],
                   check=True, capture_output=True)


def parse(run_dir):
    out = subprocess.run([GOBLIND, "parse", str(run_dir), "--indent", "0"], check=True, capture_output=True)
    return json.loads(out.stdout)


def check_metrics_body(body, run_dir):
    doc = json.loads(body)
    assert set(doc) <= set(SCHEMA["properties"]) and set(SCHEMA["required"]) <= set(doc), set(doc)
    jsonschema.validate(doc, SCHEMA)
    want = parse(run_dir)
    assert doc == want, f"served metrics differ from goblind parse:\n{doc}\n{want}"
    return doc


# ---- tests -------------------------------------------------------------------------------

def test_backfill_metrics_and_listing(tmp):
    d = Daemon(tmp)
    gen(d.roots[0] / "r-a", seed=1)
    gen(d.roots[0] / "r-b", seed=2, extra=["--dialect", "rocprof", "--gzip"])
    gen(d.roots[0] / "r-nul", seed=3)              # a NUL inside kernel names: kept whole everywhere
    tr = d.roots[0] / "r-nul" / "trace.csv"
    tr.write_bytes(tr.read_bytes().replace(b"Cijk_A", b"Cijk_\x00A"))
    d.start()
    for rid in ("r-a", "r-b", "r-nul"):
        d.wait_status(rid, "complete")
        st, h, body = d.get(f"/runs/{rid}/metrics")
        assert st == 200, st
        check_metrics_body(body, d.roots[0] / rid)
        etag = h["ETag"]
        st, h2, body2 = d.get(f"/runs/{rid}/metrics", {"If-None-Match": etag})
        assert st == 304 and body2 == b"" and h2["ETag"] == etag, st
    st, _, lst = d.json("/runs")
    assert st == 200 and [r["id"] for r in lst["runs"]] == sorted([r["id"] for r in lst["runs"]],
        key=lambda i: [x["updated_at"] for x in lst["runs"] if x["id"] == i][0], reverse=True)
    assert {r["id"] for r in lst["runs"]} == {"r-a", "r-b", "r-nul"} and lst["next_cursor"] is None
    assert all(r["tokens_per_sec"] > 0 and r["status"] == "complete" for r in lst["runs"])
    st, _, p1 = d.json("/runs?limit=2")
    assert len(p1["runs"]) == 2 and p1["next_cursor"]
    st, _, p2 = d.json(f"/runs?limit=2&cursor={p1['next_cursor']}")
    assert len(p2["runs"]) == 1 and p2["runs"][0]["id"] not in [r["id"] for r in p1["runs"]] and p2["next_cursor"] is None
    st, _, f = d.json("/runs?status=failed")
    assert st == 200 and f["runs"] == []
    st, _, det = d.json("/runs/r-a")
    assert det["status"] == "complete" and det["ingest_count"] == 1 and det["completed_at"]
    assert {a["kind"] for a in det["artefacts"]} == {"kernel_trace", "torch_profile", "telemetry"}
    assert all(a["present"] and a["error"] is None for a in det["artefacts"]) and det["warnings"] == []
    # how each artefact was read (docs/API.md): the same facts as `goblind parse --explain`
    arts = {a["kind"]: a for a in det["artefacts"]}
    for a in arts.values():
        assert a["rows_used"] > 0 and isinstance(a["rows_skipped"], dict) and isinstance(a["columns"], dict), a
    assert arts["kernel_trace"]["rows_skipped"] == {}
    # which file each format's names found, and how well its content fitted
    assert arts["kernel_trace"]["found_by"] == "trace.csv" and arts["kernel_trace"]["format"] == "kernel-trace-csv"
    assert arts["torch_profile"]["found_by"] == "torch_profile.json" and arts["telemetry"]["found_by"] == "amd_smi.csv"
    assert all(0 < a["sniff_score"] <= 100 for a in arts.values()), arts
    assert arts["kernel_trace"]["columns"]["name"] and arts["kernel_trace"]["steps_source"] is None
    assert arts["telemetry"]["columns"]["vram"] and arts["telemetry"]["columns"]["vram_unit"]
    assert arts["torch_profile"]["steps_source"] in ("metadata", "profiler_steps"), arts["torch_profile"]
    assert arts["torch_profile"]["step_time_source"] in ("metadata", "profiler_steps"), arts["torch_profile"]
    assert det["step_time_seconds"] > 0
    st, _, k = d.json("/runs/r-a/kernels?limit=3&sort=calls")
    assert st == 200 and len(k["kernels"]) == 3
    calls = [x["calls"] for x in k["kernels"]]
    assert calls == sorted(calls, reverse=True)
    st, _, k = d.json("/runs/r-a/kernels")
    assert abs(sum(x["pct_time"] for x in k["kernels"]) - 100) < 1e-6
    assert any(x["gemm"] for x in k["kernels"]) and any(x["collective"] for x in k["kernels"])
    st, _, k = d.json("/runs/r-nul/kernels")          # (read back as a C string, "Cijk_" was cut short)
    assert st == 200 and any(x["name"].startswith("Cijk_\x00A") for x in k["kernels"]), [x["name"] for x in k["kernels"]]
    # and the CLI reads those bodies (jansson refuses \u0000 unless told): a table, not "not JSON"
    url = d.base.split("//", 1)[1]
    for cmd in (["kernels", "r-nul"], ["show", "r-nul"]):
        p = subprocess.run([GOBLIND, *cmd, "--url", url], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and "Cijk_" in p.stdout and "\x00" not in p.stdout, (cmd, p.returncode, p.stdout[-300:],
                                                                                        p.stderr[-300:])
    assert d.stop() == 0


def test_live_run_never_200_before_complete(tmp):
    # a 3 s quiet period: the writer's pauses between writes stretch on a loaded machine, and a
    # pause longer than the quiet period rightly makes the run complete before it is written
    d = Daemon(tmp, extra=["--quiet-s", "3"]).start()
    run = d.roots[0] / "live-1"
    writer = subprocess.Popen([sys.executable, str(GEN), str(run), "--steps", "20", "--kernels-per-step", "150",
                               "--cpu-ops-per-step", "20", "--smi-samples", "150", "--live", "3", "--seed", "4"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = set()
    while writer.poll() is None:
        st, _, _ = d.get("/runs/live-1/metrics")
        seen.add(st)
        assert st != 200, "200 from /metrics while the run was still being written"
        time.sleep(0.05)
    assert 202 in seen, seen
    st, _, body = d.get("/runs/live-1/metrics?wait=30")
    assert st == 200, st
    check_metrics_body(body, run)
    assert d.stop() == 0


def test_renamed_in_deleted_and_rewritten(tmp):
    d = Daemon(tmp).start()
    outside = Path(tmp) / "staging" / "moved-1"
    gen(outside, seed=5)
    os.rename(outside, d.roots[0] / "moved-1")
    d.wait_status("moved-1", "complete")
    st, h, body = d.get("/runs/moved-1/metrics")
    first = check_metrics_body(body, d.roots[0] / "moved-1")
    etag1 = h["ETag"]
    # rewritten in place: the run is re-parsed and its ETag changes
    other = Path(tmp) / "staging" / "other"
    gen(other, seed=6, steps=6)
    shutil.copy(other / "trace.csv", d.roots[0] / "moved-1" / "trace.csv.tmp")
    os.replace(d.roots[0] / "moved-1" / "trace.csv.tmp", d.roots[0] / "moved-1" / "trace.csv")
    def reparsed():
        st, h, body = d.get("/runs/moved-1/metrics")
        return st == 200 and h["ETag"] != etag1
    wait_for(reparsed, 30, "re-parse after rewrite")
    st, h, body = d.get("/runs/moved-1/metrics")
    second = check_metrics_body(body, d.roots[0] / "moved-1")
    assert second != first
    # deleted: metrics kept, marked gone
    shutil.rmtree(d.roots[0] / "moved-1")
    d.wait_status("moved-1", "gone")
    st, _, body = d.get("/runs/moved-1/metrics")
    assert st == 200 and json.loads(body) == second
    # a gone run leaves the daemon's memory; if its directory comes back, so does the run
    time.sleep(0.5)
    gen(d.roots[0] / "moved-1", seed=9)
    d.wait_status("moved-1", "complete")
    check_metrics_body(d.get("/runs/moved-1/metrics")[2], d.roots[0] / "moved-1")
    assert d.stop() == 0


def test_broken_run_fails_with_reasons(tmp):
    d = Daemon(tmp)
    run = d.roots[0] / "broken-1"
    gen(run, seed=2)
    data = (run / "torch_profile.json").read_bytes()
    (run / "torch_profile.json").write_bytes(data[:1])        # no file of it can be read: failed
    moved = {n: (run / n).read_bytes() for n in ("trace.csv", "amd_smi.csv")}
    for n in moved:
        (run / n).unlink()
    d.start()
    d.wait_status("broken-1", "failed")
    st, h, body = d.get("/runs/broken-1/metrics")
    assert st == 422, st                           # failed is final: the agent gets the warnings, not a 200
    assert h["Goblind-Run-Status"] == "failed", h
    doc = check_metrics_body(body, run)
    assert any("unreadable JSON at byte" in w for w in doc["warnings"]), doc["warnings"]
    det = d.json("/runs/broken-1")[2]
    torch = [a for a in det["artefacts"] if a["kind"] == "torch_profile"][0]
    assert "unreadable JSON at byte" in torch["error"] and det["error"], det
    # repaired in place: re-parsed and complete
    for n, b in moved.items():
        (run / n).write_bytes(b)
    (run / "torch_profile.json").write_bytes(data)
    d.wait_status("broken-1", "complete")
    assert d.stop() == 0


def test_startup_errors(tmp):
    tmp = Path(tmp)
    def serve(*args):
        p = subprocess.run([GOBLIND, "serve", "--db", str(tmp / "e.db"), "--root", str(tmp), *args],
                           capture_output=True, text=True, timeout=30)
        return p.returncode, p.stderr
    conf = tmp / "bad.conf"
    conf.write_text("[goblind]\n# fine\nsettle_ms = 100\nbogus = 1\n")
    rc, err = serve("--config", str(conf))
    assert rc == 2 and "bad.conf:4: unknown setting 'bogus'" in err, (rc, err)
    conf.write_text("quiet_s = soon\n")
    rc, err = serve("--config", str(conf))
    assert rc == 2 and "bad.conf:1: quiet_s: expected an integer" in err, (rc, err)
    rc, err = serve("--config", str(tmp / "missing.conf"))
    assert rc == 2 and "missing.conf" in err
    rc, err = serve("--listen", "nonsense")
    assert rc == 2 and "HOST:PORT" in err
    rc, err = serve("--frobnicate", "1")
    assert rc == 2 and "unknown argument" in err
    d = Daemon(tmp / "a").start()                  # the port is taken
    port = d.base.rsplit(":", 1)[1]
    rc, err = serve("--listen", f"127.0.0.1:{port}")
    assert rc == 1 and "cannot listen" in err, (rc, err)
    assert d.stop() == 0
    rc, err = serve("--db", str(tmp / "no" / "such" / "dir" / "x.db"), "--listen", "127.0.0.1:0")
    assert rc == 1 and "database" in err, (rc, err)
    con = sqlite3.connect(tmp / "future.db")
    con.execute("PRAGMA user_version = 99")
    con.close()
    rc, err = serve("--db", str(tmp / "future.db"), "--listen", "127.0.0.1:0")
    assert rc == 1 and "newer than this goblind" in err, (rc, err)


def test_root_appearing_later(tmp):
    late = Path(tmp) / "late-root"
    d = Daemon(tmp, roots=[late])
    shutil.rmtree(late)                            # the root does not exist at start
    d.start()
    late.mkdir()
    gen(late / "lr-1", seed=1)
    d.wait_status("lr-1", "complete", timeout=30)  # found by the rescan (scan_interval_s = 2)
    log = d.logtext()
    assert log.count("cannot read root") == 1 and "is readable now" in log, log
    gen(late / "lr-2", seed=2)                     # and watched from then on
    d.wait_status("lr-2", "complete", timeout=10)
    assert d.stop() == 0


def test_long_poll(tmp):
    d = Daemon(tmp, extra=["--quiet-s", "2"]).start()
    run = d.roots[0] / "poll-1"
    result = {}
    def poll():
        t0 = time.time()
        result["st"], _, result["body"] = d.get("/runs/poll-1/metrics?wait=20")
        result["dt"] = time.time() - t0
    gen(Path(tmp) / "src", seed=9)
    run.mkdir()
    wait_for(lambda: d.get("/runs/poll-1")[0] == 200, 10, "run discovered")
    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.3)
    for f in ("amd_smi.csv", "trace.csv", "torch_profile.json"):
        shutil.copy(Path(tmp) / "src" / f, run / f)
    t.join(30)
    assert result["st"] == 200 and result["dt"] < 15, result.get("st")
    check_metrics_body(result["body"], run)
    _, h, _ = d.get("/runs/poll-1/metrics")
    t0 = time.time()
    st, _, _ = d.get("/runs/poll-1/metrics?wait=1", {"If-None-Match": h["ETag"]})
    assert st == 304 and 0.8 < time.time() - t0 < 5, (st, time.time() - t0)
    assert d.stop() == 0


def test_api_errors(tmp):
    d = Daemon(tmp)
    gen(d.roots[0] / "e-1", seed=1)
    d.start()
    d.wait_status("e-1", "complete")
    cases = [
        ("/runs/nope/metrics", 404), ("/runs/nope", 404), ("/runs/nope/kernels", 404), ("/nowhere", 404),
        ("/runs/e-1/other", 404), ("/runs/..", 400), ("/runs/%2e%2e/metrics", 400), ("/runs/a%20b", 400),
        ("/runs/" + "x" * 200, 400), ("/runs/%00", 400), ("/runs?limit=0", 400), ("/runs?limit=1001", 400),
        ("/runs?limit=abc", 400), ("/runs?status=weird", 400), ("/runs?cursor=zzz", 400),
        ("/runs/e-1/metrics?wait=61", 400), ("/runs/e-1/metrics?wait=-1", 400), ("/runs/e-1/kernels?sort=x", 400),
        ("/runs/e-1/kernels?limit=0", 400),
    ]
    for path, want in cases:
        st, h, body = d.get(path)
        assert st == want, (path, st)
        doc = json.loads(body)
        assert set(doc) == {"error", "detail"} and doc["detail"], (path, doc)
        assert h["Content-Type"] == "application/json"
    for method in ("POST", "DELETE", "PUT"):
        st, h, body = d.get("/runs", method=method)
        assert st == 405 and "GET" in h["Allow"] and json.loads(body)["error"] == "method_not_allowed", method
    st, h, _ = d.get("/runs/r-1", method="PUT")                 # /runs/<id> alone also takes DELETE
    assert st == 405 and h["Allow"] == "GET, HEAD, DELETE", (st, h.get("Allow"))
    st, h, _ = d.get("/runs/r-1/metrics", method="PUT")
    assert st == 405 and h["Allow"] == "GET, HEAD", (st, h.get("Allow"))
    assert d.get("/runs", method="HEAD")[0] == 200
    assert d.stop() == 0


def raw(d, data, timeout=5):
    """Sends bytes to d's port as they are; everything the daemon answered until EOF or timeout."""
    import socket
    s = socket.create_connection(("127.0.0.1", int(d.base.rsplit(":", 1)[1])), timeout=timeout)
    s.sendall(data)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    s.close()
    return out


def status_of(reply):
    """The status code of a raw HTTP reply, 0 when there is none."""
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class SSE:
    """A GET /events client on a raw socket: parses id/event/data messages as they arrive."""

    def __init__(self, base, last_id=None):
        import socket
        host, port = base.split("//")[1].rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        extra = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
        self.sock.sendall(f"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head, head
        self.messages = []

    def _until(self, sep):
        while sep not in self.buf:
            data = self.sock.recv(65536)
            assert data, "stream closed"
            self.buf += data
        out, self.buf = self.buf.split(sep, 1)
        return out

    def _chunk_text(self):
        size = int(self._until(b"\r\n"), 16)
        while len(self.buf) < size + 2:
            self.buf += self.sock.recv(65536)
        text, self.buf = self.buf[:size], self.buf[size + 2:]
        return text

    def wait(self, pred, timeout=30):
        self.sock.settimeout(timeout)
        pending = b""
        while True:
            for m in self.messages:
                if pred(m):
                    return m
            pending += self._chunk_text()
            while b"\n\n" in pending:
                block, pending = pending.split(b"\n\n", 1)
                msg = {}
                for line in block.decode().split("\n"):
                    if line and not line.startswith(":") and ":" in line:
                        k, v = line.split(":", 1)
                        msg[k] = v.strip()
                if "data" in msg:
                    msg["json"] = json.loads(msg["data"])
                if msg:
                    self.messages.append(msg)

    def close(self):
        self.sock.close()


def run_suite(label, namespace, only, cleanup=lambda tmp: None):
    """Runs every test_* function of namespace (or those named in only), each in a fresh
    temporary directory; prints one line per test and '<label>: N passed, M failed'."""
    tests = [(n, f) for n, f in namespace.items() if n.startswith("test_") and (not only or n in only)]
    passed = failed = 0
    for name, fn in tests:
        tmp = tempfile.mkdtemp(prefix=f"goblind-{label}-")
        t0 = time.time()
        try:
            fn(tmp)
            passed += 1
            print(f"ok   {name} ({time.time() - t0:.1f}s)", flush=True)
        except Exception:
            failed += 1
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
            log = Path(tmp) / "daemon.log"
            if log.exists():
                print("---- daemon log (tail) ----")
                print("\n".join(log.read_text(errors="replace").splitlines()[-40:]))
        finally:
            for p in Daemon.running:          # a test that failed before stop(): its daemons, by pid
                if p.poll() is None:
                    p.kill()
                    p.wait()
            Daemon.running.clear()
            cleanup(tmp)
            subprocess.run(["chmod", "-R", "u+rwx", tmp], capture_output=True)
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{label}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_suite("e2e_serve", globals(), ONLY))
