#!/usr/bin/env python3
"""Differential test: `goblind parse` against ../shared/tools/goblin_ref.py.

Every number must agree within 1e-9 relative, strings, enums and list order exactly;
warnings may be worded differently, but every file the reference warns about must be
named in one of ours. Runs over generated runs (seeds, both dialects, gzip, --compat
seed, --precision, --steps), over runs assembled from the real fixtures, and over
mutations of them (CRLF, BOM, truncation, garbage).

usage: diff_ref.py GOBLIND SHARED_DIR [--quick]
"""
import itertools
import json
import jsonschema          # python3-jsonschema: installed by scripts/install-deps.sh
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ref_cache import run_ref   # the reference's answers, cached by input hash

GOBLIND, SHARED = sys.argv[1], Path(sys.argv[2])
QUICK = "--quick" in sys.argv
REF = SHARED / "tools" / "goblin_ref.py"
GEN = SHARED / "tools" / "gen_run.py"
FIX = SHARED / "fixtures"
SCHEMA = json.loads((SHARED / "schema" / "run_metrics.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
failures, cases, ref_crashed = [], 0, []


def schema_errors(doc):
    """Every way a body breaks ../shared/schema/run_metrics.schema.json (python3-jsonschema)."""
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(doc)]


def compare(a, b, path="$"):
    if isinstance(a, dict):
        if set(a) != set(b):
            return f"{path}: keys differ: {sorted(set(a) ^ set(b))}"
        for k in a:
            if k == "warnings":
                continue
            err = compare(a[k], b[k], f"{path}.{k}")
            if err:
                return err
        return None
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            err = compare(x, y, f"{path}[{i}]")
            if err:
                return err
        return None
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(b, (int, float)) or isinstance(b, bool):
            return f"{path}: {a!r} != {b!r}"
        if a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b)):
            return None
        return f"{path}: {a!r} != {b!r}"
    return None if a == b and type(a) is type(b) else f"{path}: {a!r} != {b!r}"


def warned_files(warnings):
    names = ("trace.csv", "kernel_trace.csv", "torch_profile.json", "amd_smi.csv")
    return {n for w in warnings for n in names if n in w}


def check(run_dir, label, args=()):
    global cases
    cases += 1
    ref_args = ["--seed-compat" if a == "--compat=seed" else a for a in args]
    ref_args = [x for a in ref_args for x in (a.split("=", 1) if a.startswith("--") and "=" in a else [a])]
    our_args = [x for a in args for x in (a.split("=", 1) if "=" in a else [a])]
    ref = run_ref(REF, run_dir, ref_args, Path(GOBLIND).parent / "ref-cache")
    ours = subprocess.run([GOBLIND, "parse", str(run_dir), *our_args], capture_output=True, text=True,
                          timeout=120)
    if ref.returncode != 0:
        # the reference itself crashed on this input: nothing to compare, but goblind must
        # still answer a valid body (or refuse with a message), never crash
        ref_crashed.append(label)
        if ours.returncode < 0 or (ours.returncode == 0 and schema_errors(json.loads(ours.stdout))):
            failures.append(f"{label}: reference crashed; goblind exited {ours.returncode} or gave an invalid body")
        return
    if ours.returncode != 0:
        failures.append(f"{label}: goblind exited {ours.returncode}: {ours.stderr.strip()}")
        return
    try:
        b = json.loads(ours.stdout)
    except ValueError as exc:
        failures.append(f"{label}: invalid JSON from goblind: {exc}")
        return
    bad = schema_errors(b)
    if bad:
        failures.append(f"{label} {' '.join(args)}: body violates the schema: {bad[:3]}")
    a = json.loads(ref.stdout)
    err = compare(a, b)
    if err:
        failures.append(f"{label} {' '.join(args)}: {err}")
    missing = warned_files(a["warnings"]) - warned_files(b["warnings"])
    if missing:
        failures.append(f"{label}: reference warns about {missing}, goblind does not: {b['warnings']}")


def generated(tmp):
    seeds = [1, 2] if QUICK else [1, 2, 3, 4, 5]
    for seed, dialect, gz in itertools.product(seeds, ["rocprofv3", "rocprof"], [False, True]):
        d = tmp / f"gen-{seed}-{dialect}-{gz}"
        cmd = [sys.executable, str(GEN), str(d), "--steps", str(3 + seed), "--kernels-per-step", "40",
               "--cpu-ops-per-step", "10", "--smi-samples", "30", "--seed", str(seed), "--dialect", dialect]
        if gz:
            cmd.append("--gzip")
        subprocess.run(cmd, check=True, capture_output=True)
        for args in [(), ("--compat=seed",), ("--precision=bf16",), ("--precision=fp32",), ("--steps=3",),
                     ("--compat=seed", "--precision=fp8", "--steps=12")]:
            check(d, d.name, args)


def fixture_runs(tmp):
    kernels = sorted((FIX / "rocprofv3").glob("*.csv")) + sorted((FIX / "msprof").glob("*.csv"))
    # every JSON trace the fixtures hold: torch.profiler/Kineto/HTA/TraceLens, plus the
    # mlir-aie and rocprofv3 JSON traces (no metadata, no steps: read as a torch profile)
    torches = (sorted((FIX / "torch_profiler").glob("*.json*")) + sorted((FIX / "aie").glob("*.json*")) +
               sorted((FIX / "rocprofv3").glob("*.json*")))
    smis = sorted((FIX / "amd_smi").glob("*.csv")) + sorted((FIX / "nvidia_smi").glob("*.csv"))
    n = max(len(kernels), len(torches), len(smis))
    for i in range(n):
        d = tmp / f"fix-{i}"
        d.mkdir()
        k, t, s = kernels[i % len(kernels)], torches[i % len(torches)], smis[i % len(smis)]
        shutil.copy(k, d / "trace.csv")
        shutil.copy(t, d / ("torch_profile.json.gz" if t.suffix == ".gz" else "torch_profile.json"))
        shutil.copy(s, d / "amd_smi.csv")
        check(d, f"fixtures {k.name} + {t.name} + {s.name}")
        check(d, f"fixtures {k.name} + {t.name} + {s.name}", ("--compat=seed",))
    # every fixture alone as well: a torch trace without a kernel trace takes its kernels from
    # the profile (rule 4), a kernel CSV alone has no step time, a telemetry file alone is all
    # the run has
    for f in kernels + torches + smis:
        d = tmp / f"alone-{f.parent.name}-{f.name}"
        d.mkdir()
        name = ("trace.csv" if f in kernels else "amd_smi.csv" if f in smis else
                "torch_profile.json.gz" if f.suffix == ".gz" else "torch_profile.json")
        shutil.copy(f, d / name)
        check(d, f"fixture {f.name} alone")
        check(d, f"fixture {f.name} alone", ("--compat=seed",))


def mutations(tmp):
    rng = random.Random(11)
    base = tmp / "mut-base"
    subprocess.run([sys.executable, str(GEN), str(base), "--steps", "3", "--kernels-per-step", "30",
                    "--cpu-ops-per-step", "5", "--smi-samples", "20", "--seed", "9"], check=True, capture_output=True)
    sources = {f: (base / f).read_bytes() for f in ("trace.csv", "torch_profile.json", "amd_smi.csv")}
    sources["fixture_trace"] = (FIX / "rocprofv3" / "rocprofv1_omniperf_Axes1_mi200_timestamps.csv").read_bytes()
    sources["fixture_smi"] = (FIX / "amd_smi" / "amd-smi_metric_watch_csv_InferenceX_gpu_metrics_EXCERPT.csv").read_bytes()
    target = {"trace.csv": "trace.csv", "torch_profile.json": "torch_profile.json", "amd_smi.csv": "amd_smi.csv",
              "fixture_trace": "trace.csv", "fixture_smi": "amd_smi.csv"}

    def variants(data):
        yield "crlf", data.replace(b"\n", b"\r\n")
        yield "bom", b"\xef\xbb\xbf" + data
        yield "cr", data.replace(b"\n", b"\r")
        yield "blank-lines", data.replace(b"\n", b"\n\n")
        for frac in ([0.5] if QUICK else [0.1, 0.37, 0.5, 0.83, 0.999]):
            yield f"cut{frac}", data[: int(len(data) * frac)]
        b = bytearray(data)
        for _ in range(20):
            b[rng.randrange(len(b))] = rng.choice(b'\x00\xff\xc3",\n\r{}[]:0a\x85')
        yield "noise", bytes(b)
        yield "ff-lines", data.replace(b"\n", b"\x0c")
        if b"Cijk_A" in data:      # a NUL inside kernel names: kept whole, as "\u0000" (it cut the name)
            yield "nul-names", data.replace(b"Cijk_A", b"Cijk_\x00A")
        yield "nel", data.replace(b"\n", b"\xc2\x85")

    for name, data in sources.items():
        for vname, vdata in variants(data):
            d = tmp / f"mut-{name}-{vname}"
            d.mkdir()
            for f in ("trace.csv", "torch_profile.json", "amd_smi.csv"):
                (d / f).write_bytes(sources[f])
            (d / target[name]).write_bytes(vdata)
            check(d, d.name)
            check(d, d.name, ("--compat=seed",))


def main():
    with tempfile.TemporaryDirectory(prefix="goblind-diff-") as t:
        tmp = Path(t)
        generated(tmp)
        fixture_runs(tmp)
        mutations(tmp)
    for f in failures:
        print("FAIL", f)
    for c in ref_crashed:
        print("reference crashed (goblind checked for a valid answer only):", c)
    print(f"diff_ref: {cases - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
