#!/usr/bin/env python3
"""Ordered chunked reads (core/chunked_read): `goblind analyze` with two threads parses a large
file of a resuming format (kernel trace CSV, torch trace JSON) in chunks on worker threads and
delivers the records in file order; the document must be exactly that of one sequential read.

For every fixture directory of SHARED/fixtures, each torch profiler fixture alone, small
generated runs (both dialects, gzip, CRLF line ends, kernel names with newlines inside quotes,
a truncated torch trace, bytes that are not JSON or CSV mid-file, a second rank's trace) and chunk sizes from 1 KiB to
64 KiB (odd ones included), `goblind analyze --threads 2 --chunk-bytes N` must print the
document of `goblind analyze --threads 1` (every section; in `sources` every field but
parse_ms, a timing, and pieces, the chunk count), the same warnings on stderr and the same
exit status. A bound of 1 byte on the waiting batches (--batch-max-bytes 1) forces the
sequential fallback, which must give the same document with pieces 1; so must injected read
errors (GOBLIND_FAULT_SHIM, tests/fault_fs.c). Chunked reads must actually happen (pieces > 1
in some cases), and never for a .gz file.

usage: chunked_analyze.py GOBLIND SHARED_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])
GEN = SHARED / "tools" / "gen_run.py"
FIX = SHARED / "fixtures"
CHUNKS = [1024, 1500, 4096, 4099, 65537]
failures, cases, chunked_cases = [], 0, 0


def analyze(d, *args, env=None):
    p = subprocess.run([GOBLIND, "analyze", str(d), *args], capture_output=True, timeout=300, env=env)
    doc = None
    if p.returncode == 0:
        doc = json.loads(p.stdout)
    return p.returncode, doc, p.stderr


def masked(doc):
    pieces = {}
    for s in doc.get("sources", []):
        s.pop("parse_ms", None)
        pieces[s["path"]] = s.pop("pieces", None)
    return doc, pieces


def check(d, label, env=None):
    global cases, chunked_cases
    rc1, doc1, err1 = analyze(d, "--threads", "1", env=env)
    if doc1 is None:
        failures.append(f"{label}: --threads 1 exit {rc1}: {err1[:300]!r}")
        return
    ref, _ = masked(doc1)
    for extra in [["--chunk-bytes", str(n)] for n in CHUNKS] + [["--chunk-bytes", "1024", "--batch-max-bytes", "1"]]:
        cases += 1
        rc, doc, err = analyze(d, "--threads", "2", *extra, env=env)
        what = f"{label} {' '.join(extra)}"
        if rc != rc1 or err != err1 or doc is None:
            failures.append(f"{what}: exit {rc} vs {rc1}, stderr {err[:300]!r} vs {err1[:300]!r}")
            continue
        got, pieces = masked(doc)
        for key in ref:
            if got.get(key) != ref[key]:
                failures.append(f"{what}: section {key} differs")
        if set(got) != set(ref):
            failures.append(f"{what}: sections {sorted(set(got) ^ set(ref))} differ")
        for path, n in pieces.items():
            if path.endswith(".gz") and n != 1:
                failures.append(f"{what}: {path} read in {n} pieces (gzip is never chunked)")
            if "--batch-max-bytes" in extra and n not in (1, 2):
                failures.append(f"{what}: {path} read in {n} pieces past the batch bound (fallback expected)")
        if any((n or 0) > 2 for n in pieces.values()):
            chunked_cases += 1


def gen(d, *args):
    subprocess.run([sys.executable, str(GEN), str(d), "--steps", "3", "--kernels-per-step", "30",
                    "--cpu-ops-per-step", "10", "--smi-samples", "20", "--seed", "5", *args],
                   check=True, capture_output=True, timeout=300)


def main():
    tmp = Path(tempfile.mkdtemp(prefix="chunked_analyze."))
    try:
        for d in sorted(p for p in FIX.iterdir() if p.is_dir()):
            check(d, f"fixtures/{d.name}")
        for f in sorted((FIX / "torch_profiler").glob("*.json*")):
            d = tmp / f"alone_{f.name}"
            d.mkdir()
            os.symlink(f.resolve(), d / ("torch_profile.json.gz" if f.name.endswith(".gz") else "torch_profile.json"))
            check(d, f"alone {f.name}")
        for name, args in [("v3", []), ("rocprof", ["--dialect", "rocprof"]), ("gz", ["--gzip"])]:
            gen(tmp / name, *args)
            check(tmp / name, f"generated {name}")
        # CRLF line ends in the kernel trace and the telemetry
        crlf = tmp / "crlf"
        shutil.copytree(tmp / "v3", crlf)
        for f in ("trace.csv", "amd_smi.csv"):
            p = crlf / f
            p.write_bytes(p.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
        check(crlf, "generated CRLF")
        # kernel names with newlines inside their quotes: resume points inside a quoted
        # field, which the join must refuse (the sequential fallback then reads)
        nl = tmp / "newlines"
        shutil.copytree(tmp / "v3", nl)
        p = nl / "trace.csv"
        lines = p.read_bytes().split(b"\n")
        for i in range(1, len(lines), 7):
            lines[i] = lines[i].replace(b'"Cijk', b'"Cijk\nline two\r\n\n', 1)
        p.write_bytes(b"\n".join(lines))
        check(nl, "generated names with newlines")
        # a torch trace cut in the middle (unreadable JSON at its end)
        cut = tmp / "cut"
        shutil.copytree(tmp / "v3", cut)
        p = cut / "torch_profile.json"
        b = p.read_bytes()
        p.write_bytes(b[: len(b) * 2 // 3])
        check(cut, "generated truncated torch trace")
        # bytes that are not JSON in the middle and near the end of the torch trace (the
        # format stops there: the read falls back to the sequential one), and in trace.csv
        for name, at in (("torch_profile.json", 2), ("torch_profile.json", 19), ("trace.csv", 2)):
            bad = tmp / f"garbage_{name}_{at}"
            shutil.copytree(tmp / "v3", bad)
            p = bad / name
            b = p.read_bytes()
            k = len(b) * at // 20
            p.write_bytes(b[:k] + b"@@\x00\xff}]}\n\"" + b[k:])
            check(bad, f"generated, garbage in {name} at {at}/20")
        # two ranks' traces beside each other
        two = tmp / "ranks"
        shutil.copytree(tmp / "v3", two)
        gen(tmp / "v3b", "--seed", "9")
        shutil.copy(tmp / "v3b" / "torch_profile.json", two / "rank1_torch_profile.json")
        check(two, "generated two torch traces")
        # injected read errors (tests/fault_fs.c): a chunk that cannot be read ends the chunked
        # read, and the sequential read names the error as --threads 1 does
        shim = os.environ.get("GOBLIND_FAULT_SHIM")
        if shim:
            for spec in ("trace.csv@5000", "torch_profile.json@40000", "torch_profile.json@100"):
                env = dict(os.environ, LD_PRELOAD=shim, GOBLIND_TEST_READ_FAULT=spec,
                           ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
                check(tmp / "v3", f"generated, read error {spec}", env=env)
        else:
            print("     (read errors skipped: GOBLIND_FAULT_SHIM not set)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not chunked_cases:
        failures.append("no case was read in more than two chunks: the chunked read never ran")
    for f in failures:
        print("FAIL", f)
    print(f"chunked_analyze: {cases} comparisons, {chunked_cases} read in chunks")
    print(f"{cases - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
