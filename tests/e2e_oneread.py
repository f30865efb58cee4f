#!/usr/bin/env python3
"""End-to-end tests of one read per ingest and of re-ingest on any source, through a real
daemon on an ephemeral loopback port:

- the stored RunMetrics equals `goblind parse` and the stored analysis document equals
  `goblind analyze` (but parse times): the ingest's one read (core/run_ingest) gives both;
- a run already complete is ingested again when a source RunMetrics does not read changes:
  a second rank's trace added (`rank1.pt.trace.json`) makes the document's `sources` grow
  (and `GET /runs/<id>`'s `sources`, the same files and formats),
  a rocprofv3 copy trace added one directory down too, and rewriting that trace again; a
  file no format reads (a log) changes nothing.

usage: e2e_oneread.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

GOBLIND = e2e.GOBLIND
ONLY = sys.argv[3:]

COPY_TRACE = ('"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id",'
              '"Start_Timestamp","End_Timestamp"\n'
              '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,1,1000,2000\n')


def analysis(d, run):
    st, _, body = d.get(f"/runs/{run}/analysis")
    assert st == 200, (st, body[:300])
    return json.loads(body)


def paths(doc):
    return sorted(s["path"] for s in doc["sources"])


def wait_ingests(d, run, more_than, timeout=30):
    e2e.wait_for(lambda: d.json(f"/runs/{run}")[2]["ingest_count"] > more_than, timeout,
                 f"run {run} ingested again")
    d.wait_status(run, "complete", timeout)


def strip_times(doc):
    # parse_ms is a timing; pieces says how a file was cut for reading (the daemon's ingest
    # never reads in ordered chunks, `goblind analyze` does): neither is a result
    for s in doc["sources"]:
        s.pop("parse_ms", None)
        s.pop("pieces", None)
    return doc


def test_ingest_equals_parse_and_analyze(tmp):
    d = e2e.Daemon(tmp)
    run = d.roots[0] / "one"
    e2e.gen(run, seed=5)
    d.start()
    d.wait_status("one", "complete")
    st, _, body = d.get("/runs/one/metrics")
    assert st == 200
    assert json.loads(body) == e2e.parse(run), body[:300]
    want = json.loads(subprocess.run([GOBLIND, "analyze", str(run)], check=True, capture_output=True).stdout)
    assert strip_times(analysis(d, "one")) == strip_times(want)
    assert d.stop() == 0


def test_reingest_on_any_source(tmp):
    d = e2e.Daemon(tmp)
    run = d.roots[0] / "ranks"
    e2e.gen(run, seed=6)
    d.start()
    d.wait_status("ranks", "complete")
    before = analysis(d, "ranks")
    assert "rank1.pt.trace.json" not in paths(before), paths(before)
    count = d.json("/runs/ranks")[2]["ingest_count"]
    metrics = d.get("/runs/ranks/metrics")[2]

    # a file no format reads: nothing to ingest again
    (run / "notes.txt").write_text("not a trace\n")
    time.sleep(3)                     # longer than settle + a scan interval
    assert d.json("/runs/ranks")[2]["ingest_count"] == count

    # a second rank's trace: RunMetrics' files are unchanged, the run is ingested again
    staged = Path(tmp) / "rank1.pt.trace.json"
    shutil.copy(run / "torch_profile.json", staged)
    staged.rename(run / "rank1.pt.trace.json")
    wait_ingests(d, "ranks", count)
    after = analysis(d, "ranks")
    assert len(after["sources"]) == len(before["sources"]) + 1, (paths(before), paths(after))
    assert "rank1.pt.trace.json" in paths(after)
    # GET /runs/<id> shows the same inventory: every file, its format and why
    keys = ("path", "format", "found_by", "sniff_score", "rank", "read")
    detail = d.json("/runs/ranks")[2]
    assert detail["sources"] == [{k: s[k] for k in keys} for s in after["sources"]], detail["sources"]
    assert sum(s["format"] == "torch-trace-json" for s in detail["sources"]) == 2, detail["sources"]
    assert d.get("/runs/ranks/metrics")[2] == metrics      # RunMetrics reads the same three files
    count = d.json("/runs/ranks")[2]["ingest_count"]

    # a rocprofv3 copy trace one directory down, then rewritten
    (run / "host0").mkdir()
    (run / "host0" / "77_memory_copy_trace.csv").write_text(COPY_TRACE)
    wait_ingests(d, "ranks", count)
    assert "host0/77_memory_copy_trace.csv" in paths(analysis(d, "ranks"))
    count = d.json("/runs/ranks")[2]["ingest_count"]
    (run / "host0" / "77_memory_copy_trace.csv").write_text(COPY_TRACE + COPY_TRACE.splitlines()[1] + "\n")
    wait_ingests(d, "ranks", count)
    count = d.json("/runs/ranks")[2]["ingest_count"]

    # and a source removed
    (run / "rank1.pt.trace.json").unlink()
    wait_ingests(d, "ranks", count)
    assert "rank1.pt.trace.json" not in paths(analysis(d, "ranks"))
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_oneread", globals(), ONLY))
