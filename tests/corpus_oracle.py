"""corpus_oracle: what a profiler file holds, computed in plain Python (csv, sqlite3, json) for
tests/corpus_check.py, never with goblind's code: which formats its content fits
(what_content_says) and, per format, the numbers the analysis sections must show (oracle_of).
"""
import collections
import csv
import datetime
import decimal
import functools
import gzip
import io
import json
import re
import sqlite3


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
    fields = [f.strip().strip('"').strip() for f in first.split(",")]
    if "name" in fields and any(w in first for w in ("start", "begin", "duration")):
        return {"kernel-trace-csv"}        # a plain Name and a time column: a kernel trace may be
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
