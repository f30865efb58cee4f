#!/usr/bin/env python3
"""formats_sqlite: the SQLite formats (rocpd databases, legacy rocprof's results.db) against
independent reads of the same files: SQL over the database via Python's sqlite3, and plain
dicts where the format has a rule to follow (the view's names, a merged database's guids).

The helpers and the tool are formats_json.py's (section_tool --records FORMAT=FILE).

usage: formats_sqlite.py SECTION_TOOL SHARED_DIR [CHECK ...]
"""
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_json as fj  # noqa: E402  (records, by_type, expect; TOOL and SHARED set by fj.main)
from formats_json import by_type, expect, records, section_doc  # noqa: E402,F401


def check_rocpd_sqlite():
    path = os.path.join(fj.SHARED, "fixtures/rocprofv3/rocpd_ck_bmm_28_results.db")
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    recs, _ = records("rocpd-sqlite", path)
    k = by_type(recs, "kernel_dispatch")
    rows = db.execute('SELECT name, start, "end", agent_abs_index, grid_x, workgroup_x, lds_size, vgpr_count, sgpr_count '
                      'FROM kernels WHERE "end" > start ORDER BY start, id').fetchall()
    expect(len(k) == len(rows), f"kernels {len(k)} != {len(rows)}")
    expect(sum(r["duration_ns"] for r in k) == sum(e - s for _, s, e, *_ in rows), "kernel time total")
    for r, (name, st, en, dev, gx, wx, lds, vgpr, sgpr) in zip(k, rows):
        expect((r["name"], r["start_ns"], r["end_ns"], r["device"]) == (name.strip(), st, en, dev), f"kernel {r}")
        expect((r["grid"][0], r["workgroup"][0], r["lds_bytes"], r["vgpr"], r["sgpr"]) == (gx, wx, lds, vgpr, sgpr),
               f"kernel resources {r}")
    api = by_type(recs, "api_call") + by_type(recs, "annotation")
    regions = db.execute('SELECT category, name, "end" - start FROM regions WHERE "end" >= start '
                         'ORDER BY start, id').fetchall()
    expect(len(api) == len(regions), f"regions {len(api)} != {len(regions)}")
    expect(sum(a["duration_ns"] for a in api) == sum(d for *_, d in regions), "region time total")
    hip = sum(1 for c, *_ in regions if c.startswith("HIP_"))
    expect(sum(1 for a in api if a.get("domain") == 1) == hip, "HIP regions")
    copies = db.execute("SELECT count(*), coalesce(sum(size), 0) FROM memory_copies").fetchone()
    cp = by_type(recs, "memory_copy")
    expect((len(cp), sum(c.get("bytes", 0) for c in cp)) == copies, f"copies {len(cp)} vs {copies}")
    allocs = db.execute("SELECT count(*) FROM memory_allocations").fetchone()[0]
    expect(len(by_type(recs, "allocation")) == allocs, "allocations")
    meta = by_type(recs, "metadata")
    gpus = db.execute("SELECT absolute_index, product_name, extdata FROM rocpd_info_agent WHERE type = 'GPU'").fetchall()
    names = {m["device"]: m["value"] for m in meta if m["key"] == "device_name"}
    expect(names == {i: p for i, p, _ in gpus}, f"device names {names}")
    mem = {m["device"]: int(m["value"]) for m in meta if m["key"] == "memory_bytes"}
    want = {i: sum(b["size_in_bytes"] for b in json.loads(x)["mem_banks"] if b["heap_type"] in (1, 2)) for i, _, x in gpus}
    expect(mem == want, f"memory bytes {mem} != {want}")
    cus = {m["device"]: int(m["value"]) for m in meta if m["key"] == "compute_units"}
    expect(cus == {i: json.loads(x)["cu_count"] for i, _, x in gpus}, "compute units")


def check_rocpd_sqlite_tables_name_as_the_view():
    """Every real rocpd database (the fixture and the corpus's), its kernels view dropped: the
    dispatches read from the tables are the view's, name for name (display_name, not the
    symbol's kernel_name "....kd"), start, end and device, in the same order."""
    paths = [os.path.join(fj.SHARED, "fixtures/rocprofv3/rocpd_ck_bmm_28_results.db")]
    corpus = os.path.join(fj.SHARED, "corpus/found2/rocpd")
    paths += sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".db"))
    for path in paths:
        view, _ = records("rocpd-sqlite", path)
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "1_results.db")
            src = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
            dst = sqlite3.connect(copy)
            src.backup(dst)
            src.close()
            dst.execute("DROP VIEW kernels")
            dst.commit()
            dst.close()
            tables, err = records("rocpd-sqlite", copy)
        key = lambda r: (r["name"], r["start_ns"], r["end_ns"], r.get("device"))   # noqa: E731
        a = [key(r) for r in by_type(view, "kernel_dispatch")]
        b = [key(r) for r in by_type(tables, "kernel_dispatch")]
        expect(a and a == b, f"{os.path.basename(path)}: {len(a)} from the view, {len(b)} from the tables; "
                             f"first difference {next(((x, y) for x, y in zip(a, b) if x != y), None)} {err[:300]}")


def check_rocpd_sqlite_without_views():
    """A database without the kernels view: dispatches from the tables, each on its agent's absolute
    index (agent_id is the agent's row id; the two differ once CPU agents are numbered apart)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "9_results.db")
        db = sqlite3.connect(path)
        db.executescript("""
            CREATE TABLE rocpd_info_agent(id, type, absolute_index, name);
            INSERT INTO rocpd_info_agent VALUES (10, 'CPU', 0, 'cpu'), (11, 'GPU', 1, 'gfx942'), (12, 'GPU', 2, 'gfx942');
            CREATE TABLE rocpd_info_kernel_symbol(id, kernel_name);
            INSERT INTO rocpd_info_kernel_symbol VALUES (1, 'gemm'), (2, 'relu');
            CREATE TABLE rocpd_kernel_dispatch(id, agent_id, kernel_id, queue_id, stream_id, start, "end");
            INSERT INTO rocpd_kernel_dispatch VALUES (1, 12, 1, 3, NULL, 100, 200), (2, 11, 2, 3, NULL, 300, 350),
                                                     (3, 99, 2, 3, NULL, 400, 450);
        """)
        db.commit()
        db.close()
        recs, err = records("rocpd-sqlite", path)
    k = by_type(recs, "kernel_dispatch")
    expect([(r["name"], r.get("device")) for r in k] == [("gemm", 2), ("relu", 1), ("relu", None)], f"{k} {err}")
    with tempfile.TemporaryDirectory() as d:    # no agent table at all: the kernels still, on no device
        path = os.path.join(d, "9_results.db")
        db = sqlite3.connect(path)
        db.executescript("""
            CREATE TABLE rocpd_info_kernel_symbol(id, kernel_name);
            INSERT INTO rocpd_info_kernel_symbol VALUES (1, 'gemm');
            CREATE TABLE rocpd_kernel_dispatch(id, agent_id, kernel_id, queue_id, stream_id, start, "end");
            INSERT INTO rocpd_kernel_dispatch VALUES (1, 12, 1, 3, NULL, 100, 200);
        """)
        db.commit()
        db.close()
        recs, err = records("rocpd-sqlite", path)
    k = by_type(recs, "kernel_dispatch")
    expect([(r["name"], r.get("device")) for r in k] == [("gemm", None)], f"{k} {err}")


def check_rocpd_sqlite_merged_processes():
    """Two processes' tables in one database without the kernels view: the same row ids under
    two guids. Each dispatch takes its own process's symbol and agent (the view's join on id
    and guid), not every row with its id: two dispatches, not four."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "9_results.db")
        db = sqlite3.connect(path)
        db.executescript("""
            CREATE TABLE rocpd_info_agent(id, guid, type, absolute_index, name);
            INSERT INTO rocpd_info_agent VALUES (1, 'A', 'GPU', 0, 'gfx942'), (1, 'B', 'GPU', 3, 'gfx942');
            CREATE TABLE rocpd_info_kernel_symbol(id, guid, kernel_name);
            INSERT INTO rocpd_info_kernel_symbol VALUES (1, 'A', 'gemm_a'), (1, 'B', 'gemm_b');
            CREATE TABLE rocpd_kernel_dispatch(id, guid, agent_id, kernel_id, queue_id, stream_id, start, "end");
            INSERT INTO rocpd_kernel_dispatch VALUES (1, 'A', 1, 1, 3, NULL, 100, 200), (1, 'B', 1, 1, 3, NULL, 300, 350);
        """)
        db.commit()
        want = db.execute("""SELECT ks.kernel_name, a.absolute_index FROM rocpd_kernel_dispatch kd
                             JOIN rocpd_info_kernel_symbol ks USING (guid) JOIN rocpd_info_agent a USING (guid)
                             WHERE ks.id = kd.kernel_id AND a.id = kd.agent_id ORDER BY kd.start""").fetchall()
        db.execute("DROP TABLE rocpd_info_agent")
        db.commit()
        db.close()
        recs, err = records("rocpd-sqlite", path)
        no_agents = [(r["name"], r.get("device")) for r in by_type(recs, "kernel_dispatch")]
        db = sqlite3.connect(path)
        db.executescript("""CREATE TABLE rocpd_info_agent(id, guid, type, absolute_index, name);
                            INSERT INTO rocpd_info_agent VALUES (1, 'A', 'GPU', 0, 'x'), (1, 'B', 'GPU', 3, 'x');""")
        db.commit()
        db.close()
        recs, err2 = records("rocpd-sqlite", path)
    k = [(r["name"], r.get("device")) for r in by_type(recs, "kernel_dispatch")]
    expect(want == [("gemm_a", 0), ("gemm_b", 3)], f"oracle {want}")
    expect(k == want, f"{k} {err2}")
    expect(no_agents == [("gemm_a", None), ("gemm_b", None)], f"{no_agents} {err}")


def check_rocpd_sqlite_copies():
    """Copies and allocations (the fixture has none): a database with the views' columns."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "9_results.db")
        db = sqlite3.connect(path)
        db.executescript("""
            CREATE TABLE kernels(id, name, start, "end", agent_abs_index, stream_id, queue_id, corr_id);
            INSERT INTO kernels VALUES (1, 'k', 10, 20, 2, NULL, 1, 5);
            CREATE TABLE memory_copies(id, name, start, "end", size, dst_agent_abs_index, src_agent_abs_index,
                                       stream_id, queue_id, corr_id);
            INSERT INTO memory_copies VALUES (1, 'MEMORY_COPY_HOST_TO_DEVICE', 100, 300, 4096, 2, 0, 1, NULL, 7),
                                             (2, 'MEMORY_COPY_DEVICE_TO_HOST', 400, 450, 64, 0, 2, NULL, 3, 8),
                                             (3, 'MEMORY_COPY_DEVICE_TO_DEVICE', 500, 490, 64, 2, 2, NULL, 3, 9);
            CREATE TABLE memory_allocations(id, type, level, start, "end", size, agent_abs_index, corr_id, address);
            INSERT INTO memory_allocations VALUES (1, 'ALLOC', 'REAL', 1, 2, 1048576, 2, 1, 140717653934080),
                                                  (2, 'FREE', 'REAL', 3, 4, 0, NULL, 2, 140717653934080),
                                                  (3, 'ALLOC', 'REAL', 5, 6, 1048576, 2, 3, 140717653934080),
                                                  (4, 'FREE', 'REAL', 7, 8, 0, NULL, 4, 140717653934080),
                                                  (5, 'ALLOC', 'REAL', 9, 10, 4096, 2, 5, -8);
        """)
        db.commit()
        db.close()
        recs, err = records("rocpd-sqlite", path)
        doc = section_doc("rocpd-sqlite", path)["allocations"]
    cp = by_type(recs, "memory_copy")
    expect([(c["copy"], c["bytes"], c["device"], c["peer_device"], c["stream"], c["duration_ns"]) for c in cp] ==
           [(1, 4096, 2, 0, 1, 200), (2, 64, 0, 2, 3, 50)], str(cp))
    al = by_type(recs, "allocation")
    # a free's size 0 is unknown (absent), its agent NULL; the address (a pointer stored as a signed
    # 64-bit integer) is kept, and the section sizes each free by the allocation it releases
    ptr = 140717653934080
    expect([(a.get("category"), a.get("bytes"), a.get("device"), a.get("address")) for a in al] ==
           [("alloc", 1048576, 2, ptr), ("free", None, None, ptr)] * 2 + [("alloc", 4096, 2, 2**64 - 8)], str(al))
    expect(doc["peak_bytes"] == 1048576 and [d["device"] for d in doc["devices"]] == [2] and
           doc["devices"][0]["freed_bytes"] == 2 * 1048576 and doc["peak_exact"], str(doc))
    k = by_type(recs, "kernel_dispatch")
    expect(len(k) == 1 and "grid" not in k[0], str(k))
    # a view with its columns under other names (the source spellings) loses its records: said,
    # naming it; a view absent (an older schema) is nothing lost, not warned
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "9_results.db")
        db = sqlite3.connect(path)
        db.executescript("""
            CREATE TABLE kernels(id, name, start, "end", agent_abs_index, stream_id, queue_id, corr_id);
            INSERT INTO kernels VALUES (1, 'k', 10, 20, 2, NULL, 1, 5);
            CREATE TABLE memory_copies(id, name, start, "end", size, dst_agent_absolute_index,
                                       src_agent_absolute_index, stream_id, queue_id, correlation_id);
            INSERT INTO memory_copies VALUES (1, 'MEMORY_COPY_HOST_TO_DEVICE', 100, 300, 4096, 2, 0, 1, NULL, 7);
        """)
        db.commit()
        db.close()
        recs, err = records("rocpd-sqlite", path)
    expect(not by_type(recs, "memory_copy") and "memory_copies (memory copies) cannot be read" in err, err)
    expect("memory_allocations" not in err and "regions" not in err, err)


# ---------------------------------------------------------------- telemetry
# ---------------------------------------------------------------- legacy rocprof (v1) results.db
V1_SCHEMA = """
    CREATE TABLE A ("Index" INTEGER, "KernelName" TEXT, "gpu-id" INTEGER, "queue-id" INTEGER, "queue-index" INTEGER,
                    "pid" INTEGER, "tid" INTEGER, "grd" INTEGER, "wgr" INTEGER, "lds" INTEGER, "scr" INTEGER,
                    "vgpr" INTEGER, "sgpr" INTEGER, "fbar" INTEGER, "sig" TEXT, "obj" TEXT, "DispatchNs" INTEGER,
                    "BeginNs" INTEGER, "EndNs" INTEGER, "CompleteNs" INTEGER, "DurationNs" INTEGER);
    CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, "Name" TEXT,
                      "pid" INTEGER, "tid" INTEGER, "Index" INTEGER, "proc-id" INTEGER, "Data" TEXT);
    CREATE TABLE COPY ("BeginNs" INTEGER, "EndNs" INTEGER, "Name" TEXT, "pid" INTEGER, "tid" INTEGER,
                       "Index" INTEGER, "proc-id" INTEGER);
    CREATE TABLE HIP ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER, "tid" INTEGER, "Name" TEXT, "args" TEXT,
                      "Index" INTEGER, "Data" TEXT);
    CREATE TABLE rocTX ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER, "tid" INTEGER, "Name" TEXT, "Index" INTEGER);
"""


def check_rocprof_v1_db():
    """rocprof v1 results.db with the tables tblextr.py creates (no real fixture exists)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "results.db")
        db = sqlite3.connect(path)
        db.executescript(V1_SCHEMA)
        kern = [(i, f'"k{i % 3}"', i % 2, 1, i, 7, 8, 1024 * (i + 1), 256, 0, 0, 16, 24, 0, "0x1", "0x2",
                 1000 * i, 1000 * i + 10, 1000 * i + 10 + 37 * i, 1000 * i + 900, 37 * i) for i in range(1, 40)]
        db.executemany(f"INSERT INTO A VALUES ({','.join('?' * 21)})", kern)
        db.executemany("INSERT INTO OPS VALUES (?,?,?,?,?,?,?,?,?,?)",
                       [(5, 9, 0, 0, "k0", 6, 0, 1, 7, ""),
                        # a kernel is a kernel whatever its name says (Kokkos' ViewFill is 24 % of a real run)
                        (10, 20, 0, 0, "Kokkos::Impl::ViewFill<Kokkos::View<int**>, 2, long>", 6, 0, 2, 7, ""),
                        (21, 21, 0, 0, "Unknown command type", 6, 0, 3, 7, "")])
        db.executemany("INSERT INTO COPY VALUES (?,?,?,?,?,?,?)",
                       [(100, 300, "CopyHostToDevice", 1, 0, 0, 7), (400, 450, "CopyDeviceToHost", 1, 0, 1, 7),
                        (500, 400, "CopyDeviceToHost", 1, 0, 2, 7), (460, 470, "FillBuffer", 1, 0, 3, 7)])
        db.executemany("INSERT INTO HIP VALUES (?,?,?,?,?,?,?,?)",
                       [(1, 50, 7, 8, "hipMalloc", "(ptr(0x1) size(4096))", 0, ""),
                        (60, 70, 7, 8, "hipLaunchKernel", "(kernel(k0))", 1, "")])
        db.execute("INSERT INTO rocTX VALUES (0, 1000, 7, 8, 'epoch', 0)")
        db.commit()
        recs, err = records("rocprof-v1-db", path)
        k = by_type(recs, "kernel_dispatch")
        want = db.execute('SELECT count(*), sum(EndNs - BeginNs) FROM A WHERE EndNs > BeginNs').fetchone()
        expect((len(k), sum(r["duration_ns"] for r in k)) == want, f"kernels {len(k)} vs {want}")
        expect(k[0]["name"] == "k1" and k[0]["device"] == 1 and k[0]["lds_bytes"] == 0 and k[0]["vgpr"] == 16, str(k[0]))
        cp = by_type(recs, "memory_copy")
        expect([(c["copy"], c["duration_ns"]) for c in cp] == [(1, 200), (2, 50)] and "bytes" not in cp[0], str(cp))
        expect("1 rows without integer BeginNs <= EndNs" in err, err)
        expect([(m["duration_ns"], "bytes" in m) for m in by_type(recs, "memset")] == [(10, False)],
               "FillBuffer is a fill (a memset), not a copy")
        api = by_type(recs, "api_call")
        expect([(a["name"], a["domain"], a["correlation_id"]) for a in api] == [("hipMalloc", 1, 0), ("hipLaunchKernel", 1, 1)],
               str(api))
        expect([a["name"] for a in by_type(recs, "annotation")] == ["epoch"], "rocTX")
        # without A: kernels from OPS, every row of it (tblextr puts copies and fills in COPY), but
        # the `Unknown command type` rows, skipped under their own reason
        db.execute("DELETE FROM A")
        db.commit()
        want = db.execute("SELECT Name, EndNs - BeginNs FROM OPS WHERE Name != 'Unknown command type'").fetchall()
        db.close()
        recs, err = records("rocprof-v1-db", path)
        k = by_type(recs, "kernel_dispatch")
        expect([(r["name"], r["duration_ns"]) for r in k] == want, str(k))
        expect("Unknown command type" not in err and "BeginNs <= EndNs" in err, err)
        # times stored as text (tblextr does so for some): one past 64 bits is no time at all
        # (strtoll clamped it to INT64_MAX: a 9.2e18 ns copy)
        text_path = os.path.join(d, "text_results.db")
        db = sqlite3.connect(text_path)
        db.executescript('CREATE TABLE COPY ("BeginNs" TEXT, "EndNs" TEXT, "Name" TEXT, "pid" INTEGER, "tid" INTEGER, '
                         '"Index" INTEGER, "proc-id" INTEGER);')
        db.executemany("INSERT INTO COPY VALUES (?,?,?,?,?,?,?)",
                       [("100", "300", "CopyHostToDevice", 1, 0, 0, 7),
                        ("1", "99999999999999999999", "CopyDeviceToHost", 1, 0, 1, 7)])
        db.commit()
        db.close()
        recs, err = records("rocprof-v1-db", text_path)
        expect([c["duration_ns"] for c in by_type(recs, "memory_copy")] == [200], str(recs))
        expect("1 rows without integer BeginNs <= EndNs" in err, err)
        # not a database: a warning naming the file and why, no records
        with open(path, "w") as f:
            f.write("hello")
        recs, err = records("rocprof-v1-db", path)
        expect(not recs and f"{path}: not a rocprof v1 results.db" in err and "not a database" in err, err)


CHECKS = {name[6:]: f for name, f in dict(globals()).items() if name.startswith("check_")}


if __name__ == "__main__":
    sys.exit(fj.main(CHECKS))   # (formats_json's runner: it sets TOOL and SHARED for the helpers)
