#!/usr/bin/env python3
"""report_escaping: names from files cannot inject Markdown or HTML into report.md, and every
HTTP answer carries X-Content-Type-Options: nosniff.

A torch trace whose step, kernel and operator names (and file name, and run directory name)
hold a newline + "# heading", <script>, <img onerror>, a javascript: link, '|', '&', backticks,
a terminal escape, an 8-bit CSI (U+009B) and bidirectional overrides is analysed (`goblind analyze --format markdown`) and served by a real
daemon (GET /runs/<id>/report.md). Checked by plain text rules, independently of goblind:
no raw "<script" / "<img" / "<a", no javascript: link or autolink, no line starting with '#'
that is not one of goblind's own headings, no control character (C0, C1, bidi), every table row with its
header's column count (cells counted by unescaped '|'), and each hostile name still there,
escaped. Then every answer of the daemon — pages, JSON, Markdown, text, errors, 304, 401,
405 — carries nosniff, and the dashboard page writes data only through textContent.

usage: report_escaping.py GOBLIND SHARED_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_serve as e2e  # noqa: E402  (the Daemon harness)

GOBLIND = e2e.GOBLIND
HERE = Path(__file__).resolve().parent
failures = []

HOSTILE = [
    "ProfilerStep#9\n# injected heading\n",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "<javascript:alert(2)>",
    "a|b|c",
    "`code` *em* _u_ &lt; &amp;",
    "\x1b[31mred\r\n## second injected",
    "# leading hash",
    "![i](http://e.invalid/x.png)",
    "c1\u009b31mred \u202egnirts\u2066iso\u2069 bidi",   # an 8-bit CSI, a right-to-left override, an isolate
]
OWN_HEADING = re.compile(r"^(# goblind analysis: |## |### Tile )")


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def trace():
    """Steps (the slowest one hostile), kernels and operators named by HOSTILE."""
    cpu, gpu = {"pid": 1, "tid": 1}, {"pid": 0, "tid": 7}
    ev, t = [], 0
    steps = ["ProfilerStep#1", HOSTILE[0] + HOSTILE[1] + HOSTILE[5], "ProfilerStep#3"]
    for i, name in enumerate(steps):
        wall = 5000 if i == 1 else 1000
        ev.append(dict(ph="X", cat="user_annotation", name=name, ts=t, dur=wall, args={"External id": 900 + i}, **cpu))
        for j, k in enumerate(HOSTILE):
            ext = 100 * i + j + 1
            ev.append(dict(ph="X", cat="cpu_op", name="op " + k, ts=t + 10 + 40 * j, dur=30,
                           args={"External id": ext}, **cpu))
            ev.append(dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", ts=t + 12 + 40 * j, dur=5,
                           args={"External id": ext, "correlation": ext}, **cpu))
            ev.append(dict(ph="X", cat="kernel", name=k, ts=t + 20 + 40 * j, dur=10 + j,
                           args={"External id": ext, "correlation": ext, "device": 0, "stream": 7}, **gpu))
        t += wall
    return {"schemaVersion": 1, "traceEvents": ev}


def cells(line):
    """The cells of a table row, split at '|' not escaped by a backslash."""
    out, cur, esc = [], "", False
    for ch in line.strip():
        if esc:
            cur += ch
            esc = False
        elif ch == "\\":
            cur += ch
            esc = True
        elif ch == "|":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out[1:-1]                           # outside the leading and trailing '|'


def check_report(md, what):
    low = md.lower()
    for raw in ("<script", "<img", "<a ", "<javascript", "](javascript", "onerror=alert(1)>"):
        check(raw not in low, "%s: raw %r in report.md" % (what, raw))
    check(not re.search(r"\]\s*\(\s*javascript:", low), "%s: a javascript: link" % what)
    check(not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", md), "%s: a control character" % what)
    check(not re.search("[\x80-\x9f\u202a-\u202e\u2066-\u2069]", md), "%s: a C1 control or bidi override" % what)
    for line in md.split("\n"):
        if line.startswith("#"):
            check(OWN_HEADING.match(line) and "injected" not in line and "leading hash" not in line,
                  "%s: heading from a name: %r" % (what, line))
        check(not re.match(r"^\s*(-|\+|\*|\d+\.)\s.*injected", line), "%s: list item from a name: %r" % (what, line))
    header = None
    for line in md.split("\n"):
        if line.startswith("|"):
            if header is None:
                header = len(cells(line))
            else:
                check(len(cells(line)) == header, "%s: row with %d cells, header %d: %r"
                      % (what, len(cells(line)), header, line))
        else:
            header = None
    # the names are still there, as text: the step's and the kernels'
    check("injected heading" in md and "alert\\(1\\)" in md and "&lt;script&gt;" in md, "%s: names kept" % what)
    check("a\\|b\\|c" in md, "%s: '|' escaped in a cell" % what)


def test_analyze(tmp):
    run = Path(tmp) / "run <script>x|y"
    run.mkdir()
    (run / "w|<b>[l](javascript:z).pt.trace.json").write_text(json.dumps(trace()))
    out = subprocess.run([GOBLIND, "analyze", str(run), "--format", "markdown"], capture_output=True, text=True)
    check(out.returncode == 0, "analyze: %s" % out.stderr[-500:])
    md = out.stdout
    check_report(md, "analyze")
    # a file name whose bytes are not UTF-8: a bare 0x9B (the 8-bit CSI) and a stray 0xFF
    raw = run / os.fsdecode(b"k\x9b2J\xff.pt.trace.json")
    raw.write_text(json.dumps(trace()))
    out = subprocess.run([GOBLIND, "analyze", str(run), "--format", "markdown"], capture_output=True)
    check(out.returncode == 0, "analyze (raw name): %s" % out.stderr[-500:])
    try:
        text = out.stdout.decode("utf-8")       # (strict: a raw 0x9B or 0xFF would fail here)
        check_report(text, "analyze (raw name)")
        check("k\ufffd2J\ufffd" in text, "the raw name shown with U+FFFD")
    except UnicodeDecodeError as e:
        check(False, "report.md is not UTF-8: %s" % e)
    raw.unlink()
    first = md.split("\n", 1)[0]
    check(first == "# goblind analysis: run &lt;script&gt;x\\|y", "title escaped: %r" % first)
    doc = json.loads(subprocess.run([GOBLIND, "analyze", str(run)], capture_output=True, text=True).stdout)
    names = {k["name"] for k in doc["kernels"]["by_name"]}
    check(names == set(HOSTILE), "the JSON keeps the names as they are: %r" % names)


def test_daemon(tmp):
    tmp = Path(tmp)
    token = "nosniff-t0ken-of-goblind-0123456789"
    (tmp / "token").write_text(token + "\n")
    os.chmod(tmp / "token", 0o600)
    d = e2e.Daemon(tmp, extra=["--auth-token-file", str(tmp / "token")], headers={"Authorization": "Bearer " + token})
    run = d.roots[0] / "hostile"
    run.mkdir()
    (run / "w.pt.trace.json").write_text(json.dumps(trace()))
    d.start()
    try:
        # a torch trace alone is no complete run for the run metrics (no kernel trace): it ends
        # "failed", and report.md is served all the same (422, the document's Markdown)
        e2e.wait_for(lambda: (d.json("/runs/hostile")[2] or {}).get("status") in ("complete", "failed"), 30,
                 "run final")                      # (a 404 until the run is discovered)
        st, h, body = d.get("/runs/hostile/report.md")
        check(st in (200, 422) and h.get("Content-Type", "").startswith("text/markdown"), "report.md: %d %r" % (st, h))
        check_report(body.decode(), "served")
        etag = h.get("ETag")
        answers = {}
        for path in ("/", "/healthz", "/readyz", "/openapi.json", "/runs", "/runs/hostile", "/runs/hostile/metrics",
                     "/runs/hostile/analysis", "/runs/hostile/report.md", "/runs/hostile/kernels", "/metrics",
                     "/runs/nope", "/nope", "/runs/hostile/report.md?wait=abc",
                     "/compare?base=hostile&candidate=hostile"):
            answers[path] = d.get(path)
        answers["304"] = d.get("/runs/hostile/report.md", {"If-None-Match": etag})
        answers["405"] = d.get("/runs", method="POST")
        answers["401"] = d.get("/runs", {"Authorization": "Bearer wrong-token-wrong-token-00"})
        check(answers["304"][0] == 304 and answers["405"][0] == 405 and answers["401"][0] == 401,
              "statuses: %r" % {k: answers[k][0] for k in ("304", "405", "401")})
        for what, (st, h, _) in answers.items():
            sniff = {k.lower(): v for k, v in h.items()}.get("x-content-type-options")
            check(sniff == "nosniff", "%s (%d): X-Content-Type-Options %r" % (what, st, sniff))
    finally:
        d.stop()


def test_dashboard_text_only():
    parts = sorted((HERE.parent / "api").glob("dashboard*.js")) + [HERE.parent / "api" / "dashboard.html"]
    check(len(parts) > 1, "the dashboard's script parts api/dashboard*.js are missing")
    for part in parts:
        page = part.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            check(sink not in page, "%s uses %s" % (part.name, sink))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_analyze(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        test_daemon(tmp)
    test_dashboard_text_only()
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("report_escaping: ok")


if __name__ == "__main__":
    try:
        main()
    finally:
        for p in e2e.Daemon.running:
            if p.poll() is None:
                p.kill()
