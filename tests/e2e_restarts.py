#!/usr/bin/env python3
"""End-to-end tests of `goblind serve`: the database across restarts. A restart keeps every run
and parses none again; a database an older goblind left is migrated (from schema 1) or, after
new heuristics (schema 5), every run is parsed again; a daemon killed with SIGKILL in the middle
of ingests leaves an intact database that the next start completes. The harness (Daemon, gen,
...) is e2e_serve.py's.

usage: e2e_restarts.py GOBLIND SHARED_DIR [TEST_NAME...]
"""
import json
import shutil
import signal
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)
from e2e_serve import Daemon, check_metrics_body, gen, wait_for  # noqa: E402


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
             " waste_precision_path waste_kernel_shape kernels_source kernels_formats profile headline_json").split()
    # (versions 7, 8, 9, 10 and 11 added them)
    con.executescript("ALTER TABLE artefacts DROP COLUMN reading; DROP TABLE run_analysis; DROP TABLE run_gauges;"
                      "DROP TABLE run_series;"
                      "ALTER TABLE kernels DROP COLUMN class;"
                      + "".join(f"ALTER TABLE runs DROP COLUMN {c};" for c in later) + "PRAGMA user_version = 4;")
    con.close()
    d.start()
    wait_for(lambda: d.json("/runs/old-rules")[2]["ingest_count"] == 2, 30, "the run to be parsed again")
    d.wait_status("old-rules", "complete")
    arts = d.json("/runs/old-rules")[2]["artefacts"]
    assert all(a["rows_used"] > 0 and a["columns"] for a in arts), arts
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
    assert con.execute("PRAGMA user_version").fetchone()[0] == 11
    assert con.execute("SELECT COUNT(*) FROM run_series").fetchone()[0] == 0                           # v11
    assert {"error", "reading"} <= {r[1] for r in con.execute("PRAGMA table_info(artefacts)")}
    assert {"hbm_avg_gb", "waste_host_gap"} <= {r[1] for r in con.execute("PRAGMA table_info(runs)")}   # v8
    assert con.execute("SELECT COUNT(*) FROM run_analysis").fetchone()[0] == 0                         # v7
    assert con.execute("SELECT COUNT(*) FROM run_gauges").fetchone()[0] == 0                           # v9
    assert "class" in {r[1] for r in con.execute("PRAGMA table_info(kernels)")}                         # v9
    con.close()


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


if __name__ == "__main__":
    sys.exit(e2e.run_suite("e2e_restarts", globals(), sys.argv[3:]))
