/* ns_intervals: a set of disjoint half-open nanosecond intervals [start, end), kept sorted
 * and merged on insert, and the priority split that the steps breakdown is built on.
 *
 * Memory is one 16-byte span per maximal busy stretch (touching or overlapping intervals
 * join), not per record: a stream of back-to-back kernels costs one span. A set stops
 * growing at `max_spans` (0: no limit); further intervals that would need a new span are
 * dropped and `dropped` counts them, so a caller can say its answer is partial.
 *
 * Times are int64 nanoseconds (every profiler clock we read fits: rocprofv3's boot-time
 * clock is ~2^61 at most); callers convert from i128 and skip what does not fit. */
#ifndef GOBLIN_NS_INTERVALS_H
#define GOBLIN_NS_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ns_span {
    int64_t start, end;
} ns_span;

typedef struct ns_intervals {
    ns_span *v;
    size_t n, cap;
    size_t max_spans;    /* 0: unbounded */
    uint64_t dropped;    /* intervals not kept because the set was full */
    /* Retirement (a set whose caller only needs its total): when more than retire_above
     * spans are kept (0: never), the older half is folded into retired_ns and forgotten;
     * everything folded lies in [retired_lo, floor). An interval that later reaches below
     * floor cannot be merged any more: its part below floor is added to retired_ns as it
     * is (it may overlap what was folded) and `inexact` counts it, so nsi_total is exact
     * exactly when inexact is 0. Records arrive nearly in time order, so a set of
     * retire_above spans absorbs the trace's disorder and the total stays exact. */
    size_t retire_above;
    bool retired;        /* some spans were folded */
    int64_t retired_ns, retired_lo, floor;
    uint64_t inexact;    /* intervals (or merged sets) that reached below floor */
} ns_intervals;

/* Adds [start, end) (ignored when end <= start), merging with every span it overlaps or
 * touches. False only when out of memory (the set is unchanged). */
bool nsi_add(ns_intervals *s, int64_t start, int64_t end);
/* Adds every span of src into dst (a linear merge; src unchanged). False: out of memory. */
bool nsi_merge(ns_intervals *dst, const ns_intervals *src);
/* Moves every span of src into dst and empties src (a merge that steals src's array when
 * dst is empty: no second copy). False: out of memory (src then unchanged). */
bool nsi_move(ns_intervals *dst, ns_intervals *src);
/* The total length of the set, in ns (the folded part included). */
int64_t nsi_total(const ns_intervals *s);
/* The length of the part of the set inside [lo, hi) (the kept spans only: for sets that
 * never retire, like nsi_priority_split's). */
int64_t nsi_total_within(const ns_intervals *s, int64_t lo, int64_t hi);
/* Removes from s every part of it inside the spans of `win` (a span crossing a window's
 * edge keeps its outside part). False: out of memory (s unchanged). */
bool nsi_cut(ns_intervals *s, const ns_intervals *win);
/* Whether s and t share any time (kept spans). */
bool nsi_meets(const ns_intervals *s, const ns_intervals *t);
/* Frees the intervals; s is then an empty set (its limits kept, its folded part gone). */
void nsi_free(ns_intervals *s);

#define NSI_MAX_CATS 16

/* The priority split of the window [lo, hi): part[i] is the time inside the window covered
 * by cats[i] and by none of cats[0..i-1]; part[n] is the rest ("other"). The n+1 parts sum
 * exactly to hi - lo (when hi > lo; all zero otherwise). A sweep over the boundaries inside
 * the window, without allocation. False only when n > NSI_MAX_CATS. */
bool nsi_priority_split(const ns_intervals *cats, size_t n, int64_t lo, int64_t hi, int64_t *part);

#endif
