/* name_agg: per-name duration aggregates (calls, total, min, max, sample stddev, median), the
 * table behind the `kernels` and `api` sections (rocprofv3 --stats / rocpd summary / nsys
 * stats columns).
 *
 * Sums (total, sum of squares) are exact 128-bit integers, so two pieces of one file fold
 * (name_agg_append) into exactly what one pass gives. The median is exact while a name has
 * at most NA_EXACT_CAP durations and the table holds at most NA_EXACT_BUDGET exact
 * durations in all; beyond, that name's durations move into a log-bucketed histogram
 * (bucket ratio 1.02, reported at the bucket's geometric middle): relative error <= 1 %
 * (sqrt(1.02) - 1 = 0.995 %), flagged median_exact = false. Names past NA_MAX_NAMES (or NA_MAX_NAME_BYTES) are not
 * listed: their calls and time count in `unlisted`. Entries keep first-seen order. */
#ifndef GOBLIN_NAME_AGG_H
#define GOBLIN_NAME_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/i128.h"
#include "base/json_writer.h"
#include "parsers/record.h"

#define NA_EXACT_CAP 4096u          /* exact durations kept per name */
#define NA_EXACT_BUDGET (1u << 20)  /* exact durations kept per table (8 MiB) */
#define NA_MAX_NAMES 65536u         /* distinct (tag, name) pairs listed */
#define NA_MAX_NAME_BYTES (64u << 20) /* ... and their names' text in all (65,536 names of 16 KiB were 1 GiB) */
#define NA_BUCKET_RATIO 1.02        /* histogram bucket width beyond the exact cap */
#define NA_MAX_BINS (1u << 22)      /* histogram buckets per table, 16 B each (64 MiB; 65,536 names
                                     * of ~2,200 buckets were 2.3 GB): past it a name's median is unknown */

/* The histogram bucket of a duration v: k with 1.02^(k-1) <= v < 1.02^k (pow() in double,
 * v as a double), 0 below 1 ns. Exposed for its test. */
int32_t na_bucket_of(int64_t v);

typedef struct na_bin {
    int32_t k;                      /* bucket: [1.02^(k-1), 1.02^k) for k >= 1; k = 0: below 1 ns */
    uint64_t count;
} na_bin;

typedef struct name_entry {
    char *name;
    size_t len;
    int tag;                        /* a sub-key (the API domain); 0 when unused */
    uint64_t calls;
    i128 total, sumsq, min, max;
    bool sumsq_overflow;            /* stddev unknown */
    bool stats_only;                /* from pre-aggregated stats rows: no stddev, no median */
    bool minmax_unknown;            /* a stats row without min/max: min_ns/max_ns null */
    uint32_t stats_rows;            /* stats rows folded in; their median/stddev hold for one row only */
    bool file_has_median, file_has_stddev;
    double file_median, file_stddev;
    int64_t *exact;                 /* exact durations (NULL once in the histogram), beyond int64 clamped */
    uint64_t clamped;               /* durations above INT64_MAX, kept as INT64_MAX ... */
    i128 clamped_min;               /* ... the smallest of them (a median landing there is this) */
    uint32_t n_exact, cap_exact;
    na_bin *bins;                   /* the histogram, sorted by k */
    uint32_t n_bins, cap_bins;
    bool in_hist;
    bool hist_lost;                 /* its histogram passed the table's NA_MAX_BINS: median unknown */
    /* set by name_agg_finish */
    bool has_median, median_exact;
    double median;
} name_entry;

typedef struct name_agg {
    name_entry *e;
    size_t n, cap;
    size_t name_bytes;              /* the entries' names, each with its NUL (NA_MAX_NAME_BYTES) */
    size_t bins_used, max_bins;     /* histogram buckets over all entries; their bound (NA_MAX_BINS
                                     * from name_agg_init) */
    size_t hists_lost;              /* entries whose histogram passed max_bins (hist_lost) */
    uint32_t *slots;                /* open addressing: index + 1, 0 empty */
    size_t n_slots;
    uint32_t recent[16];            /* index + 1 of recently used entries, direct-mapped by
                                     * length, tag and first/last bytes (0: none): a repeated
                                     * name is found with one compare, not a hash of it all */
    bool with_median;
    size_t exact_used;
    uint64_t unlisted_calls;
    i128 unlisted_total;
} name_agg;

/* An empty table; with_median: keep durations for the median (kernels, telemetry cadence),
 * else only sums (api). No allocation until the first add. */
void name_agg_init(name_agg *a, bool with_median);
/* Frees every entry, name and duration list; a is left empty, reusable after name_agg_init. */
void name_agg_free(name_agg *a);
/* One call of (tag, name) lasting dur ns. false: out of memory. */
bool name_agg_add(name_agg *a, int tag, const char *name, size_t len, i128 dur);
/* One pre-aggregated stats row, as the file gives it. */
typedef struct na_stats_row {
    uint64_t calls;
    i128 total;
    bool has_minmax, has_median, has_stddev;
    i128 min, max;
    double median, stddev;
} na_stats_row;
/* A REC_KERNEL_STATS record as a stats row: calls from RF_CALLS (with min/max) or the named
 * field "calls", the total from duration_ns, median/stddev from the named fields "median_ns"
 * and "stddev_ns". false: the record has no total or no call count. */
bool na_stats_row_of(const record *r, na_stats_row *out);
/* Folds one stats row of (tag, name). Several rows of one name add their calls and totals;
 * the file's median and stddev are then unknown. false: out of memory. */
bool name_agg_add_stats(name_agg *a, int tag, const char *name, size_t len, const na_stats_row *row);
/* Folds src (later in file order) into dst and empties src. false: out of memory. */
bool name_agg_append(name_agg *dst, name_agg *src);
/* Computes every entry's median (sorts the exact durations). */
void name_agg_finish(name_agg *a);
/* Totals over every entry and the unlisted ones. */
uint64_t name_agg_calls(const name_agg *a);
/* ... and their total ns (exact): the denominator of every entry's pct. */
i128 name_agg_total(const name_agg *a);
/* Entry indices sorted by total desc, then name, then tag (malloc'd; NULL on OOM or empty). */
size_t *name_agg_sorted(const name_agg *a);

/* A per-name table read two ways, as the kernels and api sections need: from the trace's
 * records (`traced`), or — when the run has none — from pre-aggregated stats rows (`stats`).
 * `result` is the one finish() chose, NULL when both are empty (the section is null). */
typedef struct na_pair {
    name_agg traced, stats;
    uint64_t no_time;           /* records without a duration or start/end (not counted) */
    bool oom;
    name_agg *result;
} na_pair;
/* An empty pair; keep_durations: the traced aggregate keeps each duration (for medians). */
void na_pair_init(na_pair *p, bool keep_durations);
/* Frees both aggregates. */
void na_pair_free(na_pair *p);
/* Whether the two pieces of a split read (both read, neither folded) fold into exactly one
 * pass's pair: neither piece refused a name (NA_MAX_NAMES, NA_MAX_NAME_BYTES) or lost a
 * histogram, and their buckets together fit one table, so the fold meets no bound that one
 * pass would have met at another record. The sections' split_exact (kernels, api). */
bool na_pair_split_exact(const na_pair *first, const na_pair *second);
/* Appends a source's pair to the run's (source order). false: out of memory (p->oom set). */
bool na_pair_fold(na_pair *into, na_pair *from);
/* Chooses and finishes `result`, and warns (prefixed `section`) about records without a
 * time (`items`: "dispatches"), allocation failure (`table`: "kernel table") and names
 * beyond the table's bound (`names`: "kernel names", `further`: "dispatches of further names"). */
void na_pair_finish(na_pair *p, diag_list *d, const char *section, const char *items, const char *table,
                    const char *names, const char *further);
/* How many of the sorted entries a document lists (list_rows, 0: all), and the calls and
 * time of the rest plus the entries beyond the table's bound (`unlisted`). */
size_t name_agg_listed(const name_agg *a, const size_t *sorted, size_t list_rows, uint64_t *unlisted_calls,
                       i128 *unlisted_total);
/* Writes `"listed": n` and, when some calls are not listed, the `unlisted` object
 * {"names", "calls", "total_ns"} ("names": entries cut by list_rows; null when names beyond
 * the table's bound were never counted). */
void name_agg_render_unlisted(const name_agg *a, size_t listed, uint64_t calls, i128 total, jw_out *w);
/* Sample standard deviation (n - 1) in ns; false when unknown (one call, stats rows, overflow). */
bool name_entry_stddev(const name_entry *e, double *out);

#endif
