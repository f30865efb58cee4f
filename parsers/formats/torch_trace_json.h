/* torch_trace_json: the torch.profiler chrome trace format (REC_TRACE_EVENT, typed records, or both from one read). */
#ifndef GOBLIN_TORCH_TRACE_JSON_H
#define GOBLIN_TORCH_TRACE_JSON_H

#include "parsers/artefact.h"

extern const artefact_parser torch_trace_json_parser;

#endif
