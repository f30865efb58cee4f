/* name_agg: per-name duration aggregates with an exact-then-bucketed median (name_agg.h). */
#include "analyses/structures/name_agg.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

void name_agg_init(name_agg *a, bool with_median) {
    *a = (name_agg){.with_median = with_median, .max_bins = NA_MAX_BINS};
}

static void entry_free(name_entry *e) {
    free(e->name);
    free(e->exact);
    free(e->bins);
}

void name_agg_free(name_agg *a) {
    for (size_t i = 0; i < a->n; i++) entry_free(&a->e[i]);
    free(a->e);
    free(a->slots);
    size_t max_bins = a->max_bins;
    name_agg_init(a, a->with_median);
    a->max_bins = max_bins;
}

static uint64_t hash_of(int tag, const char *s, size_t n) {
    return str_hash_n(s, n, (uint64_t)(unsigned)tag);   /* 8 bytes a step (base/str_hash.h) */
}

static bool rehash(name_agg *a, size_t n_slots) {
    uint32_t *s = calloc(n_slots, sizeof *s);
    if (!s) return false;
    for (size_t i = 0; i < a->n; i++) {
        size_t j = hash_of(a->e[i].tag, a->e[i].name, a->e[i].len) & (n_slots - 1);
        while (s[j]) j = (j + 1) & (n_slots - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(a->slots);
    a->slots = s;
    a->n_slots = n_slots;
    return true;
}

/* The slot of (tag, name) in a->recent: a cheap key (length, tag, first and last 8 bytes);
 * the entry found there is compared in full before it is used. */
static inline uint32_t *recent_of(name_agg *a, int tag, const char *name, size_t len) {
    uint64_t x = 0, y = 0;
    if (len >= 8) memcpy(&x, name, 8), memcpy(&y, name + len - 8, 8);   /* fixed size: two loads */
    else if (len) memcpy(&x, name, len);
    uint64_t h = (x ^ (y * 0x9E3779B97F4A7C15ULL) ^ len ^ ((uint64_t)(unsigned)tag << 40)) * 0xff51afd7ed558ccdULL;
    return &a->recent[h >> 60];
}

/* The entry of (tag, name), created when new; NULL when the table is full (*oom false) or
 * allocation failed (*oom true). Names are unique in the table, so an entry in its recent
 * slot that compares equal is the one. */
static name_entry *entry_for(name_agg *a, int tag, const char *name, size_t len, bool *oom) {
    *oom = false;
    uint32_t *rec = recent_of(a, tag, name, len);
    if (*rec && *rec <= a->n) {
        name_entry *e = &a->e[*rec - 1];
        if (e->tag == tag && e->len == len && !memcmp(e->name, name, len)) return e;
    }
    if (a->n_slots) {
        size_t j = hash_of(tag, name, len) & (a->n_slots - 1);
        for (; a->slots[j]; j = (j + 1) & (a->n_slots - 1)) {
            name_entry *e = &a->e[a->slots[j] - 1];
            if (e->tag == tag && e->len == len && !memcmp(e->name, name, len)) return *rec = a->slots[j], e;
        }
    }
    if (a->n >= NA_MAX_NAMES || len >= NA_MAX_NAME_BYTES - a->name_bytes) return NULL;
    if ((a->n + 1) * 2 > a->n_slots && !rehash(a, a->n_slots ? a->n_slots * 2 : 64)) { *oom = true; return NULL; }
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        name_entry *e = realloc(a->e, cap * sizeof *e);
        if (!e) { *oom = true; return NULL; }
        a->e = e;
        a->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) { *oom = true; return NULL; }
    memcpy(copy, name, len);
    copy[len] = 0;
    a->name_bytes += len + 1;
    name_entry *e = &a->e[a->n];
    *e = (name_entry){.name = copy, .len = len, .tag = tag};
    size_t j = hash_of(tag, name, len) & (a->n_slots - 1);
    while (a->slots[j]) j = (j + 1) & (a->n_slots - 1);
    a->slots[j] = (uint32_t)++a->n;
    *rec = (uint32_t)a->n;
    return e;
}

/* The bucket edges edge[k] = pow(NA_BUCKET_RATIO, k) for k <= NA_KMAX (past INT64_MAX's
 * bucket, ~2206), and start[e][j]: the bucket of 2^e * (1 + j/64), the lower bound of the
 * j-th 64th of the octave [2^e, 2^(e+1)). Filled once. */
#define NA_KMAX 2240
#define NA_SUB_BITS 6
static double edge[NA_KMAX + 1];
static int16_t start[64][1 << NA_SUB_BITS];
static pthread_once_t edges_once = PTHREAD_ONCE_INIT;

static void edges_init(void) {
    for (int k = 0; k <= NA_KMAX; k++) edge[k] = pow(NA_BUCKET_RATIO, k);
    int32_t k = 1;
    for (int e = 0; e < 64; e++)
        for (int j = 0; j < 1 << NA_SUB_BITS; j++) {
            double lo = ldexp(1.0 + (double)j / (1 << NA_SUB_BITS), e);   /* exact */
            while (edge[k] <= lo) k++;
            start[e][j] = (int16_t)k;
        }
}

/* The histogram bucket of a duration: the k with pow(1.02, k-1) <= v < pow(1.02, k), 0 below
 * 1 ns — the smallest k whose edge exceeds d = (double)v. d's exponent e and the top 6 bits
 * of its mantissa j place it in a 64th of an octave, narrower than a bucket (1/64 < 0.02),
 * so the answer is start[e][j] or the next bucket: one comparison. It used log(v)/log(1.02)
 * with pow() settling values near an edge: the same k (check_id_map compares the two), at
 * less than half the cost. */
int32_t na_bucket_of(int64_t v) {
    if (v < 1) return 0;
    pthread_once(&edges_once, edges_init);
    double d = (double)v;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int e = (int)(bits >> 52) - 1023;   /* 0..63: v >= 1 */
    int32_t k = start[e][(bits >> (52 - NA_SUB_BITS)) & ((1u << NA_SUB_BITS) - 1)];
    return k + (edge[k] <= d);
}

/* Adds count to bucket k of e's histogram (sorted by k), inserting the bucket when new. The
 * search is branch-free (conditional adds: a duration's bucket is unpredictable). */
/* Entry e's histogram no longer kept (the table's buckets passed NA_MAX_BINS): its median is
 * unknown; the table's count of buckets gives its own back. */
static void hist_lose(name_agg *a, name_entry *e) {
    assert(a->bins_used >= e->n_bins);
    a->bins_used -= e->n_bins;
    free(e->bins);
    e->bins = NULL;
    e->n_bins = e->cap_bins = 0;
    e->hist_lost = true;
    a->hists_lost++;
}

/* Adds count durations of bucket k to e's histogram (sorted by k); a new bucket past the
 * table's max_bins loses e's histogram instead (hist_lose). false on OOM. */
static bool bin_add(name_agg *a, name_entry *e, int32_t k, uint64_t count) {
    if (e->hist_lost) return true;
    uint32_t lo = 0;
    if (e->n_bins) {
        const na_bin *b = e->bins;
        uint32_t len = e->n_bins;
        while (len > 1) {
            uint32_t half = len / 2;
            lo += b[lo + half].k < k ? half : 0;
            len -= half;
        }
        lo += b[lo].k < k;   /* the first bucket >= k (n_bins when none) */
    }
    if (lo < e->n_bins && e->bins[lo].k == k) { e->bins[lo].count += count; return true; }
    if (a->bins_used >= a->max_bins) {
        hist_lose(a, e);
        return true;
    }
    if (e->n_bins == e->cap_bins) {
        uint32_t cap = e->cap_bins ? e->cap_bins * 2 : 16;
        na_bin *b = realloc(e->bins, cap * sizeof *b);
        if (!b) return false;
        e->bins = b;
        e->cap_bins = cap;
    }
    memmove(&e->bins[lo + 1], &e->bins[lo], (e->n_bins - lo) * sizeof *e->bins);
    e->bins[lo] = (na_bin){k, count};
    e->n_bins++;
    a->bins_used++;
    return true;
}

/* Moves an entry's exact durations into its histogram. */
static bool to_hist(name_agg *a, name_entry *e) {
    for (uint32_t i = 0; i < e->n_exact; i++)
        if (!bin_add(a, e, na_bucket_of(e->exact[i]), 1)) return false;
    a->exact_used -= e->n_exact;
    free(e->exact);
    e->exact = NULL;
    e->n_exact = e->cap_exact = 0;
    e->in_hist = true;
    return true;
}

static int64_t clamp64(i128 v) { return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v; }

static bool sample_add(name_agg *a, name_entry *e, i128 dur) {
    int64_t v = clamp64(dur);
    if (dur > INT64_MAX) {
        if (!e->clamped || dur < e->clamped_min) e->clamped_min = dur;
        e->clamped++;
    }
    if (!e->in_hist && (e->n_exact >= NA_EXACT_CAP || a->exact_used >= NA_EXACT_BUDGET) && !to_hist(a, e)) return false;
    if (e->in_hist) return bin_add(a, e, na_bucket_of(v), 1);
    if (e->n_exact == e->cap_exact) {
        uint32_t cap = e->cap_exact ? e->cap_exact * 2 : 4;
        if (cap > NA_EXACT_CAP) cap = NA_EXACT_CAP;
        int64_t *x = realloc(e->exact, cap * sizeof *x);
        if (!x) return false;
        e->exact = x;
        e->cap_exact = cap;
    }
    e->exact[e->n_exact++] = v;
    a->exact_used++;
    return true;
}

static void sums_add(name_entry *e, uint64_t calls, i128 total, i128 min, i128 max) {
    if (!e->calls || min < e->min) e->min = min;
    if (!e->calls || max > e->max) e->max = max;
    e->calls += calls;
    e->total = i128_add(e->total, total);
}

bool name_agg_add(name_agg *a, int tag, const char *name, size_t len, i128 dur) {
    bool oom;
    name_entry *e = entry_for(a, tag, name, len, &oom);
    if (!e) {
        if (oom) return false;
        a->unlisted_calls++;
        a->unlisted_total = i128_add(a->unlisted_total, dur);
        return true;
    }
    sums_add(e, 1, dur, dur, dur);
    i128 sq;
    if (dur > INT64_MAX || dur < INT64_MIN || __builtin_mul_overflow(dur, dur, &sq) ||
        __builtin_add_overflow(e->sumsq, sq, &e->sumsq))
        e->sumsq_overflow = true;
    return !a->with_median || sample_add(a, e, dur);
}

/* A named field of the record as a number (its text, at most 63 bytes). */
static bool field_number(const record *r, const char *key, double *out) {
    for (size_t i = 0; i < r->n_fields; i++) {
        if (strcmp(r->fields[i].key, key) || !r->fields[i].value_len || r->fields[i].value_len > 63) continue;
        char buf[64], *end;
        memcpy(buf, r->fields[i].value, r->fields[i].value_len);
        buf[r->fields[i].value_len] = 0;
        *out = strtod(buf, &end);
        while (*end == ' ') end++;
        return end != buf && !*end && isfinite(*out) && *out >= 0;
    }
    return false;
}

bool na_stats_row_of(const record *r, na_stats_row *out) {
    *out = (na_stats_row){0};
    if (!(r->has & RF_DURATION) || r->duration_ns < 0) return false;
    out->total = r->duration_ns;
    double v;
    if (r->has & RF_CALLS) {
        out->calls = r->calls;
        out->has_minmax = true, out->min = r->min_ns, out->max = r->max_ns;
    } else if (field_number(r, "calls", &v) && v < 1.8e19 && v == floor(v)) {
        out->calls = (uint64_t)v;
    } else {
        return false;
    }
    if (field_number(r, "median_ns", &v)) out->has_median = true, out->median = v;
    if (field_number(r, "stddev_ns", &v)) out->has_stddev = true, out->stddev = v;
    return true;
}

bool name_agg_add_stats(name_agg *a, int tag, const char *name, size_t len, const na_stats_row *row) {
    bool oom;
    name_entry *e = entry_for(a, tag, name, len, &oom);
    if (!e) {
        if (oom) return false;
        a->unlisted_calls += row->calls;
        a->unlisted_total = i128_add(a->unlisted_total, row->total);
        return true;
    }
    e->stats_only = true;
    if (row->has_minmax) sums_add(e, row->calls, row->total, row->min, row->max);
    else e->minmax_unknown = true, e->calls += row->calls, e->total = i128_add(e->total, row->total);
    if (!e->stats_rows++) {
        e->file_has_median = row->has_median, e->file_median = row->median;
        e->file_has_stddev = row->has_stddev, e->file_stddev = row->stddev;
    }
    return true;
}

bool name_agg_append(name_agg *dst, name_agg *src) {
    bool ok = true;
    for (size_t i = 0; i < src->n && ok; i++) {
        name_entry *s = &src->e[i];
        bool oom;
        name_entry *d = entry_for(dst, s->tag, s->name, s->len, &oom);
        if (!d) {
            if (oom) { ok = false; break; }
            dst->unlisted_calls += s->calls;
            dst->unlisted_total = i128_add(dst->unlisted_total, s->total);
            continue;
        }
        if (s->calls) sums_add(d, s->calls, s->total, s->min, s->max);
        else d->total = i128_add(d->total, s->total);
        d->stats_only |= s->stats_only;
        d->minmax_unknown |= s->minmax_unknown;
        if (!d->stats_rows) {
            d->file_has_median = s->file_has_median, d->file_median = s->file_median;
            d->file_has_stddev = s->file_has_stddev, d->file_stddev = s->file_stddev;
        }
        d->stats_rows += s->stats_rows;
        d->sumsq_overflow |= s->sumsq_overflow || __builtin_add_overflow(d->sumsq, s->sumsq, &d->sumsq);
        if (s->clamped && (!d->clamped || s->clamped_min < d->clamped_min)) d->clamped_min = s->clamped_min;
        d->clamped += s->clamped;
        if (!dst->with_median) continue;
        if (!d->in_hist && !s->in_hist && d->n_exact + s->n_exact <= NA_EXACT_CAP &&
            dst->exact_used + s->n_exact <= NA_EXACT_BUDGET) {
            for (uint32_t j = 0; j < s->n_exact && ok; j++) ok = sample_add(dst, d, s->exact[j]);
            continue;
        }
        if (!d->in_hist) ok = to_hist(dst, d);
        if (ok && s->hist_lost && !d->hist_lost) hist_lose(dst, d);
        for (uint32_t j = 0; j < s->n_exact && ok; j++) ok = bin_add(dst, d, na_bucket_of(s->exact[j]), 1);
        for (uint32_t j = 0; j < s->n_bins && ok; j++) ok = bin_add(dst, d, s->bins[j].k, s->bins[j].count);
    }
    dst->unlisted_calls += src->unlisted_calls;
    dst->unlisted_total = i128_add(dst->unlisted_total, src->unlisted_total);
    name_agg_free(src);
    return ok;
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The representative of bucket k: its geometric middle, within [min, max]. */
static double bucket_value(const name_entry *e, int32_t k) {
    double v = k <= 0 ? 0.0 : pow(NA_BUCKET_RATIO, k - 0.5);
    if (v < (double)e->min) v = (double)e->min;
    if (v > (double)e->max) v = (double)e->max;
    return v;
}

/* The value of rank r (0-based) in the histogram. */
static double hist_rank(const name_entry *e, uint64_t r) {
    uint64_t seen = 0;
    for (uint32_t i = 0; i < e->n_bins; i++) {
        seen += e->bins[i].count;
        if (r < seen) return bucket_value(e, e->bins[i].k);
    }
    return (double)e->max;
}

/* The r-th smallest exact duration. A clamped one (above int64) stands for the smallest
 * clamped duration, exact only when that is also the largest (every clamped call alike). */
static double exact_rank(const name_entry *e, uint32_t r, bool *exact) {
    if (e->exact[r] != INT64_MAX || !e->clamped) return (double)e->exact[r];
    if (e->clamped_min != e->max) *exact = false;
    return (double)e->clamped_min;
}

void name_agg_finish(name_agg *a) {
    for (size_t i = 0; i < a->n; i++) {
        name_entry *e = &a->e[i];
        e->has_median = false;
        if (e->stats_only) {
            /* the file's own median, when one row gave it */
            if (e->stats_rows == 1 && e->file_has_median) e->has_median = e->median_exact = true, e->median = e->file_median;
            continue;
        }
        if (!a->with_median || !e->calls) continue;
        if (!e->in_hist) {
            if (e->n_exact != e->calls) continue;
            qsort(e->exact, e->n_exact, sizeof *e->exact, cmp_i64);
            uint32_t n = e->n_exact;
            bool exact = true;
            double hi = exact_rank(e, n / 2, &exact);
            e->median = n % 2 ? hi : (exact_rank(e, n / 2 - 1, &exact) + hi) / 2.0;
            e->median_exact = exact;
        } else {
            if (e->hist_lost) continue;      /* past the table's buckets: unknown */
            uint64_t n = e->calls;
            e->median = n % 2 ? hist_rank(e, n / 2) : (hist_rank(e, n / 2 - 1) + hist_rank(e, n / 2)) / 2.0;
            e->median_exact = false;
        }
        /* durations beyond int64 are kept clamped: a median outside [min, max] is pulled
         * back in (exactly min when every call had one duration) */
        if (!e->minmax_unknown) {
            double lo = (double)e->min, hi = (double)e->max;
            if (e->median < lo || e->median > hi) {
                e->median = e->median < lo ? lo : hi;
                e->median_exact = e->min == e->max;
            }
        }
        e->has_median = true;
    }
}

uint64_t name_agg_calls(const name_agg *a) {
    uint64_t n = a->unlisted_calls;
    for (size_t i = 0; i < a->n; i++) n += a->e[i].calls;
    return n;
}

i128 name_agg_total(const name_agg *a) {
    i128 t = a->unlisted_total;
    for (size_t i = 0; i < a->n; i++) t = i128_add(t, a->e[i].total);
    return t;
}

static int cmp_entry(const void *x, const void *y, void *agg) {
    const name_agg *g = agg;
    const name_entry *a = &g->e[*(const size_t *)x], *b = &g->e[*(const size_t *)y];
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return (a->tag > b->tag) - (a->tag < b->tag);
}

size_t *name_agg_sorted(const name_agg *a) {
    if (!a->n) return NULL;
    size_t *idx = malloc(a->n * sizeof *idx);
    if (!idx) return NULL;
    for (size_t i = 0; i < a->n; i++) idx[i] = i;
    qsort_r(idx, a->n, sizeof *idx, cmp_entry, (void *)a);
    return idx;
}

bool name_entry_stddev(const name_entry *e, double *out) {
    if (e->stats_only) {
        if (e->stats_rows != 1 || !e->file_has_stddev || e->calls < 2) return false;
        *out = e->file_stddev;
        return true;
    }
    if (e->sumsq_overflow || e->calls < 2) return false;
    i128 n = (i128)e->calls, nsq, tsq, num;
    long double var;
    if (!__builtin_mul_overflow(n, e->sumsq, &nsq) && !__builtin_mul_overflow(e->total, e->total, &tsq) &&
        !__builtin_sub_overflow(nsq, tsq, &num))
        var = (long double)num / ((long double)n * (long double)(n - 1));
    else
        var = ((long double)e->sumsq - (long double)e->total * (long double)e->total / (long double)n) /
              (long double)(n - 1);
    *out = var > 0 ? (double)sqrtl(var) : 0.0;
    return true;
}


size_t name_agg_listed(const name_agg *a, const size_t *sorted, size_t list_rows, uint64_t *unlisted_calls,
                       i128 *unlisted_total) {
    size_t listed = list_rows && list_rows < a->n ? list_rows : a->n;
    *unlisted_calls = a->unlisted_calls;
    *unlisted_total = a->unlisted_total;
    for (size_t i = listed; sorted && i < a->n; i++) {
        *unlisted_calls += a->e[sorted[i]].calls;
        *unlisted_total = i128_add(*unlisted_total, a->e[sorted[i]].total);
    }
    return sorted ? listed : 0;
}

void name_agg_render_unlisted(const name_agg *a, size_t listed, uint64_t calls, i128 total, jw_out *w) {
    jw_key(w, "listed");
    jw_u64(w, listed);
    if (!calls && listed == a->n) return;
    jw_key(w, "unlisted");
    jw_object_open(w);
    jw_key(w, "names");
    if (a->unlisted_calls) jw_null(w); else jw_u64(w, a->n - listed);
    jw_key(w, "calls");
    jw_u64(w, calls);
    jw_key(w, "total_ns");
    jw_i128_value(w, total);
    jw_object_close(w);
}

void na_pair_init(na_pair *p, bool keep_durations) {
    memset(p, 0, sizeof *p);
    name_agg_init(&p->traced, keep_durations);
    name_agg_init(&p->stats, false);
}

void na_pair_free(na_pair *p) {
    name_agg_free(&p->traced);
    name_agg_free(&p->stats);
}

bool na_pair_fold(na_pair *into, na_pair *from) {
    bool ok = name_agg_append(&into->traced, &from->traced) && name_agg_append(&into->stats, &from->stats);
    into->no_time += from->no_time;
    into->oom |= from->oom || !ok;
    return ok;
}

/* One table of a piece pair: it refused no name and lost no histogram (a bound a piece may
 * hit where one pass would not, or the other way round). */
static bool piece_whole(const name_agg *a) { return !a->unlisted_calls && !a->unlisted_total && !a->hists_lost; }

bool na_pair_split_exact(const na_pair *first, const na_pair *second) {
    return piece_whole(&first->traced) && piece_whole(&first->stats) && piece_whole(&second->traced) &&
           piece_whole(&second->stats) && first->traced.bins_used + second->traced.bins_used <= first->traced.max_bins;
}

void na_pair_finish(na_pair *p, diag_list *d, const char *section, const char *items, const char *table,
                    const char *names, const char *further) {
    if (p->traced.n || p->traced.unlisted_calls) p->result = &p->traced;
    else if (p->stats.n || p->stats.unlisted_calls) p->result = &p->stats;
    if (p->result) name_agg_finish(p->result);
    if (p->no_time)
        diag_add(d, "%s: %llu %s without a duration or start/end are not counted", section,
                 (unsigned long long)p->no_time, items);
    if (p->oom) diag_oom(d, "%s: out of memory; the %s is partial", section, table);
    size_t lost = 0;
    for (size_t i = 0; p->result && i < p->result->n; i++) lost += p->result->e[i].hist_lost;
    if (lost)
        diag_add(d, "%s: %zu %s past %zu histogram buckets in all: their median_ns is unknown (null)", section, lost,
                 names, p->result->max_bins);
    if (p->traced.unlisted_calls)
        diag_add(d, "%s: more than %u distinct %s (or %u MiB of their names): %llu %s count in the totals but are "
                 "not listed", section, NA_MAX_NAMES, names, NA_MAX_NAME_BYTES >> 20,
                 (unsigned long long)p->traced.unlisted_calls, further);
}
