#!/usr/bin/env python3
"""corpus_check: every file of the real-file corpus (../shared/corpus) through `goblind analyze`,
checked against an independent computation in plain Python (csv, sqlite3, json: never goblind's
own code).

Cases: every corpus file alone in a run directory under its own name; every run-directory
combination a MANIFEST.json lists (an object of {case: {path in the run: file beside the
manifest}}); and the same-run sets the file names show (legacy rocprof `<stem>_results.db /
.json / .stats.csv / .hip_stats.csv / .copy_stats.csv / .csv` placed as `results.*`, rocprofv3
`<stem>_kernel_trace.csv / _hip_api_trace.csv / _counter_collection.csv / _memory_copy_trace.csv`
placed under `<host>/`). Nothing here names a corpus file: a file added later is picked up by
its presence, its kind told by its content (what_content_says) and checked by the oracle of
that kind; a file whose kind the oracle cannot tell is still checked for no crash, a known
exit status and a sources entry with a format or an `unrecognised` warning.

For each case: the exit status (0, or 3 when no file is read), one sources entry per file,
the format the content says (content decides; a name only breaks ties between formats the
content fits equally), and for the kinds the oracle computes: kernels per name (calls, total
ns), API calls (count, total ns), copies by direction (calls, bytes), memsets, counters,
telemetry means per device, NPU ops (count, total us), AIE events, and the timeline's busy
time as the union of the delivered operations' intervals.

usage: corpus_check.py GOBLIND CORPUS_DIR [JOBS]
"""
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_oracle import oracle_of, raw_head, what_content_says  # noqa: E402

GOBLIND, CORPUS = os.path.abspath(sys.argv[1]), sys.argv[2]
JOBS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
DOCS = {"README.md", "SOURCES.txt", "MANIFEST.json"}   # the corpus's own documentation
failures = []


def fail(case, what):
    failures.append("%s: %s" % (case, what))


# ---------------------------------------------------------------------------- cases

def corpus_files():
    out = []
    for d, dirs, files in os.walk(CORPUS):
        dirs.sort()
        for f in sorted(files):
            if f not in DOCS:
                out.append(os.path.join(d, f))
    return out


def manifest_cases():
    """{case: {run path: corpus file}} from every MANIFEST.json that lists run combinations."""
    cases = {}
    for d, _, files in os.walk(CORPUS):
        if "MANIFEST.json" not in files:
            continue
        with open(os.path.join(d, "MANIFEST.json")) as f:
            m = json.load(f)
        if not isinstance(m, dict):
            continue
        for name, layout in sorted(m.items()):
            if isinstance(layout, dict) and all(isinstance(v, str) for v in layout.values()):
                cases["manifest:%s:%s" % (os.path.relpath(d, CORPUS), name)] = {
                    k: os.path.join(d, v) for k, v in layout.items()}
    return cases


LEGACY = [(".stats.csv", "results.stats.csv"), (".hip_stats.csv", "results.hip_stats.csv"),
          (".copy_stats.csv", "results.copy_stats.csv"), (".db", "results.db"), (".json", "results.json"),
          (".csv", "results.csv")]
V3 = ["kernel_trace.csv", "hip_api_trace.csv", "counter_collection.csv", "memory_copy_trace.csv"]


def same_run_cases(files):
    """Sets of one run the names show: legacy rocprof `<stem>_results.<ext>` files, rocprofv3
    `<stem>_<kind>.csv` files; a set of one file is not a case (the single-file cases have it)."""
    legacy, v3 = collections.defaultdict(dict), collections.defaultdict(dict)
    for p in files:
        b = os.path.basename(p)
        m = re.fullmatch(r"(.+)_results((?:\.[a-z_]+)+)", b)
        if m:
            for ext, as_name in LEGACY:
                if m.group(2) == ext and as_name not in legacy[m.group(1)]:
                    legacy[m.group(1)][as_name] = p
                    break
        for kind in V3:
            if b.endswith("_" + kind):
                v3[b[:-len(kind) - 1]].setdefault("host/1_" + kind, p)
    cases = {}
    for stem, layout in sorted(legacy.items()):
        if len(layout) > 1:
            cases["legacy-rocprof:" + stem] = layout
    for stem, layout in sorted(v3.items()):
        if len(layout) > 1:
            cases["rocprofv3:" + stem] = layout
    return cases


# --------------------------------------------------------------------------- checking

def union_ns(intervals):
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0)


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


FAMILY_KEYS = ("kernel_dispatch", "memory_copy", "memset", "api_call", "annotation", "allocation", "counter")
BARRIER = "<barrier packet>"   # its own class (not a kernel) once the barrier class lands: either way


def check_kernels(case, doc, want):
    ks = doc.get("kernels") or {}
    got = {r["name"]: [r["calls"], r["total_ns"]] for r in ks.get("by_name") or []}
    want = {n: v for n, v in want.items() if n != BARRIER}
    got.pop(BARRIER, None)
    if not want:
        if ks and ks.get("from") == "dispatches" and ks.get("total_calls"):
            fail(case, "kernels: %s dispatches where the file has none" % ks.get("total_calls"))
        return
    if got != want:
        missing = {n: v for n, v in want.items() if got.get(n) != v}
        fail(case, "kernels per name differ on %d names (calls, ns), e.g. %s (goblind %s); totals goblind %s/%s"
             % (len(missing), list(missing.items())[:1], [got.get(n) for n in list(missing)[:1]],
                ks.get("total_calls"), ks.get("total_ns")))
    calls, ns = sum(v[0] for v in want.values()), sum(v[1] for v in want.values())
    if (ks.get("total_calls"), ks.get("total_ns")) != (calls, ns) and \
            BARRIER not in [r["name"] for r in ks.get("by_name") or []]:
        fail(case, "kernel totals %s/%s, expected %d/%d" % (ks.get("total_calls"), ks.get("total_ns"), calls, ns))


def check_case(case, layout, doc, rc, stderr):
    if doc is None:
        fail(case, "no JSON document (exit %s): %s" % (rc, stderr[-300:]))
        return
    sources = {s["path"]: s for s in doc.get("sources") or []}
    read_any = False
    oracle = {}
    for rel, src in sorted(layout.items()):
        s = sources.get(rel)
        if s is None:
            fail(case, "%s: no sources entry" % rel)
            continue
        says = what_content_says(src, os.path.basename(rel))
        fmt = s.get("format")
        if fmt is None:
            if not s.get("unrecognised") or not any(rel in w for w in s.get("warnings") or []):
                fail(case, "%s: neither a format nor an unrecognised warning" % rel)
            if says:
                fail(case, "%s: unrecognised, but its content is %s" % (rel, sorted(says)))
            continue
        read_any = True
        if says is not None and fmt not in says:
            fail(case, "%s: read as %s, its content says %s" % (rel, fmt, sorted(says) or "unrecognised"))
            continue
        o = oracle_of(fmt, os.path.realpath(src))
        if o is not None:
            oracle[rel] = (fmt, s, o)
    if rc not in (0, 3) or (rc == 3) == read_any:
        fail(case, "exit status %s with %s file read" % (rc, "a" if read_any else "no"))
    compare(case, doc, oracle)


def compare(case, doc, oracle):
    """The sections against the oracle's numbers, summed over the sources delivered to them."""
    chosen = {rel: v for rel, v in oracle.items() if v[1].get("kernels_chosen")}
    kernels, api, copies, memsets, counters, intervals = {}, None, None, 0, 0, []
    # API calls come from one family of sources: the first format (in the document's source
    # order: device-clock kernel sources first) whose files have some; any other source's
    # calls are counted but not delivered (a results.json beside its results.db, a
    # hip_api_trace.csv beside the rocpd database that holds the same calls)
    order = [s["path"] for s in doc.get("sources") or []]
    api_rels = sorted((rel for rel, v in oracle.items() if v[2].get("api")), key=order.index)
    api_fmt = oracle[api_rels[0]][0] if api_rels else None
    for rel in api_rels:
        fmt, s, o = oracle[rel]
        if fmt == api_fmt:
            api = [a + b for a, b in zip(api or [0, 0], o["api"])]
        elif s.get("records_not_delivered", 0) < o["api"][0]:
            fail(case, "%s: its %d API calls are delivered beside %s's" % (rel, o["api"][0], api_rels[0]))
    for s in doc.get("sources") or []:
        # a device-clock family not chosen (a results.json beside its results.db) delivers none
        # of its records of any family: its rocTX ranges and API calls are the chosen family's too
        if s.get("format") and s.get("device_clock") and not s.get("kernels_chosen"):
            family = sum(s["records"].get(t, 0) for t in FAMILY_KEYS)
            if s.get("records_not_delivered") != family:
                fail(case, "%s: %s records not delivered, its family records are %d (%s)" %
                     (s["path"], s.get("records_not_delivered"), family, s["records"]))
    for rel, (fmt, s, o) in oracle.items():
        undelivered = s.get("records_not_delivered", 0)
        if "counters" in o and not undelivered:
            counters += o["counters"]
            if s["records"].get("counter", 0) != o["counters"]:
                fail(case, "%s: %s counter records, the file has %d rows" % (rel, s["records"].get("counter"), o["counters"]))
        if rel in chosen and not undelivered:
            for n, v in o.get("kernels", {}).items():
                k = kernels.setdefault(n, [0, 0])
                k[0] += v[0]
                k[1] += v[1]
            if "copies" in o:
                copies = (copies or collections.Counter()) + o["copies"]
            memsets += o.get("memsets", 0)
            intervals += o.get("intervals", [])
        if "stats" in o:
            ks = doc.get("kernels") or {}
            if ks.get("from") == "stats":
                got = {r["name"]: [r["calls"], r["total_ns"]] for r in ks.get("by_name") or []}
                for n, v in o["stats"].items():
                    if n != BARRIER and got.get(n) != v:
                        fail(case, "%s: stats row %r: goblind %s, the file %s" % (rel, n[:80], got.get(n), v))
        if "telemetry" in o:
            t = doc.get("telemetry") or {}
            gpus = {g["device"]: g for g in t.get("gpus") or []}
            for dev, means in o["telemetry"].items():
                g = gpus.get(dev)
                if g is None:
                    fail(case, "%s: telemetry has no device %s" % (rel, dev))
                    continue
                for k, v in means.items():
                    if not close(g.get(k), v):
                        fail(case, "%s: device %s %s %s, the file's mean %s" % (rel, dev, k, g.get(k), v))
                if o.get("timed") and g.get("samples", 0) > 1 and (g.get("cadence_ms") is None or not g.get("series")):
                    fail(case, "%s: device %s: every timestamp is readable, but cadence %s / series %s" %
                         (rel, dev, g.get("cadence_ms"), "null" if not g.get("series") else "set"))
        if "npu" in o:
            n = doc.get("npu_ops") or {}
            if n.get("ops") != o["npu"][0] or not close(n.get("total_us"), o["npu"][1], 1e-9):
                fail(case, "%s: npu_ops %s ops / %s us, the file %s" % (rel, n.get("ops"), n.get("total_us"), o["npu"]))
        if "aie" in o and s["records"].get("aie_event", 0) != o["aie"]:
            fail(case, "%s: %s AIE events, the file %d" % (rel, s["records"].get("aie_event"), o["aie"]))
    if any("kernels" in v[2] for v in chosen.values()):
        check_kernels(case, doc, kernels)
    if api is not None:
        a = doc.get("api") or {}
        if a.get("from") == "calls" and [a.get("total_calls"), a.get("total_ns")] != api:
            fail(case, "api %s calls / %s ns, expected %s" % (a.get("total_calls"), a.get("total_ns"), api))
    if copies is not None:
        m = doc.get("memory_copies") or {}
        got = {d: v["calls"] for d, v in (m.get("by_direction") or {}).items()}
        if got != {d: n for d, n in copies.items() if n}:
            fail(case, "copies by direction %s, expected %s" % (got, dict(copies)))
    busy = ((doc.get("timeline") or {}).get("run") or {}).get("busy_ns")
    if intervals and busy is not None and busy != union_ns(intervals):
        fail(case, "timeline busy %s ns, the union of the operations %d ns" % (busy, union_ns(intervals)))


def run_cases(items):
    """Cases sharing their largest file, in one worker process (the oracle reads it once):
    goblind analyze, then the oracle; their failures."""
    del failures[:]
    for case, layout in items:
        case, layout, doc, rc, err = analyze_case(case, layout)
        if rc < 0:
            fail(case, "goblind died with signal %d: %s" % (-rc, err[-300:]))
        else:
            check_case(case, layout, doc, rc, err)
    return list(failures)


def analyze_case(case, layout):
    tmp = tempfile.mkdtemp(prefix="corpus_")
    try:
        for rel, src in layout.items():
            dst = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.symlink(os.path.abspath(src), dst)
        p = subprocess.run([GOBLIND, "analyze", tmp, "--rows", "0"], capture_output=True, text=True, timeout=300)
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            doc = None
        return case, layout, doc, p.returncode, p.stderr
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# Names other formats claim, by extension: the file under each must still be read as its
# content says (a torch trace saved as trace.json is not an AIE trace, an nvidia-smi log
# named gpu_trace.csv is not an nvprof trace, a legacy results.json named
# torch_profile.json is not a torch trace).
DECOYS = {".json": ["trace.json", "trace_view.json", "torch_profile.json", "results.json"], ".json.gz": ["torch_profile.json.gz"],
          ".csv": ["gpu_trace.csv", "trace.csv", "amd_smi.csv"], ".db": ["results.db", "1_results.db"]}
DECOY_MAX_BYTES = 1 << 20


def decoy_cases(files):
    cases = {}
    for p in files:
        ext = next((e for e in sorted(DECOYS, key=len, reverse=True) if p.endswith(e)), None)
        if ext is None or os.path.getsize(p) > DECOY_MAX_BYTES:
            continue
        for name in DECOYS[ext]:
            if name != os.path.basename(p):
                cases["as %s:%s" % (name, os.path.relpath(p, CORPUS))] = {name: p}
    return cases


def cross_tool_cases(files):
    """Every rocpd database beside a rocprofv3 HIP API CSV (both found by content): API calls
    are counted once, from the database when it has them."""
    dbs = [p for p in files if what_content_says(p, os.path.basename(p)) == {"rocpd-sqlite"}]
    api = [p for p in files if what_content_says(p, os.path.basename(p)) == {"rocprof-hip-api-csv",
                                                                               "rocprof-hsa-api-csv"}]
    api = [p for p in api if "HIP_" in raw_head(p).decode("utf-8", "replace")]
    if not api:
        return {}
    return {"rocpd+hip_api:" + os.path.relpath(d, CORPUS): {"host/1_results.db": d, "host/1_hip_api_trace.csv": api[0]}
            for d in dbs}


def main():
    files = corpus_files()
    cases = {}
    for p in files:
        cases["file:" + os.path.relpath(p, CORPUS)] = {os.path.basename(p): p}
    cases.update(manifest_cases())
    cases.update(same_run_cases(files))
    cases.update(decoy_cases(files))
    cases.update(cross_tool_cases(files))
    groups = collections.defaultdict(list)
    for case, layout in sorted(cases.items()):
        groups[os.path.realpath(max(layout.values(), key=os.path.getsize))].append((case, layout))
    # the largest first, so the pool ends together
    order = sorted(groups.values(), key=lambda g: -sum(os.path.getsize(p) for c in g for p in c[1].values()))
    found = []
    with concurrent.futures.ProcessPoolExecutor(JOBS) as ex:
        for f in ex.map(run_cases, order):
            found += f
    failures[:] = found
    print("corpus_check: %d files, %d cases, %d failures" % (len(files), len(cases), len(failures)))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
