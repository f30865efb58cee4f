#!/usr/bin/env python3
"""One read per ingest: `goblind parse RUN --analysis FILE` (core/run_ingest, what the daemon's
ingest runs: RunMetrics' readings ride on the run driver's one read of each file) must give
exactly what the two separate readings give:

  * its stdout byte for byte equal to `goblind parse RUN` (numbers, warnings and their order);
  * FILE equal to `goblind analyze RUN` except each source's `parse_ms`.

Over generated runs (both dialects, gzip, --compat seed, --precision, --steps), runs assembled
from the real fixtures, mutations of them (truncation, CRLF, BOM, noise, bad gzip), runs with
more sources than RunMetrics reads (a second rank's trace, a rocprofv3 output tree, a missing
artefact), SQLite kernel traces (rocpd, rocprof v1: read once, their records shared), a run large
enough for split reads, and (when GOBLIND_FAULT_SHIM is set) injected
read errors in the head and the tail of a file.

usage: oneread.py GOBLIND SHARED_DIR
"""
import gzip
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])
GEN = SHARED / "tools" / "gen_run.py"
FIX = SHARED / "fixtures"
failures, cases = [], 0


def run(args, env=None):
    return subprocess.run([GOBLIND, *args], capture_output=True, timeout=300, env=env)


def strip_times(doc):
    # parse_ms is a timing; pieces says how a file was cut for reading (ordered chunks in
    # `goblind analyze`, never with a passenger on the bytes as here): neither is a result
    for s in doc.get("sources", []):
        s.pop("parse_ms", None)
        s.pop("pieces", None)
    return doc


def check(d, label, args=(), env=None):
    global cases
    cases += 1
    out = Path(d) / ".." / f"{Path(d).name}.analysis.json"
    alone = run(["parse", str(d), *args], env)
    both = run(["parse", str(d), *args, "--analysis", str(out)], env)
    if env is not None:
        # an injected read error is reported at the start of the read call that failed, which
        # depends on how the file is cut into reads (1 MiB chunks from 0 here, from the split
        # point in run_parse's two-piece read): the byte number may differ, nothing else
        alone.stdout = re.sub(rb"read error at byte \d+", b"read error at byte N", alone.stdout)
        both.stdout = re.sub(rb"read error at byte \d+", b"read error at byte N", both.stdout)
    if alone.returncode != both.returncode or alone.stdout != both.stdout:
        failures.append(f"{label} {args}: RunMetrics differ (exit {alone.returncode} vs {both.returncode})\n"
                        f"  parse:       {alone.stdout[:400]!r}\n  one read:    {both.stdout[:400]!r}")
        return
    if env is not None:              # an injected fault hits both reads alike only on the metrics side
        return
    an = run(["analyze", str(d)])
    try:
        want, got = strip_times(json.loads(an.stdout)), strip_times(json.loads(out.read_text()))
    except (ValueError, OSError) as exc:
        failures.append(f"{label}: analysis document unreadable: {exc}")
        return
    if want != got:
        keys = [k for k in want if want.get(k) != got.get(k)]
        failures.append(f"{label} {args}: analysis documents differ in {keys}")


def gen(d, seed, steps=3, kernels=40, extra=()):
    subprocess.run([sys.executable, str(GEN), str(d), "--steps", str(steps), "--kernels-per-step", str(kernels),
                    "--cpu-ops-per-step", "10", "--smi-samples", "30", "--seed", str(seed), *extra],
                   check=True, capture_output=True)


def generated(tmp):
    for seed, dialect, gz in itertools.product([1, 2], ["rocprofv3", "rocprof"], [False, True]):
        d = tmp / f"gen-{seed}-{dialect}-{gz}"
        gen(d, seed, steps=3 + seed, extra=["--dialect", dialect] + (["--gzip"] if gz else []))
        for args in [(), ("--compat", "seed"), ("--precision", "bf16"), ("--steps", "3")]:
            check(d, d.name, args)


def fixture_runs(tmp):
    kernels = sorted((FIX / "rocprofv3").glob("*.csv"))
    torches = sorted((FIX / "torch_profiler").glob("*.json*"))
    smis = sorted((FIX / "amd_smi").glob("*.csv")) + sorted((FIX / "nvidia_smi").glob("*.csv"))
    for i in range(max(len(kernels), len(torches), len(smis))):
        d = tmp / f"fix-{i}"
        d.mkdir()
        k, t, s = kernels[i % len(kernels)], torches[i % len(torches)], smis[i % len(smis)]
        shutil.copy(k, d / "trace.csv")
        shutil.copy(t, d / ("torch_profile.json.gz" if t.suffix == ".gz" else "torch_profile.json"))
        shutil.copy(s, d / "amd_smi.csv")
        check(d, f"fixtures {k.name} + {t.name} + {s.name}")
    for f in torches:                 # a torch trace alone: its kernels are RunMetrics' kernels
        d = tmp / f"alone-{f.name}"
        d.mkdir()
        shutil.copy(f, d / ("torch_profile.json.gz" if f.suffix == ".gz" else "torch_profile.json"))
        check(d, f"fixture {f.name} alone")


def mutations(tmp):
    base = tmp / "mut-base"
    gen(base, 9)
    for name in ("trace.csv", "torch_profile.json", "amd_smi.csv"):
        data = (base / name).read_bytes()
        for vname, v in [("cut", data[: len(data) // 2]), ("crlf", data.replace(b"\n", b"\r\n")),
                         ("bom", b"\xef\xbb\xbf" + data), ("noise", data[:100] + b"\x00\xff{" + data[103:]),
                         ("empty", b"")]:
            d = tmp / f"mut-{name}-{vname}"
            shutil.copytree(base, d)
            (d / name).write_bytes(v)
            check(d, d.name)
    d = tmp / "mut-gz-cut"             # a truncated gzip member: RunMetrics drops the profile
    shutil.copytree(base, d)
    packed = gzip.compress((base / "torch_profile.json").read_bytes())
    (d / "torch_profile.json").unlink()
    (d / "torch_profile.json.gz").write_bytes(packed[: len(packed) - 20])
    check(d, d.name)
    d = tmp / "mut-gz-garbage"
    shutil.copytree(base, d)
    (d / "torch_profile.json").unlink()
    (d / "torch_profile.json.gz").write_bytes(b"not gzip at all")
    check(d, d.name)
    for missing in ("trace.csv", "torch_profile.json", "amd_smi.csv"):
        d = tmp / f"missing-{missing}"
        shutil.copytree(base, d)
        (d / missing).unlink()
        check(d, d.name)


def more_sources(tmp):
    """Sources RunMetrics does not read ride along untouched."""
    base = tmp / "more-base"
    gen(base, 4)
    d = tmp / "more-ranks"
    shutil.copytree(base, d)
    shutil.copy(base / "torch_profile.json", d / "rank1.pt.trace.json")
    check(d, d.name)
    d = tmp / "more-tree"              # a rocprofv3 output tree one level down, no trace.csv
    shutil.copytree(base, d)
    (d / "host0").mkdir()
    os.rename(d / "trace.csv", d / "host0" / "1234_kernel_trace.csv")
    check(d, d.name)


def large(tmp):
    """Large enough for the driver's and the reader's two-piece reads (16 MiB and more)."""
    d = tmp / "large"
    gen(d, 3, steps=60, kernels=400, extra=["--cpu-ops-per-step", "100"])
    check(d, d.name)
    shim = os.environ.get("GOBLIND_FAULT_SHIM")
    if not shim:
        print("     (read errors skipped: GOBLIND_FAULT_SHIM not set)")
        return
    size = (d / "torch_profile.json").stat().st_size
    for spec in (f"torch_profile.json@{1 << 20}", f"torch_profile.json@{size - (1 << 20)}", "trace.csv@1000",
                 f"trace.csv@{3 << 20}"):
        env = dict(os.environ, LD_PRELOAD=shim, GOBLIND_TEST_READ_FAULT=spec,
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
        check(d, f"large, read error {spec}", env=env)


def databases(tmp):
    """A kernel trace that is an SQLite database (rocpd, rocprof v1): read once for both,
    through the driver's one format state; good, cut names, refused and WAL-mode databases."""
    import sqlite3
    kcols = 'id, name, start, "end", agent_abs_index, stream_id, queue_id, corr_id'
    cases_db = {
        "rocpd-fixture": ("node1/1_results.db", FIX / "rocprofv3" / "rocpd_ck_bmm_28_results.db", None),
        "rocpd-long-names": ("node1/1_results.db", None,
                             f"CREATE TABLE kernels({kcols}); INSERT INTO kernels VALUES "
                             "(1, printf('%.*c', 70000, 'x'), 10, 20, 0, 1, 1, 1), (2, 'k', 5, 9, 0, 1, 1, 2), "
                             "(3, 'k', 30, 30, 0, 1, 1, 3);"),
        "rocpd-huge-name": ("node1/1_results.db", None,
                            f"CREATE VIEW kernels({kcols}) AS SELECT 1, 'x' || zeroblob(10000000), 1, 2, 0, 1, 1, 1;"),
        "rocpd-not-a-database": ("node1/1_results.db", None, None),
        "rocpd-wal": ("node1/1_results.db", None, "WAL"),
    }
    v1 = sorted(SHARED.glob("corpus/*/rocprof_v1_results_db/*.db"))[:2]
    for f in v1:
        cases_db[f"v1-{f.stem}"] = ("results.db", f, None)
    for name, (rel, src, sql) in cases_db.items():
        d = tmp / f"db-{name}"
        gen(d, 5)
        (d / "trace.csv").unlink()
        path = d / rel
        path.parent.mkdir(exist_ok=True)
        keep = None
        if src:
            shutil.copy(src, path)
        elif sql == "WAL":                 # rows in the -wal only: warned, the main file read
            keep = sqlite3.connect(path)
            keep.executescript(f"PRAGMA journal_mode = WAL; CREATE TABLE kernels({kcols}); "
                               "INSERT INTO kernels VALUES (1, 'k', 10, 20, 0, 1, 1, 1); "
                               "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint = 0; "
                               "INSERT INTO kernels VALUES (2, 'k2', 30, 40, 0, 1, 1, 2);")
        elif sql:
            db = sqlite3.connect(path)
            db.executescript(sql)
            db.commit()
            db.close()
        else:
            path.write_bytes(b"SQLite format 3\0" + b"\x5a" * 4080)
        check(d, d.name)
        shim = os.environ.get("GOBLIND_FAULT_SHIM")
        if shim and name == "rocpd-fixture":   # the one read: one SQLite open of the database per ingest
            log = tmp / "sqlite-opens.log"
            env = dict(os.environ, LD_PRELOAD=shim, GOBLIND_TEST_SQLITE_OPENS=str(log),
                       ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")
            run(["parse", str(d), "--analysis", str(tmp / "opens.json")], env)
            opens = log.read_text().count("open") if log.exists() else 0
            if opens != 1:
                failures.append(f"{d.name}: the database was opened {opens} times in one ingest (want 1)")
        if keep:
            keep.close()


def main():
    with tempfile.TemporaryDirectory(prefix="goblind-oneread-") as t:
        tmp = Path(t)
        for part in (generated, fixture_runs, mutations, more_sources, databases, large):
            part(tmp)
    for f in failures:
        print("FAIL", f)
    print(f"oneread: {cases - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
