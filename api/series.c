/* series: verdicts of a series of runs against their previous run and their baseline (series.h). */
#include "api/series.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct load_ctx {
    series_eval *s;
    bool oom;
} load_ctx;

/* The numbers of a JSON array of numbers ("[1,2.5,...]", as storage wrote it) into a new array;
 * *oom set when memory ran out. */
static double *parse_walls(const char *text, size_t *n, bool *oom) {
    *n = 0;
    if (!text || *text != '[') return NULL;
    size_t cap = 1;
    for (const char *p = text; *p; p++) cap += *p == ',';
    double *v = malloc(cap * sizeof *v);
    if (!v) {                              /* not "no per-step times": the run would look unjudgeable */
        *oom = true;
        return NULL;
    }
    const char *p = text + 1;
    while (*p && *p != ']') {
        char *end;
        double x = strtod(p, &end);
        if (end == p) break;
        if (isfinite(x) && *n < cap) v[(*n)++] = x;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    return v;
}

static void load_row(void *user, const series_run_row *row) {
    load_ctx *c = user;
    series_eval *s = c->s;
    if (c->oom) return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        series_point *p = realloc(s->p, cap * sizeof *p);
        if (!p) { c->oom = true; return; }
        s->p = p, s->cap = cap;
    }
    series_point *pt = &s->p[s->n];
    memset(pt, 0, sizeof *pt);
    pt->id = strdup(row->id);
    if (!pt->id) { c->oom = true; return; }
    pt->status = row->status;
    pt->created_at_ms = row->created_at_ms;
    pt->step_seconds = row->step_seconds;
    pt->tokens_per_sec = row->tokens_per_sec;
    pt->busy_pct = row->busy_pct;
    pt->walls = parse_walls(row->walls_json, &pt->nwalls, &c->oom);
    /* the cache's identity of the run's data: exactly the times the tests read */
    pt->has_digest = s->cache && pt->nwalls && series_cache_walls_digest(pt->walls, pt->nwalls, pt->digest);
    pt->prev = -1;
    s->n++;
}

int series_load(store_reader *rd, const char *key, int shown, int baseline_runs, series_cache *cache, series_eval *s) {
    memset(s, 0, sizeof *s);
    assert(baseline_runs >= 1 && baseline_runs <= SERIES_BASELINE_MAX);
    snprintf(s->key, sizeof s->key, "%s", key);
    s->baseline_runs = baseline_runs;
    s->cache = cache;
    load_ctx c = {s, false};
    int n = store_series_runs(rd, key, shown + SERIES_LOOKBACK(baseline_runs), load_row, &c, s->key_source,
                              sizeof s->key_source);
    if (c.oom) return -1;
    return n;
}

void series_eval_free(series_eval *s) {
    for (size_t i = 0; i < s->n; i++) free(s->p[i].id), free(s->p[i].walls);
    free(s->p);
    memset(s, 0, sizeof *s);
}

/* A run another one may be compared with: one with per-step times that is complete, or pending
 * or running again — a run is in a series only once a parse stored its row, so a pending or
 * running one is being parsed again (its files changed, a migration voided every signature) and
 * its last parse's times still stand. Skipping it would judge the runs after it against whatever
 * else happens to be complete during a re-ingest of many runs: verdicts, gauges and regression
 * events that depend on the ingest order. */
static bool comparable(const series_point *p) {
    return p->nwalls > 0 && (p->status == RUN_COMPLETE || p->status == RUN_PENDING || p->status == RUN_RUNNING);
}

/* A run that gets verdicts: complete (with "unknown" ones when it has no per-step times), or
 * being parsed again with its last parse's times (its verdicts stand until the new parse). */
static bool judged(const series_point *p) { return p->status == RUN_COMPLETE || comparable(p); }

static bool test(const double *a, size_t na, const series_point *cand, series_verdict *v) {
    v->present = true;
    return ns_median_diff(a, na, cand->walls, cand->nwalls, &v->test, &v->base_median_ns, &v->cand_median_ns,
                          v->has_median);
}

/* Looks up the verdict of point p against the reference runs idx[0..n) (pooled in that order)
 * in s's cache: true with *v on a hit. On a miss (or without a cache) *key_ok tells whether
 * *key can store the verdict once computed. */
static bool cached(const series_eval *s, const series_point *p, const long *idx, size_t n, series_cache_key *key,
                   bool *key_ok, series_verdict *v) {
    *key_ok = false;
    if (!s->cache || !p->has_digest) return false;
    const uint8_t *refs[SERIES_BASELINE_MAX];
    assert(n <= SERIES_BASELINE_MAX);
    for (size_t i = 0; i < n; i++) {
        if (!s->p[idx[i]].has_digest) return false;
        refs[i] = s->p[idx[i]].digest;
    }
    if (!(*key_ok = series_cache_key_of(p->digest, refs, n, key))) return false;
    return series_cache_get(s->cache, key, v);
}

bool series_evaluate(series_eval *s, size_t i) {
    assert(i < s->n);
    series_point *p = &s->p[i];
    p->prev = -1, p->nbase = 0;
    memset(&p->vs_prev, 0, sizeof p->vs_prev);
    memset(&p->vs_base, 0, sizeof p->vs_base);
    if (!judged(p)) return true;
    size_t pooled = 0;
    for (size_t j = i; j-- > 0 && p->nbase < (size_t)s->baseline_runs;)
        if (comparable(&s->p[j])) {
            if (p->prev < 0) p->prev = (long)j;
            p->base_idx[p->nbase++] = (long)j;
            pooled += s->p[j].nwalls;
        }
    if (p->prev < 0) return true;
    series_cache_key key;
    bool key_ok;
    if (!cached(s, p, &p->prev, 1, &key, &key_ok, &p->vs_prev)) {
        const series_point *prev = &s->p[p->prev];
        if (!test(prev->walls, prev->nwalls, p, &p->vs_prev)) return false;
        if (key_ok) series_cache_put(s->cache, &key, &p->vs_prev);
    }
    if (cached(s, p, p->base_idx, p->nbase, &key, &key_ok, &p->vs_base)) return true;
    double *pool = malloc((pooled ? pooled : 1) * sizeof *pool);
    if (!pool) return false;
    size_t k = 0;
    for (size_t b = 0; b < p->nbase; b++) {
        const series_point *q = &s->p[p->base_idx[b]];
        memcpy(pool + k, q->walls, q->nwalls * sizeof *pool);
        k += q->nwalls;
    }
    bool ok = test(pool, pooled, p, &p->vs_base);
    free(pool);
    if (ok && key_ok) series_cache_put(s->cache, &key, &p->vs_base);
    return ok;
}

/* Whether point i is a regression: complete (or being parsed again, judged on its last parse's
 * per-step times), and slower than its baseline beyond the noise. */
static bool series_is_regression(const series_eval *s, size_t i) {
    const series_point *p = &s->p[i];
    return judged(p) && p->vs_base.present && p->vs_base.test.verdict == NS_SLOWER;
}

/* The index of the newest complete run with per-step times (or one being parsed again that
 * has them from its last parse), -1 when none. */
static long series_latest_complete(const series_eval *s) {
    for (size_t i = s->n; i-- > 0;)
        if (comparable(&s->p[i])) return (long)i;
    return -1;
}

static json_t *opt_json(bool has, double v) { return has && isfinite(v) ? json_real(v) : json_null(); }

static json_t *ci_json(const ns_result *t) {
    return t->has_ci ? json_pack("[f, f]", t->ci_low_pct, t->ci_high_pct) : json_null();
}

/* {"verdict", "delta_pct", "ci95_pct", "base_median_ms", "candidate_median_ms"} of v. */
static json_t *verdict_json(const series_verdict *v) {
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "verdict", ns_verdict_name(v->test.verdict), "delta_pct",
                     opt_json(v->test.has_ci, v->test.delta_pct), "ci95_pct", ci_json(&v->test), "base_median_ms",
                     opt_json(v->has_median[0], v->base_median_ns / 1e6), "candidate_median_ms",
                     opt_json(v->has_median[1], v->cand_median_ns / 1e6));
}

static json_t *point_json(const series_eval *s, const series_point *p) {
    /* steps: the per-step times the verdicts use; none stored (a failed or empty run, a run
     * without step markers) is unknown, null, never 0 */
    json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o}", "id", p->id, "status", store_run_status_name(p->status),
                          "started_ns", (json_int_t)p->created_at_ms * 1000000, "step_time_ms",
                          opt_json(p->step_seconds.has, p->step_seconds.v * 1e3), "tokens_per_s",
                          opt_json(p->tokens_per_sec.has, p->tokens_per_sec.v), "busy_pct",
                          opt_json(p->busy_pct.has, p->busy_pct.v), "steps",
                          p->nwalls ? json_integer((json_int_t)p->nwalls) : json_null());
    if (!o) return NULL;
    /* every part checked: a verdict lost for lack of memory must not read as null ("none");
     * json_object_set_new takes its value's reference even when it fails (hence | below, not
     * ||: each call runs) */
    json_t *prev = p->vs_prev.present ? verdict_json(&p->vs_prev) : json_null();
    if (p->vs_prev.present && prev && json_object_set_new(prev, "run", json_string(s->p[p->prev].id))) {
        json_decref(prev);
        prev = NULL;
    }
    json_t *base = p->vs_base.present ? verdict_json(&p->vs_base) : json_null();
    if (p->vs_base.present && base) {
        json_t *ids = json_array();
        bool ok = ids != NULL;
        for (size_t b = p->nbase; ok && b-- > 0;) ok = !json_array_append_new(ids, json_string(s->p[p->base_idx[b]].id));
        if (!ok) json_decref(ids);
        if (!ok || json_object_set_new(base, "runs", ids)) {
            json_decref(base);
            base = NULL;
        }
    }
    size_t i = (size_t)(p - s->p);
    if (json_object_set_new(o, "vs_previous", prev) | json_object_set_new(o, "vs_baseline", base) |
        json_object_set_new(o, "regression", json_boolean(series_is_regression(s, i)))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *series_body(series_eval *s, int shown) {
    json_t *runs = json_array();
    if (!runs) return NULL;
    size_t first = s->n > (size_t)shown ? s->n - (size_t)shown : 0;
    for (size_t i = first; i < s->n; i++) {
        if (!series_evaluate(s, i) || json_array_append_new(runs, point_json(s, &s->p[i]))) {
            json_decref(runs);                  /* a run left out would look like none */
            return NULL;
        }
    }
    return json_pack("{s:s, s:s, s:i, s:o}", "key", s->key, "key_source", s->key_source, "baseline_runs",
                     s->baseline_runs, "runs", runs);
}

typedef struct list_ctx {
    json_t *items;
    store_reader *rd;
    int baseline_runs;
    series_cache *cache;
    bool failed;
} list_ctx;

/* The series' latest complete run with per-step times, evaluated: its index in *s, or -1. */
static long latest_of(store_reader *rd, const char *key, int baseline_runs, series_cache *cache, series_eval *s,
                      bool *failed) {
    if (series_load(rd, key, 1, baseline_runs, cache, s) < 0) { *failed = true; return -1; }
    long i = series_latest_complete(s);
    if (i >= 0 && !series_evaluate(s, (size_t)i)) *failed = true;
    return i;
}

static void list_row(void *user, const series_row *row) {
    list_ctx *c = user;
    series_eval s;
    long i = latest_of(c->rd, row->key, c->baseline_runs, c->cache, &s, &c->failed);
    bool known = i >= 0 && s.p[i].vs_base.present;
    /* judged_run: the run latest_verdict is of, which is not latest_run when newer runs failed,
     * are empty or have no per-step times */
    json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:o, s:o, s:b}", "key", row->key, "key_source", row->key_source, "runs",
                          (json_int_t)row->runs, "latest_run", row->latest_run, "judged_run",
                          i >= 0 ? json_string(s.p[i].id) : json_null(), "latest_verdict",
                          known ? json_string(ns_verdict_name(s.p[i].vs_base.test.verdict)) : json_null(), "regression",
                          i >= 0 && series_is_regression(&s, (size_t)i));
    if (!o || json_array_append_new(c->items, o)) c->failed = true;
    series_eval_free(&s);
}

json_t *series_list_body(store_reader *rd, int limit, int baseline_runs, series_cache *cache) {
    list_ctx c = {json_array(), rd, baseline_runs, cache, false};
    if (!c.items) return NULL;
    int total = store_series_list(rd, limit, list_row, &c);
    if (total < 0 || c.failed) { json_decref(c.items); return NULL; }
    return json_pack("{s:o, s:i}", "series", c.items, "total", total);
}

json_t *series_regression_of(store_reader *rd, const char *run_id, int baseline_runs, series_cache *cache) {
    char key[SERIES_KEY_MAX + 1];
    if (!store_run_series_key(rd, run_id, key, sizeof key)) return NULL;
    series_eval s;
    json_t *out = NULL;
    int n = series_load(rd, key, 1, baseline_runs, cache, &s);
    if (n < 0) store_reader_fail(rd);                 /* not judged: the caller must not take it for "none" */
    for (size_t i = n > 0 ? s.n : 0; i-- > 0;) {
        if (strcmp(s.p[i].id, run_id)) continue;
        if (!series_evaluate(&s, i)) {
            store_reader_fail(rd);
        } else if (series_is_regression(&s, i)) {
            const series_verdict *v = &s.p[i].vs_base;
            out = json_pack("{s:s, s:s, s:f, s:f, s:f, s:o}", "series", key, "run", run_id, "baseline_median_ms",
                            v->base_median_ns / 1e6, "candidate_median_ms", v->cand_median_ns / 1e6, "delta_pct",
                            v->test.delta_pct, "ci95_pct", ci_json(&v->test));
            if (!out) store_reader_fail(rd);
        }
        break;
    }
    series_eval_free(&s);
    return out;
}

/* A Prometheus label value: backslash, double quote and newline escaped. */
static void label_value(strbuf *out, const char *v) {
    for (; *v; v++) {
        if (*v == '\\' || *v == '"') strbuf_putc(out, '\\'), strbuf_putc(out, *v);
        else if (*v == '\n') strbuf_append(out, "\\n", 2);
        else strbuf_putc(out, *v);
    }
}

typedef struct metric_ctx {
    store_reader *rd;
    int baseline_runs;
    series_cache *cache;
    strbuf regression, delta;
    bool failed;                /* a series could not be read or judged */
} metric_ctx;

static void metric_row(void *user, const series_row *row) {
    metric_ctx *c = user;
    series_eval s;
    bool failed = false;
    long i = latest_of(c->rd, row->key, c->baseline_runs, c->cache, &s, &failed);
    c->failed |= failed;
    if (i >= 0 && s.p[i].vs_base.present && s.p[i].vs_base.test.verdict != NS_UNKNOWN) {
        char num[64];
        static const char REG[] = "goblind_series_regression{series=\"", DELTA[] = "goblind_series_step_time_delta_ratio{series=\"";
        strbuf_append(&c->regression, REG, sizeof REG - 1);
        label_value(&c->regression, row->key);
        snprintf(num, sizeof num, "\"} %d\n", series_is_regression(&s, (size_t)i) ? 1 : 0);
        strbuf_append(&c->regression, num, strlen(num));
        strbuf_append(&c->delta, DELTA, sizeof DELTA - 1);
        label_value(&c->delta, row->key);
        snprintf(num, sizeof num, "\"} %.17g\n", s.p[i].vs_base.test.delta_pct / 100.0);
        strbuf_append(&c->delta, num, strlen(num));
    }
    series_eval_free(&s);
}

static void family(strbuf *out, const char *name, const char *help) {
    char b[512];
    int n = snprintf(b, sizeof b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
    if (n > 0) strbuf_append(out, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

bool series_metrics(store_reader *rd, int max_series, int baseline_runs, series_cache *cache, strbuf *out) {
    metric_ctx c = {rd, baseline_runs, cache, {0}, {0}, false};
    int total = store_series_list(rd, max_series, metric_row, &c);
    family(out, "goblind_series_regression",
           "1 when the latest judged run of the series is slower than its baseline beyond the noise, 0 when it is not; absent while the series has no verdict.");
    strbuf_append(out, c.regression.data ? c.regression.data : "", c.regression.len);
    family(out, "goblind_series_step_time_delta_ratio",
           "Step-time median of the series' latest complete run against its baseline, (candidate - baseline) / baseline.");
    strbuf_append(out, c.delta.data ? c.delta.data : "", c.delta.len);
    family(out, "goblind_series_dropped", "Series beyond metrics_max_runs, left out of the per-series gauges.");
    char num[64];
    int n = snprintf(num, sizeof num, "goblind_series_dropped %d\n", total > max_series ? total - max_series : 0);
    strbuf_append(out, num, (size_t)n);
    bool ok = total >= 0 && !c.failed && !c.regression.failed && !c.delta.failed;
    strbuf_free(&c.regression);
    strbuf_free(&c.delta);
    return ok;
}
