/* classes: the `classes` section — kernel time per kernel class (docs/ANALYSIS.md "classes").
 *
 * Every kernel dispatch gets its class from the shared name-pattern table
 * (analyses/kernel_class.c); memory copies count as memcpy and memsets as memset, whatever
 * their name. Barrier packets are their own class, outside the kernel totals (kernel_calls,
 * kernel_total_ns). Per class: calls, total_ns (sum of durations), pct of the total. Integer sums
 * only, so a split read folds exactly (splittable). A record without a duration (neither
 * duration nor start/end) counts a call but no time (`calls_without_duration`), never 0 ns
 * as if measured. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/kernel_class_cache.h"
#include "analyses/section.h"

typedef struct classes_state {
    uint64_t calls[KC_COUNT];
    i128 total_ns[KC_COUNT];
    uint64_t kernel_calls;        /* REC_KERNEL_DISPATCH only */
    i128 kernel_total_ns;
    uint64_t without_duration;
    bool any;                     /* a record was seen */
    kernel_class_cache cache;
} classes_state;

/* A record's duration (record_duration): false when unknown or < 0. */
static bool known_duration(const record *r, i128 *out) { return record_duration(r, out) && *out >= 0; }

static void *cl_open(const analysis_config *cfg, diag_list *diag) {
    (void)cfg, (void)diag;
    return calloc(1, sizeof(classes_state));
}

static void *cl_open_source(void *run, const source_ref *src) {
    (void)run, (void)src;
    return calloc(1, sizeof(classes_state));
}

static bool cl_consume(void *st, const record *r) {
    classes_state *s = st;
    kernel_class k = r->type == REC_MEMORY_COPY ? KC_MEMCPY
                     : r->type == REC_MEMSET    ? KC_MEMSET
                                                : kcc_class_of(&s->cache, r->name, r->name_len);
    i128 d;
    bool has_d = known_duration(r, &d);
    s->any = true;
    s->calls[k]++;
    if (has_d) s->total_ns[k] = i128_add(s->total_ns[k], d);
    else s->without_duration++;
    if (r->type == REC_KERNEL_DISPATCH && k != KC_BARRIER) {   /* a barrier packet is not a kernel */
        s->kernel_calls++;
        if (has_d) s->kernel_total_ns = i128_add(s->kernel_total_ns, d);
    }
    return true;
}

static bool cl_end_source(void *run, void *src) {
    classes_state *r = run, *s = src;
    for (int k = 0; k < KC_COUNT; k++) {
        r->calls[k] += s->calls[k];
        r->total_ns[k] = i128_add(r->total_ns[k], s->total_ns[k]);
    }
    r->kernel_calls += s->kernel_calls;
    r->kernel_total_ns = i128_add(r->kernel_total_ns, s->kernel_total_ns);
    r->without_duration += s->without_duration;
    r->any |= s->any;
    kcc_free(&s->cache);
    free(s);
    return true;
}

static bool cl_finish(void *run, const section_results *earlier) {
    (void)run, (void)earlier;
    return true;
}

static i128 total_of(const classes_state *s) {
    i128 t = 0;
    for (int k = 0; k < KC_COUNT; k++) t = i128_add(t, s->total_ns[k]);
    return t;
}

static void put_i128(jw_out *w, i128 v) {
    if (v >= (i128)INT64_MIN && v <= (i128)INT64_MAX) jw_int(w, (int64_t)v);
    else jw_number(w, (double)v);
}

static void cl_render(const void *run, jw_out *w) {
    const classes_state *s = run;
    if (!s || !s->any) { jw_null(w); return; }
    i128 total = total_of(s);
    jw_object_open(w);
    jw_key(w, "total_ns");
    put_i128(w, total);
    jw_key(w, "kernel_total_ns");
    put_i128(w, s->kernel_total_ns);
    jw_key(w, "kernel_calls");
    jw_int(w, (int64_t)s->kernel_calls);
    jw_key(w, "calls_without_duration");
    jw_int(w, (int64_t)s->without_duration);
    jw_key(w, "by_class");
    jw_array_open(w);
    /* largest time first; ties in the table's class order (deterministic) */
    int order[KC_COUNT], n = 0;
    for (int k = 0; k < KC_COUNT; k++)
        if (s->calls[k]) order[n++] = k;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s->total_ns[order[j]] > s->total_ns[order[j - 1]]; j--) {
            int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        int k = order[i];
        jw_object_open(w);
        jw_key(w, "class");
        jw_string(w, kernel_class_key((kernel_class)k));
        jw_key(w, "calls");
        jw_int(w, (int64_t)s->calls[k]);
        jw_key(w, "total_ns");
        put_i128(w, s->total_ns[k]);
        jw_key(w, "pct");
        if (total > 0) jw_number(w, 100.0 * (double)s->total_ns[k] / (double)total);
        else jw_null(w);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_object_close(w);
}

/* printf onto the report (lines are short; a longer one is cut, never overflowed). */
static void md(strbuf *out, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) strbuf_append(out, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void cl_render_md(const void *run, strbuf *out) {
    const classes_state *s = run;
    if (!s || !s->any) return;
    i128 total = total_of(s);
    md(out, "## Kernel classes\n\n| class | calls | time (ms) | share |\n|---|---:|---:|---:|\n");
    for (int k = 0; k < KC_COUNT; k++) {
        if (!s->calls[k]) continue;
        double pct = total > 0 ? 100.0 * (double)s->total_ns[k] / (double)total : 0;
        md(out, "| %s | %llu | %.3f | %s%.1f%% |\n", kernel_class_key((kernel_class)k),
                       (unsigned long long)s->calls[k], (double)s->total_ns[k] / 1e6, total > 0 ? "" : "n/a ", pct);
    }
    md(out, "\n");
}

/* Paths: "total_ns", "kernel_total_ns", "kernel_calls", "by_class.<class>.calls|total_ns|pct". */
static bool cl_number(const void *run, const char *path, double *out) {
    const classes_state *s = run;
    if (!s || !s->any) return false;
    i128 total = total_of(s);
    if (!strcmp(path, "total_ns")) { *out = (double)total; return true; }
    if (!strcmp(path, "kernel_total_ns")) { *out = (double)s->kernel_total_ns; return true; }
    if (!strcmp(path, "kernel_calls")) { *out = (double)s->kernel_calls; return true; }
    if (strncmp(path, "by_class.", 9)) return false;
    const char *key = path + 9, *dot = strchr(key, '.');
    if (!dot) return false;
    for (int k = 0; k < KC_COUNT; k++) {
        const char *name = kernel_class_key((kernel_class)k);
        if (strlen(name) != (size_t)(dot - key) || strncmp(name, key, (size_t)(dot - key))) continue;
        if (!strcmp(dot + 1, "calls")) { *out = (double)s->calls[k]; return true; }
        if (!strcmp(dot + 1, "total_ns")) { *out = (double)s->total_ns[k]; return true; }
        if (!strcmp(dot + 1, "pct") && total > 0) { *out = 100.0 * (double)s->total_ns[k] / (double)total; return true; }
        return false;
    }
    return false;
}

static void cl_close(void *run) {
    classes_state *s = run;
    if (!s) return;
    kcc_free(&s->cache);
    free(s);
}

const section_analysis classes_section = {
    .key = "classes",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_MEMORY_COPY) | REC_BIT(REC_MEMSET),
    .fields = RF_START | RF_END | RF_DURATION,
    .splittable = true,
    .open = cl_open,
    .open_source = cl_open_source,
    .consume = cl_consume,
    .end_source = cl_end_source,
    .finish = cl_finish,
    .render = cl_render,
    .render_md = cl_render_md,
    .number = cl_number,
    .close = cl_close,
};
