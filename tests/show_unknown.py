#!/usr/bin/env python3
"""show_unknown: `goblind show` prints what a run does not know as unknown, never as RunMetrics'
0 or default placeholders. Three runs against a live daemon: a goblin run (every waste bucket a
bar, each bar's length recomputed here from GET /runs/<id>/metrics), a failed run (the waste
budget is one line saying it is unknown, no bars; steps `-`, not the default 10) and a Kineto
trace alone (a step time, but the buckets its /metrics warnings call unknown print `-` and no
bar; the steps came from the default: `-`; Prometheus exports no sample for those buckets).
A goblin run without telemetry: its body is `goblind parse`'s, its warnings name the buckets
whose input is unknown, and those have no Prometheus sample and are null in /compare.
`goblind parse --format table` likewise for a directory without a step time and for another
profiler's trace, and `goblind parse` of other profilers' traces reports each number it calls
unknown as 0. A failed run lists and exports no number. GET /runs/<id>: an absent file's identity and reading facts are null, the mean
HBM is null beside a peak without samples (`goblind show`: `mean - GB`).

usage: show_unknown.py GOBLIND SHARED_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_serve as e2e  # noqa: E402  (the daemon harness)

GOBLIND = sys.argv[1]
FIX = Path(sys.argv[2]) / "fixtures" / "torch_profiler"
BUCKETS = ["useful_gpu", "data_wait", "host_gap", "comm_excess", "memory_headroom", "precision_path", "kernel_shape"]
BAR = 40


def show(d, rid):
    out = subprocess.run([GOBLIND, "show", rid, "--url", d.base], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, LC_ALL="C"))                  # '#' bars
    return out.stdout


def bucket_lines(text):
    return {b: line for line in text.splitlines() for b in BUCKETS if re.match(rf"\s+{b}\s", line)}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        d = e2e.Daemon(tmp)
        root = d.roots[0]
        e2e.gen(root / "good", seed=3)
        e2e.gen(root / "broken", seed=2)
        (root / "broken" / "torch_profile.json").write_bytes(b"{")      # nothing readable: failed
        for n in ("trace.csv", "amd_smi.csv"):
            (root / "broken" / n).unlink()
        (root / "kin").mkdir()
        shutil.copy(Path(sys.argv[2]) / "fixtures" / "torch_profiler" / "kineto_docs__traces__before_fix_trace.json",
                    root / "kin")
        e2e.gen(root / "no-smi", seed=3)                                   # goblin's files, no telemetry
        (root / "no-smi" / "amd_smi.csv").unlink()
        (root / "mem").mkdir()                                             # an HBM peak from torch's totals: no mean
        shutil.copy(FIX / "tracelens_mi300__gaunernst_bert-small-uncased__1016001.json.gz", root / "mem")
        d.start()
        for rid, want in (("good", "complete"), ("broken", "failed"), ("kin", "complete"), ("no-smi", "complete"),
                          ("mem", "complete")):
            d.wait_status(rid, want)


        # GET /runs/<id>: goblin_runner's files that are not there have no size, mtime, inode,
        # bytes or parse time, and nothing is known of how they were read (null, not 0); the
        # mean HBM is null beside a peak that has no samples
        det = d.json("/runs/kin")[2]
        for a in det["artefacts"]:
            assert not a["present"], a
            for k in ("size", "mtime_ns", "inode", "bytes_parsed", "parse_ms", "found_by", "sniff_score", "columns",
                      "rows_used", "rows_skipped"):
                assert k in a and a[k] is None, (k, a)
        assert [a["steps_source"] for a in det["artefacts"] if a["kind"] == "torch_profile"] == ["default"], det
        det = d.json("/runs/mem")[2]
        assert det["hbm_peak_gb"] > 0 and det["hbm_avg_gb"] is None, det
        assert [r["hbm_avg_gb"] for r in d.json("/runs")[2]["runs"] if r["id"] == "mem"] == [None]
        assert re.search(r"peak 0\.\d\d GB, mean - GB", show(d, "mem")), show(d, "mem")
        assert re.search(r"peak \d+\.\d\d GB, mean \d+\.\d\d GB", show(d, "good")), show(d, "good")

        # a measured run: every bucket a bar of round(v / total * 40) '#'
        text, m = show(d, "good"), d.json("/runs/good/metrics")[2]
        total = sum(m["waste_budget"].values())
        lines = bucket_lines(text)
        assert set(lines) == set(BUCKETS), text
        for b in BUCKETS:
            want = int(m["waste_budget"][b] / total * BAR + 0.5)
            assert lines[b].count("#") == want, (b, lines[b], want)
        assert re.search(r"steps 4\b", text), text

        # a failed run: the budget is unknown, no bars, and steps are not the default 10
        text = show(d, "broken")
        assert "waste budget unknown (the run failed" in text, text
        assert not bucket_lines(text) and "#" * 5 not in text, text
        assert re.search(r"steps -\n", text) and "steps 10" not in text, text
        assert "steps         unknown, from the default" in text, text

        # a step time, but buckets whose inputs are unknown: '-' and no bar for exactly those
        text, m = show(d, "kin"), d.json("/runs/kin/metrics")[2]
        unknown = {b for b in BUCKETS if any(w.startswith(b + " unknown") for w in m["warnings"])}
        assert unknown and unknown != set(BUCKETS), m["warnings"]
        lines = bucket_lines(text)
        for b in BUCKETS:
            if b in unknown:
                assert re.search(rf"{b}\s+-\s+-\s+unknown$", lines[b]), lines[b]
            else:
                assert re.fullmatch(r"[#.]{%d}" % BAR, lines[b].split()[-1]), lines[b]
        assert re.search(r"steps -\n", text), text
        # Prometheus: a sample for exactly the buckets that are known, never a 0 for the others
        status, _, body = d.get("/metrics")
        assert status == 200, status
        exported = set(re.findall(r'^goblind_run_waste_seconds\{run="kin",bucket="(\w+)"\}', body.decode(), re.M))
        assert exported == set(BUCKETS) - unknown, (exported, unknown)
        for b in unknown:                   # the body's placeholder is the 0 its warning names
            assert m["waste_budget"][b] == 0, (b, m["waste_budget"], m["warnings"])

        # a goblin run without telemetry: its body is goblin_ref.py's (the same as goblind parse's,
        # warnings included), the warnings name the buckets whose input is unknown, and those are
        # unknown everywhere else: no Prometheus sample, null on both sides of /compare
        m = d.json("/runs/no-smi/metrics")[2]
        parsed = json.loads(subprocess.run([GOBLIND, "parse", str(root / "no-smi")], capture_output=True, text=True,
                                           timeout=60, check=True).stdout)
        assert m == parsed, (m, parsed)
        unknown = {b for b in BUCKETS if any(w.startswith(b + " unknown") for w in m["warnings"])}
        assert unknown == {"memory_headroom", "useful_gpu"}, m["warnings"]
        assert any(w.startswith("hbm_peak_gb unknown") for w in m["warnings"]), m["warnings"]
        assert any(w.startswith("hbm_avg_gb unknown") for w in m["warnings"]), m["warnings"]
        exported = set(re.findall(r'^goblind_run_waste_seconds\{run="no-smi",bucket="(\w+)"\}', body.decode(), re.M))
        assert exported == set(BUCKETS) - unknown, (exported, unknown)
        c = d.json("/compare?base=good&candidate=no-smi")[2]
        for b in BUCKETS:
            assert (c["waste_budget"][b]["candidate"] is None) == (b in unknown), (b, c["waste_budget"][b])
            assert c["waste_budget"][b]["base"] is not None, (b, c["waste_budget"][b])
        assert d.stop() == 0

        # goblind parse --format table on a directory whose step time is unknown (no torch profile)
        e2e.gen(Path(tmp) / "no-torch", seed=5)
        (Path(tmp) / "no-torch" / "torch_profile.json").unlink()
        out = subprocess.run([GOBLIND, "parse", str(Path(tmp) / "no-torch"), "--format", "table"], capture_output=True,
                             text=True, timeout=60, env=dict(os.environ, LC_ALL="C"))
        assert "waste budget unknown (no step time" in out.stdout and not bucket_lines(out.stdout), out.stdout + out.stderr

        # goblind parse --format table of another profiler's trace: '-' for what it does not know
        out = subprocess.run([GOBLIND, "parse", str(root / "kin"), "--format", "table"], capture_output=True,
                             text=True, timeout=60, env=dict(os.environ, LC_ALL="C")).stdout
        assert re.search(r"tokens/s\s+-\s+MFU\s+- %", out) and "mean - GB" in out and re.search(r"steps -\n", out), out

        # goblind parse of other profilers' traces: every number a warning calls unknown and
        # "reported as 0" is 0 in the body (a bucket is not its formula over an input taken as 0)
        fx = FIX
        for name in ("kineto_tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
                     "tracelens_mi300__gaunernst_bert-small-uncased__1016001.json.gz",
                     "hta_cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"):
            run = Path(tmp) / name.split("__")[0]
            run.mkdir()
            shutil.copy(fx / name, run)
            m = json.loads(subprocess.run([GOBLIND, "parse", str(run)], capture_output=True, text=True, timeout=60,
                                          check=True).stdout)
            zeroed = [w.split(" unknown")[0] for w in m["warnings"] if re.match(r"\w+ unknown \(.*\): reported as 0$", w)]
            assert zeroed, (name, m["warnings"])
            for f in zeroed:
                v = m["waste_budget"][f] if f in m["waste_budget"] else m[f]
                assert v == 0, (name, f, v, m["warnings"])
            if m["hbm_peak_gb"] > 0 and m["hbm_avg_gb"] == 0:        # a peak without VRAM samples: its mean is named
                assert "hbm_avg_gb" in zeroed, (name, m["warnings"])
        # a failed run's numbers are not a measurement (its /metrics is a 422): none is listed or
        # exported, not even what its telemetry gave (the kernel trace cut at max_parse_mb here)
        f = e2e.Daemon(Path(tmp) / "bound", extra=["--max-parse-mb", "1"])
        e2e.gen(f.roots[0] / "half", seed=4)
        with open(f.roots[0] / "half" / "trace.csv", "a") as t:
            t.write("".join(f"kernel_{i:06d}_{'x' * 120},{100 + i % 50}\n" for i in range(12000)))   # ~1.6 MB
        f.start()
        f.wait_status("half", "failed")
        heads = ("tokens_per_sec", "mfu_pct", "gpu_util_pct", "step_time_seconds", "hbm_peak_gb", "hbm_avg_gb")
        half = [r for r in f.json("/runs")[2]["runs"] if r["id"] == "half"][0]
        assert all(half[k] is None for k in heads), half
        det = f.json("/runs/half")[2]
        assert all(det[k] is None for k in heads) and "max_parse_mb" in det["error"], det
        assert all(v is None for v in det["headline_sources"].values()), det["headline_sources"]
        status, _, prom = f.get("/metrics")
        assert status == 200
        series = {ln.split("{")[0] for ln in prom.decode().splitlines() if 'run="half"' in ln}
        assert series == {"goblind_run_state", "goblind_run_info", "goblind_run_updated_timestamp_seconds"}, series
        assert re.search(r"tokens/s\s+-\s+MFU\s+- %\s+GPU util\s+- %", show(f, "half")), show(f, "half")
        assert f.stop() == 0
    print("show_unknown: ok")


if __name__ == "__main__":
    main()
