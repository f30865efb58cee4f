#!/usr/bin/env python3
"""End-to-end tests of `goblind serve`, part 2: run names and duplicates, scan mode and the inotify
fallback, honest absence of unknown numbers, outcome log lines, DELETE / forget / retention, and
the event stream with webhooks. The harness (Daemon, gen, ...) is e2e_serve.py's.

usage: e2e_runs.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import json
import os
import re
import signal
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)
from e2e_serve import (  # noqa: E402
    Daemon, GOBLIND, SSE, check_metrics_body, gen, wait_for)


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


def test_change_two_levels_down_is_seen(tmp):
    """msprof writes its CSVs two directory levels down (PROF_*/mindstudio_profiler_output/):
    a file landing there after the run was parsed is seen (by the periodic scan: the watches
    reach one level down) and the run parsed again. It stayed `empty` before: the change
    detection looked one level down only."""
    d = Daemon(tmp).start()
    out = d.roots[0] / "npu" / "PROF_000001_20250101" / "mindstudio_profiler_output"
    out.mkdir(parents=True)
    d.wait_status("npu", "empty")
    tmp_csv = Path(tmp) / "op_summary.tmp"
    shutil.copy(e2e.SHARED / "fixtures" / "msprof" / "mstt_compute_advice_kernel_details.csv", tmp_csv)
    os.replace(tmp_csv, out / "op_summary_0_1.csv")
    d.wait_status("npu", "complete", timeout=30)
    assert d.json("/runs/npu")[2]["ingest_count"] == 2
    assert d.stop() == 0


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
    d.wait_status("smi-only", "complete")           # its telemetry was read: a run (docs/API.md "Run states")
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
    assert st == 200 and h["Goblind-Run-Status"] == "complete" and h["ETag"], (st, h)
    check_metrics_body(body, smi)                                            # still valid RunMetrics
    st, h, _ = d.get("/runs/good-1/metrics")
    assert st == 200 and h["Goblind-Run-Status"] == "complete", (st, h)
    text = d.get("/metrics")[2].decode()
    lab = 'hostname="node-7",cluster="mi300x-a"'
    assert f'goblind_run_state{{{lab},run="smi-only"}} 2' in text, text
    assert f'goblind_run_state{{{lab},run="good-1"}} 2' in text
    assert f'goblind_run_info{{{lab},run="smi-only",status="complete"}} 1' in text
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


def test_metrics_labels_refuse_goblind_label_names(tmp):
    """metrics_labels refuses every label name a goblind series carries (read here from a real
    exposition with every kind of series), instance and job (Prometheus sets them) and a name
    given twice, naming the label and the reason; at start-up (exit 2) and on SIGHUP (the running
    labels kept, the reason logged)."""
    conf = Path(tmp) / "goblind.conf"
    conf.write_text("[goblind]\nmetrics_labels = cluster=c1\n")
    d = Daemon(tmp, extra=["--config", str(conf)])
    gen(d.roots[0] / "lab-1", seed=1)
    d.start()
    d.wait_status("lab-1", "complete")
    text = d.get("/metrics")[2].decode()
    names = set()
    for line in text.splitlines():
        m = re.match(r"^[a-zA-Z_:][a-zA-Z0-9_:]*\{(.*)\} ", line)
        if m:
            names |= set(re.findall(r'(?:^|,)([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"', m.group(1)))
    names.discard("cluster")
    assert {"run", "class", "status", "le", "bucket"} <= names, names
    for name in sorted(names | {"instance", "job"}):
        p = subprocess.run([GOBLIND, "serve", "--metrics-labels", f"hostname=n1,{name}=x", "--db", str(Path(tmp) / "y.db")],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 2 and f"label name '{name}' cannot be used" in p.stderr, (name, p)
    p = subprocess.run([GOBLIND, "serve", "--metrics-labels", "a=1, a=2", "--db", str(Path(tmp) / "y.db")],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "'a' cannot be used: it is given twice" in p.stderr, p
    conf.write_text("[goblind]\nmetrics_labels = cluster=c2,class=foo\n")   # SIGHUP: refused, kept
    d.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: "configuration not reloaded, keeping the running one" in d.logtext(), 10, "refusal")
    assert "label name 'class' cannot be used: goblind_run_kernel_class_seconds uses it" in d.logtext()
    text = d.get("/metrics")[2].decode()
    assert 'goblind_run_state{cluster="c1",run="lab-1"} 2' in text, text
    chk = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    conf.write_text("[goblind]\nmetrics_labels = cluster=c2\n")            # a good change: restart
    d.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: "metrics_labels changed; it takes effect after a restart" in d.logtext(), 10, "restart note")
    assert d.stop() == 0


def test_per_gpu_series(tmp):
    """Per-GPU series for the GPU exporters' joins: each run's telemetry means per device, labelled
    run and gpu (the device index), from a hand-made amd-smi file of 9 GPUs; bounded to the first
    8 devices a run; `gpu` refused in metrics_labels."""
    d = Daemon(tmp, extra=["--metrics-labels", "hostname=node-9"])
    run = d.roots[0] / "gpus-1"
    gen(run, seed=1)
    rows = ["gpu,timestamp,power_usage,hotspot_temperature,memory_temperature,gfx_clk,gfx_util,mem_util,mem_clock,"
            "vram_used,vram_total"]
    for t in range(2):                           # GPU g: utilisation 10+g-1 then 10+g+1, power 100+g W,
        for g in range(9):                       # (g+1)*100 MiB used
            rows.append(f"{g},{1732300000 + t},{100 + g},60,60,1500,{10 + g - 1 + 2 * t},40,1300,{(g + 1) * 100},196592")
    (run / "amd_smi.csv").write_text("\n".join(rows) + "\n")
    d.start()
    d.wait_status("gpus-1", "complete")
    text = d.get("/metrics")[2].decode()
    got = {}
    for name, gpu, v in re.findall(r'^goblind_run_device_(\w+)\{hostname="node-9",run="gpus-1",gpu="(\d+)"\} (\S+)$', text, re.M):
        got[(name, int(gpu))] = float(v)
    want = {}
    for g in range(8):                           # by hand; device 8 is past the bound of 8 a run
        want[("utilization_ratio", g)] = (10 + g) / 100
        want[("power_watts", g)] = 100 + g
        want[("vram_peak_bytes", g)] = (g + 1) * 100 * 2 ** 20
    assert set(got) == set(want), sorted(set(got) ^ set(want))
    for k, v in want.items():
        assert abs(got[k] - v) <= 1e-9 * max(1, abs(v)), (k, got[k], v)
    chk = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    p = subprocess.run([GOBLIND, "serve", "--metrics-labels", "gpu=0", "--db", str(Path(tmp) / "y.db")],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "label name 'gpu' cannot be used" in p.stderr, p
    assert d.stop() == 0


def test_run_outcomes_logged(tmp):
    """At info level: one line per run outcome with the run id, the parse time and, for a failed
    run, the reason (journald fields: tests/journald.py)."""
    d = Daemon(tmp, extra=["--log-level", "info"])
    gen(d.roots[0] / "ok-1", seed=1)
    (d.roots[0] / "bad-1").mkdir()                  # its one file cannot be read: failed
    (d.roots[0] / "bad-1" / "trace.csv").write_text("not,a,kernel,trace\n1,2,3,4\n")
    (d.roots[0] / "empty-1").mkdir()                # nothing recognised: empty
    (d.roots[0] / "empty-1" / "notes.txt").write_text("not a profile\n")
    d.start()
    d.wait_status("empty-1", "empty")
    d.wait_status("ok-1", "complete")
    d.wait_status("bad-1", "failed")
    shutil.rmtree(d.roots[0] / "ok-1")
    d.wait_status("ok-1", "gone")
    wait_for(lambda: "run ok-1: directory gone" in d.logtext(), 10, "the gone line")
    log = d.logtext()
    assert re.search(r"^goblind info: run ok-1: complete \(parse \d+\.\d ms\)$", log, re.M), log
    assert re.search(r"^goblind info: run bad-1: failed: no source could be read: trace\.csv: unrecognised, not read: "
                     r"named like kernel-trace-csv files, but its content is not .*\(parse \d+\.\d ms\)$", log, re.M), log
    assert re.search(r"^goblind info: run empty-1: empty: no recognised profile file \(parse \d+\.\d ms\)$", log, re.M), log
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
    (d.roots[0] / "f-1" / "trace.csv").write_text("not,a,kernel,trace\n1,2,3,4\n")   # no file readable
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


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_runs", globals(), sys.argv[3:]))
