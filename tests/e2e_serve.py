#!/usr/bin/env python3
"""End-to-end tests of `goblind serve`: a real daemon on an ephemeral loopback port, temporary
roots and database, runs written by ../shared/tools/gen_run.py (also --live), checked through
the HTTP API against `goblind parse` and the RunMetrics schema.

usage: e2e_serve.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import http.client
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
        args = [GOBLIND, "serve", "--db", str(self.db), "--listen", self.listen, "--settle-ms", "150",
                "--quiet-s", "1", "--scan-interval-s", "2", "--log-level", "debug", *self.extra]
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
    end = time.time() + timeout
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
    d.start()
    for rid in ("r-a", "r-b"):
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
    assert {r["id"] for r in lst["runs"]} == {"r-a", "r-b"} and lst["next_cursor"] is None
    assert all(r["tokens_per_sec"] > 0 and r["status"] == "complete" for r in lst["runs"])
    st, _, p1 = d.json("/runs?limit=1")
    assert len(p1["runs"]) == 1 and p1["next_cursor"]
    st, _, p2 = d.json(f"/runs?limit=1&cursor={p1['next_cursor']}")
    assert len(p2["runs"]) == 1 and p2["runs"][0]["id"] != p1["runs"][0]["id"] and p2["next_cursor"] is None
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
    # which file each format's names found, and how well its content fitted (issue 10)
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
    assert d.stop() == 0


def test_live_run_never_200_before_complete(tmp):
    d = Daemon(tmp).start()
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


def test_restart_keeps_everything_without_reparsing(tmp):
    d = Daemon(tmp)
    gen(d.roots[0] / "keep-1", seed=7)
    gen(d.roots[0] / "keep-2", seed=8)
    d.start()
    d.wait_status("keep-1", "complete")
    d.wait_status("keep-2", "complete")
    before = {r: d.json(f"/runs/{r}")[2] for r in ("keep-1", "keep-2")}
    assert d.stop() == 0
    shutil.rmtree(d.roots[0] / "keep-2")          # deleted while the daemon was down
    d.start()
    after = d.json("/runs/keep-1")[2]
    assert after["ingest_count"] == before["keep-1"]["ingest_count"] == 1, after
    assert after["status"] == "complete" and after["updated_at"] == before["keep-1"]["updated_at"]
    d.wait_status("keep-2", "gone")
    assert d.get("/runs/keep-1/metrics")[0] == 200
    assert "re-pars" not in d.logtext().split("start-up scan done")[-1]
    assert d.stop() == 0


def test_upgrade_to_v5_reparses_every_run(tmp):
    """Schema 5 came with new heuristics: runs stored by an older goblind are parsed again."""
    d = Daemon(tmp)
    gen(d.roots[0] / "old-rules", seed=4)
    d.start()
    d.wait_status("old-rules", "complete")
    assert d.stop() == 0
    con = sqlite3.connect(d.db)                     # as a version-4 goblind left it
    later = ("hbm_avg_gb waste_useful_gpu waste_data_wait waste_host_gap waste_comm_excess waste_memory_headroom"
             " waste_precision_path waste_kernel_shape").split()                      # what versions 7 and 8 added
    con.executescript("ALTER TABLE artefacts DROP COLUMN reading; DROP TABLE run_analysis;"
                      + "".join(f"ALTER TABLE runs DROP COLUMN {c};" for c in later) + "PRAGMA user_version = 4;")
    con.close()
    d.start()
    wait_for(lambda: d.json("/runs/old-rules")[2]["ingest_count"] == 2, 30, "the run to be parsed again")
    d.wait_status("old-rules", "complete")
    arts = d.json("/runs/old-rules")[2]["artefacts"]
    assert all(a["rows_used"] > 0 and a["columns"] for a in arts), arts
    assert d.stop() == 0


def test_broken_run_fails_with_reasons(tmp):
    d = Daemon(tmp)
    run = d.roots[0] / "broken-1"
    gen(run, seed=2)
    data = (run / "torch_profile.json").read_bytes()
    (run / "torch_profile.json").write_bytes(data[: len(data) // 2])
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
    (run / "torch_profile.json").write_bytes(data)
    d.wait_status("broken-1", "complete")
    assert d.stop() == 0


def test_schema_migration_from_v1(tmp):
    d = Daemon(tmp)
    con = sqlite3.connect(d.db)                    # a database as the first release left it
    con.executescript("""
        CREATE TABLE runs (id TEXT PRIMARY KEY, root TEXT NOT NULL, path TEXT NOT NULL, status TEXT NOT NULL,
          created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, completed_at INTEGER,
          ingest_count INTEGER NOT NULL DEFAULT 0, parse_ms REAL, error TEXT, metrics_json TEXT,
          tokens_per_sec REAL, mfu_pct REAL, gpu_util_pct REAL, step_seconds REAL, hbm_peak_gb REAL) WITHOUT ROWID;
        CREATE INDEX runs_by_update ON runs(updated_at DESC, id DESC);
        CREATE TABLE artefacts (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, kind TEXT NOT NULL,
          path TEXT NOT NULL, present INTEGER NOT NULL, size INTEGER, mtime_ns INTEGER, inode INTEGER,
          bytes_parsed INTEGER, parse_ms REAL, format TEXT, PRIMARY KEY (run_id, kind)) WITHOUT ROWID;
        CREATE TABLE kernels (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL,
          calls INTEGER NOT NULL, total_ns INTEGER NOT NULL, min_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL,
          flags INTEGER NOT NULL, PRIMARY KEY (run_id, name));
        INSERT INTO runs(id, root, path, status, created_at, updated_at, metrics_json,
          tokens_per_sec, mfu_pct, gpu_util_pct, step_seconds, hbm_peak_gb)
          VALUES ('old-1', 'x', 'x/old-1', 'complete', 1, 1, '{"steps": 3}', 0, 0, 55.5, 0, 0);
        PRAGMA user_version = 1;
    """)
    con.close()
    d.start()
    assert d.json("/runs/old-1")[2]["status"] == "gone"   # kept, and its directory is not here
    st, _, body = d.get("/runs/old-1/metrics")
    assert st == 200 and json.loads(body) == {"steps": 3}  # its metrics moved to run_metrics
    old = d.json("/runs")[2]["runs"][0]                    # v6: a stored 0 meant unknown: null
    assert old["gpu_util_pct"] == 55.5 and old["tokens_per_sec"] is None and old["hbm_peak_gb"] is None, old
    assert d.stop() == 0
    con = sqlite3.connect(d.db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 8
    assert {"error", "reading"} <= {r[1] for r in con.execute("PRAGMA table_info(artefacts)")}
    assert {"hbm_avg_gb", "waste_host_gap"} <= {r[1] for r in con.execute("PRAGMA table_info(runs)")}   # v8
    assert con.execute("SELECT COUNT(*) FROM run_analysis").fetchone()[0] == 0                         # v7
    con.close()


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
    assert d.get("/runs", method="HEAD")[0] == 200
    assert d.stop() == 0


def test_names_duplicates_and_scan_mode(tmp):
    a, b = Path(tmp) / "rootA", Path(tmp) / "rootB"
    d = Daemon(tmp, roots=[a, b], extra=["--watch-mode", "scan", "--fallback-scan-ms", "200"])
    gen(a / "same-id", seed=1)
    gen(b / "same-id", seed=2)
    gen(a / "bad name!", seed=3)
    d.start()
    gen(b / "late-1", seed=4)                      # found by scanning, not by events
    d.wait_status("late-1", "complete")
    d.wait_status("same-id", "complete")
    ids = [r["id"] for r in d.json("/runs")[2]["runs"]]
    assert sorted(ids) == ["late-1", "same-id"], ids
    assert d.json("/runs/same-id")[2]["root"] == str(a)
    log = d.logtext()
    assert "bad name!" in log and "exists in both" in log and "watch_mode = scan" in log
    assert d.stop() == 0


def test_inotify_exhausted_falls_back_to_scanning(tmp):
    shim = os.environ.get("GOBLIND_INOTIFY_SHIM")
    if not shim:
        print("     (skipped: GOBLIND_INOTIFY_SHIM not set)")
        return
    env = {"LD_PRELOAD": shim, "GOBLIND_TEST_WATCH_LIMIT": "2",
           "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"}
    d = Daemon(tmp, env=env, extra=["--fallback-scan-ms", "200"])
    gen(d.roots[0] / "w-1", seed=1)
    d.start()                                      # root + w-1 use up the two watches
    for i in (2, 3):
        gen(d.roots[0] / f"w-{i}", seed=i)
    for i in (1, 2, 3):
        d.wait_status(f"w-{i}", "complete")
    assert "falling back to rescanning every 200 ms" in d.logtext()
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


def test_honest_absence(tmp):
    """Unknown is null or absent, never 0: /runs headline numbers of a run not parsed yet or
    missing its artefacts, a failed run's /metrics (422 + Goblind-Run-Status), its Prometheus
    series (state only, no zero throughput), and the run identified by `run` alone."""
    d = Daemon(tmp, extra=["--metrics-labels", "hostname=node-7, cluster=mi300x-a"])
    gen(d.roots[0] / "good-1", seed=1)
    smi = d.roots[0] / "smi-only"
    gen(smi, seed=2)
    (smi / "trace.csv").unlink()
    (smi / "torch_profile.json").unlink()
    idle = d.roots[0] / "idle-1"                    # an idle GPU: utilisation measured as 0
    gen(idle, seed=3)
    lines = (idle / "amd_smi.csv").read_text().splitlines()
    col = lines[1].split(",").index("gfx_util")
    (idle / "amd_smi.csv").write_text("\n".join(lines[:2] + [",".join(f if i != col else "0" for i, f in
                                                   enumerate(l.split(","))) for l in lines[2:]]) + "\n")
    d.start()
    d.wait_status("good-1", "complete")
    d.wait_status("idle-1", "complete")
    d.wait_status("smi-only", "failed")
    (d.roots[0] / "pending-1").mkdir()
    wait_for(lambda: d.get("/runs/pending-1")[0] == 200, 10, "pending run")
    runs = {r["id"]: r for r in d.json("/runs")[2]["runs"]}
    heads = ("tokens_per_sec", "mfu_pct", "gpu_util_pct", "step_time_seconds", "hbm_peak_gb")
    assert all(runs["pending-1"][k] is None for k in heads), runs["pending-1"]
    assert runs["smi-only"]["tokens_per_sec"] is None and runs["smi-only"]["step_time_seconds"] is None, runs
    assert runs["smi-only"]["hbm_peak_gb"] > 0, runs["smi-only"]            # what is known is shown
    assert all(isinstance(runs["good-1"][k], float) for k in heads), runs["good-1"]
    assert runs["idle-1"]["gpu_util_pct"] == 0.0, runs["idle-1"]        # a measured 0 is not unknown
    assert runs["idle-1"]["tokens_per_sec"] > 0, runs["idle-1"]
    detail = d.json("/runs/smi-only")[2]                            # the same numbers on /runs/<id>
    assert all(detail[k] == runs["smi-only"][k] for k in heads), detail
    url = d.base.split("//")[1]                                       # and goblind show: '-', not 0.00
    out = subprocess.run([GOBLIND, "show", "smi-only", "--url", url], capture_output=True, text=True)
    assert re.search(r"tokens/s\s+-\s+MFU\s+- %", out.stdout) and "GPU util  " in out.stdout, out.stdout
    out = subprocess.run([GOBLIND, "parse", str(smi), "--format", "table"], capture_output=True, text=True)
    assert re.search(r"tokens/s\s+-\s+MFU\s+- %", out.stdout), out.stdout
    st, h, body = d.get("/runs/smi-only/metrics")
    assert st == 422 and h["Goblind-Run-Status"] == "failed" and h["ETag"], (st, h)
    check_metrics_body(body, smi)                                            # still valid RunMetrics
    st, h, _ = d.get("/runs/good-1/metrics")
    assert st == 200 and h["Goblind-Run-Status"] == "complete", (st, h)
    text = d.get("/metrics")[2].decode()
    lab = 'hostname="node-7",cluster="mi300x-a"'
    assert f'goblind_run_state{{{lab},run="smi-only"}} 3' in text, text
    assert f'goblind_run_state{{{lab},run="good-1"}} 2' in text
    assert f'goblind_run_info{{{lab},run="smi-only",status="failed"}} 1' in text
    assert f'goblind_build_info{{{lab},version=' in text and f"process_open_fds{{{lab}}} " in text
    assert not re.search(r'^goblind_run_(tokens_per_second|step_seconds|mfu_ratio|waste_seconds)\{[^}]*run="smi-only"', text, re.M)
    assert re.search(r'^goblind_run_hbm_peak_bytes\{[^}]*run="smi-only"\} [1-9]', text, re.M)
    assert re.search(r'^goblind_run_gpu_utilization_ratio\{[^}]*run="idle-1"\} 0(\.0)?$', text, re.M), text
    pending = {l.split("{")[0] for l in text.splitlines() if 'run="pending-1"' in l}
    assert pending == {"goblind_run_state", "goblind_run_info", "goblind_run_updated_timestamp_seconds"}, pending
    for line in text.splitlines():                  # per-run series carry run alone, state only on _info
        if line.startswith("goblind_run_") and not line.startswith("goblind_run_info"):
            assert "status=" not in line, line
    chk = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    p = subprocess.run([GOBLIND, "serve", "--metrics-labels", "run=x", "--db", str(Path(tmp) / "y.db")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "metrics_labels" in p.stderr, p
    assert d.stop() == 0


def test_run_outcomes_logged(tmp):
    """At info level: one line per run outcome with the run id, the parse time and, for a failed
    run, the reason (journald fields: tests/journald.py)."""
    d = Daemon(tmp, extra=["--log-level", "info"])
    gen(d.roots[0] / "ok-1", seed=1)
    (d.roots[0] / "bad-1").mkdir()
    gen(Path(tmp) / "src", seed=2)
    shutil.copy(Path(tmp) / "src" / "amd_smi.csv", d.roots[0] / "bad-1" / "amd_smi.csv")
    d.start()
    d.wait_status("ok-1", "complete")
    d.wait_status("bad-1", "failed")
    shutil.rmtree(d.roots[0] / "ok-1")
    d.wait_status("ok-1", "gone")
    wait_for(lambda: "run ok-1: directory gone" in d.logtext(), 10, "the gone line")
    log = d.logtext()
    assert re.search(r"^goblind info: run ok-1: complete \(parse \d+\.\d ms\)$", log, re.M), log
    assert re.search(r"^goblind info: run bad-1: failed: kernel trace not found \(parse \d+\.\d ms\)$", log, re.M), log
    assert log.count("run ok-1: complete") == 1 and "debug" not in log, log
    assert d.stop() == 0


def test_delete_forget_and_retention(tmp):
    """DELETE /runs/<id> and `goblind forget`: the run leaves every endpoint, its directory is left
    alone and not ingested again (also across a restart) until its files change; retention
    evicts the oldest finished runs beyond retention_max_runs / retention_max_age_days."""
    d = Daemon(tmp)
    for i in range(3):
        gen(d.roots[0] / f"r-{i}", seed=i + 1)
    d.start()
    for i in range(3):
        d.wait_status(f"r-{i}", "complete")
    st, _, body = d.get("/runs/r-0", method="DELETE")
    assert st == 200 and json.loads(body) == {"id": "r-0", "deleted": True}, (st, body)
    assert d.get("/runs/r-0")[0] == 404 and d.get("/runs/r-0/metrics")[0] == 404
    assert "r-0" not in [r["id"] for r in d.json("/runs")[2]["runs"]]
    assert 'run="r-0"' not in d.get("/metrics")[2].decode()
    assert d.get("/runs/r-0", method="DELETE")[0] == 404
    assert d.get("/runs", method="DELETE")[0] == 405 and d.get("/metrics", method="DELETE")[0] == 405
    assert d.get("/runs/r-1/metrics", method="DELETE")[0] == 405
    assert (d.roots[0] / "r-0" / "trace.csv").exists()                       # the directory is left alone
    url = d.base.split("//")[1]
    out = subprocess.run([GOBLIND, "forget", "r-1", "--url", url], capture_output=True, text=True)
    assert out.returncode == 0 and "forgot run r-1" in out.stdout, out
    out = subprocess.run([GOBLIND, "forget", "r-1", "--url", url], capture_output=True, text=True)
    assert out.returncode == 1 and "HTTP 404" in out.stderr, out
    wait_for(lambda: "run r-1: deleted from the database (DELETE /runs/<id>)" in d.logtext(), 5, "deleted line")
    time.sleep(3.5)                                    # past a rescan and the quiet time: still forgotten
    assert d.get("/runs/r-0")[0] == 404 and d.get("/runs/r-1")[0] == 404
    assert d.stop() == 0
    d.start()                                          # the start-up scan does not bring them back either
    d.wait_status("r-2", "complete")
    time.sleep(2)
    assert d.get("/runs/r-0")[0] == 404 and d.get("/runs/r-1")[0] == 404, d.logtext()
    data = (d.roots[0] / "r-0" / "amd_smi.csv").read_bytes()   # changed files: ingested again
    (d.roots[0] / "r-0" / "amd_smi.csv").unlink()
    (d.roots[0] / "r-0" / "amd_smi.csv").write_bytes(data)
    d.wait_status("r-0", "complete")
    assert d.get("/runs/r-0/metrics")[0] == 200
    assert d.stop() == 0
    # retention_max_age_days: a run last updated 3 days ago goes at start
    con = sqlite3.connect(d.db)
    con.execute("UPDATE runs SET updated_at = updated_at - 3 * 86400000 WHERE id = 'r-2'")
    con.commit()
    con.close()
    d.extra = ["--retention-max-age-days", "2"]
    d.start()
    wait_for(lambda: d.get("/runs/r-2")[0] == 404, 15, "r-2 evicted by age")
    assert "run r-2: deleted from the database (retention_max_age_days)" in d.logtext()
    assert d.get("/runs/r-0")[0] == 200
    assert d.stop() == 0
    # retention_max_runs: only the newest N stay
    for i in range(3, 6):
        gen(d.roots[0] / f"r-{i}", seed=i + 1)
    d.extra = ["--retention-max-runs", "2"]
    d.start()
    wait_for(lambda: sorted(r["id"] for r in d.json("/runs")[2]["runs"]) in (["r-4", "r-5"], ["r-3", "r-5"],
                                                                             ["r-3", "r-4"]) and
             all(r["status"] == "complete" for r in d.json("/runs")[2]["runs"]), 30, "two runs left")
    assert "(retention_max_runs)" in d.logtext()
    assert d.stop() == 0


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


def test_events_stream_and_webhooks(tmp):
    """GET /events streams created, running, complete, failed, gone and deleted with the run id
    and ETag; Last-Event-ID resumes; the same JSON is POSTed to webhooks, retried on errors."""
    import http.server
    got, fail_first = [], [True]

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if fail_first[0]:                                       # the first delivery fails: retried
                fail_first[0] = False
                self.send_response(500)
            else:
                got.append(json.loads(body))
                self.send_response(204)
            self.end_headers()

        def log_message(self, *a):
            pass
    hook = http.server.HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    d = Daemon(tmp, extra=["--webhook-url", f"http://127.0.0.1:{hook.server_port}/goblind"])
    gen(d.roots[0] / "old-1", seed=1)
    d.start()
    d.wait_status("old-1", "complete")
    ev = SSE(d.base)
    gen(d.roots[0] / "e-1", seed=2)
    def seen(kind, run):
        return lambda m: m.get("event") == kind and m["json"]["run"] == run
    created = ev.wait(seen("created", "e-1"))
    parsing = ev.wait(seen("running", "e-1"))                       # a new run's parse is "running" too
    done = ev.wait(seen("complete", "e-1"))
    assert int(created["id"]) < int(parsing["id"]) < int(done["id"]), (created, parsing, done)
    assert done["json"]["etag"] == d.get("/runs/e-1")[1]["ETag"], (done, d.get("/runs/e-1")[1])
    assert int(done["id"]) > int(created["id"]) and done["json"]["id"] == int(done["id"])
    with open(d.roots[0] / "e-1" / "amd_smi.csv", "a") as f:     # a finished run's files change
        f.write(open(d.roots[0] / "e-1" / "amd_smi.csv").read().splitlines()[-1] + "\n")
    rerun = ev.wait(lambda m: seen("running", "e-1")(m) and int(m["id"]) > int(done["id"]))
    again_done = ev.wait(lambda m: seen("complete", "e-1")(m) and int(m["id"]) > int(rerun["id"]))
    assert again_done["json"]["etag"] != done["json"]["etag"], (again_done, done)
    (d.roots[0] / "f-1").mkdir()
    shutil.copy(d.roots[0] / "e-1" / "amd_smi.csv", d.roots[0] / "f-1" / "amd_smi.csv")
    ev.wait(seen("failed", "f-1"))
    shutil.rmtree(d.roots[0] / "old-1")
    ev.wait(seen("gone", "old-1"))
    assert d.get("/runs/e-1", method="DELETE")[0] == 200
    ev.wait(seen("deleted", "e-1"))
    assert not any(m.get("event") == "created" and m["json"]["run"] == "old-1" for m in ev.messages)
    ev.close()
    # resumed after the "created" event: everything after it, nothing before
    again = SSE(d.base, last_id=created["id"])
    again.wait(seen("deleted", "e-1"))
    ids = [int(m["id"]) for m in again.messages if "id" in m]
    assert ids and min(ids) > int(created["id"]) and ids == sorted(ids), ids
    again.close()
    stale = SSE(d.base, last_id="1")                                # from before this start
    stale.wait(lambda m: m.get("event") == "resync")
    stale.close()
    wait_for(lambda: any(e["event"] == "deleted" and e["run"] == "e-1" for e in got), 20, "webhook deliveries")
    kinds = [(e["event"], e["run"]) for e in got]
    for want in (("created", "e-1"), ("running", "e-1"), ("complete", "e-1"), ("failed", "f-1"), ("gone", "old-1"),
                 ("deleted", "e-1")):
        assert want in kinds, (want, kinds)
    assert d.stop() == 0                                            # streams end, webhooks joined
    hook.shutdown()


def test_prometheus_exposition_and_scrape(tmp):
    d = Daemon(tmp)
    gen(d.roots[0] / "prom-1", seed=1)
    d.start()
    d.wait_status("prom-1", "complete")
    want = json.loads(d.get("/runs/prom-1/metrics")[2])["tokens_per_sec"]
    st, h, body = d.get("/metrics")
    assert st == 200 and h["Content-Type"].startswith("text/plain; version=0.0.4"), h
    text = body.decode()
    for name in ("goblind_build_info", "goblind_runs", "goblind_ingests_total", "goblind_parse_duration_seconds_bucket",
                 "goblind_parsed_bytes_total", "goblind_watched_directories", "goblind_http_requests_total",
                 "goblind_http_request_duration_seconds_bucket", "process_resident_memory_bytes", "process_open_fds",
                 "process_cpu_seconds_total", "goblind_run_tokens_per_second", "goblind_run_mfu_ratio",
                 "goblind_run_hbm_peak_bytes", "goblind_run_hbm_avg_bytes", "goblind_run_gpu_utilization_ratio",
                 "goblind_run_step_seconds", "goblind_run_waste_seconds", "goblind_run_updated_timestamp_seconds"):
        assert re.search(rf"^{name}[{{ ]", text, re.M), name
    assert text.count('goblind_run_waste_seconds{run="prom-1"') == 7
    chk = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    st, h, om = d.get("/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"})
    assert h["Content-Type"].startswith("application/openmetrics-text") and om.endswith(b"# EOF\n")
    assert b"# TYPE goblind_ingests counter" in om
    # a real Prometheus scrapes goblind and answers the same tokens/s through its query API
    port = free_port()
    target = d.base.split("//")[1]
    (Path(tmp) / "prom.yml").write_text(
        f"global: {{scrape_interval: 1s}}\nscrape_configs:\n  - job_name: goblind\n"
        f"    static_configs: [{{targets: ['{target}']}}]\n")
    prom = subprocess.Popen(["prometheus", f"--config.file={tmp}/prom.yml", f"--storage.tsdb.path={tmp}/tsdb",
                             f"--web.listen-address=127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=open(Path(tmp) / "prometheus.log", "wb"))
    try:
        got = {}
        def scraped():
            q = urllib.parse.quote('goblind_run_tokens_per_second{run="prom-1"}')
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/query?query={q}", timeout=5) as r:
                    res = json.load(r)["data"]["result"]
            except (urllib.error.URLError, ConnectionError, KeyError):
                return False
            if res:
                got["v"] = float(res[0]["value"][1])
            return bool(res)
        wait_for(scraped, 60, "Prometheus to scrape goblind")
        assert got["v"] == want, (got, want)
        print(f"     Prometheus query goblind_run_tokens_per_second{{run=\"prom-1\"}} = {got['v']} (served {want})")
    finally:
        prom.terminate()
        prom.wait(30)
    assert d.stop() == 0


def test_grafana_dashboard_and_rules_against_prometheus(tmp):
    """Every query of grafana/goblind-dashboard.json (panels and variables) and every recording rule
    of prometheus/goblind-rules.yml returns data from a real Prometheus scraping a daemon with runs."""
    src = Path(__file__).resolve().parent.parent
    dash = json.loads((src / "grafana" / "goblind-dashboard.json").read_text())
    d = Daemon(tmp)
    gen(d.roots[0] / "g-1", seed=1)
    gen(d.roots[0] / "g-2", seed=2)
    (d.roots[0] / "gf-1").mkdir()
    d.start()
    d.wait_status("g-1", "complete")
    d.wait_status("g-2", "complete")
    shutil.copy(d.roots[0] / "g-1" / "amd_smi.csv", d.roots[0] / "gf-1" / "amd_smi.csv")
    d.wait_status("gf-1", "failed")
    port = free_port()
    target = d.base.split("//")[1]
    (Path(tmp) / "prom.yml").write_text(
        f"global: {{scrape_interval: 1s, evaluation_interval: 1s}}\nrule_files: ['{src}/prometheus/goblind-rules.yml']\n"
        f"scrape_configs:\n  - job_name: goblind\n    static_configs: [{{targets: ['{target}']}}]\n")
    prom = subprocess.Popen(["prometheus", f"--config.file={tmp}/prom.yml", f"--storage.tsdb.path={tmp}/tsdb",
                             f"--web.listen-address=127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=open(Path(tmp) / "prometheus.log", "wb"))

    def api(path, **params):
        url = f"http://127.0.0.1:{port}/api/v1/{path}?" + urllib.parse.urlencode(params, doseq=True)
        with urllib.request.urlopen(url, timeout=5) as r:
            doc = json.load(r)
        assert doc["status"] == "success", doc
        return doc["data"]

    def returns(expr):
        try:
            return bool(api("query", query=expr)["result"])
        except (urllib.error.URLError, ConnectionError):
            return False
    try:
        wait_for(lambda: returns('goblind_run_state{run="gf-1"}'), 60, "Prometheus to scrape goblind")
        for _ in range(3):                                    # two scrapes apart for rate(), then more traffic
            d.get("/runs")
            time.sleep(1.5)
        subst = {"$instance": target, "$run": "g-1", "$__rate_interval": "1m", "${datasource}": "x"}
        exprs = []
        for panel in dash["panels"]:
            for t in panel["targets"]:
                e = t["expr"]
                for k, v in subst.items():
                    e = e.replace(k, v)
                exprs.append((panel["title"], e))
        for title, e in exprs:
            wait_for(lambda: returns(e), 20, f"dashboard panel {title!r}: {e}")
        for var in dash["templating"]["list"]:
            if var["type"] != "query":
                continue
            m = re.fullmatch(r"label_values\((.*), (\w+)\)", var["query"]["query"])
            metric, label = m.group(1).replace("$instance", target), m.group(2)
            values = {s.get(label) for s in api("series", **{"match[]": metric})} - {None}
            assert values, (var["name"], metric)
        assert "g-1" in {s["run"] for s in api("series", **{"match[]": 'goblind_run_info'})}
        rules = [r["name"] for g in api("rules")["groups"] for r in g["rules"] if r["type"] == "recording"]
        assert len(rules) == 4, rules
        for rec in rules:
            wait_for(lambda: returns(rec), 20, f"recording rule {rec}")
        print(f"     {len(exprs)} dashboard queries, {len(rules)} recording rules return data")
    finally:
        prom.terminate()
        prom.wait(30)
    assert d.stop() == 0


def test_compare(tmp):
    d = Daemon(tmp)
    gen(d.roots[0] / "before", seed=1, steps=6, kernels=80)
    gen(d.roots[0] / "after", seed=2, steps=3, kernels=40)
    gen(d.roots[0] / "no-smi", seed=3, steps=3, kernels=40)
    (d.roots[0] / "no-smi" / "amd_smi.csv").unlink()           # complete, but HBM never measured
    d.start()
    d.wait_status("before", "complete")
    d.wait_status("after", "complete")
    d.wait_status("no-smi", "complete")
    st, _, c = d.json("/compare?base=before&candidate=no-smi")   # unmeasured: null, no delta against 0
    assert st == 200 and c["headline"]["hbm_peak_gb"]["candidate"] is None, c["headline"]
    assert c["headline"]["hbm_peak_gb"]["delta"] is None and c["headline"]["hbm_peak_gb"]["base"] > 0
    assert c["headline"]["tokens_per_sec"]["delta"] is not None and c["speedup"] is not None
    st, _, c = d.json("/compare?base=before&candidate=after")
    assert st == 200, c
    a, b = parse(d.roots[0] / "before"), parse(d.roots[0] / "after")
    assert c["base"] == {"id": "before", "metrics": a} and c["candidate"] == {"id": "after", "metrics": b}
    assert abs(c["speedup"] - b["tokens_per_sec"] / a["tokens_per_sec"]) < 1e-12
    tps = c["headline"]["tokens_per_sec"]
    assert tps["base"] == a["tokens_per_sec"] and abs(tps["delta"] - (b["tokens_per_sec"] - a["tokens_per_sec"])) < 1e-6
    assert abs(tps["delta_pct"] - (b["tokens_per_sec"] / a["tokens_per_sec"] - 1) * 100) < 1e-9
    assert set(c["waste_budget"]) == set(a["waste_budget"])
    for k, v in c["waste_budget"].items():
        assert v["base"] == a["waste_budget"][k] and v["candidate"] == b["waste_budget"][k]
    want = f"tokens/s {a['tokens_per_sec']:.0f} \u2192 {b['tokens_per_sec']:.0f} ({b['tokens_per_sec'] / a['tokens_per_sec']:.2f}\u00d7)"
    assert c["summary"] == want, (c["summary"], want)
    # every number in every body is the shortest round-trip text, as Python's repr prints it
    for path in ("/compare?base=before&candidate=after", "/runs/before/kernels?limit=50", "/runs/before",
                 "/runs/before/metrics", "/runs"):
        raw = d.get(path)[2].decode()
        floats = re.findall(r'(?<=[:,\[])-?\d+(?:\.\d+)?(?:e[-+]\d+)?(?=[,\]}])', re.sub(r'"(?:[^"\\]|\\.)*"', '""', raw))
        assert floats, path
        for f in floats:
            if "." in f or "e" in f:
                assert repr(float(f)) == f, (path, f)
    assert d.get("/compare?base=before&candidate=nope")[0] == 404
    assert d.get("/compare?base=before")[0] == 400
    assert d.get("/compare?base=..&candidate=after")[0] == 400
    (d.roots[0] / "pending-1").mkdir()
    wait_for(lambda: d.get("/runs/pending-1")[0] == 200, 10, "pending run")
    st, _, e = d.json("/compare?base=before&candidate=pending-1")
    assert st == 409 and e["error"] == "not_complete", (st, e)
    assert d.stop() == 0


def test_cli_runs_and_show(tmp):
    d = Daemon(tmp)
    gen(d.roots[0] / "cli-1", seed=3)
    d.start()
    d.wait_status("cli-1", "complete")
    url = d.base.split("//")[1]
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    out = subprocess.run([GOBLIND, "runs", "--url", url], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and re.search(r"^cli-1\s+complete\s", out.stdout, re.M), out
    tps = parse(d.roots[0] / "cli-1")["tokens_per_sec"]
    assert f"{tps:.2f}" in out.stdout
    out = subprocess.run([GOBLIND, "show", "cli-1", "--url", url], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "waste budget" in out.stdout and "\u2588" in out.stdout, out
    for bucket in ("useful_gpu", "host_gap", "comm_excess", "kernel_shape"):
        assert bucket in out.stdout
    assert "how each file was read" in out.stdout and "rows used" in out.stdout and "steps " in out.stdout, out
    out = subprocess.run([GOBLIND, "show", "cli-1", "--url", url], capture_output=True, text=True,
                         env=dict(os.environ, LANG="C", LC_ALL="C"))
    assert out.returncode == 0 and "#" in out.stdout and "\u2588" not in out.stdout   # ASCII bars without UTF-8
    out = subprocess.run([GOBLIND, "show", "nope", "--url", url], capture_output=True, text=True)
    assert out.returncode == 1 and "HTTP 404" in out.stderr, out
    out = subprocess.run([GOBLIND, "runs", "--status", "weird", "--url", url], capture_output=True, text=True)
    assert out.returncode == 1 and "HTTP 400" in out.stderr, out
    # --format json: the daemon's bodies, numbers exactly as served
    out = subprocess.run([GOBLIND, "runs", "--url", "http://" + url, "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)["runs"][0]["tokens_per_sec"] == tps, out
    out = subprocess.run([GOBLIND, "show", "cli-1", "--url", url, "--format", "json"], capture_output=True, text=True)
    doc = json.loads(out.stdout)
    assert out.returncode == 0 and doc["run"]["id"] == "cli-1" and doc["metrics"] == parse(d.roots[0] / "cli-1"), out
    # show --wait: held until the run is final, then the final table (a run written after the call)
    late = d.roots[0] / "late-1"
    tmp_late = Path(tmp) / "late-src"
    gen(tmp_late, seed=4)
    late.mkdir()
    wait_for(lambda: d.get("/runs/late-1")[0] == 200, 10, "late-1 seen")
    waiter = subprocess.Popen([GOBLIND, "show", "late-1", "--wait", "--url", url], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    assert waiter.poll() is None, "show --wait returned before the run was final"
    for f in ("trace.csv", "amd_smi.csv", "torch_profile.json"):
        shutil.copy(tmp_late / f, late / f)
    so, se = waiter.communicate(timeout=60)
    assert waiter.returncode == 0 and "late-1  complete" in so and "waste budget" in so, (so, se)
    # failed run: exit 3, metrics still shown
    (d.roots[0] / "bad-1").mkdir()
    shutil.copy(tmp_late / "amd_smi.csv", d.roots[0] / "bad-1" / "amd_smi.csv")
    wait_for(lambda: d.get("/runs/bad-1")[0] == 200, 10, "bad-1 seen")
    out = subprocess.run([GOBLIND, "show", "bad-1", "--wait", "--url", url], capture_output=True, text=True, timeout=60)
    assert out.returncode == 3 and "bad-1  failed" in out.stdout, out
    assert d.stop() == 0
    out = subprocess.run([GOBLIND, "runs", "--url", url], capture_output=True, text=True)
    assert out.returncode == 1 and "is goblind serve running?" in out.stderr, out
    out = subprocess.run([GOBLIND, "show"], capture_output=True, text=True)
    assert out.returncode == 2


def test_systemd_notify(tmp):
    import socket
    sock_path = str(Path(tmp) / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sock_path)
    sock.settimeout(10)
    d = Daemon(tmp, env={"NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "400000"}).start()
    msgs = []
    def until(prefix):
        while True:
            m = sock.recv(4096).decode()
            msgs.append(m)
            if m.startswith(prefix):
                return m
    ready = until("READY=1")
    assert "STATUS=serving on port" in ready, ready
    until("WATCHDOG=1")
    until("WATCHDOG=1")                            # repeated from the loop, every WATCHDOG_USEC / 2
    assert d.stop() == 0
    until("STOPPING=1")
    sock.close()


def test_access_control_token(tmp):
    tmp = Path(tmp)
    p = subprocess.run([GOBLIND, "serve", "--db", str(tmp / "x.db"), "--root", str(tmp), "--listen", "0.0.0.0:0"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "refusing to listen on 0.0.0.0:0 without access control" in p.stderr, p
    (tmp / "short").write_text("abc\n")
    os.chmod(tmp / "short", 0o600)                          # a world-readable token file is refused
    p = subprocess.run([GOBLIND, "serve", "--db", str(tmp / "x.db"), "--root", str(tmp), "--listen", "0.0.0.0:0",
                        "--auth-token-file", str(tmp / "short")], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "at least 16 characters" in p.stderr, p
    token = "s3cr3t-t0ken-of-goblind-0123456789"
    (tmp / "token").write_text(token + "\n")
    os.chmod(tmp / "token", 0o600)
    d = Daemon(tmp, listen="0.0.0.0:0", extra=["--auth-token-file", str(tmp / "token")])
    gen(d.roots[0] / "t-1", seed=1)
    d.headers = {"Authorization": f"Bearer {token}"}
    d.start()
    d.wait_status("t-1", "complete")
    d.headers = {}
    assert d.get("/healthz")[0] == 200                      # liveness stays open
    assert d.get("/")[0] == 200                             # the page itself holds no data
    for path in ("/runs", "/runs/t-1/metrics", "/metrics", "/compare?base=t-1&candidate=t-1"):
        st, h, body = d.get(path)
        assert st == 401 and h.get("WWW-Authenticate", "").startswith("Bearer"), (path, st)
    assert d.get("/runs", {"Authorization": "Bearer wrong-token-wrong-token"})[0] == 401
    assert d.get("/runs", {"Authorization": f"Basic {token}"})[0] == 401
    assert d.get("/runs", {"Authorization": f"Bearer {token}"})[0] == 200
    assert d.get("/metrics", {"Authorization": f"Bearer {token}"})[0] == 200
    assert d.get("/runs/t-1", method="DELETE")[0] == 401                    # forgetting needs the token too
    assert d.get("/runs/t-1")[0] == 401
    out = subprocess.run([GOBLIND, "runs", "--url", d.base.split("//")[1], "--token-file", str(tmp / "token")],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "t-1" in out.stdout, out
    bare = {k: v for k, v in os.environ.items() if not k.startswith("GOBLIND_TOKEN")}
    for env in ({"GOBLIND_TOKEN": token}, {"GOBLIND_TOKEN_FILE": str(tmp / "token")}):   # the token from the environment
        out = subprocess.run([GOBLIND, "runs", "--url", d.base.split("//")[1]], capture_output=True, text=True,
                             env={**bare, **env})
        assert out.returncode == 0 and "t-1" in out.stdout, (env, out)
    out = subprocess.run([GOBLIND, "runs", "--url", d.base.split("//")[1]], capture_output=True, text=True, env=bare)
    assert out.returncode == 1 and "401" in out.stderr, out
    out = subprocess.run([GOBLIND, "runs", "--url", d.base.split("//")[1]], capture_output=True, text=True,
                         env={**bare, "GOBLIND_TOKEN_FILE": str(tmp / "nope")})
    assert out.returncode == 2 and "cannot read the token file" in out.stderr and "nope" in out.stderr, out
    assert d.stop() == 0


def test_access_control_tls_client_certs(tmp):
    import ssl
    tmp = Path(tmp)
    def sh(*a):
        subprocess.run(a, check=True, capture_output=True, cwd=tmp)
    sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
       "-subj", "/CN=goblind test CA")
    for who, ext in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"), ("client", "extendedKeyUsage=clientAuth")):
        sh("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{who}.key", "-out", f"{who}.csr",
           "-subj", f"/CN=goblind {who}")
        (tmp / f"{who}.ext").write_text(ext + "\n")
        sh("openssl", "x509", "-req", "-in", f"{who}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
           "-out", f"{who}.pem", "-days", "2", "-extfile", f"{who}.ext")
    ctx = ssl.create_default_context(cafile=str(tmp / "ca.pem"))
    ctx.load_cert_chain(str(tmp / "client.pem"), str(tmp / "client.key"))
    d = Daemon(tmp, listen="0.0.0.0:0", ssl_ctx=ctx,
               extra=["--tls-cert-file", str(tmp / "server.pem"), "--tls-key-file", str(tmp / "server.key"),
                      "--tls-client-ca-file", str(tmp / "ca.pem")])
    gen(d.roots[0] / "tls-1", seed=2)
    d.start()
    assert d.base.startswith("https://")
    d.wait_status("tls-1", "complete")
    st, _, body = d.get("/runs/tls-1/metrics")
    assert st == 200
    check_metrics_body(body, d.roots[0] / "tls-1")
    anon = ssl.create_default_context(cafile=str(tmp / "ca.pem"))   # no client certificate
    d.ssl_ctx = anon
    assert d.get("/healthz")[0] == 200
    st, _, body = d.get("/runs")
    assert st == 403 and json.loads(body)["error"] == "forbidden", st
    try:
        urllib.request.urlopen(d.base.replace("https", "http") + "/healthz", timeout=5)
        raise AssertionError("plain HTTP answered on the TLS port")
    except (urllib.error.URLError, ConnectionError, http.client.HTTPException):
        pass
    # the CLI speaks HTTPS through libcurl: server CA, client certificate, as curl names them
    url = d.base.replace("127.0.0.1", "localhost")
    tls = ["--cacert", str(tmp / "ca.pem"), "--cert", str(tmp / "client.pem"), "--key", str(tmp / "client.key")]
    out = subprocess.run([GOBLIND, "runs", "--url", url, *tls], capture_output=True, text=True)
    assert out.returncode == 0 and re.search(r"^tls-1\s+complete", out.stdout, re.M), out
    out = subprocess.run([GOBLIND, "show", "tls-1", "--url", url, "--format", "json", *tls], capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)["metrics"] == parse(d.roots[0] / "tls-1"), out
    out = subprocess.run([GOBLIND, "runs", "--url", url, *tls[:2]], capture_output=True, text=True)
    assert out.returncode == 1 and "HTTP 403" in out.stderr, out                      # no client certificate
    out = subprocess.run([GOBLIND, "runs", "--url", url, *tls[2:]], capture_output=True, text=True)
    assert out.returncode == 1 and "certificate" in out.stderr.lower(), out          # server CA unknown
    assert d.stop() == 0


def test_dashboard_in_chromium(tmp):
    chromium = shutil.which("chromium")
    assert chromium, "chromium is not installed (Debian package chromium)"
    d = Daemon(tmp)
    gen(d.roots[0] / "baseline", seed=3, steps=6, kernels=80)
    gen(d.roots[0] / "tuned", seed=4, steps=4, kernels=50)
    d.start()
    d.wait_status("baseline", "complete")
    d.wait_status("tuned", "complete")
    st, h, page = d.get("/")
    assert st == 200 and h["Content-Type"].startswith("text/html")
    assert not re.search(rb"<(script|link|img)[^>]+(src|href)=\"?(https?:)?//", page), "the page loads something external"
    url = d.base + "/?run=baseline&base=baseline&candidate=tuned"
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             f"--user-data-dir={tmp}/chromium", "--virtual-time-budget=5000", "--enable-logging=stderr", "--v=0"]
    out = subprocess.run(flags + ["--window-size=1400,1100", "--dump-dom", url], capture_output=True, text=True, timeout=120)
    dom, log = out.stdout, out.stderr
    assert 'data-errors="0"' in dom and 'data-rendered="1"' in dom, re.findall(r"<body[^>]*>", dom)
    assert 'data-overflow="0"' in dom, re.findall(r"<body[^>]*>", dom)          # every column fits at 1400 px
    # deltas coloured by better/worse: less step time is better, more tokens/s is better
    cmp_ = d.json("/compare?base=baseline&candidate=tuned")[2]["headline"]
    for name, higher in (("step_seconds", False), ("tokens_per_sec", True)):
        delta = cmp_[name]["delta"]
        want = "neutral" if delta == 0 else ("better" if (delta > 0) == higher else "worse")
        assert re.search(rf'class="num {want}" data-metric="{name}"', dom), (name, delta, want)
    m = re.search(r'id="waste-bar" data-segments="(\d+)"', dom)
    assert m and int(m.group(1)) >= 3, "the waste-budget chart did not render"
    assert dom.count('class="run') >= 2 and 'id="kernels"' in dom
    tps = d.json("/runs/baseline")[2]["tokens_per_sec"]           # cards read /runs/<id>'s measured numbers
    assert f'<div class="v">{tps:,.1f}</div><div class="k">tokens/s</div>' in dom, re.findall(r'class="cards".{0,400}', dom)
    summary = d.json("/compare?base=baseline&candidate=tuned")[2]["summary"]
    assert f'id="summary">{summary}<' in dom, summary
    console = [l for l in log.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert not console, console
    shot = Path(tmp) / "dashboard.png"
    subprocess.run(flags + ["--window-size=1400,1100", f"--screenshot={shot}", url], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 20000
    # the runs list pages: one run per page, then the older one through the cursor
    first = subprocess.run(flags + ["--dump-dom", d.base + "/?limit=1"], capture_output=True, text=True, timeout=120).stdout
    assert first.count('class="run') == 1 and re.search(r'<button id="next-page">', first), first[-3000:]
    page1 = d.json("/runs?limit=1")[2]
    newest, nxt = page1["runs"][0]["id"], page1["next_cursor"]
    other = ({"baseline", "tuned"} - {newest}).pop()
    assert f'data-id="{newest}"' in first
    older = subprocess.run(flags + ["--dump-dom", d.base + "/?limit=1&cursor=" + urllib.parse.quote(nxt)],
                           capture_output=True, text=True, timeout=120).stdout
    assert f'data-id="{other}"' in older and f'data-id="{newest}"' not in older, older[-3000:]
    assert d.stop() == 0
    # a running run shows what is already known: its artefacts as parsed so far
    d2 = Daemon(Path(tmp) / "live", extra=["--quiet-s", "3600"])
    run = d2.roots[0] / "live-1"
    gen(run, seed=5)
    (run / "torch_profile.json").unlink()
    d2.start()
    wait_for(lambda: d2.json("/runs/live-1")[2].get("ingest_count", 0) >= 1, 30, "live-1 parsed once")   # 404 until its status is stored
    dom = subprocess.run(flags + ["--window-size=1400,1100", "--dump-dom", d2.base + "/?run=live-1"],
                         capture_output=True, text=True, timeout=120).stdout
    assert 'id="run-partial"' in dom and "kernel_trace" in dom and "not yet" in dom, dom[-3000:]
    # no torch profile yet: throughput not measured, shown as unknown rather than 0
    assert '<div class="v">–</div><div class="k">tokens/s</div>' in dom, re.findall(r'class="cards".{0,400}', dom)
    assert 'data-errors="0"' in dom and 'data-overflow="0"' in dom
    assert d2.stop() == 0


def test_kill9_mid_ingest(tmp):
    d = Daemon(tmp)
    big = d.roots[0] / "big-1"
    gen(big, seed=3, steps=120, kernels=400, extra=["--cpu-ops-per-step", "60"])
    for trial in range(3):
        d.start()
        st = None
        for _ in range(400):                          # kill while the parse or its transaction is in flight
            st = d.json("/runs/big-1")
            if st[0] == 200 and st[2]["status"] == "running":
                break
            time.sleep(0.005)
        time.sleep(0.02 * trial)
        d.stop(signal.SIGKILL)
    con = sqlite3.connect(d.db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    d.start()
    d.wait_status("big-1", "complete", timeout=60)
    st, _, body = d.get("/runs/big-1/metrics")
    check_metrics_body(body, big)
    assert d.stop() == 0
    con = sqlite3.connect(d.db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT COUNT(*) FROM runs WHERE id='big-1'").fetchone()[0] == 1
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT name) FROM kernels WHERE run_id='big-1'").fetchone() \
        == (10, 10)
    con.close()


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
