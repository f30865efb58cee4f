/* run_job: one source being read by the run driver (core/run_analysis.c) and the rendering
 * of what each read gave (the document's "sources" section and report.md's table,
 * core/run_sources.c). Private to the driver. */
#ifndef GOBLIN_RUN_JOB_H
#define GOBLIN_RUN_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "base/json_writer.h"
#include "base/strbuf.h"
#include "core/run_analysis.h"
#include "core/source_read.h"

#define ROUTE_MAX 32u                    /* analyses per record type fan_out routes directly */

/* One source being read: its analyses' source states and what the sources section says. */
typedef struct job {
    const section_analysis *const *an;
    size_t n_an;
    const inventory_source *inv;
    source_ref *ref;
    const parse_options *parse;
    const source_tap *tap;        /* passengers on the bytes (NULL: none) */
    const source_tee *tee;        /* this job's passenger (whole file, or the first piece) */
    void **src;                   /* per analysis; NULL when it does not want this source */
    uint64_t counts[REC_TYPE_COUNT];
    uint64_t dropped_kernels;     /* records not delivered: dispatches/copies/memsets of a family not
                                   * chosen, and the withheld types below */
    unsigned withheld;            /* REC_BIT()s of record types another source of the run delivers
                                   * (the source choice, run_analyze): counted, not delivered */
    uint64_t names_cut;           /* names longer than ANALYSIS_NAME_MAX delivered cut */
    int meta_rank;                /* distributedInfo rank, -1 when none */
    bool oom;
    bool split;                   /* read in two pieces on two threads and joined */
    /* The deadline and cancel, checked every LIMITS_EVERY records (not only between 1 MiB
     * reads: one read's records may cost a section far more than their bytes); once passed,
     * later records are dropped, the read stops at its next check, and job_end warns if
     * that check did not (the last read of the file) */
    uint32_t since_limits;
    uint64_t records_stopped_at;  /* the record count when the limits stopped delivery (0: not) */
    /* route[t][0..n_route[t]): the analyses (indices into an) wanting record type t, built
     * when the read starts (job_route) so fan_out does not test every analysis per record;
     * routed false when there are more than ROUTE_MAX analyses (fan_out then tests each) */
    bool routed;
    uint8_t n_route[REC_TYPE_COUNT];
    uint8_t route[REC_TYPE_COUNT][ROUTE_MAX];
    diag_list diag;
    read_facts facts;
    source_read_stats stats;
} job;

/* Dispatches, copies and memsets: delivered by the kernel source choice (job_gets_kernels). */
#define JOB_KERNEL_TYPES (REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_MEMORY_COPY) | REC_BIT(REC_MEMSET))

/* Every record family the source choice covers: one family of sources delivers each. */
#define JOB_FAMILY_TYPES \
    (JOB_KERNEL_TYPES | REC_BIT(REC_API_CALL) | REC_BIT(REC_ANNOTATION) | REC_BIT(REC_ALLOCATION) | REC_BIT(REC_COUNTER))

/* Whether analysis an gets source ref's kernel dispatches, copies and memsets: the host trace's
 * for a host_clock analysis, the chosen device family's for the others (analyses/section.h).
 * One rule for fan_out's delivery and the split's question of who would receive what. */
static inline bool job_gets_kernels(const section_analysis *an, const source_ref *ref) {
    return an->host_clock ? ref->host_kernels_chosen : ref->kernels_chosen;
}

/* core/run_analysis.c, for core/run_split.c: */
/* Opens j's analyses' source states (driver thread). false on allocation failure. */
bool run_analysis_job_open(job *j, void *const *run);
/* The sink of j's records: counts them and hands each to the analyses wanting its type (the
 * routes are built here, when a read starts). */
record_sink run_analysis_job_sink(job *j);
/* Reads j's source whole through its format into its open source states (a thread's entry). */
void *run_analysis_job_read(void *arg);
/* Folds j's source states into throw-away run states: a read whose join failed leaves nothing
 * behind in the real run. */
void run_analysis_job_discard(job *j, const analysis_config *cfg);
/* Forgets what job j read (states discarded, counts and warnings cleared), to read it again. */
void run_analysis_job_reset(job *j, const analysis_config *cfg);

/* The "sources" section: one object per inventory source, what its job read. */
void run_sources_render(const run_inventory *inv, const source_ref *refs, job *jobs, jw_out *w);
/* report.md's "## Sources" table: the first cfg->list_rows files (section_listed), names escaped. */
void run_sources_md(const run_inventory *inv, const source_ref *refs, job *jobs, const analysis_config *cfg, strbuf *md);

#endif
