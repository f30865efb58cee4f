#!/usr/bin/env python3
"""GET /runs/<id>/npu_reference.zip through a live daemon (the tests/e2e_serve.py harness): the
archive of a run holding msprof operator tables has one CSV per operator type, each checked
against the independent computation of npu_reference_oracle (the csv module over the same
files) and identical to what the library writes for `goblind export --npu-reference`
(npu_reference_tool); a run without msprof files gives an empty archive that opens; an unknown
run is 404, a run whose directory went away 410.

usage: npu_reference_zip.py GOBLIND SHARED_DIR NPU_REFERENCE_TOOL
"""
import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
TOOL = sys.argv.pop(3)
import e2e_serve as e2e  # noqa: E402  (the Daemon harness; reads GOBLIND SHARED_DIR from argv)
import npu_reference_oracle as oracle  # noqa: E402

CORPUS = e2e.SHARED / "corpus" / "found2" / "msprof"


def test_zip_of_a_run(tmp):
    scratch = Path(tmp) / "scratch"
    scratch.mkdir()
    d = e2e.Daemon(tmp, env={"TMPDIR": str(scratch)})
    run = d.roots[0] / "npu-a"
    e2e.gen(run, seed=3, steps=2, kernels=10)
    prof = run / "PROF_1" / "mindstudio_profiler_output"
    prof.mkdir(parents=True)
    shutil.copy(CORPUS / "mstt_advisor_backend_compute_advice_kernel_details.csv", run / "kernel_details.csv")
    shutil.copy(CORPUS / "ascend_msprof_skill_op_summary_20260605161737.csv", prof / "op_summary_20260605161737.csv")
    plain = d.roots[0] / "plain"
    e2e.gen(plain, seed=4, steps=2, kernels=10)
    d.start()
    d.wait_status("npu-a", "complete")
    d.wait_status("plain", "complete")
    st, h, body = d.get("/runs/npu-a/npu_reference.zip")
    assert st == 200 and h["Content-Type"] == "application/zip", (st, h)
    assert 'filename="npu-a_npu_reference.zip"' in h["Content-Disposition"], h
    z = zipfile.ZipFile(io.BytesIO(body))
    assert z.testzip() is None
    files = {n: z.read(n).decode("utf-8") for n in z.namelist()}
    # the inventory reads them by path: PROF_1/... first
    groups, counters = oracle.expected(sorted([run / "kernel_details.csv", prof / "op_summary_20260605161737.csv"], key=str))
    rows = oracle.check_export(files, groups, counters)
    assert rows > 100, rows
    out = Path(tmp) / "lib"
    subprocess.run([TOOL, str(run), str(out)], check=True, capture_output=True)
    lib = {p.name: p.read_bytes().decode("utf-8") for p in out.iterdir()}
    assert set(lib) == set(files), (sorted(lib), sorted(files))
    for n in lib:
        assert lib[n] == files[n], (n, lib[n][:300], files[n][:300])
    assert sorted(z.namelist()) == z.namelist()
    # a run without msprof files: an empty archive
    st, h, body = d.get("/runs/plain/npu_reference.zip")
    assert st == 200 and zipfile.ZipFile(io.BytesIO(body)).namelist() == [], (st, body[:40])
    st, _, err = d.json("/runs/no-such-run/npu_reference.zip")
    assert st == 404 and err["error"] == "not_found", (st, err)
    assert list(scratch.iterdir()) == [], list(scratch.iterdir())     # no temporary file left behind
    shutil.rmtree(run)
    d.wait_status("npu-a", "gone")
    st, _, err = d.json("/runs/npu-a/npu_reference.zip")
    assert st == 410 and err["error"] == "gone", (st, err)
    assert d.stop() == 0


if __name__ == "__main__":
    sys.exit(e2e.run_suite("npu_reference_zip", globals(), []))
