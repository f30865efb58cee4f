#!/usr/bin/env python3
"""End-to-end test of series and regressions (docs/ANALYSIS.md "Series and regressions"): runs
sharing a sidecar `labels.series`, GET /series and /series/<key> in order with the verdicts
against the previous run and the baseline, the `regression` event on /events and the webhooks,
the per-series gauges of /metrics, and the fingerprint series of a run without a label. The
verdicts are checked against an independent computation from the generated files (Python:
per-step durations of the torch profile, pooled medians, a bootstrap of our own).

usage: e2e_series.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import http.server
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import jsonschema

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)
from e2e_serve import Daemon, GEN, SSE, wait_for  # noqa: E402

SERIES = "train-x"
BASELINE = 5                     # series_baseline_runs' default


def make_run(d, staging, run_id, seed, sidecar, slow=None, mutate=None, want="complete"):
    """A gen_run directory with a goblind.json (then changed by mutate), moved into the root
    whole (so the sidecar is there before the daemon reads the run), then waited for until its
    status is want."""
    tmp = Path(staging) / run_id
    extra = ["--slow", slow] if slow else []
    subprocess.run([sys.executable, str(GEN), str(tmp), "--steps", "24", "--kernels-per-step", "40",
                    "--cpu-ops-per-step", "6", "--smi-samples", "20", "--seed", str(seed), *extra],
                   check=True, capture_output=True)
    (tmp / "goblind.json").write_text(json.dumps(sidecar))
    if mutate:
        mutate(tmp)
    os.rename(tmp, d.roots[0] / run_id)
    d.wait_status(run_id, want, timeout=60)


def step_walls(run_dir):
    """Per-step wall times in ns, from the torch profile's ProfilerStep events (µs)."""
    doc = json.loads((Path(run_dir) / "torch_profile.json").read_text())
    return [e["dur"] * 1000.0 for e in doc["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")]


def bootstrap_verdict(base, cand, rounds=2000, seed=12345):
    """Our own percentile bootstrap of the difference of medians (95 %), as % of the base median."""
    rng = random.Random(seed)
    mb = statistics.median(base)
    diffs = sorted(statistics.median(rng.choices(cand, k=len(cand))) - statistics.median(rng.choices(base, k=len(base)))
                   for _ in range(rounds))
    lo, hi = diffs[int(0.025 * rounds)] / mb * 100, diffs[int(0.975 * rounds) - 1] / mb * 100
    return ("slower" if lo > 0 else "faster" if hi < 0 else "within_noise"), lo, hi


def fnv1a64(text):
    h = 1469598103934665603
    for b in text.encode():
        h = ((h ^ b) * 1099511628211) % (1 << 64)
    return h


def test_series_verdicts_and_regression(tmp):
    got = []

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            got.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *a):
            pass
    hook = http.server.HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    d = Daemon(tmp, extra=["--webhook-url", f"http://127.0.0.1:{hook.server_port}/hook"])
    staging = Path(tmp) / "staging"
    staging.mkdir()
    d.start()
    label = {"labels": {"series": SERIES}}
    a_ids = [f"s{i}-a" for i in range(1, 6)]         # ids in creation order (a tie of first-seen times is
                                                      # ordered by id)
    for i, run_id in enumerate(a_ids, 1):
        make_run(d, staging, run_id, seed=i, sidecar=label)
    ev = SSE(d.base)
    make_run(d, staging, "s6-n", seed=11, sidecar=label)                   # same settings: noise only
    make_run(d, staging, "s7-b", seed=12, sidecar=label, slow="Cijk=2.0")  # the GEMMs twice as slow
    ev.wait(lambda m: m.get("event") == "regression" and m["json"]["run"] == "s7-b")

    st, _, body = d.json(f"/series/{SERIES}")
    assert st == 200, (st, body)
    order = a_ids + ["s6-n", "s7-b"]
    assert body["key"] == SERIES and body["key_source"] == "label" and body["baseline_runs"] == BASELINE, body
    assert [r["id"] for r in body["runs"]] == order, body["runs"]
    runs = {r["id"]: r for r in body["runs"]}
    starts = [r["started_ns"] for r in body["runs"]]
    assert starts == sorted(starts), starts
    assert runs["s1-a"]["vs_previous"] is None and runs["s1-a"]["vs_baseline"] is None
    assert runs["s2-a"]["vs_previous"]["run"] == "s1-a" and runs["s2-a"]["vs_baseline"]["runs"] == ["s1-a"]

    walls = {r: step_walls(d.roots[0] / r) for r in order}
    for run_id in order:                                      # the listed numbers
        r = runs[run_id]
        assert r["status"] == "complete" and r["steps"] == len(walls[run_id]), r
        assert r["step_time_ms"] is not None and 0 < r["busy_pct"] <= 100, r
    for run_id, want in (("s6-n", "within_noise"), ("s7-b", "slower")):
        r = runs[run_id]
        base_ids = order[order.index(run_id) - BASELINE:order.index(run_id)]
        vb = r["vs_baseline"]
        assert vb["runs"] == base_ids, (vb, base_ids)
        pooled = [w for b in base_ids for w in walls[b]]
        mb, mc = statistics.median(pooled), statistics.median(walls[run_id])
        assert abs(vb["base_median_ms"] - mb / 1e6) < 1e-3 and abs(vb["candidate_median_ms"] - mc / 1e6) < 1e-3, (vb, mb, mc)
        assert abs(vb["delta_pct"] - (mc - mb) / mb * 100) < 0.01, (vb, mb, mc)
        verdict, lo, hi = bootstrap_verdict(pooled, walls[run_id])
        assert verdict == want and vb["verdict"] == want, (run_id, vb, verdict, lo, hi)
        assert abs(vb["ci95_pct"][0] - lo) < 3 and abs(vb["ci95_pct"][1] - hi) < 3, (vb, lo, hi)
        assert r["regression"] is (want == "slower")
        vp = r["vs_previous"]
        prev = order[order.index(run_id) - 1]
        mp = statistics.median(walls[prev])
        assert vp["run"] == prev and abs(vp["delta_pct"] - (mc - mp) / mp * 100) < 0.01, vp
    assert runs["s7-b"]["vs_baseline"]["delta_pct"] > 10, runs["s7-b"]
    assert not any(r["regression"] for r in body["runs"][:-1]), body["runs"]

    # the event: after s7-b's complete, on /events and the webhooks; none for the other runs
    reg = [m for m in ev.messages if m.get("event") == "regression"]
    assert [m["json"]["run"] for m in reg] == ["s7-b"], reg
    data = reg[0]["json"]
    vb = runs["s7-b"]["vs_baseline"]
    assert data["series"] == SERIES and abs(data["delta_pct"] - vb["delta_pct"]) < 1e-9 and data["ci95_pct"] == vb["ci95_pct"]
    assert abs(data["baseline_median_ms"] - vb["base_median_ms"]) < 1e-9 and data["candidate_median_ms"] > data["baseline_median_ms"]
    doc = json.loads((Path(__file__).resolve().parent.parent / "api" / "openapi.json").read_text())
    schema = doc["paths"]["/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]["x-data-schema"]
    jsonschema.Draft202012Validator(schema).validate(data)                # the documented RunEvent
    done = [m for m in ev.messages if m.get("event") == "complete" and m["json"]["run"] == "s7-b"]
    assert done and int(done[0]["id"]) < int(reg[0]["id"]), (done, reg)
    wait_for(lambda: any(e["event"] == "regression" for e in got), 20, "the webhook's regression event")
    assert [e["run"] for e in got if e["event"] == "regression"] == ["s7-b"], got
    ev.close()

    # GET /series, limit, 404, 400
    st, _, lst = d.json("/series")
    mine = [s for s in lst["series"] if s["key"] == SERIES]
    assert mine == [{"key": SERIES, "key_source": "label", "runs": 7, "latest_run": "s7-b", "judged_run": "s7-b", "latest_verdict": "slower",
                     "regression": True}], lst
    st, _, two = d.json(f"/series/{SERIES}?limit=2")
    assert [r["id"] for r in two["runs"]] == ["s6-n", "s7-b"] and two["runs"][1]["vs_baseline"] == vb, two
    assert d.json("/series/no-such-series")[0] == 404
    assert d.json(f"/series/{SERIES}?limit=0")[0] == 400

    # the gauges
    text = d.get("/metrics")[2].decode()
    assert f'goblind_series_regression{{series="{SERIES}"}} 1' in text, text[-2000:]
    m = re.search(r'goblind_series_step_time_delta_ratio\{series="train-x"\} (\S+)', text)
    assert m and abs(float(m.group(1)) - vb["delta_pct"] / 100) < 1e-9, m
    assert "goblind_series_dropped 0" in text

    # goblind series: the table, json, and the exit status (3: the latest judged run is a regression)
    def cli(*args):
        return subprocess.run([e2e.GOBLIND, "series", *args, "--url", d.base], capture_output=True, text=True)
    r = cli()
    assert r.returncode == 3 and SERIES in r.stdout and "REGRESSION" in r.stdout, (r.returncode, r.stdout, r.stderr)
    r = cli(SERIES)
    lines = r.stdout.splitlines()
    assert r.returncode == 3 and [ln.split()[0] for ln in lines[2:]] == order, (r.returncode, r.stdout)
    assert lines[-1].endswith("REGRESSION") and "slower" in lines[-1] and "within_noise" in lines[-2], r.stdout
    r = cli(SERIES, "--format", "json", "--limit", "2")
    assert r.returncode == 3 and json.loads(r.stdout) == two, r.stdout
    r = cli("no-such-series")
    assert r.returncode == 1 and "no series" in r.stderr, (r.returncode, r.stderr)
    assert cli("--limit", "0").returncode == 2

    # a run without a series label: the fingerprint of what it knows (model, precision, GPU, versions)
    make_run(d, staging, "f-1", seed=21, sidecar={"precision": "bf16", "labels": {"model": "llama-x"}})
    dev = d.json("/runs/f-1/analysis")[2]["device"]
    facts = [("model", "llama-x"), ("precision", "bf16"), ("gpu", dev["name"]), ("devices", dev["device_count"])]
    facts += [(k, dev[f"{k}_version"]) for k in ("pytorch", "rocm", "cuda", "driver", "runtime")]
    text = "".join(f"{k}={v}\n" for k, v in facts if v is not None)
    key = f"fp-{fnv1a64(text):016x}"
    st, _, fp = d.json(f"/series/{key}")
    assert st == 200 and fp["key_source"] == "fingerprint" and [r["id"] for r in fp["runs"]] == ["f-1"], (text, key, fp)
    assert fp["runs"][0]["vs_previous"] is None and fp["runs"][0]["regression"] is False
    r = cli(key)
    assert r.returncode == 0 and "f-1" in r.stdout and "fingerprint" in r.stdout, (r.returncode, r.stdout)
    assert d.stop() == 0
    hook.shutdown()


def test_series_gauges_bounded(tmp):
    """The per-series gauges exist for the newest metrics_max_runs series; the others are
    dropped and counted (goblind_series_dropped)."""
    d = Daemon(tmp, extra=["--metrics-max-runs", "1"])
    staging = Path(tmp) / "staging"
    staging.mkdir()
    d.start()
    for i, (run_id, series) in enumerate((("x1", "old-x"), ("x2", "old-x"), ("y1", "new-y"), ("y2", "new-y"))):
        make_run(d, staging, run_id, seed=30 + i, sidecar={"labels": {"series": series}})
    text = d.get("/metrics")[2].decode()
    got = sorted(re.findall(r'^goblind_series_(regression|step_time_delta_ratio)\{series="([^"]*)"\}', text, re.M))
    assert got == [("regression", "new-y"), ("step_time_delta_ratio", "new-y")], got
    assert re.search(r"^goblind_series_dropped 1$", text, re.M), text[-600:]
    st, _, lst = d.json("/series")
    assert [s["key"] for s in lst["series"]] == ["new-y", "old-x"] and lst["total"] == 2, lst
    assert d.json("/series?limit=1")[2] == {"series": lst["series"][:1], "total": 2}
    assert d.stop() == 0


def cache_counters(d):
    """{hits, misses, evictions, entries, capacity} of the series verdict cache, from /metrics."""
    text = d.get("/metrics")[2].decode()
    got = dict(re.findall(r"^goblind_series_verdict_cache_(\w+?)(?:_total)? (\S+)$", text, re.M))
    return {k: int(float(v)) for k, v in got.items()}


def test_series_verdict_cache(tmp):
    """The series verdicts come from a cache keyed by their inputs (docs/ANALYSIS.md "Series and
    regressions"): the same series asked twice answers the same, the second time from the cache
    alone (hits move, misses do not); a DELETE of a baseline run and a re-ingest of a run with
    other step times make exactly the verdicts whose inputs changed be computed again (misses
    move by their number), and every answer agrees with an independent computation from the
    files (pooled medians by hand, our own bootstrap for the clear verdicts)."""
    d = Daemon(tmp)
    staging = Path(tmp) / "staging"
    staging.mkdir()
    d.start()
    key = "cache-x"
    label = {"labels": {"series": key}}
    ids = [f"c{i}" for i in range(1, 8)]
    for i, run_id in enumerate(ids, 1):
        make_run(d, staging, run_id, seed=100 + i, sidecar=label, slow="Cijk=2.0" if run_id == "c7" else None)
    c = cache_counters(d)
    assert c["capacity"] >= 1000 and c["entries"] <= c["capacity"] and c["evictions"] == 0, c

    def check(body, order):
        """The listed verdicts against the files: runs, medians, delta, and c7's clear verdict."""
        assert [r["id"] for r in body["runs"]] == order, body["runs"]
        walls = {r: step_walls(d.roots[0] / r) for r in order}
        for n, r in enumerate(body["runs"]):
            if n == 0:
                assert r["vs_previous"] is None and r["vs_baseline"] is None, r
                continue
            base_ids = order[max(0, n - BASELINE):n]
            vb, vp = r["vs_baseline"], r["vs_previous"]
            assert vb["runs"] == base_ids and vp["run"] == order[n - 1], r
            mc = statistics.median(walls[r["id"]])
            for v, ref in ((vb, [w for b in base_ids for w in walls[b]]), (vp, walls[order[n - 1]])):
                mb = statistics.median(ref)
                assert abs(v["base_median_ms"] - mb / 1e6) < 1e-3 and abs(v["candidate_median_ms"] - mc / 1e6) < 1e-3, (r, mb, mc)
                assert abs(v["delta_pct"] - (mc - mb) / mb * 100) < 0.01, (r, mb, mc)
                lo, hi = v["ci95_pct"]
                assert lo <= v["delta_pct"] <= hi, v
        last = body["runs"][-1]
        pooled = [w for b in last["vs_baseline"]["runs"] for w in walls[b]]
        verdict, lo, hi = bootstrap_verdict(pooled, walls[last["id"]])
        assert verdict == "slower" == last["vs_baseline"]["verdict"] and last["regression"], (last, lo, hi)

    def judged(body):
        return sum(r["vs_previous"] is not None for r in body["runs"]) * 2

    url = f"/series/{key}?limit=1000"
    c0 = cache_counters(d)
    body = d.json(url)[2]
    check(body, ids)
    c1 = cache_counters(d)
    again = d.json(url)[2]
    c2 = cache_counters(d)
    assert again == body                                      # the same answer, from the cache alone
    assert c2["misses"] == c1["misses"], (c1, c2)
    # the GET's lookups, and the scrape's own two (the series' latest run), all hits
    assert c2["hits"] - c1["hits"] == judged(body) + 2, (c1, c2, judged(body))
    assert c1["misses"] - c0["misses"] <= judged(body), (c0, c1)   # (each run's were computed at its completion)

    # DELETE c3: c4's previous run, and the baselines of c4..c7 (c3 was in each) change (the
    # counters are read before the DELETE: a scrape judges the series' latest run, c7, too)
    c3 = cache_counters(d)
    assert d.get("/runs/c3", method="DELETE")[0] == 200
    order = [r for r in ids if r != "c3"]
    body = d.json(url)[2]
    check(body, order)
    c4 = cache_counters(d)
    assert c4["misses"] - c3["misses"] == 1 + 4, (c3, c4)
    assert c4["hits"] - c3["hits"] == judged(body) - 5 + 2, (c3, c4)

    # c5 parsed again with other step times (another seed's profile): its own two verdicts, c6's
    # previous run and the baselines of c6 and c7 change; its regression check or the GET
    # computes them, the rest hit
    other = staging / "other"
    subprocess.run([sys.executable, str(GEN), str(other), "--steps", "24", "--kernels-per-step", "40",
                    "--cpu-ops-per-step", "6", "--smi-samples", "20", "--seed", "999"], check=True, capture_output=True)
    before = step_walls(d.roots[0] / "c5")
    ev = SSE(d.base)
    os.replace(other / "torch_profile.json", d.roots[0] / "c5" / "torch_profile.json")
    ev.wait(lambda m: m.get("event") == "complete" and m["json"]["run"] == "c5", timeout=60)
    ev.close()
    assert step_walls(d.roots[0] / "c5") != before
    body = d.json(url)[2]
    check(body, order)
    c5 = cache_counters(d)
    assert c5["misses"] - c4["misses"] == 2 + 1 + 2, (c4, c5)
    assert d.json(url)[2] == body and cache_counters(d)["misses"] == c5["misses"]
    assert d.stop() == 0


HOSTILE = 'we"ird\\key\nline ünï </option><b>\x1b[2J'   # quotes, a backslash, a newline, UTF-8, markup, an escape


def prom_series_labels(text, family):
    """{series label value (unescaped as the exposition format says): sample value} of a family."""
    out = {}
    for m in re.finditer(rf'^{family}\{{series="((?:[^"\\]|\\.)*)"\}} (\S+)$', text, re.M):
        value = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), m.group(1))
        out[value] = float(m.group(2))
    return out


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_series_unknown_hostile_delete_restart(tmp):
    """What a series does not know is null / absent / "-", never 0: a failed run, an empty run and
    a complete run without per-step times in a series; a series with one run has no verdict, so no
    gauge. A hostile key (quotes, backslash, newline, UTF-8, markup) round-trips through JSON,
    /series/<percent-encoded key>, the exposition (promtool-valid) and the CLI table (one line);
    a key with a slash is reached with %2F. ?limit= edges. A run deleted while in a series leaves
    the baseline. A restart keeps the series and sends no regression event for old runs. The
    webhook receiver is dead until then: the events still come, in order, and the daemon stops.
    Every run parsed again at a start: the same verdicts whatever order the parses end in."""
    dead = f"http://127.0.0.1:{free_port()}/hook"          # nothing listens there
    d = Daemon(tmp, extra=["--webhook-url", dead])
    staging = Path(tmp) / "staging"
    staging.mkdir()
    d.start()
    enc = urllib.parse.quote(HOSTILE, safe="")
    label = {"labels": {"series": HOSTILE}}

    def cli(*args):
        return subprocess.run([e2e.GOBLIND, "series", *args, "--url", d.base], capture_output=True, text=True)

    make_run(d, staging, "a1", seed=1, sidecar=label)
    text = d.get("/metrics")[2].decode()                  # one run: nothing to judge it against
    assert HOSTILE not in prom_series_labels(text, "goblind_series_regression"), text[-800:]
    assert HOSTILE not in prom_series_labels(text, "goblind_series_step_time_delta_ratio")
    lst = d.json("/series")[2]["series"]
    assert lst == [{"key": HOSTILE, "key_source": "label", "runs": 1, "latest_run": "a1", "judged_run": "a1", "latest_verdict": None,
                    "regression": False}], lst
    r = cli()
    rows = r.stdout.splitlines()
    assert r.returncode == 0 and len(rows) == 2, (r.returncode, r.stdout)     # the newline did not split the row
    assert rows[1].split()[-2:] == ["-", "-"] and "\x1b" not in r.stdout, rows   # verdict and regression unknown

    for i in range(2, 6):
        make_run(d, staging, f"a{i}", seed=i, sidecar=label)

    def broken(t):
        (t / "torch_profile.json").write_bytes(b"{")
        for n in ("trace.csv", "amd_smi.csv"):
            (t / n).unlink()

    def empty(t):
        for f in list(t.iterdir()):
            if f.name != "goblind.json":
                f.unlink()
        (t / "notes.txt").write_text("no profile here")

    make_run(d, staging, "b-fail", seed=40, sidecar=label, mutate=broken, want="failed")
    make_run(d, staging, "d-empty", seed=42, sidecar=label, mutate=empty, want="empty")
    ev = SSE(d.base)
    make_run(d, staging, "e-slow", seed=43, sidecar=label, slow="Cijk=2.0")
    make_run(d, staging, "c-nosteps", seed=41, sidecar=label, mutate=lambda t: (t / "torch_profile.json").unlink())
    ev.wait(lambda m: m.get("event") == "regression")
    ev.wait(lambda m: m.get("event") == "complete" and m["json"]["run"] == "c-nosteps")
    kinds = [(m["event"], m["json"]["run"]) for m in ev.messages if m.get("event") in ("complete", "regression")]
    assert kinds == [("complete", "e-slow"), ("regression", "e-slow"), ("complete", "c-nosteps")], kinds
    reg = [m["json"] for m in ev.messages if m.get("event") == "regression"][0]
    assert reg["series"] == HOSTILE, reg
    ev.close()

    order = ["a1", "a2", "a3", "a4", "a5", "b-fail", "d-empty", "e-slow", "c-nosteps"]
    st, _, body = d.json(f"/series/{enc}")
    assert st == 200 and body["key"] == HOSTILE and [r["id"] for r in body["runs"]] == order, (st, body)
    runs = {r["id"]: r for r in body["runs"]}
    for rid, status in (("b-fail", "failed"), ("d-empty", "empty")):
        r = runs[rid]
        assert r["status"] == status and r["regression"] is False, r
        for k in ("step_time_ms", "tokens_per_s", "busy_pct", "steps", "vs_previous", "vs_baseline"):
            assert r[k] is None, (rid, k, r)
    r = runs["c-nosteps"]                        # complete, but no ProfilerStep: no per-step times
    assert r["status"] == "complete" and r["steps"] is None and r["regression"] is False, r
    for v in (r["vs_previous"], r["vs_baseline"]):
        assert v is None or (v["verdict"] == "unknown" and v["delta_pct"] is None and v["ci95_pct"] is None), r
    walls = {rid: step_walls(d.roots[0] / rid) for rid in ("a1", "a2", "a3", "a4", "a5", "e-slow")}
    for rid in walls:
        assert runs[rid]["steps"] == len(walls[rid]), runs[rid]

    def check_slow(base_ids):
        doc = d.json(f"/series/{enc}")[2]
        e = [r for r in doc["runs"] if r["id"] == "e-slow"][0]
        vb = e["vs_baseline"]
        assert vb["runs"] == base_ids and e["vs_previous"]["run"] == base_ids[-1], e
        pooled = [w for b in base_ids for w in walls[b]]
        mb, mc = statistics.median(pooled), statistics.median(walls["e-slow"])
        assert abs(vb["delta_pct"] - (mc - mb) / mb * 100) < 0.01 and vb["verdict"] == "slower" and e["regression"], (vb, mb, mc)
        return doc, vb
    doc, vb = check_slow(["a1", "a2", "a3", "a4", "a5"])     # the failed and empty runs are skipped

    # the list and the gauges judge the newest complete run with per-step times (e-slow), not c-nosteps
    lst = d.json("/series")[2]["series"]
    assert lst == [{"key": HOSTILE, "key_source": "label", "runs": 9, "latest_run": "c-nosteps", "judged_run": "e-slow", "latest_verdict": "slower",
                    "regression": True}], lst
    text = d.get("/metrics")[2].decode()
    chk = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    assert prom_series_labels(text, "goblind_series_regression") == {HOSTILE: 1.0}, text[-800:]
    delta = prom_series_labels(text, "goblind_series_step_time_delta_ratio")
    assert abs(delta[HOSTILE] - vb["delta_pct"] / 100) < 1e-9, delta

    # the CLI: one row per run, "-" for what is unknown, exit 3 (the latest judged run is e-slow)
    r = cli(HOSTILE)
    rows = r.stdout.splitlines()
    assert r.returncode == 3 and len(rows) == 2 + len(order), (r.returncode, r.stdout, r.stderr)
    cells = {ln.split()[0]: ln.split()[1:] for ln in rows[2:]}
    assert cells["b-fail"] == ["failed", "-", "-", "-", "-", "-", "-"], cells["b-fail"]
    assert cells["d-empty"] == ["empty", "-", "-", "-", "-", "-", "-"], cells["d-empty"]
    assert cells["c-nosteps"][:2] == ["complete", "-"] and "%" not in " ".join(cells["c-nosteps"]), cells["c-nosteps"]
    assert cells["e-slow"][-1] == "REGRESSION", cells["e-slow"]
    r = cli(HOSTILE, "--format", "json")
    assert r.returncode == 3 and json.loads(r.stdout)["key"] == HOSTILE, (r.returncode, r.stdout[:300])

    # ?limit= edges: 1 is the newest run, judged against runs before it; 1000 all; outside 1..1000 400
    one = d.json(f"/series/{enc}?limit=1")[2]["runs"]
    assert [r["id"] for r in one] == ["c-nosteps"] and one[0] == runs["c-nosteps"], one
    assert [r["id"] for r in d.json(f"/series/{enc}?limit=1000")[2]["runs"]] == order
    for bad in ("0", "1001", "-1", "1e3", "", "abc", "99999999999999999999"):
        assert d.json(f"/series/{enc}?limit={bad}")[0] == 400, bad
    assert d.json("/series/" + "x" * 129)[0] == 400

    # a key with a slash: percent-encoded, the route still finds it
    make_run(d, staging, "g-slash", seed=50, sidecar={"labels": {"series": "team/a b"}})
    st, _, g = d.json("/series/team%2Fa%20b")
    assert st == 200 and g["key"] == "team/a b" and [r["id"] for r in g["runs"]] == ["g-slash"], (st, g)

    # a run deleted while in the series: its baseline and previous run move to the runs left
    assert d.get("/runs/a5", method="DELETE")[0] == 200
    doc, vb = check_slow(["a1", "a2", "a3", "a4"])
    assert "a5" not in [r["id"] for r in doc["runs"]]
    assert [s["runs"] for s in d.json("/series")[2]["series"] if s["key"] == HOSTILE] == [8]

    # a restart: the series are kept, and no regression event is sent again for old runs
    assert d.stop() == 0
    d.start()
    ev = SSE(d.base)
    assert d.json(f"/series/{enc}")[2] == doc
    make_run(d, staging, "h-after", seed=60, sidecar={"labels": {"series": "other"}})
    ev.wait(lambda m: m.get("event") == "complete" and m["json"]["run"] == "h-after")
    try:                                          # and a scan interval later, still none
        ev.wait(lambda m: m.get("event") == "regression", timeout=3)
    except (TimeoutError, OSError):
        pass
    assert not [m for m in ev.messages if m.get("event") == "regression"], ev.messages
    ev.close()
    t0 = time.time()
    assert d.stop() == 0 and time.time() - t0 < 15 * e2e.SLACK      # the dead receiver holds nothing up
    assert "webhook" in d.logtext()

    # every run parsed again at start (as after a migration that voids the stored signatures),
    # in whatever order the workers finish: each run is judged against the same baseline as
    # before (a run being parsed again counts with its last parse), so the one regression event
    # is e-slow's, with /series' numbers, after its new complete (a new complete, a new event)
    got = []

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            got.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *a):
            pass
    hook = http.server.HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    con = sqlite3.connect(d.db)
    con.execute("UPDATE artefacts SET mtime_ns = -1")
    con.commit()
    con.close()
    d.extra = ["--webhook-url", f"http://127.0.0.1:{hook.server_port}/hook"]
    d.start()
    again = ["a1", "a2", "a3", "a4", "e-slow", "c-nosteps"]
    wait_for(lambda: {e["run"] for e in got if e["event"] == "complete"} >= set(again), 60, "the runs parsed again")
    wait_for(lambda: any(e["event"] == "regression" for e in got), 20, "the regression event")
    doc = d.json(f"/series/{enc}")[2]
    assert [r["id"] for r in doc["runs"] if r["regression"]] == ["e-slow"], doc
    vb = [r for r in doc["runs"] if r["id"] == "e-slow"][0]["vs_baseline"]
    assert vb["runs"] == ["a1", "a2", "a3", "a4"], vb
    events = [(e["event"], e["run"]) for e in got if e["event"] in ("complete", "regression")]
    regs = [e for e in got if e["event"] == "regression"]
    assert [e["run"] for e in regs] == ["e-slow"], events
    assert abs(regs[0]["delta_pct"] - vb["delta_pct"]) < 1e-9 and regs[0]["ci95_pct"] == vb["ci95_pct"], (regs[0], vb)
    assert events.index(("complete", "e-slow")) < events.index(("regression", "e-slow")), events
    assert d.stop() == 0
    hook.shutdown()


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_series", globals(), sys.argv[3:]))
