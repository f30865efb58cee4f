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
import statistics
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)
from e2e_serve import Daemon, GEN, SSE, wait_for  # noqa: E402

SERIES = "train-x"
BASELINE = 5                     # series_baseline_runs' default


def make_run(d, staging, run_id, seed, sidecar, slow=None):
    """A gen_run directory with a goblind.json, moved into the root whole (so the sidecar is
    there before the daemon reads the run), then waited for until complete."""
    tmp = Path(staging) / run_id
    extra = ["--slow", slow] if slow else []
    subprocess.run([sys.executable, str(GEN), str(tmp), "--steps", "24", "--kernels-per-step", "40",
                    "--cpu-ops-per-step", "6", "--smi-samples", "20", "--seed", str(seed), *extra],
                   check=True, capture_output=True)
    (tmp / "goblind.json").write_text(json.dumps(sidecar))
    os.rename(tmp, d.roots[0] / run_id)
    d.wait_status(run_id, "complete", timeout=60)


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
    assert mine == [{"key": SERIES, "key_source": "label", "runs": 7, "latest_run": "s7-b", "latest_verdict": "slower",
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


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_series", globals(), sys.argv[3:]))
