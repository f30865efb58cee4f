#!/usr/bin/env python3
"""The msprof reference export (core/npu_reference_export, `goblind export --npu-reference`)
against an independent computation, its round trip, and the original tool's comparison in
npu_hotspots.

1. export: npu_reference_tool RUN OUT on runs made of the msprof fixture, the corpus op
   summaries and kernel_details tables, and a hand-made op summary (MatMul aliases, N/A and
   empty cells, a row without a duration, a non-numeric counter cell, one-row signatures,
   a run with its own reference): every file, row and cell against npu_reference_oracle
   (the csv module, per signature count / average / median / sample std by hand).
2. round trip: the exported files put in the run's reference/ directory and read back by
   `goblind analyze`: every signature has a reference, reference_us is the exported average
   (to the ns), its ratio is 1.0 (within the half-ns of the written decimals), no hotspot.
3. hotspots: a hand-made op summary and reference with `Profiling Average Duration(us)`:
   goblind's comparison (average / Average Duration) and the original's (minimum / Profiling
   Average Duration) per signature, membership and order of the npu_hotspots array, the
   numbers count / original_count and report.md's columns, computed by hand.

usage: npu_reference_export.py NPU_REFERENCE_TOOL GOBLIND SHARED_DIR
"""
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import npu_reference_oracle as oracle  # noqa: E402

TOOL, GOBLIND, SHARED = sys.argv[1], sys.argv[2], Path(sys.argv[3])

OP_HEAD = ("Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
           "Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
           "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,"
           "cube_utilization(%)\n")


def op_row(typ, dur, shapes="4096,512", state="dynamic", core="AI_CORE", cyc="100", util="50.5", dtypes="DT_BF16",
           out_fmt="ND"):
    return (f'0,4294967295,1,2,op_{typ},{typ},{state},{core},"1736413971558972.912\t",{dur},1.0,16,0,NO,'
            f'"""{shapes}""",{dtypes},ND,"""{shapes}""",{dtypes},{out_fmt},N/A,1.5,{cyc},{util}\n')


HAND = (OP_HEAD
        + op_row("MatMulV2", "10.5") + op_row("MatMulV2", "11.25", cyc="N/A") + op_row("MatMulV2", "30.001")
        + op_row("MatMulV3", "7", shapes="8,8", util="abc")             # alias, another shape
        + op_row("MatMulV3", "8.0005", shapes="8,8", state="N/A", core="")
        + op_row("Add", "", shapes="1")                                 # no duration: skipped
        + op_row("Add", "2.5", shapes="N/A", dtypes="N/A", out_fmt="")   # unknown signature columns
        + op_row("Add", "3.5", shapes="N/A", dtypes="N/A", out_fmt="FRACTAL_NZ")
        + op_row("Cast", "0.0005", state="static", core="AI_VECTOR_CORE")
        + op_row("Cast", "0.0004", shapes="2,2"))


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert p.returncode == 0, f"{cmd}: rc {p.returncode}\n{p.stderr}"
    return p


def export(run_dir, out):
    run([TOOL, str(run_dir), str(out)])
    return {p.name: p.read_bytes().decode("utf-8") for p in sorted(out.iterdir()) if p.suffix == ".csv"}


def analyze(run_dir, fmt="json"):
    p = run([GOBLIND, "analyze", str(run_dir), "--format", fmt, "--rows", "0"])
    return json.loads(p.stdout) if fmt == "json" else p.stdout


def make_run(tmp, name, files):
    d = tmp / name
    d.mkdir()
    for rel, text in files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text, encoding="utf-8") if isinstance(text, str) else shutil.copy(text, d / rel)
    return d


def check_round_trip(run_dir, files, groups):
    ref = run_dir / "reference"
    ref.mkdir()
    for name, text in files.items():
        (ref / name).write_text(text, encoding="utf-8")
    doc = analyze(run_dir)
    ops = doc["npu_ops"]
    n = sum(len(s) for s in groups.values())
    assert ops["signatures"] == n and len(ops["items"]) == n, (ops["signatures"], n)
    assert ops["reference"]["signatures"] == n and ops["reference"]["matched"] == n, ops["reference"]
    assert ops["missing_reference"] == [] and ops["duplicates"] == [], (ops["missing_reference"], ops["duplicates"])
    for it in ops["items"]:
        sig = tuple(it[k] for k in ("input_shapes", "input_data_types", "input_formats", "output_shapes",
                                    "output_data_types"))
        g = groups[it["op_type"]][sig]
        written = float("%.6f" % (g["avg_ns"] / 1000))
        ref_ns = oracle.us_to_ns("%.6f" % written)
        assert abs(it["reference_us"] - ref_ns / 1000) < 1e-9, (it, ref_ns)
        if ref_ns == 0:                     # a 0 us reference has no ratio (the hand-made 0.0004 us Cast)
            assert it["ratio"] is None, it
            continue
        assert abs(it["ratio"] - 1.0) <= 0.5 / g["avg_ns"] + 1e-12, it
    # goblind's comparison finds nothing; the original's (minimum / the exported Profiling Average,
    # i.e. the run's own average) may flag a signature whose minimum is far below its average
    for h in doc["npu_hotspots"]:
        assert not h["average_hotspot"] and h["original_hotspot"], h
        g = groups[h["op_type"]][tuple(h[k] for k in ("input_shapes", "input_data_types", "input_formats",
                                                          "output_shapes", "output_data_types"))]
        assert abs(h["original_ratio"] - min(g["durs"]) / 1000 / h["reference_profiling_avg_us"]) < 1e-12, h
    return n


def test_export_and_round_trip(tmp):
    corpus = SHARED / "corpus" / "found2" / "msprof"
    cases = {
        "fixture_kernel_details": {"kernel_details.csv": SHARED / "fixtures" / "msprof" /
                                   "mstt_compute_advice_kernel_details.csv"},
        "corpus_kernel_details": {"kernel_details.csv": corpus / "mstt_advisor_backend_compute_advice_kernel_details.csv"},
        "corpus_op_summaries": {
            "PROF_1/mindstudio_profiler_output/op_summary_20260605161737.csv":
                corpus / "ascend_msprof_skill_op_summary_20260605161737.csv",
            "PROF_2/mindstudio_profiler_output/op_summary_20260606121516.csv":
                corpus / "ascend_msprof_skill_op_summary_20260606121516.csv"},
        "hand_made": {"op_summary_1.csv": HAND},
    }
    for name, files in cases.items():
        run_dir = make_run(tmp, name, files)
        srcs = [run_dir / rel for rel in sorted(files, key=lambda r: str(run_dir / r))]
        groups, counters = oracle.expected(srcs)
        assert groups, name
        out = export(run_dir, tmp / (name + "_out"))
        rows = oracle.check_export(out, groups, counters)
        n = check_round_trip(run_dir, out, groups)
        print(f"  {name}: {len(out)} files, {rows} signatures exported; round trip ratio 1.0 on {n}")


def test_export_keeps_the_runs_reference(tmp):
    """A signature with a reference of its own keeps that value in Average Duration(us)."""
    ref = ("Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Average Duration(us)\n"
           '"""4096,512""",DT_BF16,ND,"""4096,512""",DT_BF16,12.5\n')
    run_dir = make_run(tmp, "with_ref", {"op_summary_1.csv": HAND, "reference/MatMulV2.csv": ref})
    groups, counters = oracle.expected([run_dir / "op_summary_1.csv"])
    out = export(run_dir, tmp / "out")
    sig = ("4096,512", "DT_BF16", "ND", "4096,512", "DT_BF16")
    oracle.check_export(out, groups, counters, refs={"MatMulV2": {sig: 12.5}})
    # MatMulV3 of that signature would look the MatMul alias up too; its shape differs here
    assert "12.500000" in out["MatMulV2.csv"] and "12.500000" not in out["MatMulV3.csv"]


def test_no_msprof_files(tmp):
    run_dir = make_run(tmp, "empty", {"notes.txt": "nothing\n"})
    p = run([TOOL, str(run_dir), str(tmp / "out")])
    assert list((tmp / "out").iterdir()) == [] and "no msprof operator" in p.stderr, p.stderr
    bad = subprocess.run([TOOL, str(tmp / "missing"), str(tmp / "out2")], capture_output=True, text=True)
    assert bad.returncode == 1 and "not a directory" in bad.stderr, bad.stderr


def test_hotspots_original_comparison(tmp):
    """Per signature (durations in us): (profiled, Average Duration, Profiling Average)."""
    spec = {
        "X": ([10, 12, 20], 14, 5),        # average 14 / 14 = 1 (in band); min 10 / 5 = 2 (original: hot)
        "Y": ([100, 100], 50, 100),        # 100 / 50 = 2 (hot); 100 / 100 = 1
        "Z": ([30], 10, None),             # 3 (hot); no Profiling Average column: original unknown
        "W": ([9, 11], 10, 9.5),           # 1, 9 / 9.5 = 0.947: neither
        "V": ([4, 6], 10, 10),             # 0.5 (hot, faster); 4 / 10 = 0.4 (hot)
        "U": ([1, 3], 2, 1.25),            # 1; 1 / 1.25 = 0.8: the band's edge, not hot
    }
    op = OP_HEAD + "".join(op_row(t, str(d)) for t, (ds, _, _) in spec.items() for d in ds)
    head = ("Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Average Duration(us),"
            "Profiling Average Duration(us)\n")
    files = {"op_summary_1.csv": op}
    for t, (_, avg, prof) in spec.items():
        if prof is None:
            files[f"reference/{t}.csv"] = (head.rsplit(",", 1)[0] + "\n"
                                           + f'"""4096,512""",DT_BF16,ND,"""4096,512""",DT_BF16,{avg}\n')
        else:
            files[f"reference/{t}.csv"] = head + f'"""4096,512""",DT_BF16,ND,"""4096,512""",DT_BF16,{avg},{prof}\n'
    run_dir = make_run(tmp, "hot", files)
    doc = analyze(run_dir)
    want = []
    for t, (ds, avg, prof) in spec.items():
        ratio = (sum(ds) / len(ds)) / avg
        orig = min(ds) / prof if prof else None
        avg_hot = not 0.8 <= ratio <= 1.2
        orig_hot = None if orig is None else not 0.8 <= orig <= 1.2
        if avg_hot or orig_hot:
            want.append((t, ratio, orig, avg_hot, orig_hot, min(ds), prof, sum(ds)))
    off = lambda r: r if r >= 1 else 1 / r  # noqa: E731
    want.sort(key=lambda w: (not w[3], -(off(w[1]) if w[3] else off(w[2])), -w[7]))
    got = doc["npu_hotspots"]
    assert [h["op_type"] for h in got] == [w[0] for w in want], ([h["op_type"] for h in got], want)
    for h, (t, ratio, orig, avg_hot, orig_hot, mn, prof, _) in zip(got, want):
        assert abs(h["ratio"] - ratio) < 1e-12 and h["average_hotspot"] == avg_hot, h
        assert abs(h["off_by"] - off(ratio)) < 1e-12 and h["direction"] == ("slower" if ratio > 1 else "faster"), h
        assert h["profiled_min_us"] == mn and h["original_hotspot"] == orig_hot, h
        if prof is None:
            assert h["reference_profiling_avg_us"] is None and h["original_ratio"] is None, h
        else:
            assert h["reference_profiling_avg_us"] == prof and abs(h["original_ratio"] - orig) < 1e-12, h
            assert abs(h["original_off_by"] - off(orig)) < 1e-12, h
    md = analyze(run_dir, "markdown")
    hot_md = md.split("## Ascend operators: hotspots", 1)[1].split("\n## ", 1)[0]
    assert "| Original ratio |" in hot_md, hot_md
    x = next(line for line in hot_md.splitlines() if line.startswith("| X |"))
    assert x.rstrip().endswith("| 14.000 | 14.000 | 1.000 | 10.000 | 5.000 | 2.000 |"), x
    z = next(line for line in hot_md.splitlines() if line.startswith("| Z |"))
    assert z.rstrip().endswith("| 30.000 | 10.000 | 3.000 | 30.000 | \u2014 | \u2014 |"), z
    # the numbers: count = goblind's hotspots, original_count = the original's
    n_avg = sum(1 for w in want if w[3])
    n_orig = sum(1 for w in want if w[4])
    assert n_avg == 3 and n_orig == 2, (n_avg, n_orig)
    # the reference read by the export's own reader keeps its Profiling column
    with open(run_dir / "reference" / "X.csv", newline="") as f:
        assert next(csv.reader(f))[-1] == "Profiling Average Duration(us)"


def main():
    failed = 0
    for name, fn in [(n, f) for n, f in globals().items() if n.startswith("test_")]:
        tmp = Path(tempfile.mkdtemp(prefix="npu-reference-"))
        try:
            fn(tmp)
            print(f"ok   {name}", flush=True)
        except Exception:
            import traceback
            failed += 1
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"npu_reference_export: {'FAILED' if failed else 'all passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
