#!/usr/bin/env python3
"""list_bounds: every list of the analysis document, and report.md, is cut by
analysis_list_rows (`goblind analyze --rows N`) while the totals beside it stay exact.

1. An msprof op_summary CSV with more signatures than npu_ops keeps (65,536) plus a reference
   folder (some signatures referenced, some given twice): recomputed here with the csv module
   and integer nanoseconds — ops, total_us, the kept signatures (the first 65,536 in file
   order), the busiest N of them, the unlisted counts and durations, missing references,
   duplicates, hotspots; report.md's tables hold at most N rows and the report stays small.
   Two msprof files whose signatures overlap, past the cap together: the same exact totals.
2. A torch trace with more ProfilerStep ranges than N: steps.items is the first N, `count`
   and the unlisted steps' wall time are exact.
3. More files than rows: report.md's Sources table is cut, the JSON's sources are not.
4. Whatever the section, no list of either document is longer than N (the fixed-size series
   — timeline bins, telemetry series — excepted).

usage: list_bounds.py GOBLIND
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

GOBLIND = sys.argv[1]
ROWS = 25
MAX_GROUPS = 65536
SIG = ["Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types"]
SERIES_KEYS = {"bins", "t_ns", "samples", "util_pct", "vram_bytes", "power_w", "temp_c"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def analyze(run, *args):
    out = subprocess.run([GOBLIND, "analyze", run, "--rows", str(ROWS), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def ns(us_text):
    """A cell in microseconds with up to 3 decimals as exact integer nanoseconds."""
    return int(Decimal(us_text.strip()) * 1000)


def write_msprof(run, n_sig):
    """n_sig signatures (every tenth with two rows) in file order, and a reference folder."""
    d = os.path.join(run, "PROF_1", "mindstudio_profiler_output")
    os.makedirs(d)
    with open(os.path.join(d, "op_summary_1.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Op Name", "OP Type", "Task Type", "Task Start Time(us)", "Task Duration(us)", *SIG, "aic_mac_ratio"])
        t = 1000
        for i in range(n_sig):
            for rep in range(1 + (i % 10 == 0)):
                t += 10
                dur = "%d.%03d" % (1 + (i * 7919 + rep * 13) % 997, (i * 31 + rep) % 1000)
                w.writerow(["op%d" % i, "MatMulV2" if i % 2 else "Add", "AI_CORE", t, dur,
                            "%d,%d" % (i, i % 5), "DT_BF16", "ND", str(i), "DT_BF16", "0.5"])
    ref = os.path.join(run, "reference")
    os.makedirs(ref)
    with open(os.path.join(ref, "ref.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["OP Type", *SIG, "Average Duration(us)"])
        for i in range(0, 200):          # 200 referenced signatures, the first 40 given twice
            typ = "MatMulV2" if i % 2 else "Add"
            for rep in range(1 + (i < 40)):
                w.writerow([typ, "%d,%d" % (i, i % 5), "DT_BF16", "ND", str(i), "DT_BF16", "%d.5" % (3 + rep)])


def expected_msprof(run):
    path = os.path.join(run, "PROF_1", "mindstudio_profiler_output", "op_summary_1.csv")
    groups, order, ops, total = {}, [], 0, 0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            d = ns(row["Task Duration(us)"])
            ops, total = ops + 1, total + d
            key = (row["OP Type"], *(row[k] for k in SIG))
            if key not in groups:
                if len(groups) >= MAX_GROUPS:
                    continue
                groups[key] = [0, 0]
                order.append(key)
            groups[key][0] += 1
            groups[key][1] += d
    refs = {}
    with open(os.path.join(run, "reference", "ref.csv"), newline="") as f:
        for row in csv.DictReader(f):
            key = ("MatMul" if row["OP Type"].startswith("MatMul") else row["OP Type"], *(row[k] for k in SIG))
            refs[key] = refs.get(key, 0) + 1
    return groups, ops, total, refs


def canon(key):
    return ("MatMul" if key[0].startswith("MatMul") else key[0], *key[1:])


def item_key(it):
    return (it["op_type"], it["input_shapes"], it["input_data_types"], it["input_formats"], it["output_shapes"],
            it["output_data_types"])


def check_lists(node, where):
    """No list longer than ROWS anywhere in the document (fixed-size series excepted)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, list) and k not in SERIES_KEYS:
                check(len(v) <= ROWS, "%s.%s: %d entries > %d" % (where, k, len(v), ROWS))
            check_lists(v, where + "." + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            check_lists(v, "%s[%d]" % (where, i))


def md_tables(md):
    """The number of rows of each table of report.md, by the heading above it."""
    tables, heading, rows = {}, None, None
    for line in md.split("\n"):
        if line.startswith("#"):
            heading, rows = line, None
        elif line.startswith("|"):
            if rows is None:
                rows = -2                       # header and rule
            rows += 1
            tables[heading] = max(tables.get(heading, 0), rows)
        else:
            rows = None
    return tables


def test_msprof(tmp):
    run = os.path.join(tmp, "npu")
    n_sig = MAX_GROUPS + 1500
    write_msprof(run, n_sig)
    groups, ops, total, refs = expected_msprof(run)
    doc = json.loads(analyze(run))
    no = doc["npu_ops"]
    check(no["ops"] == ops, "npu_ops.ops %r, expected %d (rows past the signature cap count)" % (no["ops"], ops))
    check(abs(no["total_us"] - total / 1000) <= 1e-6 * total / 1000,
          "npu_ops.total_us %r, expected %r" % (no["total_us"], total / 1000))
    check(no["signatures"] == MAX_GROUPS, "signatures %r" % no["signatures"])
    busiest = sorted(groups, key=lambda k: (-groups[k][1], "\x1f".join(k)))[:ROWS]
    check(len(no["items"]) == ROWS and no["listed"] == ROWS, "items cut to %d: %d" % (ROWS, len(no["items"])))
    check([item_key(it) for it in no["items"]] == busiest, "items are the busiest kept signatures, in order")
    listed_count = sum(groups[k][0] for k in busiest)
    listed_ns = sum(groups[k][1] for k in busiest)
    un = no.get("unlisted") or {}
    check(un.get("signatures", 0) is None, "unlisted.signatures null past the cap: %r" % un)
    check(un.get("count") == ops - listed_count, "unlisted.count %r, expected %d" % (un.get("count"), ops - listed_count))
    check(abs(un.get("total_us", 0) - (total - listed_ns) / 1000) < 1e-3, "unlisted.total_us %r" % un.get("total_us"))
    # references: missing (kept signatures without one), duplicates (reference rows given twice)
    missing = [k for k in sorted(groups, key=lambda k: (-groups[k][1], "\x1f".join(k))) if canon(k) not in refs]
    check(len(no["missing_reference"]) == ROWS and no["missing_reference_listed"] == ROWS, "missing_reference cut")
    mu = no.get("missing_reference_unlisted") or {}
    check(mu.get("signatures") == len(missing) - ROWS, "missing_reference_unlisted.signatures %r, expected %d"
          % (mu.get("signatures"), len(missing) - ROWS))
    check(mu.get("count") == sum(groups[k][0] for k in missing[ROWS:]), "missing_reference_unlisted.count")
    dups = [k for k, n in refs.items() if n > 1]
    check(len(no["duplicates"]) == ROWS and no["duplicates_listed"] == ROWS, "duplicates cut")
    du = no.get("duplicates_unlisted") or {}
    check(du.get("signatures") == len(dups) - ROWS and du.get("rows") == 2 * (len(dups) - ROWS),
          "duplicates_unlisted %r, expected %d signatures" % (du, len(dups) - ROWS))
    hot = doc["npu_hotspots"]
    check(isinstance(hot, list) and len(hot) == ROWS, "npu_hotspots cut to %d: %r" % (ROWS, len(hot or [])))
    check_lists(doc, "doc")
    md = analyze(run, "--format", "markdown")
    for heading, rows in md_tables(md).items():
        if heading and "Sources" not in heading:
            check(rows <= ROWS, "report.md table %r: %d rows" % (heading, rows))
    check(len(md) < 64 * 1024, "report.md is %d bytes" % len(md))
    check("%d more signatures" % (len(missing) - ROWS) in md, "report.md says how many missing shapes are left out")


def test_msprof_two_files(tmp):
    """Two msprof files whose signatures overlap, past the cap together: folded exactly."""
    run = os.path.join(tmp, "npu2")
    ops, total = 0, 0
    for part, (lo, hi) in enumerate(((0, 40000), (20000, 80000))):
        d = os.path.join(run, "PROF_%d" % part, "mindstudio_profiler_output")
        os.makedirs(d)
        with open(os.path.join(d, "op_summary_1.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["Op Name", "OP Type", "Task Type", "Task Start Time(us)", "Task Duration(us)", *SIG])
            for i in range(lo, hi):
                dur = "%d.%03d" % (1 + (i * 131 + part) % 499, (i * 17) % 1000)
                w.writerow(["op%d" % i, "Add", "AI_CORE", i, dur, "%d" % i, "DT_BF16", "ND", "%d" % i, "DT_BF16"])
                ops, total = ops + 1, total + ns(dur)
    no = json.loads(analyze(run))["npu_ops"]
    check(no["ops"] == ops and abs(no["total_us"] - total / 1000) <= 1e-9 * total, "two files: ops %r total_us %r, "
          "expected %d %r" % (no["ops"], no["total_us"], ops, total / 1000))
    listed = sum(i["count"] for i in no["items"])
    check(no["unlisted"]["count"] == ops - listed and no["unlisted"]["signatures"] is None, "two files: unlisted")


def torch_trace(n_steps):
    cpu, gpu = {"pid": 1, "tid": 1}, {"pid": 0, "tid": 7}
    ev, t = [], 0
    for i in range(n_steps):
        wall = 1000 + 37 * (i % 11)
        ev.append(dict(ph="X", cat="user_annotation", name="ProfilerStep#%d" % i, ts=t, dur=wall, **cpu))
        ev.append(dict(ph="X", cat="kernel", name="k%d" % (i % 60), ts=t + 100, dur=300, args={"device": 0, "stream": 7},
                       **gpu))
        t += wall
    return {"schemaVersion": 1, "traceEvents": ev}


def test_steps(tmp):
    run = os.path.join(tmp, "torch")
    os.makedirs(run)
    n_steps = 3 * ROWS + 4
    trace = torch_trace(n_steps)
    with open(os.path.join(run, "w.pt.trace.json"), "w") as f:
        json.dump(trace, f)
    doc = json.loads(analyze(run))
    st = doc["steps"]
    walls = [e["dur"] * 1000 for e in trace["traceEvents"] if e["name"].startswith("ProfilerStep#")]
    check(st["count"] == n_steps, "steps.count %r, expected %d" % (st["count"], n_steps))
    check(len(st["items"]) == ROWS and st["listed"] == ROWS, "steps.items cut to %d" % ROWS)
    check([i["name"] for i in st["items"]] == ["ProfilerStep#%d" % i for i in range(ROWS)], "the first steps listed")
    check(st.get("unlisted") == {"steps": n_steps - ROWS, "wall_ns": sum(walls[ROWS:])},
          "steps.unlisted %r, expected %d steps, %d ns" % (st.get("unlisted"), n_steps - ROWS, sum(walls[ROWS:])))
    check(st["slowest"]["wall_ns"] == max(walls), "slowest over every step, listed or not")
    k = doc["kernels"]
    check(len(k["by_name"]) == ROWS and k["unlisted"]["names"] == 60 - ROWS, "kernels.by_name cut, names exact")
    check_lists(doc, "torch doc")
    md = analyze(run, "--format", "markdown", "--rows", "7")      # the last --rows wins
    tables = md_tables(md)
    check(tables.get("## Kernels") == 7, "report.md kernel table cut to 7: %r" % tables.get("## Kernels"))
    check("53 more kernel names (the analysis document lists 7)" in md, "report.md says how many kernels are left out")


def test_sources(tmp):
    """More files than rows: the JSON's sources keep every file (at most 4,096 by the
    inventory), report.md's Sources table the first ROWS, with the rest counted."""
    run = os.path.join(tmp, "files")
    os.makedirs(run)
    for i in range(ROWS + 5):
        with open(os.path.join(run, "r%02d.pt.trace.json" % i), "w") as f:
            json.dump(torch_trace(1), f)
    check(len(json.loads(analyze(run))["sources"]) == ROWS + 5, "sources lists every file")
    md = analyze(run, "--format", "markdown")
    check(md_tables(md).get("## Sources") == ROWS and "\n5 more files " in md, "report.md Sources cut to %d" % ROWS)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_msprof(tmp)
        test_msprof_two_files(tmp)
        test_steps(tmp)
        test_sources(tmp)
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("list_bounds: ok")


if __name__ == "__main__":
    main()
