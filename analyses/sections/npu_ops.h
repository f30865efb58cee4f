/* npu_ops: Ascend operator statistics by operator type and signature (the `npu_ops`
 * section), and the finished result npu_hotspots (analyses/sections/npu_hotspots.c) reads.
 * docs/ANALYSIS.md ## npu_ops describes the numbers. */
#ifndef GOBLIN_NPU_OPS_H
#define GOBLIN_NPU_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/section.h"

/* The signature columns, in this order (record_field keys and JSON member names). */
#define NPU_SIG_FIELDS 5
extern const char *const NPU_SIG_KEYS[NPU_SIG_FIELDS];

/* One (operator type, signature) group after finish(). Durations are integer ns. */
typedef struct npu_group {
    char *key;                       /* op_type and signature joined (lookup key) */
    char *op_type;
    char *sig[NPU_SIG_FIELDS];       /* NULL: the column was absent or N/A */
    uint64_t count;
    i128 sum_ns, min_ns, max_ns;
    i128 *durs;                      /* every duration, for the exact median (bounded) */
    size_t n_durs, cap_durs;
    bool durs_capped;                /* past NPU_MAX_DURS rows or the table's NPU_MAX_DURS_TOTAL: median unknown */
    double *counter_sum;             /* per counter name (npu_ops_run.counters), numeric cells */
    uint64_t *counter_n;
    size_t n_counter_slots;
    /* filled by finish() */
    double median_us, std_us;
    bool has_median, has_std;
    bool has_reference;
    double reference_us;
    /* the reference row's `Profiling Average Duration(us)` (the original tool's comparison) */
    bool has_reference_profiling;
    double reference_profiling_us;
    /* the first row's OP State, task type (Task Type / Accelerator Core) and Output Formats
     * that had one (NULL: no row had it): what a reference export writes beside the numbers */
    char *op_state, *task_type, *output_formats;
} npu_group;

/* One reference signature (msprof-reference-csv rows, category "reference"). */
typedef struct npu_ref {
    char *key;                       /* canonical op type (aliases folded) and signature */
    char *op_type;                   /* as first written */
    char *sig[NPU_SIG_FIELDS];
    i128 first_ns, min_ns, max_ns;   /* the first row's duration is the one used */
    i128 profiling_ns;               /* the first row's `Profiling Average Duration(us)` */
    bool has_profiling;              /* (that row had one) */
    uint64_t rows;                   /* > 1: a duplicate */
    bool matched;                    /* some profiled group looked it up */
} npu_ref;

#define NPU_POS_CACHE 128

typedef struct npu_table {
    npu_group *groups;
    size_t n, cap;
    uint32_t *slots;                 /* open addressing: index + 1, 0 empty */
    size_t n_slots;
    npu_ref *refs;
    size_t n_refs, cap_refs;
    uint32_t *ref_slots;
    size_t n_ref_slots;
    char **counters;                 /* counter column names, first-seen order */
    size_t n_counters;
    uint64_t rows_dropped;           /* beyond NPU_MAX_GROUPS (operator and reference rows) */
    size_t durs_kept, max_durs;      /* durations kept over all groups; their bound (NPU_MAX_DURS_TOTAL) */
    size_t text_bytes;               /* the groups' and references' text (NPU_MAX_TEXT_BYTES) */
    uint64_t cells_dropped;          /* op_state / task_type / output_formats cells not kept past it */
    uint64_t ops_dropped;            /* the operator rows among them, counted in the totals */
    i128 ops_dropped_ns;             /* and their durations */
    /* a source's field classification by position (a file's columns keep their places):
     * what each field is, with one string compare instead of a search */
    char pos_key[NPU_POS_CACHE][48];
    int pos_class[NPU_POS_CACHE];    /* 0..4: signature column; -1 identity; -2 counter */
    long pos_counter[NPU_POS_CACHE];
} npu_table;

typedef struct npu_ops_run {
    npu_table t;
    const analysis_config *cfg;      /* list_rows, read at render */
    diag_list *diag;
    bool any_ops;
    size_t *order;                   /* groups by total time, descending (after finish) */
} npu_ops_run;

#define NPU_MAX_GROUPS 65536u
#define NPU_MAX_DURS (1u << 20)        /* durations kept per group (16 B each) */
#define NPU_MAX_DURS_TOTAL (1u << 23)  /* ... and per table, over all groups: 128 MiB (8 devices'
                                        * op_summary files of a million rows keep exact medians) */
#define NPU_MAX_COUNTERS 128u
#define NPU_MAX_TEXT_BYTES (64u << 20)  /* signatures' text per table (65,536 of 5 cells of 64 KiB were 20 GiB) */

/* npu_ops_render.c: the section's JSON value (`npu_ops` in docs/ANALYSIS.md), its report.md
 * part, and its numbers by dotted path ("ops", "signatures", "total_us",
 * "reference.signatures", "missing_reference"). run is an npu_ops_run after finish(). */
void npu_ops_render(const void *run, jw_out *w);
/* The report.md part: the operators by total time and the reference comparison. */
void npu_ops_render_md(const void *run, strbuf *out);
/* One number by dotted path, for recommendations and /compare; false when unknown. */
bool npu_ops_number(const void *run, const char *path, double *out);

#endif
