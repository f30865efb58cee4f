/* timeline: the state of the `timeline` section, shared by timeline.c (folding records)
 * and timeline_render.c (its JSON and Markdown). Other analyses must not read it: they ask
 * section_number(earlier, "timeline", "run.busy_ns", ...) (docs/ANALYSIS.md "timeline"). */
#ifndef GOBLIN_TIMELINE_H
#define GOBLIN_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyses/corr_map.h"
#include "base/i128.h"
#include "analyses/interval_set.h"
#include "analyses/kernel_class_cache.h"
#include "analyses/section.h"

/* At most this many (rank, device, stream) lanes per run; the operations of further lanes are
 * counted (dropped_lane_ops) and left out, with a warning. */
#define TL_MAX_LANES 1024u
/* Launch delay above this is an outlier (HTA's launch-delay outlier rule, 100 us). */
#define TL_DELAY_OUTLIER_NS 100000
/* Launch-delay histogram: exact below 64 ns, then 32 buckets per power of two. */
#define TL_HIST_BUCKETS (64 + 58 * 32)

/* The busy time series: at most this many equal bins over the run's span (the same grid for
 * the run, every device and every stream), busy ns per bin, for the dashboard's timeline. */
#define TL_BINS 200u

/* Interval groups of a lane (HTA's classes: memcpy and memset are both "memory"). */
enum { TL_BUSY, TL_COMPUTE, TL_COMM, TL_MEMCPY, TL_SETS };

typedef struct tl_lane {
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
    bool any;
    bool ignore_launches;            /* a source whose kernels are not chosen: its launch calls'
                                      * correlation ids belong to another profiler's id space */
    kernel_class_cache cache;
    /* finish() results */
    tl_scope *scopes;                /* lanes (sorted), then devices, then the run */
    size_t n_scopes, n_lane_scopes, n_devices;
    int64_t bin_start, bin_ns;       /* the grid: bin k is [bin_start + k*bin_ns, + bin_ns) */
    size_t n_bins;                   /* ceil(run span / bin_ns) <= TL_BINS; 0 for an empty span */
    int64_t *bins;                   /* n_scopes x n_bins, each scope's `bins` points in here */
    bool finished;
} tl_state;

/* Renders the finished state (timeline_render.c). */
void timeline_render_json(const tl_state *s, jw_out *w);
/* The report.md part: busy/idle per device and the idle split. */
void timeline_render_md(const tl_state *s, strbuf *out);
/* One number by dotted path (docs/ANALYSIS.md `timeline`); false when unknown. */
bool timeline_number(const tl_state *s, const char *path, double *out);
/* The launch-delay percentile p (0-100) from the histogram, within 1/32 relative. */
int64_t timeline_delay_percentile(const tl_state *s, double p);

#endif
