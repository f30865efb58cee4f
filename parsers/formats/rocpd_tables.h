/* rocpd_tables: the rest of a rocpd database beside its kernels (rocpd_sqlite.c reads those):
 * agents, API regions, memory copies and memory allocations as records. */
#ifndef GOBLIN_ROCPD_TABLES_H
#define GOBLIN_ROCPD_TABLES_H

#include <sqlite3.h>
#include <stdbool.h>

#include "base/diag.h"
#include "parsers/record.h"
#include "parsers/sqlite/sqlite_guard.h"

/* How many rows of each kind were read or skipped (for the format's read_facts). */
typedef struct rocpd_extra_counts {
    uint64_t agents, regions, copies, allocations;
    uint64_t bad_times;              /* rows without integer start <= end */
    uint64_t missing_views;          /* views/tables absent from this database (older schema) */
    uint64_t late;                   /* rows too far out of order for rocpd_order's window */
} rocpd_extra_counts;

/* Emits REC_METADATA per GPU agent (device = absolute index: name, vendor, arch, compute units,
 * wave size, memory bytes from the agent's extdata JSON), REC_API_CALL / REC_ANNOTATION per
 * region, REC_MEMORY_COPY per copy, REC_ALLOCATION per allocation, each in start order, from
 * the un-suffixed views rocprofv3 writes (memory_copies, memory_allocations, regions) and
 * rocpd_info_agent, through g's bounded connection. A view that is absent is counted, not an
 * error (databases of older rocprofiler-sdk versions lack some). false: the sink is out of
 * memory or SQLite failed mid-read (a warning naming `label` was added), or one of g's
 * bounds stopped the read (g->stop; the caller warns). */
bool rocpd_read_extras(sqlg_db *g, const record_sink *sink, const char *label, diag_list *diag,
                       rocpd_extra_counts *out);

#endif
