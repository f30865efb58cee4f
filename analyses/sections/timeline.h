/* timeline: the state of the `timeline` section, shared by timeline.c (folding records)
 * and timeline_render.c (its JSON and Markdown). Other analyses must not read it: they ask
 * section_number(earlier, "timeline", "run.busy_ns", ...) (docs/ANALYSIS.md "timeline"). */
#ifndef GOBLIN_TIMELINE_H
#define GOBLIN_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyses/structures/corr_map.h"
#include "base/i128.h"
#include "analyses/structures/interval_set.h"
#include "analyses/kernel_class_cache.h"
#include "analyses/section.h"

/* At most this many (rank, device, stream) lanes per run; the operations of further lanes are
 * counted (dropped_lane_ops) and left out, with a warning. */
#define TL_MAX_LANES 1024u
/* Retirement (analyses/sections/timeline_retire.c): once a source's lanes keep more than this many busy
 * islands, their older part is folded into running totals (tl_acc) and forgotten. */
#ifndef TL_RETIRE_ABOVE   /* a build may set it lower to exercise retirement on small runs */
#define TL_RETIRE_ABOVE ((size_t)1 << 18)
#endif
/* The fine busy grid of a retired scope: this many power-of-two-wide bins, widened (pairs
 * summed) when the retired time outgrows it; resampled onto the TL_BINS grid in finish. */
#define TL_FINE_BINS 2048u
/* Launch delay above this is an outlier (HTA's launch-delay outlier rule, 100 us). */
#define TL_DELAY_OUTLIER_NS 100000
/* Launch-delay histogram: exact below 64 ns, then 32 buckets per power of two. */
#define TL_HIST_BUCKETS (64 + 58 * 32)

/* The busy time series: at most this many equal bins over the run's span (the same grid for
 * the run, every device and every stream), busy ns per bin, for the dashboard's timeline. */
#define TL_BINS 200u

/* Interval groups of a lane (HTA's classes: memcpy and memset are both "memory"). */
enum { TL_BUSY, TL_COMPUTE, TL_COMM, TL_MEMCPY, TL_SETS };

/* A fixed-size busy histogram on an absolute power-of-two grid: bin k is [origin + k*2^shift,
 * + 2^shift), origin a multiple of 2^shift (so two grids merge bin into bin). */
typedef struct tl_fgrid {
    int64_t origin;
    int shift;
    int64_t *b;                      /* TL_FINE_BINS, NULL until the first retired time */
} tl_fgrid;

/* The retired part of one scope (a lane, a device, the run): the sums the section reports,
 * of the time below `cut` that was folded and forgotten. */
typedef struct tl_acc {
    bool on;                         /* something was retired */
    int64_t lo, cut;                 /* folded time lies in [lo, cut) */
    int64_t busy, compute, comm, memcpy, comm_overlapped;
    int64_t m_k, m_c, m_c_k;         /* |memcpy & compute|, |memcpy & comm|, |memcpy & compute & comm| */
    int64_t host_wait, kernel_wait;
    uint64_t gaps, gaps_with_launch;
    bool has_tail;
    int64_t tail_end;                /* end of the last folded island (the next gap starts there) */
    uint64_t inexact;                /* folds that were not exact (see timeline_retire.c) */
    uint64_t overlaps;               /* of those, the ones that join time folded twice: two sources'
                                      * overlapping retired sums, or a kept island below the cut.
                                      * The union's sums (busy, gaps, idle split) are then unknown */
    uint64_t split_unknown;          /* of those, kept islands wholly before the folded time (lo):
                                      * busy stays exact, the gaps around them (idle split) not */
    tl_fgrid grid;
} tl_acc;

/* The retired part of one device's union (a state keeps one per device it retired). */
typedef struct tl_dev_acc {
    int rank;
    bool has_device;
    int64_t device;
    tl_acc acc;
} tl_dev_acc;

typedef struct tl_lane {
    tl_acc acc;                      /* its retired part */
    int rank;                        /* the source's distributed rank, -1 when unknown */
    int64_t device, stream;
    bool has_device, has_stream;
    interval_set set[TL_SETS];
    int64_t first_start, last_end;   /* of every timed operation, empty ones included */
    uint64_t ops;
} tl_lane;

/* The numbers of one scope (a lane, a device, the run), computed in finish. */
typedef struct tl_scope {
    int rank;
    int64_t device, stream;
    bool has_device, has_stream;
    uint64_t ops;
    int64_t span, busy, idle, compute, comm, memcpy;
    int64_t comm_overlapped, exposed_comm, exposed_memcpy;
    int64_t host_wait, kernel_wait, other;
    uint64_t gaps, gaps_with_launch;
    int64_t first, last;             /* the scope's earliest start and latest end */
    int64_t *bins;                   /* busy ns per bin of the run's grid (tl_state.n_bins) */
    bool unknown;                    /* sources whose retired times overlap were joined: every
                                      * number but span, operations and start/end is unknown (null) */
    bool split_unknown;              /* a source's islands before another's retired time: the idle
                                      * split and gap counts are unknown (null), busy is exact */
} tl_scope;

typedef struct tl_state {
    const analysis_config *cfg;
    diag_list *diag;
    int rank;                        /* a source state: its source's rank (-1 unknown) */
    tl_lane *lanes;
    size_t n_lanes, cap_lanes, last_lane;
    corr_map launches;               /* launch calls waiting for their operation */
    corr_map waiting_ops;            /* operations waiting for their launch call */
    /* launch delay (kernel start - launch end), kernels only */
    uint64_t hist[TL_HIST_BUCKETS];
    uint64_t delay_count, delay_outliers, delay_negative, unmatched_overflow;
    i128 delay_sum;
    int64_t delay_min, delay_max;
    /* short kernels */
    uint64_t kernels, short_kernels;
    i128 kernel_ns, short_ns;
    uint64_t dropped_lane_ops, untimed_ops;
    uint64_t barrier_packets;     /* dispatches of class barrier: not on the timeline */
    bool any;
    bool ignore_launches;            /* a source whose kernels are not chosen: its launch calls'
                                      * correlation ids belong to another profiler's id space */
    kernel_class_cache cache;
    /* retirement (timeline_retire.c) */
    size_t retire_above;             /* TL_RETIRE_ABOVE; tests set less */
    size_t ops_since_check;
    bool has_latest;
    int64_t latest_start;            /* the latest start seen by this state */
    int64_t reach_back;              /* the largest (latest_start - start) seen: the disorder */
    int64_t cut;                     /* this state retired everything below cut (retire_times > 0) */
    size_t retire_next;              /* the next check waits for this many islands (0: retire_above) */
    uint64_t retire_times, late_ops, late_launches, run_joins;
    uint64_t inexact_total;          /* finish: the run scope's inexact folds (late operation pieces,
                                      * overlapping joins, kept islands below a joined cut) */
    tl_dev_acc *dev_acc;
    size_t n_dev_acc;
    tl_acc run_acc;
    /* finish() results */
    tl_scope *scopes;                /* lanes (sorted), then devices, then the run */
    size_t n_scopes, n_lane_scopes, n_devices;
    int64_t bin_start, bin_ns;       /* the grid: bin k is [bin_start + k*bin_ns, + bin_ns) */
    size_t n_bins;                   /* ceil(run span / bin_ns) <= TL_BINS; 0 for an empty span */
    int64_t *bins;                   /* n_scopes x n_bins, each scope's `bins` points in here */
    bool finished;
} tl_state;

/* timeline_retire.c */
/* Notes an operation's start for the disorder bound. */
void timeline_note_start(tl_state *s, int64_t start);
/* Retires the state's older time when its lanes keep more than retire_above islands. false: OOM. */
bool timeline_maybe_retire(tl_state *s);
/* The run's state after a source was folded in: when its lanes keep more than twice
 * retire_above islands (several sources' remainders: ranks), retires their older half (the run
 * scope is then joined inexactly if a later source overlaps it, and flagged). false: OOM. */
bool timeline_retire_run(tl_state *r);
/* Folds the part of [start, end) below the state's cut (an operation that arrived after its
 * time was retired) approximately into lane li's, its device's and the run's retired sums;
 * returns the part's new start (max(start, cut)). */
int64_t timeline_fold_late(tl_state *s, size_t li, int group, int64_t start, int64_t end);
/* Folds the islands below hi of four flushed sets (TL_SETS) into acc (INT64_MAX: all). false: OOM. */
bool timeline_acc_fold(tl_acc *acc, const interval_set *set, int64_t hi, int64_t threshold);
/* Adds src into dst (src emptied); counts an inexact join when their retired times overlap. */
bool timeline_acc_join(tl_acc *dst, tl_acc *src);
/* The retired sums of device (rank, has_dev, dev) of s (created; NULL on OOM). */
tl_acc *timeline_dev_acc_of(tl_state *s, int rank, bool has_dev, int64_t dev);
/* Adds acc's fine grid, resampled, to the bins [bin_start + k*bin_ns) of `out` (n bins). */
void timeline_fgrid_resample(const tl_fgrid *g, int64_t bin_start, int64_t bin_ns, size_t n, int64_t *out);
/* Frees an acc's grid (the acc is then empty). */
void timeline_acc_free(tl_acc *acc);
/* Whether any retirement happened (the document then has `timeline.retired`). */
bool timeline_retired_any(const tl_state *s);

/* Renders the finished state (timeline_render.c). */
void timeline_render_json(const tl_state *s, jw_out *w);
/* The report.md part: busy/idle per device and the idle split. */
void timeline_render_md(const tl_state *s, strbuf *out);
/* One number by dotted path (docs/ANALYSIS.md `timeline`); false when unknown. */
bool timeline_number(const tl_state *s, const char *path, double *out);
/* The launch-delay percentile p (0-100) from the histogram, within 1/32 relative. */
int64_t timeline_delay_percentile(const tl_state *s, double p);

#endif
