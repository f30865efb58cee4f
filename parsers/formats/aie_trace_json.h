/* aie_trace_json: the aie-trace-json format (mlir-aie core traces; see aie_trace_json.c)
 * and aie_run_json, the aie-run-json format (aie_run.json, the run's description). */
#ifndef GOBLIN_AIE_TRACE_JSON_H
#define GOBLIN_AIE_TRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "parsers/artefact.h"

extern const artefact_parser aie_trace_json_parser;
extern const artefact_parser aie_run_json_parser;

/* A tile's process_name label as a track: "core_trace for tile2,0" -> "2,0"; memory,
 * shim and memtile traces keep their kind ("mem 2,1", "shim 0,0", "memtile 0,1"); a label
 * without tile coordinates is copied verbatim. Replaces out's bytes; false on OOM. */
bool aie_tile_label(const char *label, size_t n, strbuf *out);

#endif
