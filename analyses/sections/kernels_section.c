/* kernels_section: the `kernels` section: per kernel name, the columns of rocprofv3 --stats
 * (calls, total, average, min, max, sample stddev, percent) plus nsys stats' median.
 *
 * Inputs: REC_KERNEL_DISPATCH (duration_ns, else end - start). Pre-aggregated stats rows
 * (REC_KERNEL_STATS with category "kernel" or none) fill the table only when the run has no
 * dispatch at all (a *_kernel_stats.csv beside no trace); then stddev and median are null.
 * Barrier packets (legacy rocprof's "<barrier packet>" rows) are not kernels: counted apart
 * (barrier_packets), outside the table and its totals.
 * Per-name aggregates live in name_agg (exact i128 sums: splittable). docs/ANALYSIS.md. */
#include <stdlib.h>
#include <string.h>

#include "analyses/kernel_class.h"
#include "analyses/structures/name_agg.h"
#include "analyses/section.h"
#include "analyses/section_md.h"

/* Barrier packets: counted apart, not kernels (docs/ANALYSIS.md "kernels"). */
typedef struct barrier_sum {
    uint64_t calls;
    i128 total_ns;
} barrier_sum;

typedef struct kernels_state {
    na_pair t;                  /* traced: the dispatches; stats: the stats rows */
    barrier_sum traced_barriers, stats_barriers;
    diag_list *diag;            /* run state only */
    const analysis_config *cfg; /* the run's settings (list_rows read at render); NULL: a source state */
} kernels_state;

static void *k_open(const analysis_config *cfg, diag_list *diag) {
    kernels_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    na_pair_init(&s->t, true);
    s->diag = diag;
    s->cfg = cfg;
    return s;
}

static void *k_open_source(void *run, const source_ref *src) {
    (void)src;
    return k_open(NULL, ((kernels_state *)run)->diag);
}

static bool is_kernel_stats(const record *r) {
    return !r->category || (r->category_len == 6 && !memcmp(r->category, "kernel", 6));
}

static bool k_consume(void *st, const record *r) {
    kernels_state *s = st;
    if (!r->name) return true;
    if (r->type == REC_KERNEL_DISPATCH) {
        i128 d;
        if (!record_duration(r, &d)) { s->t.no_time++; return true; }
        if (kernel_is_barrier(r->name, r->name_len)) {
            s->traced_barriers.calls++;
            s->traced_barriers.total_ns = i128_add(s->traced_barriers.total_ns, d);
            return true;
        }
        return name_agg_add(&s->t.traced, 0, r->name, r->name_len, d);
    }
    na_stats_row row;
    if (r->type == REC_KERNEL_STATS && is_kernel_stats(r) && na_stats_row_of(r, &row)) {
        if (kernel_is_barrier(r->name, r->name_len)) {
            s->stats_barriers.calls += row.calls;
            s->stats_barriers.total_ns = i128_add(s->stats_barriers.total_ns, row.total);
            return true;
        }
        return name_agg_add_stats(&s->t.stats, 0, r->name, r->name_len, &row);
    }
    return true;
}

static void k_close(void *st) {
    kernels_state *s = st;
    if (!s) return;
    na_pair_free(&s->t);
    free(s);
}

static bool k_end_source(void *run, void *src) {
    kernels_state *r = run, *s = src;
    bool ok = na_pair_fold(&r->t, &s->t);
    r->traced_barriers.calls += s->traced_barriers.calls;
    r->traced_barriers.total_ns = i128_add(r->traced_barriers.total_ns, s->traced_barriers.total_ns);
    r->stats_barriers.calls += s->stats_barriers.calls;
    r->stats_barriers.total_ns = i128_add(r->stats_barriers.total_ns, s->stats_barriers.total_ns);
    k_close(s);
    return ok;
}

static bool k_finish(void *run, const section_results *earlier) {
    (void)earlier;
    kernels_state *s = run;
    na_pair_finish(&s->t, s->diag, "kernels", "dispatches", "kernel table", "kernel names",
                   "dispatches of further names");
    return true;
}

/* The barrier packets of the table the section shows (dispatches or stats rows). */
static const barrier_sum *barriers_of(const kernels_state *s) {
    return s->t.result == &s->t.traced ? &s->traced_barriers : &s->stats_barriers;
}

static void k_render(const void *run, jw_out *w) {
    const kernels_state *s = run;
    const name_agg *a = s->t.result;
    if (!a) { jw_null(w); return; }
    i128 total = name_agg_total(a);
    jw_object_open(w);
    jw_key(w, "from");
    jw_string(w, a == &s->t.traced ? "dispatches" : "stats");
    jw_key(w, "total_calls");
    jw_u64(w, name_agg_calls(a));
    jw_key(w, "total_ns");
    jw_i128_value(w, total);
    jw_key(w, "median_exact_cap");
    jw_int(w, NA_EXACT_CAP);
    const barrier_sum *b = barriers_of(s);
    jw_key(w, "barrier_packets");
    if (b->calls) {
        jw_object_open(w);
        jw_key(w, "calls");
        jw_u64(w, b->calls);
        jw_key(w, "total_ns");
        jw_i128_value(w, b->total_ns);
        jw_object_close(w);
    } else {
        jw_null(w);
    }
    jw_key(w, "by_name");
    jw_array_open(w);
    size_t *idx = name_agg_sorted(a);
    if (!idx && a->n) jw_fail(w);                /* (the list would be missing) */
    uint64_t rest_calls;
    i128 rest_total;
    size_t listed = name_agg_listed(a, idx, s->cfg ? s->cfg->list_rows : 0, &rest_calls, &rest_total);
    for (size_t i = 0; i < listed; i++) {
        const name_entry *e = &a->e[idx[i]];
        jw_object_open(w);
        jw_key(w, "name");
        jw_string_n(w, e->name, e->len);
        jw_key(w, "class");
        jw_string(w, kernel_class_key(kernel_class_of(e->name, e->len)));
        jw_key(w, "calls");
        jw_u64(w, e->calls);
        jw_key(w, "total_ns");
        jw_i128_value(w, e->total);
        jw_key(w, "avg_ns");
        if (e->calls) jw_number(w, (double)e->total / (double)e->calls); else jw_null(w);
        jw_key(w, "min_ns");
        if (e->minmax_unknown) jw_null(w); else jw_i128_value(w, e->min);
        jw_key(w, "max_ns");
        if (e->minmax_unknown) jw_null(w); else jw_i128_value(w, e->max);
        double sd;
        jw_key(w, "stddev_ns");
        if (name_entry_stddev(e, &sd)) jw_number(w, sd); else jw_null(w);
        jw_key(w, "median_ns");
        if (e->has_median) jw_number(w, e->median); else jw_null(w);
        jw_key(w, "median_exact");
        if (e->has_median) jw_bool(w, e->median_exact); else jw_null(w);
        jw_key(w, "pct");
        if (total > 0) jw_number(w, 100.0 * (double)e->total / (double)total); else jw_null(w);
        jw_object_close(w);
    }
    free(idx);
    jw_array_close(w);
    name_agg_render_unlisted(a, listed, rest_calls, rest_total, w);
    jw_object_close(w);
}

#define MD_ROWS 20

/* The report's kernel table: the MD_ROWS busiest names, fewer when analysis_list_rows says so
 * (times in ms and us). */
static void k_render_md(const void *run, strbuf *out) {
    const kernels_state *s = run;
    const name_agg *a = s->t.result;
    if (!a) return;
    i128 total = name_agg_total(a);
    smd_printf(out, "## Kernels\n\n%llu dispatches, %.3f ms of kernel time (from %s).\n\n",
               (unsigned long long)name_agg_calls(a), (double)total / 1e6, a == &s->t.traced ? "dispatches" : "stats rows");
    const barrier_sum *b = barriers_of(s);
    if (b->calls)
        smd_printf(out, "%llu barrier packets (%.3f ms of queue time) are not kernels and not counted here.\n\n",
                   (unsigned long long)b->calls, (double)b->total_ns / 1e6);
    smd_printf(out, "| kernel | class | calls | total (ms) | avg (us) | median (us) | min (us) | max (us) | stddev (us) | %% |\n"
                    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    size_t *idx = name_agg_sorted(a);
    if (!idx && a->n) out->failed = true;        /* (the table would be missing) */
    size_t rows = section_listed(s->cfg, a->n < MD_ROWS ? a->n : MD_ROWS);
    for (size_t i = 0; idx && i < rows; i++) {
        const name_entry *e = &a->e[idx[i]];
        double sd;
        bool has_sd = name_entry_stddev(e, &sd);
        strbuf_append(out, "| ", 2);
        smd_cell(out, e->name, e->len, 80);
        smd_printf(out, " | %s | %llu |", kernel_class_key(kernel_class_of(e->name, e->len)), (unsigned long long)e->calls);
        smd_num(out, (double)e->total / 1e6, 3, true);
        smd_num(out, e->calls ? (double)e->total / (double)e->calls / 1e3 : 0, 3, e->calls > 0);
        smd_num(out, e->median / 1e3, 3, e->has_median);
        smd_num(out, (double)e->min / 1e3, 3, !e->minmax_unknown);
        smd_num(out, (double)e->max / 1e3, 3, !e->minmax_unknown);
        smd_num(out, sd / 1e3, 3, has_sd);
        smd_num(out, total > 0 ? 100.0 * (double)e->total / (double)total : 0, 1, total > 0);
        strbuf_putc(out, '\n');
    }
    if (idx && a->n > rows) smd_printf(out, "\n%zu more kernel names (the analysis document lists %zu).\n", a->n - rows,
                                       section_listed(s->cfg, a->n));
    free(idx);
    strbuf_putc(out, '\n');
}

/* Headline numbers: "total_calls", "total_ns", "names" (distinct names listed). */
static bool k_number(const void *run, const char *path, double *out) {
    const kernels_state *s = run;
    if (!s->t.result) return false;
    if (!strcmp(path, "total_calls")) *out = (double)name_agg_calls(s->t.result);
    else if (!strcmp(path, "total_ns")) *out = (double)name_agg_total(s->t.result);
    else if (!strcmp(path, "names")) *out = (double)s->t.result->n;
    else return false;
    return true;
}

/* The store's rows: by_name whole (no list_rows cut), the same values k_render writes. */
static bool k_kernel_rows(const void *run, section_kernel_row_fn fn, void *user) {
    const kernels_state *s = run;
    const name_agg *a = s->t.result;
    if (!a || a != &s->t.traced || !a->n) return true;      /* stats rows: no min/max to store */
    size_t *idx = name_agg_sorted(a);
    if (!idx) return false;
    bool ok = true;
    for (size_t i = 0; ok && i < a->n; i++) {
        const name_entry *e = &a->e[idx[i]];
        section_kernel_row row = {.name = e->name, .len = e->len, .calls = e->calls, .total_ns = e->total,
                                  .min_ns = e->min, .max_ns = e->max, .minmax_known = !e->minmax_unknown,
                                  .kernel_class = kernel_class_key(kernel_class_of(e->name, e->len))};
        ok = fn(user, &row);
    }
    free(idx);
    return ok;
}

/* A split read folds exactly unless a piece met a bound of its name table (na_pair_split_exact):
 * the driver then reads the file again in one piece. */
static bool split_exact(const void *first, const void *second) {
    return na_pair_split_exact(&((const kernels_state *)first)->t, &((const kernels_state *)second)->t);
}

const section_analysis kernels_section = {
    .key = "kernels",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_KERNEL_STATS),
    .fields = RF_DURATION | RF_START | RF_END | RF_CALLS,
    .splittable = true,
    .split_exact = split_exact,
    .open = k_open,
    .open_source = k_open_source,
    .consume = k_consume,
    .end_source = k_end_source,
    .finish = k_finish,
    .render = k_render,
    .render_md = k_render_md,
    .number = k_number,
    .kernel_rows = k_kernel_rows,
    .close = k_close,
};
