/* aie_cores: per-core kernel timing of an mlir-aie run (the `aie_cores` section), and the
 * finished result aie_aggregate (analyses/sections/aie_aggregate.c) reads. docs/ANALYSIS.md
 * ## aie_cores describes the pairing rules. */
#ifndef GOBLIN_AIE_CORES_H
#define GOBLIN_AIE_CORES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/section.h"

/* Per tile and marker kind, the most events kept (beyond: the tile is cut, with a note);
 * in all, the most markers and tiles a run keeps (beyond: the rest are not read, noted). */
#define AIE_MAX_EVENTS (1u << 20)
#define AIE_MAX_MARKERS (1u << 22)
#define AIE_MAX_TILES 1024u

/* The run description (aie_run.json, aie.* metadata). */
enum { AIE_M, AIE_K, AIE_N, AIE_m, AIE_k, AIE_n, AIE_ROWS, AIE_COLS, AIE_WARMUP, AIE_ITERATIONS, AIE_CLOCK_GHZ,
       AIE_MACS_PER_CYCLE, AIE_CFG_COUNT };

typedef struct aie_cfg {
    double v[AIE_CFG_COUNT];
    bool has[AIE_CFG_COUNT];         /* clock_ghz and macs_per_cycle default (1.25, 64) in finish */
    bool any;                        /* an aie_run.json was read */
} aie_cfg;

typedef enum { AIE_LABEL_WARMUP, AIE_LABEL_PERF, AIE_LABEL_EXTRA, AIE_LABEL_UNLABELLED } aie_label;
/* The label as the document writes it ("warmup", "perf", "extra", "unlabelled"): one
 * spelling for aie_cores' JSON and report.md and aie_aggregate's choice of perf iterations. */
const char *aie_label_name(aie_label l);

typedef struct aie_iter {
    aie_label label;
    uint64_t kernels;
    double avg_cycles;
    int64_t min_cycles, max_cycles;
    int64_t span_cycles;             /* last kernel end - first kernel start */
    int64_t first_start, last_end;   /* the first kernel's start and the last kernel's end (cycles) */
    double gmacs;                    /* kernels * m*k*n * clock_ghz / span; has_gmacs false: unknown */
    bool has_gmacs;
} aie_iter;

typedef struct i128_list {
    i128 *v;
    size_t n, cap;
    bool capped;                     /* AIE_MAX_EVENTS reached: later events dropped */
} i128_list;

typedef struct aie_core {
    char *tile;
    i128_list starts, ends;          /* INSTR_EVENT_0 B, INSTR_EVENT_1 E */
    i128_list stall_b, stall_e;      /* LOCK_STALL B, E */
    /* after finish */
    uint64_t pairs, duplicates, outliers, orphans;
    uint64_t lock_stall_boundaries;  /* LOCK_STALLs long enough to end an iteration (>= 20 m) */
    double median_cycles;
    bool has_median;
    aie_iter *iters;
    size_t n_iters;
    char note[256];                  /* "" when none */
} aie_core;

typedef struct aie_cores_run {
    aie_core *cores;
    size_t n, cap;
    aie_cfg cfg;
    const analysis_config *settings; /* list_rows, read at render */
    diag_list *diag;
    bool any_events;
    uint64_t markers;                /* kept, all tiles */
    bool markers_capped, tiles_capped;
    char note[256];                  /* run-level note (labels, configuration), "" when none */
} aie_cores_run;

/* The section as JSON and as report.md's per-core details (analyses/sections/aie_cores_render.c). */
void aie_cores_render(const aie_cores_run *run, jw_out *w);
void aie_cores_render_md(const aie_cores_run *run, strbuf *out);

#endif
