#!/usr/bin/env python3
"""GET /runs/<id>/kernels.csv and /runs/<id>/kernels.jsonl through a real daemon (the harness of
e2e_serve.py): the bodies equal `goblind export` of the same directory byte for byte, their content
types, the CSV's per-name totals equal the kernels section's (`goblind analyze`; the run has
no kernel trace for RunMetrics, so it fails and no document is stored) and an
independent Python count of the trace's kernel events; 404 for an unknown run; at most two exports
stream at once (clients that never read hold two; the others get 503 at once), and a reading client
then gets the whole body; an export past the ingest's bounds (max_parse_mb) is cut.

usage: e2e_kernel_export.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import csv
import gzip
import io
import json
import shutil
import socket
import subprocess
import sys
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

SHARED = Path(sys.argv[2])
ONLY = sys.argv[3:]
VLLM = SHARED / "fixtures" / "torch_profiler" / "tracelens_inference__vllm_decode_full__graph_execution.json.gz"


def cli_export(run_dir, fmt):
    return subprocess.run([e2e.GOBLIND, "export", str(run_dir), "--kernels", "-", "--format", fmt],
                          capture_output=True, check=True, timeout=300).stdout


def test_kernels_csv_and_jsonl(tmp):
    d = e2e.Daemon(tmp, extra=["--analysis-list-rows", "0"])
    run = d.roots[0] / "vllm-run"
    run.mkdir()
    shutil.copy(VLLM, run)
    # a file whose name and first line carry a stop's words: its warning quotes them, and the
    # export is still whole (a stop is told by how its own warning ends, not by words in one)
    (run / "cancelled (shutting down).csv").write_text("x; max_parse_mb bounds a parse\n1\n")
    d.start()
    d.wait_status("vllm-run", "complete", 60)   # a Kineto trace alone is a run
    st, h, body = d.get("/runs/vllm-run/kernels.csv")
    assert st == 200, (st, body[:300])
    assert h.get("Content-Type", "").startswith("text/csv"), h
    assert body == cli_export(run, "csv"), "kernels.csv differs from goblind export"
    st, h, jl = d.get("/runs/vllm-run/kernels.jsonl")
    assert st == 200 and h.get("Content-Type") == "application/x-ndjson", (st, h)
    assert jl == cli_export(run, "jsonl"), "kernels.jsonl differs from goblind export"
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    got = defaultdict(lambda: [0, 0])
    for r in rows:
        got[r["name"]][0] += 1
        got[r["name"]][1] += int(r["duration_ns"])
    doc = json.loads(subprocess.run([e2e.GOBLIND, "analyze", str(run), "--rows", "0"], capture_output=True, check=True,
                                    timeout=300).stdout)
    section = {r["name"]: [r["calls"], r["total_ns"]] for r in doc["kernels"]["by_name"]}
    assert dict(got) == section, "per-name totals differ from the kernels section"
    py = defaultdict(lambda: [0, 0])                      # independent: the trace's kernel events
    for e in json.load(gzip.open(VLLM), parse_float=Decimal)["traceEvents"]:
        if e.get("cat") == "kernel" and "dur" in e:
            py[e["name"]][0] += 1
            py[e["name"]][1] += int(Decimal(str(e["dur"])) * 1000)
    assert dict(got) == dict(py), "per-name totals differ from Python over the trace"
    assert [json.loads(x)["name"] for x in jl.decode().splitlines()] == [r["name"] for r in rows]
    assert d.get("/runs/no-such-run/kernels.csv")[0] == 404
    assert d.stop() == 0



def test_exports_bounded(tmp):
    d = e2e.Daemon(tmp)
    e2e.gen(d.roots[0] / "big", steps=60, kernels=400)          # 24,000 rows, ~4 MB of CSV
    d.start()
    d.wait_status("big", "complete", 90)
    port = int(d.base.rsplit(":", 1)[1])
    hogs = []
    for _ in range(6):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /runs/big/kernels.csv HTTP/1.1\r\nHost: x\r\n\r\n")
        hogs.append(s)
        time.sleep(0.2)
    busy = 0
    for s in hogs:
        s.settimeout(5)
        try:
            head = s.recv(200)
            busy += head.startswith(b"HTTP/1.1 503")
        except socket.timeout:
            pass
    for s in hogs:
        s.close()
    assert busy >= 4, f"{busy} of 6 non-reading clients got 503 (at most 2 exports stream)"
    def whole():
        st, _, body = d.get("/runs/big/kernels.csv")
        return st == 200 and body == cli_export(d.roots[0] / "big", "csv")
    e2e.wait_for(whole, 60, "a whole export once the others are gone")
    assert d.stop() == 0


def test_export_bounded_like_an_ingest(tmp):
    """A run whose files are past max_parse_mb fails its ingest, and the daemon lives (the
    driver's second read of the torch profile emitted into the failed RunMetrics passenger's
    closed pipe: a NULL state, SIGSEGV). An export reads the run's files again under the same
    byte bound, and one cut by it breaks the transfer off: never a 200 body that parses."""
    d = e2e.Daemon(tmp, extra=["--max-parse-mb", "1"])
    e2e.gen(d.roots[0] / "big", steps=60, kernels=400)          # ~4 MB of kernel trace
    d.start()
    d.wait_status("big", "failed", 90)                           # (the ingest: past max_parse_mb)
    whole = cli_export(d.roots[0] / "big", "csv")                # goblind export: no bound
    try:
        st, _, body = d.get("/runs/big/kernels.csv")
        broken = st != 200
    except Exception:  # noqa: BLE001 - an aborted chunked body (IncompleteRead, reset): broken off
        broken, body = True, b""
    assert broken, f"a 200 body of {len(body)} bytes (whole: {len(whole)}): a cut export must break the transfer off"
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_kernel_export", globals(), ONLY))
