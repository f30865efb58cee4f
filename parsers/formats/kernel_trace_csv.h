/* kernel_trace_csv: rocprofv3 kernel_trace.csv (every header generation, rocpd exports)
 * and legacy rocprof results/timestamps CSV -> kernel_summary. */
#ifndef GOBLIN_KERNEL_TRACE_CSV_H
#define GOBLIN_KERNEL_TRACE_CSV_H

#include "parsers/artefact.h"

extern const artefact_parser kernel_trace_csv_parser;

#endif
