#!/usr/bin/env python3
"""Hostile SQLite databases in a run directory (rocpd `*_results.db`, rocprof v1
`results.db`): endless recursive views, a 200-million-row view, an endless view sorted
inside its own definition, rows with huge names, a json_each bomb, a view whose function is
not allowed in a schema. Each is read by the format (section_tool --max-parse-s, the
daemon's deadline) and must end within a bound derived from max_parse_s, with SQLite's
temporary directory left empty and a warning saying why; then through a real daemon: the
run fails with that reason (never `complete` with numbers), a good run beside it completes,
and SIGTERM of a daemon whose workers are both stuck on such databases exits promptly.
The databases are written here with Python's sqlite3 (hostile_databases(), also the fuzz
seeds: fuzz/corpus/sqlite/).

usage: hostile_sqlite.py GOBLIND SHARED_DIR [TEST_NAME...]   (SECTION_TOOL in the environment)
"""
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness and helpers)

ONLY = sys.argv[3:]
Daemon, gen, wait_for = e2e.Daemon, e2e.gen, e2e.wait_for
SECTION_TOOL = os.environ.get("SECTION_TOOL", "")
SLOW = 4 if os.environ.get("ASAN_OPTIONS") or "asan" in SECTION_TOOL else 1   # generous under ASan

ENDLESS = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c)"
KCOLS = ("id, name, start, \"end\", agent_abs_index, stream_id, queue_id, corr_id, grid_x, grid_y, grid_z, "
         "workgroup_x, workgroup_y, workgroup_z, lds_size, scratch_size, vgpr_count, sgpr_count")


def kernel_view(cte, source, name="'k' || (i % 7)"):
    """A kernels view with every column the reader asks for, rows i from `source` under `cte`."""
    return (f"CREATE VIEW kernels({KCOLS}) AS {cte} SELECT i, {name}, i * 10, i * 10 + 5, 0, 1, 1, i, 1, 1, 1, "
            f"1, 1, 1, 0, 0, 8, 8 FROM {source}")


def real_kernels(db, n=5):
    db.execute(f"CREATE TABLE kernels({KCOLS})")
    db.executemany("INSERT INTO kernels VALUES (?, ?, ?, ?, 0, 1, 1, ?, 1, 1, 1, 1, 1, 1, 0, 0, 8, 8)",
                   [(i, f"real_kernel_{i % 2}", 1000 * i, 1000 * i + 500, i) for i in range(1, n + 1)])


def hostile_databases():
    """name -> (file name, SQL script): each a database a stranger could leave in a run
    (a script starting "@real_kernels" also gets a plain kernels table of 5 rows)."""
    three = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c LIMIT 3)"
    return {
        "spinning_kernels_view": ("1_results.db", kernel_view(ENDLESS, "c WHERE i < 0")),   # no row, no end
        "endless_kernels_view": ("1_results.db", kernel_view(ENDLESS, "c")),
        "many_rows_view": ("1_results.db", kernel_view(
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c LIMIT 200000000)", "c")),
        "sorted_endless_view": ("1_results.db", kernel_view(ENDLESS, "c ORDER BY random()")),
        "fanout_cte_view": ("1_results.db", kernel_view(
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + x FROM c, (SELECT 1 AS x UNION ALL SELECT 2))",
            "c")),
        "spinning_regions_view": ("1_results.db", "@real_kernels\n"
                                  f"CREATE VIEW regions(id, category, name, start, \"end\", tid, corr_id, pid) AS "
                                  f"{ENDLESS} SELECT i, 1, 1, 1, 1, 1, 1, 1 FROM c WHERE i < 0"),
        "huge_names_view": ("1_results.db", kernel_view(three, "c", "'x' || zeroblob(100000000)")),
        "huge_stored_name": ("1_results.db", "@real_kernels\nUPDATE kernels SET name = printf('%.*c', 8000000, 'x') "
                             "WHERE id = 3"),
        "long_names_view": ("1_results.db", kernel_view(three, "c", "printf('%.*c', 100000, 'x')")),
        "json_each_bomb_agents": ("1_results.db", "@real_kernels\n"
                                  "CREATE VIEW rocpd_info_agent(id, absolute_index, type, name, vendor_name, "
                                  "product_name, extdata) AS SELECT 1, 0, 'GPU', 'gfx', 'AMD', 'MI', "
                                  "(WITH RECURSIVE b(i, j) AS (SELECT 1, '{\"heap_type\":1,\"size_in_bytes\":1}' "
                                  "UNION ALL SELECT i + 1, j FROM b) SELECT '{\"mem_banks\":[' || "
                                  "group_concat(j) || ']}' FROM b)"),
        "tokenizer_kernels_view": ("1_results.db", kernel_view("", "(SELECT 1 AS i)",
                                                               "hex(fts3_tokenizer('simple'))")),
        "v1_spinning_table_a": ("results.db", f"CREATE VIEW A(KernelName, BeginNs, EndNs) AS "
                                f"{ENDLESS} SELECT i, i, i + 1 FROM c WHERE i < 0"),
    }


def build(path, script):
    if path.exists():
        path.unlink()
    db = sqlite3.connect(path)
    if script.startswith("@real_kernels\n"):
        real_kernels(db)
        script = script.split("\n", 1)[1]
    db.executescript(script)
    db.commit()
    db.close()


def read_bounded(fmt, path, seconds, tmpdir):
    """section_tool --max-parse-s over one database: (seconds taken, stderr, records, peak RSS in MiB)."""
    env = dict(os.environ, TMPDIR=str(tmpdir), SQLITE_TMPDIR=str(tmpdir))
    t0 = time.time()
    out, err = tmpdir.parent / "records.out", tmpdir.parent / "records.err"
    with open(out, "wb") as o, open(err, "wb") as e:
        p = subprocess.Popen([SECTION_TOOL, "--max-parse-s", str(seconds), "--records", f"{fmt}={path}"], env=env,
                             stdout=o, stderr=e)
    while True:                                  # (wait4: the child's own peak RSS)
        pid, _, use = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.time() - t0 > 60 * SLOW:
            p.kill()
            os.wait4(p.pid, 0)
            raise AssertionError(f"{path}: still being read after {time.time() - t0:.0f} s")
        time.sleep(0.05)
    p.returncode = 0
    with open(out, "rb") as o:
        nrec = sum(chunk.count(b"\n") for chunk in iter(lambda: o.read(1 << 20), b""))
    return time.time() - t0, err.read_text(errors="replace"), nrec, use.ru_maxrss >> 10


def test_hostile_databases_end_within_the_deadline(tmp):
    tmp = Path(tmp)
    tmpdir = tmp / "sqlite-tmp"
    tmpdir.mkdir()
    want = {   # what the warning must say (the bound or the error that stopped the read)
        "spinning_kernels_view": "max_parse_s bounds a parse", "endless_kernels_view": "max_parse_s bounds a parse",
        "many_rows_view": "max_parse_s bounds a parse", "spinning_regions_view": "max_parse_s bounds a parse",
        "v1_spinning_table_a": "max_parse_s bounds a parse",
        "sorted_endless_view": "database error after 0 kernel rows",
        # its CTE queue grows: whichever bound it meets first, the deadline or the temp-space cap
        "fanout_cte_view": ("max_parse_s bounds a parse", "needs temporary space beyond"),
        "huge_names_view": "string or blob too big",
        "huge_stored_name": "string or blob too big",
        "long_names_view": "3 names longer than 64 KiB cut",
        "json_each_bomb_agents": "max_parse_s bounds a parse",
        "tokenizer_kernels_view": "kernels: unsafe use of fts3_tokenizer",
    }
    figures = []
    for name, (fname, script) in hostile_databases().items():
        path = tmp / name / fname
        path.parent.mkdir()
        build(path, script)
        fmt = "rocprof-v1-db" if fname == "results.db" else "rocpd-sqlite"
        took, err, nrec, rss = read_bounded(fmt, path, 2, tmpdir)
        left = list(tmpdir.iterdir())
        figures.append(f"{name}: {took:.1f} s, {rss} MiB peak RSS, {nrec} records, {len(left)} temp files; "
                       f"{err.strip().splitlines()[0][len('warning: ') + len(str(path)) + 2:][:90]}")
        assert rss < 1024 * SLOW, (name, rss)                     # < 1 GiB (the read's own bounds: ~300 MiB)
        accepted = (want[name],) if isinstance(want[name], str) else want[name]
        assert any(w in err for w in accepted), (name, err)
        assert took < 2 + 10 * SLOW, (name, took)                 # the deadline (2 s) plus start-up
        assert not left, (name, left)                            # no temp file, ever
        if "max_parse_s bounds a parse" in err:                  # a deadline drops the file whole
            assert nrec == 0 or "not parsed" in err, (name, nrec, err)
    print("     " + "\n     ".join(figures))


def rocpd_run(stage, name, db_name, seed=1):
    """A generated run whose kernel trace is the hostile database (no trace.csv beside it)."""
    run = stage / name
    gen(run, seed=seed)
    (run / "trace.csv").unlink()
    (run / "node1").mkdir()
    fname, script = hostile_databases()[db_name]
    build(run / "node1" / fname, script)
    return run


def test_daemon_fails_hostile_runs_and_goes_on(tmp):
    stage = Path(tmp) / "stage"
    rocpd_run(stage, "spin-k", "spinning_kernels_view")
    rocpd_run(stage, "spin-r", "spinning_regions_view", seed=2)
    rocpd_run(stage, "names", "huge_names_view", seed=3)
    gen(stage / "good-1", seed=4)
    tmpdir = Path(tmp) / "sqlite-tmp"
    tmpdir.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir), SQLITE_TMPDIR=str(tmpdir))
    d = Daemon(tmp, extra=["--max-parse-s", "2"], env=env).start()
    t0 = time.time()
    for r in ("spin-k", "spin-r", "names"):
        os.rename(stage / r, d.roots[0] / r)
    for r in ("spin-k", "spin-r"):
        d.wait_status(r, "failed", timeout=30 * SLOW)
        det = d.json(f"/runs/{r}")[2]
        assert "max_parse_s" in det["error"], (r, det["error"])
        assert any("1_results.db: not parsed: database still being read after 2 s" in w for w in det["warnings"]), det
    took = time.time() - t0
    d.wait_status("names", "failed", timeout=30 * SLOW)
    det = d.json("/runs/names")[2]
    assert any("string or blob too big" in w for w in det["warnings"]), det["warnings"]
    os.rename(stage / "good-1", d.roots[0] / "good-1")             # the workers are free again
    d.wait_status("good-1", "complete", timeout=30 * SLOW)
    assert not list(tmpdir.iterdir())
    print(f"     two spinning databases failed {took:.1f} s after they appeared (max_parse_s = 2); a good run "
          "completed after them; no temp file")
    assert d.stop() == 0


def test_sigterm_exits_while_workers_spin_on_databases(tmp):
    stage = Path(tmp) / "stage"
    rocpd_run(stage, "spin-1", "spinning_kernels_view")
    rocpd_run(stage, "spin-2", "v1_spinning_table_a", seed=2)
    (stage / "spin-2" / "node1" / "results.db").rename(stage / "spin-2" / "results.db")
    d = Daemon(tmp, extra=["--max-parse-s", "0"]).start()          # no deadline: only the cancel stops them
    os.rename(stage / "spin-1", d.roots[0] / "spin-1")
    os.rename(stage / "spin-2", d.roots[0] / "spin-2")
    wait_for(lambda: all(d.get(f"/runs/{r}")[0] == 200 and d.json(f"/runs/{r}")[2]["status"] == "running"
                         for r in ("spin-1", "spin-2")), 20 * SLOW, "both workers in the databases")
    time.sleep(1)
    t0 = time.time()
    assert d.stop() == 0
    took = time.time() - t0
    print(f"     SIGTERM with both workers in endless views: exited in {took:.2f} s")
    assert took < 10, took


if __name__ == "__main__":
    sys.exit(e2e.run_suite("hostile_sqlite", globals(), ONLY))
