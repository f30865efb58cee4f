#!/usr/bin/env python3
"""Writes api/openapi.json, the OpenAPI 3.1 description of goblind's HTTP API, with the RunMetrics
schema copied in from ../shared/schema/run_metrics.schema.json. Run it after changing an
endpoint; tests/openapi_check.py fails when the committed file and this script disagree, and
validates every endpoint's live responses against the document.

usage: openapi_gen.py SHARED_DIR [OUT]
"""
import json
import sys
from pathlib import Path

SHARED = Path(sys.argv[1])
OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).with_name("openapi.json")

run_metrics = json.loads((SHARED / "schema" / "run_metrics.schema.json").read_text())
run_metrics.pop("$schema", None)
run_metrics.pop("$id", None)

NUM_OR_NULL = {"type": ["number", "null"]}
STATUS = {"type": "string", "enum": ["pending", "running", "complete", "failed", "empty", "gone"]}
FAMILIES = ["goblin", "kineto", "rocprofv3", "rocpd", "rocprof", "nsys", "nvprof", "smi", "msprof", "aie"]
# the source families a run holds (docs/API.md "Profiles"), in this order; null before its first ingest
PROFILE = {"oneOf": [{"type": "array", "items": {"type": "string", "enum": FAMILIES}}, {"type": "null"}]}
# the sidecar's free-form labels (docs/API.md "The run sidecar"), null when none
LABELS = {"oneOf": [{"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
                    {"type": "null"}]}
ORIGIN = {"oneOf": [{"type": "object", "additionalProperties": False, "required": ["source", "rule"],
                                   "properties": {"source": {"type": "string"}, "rule": {"type": "string"}}},
                    {"type": "null"}]}
HEADLINE_SOURCES = {"oneOf": [{"type": "object", "additionalProperties": False,
                               "required": ["step_time_seconds", "gpu_util_pct", "hbm_peak_gb", "top_kernels",
                                            "tokens_per_sec", "mfu_pct"],
                               "properties": {k: ORIGIN for k in ("step_time_seconds", "gpu_util_pct", "hbm_peak_gb",
                                                                  "top_kernels", "tokens_per_sec", "mfu_pct")}},
                              {"type": "null"}],
                    "description": "where each headline number came from (docs/ANALYSIS.md), null per unknown number"}
TIME = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"}
RUN_ID = {"type": "string", "pattern": r"^[A-Za-z0-9._-]{1,128}$"}
DELTA = {"type": "object", "additionalProperties": False, "required": ["base", "candidate", "delta", "delta_pct"],
         "properties": {"base": NUM_OR_NULL, "candidate": NUM_OR_NULL, "delta": NUM_OR_NULL,
                        "delta_pct": NUM_OR_NULL},
         "description": "null on a side whose parse did not measure the number; delta null then too"}

KERNEL_CLASSES = ["gemm", "attention", "communication", "memcpy", "memset", "elementwise", "reduction", "normalization",
                  "convolution", "barrier", "other"]
CLASS_DELTA = {"type": "object", "additionalProperties": False,
               "required": ["base_seconds", "candidate_seconds", "delta_seconds", "ratio"],
               "properties": {"base_seconds": NUM_OR_NULL, "candidate_seconds": NUM_OR_NULL,
                              "delta_seconds": NUM_OR_NULL, "ratio": NUM_OR_NULL},
               "description": "GPU seconds in the class per side; ratio = candidate / base, null when base is 0"}


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


VERDICT = {"type": "string", "enum": ["faster", "slower", "within_noise", "unknown"]}
CI95 = {"oneOf": [{"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}, {"type": "null"}],
        "description": "95 % interval of the change, % of the base value; null when the verdict is unknown"}


def obj(props, required=None):
    return {"type": "object", "additionalProperties": False, "required": required or list(props), "properties": props}


SERIES_KEY = {"type": "string", "minLength": 1, "maxLength": 128}
KEY_SOURCE = {"type": "string", "enum": ["label", "fingerprint"]}
SERIES_VERDICT = obj({"verdict": VERDICT, "delta_pct": NUM_OR_NULL, "ci95_pct": CI95, "base_median_ms": NUM_OR_NULL,
                      "candidate_median_ms": NUM_OR_NULL})


schemas = {
    "RunMetrics": run_metrics,
    "Error": obj({"error": {"type": "string"}, "detail": {"type": "string"}}),
    "Health": obj({"status": {"const": "ok"}}),
    "Ready": obj({"ready": {"type": "boolean"}}),
    "RunSummary": obj({"id": RUN_ID, "status": STATUS, "updated_at": TIME, "tokens_per_sec": NUM_OR_NULL,
                       "mfu_pct": NUM_OR_NULL, "gpu_util_pct": NUM_OR_NULL, "step_time_seconds": NUM_OR_NULL,
                       "hbm_peak_gb": NUM_OR_NULL, "hbm_avg_gb": NUM_OR_NULL, "profile": PROFILE, "labels": LABELS}),
    "RunList": obj({"runs": {"type": "array", "items": ref("RunSummary")}, "next_cursor": {"type": ["string", "null"]}}),
    "Artefact": {**obj({"kind": {"type": "string", "enum": ["kernel_trace", "torch_profile", "telemetry"]},
                     # null when the file is not there (present false)
                     "path": {"type": "string"}, "present": {"type": "boolean"}, "size": {"type": ["integer", "null"]},
                     "mtime_ns": {"type": ["integer", "null"]}, "inode": {"type": ["integer", "null"]},
                     "bytes_parsed": {"type": ["integer", "null"]},
                     "parse_ms": NUM_OR_NULL, "format": {"type": ["string", "null"]},
                     "error": {"type": ["string", "null"]},
                     # how the artefact was read (docs/API.md); null when it was not read
                     "columns": {"type": ["object", "null"], "additionalProperties": {"type": ["string", "null"]}},
                     "rows_used": {"type": ["integer", "null"], "minimum": 0},
                     "rows_skipped": {"type": ["object", "null"], "additionalProperties": {"type": "integer", "minimum": 0}},
                     "steps_source": {"type": ["string", "null"],
                                      "enum": ["flag", "metadata", "profiler_steps", "default", None]},
                     "step_time_source": {"type": ["string", "null"],
                                          "enum": ["metadata", "profiler_steps", "span_per_step", "span", "none", None]},
                     # how the file was chosen: a name pattern or a content sniff, and its score
                     "found_by": {"type": ["string", "null"]},
                     "sniff_score": {"type": ["integer", "null"], "minimum": 0, "maximum": 100}}),
                 "additionalProperties": True},
    "RunDetail": {**obj({"id": RUN_ID, "status": STATUS, "root": {"type": "string"}, "path": {"type": "string"},
                         "created_at": TIME, "updated_at": TIME, "completed_at": {"oneOf": [TIME, {"type": "null"}]},
                         "ingest_count": {"type": "integer", "minimum": 0}, "last_parse_ms": NUM_OR_NULL,
                         "error": {"type": ["string", "null"]}, "warnings": {"type": "array", "items": {"type": "string"}},
                         "artefacts": {"type": "array", "items": ref("Artefact")},
                         # every file of the run and the format that read it (the analysis document's
                         # sources; several of one kind allowed); null when no document is stored
                         "sources": {"oneOf": [{"type": "array", "items": ref("Source")}, {"type": "null"}]},
                         "step_time_seconds": NUM_OR_NULL, "tokens_per_sec": NUM_OR_NULL, "mfu_pct": NUM_OR_NULL,
                         "gpu_util_pct": NUM_OR_NULL, "hbm_peak_gb": NUM_OR_NULL, "hbm_avg_gb": NUM_OR_NULL, "profile": PROFILE,
                         "labels": LABELS, "headline_sources": HEADLINE_SOURCES}),
                  "additionalProperties": True,
                  "description": "Other keys may be added (per-artefact facts); these are always there."},
    "Source": obj({"path": {"type": "string"}, "format": {"type": ["string", "null"]},
                   "found_by": {"type": ["string", "null"]},
                   "sniff_score": {"type": ["integer", "null"], "minimum": 0, "maximum": 100},
                   "rank": {"type": ["integer", "null"], "minimum": 0}, "read": {"type": "boolean"}}),
    "Pending": obj({"status": {"type": "string", "enum": ["pending", "running"]}, "detail": {"type": "string"}}),
    # GET /series and /series/{key} (docs/API.md "Series", docs/ANALYSIS.md "Series and regressions")
    "SeriesList": obj({"series": {"type": "array", "items": ref("SeriesSummary")},
                       "total": {"type": "integer", "minimum": 0, "description": "series in all, beyond limit too"}}),
    "SeriesSummary": obj({"key": SERIES_KEY, "key_source": KEY_SOURCE, "runs": {"type": "integer", "minimum": 1},
                          "latest_run": RUN_ID,
                          "judged_run": {"oneOf": [RUN_ID, {"type": "null"}],
                                         "description": "the run latest_verdict is of: the newest complete run with "
                                                        "per-step times; null when there is none"},
                          "latest_verdict": {"oneOf": [VERDICT, {"type": "null"}],
                                             "description": "the newest complete run with per-step times against "
                                                            "its baseline; null when it has none"},
                          "regression": {"type": "boolean"}}),
    "Series": obj({"key": SERIES_KEY, "key_source": KEY_SOURCE,
                   "baseline_runs": {"type": "integer", "minimum": 1, "maximum": 100,
                                     "description": "series_baseline_runs: the runs a baseline pools"},
                   "runs": {"type": "array", "items": ref("SeriesRun"), "description": "oldest first"}}),
    "SeriesRun": obj({"id": RUN_ID, "status": STATUS,
                      "started_ns": {"type": "integer",
                                     "description": "when goblind first saw the run (ns since the epoch): the order"},
                      "step_time_ms": NUM_OR_NULL, "tokens_per_s": NUM_OR_NULL, "busy_pct": NUM_OR_NULL,
                      "steps": {"type": ["integer", "null"], "minimum": 1,
                                "description": "per-step wall times the verdicts use; null when the run has none"},
                      "vs_previous": {"oneOf": [{**SERIES_VERDICT, "required": SERIES_VERDICT["required"] + ["run"],
                                                 "properties": {**SERIES_VERDICT["properties"], "run": RUN_ID}},
                                                {"type": "null"}]},
                      "vs_baseline": {"oneOf": [{**SERIES_VERDICT, "required": SERIES_VERDICT["required"] + ["runs"],
                                                 "properties": {**SERIES_VERDICT["properties"],
                                                                "runs": {"type": "array", "items": RUN_ID}}},
                                                {"type": "null"}]},
                      "regression": {"type": "boolean", "description": "complete and vs_baseline slower"}}),
    "Deleted": obj({"id": RUN_ID, "deleted": {"const": True}}),
    "Kernel": obj({"name": {"type": "string"},
                   # the analysis's kernel class (docs/ANALYSIS.md "classes"); null for rows stored before schema 9
                   "class": {"type": ["string", "null"], "enum": KERNEL_CLASSES + [None]},
                   "calls": {"type": "integer"}, "total_ns": {"type": "integer"},
                   "avg_ns": {"type": "number"}, "min_ns": {"type": "integer"}, "max_ns": {"type": "integer"},
                   "pct_time": {"type": "number"}, "gemm": {"type": "boolean"}, "collective": {"type": "boolean"},
                   "generic_gemm": {"type": "boolean"}}),
    # source: which table the rows are (run_metrics: RunMetrics' kernel table; analysis: the analysis
    # document's kernels section, for a run whose kernels only another format carries); null: none
    "KernelList": obj({"run": RUN_ID, "source": {"type": ["string", "null"], "enum": ["run_metrics", "analysis", None]},
                       "source_formats": {"type": "array", "items": {"type": "string"}},
                       "kernels": {"type": "array", "items": ref("Kernel")}}),
    "CompareSide": obj({"id": RUN_ID, "metrics": ref("RunMetrics")}),
    "Compare": obj({"base": ref("CompareSide"), "candidate": ref("CompareSide"),
                    "headline": obj({k: DELTA for k in ("tokens_per_sec", "mfu_pct", "hbm_peak_gb", "hbm_avg_gb",
                                                        "gpu_util_pct", "step_seconds")}),
                    "waste_budget": {"type": "object", "additionalProperties": DELTA},
                    # the stored analysis numbers: null on a side whose analysis did not know them
                    "timeline": obj({k: DELTA for k in ("span_seconds", "busy_seconds", "idle_seconds", "compute_seconds",
                                                        "communication_seconds", "exposed_communication_seconds",
                                                        "overlap_pct", "mean_step_wall_seconds", "host_wait_seconds",
                                                        "kernel_wait_seconds", "other_idle_seconds", "memcpy_seconds",
                                                        "exposed_memcpy_seconds")}),
                    "kernel_classes": obj({c: CLASS_DELTA for c in KERNEL_CLASSES}),
                    "step_time": ref("StepTimeTest"),
                    "kernels": {"oneOf": [{"type": "array", "items": ref("NameDiff")}, {"type": "null"}]},
                    "kernel_diff": {"oneOf": [ref("NameDiffTotals"), {"type": "null"}]},
                    "ops": {"oneOf": [{"type": "array", "items": ref("NameDiff")}, {"type": "null"}]},
                    "op_diff": {"oneOf": [ref("NameDiffTotals"), {"type": "null"}]},
                    "classes": {"oneOf": [{"type": "array", "items": ref("NameDiff")}, {"type": "null"}]},
                    "step_parts": {"type": "object", "additionalProperties": ref("StepTimeTest")},
                    "speedup": NUM_OR_NULL, "summary": {"type": "string"}},
                   ["base", "candidate", "headline", "waste_budget", "timeline", "kernel_classes", "speedup", "summary"]),
    "StepTimeTest": obj({"base_median_ns": NUM_OR_NULL, "candidate_median_ns": NUM_OR_NULL,
                         "base_steps": {"type": "integer"}, "candidate_steps": {"type": "integer"},
                         "delta_ns": NUM_OR_NULL, "delta_pct": NUM_OR_NULL, "ci95_pct": CI95, "verdict": VERDICT}),
    "NameDiff": obj({"name": {"type": "string"}, "class": {"type": "string"},
                     "base": {"oneOf": [ref("NameSide"), {"type": "null"}]},
                     "candidate": {"oneOf": [ref("NameSide"), {"type": "null"}]},
                     "change": {"type": "string", "enum": ["changed", "added", "removed", "unlisted_in_base",
                                                           "unlisted_in_candidate"]},
                     "delta_total_ns": NUM_OR_NULL, "delta_per_step_ns": NUM_OR_NULL,
                     "delta_avg_pct": NUM_OR_NULL, "ci95_pct": CI95, "verdict": VERDICT},
                    ["name", "base", "candidate", "change", "delta_total_ns", "delta_per_step_ns", "delta_avg_pct"]),
    "NameSide": obj({"calls": {"type": "integer"}, "total_ns": {"type": "number"}, "avg_ns": NUM_OR_NULL}),
    "NameDiffTotals": obj({k: {"type": "integer"} for k in ("names", "listed", "tested", "added", "removed", "unlisted")}
                          | {"alpha_per_name": {"type": "number"}}),
}
# The analysis document (GET /runs/<id>/analysis, `goblind analyze`; docs/ANALYSIS.md): every
# section is always present, null when the run's files do not feed it; each section's main fields
# are listed (more may follow: additionalProperties). tests/openapi_check.py validates the document
# of every corpus and fixture directory against it.
INT = {"type": "integer"}
INT_OR_NULL = {"type": ["integer", "null"]}
STR_OR_NULL = {"type": ["string", "null"]}
ARRAY = {"type": "array"}


def section(props, required=None):
    """A section: null, or an object with these main fields (others allowed)."""
    return {"type": ["object", "null"], "required": required or list(props), "properties": props,
            "additionalProperties": True}


ANALYSIS_SECTIONS = {
    "sources": {"type": "array", "items": {
        "type": "object", "additionalProperties": True,
        "required": ["path", "format", "read", "size_bytes", "bytes_read", "parse_ms", "records", "skipped", "warnings"],
        "properties": {"path": {"type": "string"}, "format": STR_OR_NULL, "found_by": STR_OR_NULL,
                       "sniff_score": {"type": ["integer", "null"], "minimum": 0, "maximum": 100},
                       "rank": INT_OR_NULL, "size_bytes": INT, "read": {"type": "boolean"}, "bytes_read": INT,
                       "parse_ms": NUM_OR_NULL, "kernels_chosen": {"type": "boolean"},  # parse_ms null: an unrecognised file, not read
                       "records": {"type": "object", "additionalProperties": INT},
                       "skipped": {"type": "object", "additionalProperties": INT},
                       "truncated": {"type": "boolean"}, "warnings": {"type": "array", "items": {"type": "string"}}}}},
    "device": section({"vendor": STR_OR_NULL, "name": STR_OR_NULL, "device_count": INT, "hostname": STR_OR_NULL,
                       "devices": ARRAY}),
    "kernels": section({"from": {"type": "string"}, "total_calls": INT, "total_ns": INT, "listed": INT,
                        "by_name": {"type": "array", "items": {
                            "type": "object", "additionalProperties": True,
                            "required": ["name", "calls", "total_ns"],
                            "properties": {"name": {"type": "string"}, "class": STR_OR_NULL, "calls": INT,
                                           "total_ns": INT, "avg_ns": NUM_OR_NULL, "pct": NUM_OR_NULL}}}}),
    "memory_copies": section({"from": {"type": "string"}, "total": {"type": "object"},
                              "by_direction": {"type": "object"}}),
    "api": section({"from": {"type": "string"}, "total_calls": INT, "total_ns": INT, "by_function": ARRAY}),
    "allocations": section({"allocation_count": INT, "peak_bytes": INT_OR_NULL, "reported_peak_bytes": INT_OR_NULL,
                            "reserved_peak_bytes": INT_OR_NULL, "devices": ARRAY}),
    "telemetry": section({"samples": INT, "util_mean_pct": NUM_OR_NULL, "vram_peak_bytes": INT_OR_NULL,
                          "power_max_w": NUM_OR_NULL, "gpus": {"type": "array", "items": {
                              "type": "object", "additionalProperties": True,
                              "required": ["device", "samples"],
                              "properties": {"device": INT_OR_NULL, "samples": INT, "util_mean_pct": NUM_OR_NULL,
                                             "vram_peak_bytes": INT_OR_NULL, "power_mean_w": NUM_OR_NULL}}}}),
    "npu_ops": section({"ops": INT, "total_us": {"type": "number"}, "items": ARRAY}),
    "npu_hotspots": section({}, []),
    "aie_cores": {"type": ["array", "null"]},
    "aie_aggregate": section({"cores": INT, "iterations": ARRAY}),
    "classes": section({"total_ns": INT, "kernel_total_ns": INT, "kernel_calls": INT, "by_class": {
        "type": "array", "items": {"type": "object", "additionalProperties": True,
                                   "required": ["class", "calls", "total_ns", "pct"],
                                   "properties": {"class": {"type": "string", "enum": KERNEL_CLASSES}, "calls": INT,
                                                  "total_ns": INT, "pct": NUM_OR_NULL}}}}),
    "timeline": section({"kernel_wait_threshold_ns": INT, "run": {
        "type": "object", "additionalProperties": True,
        "required": ["span_ns", "busy_ns", "idle_ns", "busy_pct"],
        "properties": {"span_ns": INT, "busy_ns": INT, "idle_ns": INT, "compute_ns": INT_OR_NULL,
                       "communication_ns": INT_OR_NULL, "exposed_communication_ns": INT_OR_NULL,
                       "host_wait_ns": INT_OR_NULL, "kernel_wait_ns": INT_OR_NULL, "busy_pct": NUM_OR_NULL,
                       "overlap_pct": NUM_OR_NULL}},
        "devices": ARRAY, "streams": ARRAY}),
    "steps": section({"complete": {"type": "boolean"}, "count": INT, "items": ARRAY,
                      "mean": {"type": ["object", "null"]}, "slowest": {"type": ["object", "null"]},
                      "run": {"type": "object"}}),
    "ops": section({"complete": {"type": "boolean"}, "kernels": INT, "by_op": ARRAY}),
    "phases": section({"complete": {"type": "boolean"}, "steps": INT}),
    "layers": section({"complete": {"type": "boolean"}, "count": INT, "items": ARRAY}),
    "ranks": section({"complete": {"type": "boolean"}, "per_rank": ARRAY}),
    "recommendations": {"type": "object", "additionalProperties": True, "required": ["items", "evaluated", "skipped"],
                        "properties": {
                            "items": {"type": "array", "items": {
                                "type": "object", "additionalProperties": True,
                                "required": ["id", "severity", "message", "evidence"],
                                "properties": {"id": {"type": "string"}, "severity": {"type": "string"},
                                               "message": {"type": "string"}, "evidence": {"type": "object"}}}},
                            "evaluated": ARRAY, "skipped": ARRAY}},
}
schemas["Analysis"] = {"type": "object", "additionalProperties": True, "required": list(ANALYSIS_SECTIONS),
                       "properties": ANALYSIS_SECTIONS,
                       "description": "docs/ANALYSIS.md; a section the run's files do not feed is null"}

# The JSON of each `data:` line of GET /events. Kept next to the stream it describes (the stream's
# x-data-schema), not in components: OpenAPI 3.1 has no way to refer to it from an event stream.
# A `regression` event carries series, the medians, delta_pct and ci95_pct instead of status and etag.
RUN_EVENT = obj({"id": {"type": "integer"}, "event": {"type": "string", "enum": ["created", "running", "complete",
                                                                                 "failed", "empty", "gone", "deleted",
                                                                                 "regression"]},
                 "run": RUN_ID, "status": STATUS, "etag": {"type": "string"}, "at": TIME,
                 "series": SERIES_KEY, "baseline_median_ms": {"type": "number"}, "candidate_median_ms": {"type": "number"},
                 "delta_pct": {"type": "number"}, "ci95_pct": CI95},
                ["id", "event", "run", "at"])


def json_body(schema, description):
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERR = {code: json_body(ref("Error"), text) for code, text in {
    "400": "a bad id or query parameter", "401": "a bearer token is required (auth_token_file)",
    "403": "a client certificate is required (tls_client_ca_file)", "404": "unknown run or path",
    "409": "a run is not complete", "410": "the run directory was deleted before it was ever parsed",
    "500": "the store could not be read whole (out of memory, an I/O error): try again; never a short, "
           "partial or \"not found\" answer in its place",
    "503": "the database refused the write, or the server is busy (Retry-After)"}.items()}
RUN_PARAM = {"name": "id", "in": "path", "required": True, "schema": RUN_ID}
ETAG = {"ETag": {"schema": {"type": "string"}, "description": "\"<ingest count>-<status>\""}}
RUN_STATUS_HDR = {"Goblind-Run-Status": {"schema": STATUS, "description": "the state of the run"}}


def q(name, schema, description):
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


KERNELS_FROM = q("kernels", {"type": "string", "enum": ["section", "host"]},
                 "section (default): the kernels section's kernels; host: the host trace's (torch.profiler), "
                 "those ops, phases and layers label")

paths = {
    "/healthz": {"get": {"summary": "liveness", "responses": {"200": json_body(ref("Health"), "alive")}}},
    "/readyz": {"get": {"summary": "readiness (start-up scan done)",
                        "responses": {"200": json_body(ref("Ready"), "ready"), "503": json_body(ref("Ready"), "not yet")}}},
    "/runs": {"get": {"summary": "runs, newest first; headline numbers null until known",
                      "parameters": [q("status", STATUS, "only runs in this state"),
                                     q("profile", {"type": "string", "enum": FAMILIES},
                                       "only runs whose profile holds this source family"),
                                     q("limit", {"type": "integer", "minimum": 1, "maximum": 1000}, "page size (100)"),
                                     q("cursor", {"type": "string"}, "next_cursor of the previous page")],
                      "responses": {"200": json_body(ref("RunList"), "one page"), "400": ERR["400"], "401": ERR["401"],
                                    "500": ERR["500"]}}},
    "/runs/{id}": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "status, profile, headline numbers and their sources, artefacts, warnings",
                "parameters": [q("wait", {"type": "integer", "minimum": 0, "maximum": 60},
                                 "a run not discovered yet: wait for it up to this many seconds before 404")],
                "responses": {"200": {**json_body(ref("RunDetail"), "the run"), "headers": ETAG},
                              "400": ERR["400"], "401": ERR["401"], "404": ERR["404"], "500": ERR["500"]}},
        "delete": {"summary": "forget the run (its directory is left alone, not ingested again unless it changes)",
                   "responses": {"200": json_body(ref("Deleted"), "forgotten"), "400": ERR["400"], "401": ERR["401"],
                                 "404": ERR["404"],
                                 "500": json_body(ref("Error"), "memory ran out answering, after or before the run "
                                                                "was forgotten (whole either way): ask /runs/{id}"),
                                 "503": ERR["503"]}}},
    "/runs/{id}/metrics": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "RunMetrics, byte for byte what `goblind parse` prints",
                "parameters": [q("wait", {"type": "integer", "minimum": 0, "maximum": 60},
                                 "hold the request until final (or until the ETag differs from If-None-Match); "
                                 "a run not discovered yet is waited for too, 404 only after the wait")],
                "responses": {
                    "200": {**json_body(ref("RunMetrics"), "complete or empty, or gone after having been parsed"),
                            "headers": {**ETAG, **RUN_STATUS_HDR}},
                    "202": {**json_body(ref("Pending"), "still being written or parsed"),
                            "headers": {"Retry-After": {"schema": {"type": "string"}}, **ETAG}},
                    "304": {"description": "If-None-Match matches"},
                    "400": ERR["400"], "401": ERR["401"], "404": ERR["404"], "410": ERR["410"], "500": ERR["500"],
                    "422": {**json_body(ref("RunMetrics"), "the run failed: its RunMetrics (warnings say why), "
                                                           "not a measurement"),
                            "headers": {**ETAG, **RUN_STATUS_HDR}}}}},
    # store part: the stored analysis document and Markdown report (docs/API.md), polled like /metrics
    "/runs/{id}/analysis": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "the analysis document of the run's last parse, as stored (docs/ANALYSIS.md)",
                "parameters": [q("wait", {"type": "integer", "minimum": 0, "maximum": 60},
                                 "hold the request until final (or until the ETag differs from If-None-Match); "
                                 "a run not discovered yet is waited for too, 404 only after the wait")],
                "responses": {
                    "200": {**json_body(ref("Analysis"), "complete, or gone after having been parsed"),
                            "headers": {**ETAG, **RUN_STATUS_HDR}},
                    "202": {**json_body(ref("Pending"), "still being written or parsed"),
                            "headers": {"Retry-After": {"schema": {"type": "string"}}, **ETAG}},
                    "304": {"description": "If-None-Match matches"},
                    "400": ERR["400"], "401": ERR["401"],
                    "404": json_body(ref("Error"), "unknown run (not_found), or a final run whose last parse "
                                                   "stored no document (no_analysis)"),
                    "410": ERR["410"], "500": ERR["500"],
                    "422": {**json_body(ref("Analysis"), "the run failed: its document, not a measurement"),
                            "headers": {**ETAG, **RUN_STATUS_HDR}}}}},
    "/runs/{id}/report.md": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "the Markdown report of the run's last parse, as stored",
                "parameters": [q("wait", {"type": "integer", "minimum": 0, "maximum": 60},
                                 "hold the request until final (or until the ETag differs from If-None-Match); "
                                 "a run not discovered yet is waited for too, 404 only after the wait")],
                "responses": {
                    "200": {"description": "complete, or gone after having been parsed",
                            "content": {"text/markdown": {"schema": {"type": "string"}}},
                            "headers": {**ETAG, **RUN_STATUS_HDR}},
                    "202": {**json_body(ref("Pending"), "still being written or parsed"),
                            "headers": {"Retry-After": {"schema": {"type": "string"}}, **ETAG}},
                    "304": {"description": "If-None-Match matches"},
                    "400": ERR["400"], "401": ERR["401"],
                    "404": json_body(ref("Error"), "unknown run (not_found), or a final run whose last parse "
                                                   "stored no report (no_analysis)"),
                    "410": ERR["410"], "500": ERR["500"],
                    "422": {"description": "the run failed: its report, not a measurement",
                            "content": {"text/markdown": {"schema": {"type": "string"}}},
                            "headers": {**ETAG, **RUN_STATUS_HDR}}}}},
    "/runs/{id}/kernels": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "per-kernel statistics of the last parse",
                "parameters": [q("sort", {"type": "string", "enum": ["total_ns", "calls", "avg_ns", "max_ns", "name"]},
                                 "order"), q("limit", {"type": "integer", "minimum": 1, "maximum": 100000}, "(100)")],
                "responses": {"200": json_body(ref("KernelList"), "kernels"), "400": ERR["400"], "401": ERR["401"],
                              "404": ERR["404"], "500": ERR["500"], "503": ERR["503"]}}},
    "/runs/{id}/npu_reference.zip": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "the run's Ascend operators (npu_ops) in the msprof reference CSV layout, one CSV per "
                           "operator type, zipped; re-read from the run directory (docs/ANALYSIS.md)",
                "responses": {"200": {"description": "a zip of <op type>.csv files (empty without msprof operators); "
                                                     "a failure part way breaks the chunked transfer off",
                                      "content": {"application/zip": {"schema": {"type": "string",
                                                                                 "format": "binary"}}}},
                              "400": ERR["400"], "401": ERR["401"], "404": ERR["404"],
                              "410": json_body(ref("Error"), "the run's directory is no longer on disk"),
                              "500": ERR["500"], "503": ERR["503"]}}},
    "/runs/{id}/kernels.csv": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "one labelled row per kernel dispatch, read again from the run's directory and streamed "
                           "(header start_ns,end_ns,device,stream,rank,name,class,phase,layer,cpu_op,python_frame,"
                           "duration_ns,owner; docs/ANALYSIS.md \"Per-kernel export\")",
                "parameters": [KERNELS_FROM],
                "responses": {"200": {"description": "CSV, a header line first",
                                      "content": {"text/csv": {"schema": {"type": "string"}}}},
                              "400": ERR["400"], "401": ERR["401"], "404": ERR["404"],
                              "410": json_body(ref("Error"), "the run's directory is no longer there"),
                              "500": ERR["500"], "503": ERR["503"]}}},
    "/runs/{id}/kernels.jsonl": {
        "parameters": [RUN_PARAM],
        "get": {"summary": "the rows of kernels.csv as JSON lines (one object a line, null for an empty cell)",
                "parameters": [KERNELS_FROM],
                "responses": {"200": {"description": "JSON lines",
                                      "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
                              "400": ERR["400"], "401": ERR["401"], "404": ERR["404"],
                              "410": json_body(ref("Error"), "the run's directory is no longer there"),
                              "500": ERR["500"], "503": ERR["503"]}}},
    "/compare": {"get": {"summary": "before/after of two complete runs",
                         "parameters": [{**q("base", RUN_ID, "run id"), "required": True},
                                        {**q("candidate", RUN_ID, "run id"), "required": True},
                                        q("rows", {"type": "integer", "minimum": 1, "maximum": 1000},
                                          "rows of the kernels and ops lists (20)")],
                         "responses": {"200": json_body(ref("Compare"), "deltas"), "400": ERR["400"],
                                       "401": ERR["401"], "404": ERR["404"], "409": ERR["409"], "500": ERR["500"]}}},
    "/series": {"get": {"summary": "series of runs (labels.series, or a setup fingerprint), the one with the newest "
                                   "run first, with that run's verdict against its baseline",
                        "parameters": [q("limit", {"type": "integer", "minimum": 1, "maximum": 1000},
                                         "series listed (50)")],
                        "responses": {"200": json_body(ref("SeriesList"), "the series"), "400": ERR["400"],
                                      "401": ERR["401"], "500": ERR["500"]}}},
    "/series/{key}": {
        "parameters": [{"name": "key", "in": "path", "required": True, "schema": SERIES_KEY,
                        "description": "a series key (percent-encoded)"}],
        "get": {"summary": "a series' runs in order with their verdicts against the previous run and the baseline",
                "parameters": [q("limit", {"type": "integer", "minimum": 1, "maximum": 1000},
                                 "the newest runs shown (50)")],
                "responses": {"200": json_body(ref("Series"), "the series"), "400": ERR["400"], "401": ERR["401"],
                              "404": json_body(ref("Error"), "no series with this key"), "500": ERR["500"]}}},
    "/events": {"get": {"summary": "run state changes as Server-Sent Events; each data line is a RunEvent",
                        "parameters": [{"name": "Last-Event-ID", "in": "header", "required": False,
                                        "schema": {"type": "string"}, "description": "resume after this event"}],
                        "responses": {"200": {"description": "never-ending stream",
                                              "content": {"text/event-stream": {"schema": {"type": "string"},
                                                                                "x-data-schema": RUN_EVENT}}},
                                      "401": ERR["401"], "503": ERR["503"]}}},
    "/metrics": {"get": {"summary": "Prometheus text 0.0.4, or OpenMetrics 1.0 on Accept",
                         "responses": {"200": {"description": "exposition",
                                               "content": {"text/plain": {"schema": {"type": "string"}},
                                                           "application/openmetrics-text": {"schema": {"type": "string"}}}},
                                       "401": ERR["401"], "500": ERR["500"]}}},
    "/": {"get": {"summary": "the dashboard page",
                  "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
    "/openapi.json": {"get": {"summary": "this document",
                              "responses": {"200": {"description": "OpenAPI 3.1",
                                                    "content": {"application/json": {"schema": {"type": "object"}}}}}}},
}

# Every operation's id (generated clients name their methods after it).
OPERATION_IDS = {
    ("/healthz", "get"): "getHealth", ("/readyz", "get"): "getReady", ("/runs", "get"): "listRuns",
    ("/runs/{id}", "get"): "getRun", ("/runs/{id}", "delete"): "deleteRun",
    ("/runs/{id}/metrics", "get"): "getRunMetrics", ("/runs/{id}/analysis", "get"): "getRunAnalysis",
    ("/runs/{id}/report.md", "get"): "getRunReport", ("/runs/{id}/kernels", "get"): "listRunKernels",
    ("/runs/{id}/npu_reference.zip", "get"): "getRunNpuReference",
    ("/runs/{id}/kernels.csv", "get"): "exportRunKernelsCsv", ("/runs/{id}/kernels.jsonl", "get"): "exportRunKernelsJsonl",
    ("/compare", "get"): "compareRuns", ("/events", "get"): "streamRunEvents",
    ("/series", "get"): "listSeries", ("/series/{key}", "get"): "getSeries",
    ("/metrics", "get"): "getPrometheusMetrics", ("/", "get"): "getDashboard", ("/openapi.json", "get"): "getOpenApi",
}
# The endpoints answered without the bearer token (api/http_api.c): liveness, the dashboard page
# (it asks for the token itself) and this document. Every other one needs it when the daemon has
# an auth_token_file (the document-wide `security`).
PUBLIC = {"/healthz", "/", "/openapi.json"}
# A 4xx every endpoint can answer, the open ones included: the HTTP library's refusal of a request
# whose line and headers pass max_request_kb.
TOO_LARGE = {"description": "request line or headers past max_request_kb (the HTTP library's answer)"}
for path, item in paths.items():
    for method, op in item.items():
        if method == "parameters":
            continue
        op["operationId"] = OPERATION_IDS[(path, method)]
        if path in PUBLIC:
            op["security"] = []
        op["responses"].setdefault("431", TOO_LARGE)
assert len(OPERATION_IDS) == sum(1 for item in paths.values() for m in item if m != "parameters")

doc = {
    "openapi": "3.1.0",
    "info": {"title": "goblind", "version": "0.1.0",
             "description": "Telemetry daemon for GPU training runs: RunMetrics, waste budget, run events. "
                            "See docs/API.md. Numbers are written in their shortest round-trip form.",
             # the source tree states no licence yet (debian/copyright says the same)
             "license": {"name": "No licence stated; all rights reserved by the goblind authors",
                         "url": "https://github.com/goblin/goblind"}},
    "servers": [{"url": "http://127.0.0.1:9477"}],
    "components": {"schemas": schemas,
                   "securitySchemes": {"bearer": {
                       "type": "http", "scheme": "bearer",
                       "description": "the token in the daemon's auth_token_file; required by every endpoint but "
                                      "/healthz, / and /openapi.json when that file is set (docs/OPERATIONS.md)"}}},
    "security": [{"bearer": []}],
    "paths": paths,
}
OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
