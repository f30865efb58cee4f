#!/usr/bin/env python3
"""compare_cli: `goblind compare BASE CANDIDATE` against a live daemon. Two generated runs, the
candidate with one kernel slowed (gen_run --slow): --format json prints exactly GET /compare's
body; the table and the Markdown name the slowed kernel first with the verdict `slower`; --rows
bounds the lists; `--opt=value` is read; usage errors exit 2 (a missing id, --rows 0, an unknown
--format), an unknown run 1 (the daemon's 404).

usage: compare_cli.py GOBLIND SHARED_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_serve as e2e  # noqa: E402  (the daemon harness)

GOBLIND = sys.argv[1]
MOVED = "flash_attn_fwd_kernel_rocm"


def cli(d, *args):
    return subprocess.run([GOBLIND, "compare", *args, "--url", d.base], capture_output=True, text=True,
                          timeout=60)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        d = e2e.Daemon(tmp)
        e2e.gen(d.roots[0] / "base-1", seed=1, steps=20, kernels=60)
        e2e.gen(d.roots[0] / "cand-1", seed=2, steps=20, kernels=60, extra=("--slow", f"{MOVED}=2"))
        d.start()
        d.wait_status("base-1", "complete", 60)
        d.wait_status("cand-1", "complete", 60)
        st, _, body = d.json("/compare?base=base-1&candidate=cand-1&rows=5")
        assert st == 200, st
        p = cli(d, "base-1", "cand-1", "--rows", "5", "--format", "json")
        assert p.returncode == 0 and json.loads(p.stdout) == body, (p.returncode, p.stderr)
        assert body["kernels"][0]["name"].startswith(MOVED) and body["kernels"][0]["verdict"] == "slower", body["kernels"][0]
        p = cli(d, "base-1", "cand-1", "--rows=3")
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert lines[1] == body["summary"], (lines[:2], body["summary"])
        head = next(i for i, l in enumerate(lines) if l.startswith("name "))
        rows = [l for l in lines[head + 1:] if l.strip()][:3]
        assert rows[0].startswith(MOVED) and rows[0].rstrip().endswith("slower"), rows[0]
        kernel_rows = lines[head + 1:]
        kernel_rows = kernel_rows[:next((i for i, l in enumerate(kernel_rows) if not l.strip()), len(kernel_rows))]
        assert len(kernel_rows) == 3, kernel_rows
        p = cli(d, "base-1", "cand-1", "--format", "markdown", "--rows", "2")
        assert p.returncode == 0 and "| name | class |" in p.stdout and "| slower |" in p.stdout, p.stdout
        md_rows = [l for l in p.stdout.splitlines() if l.startswith("| ") and not l.startswith("| name")]
        assert len(md_rows) == 2 and all(l.count(" | ") == 9 for l in md_rows), md_rows
        for args in (("base-1",), ("base-1", "cand-1", "--rows", "0"), ("base-1", "cand-1", "--format", "yaml")):
            p = cli(d, *args)
            assert p.returncode == 2, (args, p.returncode, p.stderr)
        p = cli(d, "base-1", "no-such-run")
        assert p.returncode == 1 and "404" in p.stderr, (p.returncode, p.stderr)
        assert d.stop() == 0
    print("compare_cli: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
