/* compare_diff: the document-based part of /compare (see the header). Both documents are parsed
 * once with jansson; every list is merged by name after a sort, so the work is O(n log n) in the
 * listed rows, and nothing is kept beyond the two parsed documents and the merged rows. */
#include "api/compare_diff.h"

#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compare.h"
#include "base/json_load.h"
#include "base/noise_stats.h"
#include "base/text_utf8.h"

/* One name's numbers on one side of the comparison. */
typedef struct name_side {
    const char *name;            /* borrowed from the parsed document (may hold a NUL: "\u0000") */
    size_t name_len;
    const char *cls;             /* kernel class, or NULL */
    uint64_t calls;
    double total_ns, avg_ns, stddev_ns;
    double test_mean;            /* the mean the Welch test compares: avg_ns, or an operator's call_mean_ns */
    bool has_stddev;
} name_side;

/* One name of a diff: either side may be missing (added, removed, or beyond a side's listed rows). */
typedef struct name_row {
    const name_side *a, *b;
    double delta_total_ns;       /* NaN when a side's total is unknown (beyond its listed rows) */
    double per_step_ns;          /* candidate per step - base per step; NaN when a step count is unknown */
    double magnitude;            /* what the rows are sorted by: |delta_total_ns|, else the known side's total */
    ns_result test;
} name_row;

/* A list of names of both sides merged: kernels (by_name) or CPU operators (by_op). */
typedef struct name_diff {
    name_side *side[2];
    size_t n[2];
    bool cut[2];                 /* the side's document lists only some names */
    name_row *rows;
    size_t nrows;
    size_t tested;               /* rows with a Welch interval; the Bonferroni divisor */
    size_t added, removed, unlisted;
    bool present;                /* both sides have the section (else the diff is unknown: null) */
} name_diff;

/* A step-breakdown part (or the step itself): per-step values of both sides and their test. */
typedef struct step_series {
    char key[48];
    double *v[2];
    size_t n[2];
    double median[2];
    bool has_median[2];
    ns_result test;
} step_series;

struct compare_diff {
    json_t *doc[2];
    size_t rows;
    double steps[2];             /* step counts (NaN: unknown), for per-step deltas */
    step_series step;            /* wall times */
    step_series *parts;
    size_t nparts;
    name_diff kernels, ops, classes;
};

static double num_or_nan(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Bytewise order of two names by their whole length (a NUL inside one is a byte like any other). */
static int name_cmp(const name_side *a, const name_side *b) {
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

static int cmp_side_name(const void *x, const void *y) {
    const name_side *a = x, *b = y;
    return name_cmp(a, b);
}

/* The rows of doc[section][list] as name_sides (name key `name_key`, total key `total_key`). */
static bool read_names(json_t *doc, const char *section, const char *list, const char *name_key,
                       const char *total_key, name_side **out, size_t *n, bool *cut, bool *present) {
    *out = NULL, *n = 0, *cut = false;
    json_t *sec = json_object_get(doc, section);
    if (!json_is_object(sec)) return true;
    json_t *arr = json_object_get(sec, list);
    if (!json_is_array(arr)) return true;
    *present = true;
    json_t *unlisted = json_object_get(sec, "unlisted");
    *cut = unlisted && !json_is_null(unlisted);
    size_t cap = json_array_size(arr);
    *out = calloc(cap ? cap : 1, sizeof **out);
    if (!*out) return false;
    for (size_t i = 0; i < cap; i++) {
        json_t *e = json_array_get(arr, i);
        json_t *nm = json_object_get(e, name_key);
        const char *name = json_string_value(nm);
        double calls = num_or_nan(e, "calls"), total = num_or_nan(e, total_key);
        if (!name || !(calls >= 0) || !isfinite(total)) continue;
        name_side *s = &(*out)[(*n)++];
        s->name = name;
        s->name_len = json_string_length(nm);
        s->cls = json_string_value(json_object_get(e, "class"));
        s->calls = (uint64_t)calls;
        s->total_ns = total;
        s->avg_ns = calls > 0 ? total / calls : NAN;
        /* an operator's calls: the mean and spread of each call's kernel time (ops section) */
        double call_mean = num_or_nan(e, "call_mean_ns"), call_sd = num_or_nan(e, "call_stddev_ns");
        bool per_call = isfinite(call_mean) && isfinite(call_sd);
        s->test_mean = per_call ? call_mean : s->avg_ns;
        s->stddev_ns = per_call ? call_sd : num_or_nan(e, "stddev_ns");
        s->has_stddev = isfinite(s->stddev_ns);
    }
    qsort(*out, *n, sizeof **out, cmp_side_name);
    return true;
}

static int cmp_row_delta(const void *x, const void *y) {
    double a = ((const name_row *)x)->magnitude, b = ((const name_row *)y)->magnitude;
    return (a < b) - (a > b);
}

/* Merges the two sides' sorted names into rows, tests them and sorts by |delta_total_ns|. */
static bool merge_names(name_diff *nd, const double steps[2]) {
    nd->rows = calloc(nd->n[0] + nd->n[1] + 1, sizeof *nd->rows);
    if (!nd->rows) return false;
    size_t i = 0, k = 0;
    while (i < nd->n[0] || k < nd->n[1]) {
        name_row *r = &nd->rows[nd->nrows++];
        int c = i >= nd->n[0] ? 1 : k >= nd->n[1] ? -1 : name_cmp(&nd->side[0][i], &nd->side[1][k]);
        if (c <= 0) r->a = &nd->side[0][i++];
        if (c >= 0) r->b = &nd->side[1][k++];
        double ta = r->a ? r->a->total_ns : 0, tb = r->b ? r->b->total_ns : 0;
        /* a name missing from a side whose list was cut may be there, beyond it: unknown, not 0 */
        bool unknown = (!r->a && nd->cut[0]) || (!r->b && nd->cut[1]);
        r->delta_total_ns = unknown ? NAN : tb - ta;
        r->per_step_ns = !unknown && steps[0] > 0 && steps[1] > 0 ? tb / steps[1] - ta / steps[0] : NAN;
        r->magnitude = unknown ? (ta > tb ? ta : tb) : fabs(tb - ta);
        if (!r->a) { if (nd->cut[0]) nd->unlisted++; else nd->added++; }
        if (!r->b) { if (nd->cut[1]) nd->unlisted++; else nd->removed++; }
        if (r->a && r->b && r->a->has_stddev && r->b->has_stddev &&
            r->a->calls >= NS_MIN_CALLS && r->b->calls >= NS_MIN_CALLS)
            nd->tested++;
    }
    double alpha = 0.05 / (double)(nd->tested ? nd->tested : 1);
    for (size_t r = 0; r < nd->nrows; r++) {
        name_row *row = &nd->rows[r];
        if (row->a && row->b && row->a->has_stddev && row->b->has_stddev)
            ns_welch(row->a->calls, row->a->test_mean, row->a->stddev_ns, row->b->calls, row->b->test_mean,
                     row->b->stddev_ns, alpha, &row->test);
        else
            row->test.verdict = NS_UNKNOWN;
    }
    qsort(nd->rows, nd->nrows, sizeof *nd->rows, cmp_row_delta);
    return true;
}

static bool read_diff(compare_diff *d, name_diff *nd, const char *section, const char *list,
                      const char *name_key, const char *total_key) {
    bool has[2] = {false, false};
    for (int s = 0; s < 2; s++)
        if (!read_names(d->doc[s], section, list, name_key, total_key, &nd->side[s], &nd->n[s], &nd->cut[s], &has[s]))
            return false;
    /* a side without the section does not know its names: nothing is added or removed then */
    nd->present = has[0] && has[1];
    return merge_names(nd, d->steps);
}

/* Appends each step item's number at parts[key] (or wall_ns when key is NULL) of side s. */
static bool read_series(json_t *doc, const char *key, step_series *ss, int s) {
    json_t *items = json_object_get(json_object_get(doc, "steps"), "items");
    size_t n = json_array_size(items);
    ss->v[s] = malloc((n ? n : 1) * sizeof(double));
    if (!ss->v[s]) return false;
    for (size_t i = 0; i < n; i++) {
        json_t *it = json_array_get(items, i);
        double v = key ? num_or_nan(json_object_get(it, "parts"), key) : num_or_nan(it, "wall_ns");
        if (isfinite(v)) ss->v[s][ss->n[s]++] = v;
    }
    return true;
}

static bool test_series(json_t *const doc[2], const char *key, step_series *ss) {
    snprintf(ss->key, sizeof ss->key, "%s", key ? key : "wall_ns");
    for (int s = 0; s < 2; s++)
        if (!read_series(doc[s], key, ss, s)) return false;
    return ns_median_diff(ss->v[0], ss->n[0], ss->v[1], ss->n[1], &ss->test, &ss->median[0], &ss->median[1],
                          ss->has_median);
}

/* The parts every step item of the base (or else the candidate) names, each tested. */
static bool read_parts(compare_diff *d) {
    json_t *parts = NULL;
    for (int s = 0; s < 2 && !json_is_object(parts); s++)
        parts = json_object_get(json_array_get(json_object_get(json_object_get(d->doc[s], "steps"), "items"), 0), "parts");
    if (!json_is_object(parts)) return true;
    d->parts = calloc(json_object_size(parts) + 1, sizeof *d->parts);
    if (!d->parts) return false;
    const char *key;
    json_t *v;
    json_object_foreach(parts, key, v) {
        if (strlen(key) >= sizeof d->parts[0].key) continue;
        if (!test_series(d->doc, key, &d->parts[d->nparts++])) return false;
    }
    return true;
}

/* The side's step count: the steps section's count, else its items. */
static double step_count(json_t *doc) {
    json_t *steps = json_object_get(doc, "steps");
    double c = num_or_nan(steps, "count");
    if (isfinite(c) && c > 0) return c;
    size_t n = json_array_size(json_object_get(steps, "items"));
    return n ? (double)n : NAN;
}

compare_diff *compare_diff_new(const char *base_doc, size_t base_len, const char *cand_doc,
                               size_t cand_len, size_t rows) {
    compare_diff *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    const char *text[2] = {base_doc, cand_doc};
    size_t len[2] = {base_len, cand_len};
    for (int s = 0; s < 2; s++) {
        bool oom = false;
        d->doc[s] = text[s] ? json_load_checked(text[s], len[s], JSON_ALLOW_NUL, NULL, &oom) : NULL;
        if (!d->doc[s] && !oom) d->doc[s] = json_object();     /* none, or not JSON: unknown, empty */
        if (!d->doc[s]) { compare_diff_free(d); return NULL; }
        d->steps[s] = step_count(d->doc[s]);
    }
    d->rows = rows > COMPARE_DIFF_ROWS_MAX ? COMPARE_DIFF_ROWS_MAX : rows;
    if (!test_series(d->doc, NULL, &d->step) || !read_parts(d) ||
        !read_diff(d, &d->kernels, "kernels", "by_name", "name", "total_ns") ||
        !read_diff(d, &d->ops, "ops", "by_op", "name", "kernel_time_ns") ||
        !read_diff(d, &d->classes, "classes", "by_class", "class", "total_ns")) {
        compare_diff_free(d);
        return NULL;
    }
    return d;
}

static void free_series(step_series *ss) {
    free(ss->v[0]);
    free(ss->v[1]);
}

static void free_names(name_diff *nd) {
    free(nd->side[0]);
    free(nd->side[1]);
    free(nd->rows);
}

void compare_diff_free(compare_diff *d) {
    if (!d) return;
    free_series(&d->step);
    for (size_t i = 0; i < d->nparts; i++) free_series(&d->parts[i]);
    free(d->parts);
    free_names(&d->kernels);
    free_names(&d->ops);
    free_names(&d->classes);
    for (int s = 0; s < 2; s++) json_decref(d->doc[s]);
    free(d);
}

static void opt(jw_out *j, const char *key, bool known, double v) {
    jw_key(j, key);
    if (known && isfinite(v)) jw_number(j, v);
    else jw_null(j);
}

/* `ci95_pct`: [low, high] or null. */
static void ci(jw_out *j, const ns_result *t) {
    jw_key(j, "ci95_pct");
    if (!t->has_ci) { jw_null(j); return; }
    jw_array_open(j);
    jw_number(j, t->ci_low_pct);
    jw_number(j, t->ci_high_pct);
    jw_array_close(j);
}

static void series(jw_out *j, const char *key, const step_series *ss) {
    jw_key(j, key);
    jw_object_open(j);
    opt(j, "base_median_ns", ss->has_median[0], ss->median[0]);
    opt(j, "candidate_median_ns", ss->has_median[1], ss->median[1]);
    jw_key(j, "base_steps");
    jw_int(j, (int64_t)ss->n[0]);
    jw_key(j, "candidate_steps");
    jw_int(j, (int64_t)ss->n[1]);
    bool both = ss->has_median[0] && ss->has_median[1];
    opt(j, "delta_ns", both, ss->median[1] - ss->median[0]);
    opt(j, "delta_pct", both && ss->median[0] != 0, (ss->median[1] - ss->median[0]) / ss->median[0] * 100.0);
    ci(j, &ss->test);
    jw_key(j, "verdict");
    jw_string(j, ns_verdict_name(ss->test.verdict));
    jw_object_close(j);
}

static void side_numbers(jw_out *j, const char *key, const name_side *s) {
    jw_key(j, key);
    if (!s) { jw_null(j); return; }
    jw_object_open(j);
    jw_key(j, "calls");
    jw_int(j, (int64_t)s->calls);
    jw_key(j, "total_ns");
    jw_number(j, s->total_ns);
    opt(j, "avg_ns", true, s->avg_ns);
    jw_object_close(j);
}

/* What a row is: in both documents, only in one, or beyond the other side's listed rows. */
static const char *row_change(const name_diff *nd, const name_row *r) {
    if (r->a && r->b) return "changed";
    if (!r->a) return nd->cut[0] ? "unlisted_in_base" : "added";
    return nd->cut[1] ? "unlisted_in_candidate" : "removed";
}

static void name_rows(jw_out *j, const char *key, const name_diff *nd, size_t rows, bool with_test) {
    jw_key(j, key);
    if (!nd->present) { jw_null(j); return; }
    jw_array_open(j);
    for (size_t i = 0; i < nd->nrows && i < rows; i++) {
        const name_row *r = &nd->rows[i];
        jw_object_open(j);
        jw_key(j, "name");
        jw_string_n(j, (r->a ? r->a : r->b)->name, (r->a ? r->a : r->b)->name_len);
        const char *cls = r->a && r->a->cls ? r->a->cls : r->b ? r->b->cls : NULL;
        if (cls) { jw_key(j, "class"); jw_string(j, cls); }
        side_numbers(j, "base", r->a);
        side_numbers(j, "candidate", r->b);
        jw_key(j, "change");
        jw_string(j, row_change(nd, r));
        opt(j, "delta_total_ns", true, r->delta_total_ns);
        opt(j, "delta_per_step_ns", true, r->per_step_ns);
        bool both = r->a && r->b && r->a->avg_ns > 0;
        opt(j, "delta_avg_pct", both, both ? (r->b->avg_ns - r->a->avg_ns) / r->a->avg_ns * 100.0 : 0);
        if (with_test) {
            ci(j, &r->test);
            jw_key(j, "verdict");
            jw_string(j, ns_verdict_name(r->test.verdict));
        }
        jw_object_close(j);
    }
    jw_array_close(j);
}

/* `<key>_diff`: how many names were compared, tested, added, removed, beyond a listed bound. */
static void name_totals(jw_out *j, const char *key, const name_diff *nd, size_t rows) {
    jw_key(j, key);
    if (!nd->present) { jw_null(j); return; }
    jw_object_open(j);
    jw_key(j, "names");
    jw_int(j, (int64_t)nd->nrows);
    jw_key(j, "listed");
    jw_int(j, (int64_t)(nd->nrows < rows ? nd->nrows : rows));
    jw_key(j, "tested");
    jw_int(j, (int64_t)nd->tested);
    jw_key(j, "alpha_per_name");
    jw_number(j, 0.05 / (double)(nd->tested ? nd->tested : 1));
    jw_key(j, "added");
    jw_int(j, (int64_t)nd->added);
    jw_key(j, "removed");
    jw_int(j, (int64_t)nd->removed);
    jw_key(j, "unlisted");
    jw_int(j, (int64_t)nd->unlisted);
    jw_object_close(j);
}

void compare_diff_write(const compare_diff *d, jw_out *j) {
    series(j, "step_time", &d->step);
    name_rows(j, "kernels", &d->kernels, d->rows, true);
    name_totals(j, "kernel_diff", &d->kernels, d->rows);
    name_rows(j, "ops", &d->ops, d->rows, true);
    name_totals(j, "op_diff", &d->ops, d->rows);
    name_rows(j, "classes", &d->classes, SIZE_MAX, false);
    jw_key(j, "step_parts");
    jw_object_open(j);
    for (size_t i = 0; i < d->nparts; i++) series(j, d->parts[i].key, &d->parts[i]);
    jw_object_close(j);
}

void compare_diff_timeline(const compare_diff *d, jw_out *j) {
    static const char *const keys[][2] = {
        {"host_wait_ns", "host_wait_seconds"}, {"kernel_wait_ns", "kernel_wait_seconds"},
        {"other_ns", "other_idle_seconds"}, {"memcpy_ns", "memcpy_seconds"},
        {"exposed_memcpy_ns", "exposed_memcpy_seconds"}};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        opt_num v[2];
        for (int s = 0; s < 2; s++) {
            double x = num_or_nan(json_object_get(json_object_get(d->doc[s], "timeline"), "run"), keys[k][0]);
            v[s] = (opt_num){isfinite(x), isfinite(x) ? x * 1e-9 : 0};
        }
        compare_delta_object(j, keys[k][1], v[0], v[1]);
    }
}

/* "182 ms" / "1.25 s" / "912 us": three significant digits in a readable unit. */
static void duration_text(double ns, char *out, size_t n) {
    double a = fabs(ns);
    if (a >= 1e9) snprintf(out, n, "%.3g s", ns / 1e9);
    else if (a >= 1e6) snprintf(out, n, "%.3g ms", ns / 1e6);
    else if (a >= 1e3) snprintf(out, n, "%.3g us", ns / 1e3);
    else snprintf(out, n, "%.3g ns", ns);
}

/* A mover's label: its class and the name cut at 24 bytes (on a UTF-8 boundary) with "…". */
static void mover_label(const name_row *r, char *out, size_t n) {
    const name_side *s = r->a ? r->a : r->b;
    size_t len = s->name_len, cut = utf8_cut(s->name, len, 24);
    char name[25];
    for (size_t i = 0; i < cut; i++) name[i] = s->name[i] ? s->name[i] : ' ';   /* (a NUL would end the text) */
    name[cut] = '\0';
    snprintf(out, n, "%s%s%s%s", s->cls ? s->cls : "", s->cls ? " " : "", name, cut < len ? "\xe2\x80\xa6" : "");
}

void compare_diff_summary(const compare_diff *d, char *out, size_t n) {
    assert(n > 0);
    const step_series *st = &d->step;
    char a[32], b[32];
    size_t used;
    if (st->has_median[0] && st->has_median[1]) {
        duration_text(st->median[0], a, sizeof a);
        duration_text(st->median[1], b, sizeof b);
        if (st->test.has_ci)
            used = (size_t)snprintf(out, n, "step %s \xe2\x86\x92 %s (%+.1f %%, 95 %% CI %+.1f \xe2\x80\xa6 %+.1f %%): %s",
                                    a, b, st->test.delta_pct, st->test.ci_low_pct, st->test.ci_high_pct,
                                    ns_verdict_name(st->test.verdict));
        else
            used = (size_t)snprintf(out, n, "step %s \xe2\x86\x92 %s: unknown (fewer than %d steps on a side)", a, b,
                                    NS_MIN_STEPS);
    } else {
        used = (size_t)snprintf(out, n, "step time unknown");
    }
    const name_diff *nd = d->kernels.tested ? &d->kernels : &d->ops;
    int shown = 0;
    for (size_t i = 0; i < nd->nrows && shown < 3 && used < n; i++) {
        const name_row *r = &nd->rows[i];
        if (r->test.verdict != NS_FASTER && r->test.verdict != NS_SLOWER) continue;
        char label[96], amount[32];
        mover_label(r, label, sizeof label);
        bool per_step = isfinite(r->per_step_ns);
        duration_text(per_step ? r->per_step_ns : r->delta_total_ns, amount, sizeof amount);
        used += (size_t)snprintf(out + used, n - used, "%s%s %s%s%s", shown ? ", " : "; ", label,
                                 (per_step ? r->per_step_ns : r->delta_total_ns) >= 0 ? "+" : "", amount,
                                 per_step ? "/step" : "");
        shown++;
    }
}
