#!/usr/bin/env python3
"""formats_json: the JSON and telemetry formats against
independent reads of the same files.

Each check runs `section_tool --records FORMAT=FILE` (one JSON line per record the format
emits) and compares counts and totals with what Python computes from the file itself: the
JSON's own records via json/gzip, a plain CSV read (the SQLite formats: formats_sqlite.py).

usage: formats_json.py SECTION_TOOL SHARED_DIR [CHECK ...]
"""
import csv
import gzip
import json
import os
import subprocess
import sys
import tempfile

TOOL = SHARED = None
FAILED = []


def records(fmt, path):
    """The records the format emits, as dicts; also the tool's stderr (warnings)."""
    p = subprocess.run([TOOL, "--records", f"{fmt}={path}"], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"section_tool failed ({p.returncode}): {p.stderr}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()], p.stderr


def section_doc(*sources):
    """The analysis document of section_tool over FORMAT, FILE pairs (one source each)."""
    args = [f"{sources[i]}={sources[i + 1]}" for i in range(0, len(sources), 2)]
    p = subprocess.run([TOOL] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"section_tool failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout)


def by_type(recs, t):
    return [r for r in recs if r["type"] == t]


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


# ---------------------------------------------------------------- rocprofv3 JSON
def check_rocprofv3_json():
    path = os.path.join(SHARED, "fixtures/rocprofv3/rocprofv3_908_results.json.gz")
    doc = json.load(gzip.open(path))
    recs, _ = records("rocprofv3-json", path)
    tool = doc["rocprofiler-sdk-tool"][0]
    syms = {k["kernel_id"]: k["formatted_kernel_name"] for k in tool["kernel_symbols"]}
    node_of = {a["id"]["handle"]: a["node_id"] for a in tool["agents"]}
    disp = tool["buffer_records"]["kernel_dispatch"]
    got = by_type(recs, "kernel_dispatch")
    expect(len(got) == len(disp), f"dispatches {len(got)} != {len(disp)}")
    total = sum(d["end_timestamp"] - d["start_timestamp"] for d in disp)
    expect(sum(r["duration_ns"] for r in got) == total, "dispatch time total differs")
    for r, d in zip(got, disp):
        expect(r["name"] == syms[d["dispatch_info"]["kernel_id"]], f"name of dispatch at {r['line']}")
        expect(r["device"] == node_of[d["dispatch_info"]["agent_id"]["handle"]], "device")
        expect(r["start_ns"] == d["start_timestamp"] and r["end_ns"] == d["end_timestamp"], "times")
        expect(r["correlation_id"] == d["correlation_id"]["internal"], "correlation id")
        expect(r["grid"] == [d["dispatch_info"]["grid_size"][c] for c in "xyz"], "grid")
        expect(r["lds_bytes"] == d["dispatch_info"]["group_segment_size"], "lds")
    gpus = [a for a in tool["agents"] if a["type"] == 2]
    meta = by_type(recs, "metadata")
    for key, field in (("device_name", "product_name"), ("compute_units", "cu_count"), ("wave_size", "wave_front_size")):
        vals = {m["device"]: m["value"] for m in meta if m["key"] == key}
        expect(vals == {a["node_id"]: str(a[field]) for a in gpus}, f"metadata {key}: {vals}")
    mem = {m["device"]: int(m["value"]) for m in meta if m["key"] == "memory_bytes"}
    expect(mem == {a["node_id"]: sum(b["size_in_bytes"] for b in a["mem_banks"] if b["heap_type"] in (1, 2))
                   for a in gpus}, "memory_bytes")


def check_rocprofv3_json_symbols_out_of_order():
    """Symbols defined out of id order, some ids twice, each followed at once by a dispatch
    naming a symbol seen so far (the key repeated, as a hostile file may): every dispatch takes
    the first symbol of its id in file order (a plain dict, independently), and none is unnamed
    but those whose id was never defined before it."""
    import random
    rnd = random.Random(5)
    ids = list(range(3000)) + [rnd.randrange(3000) for _ in range(300)]
    rnd.shuffle(ids)
    first, parts, want = {}, [], []
    for i, kid in enumerate(ids):
        name = f"k{kid}_v{i}"
        first.setdefault(kid, name)
        ask = rnd.choice(ids[:i + 1]) if rnd.random() < 0.9 else 10**6 + i
        want.append(first.get(ask))
        parts.append('"kernel_symbols":[{"kernel_id":%d,"formatted_kernel_name":"%s"}],'
                     '"buffer_records":{"kernel_dispatch":[{"kind":4,"operation":2,"start_timestamp":%d,'
                     '"end_timestamp":%d,"dispatch_info":{"kernel_id":%d}}]}' % (kid, name, 10 * i, 10 * i + 5, ask))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x_results.json")
        with open(path, "w") as f:
            f.write('{"rocprofiler-sdk-tool":[{' + ",".join(parts) + "}]}")
        recs, err = records("rocprofv3-json", path)
    got = [r.get("name") for r in by_type(recs, "kernel_dispatch")]
    expect(len(got) == len(want), f"{len(got)} dispatches, {len(want)} written {err[:200]}")
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    expect(not bad, f"{len(bad)} dispatches named otherwise than the first symbol of their id: {bad[:3]}")


def check_rocprofv3_json_tool_array_elements():
    """Two elements of the rocprofiler-sdk-tool array (each its own tables): symbols in the
    first, a dispatch naming one in the second. The tables are the element's: the dispatch has
    no name, and the read survives it (a crash before: the sorted-prefix count outlived the
    first element's table); a third element's own symbols name its own dispatches."""
    doc = ('{"rocprofiler-sdk-tool":['
           '{"kernel_symbols":[{"kernel_id":1,"formatted_kernel_name":"a"},{"kernel_id":2,"formatted_kernel_name":"b"}]},'
           '{"buffer_records":{"kernel_dispatch":[{"start_timestamp":1,"end_timestamp":2,"dispatch_info":{"kernel_id":1}}]}},'
           '{"kernel_symbols":[{"kernel_id":9,"formatted_kernel_name":"z"},{"kernel_id":3,"formatted_kernel_name":"c"},'
           '{"kernel_id":4,"formatted_kernel_name":"d"}],'
           '"buffer_records":{"kernel_dispatch":[{"start_timestamp":3,"end_timestamp":5,"dispatch_info":{"kernel_id":3}},'
           '{"start_timestamp":6,"end_timestamp":8,"dispatch_info":{"kernel_id":9}}]}}]}')
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x_results.json")
        with open(path, "w") as f:
            f.write(doc)
        recs, err = records("rocprofv3-json", path)
    got = [r.get("name") for r in by_type(recs, "kernel_dispatch")]
    expect(got == [None, "c", "z"], f"{got} {err}")


def check_rocprofv3_json_many_counters():
    """5,000 counter definitions (every counter of every GPU agent on a large node), handles in
    shuffled order and one given twice: each counter record is named by the first definition of
    its handle (a plain dict), none dropped."""
    import random
    rnd = random.Random(9)
    handles = list(range(1000, 6000))
    rnd.shuffle(handles)
    counters = [{"id": {"handle": h}, "name": f"C{h}"} for h in handles] + [{"id": {"handle": handles[0]}, "name": "dup"}]
    first = {}
    for c in counters:
        first.setdefault(c["id"]["handle"], c["name"])
    cc, want = [], []
    for i in range(300):
        asked = [rnd.choice(handles) for _ in range(4)]
        cc.append({"dispatch_data": {"start_timestamp": 10 * i, "end_timestamp": 10 * i + 5,
                                     "dispatch_info": {"dispatch_id": i, "kernel_id": 7}},
                   "records": [{"counter_id": {"handle": h}, "value": 1.0} for h in asked]})
        want += sorted(first[h] for h in set(asked))
    doc = {"rocprofiler-sdk-tool": [{"counters": counters, "kernel_symbols": [{"kernel_id": 7, "kernel_name": "k"}],
                                     "callback_records": {"counter_collection": cc}}]}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x_results.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        recs, err = records("rocprofv3-json", path)
    got = []
    by_dispatch = {}
    for r in by_type(recs, "counter"):
        by_dispatch.setdefault(r["fields"]["dispatch_id"], []).append(r["name"])
    for i in range(300):
        got += sorted(by_dispatch.get(str(i), []))
    expect(got == want, f"{len(got)} counter records, {len(want)} wanted; first difference "
                        f"{next(((a, b) for a, b in zip(got, want) if a != b), None)} {err[:200]}")


def check_rocprofv3_json_synthetic():
    """Copies, API calls and allocations (the fixture has only dispatches): a small file
    written as rocprofiler-sdk's JSON writer lays them out."""
    kinds = ["NONE", "HSA_CORE_API", "HIP_RUNTIME_API", "MEMORY_COPY", "KERNEL_DISPATCH", "MEMORY_ALLOCATION"]
    strings = [{"kind": k, "operations": []} for k in kinds]
    strings[2]["operations"] = ["hipApiName", "hipMalloc", "hipMemcpy", "hipLaunchKernel"]
    strings[1]["operations"] = ["hsa_init", "hsa_shut_down"]
    strings[3]["operations"] = ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
                                "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"]
    strings[5]["operations"] = ["MEMORY_ALLOCATION_NONE", "MEMORY_ALLOCATION_ALLOCATE",
                                "MEMORY_ALLOCATION_VMEM_ALLOCATE", "MEMORY_ALLOCATION_FREE"]
    agents = [{"id": {"handle": 11}, "type": 1, "node_id": 0, "name": "cpu", "cu_count": 8, "wave_front_size": 0},
              {"id": {"handle": 12}, "type": 2, "node_id": 1, "name": "gfx90a", "product_name": "AMD Instinct MI210",
               "vendor_name": "AMD", "cu_count": 104, "wave_front_size": 64,
               "mem_banks": [{"heap_type": 1, "size_in_bytes": 68702699520}]}]
    br = {
        "kernel_dispatch": [
            {"kind": 4, "operation": 2, "thread_id": 5, "correlation_id": {"internal": 3, "external": 0},
             "start_timestamp": 1000, "end_timestamp": 1500,
             "dispatch_info": {"agent_id": {"handle": 12}, "queue_id": {"handle": 1}, "kernel_id": 7,
                               "private_segment_size": 0, "group_segment_size": 64,
                               "workgroup_size": {"x": 64, "y": 1, "z": 1}, "grid_size": {"x": 1024, "y": 1, "z": 1}}},
            {"kind": 4, "operation": 2, "correlation_id": {"internal": 4, "external": 0},
             "start_timestamp": 2000, "end_timestamp": 2100, "dispatch_info": {"agent_id": {"handle": 12},
                                                                              "kernel_id": 99}},
            {"kind": 4, "operation": 2, "start_timestamp": 3000, "end_timestamp": 2999,
             "dispatch_info": {"kernel_id": 7}}],
        "hip_api": [{"kind": 2, "operation": 2, "thread_id": 5, "correlation_id": {"internal": 1},
                     "start_timestamp": 100, "end_timestamp": 900},
                    {"kind": 2, "operation": 3, "correlation_id": {"internal": 3}, "start_timestamp": 950,
                     "end_timestamp": 990}],
        "hsa_api": [{"kind": 1, "operation": 0, "start_timestamp": 1, "end_timestamp": 2}],
        "memory_copy": [{"kind": 3, "operation": 2, "correlation_id": {"internal": 1}, "start_timestamp": 200,
                         "end_timestamp": 700, "dst_agent_id": {"handle": 12}, "src_agent_id": {"handle": 11},
                         "bytes": 4096},
                        {"kind": 3, "operation": 3, "start_timestamp": 800, "end_timestamp": 850,
                         "dst_agent_id": {"handle": 11}, "src_agent_id": {"handle": 12}, "bytes": 128}],
        # rocprofiler-sdk writes the address as hex text (older writers: {"handle": N}); a free
        # carries allocation_size 0 and no agent (handle 0)
        "memory_allocation": [{"kind": 5, "operation": 1, "start_timestamp": 10, "end_timestamp": 20,
                               "agent_id": {"handle": 12}, "address": "0x00007ffb26354000",
                               "allocation_size": 1048576},
                              {"kind": 5, "operation": 3, "start_timestamp": 30, "end_timestamp": 40,
                               "agent_id": {"handle": 0}, "address": "0x00007ffb26354000", "allocation_size": 0},
                              {"kind": 5, "operation": 1, "start_timestamp": 50, "end_timestamp": 60,
                               "agent_id": {"handle": 12}, "address": {"handle": 77}, "allocation_size": 512},
                              {"kind": 5, "operation": 3, "start_timestamp": 70, "end_timestamp": 80,
                               "agent_id": {"handle": 0}, "address": {"handle": 77}, "allocation_size": 0}],
        "scratch_memory": [{"kind": 9, "operation": 1, "start_timestamp": 1, "end_timestamp": 2}],
    }
    counters = [{"id": {"handle": 55}, "name": "SQ_WAVES"}, {"id": {"handle": 56}, "name": "GRBM_COUNT"}]
    cc = [{"dispatch_data": {"correlation_id": {"internal": 3}, "start_timestamp": 1000, "end_timestamp": 1500,
                             "dispatch_info": {"dispatch_id": 1, "agent_id": {"handle": 12}, "kernel_id": 7}},
           "records": [{"counter_id": {"handle": 55}, "value": 2.0}, {"counter_id": {"handle": 55}, "value": 3.5},
                       {"counter_id": {"handle": 56}, "value": 7}]}]
    doc = {"rocprofiler-sdk-tool": [{"metadata": {"node": {"hostname": "node7"}}, "agents": agents,
                                     "counters": counters, "strings": {"buffer_records": strings},
                                     "kernel_symbols": [{"kernel_id": 7, "kernel_name": "_Z3addv.kd",
                                                         "formatted_kernel_name": "add()",
                                                         "sgpr_count": 16, "arch_vgpr_count": 8}],
                                     "callback_records": {"counter_collection": cc},   # the writer's order
                                     "buffer_records": br}]}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "1_results.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        recs, err = records("rocprofv3-json", path)
        alloc_doc = section_doc("rocprofv3-json", path)["allocations"]
    k = by_type(recs, "kernel_dispatch")
    expect(len(k) == 2, f"dispatches: {k}")
    expect(k[0]["name"] == "add()" and k[0]["device"] == 1 and k[0]["vgpr"] == 8 and k[0]["sgpr"] == 16, str(k[0]))
    expect("name" not in k[1] and "vgpr" not in k[1], f"unknown symbol: {k[1]}")
    expect("kernel_id is not in kernel_symbols" in err and "end_timestamp ignored" in err, err)
    api = by_type(recs, "api_call")
    expect([(a["name"], a["domain"], a["duration_ns"]) for a in api] ==
           [("hipMemcpy", 1, 800), ("hipLaunchKernel", 1, 40), ("hsa_init", 2, 1)], str(api))
    cp = by_type(recs, "memory_copy")
    expect([(c["copy"], c["bytes"], c["device"], c["peer_device"]) for c in cp] == [(1, 4096, 1, 0), (2, 128, 0, 1)],
           str(cp))
    al = by_type(recs, "allocation")
    expect([(a["category"], a.get("bytes"), a.get("device"), a.get("address")) for a in al] ==
           [("alloc", 1048576, 1, 0x7ffb26354000), ("free", None, None, 0x7ffb26354000), ("alloc", 512, 1, 77),
            ("free", None, None, 77)], str(al))
    # each free sized by its allocation and charged to its device: the peak is one allocation
    expect(alloc_doc["peak_bytes"] == 1048576 and [d["device"] for d in alloc_doc["devices"]] == [1] and
           alloc_doc["devices"][0]["freed_bytes"] == 1048576 + 512 and alloc_doc["peak_exact"], str(alloc_doc))
    ctr = by_type(recs, "counter")
    want = {}
    for e in cc:   # per dispatch and counter, the sum of its instances (rocprofv3's CSV does the same)
        for r in e["records"]:
            name = {c["id"]["handle"]: c["name"] for c in counters}[r["counter_id"]["handle"]]
            want[name] = want.get(name, 0) + r["value"]
    expect({c["name"]: c["number"] for c in ctr} == want, f"counters {ctr}")
    expect(all(c["device"] == 1 and c["fields"] == {"kernel": "add()", "dispatch_id": "1"} and c["duration_ns"] == 500
               for c in ctr), str(ctr))
    meta = {(m["key"], m.get("device")): m["value"] for m in by_type(recs, "metadata")}
    expect(meta == {("hostname", None): "node7", ("vendor", 1): "AMD", ("device_name", 1): "AMD Instinct MI210",
                    ("arch", 1): "gfx90a", ("compute_units", 1): "104", ("wave_size", 1): "64",
                    ("memory_bytes", 1): "68702699520"}, str(meta))


# ---------------------------------------------------------------- rocpd SQLite
def num(cell):
    """A plain read of a telemetry cell: the number before any unit word, None for N/A."""
    t = cell.strip().split(" ")[0] if cell.strip() else ""
    try:
        return float(t)
    except ValueError:
        return None


def check_nvidia_smi():
    base = os.path.join(SHARED, "fixtures/nvidia_smi")
    import datetime
    for name in sorted(os.listdir(base)):
        if not name.endswith(".csv"):
            continue
        path = os.path.join(base, name)
        with open(path, newline="") as f:
            rows = list(csv.reader(f, skipinitialspace=True))
        header = rows[0]
        data = [r for r in rows[1:] if r and r != header]
        col = {h: i for i, h in enumerate(header)}
        recs, _ = records("nvidia-smi-csv", path)
        tel = by_type(recs, "telemetry_sample")
        expect(len(tel) == len(data), f"{name}: samples {len(tel)} != {len(data)}")
        pcol = col.get("power.draw [W]", col.get("power_W"))
        if pcol is not None:
            want = sum(num(r[pcol]) for r in data if num(r[pcol]) is not None)
            expect(abs(sum(t.get("power_w", 0) for t in tel) - want) < 1e-6, f"{name}: power total")
        ucol = col.get("memory.used [MiB]")
        if ucol is not None:
            expect([t["vram_used_bytes"] for t in tel] == [num(r[ucol]) * 2**20 for r in data], f"{name}: vram bytes")
            tcol = col["memory.total [MiB]"]
            expect([t["vram_total_bytes"] for t in tel] == [num(r[tcol]) * 2**20 for r in data], f"{name}: total")
        tcol = col.get("temperature_C")
        if tcol is not None:
            expect([t["temp_c"] for t in tel] == [num(r[tcol]) for r in data], f"{name}: temperature")
        ts = data[0][col["timestamp"]].strip().rstrip("Z").replace("/", "-").replace("T", " ")
        epoch = datetime.datetime.fromisoformat(ts).replace(tzinfo=datetime.timezone.utc).timestamp()
        expect(tel[0]["start_ns"] == round(epoch * 1000) * 1000000, f"{name}: first timestamp {tel[0]}")


def check_nvidia_smi_units():
    """Hand-written headers in other units than nvidia-smi's own (MiB, W) are scaled from the
    header's unit (power_mW was read as W, memory_used_gb as MiB); a memory cell carrying another
    unit than its column's ("1.5 GiB" under [MiB]) is no value; a bracketed unit not known here
    leaves its column unread, warned."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "gpu.csv")
        with open(path, "w") as f:
            f.write("timestamp,index,memory_used_gb,power_mW,utilization_gpu\n"
                    "2025-01-01 00:00:00,0,1.5,45000,50\n")
        tel = by_type(records("nvidia-smi-csv", path)[0], "telemetry_sample")
        expect(len(tel) == 1 and tel[0]["power_w"] == 45.0 and tel[0]["vram_used_bytes"] == 1.5 * 2**30, str(tel))
        with open(path, "w") as f:
            f.write("timestamp, index, memory.used [MiB], power.draw [W], utilization.gpu [%]\n"
                    "2025/01/01 00:00:00.000, 0, 1.5 GiB, 70.5 W, 50 %\n"
                    "2025/01/01 00:00:01.000, 0, 841 MiB, 70.5 W, 50 %\n")
        tel = by_type(records("nvidia-smi-csv", path)[0], "telemetry_sample")
        expect(["vram_used_bytes" in t for t in tel] == [False, True] and tel[1]["vram_used_bytes"] == 841 * 2**20, str(tel))
        with open(path, "w") as f:           # a cell's unit that is its column's: read ("MB" is nvidia-smi's MiB)
            f.write("timestamp, index, memory.used [GiB], memory.total [MB], utilization.gpu [%]\n"
                    "2025/01/01 00:00:00.000, 0, 1.5 GiB, 4096 MB, 50 %\n")
        tel = by_type(records("nvidia-smi-csv", path)[0], "telemetry_sample")
        expect(tel[0]["vram_used_bytes"] == 1.5 * 2**30 and tel[0]["vram_total_bytes"] == 4096 * 2**20, str(tel))
        with open(path, "w") as f:
            f.write("timestamp,index,memory.used [GHz],power.draw [W],utilization.gpu [%]\n"
                    "2025/01/01 00:00:00.000,0,5,70,50\n")
        recs, err = records("nvidia-smi-csv", path)
        tel = by_type(recs, "telemetry_sample")
        expect("vram_used_bytes" not in tel[0] and tel[0]["power_w"] == 70, str(tel))
        expect("memory column 'memory.used [GHz]' is in a unit not known here" in err, err)


def check_amd_smi():
    path = os.path.join(SHARED, "fixtures/amd_smi/amd-smi_metric_watch_csv_InferenceX_gpu_metrics_EXCERPT.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    recs, _ = records("amd-smi-csv", path)
    tel = by_type(recs, "telemetry_sample")
    expect(len(tel) == len(rows), f"samples {len(tel)} != {len(rows)}")
    expect([t["device"] for t in tel] == [int(r["gpu"]) for r in rows], "gpu index")
    expect([t.get("power_w") for t in tel] == [num(r["socket_power"]) for r in rows], "socket_power (W)")
    expect([t.get("temp_c") for t in tel] == [num(r["hotspot"]) for r in rows], "hotspot (C)")
    expect([t["start_ns"] for t in tel] == [int(r["timestamp"]) * 10**9 for r in rows], "timestamp (epoch s -> ns)")
    expect([t.get("util_pct") for t in tel] == [num(r["gfx_activity"]) for r in rows], "gfx_activity (%)")


def check_amd_smi_units():
    """VRAM used/total conversions: MB (2^20 bytes) and bytes columns."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "amd_smi.csv")
        with open(path, "w") as f:
            f.write("timestamp,gpu,used_vram,total_vram,socket_power,edge\n"
                    "1700000000.5,card1,1024,196592,N/A,55\n")
        recs, _ = records("amd-smi-csv", path)
        t = by_type(recs, "telemetry_sample")[0]
        expect(t["vram_gib"] == 1.0 and t["vram_used_bytes"] == 2**30 and t["vram_total_bytes"] == 196592 * 2**20,
               str(t))
        expect(t["device"] == 1 and t["start_ns"] == 1700000000500000000 and "power_w" not in t and t["temp_c"] == 55,
               str(t))
        with open(path, "w") as f:
            f.write("device,VRAM Total Memory (B),VRAM Total Used Memory (B),GPU use (%)\n"
                    "card0,68702699520,1073741824,12\n")
        recs, _ = records("amd-smi-csv", path)
        t = by_type(recs, "telemetry_sample")[0]
        expect(t.get("vram_total_bytes") == 68702699520 and t["device"] == 0 and t["util_pct"] == 12, str(t))


ROCM_SMI = """device,Temperature (Sensor edge) (C),Temperature (Sensor junction) (C),Temperature (Sensor memory) (C),\
Average Graphics Package Power (W),GPU use (%)
card0,35.0,40.0,38.0,90.0,5
card1,36.0,N/A,39.0,N/A (Secondary die),7

device,VRAM Total Memory (B),VRAM Total Used Memory (B)
card0,68702699520,10960896
card1,68702699520,N/A
"""


def check_rocm_smi():
    """rocm-smi --csv, hand-made from its documented labels (no fixture): two blocks, units in
    the labels, a secondary die's N/A power."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "rocm_smi.csv")
        with open(path, "w") as f:
            f.write(ROCM_SMI)
        recs, err = records("rocm-smi-csv", path)
    tel = by_type(recs, "telemetry_sample")
    expect([(t["device"], t.get("temp_c"), t.get("power_w"), t.get("util_pct")) for t in tel[:2]] ==
           [(0, 40.0, 90.0, 5.0), (1, None, None, 7.0)], str(tel))
    expect(len(tel) == 3 and tel[2]["vram_used_bytes"] == 10960896 and tel[2]["vram_total_bytes"] == 68702699520,
           str(tel))


def check_madengine():
    """madengine gpu_info_profiler logs, written as gpu_info_profiler.py's csv.DictWriter does
    (FORMAT_NOTES.txt; no fixture): power mode and vram mode."""
    import datetime
    t0 = datetime.datetime(2024, 5, 1, 10, 0, 0, 250000)
    rows = [(t0 + datetime.timedelta(seconds=i), [120.5 + i, "N/A" if i == 0 else 99.0]) for i in range(5)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "gpu_info_power_profiler_output.csv")
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["time", "Power(Watt) GPU0", "Power(Watt) GPU1"])
            w.writeheader()
            for t, (p0, p1) in rows:
                w.writerow({"time": t.strftime("%Y-%m-%d %H:%M:%S.%f"), "Power(Watt) GPU0": str(p0),
                            "Power(Watt) GPU1": str(p1)})
        recs, _ = records("madengine-gpu-info-csv", path)
        tel = by_type(recs, "telemetry_sample")
        want = [(t, g, p) for t, ps in rows for g, p in enumerate(ps) if p != "N/A"]
        expect(len(tel) == len(want), f"samples {len(tel)} != {len(want)}")
        for r, (t, g, p) in zip(tel, want):
            ns = int(t.replace(tzinfo=datetime.timezone.utc).timestamp()) * 10**9 + t.microsecond * 1000
            expect((r["device"], r["power_w"], r["start_ns"]) == (g, p, ns), f"{r} vs {(t, g, p)}")
        path = os.path.join(d, "gpu_info_vram_profiler_output.csv")
        with open(path, "w") as f:
            f.write("time,vram(%) GPU0,vram(%) GPU1\n2024-05-01 10:00:00.000001,12.5,0.0\n")
        recs, _ = records("madengine-gpu-info-csv", path)
        tel = by_type(recs, "telemetry_sample")
        expect([(r["device"], r["fields"]["vram_pct"]) for r in tel] == [(0, "12.5"), (1, "0.0")], str(tel))


# ---------------------------------------------------------------- legacy rocprof (v1) results.json


def v1_results_json(kernels, activity, copies, hip):
    """A results.json laid out as rocprof v1's sqlitedb.py writes it (string values)."""
    out = ['{ "traceEvents":[{}\n']
    for i, (pid, label) in enumerate([(2, "CPU HIP API"), (1, "COPY"), (6, "GPU0"), (7, "GPU1")]):
        out.append(',{"args":{"name":"%s"},"ph":"M","pid":%d,"name":"process_name","sort_index":%d}\n' % (label, pid, i))

    def x(name, pid, tid, b, e, args):
        a = ",\n    ".join('"%s":"%s"' % kv for kv in args.items())
        return ',{"ph":"X","name":"%s","pid":%d,"tid":%d,"ts":"%d","dur":"%d",\n  "args":{\n    %s\n  }\n}\n' % (
            name, pid, tid, b // 1000, (e - b) // 1000, a)
    for name, gpu, b, e in kernels:
        out.append(x(name, 6 + gpu, 0, b, e, {"KernelName": name, "gpu-id": gpu, "BeginNs": b, "EndNs": e}))
    for name, gpu, b, e in activity:
        out.append(x(name, 6 + gpu, 0, b, e, {"Name": name, "proc-id": 7, "BeginNs": b, "EndNs": e}))
    for name, b, e in copies:
        out.append(x(name, 1, 0, b, e, {"Name": name, "BeginNs": b, "EndNs": e}))
    for name, b, e in hip:
        out.append(x(name, 2, 8, b, e, {"Name": name, "args": "(size(4))", "BeginNs": b, "EndNs": e}))
    out.append('],\n"otherData": {\n    "ROCm version": "5.7"\n  }\n}')
    return "".join(out)


def check_rocprof_v1_json():
    kernels = [(f"k{i % 3}", i % 2, 10**15 + 1000 * i, 10**15 + 1000 * i + 333 * i + 1) for i in range(50)]
    activity = [("k0", 0, 5, 9)]
    copies = [("CopyHostToDevice", 100, 300), ("CopyDeviceToHost", 400, 450)]
    hip = [("hipMemcpy", 90, 310)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "results.json")
        with open(path, "w") as f:
            f.write(v1_results_json(kernels, activity, copies, hip))
        doc = json.load(open(path))
        recs, err = records("rocprof-v1-json", path)
    k = by_type(recs, "kernel_dispatch")
    xs = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["pid"] >= 6 and "KernelName" in e["args"]]
    expect(len(k) == len(xs), f"kernels {len(k)} != {len(xs)}")
    expect(sum(r["duration_ns"] for r in k) == sum(int(e["args"]["EndNs"]) - int(e["args"]["BeginNs"]) for e in xs),
           "kernel time (exact ns from args)")
    expect([r["device"] for r in k] == [e["pid"] - 6 for e in xs], "device from the GPU lane")
    expect("1 HIP activity kernel events skipped" in err, err)
    expect([(c["copy"], c["duration_ns"]) for c in by_type(recs, "memory_copy")] == [(1, 200), (2, 50)], "copies")
    expect([(a["name"], a["domain"]) for a in by_type(recs, "api_call")] == [("hipMemcpy", 1)], "HIP calls")


CHECKS = {name[6:]: f for name, f in dict(globals()).items() if name.startswith("check_")}


def main(checks=None):
    """Runs the checks named on the command line (all of `checks`, this file's by default)."""
    global TOOL, SHARED
    checks = checks or CHECKS
    TOOL, SHARED = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or list(checks)
    for n in names:
        try:
            checks[n]()
            print(f"ok   {n}")
        except Exception as e:  # noqa: BLE001 - report every check, then fail
            FAILED.append(n)
            print(f"FAIL {n}: {type(e).__name__}: {e}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
