#!/usr/bin/env python3
"""device_properties: the `device` section's per-device properties against the traces'
deviceProperties read here with the json module (none of goblind's code).

    device_properties.py GOBLIND SHARED_DIR

Every torch trace of ../shared/fixtures and ../shared/corpus with a deviceProperties list, alone in
a run directory (as worker0.pt.trace.json): name, memory, compute units, wave size, compute capability ("major.minor"),
shared memory per block, max threads per block and registers per block of every device equal the
file's; the vendor is the tracer's (roctracer_version: AMD, cupti_version: NVIDIA) and not
inferred. Then one trace copied without its tracer version: a wave size of 64 gives vendor AMD
with vendor_inferred true, 32 gives no vendor (null, never a guess).
"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

FIELDS = [("name", "name"), ("totalGlobalMem", "memory_bytes"), ("numSms", "compute_units"),
          ("warpSize", "wave_size"), ("sharedMemPerBlock", "shared_memory_per_block"),
          ("maxThreadsPerBlock", "max_threads_per_block"), ("regsPerBlock", "registers_per_block")]


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        return json.load(f)


def analyze(goblind, tmp, name, doc=None, path=None):
    """The device section of a run directory holding one trace: doc written as JSON, or the
    file at path copied as it is."""
    run = tempfile.mkdtemp(dir=tmp)
    if path:
        shutil.copy(path, os.path.join(run, name))
    else:
        with open(os.path.join(run, name), "w") as f:
            json.dump(doc, f)
    out = subprocess.run([goblind, "analyze", run], capture_output=True, text=True)
    return json.loads(out.stdout)["device"]


def main():
    goblind, shared = sys.argv[1:3]
    tmp = tempfile.mkdtemp(prefix="goblind-device-")
    errors, checked = [], 0
    paths = sorted(glob.glob(f"{shared}/fixtures/torch_profiler/*.json*") + glob.glob(f"{shared}/corpus/**/*.json*", recursive=True))
    for path in paths:
        try:
            doc = load(path)
        except (ValueError, OSError, EOFError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("deviceProperties"), list) or not doc["deviceProperties"]:
            continue
        if not isinstance(doc.get("traceEvents"), list):
            continue
        name = "worker0.pt.trace.json" + (".gz" if path.endswith(".gz") else "")   # discovery is not tested here
        got = analyze(goblind, tmp, name, path=path)
        checked += 1
        if got is None:
            errors.append(f"{path}: no device section")
            continue
        devs = {d["device"]: d for d in got["devices"]}
        for p in doc["deviceProperties"]:
            g = devs.get(p["id"])
            if g is None:
                errors.append(f"{path}: device {p['id']} missing")
                continue
            for src, key in FIELDS:
                want = p.get(src)
                if want == "":
                    want = None      # an empty text is unknown
                if want is not None and g[key] != want:
                    errors.append(f"{path}: device {p['id']} {key}: goblind {g[key]!r}, file {want!r}")
            if "computeMajor" in p and "computeMinor" in p:
                want = f"{p['computeMajor']}.{p['computeMinor']}"
                if g["compute_capability"] != want:
                    errors.append(f"{path}: device {p['id']} compute_capability {g['compute_capability']!r}, file {want!r}")
        tracer = "AMD" if "roctracer_version" in doc else "NVIDIA" if "cupti_version" in doc else None
        if tracer and (got["vendor"], got["vendor_inferred"]) != (tracer, False):
            errors.append(f"{path}: vendor {got['vendor']!r} inferred {got['vendor_inferred']}, tracer says {tracer}")
    for wave, want in ((64, ("AMD", True)), (32, (None, None))):
        doc = {"deviceProperties": [{"id": 0, "name": "gpu", "warpSize": wave}],
               "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1, "dur": 2,
                                "args": {"device": 0, "stream": 1, "correlation": 1}}]}
        got = analyze(goblind, tmp, "worker0.pt.trace.json", doc)
        if (got["vendor"], got["vendor_inferred"]) != want:
            errors.append(f"warpSize {wave} without a tracer: vendor {got['vendor']!r} inferred {got['vendor_inferred']}, want {want}")
    shutil.rmtree(tmp)
    print(f"{checked} traces with deviceProperties checked; {len(errors)} differences")
    for e in errors[:30]:
        print("   ", e)
    return 1 if errors or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
