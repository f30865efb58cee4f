#!/usr/bin/env python3
"""symbol_prefix_check: every exported symbol of the project's objects says which module defines it.

Runs nm over the objects of the libraries and the daemon (not the tests or fuzzers) and fails
on any exported function or variable whose name does not start with a prefix of the module
(the source file) defining it:
  - the file's name: a symbol of run_table.c may be run_table_*;
  - the file name's first word: run_table.c may also use run_* (time_series.c: time_*),
    unless that word is listed in GENERIC for the folder (several modules share it there);
  - an alias listed in ALIASES with its reason (an abbreviation the module has always used,
    a family of files sharing one internal header);
  - in parsers/formats/, a variable named <format>_parser: the format descriptors the
    registry lists (parsers/parser_registry.c, FORMATS).
Upper-case names (tables) are compared in lower case: AIE_CFG_KEYS suits aie_cores.c. Names
the toolchain reserves (a leading underscore: the sanitizers' own symbols) are not checked;
`main` is main.c's.

Files another change is restructuring are listed in RESTRUCTURING_* and not checked; the lists
may only shrink: a listed file no longer built, or a listed symbol no longer exported
unprefixed, fails the check until it leaves the list.

usage: symbol_prefix_check.py NM OBJECTS...   (OBJECTS: paths of .o files, or ;-lists of them,
       each under CMakeFiles/<target>.dir/ so that the rest of its path is its source file)
       symbol_prefix_check.py --self-test
"""
import re
import subprocess
import sys

# Folders where a file name's first word names no one module: daemon/ has run_log, run_state,
# run_table and run_tracker, so a bare run_* name there would not say which.
GENERIC = {
    "daemon": {"run"},
}

# Prefixes beyond the file name's, per source file, each with its reason.
ALIASES = {
    # base/: short prefixes the whole tree calls these utilities by (docs/ARCHITECTURE.md)
    "base/json_writer.c": (["jw_"], "the JSON writer, called at every rendering site"),
    "base/work_queue.c": (["wq_"], "the worker queue"),
    "base/noise_stats.c": (["ns_"], "noise_stats' initials"),
    "base/text_utf8.c": (["utf8_"], "functions named after the encoding they read"),
    # analyses/: data structures and helpers by their abbreviations
    "analyses/kernel_class_cache.c": (["kcc_"], "kernel_class_cache's initials"),
    "analyses/section_md.c": (["smd_"], "section_md's initials, used at every report.md line"),
    "analyses/sections/telemetry_series.c": (["ts_"], "telemetry_series' initials"),
    "analyses/structures/interval_set.c": (["iset_"], "the interval set"),
    "analyses/structures/kernel_groups.c": (["kgroups_"], "the kernel groups"),
    "analyses/structures/name_agg.c": (["na_"], "name_agg's initials"),
    "analyses/structures/ns_intervals.c": (["nsi_"], "ns_intervals' initials"),
    "analyses/structures/piece_log.c": (["plog_"], "the piece log"),
    # parsers/
    "parsers/formats/rocprofv3_json.c": (["rpj_"], "rocprofv3_json's internal header, shared by its files"),
    "parsers/formats/rocprofv3_json_counters.c": (["rpj_"], "rocprofv3_json's internal header, shared by its files"),
    "parsers/formats/rocprofv3_json_table.c": (["rpj_"], "rocprofv3_json's internal header, shared by its files"),
    "parsers/sqlite/sqlite_guard.c": (["sqlg_"], "the SQLite guard (sqlite_ would read as SQLite's own API)"),
    "parsers/tokenizers/json_tokenizer.c": (["jt_"], "json_tokenizer's initials"),
    # core/: tables named after the enums they are indexed by (in the same header)
    "core/counters.c": (["http_code_", "ingest_result_"], "tables indexed by the HTTP_CODES and INGEST_* enums"),
    # storage/: one API over the database, every function taking the store
    "storage/run_analysis.c": (["store_"], "storage's functions are store_<verb> (storage/store.h)"),
    "storage/run_detail.c": (["store_"], "storage's functions are store_<verb> (storage/store.h)"),
    "storage/run_rows.c": (["store_"], "storage's functions are store_<verb> (storage/store.h)"),
    "storage/run_gauges.c": (["store_"], "storage's functions are store_<verb> (storage/store.h)"),
    "storage/run_series.c": (["store_"], "storage's functions are store_<verb> (storage/store.h)"),
    # api/: the server's own functions and the route handlers routes.c dispatches to
    "api/http_api.c": (["api_"], "the HTTP API object (api/http_api.h), api_* across api/"),
    "api/http_send.c": (["api_"], "answers sent on the API's connections, api_send_*"),
    "api/routes.c": (["route_"], "the route handlers and their shared helpers (api/routes.h)"),
    "api/doc_routes.c": (["route_"], "a route handler (api/routes.h)"),
    "api/runs_route.c": (["route_"], "a route handler (api/routes.h)"),
    "api/series_route.c": (["route_"], "a route handler (api/routes.h)"),
    "api/kernel_export_route.c": (["route_"], "a route handler (api/routes.h)"),
    "api/npu_reference_route.c": (["route_"], "a route handler (api/routes.h)"),
    # daemon/: the run tracker's files share tracker_internal.h; the client commands client_opts.h
    "daemon/run_tracker.c": (["tracker_"], "the run tracker (daemon/tracker_internal.h)"),
    "daemon/run_table.c": (["tracker_"], "the run tracker (daemon/tracker_internal.h)"),
    "daemon/watches.c": (["tracker_"], "the run tracker (daemon/tracker_internal.h)"),
    "daemon/discovery.c": (["tracker_"], "the run tracker (daemon/tracker_internal.h)"),
    "daemon/cmd_client.c": (["client_"], "the HTTP client commands' shared helpers (daemon/client_opts.h)"),
}

# Being restructured by another change (one ingest pipeline): not checked until it lands.
# Files whose own symbols are not checked (a file no longer built must leave the list):
RESTRUCTURING_FILES = {
    "core/run_ingest.c",        # being restructured
    "core/artefact_reader.c",   # being restructured
    "core/run_split.c",         # being restructured
}
RESTRUCTURING_PREFIX = "parsers/formats/torch_"   # being restructured (torch_trace_*, torch_values)
# Symbols defined elsewhere whose rename needs an edit of a file being restructured (their callers):
RESTRUCTURING_SYMBOLS = {
    "kernel_summary_free", "telemetry_summary_free", "torch_summary_free",   # parser_registry.c; core/artefact_reader.c, core/run_ingest.c
    "artefact_kind_name",                                                    # core/run_files.c; core/artefact_reader.c
}


def allowed_prefixes(src):
    """The prefixes a symbol defined in source file src (a path like daemon/run_table.c) may take."""
    folder, _, name = src.rpartition("/")
    base = name[:-2] if name.endswith(".c") else name
    words = base.split("_")
    prefixes = [base + "_"]
    if len(words) > 1 and words[0] not in GENERIC.get(folder, ()):
        prefixes.append(words[0] + "_")
    prefixes += ALIASES.get(src, ([], ""))[0]
    return prefixes


def symbol_ok(src, sym, kind):
    """Whether exported symbol sym (nm type kind) is well named for source file src."""
    base = src.rpartition("/")[2][:-2]
    if sym.startswith("_") or sym == base:
        return True
    if src.startswith("parsers/formats/") and kind in "DRB" and sym.endswith("_parser"):
        return True
    low = sym.lower()
    return any(low.startswith(p) for p in allowed_prefixes(src))


def self_test():
    cases = [
        ("daemon/run_table.c", "run_table_insert", "T", True),
        ("daemon/run_table.c", "run_new", "T", False),          # run is generic in daemon/
        ("daemon/run_table.c", "tracker_insert", "T", True),    # alias
        ("daemon/run_table.c", "sig_of", "T", False),
        ("core/run_files.c", "run_id_valid", "T", True),        # first word
        ("base/strbuf.c", "strbuf_init", "T", True),
        ("base/strbuf.c", "sb_init", "T", False),
        ("analyses/sections/aie_cores.c", "AIE_CFG_KEYS", "D", True),
        ("analyses/sections/aie_cores.c", "CFG_KEYS", "D", False),
        ("parsers/formats/stats_csv.c", "nsys_kern_sum_csv_parser", "D", True),
        ("parsers/formats/stats_csv.c", "nsys_kern_sum_csv_open", "T", False),
        ("daemon/main.c", "main", "T", True),
        ("api/doc_routes.c", "get_stored_doc", "T", False),
        ("api/routes.c", "__odr_asan_gen_x", "B", True),
    ]
    bad = [c for c in cases if symbol_ok(c[0], c[1], c[2]) != c[3]]
    for c in bad:
        print(f"self-test: {c[1]} in {c[0]}: expected {'allowed' if c[3] else 'refused'}")
    return not bad


def source_of(obj):
    """daemon/run_table.c from .../CMakeFiles/goblind.dir/daemon/run_table.c.o."""
    m = re.search(r"CMakeFiles/[^/]+\.dir/(.+)\.o$", obj)
    return m.group(1) if m else None


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    if not self_test():
        return 1
    nm = sys.argv[1]
    objs = [o for a in sys.argv[2:] for o in a.split(";") if o]
    bad, seen_files, excused_files, excused_syms = [], set(), set(), set()
    for obj in objs:
        src = source_of(obj)
        if not src:
            print(f"not an object under CMakeFiles/<target>.dir/: {obj}")
            return 1
        seen_files.add(src)
        out = subprocess.run([nm, "-g", "--defined-only", "-P", obj], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            sym, kind = line.split()[:2]
            if symbol_ok(src, sym, kind):
                continue
            if src in RESTRUCTURING_FILES or src.startswith(RESTRUCTURING_PREFIX):
                excused_files.add(src)
            elif sym in RESTRUCTURING_SYMBOLS:
                excused_syms.add(sym)
            else:
                bad.append((src, sym))
    if len(seen_files) < 100:
        print(f"only {len(seen_files)} source files among the objects given: wrong arguments?")
        return 1
    for src, sym in sorted(bad):
        print(f"{src}: exported `{sym}` does not start with {' or '.join(allowed_prefixes(src))} "
              f"(rename it, make it static, or add an alias with its reason to {sys.argv[0]})")
    stale = sorted((RESTRUCTURING_FILES - seen_files) | (RESTRUCTURING_SYMBOLS - excused_syms))
    for s in stale:
        print(f"RESTRUCTURING_* lists {s}, which needs no excuse any more: remove it from the list")
    if bad or stale:
        return 1
    print(f"{len(objs)} objects, {len(seen_files)} source files: every exported symbol is prefixed "
          f"({len(excused_files)} files and {len(excused_syms)} symbols excused while restructured)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
