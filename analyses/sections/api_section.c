/* api_section: the `api` section: per host API function (HIP, HSA, CUDA runtime/driver), the
 * columns of rocprofv3 --stats / rocpd summary (calls, total, average, min, max, sample
 * stddev, percent), sorted by total time.
 *
 * Inputs: REC_API_CALL (duration_ns, else end - start), keyed by (domain, name). Stats rows
 * (REC_KERNEL_STATS with category "api") fill the table only when the run has no API call
 * record at all (*_hip_api_stats.csv alone). Exact i128 sums: splittable. docs/ANALYSIS.md. */
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section.h"
#include "analyses/section_md.h"

typedef struct api_state {
    na_pair t;                  /* traced: the API calls; stats: the stats rows */
    diag_list *diag;            /* run state only */
    const analysis_config *cfg; /* the run's settings (list_rows read at render); NULL: a source state */
} api_state;

static void *a_open(const analysis_config *cfg, diag_list *diag) {
    api_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    na_pair_init(&s->t, false);
    s->diag = diag;
    s->cfg = cfg;
    return s;
}

static void *a_open_source(void *run, const source_ref *src) {
    (void)src;
    return a_open(NULL, ((api_state *)run)->diag);
}

static bool is_api_stats(const record *r) {
    return r->category && r->category_len == 3 && !memcmp(r->category, "api", 3);
}

static const char *domain_key(int d) {
    switch (d) {
    case API_HIP: return "hip";
    case API_HSA: return "hsa";
    case API_CUDA_RUNTIME: return "cuda_runtime";
    case API_CUDA_DRIVER: return "cuda_driver";
    case API_OTHER: return "other";
    default: return "unknown";
    }
}

/* A stats row names no domain: hip* is HIP, hsa_* HSA, cuda* the CUDA runtime, cu* the
 * driver API; anything else unknown. */
static api_domain domain_of_name(const char *n, size_t len) {
    if (len >= 3 && !memcmp(n, "hip", 3)) return API_HIP;
    if (len >= 4 && !memcmp(n, "hsa_", 4)) return API_HSA;
    if (len >= 4 && !memcmp(n, "cuda", 4)) return API_CUDA_RUNTIME;
    if (len >= 3 && n[0] == 'c' && n[1] == 'u' && n[2] >= 'A' && n[2] <= 'Z') return API_CUDA_DRIVER;
    return API_UNKNOWN;
}

static bool a_consume(void *st, const record *r) {
    api_state *s = st;
    if (!r->name) return true;
    if (r->type == REC_API_CALL) {
        i128 d;
        if (!record_duration(r, &d)) { s->t.no_time++; return true; }
        return name_agg_add(&s->t.traced, (int)r->domain, r->name, r->name_len, d);
    }
    na_stats_row row;
    if (r->type == REC_KERNEL_STATS && is_api_stats(r) && na_stats_row_of(r, &row))
        return name_agg_add_stats(&s->t.stats, (int)domain_of_name(r->name, r->name_len), r->name, r->name_len, &row);
    return true;
}

static void a_close(void *st) {
    api_state *s = st;
    if (!s) return;
    na_pair_free(&s->t);
    free(s);
}

static bool a_end_source(void *run, void *src) {
    api_state *r = run, *s = src;
    bool ok = na_pair_fold(&r->t, &s->t);
    a_close(s);
    return ok;
}

static bool a_finish(void *run, const section_results *earlier) {
    (void)earlier;
    api_state *s = run;
    na_pair_finish(&s->t, s->diag, "api", "calls", "API table", "API functions", "calls of further functions");
    return true;
}

static void a_render(const void *run, jw_out *w) {
    const api_state *s = run;
    const name_agg *a = s->t.result;
    if (!a) { jw_null(w); return; }
    i128 total = name_agg_total(a);
    jw_object_open(w);
    jw_key(w, "from");
    jw_string(w, a == &s->t.traced ? "calls" : "stats");
    jw_key(w, "total_calls");
    jw_u64(w, name_agg_calls(a));
    jw_key(w, "total_ns");
    jw_i128_value(w, total);
    jw_key(w, "by_function");
    jw_array_open(w);
    size_t *idx = name_agg_sorted(a);
    if (!idx && a->n) jw_fail(w);                /* (the list would be missing) */
    uint64_t rest_calls;
    i128 rest_total;
    size_t listed = name_agg_listed(a, idx, s->cfg ? s->cfg->list_rows : 0, &rest_calls, &rest_total);
    for (size_t i = 0; i < listed; i++) {
        const name_entry *e = &a->e[idx[i]];
        jw_object_open(w);
        jw_key(w, "domain");
        jw_string(w, domain_key(e->tag));
        jw_key(w, "name");
        jw_string_n(w, e->name, e->len);
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
        jw_key(w, "pct");
        if (total > 0) jw_number(w, 100.0 * (double)e->total / (double)total); else jw_null(w);
        jw_object_close(w);
    }
    free(idx);
    jw_array_close(w);
    name_agg_render_unlisted(a, listed, rest_calls, rest_total, w);
    jw_object_close(w);
}

#define MD_ROWS 15

/* The report's API table: the MD_ROWS functions with the most time. */
static void a_render_md(const void *run, strbuf *out) {
    const api_state *s = run;
    const name_agg *a = s->t.result;
    if (!a) return;
    i128 total = name_agg_total(a);
    smd_printf(out, "## API calls\n\n%llu calls, %.3f ms.\n\n| domain | function | calls | total (ms) | avg (us) | %% |\n"
                    "|---|---|---:|---:|---:|---:|\n", (unsigned long long)name_agg_calls(a), (double)total / 1e6);
    size_t *idx = name_agg_sorted(a);
    if (!idx && a->n) out->failed = true;        /* (the table would be missing) */
    size_t rows = section_listed(s->cfg, a->n < MD_ROWS ? a->n : MD_ROWS);
    for (size_t i = 0; idx && i < rows; i++) {
        const name_entry *e = &a->e[idx[i]];
        smd_printf(out, "| %s | ", domain_key(e->tag));
        smd_cell(out, e->name, e->len, 80);
        smd_printf(out, " | %llu |", (unsigned long long)e->calls);
        smd_num(out, (double)e->total / 1e6, 3, true);
        smd_num(out, e->calls ? (double)e->total / (double)e->calls / 1e3 : 0, 3, e->calls > 0);
        smd_num(out, total > 0 ? 100.0 * (double)e->total / (double)total : 0, 1, total > 0);
        strbuf_putc(out, '\n');
    }
    if (idx && a->n > rows) smd_printf(out, "\n%zu more functions (the analysis document lists %zu).\n", a->n - rows,
                                       section_listed(s->cfg, a->n));
    free(idx);
    strbuf_putc(out, '\n');
}

/* Headline numbers: "total_calls", "total_ns", "functions" (distinct functions listed). */
static bool a_number(const void *run, const char *path, double *out) {
    const api_state *s = run;
    if (!s->t.result) return false;
    if (!strcmp(path, "total_calls")) *out = (double)name_agg_calls(s->t.result);
    else if (!strcmp(path, "total_ns")) *out = (double)name_agg_total(s->t.result);
    else if (!strcmp(path, "functions")) *out = (double)s->t.result->n;
    else return false;
    return true;
}

/* A split read folds exactly unless a piece met a bound of its name table (na_pair_split_exact):
 * the driver then reads the file again in one piece. */
static bool split_exact(const void *first, const void *second) {
    return na_pair_split_exact(&((const api_state *)first)->t, &((const api_state *)second)->t);
}

const section_analysis api_section = {
    .key = "api",
    .wants = REC_BIT(REC_API_CALL) | REC_BIT(REC_KERNEL_STATS),
    .fields = RF_DURATION | RF_START | RF_END | RF_CALLS,
    .splittable = true,
    .split_exact = split_exact,
    .open = a_open,
    .open_source = a_open_source,
    .consume = a_consume,
    .end_source = a_end_source,
    .finish = a_finish,
    .render = a_render,
    .render_md = a_render_md,
    .number = a_number,
    .close = a_close,
};
