#!/usr/bin/env python3
"""End-to-end tests of the stored analysis document (store part): GET /runs/<id>/analysis and
GET /runs/<id>/report.md through a real daemon on an ephemeral loopback port, plus the
`goblind analysis` / `goblind report` commands.

Written to pass before and after the core engineer's analysis driver lands:
- a run parsed by the daemon answers either 200 with a JSON document (driver merged) or 404
  `no_analysis` (no driver yet: the parse stored no document) — never 202 once complete, never
  an empty 200; whichever it is, the report agrees;
- the full serving path is then checked in both worlds by writing a document and a report into
  the database while the daemon is stopped (the store's own table, as an ingest would) and
  restarting it: the run's files are unchanged, so it is not parsed again and the daemon must
  serve those bytes exactly (if a later driver re-parses on start, ingest_count says so and only
  the shape is checked).

usage: e2e_analysis.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

GOBLIND = e2e.GOBLIND
ONLY = sys.argv[3:]

DOC = '{"sources":[{"path":"trace.csv"}],"kernels":{"total_ns":123},"note":"caf\u00e9 \u2192 ok"}'
REPORT = "# Run r-1\n\n| kernel | total ns |\n|---|---|\n| gemm | 123 |\n\ncaf\u00e9\n"


def check_doc_answer(d, run, status, headers, body):
    """A complete run: the driver's document (200) or a clear 404 no_analysis; nothing else."""
    _, mh, _ = d.get(f"/runs/{run}/metrics")
    if status == 200:
        assert headers["Content-Type"] == "application/json", headers
        assert isinstance(json.loads(body), dict) and body, body[:200]
        assert headers["ETag"] == mh["ETag"], (headers["ETag"], mh["ETag"])     # one version per run
        assert headers["Goblind-Run-Status"] == "complete"
        assert d.get(f"/runs/{run}/analysis", {"If-None-Match": headers["ETag"]})[0] == 304
    else:
        assert status == 404, (status, body[:300])
        err = json.loads(body)
        assert err["error"] == "no_analysis" and run in err["detail"], err


def test_analysis_and_report_endpoints(tmp):
    d = e2e.Daemon(tmp)
    e2e.gen(d.roots[0] / "r-1", seed=3)
    d.start()
    d.wait_status("r-1", "complete")
    st, h, body = d.get("/runs/r-1/analysis")
    check_doc_answer(d, "r-1", st, h, body)
    rst, rh, rbody = d.get("/runs/r-1/report.md")
    if rst == 200:
        assert rh["Content-Type"] == "text/markdown; charset=utf-8" and rh["ETag"] == d.get("/runs/r-1/metrics")[1]["ETag"]
        rbody.decode("utf-8")
    else:
        assert rst == 404 and json.loads(rbody)["error"] == "no_analysis", (rst, rbody)
    st, _, body = d.get("/runs/r-1/analysis?wait=3")         # final: answered at once, not held
    assert st in (200, 404)
    count = d.json("/runs/r-1")[2]["ingest_count"]
    assert d.stop() == 0

    # the full path, whatever the driver does: a stored document and report, served as stored
    with sqlite3.connect(d.db) as db:
        db.execute("INSERT INTO run_analysis(run_id, json, report_md) VALUES ('r-1', ?, ?)"
                   " ON CONFLICT(run_id) DO UPDATE SET json = excluded.json, report_md = excluded.report_md",
                   (DOC, REPORT))
    db.close()
    d.start()
    st, h, body = d.get("/runs/r-1/analysis")
    assert st == 200, (st, body[:300])
    reparsed = d.json("/runs/r-1")[2]["ingest_count"] != count
    if not reparsed:
        assert body == DOC.encode(), body
        etag = h["ETag"]
        assert etag == f'"{count}-complete"', etag
        assert d.get("/runs/r-1/analysis", {"If-None-Match": etag})[0] == 304
        assert d.get("/runs/r-1/analysis", {"If-None-Match": '"0-running"'})[0] == 200
        st, rh, rbody = d.get("/runs/r-1/report.md")
        assert st == 200 and rbody == REPORT.encode() and rh["ETag"] == etag, (st, rbody)
        assert rh["Content-Type"] == "text/markdown; charset=utf-8"
        assert d.get("/runs/r-1/report.md", {"If-None-Match": etag})[0] == 304
        url = d.base.split("//")[1]
        out = subprocess.run([GOBLIND, "analysis", "r-1", "--url", url], capture_output=True)
        assert out.returncode == 0 and out.stdout == DOC.encode() + b"\n", out
        out = subprocess.run([GOBLIND, "report", "r-1", "--wait", "--url", url], capture_output=True)
        assert out.returncode == 0 and out.stdout == REPORT.encode(), out
    else:
        check_doc_answer(d, "r-1", st, h, body)

    # errors: unknown run, bad wait, and the document goes with the run
    st, _, err = d.json("/runs/nope/analysis")
    assert st == 404 and err["error"] == "not_found", err
    assert d.get("/runs/r-1/report.md?wait=abc")[0] == 400
    url = d.base.split("//")[1]
    out = subprocess.run([GOBLIND, "report", "nope", "--url", url], capture_output=True, text=True)
    assert out.returncode == 1 and "404" in out.stderr, out
    assert d.get("/runs/r-1", method="DELETE")[0] == 200
    assert d.get("/runs/r-1/analysis")[0] == 404 and d.get("/runs/r-1/report.md")[0] == 404
    assert d.get("/runs/r-1/analysis", method="DELETE")[0] == 405
    assert d.stop() == 0
    with sqlite3.connect(d.db) as db:
        assert db.execute("SELECT COUNT(*) FROM run_analysis WHERE run_id = 'r-1'").fetchone()[0] == 0
    db.close()


def test_analysis_long_poll_while_written(tmp):
    """A run still being written: 202 + Retry-After, and ?wait holds the request until the run
    is final, then answers as a complete run does (200 with the document, or 404 no_analysis)."""
    d = e2e.Daemon(tmp, extra=["--quiet-s", "2"]).start()
    run = d.roots[0] / "poll-a"
    e2e.gen(Path(tmp) / "src", seed=5)
    run.mkdir()
    e2e.wait_for(lambda: d.get("/runs/poll-a")[0] == 200, 10, "run discovered")
    st, h, body = d.get("/runs/poll-a/analysis")
    if st == 202:
        assert h.get("Retry-After") == "2" and json.loads(body)["status"] in ("pending", "running"), (h, body)
    import shutil
    import threading
    result = {}

    def poll():
        t0 = time.time()
        result["st"], result["h"], result["body"] = d.get("/runs/poll-a/analysis?wait=30")
        result["dt"] = time.time() - t0
    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.3)
    for f in ("amd_smi.csv", "trace.csv", "torch_profile.json"):
        shutil.copy(Path(tmp) / "src" / f, run / f)
    t.join(40)
    assert result.get("dt", 99) < 25, result
    assert d.json("/runs/poll-a")[2]["status"] == "complete"
    check_doc_answer(d, "poll-a", result["st"], result["h"], result["body"])
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_analysis", globals(), ONLY))
