/* torch_trace_json: torch.profiler chrome trace / goblin metadata JSON -> torch_summary. */
#ifndef GOBLIN_TORCH_TRACE_JSON_H
#define GOBLIN_TORCH_TRACE_JSON_H

#include "parsers/artefact.h"

extern const artefact_parser torch_trace_json_parser;

#endif
