#!/usr/bin/env python3
"""The command line as a table: every command of `goblind help --list` and every option of its
--help appear in the top-level help (summaries whole sentences), the man page and the bash
completion (which offers each "--opt a|b|c" choice); `--opt=value` is read as `--opt value`
everywhere; the exit-status table is followed (usage errors and a daemon's 400 exit 2, an
unreachable or refusing daemon 1); `goblind kernels` prints GET /runs/<id>/kernels.

usage: cli_table.py GOBLIND MAN_PAGE COMPLETION SHARED_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

GOBLIND, MAN, COMPLETION, SHARED = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def run(*args, **kw):
    return subprocess.run([GOBLIND, *args], capture_output=True, text=True, timeout=120, **kw)


def complete(words):
    """What the completion offers for the line `words` (the last one being completed)."""
    env = dict(os.environ, PATH=f"{Path(GOBLIND).resolve().parent}:{os.environ['PATH']}")
    script = (f"source {COMPLETION}\nCOMP_WORDS=({' '.join(repr(w) for w in words)}); "
              f"COMP_CWORD={len(words) - 1}; _goblind; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    return set(p.stdout.split())


def options_of(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def table_checks():
    commands = run("help", "--list").stdout.split()
    check({"parse", "analyze", "serve", "runs", "show", "kernels", "forget", "analysis", "report"} <= set(commands),
          f"help --list: {commands}")
    top = run("--help").stdout
    man = subprocess.run(["man", "-l", str(MAN)], capture_output=True, text=True,
                         env=dict(os.environ, MANWIDTH="200")).stdout
    man = re.sub(r".\x08", "", man).replace("\u2010", "-").replace("\u2212", "-")
    check(complete(["goblind", ""]) >= set(commands), "completion does not offer every command")
    for cmd in commands:
        line = re.search(rf"^  {cmd} +(.*)$", top, re.M)
        check(line is not None, f"--help has no summary line for {cmd}")
        if line:                                   # a whole sentence: not cut, parentheses closed
            s = line.group(1)
            check(s.endswith(".") and s.count("(") == s.count(")"), f"{cmd}: summary cut: {s!r}")
        check(f"goblind {cmd}" in top, f"--help has no synopsis for {cmd}")
        h = run(cmd, "--help")
        check(h.returncode == 0 and h.stdout.startswith(f"usage: goblind {cmd}"), f"{cmd} --help")
        check(re.search(rf"^goblind {cmd}$", man, re.M) is not None, f"man page has no section for {cmd}")
        section = man.split(f"\ngoblind {cmd}\n", 1)[-1]
        offered = complete(["goblind", cmd, "--"])
        for opt in sorted(options_of(h.stdout)):
            check(opt in section, f"man page section {cmd} lacks {opt}")
            check(opt in offered, f"completion of `goblind {cmd} --` lacks {opt}")
        for opt, choices in re.findall(r"(--[a-z][a-z0-9-]*) ([a-z0-9_]+(?:\|[a-z0-9_]+)+)", h.stdout):
            got = complete(["goblind", cmd, "x", opt, ""])
            check(got == set(choices.split("|")), f"completion of {cmd} {opt}: {sorted(got)} != {choices}")
        check("Exit status" in h.stdout, f"{cmd} --help has no exit status")
    for code in ("0  success", "1  a runtime error", "2  a usage error", "3  nothing to measure"):
        check(code in top, f"--help exit table lacks {code!r}")
        check(code in man, f"man page exit table lacks {code!r}")
    # the completion knows the options it once lacked
    check("markdown" in complete(["goblind", "analyze", "x", "--format", ""]), "analyze --format markdown")
    check("--analysis" in complete(["goblind", "parse", "x", "--ana"]), "parse --analysis")
    check("--kernel-wait-threshold-ns" in complete(["goblind", "serve", "--kernel"]), "serve --kernel...")
    check("markdown" in complete(["goblind", "analyze", "x", "--format", "=", "m"]), "--format=m (word break)")


def equals_spelling(tmp):
    fixture = SHARED / "fixtures" / "rocprofv3"
    a, b = run("parse", str(fixture), "--format", "table"), run("parse", str(fixture), "--format=table")
    check(a.returncode == b.returncode and a.stdout == b.stdout and a.stdout, "parse --format=table differs")
    a, b = run("analyze", str(fixture), "--format", "markdown"), run("analyze", str(fixture), "--format=markdown")
    check(a.returncode == b.returncode == 0 and a.stdout == b.stdout, "analyze --format=markdown differs")
    p = run("serve", "--listen=127.0.0.1:0", f"--db={tmp}/x.db", "--metrics-labels=a=1, a=2")
    check(p.returncode == 2 and "'a' cannot be used: it is given twice" in p.stderr, f"serve --opt=value: {p.stderr}")
    p = run("runs", "--format=json", "--url=127.0.0.1:1")
    check(p.returncode == 1, f"runs --format=json --url=...: exit {p.returncode} {p.stderr}")


class Stub(BaseHTTPRequestHandler):
    """A daemon that answers 400 for /runs, 404 for run nope, and a known kernel list."""
    KERNELS = {"run": "r1", "source": "run_metrics", "source_formats": ["rocprofv3-csv"], "kernels": [
        {"name": "Cijk_gemm", "class": "gemm", "calls": 4, "total_ns": 12500000, "avg_ns": 3125000.0, "min_ns": 1,
         "max_ns": 5000000, "pct_time": 80.0, "gemm": True, "collective": False, "generic_gemm": False},
        {"name": "vec_add", "class": None, "calls": 2, "total_ns": 3125000, "avg_ns": 1562500.0, "min_ns": 1,
         "max_ns": 2000000, "pct_time": 20.0, "gemm": False, "collective": False, "generic_gemm": False}]}
    # a kernel name from an untrusted trace: an escape sequence, an OSC title, an 8-bit CSI, a
    # bidi override, a carriage return; none may reach the terminal
    HOSTILE = {"run": "r2", "source": "run_metrics", "source_formats": ["rocprofv3-csv"], "kernels": [
        {"name": "a\x1b[2J\x1b]0;pwned\x07b\u009b31mc\u202ed\re", "class": None, "calls": 1, "total_ns": 1,
         "avg_ns": 1.0, "min_ns": 1, "max_ns": 1, "pct_time": 100.0, "gemm": False, "collective": False,
         "generic_gemm": False}]}
    seen = []

    def do_GET(self):
        Stub.seen.append(self.path)
        if self.path.startswith("/runs/r1/kernels"):
            st, body = 200, self.KERNELS
        elif self.path.startswith("/runs/r2/kernels"):
            st, body = 200, self.HOSTILE
        elif self.path.startswith("/runs?"):
            st, body = 400, {"error": "bad_request", "detail": "limit: expected 1..1000"}
        else:
            st, body = 404, {"error": "not_found", "detail": "no such run"}
        data = json.dumps(body).encode()
        self.send_response(st)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


def exit_statuses_and_kernels():
    srv = HTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"127.0.0.1:{srv.server_port}"
    try:
        for args, want in ((["runs", "--limit", "abc"], 2), (["runs", "--limit=0"], 2), (["runs", "--status", "x"], 2),
                           (["kernels", "r1", "--sort", "weird"], 2), (["kernels"], 2), (["nope"], 2), (["parse"], 2),
                           (["help", "nope"], 2), (["runs", "--url", "127.0.0.1:1"], 1),
                           (["runs", "--url", url], 2),                  # the daemon's 400: a usage error
                           (["show", "nope", "--url", url], 1), (["kernels", "nope", "--url", url], 1)):
            p = run(*args)
            check(p.returncode == want, f"goblind {' '.join(args)}: exit {p.returncode}, want {want} ({p.stderr.strip()[:200]})")
        p = run("kernels", "r1", f"--url={url}", "--sort=calls", "--limit=5")
        check(p.returncode == 0, f"kernels: exit {p.returncode} {p.stderr}")
        check("/runs/r1/kernels?limit=5&sort=calls" in Stub.seen, f"kernels asked {Stub.seen}")
        rows = [l.split() for l in p.stdout.splitlines() if l.strip() and l.split()[0].isdigit()]
        # hand-computed: 12500000 ns = 12.5 ms, mean 3125000 ns = 3125 us, 80 %
        check(rows == [["4", "12.500", "3125.000", "80.00", "gemm", "Cijk_gemm"],
                       ["2", "3.125", "1562.500", "20.00", "-", "vec_add"]], f"kernels table: {p.stdout}")
        p = run("kernels", "r1", "--url", url, "--format", "json")
        check(p.returncode == 0 and json.loads(p.stdout) == Stub.KERNELS, f"kernels --format json: {p.stdout[:300]}")
        p = run("kernels", "r2", "--url", url)
        bad = [c for c in p.stdout if ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) <= 0x9f or c == "\u202e"]
        check(p.returncode == 0 and not bad and "a [2J ]0;pwned b 31mc d e" in p.stdout,
              f"kernels: control characters reach the terminal: {p.stdout!r}")
    finally:
        srv.shutdown()


def main():
    with tempfile.TemporaryDirectory(prefix="goblind-cli-") as tmp:
        table_checks()
        equals_spelling(tmp)
        exit_statuses_and_kernels()
    print(f"cli_table: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
