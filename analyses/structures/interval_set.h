/* interval_set: a union of time intervals that merges on insert, in bounded memory.
 *
 * The timeline needs the union of thousands to millions of kernel intervals that arrive in
 * any order (torch traces are not sorted). The set keeps the disjoint "islands" of the
 * union, sorted, with overlapping and touching intervals merged (so memory is the number
 * of busy islands, never the number of intervals), plus a small unsorted buffer for
 * intervals that arrive out of order, merged in a linear pass when it fills (and before
 * any query). Appending in time order, the common case, is O(1).
 *
 * Each island may carry the launch time of the operation that starts it (`launch`,
 * IV_NO_LAUNCH when unknown): the timeline's host_wait asks whether the launch call of the
 * operation that ends an idle gap started after the gap began. */
#ifndef GOBLIN_INTERVAL_SET_H
#define GOBLIN_INTERVAL_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IV_NO_LAUNCH INT64_MIN
#define IV_BUFFER 4096u

typedef struct iv {
    int64_t start, end;    /* [start, end), start <= end: start == end is an instant (a
                            * zero-duration operation), an island of length 0 that still
                            * splits an idle gap in two (HTA's rule) */
} iv;

/* A pending interval with its launch. */
typedef struct iv_launch {
    int64_t start, end, launch;
} iv_launch;

typedef struct interval_set {
    iv *v;                 /* islands: sorted, disjoint, v[i].end < v[i+1].start */
    int64_t *launch;       /* launch[i] of island i (IV_NO_LAUNCH: unknown); NULL while no
                            * launch is known at all (class unions, traces without launch
                            * calls: 16 bytes an island instead of 24) */
    size_t n, cap;
    iv_launch *buf;        /* pending out-of-order intervals (unsorted) */
    size_t nb;
} interval_set;

/* The launch of island i (IV_NO_LAUNCH when unknown). */
static inline int64_t iset_launch(const interval_set *s, size_t i) { return s->launch ? s->launch[i] : IV_NO_LAUNCH; }

/* Adds [start, end) (ignored when end < start; end == start adds an instant, which merges
 * into an island it touches). launch: see above. false on OOM. */
bool iset_add(interval_set *s, int64_t start, int64_t end, int64_t launch);
/* Merges the pending buffer into the islands (every query below needs it). false on OOM. */
bool iset_flush(interval_set *s);
/* Adds every island of src (flushed) to dst. false on OOM. */
bool iset_add_all(interval_set *dst, const interval_set *src);
/* Total length of the union (flushed set). */
int64_t iset_total(const interval_set *s);
/* Length of the intersection of two flushed sets. */
int64_t iset_overlap(const interval_set *a, const interval_set *b);
/* The intersection of two flushed sets, into an empty set `out` (flushed). false on OOM. */
bool iset_intersect(const interval_set *a, const interval_set *b, interval_set *out);
/* Records `launch` for the operation starting at `start` when it starts an island (flushes
 * first). false on OOM. */
bool iset_set_launch(interval_set *s, int64_t start, int64_t launch);
/* Prefix helpers for the timeline's retirement (analyses/sections/timeline_retire.c); all on flushed
 * sets, `hi` an exclusive time limit. */
/* Length of the part of the union below hi. */
int64_t iset_total_below(const interval_set *s, int64_t hi);
/* Length of the intersection of a and b below hi. */
int64_t iset_overlap_below(const interval_set *a, const interval_set *b, int64_t hi);
/* iset_total_below of a and of b and iset_overlap_below(a, b) in one pass over both. */
void iset_totals_below(const interval_set *a, const interval_set *b, int64_t hi, int64_t *ta, int64_t *tb, int64_t *both);
/* Adds to dst the part of src below hi (islands cut at hi, launches kept): the prefix of
 * src, for unions of several sets' prefixes. false on OOM. */
bool iset_add_prefix(interval_set *dst, const interval_set *src, int64_t hi);
/* Forgets the part of s below hi: islands starting before hi and ending at or before it go
 * (an instant at hi stays, as iset_add_prefix leaves it out), an island crossing hi keeps
 * [hi, end) with an unknown launch (its start was before hi). */
void iset_drop_prefix(interval_set *s, int64_t hi);
/* Frees the set (empty and usable again). */
void iset_free(interval_set *s);

#endif
