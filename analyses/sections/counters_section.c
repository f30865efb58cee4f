/* counters_section: the `counters` section: hardware counter values per kernel name and
 * counter — dispatches, sum, mean, min, max (docs/ANALYSIS.md "counters").
 *
 * Inputs: REC_COUNTER, one record per dispatch and counter (rocprofv3's counter_collection.csv
 * and JSON sum a counter's dimension instances per dispatch before they reach here). The
 * kernel is the record's named field "kernel_name" (CSV) or "kernel" (JSON); a value without
 * one is listed under kernel null. A value that is not finite is not counted (`non_finite`).
 * Pairs are kept in one hash table per state, at most COUNTERS_MAX_PAIRS and COUNTERS_MAX_NAME_BYTES
 * of their names (later pairs' values
 * are counted in `unlisted` without a name). Sums are doubles in file order: a split read is
 * exact only when one piece holds no value (split_exact; otherwise the file is read again in
 * one piece). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/section.h"
#include "analyses/section_md.h"
#include "base/str_hash.h"

#define COUNTERS_MAX_PAIRS 65536u
#define COUNTERS_MAX_NAME_BYTES ((size_t)32 << 20)   /* their kernel and counter names (65,536 pairs of
                                                      * two 1 MiB CSV cells were 128 GiB) */

typedef struct counter_pair {
    char *kernel;            /* NULL: the value named no kernel */
    char *counter;
    size_t kernel_len, counter_len;
    uint64_t hash;
    uint64_t dispatches;
    double sum, min, max;
} counter_pair;

typedef struct counters_state {
    counter_pair *v;         /* first-seen order */
    size_t n, cap;
    uint32_t *slots;         /* open addressing: index + 1, 0 empty; 2x COUNTERS_MAX_PAIRS at most */
    size_t n_slots;
    uint64_t values, non_finite, dropped;   /* dropped: values of pairs beyond the bounds */
    size_t name_bytes;                      /* the pairs' names, with their NULs (COUNTERS_MAX_NAME_BYTES) */
    bool oom;
    diag_list *diag;
    const analysis_config *cfg;             /* run state only (list_rows read at render) */
} counters_state;

/* The keyed hash (base/str_hash.h) of the kernel (or a marker for none) and the counter name. */
static uint64_t pair_hash(const char *k, size_t kn, const char *c, size_t cn) {
    uint64_t h = k ? str_hash_n(k, kn, 0) : (uint64_t)0xFF;
    return str_hash_n(c, cn, h);
}

static bool pair_is(const counter_pair *p, uint64_t h, const char *k, size_t kn, const char *c, size_t cn) {
    if (p->hash != h || p->counter_len != cn || memcmp(p->counter, c, cn)) return false;
    if (!k || !p->kernel) return !k && !p->kernel;
    return p->kernel_len == kn && !memcmp(p->kernel, k, kn);
}

static bool rehash(counters_state *s, size_t n_slots) {
    uint32_t *slots = calloc(n_slots, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = (size_t)s->v[i].hash & (n_slots - 1);
        while (slots[j]) j = (j + 1) & (n_slots - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(s->slots);
    s->slots = slots;
    s->n_slots = n_slots;
    return true;
}

/* The pair (k, c), created empty when new; NULL when the table is full (*oom false) or on
 * allocation failure (*oom true). */
static counter_pair *pair_of(counters_state *s, const char *k, size_t kn, const char *c, size_t cn, bool *oom) {
    uint64_t h = pair_hash(k, kn, c, cn);
    if (s->n_slots) {
        for (size_t j = (size_t)h & (s->n_slots - 1); s->slots[j]; j = (j + 1) & (s->n_slots - 1))
            if (pair_is(&s->v[s->slots[j] - 1], h, k, kn, c, cn)) return &s->v[s->slots[j] - 1];
    }
    if (s->n >= COUNTERS_MAX_PAIRS || kn + cn + 2 > COUNTERS_MAX_NAME_BYTES - s->name_bytes) return NULL;
    if (2 * (s->n + 1) > s->n_slots && !rehash(s, s->n_slots ? 2 * s->n_slots : 64)) return *oom = true, NULL;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        counter_pair *v = realloc(s->v, cap * sizeof *v);
        if (!v) return *oom = true, NULL;
        s->v = v;
        s->cap = cap;
    }
    counter_pair p = {.kernel_len = kn, .counter_len = cn, .hash = h, .min = INFINITY, .max = -INFINITY};
    p.counter = strndup(c, cn);
    p.kernel = k ? strndup(k, kn) : NULL;
    if (!p.counter || (k && !p.kernel)) {
        free(p.counter);
        free(p.kernel);
        return *oom = true, NULL;
    }
    s->v[s->n] = p;
    s->name_bytes += kn + cn + 2;
    size_t j = (size_t)h & (s->n_slots - 1);
    while (s->slots[j]) j = (j + 1) & (s->n_slots - 1);
    s->slots[j] = (uint32_t)(++s->n);
    return &s->v[s->n - 1];
}

/* Folds `dispatches` values summing to sum (extremes min, max) into pair (k, c). */
static bool add_values(counters_state *s, const char *k, size_t kn, const char *c, size_t cn, uint64_t dispatches,
                       double sum, double min, double max) {
    bool oom = false;
    counter_pair *p = pair_of(s, k, kn, c, cn, &oom);
    if (!p) {
        if (oom) return s->oom = true, false;
        s->dropped += dispatches;
        return true;
    }
    p->dispatches += dispatches;
    p->sum += sum;
    if (min < p->min) p->min = min;
    if (max > p->max) p->max = max;
    return true;
}

static void *c_open(const analysis_config *cfg, diag_list *diag) {
    counters_state *s = calloc(1, sizeof *s);
    if (s) s->diag = diag, s->cfg = cfg;
    return s;
}

static void *c_open_source(void *run, const source_ref *src) {
    (void)src;
    return c_open(NULL, ((counters_state *)run)->diag);
}

static bool c_consume(void *st, const record *r) {
    counters_state *s = st;
    if (r->type != REC_COUNTER || !r->name || !(r->has & RF_VALUE)) return true;
    if (!isfinite(r->number)) { s->non_finite++; return true; }
    const char *k = NULL;
    size_t kn = 0;
    for (size_t i = 0; i < r->n_fields && !k; i++)
        if (r->fields[i].key && r->fields[i].value &&
            (!strcmp(r->fields[i].key, "kernel_name") || !strcmp(r->fields[i].key, "kernel")))
            k = r->fields[i].value, kn = r->fields[i].value_len;
    s->values++;
    return add_values(s, k, kn, r->name, r->name_len, 1, r->number, r->number, r->number);
}

static void c_close(void *st) {
    counters_state *s = st;
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) free(s->v[i].kernel), free(s->v[i].counter);
    free(s->v);
    free(s->slots);
    free(s);
}

static bool c_end_source(void *run, void *src) {
    counters_state *r = run, *s = src;
    bool ok = !s->oom;
    for (size_t i = 0; ok && i < s->n; i++) {
        const counter_pair *p = &s->v[i];
        ok = add_values(r, p->kernel, p->kernel_len, p->counter, p->counter_len, p->dispatches, p->sum, p->min, p->max);
    }
    r->values += s->values;
    r->non_finite += s->non_finite;
    r->dropped += s->dropped;
    r->oom |= !ok;
    c_close(s);
    return ok;
}

/* Any file may be read in two pieces (a kernel trace split for its other sections holds no
 * counter value); whether the pieces fold exactly is decided once both are read: */
static bool c_split_ok(const source_ref *src) {
    (void)src;
    return true;
}

/* exact when one piece holds no value (double sums fold in order only then) */
static bool c_split_exact(const void *first, const void *second) {
    return !((const counters_state *)first)->values || !((const counters_state *)second)->values;
}

static bool c_finish(void *run, const section_results *earlier) {
    (void)earlier;
    counters_state *s = run;
    if (s->oom) diag_oom(s->diag, "counters: out of memory; counter values are partial");
    if (s->dropped)
        diag_add(s->diag, "counters: more than %u (kernel, counter) pairs (or %zu MiB of their names); %llu values "
                 "of further pairs are counted in unlisted only", COUNTERS_MAX_PAIRS, COUNTERS_MAX_NAME_BYTES >> 20,
                 (unsigned long long)s->dropped);
    if (s->non_finite)
        diag_add(s->diag, "counters: %llu counter values are not finite numbers; not counted",
                 (unsigned long long)s->non_finite);
    return true;
}

/* Listing order: most dispatches first, then kernel (none last), then counter, bytewise. */
static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn) {
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

static int cmp_pair(const void *x, const void *y) {
    const counter_pair *a = *(counter_pair *const *)x, *b = *(counter_pair *const *)y;
    if (a->dispatches != b->dispatches) return a->dispatches > b->dispatches ? -1 : 1;
    if (!a->kernel != !b->kernel) return a->kernel ? -1 : 1;
    int c = a->kernel ? cmp_bytes(a->kernel, a->kernel_len, b->kernel, b->kernel_len) : 0;
    return c ? c : cmp_bytes(a->counter, a->counter_len, b->counter, b->counter_len);
}

/* The pairs in listing order (malloc'd; NULL when there are none or on OOM). */
static counter_pair **sorted(const counters_state *s) {
    counter_pair **o = s->n ? malloc(s->n * sizeof *o) : NULL;
    for (size_t i = 0; o && i < s->n; i++) o[i] = &s->v[i];
    if (o) qsort(o, s->n, sizeof *o, cmp_pair);
    return o;
}

static size_t listed_of(const counters_state *s) {
    size_t rows = s->cfg ? s->cfg->list_rows : 0;
    return rows && rows < s->n ? rows : s->n;
}

/* Dispatches of the pairs not listed: those past `listed` in listing order (their sum does
 * not depend on the order) plus the values of pairs beyond the table's bound. */
static uint64_t unlisted_dispatches(const counters_state *s, size_t listed, counter_pair *const *o) {
    uint64_t cut = s->dropped, all = 0, in_list = 0;
    for (size_t i = 0; i < s->n; i++) all += s->v[i].dispatches;
    for (size_t i = 0; o && i < listed; i++) in_list += o[i]->dispatches;
    return cut + all - in_list;
}

static void c_render(const void *run, jw_out *w) {
    const counters_state *s = run;
    if (!s->values) { jw_null(w); return; }
    counter_pair **o = sorted(s);
    if (!o && s->n) jw_fail(w);                  /* (the list would be missing) */
    size_t listed = o ? listed_of(s) : 0;
    jw_object_open(w);
    jw_key(w, "values");
    jw_int(w, (int64_t)s->values);
    jw_key(w, "pairs");
    jw_int(w, (int64_t)s->n);
    jw_key(w, "non_finite");
    jw_int(w, (int64_t)s->non_finite);
    jw_key(w, "by_kernel_counter");
    jw_array_open(w);
    for (size_t i = 0; i < listed; i++) {
        const counter_pair *p = o[i];
        jw_object_open(w);
        jw_key(w, "kernel");
        if (p->kernel) jw_string_n(w, p->kernel, p->kernel_len); else jw_null(w);
        jw_key(w, "counter");
        jw_string_n(w, p->counter, p->counter_len);
        jw_key(w, "dispatches");
        jw_int(w, (int64_t)p->dispatches);
        jw_key(w, "sum");
        jw_number(w, p->sum);
        jw_key(w, "mean");
        jw_number(w, p->sum / (double)p->dispatches);
        jw_key(w, "min");
        jw_number(w, p->min);
        jw_key(w, "max");
        jw_number(w, p->max);
        jw_object_close(w);
    }
    jw_array_close(w);
    jw_key(w, "listed");
    jw_int(w, (int64_t)listed);
    if (listed < s->n || s->dropped) {
        jw_key(w, "unlisted");
        jw_object_open(w);
        jw_key(w, "pairs");
        if (s->dropped) jw_null(w); else jw_int(w, (int64_t)(s->n - listed));
        jw_key(w, "dispatches");
        jw_int(w, (int64_t)unlisted_dispatches(s, listed, o));
        jw_object_close(w);
    }
    free(o);
    jw_object_close(w);
}

/* The report's counter table: the listed pairs (analysis_list_rows). */
static void c_render_md(const void *run, strbuf *out) {
    const counters_state *s = run;
    if (!s->values) return;
    counter_pair **o = sorted(s);
    if (!o && s->n) out->failed = true;            /* (the table would be missing) */
    size_t listed = o ? listed_of(s) : 0;
    smd_printf(out, "## Counters\n\n%llu counter values, %zu (kernel, counter) pairs.\n\n"
                    "| kernel | counter | dispatches | sum | mean | min | max |\n|---|---|---:|---:|---:|---:|---:|\n",
               (unsigned long long)s->values, s->n);
    for (size_t i = 0; i < listed; i++) {
        const counter_pair *p = o[i];
        strbuf_append(out, "| ", 2);
        smd_cell(out, p->kernel, p->kernel_len, 80);
        strbuf_append(out, " | ", 3);
        smd_cell(out, p->counter, p->counter_len, 80);
        smd_printf(out, " | %llu |", (unsigned long long)p->dispatches);
        smd_num(out, p->sum, 3, true);
        smd_num(out, p->sum / (double)p->dispatches, 3, true);
        smd_num(out, p->min, 3, true);
        smd_num(out, p->max, 3, true);
        strbuf_putc(out, '\n');
    }
    if (listed < s->n || s->dropped)
        smd_printf(out, "\n%llu more dispatches' values of %s pairs not listed (analysis_list_rows).\n",
                   (unsigned long long)unlisted_dispatches(s, listed, o), s->dropped ? "further" : "other");
    free(o);
    strbuf_putc(out, '\n');
}

/* Numbers: "values", "pairs". */
static bool c_number(const void *run, const char *path, double *out) {
    const counters_state *s = run;
    if (!s->values) return false;
    if (!strcmp(path, "values")) *out = (double)s->values;
    else if (!strcmp(path, "pairs")) *out = (double)s->n;
    else return false;
    return true;
}

const section_analysis counters_section = {
    .key = "counters",
    .wants = REC_BIT(REC_COUNTER),
    .fields = RF_VALUE,
    .splittable = false,
    .split_ok = c_split_ok,
    .split_exact = c_split_exact,
    .open = c_open,
    .open_source = c_open_source,
    .consume = c_consume,
    .end_source = c_end_source,
    .finish = c_finish,
    .render = c_render,
    .render_md = c_render_md,
    .number = c_number,
    .close = c_close,
};
