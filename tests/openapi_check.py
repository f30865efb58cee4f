#!/usr/bin/env python3
"""The OpenAPI contract: api/openapi.json is what api/openapi_gen.py writes, carries the shared
RunMetrics schema unchanged, is what GET /openapi.json serves, and every endpoint's live
responses (each documented status code we can provoke) are documented and validate against it.

usage: openapi_check.py GOBLIND SHARED_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import e2e_serve as e2e  # noqa: E402  (argv[1], argv[2] are read there)
import jsonschema  # noqa: E402

SRC = Path(__file__).resolve().parent.parent
DOC = json.loads((SRC / "api" / "openapi.json").read_text())
checked = []


def inline(node):
    """The schema with every #/components/schemas/ reference replaced by its target."""
    if isinstance(node, dict):
        if "$ref" in node:
            return inline(DOC["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]])
        return {k: inline(v) for k, v in node.items()}
    if isinstance(node, list):
        return [inline(v) for v in node]
    return node


def check(d, method, path, template, want_status, headers=None):
    st, h, body = d.get(path, headers, method=method)
    assert st == want_status, (method, path, st, body[:300])
    op = DOC["paths"][template][method.lower()]
    resp = op["responses"].get(str(st))
    assert resp, f"{method} {template}: status {st} is not documented"
    ctype = (h.get("Content-Type") or "").split(";")[0].strip()
    if resp.get("content"):
        assert ctype in resp["content"], (method, path, ctype, list(resp["content"]))
        if ctype == "application/json":
            jsonschema.Draft202012Validator(inline(resp["content"][ctype]["schema"])).validate(json.loads(body))
    for name in resp.get("headers", {}):
        assert name in h, (method, path, name, h)
    checked.append(f"{method} {template} {st}")
    return st, h, body


def main():
    tmp = Path(tempfile.mkdtemp(prefix="goblind-openapi-"))
    failures = []
    try:
        out = tmp / "regen.json"
        subprocess.run([sys.executable, str(SRC / "api" / "openapi_gen.py"), sys.argv[2], str(out)], check=True)
        assert json.loads(out.read_text()) == DOC, "api/openapi.json is stale: run api/openapi_gen.py"
        shared = json.loads((Path(sys.argv[2]) / "schema" / "run_metrics.schema.json").read_text())
        shared.pop("$schema"), shared.pop("$id")
        assert DOC["components"]["schemas"]["RunMetrics"] == shared, "RunMetrics differs from the shared schema"
        jsonschema.Draft202012Validator.check_schema({"$defs": DOC["components"]["schemas"]})
        d = e2e.Daemon(tmp, extra=["--quiet-s", "5"])    # new-1 must stay pending while its checks run
        e2e.gen(d.roots[0] / "a-1", seed=1)
        e2e.gen(d.roots[0] / "b-1", seed=2)
        (d.roots[0] / "bad-1").mkdir()
        (d.roots[0] / "bad-1" / "trace.csv").write_text("not,a,kernel,trace\n1,2,3,4\n")   # no file readable: failed
        (d.roots[0] / "empty-1").mkdir()
        (d.roots[0] / "empty-1" / "notes.txt").write_text("no profile\n")                   # nothing recognised: empty
        d.start()
        for rid, want in (("a-1", "complete"), ("b-1", "complete"), ("bad-1", "failed"), ("empty-1", "empty")):
            d.wait_status(rid, want)
        (d.roots[0] / "new-1").mkdir()
        e2e.wait_for(lambda: d.get("/runs/new-1")[0] == 200, 10, "new-1")
        st, h, body = check(d, "GET", "/openapi.json", "/openapi.json", 200)
        assert json.loads(body) == DOC
        check(d, "GET", "/healthz", "/healthz", 200)
        check(d, "GET", "/readyz", "/readyz", 200)
        check(d, "GET", "/", "/", 200)
        check(d, "GET", "/metrics", "/metrics", 200)
        check(d, "GET", "/runs", "/runs", 200)
        check(d, "GET", "/runs?limit=1", "/runs", 200)
        check(d, "GET", "/runs?limit=abc", "/runs", 400)
        check(d, "GET", "/runs/a-1", "/runs/{id}", 200)
        check(d, "GET", "/runs/new-1", "/runs/{id}", 200)
        check(d, "GET", "/runs/nope", "/runs/{id}", 404)
        check(d, "GET", "/runs/bad%24id", "/runs/{id}", 400)
        _, h, _ = check(d, "GET", "/runs/a-1/metrics", "/runs/{id}/metrics", 200)
        check(d, "GET", "/runs/a-1/metrics", "/runs/{id}/metrics", 304, {"If-None-Match": h["ETag"]})
        check(d, "GET", "/runs/bad-1/metrics", "/runs/{id}/metrics", 422)
        check(d, "GET", "/runs/new-1/metrics", "/runs/{id}/metrics", 202)
        check(d, "GET", "/runs/nope/metrics", "/runs/{id}/metrics", 404)
        check(d, "GET", "/runs/a-1/metrics?wait=99", "/runs/{id}/metrics", 400)
        for sub in ("analysis", "report.md"):      # store part: 200 once the analysis driver stores one
            tpl = "/runs/{id}/" + sub
            st_a = d.get(f"/runs/a-1/{sub}")[0]
            assert st_a in (200, 404), st_a
            _, h, _ = check(d, "GET", f"/runs/a-1/{sub}", tpl, st_a)
            if st_a == 200:
                check(d, "GET", f"/runs/a-1/{sub}", tpl, 304, {"If-None-Match": h["ETag"]})
            check(d, "GET", f"/runs/new-1/{sub}", tpl, 202)
            check(d, "GET", f"/runs/nope/{sub}", tpl, 404)
            check(d, "GET", f"/runs/a-1/{sub}?wait=99", tpl, 400)
        check(d, "GET", "/runs/a-1/kernels?limit=5&sort=calls", "/runs/{id}/kernels", 200)
        check(d, "GET", "/runs/a-1/kernels?sort=weird", "/runs/{id}/kernels", 400)
        check(d, "GET", "/runs/nope/kernels", "/runs/{id}/kernels", 404)
        check(d, "GET", "/compare?base=a-1&candidate=b-1", "/compare", 200)
        check(d, "GET", "/compare?base=a-1", "/compare", 400)
        check(d, "GET", "/compare?base=a-1&candidate=nope", "/compare", 404)
        check(d, "GET", "/compare?base=a-1&candidate=bad-1", "/compare", 409)
        _, _, body = check(d, "GET", "/series", "/series", 200)          # a-1 and b-1: one fingerprint series
        key = json.loads(body)["series"][0]["key"]
        check(d, "GET", "/series?limit=0", "/series", 400)
        check(d, "GET", f"/series/{key}", "/series/{key}", 200)
        check(d, "GET", f"/series/{key}?limit=1", "/series/{key}", 200)
        check(d, "GET", "/series/no-such-series", "/series/{key}", 404)
        check(d, "GET", f"/series/{key}?limit=abc", "/series/{key}", 400)
        ev = e2e.SSE(d.base)
        check(d, "DELETE", "/runs/b-1", "/runs/{id}", 200)
        check(d, "DELETE", "/runs/b-1", "/runs/{id}", 404)
        msg = ev.wait(lambda m: m.get("event") == "deleted")
        event_schema = DOC["paths"]["/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]["x-data-schema"]
        jsonschema.Draft202012Validator(inline(event_schema)).validate(msg["json"])
        ev.close()
        checked.append("GET /events 200 (RunEvent data)")
        shutil.rmtree(d.roots[0] / "new-1")
        d.wait_status("new-1", "gone")
        check(d, "GET", "/runs/new-1/metrics", "/runs/{id}/metrics", 410)
        assert d.stop() == 0
        tok = "openapi-token-0123456789abcdef"
        (tmp / "token").write_text(tok)
        (tmp / "token").chmod(0o600)              # a token file others can read is refused
        d2 = e2e.Daemon(tmp / "auth", extra=["--auth-token-file", str(tmp / "token")], headers={"Authorization": f"Bearer {tok}"})
        d2.start()
        d2.headers = {}
        for path, tpl in (("/runs", "/runs"), ("/runs/x", "/runs/{id}"), ("/runs/x/metrics", "/runs/{id}/metrics"),
                          ("/runs/x/kernels", "/runs/{id}/kernels"), ("/compare?base=a&candidate=b", "/compare"),
                          ("/metrics", "/metrics"), ("/events", "/events"), ("/series", "/series"),
                          ("/series/x", "/series/{key}")):
            check(d2, "GET", path, tpl, 401)
        check(d2, "DELETE", "/runs/x", "/runs/{id}", 401)
        check(d2, "GET", "/openapi.json", "/openapi.json", 200)            # the contract is public
        assert d2.stop() == 0
    except Exception as exc:                                           # noqa: BLE001
        import traceback
        traceback.print_exc()
        failures.append(str(exc))
    finally:
        for p in e2e.Daemon.running:              # a daemon left by a failure: killed by pid (the old
            if p.poll() is None:                    # `pkill -f "--db ..."` took the pattern for an option)
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"openapi: {len(checked)} responses validated, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
