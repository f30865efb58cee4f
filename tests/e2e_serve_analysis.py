#!/usr/bin/env python3
"""End-to-end tests of the analysis document as the daemon serves it, through a real daemon on an
ephemeral loopback port (the harness of e2e_serve.py):

- the analysis headline numbers per run (table run_gauges, schema 9): Prometheus series
  goblind_run_{span,busy,idle,communication,exposed_communication}_seconds,
  goblind_run_communication_overlap_ratio and goblind_run_kernel_class_seconds{class}, each
  checked against the stored analysis document; absent numbers have no series; bounded by
  metrics_max_runs like every per-run series; deleted with the run;
- /compare's `timeline` and `kernel_classes` deltas against the two documents;
- GET /runs/<id>/kernels for a run whose kernels only the rocprofv3 JSON carries (a format
  RunMetrics does not read): the rows come from the analysis's kernels section, with
  source "analysis", and are compared with an independent count of the JSON's dispatches.

usage: e2e_serve_analysis.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import gzip
import json
import shutil
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

SHARED = Path(sys.argv[2])
ONLY = sys.argv[3:]
ROCPROF_JSON = SHARED / "fixtures" / "rocprofv3" / "rocprofv3_908_results.json.gz"
CLASSES = ["gemm", "attention", "communication", "memcpy", "memset", "elementwise", "reduction", "normalization",
           "convolution", "barrier", "other"]


def scrape(d):
    """/metrics as {(name, frozenset(labels.items())): value} plus the HELP/TYPE lines."""
    st, _, body = d.get("/metrics")
    assert st == 200, st
    samples, meta = {}, set()
    for line in body.decode().splitlines():
        if line.startswith("#"):
            meta.add(" ".join(line.split()[:3]))
            continue
        if not line:
            continue
        head, value = line.rsplit(" ", 1)
        name, _, labels = head.partition("{")
        lab = {}
        for part in labels.rstrip("}").split('",'):
            if part:
                k, v = part.split('="', 1)
                lab[k] = v.rstrip('"')
        samples[(name, frozenset(lab.items()))] = float(value)
    return samples, meta


def run_value(samples, name, run, **labels):
    return samples.get((name, frozenset(dict(run=run, **labels).items())))


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def json_dispatches(path):
    """Independent count: per kernel name (formatted, else demangled, else kernel_name, as
    rocprofv3 names them), the dispatches and their summed end - start."""
    doc = json.load(gzip.open(path))["rocprofiler-sdk-tool"]
    calls, total = defaultdict(int), defaultdict(int)
    for proc in doc:
        names = {}
        for s in proc["kernel_symbols"]:
            names[s["kernel_id"]] = (s.get("formatted_kernel_name") or s.get("demangled_kernel_name")
                                     or s.get("kernel_name"))
        for k in proc["buffer_records"]["kernel_dispatch"]:
            name = names.get(k["dispatch_info"]["kernel_id"])
            if not name:
                continue
            calls[name] += 1
            total[name] += k["end_timestamp"] - k["start_timestamp"]
    return calls, total


def analysis(d, run):
    st, _, doc = d.json(f"/runs/{run}/analysis")
    assert st in (200, 422) and isinstance(doc, dict) and "sources" in doc, st     # 422: a failed run's document
    return doc


def test_kernels_from_rocprofv3_json_only(tmp):
    # the document lists 20 names (analysis_list_rows); /kernels still serves every name
    d = e2e.Daemon(tmp, extra=["--analysis-list-rows", "20"])
    run = d.roots[0] / "json-only"
    run.mkdir()
    shutil.copy(ROCPROF_JSON, run / "908_results.json.gz")
    e2e.gen(d.roots[0] / "csv-run", seed=3)
    d.start()
    d.wait_status("json-only", "failed")            # no kernel trace CSV: RunMetrics cannot be complete
    d.wait_status("csv-run", "complete")
    calls, total = json_dispatches(ROCPROF_JSON)
    assert calls, "the fixture has dispatches"
    for limit in (100000, 500):                      # streamed (> 1000) and in memory
        st, _, k = d.json(f"/runs/json-only/kernels?limit={limit}")
        assert st == 200, (st, k)
        assert k["source"] == "analysis" and k["source_formats"] == ["rocprofv3-json"], (k["source"], k["source_formats"])
        rows = k["kernels"]
        assert len(rows) == min(limit, len(calls)), (len(rows), len(calls))
        for r in rows:
            assert r["calls"] == calls[r["name"]], (r["name"], r["calls"], calls[r["name"]])
            assert r["total_ns"] == total[r["name"]], (r["name"], r["total_ns"], total[r["name"]])
            assert r["min_ns"] <= r["avg_ns"] <= r["max_ns"] and r["class"] in CLASSES, r
        assert [r["total_ns"] for r in rows] == sorted((r["total_ns"] for r in rows), reverse=True)
    assert abs(sum(r["pct_time"] for r in d.json("/runs/json-only/kernels?limit=100000")[2]["kernels"]) - 100) < 1e-6
    # the analysis document's kernels section is what was stored
    doc_kernels = analysis(d, "json-only")["kernels"]
    by_name = {r["name"]: r for r in doc_kernels["by_name"]}
    assert len(calls) > 20 and len(by_name) == doc_kernels["listed"] == 20 and set(by_name) <= set(calls)
    assert doc_kernels["unlisted"]["names"] == len(calls) - 20, doc_kernels["unlisted"]
    # a run RunMetrics reads keeps RunMetrics' rows, and says so
    st, _, k = d.json("/runs/csv-run/kernels?limit=1000")
    assert k["source"] == "run_metrics" and k["source_formats"] and all(r["class"] in CLASSES for r in k["kernels"]), k
    assert d.stop() == 0


def test_prometheus_analysis_gauges(tmp):
    d = e2e.Daemon(tmp)
    e2e.gen(d.roots[0] / "g-a", seed=3)
    tele = d.roots[0] / "tele-only"                  # telemetry alone: no timeline, no classes
    e2e.gen(Path(tmp) / "src", seed=4)
    tele.mkdir()
    shutil.copy(Path(tmp) / "src" / "amd_smi.csv", tele / "amd_smi.csv")
    d.start()
    d.wait_status("g-a", "complete")
    d.wait_status("tele-only", "failed")
    samples, meta = scrape(d)
    doc = analysis(d, "g-a")
    tl = doc["timeline"]["run"]
    for series, key in (("goblind_run_span_seconds", "span_ns"), ("goblind_run_busy_seconds", "busy_ns"),
                        ("goblind_run_idle_seconds", "idle_ns"), ("goblind_run_communication_seconds", "communication_ns"),
                        ("goblind_run_exposed_communication_seconds", "exposed_communication_ns")):
        assert f"# TYPE {series}" in meta and f"# HELP {series}" in meta, series
        assert close(run_value(samples, series, "g-a"), tl[key] / 1e9), (series, run_value(samples, series, "g-a"), tl[key])
        assert run_value(samples, series, "tele-only") is None, series       # unknown: no sample, never 0
    assert close(run_value(samples, "goblind_run_communication_overlap_ratio", "g-a"), tl["overlap_pct"] / 100)
    by_class = {c["class"]: c["total_ns"] for c in doc["classes"]["by_class"]}
    got = {dict(lab)["class"]: v for (name, lab), v in samples.items()
           if name == "goblind_run_kernel_class_seconds" and dict(lab)["run"] == "g-a"}
    assert set(got) == set(CLASSES), got                                     # the fixed label set
    for c in CLASSES:
        assert close(got[c], by_class.get(c, 0) / 1e9), (c, got[c], by_class.get(c))
    assert close(sum(got.values()), doc["classes"]["total_ns"] / 1e9)        # classes sum to the total
    assert not any(dict(lab).get("run") == "tele-only" for (name, lab) in samples
                   if name == "goblind_run_kernel_class_seconds")
    # deleted with the run
    assert d.get("/runs/g-a", method="DELETE")[0] == 200
    samples, _ = scrape(d)
    assert run_value(samples, "goblind_run_busy_seconds", "g-a") is None
    assert d.stop() == 0
    with sqlite3.connect(d.db) as db:
        assert db.execute("SELECT COUNT(*) FROM run_gauges WHERE run_id = 'g-a'").fetchone()[0] == 0
    db.close()


def test_prometheus_gauges_bounded(tmp):
    """metrics_max_runs bounds the analysis series like every per-run series: the newest runs."""
    d = e2e.Daemon(tmp, extra=["--config", str(Path(tmp) / "g.conf")])
    (Path(tmp) / "g.conf").write_text("metrics_max_runs = 1\n")
    for i, seed in enumerate((3, 5)):
        e2e.gen(d.roots[0] / f"b-{i}", seed=seed)
    d.start()
    d.wait_status("b-0", "complete")
    d.wait_status("b-1", "complete")
    samples, _ = scrape(d)
    runs = {dict(lab)["run"] for (name, lab) in samples if name in ("goblind_run_busy_seconds",
                                                                    "goblind_run_kernel_class_seconds")}
    state = {dict(lab)["run"] for (name, lab) in samples if name == "goblind_run_state"}
    assert len(runs) == 1 and runs == state, (runs, state)
    assert d.stop() == 0


def test_compare_timeline_and_classes(tmp):
    d = e2e.Daemon(tmp)
    e2e.gen(d.roots[0] / "c-a", seed=3)
    e2e.gen(d.roots[0] / "c-b", seed=5, kernels=90)
    d.start()
    d.wait_status("c-a", "complete")
    d.wait_status("c-b", "complete")
    st, _, cmp = d.json("/compare?base=c-a&candidate=c-b")
    assert st == 200, cmp
    a, b = analysis(d, "c-a"), analysis(d, "c-b")
    for key, field, scale in (("busy_seconds", "busy_ns", 1e-9), ("idle_seconds", "idle_ns", 1e-9),
                              ("span_seconds", "span_ns", 1e-9),
                              ("exposed_communication_seconds", "exposed_communication_ns", 1e-9),
                              ("overlap_pct", "overlap_pct", 1.0)):
        t = cmp["timeline"][key]
        x, y = a["timeline"]["run"][field] * scale, b["timeline"]["run"][field] * scale
        assert close(t["base"], x) and close(t["candidate"], y) and close(t["delta"], y - x), (key, t, x, y)
    ca = {c["class"]: c["total_ns"] for c in a["classes"]["by_class"]}
    cb = {c["class"]: c["total_ns"] for c in b["classes"]["by_class"]}
    assert set(cmp["kernel_classes"]) == set(CLASSES)
    for c in CLASSES:
        k = cmp["kernel_classes"][c]
        x, y = ca.get(c, 0) / 1e9, cb.get(c, 0) / 1e9
        assert close(k["base_seconds"], x) and close(k["candidate_seconds"], y), (c, k, x, y)
        assert close(k["delta_seconds"], y - x), (c, k)
        assert (k["ratio"] is None) if x == 0 else close(k["ratio"], y / x), (c, k)
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_serve_analysis", globals(), ONLY))
