/* steps_retire: the data of the steps section (one rank's parts, steps and span) and its
 * retirement, which keeps the section's memory bounded by the trace's disorder instead of
 * its length (docs/ANALYSIS.md "steps", bounded memory).
 *
 * The priority split is additive over disjoint windows of time: the split of a step is the
 * sum of the splits of any partition of its range. So once a source holds more than
 * STEPS_RETIRE_ABOVE spans over all parts, the older half of its time (below a watermark
 * halfway between its oldest kept span and its latest start) is split now, inside the
 * ranges of the steps the source has seen: each window's split is added to the run's and
 * to each step's running parts, the windows are remembered (`retired`, one span per
 * window: at most one per step) and the spans inside them are dropped. Time outside every
 * known step is never retired (a step seen later may claim it). finish splits what is left
 * outside the retired windows and adds the running parts: exact, unless a record reaches
 * back into a retired window, or two sources retired overlapping windows (or one retired
 * time the other still had records in): then `inexact` counts it, the warning and
 * `exact: false` say so, and uncredited time counts as other_ns. */
#ifndef GOBLIN_STEPS_RETIRE_H
#define GOBLIN_STEPS_RETIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/structures/ns_intervals.h"

enum { P_KERNEL, P_MEMCPY, P_MEMSET, P_COMM, P_RUNTIME, P_DATALOADER, P_CPU, P_TIMED, P_OTHER = P_TIMED, N_PARTS };

/* Spans kept over all parts of one source before its older half is retired (16 bytes a
 * span: ~1.5 MiB). Records of one source arrive nearly in time order (one step's events
 * together); a window of this many spans absorbs that disorder. */
#define STEPS_RETIRE_ABOVE ((size_t)1 << 16)

typedef struct step_mark {
    char *name;
    int64_t start, end;
    int64_t parts[N_PARTS];   /* the retired windows' split inside the step, so far */
    uint32_t origin;          /* the source (index, piece) that saw it and credits it */
} step_mark;

/* What one rank's records say: the parts' interval sets, the steps, the span. */
typedef struct rank_data {
    int rank;                     /* -1: unknown */
    ns_intervals part[P_TIMED];
    step_mark *steps;
    size_t nsteps, cap;
    size_t name_bytes;            /* the steps' names, each with its NUL (MAX_STEP_NAME_BYTES) */
    int64_t lo, hi;               /* the earliest start and latest end of any timed record */
    bool any;
    uint64_t out_of_range, steps_dropped;
    /* retirement */
    uint32_t origin;              /* of the source whose data this is (steps it adds) */
    ns_intervals retired;         /* windows already split (disjoint, sorted) */
    int64_t retired_run[N_PARTS]; /* their split */
    int64_t floor, latest;        /* the watermark (has_floor); the latest start seen */
    bool has_floor, has_latest;
    size_t retire_next;           /* the next attempt waits for this many spans (0: the bound) */
    uint64_t inexact;             /* records or sources that reached into retired windows */
    /* results (finish) */
    int64_t (*step_parts)[N_PARTS];
    int64_t run_parts[N_PARTS];
    int64_t mean_wall, mean_parts[N_PARTS];
    size_t slowest;
    /* ranges named like steps other than ProfilerStep#N (rocTX / NVTX / user annotations:
     * "step 3", "train_step_12", "Step#4"): their count and summed duration (exact, folds) */
    uint64_t range_count;
    int64_t range_sum_ns;
} rank_data;

/* analyses/sections/steps_ranks.c: whether a range's name (n bytes) is named like a training step
 * ("step 3", "train_step_12", "Step#4"; not ProfilerStep#N, counted apart); and the numbers
 * "slowest_rank.{mean.wall_ns,count,rank}" (the rank whose mean ProfilerStep is the longest)
 * and "step_ranges.{mean.wall_ns,count}" (likewise for ranges named like steps) over ranks. */
bool steps_is_range_step(const char *s, size_t n);
bool steps_ranks_number(const rank_data *ranks, size_t n, const char *path, double *out);
/* Counts in d->inexact a record [a, b) that reaches into a retired window (steps_note). */
void steps_note_reach(rank_data *d, int64_t a, int64_t b);
/* Notes a record (or step range) [a, b) before it is added: the latest start, and whether
 * it reaches into a retired window (counted in inexact). Inline: it runs for every record,
 * and only one starting below the watermark needs the windows. */
static inline void steps_note(rank_data *d, int64_t a, int64_t b) {
    if (!d->has_latest || a > d->latest) d->latest = a, d->has_latest = true;
    if (d->has_floor && a < d->floor && b > a) steps_note_reach(d, a, b);
}
/* Retires the older half of d's time (the spans d keeps over all parts: live). False: OOM. */
bool steps_retire_due(rank_data *d);
/* Retires the older half of d's time when it keeps more than STEPS_RETIRE_ABOVE spans.
 * False: out of memory. Inline: it runs after every record, and the answer is nearly always
 * "not yet" (seven loads, no call). */
static inline bool steps_maybe_retire(rank_data *d) {
    size_t live = 0;
    for (int p = 0; p < P_TIMED; p++) live += d->part[p].n;
    if (live <= STEPS_RETIRE_ABOVE || live <= d->retire_next || !d->has_latest || !d->nsteps) return true;
    return steps_retire_due(d);
}
/* Carries src's retired windows and running parts into dst (before their spans are
 * merged), counting in dst->inexact when the two cannot be joined exactly. False: OOM. */
bool steps_fold_retired(rank_data *dst, const rank_data *src);
/* The priority split of [lo, hi) outside the retired windows, into part[0..N_PARTS). */
bool steps_split_live(const rank_data *d, int64_t lo, int64_t hi, int64_t *part);

#endif
