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
import csv
import datetime
import decimal
import functools
import gzip
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

GOBLIND, CORPUS = sys.argv[1], sys.argv[2]
JOBS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
DOCS = {"README.md", "SOURCES.txt", "MANIFEST.json"}   # the corpus's own documentation
failures = []


def fail(case, what):
    failures.append("%s: %s" % (case, what))


# ---------------------------------------------------------------------------- reading

def raw_head(path, n=4096):
    with open(path, "rb") as f:
        b = f.read(n if not path.endswith(".gz") else 1 << 20)
    if path.endswith(".gz"):
        try:
            b = gzip.GzipFile(fileobj=io.BytesIO(b)).read(n)
        except (OSError, EOFError):
            try:
                with gzip.open(path, "rb") as g:
                    b = g.read(n)
            except (OSError, EOFError):
                return b""
    return b[:n]


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (ValueError, OSError, EOFError):
        return None


def csv_rows(path):
    """(header, rows) of a CSV; the header is the first record (nvprof banners skipped)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    while rows and rows[0] and rows[0][0].startswith("=="):
        rows.pop(0)
    if not rows:
        return [], []
    return [h.strip() for h in rows[0]], [r for r in rows[1:] if r]


def col(header, *names):
    low = [h.lower() for h in header]
    for n in names:
        if n.lower() in low:
            return low.index(n.lower())
    return None


def to_int(text):
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        try:
            return int(float(t))
        except ValueError:
            return None


def sqlite_tables(path):
    try:
        db = sqlite3.connect("file:%s?immutable=1" % path, uri=True)
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        return db, names
    except sqlite3.DatabaseError:
        return None, set()


def half_away(d):
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def us_to_ns(v):
    """Microseconds (a JSON number or numeric string) to integer ns, from the decimal text."""
    if isinstance(v, bool) or v is None:
        return None
    try:
        return half_away(decimal.Decimal(str(v)) * 1000)
    except decimal.InvalidOperation:
        return None


# ------------------------------------------------------------- what the content says

V1_TABLES = {"A", "KERN", "OPS", "COPY", "HIP", "HSA", "KFD", "rocTX"}


def what_content_says(path, base):
    """The formats the file's content fits (a set; a name only breaks ties among them), the
    empty set when no format's content does, or None when this oracle cannot tell."""
    head = raw_head(path)
    if head.startswith(b"SQLite format 3\0"):
        db, names = sqlite_tables(path)
        if db is None:
            return None
        if any(n.startswith("rocpd_") for n in names) or "kernels" in names:
            return {"rocpd-sqlite"}
        return {"rocprof-v1-db"} if names & V1_TABLES else set()
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text[:1] in ("{", "["):
        if '"rocprofiler-sdk-tool"' in text[:200]:
            return {"rocprofv3-json"}
        if text.startswith('{ "traceEvents":[{}'):
            return {"rocprof-v1-json"}
        if text[:1] == "[" and ("_trace for tile" in text or "INSTR_EVENT_" in text or
                                ('"process_name"' in text and "tile" in text)):
            return {"aie-trace-json"}
        if any(k in text for k in ('"traceEvents"', '"schemaVersion"', '"deviceProperties"', '"distributedInfo"',
                                   '"ph"', '"displayTimeUnit"', "torch_profiler")) or \
                (text[:1] == "{" and '"metadata"' in text):
            return {"torch-trace-json"}
        if text[:1] == "{" and '"iterations"' in text and '"M"' in text:
            return {"aie-run-json"}
        return set()
    if not (base.endswith(".csv") or base.endswith(".tsv")):
        return None if text else set()
    first = text.split("\n", 1)[0].lower()
    low = text.lower()
    if "counter_name" in first:
        return {"rocprof-counter-csv"}
    if "kernel_name" in first or "kernelname" in first:
        legacy = "kernelname" in first and "beginns" in first
        return {"kernel-trace-csv", "rocprof-legacy-results-csv"} if legacy else {"kernel-trace-csv"}
    if "totaldurationns" in first:
        return {"rocprof-kernel-stats-csv", "rocprof-api-stats-csv", "rocprof-memory-copy-stats-csv",
                "rocprof-domain-stats-csv"}
    if "total time (ns)" in first:
        return {"nsys-cuda-gpu-kern-sum-csv", "nsys-cuda-gpu-mem-time-sum-csv"}
    if "destination_agent_id" in first:
        return {"rocprof-memory-copy-csv"}
    if "allocation_size" in first:
        return {"rocprof-memory-allocation-csv"}
    if "function" in first:
        return {"rocprof-hip-api-csv", "rocprof-hsa-api-csv"}
    if "grid x" in low:
        return {"nvprof-gpu-trace-csv"}
    if "start (ns)" in first:
        return {"nsys-cuda-gpu-trace-csv"}
    if "average duration(us)" in first:
        return {"msprof-reference-csv"}
    if "input shapes" in first and "duration(us)" in first:
        return {"msprof-op-csv"}
    if any(k in first for k in ("memory.used", "utilization.gpu", "utilization_gpu", "power.draw", "temperature.gpu")):
        return {"nvidia-smi-csv"}
    if any(k in first for k in ("gfx_activity", "umc_activity", "vram_used")):
        return {"amd-smi-csv"}
    if first.startswith("time,") and ("power(watt) gpu" in first or "vram(%) gpu" in first):
        return {"madengine-gpu-info-csv"}
    if first.startswith("device,") and any(u in first for u in ("(c)", "(w)", "(%)", "(b)")):
        return {"rocm-smi-csv"}
    if "vram" in first or "gfx_" in first:
        return None                        # amd-smi-like: the oracle does not tell
    return set()


# --------------------------------------------------------------------------- oracles
# Each returns what the run's sections must show for one file read alone: a dict with
# any of kernels {name: [calls, ns]}, api [calls, ns], copies {dir: calls}, copy_bytes
# {dir: bytes}, memsets n, counters n, intervals [(start, end)], telemetry {device: means},
# npu [ops, total_us], aie events n. None: this oracle does not compute the kind.

COPY_DIRS = [("HtoD", ("htod", "hosttodevice", "host-to-device", "h2d", "host_to_device")),
             ("DtoH", ("dtoh", "devicetohost", "device-to-host", "d2h", "device_to_host")),
             ("DtoD", ("dtod", "devicetodevice", "device-to-device", "d2d", "device_to_device")),
             ("PtoP", ("ptop", "peertopeer", "peer-to-peer", "peer_to_peer", "p2p")),
             ("HtoH", ("htoh", "hosttohost", "host-to-host", "h2h", "host_to_host"))]


def direction(name):
    n = (name or "").lower()
    for d, spellings in COPY_DIRS:
        if any(s in n for s in spellings):
            return d
    return "unknown"


def add_kernel(o, name, ns, start=None, end=None):
    k = o.setdefault("kernels", {}).setdefault(name, [0, 0])
    k[0] += 1
    k[1] += ns
    if start is not None and end is not None:
        o.setdefault("intervals", []).append((start, end))


def oracle_kernel_csv(path):
    h, rows = csv_rows(path)
    cn = col(h, "Kernel_Name", "KernelName")
    cd = col(h, "DurationNs")
    cs, ce = col(h, "Start_Timestamp", "BeginNs"), col(h, "End_Timestamp", "EndNs")
    if cn is None or (cd is None and (cs is None or ce is None)):
        return None
    o = {"kernels": {}}
    for r in rows:
        if len(r) < len(h):
            continue
        s = to_int(r[cs]) if cs is not None else None
        e = to_int(r[ce]) if ce is not None else None
        d = to_int(r[cd]) if cd is not None else (e - s if s is not None and e is not None else None)
        if d is None or d <= 0:
            continue
        add_kernel(o, r[cn].strip(), d, s, e if s is not None and e is not None and e >= s else None)
    return o


def oracle_rocpd(path):
    db, names = sqlite_tables(path)
    o = {"kernels": {}}
    for name, s, e in db.execute("SELECT name, start, end FROM kernels"):
        add_kernel(o, name, e - s, s, e)
    if "regions" in names:
        api = [r for r in db.execute("SELECT category, start, end FROM regions") if not r[0].startswith("MARKER")]
        if api:
            o["api"] = [len(api), sum(e - s for _, s, e in api)]
    if "memory_copies" in names:
        for name, s, e, size in db.execute("SELECT name, start, end, size FROM memory_copies"):
            o.setdefault("copies", collections.Counter())[direction(name)] += 1
            o.setdefault("intervals", []).append((s, e))
    return o


def oracle_v1_db(path):
    db, names = sqlite_tables(path)
    o = {"kernels": {}}

    def rows(table):
        if table not in names:
            return []
        c = db.execute('SELECT * FROM "%s"' % table)
        cols = [d[0].lower() for d in c.description]
        return [dict(zip(cols, r)) for r in c]
    kern = [r for t in ("A", "KERN") for r in rows(t) if r.get("beginns") is not None]
    if not kern:
        kern = [r for r in rows("OPS") if r.get("name") != "Unknown command type"]
    for r in kern:
        b, e = r.get("beginns"), r.get("endns")
        if b is None or e is None or e <= b:
            continue
        add_kernel(o, (r.get("kernelname") or r.get("name") or "").strip().strip('"'), e - b, b, e)
    for r in rows("COPY"):
        b, e = r["beginns"], r["endns"]
        o.setdefault("intervals", []).append((b, e))
        if r["name"] == "FillBuffer":
            o["memsets"] = o.get("memsets", 0) + 1
        else:
            o.setdefault("copies", collections.Counter())[direction(r["name"])] += 1
    api = [r for t in ("HIP", "HSA", "KFD") for r in rows(t)]
    if api:
        o["api"] = [len(api), sum(r["endns"] - r["beginns"] for r in api)]
    return o


def oracle_v1_json(path):
    doc = load_json(path)
    if not isinstance(doc, dict):
        return None
    lanes = {}
    events = [e for e in doc.get("traceEvents", []) if isinstance(e, dict) and e]
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            lanes[str(e.get("pid"))] = (e.get("args") or {}).get("name", "")
    o = {"kernels": {}}
    api = [0, 0]
    first_kind = None                     # results.txt kernels (args KernelName) or HIP activity ones:
    for e in events:                      # the same dispatches, the first kind seen is read
        if e.get("ph") != "X":
            continue
        lane = lanes.get(str(e.get("pid")), "")
        a = e.get("args") or {}
        b, en = a.get("BeginNs"), a.get("EndNs")
        b = to_int(str(b)) if b is not None else None
        en = to_int(str(en)) if en is not None else None
        if b is None or en is None:
            return None                   # times from ts/dur only: not computed here
        if re.fullmatch(r"GPU\d+", lane):
            kind = "KernelName" in a
            first_kind = kind if first_kind is None else first_kind
            if kind != first_kind or en <= b:
                continue
            add_kernel(o, e.get("name", "").strip(), en - b, b, en)
        elif lane == "COPY":
            o.setdefault("intervals", []).append((b, en))
            if e.get("name") == "FillBuffer":
                o["memsets"] = o.get("memsets", 0) + 1
            else:
                o.setdefault("copies", collections.Counter())[direction(e.get("name"))] += 1
        elif lane.startswith("CPU") and "API" in lane:
            api[0] += 1
            api[1] += en - b
    if api[0]:
        o["api"] = api
    return o


TORCH_KERNEL = {"kernel", "mtia_ccp_events"}
TORCH_API = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "runtime", "mtia_runtime"}
TORCH_COPY, TORCH_MEMSET = {"gpu_memcpy", "memcpy"}, {"gpu_memset", "memset"}


def oracle_torch(path):
    doc = load_json(path)
    events = doc if isinstance(doc, list) else doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        return None
    o = {"kernels": {}}
    api = [0, 0]
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = str(e.get("cat", "")).lower()
        ts, dur = us_to_ns(e.get("ts")), us_to_ns(e.get("dur"))
        if ts is None or dur is None:
            continue
        if cat in TORCH_KERNEL:
            add_kernel(o, e.get("name", ""), dur, ts, ts + dur)
        elif cat in TORCH_API:
            api[0] += 1
            api[1] += dur
        elif cat in TORCH_COPY:
            o.setdefault("copies", collections.Counter())[direction(e.get("name"))] += 1
            o.setdefault("intervals", []).append((ts, ts + dur))
        elif cat in TORCH_MEMSET:
            o["memsets"] = o.get("memsets", 0) + 1
            o.setdefault("intervals", []).append((ts, ts + dur))
    if api[0]:
        o["api"] = api
    return o


def oracle_kernel_stats(path):
    h, rows = csv_rows(path)
    cn, cc, ct = col(h, "Name"), col(h, "Calls"), col(h, "TotalDurationNs")
    if None in (cn, cc, ct):
        return None
    o = {"stats": {}}
    for r in rows:
        extra = len(r) - len(h)         # unquoted names with commas: the surplus is the name's
        name = ",".join(r[cn:cn + extra + 1]) if extra > 0 else r[cn]
        shift = lambda c: c + extra if extra > 0 and c > cn else c
        k = o["stats"].setdefault(name.strip(), [0, 0])
        k[0] += int(r[shift(cc)])
        k[1] += int(round(float(r[shift(ct)])))
    return o


def oracle_api_csv(path):
    h, rows = csv_rows(path)
    cs, ce = col(h, "Start_Timestamp"), col(h, "End_Timestamp")
    if cs is None or ce is None:
        return None
    calls = [(to_int(r[cs]), to_int(r[ce])) for r in rows]
    calls = [(s, e) for s, e in calls if s is not None and e is not None and e >= s]
    return {"api": [len(calls), sum(e - s for s, e in calls)]}


def oracle_copy_csv(path):
    h, rows = csv_rows(path)
    cd = col(h, "Direction")
    o = {"copies": collections.Counter()}
    for r in rows:
        o["copies"][direction(r[cd].replace("_", "") if cd is not None else "")] += 1
    return o


def oracle_counter_csv(path):
    h, rows = csv_rows(path)
    return {"counters": len(rows)}


def oracle_nvidia_smi(path):
    h, rows = csv_rows(path)
    ci = col(h, "index", "gpu_index")           # no index column: the device is unknown (null)
    cp = next((i for i, n in enumerate(h) if n.lower().startswith("power.draw") or n.lower() in ("power_w",)), None)
    cu = next((i for i, n in enumerate(h) if n.lower().startswith("utilization.gpu")), None)
    per = collections.defaultdict(lambda: {"power": [], "util": []})

    def num(t):
        m = re.fullmatch(r"\s*([-+0-9.eE]+)\s*[A-Za-z%]*\s*", t)
        try:
            return float(m.group(1)) if m else None
        except ValueError:
            return None
    for r in rows:
        if len(r) < len(h) or r[0].strip().lower() == h[0].lower():
            continue
        dev = int(num(r[ci])) if ci is not None and num(r[ci]) is not None else None
        if cp is not None and num(r[cp]) is not None and num(r[cp]) >= 0:
            per[dev]["power"].append(num(r[cp]))
        if cu is not None and num(r[cu]) is not None and 0 <= num(r[cu]) <= 100:
            per[dev]["util"].append(num(r[cu]))
    ct = col(h, "timestamp")
    timed = ct is not None and rows and all(parse_time(r[ct]) is not None for r in rows if len(r) >= len(h))
    return {"telemetry": {d: {"power_mean_w": sum(v["power"]) / len(v["power"]) if v["power"] else None,
                              "util_mean_pct": sum(v["util"]) / len(v["util"]) if v["util"] else None}
                          for d, v in per.items()}, "timed": bool(timed)}


def parse_time(text):
    """A timestamp nvidia-smi or a hand-written header writes (epoch seconds, 2024/10/30
    18:42:33.189, ISO 8601 with or without a UTC offset), or None."""
    t = text.strip()
    if re.fullmatch(r"\d{9,12}(\.\d+)?", t):
        return float(t)
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S"):
        try:
            return datetime.datetime.strptime(t, fmt)
        except ValueError:
            pass
    try:
        return datetime.datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        return None


def oracle_msprof(path):
    h, rows = csv_rows(path)
    h = [x.strip().strip("\t") for x in h]
    cd = col(h, "Task Duration(us)", "Duration(us)")
    ct = col(h, "OP Type", "Type")
    if cd is None or ct is None:
        return None
    ops, total = 0, decimal.Decimal(0)
    for r in rows:
        if len(r) <= max(cd, ct) or not r[ct].strip() or r[ct].strip() == "N/A":
            continue
        try:
            d = decimal.Decimal(r[cd].strip().strip("\t"))
        except decimal.InvalidOperation:
            continue
        if d < 0:
            continue
        ops += 1
        total += d
    return {"npu": [ops, float(total)]}


def oracle_aie(path):
    doc = load_json(path)
    if not isinstance(doc, list):
        return None
    return {"aie": sum(1 for e in doc if isinstance(e, dict) and e.get("ph") in ("B", "E")
                       and isinstance(e.get("ts"), int) and e["ts"] >= 0)}


ORACLES = {"kernel-trace-csv": oracle_kernel_csv, "rocprof-legacy-results-csv": oracle_kernel_csv,
           "rocpd-sqlite": oracle_rocpd, "rocprof-v1-db": oracle_v1_db, "rocprof-v1-json": oracle_v1_json,
           "torch-trace-json": oracle_torch, "rocprof-kernel-stats-csv": oracle_kernel_stats,
           "rocprof-hip-api-csv": oracle_api_csv, "rocprof-hsa-api-csv": oracle_api_csv,
           "rocprof-memory-copy-csv": oracle_copy_csv, "rocprof-counter-csv": oracle_counter_csv,
           "nvidia-smi-csv": oracle_nvidia_smi, "msprof-op-csv": oracle_msprof, "aie-trace-json": oracle_aie}


@functools.lru_cache(maxsize=None)
def oracle_of(fmt, path):
    """The oracle's numbers for one file read as fmt (None: not computed), once per worker."""
    fn = ORACLES.get(fmt)
    return fn(path) if fn else None


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
DECOYS = {".json": ["trace.json", "torch_profile.json", "results.json"], ".json.gz": ["torch_profile.json.gz"],
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
