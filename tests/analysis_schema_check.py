#!/usr/bin/env python3
"""The analysis document's schema in api/openapi.json (components.schemas.Analysis, the body of
GET /runs/<id>/analysis): the document `goblind analyze` prints for every directory of the shared
corpus and fixtures validates against it, and the schema is not vacuous (a document without a
section, or with a section of the wrong shape, is refused).

usage: analysis_schema_check.py GOBLIND SHARED_DIR
"""
import copy
import json
import subprocess
import sys
from pathlib import Path

import jsonschema

SRC = Path(__file__).resolve().parent.parent
DOC = json.loads((SRC / "api" / "openapi.json").read_text())


def inline(node):
    """The schema with every #/components/schemas/ reference replaced by its target."""
    if isinstance(node, dict):
        if "$ref" in node:
            return inline(DOC["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]])
        return {k: inline(v) for k, v in node.items()}
    if isinstance(node, list):
        return [inline(v) for v in node]
    return node


def main():
    goblind, shared = sys.argv[1], Path(sys.argv[2])
    op = DOC["paths"]["/runs/{id}/analysis"]["get"]["responses"]
    assert op["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Analysis"}, op["200"]
    validator = jsonschema.Draft202012Validator(inline(DOC["components"]["schemas"]["Analysis"]))
    dirs = [shared / "corpus" / "found", shared / "corpus" / "rocprofv3", shared / "corpus" / "torch_profiler"]
    dirs += sorted(p for p in (shared / "corpus" / "found2").iterdir() if p.is_dir())
    dirs += sorted(p for p in (shared / "fixtures").iterdir() if p.is_dir())
    failures, sections_seen, sample = [], set(), None
    for d in dirs:
        p = subprocess.run([goblind, "analyze", str(d)], capture_output=True, timeout=600)
        if p.returncode not in (0, 3):
            failures.append(f"{d}: goblind analyze exit {p.returncode}: {p.stderr[-300:]!r}")
            continue
        doc = json.loads(p.stdout)
        errs = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errs[:5]:
            failures.append(f"{d}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
        sections_seen |= {k for k, v in doc.items() if v is not None}
        if doc.get("timeline") and doc.get("kernels"):
            sample = doc
    # every section's schema met a real, non-null document at least once (bar the ones no
    # corpus file feeds)
    assert sample, "no corpus directory gave a timeline and kernels"
    print(f"analysis_schema: {len(dirs)} directories, non-null sections seen: {sorted(sections_seen)}")
    # not vacuous: a missing section, a wrong type, a class outside the fixed set are refused
    for mutate in (lambda d: d.pop("timeline"), lambda d: d["timeline"]["run"].update(busy_ns="1"),
                   lambda d: d["kernels"].update(by_name=[{"calls": 1}]),
                   lambda d: d["classes"]["by_class"].append({"class": "nope", "calls": 1, "total_ns": 1, "pct": 1})):
        bad = copy.deepcopy(sample)
        mutate(bad)
        if validator.is_valid(bad):
            failures.append("the schema accepts a broken document")
    for f in failures:
        print("FAIL", f)
    print(f"analysis_schema: {len(dirs) - len([f for f in failures if ':' in f])} documents valid, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
